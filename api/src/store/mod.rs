//! Storage: SQLite through sqlx. Maps rows to the rules' types and knows nothing of HTTP.
//!
//! Reads go through a pool of several connections (WAL lets readers run beside the writer).
//! Writes go through [`writer`]: one connection, owned by one task, committing the writes that
//! wait at the same moment in one transaction. SQLite admits one writer at a time anyway, and
//! queueing writers here beats letting them contend inside SQLite, whose busy handler sleeps in
//! steps of milliseconds.
//!
//! Queries live next to their tables: [`players`] (players and sessions) and [`games`] (games
//! and their moves).

pub mod games;
pub mod players;
pub mod writer;

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, SqliteConnection, SqlitePool};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::config::{Config, Synchronous};

/// Connections for concurrent reads (the writer has its own).
const READ_CONNECTIONS: u32 = 8;

/// Failures of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Sql(#[from] sqlx::Error),
    /// Another process held the database past the busy timeout.
    #[error("the database is busy")]
    Busy,
    /// The game changed since it was loaded (the write's savepoint is rolled back).
    #[error("the game changed meanwhile")]
    Conflict,
    /// The writer could not carry out this write: its batch failed as a whole (or panicked), a
    /// commit hook panicked, or the write was malformed.
    #[error("write batch failed: {0}")]
    Batch(String),
    /// Stored data the rules refuse (a correct server never writes it; it would mean the file
    /// was edited by hand).
    #[error("stored game {0} is inconsistent: {1}")]
    Corrupt(String, String),
}

/// The database: a read pool and the single writer, on the same file.
#[derive(Debug, Clone)]
pub struct Db {
    read: SqlitePool,
    writer: writer::Writer,
    positions: Arc<games::PositionCache>,
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
            writer: writer::Writer::start(conn, config.busy_timeout()),
            positions: Default::default(),
        })
    }

    /// Applies the migrations in `migrations/` that this database has not seen yet. Runs at
    /// start, before any request, so it may use a pooled connection.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        sqlx::migrate!("./migrations").run(&self.read).await
    }

    /// The pool for reads.
    pub fn reader(&self) -> &SqlitePool {
        &self.read
    }

    /// The single writer, through which every write goes.
    pub fn writer(&self) -> &writer::Writer {
        &self.writer
    }

    /// Games as last committed, with their rebuilt positions (shared with the writer's hooks).
    pub fn positions(&self) -> &Arc<games::PositionCache> {
        &self.positions
    }

    /// Writes a consistent copy of the live database to `path` (`VACUUM INTO` reads one
    /// snapshot, so writers may go on meanwhile).
    pub async fn backup(&self, path: &Path) -> Result<(), sqlx::Error> {
        let target = path.to_string_lossy().into_owned();
        sqlx::query("vacuum into ?")
            .bind(target)
            .execute(&self.read)
            .await?;
        Ok(())
    }

    /// Closes the read pool, letting in-flight statements finish. The writer stops once the
    /// last handle to it is dropped.
    pub async fn close(&self) {
        self.read.close().await;
    }
}

/// SQLite BUSY or LOCKED (any extended code) after the busy timeout, or no connection free in
/// time: both mean "another writer holds the database", which the client may retry.
pub fn is_busy(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut => true,
        sqlx::Error::Database(db) => db
            .code()
            .and_then(|c| c.parse::<i32>().ok())
            // The primary result code is the low byte of the extended one: 5 BUSY, 6 LOCKED.
            .is_some_and(|code| matches!(code & 0xff, 5 | 6)),
        _ => false,
    }
}

/// The current time as stored: RFC 3339 in UTC with exactly six fractional digits, so that
/// text order is time order (listings sort on it).
pub fn now() -> String {
    timestamp(OffsetDateTime::now_utc())
}

fn timestamp(t: OffsetDateTime) -> String {
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

/// True when `s` is a timestamp as [`now`] writes it (used to validate cursors).
pub fn is_timestamp(s: &str) -> bool {
    s.len() == 27 && OffsetDateTime::parse(s, &Rfc3339).is_ok_and(|t| timestamp(t) == s)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(is_timestamp(&a) && is_timestamp(&now()));
        assert!(!is_timestamp("2026-01-01T00:00:00Z"));
        assert!(!is_timestamp("garbage"));
    }
}
