//! Standard notation: column letters a, b, c… from the left, row numbers from 1 at the bottom.
//! "h8" is the centre of a 15×15 board (row 7, col 7).

use crate::Point;
use std::fmt;
use std::str::FromStr;

/// A point in notation, independent of board size. Round-trips through `FromStr`/`Display`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Coord {
    /// 0-based column (a = 0).
    pub file: u8,
    /// 1-based row counted from the bottom.
    pub rank: u8,
}

impl Coord {
    /// The board point on a board of `size`, or None if it lies outside.
    pub fn to_point(self, size: usize) -> Option<Point> { todo!() }
    /// The notation of `p` on a board of `size`.
    pub fn from_point(p: Point, size: usize) -> Coord { todo!() }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    BadCoord,
    UnknownRule,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::BadCoord => f.write_str("not a coordinate such as h8"),
            ParseError::UnknownRule => f.write_str("unknown rule"),
        }
    }
}
impl std::error::Error for ParseError {}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { todo!() }
}

impl FromStr for Coord {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> { todo!() }
}
