//! Games, their seats and their moves: the operations on the `games`, `seats` and `moves` tables
//! (load, insert, commit a change, delete, list, the running clocks), each handed to the
//! backend's own SQL ([`sqlite::games`](super::sqlite), [`postgres::games`](super::postgres)).
//!
//! A game is stored as its settings plus one row per move. Loading replays the moves through
//! the rules (then applies a stored ending off the board), so a loaded [`Game`] is always one the
//! judge accepted. The status columns on `games` (status, end reason, win line, side to move)
//! mirror that replay for listings, written from the rules' [`Outcome`](gomoku_rules::Outcome) at
//! every commit, never worked out anew.
//!
//! Writes are optimistic: a handler loads a game, works out the change (which may include an
//! AI search, done without holding any lock), then commits it guarded by the `version` it
//! loaded. If another request (of this process or of another instance) changed the game
//! meanwhile, nothing is written and the caller hears [`Written::Stale`]. The primary key
//! (game_id, ply) backs this up: two moves can never share a ply. The cap on unfinished games is
//! checked in the same transaction as the change that would pass it (a new game, a join, or an
//! undo that reopens a finished one), after whatever stops a concurrent write from slipping past
//! the count (SQLite's single writer; a lock on the player's row on PostgreSQL).
//!
//! What a write stores is worked out here before any SQL ([`Fresh`], [`Update`]): the backends
//! only run their statements.
//!
//! [`model`] holds the types, [`rows`] maps rows to them, [`cache`] keeps games as last
//! committed.

pub(super) mod cache;
mod model;
pub(super) mod rows;

use std::sync::Arc;

use gomoku_rules::{Game, Opening, Status, Stone};
use time::OffsetDateTime;

use super::{now, Db, StoreError};
pub use model::{
    AiSetting, Change, Clock, GameRow, GameStatus, Mode, NewGame, Offer, OfferKind, Offers,
    OnlineSetup, Role, Seat, Seats, StatusFilter, StoredGame, StoredMove, Summary, TimeControl,
    UnknownMode, UnknownStatus, Written,
};
use rows::add_seat;

/// Loads game `id`, whoever it belongs to (None if there is none). The game may be the cache's
/// own: a change to it is made on copies.
pub async fn load(db: &Db, id: &str) -> Result<Option<Arc<StoredGame>>, StoreError> {
    match db {
        Db::Sqlite(s) => s.load(id).await,
        Db::Postgres(p) => p.load(id).await,
    }
}

/// Game `id` as this process last knew it, asking nothing of the database: None when it is not
/// in the position cache or, with several instances, may have changed since (see
/// [`PositionCache::current`](cache::PositionCache::current)). It is for a write, whose version
/// guard is the check: what is decided on it is believed only if it lands.
pub fn current(db: &Db, id: &str) -> Option<Arc<StoredGame>> {
    db.positions().current(id)
}

/// Stores a new game: [`Written::OverCap`] when it would be unfinished and the player already
/// has `cap` unfinished games.
pub async fn insert(db: &Db, new: NewGame, cap: u32) -> Result<Written, StoreError> {
    insert_with_opening(db, new, None, cap).await
}

/// [`insert`] for a game that starts with `opening` (its stones so far being `new`'s moves,
/// its first seat at black).
pub async fn insert_with_opening(
    db: &Db,
    new: NewGame,
    opening: Option<Opening>,
    cap: u32,
) -> Result<Written, StoreError> {
    let mut fresh = Fresh::new(new);
    fresh.row.opening = opening;
    let fresh = Arc::new(fresh);
    match db {
        Db::Sqlite(s) => s.insert(fresh, cap).await,
        Db::Postgres(p) => p.insert(fresh, cap).await,
    }
}

/// Commits a change if the game is still at the version it was loaded at; when the change
/// reopens a finished game, or seats a player, only if that player has fewer than `cap`
/// unfinished games.
pub async fn commit(db: &Db, change: Change, cap: u32) -> Result<Written, StoreError> {
    let update = Arc::new(Update::new(change)?);
    let (id, from) = (update.next.row.id.clone(), update.from_version);
    let written = match db {
        Db::Sqlite(s) => s.commit(update, cap).await,
        Db::Postgres(p) => p.commit(update, cap).await,
    };
    settle(db, &id, from, written)
}

/// Commits the acceptance of a rematch of a finished online game, at once or not at all: the
/// change of the finished game (its rematch offer answered) lands if the game is still at the
/// version it was loaded at, and with it a new online game with the same rule, board size and
/// time control, the colours swapped, both players seated and in play, made by `offerer`'s
/// player; the finished game then names it (`rematch_game_id`). [`Written::OverCap`] when
/// either player already has `cap` unfinished games. The answer is the finished game as it now
/// is; the new game reaches the position cache and the watchers as any new game does.
pub async fn rematch(
    db: &Db,
    mut change: Change,
    offerer: Stone,
    cap: u32,
) -> Result<Written, StoreError> {
    let fresh = Fresh::rematch(&change, offerer)?;
    change.rematch_game_id = Some(fresh.row.id.clone());
    let update = Arc::new(Update::new(change)?);
    let (id, from) = (update.next.row.id.clone(), update.from_version);
    let fresh = Arc::new(fresh);
    let written = match db {
        Db::Sqlite(s) => s.rematch(update, fresh, cap).await,
        Db::Postgres(p) => p.rematch(update, fresh, cap).await,
    };
    settle(db, &id, from, written)
}

/// What a guarded write of game `id`, computed from version `from`, came to.
fn settle(
    db: &Db,
    id: &str,
    from: i64,
    written: Result<Written, StoreError>,
) -> Result<Written, StoreError> {
    let written = match written {
        // The version guard decides races between requests; the primary keys (a move's ply, a
        // seat's colour) still decide between writers that both passed it, such as another
        // process writing a SQLite file. The failed write was rolled back whole.
        Err(e) if e.is_unique_violation() => Written::Stale,
        written => written?,
    };
    if let Written::Stale = written {
        match db {
            // Usually another request won, and the cache will hear of its result; but if
            // something else wrote the database, the cached state is stale: read it afresh
            // next time.
            Db::Sqlite(_) => db.positions().forget(id),
            // A load checks the version anyway; until one does, the game is known to have moved
            // past `from`, so a write is not decided on the cached state again.
            Db::Postgres(_) => db.positions().heard(id, from + 1),
        }
    }
    Ok(written)
}

/// Deletes game `id` made by `creator`, with its seats and moves, if it still waits for its
/// second player or `waiting_only` is false; false if there was no such game.
pub async fn delete(
    db: &Db,
    id: &str,
    creator: &str,
    waiting_only: bool,
) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.delete(id, creator, waiting_only).await,
        Db::Postgres(p) => p.delete(id, creator, waiting_only).await,
    }
}

/// A page of the caller's games (those where they have a seat), newest activity first, starting
/// after `after` (the `(updated_at, id)` of the last game of the previous page, or any pair of
/// strings: the order is that of the text).
pub async fn list(
    db: &Db,
    player_id: &str,
    filter: StatusFilter,
    limit: usize,
    after: Option<(&str, &str)>,
) -> Result<Vec<Summary>, StoreError> {
    match db {
        Db::Sqlite(s) => s.list(player_id, filter, limit, after).await,
        Db::Postgres(p) => p.list(player_id, filter, limit, after).await,
    }
}

/// A game that needs its timer: its id, its version and when the timer is due (its flag falls,
/// or a pending offer lapses, whichever comes first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueGame {
    pub id: String,
    pub version: i64,
    pub due: OffsetDateTime,
}

/// Every game with a running clock or a pending offer (to arm their timers at start).
pub async fn due_games(db: &Db) -> Result<Vec<DueGame>, StoreError> {
    match db {
        Db::Sqlite(s) => s.due_games().await,
        Db::Postgres(p) => p.due_games().await,
    }
}

/// The `where` clause of a listing's status filter, on `games g`.
pub(super) fn status_clause(filter: StatusFilter) -> &'static str {
    match filter {
        StatusFilter::All => "",
        StatusFilter::Playing => "and g.status in ('waiting', 'playing')",
        StatusFilter::Finished => "and g.status not in ('waiting', 'playing')",
    }
}

/// A new game as it will be stored, worked out before it is written: its row (at version 0), its
/// moves and position, and the creator's seat.
#[derive(Debug)]
pub(super) struct Fresh {
    pub(super) row: GameRow,
    /// The creator's colour: theirs in an online game, the person's in an ai game, None (both)
    /// in a local game.
    pub(super) colour: Option<Stone>,
    pub(super) moves: Vec<StoredMove>,
    pub(super) game: Game,
    /// A second player seated from the start (a rematch): their id and colour.
    pub(super) second: Option<(String, Stone)>,
}

impl Fresh {
    pub(super) fn new(new: NewGame) -> Fresh {
        let at = now();
        let outcome = new.game.outcome();
        let status = match new.online {
            Some(_) => GameStatus::Waiting,
            None => GameStatus::Rules(outcome.status()),
        };
        let time_control = new.online.and_then(|o| o.time_control);
        let clock = time_control.map(|tc| Clock {
            black_ms: tc.initial_ms,
            white_ms: tc.initial_ms,
            deadline: None,
        });
        let colour = match (new.ai, new.online) {
            (_, Some(online)) => Some(online.seat),
            (Some(ai), None) => Some(ai.player.opponent()),
            (None, None) => None,
        };
        let row = GameRow {
            id: uuid::Uuid::new_v4().to_string(),
            player_id: new.player_id,
            mode: new.mode,
            rule: new.game.rule(),
            board_size: new.game.size(),
            ai: new.ai,
            status,
            end_reason: outcome.end_reason(),
            move_count: new.moves.len(),
            version: 0,
            created_at: at.clone(),
            finished_at: status.is_over().then(|| at.clone()),
            updated_at: at,
            time_control,
            clock,
            offers: Offers::default(),
            rematch_game_id: None,
            opening: None,
        };
        Fresh {
            row,
            colour,
            moves: new.moves,
            game: new.game,
            second: None,
        }
    }

    /// The rematch of the finished online game of `change`, made by `offerer`'s player: the same
    /// rule, board size and time control, each player at the other colour, in play at once (no
    /// clock runs before black's first move). A game that began with an opening rule is
    /// rematched with the same rule, the other player now proposing (the first seat, at black
    /// until a swap); its clock starts when the opening ends, as in any opening.
    fn rematch(change: &Change, offerer: Stone) -> Result<Fresh, StoreError> {
        let corrupt = |what: &str| StoreError::Corrupt(change.row.id.clone(), what.into());
        let player = |colour| {
            change
                .seats
                .get(colour)
                .map(|seat| seat.player_id.clone())
                .ok_or_else(|| corrupt("a rematch of a game with a free seat"))
        };
        let (size, rule) = (change.row.board_size, change.row.rule);
        let opening = change
            .row
            .opening
            .as_ref()
            .map(|o| Opening::new(size, rule, o.rule()))
            .transpose()
            .map_err(|e| corrupt(&format!("a rematch's opening: {e}")))?;
        // The seats hold the colours played; who proposed last time held the first seat, at
        // black unless a swap gave black to the second.
        let last_proposer = if change.row.swapped() {
            Stone::White
        } else {
            Stone::Black
        };
        // The colour each player starts the new game at, as stored: the offerer's first.
        let offerer_seat = match opening {
            Some(_) if offerer == last_proposer => Stone::White,
            Some(_) => Stone::Black,
            None => offerer.opponent(),
        };
        let (maker, other) = (player(offerer)?, player(offerer.opponent())?);
        let game = match &opening {
            Some(o) => o.game().clone(),
            None => {
                Game::new(size, rule).map_err(|e| corrupt(&format!("a rematch's board: {e:?}")))?
            }
        };
        let mut fresh = Fresh::new(NewGame {
            player_id: maker,
            mode: Mode::Online,
            ai: None,
            moves: vec![],
            game,
            online: Some(OnlineSetup {
                seat: offerer_seat,
                time_control: change.row.time_control,
            }),
        });
        fresh.row.status = GameStatus::Rules(Status::Playing);
        fresh.row.opening = opening;
        fresh.second = Some((other, offerer_seat.opponent()));
        Ok(fresh)
    }

    /// Who sits at the new game: its creator, and the second player of a rematch.
    pub(super) fn players(&self) -> impl Iterator<Item = &str> {
        let second = self.second.as_ref().map(|(player, _)| player.as_str());
        std::iter::once(self.row.player_id.as_str()).chain(second)
    }

    /// Whether the new game counts against its creator's cap on unfinished games.
    pub(super) fn unfinished(&self) -> bool {
        !self.row.status.is_over()
    }

    /// The game as stored, its creator seated under `name`.
    pub(super) fn stored(&self, name: String) -> Arc<StoredGame> {
        let mut seats = Seats::default();
        let seat = Seat {
            player_id: self.row.player_id.clone(),
            name,
        };
        add_seat(&mut seats, self.colour, seat);
        self.seated(seats)
    }

    /// The game as stored, with its seats as read back.
    pub(super) fn seated(&self, seats: Seats) -> Arc<StoredGame> {
        Arc::new(StoredGame {
            row: self.row.clone(),
            seats,
            moves: self.moves.clone(),
            game: self.game.clone(),
        })
    }
}

/// A change made ready to write before it is written (on SQLite, before it is queued for the
/// writer, which runs one write after another): the game as it will be once the change lands,
/// and what guards it.
#[derive(Debug)]
pub(super) struct Update {
    /// The game after the change, at the next version (a seat taken has no name yet: it is
    /// read as the seat is written, see [`Update::seated`]).
    pub(super) next: Arc<StoredGame>,
    /// The version the change was computed from.
    pub(super) from_version: i64,
    /// The change turns a finished game back into one in play.
    pub(super) reopens: bool,
    /// Stored moves that stay: those after them are taken back, or the new moves follow them.
    pub(super) keep: usize,
    /// Moves from `keep` on are taken back.
    pub(super) truncate: bool,
    /// A player taking a free seat: their id and colour.
    pub(super) seat: Option<(String, Stone)>,
}

impl Update {
    fn new(change: Change) -> Result<Update, StoreError> {
        let Change {
            row,
            keep,
            moves,
            game,
            at,
            waiting,
            clock,
            offers,
            rematch_game_id,
            seats,
            seat,
        } = change;
        let outcome = game.outcome();
        let status = if waiting {
            GameStatus::Waiting
        } else {
            GameStatus::Rules(outcome.status())
        };
        let truncate = keep < row.move_count;
        let appended = moves.len().saturating_sub(keep);
        if (truncate && appended > 0) || (seat.is_some() && (truncate || appended > 0)) {
            // SQLite's guard chain relies on `changes()`: one kind of change.
            return Err(StoreError::Batch(
                "a change may truncate, append or seat a player, only one of them".into(),
            ));
        }
        let (from_version, reopens) = (row.version, row.status.is_over() && !status.is_over());
        // The finish time stays that of the first finish; a reopened game loses it.
        let finished_at = if status.is_over() {
            Some(row.finished_at.clone().unwrap_or_else(|| at.clone()))
        } else {
            None
        };
        let row = GameRow {
            status,
            end_reason: outcome.end_reason(),
            move_count: moves.len(),
            version: row.version + 1,
            updated_at: at,
            finished_at,
            clock,
            offers,
            rematch_game_id,
            ..row
        };
        Ok(Update {
            next: Arc::new(StoredGame {
                row,
                seats,
                moves,
                game,
            }),
            from_version,
            reopens,
            keep,
            truncate,
            seat,
        })
    }

    /// The moves the change adds.
    pub(super) fn appended(&self) -> &[StoredMove] {
        &self.next.moves[self.keep.min(self.next.moves.len())..]
    }

    /// The players whose cap the change must respect: the owner of a game it reopens, the player
    /// it seats.
    pub(super) fn capped_players(&self) -> impl Iterator<Item = &str> {
        let owner = self.reopens.then_some(self.next.row.player_id.as_str());
        owner
            .into_iter()
            .chain(self.seat.as_ref().map(|(player, _)| player.as_str()))
    }

    /// The game as stored once the change landed: with the seat it took, under `name`.
    pub(super) fn seated(&self, name: Option<String>) -> Arc<StoredGame> {
        let (Some((player, colour)), Some(name)) = (&self.seat, name) else {
            return self.next.clone();
        };
        let mut seated = StoredGame::clone(&self.next);
        seated.seats.set(
            *colour,
            Seat {
                player_id: player.clone(),
                name,
            },
        );
        Arc::new(seated)
    }
}

#[cfg(test)]
pub(crate) mod tests;
