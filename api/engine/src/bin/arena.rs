//! Arena: plays games between two levels (or two time budgets) from the 26 classical openings,
//! each opening twice with colours swapped, and prints the W-D-L of the first player.
//!
//! Example: `arena --a hard --b medium --rule renju --games 52 --a-ms 200 --b-ms 40`

use gomoku_engine::openings;
use gomoku_engine::{best_move, Level, SearchOptions};
use gomoku_rules::{Game, Outcome, Rule, Stone};
use std::time::{Duration, Instant};

struct Side {
    level: Level,
    budget: Duration,
}

fn usage() -> ! {
    eprintln!(
        "usage: arena --a LEVEL --b LEVEL [--a-ms MS] [--b-ms MS] [--rule freestyle|standard|renju] \
         [--games N] [--size N] [--seed N] [--verbose]"
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
    let mut games = 52usize;
    let mut size = 15usize;
    let mut seed = 1u64;
    let mut verbose = false;
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
            "--size" => size = value().parse().unwrap_or_else(|_| usage()),
            "--seed" => seed = value().parse().unwrap_or_else(|_| usage()),
            "--verbose" => verbose = true,
            _ => usage(),
        }
    }
    a.budget = a_ms
        .map(Duration::from_millis)
        .unwrap_or(a.level.default_budget());
    b.budget = b_ms
        .map(Duration::from_millis)
        .unwrap_or(b.level.default_budget());
    let book = openings::openings();
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut as_black = [0usize; 3];
    let mut max_ms = [0u128; 2];
    let mut total_ms = [0u128; 2];
    let mut moves_by = [0u128; 2];
    let started = Instant::now();
    for g in 0..games {
        let opening = &book[(g / 2) % book.len()];
        // Even games: A plays black; odd games: the same opening with colours swapped.
        let a_black = g % 2 == 0;
        let mut game =
            Game::replay(size, rule, &openings::points(opening, size)).expect("openings are legal");
        let mut ply = 0u64;
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
            let Some(p) = best_move(&game, side.level, &opts) else {
                break;
            };
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
        }
    }
    println!(
        "rule {} size {} games {}: A = {} ({} ms) vs B = {} ({} ms)",
        rule,
        size,
        games,
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
    println!("wall time {:.1} s", started.elapsed().as_secs_f64());
}
