//! Tactical tests of every level: fives, blocks, VCF, rule awareness.

mod common;

use common::{for_test, game, p};
use gomoku_engine::position::Position;
use gomoku_engine::threat::{self, Kind};
use gomoku_engine::{best_move, hint, Level};
use gomoku_rules::{Point, Rule};

/// Every level completes its own five rather than blocking the opponent's four.
#[test]
fn every_level_completes_a_five() {
    let g = game(
        "
        . . . . . . . . .
        . . . . . . . . .
        . O O O O . . . .
        . . . . . . . . .
        . X X X X . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .",
        Rule::Freestyle,
    );
    for level in Level::ALL {
        let m = best_move(&g, level, &for_test(level)).expect("a move");
        assert!(m == p(4, 0) || m == p(4, 5), "{level:?} played {m:?}");
    }
}

/// Every level blocks the opponent's four when it has no five of its own.
#[test]
fn every_level_blocks_a_four() {
    let g = game(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . O . . . .
        . . . . O . . X .
        . . . . O . X . .
        . . X . O . . . .
        . . . . X . . . .
        . . . . . . . . .",
        Rule::Freestyle,
    );
    for level in Level::ALL {
        for seed in 0..5 {
            let mut opts = for_test(level);
            opts.seed = seed;
            assert_eq!(
                best_move(&g, level, &opts),
                Some(p(2, 4)),
                "{level:?} seed {seed}"
            );
        }
    }
}

/// In standard rules six in a row is no win: the engine does not "complete" an overline, it
/// blocks the opponent's real four instead.
#[test]
fn standard_overline_is_not_a_five() {
    let g = game(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X X . X X X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . O O O O . . . . .
        . . . . . . X . . . .
        . . . . . . . . . . .
        . O . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
        Rule::Standard,
    );
    // Black's gap point (2,3) makes six; white's four must be blocked at (5,1) or (5,6).
    for level in Level::ALL {
        let m = best_move(&g, level, &for_test(level)).expect("a move");
        assert_ne!(m, p(2, 3), "{level:?} played the overline");
        assert!(m == p(5, 1) || m == p(5, 6), "{level:?} played {m:?}");
    }
}

const DOUBLE_FOUR: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . O . . . . . . .
    . . . . . . . X . . . . . . .
    . . . . . . . X . . . . . . .
    . . . . . . . X . . . . . . .
    . . . O X X X . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . O . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . O . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . . . . . . . . . . . . . O";

/// Renju: (7,7) makes two fours, which wins in freestyle but is forbidden for black in renju.
/// No level plays it in renju; the hard level plays it in freestyle.
#[test]
fn renju_black_avoids_a_double_four_that_wins_in_freestyle() {
    let free = game(DOUBLE_FOUR, Rule::Freestyle);
    assert_eq!(
        best_move(&free, Level::Hard, &for_test(Level::Hard)),
        Some(p(7, 7))
    );
    let renju = game(DOUBLE_FOUR, Rule::Renju);
    assert!(renju.forbidden_points().iter().any(|f| f.0 == p(7, 7)));
    for level in Level::ALL {
        for seed in 0..3 {
            let mut opts = for_test(level);
            opts.seed = seed;
            let m = best_move(&renju, level, &opts).expect("a move");
            assert_ne!(m, p(7, 7), "{level:?} played the forbidden double four");
            assert!(renju.check(m).is_ok());
        }
    }
}

/// White's four whose only block is a black double-three: white wins with it (the VCF
/// solver counts a forbidden block as no block) and the hint says so.
#[test]
fn white_wins_through_blacks_forbidden_point() {
    let g = game(
        "
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . X . X . . . . . .
        . . . . . . X X . . . . . . .
        . X O O O . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . O . .
        . . . . . . . . . . . . . . .
        . O . . . . . . . . . . . . X",
        Rule::Renju,
    );
    // If white plays (10,5) its five point (10,6) is a double three for black.
    let mut pos = Position::from_game(&g);
    let win =
        threat::solve(&mut pos, Kind::Vcf, 10, 10_000).expect("a VCF through a forbidden point");
    assert_eq!(pos.point(win.first()), p(10, 5));
    let line: Vec<Point> = win.line.iter().map(|&i| pos.point(i)).collect();
    common::check_game_vcf_line(&g, &line);
    for level in [Level::Hard, Level::Master] {
        assert_eq!(
            best_move(&g, level, &for_test(level)),
            Some(p(10, 5)),
            "{level:?}"
        );
    }
    // Freestyle has no forbidden points: the same four is simply blocked, so no VCF.
    let free = game(&g.board().to_ascii(), Rule::Freestyle);
    let mut pos = Position::from_game(&free);
    assert!(threat::solve(&mut pos, Kind::Vcf, 10, 10_000).is_none());
}

/// A two-step VCF in freestyle: a four that forces a block, then a double four.
const TWO_STEP_VCF: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . O . . . . . .
    . . . . O X X X . . . . . . .
    . . . . . . . . X . . . . . .
    . . . . . . . . X . . . . . .
    . . . O X X X . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . O . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . . . O . . . . . . . . . O";

/// The solver finds the two-step VCF, its line is a valid win under the rules' judge, and the
/// hard level plays it with the reason "VCF in N".
#[test]
fn finds_a_two_step_vcf() {
    let g = game(TWO_STEP_VCF, Rule::Freestyle);
    let mut pos = Position::from_game(&g);
    let win = threat::solve(&mut pos, Kind::Vcf, 10, 10_000).expect("a VCF");
    let line: Vec<Point> = win.line.iter().map(|&i| pos.point(i)).collect();
    common::check_game_vcf_line(&g, &line);
    let h = hint(&g, &for_test(Level::Hard)).expect("a hint");
    assert_eq!(h.point, line[0]);
    assert!(h.reason.starts_with("VCF in "), "{}", h.reason);
}

/// The same shape with the colours swapped: white attacks by fours just as well.
#[test]
fn white_finds_a_vcf_too() {
    let swapped: String = TWO_STEP_VCF
        .chars()
        .map(|c| match c {
            'X' => 'O',
            'O' => 'X',
            c => c,
        })
        .collect();
    // Black has one stone more, so white is to move: add a harmless black stone in a corner.
    let swapped = swapped.replacen(
        ". . . . . . . . . . . . . . .\n",
        ". . . . . . . . . . . . . . X\n",
        1,
    );
    let g = game(&swapped, Rule::Freestyle);
    assert_eq!(g.to_move(), Some(gomoku_rules::Stone::White));
    let mut pos = Position::from_game(&g);
    let win = threat::solve(&mut pos, Kind::Vcf, 10, 10_000).expect("a VCF for white");
    let line: Vec<Point> = win.line.iter().map(|&i| pos.point(i)).collect();
    common::check_game_vcf_line(&g, &line);
}

/// A quiet position has no VCF, and the solver says so without inventing one.
#[test]
fn no_vcf_in_a_quiet_position() {
    let g = game(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X O . . . .
        . . . O X . . . .
        . . . . X . . . .
        . . . . O . . . .
        . . . . . . . . .
        . . . . . . . . .",
        Rule::Freestyle,
    );
    let mut pos = Position::from_game(&g);
    assert!(threat::solve(&mut pos, Kind::Vcf, 20, 100_000).is_none());
    let h = hint(&g, &for_test(Level::Hard)).expect("a hint");
    assert_eq!(h.reason, "best by search");
}

/// Hints name forced moves in words.
#[test]
fn hint_reasons_for_forced_moves() {
    let five = game(
        "
        . . . . . . . . .
        . . . . . . . . .
        . O O O . . . . .
        . . . . . . . . .
        . X X X X . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . O",
        Rule::Freestyle,
    );
    assert_eq!(
        hint(&five, &for_test(Level::Hard)).expect("hint").reason,
        "wins: five"
    );
    let open_four = game(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . O O O O . . .
        . . . . . . . . .
        . X . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . X",
        Rule::Freestyle,
    );
    let h = hint(&open_four, &for_test(Level::Hard)).expect("hint");
    assert_eq!(h.reason, "blocks an open four");
    assert!(h.point == p(2, 1) || h.point == p(2, 6));
    let four = game(
        "
        . . . . . . . . .
        . . . . . . . . .
        . X O O O O . . .
        . . . . . . . . .
        . . . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . X",
        Rule::Freestyle,
    );
    let h = hint(&four, &for_test(Level::Hard)).expect("hint");
    assert_eq!((h.point, h.reason.as_str()), (p(2, 6), "blocks a four"));
}

/// A finished game has no move and no hint.
#[test]
fn no_move_when_the_game_is_over() {
    let mut g = game(
        "
        . . . . . . . . .
        . . . . . . . . .
        . O O O O . . . .
        . . . . . . . . .
        . X X X X . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .",
        Rule::Freestyle,
    );
    g.play(p(4, 5)).expect("legal");
    assert!(g.is_over());
    assert_eq!(best_move(&g, Level::Master, &for_test(Level::Master)), None);
    assert_eq!(hint(&g, &for_test(Level::Hard)), None);
}
