//! The game service: what a request to a game decides, below HTTP. Its callers (the handlers in
//! `http`) name the player, the game, what is asked (in the rules' types) and when the request
//! arrived; they get back the game as stored, or an [`Error`] that carries domain values (a game
//! over carries the state it ended in), which the edge renders.
//!
//! Every operation works the same way: it loads the game once, decides the change with the rules
//! (and, in an online game, with the clock's arithmetic and the offers' rules of
//! [`crate::online`]), and commits that change guarded by the version it loaded. If another
//! request changed the game in between, nothing was written: the operation loads again and decides
//! afresh, up to `ATTEMPTS` times (then [`Error::Busy`]). Nothing is loaded twice in one
//! attempt: the loop owns the one load, and the decisions are handed the game it read. A move
//! (the hot path) first tries without a load, on the game as the position cache holds it unless
//! news of a newer version came: only a move that lands is answered from that attempt.
//!
//! `play` holds moves (with the AI's reply in `ai` mode, and the clocks online), undo and
//! resign; `online` the seats and offers of online games; `opening` the steps of an opening
//! rule (swap2, Taraguchi-10), the AI's among them; `setup` creating, importing and deleting
//! games; `rated` the results and aborts of rated games.
//!
//! Every write goes through [`commit`] (the flag timers' too), and so every ending of a game —
//! five in a row or a full board, a resignation, a flag fall, an agreed draw — passes through
//! `ended`, once, right after the write that ended it landed.

mod online;
mod opening;
mod play;
pub mod rated;
mod setup;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use gomoku_rules::{ForbiddenKind, OpeningError, PlayError, UndoError};

use crate::ai::{Ai, AiError};
use crate::online::offers::OfferError;
use crate::store::games::{self as stored_games, Change, StoredGame, Written};
use crate::store::{Db, StoreError};

pub use play::MoveAsked;
pub use setup::{OpeningSetting, Settings};

/// Loads after a lost race before giving up with [`Error::Busy`] (only under heavy contention
/// on one game).
const ATTEMPTS: usize = 8;

/// Why the service did not do what was asked. Each variant names the HTTP answer it becomes at
/// the edge (`http::error`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// GAME_NOT_FOUND: no game the player may see (another player's local or ai game is as good
    /// as none).
    #[error("no such game")]
    NotFound,
    /// NOT_A_PLAYER: a spectator of an online game.
    #[error("only the game's players may do this")]
    NotAPlayer,
    /// ONLINE_ONLY: seats and offers are for online games.
    #[error("only online games have seats and offers")]
    OnlineOnly,
    /// WAITING_FOR_OPPONENT: the online game has not begun.
    #[error("the game waits for a second player")]
    WaitingForOpponent,
    /// GAME_OVER. `game` is the game as it ended when the caller should see it (a write to an
    /// online game: a flag that fell before the request arrived gives the timed-out state).
    #[error("the game is over")]
    GameOver { game: Option<Arc<StoredGame>> },
    /// NOT_YOUR_TURN
    #[error("it is the other player's turn")]
    NotYourTurn,
    /// GAME_FULL
    #[error("both seats are taken")]
    GameFull,
    /// TAKEBACK_REQUIRED: an online game has no plain undo.
    #[error("an online game's move is taken back by a takeback")]
    TakebackRequired,
    /// SHARED_GAME: an online game with two players cannot be deleted.
    #[error("the game belongs to both of its players")]
    SharedGame,
    /// GAME_NOT_OVER: a rematch of an online game still waiting or in play.
    #[error("the game is not over")]
    GameNotOver,
    /// PLY_MISMATCH: the asker's `ply` is neither the game's move count nor a retry.
    #[error("ply {ply} does not match the {move_count} moves on the board")]
    PlyMismatch { ply: usize, move_count: usize },
    /// GAME_CHANGED: the game changed while the AI thought; nothing was played.
    #[error("the game changed while the AI was thinking")]
    GameChanged,
    /// NOTHING_TO_UNDO
    #[error("there is no move to undo")]
    NothingToUndo,
    /// NO_OFFER or OFFER_PENDING.
    #[error(transparent)]
    Offer(#[from] OfferError),
    /// OUT_OF_BOUNDS
    #[error("the point is outside the board")]
    OutOfBounds,
    /// CELL_OCCUPIED
    #[error("the cell is already occupied")]
    CellOccupied,
    /// FORBIDDEN_MOVE for black under renju.
    #[error("the move is forbidden for black: {}", .0.as_str())]
    Forbidden(ForbiddenKind),
    /// TOO_MANY_GAMES: the player (or, for a rematch, either player) has this many unfinished
    /// games already.
    #[error("too many unfinished games (at most {0})")]
    TooManyGames(u32),
    /// OPENING_IN_PROGRESS: an ordinary move, an undo or an offer while the game's opening goes
    /// on.
    #[error("the opening is not over: take its steps first")]
    OpeningInProgress,
    /// OPENING_OVER: an opening step once the opening is done.
    #[error("the opening is over; the game goes on with moves")]
    OpeningOver,
    /// NO_OPENING: an opening step in a game that started without an opening rule.
    #[error("this game has no opening rule")]
    NoOpening,
    /// WRONG_STEP, OUTSIDE_ZONE, NOT_AN_OPTION, OFFER_COUNT, DUPLICATE_OFFER, SYMMETRIC_OFFERS or
    /// NOT_OFFERED: the rules refuse the opening step (never `Finished`, `NotYourTurn` or
    /// `Play`, which have their own variants).
    #[error(transparent)]
    Opening(OpeningError),
    /// INVALID_SETTINGS: the rules refuse the new game's board.
    #[error("invalid settings: {0}")]
    InvalidSettings(String),
    /// BUSY: every attempt lost its race.
    #[error("the game kept changing under every attempt")]
    Busy,
    /// BUSY or a 500, as the store's error says.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// AI_BUSY or a 500, as the AI's error says.
    #[error(transparent)]
    Ai(#[from] AiError),
    /// A 500: something that cannot happen did.
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// GAME_OVER without the game.
    fn game_over() -> Error {
        Error::GameOver { game: None }
    }
}

impl From<PlayError> for Error {
    fn from(e: PlayError) -> Error {
        match e {
            PlayError::OutOfBounds => Error::OutOfBounds,
            PlayError::Occupied => Error::CellOccupied,
            PlayError::GameOver => Error::game_over(),
            PlayError::Forbidden(kind) => Error::Forbidden(kind),
        }
    }
}

impl From<OpeningError> for Error {
    fn from(e: OpeningError) -> Error {
        match e {
            OpeningError::Finished => Error::OpeningOver,
            OpeningError::NotYourTurn { .. } => Error::NotYourTurn,
            OpeningError::Play(e) => e.into(),
            other => Error::Opening(other),
        }
    }
}

impl From<UndoError> for Error {
    fn from(e: UndoError) -> Error {
        match e {
            UndoError::NothingToUndo => Error::NothingToUndo,
            UndoError::Decided => Error::game_over(),
        }
    }
}

/// The service's terms, from the server's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terms {
    /// The most unfinished games a player may have.
    pub max_unfinished_games: u32,
    /// How long a takeback or draw offer stands unanswered.
    pub offer_ttl: Duration,
    /// How long a rematch offer stands unanswered.
    pub rematch_ttl: Duration,
}

/// The game service: cheap to clone (the database and the AI are handles).
#[derive(Debug, Clone)]
pub struct Games {
    db: Db,
    ai: Ai,
    terms: Terms,
    /// Loads made, for the tests that prove an attempt loads once.
    #[cfg(test)]
    loads: Arc<std::sync::atomic::AtomicUsize>,
}

impl Games {
    pub fn new(db: Db, ai: Ai, terms: Terms) -> Games {
        Games {
            db,
            ai,
            terms,
            #[cfg(test)]
            loads: Default::default(),
        }
    }

    /// Game `id` if `player_id` may see it: a local or ai game its owner only, an online game
    /// anyone (its players, and spectators holding its id).
    pub async fn load(&self, player_id: &str, id: &str) -> Result<Arc<StoredGame>, Error> {
        #[cfg(test)]
        self.loads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        stored_games::load(&self.db, id)
            .await?
            .filter(|stored| stored.role(player_id).is_some())
            .ok_or(Error::NotFound)
    }

    /// Commits a change guarded by its version: the game as stored, None when another request
    /// got there first.
    async fn commit(&self, change: Change) -> Result<Option<Arc<StoredGame>>, Error> {
        let cap = self.terms.max_unfinished_games;
        landed(commit(&self.db, change, cap).await?, cap)
    }
}

/// What a guarded write came to, for the caller: the stored game, None when another request got
/// there first, TOO_MANY_GAMES past the cap.
fn landed(written: Written, cap: u32) -> Result<Option<Arc<StoredGame>>, Error> {
    match written {
        Written::Stored(stored) => Ok(Some(stored)),
        Written::Stale => Ok(None),
        Written::OverCap => Err(Error::TooManyGames(cap)),
    }
}

/// Every write of a change to a game: the store's guarded commit (see
/// [`store::games::commit`](crate::store::games::commit)), and `ended` when it ended the game.
/// The flag timers write through here too.
pub async fn commit(db: &Db, change: Change, cap: u32) -> Result<Written, StoreError> {
    let was_over = change.row.status.is_over();
    let written = stored_games::commit(db, change, cap).await?;
    if let Written::Stored(game) = &written {
        if !was_over && game.row.status.is_over() {
            ended(db, game).await;
        }
    }
    Ok(written)
}

/// The one point every ending of a game passes, once, right after the write that ended it
/// landed (on the board, by resignation, on time, by agreement). What a finished game sets off
/// belongs here: a rated game's result is applied ([`rated::settle`]; should that fail, the
/// rated games' sweep applies it later).
async fn ended(db: &Db, game: &StoredGame) {
    tracing::debug!(
        game = %game.row.id,
        status = game.row.status.as_str(),
        reason = ?game.row.end_reason,
        "game ended"
    );
    if let Err(e) = rated::settle(db, game).await {
        tracing::warn!(game = %game.row.id, error = %e, "could not settle a rated game yet");
    }
}
