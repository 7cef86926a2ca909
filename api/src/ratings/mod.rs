//! Ratings of rated online games: Glicko-2 per rule family, the provisional mark, the ranks
//! (段位) shown for a rating, and the change a rated result makes to each player.
//!
//! Pure: no SQL, no HTTP, no clock. The store keeps a player's [`Rating`] per [`Family`] and
//! calls [`rate_game`] inside the transaction that applies a result, so both players' new
//! ratings and the [`Change`] rows shown as "+12 / −9" come from one computation.
//!
//! Glicko-2 is Glickman's (<http://www.glicko.net/glicko/glicko2.pdf>), as the `skillratings`
//! crate computes it. Each game is a rating period of its own, as Lichess does: a player's
//! rating moves after every game instead of at the end of a fixed period, which players expect,
//! and a period of one game is still exactly Glickman's algorithm. The [`rank`] table turns a
//! rating into the 段位 the page shows.

pub mod rank;

use std::fmt;
use std::str::FromStr;

use gomoku_rules::{Rule, Stone};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

pub use rank::{rank, Rank, RANKS};

/// Glicko-2's τ, which bounds how fast the volatility may change; 0.5 is the value of
/// Glickman's worked example and inside the 0.3–1.2 he calls reasonable.
pub const TAU: f64 = 0.5;
/// A rating is provisional (shown with "?", left off the leaderboard) while its deviation is at
/// least this: at 110 the 95% interval is still ±220 points.
pub const PROVISIONAL_RD: f64 = 110.0;
/// The least deviation a rating keeps after any number of games, as Lichess keeps 45: below it a
/// settled player's rating would hardly move however they play.
pub const MIN_RD: f64 = 45.0;

/// The rule families rated apart: freestyle and standard gomoku share one rating (the same
/// game but for overlines), renju has its own (black's forbidden moves make it another game).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    Gomoku,
    Renju,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Gomoku, Family::Renju];

    /// "gomoku", "renju": the stored and served name.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Gomoku => "gomoku",
            Family::Renju => "renju",
        }
    }

    /// The family a game of `rule` is rated in.
    pub fn of(rule: Rule) -> Family {
        match rule {
            Rule::Freestyle | Rule::Standard => Family::Gomoku,
            Rule::Renju => Family::Renju,
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of [`Family::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule family")]
pub struct UnknownFamily;

impl FromStr for Family {
    type Err = UnknownFamily;
    fn from_str(s: &str) -> Result<Family, UnknownFamily> {
        gomoku_rules::by_name(&Family::ALL, Family::as_str, s).ok_or(UnknownFamily)
    }
}

/// A player's Glicko-2 rating in one family, on the familiar scale (1500 ± 350 at the start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    pub rating: f64,
    /// The rating deviation (RD): how unsure the rating still is.
    pub rd: f64,
    /// How erratic the player's results are (σ).
    pub volatility: f64,
}

impl Rating {
    /// Every player's rating before their first rated game in a family.
    pub const INITIAL: Rating = Rating {
        rating: 1500.0,
        rd: 350.0,
        volatility: 0.06,
    };

    /// Still provisional: too few games to trust (the deviation is at least [`PROVISIONAL_RD`]).
    pub fn provisional(self) -> bool {
        self.rd >= PROVISIONAL_RD
    }

    /// The rating as shown: rounded to a whole point, with "?" while provisional ("1500?").
    pub fn shown(self) -> String {
        let mark = if self.provisional() { "?" } else { "" };
        format!("{}{mark}", self.points())
    }

    /// The rating rounded to a whole point, as every figure shown is.
    pub fn points(self) -> i32 {
        self.rating.round() as i32
    }

    fn glicko(self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.rd,
            volatility: self.volatility,
        }
    }

    fn from_glicko(g: Glicko2Rating) -> Rating {
        Rating {
            rating: g.rating,
            rd: g.deviation.clamp(MIN_RD, Rating::INITIAL.rd),
            volatility: g.volatility,
        }
    }
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::INITIAL
    }
}

/// How a game ended for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Score {
    Win,
    Loss,
    Draw,
}

impl Score {
    pub const ALL: [Score; 3] = [Score::Win, Score::Loss, Score::Draw];

    /// "win", "loss", "draw".
    pub fn as_str(self) -> &'static str {
        match self {
            Score::Win => "win",
            Score::Loss => "loss",
            Score::Draw => "draw",
        }
    }

    /// The score of `colour`'s player when `winner` won (None: a draw).
    pub fn of(colour: Stone, winner: Option<Stone>) -> Score {
        match winner {
            None => Score::Draw,
            Some(w) if w == colour => Score::Win,
            Some(_) => Score::Loss,
        }
    }

    /// The opponent's score.
    pub fn reversed(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Loss => Score::Win,
            Score::Draw => Score::Draw,
        }
    }
}

/// A name that is not one of [`Score::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown score")]
pub struct UnknownScore;

impl FromStr for Score {
    type Err = UnknownScore;
    fn from_str(s: &str) -> Result<Score, UnknownScore> {
        gomoku_rules::by_name(&Score::ALL, Score::as_str, s).ok_or(UnknownScore)
    }
}

/// The Glicko-2 constants of every rating here.
pub fn config() -> Glicko2Config {
    Glicko2Config {
        tau: TAU,
        ..Glicko2Config::new()
    }
}

/// Both players' ratings after one game (a rating period of its own) in which `a` scored
/// `score` against `b`.
pub fn rate(a: Rating, b: Rating, score: Score) -> (Rating, Rating) {
    let outcome = match score {
        Score::Win => Outcomes::WIN,
        Score::Loss => Outcomes::LOSS,
        Score::Draw => Outcomes::DRAW,
    };
    let (a, b) = glicko2(&a.glicko(), &b.glicko(), &outcome, &config());
    (Rating::from_glicko(a), Rating::from_glicko(b))
}

/// What one rated game did to one player's rating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    pub before: Rating,
    pub after: Rating,
    pub score: Score,
}

impl Change {
    /// The change in whole points as shown (see [`delta`]).
    pub fn delta(&self) -> i32 {
        delta(self.before.rating, self.after.rating)
    }

    /// The change as the result shows it (see [`shown_delta`]).
    pub fn shown(&self) -> String {
        shown_delta(self.delta())
    }
}

/// A change in whole points as shown: the difference of the two shown ratings, so that
/// "1500 → 1512" reads "+12" and never "+11" from rounding each figure apart.
pub fn delta(before: f64, after: f64) -> i32 {
    after.round() as i32 - before.round() as i32
}

/// A change as the result shows it: "+12", "−9" (a true minus sign), "±0".
pub fn shown_delta(delta: i32) -> String {
    match delta {
        0 => "±0".to_string(),
        d if d > 0 => format!("+{d}"),
        d => format!("\u{2212}{}", d.unsigned_abs()),
    }
}

/// What a rated game's result does to its two players: black's change and white's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rated {
    pub black: Change,
    pub white: Change,
}

impl Rated {
    /// The change of `colour`'s player.
    pub fn of(&self, colour: Stone) -> &Change {
        match colour {
            Stone::Black => &self.black,
            Stone::White => &self.white,
        }
    }
}

/// The result of a rated game between `black` and `white` (as rated before it) that `winner`
/// won (None: a draw, by agreement or a full board). Resignations and flag falls are wins like
/// any other.
pub fn rate_game(black: Rating, white: Rating, winner: Option<Stone>) -> Rated {
    let score = Score::of(Stone::Black, winner);
    let (black_after, white_after) = rate(black, white, score);
    Rated {
        black: Change {
            before: black,
            after: black_after,
            score,
        },
        white: Change {
            before: white,
            after: white_after,
            score: score.reversed(),
        },
    }
}

/// Moves a game must have for its result to be rated: both players moved. A game that ends
/// with fewer (a resignation or a flag fall before white's first move, an abort) is unrated.
pub const RATED_FROM_MOVES: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::glicko2::glicko2_rating_period;

    fn close(a: f64, b: f64, within: f64) -> bool {
        (a - b).abs() <= within
    }

    /// Glickman's worked example (glicko2.pdf, section "Example calculation"): a 1500/200/0.06
    /// player who beats a 1400/30 player and loses to 1550/100 and 1700/300 players in one
    /// rating period ends at 1464.06 / 151.52 / 0.05999, with τ = 0.5, our constant. (The paper
    /// rounds its intermediate values; unrounded, the rating is 1464.051, hence 0.02.)
    #[test]
    fn glickmans_worked_example() {
        let player = Glicko2Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let games = [
            (opponent(1400.0, 30.0), Outcomes::WIN),
            (opponent(1550.0, 100.0), Outcomes::LOSS),
            (opponent(1700.0, 300.0), Outcomes::LOSS),
        ];
        let after = glicko2_rating_period(&player, &games, &config());
        assert!(close(after.rating, 1464.06, 0.02), "{}", after.rating);
        assert!(close(after.deviation, 151.52, 0.01), "{}", after.deviation);
        assert!(
            close(after.volatility, 0.05999, 0.00001),
            "{}",
            after.volatility
        );
    }

    /// One game by hand, with Glickman's steps 2–8: two new players, black wins.
    /// μ = 0, φ = 350/173.7178 = 2.014762; g(φ) = 1/√(1 + 3φ²/π²) = 0.669069; E = 0.5;
    /// v = 1/(g²·E·(1−E)) = 8.935475; Δ = v·g·(1−E) = 2.989226; σ' = 0.0599997 (step 5's
    /// iteration; it barely moves); φ* = √(φ² + σ'²) = 2.015655; φ' = 1/√(1/φ*² + 1/v) = 1.671210;
    /// μ' = φ'²·g·(1−E) = 0.934337; so r' = 1500 + 173.7178·μ' = 1662.31 and RD' = 173.7178·φ'
    /// = 290.32 (white: 1337.69, the same RD).
    #[test]
    fn one_game_matches_hand_computed_values() {
        let rated = rate_game(Rating::INITIAL, Rating::INITIAL, Some(Stone::Black));
        assert!(
            close(rated.black.after.rating, 1662.31, 0.01),
            "{:?}",
            rated
        );
        assert!(close(rated.black.after.rd, 290.32, 0.01), "{:?}", rated);
        assert!(
            close(rated.white.after.rating, 1337.69, 0.01),
            "{:?}",
            rated
        );
        assert!(close(rated.white.after.rd, 290.32, 0.01), "{:?}", rated);
        assert!(close(rated.black.after.volatility, 0.06, 0.0001));
        assert_eq!(
            (rated.black.score, rated.white.score),
            (Score::Win, Score::Loss)
        );
        assert_eq!(
            (rated.black.shown(), rated.white.shown()),
            ("+162".into(), "\u{2212}162".into())
        );
    }

    /// A game is one rating period: rating each side with the other's rating before the game
    /// gives what the period computation gives for that side alone.
    #[test]
    fn a_game_is_a_rating_period_of_its_own() {
        let a = Rating {
            rating: 1720.0,
            rd: 80.0,
            volatility: 0.059,
        };
        let b = Rating {
            rating: 1610.0,
            rd: 140.0,
            volatility: 0.061,
        };
        let rated = rate_game(a, b, None);
        let period = glicko2_rating_period(&a.glicko(), &[(b.glicko(), Outcomes::DRAW)], &config());
        assert!(close(rated.black.after.rating, period.rating, 1e-9));
        assert!(close(rated.black.after.rd, period.deviation, 1e-9));
        // A draw with a lower-rated player costs points; the other gains.
        assert!(rated.black.delta() < 0 && rated.white.delta() > 0);
    }

    /// The deviation never drops below its floor: many games leave it above (one game a period
    /// settles near 60), and a deviation below the floor comes back up to it.
    #[test]
    fn deviation_keeps_its_floor() {
        let (mut a, mut b) = (Rating::INITIAL, Rating::INITIAL);
        for i in 0..500 {
            let score = if i % 2 == 0 { Score::Win } else { Score::Loss };
            (a, b) = rate(a, b, score);
            assert!(a.rd >= MIN_RD && b.rd >= MIN_RD);
        }
        assert!(a.rd < PROVISIONAL_RD, "{a:?}");
        let sure = Rating {
            rd: 30.0,
            ..Rating::INITIAL
        };
        let (after, _) = rate(sure, Rating::INITIAL, Score::Win);
        assert_eq!(after.rd, MIN_RD);
    }

    /// Provisional until the deviation is below 110, shown with "?".
    #[test]
    fn provisional_until_rd_below_110() {
        assert!(Rating::INITIAL.provisional());
        assert_eq!(Rating::INITIAL.shown(), "1500?");
        let settled = Rating {
            rd: 109.9,
            ..Rating::INITIAL
        };
        assert!(!settled.provisional());
        assert_eq!(settled.shown(), "1500");
        assert!(Rating {
            rd: 110.0,
            ..Rating::INITIAL
        }
        .provisional());
    }

    /// Freestyle and standard share a family, renju has its own; names round-trip.
    #[test]
    fn families() {
        assert_eq!(Family::of(Rule::Freestyle), Family::of(Rule::Standard));
        assert_ne!(Family::of(Rule::Standard), Family::of(Rule::Renju));
        for family in Family::ALL {
            assert_eq!(family.as_str().parse(), Ok(family));
        }
        for score in Score::ALL {
            assert_eq!(score.as_str().parse(), Ok(score));
        }
        assert!("chess".parse::<Family>().is_err());
    }

    /// The shown change is the difference of the shown ratings, with a true minus sign.
    #[test]
    fn shown_changes() {
        let at = |rating| Rating {
            rating,
            ..Rating::INITIAL
        };
        let change = |before, after| Change {
            before: at(before),
            after: at(after),
            score: Score::Draw,
        };
        assert_eq!(change(1500.4, 1512.4).shown(), "+12");
        assert_eq!(change(1500.6, 1491.4).shown(), "\u{2212}10");
        assert_eq!(change(1500.2, 1500.4).shown(), "±0");
    }
}
