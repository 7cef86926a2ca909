//! Post-game analysis of single moves on constructed positions: the marks a review shows.
//! Searches are pinned by node limits, so the marks do not depend on the machine's speed.

mod common;

use common::{check_vcf_line, game, p, pinned};
use gomoku_engine::analysis::{analyse_move, win_probability, Mark, MoveAnalysis};
use gomoku_engine::params::{PV_PLIES, WIN, WIN_THRESHOLD};
use gomoku_engine::position::Position;
use gomoku_engine::threat::{self, Kind};
use gomoku_engine::SearchOptions;
use gomoku_rules::{Game, PlayError, Point, Rule, Stone};

fn options() -> SearchOptions {
    pinned(3, 30_000)
}

fn analyse(g: &Game, played: Point) -> MoveAnalysis {
    analyse_move(g, played, &options()).expect("a legal move")
}

/// Black to move has a four (`O X X X X .`): the five is at (3,7).
const FIVE_ON_THE_BOARD: &str = "
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . O X X X X . . . .
    . . . . . . . . . . .
    . . . . O . . . . . .
    . . . . . . O . . . .
    . . . . . . . . . . .
    . . . O . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .";

/// White has a four (`X O O O O .`) that black must block at (4,6); black has no four.
const WHITE_FOUR: &str = "
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . X . .
    . . . . . . . . . . .
    . X O O O O . . . . .
    . . . . . . . . . . .
    . . . X . . . . . . .
    . . . . X . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .";

/// Black to move wins by fours: (7,7) makes a four on the diagonal (white must block at (8,6)),
/// then (9,7) makes two fours (row 9 and column 7). White has a double-four point of its own
/// at (12,12): if black lets it move, white wins.
const BLACK_VCF: &str = "
    X . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . O . . .
    . . . . . . . . . . X . . . .
    . . . . . . . O . X . . . . .
    . . . . . . O X X . O . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . X . . . . X . .
    . . . O X X X . . . . . O . .
    . . . . . . . . . . . . O . .
    . . . . . . . . . . . . O . .
    . . . . . . . . X O O O . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .";

/// A quiet opening: nobody threatens anything.
const QUIET: &str = "
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . O X . . . . .
    . . . . . X O . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .";

/// Playing elsewhere than one's own five is a forced win missed, and the engine's move is the five.
#[test]
fn a_missed_five_is_a_winning_threat_missed() {
    let g = game(FIVE_ON_THE_BOARD, Rule::Freestyle);
    let a = analyse(&g, p(9, 9));
    assert_eq!(a.mark, Some(Mark::WinningThreatMissed), "{a:?}");
    assert_eq!(a.best, p(3, 7));
    assert_eq!(a.best_eval, 1.0, "black wins after its five");
    assert!(a.eval < 1.0, "{a:?}");
}

/// Completing the five is the engine's move: no mark, and black has won.
#[test]
fn completing_the_five_is_not_marked() {
    let g = game(FIVE_ON_THE_BOARD, Rule::Freestyle);
    let a = analyse(&g, p(3, 7));
    assert_eq!(a.mark, None, "{a:?}");
    assert_eq!((a.eval, a.best_eval, a.best), (1.0, 1.0, p(3, 7)));
}

/// Leaving the opponent's four open loses at once where the block does not: a blunder, black's
/// chances 0.
#[test]
fn an_unblocked_four_is_a_blunder() {
    let g = game(WHITE_FOUR, Rule::Freestyle);
    let a = analyse(&g, p(8, 8));
    assert_eq!(a.mark, Some(Mark::Blunder), "{a:?}");
    assert_eq!(a.eval, 0.0);
    assert_eq!(a.best, p(4, 6));
    assert!(a.best_eval > 0.0, "{a:?}");
}

/// Blocking the four is the one move that does not lose: marked as the only move.
#[test]
fn the_one_block_of_a_four_is_the_only_move() {
    let g = game(WHITE_FOUR, Rule::Freestyle);
    let a = analyse(&g, p(4, 6));
    assert_eq!(a.mark, Some(Mark::OnlyMove), "{a:?}");
    assert_eq!(a.best, p(4, 6));
    assert_eq!(a.eval, a.best_eval);
    assert!(a.eval > 0.0 && a.eval < 1.0, "{a:?}");
}

/// With a VCF on the board, a quiet move gives the opponent the move (and here its own win): a
/// forced win missed. The VCF's first move keeps the win and gets no mark.
#[test]
fn a_missed_vcf_is_a_winning_threat_missed() {
    let g = game(BLACK_VCF, Rule::Freestyle);
    let mut pos = Position::from_game(&g);
    let win = threat::solve(&mut pos, Kind::Vcf, 10, 10_000).expect("the diagram holds a VCF");
    assert!(win.attacker_moves() >= 3, "a real sequence of fours");
    assert!(pos.five_points(pos.to_move()).is_empty(), "no five yet");

    let missed = analyse(&g, p(1, 3));
    assert_eq!(missed.mark, Some(Mark::WinningThreatMissed), "{missed:?}");
    assert_eq!(missed.best_eval, 1.0, "{missed:?}");
    assert_eq!(missed.eval, 0.0, "white's double four wins: {missed:?}");

    let kept = analyse(&g, p(7, 7));
    assert_eq!(kept.mark, None, "{kept:?}");
    assert_eq!(kept.eval, 1.0, "{kept:?}");
}

/// A missed VCF's line is the winning sequence itself: it starts with the engine's move, each
/// of black's moves makes a four, each of white's blocks it, and it ends in black's five, as the
/// rules crate judges when the line is played out.
#[test]
fn a_missed_vcfs_line_is_the_winning_sequence() {
    let g = game(BLACK_VCF, Rule::Freestyle);
    let missed = analyse(&g, p(1, 3));
    assert_eq!(missed.line.first(), Some(&missed.best), "{missed:?}");
    assert!(
        missed.line.len() >= 5,
        "three fours and two blocks: {missed:?}"
    );
    check_vcf_line(g.board(), Stone::Black, Rule::Freestyle, &missed.line);
    let mut played = g.clone();
    for &m in &missed.line {
        played.play(m).expect("the line is legal");
    }
    assert_eq!(played.outcome().winner(), Some(Stone::Black));
}

/// In a quiet position the line is the search's principal variation: the engine's move first,
/// more than one ply, every move legal in turn.
#[test]
fn a_quiet_positions_line_is_legal_and_starts_with_best() {
    let g = game(QUIET, Rule::Freestyle);
    let a = analyse(&g, p(0, 0));
    assert_eq!(a.line.first(), Some(&a.best), "{a:?}");
    assert!(a.line.len() > 1 && a.line.len() <= PV_PLIES, "{a:?}");
    let mut played = g.clone();
    for &m in &a.line {
        played.play(m).expect("the line is legal");
    }
}

/// The engine's own move in a quiet position gets no mark, and its eval is the best eval.
#[test]
fn the_engines_move_in_a_quiet_position_is_not_marked() {
    let g = game(QUIET, Rule::Freestyle);
    let first = analyse(&g, p(0, 0));
    let a = analyse(&g, first.best);
    assert_eq!(a.mark, None, "{a:?}");
    assert_eq!(a.best, first.best);
    assert_eq!(a.eval, a.best_eval);
    assert!(
        a.eval > 0.2 && a.eval < 0.8,
        "a quiet position is open: {a:?}"
    );
    // A move in the corner is worse than the engine's, and is marked so.
    assert!(first.eval < first.best_eval, "{first:?}");
    assert!(first.mark.is_some(), "{first:?}");
}

/// Moves the rules refuse are refused with the rules' error; a finished game has nothing to
/// analyse.
#[test]
fn illegal_moves_are_refused() {
    let g = game(QUIET, Rule::Freestyle);
    assert_eq!(
        analyse_move(&g, p(4, 5), &options()),
        Err(PlayError::Occupied)
    );
    assert_eq!(
        analyse_move(&g, p(11, 0), &options()),
        Err(PlayError::OutOfBounds)
    );
    let mut over = game(FIVE_ON_THE_BOARD, Rule::Freestyle);
    over.play(p(3, 7)).expect("the five");
    assert_eq!(
        analyse_move(&over, p(0, 0), &options()),
        Err(PlayError::GameOver)
    );
}

/// The score-to-probability map: even at 0, rising, and exactly 1 or 0 for a proven result.
#[test]
fn win_probability_is_a_logistic_of_the_score() {
    assert_eq!(win_probability(0), 0.5);
    assert!(win_probability(300) > 0.5 && win_probability(300) < win_probability(3000));
    assert!((win_probability(-700) + win_probability(700) - 1.0).abs() < 1e-12);
    assert_eq!(win_probability(WIN - 5), 1.0);
    assert_eq!(win_probability(WIN_THRESHOLD), 1.0);
    assert_eq!(win_probability(-(WIN - 5)), 0.0);
}

/// Every mark has one string form, and it parses back.
#[test]
fn marks_round_trip_through_their_names() {
    for m in [
        Mark::Inaccuracy,
        Mark::Mistake,
        Mark::Blunder,
        Mark::OnlyMove,
        Mark::WinningThreatMissed,
    ] {
        assert_eq!(m.as_str().parse::<Mark>(), Ok(m));
    }
    assert!("great".parse::<Mark>().is_err());
}
