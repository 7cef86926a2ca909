//! What is SQLite's own: the writer's transaction statements on a SQLite connection, how SQLite
//! says "busy", and which URLs name an in-memory database.

use sqlx::{Connection, SqliteConnection};

use super::writer::{Batching, BoxFuture, Step};

impl Batching for SqliteConnection {
    type Error = sqlx::Error;

    fn step(&mut self, step: Step) -> BoxFuture<'_, Result<(), sqlx::Error>> {
        let sql = match step {
            // BEGIN IMMEDIATE takes the write lock up front (waiting up to the busy timeout), so
            // no statement inside has to upgrade a read lock, where SQLite gives up without
            // waiting.
            Step::Begin => "begin immediate",
            Step::Savepoint => "savepoint write",
            // Finds the newest savepoint of that name: the current write's own.
            Step::RollbackToSavepoint => "rollback to write",
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
        sqlx::Error::Database(db) => db
            .code()
            .and_then(|c| c.parse::<i32>().ok())
            // The primary result code is the low byte of the extended one: 5 BUSY, 6 LOCKED.
            .is_some_and(|code| matches!(code & 0xff, 5 | 6)),
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
