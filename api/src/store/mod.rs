//! Storage: SQLite through sqlx. Maps rows to the rules' types and knows nothing of HTTP.
//!
//! Reads go through a pool of several connections (WAL lets readers run beside the writer).
//! Writes go through [`writer`]: one connection, owned by one task, committing the writes that
//! wait at the same moment in one transaction. SQLite admits one writer at a time anyway, and
//! queueing writers here beats letting them contend inside SQLite, whose busy handler sleeps in
//! steps of milliseconds.
//!
//! Queries live next to their tables: [`players`] (players and sessions), [`games`] (games
//! and their moves) and [`analyses`] (post-game analyses and their analysed moves). What they
//! take and return are the rules' types and the store's own; no sqlx type crosses out of this
//! module, so the layers above would not notice another backend.
//! [`backup`] copies a database without opening it for writing.
//!
//! What else must hear of a committed change (the live hub, the clock timers) registers a
//! [`Watch`]: the writer tells it of every change and deletion of a game right after the commit,
//! in commit order, before the request that made it is answered.

pub mod analyses;
pub mod backup;
pub mod games;
pub mod players;
mod sqlite;
pub mod writer;

use std::str::FromStr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, SqliteConnection, SqlitePool};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::config::{Config, Synchronous};
use games::cache::PositionCache;
use games::StoredGame;
pub use sqlite::in_memory;
use sqlite::is_busy;
use writer::{WriteFailed, Writer};

/// Connections for concurrent reads (the writer has its own).
const READ_CONNECTIONS: u32 = 8;

/// Failures of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sql(sqlx::Error),
    /// Another process held the database past the busy timeout (or no connection was free).
    #[error("the database is busy")]
    Busy,
    /// The writer could not carry out this write: its batch failed as a whole (or panicked), a
    /// commit hook panicked, or the write was malformed.
    #[error("write batch failed: {0}")]
    Batch(String),
    /// Stored data the rules refuse, or a stored name no type knows (a correct server never
    /// writes it; it would mean the file was edited by hand or by a newer version).
    #[error("stored row {0} is inconsistent: {1}")]
    Corrupt(String, String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        if is_busy(&e) {
            StoreError::Busy
        } else {
            StoreError::Sql(e)
        }
    }
}

impl From<WriteFailed> for StoreError {
    fn from(e: WriteFailed) -> StoreError {
        match e {
            WriteFailed::Busy => StoreError::Busy,
            WriteFailed::Batch(why) => StoreError::Batch(why),
        }
    }
}

/// Hears of every committed change to a game, in commit order. Called in the writer task right
/// after the commit and before the caller is answered, so it must neither block nor await: hand
/// the news on (a broadcast send, a spawned task) and return.
pub trait Watch: Send + Sync {
    /// `game` as it now is.
    fn changed(&self, game: &Arc<StoredGame>);
    /// Game `id` was deleted.
    fn deleted(&self, id: &str);
}

/// The watchers of a database, set once (at start, before serving); shared by every clone.
#[derive(Clone, Default)]
pub struct Watchers(Arc<OnceLock<Vec<Arc<dyn Watch>>>>);

impl Watchers {
    fn all(&self) -> &[Arc<dyn Watch>] {
        self.0.get().map_or(&[], Vec::as_slice)
    }

    pub(crate) fn changed(&self, game: &Arc<StoredGame>) {
        for watch in self.all() {
            watch.changed(game);
        }
    }

    pub(crate) fn deleted(&self, id: &str) {
        for watch in self.all() {
            watch.deleted(id);
        }
    }
}

impl std::fmt::Debug for Watchers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Watchers({})", self.all().len())
    }
}

/// The database: a read pool and the single writer, on the same file.
#[derive(Debug, Clone)]
pub struct Db {
    read: SqlitePool,
    writer: Writer<SqliteConnection>,
    positions: Arc<PositionCache>,
    watchers: Watchers,
}

impl Db {
    /// Opens (creating if missing) the database named by the config, with WAL, foreign keys,
    /// the configured `synchronous` and busy timeout.
    pub async fn open(config: &Config) -> Result<Db, sqlx::Error> {
        let options = SqliteConnectOptions::from_str(&config.database_url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .foreign_keys(true)
            .synchronous(match config.synchronous {
                Synchronous::Full => SqliteSynchronous::Full,
                Synchronous::Normal => SqliteSynchronous::Normal,
            })
            .busy_timeout(config.busy_timeout());
        let read = SqlitePoolOptions::new()
            .max_connections(READ_CONNECTIONS)
            .acquire_timeout(config.busy_timeout().max(Duration::from_millis(100)))
            .connect_with(options.clone())
            .await?;
        let conn: SqliteConnection = options.connect().await?;
        Ok(Db {
            read,
            writer: Writer::start(conn, config.busy_timeout()),
            positions: Default::default(),
            watchers: Watchers::default(),
        })
    }

    /// Registers what must hear of every committed change from now on. Once per database: a
    /// second call changes nothing and returns false.
    pub fn watch(&self, watchers: Vec<Arc<dyn Watch>>) -> bool {
        self.watchers.0.set(watchers).is_ok()
    }

    /// Whether the database answers (for the health check).
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("select 1").execute(&self.read).await?;
        Ok(())
    }

    /// Applies the migrations in `migrations/` that this database has not seen yet. Runs at
    /// start, before any request, on a pooled connection.
    ///
    /// Foreign keys are off while they run, as SQLite's procedure for rebuilding a table needs:
    /// dropping a table that others reference would otherwise delete their rows through `on
    /// delete cascade`. sqlx runs each migration in a transaction, where that PRAGMA has no
    /// effect, so it is set on the connection first; every reference is checked afterwards, and
    /// a violation stops the start.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        let mut conn = self.read.acquire().await?;
        sqlx::query("pragma foreign_keys = off")
            .execute(&mut *conn)
            .await?;
        let migrated = sqlx::migrate!("./migrations").run(&mut *conn).await;
        let dangling = sqlx::query("pragma foreign_key_check")
            .fetch_all(&mut *conn)
            .await;
        sqlx::query("pragma foreign_keys = on")
            .execute(&mut *conn)
            .await?;
        migrated?;
        match dangling?.len() {
            0 => Ok(()),
            n => Err(sqlx::migrate::MigrateError::Source(
                format!("{n} rows reference rows that do not exist after migrating").into(),
            )),
        }
    }

    /// The pool for reads.
    fn reader(&self) -> &SqlitePool {
        &self.read
    }

    /// The single writer, through which every write goes.
    fn writer(&self) -> &Writer<SqliteConnection> {
        &self.writer
    }

    /// Games as last committed, with their rebuilt positions (shared with the writer's hooks).
    fn positions(&self) -> &Arc<PositionCache> {
        &self.positions
    }

    fn watchers(&self) -> &Watchers {
        &self.watchers
    }

    /// Closes the read pool, letting in-flight statements finish. The writer stops once the
    /// last handle to it is dropped.
    pub async fn close(&self) {
        self.read.close().await;
    }
}

/// The current time as stored: RFC 3339 in UTC with exactly six fractional digits, so that
/// text order is time order (listings sort on it).
pub fn now() -> String {
    timestamp(OffsetDateTime::now_utc())
}

/// The current time at the precision it is stored with (microseconds), so that a time kept in
/// memory equals the same time read back.
pub fn now_exact() -> OffsetDateTime {
    let t = OffsetDateTime::now_utc();
    t.replace_nanosecond(t.microsecond() * 1_000).unwrap_or(t)
}

/// A time in the stored form.
pub fn timestamp(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.microsecond()
    )
}

/// The stored form of the time `age` ago, to compare stored timestamps with as text.
pub fn ago(age: Duration) -> String {
    let age = time::Duration::try_from(age).unwrap_or(time::Duration::MAX);
    let then = OffsetDateTime::now_utc()
        .checked_sub(age)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    timestamp(then)
}

/// A stored time read back; None unless `s` is exactly as [`timestamp`] writes it.
pub fn parse_timestamp(s: &str) -> Option<OffsetDateTime> {
    let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
    (s.len() == 27 && timestamp(t) == s).then_some(t)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A migrated database in a file of `dir`.
    pub(crate) async fn db_in(dir: &tempfile::TempDir) -> Db {
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let db = Db::open(&Config::for_database(&url)).await.unwrap();
        db.migrate().await.unwrap();
        db
    }

    /// Stored timestamps have a fixed width, parse as RFC 3339, and sort as text in time order.
    #[test]
    fn timestamps_sort_as_text() {
        let a = timestamp(
            OffsetDateTime::from_unix_timestamp_nanos(1_000_000_000_000_000_000).unwrap(),
        );
        let b = timestamp(
            OffsetDateTime::from_unix_timestamp_nanos(1_000_000_000_000_001_000).unwrap(),
        );
        assert_eq!(a.len(), 27);
        assert!(a < b);
        assert!(parse_timestamp(&a).is_some() && parse_timestamp(&now()).is_some());
        assert!(parse_timestamp("2026-01-01T00:00:00Z").is_none());
        assert!(parse_timestamp("garbage").is_none());
    }

    /// A time in the past sorts before now, and a huge age stops at the epoch.
    #[test]
    fn ago_is_before_now() {
        let day = ago(Duration::from_secs(86_400));
        assert!(parse_timestamp(&day).is_some() && day < now());
        assert_eq!(ago(Duration::MAX), "1970-01-01T00:00:00.000000Z");
    }
}
