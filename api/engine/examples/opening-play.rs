//! Measures the AI's opening play: for each seed, the AI plays a whole swap2 (freestyle) and a
//! whole Taraguchi-10 (renju) opening on both seats under MS a turn, and the example prints how
//! far from even each proposal left the position by the AI's own deciding judgement (its score
//! for black at depth 6 under the usual node cap), the choices made, and the turn times. With
//! NODES each turn has that node limit instead of a time budget: reproducible, whatever the load.
//! `cargo run --release -p gomoku-engine --example opening-play -- MS SEEDS [NODES]`

use gomoku_engine::opening_play::{balance, opening_turn, EVAL_NODES};
use gomoku_engine::SearchOptions;
use gomoku_rules::opening::Step;
use gomoku_rules::{Opening, OpeningRule, Rule};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ms: u64 = args.first().map_or(1000, |a| a.parse().expect("MS"));
    let seeds: u64 = args.get(1).map_or(10, |a| a.parse().expect("SEEDS"));
    let nodes: Option<u64> = args.get(2).map(|a| a.parse().expect("NODES"));
    let judge = SearchOptions {
        time_budget: Duration::from_secs(3600),
        seed: 0,
        stop: None,
        node_limit: Some(EVAL_NODES),
    };
    for (rule, opening_rule) in [
        (Rule::Freestyle, OpeningRule::Swap2),
        (Rule::Renju, OpeningRule::Taraguchi10),
    ] {
        // |score| after each proposal by the stones it leaves, turn times, and the steps of
        // every opening.
        let mut proposals: Vec<(usize, i32)> = Vec::new();
        let mut times: Vec<Duration> = Vec::new();
        for seed in 0..seeds {
            let mut o = Opening::new(15, rule, opening_rule).expect("suited");
            let mut log = Vec::new();
            while let Some(seat) = o.phase().by() {
                let options = SearchOptions {
                    time_budget: match nodes {
                        Some(_) => Duration::from_secs(3600),
                        None => Duration::from_millis(ms),
                    },
                    seed,
                    stop: None,
                    node_limit: nodes,
                };
                let start = Instant::now();
                let steps = opening_turn(&o, &options);
                times.push(start.elapsed());
                for step in &steps {
                    o.apply(seat, step.clone()).expect("legal");
                }
                let placed = steps.iter().any(|s| matches!(s, Step::Place(_)));
                let offered = steps.iter().any(|s| matches!(s, Step::Offer(_)));
                let score = balance(o.game(), &judge);
                // A placement hands the next choice to the other player: it should be even.
                if placed && !offered {
                    proposals.push((o.game().moves().len(), score.abs()));
                }
                log.push(format!(
                    "{}:{} ({score:+})",
                    seat.as_str(),
                    describe(&steps)
                ));
            }
            println!("{opening_rule} seed {seed}: {}", log.join(", "));
        }
        proposals.sort();
        times.sort();
        println!(
            "{opening_rule}: turn time median {:?}, max {:?} (budget {})",
            times[times.len() / 2],
            times.last().copied().unwrap_or_default(),
            nodes.map_or(format!("{ms} ms"), |n| format!("{n} nodes")),
        );
        let mut stones: Vec<usize> = proposals.iter().map(|p| p.0).collect();
        stones.dedup();
        for n in stones {
            let scores: Vec<i32> = proposals.iter().filter(|p| p.0 == n).map(|p| p.1).collect();
            let mean = scores.iter().map(|&s| f64::from(s)).sum::<f64>() / scores.len() as f64;
            println!(
                "  proposals leaving {n} stones: {}, |score| mean {mean:.0}, median {}, max {}",
                scores.len(),
                scores[scores.len() / 2],
                scores.last().copied().unwrap_or(0),
            );
        }
    }
}

/// The steps in brief: "place×3", "choose black", "offer×10"…
fn describe(steps: &[Step]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for step in steps {
        match step {
            Step::Place(_) => match parts.last_mut() {
                Some(last) if last.starts_with("place") => {
                    let n: usize = last.trim_start_matches("place×").parse().unwrap_or(1);
                    *last = format!("place×{}", n + 1);
                }
                _ => parts.push("place×1".to_string()),
            },
            Step::Choose(c) => parts.push(format!("choose {c}")),
            Step::Offer(points) => parts.push(format!("offer×{}", points.len())),
            Step::Pick(_) => parts.push("pick".to_string()),
        }
    }
    parts.join(" ")
}
