//! What the game operations take and return: a game's row, its moves, the position rebuilt from
//! them, a listing entry, a new game, a change, and what became of a write. Storage-neutral:
//! nothing here knows SQL.

use std::str::FromStr;
use std::sync::Arc;

use gomoku_engine::Level;
use gomoku_rules::{EndReason, Game, Point, Rule, Status, Stone};

/// Who plays: two people on one device, or a person against the AI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Local,
    Ai,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Local, Mode::Ai];

    /// "local", "ai".
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Ai => "ai",
        }
    }
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
    /// The owner.
    pub player_id: String,
    pub mode: Mode,
    pub rule: Rule,
    pub board_size: usize,
    pub ai: Option<AiSetting>,
    pub status: Status,
    /// Stored because moves alone cannot tell a resignation.
    pub resigned_by: Option<Stone>,
    pub move_count: usize,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
    pub finished_at: Option<String>,
}

/// One stored move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMove {
    pub point: Point,
    pub stone: Stone,
    pub played_at: String,
}

/// A loaded game: its row, its moves, and the position rebuilt from them.
#[derive(Debug, Clone)]
pub struct StoredGame {
    pub row: GameRow,
    pub moves: Vec<StoredMove>,
    pub game: Game,
}

/// A listing entry: the row plus what a summary shows without replaying the game, as the rules
/// said it when the game was last written.
#[derive(Debug, Clone)]
pub struct Summary {
    pub row: GameRow,
    pub end_reason: Option<EndReason>,
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
}

/// A change to a loaded game: of its stored moves the first `keep` stay, and the game's moves
/// become `moves` (so `moves[keep..]` are new), with `game` the position after them (a
/// resignation included).
#[derive(Debug, Clone)]
pub struct Change {
    /// The row as loaded; its version guards the update.
    pub row: GameRow,
    pub keep: usize,
    pub moves: Vec<StoredMove>,
    pub game: Game,
    pub at: String,
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
