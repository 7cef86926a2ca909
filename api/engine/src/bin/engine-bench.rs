//! Engine benchmark: nodes per second, depth reached and move-time distribution per level over
//! a fixed set of positions (the 26 openings, each continued by medium-level self-play for a
//! fixed number of moves, so every run measures the same positions).
//!
//! Example: `engine-bench --rule freestyle --positions 20 --levels medium,hard`
//!
//! With `--nodes N` every search stops after N nodes instead of at its budget: the work is then
//! the same on any machine, so run under `valgrind --tool=callgrind` the instruction count per
//! node compares two builds exactly, whatever the load (time-based figures on a shared machine
//! do not).

use gomoku_engine::position::Position;
use gomoku_engine::{decide, openings, Level, SearchOptions};
use gomoku_rules::{Game, Rule};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rule = Rule::Freestyle;
    let mut count = 26usize;
    let mut levels = Level::ALL.to_vec();
    let mut budget_ms: Option<u64> = None;
    let mut node_limit: Option<u64> = None;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().cloned().unwrap_or_default();
        match flag.as_str() {
            "--rule" => rule = value.parse().expect("freestyle, standard or renju"),
            "--positions" => count = value.parse().expect("a number"),
            "--levels" => {
                levels = value
                    .split(',')
                    .map(|s| Level::parse(s).expect("a level"))
                    .collect()
            }
            "--ms" => budget_ms = Some(value.parse().expect("milliseconds")),
            "--nodes" => node_limit = Some(value.parse().expect("a node count")),
            _ => {
                eprintln!("usage: engine-bench [--rule R] [--positions N] [--levels easy,medium,hard,master] [--ms MS] [--nodes N]");
                std::process::exit(2);
            }
        }
    }
    let positions = bench_positions(rule, count);
    println!(
        "rule {rule}, {} positions (openings + 6..=16 self-play moves)",
        positions.len()
    );
    println!(
        "{:<7} {:>9} {:>10} {:>6} {:>6} {:>7} {:>7} {:>7} {:>7}",
        "level", "budget", "nodes/s", "depth", "maxd", "p50 ms", "p90 ms", "max ms", "mean"
    );
    let mut all_nodes = 0u64;
    for level in levels {
        let budget = if node_limit.is_some() {
            // The node limit alone ends the search (see `Clock::spent`).
            Duration::from_secs(3600)
        } else {
            budget_ms
                .map(Duration::from_millis)
                .unwrap_or(level.default_budget())
        };
        let mut times = Vec::new();
        let (mut nodes, mut depth_sum, mut depth_max, mut searched) = (0u64, 0i64, 0, 0);
        let mut total = Duration::ZERO;
        for (i, game) in positions.iter().enumerate() {
            let mut pos = Position::from_game(game);
            let opts = SearchOptions {
                time_budget: budget,
                seed: i as u64,
                stop: None,
                node_limit,
            };
            let t = Instant::now();
            let d = decide(&mut pos, level, &opts).expect("a move");
            let el = t.elapsed();
            total += el;
            times.push(el.as_secs_f64() * 1000.0);
            nodes += d.nodes;
            all_nodes += d.nodes;
            if d.depth > 0 {
                depth_sum += d.depth as i64;
                depth_max = depth_max.max(d.depth);
                searched += 1;
            }
        }
        times.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        let pct = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!(
            "{:<7} {:>7}ms {:>10.0} {:>6.1} {:>6} {:>7.1} {:>7.1} {:>7.1} {:>7.1}",
            level.as_str(),
            budget.as_millis(),
            nodes as f64 / total.as_secs_f64().max(1e-9),
            depth_sum as f64 / searched.max(1) as f64,
            depth_max,
            pct(0.5),
            pct(0.9),
            pct(1.0),
            total.as_secs_f64() * 1000.0 / times.len() as f64
        );
    }
    println!("nodes in all: {all_nodes}");
}

/// The openings continued by a fixed number of medium-level moves under a node limit (so the
/// positions do not depend on the machine's speed).
fn bench_positions(rule: Rule, count: usize) -> Vec<Game> {
    let book = openings::classic();
    let mut out = Vec::new();
    for i in 0..count {
        let opening = &book[i % book.len()];
        let mut game =
            Game::replay(15, rule, &openings::points(opening, 15)).expect("legal opening");
        let extra = 6 + (i * 7) % 11;
        for k in 0..extra {
            let opts = SearchOptions {
                time_budget: Duration::from_secs(3600),
                seed: (i * 100 + k) as u64,
                stop: None,
                node_limit: Some(3000),
            };
            let Some(p) = gomoku_engine::best_move(&game, Level::Medium, &opts) else {
                break;
            };
            if game.play(p).is_err() || game.is_over() {
                break;
            }
        }
        if game.is_over() {
            game.undo().expect("a move to take back");
        }
        out.push(game);
    }
    out
}
