//! Opening rules: the fair starts that take the first player's edge away, as a state machine.
//!
//! In freestyle and standard gomoku, and in renju without an opening rule, black (who moves
//! first) is far ahead. An opening rule lets the players negotiate the first stones and the
//! colours, so that whoever sets up a lopsided position hands the better side to the other.
//! The colours are therefore not known at the start: the players are two [`Seat`]s, `First`
//! (who starts the opening) and `Second`, and [`Opening::black`] says who holds black so far.
//!
//! **Swap2** (freestyle and standard; the rule of the gomoku world championships since 2009):
//! 1. The first player places three stones anywhere: black, white, black.
//! 2. The second player then either takes black, or takes white (and plays the 4th move as the
//!    game's first ordinary move), or places two more stones, white then black, and hands the
//!    choice of colour back to the first player.
//! 3. In that last case the first player takes black or white.
//!
//! The game then goes on from the three or five stones with white to move.
//!
//! **Taraguchi-10** (renju; the RIF's rule for its championships since 2023). Every stone is
//! placed by the player holding its colour, black first, and after each of the first five
//! stones the player who did not place it may swap colours:
//! 1. Black places the 1st stone on the centre point; white may swap.
//! 2. White places the 2nd inside the central 3×3 square; black may swap.
//! 3. Black places the 3rd inside the central 5×5 square; white may swap.
//! 4. White places the 4th inside the central 7×7 square. Black now either may swap (keeping
//!    black or taking white), after which black places the 5th inside the central 9×9 square and
//!    white may swap once more; or black offers ten 5th moves anywhere on the board, no two the
//!    same up to a symmetry of the position, and white picks one of them (no swap after that).
//!
//! The game then goes on from the five stones with white to move. When the position leaves
//! fewer than ten different 5th moves (only on a small board), every different one is offered.
//!
//! Why Taraguchi-10 rather than Soosõrv-8: both are RIF rules with a swap after the early
//! stones and several 5th moves offered, but Soosõrv-8 makes the player who sets up the 4th move
//! also declare how many 5th moves will be offered (1 to 8) and lets the other swap on that
//! declaration, which adds a step of bidding that a casual player on a phone finds hard to
//! judge and a page must explain. Taraguchi-10 asks only "place a stone in this square" and
//! "keep or swap" until the single offer, uses the zone rule that already shows players where
//! they may play, and is the rule the RIF adopted for its championships in 2023.
//!
//! [`Opening`] holds the stones as an ordinary [`Game`] (black first, alternating, judged under
//! the game's rule, so renju's forbidden points apply to black's opening stones too), the
//! [`Phase`] saying what is expected next and from whom, and the [`Step`]s taken so far.
//! [`Opening::apply`] takes one step and either moves on or says exactly why not
//! ([`OpeningError`]), leaving the opening unchanged. Once the phase is [`Phase::Done`] the game
//! continues from [`Opening::game`] with ordinary moves.

use crate::{by_name, Game, ParseError, PlayError, Point, Rule, SetupError, Stone};
use std::fmt;
use std::str::FromStr;

/// How many 5th moves black offers under Taraguchi-10.
pub const TARAGUCHI_OFFERS: usize = 10;

/// A player in the opening, before the colours are settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seat {
    /// Starts the opening: places swap2's first three stones, or Taraguchi's first stone.
    First,
    Second,
}

impl Seat {
    pub const ALL: [Seat; 2] = [Seat::First, Seat::Second];

    pub fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// "first", "second".
    pub fn as_str(self) -> &'static str {
        match self {
            Seat::First => "first",
            Seat::Second => "second",
        }
    }
}

/// Which opening rule a game starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpeningRule {
    Swap2,
    Taraguchi10,
}

impl OpeningRule {
    pub const ALL: [OpeningRule; 2] = [OpeningRule::Swap2, OpeningRule::Taraguchi10];

    /// "swap2", "taraguchi10".
    pub fn as_str(self) -> &'static str {
        match self {
            OpeningRule::Swap2 => "swap2",
            OpeningRule::Taraguchi10 => "taraguchi10",
        }
    }

    /// Whether this opening belongs to `rule`: swap2 to freestyle and standard, Taraguchi-10
    /// to renju (its zones and swaps balance a game in which black has forbidden points; in
    /// freestyle black's five 5th-move candidates would all win).
    pub fn suits(self, rule: Rule) -> bool {
        match self {
            OpeningRule::Swap2 => rule != Rule::Renju,
            OpeningRule::Taraguchi10 => rule == Rule::Renju,
        }
    }
}

/// A decision in the opening. Colours are what the chooser takes for themself: under
/// Taraguchi-10 "swap" is taking the other colour than the one held, "keep" taking the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Choice {
    Black,
    White,
    /// Swap2: place a white and a black stone and let the other player choose the colour.
    PlaceTwo,
    /// Taraguchi-10: keep black and offer ten 5th moves instead of placing one.
    OfferTen,
}

impl Choice {
    pub const ALL: [Choice; 4] = [
        Choice::Black,
        Choice::White,
        Choice::PlaceTwo,
        Choice::OfferTen,
    ];

    /// "black", "white", "place_two", "offer_ten".
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::Black => "black",
            Choice::White => "white",
            Choice::PlaceTwo => "place_two",
            Choice::OfferTen => "offer_ten",
        }
    }
}

/// Where the next stone may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Zone {
    Anywhere,
    /// The central square of this many points a side (odd), around the point
    /// (size / 2, size / 2), clipped to the board.
    Central(usize),
}

impl Zone {
    pub fn contains(self, size: usize, p: Point) -> bool {
        match self {
            Zone::Anywhere => p.row < size && p.col < size,
            Zone::Central(side) => {
                let (c, half) = (size / 2, side / 2);
                p.row < size
                    && p.col < size
                    && p.row.abs_diff(c) <= half
                    && p.col.abs_diff(c) <= half
            }
        }
    }
}

/// What the opening expects next, and from whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// `by` places a stone of colour `stone` inside `zone`; `left` counts the stones `by`
    /// places in a row from here, this one included (swap2's 3, then 2, then 1).
    Place {
        by: Seat,
        stone: Stone,
        zone: Zone,
        left: usize,
    },
    /// `by` picks one of `options`.
    Choose {
        by: Seat,
        options: &'static [Choice],
    },
    /// `by` (holding black) offers `count` 5th moves, different up to symmetry.
    Offer { by: Seat, count: usize },
    /// `by` (holding white) picks one of the offered 5th moves.
    Pick { by: Seat, offers: Vec<Point> },
    /// The opening is over: `black` holds black, and the game goes on with ordinary moves.
    Done { black: Seat },
}

impl Phase {
    /// The seat expected to act; None once done.
    pub fn by(&self) -> Option<Seat> {
        match self {
            Phase::Place { by, .. }
            | Phase::Choose { by, .. }
            | Phase::Offer { by, .. }
            | Phase::Pick { by, .. } => Some(*by),
            Phase::Done { .. } => None,
        }
    }

    /// "place", "choose", "offer", "pick", "done": the step kind the phase expects.
    pub fn as_str(&self) -> &'static str {
        match self {
            Phase::Place { .. } => "place",
            Phase::Choose { .. } => "choose",
            Phase::Offer { .. } => "offer",
            Phase::Pick { .. } => "pick",
            Phase::Done { .. } => "done",
        }
    }
}

/// One step of the opening.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// Place the next stone (its colour follows from the move order: black first, alternating).
    Place(Point),
    Choose(Choice),
    /// Taraguchi-10: the offered 5th moves.
    Offer(Vec<Point>),
    /// Taraguchi-10: the 5th move taken from the offer; it is placed as black's stone.
    Pick(Point),
}

impl Step {
    /// The name of the phase this step belongs to (see [`Phase::as_str`]).
    pub fn as_str(&self) -> &'static str {
        match self {
            Step::Place(_) => "place",
            Step::Choose(_) => "choose",
            Step::Offer(_) => "offer",
            Step::Pick(_) => "pick",
        }
    }
}

/// Why a step was refused. Display messages are lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpeningError {
    /// The opening is over; moves now go to the game.
    Finished,
    /// It is the other seat's turn.
    NotYourTurn { expected: Seat },
    /// The step does not fit the phase, e.g. a choice while a stone is expected.
    WrongStep { expected: &'static str },
    /// The stone lies outside the zone the phase allows.
    OutsideZone(Zone),
    /// The board refuses the stone: off the board, occupied, or forbidden to black in renju.
    Play(PlayError),
    /// The choice is not one the phase offers.
    NotAnOption(Choice),
    /// The offer holds the wrong number of points.
    OfferCount { expected: usize, got: usize },
    /// The same point is offered twice.
    DuplicateOffer(Point),
    /// Two offered points are the same 5th move up to a symmetry of the position.
    SymmetricOffers(Point, Point),
    /// The picked point is not one of the offered ones.
    NotOffered(Point),
}

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningError::Finished => f.write_str("the opening is over"),
            OpeningError::NotYourTurn { expected } => {
                write!(f, "it is the {} player's turn", expected.as_str())
            }
            OpeningError::WrongStep { expected } => {
                write!(f, "the opening expects a {expected} step")
            }
            OpeningError::OutsideZone(Zone::Central(side)) => {
                write!(f, "the stone must lie in the central {side}×{side} square")
            }
            OpeningError::OutsideZone(Zone::Anywhere) => f.write_str("the point is off the board"),
            OpeningError::Play(e) => e.fmt(f),
            OpeningError::NotAnOption(c) => write!(f, "{} is not an option now", c.as_str()),
            OpeningError::OfferCount { expected, got } => {
                write!(f, "the offer must hold {expected} points, not {got}")
            }
            OpeningError::DuplicateOffer(p) => {
                write!(f, "point ({}, {}) is offered twice", p.row, p.col)
            }
            OpeningError::SymmetricOffers(a, b) => write!(
                f,
                "points ({}, {}) and ({}, {}) are the same move by symmetry",
                a.row, a.col, b.row, b.col
            ),
            OpeningError::NotOffered(p) => {
                write!(f, "point ({}, {}) was not offered", p.row, p.col)
            }
        }
    }
}
impl std::error::Error for OpeningError {}

/// Why an opening cannot start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpeningSetupError {
    Setup(SetupError),
    /// The opening rule does not belong to the game's rule (see [`OpeningRule::suits`]).
    Unsuited {
        opening: OpeningRule,
        rule: Rule,
    },
}

impl fmt::Display for OpeningSetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningSetupError::Setup(e) => e.fmt(f),
            OpeningSetupError::Unsuited { opening, rule } => {
                write!(
                    f,
                    "the {opening} opening is not played under the {rule} rule"
                )
            }
        }
    }
}
impl std::error::Error for OpeningSetupError {}

/// Swap2's choices after three stones, and after five.
const SWAP2_THREE: &[Choice] = &[Choice::Black, Choice::White, Choice::PlaceTwo];
const COLOURS: &[Choice] = &[Choice::Black, Choice::White];
/// Taraguchi-10's choices after the 4th stone.
const TARAGUCHI_FOURTH: &[Choice] = &[Choice::Black, Choice::White, Choice::OfferTen];

/// An opening in progress (or done). Every value is one reached by legal steps from the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    // Invariant: `game` holds the stones placed so far in order, `black` the seat holding black
    // now (final once the phase is Done), and `phase` what follows `steps` under `rule`.
    rule: OpeningRule,
    game: Game,
    black: Seat,
    phase: Phase,
    steps: Vec<(Seat, Step)>,
}

impl Opening {
    /// An opening on an empty board of `size` under the game rule `rule`.
    pub fn new(
        size: usize,
        rule: Rule,
        opening: OpeningRule,
    ) -> Result<Opening, OpeningSetupError> {
        if !opening.suits(rule) {
            return Err(OpeningSetupError::Unsuited { opening, rule });
        }
        let game = Game::new(size, rule).map_err(OpeningSetupError::Setup)?;
        let phase = match opening {
            OpeningRule::Swap2 => Phase::Place {
                by: Seat::First,
                stone: Stone::Black,
                zone: Zone::Anywhere,
                left: 3,
            },
            OpeningRule::Taraguchi10 => Phase::Place {
                by: Seat::First,
                stone: Stone::Black,
                zone: Zone::Central(1),
                left: 1,
            },
        };
        Ok(Opening {
            rule: opening,
            game,
            black: Seat::First,
            phase,
            steps: Vec::new(),
        })
    }

    pub fn rule(&self) -> OpeningRule {
        self.rule
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done { .. })
    }

    /// The stones so far as a game (black first, alternating); once done, the game to go on with.
    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn into_game(self) -> Game {
        self.game
    }

    /// The seat holding black now (the first seat until a swap; final once done).
    pub fn black(&self) -> Seat {
        self.black
    }

    /// The seat holding `stone` now.
    pub fn seat_of(&self, stone: Stone) -> Seat {
        match stone {
            Stone::Black => self.black,
            Stone::White => self.black.other(),
        }
    }

    /// The steps taken so far, with who took them: replaying them from [`Opening::new`] gives
    /// this opening again.
    pub fn steps(&self) -> &[(Seat, Step)] {
        &self.steps
    }

    /// Takes one step for `by`. On success, the new phase; on failure the opening is unchanged.
    pub fn apply(&mut self, by: Seat, step: Step) -> Result<&Phase, OpeningError> {
        let expected = self.phase.by().ok_or(OpeningError::Finished)?;
        if by != expected {
            return Err(OpeningError::NotYourTurn { expected });
        }
        let next = match (&self.phase, &step) {
            (&Phase::Place { zone, .. }, &Step::Place(p)) => {
                self.check_stone(p, zone)?;
                self.game.play(p).map_err(OpeningError::Play)?;
                self.after_stone()
            }
            (&Phase::Choose { by, options }, &Step::Choose(choice)) => {
                if !options.contains(&choice) {
                    return Err(OpeningError::NotAnOption(choice));
                }
                self.after_choice(by, choice)
            }
            (&Phase::Offer { count, .. }, Step::Offer(points)) => {
                self.check_offer(points, count)?;
                Phase::Pick {
                    by: self.seat_of(Stone::White),
                    offers: points.clone(),
                }
            }
            (Phase::Pick { offers, .. }, &Step::Pick(p)) => {
                if !offers.contains(&p) {
                    return Err(OpeningError::NotOffered(p));
                }
                // Checked when offered, and nothing has been placed since.
                self.game.play(p).map_err(OpeningError::Play)?;
                Phase::Done { black: self.black }
            }
            (phase, _) => {
                return Err(OpeningError::WrongStep {
                    expected: phase.as_str(),
                })
            }
        };
        self.phase = next;
        self.steps.push((by, step));
        Ok(&self.phase)
    }

    /// Whether `a` and `b` are the same next move up to a symmetry of the position: a rotation
    /// or reflection of the board that maps every stone onto a stone of its colour and `a`
    /// onto `b`. Offered 5th moves must differ in this sense.
    pub fn symmetric(&self, a: Point, b: Point) -> bool {
        let size = self.game.size();
        symmetries_of(&self.game, size)
            .into_iter()
            .any(|t| t(a, size) == b)
    }

    /// The number of 5th moves Taraguchi-10 asks for here: ten, or as many as differ up to
    /// symmetry when there are fewer.
    fn offer_count(&self) -> usize {
        let mut kinds: Vec<Point> = Vec::new();
        for p in self.game.board().points() {
            if self.game.check(p).is_ok() && !kinds.iter().any(|&k| self.symmetric(k, p)) {
                kinds.push(p);
                if kinds.len() == TARAGUCHI_OFFERS {
                    break;
                }
            }
        }
        kinds.len()
    }

    fn check_stone(&self, p: Point, zone: Zone) -> Result<(), OpeningError> {
        self.game.check(p).map_err(OpeningError::Play)?;
        if zone.contains(self.game.size(), p) {
            Ok(())
        } else {
            Err(OpeningError::OutsideZone(zone))
        }
    }

    fn check_offer(&self, points: &[Point], count: usize) -> Result<(), OpeningError> {
        if points.len() != count {
            return Err(OpeningError::OfferCount {
                expected: count,
                got: points.len(),
            });
        }
        for (i, &p) in points.iter().enumerate() {
            self.game.check(p).map_err(OpeningError::Play)?;
            for &q in &points[..i] {
                if q == p {
                    return Err(OpeningError::DuplicateOffer(p));
                }
                if self.symmetric(q, p) {
                    return Err(OpeningError::SymmetricOffers(q, p));
                }
            }
        }
        Ok(())
    }

    /// The phase after a stone was placed (`self.game` already holds it).
    fn after_stone(&self) -> Phase {
        let placed = self.game.moves().len();
        let next_stone = stone_after(placed);
        match self.rule {
            OpeningRule::Swap2 => match placed {
                1 | 2 => Phase::Place {
                    by: Seat::First,
                    stone: next_stone,
                    zone: Zone::Anywhere,
                    left: 3 - placed,
                },
                3 => Phase::Choose {
                    by: Seat::Second,
                    options: SWAP2_THREE,
                },
                4 => Phase::Place {
                    by: Seat::Second,
                    stone: Stone::Black,
                    zone: Zone::Anywhere,
                    left: 1,
                },
                _ => Phase::Choose {
                    by: Seat::First,
                    options: COLOURS,
                },
            },
            // After each stone the player who did not place it may swap.
            OpeningRule::Taraguchi10 => Phase::Choose {
                by: self.seat_of(next_stone),
                options: if placed == 4 {
                    TARAGUCHI_FOURTH
                } else {
                    COLOURS
                },
            },
        }
    }

    /// The phase after `by` chose `choice`; settles who holds black.
    fn after_choice(&mut self, by: Seat, choice: Choice) -> Phase {
        match choice {
            Choice::Black => self.black = by,
            Choice::White => self.black = by.other(),
            Choice::PlaceTwo => {
                return Phase::Place {
                    by,
                    stone: Stone::White,
                    zone: Zone::Anywhere,
                    left: 2,
                }
            }
            Choice::OfferTen => {
                return Phase::Offer {
                    by,
                    count: self.offer_count(),
                }
            }
        }
        let placed = self.game.moves().len();
        match (self.rule, placed) {
            (OpeningRule::Taraguchi10, 1..=4) => {
                let stone = stone_after(placed);
                Phase::Place {
                    by: self.seat_of(stone),
                    stone,
                    zone: Zone::Central(2 * placed + 1),
                    left: 1,
                }
            }
            _ => Phase::Done { black: self.black },
        }
    }
}

/// The colour of the next stone after `placed` stones: black first, alternating, as in a game.
fn stone_after(placed: usize) -> Stone {
    if placed.is_multiple_of(2) {
        Stone::Black
    } else {
        Stone::White
    }
}

/// A rotation or reflection of a `size` × `size` board.
type Symmetry = fn(Point, usize) -> Point;

/// The eight symmetries of the square board (identity first).
const SYMMETRIES: [Symmetry; 8] = [
    |p, _| p,
    |p, n| Point::new(p.col, n - 1 - p.row),
    |p, n| Point::new(n - 1 - p.row, n - 1 - p.col),
    |p, n| Point::new(n - 1 - p.col, p.row),
    |p, n| Point::new(p.row, n - 1 - p.col),
    |p, n| Point::new(n - 1 - p.row, p.col),
    |p, _| Point::new(p.col, p.row),
    |p, n| Point::new(n - 1 - p.col, n - 1 - p.row),
];

/// The symmetries of the board that map the game's stones onto stones of the same colour.
fn symmetries_of(game: &Game, size: usize) -> Vec<Symmetry> {
    let board = game.board();
    SYMMETRIES
        .into_iter()
        .filter(|t| {
            game.moves()
                .iter()
                .all(|m| board.get(t(m.point, size)) == Some(m.stone))
        })
        .collect()
}

macro_rules! names {
    ($ty:ty, $err:expr) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl FromStr for $ty {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                by_name(&<$ty>::ALL, <$ty>::as_str, s).ok_or($err)
            }
        }
    };
}
names!(Seat, ParseError::UnknownSeat);
names!(OpeningRule, ParseError::UnknownOpeningRule);
names!(Choice, ParseError::UnknownChoice);
