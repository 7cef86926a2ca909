//! The PostgreSQL the suite runs against, when it runs against one: `GOMOKU_TEST_DATABASE` set to
//! the URL of a cluster where the tests may create databases (`scripts/test.sh` starts a
//! throwaway cluster and sets it; `scripts/pg-cluster.sh` does the same by hand). Unset, the
//! suite runs on SQLite, and the tests that need PostgreSQL (several instances on one database)
//! say they were skipped.
//!
//! Every test gets a database of its own ([`PgDatabase`]), dropped when the last thing using it
//! is gone; whatever a killed run leaves behind goes with the throwaway cluster.

use std::sync::atomic::{AtomicU32, Ordering};

use sqlx::{Connection, Executor, PgConnection};

/// The variable naming the cluster.
pub const ENV: &str = "GOMOKU_TEST_DATABASE";

/// The cluster's URL, if the suite runs on PostgreSQL.
pub fn cluster() -> Option<String> {
    std::env::var(ENV)
        .ok()
        .filter(|url| url.starts_with("postgres://") || url.starts_with("postgresql://"))
}

/// `url` with its database name replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL with a scheme");
    let (authority, tail) = rest.split_once('/').unwrap_or((rest, ""));
    let query = tail.split_once('?').map(|(_, q)| q);
    match query {
        Some(q) => format!("{scheme}://{authority}/{name}?{q}"),
        None => format!("{scheme}://{authority}/{name}"),
    }
}

/// Runs `work` to completion on a runtime of its own, in a thread of its own: callable from
/// synchronous code and from inside another runtime alike.
fn blocking<T: Send + 'static>(work: impl std::future::Future<Output = T> + Send + 'static) -> T {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(work)
    })
    .join()
    .expect("the database thread panicked")
}

/// A new, empty database on the cluster; dropped with this value.
pub struct PgDatabase {
    cluster: String,
    name: String,
    url: String,
}

impl PgDatabase {
    /// Creates a database with a name of its own on `cluster`.
    pub fn create(cluster: &str) -> PgDatabase {
        static MADE: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "gomoku_test_{}_{}_{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed),
            rand::random::<u32>()
        );
        let (admin, statement) = (cluster.to_string(), format!("create database {name}"));
        blocking(async move {
            let mut conn = PgConnection::connect(&admin)
                .await
                .unwrap_or_else(|e| panic!("connect to the test cluster {admin}: {e}"));
            conn.execute(statement.as_str())
                .await
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        });
        PgDatabase {
            url: with_database(cluster, &name),
            cluster: cluster.to_string(),
            name,
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let (admin, statement) = (
            self.cluster.clone(),
            format!("drop database if exists {} with (force)", self.name),
        );
        blocking(async move {
            // Best effort: the cluster goes at the end of the run anyway.
            if let Ok(mut conn) = PgConnection::connect(&admin).await {
                let _ = conn.execute(statement.as_str()).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The database name is replaced, the rest of the URL kept.
    #[test]
    fn urls() {
        assert_eq!(
            with_database("postgres://u@127.0.0.1:5432/postgres", "t1"),
            "postgres://u@127.0.0.1:5432/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@h/postgres?sslmode=disable", "t1"),
            "postgres://u:p@h/t1?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h", "t1"), "postgres://h/t1");
    }
}
