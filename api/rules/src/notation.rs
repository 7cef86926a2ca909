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
    pub fn to_point(self, size: usize) -> Option<Point> {
        let col = usize::from(self.file);
        let rank = usize::from(self.rank);
        if col < size && (1..=size).contains(&rank) {
            Some(Point::new(size - rank, col))
        } else {
            None
        }
    }

    /// The notation of `p` on a board of `size`. `p` must lie on that board (as every point
    /// of a game does); a point off it gives a coordinate that `to_point` rejects.
    pub fn from_point(p: Point, size: usize) -> Coord {
        let on_board = p.row < size && p.col < size;
        Coord {
            file: if on_board { p.col as u8 } else { u8::MAX },
            rank: if on_board { (size - p.row) as u8 } else { 0 },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    BadCoord,
    UnknownRule,
    UnknownStatus,
    UnknownEndReason,
    UnknownForbiddenKind,
    UnknownOpeningRule,
    UnknownSeat,
    UnknownChoice,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::BadCoord => f.write_str("not a coordinate such as h8"),
            ParseError::UnknownRule => f.write_str("unknown rule"),
            ParseError::UnknownStatus => f.write_str("unknown status"),
            ParseError::UnknownEndReason => f.write_str("unknown end reason"),
            ParseError::UnknownForbiddenKind => f.write_str("unknown forbidden kind"),
            ParseError::UnknownOpeningRule => f.write_str("unknown opening rule"),
            ParseError::UnknownSeat => f.write_str("unknown seat"),
            ParseError::UnknownChoice => f.write_str("unknown opening choice"),
        }
    }
}
impl std::error::Error for ParseError {}

/// Files run a..z; no letter is skipped (unlike Go's missing "i"), so h is the eighth column.
const FILES: u8 = 26;
/// Ranks are written with at most two digits.
const MAX_RANK: u8 = 99;

impl fmt::Display for Coord {
    /// Lowercase letter then rank, e.g. "h8". A coordinate outside a..z / 1..99 (only possible
    /// when built by hand) prints as "?".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file < FILES && (1..=MAX_RANK).contains(&self.rank) {
            write!(f, "{}{}", char::from(b'a' + self.file), self.rank)
        } else {
            f.write_str("?")
        }
    }
}

impl FromStr for Coord {
    type Err = ParseError;

    /// Accepts a letter (either case) followed by a rank 1..=99 without leading zeros, so that
    /// every accepted string is the one `Display` prints, up to the letter's case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bytes = s.as_bytes();
        let (&letter, digits) = bytes.split_first().ok_or(ParseError::BadCoord)?;
        if !letter.is_ascii_alphabetic()
            || digits.is_empty()
            || digits.len() > 2
            || digits[0] == b'0'
            || !digits.iter().all(u8::is_ascii_digit)
        {
            return Err(ParseError::BadCoord);
        }
        let rank = digits.iter().fold(0u8, |acc, d| acc * 10 + (d - b'0'));
        Ok(Coord {
            file: letter.to_ascii_lowercase() - b'a',
            rank,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The centre and the corners of 15×15 land where standard notation puts them.
    #[test]
    fn known_points_on_15() {
        let at = |s: &str| s.parse::<Coord>().unwrap().to_point(15);
        assert_eq!(at("h8"), Some(Point::new(7, 7)));
        assert_eq!(at("a1"), Some(Point::new(14, 0)));
        assert_eq!(at("o15"), Some(Point::new(0, 14)));
        assert_eq!(at("a15"), Some(Point::new(0, 0)));
        assert_eq!(at("p1"), None);
        assert_eq!(at("a16"), None);
        assert_eq!(Coord::from_point(Point::new(7, 7), 15).to_string(), "h8");
    }

    /// The same text names different points on different sizes: ranks count from the bottom.
    #[test]
    fn rank_depends_on_size() {
        let c: Coord = "a1".parse().unwrap();
        assert_eq!(c.to_point(9), Some(Point::new(8, 0)));
        assert_eq!(c.to_point(19), Some(Point::new(18, 0)));
    }

    /// Malformed text is refused; an uppercase letter is accepted.
    #[test]
    fn parse_errors() {
        for bad in [
            "", "h", "8", "h0", "h08", "8h", "h100", "hh8", "h-1", "h 8", "é8",
        ] {
            assert_eq!(bad.parse::<Coord>(), Err(ParseError::BadCoord), "{bad:?}");
        }
        assert_eq!("H8".parse::<Coord>(), Ok(Coord { file: 7, rank: 8 }));
        assert_eq!(
            ParseError::BadCoord.to_string(),
            "not a coordinate such as h8"
        );
    }
}
