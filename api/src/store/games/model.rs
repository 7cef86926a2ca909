//! What the game operations take and return: a game's row, who sits at it, its moves, the
//! position rebuilt from them, a listing entry, a new game, a change, and what became of a write.
//! Storage-neutral: nothing here knows SQL.
//!
//! Who may see a game follows from its mode and seats ([`StoredGame::role`]): a local or ai game
//! is its owner's alone; an online game is its two players', and anyone holding its id may
//! watch it.

use std::str::FromStr;
use std::sync::Arc;

use gomoku_engine::Level;
use gomoku_rules::opening::Seat as OpeningSeat;
use gomoku_rules::{EndReason, Ending, Game, Opening, Point, Rule, Status, Stone};
use time::OffsetDateTime;

/// Who plays: two people on one device, a person against the AI, or two players on two devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Local,
    Ai,
    Online,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Local, Mode::Ai, Mode::Online];

    /// "local", "ai", "online".
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Ai => "ai",
            Mode::Online => "online",
        }
    }
}

/// Where a game stands as the service names it: an online game still waiting for its second
/// player, or the rules' status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameStatus {
    Waiting,
    Rules(Status),
}

impl GameStatus {
    pub const ALL: [GameStatus; 6] = [
        GameStatus::Waiting,
        GameStatus::Rules(Status::Playing),
        GameStatus::Rules(Status::BlackWon),
        GameStatus::Rules(Status::WhiteWon),
        GameStatus::Rules(Status::Draw),
        GameStatus::Rules(Status::Aborted),
    ];

    /// "waiting", or the rules' own name of the status.
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::Rules(status) => status.as_str(),
        }
    }

    /// Whether the game is finished (never while waiting).
    pub fn is_over(self) -> bool {
        matches!(self, GameStatus::Rules(status) if status.is_over())
    }
}

/// A name that is not one of [`GameStatus::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown status")]
pub struct UnknownStatus;

impl FromStr for GameStatus {
    type Err = UnknownStatus;
    fn from_str(s: &str) -> Result<GameStatus, UnknownStatus> {
        gomoku_rules::by_name(&GameStatus::ALL, GameStatus::as_str, s).ok_or(UnknownStatus)
    }
}

/// Each side's time at the start, and what each move adds to the mover's clock (Fischer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    pub initial_ms: i64,
    pub increment_ms: i64,
}

impl TimeControl {
    /// The range of the initial time: 1 s to 24 h.
    pub const INITIAL_MS: std::ops::RangeInclusive<i64> = 1_000..=86_400_000;
    /// The range of the increment: 0 to 60 s.
    pub const INCREMENT_MS: std::ops::RangeInclusive<i64> = 0..=60_000;
}

/// The clocks of a timed game as stored: each side's time left when the current turn began, and
/// the absolute time at which the running clock's flag falls (None while no clock runs: before
/// black's first move, and once the game is over). The side whose clock runs is the side to
/// move. Absolute, so that a restarted server (or another instance) knows when a flag falls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub black_ms: i64,
    pub white_ms: i64,
    pub deadline: Option<OffsetDateTime>,
}

/// A pending offer: who made it, and when it lapses unanswered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    pub by: Stone,
    pub expires: OffsetDateTime,
}

impl Offer {
    /// Whether the offer still stands at `now`.
    pub fn stands(&self, now: OffsetDateTime) -> bool {
        now < self.expires
    }
}

/// The kinds of offer a player makes to the other: a takeback or a draw while the game is in
/// play, a rematch once it is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferKind {
    Takeback,
    Draw,
    Rematch,
}

impl OfferKind {
    pub const ALL: [OfferKind; 3] = [OfferKind::Takeback, OfferKind::Draw, OfferKind::Rematch];
}

/// Pending offers of an online game, each as stored: one that has lapsed stays here until it is
/// cleared, so what is pending at an instant is [`Offers::standing`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Offers {
    pub takeback: Option<Offer>,
    pub draw: Option<Offer>,
    pub rematch: Option<Offer>,
}

impl Offers {
    pub fn get(&self, kind: OfferKind) -> Option<Offer> {
        match kind {
            OfferKind::Takeback => self.takeback,
            OfferKind::Draw => self.draw,
            OfferKind::Rematch => self.rematch,
        }
    }

    pub fn set(&mut self, kind: OfferKind, offer: Option<Offer>) {
        match kind {
            OfferKind::Takeback => self.takeback = offer,
            OfferKind::Draw => self.draw = offer,
            OfferKind::Rematch => self.rematch = offer,
        }
    }

    /// The offers that still stand at `now`: a lapsed one reads as none.
    pub fn standing(mut self, now: OffsetDateTime) -> Offers {
        for kind in OfferKind::ALL {
            let offer = self.get(kind).filter(|o| o.stands(now));
            self.set(kind, offer);
        }
        self
    }

    /// When the first pending offer lapses.
    pub fn next_expiry(&self) -> Option<OffsetDateTime> {
        OfferKind::ALL
            .into_iter()
            .filter_map(|kind| self.get(kind).map(|o| o.expires))
            .min()
    }
}

/// A player at a game, by id and display name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    pub player_id: String,
    pub name: String,
}

/// Who sits at a game. The owner of a local game sits at both colours, the person of an ai game
/// at theirs; an online game has its creator's seat and, once joined, the other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seats {
    pub black: Option<Seat>,
    pub white: Option<Seat>,
}

impl Seats {
    pub fn get(&self, colour: Stone) -> Option<&Seat> {
        match colour {
            Stone::Black => self.black.as_ref(),
            Stone::White => self.white.as_ref(),
        }
    }

    /// Seats `seat` at `colour`.
    pub fn set(&mut self, colour: Stone, seat: Seat) {
        match colour {
            Stone::Black => self.black = Some(seat),
            Stone::White => self.white = Some(seat),
        }
    }

    /// The colour `player_id` plays, if exactly one (the owner of a local game plays both).
    pub fn colour_of(&self, player_id: &str) -> Option<Stone> {
        let at = |colour| self.get(colour).is_some_and(|s| s.player_id == player_id);
        match (at(Stone::Black), at(Stone::White)) {
            (true, false) => Some(Stone::Black),
            (false, true) => Some(Stone::White),
            _ => None,
        }
    }

    /// The colour `player_id` plays in a game of `mode` with these seats: their seat in an online
    /// game, the person's colour in an ai game; None in a local game (its owner plays both) and
    /// for a spectator.
    pub fn you(&self, mode: Mode, player_id: &str) -> Option<Stone> {
        match mode {
            Mode::Local => None,
            Mode::Ai | Mode::Online => self.colour_of(player_id),
        }
    }

    /// Whether `player_id` sits at either colour.
    pub fn has(&self, player_id: &str) -> bool {
        [Stone::Black, Stone::White]
            .into_iter()
            .any(|c| self.get(c).is_some_and(|s| s.player_id == player_id))
    }

    /// The same seats with the colours exchanged.
    pub fn swapped(self) -> Seats {
        Seats {
            black: self.white,
            white: self.black,
        }
    }

    /// The colour no one sits at yet, black first.
    pub fn free(&self) -> Option<Stone> {
        [Stone::Black, Stone::White]
            .into_iter()
            .find(|&c| self.get(c).is_none())
    }
}

/// What a player is to a game they may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The owner of a local or ai game (who plays its person's moves).
    Owner,
    /// A player of an online game, at this colour.
    Seated(Stone),
    /// Anyone else holding an online game's id: may read and watch it.
    Spectator,
}

/// A name that is not one of [`Mode::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode")]
pub struct UnknownMode;

impl FromStr for Mode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Mode, UnknownMode> {
        gomoku_rules::by_name(&Mode::ALL, Mode::as_str, s).ok_or(UnknownMode)
    }
}

/// The AI's side of an `ai`-mode game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AiSetting {
    pub level: Level,
    /// The colour the AI plays.
    pub player: Stone,
}

/// A game's settings and bookkeeping, as in its `games` row.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: String,
    /// Who made it: the owner of a local or ai game, the creator of an online one.
    pub player_id: String,
    pub mode: Mode,
    pub rule: Rule,
    pub board_size: usize,
    pub ai: Option<AiSetting>,
    pub status: GameStatus,
    /// Stored because moves alone cannot tell an ending off the board (resignation, time,
    /// agreement).
    pub end_reason: Option<EndReason>,
    pub move_count: usize,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
    pub finished_at: Option<String>,
    /// Online games only; None when untimed.
    pub time_control: Option<TimeControl>,
    /// Present exactly when the game has a time control.
    pub clock: Option<Clock>,
    pub offers: Offers,
    /// The game an accepted rematch of this one created.
    pub rematch_game_id: Option<String>,
    /// The opening rule the game starts with, as its steps so far left it (replayed from the
    /// stored steps); None for a game without one. Its stones are the game's first moves.
    pub opening: Option<Opening>,
}

impl GameRow {
    /// Whether the game has an opening that is not done yet: no ordinary move, undo or offer.
    pub fn in_opening(&self) -> bool {
        self.opening.as_ref().is_some_and(|o| !o.is_done())
    }

    /// How many of the game's first moves are the opening's stones (0 without an opening).
    pub fn opening_stones(&self) -> usize {
        self.opening.as_ref().map_or(0, |o| o.game().moves().len())
    }

    /// Whether the opening's swaps have given black to its second seat: the stored seats and AI
    /// colour (those at the start, the first seat at black) are then the other way round.
    pub fn swapped(&self) -> bool {
        self.opening
            .as_ref()
            .is_some_and(|o| o.black() == OpeningSeat::Second)
    }

    /// When the game next needs its timer: the running clock's flag falls, or a pending offer
    /// lapses, whichever comes first.
    pub fn due(&self) -> Option<OffsetDateTime> {
        let flag = self.clock.and_then(|c| c.deadline);
        flag.into_iter().chain(self.offers.next_expiry()).min()
    }

    /// The ending off the board that the stored result records, if any.
    pub fn ending(&self) -> Option<Ending> {
        match (self.status, self.end_reason) {
            (GameStatus::Rules(status), Some(reason)) => Ending::from_result(status, reason),
            _ => None,
        }
    }
}

/// One stored move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMove {
    pub point: Point,
    pub stone: Stone,
    pub played_at: String,
    /// The mover's time left after the move, its increment included (timed games).
    pub clock_ms: Option<i64>,
}

/// A loaded game: its row, who sits at it, its moves, and the position rebuilt from them.
#[derive(Debug, Clone)]
pub struct StoredGame {
    pub row: GameRow,
    pub seats: Seats,
    pub moves: Vec<StoredMove>,
    pub game: Game,
}

impl StoredGame {
    /// What `player_id` is to this game; None when they may not see it.
    pub fn role(&self, player_id: &str) -> Option<Role> {
        match self.row.mode {
            Mode::Local | Mode::Ai => (self.row.player_id == player_id).then_some(Role::Owner),
            Mode::Online => Some(match self.seats.colour_of(player_id) {
                Some(colour) => Role::Seated(colour),
                None => Role::Spectator,
            }),
        }
    }

    /// The colour `player_id` plays here (see [`Seats::you`]).
    pub fn colour_of(&self, player_id: &str) -> Option<Stone> {
        self.seats.you(self.row.mode, player_id)
    }

    /// The same game, unchanged, as a change to build on: it keeps every move, the clock and
    /// the offers, and is stamped `at`.
    pub fn change(&self, at: String) -> Change {
        Change {
            row: self.row.clone(),
            keep: self.moves.len(),
            moves: self.moves.clone(),
            game: self.game.clone(),
            at,
            waiting: self.row.status == GameStatus::Waiting,
            clock: self.row.clock,
            offers: self.row.offers,
            rematch_game_id: self.row.rematch_game_id.clone(),
            seats: self.seats.clone(),
            seat: None,
        }
    }
}

/// A listing entry: the row and its seats plus what a summary shows without replaying the game,
/// as the rules said it when the game was last written.
#[derive(Debug, Clone)]
pub struct Summary {
    pub row: GameRow,
    pub seats: Seats,
    pub win_line: Vec<Point>,
    /// The colour to move; None once the game is over.
    pub to_move: Option<Stone>,
    pub last_move: Option<(Point, Stone)>,
}

/// Which games a listing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    All,
    Playing,
    Finished,
}

/// A new game to store, with any moves it starts with (the AI's first move, or an import).
#[derive(Debug, Clone)]
pub struct NewGame {
    pub player_id: String,
    pub mode: Mode,
    pub ai: Option<AiSetting>,
    pub moves: Vec<StoredMove>,
    /// The position after `moves`; it holds the rule, the board size and the outcome.
    pub game: Game,
    /// An online game: the creator's colour and the time control. It starts waiting.
    pub online: Option<OnlineSetup>,
}

/// How an online game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnlineSetup {
    /// The creator's colour.
    pub seat: Stone,
    pub time_control: Option<TimeControl>,
}

/// A change to a loaded game: of its stored moves the first `keep` stay, and the game's moves
/// become `moves` (so `moves[keep..]` are new), with `game` the position after them (an ending
/// off the board included); the clock and the offers become those given, and a player may take
/// a seat. Start from [`StoredGame::change`].
#[derive(Debug, Clone)]
pub struct Change {
    /// The row as loaded; its version guards the update.
    pub row: GameRow,
    pub keep: usize,
    pub moves: Vec<StoredMove>,
    pub game: Game,
    /// When the change happens: the new `updated_at` (and `finished_at`, if it ends the game).
    pub at: String,
    /// Whether the game still waits for its second player.
    pub waiting: bool,
    pub clock: Option<Clock>,
    pub offers: Offers,
    /// The game an accepted rematch created (set by [`rematch`](super::rematch) alone).
    pub rematch_game_id: Option<String>,
    /// Who sits at the game, as loaded.
    pub seats: Seats,
    /// A player taking a free seat: their id and colour (their name is read as the seat is
    /// written).
    pub seat: Option<(String, Stone)>,
}

/// What became of a write of a game.
#[derive(Debug, Clone)]
pub enum Written {
    /// Stored; the game as it now is.
    Stored(Arc<StoredGame>),
    /// The game changed (or went) since it was loaded; nothing was written.
    Stale,
    /// The game would be one unfinished game too many for its player; nothing was written.
    OverCap,
}
