//! Replays a game and shows, at every ply, what a level would play there and its score; with
//! `analysis` for the level, the post-game analysis of each move instead (`analysis::
//! analyse_move` with MS for the move: black's win probability after it and after the engine's
//! move, and the mark).
//! `cargo run --release -p gomoku-engine --example analyse -- RULE LEVEL|analysis MS h8 g9 …`

use gomoku_engine::analysis::analyse_move;
use gomoku_engine::position::Position;
use gomoku_engine::{decide, Level, SearchOptions};
use gomoku_rules::{Coord, Game};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rule = args[0].parse().expect("rule");
    let level = (args[1] != "analysis").then(|| Level::parse(&args[1]).expect("level"));
    let ms: u64 = args[2].parse().expect("ms");
    let moves: Vec<_> = args[3..]
        .iter()
        .map(|m| {
            m.parse::<Coord>()
                .expect("move")
                .to_point(15)
                .expect("on board")
        })
        .collect();
    let mut game = Game::new(15, rule).expect("game");
    for (i, &m) in moves.iter().enumerate() {
        let mut pos = Position::from_game(&game);
        let opts = SearchOptions {
            time_budget: Duration::from_millis(ms),
            seed: 1,
            stop: None,
            node_limit: None,
        };
        let played = Coord::from_point(m, 15);
        let Some(level) = level else {
            let a = analyse_move(&game, m, &opts).expect("legal");
            println!(
                "ply {i:2} played {played:4} eval {:.2} best {:4} best_eval {:.2} {}",
                a.eval,
                Coord::from_point(a.best, 15).to_string(),
                a.best_eval,
                a.mark.map_or("", |k| k.as_str())
            );
            game.play(m).expect("legal");
            continue;
        };
        if let Some(d) = decide(&mut pos, level, &opts) {
            let p = Coord::from_point(pos.point(d.point), 15);
            println!(
                "ply {i:2} played {played:4} engine {p:4} {:>8} depth {} score {}",
                d.reason.to_string(),
                d.depth,
                d.score
            );
        }
        game.play(m).expect("legal");
    }
}
