//! Presence shared between server instances: who holds a live connection to a game, and where.
//!
//! A live connection is held by one process. With SQLite there is only one, and what its hub
//! counts is the whole truth: nothing here is shared ([`is_shared`] is false, and the operations
//! do nothing). With PostgreSQL each instance publishes its own view of each game it has sockets
//! for (whether the black and the white player are connected there, and how many spectators'
//! connections it holds) in a row of its own, announced to the other instances; a game's
//! presence is the union of the views of the live instances. An instance proves it is alive by
//! a heartbeat: one that stops beating (killed) is gone, with its connections, after
//! [`GONE_AFTER`].

use std::time::Duration;

use gomoku_rules::Stone;

use super::{Db, StoreError};

/// How long an instance may go without a heartbeat before its connections count as gone.
pub const GONE_AFTER: Duration = Duration::from_secs(30);

/// Who of a game is connected: whether each seat's player has a live connection, and how many
/// connections are spectators'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Presence {
    pub black: bool,
    pub white: bool,
    pub spectators: u32,
}

impl Presence {
    /// Whether `colour`'s player has a live connection.
    pub fn of(self, colour: Stone) -> bool {
        match colour {
            Stone::Black => self.black,
            Stone::White => self.white,
        }
    }

    /// The presence of connections held here and there together.
    pub fn with(self, other: Presence) -> Presence {
        Presence {
            black: self.black || other.black,
            white: self.white || other.white,
            spectators: self.spectators.saturating_add(other.spectators),
        }
    }

    /// Nobody connected.
    pub fn is_empty(self) -> bool {
        self == Presence::default()
    }
}

/// One instance's view of a game's live connections, as it published it; `seq` orders one
/// instance's publications (a newer one replaces an older one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresenceNews {
    pub instance: String,
    pub game_id: String,
    pub presence: Presence,
    pub seq: i64,
}

/// Whether other server instances may hold live connections to this database's games.
pub fn is_shared(db: &Db) -> bool {
    matches!(db, Db::Postgres(_))
}

/// Publishes this instance's view of game `game_id` (replacing its previous one) and tells the
/// other instances. Nothing to do on SQLite.
pub async fn publish(db: &Db, game_id: &str, presence: Presence) -> Result<(), StoreError> {
    match db {
        Db::Sqlite(_) => Ok(()),
        Db::Postgres(p) => p.publish_presence(game_id, presence).await,
    }
}

/// The views of every other live instance, for every game they hold connections to. None on
/// SQLite.
pub async fn elsewhere(db: &Db) -> Result<Vec<PresenceNews>, StoreError> {
    match db {
        Db::Sqlite(_) => Ok(Vec::new()),
        Db::Postgres(p) => p.presence_elsewhere().await,
    }
}
