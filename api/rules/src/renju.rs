//! Renju forbidden moves for black: overline, double-four, double-three (with the recursive
//! check that a three must be able to become a straight four by a move that is not forbidden).

use crate::{Board, Point};

/// Why a black move is forbidden in renju. Wire names: "double_three", "double_four", "overline".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ForbiddenKind {
    DoubleThree,
    DoubleFour,
    Overline,
}

impl ForbiddenKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ForbiddenKind::DoubleThree => "double_three",
            ForbiddenKind::DoubleFour => "double_four",
            ForbiddenKind::Overline => "overline",
        }
    }
}

/// Whether a black stone on the empty point `p` would be forbidden, and why. A move that makes
/// an exact five is never forbidden. Returns None for an occupied or off-board point.
pub fn forbidden_kind(board: &Board, p: Point) -> Option<ForbiddenKind> {
    todo!()
}

/// Every empty point where black may not play (row-major order).
pub fn forbidden_points(board: &Board) -> Vec<(Point, ForbiddenKind)> {
    todo!()
}
