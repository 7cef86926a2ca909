//! Gomoku rules as a library: the board, the judge (freestyle, standard, renju), and notation.
//!
//! Pure Rust with no I/O: the engine and the service build on it, never the other way round.
//! A [`Game`] is a validated position: it can only be reached by playing legal moves from an
//! empty board, so every `Game` value is one that the judge has accepted move by move.
//!
//! Modules: [`board`] (cells, stones, points), [`game`] (playing, undo and takeback, endings
//! off the board: resignation, time, agreement), [`outcome`]
//! (the verdict and its names), [`judge`] (fives and draws), [`renju`] (black's forbidden
//! points), [`opening`] (the fair opening rules swap2 and Taraguchi-10, which settle the first
//! stones and the colours before play) and [`notation`] ("h8"). Every name that crosses into
//! storage or onto the wire (rule, status, end reason, forbidden kind, opening rule, seat,
//! choice) has one string form: `as_str` and `FromStr`.

pub mod board;
pub mod game;
pub mod judge;
pub mod notation;
pub mod opening;
pub mod outcome;
pub mod renju;

pub use board::{Board, Point, Stone, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
pub use game::{Game, Move, PlayError, SetupError, UndoError};
pub use notation::{Coord, ParseError};
// The opening's seats, phases, steps, choices and zones keep their module path
// (`opening::Seat`…): names that general would read as the game's own at the root.
pub use opening::{Opening, OpeningError, OpeningRule, OpeningSetupError};
pub use outcome::{DrawReason, EndReason, Ending, Outcome, Status, WinReason};
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
    pub const ALL: [Rule; 3] = [Rule::Freestyle, Rule::Standard, Rule::Renju];

    /// "freestyle", "standard", "renju".
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
        by_name(&Rule::ALL, Rule::as_str, s).ok_or(ParseError::UnknownRule)
    }
}

/// The value of `all` whose name is `s`: the inverse of an `as_str` over the list of every value,
/// so that each type defines its names once. The one way names are parsed, here and in the
/// crates built on the rules.
pub fn by_name<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str, s: &str) -> Option<T> {
    all.iter().copied().find(|&v| name(v) == s)
}
