//! Helpers shared by the integration tests: positions drawn as ASCII diagrams.
//!
//! Besides what `Board::from_ascii` reads (`X` black, `O` white, `.` empty), a diagram may
//! mark points: `*` an empty point the test is about, `@` a black stone that is played last
//! when the diagram is turned into a game.

#![allow(dead_code)] // each test file uses a different subset

use gomoku_rules::{Board, Game, Point, Rule, Stone};

/// The board of a diagram and its `*` points in row-major order.
pub fn board_and_marks(diagram: &str) -> (Board, Vec<Point>) {
    let (board, marks, _) = parse(diagram);
    (board, marks)
}

/// The board of a diagram that has no marks.
pub fn board(diagram: &str) -> Board {
    let (board, marks, last) = parse(diagram);
    assert!(marks.is_empty() && last.is_none(), "unexpected marks");
    board
}

/// The board of a diagram with exactly one `*` point, and that point.
pub fn board_and_mark(diagram: &str) -> (Board, Point) {
    let (board, marks) = board_and_marks(diagram);
    assert_eq!(marks.len(), 1, "expected exactly one `*` in the diagram");
    (board, marks[0])
}

fn parse(diagram: &str) -> (Board, Vec<Point>, Option<Point>) {
    let mut marks = Vec::new();
    let mut last = None;
    let mut plain = String::new();
    let mut row = 0;
    for line in diagram.lines() {
        let mut col = 0;
        let mut any = false;
        for ch in line.chars() {
            let p = Point::new(row, col);
            match ch {
                ' ' | '\t' => continue,
                '*' => {
                    marks.push(p);
                    plain.push('.');
                }
                '@' => {
                    assert!(last.replace(p).is_none(), "more than one `@`");
                    plain.push('X');
                }
                other => plain.push(other),
            }
            col += 1;
            any = true;
        }
        if any {
            plain.push('\n');
            row += 1;
        }
    }
    let board = Board::from_ascii(&plain).expect("a square diagram of an accepted size");
    (board, marks, last)
}

/// A game whose position is the diagram, reached by playing black's and white's stones
/// alternately in row-major order (the `@` stone, if any, last). Marks `*` are left empty.
/// Panics if some move of that order is refused.
pub fn game(diagram: &str, rule: Rule) -> (Game, Vec<Point>) {
    let (board, marks, last) = parse(diagram);
    let points = move_order(&board, last);
    let game = Game::replay(board.size(), rule, &points)
        .unwrap_or_else(|(i, e)| panic!("move {i} ({:?}) refused: {e}", points[i]));
    assert_eq!(game.board(), &board);
    (game, marks)
}

/// Black and white stones alternately (black first), row-major, `last` at the very end.
pub fn move_order(board: &Board, last: Option<Point>) -> Vec<Point> {
    let of = |stone| -> Vec<Point> {
        board
            .points()
            .filter(|&p| board.get(p) == Some(stone) && Some(p) != last)
            .collect()
    };
    let mut black = of(Stone::Black);
    let white = of(Stone::White);
    black.extend(last);
    assert!(
        black.len() == white.len() || black.len() == white.len() + 1,
        "a game has as many black stones as white, or one more"
    );
    let mut order = Vec::new();
    for (i, &b) in black.iter().enumerate() {
        order.push(b);
        order.extend(white.get(i));
    }
    order
}
