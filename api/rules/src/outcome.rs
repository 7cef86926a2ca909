//! Where a game stands: the [`Outcome`] the judge gives, and its two flat names, [`Status`] and
//! [`EndReason`], each with one string form (`as_str` / `FromStr`, round-tripping) that storage
//! and the wire both use.
//!
//! The outcome is the rules' verdict; status and end reason are views of it, so nothing above the
//! rules has to work out a result again from flags or move counts. Most outcomes follow from the
//! stones; an [`Ending`] (a resignation, a flag fall, a draw agreed) is decided off the board, so
//! storage keeps it as the status and end reason it shows, and [`Ending::from_result`] reads it
//! back.

use std::fmt;
use std::str::FromStr;

use crate::{by_name, ParseError, Point, Stone};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WinReason {
    Five,
    Resign,
    /// The loser's clock ran out.
    Timeout,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawReason {
    BoardFull,
    NoFivePossible,
    /// Both players agreed to a draw.
    Agreement,
}

/// A game ended off the board: by a resignation or a flag fall (each naming the colour that
/// lost), by a draw both players agreed to, or called off before both players moved (a rated
/// game's first move not made in time): no result at all, neither a win nor a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ending {
    Resigned(Stone),
    TimedOut(Stone),
    DrawAgreed,
    Aborted,
}

impl Ending {
    /// The outcome this ending gives.
    pub fn outcome(self) -> Outcome {
        let win = |loser: Stone, reason| Outcome::Win {
            winner: loser.opponent(),
            reason,
            line: Vec::new(),
        };
        match self {
            Ending::Resigned(loser) => win(loser, WinReason::Resign),
            Ending::TimedOut(loser) => win(loser, WinReason::Timeout),
            Ending::DrawAgreed => Outcome::Draw {
                reason: DrawReason::Agreement,
            },
            Ending::Aborted => Outcome::Aborted,
        }
    }

    /// The ending that a result shown as `status` and `reason` records; None for a result the
    /// stones decide (a five, a full board, no five possible) or that does not fit together.
    pub fn from_result(status: Status, reason: EndReason) -> Option<Ending> {
        match (reason, status.winner()) {
            (EndReason::Resign, Some(winner)) => Some(Ending::Resigned(winner.opponent())),
            (EndReason::Timeout, Some(winner)) => Some(Ending::TimedOut(winner.opponent())),
            (EndReason::Agreement, None) if status == Status::Draw => Some(Ending::DrawAgreed),
            (EndReason::Aborted, None) if status == Status::Aborted => Some(Ending::Aborted),
            _ => None,
        }
    }
}

/// Where the game stands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Outcome {
    Ongoing,
    /// `line` is the winning stones for a five, empty for a resignation.
    Win {
        winner: Stone,
        reason: WinReason,
        line: Vec<Point>,
    },
    Draw {
        reason: DrawReason,
    },
    /// Called off before both players moved: over, with no result.
    Aborted,
}

impl Outcome {
    pub fn status(&self) -> Status {
        match self {
            Outcome::Ongoing => Status::Playing,
            Outcome::Win {
                winner: Stone::Black,
                ..
            } => Status::BlackWon,
            Outcome::Win {
                winner: Stone::White,
                ..
            } => Status::WhiteWon,
            Outcome::Draw { .. } => Status::Draw,
            Outcome::Aborted => Status::Aborted,
        }
    }

    pub fn winner(&self) -> Option<Stone> {
        self.status().winner()
    }

    /// Why the game ended; None while it goes on.
    pub fn end_reason(&self) -> Option<EndReason> {
        match self {
            Outcome::Ongoing => None,
            Outcome::Win { reason, .. } => Some((*reason).into()),
            Outcome::Draw { reason } => Some((*reason).into()),
            Outcome::Aborted => Some(EndReason::Aborted),
        }
    }

    /// The stones of the winning five; empty unless the game was won on the board.
    pub fn win_line(&self) -> &[Point] {
        match self {
            Outcome::Win { line, .. } => line,
            _ => &[],
        }
    }

    /// How the game ended off the board, if it did.
    pub fn ending(&self) -> Option<Ending> {
        match self {
            Outcome::Win {
                winner,
                reason: WinReason::Resign,
                ..
            } => Some(Ending::Resigned(winner.opponent())),
            Outcome::Win {
                winner,
                reason: WinReason::Timeout,
                ..
            } => Some(Ending::TimedOut(winner.opponent())),
            Outcome::Draw {
                reason: DrawReason::Agreement,
            } => Some(Ending::DrawAgreed),
            Outcome::Aborted => Some(Ending::Aborted),
            _ => None,
        }
    }
}

/// An outcome by its name: a game is playing, won by one colour, drawn, or aborted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Playing,
    BlackWon,
    WhiteWon,
    Draw,
    Aborted,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Playing,
        Status::BlackWon,
        Status::WhiteWon,
        Status::Draw,
        Status::Aborted,
    ];

    /// "playing", "black_won", "white_won", "draw", "aborted".
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::BlackWon => "black_won",
            Status::WhiteWon => "white_won",
            Status::Draw => "draw",
            Status::Aborted => "aborted",
        }
    }

    pub fn is_over(self) -> bool {
        self != Status::Playing
    }

    pub fn winner(self) -> Option<Stone> {
        match self {
            Status::BlackWon => Some(Stone::Black),
            Status::WhiteWon => Some(Stone::White),
            Status::Playing | Status::Draw | Status::Aborted => None,
        }
    }
}

/// Why a game ended, whoever won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    Five,
    Resign,
    BoardFull,
    NoFivePossible,
    Timeout,
    Agreement,
    Aborted,
}

impl EndReason {
    pub const ALL: [EndReason; 7] = [
        EndReason::Five,
        EndReason::Resign,
        EndReason::BoardFull,
        EndReason::NoFivePossible,
        EndReason::Timeout,
        EndReason::Agreement,
        EndReason::Aborted,
    ];

    /// "five", "resign", "board_full", "no_five_possible", "timeout", "agreement", "aborted".
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Five => "five",
            EndReason::Resign => "resign",
            EndReason::BoardFull => "board_full",
            EndReason::NoFivePossible => "no_five_possible",
            EndReason::Timeout => "timeout",
            EndReason::Agreement => "agreement",
            EndReason::Aborted => "aborted",
        }
    }
}

impl From<WinReason> for EndReason {
    fn from(reason: WinReason) -> EndReason {
        match reason {
            WinReason::Five => EndReason::Five,
            WinReason::Resign => EndReason::Resign,
            WinReason::Timeout => EndReason::Timeout,
        }
    }
}

impl From<DrawReason> for EndReason {
    fn from(reason: DrawReason) -> EndReason {
        match reason {
            DrawReason::BoardFull => EndReason::BoardFull,
            DrawReason::NoFivePossible => EndReason::NoFivePossible,
            DrawReason::Agreement => EndReason::Agreement,
        }
    }
}

impl FromStr for Status {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Status, ParseError> {
        by_name(&Status::ALL, Status::as_str, s).ok_or(ParseError::UnknownStatus)
    }
}

impl FromStr for EndReason {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<EndReason, ParseError> {
        by_name(&EndReason::ALL, EndReason::as_str, s).ok_or(ParseError::UnknownEndReason)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name parses back to its value, and nothing else parses.
    #[test]
    fn names_round_trip() {
        for s in Status::ALL {
            assert_eq!(s.as_str().parse::<Status>(), Ok(s));
            assert_eq!(s.to_string(), s.as_str());
        }
        for r in EndReason::ALL {
            assert_eq!(r.as_str().parse::<EndReason>(), Ok(r));
        }
        for bad in ["", "Playing", "black-won", "won", " draw"] {
            assert_eq!(bad.parse::<Status>(), Err(ParseError::UnknownStatus));
        }
        assert_eq!(
            "time_out".parse::<EndReason>(),
            Err(ParseError::UnknownEndReason)
        );
    }

    /// Status, winner, end reason and resigner are read off the outcome, not worked out anew.
    #[test]
    fn outcome_views() {
        let five = Outcome::Win {
            winner: Stone::White,
            reason: WinReason::Five,
            line: vec![Point::new(0, 0)],
        };
        assert_eq!(five.status(), Status::WhiteWon);
        assert_eq!(five.winner(), Some(Stone::White));
        assert_eq!(five.end_reason(), Some(EndReason::Five));
        assert_eq!(five.win_line(), &[Point::new(0, 0)]);
        assert_eq!(five.ending(), None);
        let resigned = Outcome::Win {
            winner: Stone::Black,
            reason: WinReason::Resign,
            line: vec![],
        };
        assert_eq!(resigned.ending(), Some(Ending::Resigned(Stone::White)));
        assert_eq!(resigned.end_reason(), Some(EndReason::Resign));
        let draw = Outcome::Draw {
            reason: DrawReason::NoFivePossible,
        };
        assert_eq!(
            (draw.status(), draw.winner(), draw.end_reason()),
            (Status::Draw, None, Some(EndReason::NoFivePossible))
        );
        assert_eq!(Outcome::Ongoing.status(), Status::Playing);
        assert!(!Status::Playing.is_over() && Status::Draw.is_over());
        assert_eq!(Outcome::Ongoing.end_reason(), None);
    }

    /// Every ending gives an outcome that names it again, and its status and end reason read
    /// back as the same ending; results the stones decide are no ending.
    #[test]
    fn endings_round_trip_through_their_result() {
        for ending in [
            Ending::Resigned(Stone::Black),
            Ending::Resigned(Stone::White),
            Ending::TimedOut(Stone::Black),
            Ending::TimedOut(Stone::White),
            Ending::DrawAgreed,
        ] {
            let outcome = ending.outcome();
            assert_eq!(outcome.ending(), Some(ending));
            let reason = outcome.end_reason().unwrap();
            assert_eq!(Ending::from_result(outcome.status(), reason), Some(ending));
        }
        let timed_out = Ending::TimedOut(Stone::White).outcome();
        assert_eq!(
            (timed_out.status(), timed_out.end_reason()),
            (Status::BlackWon, Some(EndReason::Timeout))
        );
        assert_eq!(Ending::from_result(Status::BlackWon, EndReason::Five), None);
        assert_eq!(Ending::from_result(Status::Draw, EndReason::Resign), None);
        assert_eq!(
            Ending::from_result(Status::BlackWon, EndReason::Agreement),
            None
        );
    }
}
