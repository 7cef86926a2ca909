//! The SQLite backend: one process owns the database file. Reads go through a pool of several
//! connections (WAL lets readers run beside the writer); writes go through the single
//! [`writer`](super::writer), which commits the writes waiting at the same moment in one
//! transaction. SQLite admits one writer at a time anyway, and queueing writers here beats
//! letting them contend inside SQLite, whose busy handler sleeps in steps of milliseconds.
//!
//! Its SQL lives here, beside `migrations/sqlite/`: [`games`], [`players`] and [`analyses`].
//! Also what is SQLite's own: the writer's [`Script`] (a batch's planned writes as one
//! multi-statement text, one call to the connection's thread) and transaction statements, how
//! SQLite says "busy", and which URLs name an in-memory database.

pub(super) mod analyses;
pub(super) mod games;
pub(super) mod players;
pub(super) mod puzzles;
pub(super) mod ratings;
pub(super) mod seeks;

use std::str::FromStr;
use std::time::Duration;

use futures_util::StreamExt;
use sqlx::error::BoxDynError;
use sqlx::sqlite::{
    SqliteArguments, SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{ConnectOptions, Connection, Either, Executor, SqliteConnection, SqlitePool};
use tokio::sync::mpsc;

use super::writer::{self, Batching, BoxFuture, Ran, Step, Stopped, Writer};
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
        // A batch's script sends back a result per statement: room for a whole batch's, so the
        // connection's thread never waits for the writer to take them.
        let conn: SqliteConnection = options
            .clone()
            .row_buffer_size(1024)
            .pragma("wal_autocheckpoint", WRITER_AUTOCHECKPOINT)
            .connect()
            .await?;
        let (wake, woken) = mpsc::channel(1);
        tokio::spawn(checkpoints(options.connect().await?, woken));
        let committed = move || {
            // Full: a wake-up is already pending, which is as good.
            let _ = wake.try_send(());
        };
        Ok(Store {
            read,
            writer: Writer::start(conn, config.busy_timeout(), committed),
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

/// WAL pages past which the writer checkpoints itself, after a commit, as SQLite does by
/// default every 1,000 pages: only when [`checkpoints`] falls behind (the WAL is reset, back to
/// its start, once everything in it has been copied).
const WRITER_AUTOCHECKPOINT: &str = "10000";
/// The least time between two checkpoints by [`checkpoints`].
const CHECKPOINT_PAUSE: Duration = Duration::from_millis(100);

/// Copies committed pages from the WAL into the database file on a connection of its own,
/// woken by the writer's commits (at most once per [`CHECKPOINT_PAUSE`]), until the writer stops.
///
/// SQLite's automatic checkpoint runs in the commit that crosses 1,000 WAL pages, inside the
/// writer's batch: copying those pages and syncing the file stalled every write queued behind
/// it, which made the slowest percent of moves several times slower than the rest. A passive
/// checkpoint here runs beside the writer instead (WAL lets one connection checkpoint while
/// another writes); durability is the WAL's, synced at every commit, either way.
async fn checkpoints(mut conn: SqliteConnection, mut woken: mpsc::Receiver<()>) {
    while woken.recv().await.is_some() {
        if let Err(e) = sqlx::query("pragma wal_checkpoint(passive)")
            .execute(&mut conn)
            .await
        {
            tracing::warn!(error = %e, "checkpoint failed");
        }
        tokio::time::sleep(CHECKPOINT_PAUSE).await;
    }
    let _ = Connection::close(conn).await;
}

/// The statements of the planned writes of a batch, as one text run in one call, after the
/// `BEGIN` (see [`writer`](super::writer)). The text of a given mix of writes is the same every
/// time, so SQLite's prepared statements for it are kept (sqlx's statement cache).
pub struct Script {
    sql: String,
    args: SqliteArguments<'static>,
    /// How many statements each write added, in order.
    writes: Vec<usize>,
    /// Statements of the write being added.
    open: usize,
    /// The first argument that could not be encoded, and the write it belongs to.
    refused: Option<(usize, BoxDynError)>,
}

impl Default for Script {
    fn default() -> Script {
        Script {
            // BEGIN IMMEDIATE takes the write lock up front (waiting up to the busy timeout), so
            // no statement inside has to upgrade a read lock, where SQLite gives up without
            // waiting.
            sql: String::from("begin immediate;"),
            args: SqliteArguments::default(),
            writes: Vec::new(),
            open: 0,
            refused: None,
        }
    }
}

impl Script {
    /// Adds `statements` statements (one text, each ending in `;`) to the current write, `bind`
    /// binding their arguments in order.
    pub fn add(
        &mut self,
        sql: &str,
        statements: usize,
        bind: impl FnOnce(&mut SqliteArguments<'static>) -> Result<(), BoxDynError>,
    ) {
        self.sql.push_str(sql);
        self.open += statements;
        if let Err(e) = bind(&mut self.args) {
            self.refused.get_or_insert((self.writes.len(), e));
        }
    }
}

impl writer::Script for Script {
    fn end_write(&mut self) {
        self.writes.push(self.open);
        self.open = 0;
    }
}

/// What one statement of a planned write gave: the rows it changed (for an `insert`, `update`
/// or `delete`) and the rows it returned.
pub struct Done {
    pub changes: u64,
    pub rows: Vec<SqliteRow>,
}

/// Which part of a script a statement belongs to.
#[derive(Clone, Copy)]
enum Part {
    Begin,
    Write(usize),
    Commit,
}

impl Batching for SqliteConnection {
    type Error = sqlx::Error;
    type Script = Script;
    type Results = Vec<Done>;

    fn run(&mut self, script: Script, commit: bool) -> BoxFuture<'_, Ran<Vec<Done>, sqlx::Error>> {
        Box::pin(async move {
            let Script {
                mut sql,
                args,
                writes,
                refused,
                ..
            } = script;
            if let Some((write, e)) = refused {
                // Begun all the same, so the writer's rollback finds a transaction.
                self.execute("begin immediate")
                    .await
                    .map_err(Stopped::Begin)?;
                return Err(Stopped::Write(write, sqlx::Error::Encode(e)));
            }
            if commit {
                sql.push_str("commit;");
            }
            let mut parts = vec![Part::Begin];
            for (write, &statements) in writes.iter().enumerate() {
                parts.extend(std::iter::repeat_n(Part::Write(write), statements));
            }
            parts.push(Part::Commit);
            let mut results: Vec<Vec<Done>> =
                writes.iter().map(|&n| Vec::with_capacity(n)).collect();
            let mut statement = 0;
            let mut rows = Vec::new();
            let mut stream = self.fetch_many(sqlx::query_with(&sql, args));
            while let Some(step) = stream.next().await {
                match step {
                    Ok(Either::Right(row)) => rows.push(row),
                    Ok(Either::Left(done)) => {
                        if let Some(Part::Write(write)) = parts.get(statement) {
                            results[*write].push(Done {
                                changes: done.rows_affected(),
                                rows: std::mem::take(&mut rows),
                            });
                        }
                        statement += 1;
                    }
                    Err(e) => {
                        return Err(match parts.get(statement) {
                            Some(Part::Begin) | None => Stopped::Begin(e),
                            Some(Part::Write(write)) => Stopped::Write(*write, e),
                            Some(Part::Commit) => Stopped::Commit(e),
                        })
                    }
                }
            }
            Ok(results)
        })
    }

    fn step(&mut self, step: Step) -> BoxFuture<'_, Result<(), sqlx::Error>> {
        let sql = match step {
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
