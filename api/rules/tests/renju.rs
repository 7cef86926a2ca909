//! Renju forbidden moves for black, one diagram per rule of the definition: `*` marks the point
//! black is about to play. Boards are 11×11 so a reader sees every stone that matters.

mod common;

use common::{board_and_mark, game};
use gomoku_rules::renju::{forbidden_kind, forbidden_points};
use gomoku_rules::{ForbiddenKind, Outcome, PlayError, Point, Rule, Stone, WinReason};
use ForbiddenKind::{DoubleFour, DoubleThree, Overline};

/// The verdict at the marked point, after checking that the whole-board listing agrees.
fn verdict(diagram: &str) -> Option<ForbiddenKind> {
    let (board, p) = board_and_mark(diagram);
    let kind = forbidden_kind(&board, p);
    let listed: Vec<_> = forbidden_points(&board)
        .into_iter()
        .filter(|&(q, _)| q == p)
        .map(|(_, k)| k)
        .collect();
    assert_eq!(
        listed,
        kind.into_iter().collect::<Vec<_>>(),
        "listing disagrees"
    );
    kind
}

/// Two open threes crossing at the new stone: double three.
#[test]
fn double_three_is_forbidden() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . X X * . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(DoubleThree));
}

/// Split threes (a gap inside) count as threes too, here on both diagonals.
#[test]
fn double_split_three_on_diagonals_is_forbidden() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . X . .
        . . . X . . . . . . .
        . . . . . . X . . . .
        . . . . . * . . . . .
        . . . . . . X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(DoubleThree));
}

/// A four and a three at once (4-3) is legal.
#[test]
fn four_three_is_legal() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . O X X * X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, None);
}

/// Two fours on two lines: double four, even when both are closed fours.
#[test]
fn double_four_on_two_lines_is_forbidden() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . O . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . O X X * X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(DoubleFour));
}

/// Two fours on one line, `XXX.X.XXX` with the new stone in the middle: double four.
#[test]
fn one_line_double_four_long() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X X X . * . X X X .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(DoubleFour));
}

/// Two fours on one line, `XX.XX.XX` (vertical, new stone fourth): double four.
#[test]
fn one_line_double_four_pairs() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . * . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(DoubleFour));
}

/// Two fours on one line, `X.XXX.X` (diagonal, new stone in the middle): double four.
#[test]
fn one_line_double_four_split() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . X . . . . . . . .
        . . . . . . . . . . .
        . . . . X . . . . . .
        . . . . . * . . . . .
        . . . . . . X . . . .
        . . . . . . . . . . .
        . . . . . . . . X . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(DoubleFour));
}

/// A straight four `.XXXX.` has two ways to five but is one four: with a closed four on
/// another line it is still a double four, and alone it is legal.
#[test]
fn straight_four_counts_once() {
    let alone = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . X X * X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(alone, None);
    let with_another = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X . . . . . . . .
        . . . X . . . . . . .
        . . . . X . . . . . .
        . . . X X * X . . . .
        . . . . . . O . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(with_another, Some(DoubleFour));
}

/// Six in a row is an overline; so is seven, made by joining two runs.
#[test]
fn overline_is_forbidden() {
    let six = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X X * X X X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(six, Some(Overline));
    let seven = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X X X * X X X . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(seven, Some(Overline));
}

/// When a move is both an overline and a double four, the kind named is overline (the
/// documented order: overline, double four, double three).
#[test]
fn overline_is_named_before_double_four() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . . . . . . .
        . X X X X * X . X X X
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(Overline));
}

/// An exact five wins even when the same stone would make a double three elsewhere; without
/// the five's last stone the same move is forbidden (a four and two threes).
#[test]
fn five_beats_double_three() {
    let diagram = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . X . . . X . . .
        . . . . X . X . . . .
        . . . . . * . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . . . . . . .";
    assert_eq!(verdict(diagram), None);
    let without_five = diagram.replacen(
        ". . . . . X . . . . .\n        . . . . . . . . . . .",
        ". . . . . . . . . . .\n        . . . . . . . . . . .",
        1,
    );
    assert_eq!(verdict(&without_five), Some(DoubleThree));
}

/// An exact five wins even when the same stone makes an overline on another line; in a game
/// black wins with the five's stones as the line.
#[test]
fn five_beats_overline() {
    let diagram = "
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . O O . . X . . O . O
        . . . . . X . . . . .
        . X X X X * X . . . .
        . . . O O . . O . O O
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .";
    assert_eq!(verdict(diagram), None);
    let without_five = diagram.replacen(". . . . . X . . . . .", ". . . . . . . . . . .", 1);
    assert_eq!(verdict(&without_five), Some(Overline));
    let (mut game, marks) = game(diagram, Rule::Renju);
    let outcome = game.play(marks[0]).expect("a five is legal").clone();
    assert_eq!(
        outcome,
        Outcome::Win {
            winner: Stone::Black,
            reason: WinReason::Five,
            line: (1..=5).map(|row| Point::new(row, 5)).collect(),
        }
    );
}

/// An exact five wins even when the same stone makes two more fours; without the five's last
/// stone the move is a double four.
#[test]
fn five_beats_double_four() {
    let diagram = "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . X . . . . . . .
        . . . . X . . . . . .
        . . . . . X . . . . .
        . . . . . . * X X X X
        . . . . . . X . . . .
        . . . . . . X . . . .
        . . . . . . X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .";
    assert_eq!(verdict(diagram), None);
    let without_five = diagram.replacen("* X X X X", "* X X X .", 1);
    assert_eq!(verdict(&without_five), Some(DoubleFour));
}

/// A three with a white stone where its straight four would need an open end is no three:
/// with one real three beside it the move is legal.
#[test]
fn three_blocked_by_white_is_no_three() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . O X X * . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, None);
}

/// The board's edge blocks a three just as a white stone does.
#[test]
fn three_blocked_by_the_edge_is_no_three() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        X X * . . . . . . . .
        . . X . . . . . . . .
        . . X . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, None);
}

/// A three whose only straight four would stand next to another black stone (so one of its
/// fives would be an overline) is no three.
#[test]
fn three_that_can_only_make_an_overline_four_is_no_three() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        X . . X X * . O . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, None);
}

/// A four that can only turn into an overline is no four: with another four the move is
/// still legal (one four, not two).
#[test]
fn four_that_only_makes_an_overline_is_no_four() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . O . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . X X X * . X . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    // Horizontal: filling the gap makes seven, so only the vertical is a four.
    assert_eq!(kind, None);
}

/// A false three: the only point that turns the horizontal three into a straight four is
/// itself forbidden (an overline on its column), so the move makes one real three, not two.
#[test]
fn false_three_whose_four_point_is_forbidden() {
    // With black on (5,5), the horizontal three's only straight-four point (5,2) is an overline.
    let four_point = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X . . . . . . . .
        . . X . . X . . . . .
        . . X . . X . . . . .
        . . * X X X . O . . .
        . . X . . . . . . . .
        . . X . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(four_point, Some(Overline));
    // So (5,5) makes one real three (vertical) and one false three: legal.
    let false_three = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X . . . . . . . .
        . . X . . X . . . . .
        . . X . . X . . . . .
        . . . X X * . O . . .
        . . X . . . . . . . .
        . . X . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(false_three, None);
    // Without the column's stones the same shape is a real double three.
    let real = verdict(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . X . . . . .
        . . . . . X . . . . .
        . . . X X * . O . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(real, Some(DoubleThree));
}

/// A three with two four points stays a three when only one of them is forbidden.
#[test]
fn three_with_one_forbidden_four_point_is_still_a_three() {
    let kind = verdict(
        "
        . . . . . . . . . . .
        . . X . . . . . . . .
        . . X . . . . . . . .
        . . . . . . . . . . .
        . . X . . . . . . . .
        . . . X X * . . . . .
        . . X . . X . . . . .
        . . X . . X . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
    assert_eq!(kind, Some(DoubleThree));
}

/// In a game, black's forbidden moves are refused with their kind and change nothing, while
/// white may play the same point.
#[test]
fn game_refuses_each_kind() {
    let cases = [
        (
            "
            . . . . . . . . . . .
            . . . . . . . . . O .
            . . . . . . . . . . .
            . . . . . X . . . . .
            . . . . . X . . . . .
            . . . X X * . . . . .
            . . . . . . . . . . .
            . . . . . . . . . O .
            . . . . . . . . . . .
            . . . . O . . . . . O
            . . . . . . . . . . .",
            DoubleThree,
        ),
        (
            "
            . . . . . . . . . . .
            . . . . . O . . . . .
            . . . . . X . . . . .
            . . . . . X . . . . .
            . . . . . X . . . . .
            . . O X X * X . . . .
            . . . . . . . . . . .
            . . . . . . . . . . .
            . O . . . . . . . O .
            . . . . . . . O . . .
            . . . O . . . . . . .",
            DoubleFour,
        ),
        (
            "
            . . . . . . . . . . .
            . . . . . . . . . . .
            . . O . . . . . . . .
            . . . . . . . . . . .
            . . . . . . . . . . O
            . X X * X X X . . . .
            . . . . . . . . . . .
            . O . . . . . . . O .
            . . . . . . . . . . .
            . . . . . . O . . . .
            . . . . . . . . . . .",
            Overline,
        ),
    ];
    for (diagram, kind) in cases {
        let (mut game, marks) = game(diagram, Rule::Renju);
        let p = marks[0];
        assert_eq!(game.to_move(), Some(Stone::Black));
        assert!(game.forbidden_points().contains(&(p, kind)));
        let before = game.clone();
        assert_eq!(game.check(p), Err(PlayError::Forbidden(kind)));
        assert_eq!(game.play(p), Err(PlayError::Forbidden(kind)));
        assert_eq!(game, before);
        // Black plays elsewhere; white may take the point.
        let elsewhere = Point::new(10, 10);
        game.play(elsewhere).expect("a quiet move");
        assert!(game.play(p).is_ok(), "white may play on {kind:?}");
    }
}
