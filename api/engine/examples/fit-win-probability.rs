//! Fits `params::WIN_PROBABILITY_SCALE`, the scale of the logistic that turns a search score into
//! a win probability in the post-game analysis: plays a level against itself from the rule's
//! balanced openings, records every searched move's score with the mover's final result (1, ½,
//! 0), and picks the scale with the greatest likelihood. Also prints, per score band, the
//! observed score against the probability at the current scale. The analysis runs
//! `ANALYSIS_SEARCHES` master searches in its 400 ms a move, hence:
//! `cargo run --release -p gomoku-engine --example fit-win-probability -- freestyle master 133 40`

use gomoku_engine::analysis::win_probability;
use gomoku_engine::openings;
use gomoku_engine::params::{WIN_PROBABILITY_SCALE, WIN_THRESHOLD};
use gomoku_engine::position::Position;
use gomoku_engine::{decide, Level, Reason, SearchOptions};
use gomoku_rules::{Game, Outcome, Rule, Stone};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rule: Rule = args[0].parse().expect("rule");
    let level = Level::parse(&args[1]).expect("level");
    let ms: u64 = args[2].parse().expect("ms");
    let games: usize = args[3].parse().expect("games");
    let book = openings::balanced(rule);
    // (score for the mover, mover's result)
    let mut samples: Vec<(i32, f64)> = Vec::new();
    for g in 0..games {
        let opening = &book[g % book.len()];
        let mut game = Game::replay(15, rule, &openings::points(opening, 15)).expect("legal");
        let mut scored: Vec<(i32, Stone)> = Vec::new();
        while !game.is_over() {
            let mover = game.to_move().expect("game on");
            let mut pos = Position::from_game(&game);
            let opts = SearchOptions {
                time_budget: Duration::from_millis(ms),
                seed: g as u64 * 1000 + game.moves().len() as u64,
                stop: None,
                node_limit: None,
            };
            let Some(d) = decide(&mut pos, level, &opts) else {
                break;
            };
            if matches!(d.reason, Reason::Search | Reason::BlocksThree)
                && d.score.abs() < WIN_THRESHOLD
            {
                scored.push((d.score, mover));
            }
            game.play(pos.point(d.point)).expect("legal move");
        }
        let winner = match game.outcome() {
            Outcome::Win { winner, .. } => Some(*winner),
            _ => None,
        };
        for (score, mover) in scored {
            let result = match winner {
                Some(w) if w == mover => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            };
            samples.push((score, result));
        }
        eprintln!("game {} done, {} samples", g + 1, samples.len());
    }
    let loss = |scale: f64| -> f64 {
        samples
            .iter()
            .map(|&(s, y)| {
                let p = (1.0 / (1.0 + (-f64::from(s) / scale).exp())).clamp(1e-9, 1.0 - 1e-9);
                -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
            })
            .sum::<f64>()
            / samples.len().max(1) as f64
    };
    let best = (1..=200)
        .map(|k| f64::from(k) * 50.0)
        .min_by(|a, b| loss(*a).total_cmp(&loss(*b)))
        .expect("a scale");
    println!(
        "{} samples from {games} games ({rule}, {} at {ms} ms)",
        samples.len(),
        level.as_str()
    );
    println!(
        "best scale {best} (mean log loss {:.4}); current WIN_PROBABILITY_SCALE {WIN_PROBABILITY_SCALE} ({:.4})",
        loss(best),
        loss(WIN_PROBABILITY_SCALE)
    );
    println!("score band: moves, mover's observed score, probability at the current scale");
    let bands = [
        i32::MIN,
        -3000,
        -1500,
        -800,
        -400,
        -150,
        150,
        400,
        800,
        1500,
        3000,
        i32::MAX,
    ];
    for w in bands.windows(2) {
        let inside: Vec<&(i32, f64)> = samples
            .iter()
            .filter(|(s, _)| *s >= w[0] && *s < w[1])
            .collect();
        if inside.is_empty() {
            continue;
        }
        let n = inside.len() as f64;
        let observed = inside.iter().map(|(_, y)| y).sum::<f64>() / n;
        let predicted = inside.iter().map(|(s, _)| win_probability(*s)).sum::<f64>() / n;
        println!(
            "  [{:>11}, {:>11}): {:5} moves, observed {observed:.2}, predicted {predicted:.2}",
            w[0],
            w[1],
            inside.len()
        );
    }
}
