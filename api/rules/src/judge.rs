//! The judge: wins from the last move, and draws.
//!
//! `winning_line` is the incremental judge the game uses after every move: it looks only at the
//! four lines through the stone just placed. `scan_for_win` is its slow whole-board twin, kept as
//! the reference the tests compare against. What counts as a win depends on the rule and colour
//! (see [`wins_with_run`]).

use crate::board::DIRECTIONS;
use crate::{Board, Point, Rule, Stone};

/// Whether a run of exactly `len` stones of `stone` in one line wins under `rule`: freestyle and
/// white in renju need five or more; standard (both colours) and black in renju need exactly five.
pub fn wins_with_run(rule: Rule, stone: Stone, len: usize) -> bool {
    match (rule, stone) {
        (Rule::Freestyle, _) | (Rule::Renju, Stone::White) => len >= 5,
        (Rule::Standard, _) | (Rule::Renju, Stone::Black) => len == 5,
    }
}

/// Stones of the same colour as the one at `p` in a row from `p` towards `dir`, not counting `p`.
fn run_towards(board: &Board, p: Point, dir: (isize, isize), stone: u8) -> usize {
    let mut steps = 0;
    while board.cell_at(p, dir, steps as isize + 1) == stone {
        steps += 1;
    }
    steps
}

/// The points of the unbroken run of `p`'s colour through `p` along `dir`, from one end to the
/// other. `p` must hold a stone.
fn run_through(board: &Board, p: Point, dir: (isize, isize)) -> Vec<Point> {
    let stone = board.cell(p);
    let back = run_towards(board, p, (-dir.0, -dir.1), stone) as isize;
    let forward = run_towards(board, p, dir, stone) as isize;
    (-back..=forward)
        .filter_map(|step| p.offset(dir, step, board.size()))
        .collect()
}

/// If the stone just placed at `last` makes a winning line under `rule`, the stones of that
/// line: exactly five for a five, the whole run for an overline win (freestyle; white in renju).
/// When several lines through `last` win, the first in the order horizontal, vertical,
/// down-right diagonal, down-left diagonal is returned.
pub fn winning_line(board: &Board, last: Point, rule: Rule) -> Option<Vec<Point>> {
    let stone = board.get(last)?;
    DIRECTIONS
        .iter()
        .map(|&dir| run_through(board, last, dir))
        .find(|run| wins_with_run(rule, stone, run.len()))
}

/// True when neither side can ever make five: every segment of five cells in a row holds stones
/// of both colours. Conservative: true only when it is certain.
///
/// The check is the same for every rule: a segment free of one colour could still become that
/// colour's five (or part of its overline), so under no rule is the draw certain while one
/// remains. `rule` is accepted so a sharper rule-specific test can be added without changing
/// callers.
pub fn no_five_possible(board: &Board, rule: Rule) -> bool {
    let _ = rule;
    let size = board.size();
    for p in board.points() {
        for &dir in &DIRECTIONS {
            // Only segments that fit on the board, identified by their first cell.
            if p.offset(dir, 4, size).is_none() {
                continue;
            }
            let mut seen = 0u8;
            for step in 0..5 {
                seen |= board.cell_at(p, dir, step);
            }
            // Bit 1 is black, bit 2 white: a segment missing either bit is still open to a five.
            if seen & 3 != 3 {
                return false;
            }
        }
    }
    true
}

/// Whole-board scan for a winning line of `stone` (slow; the reference the incremental judge
/// is tested against). Lines are found in row-major order of their first stone.
pub fn scan_for_win(board: &Board, stone: Stone, rule: Rule) -> Option<Vec<Point>> {
    let value = stone.as_u8();
    for p in board.points() {
        if board.cell(p) != value {
            continue;
        }
        for &dir in &DIRECTIONS {
            // Measure each run once, from its first stone.
            if board.cell_at(p, dir, -1) == value {
                continue;
            }
            let len = 1 + run_towards(board, p, dir, value);
            if wins_with_run(rule, stone, len) {
                return Some(
                    (0..len as isize)
                        .filter_map(|step| p.offset(dir, step, board.size()))
                        .collect(),
                );
            }
        }
    }
    None
}
