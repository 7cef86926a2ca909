//! Gomoku rules as a library: the board, the judge (freestyle, standard, renju), and notation.
//!
//! Pure Rust with no I/O: the engine and the service build on it, never the other way round.
//! A [`Game`] is a validated position: it can only be reached by playing legal moves from an
//! empty board, so every `Game` value is one that the judge has accepted move by move.
//!
//! INTERFACE CONTRACT (fixed by the lead; implementers keep these names and signatures, and may
//! add more public items):
//! - `Stone`, `Rule`, `Point`, `Coord`, `Board`, `ForbiddenKind`, `Outcome`, `WinReason`,
//!   `DrawReason`, `Move`, `PlayError`, `UndoError`, `SetupError`, `ParseError`, `Game`,
//!   `MIN_BOARD_SIZE`, `MAX_BOARD_SIZE`, `judge::*`, `renju::forbidden_kind`.

pub mod board;
pub mod game;
pub mod judge;
pub mod notation;
pub mod renju;

pub use board::{Board, Point, Stone, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
pub use game::{DrawReason, Game, Move, Outcome, PlayError, SetupError, UndoError, WinReason};
pub use notation::{Coord, ParseError};
pub use renju::ForbiddenKind;

use std::fmt;
use std::str::FromStr;

/// Which rule set judges a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row wins.
    Freestyle,
    /// Exactly five wins; an overline is no win for either colour and play goes on.
    Standard,
    /// Black: exactly five wins; overline, double-four and double-three are forbidden.
    /// White: five or more wins, nothing forbidden.
    Renju,
}

impl Rule {
    /// The name used on the wire: "freestyle", "standard", "renju".
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Rule {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "freestyle" => Ok(Rule::Freestyle),
            "standard" => Ok(Rule::Standard),
            "renju" => Ok(Rule::Renju),
            _ => Err(ParseError::UnknownRule),
        }
    }
}
