//! The server harness: starts the real `gomoku-server` binary on 127.0.0.1:0 against a database
//! the harness owns, learns the port from the `listening on <addr>` line the server prints once
//! its socket is bound, and stops it the hard way (SIGKILL) or the polite way (SIGTERM).
//!
//! Three values, one job each:
//! - [`ServerBinary`]: where the executable is. Integration tests and benches of the root package
//!   get it from Cargo through [`gomoku_server!`](crate::gomoku_server); the stress tool looks
//!   next to itself or takes `--server-bin`.
//! - [`Database`]: where the games live. It outlives any one process, so a restart, or several
//!   servers started on one database at once, see the same games. A server is told only its URL.
//!   Unless a test asks for a particular one, a server gets a [`Database::fresh`] one on the
//!   backend the suite runs against (SQLite, or PostgreSQL when `GOMOKU_TEST_DATABASE` names a
//!   cluster), so the same tests run on both.
//! - [`Server`]: one running process. It keeps the [`ServerBuilder`] it came from, so
//!   [`Server::restart`] starts exactly the same thing again on the same database.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::postgres::{self, PgDatabase};

/// The flags a server needs when a test sends many writes with one token.
pub const NO_RATE_LIMIT: &[&str] = &["--write-rate-limit", "0"];

/// The environment variable (and value) that lifts the per-address limit on new sessions; the
/// harness sets it for every server it starts.
const NO_SESSION_LIMIT: (&str, &str) = ("GOMOKU_SESSIONS_PER_MINUTE", "0");

/// The same for the cap on connections per client address (a bench opens a thousand live
/// sockets from 127.0.0.1).
const NO_CONNECTION_CAP: (&str, &str) = ("GOMOKU_MAX_CONNECTIONS_PER_ADDRESS", "0");

/// How long a starting server may take to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A [`ServerBuilder`] for the `gomoku-server` that Cargo built for the calling integration test
/// or bench. `CARGO_BIN_EXE_<name>` exists only while Cargo compiles those targets, so the lookup
/// has to expand in the caller's crate: this macro is the one place where it is written.
#[macro_export]
macro_rules! gomoku_server {
    () => {
        $crate::Server::builder($crate::ServerBinary::at(env!(
            "CARGO_BIN_EXE_gomoku-server"
        )))
    };
}

/// Where the `gomoku-server` executable is.
#[derive(Clone, Debug)]
pub struct ServerBinary(PathBuf);

impl ServerBinary {
    pub fn at(path: impl Into<PathBuf>) -> ServerBinary {
        ServerBinary(path.into())
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A command running the binary, for its other subcommands.
    pub fn command(&self) -> Command {
        Command::new(&self.0)
    }

    /// `gomoku-server backup <target>` on `database`, ready to run.
    pub fn backup(&self, database: &Database, target: &Path) -> Command {
        let mut command = self.command();
        command
            .arg("backup")
            .arg(target)
            .arg("--database-url")
            .arg(database.url())
            .env("RUST_LOG", "warn");
        command
    }
}

/// Where a server stores its games; cheap to clone, and what it owns (a temporary folder, a
/// PostgreSQL database) lives until the last clone and the last server on it are gone.
#[derive(Clone)]
pub struct Database(Arc<Location>);

struct Location {
    /// What the server gets as `--database-url`.
    url: String,
    /// The file, for checks that read it directly.
    sqlite_file: Option<PathBuf>,
    /// Removed on drop, with everything in it.
    _dir: Option<TempDir>,
    /// Dropped on drop.
    _postgres: Option<PgDatabase>,
}

impl Database {
    /// A new, empty database on the backend the suite runs against: a PostgreSQL database of its
    /// own on the cluster `GOMOKU_TEST_DATABASE` names, or else a SQLite file of its own.
    pub fn fresh() -> Database {
        Database::postgres().unwrap_or_else(Database::temp_sqlite)
    }

    /// A new, empty PostgreSQL database, if the suite runs on PostgreSQL.
    pub fn postgres() -> Option<Database> {
        Some(Database::postgres_on(&postgres::cluster()?))
    }

    /// A new, empty PostgreSQL database for a test that needs PostgreSQL; panics, saying why,
    /// when the suite has no cluster ([`postgres::required_cluster`]).
    pub fn required_postgres() -> Database {
        Database::postgres_on(&postgres::required_cluster())
    }

    /// A new, empty PostgreSQL database on the cluster at `cluster` (a URL where databases may
    /// be created).
    pub fn postgres_on(cluster: &str) -> Database {
        let database = PgDatabase::create(cluster);
        Database(Arc::new(Location {
            url: database.url().to_string(),
            sqlite_file: None,
            _dir: None,
            _postgres: Some(database),
        }))
    }

    /// Whether this is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        self.0._postgres.is_some()
    }

    /// A new, empty SQLite database in a temporary folder of its own.
    pub fn temp_sqlite() -> Database {
        let dir = tempfile::Builder::new()
            .prefix("gomoku-test-")
            .tempdir()
            .expect("temp dir");
        let file = dir.path().join("gomoku.db");
        Database(Arc::new(Location {
            url: format!("sqlite://{}", file.display()),
            sqlite_file: Some(file),
            _dir: Some(dir),
            _postgres: None,
        }))
    }

    /// An existing SQLite file (a backup copy, say); it is left in place afterwards.
    pub fn sqlite_file(path: &Path) -> Database {
        Database(Arc::new(Location {
            url: format!("sqlite://{}", path.display()),
            sqlite_file: Some(path.to_path_buf()),
            _dir: None,
            _postgres: None,
        }))
    }

    /// SQLite in the server's memory (`sqlite::memory:`): gone when the process stops.
    pub fn sqlite_in_memory() -> Database {
        Database(Arc::new(Location {
            url: "sqlite::memory:".to_string(),
            sqlite_file: None,
            _dir: None,
            _postgres: None,
        }))
    }

    /// The value of `--database-url`.
    pub fn url(&self) -> &str {
        &self.0.url
    }

    /// The SQLite file, for checks that read or lock it directly.
    pub fn sqlite_path(&self) -> &Path {
        self.0
            .sqlite_file
            .as_deref()
            .unwrap_or_else(|| panic!("{} is not a SQLite file", self.0.url))
    }
}

/// What to start: the binary, the database (a fresh one unless given), extra flags and
/// environment variables, and where the server's log (its stderr) goes.
#[derive(Clone)]
pub struct ServerBuilder {
    binary: ServerBinary,
    database: Option<Database>,
    args: Vec<String>,
    envs: Vec<(String, String)>,
    capture_log: bool,
}

impl ServerBuilder {
    /// Runs on `database` (shared with whatever else runs on it) instead of a fresh one.
    pub fn database(mut self, database: &Database) -> ServerBuilder {
        self.database = Some(database.clone());
        self
    }

    /// Adds command-line flags.
    pub fn args<I, S>(mut self, args: I) -> ServerBuilder
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_string()));
        self
    }

    /// Sets an environment variable (after the harness's own: `RUST_LOG` can be overridden).
    pub fn env(mut self, key: &str, value: &str) -> ServerBuilder {
        self.envs.push((key.to_string(), value.to_string()));
        self
    }

    /// The binary it starts, for its other subcommands.
    pub fn binary(&self) -> &ServerBinary {
        &self.binary
    }

    /// Sends the server's log to a file of its own instead of the caller's stderr; see
    /// [`Server::log_text`]. Restarts append to the same file.
    pub fn capture_log(mut self) -> ServerBuilder {
        self.capture_log = true;
        self
    }

    pub fn start(self) -> Server {
        let database = self.database.clone().unwrap_or_else(Database::fresh);
        let log = self.capture_log.then(|| {
            let dir = tempfile::Builder::new()
                .prefix("gomoku-log-")
                .tempdir()
                .expect("temp dir for the server log");
            let path = dir.path().join("server.log");
            Arc::new((dir, path))
        });
        let (child, base) = spawn(&self, &database, log.as_ref().map(|l| l.1.as_path()));
        Server {
            base,
            builder: self,
            database,
            log,
            child,
        }
    }
}

/// Starts the process and waits for its `listening on <addr>` line; the child and its base URL.
fn spawn(builder: &ServerBuilder, database: &Database, log: Option<&Path>) -> (Child, String) {
    let stderr = match log {
        Some(path) => Stdio::from(append(path)),
        None => Stdio::inherit(),
    };
    let mut command = builder.binary.command();
    command
        .arg("--addr")
        .arg("127.0.0.1:0")
        .arg("--database-url")
        .arg(database.url())
        .args(&builder.args)
        // A developer's own WeChat credentials must not turn on the real login.
        .env_remove("WECHAT_APPID")
        .env_remove("WECHAT_SECRET")
        // Every client of a test, bench or stress run comes from 127.0.0.1, so the per-address
        // limits on new sessions and on connections are off; a test of a limit sets it by flag,
        // which wins.
        .env(NO_SESSION_LIMIT.0, NO_SESSION_LIMIT.1)
        .env(NO_CONNECTION_CAP.0, NO_CONNECTION_CAP.1)
        .env(
            "RUST_LOG",
            std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdout(Stdio::piped())
        .stderr(stderr);
    for (key, value) in &builder.envs {
        command.env(key, value);
    }
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", builder.binary.path().display()));
    let stdout = child.stdout.take().expect("server stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        while let Some(Ok(line)) = lines.next() {
            if let Some(addr) = line.trim().strip_prefix("listening on ") {
                let _ = tx.send(addr.to_string());
                break;
            }
        }
        // Keep draining so the server never blocks on a full pipe.
        for _ in lines {}
    });
    match rx.recv_timeout(START_TIMEOUT) {
        Ok(addr) => (child, format!("http://{addr}")),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gomoku-server did not print `listening on <addr>` within {START_TIMEOUT:?}");
        }
    }
}

fn append(path: &Path) -> File {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open the server log {}: {e}", path.display()))
}

/// A running server process; killed on drop.
pub struct Server {
    base: String,
    builder: ServerBuilder,
    database: Database,
    /// The captured log: its folder (kept alive) and the file.
    log: Option<Arc<(TempDir, PathBuf)>>,
    child: Child,
}

impl Server {
    /// Starts describing a server run by `binary`.
    pub fn builder(binary: ServerBinary) -> ServerBuilder {
        ServerBuilder {
            binary,
            database: None,
            args: Vec::new(),
            envs: Vec::new(),
            capture_log: false,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `127.0.0.1:<port>`, for raw sockets.
    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn database(&self) -> &Database {
        &self.database
    }

    pub fn binary(&self) -> &ServerBinary {
        &self.builder.binary
    }

    /// Everything the server has logged so far (across restarts); panics unless the builder
    /// asked for [`ServerBuilder::capture_log`].
    pub fn log_text(&self) -> String {
        let (_, path) = &**self
            .log
            .as_ref()
            .expect("the server's log was not captured");
        std::fs::read_to_string(path).expect("read the server log")
    }

    /// How many lines of the server's log hold every one of `words` (what was logged and, say,
    /// `request_id=…` of the request it was logged for); the log must be captured.
    pub fn log_lines_with(&self, words: &[&str]) -> usize {
        self.log_text()
            .lines()
            .filter(|line| words.iter().all(|word| line.contains(word)))
            .count()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The process's resident memory in KiB (`VmRSS` of `/proc/<pid>/status`; Linux only).
    pub fn resident_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// The process's open files, sockets included (the entries of `/proc/<pid>/fd`; Linux only).
    pub fn open_files(&self) -> Option<usize> {
        let entries = std::fs::read_dir(format!("/proc/{}/fd", self.pid())).ok()?;
        Some(entries.count())
    }

    /// Stops the process with SIGKILL (no chance to clean up) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM (a graceful shutdown request).
    pub fn terminate(&mut self) {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Waits up to `timeout` for the process to exit; its exit status if it did.
    pub fn wait_until_exited(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < timeout {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Kills this process (if it still runs) and starts the same server again on the same
    /// database; it gets a new port.
    pub fn restart(&mut self) {
        self.kill();
        let log = self.log.as_ref().map(|l| l.1.as_path());
        let (child, base) = spawn(&self.builder, &self.database, log);
        self.child = child;
        self.base = base;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
