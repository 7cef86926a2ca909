//! Names on the wire. Each type the API serves as a string (mode, rule, level, status, end
//! reason, forbidden kind) is served through [`Wire`], which writes the type's own `as_str` and
//! describes itself in the OpenAPI document as the list of those strings. The database columns
//! use the same `as_str`, and requests and stored rows are read with the same `FromStr`: one
//! string form per type, defined once, next to the type.
//!
//! Fields are declared with the aliases below ([`StatusName`] rather than `Wire<Status>`): the
//! OpenAPI derive names a generic type after its parameters, which these foreign types cannot
//! give it, while an alias is one plain name to it.

use std::borrow::Cow;

use gomoku_engine::analysis::Mark;
use gomoku_engine::Level;
use gomoku_rules::opening::{Choice, OpeningRule, Seat};
use gomoku_rules::{EndReason, ForbiddenKind, Rule};
use serde::{Serialize, Serializer};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use crate::store::analyses::AnalysisStatus;
use crate::store::games::{GameStatus, Mode};

/// A type with a fixed set of names.
pub trait WireName: Copy + 'static {
    /// The schema's name in the OpenAPI document.
    const SCHEMA: &'static str;
    const DESCRIPTION: &'static str;
    fn all() -> &'static [Self];
    fn name(self) -> &'static str;
}

/// A value served as its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wire<T>(pub T);

impl<T: WireName> Serialize for Wire<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.name())
    }
}

impl<T: WireName> PartialSchema for Wire<T> {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(T::DESCRIPTION))
            .enum_values(Some(T::all().iter().map(|v| v.name())))
            .into()
    }
}

impl<T: WireName> ToSchema for Wire<T> {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed(T::SCHEMA)
    }
}

macro_rules! wire_names {
    ($($ty:ty => $alias:ident, $doc:literal;)*) => {$(
        impl WireName for $ty {
            const SCHEMA: &'static str = stringify!($alias);
            const DESCRIPTION: &'static str = $doc;
            fn all() -> &'static [Self] {
                &<$ty>::ALL
            }
            fn name(self) -> &'static str {
                self.as_str()
            }
        }

        #[doc = $doc]
        pub type $alias = Wire<$ty>;
    )*};
}

wire_names! {
    Mode => ModeName, "How a game is played: two people on one device, against the AI, or two players on two devices.";
    Rule => RuleName, "The rule set judging a game.";
    Level => LevelName, "The AI's strength.";
    GameStatus => StatusName, "Where a game stands: waiting for its second player (online games), playing, or over.";
    EndReason => EndReasonName, "Why a game ended.";
    ForbiddenKind => ForbiddenKindName, "Why a point is forbidden for black under renju.";
    AnalysisStatus => AnalysisStatusName, "Whether the server is still analysing a game.";
    OpeningRule => OpeningRuleName, "An opening rule: swap2 (freestyle, standard) or taraguchi10 (renju).";
    Seat => SeatName, "A seat in an opening, before the colours are settled.";
    Choice => ChoiceName, "A choice in an opening: a colour, placing two more stones (swap2) or offering ten 5th moves (Taraguchi-10).";
}

/// Every mark, in the engine's order (the engine's type has no list of its own).
const MARKS: [Mark; 5] = [
    Mark::Inaccuracy,
    Mark::Mistake,
    Mark::Blunder,
    Mark::OnlyMove,
    Mark::WinningThreatMissed,
];

impl WireName for Mark {
    const SCHEMA: &'static str = "MarkName";
    const DESCRIPTION: &'static str = "What an analysed move is marked as: an inaccuracy, a \
        mistake or a blunder (the mover's win probability after it fell short of that after the \
        engine's move, by more and more), the only move that does not lose, or a forced win (a \
        five, or a VCF) given away.";
    fn all() -> &'static [Self] {
        &MARKS
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
}

/// What an analysed move is marked as.
pub type MarkName = Wire<Mark>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A name is served as the type's `as_str`, and the schema lists exactly those names.
    #[test]
    fn served_and_described_by_as_str() {
        assert_eq!(
            serde_json::to_value(Wire(GameStatus::Rules(gomoku_rules::Status::BlackWon))).unwrap(),
            "black_won"
        );
        assert_eq!(
            serde_json::to_value(Wire(GameStatus::Waiting)).unwrap(),
            "waiting"
        );
        let schema = serde_json::to_value(<EndReasonName as PartialSchema>::schema()).unwrap();
        let listed: Vec<&str> = schema["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let names: Vec<&str> = EndReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(listed, names);
        assert_eq!(<LevelName as ToSchema>::name(), "LevelName");
    }

    /// The marks' list holds every mark (a new one fails to compile here until it is listed)
    /// at its place, and each name reads back as its mark.
    #[test]
    fn every_mark_listed() {
        let place = |m: Mark| match m {
            Mark::Inaccuracy => 0,
            Mark::Mistake => 1,
            Mark::Blunder => 2,
            Mark::OnlyMove => 3,
            Mark::WinningThreatMissed => 4,
        };
        for (i, mark) in MARKS.iter().enumerate() {
            assert_eq!(place(*mark), i);
            assert_eq!(mark.as_str().parse::<Mark>(), Ok(*mark));
        }
    }
}
