//! The matchmaking pool as stored: one seek per player (the `seeks` table), and the claim that
//! turns a pairing into a rated game. Who pairs with whom is
//! [`matchmaking`](crate::matchmaking)'s decision; whether a pairing happens is the database's.
//!
//! A pairing round may run on several instances over the same pool at once. [`claim`] is one
//! transaction that deletes both seeks (by their ids, so a seek made again after a claim is a
//! new one) and inserts the game with both players seated and its `rated_games` row: if either
//! seek is gone (another instance paired it, or its player left), nothing is written and the
//! answer is [`Claimed::Gone`]. So no player is ever paired twice, whatever the instances see.
//!
//! Seeks die with their holder. On SQLite one process holds them all, so [`clear_left`] deletes
//! every seek at start (a stopped server's seekers are gone). On PostgreSQL each seek names the
//! instance that took it: the pool ([`waiting`]) counts only seeks of instances whose heartbeat
//! is recent, so a killed instance's seekers drop out after
//! [`GONE_AFTER`](super::presence::GONE_AFTER); their player's next seek replaces such a seek,
//! and the instance's row takes the rest with it when the heartbeats sweep it. A seek dies with
//! its player's last connection when the live channel says so ([`remove`]).
//!
//! What the pool does to a player (paired, or their seek ended) is news for their own live
//! channel, on whichever instance holds it: [`tell`] hands it to this process's watchers on
//! SQLite, and announces it on the channel `gomoku_players` on PostgreSQL, which every instance's
//! listener (this one's included) hands to its watchers.

use std::sync::Arc;
use std::time::Duration;

use gomoku_rules::{Game, Status, Stone};

use super::games::rows::Columns;
use super::games::{Fresh, GameStatus, Mode, NewGame, OnlineSetup, StoredGame, TimeControl};
use super::ratings::{colour_of, parse};
use super::{Db, StoreError};
use crate::matchmaking::{Pairing, Pool, Seek};

/// How far back a player's aborts count against them in the pool.
pub const ABORTS_COUNTED_FOR: Duration = Duration::from_secs(24 * 3600);

/// What adding a seek came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Added {
    /// The player now waits in the pool with this seek.
    Added(Seek),
    /// The player already waits (in this pool or another): their seek, unchanged.
    Seeking(Seek),
}

/// What claiming a pairing came to.
#[derive(Debug, Clone)]
pub enum Claimed {
    /// Both seeks are gone from the pool and the rated game is made: the game as stored.
    Paired(Arc<StoredGame>),
    /// A seek of the pairing is no longer in the pool (another instance paired it, or its player
    /// left): nothing written.
    Gone,
    /// This player already has the most unfinished games allowed: nothing written (their seek
    /// stays; what to do with it is the caller's).
    OverCap(String),
}

/// News for one player's live channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerNews {
    /// A pairing made game `game_id` in `pool`, where the player holds `you`.
    Paired {
        player_id: String,
        game_id: String,
        pool: Pool,
        you: Stone,
    },
    /// The player's seek left the pool otherwise.
    SeekEnded { player_id: String, reason: SeekEnd },
    /// The player sought a game through some instance: an instance holding a live channel of
    /// theirs takes the seek over ([`hold`]). Not for the player's eyes.
    Sought { player_id: String },
}

impl PlayerNews {
    /// The player it is for.
    pub fn player_id(&self) -> &str {
        match self {
            PlayerNews::Paired { player_id, .. }
            | PlayerNews::SeekEnded { player_id, .. }
            | PlayerNews::Sought { player_id } => player_id,
        }
    }

    /// The payload announcing it: "<player> paired <game> <pool> <1|2>",
    /// "<player> ended <reason>" or "<player> sought" (ids and pool keys hold no space).
    pub fn payload(&self) -> String {
        match self {
            PlayerNews::Paired {
                player_id,
                game_id,
                pool,
                you,
            } => format!("{player_id} paired {game_id} {pool} {}", you.as_u8()),
            PlayerNews::SeekEnded { player_id, reason } => {
                format!("{player_id} ended {}", reason.as_str())
            }
            PlayerNews::Sought { player_id } => format!("{player_id} sought"),
        }
    }

    /// A payload read back; None for anything else.
    pub fn parse(payload: &str) -> Option<PlayerNews> {
        let mut parts = payload.split(' ');
        let player_id = parts.next().filter(|p| !p.is_empty())?.to_string();
        let news = match parts.next()? {
            "paired" => PlayerNews::Paired {
                player_id,
                game_id: parts.next()?.to_string(),
                pool: parts.next()?.parse().ok()?,
                you: Stone::from_u8(parts.next()?.parse().ok()?)?,
            },
            "ended" => PlayerNews::SeekEnded {
                player_id,
                reason: parts.next()?.parse().ok()?,
            },
            "sought" => PlayerNews::Sought { player_id },
            _ => return None,
        };
        parts.next().is_none().then_some(news)
    }
}

/// Why a seek left the pool other than by a pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekEnd {
    /// The player left the pool (`DELETE /seeks`).
    Cancelled,
    /// The player's last live connection closed, or none came in time.
    Gone,
    /// A pairing found the player at their cap of unfinished games.
    TooManyGames,
}

impl SeekEnd {
    pub const ALL: [SeekEnd; 3] = [SeekEnd::Cancelled, SeekEnd::Gone, SeekEnd::TooManyGames];

    /// "cancelled", "gone", "tooManyGames": the announced and served name.
    pub fn as_str(self) -> &'static str {
        match self {
            SeekEnd::Cancelled => "cancelled",
            SeekEnd::Gone => "gone",
            SeekEnd::TooManyGames => "tooManyGames",
        }
    }
}

impl std::str::FromStr for SeekEnd {
    type Err = ();
    fn from_str(s: &str) -> Result<SeekEnd, ()> {
        gomoku_rules::by_name(&SeekEnd::ALL, SeekEnd::as_str, s).ok_or(())
    }
}

/// Tells `news` to its player's live connections, on every instance.
pub async fn tell(db: &Db, news: &PlayerNews) -> Result<(), StoreError> {
    match db {
        Db::Sqlite(s) => {
            s.shared.watchers.player_heard(news);
            Ok(())
        }
        Db::Postgres(p) => p.tell_player(&news.payload()).await,
    }
}

/// Puts `player_id` in `pool` with their rating in its family, their colour in their last rated
/// game of the family and their aborts of the last [`ABORTS_COUNTED_FOR`], all read in the same
/// transaction; [`Added::Seeking`] with their seek if they already have one (a seek left by a
/// gone instance does not count: it is replaced).
pub async fn add(db: &Db, player_id: &str, pool: Pool) -> Result<Added, StoreError> {
    let new = NewSeek {
        id: uuid::Uuid::new_v4().to_string(),
        since: super::now(),
        aborts_since: super::ago(ABORTS_COUNTED_FOR),
    };
    match db {
        Db::Sqlite(s) => s.add_seek(player_id, pool, new).await,
        Db::Postgres(p) => p.add_seek(player_id, pool, new).await,
    }
}

/// Takes `player_id` out of the pool; false if they had no seek.
pub async fn remove(db: &Db, player_id: &str) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.remove_seek(player_id).await,
        Db::Postgres(p) => p.remove_seek(player_id).await,
    }
}

/// Marks `player_id`'s seek as held by this instance (PostgreSQL; one process holds every seek
/// on SQLite): it holds a live channel of theirs, so the seek now lives and dies with this
/// instance, whichever instance took it.
pub async fn hold(db: &Db, player_id: &str) -> Result<(), StoreError> {
    match db {
        Db::Sqlite(_) => Ok(()),
        Db::Postgres(p) => p.hold_seek(player_id).await,
    }
}

/// Deletes seek `id` if this instance still holds it (no instance with a live channel of its
/// player took it over); whether it did.
pub async fn drop_unheld(db: &Db, id: &str) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.drop_unheld_seek(id).await,
        Db::Postgres(p) => p.drop_unheld_seek(id).await,
    }
}

/// `player_id`'s seek, if they wait in a pool (a seek of a gone instance is none).
pub async fn of_player(db: &Db, player_id: &str) -> Result<Option<Seek>, StoreError> {
    match db {
        Db::Sqlite(s) => s.seek_of(player_id).await,
        Db::Postgres(p) => p.seek_of(player_id).await,
    }
}

/// The seeks waiting in `pool`, longest waiting first.
pub async fn waiting(db: &Db, pool: Pool) -> Result<Vec<Seek>, StoreError> {
    match db {
        Db::Sqlite(s) => s.waiting(pool).await,
        Db::Postgres(p) => p.waiting(pool).await,
    }
}

/// Makes the rated game of `pairing` if both its seeks are still in the pool, at once or not at
/// all: both seeks deleted, the online game inserted in play with black and white seated, its
/// time control the pool's, rated in the pool's family. Each player's cap on unfinished games
/// (`cap`) is checked first.
pub async fn claim(db: &Db, pairing: &Pairing, cap: u32) -> Result<Claimed, StoreError> {
    let fresh = Arc::new(paired_game(pairing)?);
    let seeks = [pairing.black.id.clone(), pairing.white.id.clone()];
    let claimed = match db {
        Db::Sqlite(s) => s.claim(seeks, fresh, pairing.black.pool, cap).await,
        Db::Postgres(p) => p.claim(seeks, fresh, pairing.black.pool, cap).await,
    };
    match claimed {
        // Two claims that both passed their look at the seeks (another process writing the
        // SQLite file): the seek's unique id or the game's key refused the second.
        Err(e) if e.is_unique_violation() => Ok(Claimed::Gone),
        claimed => claimed,
    }
}

/// Deletes the seeks nobody holds any more: on SQLite every seek (called at start, before
/// serving: the process that held them stopped); on PostgreSQL those of instances that stopped
/// beating. How many went.
pub async fn clear_left(db: &Db) -> Result<u64, StoreError> {
    match db {
        Db::Sqlite(s) => s.clear_seeks().await,
        Db::Postgres(p) => p.clear_left_seeks().await,
    }
}

/// What [`add`] works out before the database: the new seek's id, its time, and since when
/// aborts count.
#[derive(Debug, Clone)]
pub(super) struct NewSeek {
    pub(super) id: String,
    pub(super) since: String,
    pub(super) aborts_since: String,
}

/// The game of a pairing, as it will be stored: online, 15×15, the pool's rule and time
/// control, in play at once (no clock runs before black's first move), black's player its
/// creator and white's seated with it.
fn paired_game(pairing: &Pairing) -> Result<Fresh, StoreError> {
    let pool = pairing.black.pool;
    let game = Game::new(Pool::BOARD_SIZE, pool.rule)
        .map_err(|e| StoreError::Batch(format!("a pairing's board: {e:?}")))?;
    let mut fresh = Fresh::new(NewGame {
        player_id: pairing.black.player_id.clone(),
        mode: Mode::Online,
        ai: None,
        moves: vec![],
        game,
        online: Some(OnlineSetup {
            seat: Stone::Black,
            time_control: Some(TimeControl {
                initial_ms: pool.initial_ms,
                increment_ms: pool.increment_ms,
            }),
        }),
    });
    fresh.row.status = GameStatus::Rules(Status::Playing);
    fresh.second = Some((pairing.white.player_id.clone(), Stone::White));
    Ok(fresh)
}

/// Black's and white's ids in a game [`paired_game`] made: its creator plays black, the second
/// player white.
pub(super) fn paired_players(fresh: &Fresh) -> [&str; 2] {
    let white = fresh
        .second
        .as_ref()
        .map_or("", |(player, _)| player.as_str());
    [fresh.row.player_id.as_str(), white]
}

/// The row that makes a paired game rated, with each player's rating and deviation as the
/// `ratings` table has them within the pairing's transaction (the initial ones without a row):
/// ($1 game, $2 family, $3 pool, $4 black's id, $5 white's id, $6 initial rating, $7 initial
/// deviation), numbered alike on both backends: `placeholder` is `$` for PostgreSQL, `?` for
/// SQLite (whose `?n` is a numbered parameter, while its `$n` would be a named one, numbered in
/// order of first use).
pub(super) fn insert_rated_game(placeholder: char) -> String {
    let of = |column: &str, player: u8, initial: u8| {
        format!(
            "coalesce((select {column} from ratings where player_id = {placeholder}{player} \
             and family = {placeholder}2), {placeholder}{initial})"
        )
    };
    format!(
        "insert into rated_games (game_id, family, pool, black_rating, black_rd, white_rating, \
         white_rd) values ({p}1, {p}2, {p}3, {}, {}, {}, {})",
        of("rating", 4, 6),
        of("rd", 4, 7),
        of("rating", 5, 6),
        of("rd", 5, 7),
        p = placeholder,
    )
}

/// The columns of a seek, on `seeks s`.
pub(super) const SEEK_COLUMNS: &str =
    "s.id, s.player_id, s.pool, s.rating, s.rd, s.since, s.aborts, s.last_colour";

/// A seek from [`SEEK_COLUMNS`].
pub(super) fn seek_of(r: &impl Columns) -> Result<Seek, StoreError> {
    let id = r.need_text("id")?;
    let real = |column: &str| {
        r.real(column)?
            .ok_or_else(|| StoreError::Corrupt(id.clone(), format!("{column} is null")))
    };
    let since = r.need_text("since")?;
    Ok(Seek {
        player_id: r.need_text("player_id")?,
        pool: parse(&id, "pool", &r.need_text("pool")?)?,
        rating: real("rating")?,
        rd: real("rd")?,
        since: super::parse_timestamp(&since)
            .ok_or_else(|| StoreError::Corrupt(id.clone(), format!("since {since:?}")))?,
        aborts: u32::try_from(r.need_int("aborts")?).unwrap_or(u32::MAX),
        last_colour: match r.int("last_colour")? {
            Some(_) => Some(colour_of(r, "last_colour", &id)?),
            None => None,
        },
        id,
    })
}

#[cfg(test)]
pub(crate) mod tests;
