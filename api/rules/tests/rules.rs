//! Wins, overlines and draws under the three rules, and the game's bookkeeping (undo, resign,
//! errors), on positions drawn as diagrams.

mod common;

use common::{board, board_and_mark, game};
use gomoku_rules::judge::{no_five_possible, scan_for_win, winning_line};
use gomoku_rules::{
    DrawReason, EndReason, Ending, ForbiddenKind, Game, Outcome, PlayError, Point, Rule, Status,
    Stone, UndoError, WinReason,
};

const ALL_RULES: [Rule; 3] = [Rule::Freestyle, Rule::Standard, Rule::Renju];

/// The points from `from` in steps of `(dr, dc)`, `n` of them.
fn line(from: (usize, usize), (dr, dc): (isize, isize), n: usize) -> Vec<Point> {
    (0..n as isize)
        .map(|i| {
            Point::new(
                (from.0 as isize + dr * i) as usize,
                (from.1 as isize + dc * i) as usize,
            )
        })
        .collect()
}

fn sorted(mut points: Vec<Point>) -> Vec<Point> {
    points.sort();
    points
}

/// A black five wins under every rule, and the line is exactly its five stones.
#[test]
fn five_wins_under_every_rule() {
    for rule in ALL_RULES {
        let (mut game, marks) = game(
            "
            . . . . . . . . .
            . . . . . . . . .
            . O O O O . . . .
            . . . . . . . . .
            . X X X X * . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .",
            rule,
        );
        let outcome = game.play(marks[0]).expect("legal").clone();
        assert_eq!(
            outcome,
            Outcome::Win {
                winner: Stone::Black,
                reason: WinReason::Five,
                line: line((4, 1), (0, 1), 5),
            },
            "{rule}"
        );
        assert!(game.is_over());
        assert_eq!(game.to_move(), None);
        assert_eq!(game.check(Point::new(0, 0)), Err(PlayError::GameOver));
    }
}

/// Fives are found in all four directions, with the line running through the last stone.
#[test]
fn five_in_every_direction() {
    let cases = [
        (
            "
            . . . . . . .
            . . . X . . .
            . . . X . . .
            . . . X . . .
            . . . X . . .
            . . . @ . . .
            . . . . . . .",
            line((1, 3), (1, 0), 5),
        ),
        (
            "
            X . . . . . .
            . X . . . . .
            . . @ . . . .
            . . . X . . .
            . . . . X . .
            . . . . . . .
            . . . . . . .",
            line((0, 0), (1, 1), 5),
        ),
        (
            "
            . . . . . . .
            . . . . . . X
            . . . . . X .
            . . . . X . .
            . . . @ . . .
            . . X . . . .
            . . . . . . .",
            line((1, 6), (1, -1), 5),
        ),
    ];
    for (diagram, expected) in cases {
        let b = board(&diagram.replace('@', "X"));
        let last = expected[2.min(expected.len() - 1)];
        for rule in ALL_RULES {
            let got = winning_line(&b, last, rule).expect("a five");
            assert_eq!(sorted(got), sorted(expected.clone()), "{rule}");
        }
    }
}

const OVERLINE: &str = "
    . . . . . . . . . .
    . . . . . . . . . .
    . . O O . O O . O .
    . . . . . . . . . .
    . X X X * X X . . .
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .";

/// Freestyle: an overline wins, and the winning line is the whole run of six.
#[test]
fn freestyle_overline_wins_with_the_whole_run() {
    let (mut game, marks) = game(OVERLINE, Rule::Freestyle);
    let outcome = game.play(marks[0]).expect("legal").clone();
    assert_eq!(
        outcome,
        Outcome::Win {
            winner: Stone::Black,
            reason: WinReason::Five,
            line: line((4, 1), (0, 1), 6),
        }
    );
}

/// Standard: an overline is no win for black; the game goes on with white to move.
#[test]
fn standard_black_overline_is_no_win_and_play_goes_on() {
    let (mut game, marks) = game(OVERLINE, Rule::Standard);
    assert_eq!(game.play(marks[0]), Ok(&Outcome::Ongoing));
    assert_eq!(game.to_move(), Some(Stone::White));
    // White can still play, and black later wins with an exact five elsewhere.
    game.play(Point::new(0, 0)).expect("white plays on");
    assert_eq!(
        scan_for_win(game.board(), Stone::Black, Rule::Standard),
        None
    );
    assert!(scan_for_win(game.board(), Stone::Black, Rule::Freestyle).is_some());
}

/// Standard: the same holds for white's overline.
#[test]
fn standard_white_overline_is_no_win() {
    let (mut game, marks) = game(
        "
        . . . . . . . . . .
        . . . . . . . . . X
        . . X X . X . X . X
        . . . . . . . . . .
        . O O O * O O . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .",
        Rule::Standard,
    );
    assert_eq!(game.to_move(), Some(Stone::White));
    assert_eq!(game.play(marks[0]), Ok(&Outcome::Ongoing));
    assert_eq!(game.to_move(), Some(Stone::Black));
}

/// Standard: an exact five wins even when the same stone makes an overline on another line.
#[test]
fn standard_five_wins_beside_an_overline() {
    let (mut game, marks) = game(
        "
        . . . . . . . . . .
        . . . . X . . . . .
        . . . . X . . O O O
        . . . . X . . . . .
        . X X X * X X . . .
        . . . . X . . . . .
        . . . . . . O O O O
        . . . . . . . . O .
        . . . . . . . . . .
        O . . . . . . . . .",
        Rule::Standard,
    );
    let outcome = game.play(marks[0]).expect("legal").clone();
    assert_eq!(
        outcome,
        Outcome::Win {
            winner: Stone::Black,
            reason: WinReason::Five,
            line: line((1, 4), (1, 0), 5),
        }
    );
}

/// Renju: white's overline wins, with the whole run as the line.
#[test]
fn renju_white_overline_wins() {
    let (mut game, marks) = game(
        "
        . . . . . . . . . .
        . . . . . . . . . X
        . . X . X . X . X X
        . . . . . . . . . .
        . O O O * O O . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .",
        Rule::Renju,
    );
    assert_eq!(game.to_move(), Some(Stone::White));
    let outcome = game.play(marks[0]).expect("legal").clone();
    assert_eq!(
        outcome,
        Outcome::Win {
            winner: Stone::White,
            reason: WinReason::Five,
            line: line((4, 1), (0, 1), 6),
        }
    );
}

/// Renju: black's overline is refused as a forbidden move and changes nothing.
#[test]
fn renju_black_overline_is_refused() {
    let (mut game, marks) = game(OVERLINE, Rule::Renju);
    let before = game.clone();
    assert_eq!(
        game.play(marks[0]),
        Err(PlayError::Forbidden(ForbiddenKind::Overline))
    );
    assert_eq!(game, before);
    assert!(game
        .forbidden_points()
        .contains(&(marks[0], ForbiddenKind::Overline)));
}

/// Renju: black's exact five wins; the judge gives no win for black's overline even if one
/// stood on the board, while white's counts.
#[test]
fn renju_judge_by_colour() {
    let (b, p) = board_and_mark(
        "
        . . . . . . . . .
        . X X X X X X . .
        . . . . . . . . .
        . O O O O O O . .
        . . . . . . . . .
        . * . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .",
    );
    assert_eq!(scan_for_win(&b, Stone::Black, Rule::Renju), None);
    assert_eq!(
        scan_for_win(&b, Stone::White, Rule::Renju),
        Some(line((3, 1), (0, 1), 6))
    );
    assert_eq!(winning_line(&b, Point::new(1, 3), Rule::Renju), None);
    assert_eq!(winning_line(&b, p, Rule::Renju), None, "empty point");
}

/// A full 5×5 board without a five is a draw by board full (the fuller reason wins over
/// "no five possible", which also holds then).
#[test]
fn board_full_draw() {
    for rule in [Rule::Freestyle, Rule::Standard] {
        let (game, _) = game(
            "
            O O O O @
            O O X X X
            O X X X O
            X O X X X
            X O O X O",
            rule,
        );
        assert_eq!(
            game.outcome(),
            &Outcome::Draw {
                reason: DrawReason::BoardFull
            }
        );
        assert_eq!(game.to_move(), None);
    }
}

/// A 5×5 game is drawn as soon as every five-cell segment holds both colours, and not one
/// move earlier.
#[test]
fn no_five_possible_draw() {
    const DIAGRAM: &str = "
        . . . O X
        O X @ . .
        X O O . .
        . . . X O
        . X O . X";
    for rule in ALL_RULES {
        let (mut game, _) = game(DIAGRAM, rule);
        assert_eq!(
            game.outcome(),
            &Outcome::Draw {
                reason: DrawReason::NoFivePossible
            },
            "{rule}"
        );
        assert!(no_five_possible(game.board(), rule));
        game.undo().expect("a draw can be undone");
        assert_eq!(game.outcome(), &Outcome::Ongoing);
        // Without the last stone, row 1 has no black stone yet: white could still make five.
        assert!(!no_five_possible(game.board(), rule));
    }
}

/// An empty board, or one with a single open line, is never declared a draw.
#[test]
fn no_draw_while_a_line_is_open() {
    let empty = board(
        "
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .",
    );
    assert!(!no_five_possible(&empty, Rule::Freestyle));
    // Every segment mixed except the first column, which holds only white.
    let open = board(
        "
        O X O X O
        . O X O X
        O X O X O
        . O X O X
        O X O X O",
    );
    assert!(!no_five_possible(&open, Rule::Standard));
}

/// Undo takes back the last move, reopens a game won by five, and refuses on an empty game.
#[test]
fn undo_reopens_a_won_game() {
    let mut game = Game::new(9, Rule::Freestyle).unwrap();
    assert_eq!(game.undo(), Err(UndoError::NothingToUndo));
    for col in 0..4 {
        game.play(Point::new(0, col)).unwrap();
        game.play(Point::new(1, col)).unwrap();
    }
    let open = game.clone();
    game.play(Point::new(0, 4)).unwrap();
    assert!(game.is_over());
    let undone = game.undo().expect("undo a win");
    assert_eq!(undone.point, Point::new(0, 4));
    assert_eq!(undone.stone, Stone::Black);
    assert_eq!(game, open);
    assert_eq!(game.to_move(), Some(Stone::Black));
}

/// Resigning hands the win to the other side with an empty line; it cannot be undone, and no
/// move can follow it.
#[test]
fn resign_is_final() {
    let mut game = Game::new(15, Rule::Renju).unwrap();
    game.play(Point::new(7, 7)).unwrap();
    assert_eq!(
        game.resign().cloned(),
        Ok(Outcome::Win {
            winner: Stone::Black,
            reason: WinReason::Resign,
            line: vec![],
        })
    );
    assert_eq!(game.undo(), Err(UndoError::Decided));
    assert_eq!(game.resign(), Err(PlayError::GameOver));
    assert_eq!(game.play(Point::new(0, 0)), Err(PlayError::GameOver));
    assert_eq!(game.moves().len(), 1);
}

/// In play against a person either colour may resign whoever is to move, a flag fall loses for
/// the colour named, and a draw may be agreed; each ending is final, names itself, and leaves
/// the stones as they were.
#[test]
fn endings_off_the_board() {
    let mut opened = Game::new(15, Rule::Freestyle).unwrap();
    opened.play(Point::new(7, 7)).unwrap();
    let cases = [
        (
            Ending::Resigned(Stone::Black),
            Status::WhiteWon,
            EndReason::Resign,
        ),
        (
            Ending::TimedOut(Stone::White),
            Status::BlackWon,
            EndReason::Timeout,
        ),
        (Ending::DrawAgreed, Status::Draw, EndReason::Agreement),
        (Ending::Aborted, Status::Aborted, EndReason::Aborted),
    ];
    for (ending, status, reason) in cases {
        let mut game = opened.clone();
        let outcome = game.end(ending).unwrap().clone();
        assert_eq!(outcome.status(), status, "{ending:?}");
        assert_eq!(outcome.end_reason(), Some(reason));
        assert_eq!(outcome.ending(), Some(ending));
        assert!(outcome.win_line().is_empty());
        assert_eq!(game.moves(), opened.moves());
        assert_eq!(game.to_move(), None);
        assert_eq!(game.end(Ending::DrawAgreed), Err(PlayError::GameOver));
        assert_eq!(game.undo(), Err(UndoError::Decided));
        assert_eq!(game.take_back(1), Err(UndoError::Decided));
        assert_eq!(game.play(Point::new(0, 0)), Err(PlayError::GameOver));
    }
}

/// A takeback removes one or two moves at once, or refuses and changes nothing when there are
/// fewer on the board.
#[test]
fn takeback_of_one_or_two_moves() {
    let mut game = Game::new(9, Rule::Freestyle).unwrap();
    for (row, col) in [(4, 4), (3, 3), (4, 5)] {
        game.play(Point::new(row, col)).unwrap();
    }
    let before = game.clone();
    assert_eq!(game.take_back(4), Err(UndoError::NothingToUndo));
    assert_eq!(game, before);
    game.take_back(2).unwrap();
    assert_eq!(game.moves().len(), 1);
    assert_eq!(game.to_move(), Some(Stone::White));
    assert_eq!(game.board().get(Point::new(3, 3)), None);
    game.take_back(1).unwrap();
    assert_eq!(game, Game::new(9, Rule::Freestyle).unwrap());
}

/// Moves off the board or onto a stone are refused and change nothing; the errors say why in
/// lowercase.
#[test]
fn refused_moves() {
    let mut game = Game::new(9, Rule::Standard).unwrap();
    game.play(Point::new(4, 4)).unwrap();
    let before = game.clone();
    assert_eq!(game.play(Point::new(9, 0)), Err(PlayError::OutOfBounds));
    assert_eq!(game.play(Point::new(0, 9)), Err(PlayError::OutOfBounds));
    assert_eq!(game.play(Point::new(4, 4)), Err(PlayError::Occupied));
    assert_eq!(game, before);
    for message in [
        PlayError::OutOfBounds.to_string(),
        PlayError::Occupied.to_string(),
        PlayError::GameOver.to_string(),
        PlayError::Forbidden(ForbiddenKind::DoubleThree).to_string(),
        UndoError::NothingToUndo.to_string(),
        UndoError::Decided.to_string(),
        gomoku_rules::SetupError::BadBoardSize.to_string(),
    ] {
        assert_eq!(message, message.to_lowercase());
        assert!(!message.is_empty());
    }
}

/// Board sizes outside 5..=20 are refused; replay blames the move that fails.
#[test]
fn setup_and_replay_errors() {
    assert!(Game::new(4, Rule::Freestyle).is_err());
    assert!(Game::new(21, Rule::Freestyle).is_err());
    assert!(Game::new(5, Rule::Freestyle).is_ok());
    assert!(Game::new(20, Rule::Freestyle).is_ok());
    let points = [Point::new(0, 0), Point::new(1, 1), Point::new(0, 0)];
    assert_eq!(
        Game::replay(9, Rule::Freestyle, &points),
        Err((2, PlayError::Occupied))
    );
    assert_eq!(
        Game::replay(30, Rule::Freestyle, &points),
        Err((0, PlayError::OutOfBounds))
    );
    // Moves after the end are refused as game over.
    let mut won: Vec<Point> = (0..4)
        .flat_map(|c| [Point::new(0, c), Point::new(1, c)])
        .collect();
    won.extend([Point::new(0, 4), Point::new(1, 4)]);
    assert_eq!(
        Game::replay(9, Rule::Freestyle, &won),
        Err((9, PlayError::GameOver))
    );
}

/// Forbidden points are listed only in renju, only while black is to move.
#[test]
fn forbidden_points_only_for_black_in_renju() {
    let diagram = "
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X * . . . .
        . . . . . . . . .
        . O O O . . . . .
        . . . O . . . . .
        . . . . . . . . .";
    let (renju, marks) = game(diagram, Rule::Renju);
    assert_eq!(
        renju.forbidden_points(),
        vec![(marks[0], ForbiddenKind::DoubleThree)]
    );
    for rule in [Rule::Freestyle, Rule::Standard] {
        let (mut other, marks) = game(diagram, rule);
        assert!(other.forbidden_points().is_empty());
        assert!(
            other.play(marks[0]).is_ok(),
            "double three is fine in {rule}"
        );
    }
    let mut white_to_move = renju.clone();
    white_to_move.play(Point::new(0, 0)).unwrap();
    white_to_move.play(Point::new(8, 8)).unwrap();
    white_to_move.play(Point::new(0, 8)).unwrap();
    assert_eq!(white_to_move.to_move(), Some(Stone::White));
    assert!(white_to_move.forbidden_points().is_empty());
}
