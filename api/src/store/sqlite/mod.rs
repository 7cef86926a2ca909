//! The SQLite backend: one process owns the database file. Reads go through a pool of several
//! connections (WAL lets readers run beside the writer); writes go through the single
//! [`writer`](super::writer), which commits the writes waiting at the same moment in one
//! transaction. SQLite admits one writer at a time anyway, and queueing writers here beats
//! letting them contend inside SQLite, whose busy handler sleeps in steps of milliseconds.
//!
//! Its SQL lives here, beside `migrations/sqlite/`: [`games`], [`players`] and [`analyses`].
//! Also what is SQLite's own: the writer's transaction statements, how SQLite says "busy", and
//! which URLs name an in-memory database.

pub(super) mod analyses;
pub(super) mod games;
pub(super) mod players;

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, SqliteConnection, SqlitePool};

use super::writer::{Batching, BoxFuture, Step, Writer};
use super::{Shared, StoreError};
use crate::config::{Config, Synchronous};

/// How long a session read from the file is believed: a logout through this process drops it
/// at once, and no other process may write the file.
pub(super) const SESSION_RECHECK: Duration = Duration::from_secs(60);

/// A SQLite database: a read pool and the single writer, on the same file.
#[derive(Debug, Clone)]
pub struct Store {
    read: SqlitePool,
    writer: Writer<SqliteConnection>,
    pub(super) shared: Shared,
}

impl Store {
    /// Opens (creating if missing) the database file, with WAL, foreign keys, the configured
    /// `synchronous` and busy timeout, and `--db-max-connections` readers.
    pub(super) async fn open(config: &Config) -> Result<Store, sqlx::Error> {
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
            .max_connections(config.db_max_connections)
            .acquire_timeout(config.busy_timeout().max(Duration::from_millis(100)))
            .connect_with(options.clone())
            .await?;
        let conn: SqliteConnection = options.connect().await?;
        Ok(Store {
            read,
            writer: Writer::start(conn, config.busy_timeout()),
            shared: Shared::default(),
        })
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("select 1").execute(&self.read).await?;
        Ok(())
    }

    /// Applies the migrations in `migrations/sqlite/` on a pooled connection.
    ///
    /// Foreign keys are off while they run, as SQLite's procedure for rebuilding a table needs:
    /// dropping a table that others reference would otherwise delete their rows through `on
    /// delete cascade`. sqlx runs each migration in a transaction, where that PRAGMA has no
    /// effect, so it is set on the connection first; every reference is checked afterwards, and
    /// a violation stops the start.
    pub(super) async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        let mut conn = self.read.acquire().await?;
        sqlx::query("pragma foreign_keys = off")
            .execute(&mut *conn)
            .await?;
        let migrated = sqlx::migrate!("./migrations/sqlite").run(&mut *conn).await;
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

    /// Closes the read pool, letting in-flight statements finish. The writer stops once the
    /// last handle to it is dropped.
    pub(super) async fn close(&self) {
        self.read.close().await;
    }

    /// Runs statements behind the store's back, on one connection (tests that corrupt data).
    #[cfg(test)]
    pub(super) async fn execute_raw(&self, statements: &[&str]) -> Result<(), sqlx::Error> {
        let mut conn = self.read.acquire().await?;
        for statement in statements {
            sqlx::query(statement).execute(&mut *conn).await?;
        }
        Ok(())
    }

    /// The pool for reads.
    fn reader(&self) -> &SqlitePool {
        &self.read
    }

    /// The single writer, through which every write goes.
    fn writer(&self) -> &Writer<SqliteConnection> {
        &self.writer
    }
}

impl Batching for SqliteConnection {
    type Error = sqlx::Error;

    fn step(&mut self, step: Step) -> BoxFuture<'_, Result<(), sqlx::Error>> {
        let sql = match step {
            // BEGIN IMMEDIATE takes the write lock up front (waiting up to the busy timeout), so
            // no statement inside has to upgrade a read lock, where SQLite gives up without
            // waiting.
            Step::Begin => "begin immediate",
            Step::Commit => "commit",
            Step::Rollback => "rollback",
        };
        Box::pin(async move { sqlx::query(sql).execute(&mut *self).await.map(|_| ()) })
    }

    fn is_busy(error: &sqlx::Error) -> bool {
        is_busy(error)
    }

    fn close(self) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            let _ = Connection::close(self).await;
        })
    }
}

/// Whether a database URL names an in-memory database (`sqlite::memory:`, or `mode=memory`).
pub fn in_memory(url: &str) -> bool {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    path == ":memory:" || query.split('&').any(|pair| pair == "mode=memory")
}

/// SQLite BUSY or LOCKED (any extended code) after the busy timeout, or no connection free in
/// time: both mean "another writer holds the database", which the client may retry.
pub fn is_busy(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut => true,
        sqlx::Error::Database(db)
            if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() =>
        {
            db.code()
                .and_then(|c| c.parse::<i32>().ok())
                // The primary result code is the low byte of the extended one: 5 BUSY, 6 LOCKED.
                .is_some_and(|code| matches!(code & 0xff, 5 | 6))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In-memory URLs are told from files.
    #[test]
    fn in_memory_urls() {
        assert!(in_memory("sqlite::memory:"));
        assert!(in_memory("sqlite://:memory:"));
        assert!(in_memory("sqlite://x.db?mode=memory&cache=shared"));
        assert!(!in_memory("sqlite://gomoku.db"));
        assert!(!in_memory("sqlite:///tmp/memory.db?mode=rwc"));
    }
}
