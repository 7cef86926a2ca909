//! The PostgreSQL the suite runs against, when it runs against one: `GOMOKU_TEST_DATABASE` set to
//! the URL of a cluster where the tests may create databases (`scripts/test.sh` starts a
//! throwaway cluster and sets it; `scripts/pg-cluster.sh` does the same by hand). Unset, the
//! suite runs on SQLite.
//!
//! The tests that need PostgreSQL itself (several instances on one database) are marked
//! `#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]`, so a plain `cargo test` counts them
//! as ignored rather than showing a pass that did not run; `scripts/test.sh` runs them with
//! `-- --include-ignored`. Such a test takes its cluster from [`required_cluster`], which fails
//! the test, saying why, when there is none: asked for, it never passes without running.
//!
//! Every test gets a database of its own ([`PgDatabase`]), dropped when the last thing using it
//! is gone; whatever a killed run leaves behind goes with the throwaway cluster.
//!
//! A test or a run that stops and starts PostgreSQL itself (a database restart under live games)
//! must not do it to the cluster the rest of the suite shares: it starts a [`Cluster`] of its own,
//! through `scripts/pg-cluster.sh` as `scripts/test.sh` does.

use std::path::{Path, PathBuf};
use std::process::Command;
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

/// The cluster's URL for a test that needs PostgreSQL (an ignored one, run by
/// `--include-ignored`); panics, saying how to name one, when the suite has none.
pub fn required_cluster() -> String {
    cluster().unwrap_or_else(|| {
        panic!(
            "this test needs PostgreSQL: set {ENV} to the URL of a cluster where it may create \
             databases (`scripts/pg-cluster.sh start <dir>` starts one and prints it), or leave \
             out --include-ignored"
        )
    })
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

/// A throwaway PostgreSQL cluster of the caller's own (`scripts/pg-cluster.sh`), which it may
/// stop and start again; stopped and removed on drop.
pub struct Cluster {
    dir: tempfile::TempDir,
    url: String,
}

impl Cluster {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg-cluster.sh")
    }

    /// Whether PostgreSQL's programs are installed (the script would install them when missing,
    /// which a test must not do).
    pub fn installed() -> bool {
        std::fs::read_dir("/usr/lib/postgresql").is_ok_and(|versions| {
            versions
                .flatten()
                .any(|v| v.path().join("bin/initdb").exists())
        })
    }

    /// Starts a cluster; `durable` keeps PostgreSQL's fsync (a benchmark's commits as they would
    /// be), otherwise it is off (nothing a test checks depends on it).
    pub fn start(durable: bool) -> Cluster {
        let dir = tempfile::tempdir().expect("temp dir");
        // The cluster's owner may be `nobody` (when this runs as root): it must reach the folder.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("open the folder");
        let mut command = Command::new(Self::script());
        command.arg("start").arg(dir.path().join("cluster"));
        if durable {
            command.arg("--durable");
        }
        let url = String::from_utf8(Self::run(&mut command, "start"))
            .expect("a URL")
            .trim()
            .to_string();
        Cluster { dir, url }
    }

    /// A URL where databases may be created.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The folder the cluster lives in (on the disk whose flushes its commits wait for).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Stops the server (a fast shutdown: every session ends, as in an operator's restart);
    /// returns once it is down.
    pub fn halt(&self) {
        self.step("halt");
    }

    /// Starts it again on the same port; returns once it accepts connections.
    pub fn resume(&self) {
        self.step("resume");
    }

    fn step(&self, what: &str) {
        Self::run(
            Command::new(Self::script())
                .arg(what)
                .arg(self.dir.path().join("cluster")),
            what,
        );
    }

    fn run(command: &mut Command, what: &str) -> Vec<u8> {
        let output = command.output().expect("run scripts/pg-cluster.sh");
        assert!(
            output.status.success(),
            "pg-cluster.sh {what}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(Self::script())
            .arg("stop")
            .arg(self.dir.path().join("cluster"))
            .status();
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
