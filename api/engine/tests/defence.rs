//! Defence against the opponent's forcing wins: the look for the opponent's line "as if it
//! were to move", and the levels that use it never let such a win through when a defence exists.

mod common;

use common::{for_test, game, p};
use gomoku_engine::position::Position;
use gomoku_engine::threat::{self, Kind};
use gomoku_engine::{best_move, Level};
use gomoku_rules::Rule;

/// White threatens a double four at (5,5) (a row and a column of three, each closed at one
/// end); black, to move, has nothing of its own.
const DOUBLE_FOUR_THREAT: &str = "
    . . . . . . . . . X .
    . . . . . X . . . . .
    . . . . . O . . . . .
    . . . . . O . . . . .
    . . . . . O . . . . .
    . X O O O . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . X . . . . . . . .
    X . . . . . . . . X .
    . . . . . . . . . . .";

#[test]
fn the_opponents_line_is_found_as_if_it_were_to_move() {
    let g = game(DOUBLE_FOUR_THREAT, Rule::Freestyle);
    let mut pos = Position::from_game(&g);
    let hash = pos.hash();
    let to_move = pos.to_move();
    let (line, nodes) = threat::opponent_threat(&mut pos, Kind::Vcf, 20, 10_000);
    let line = line.expect("white's double four");
    assert_eq!(pos.point(line[0]), p(5, 5));
    assert!(nodes > 0);
    assert_eq!(
        (pos.hash(), pos.to_move()),
        (hash, to_move),
        "position unchanged"
    );
    // Black itself has no forcing win.
    assert!(threat::solve(&mut pos, Kind::Vct, 6, 10_000).is_none());
}

/// Hard and master take a point that breaks the double four; afterwards white has no VCF.
#[test]
fn hard_and_master_stop_a_vcf_threat() {
    let g = game(DOUBLE_FOUR_THREAT, Rule::Freestyle);
    for level in [Level::Hard, Level::Master] {
        let m = best_move(&g, level, &for_test(level)).expect("a move");
        assert!(
            [p(5, 5), p(5, 6), p(6, 5)].contains(&m),
            "{level:?} played {m:?}"
        );
        let mut after = g.clone();
        after.play(m).expect("legal");
        let mut pos = Position::from_game(&after);
        assert!(
            threat::solve(&mut pos, Kind::Vcf, 20, 100_000).is_none(),
            "{level:?}: white still wins by fours after {m:?}"
        );
    }
}

/// In renju a black "three" whose four point is forbidden threatens nothing: black's split
/// three on row 5 becomes an open four only at (5,5), where it would also make two threes (the
/// column and the anti-diagonal), a forbidden 4-3-3; so white need not answer it.
#[test]
fn a_renju_black_three_with_a_forbidden_four_point_is_no_threat() {
    let g = game(
        "
        . . . . . . . . . . O
        . . . . . . . . . . .
        . . . . O . . . . . .
        . . . . . X . X . . .
        . . . . . X X . . . .
        . . . . X . X X . . .
        . . . . . . . . O . .
        . . . . . . . . . . .
        . . . . . . . . . . O
        O . . . . . . . . . .
        . . O . . . . . . O .",
        Rule::Renju,
    );
    let pos = Position::from_game(&g);
    let black = 0;
    let gap = pos.index(p(5, 5));
    assert!(!pos.is_legal(gap, black), "(5,5) is forbidden");
    assert!(!pos.threatens_open_four(black));
    // The same three in freestyle is a threat.
    let free = Position::from_game(&game(&g.board().to_ascii(), Rule::Freestyle));
    assert!(free.threatens_open_four(black));
}
