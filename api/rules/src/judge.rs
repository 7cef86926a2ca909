//! The judge: wins from the last move, and draws.

use crate::{Board, Point, Rule, Stone};

/// If the stone just placed at `last` makes a winning line under `rule`, the stones of that
/// line: exactly five for a five, the whole run for an overline win (freestyle; white in renju).
pub fn winning_line(board: &Board, last: Point, rule: Rule) -> Option<Vec<Point>> {
    todo!()
}

/// True when neither side can ever make five: every segment of five cells in a row holds stones
/// of both colours. Conservative: true only when it is certain.
pub fn no_five_possible(board: &Board, rule: Rule) -> bool {
    todo!()
}

/// Whole-board scan for a winning line of `stone` (slow; the reference the incremental judge
/// is tested against).
pub fn scan_for_win(board: &Board, stone: Stone, rule: Rule) -> Option<Vec<Point>> {
    todo!()
}
