//! Arena: plays games between two levels (or two time budgets) from a fixed opening set (by
//! default the rule's 50 balanced openings; `--openings classic` for the 26 classical ones),
//! each opening twice with colours swapped, and prints the W-D-L of the first player.
//!
//! Example: `arena --a hard --b medium --rule renju --games 100 --a-ms 200 --b-ms 40`

use gomoku_engine::openings;
use gomoku_engine::position::Position;
use gomoku_engine::{decide, Level, Reason, SearchOptions};
use gomoku_rules::{Coord, Game, Outcome, Rule, Stone};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

struct Side {
    level: Level,
    budget: Duration,
}

fn usage() -> ! {
    eprintln!(
        "usage: arena --a LEVEL --b LEVEL [--a-ms MS] [--b-ms MS] [--rule freestyle|standard|renju] \
         [--games N] [--first N] [--size N] [--seed N] [--openings balanced|classic] [--verbose]"
    );
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut a = Side {
        level: Level::Hard,
        budget: Level::Hard.default_budget(),
    };
    let mut b = Side {
        level: Level::Medium,
        budget: Level::Medium.default_budget(),
    };
    let (mut a_ms, mut b_ms) = (None, None);
    let mut rule = Rule::Freestyle;
    let mut games = 100usize;
    // Index of the first game: lets two processes split one match (games 0..50 and 50..100).
    let mut first = 0usize;
    let mut size = 15usize;
    let mut seed = 1u64;
    let mut verbose = false;
    let mut classic = false;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--a" => a.level = Level::parse(&value()).unwrap_or_else(|| usage()),
            "--b" => b.level = Level::parse(&value()).unwrap_or_else(|| usage()),
            "--a-ms" => a_ms = Some(value().parse::<u64>().unwrap_or_else(|_| usage())),
            "--b-ms" => b_ms = Some(value().parse::<u64>().unwrap_or_else(|_| usage())),
            "--rule" => rule = value().parse().unwrap_or_else(|_| usage()),
            "--games" => games = value().parse().unwrap_or_else(|_| usage()),
            "--first" => first = value().parse().unwrap_or_else(|_| usage()),
            "--size" => size = value().parse().unwrap_or_else(|_| usage()),
            "--seed" => seed = value().parse().unwrap_or_else(|_| usage()),
            "--verbose" => verbose = true,
            "--openings" => {
                classic = match value().as_str() {
                    "classic" => true,
                    "balanced" => false,
                    _ => usage(),
                }
            }
            _ => usage(),
        }
    }
    a.budget = a_ms
        .map(Duration::from_millis)
        .unwrap_or(a.level.default_budget());
    b.budget = b_ms
        .map(Duration::from_millis)
        .unwrap_or(b.level.default_budget());
    let book = if classic {
        openings::classic()
    } else {
        openings::balanced(rule)
    };
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut as_black = [0usize; 3];
    let mut max_ms = [0u128; 2];
    let mut total_ms = [0u128; 2];
    let mut moves_by = [0u128; 2];
    let mut reasons: [BTreeMap<&str, usize>; 2] = Default::default();
    // Per side: games in which it claimed a forced win and then [won, did not win].
    let mut claims: [BTreeMap<&str, [usize; 2]>; 2] = Default::default();
    let started = Instant::now();
    for g in first..first + games {
        let opening = &book[(g / 2) % book.len()];
        // Even games: A plays black; odd games: the same opening with colours swapped.
        let a_black = g % 2 == 0;
        let mut game =
            Game::replay(size, rule, &openings::points(opening, size)).expect("openings are legal");
        let mut ply = 0u64;
        // The kind of the first forced win (VCF, VCT or search) each side claimed.
        let mut claimed: [Option<&str>; 2] = [None; 2];
        while !game.is_over() {
            let a_to_move = (game.to_move() == Some(Stone::Black)) == a_black;
            let side = if a_to_move { &a } else { &b };
            let opts = SearchOptions {
                time_budget: side.budget,
                seed: seed
                    .wrapping_mul(1_000_003)
                    .wrapping_add(g as u64 * 1000 + ply),
                stop: None,
                node_limit: None,
            };
            let t = Instant::now();
            let mut pos = Position::from_game(&game);
            let Some(decision) = decide(&mut pos, side.level, &opts) else {
                break;
            };
            let p = pos.point(decision.point);
            let ms = t.elapsed().as_millis();
            if verbose && ms > side.budget.as_millis() * 11 / 10 + 10 {
                eprintln!(
                    "slow move: {ms} ms (budget {} ms), game {}, ply {ply}",
                    side.budget.as_millis(),
                    g + 1
                );
            }
            let who = usize::from(!a_to_move);
            max_ms[who] = max_ms[who].max(ms);
            total_ms[who] += ms;
            moves_by[who] += 1;
            *reasons[who]
                .entry(reason_kind(decision.reason))
                .or_insert(0) += 1;
            if matches!(
                decision.reason,
                Reason::Vcf(_) | Reason::Vct(_) | Reason::ForcedWin
            ) && claimed[who].is_none()
            {
                claimed[who] = Some(reason_kind(decision.reason));
            }
            game.play(p).expect("the engine plays legal moves");
            ply += 1;
        }
        let result = match game.outcome() {
            Outcome::Win { winner, .. } => {
                if (*winner == Stone::Black) == a_black {
                    wins += 1;
                    0
                } else {
                    losses += 1;
                    2
                }
            }
            _ => {
                draws += 1;
                1
            }
        };
        if a_black {
            as_black[result] += 1;
        }
        // A claimed win that was not won means the proof was wrong (or the claimant erred).
        for (who, won_result) in [(0, 0), (1, 2)] {
            if let Some(kind) = claimed[who] {
                claims[who].entry(kind).or_insert([0, 0])[usize::from(result != won_result)] += 1;
            }
        }
        if verbose {
            let r = ["A wins", "draw", "B wins"][result];
            eprintln!(
                "game {:3} opening {:2} A {}: {} after {} moves",
                g + 1,
                g / 2 + 1,
                if a_black { "black" } else { "white" },
                r,
                game.moves().len()
            );
            let record: Vec<String> = game
                .moves()
                .iter()
                .map(|m| Coord::from_point(m.point, size).to_string())
                .collect();
            eprintln!("  moves: {}", record.join(" "));
        }
    }
    println!(
        "rule {} size {} games {} ({} openings): A = {} ({} ms) vs B = {} ({} ms)",
        rule,
        size,
        games,
        if classic { "classic" } else { "balanced" },
        a.level.as_str(),
        a.budget.as_millis(),
        b.level.as_str(),
        b.budget.as_millis()
    );
    println!(
        "A W-D-L: {wins}-{draws}-{losses}  (A as black: {}-{}-{})",
        as_black[0], as_black[1], as_black[2]
    );
    println!(
        "score of A: {:.1}%",
        100.0 * (wins as f64 + 0.5 * draws as f64) / games.max(1) as f64
    );
    for (i, name) in ["A", "B"].iter().enumerate() {
        let n = moves_by[i].max(1);
        println!(
            "{name} move time: mean {} ms, max {} ms over {} moves",
            total_ms[i] / n,
            max_ms[i],
            moves_by[i]
        );
    }
    for (i, name) in ["A", "B"].iter().enumerate() {
        let list: Vec<String> = reasons[i].iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!("{name} moves by reason: {}", list.join(", "));
        let list: Vec<String> = claims[i]
            .iter()
            .map(|(k, [won, not])| format!("{k} {won} won / {not} not"))
            .collect();
        println!(
            "{name} first claim of a forced win, by kind: {}",
            list.join(", ")
        );
    }
    println!("wall time {:.1} s", started.elapsed().as_secs_f64());
}

/// The reason's kind without its numbers, for the tally.
fn reason_kind(r: Reason) -> &'static str {
    match r {
        Reason::Vcf(_) => "vcf",
        Reason::Vct(_) => "vct",
        Reason::ForcedWin => "search-win",
        Reason::Search | Reason::BlocksThree => "search",
        Reason::Five | Reason::BlockFour | Reason::BlockOpenFour | Reason::OpenFour => "forced",
        Reason::Lost => "lost",
        Reason::Opening | Reason::Casual => "other",
    }
}
