//! Properties over many random positions: rule safety and reproducibility.

mod common;

use common::pinned;
use gomoku_engine::position::Rng;
use gomoku_engine::{best_move, hint, Level};
use gomoku_rules::{Game, Point, Rule, Stone};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// A random renju game with black to move: stones dropped near the centre, black's clustered
/// more tightly so that threes and fours (and so forbidden points) are common.
fn random_renju_position(rng: &mut Rng, size: usize) -> Game {
    let mut g = Game::new(size, Rule::Renju).expect("size");
    let moves = 10 + 2 * rng.below(12) as usize;
    while g.moves().len() < moves && !g.is_over() {
        let spread = if g.to_move() == Some(Stone::Black) {
            3
        } else {
            5
        };
        let c = size as i64 / 2;
        let r = (c + rng.below(2 * spread + 1) as i64 - spread as i64).clamp(0, size as i64 - 1);
        let col = (c + rng.below(2 * spread + 1) as i64 - spread as i64).clamp(0, size as i64 - 1);
        let _ = g.play(Point::new(r as usize, col as usize));
    }
    if g.to_move() == Some(Stone::White) && !g.is_over() {
        let _ = g.undo();
    }
    g
}

/// Over random renju positions (many with forbidden points), no level ever chooses a point
/// that is forbidden for black, and the hint does not either.
#[test]
fn renju_black_never_plays_a_forbidden_point() {
    let mut rng = Rng::new(2024);
    let mut with_forbidden = 0;
    let mut tried = 0;
    while tried < 40 {
        let g = random_renju_position(&mut rng, 15);
        if g.is_over() || g.to_move() != Some(Stone::Black) {
            continue;
        }
        tried += 1;
        let forbidden: Vec<Point> = g.forbidden_points().iter().map(|f| f.0).collect();
        if !forbidden.is_empty() {
            with_forbidden += 1;
        }
        for level in Level::ALL {
            let m = best_move(&g, level, &pinned(tried, 1_500)).expect("a move");
            assert!(
                !forbidden.contains(&m),
                "{level:?} played forbidden {m:?} in\n{}",
                g.board().to_ascii()
            );
            assert!(g.check(m).is_ok());
        }
        let h = hint(&g, &pinned(tried, 1_500)).expect("a hint");
        assert!(!forbidden.contains(&h.point));
    }
    // The property is only meaningful if forbidden points actually occurred.
    assert!(
        with_forbidden >= 10,
        "only {with_forbidden} positions had forbidden points"
    );
}

/// With a seed and a node limit every level returns the same move on every call.
#[test]
fn deterministic_for_a_seed_and_node_limit() {
    let mut rng = Rng::new(99);
    for n in 0..6 {
        let g = random_renju_position(&mut rng, 15);
        if g.is_over() {
            continue;
        }
        for level in Level::ALL {
            let first = best_move(&g, level, &pinned(n, 3_000));
            for _ in 0..2 {
                assert_eq!(best_move(&g, level, &pinned(n, 3_000)), first, "{level:?}");
            }
        }
    }
}

/// A raised stop flag ends the search at once with a legal move, whatever the budget.
#[test]
fn stop_flag_ends_the_search() {
    let g = Game::replay(
        15,
        Rule::Freestyle,
        &[Point::new(7, 7), Point::new(6, 8), Point::new(8, 8)],
    )
    .expect("legal");
    let stop = Arc::new(AtomicBool::new(true));
    let opts = gomoku_engine::SearchOptions {
        time_budget: Duration::from_secs(3600),
        seed: 1,
        stop: Some(stop),
        node_limit: None,
    };
    for level in [Level::Medium, Level::Hard, Level::Master] {
        let m = best_move(&g, level, &opts).expect("a move");
        assert!(g.check(m).is_ok());
    }
}

/// Every board size from 5 to 20 works, including the Gomocup 20×20 board.
#[test]
fn all_board_sizes() {
    for size in 5..=20 {
        let mut g = Game::new(size, Rule::Freestyle).expect("size");
        for n in 0..6 {
            let m = best_move(&g, Level::Hard, &pinned(n, 500)).expect("a move");
            g.play(m).expect("legal");
            if g.is_over() {
                break;
            }
        }
    }
}
