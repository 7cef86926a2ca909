//! Writes a balanced opening set for a rule: draws random quiet three- to five-stone openings
//! around the centre in which neither side has a win by continuous threats, has the engine
//! search each to a fixed depth under a node limit (so the run is reproducible), and keeps the
//! `--count` whose score is nearest to even, distinct up to symmetry. The output is the format of `data/openings-<rule>.txt`.
//!
//! Example: `openings-gen --rule renju --count 50 --candidates 1200 > data/openings-renju.txt`

use gomoku_engine::movegen::{self, Situation};
use gomoku_engine::openings::{self, Opening};
use gomoku_engine::position::{Position, Rng};
use gomoku_engine::search::Search;
use gomoku_engine::threat::{self, Kind};
use gomoku_engine::time::Clock;
use gomoku_rules::{Game, Rule};
use std::collections::BTreeSet;
use std::time::Duration;

const SIZE: usize = 15;
/// Depth (attacker moves) and node budget of the check that neither side has a forcing win.
const VCT_DEPTH: u32 = 10;
const VCT_NODES: u64 = 100_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rule = Rule::Freestyle;
    let mut count = 50usize;
    let mut candidates = 1200usize;
    let mut depth = 6i32;
    let mut nodes = 200_000u64;
    let mut seed = 2026u64;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().cloned().unwrap_or_default();
        let bad = || -> ! {
            eprintln!(
                "usage: openings-gen [--rule R] [--count N] [--candidates N] [--depth D] \
                 [--nodes N] [--seed N]"
            );
            std::process::exit(2)
        };
        match flag.as_str() {
            "--rule" => rule = value.parse().unwrap_or_else(|_| bad()),
            "--count" => count = value.parse().unwrap_or_else(|_| bad()),
            "--candidates" => candidates = value.parse().unwrap_or_else(|_| bad()),
            "--depth" => depth = value.parse().unwrap_or_else(|_| bad()),
            "--nodes" => nodes = value.parse().unwrap_or_else(|_| bad()),
            "--seed" => seed = value.parse().unwrap_or_else(|_| bad()),
            _ => bad(),
        }
    }
    let mut rng = Rng::new(seed);
    let mut seen = BTreeSet::new();
    // (|score| for black, score, opening)
    let mut judged: Vec<(i32, i32, Opening)> = Vec::new();
    let mut tries = 0;
    while judged.len() < candidates && tries < candidates * 100 {
        tries += 1;
        let Some(opening) = random_opening(&mut rng, rule) else {
            continue;
        };
        if !seen.insert(openings::canonical(&opening)) {
            continue;
        }
        let game = Game::replay(SIZE, rule, &openings::points(&opening, SIZE)).expect("checked");
        let pos = Position::from_game(&game);
        let Situation::Quiet(roots) = movegen::situation(&pos, true) else {
            continue;
        };
        // Neither side may have a forcing win already (the side to move, or the other side were
        // it to move): such an opening is decided by the colour, not by the players.
        let mut probe = pos.clone();
        if threat::solve(&mut probe, Kind::Vct, VCT_DEPTH, VCT_NODES).is_some()
            || threat::opponent_threat(&mut probe, Kind::Vct, VCT_DEPTH, VCT_NODES)
                .0
                .is_some()
        {
            continue;
        }
        let black_to_move = game.to_move() == Some(gomoku_rules::Stone::Black);
        let clock = Clock::new(Duration::from_secs(3600), None, Some(nodes));
        let mut search = Search::new(pos.clone(), clock, 1 << 18);
        search.max_depth = depth;
        let Some(out) = search.run(&roots) else {
            continue;
        };
        let score = if black_to_move { out.score } else { -out.score };
        judged.push((score.abs(), score, opening));
    }
    judged.sort();
    let kept = &judged[..count.min(judged.len())];
    println!("# Balanced {rule} openings: (row,col) offsets from the centre, black first.");
    println!(
        "# Written by `openings-gen --rule {rule} --count {count} --candidates {candidates} \
         --depth {depth} --nodes {nodes} --seed {seed}`:"
    );
    println!(
        "# the {} of {} random quiet openings without a VCT for either side whose depth-{depth} \
         score is nearest to even.",
        kept.len(),
        judged.len()
    );
    println!("# The number after each is that score for black.");
    for (_, score, o) in kept {
        println!("{}  # {score}", openings::format(o));
    }
    let worst = kept.last().map_or(0, |k| k.0);
    eprintln!(
        "{} candidates judged; kept {} with |score| <= {worst}",
        judged.len(),
        kept.len()
    );
}

/// Three to five stones, black in the centre, each next stone within two points of an earlier
/// one and inside the central 7×7 square; None when the result is not a legal, quiet opening.
fn random_opening(rng: &mut Rng, rule: Rule) -> Option<Opening> {
    let stones = 3 + rng.below(3) as usize;
    let mut o: Opening = vec![(0, 0)];
    while o.len() < stones {
        let r = rng.below(7) as isize - 3;
        let c = rng.below(7) as isize - 3;
        if o.contains(&(r, c)) {
            continue;
        }
        if !o
            .iter()
            .any(|&(a, b)| (a - r).abs() <= 2 && (b - c).abs() <= 2)
        {
            continue;
        }
        o.push((r, c));
    }
    let game = Game::replay(SIZE, rule, &openings::points(&o, SIZE)).ok()?;
    (!game.is_over()).then_some(o)
}
