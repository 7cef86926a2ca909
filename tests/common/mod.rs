//! Test harness shared by the integration suites: starts the real `gomoku-server` binary on
//! 127.0.0.1:0 with a SQLite file of the test's own, and gives a reqwest client to talk to it.
//!
//! The server prints `listening on <addr>` on stdout once its socket is bound; that line is how
//! the harness learns the port.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

/// A running server process. Killed on drop.
pub struct TestServer {
    pub base: String,
    pub db_path: PathBuf,
    child: Child,
    // Keeps the temporary folder alive for as long as the server (and its restarts) use it.
    dir: Option<tempfile::TempDir>,
}

impl TestServer {
    /// A server on a new, empty database in a fresh temporary folder.
    pub fn start() -> TestServer {
        Self::start_with_args(&[], &[])
    }

    /// A server on a new database, with extra command-line flags and environment variables.
    pub fn start_with_args(args: &[&str], envs: &[(&str, &str)]) -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let db_path = dir.path().join("gomoku.db");
        let mut server = Self::start_on(&db_path, args, envs);
        server.dir = Some(dir);
        server
    }

    /// A server on the given database file (which may already hold games).
    pub fn start_on(db_path: &Path, args: &[&str], envs: &[(&str, &str)]) -> TestServer {
        Self::spawn(db_path, args, envs, Stdio::inherit())
    }

    /// A server on a database URL that names no file of the test's (e.g. `sqlite::memory:`).
    pub fn start_on_url(url: &str, args: &[&str]) -> TestServer {
        let mut full = vec!["--database-url", url];
        full.extend_from_slice(args);
        Self::spawn_with(None, &full, &[], Stdio::inherit())
    }

    /// Starts the binary on `db_path` with its logs (stderr) sent to `stderr`, and waits for the
    /// `listening on <addr>` line.
    fn spawn(db_path: &Path, args: &[&str], envs: &[(&str, &str)], stderr: Stdio) -> TestServer {
        Self::spawn_with(Some(db_path), args, envs, stderr)
    }

    /// [`TestServer::spawn`], or without a file when `args` name the database.
    fn spawn_with(
        db_path: Option<&Path>,
        args: &[&str],
        envs: &[(&str, &str)],
        stderr: Stdio,
    ) -> TestServer {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gomoku-server"));
        command.arg("--addr").arg("127.0.0.1:0");
        if let Some(db_path) = db_path {
            command
                .arg("--database-url")
                .arg(format!("sqlite://{}", db_path.display()));
        }
        command
            .args(args)
            .env_remove("WECHAT_APPID")
            .env_remove("WECHAT_SECRET")
            .env(
                "RUST_LOG",
                std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()),
            )
            .stdout(Stdio::piped())
            .stderr(stderr);
        for (key, value) in envs {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("start gomoku-server");
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
        let addr = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(addr) => addr,
            Err(_) => {
                let _ = child.kill();
                panic!("gomoku-server did not print `listening on <addr>` within 60 s");
            }
        };
        TestServer {
            base: format!("http://{addr}"),
            db_path: db_path.map(Path::to_path_buf).unwrap_or_default(),
            child,
            dir: None,
        }
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
    pub fn wait_until_exited(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let start = std::time::Instant::now();
        while start.elapsed() < timeout {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Kills this server and starts a new one on the same database file and folder.
    pub fn restart(mut self, args: &[&str]) -> TestServer {
        self.kill();
        let dir = self.dir.take();
        let mut next = Self::start_on(&self.db_path.clone(), args, &[]);
        next.dir = dir;
        next
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// A new anonymous player's bearer token.
    pub async fn new_token(&self, client: &reqwest::Client) -> String {
        let response = client
            .post(self.url("/api/v1/sessions"))
            .json(&json!({}))
            .send()
            .await
            .expect("POST /sessions");
        assert_eq!(response.status(), 201, "POST /api/v1/sessions");
        let body: Value = response.json().await.expect("session JSON");
        body["token"].as_str().expect("token").to_string()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client with a sane timeout, so a hung server fails the test instead of hanging it.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client")
}

/// One HTTP answer: the status, the headers and the body parsed as JSON (`Value::Null` when the
/// body is empty or not JSON; the raw text is kept for such cases).
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Reply {
    /// Reads a whole response.
    pub async fn read(response: reqwest::Response) -> Reply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("response body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            status,
            headers,
            body,
            text,
        }
    }

    /// The `error.code` of an error answer, or "" when there is none.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }

    /// Asserts a 429 RATE_LIMITED answer whose Retry-After header is whole seconds (1 to 60) and
    /// agrees with the body's `retryAfter`; returns the wait.
    pub fn assert_rate_limited(&self, what: &str) -> u64 {
        self.assert_error(429, "RATE_LIMITED", what);
        let wait: u64 = self
            .header("retry-after")
            .expect("Retry-After")
            .parse()
            .expect("Retry-After in whole seconds");
        assert!((1..=60).contains(&wait), "{what}: Retry-After {wait}");
        assert_eq!(self.body["error"]["retryAfter"], wait, "{what}");
        wait
    }

    /// A header as text, if present.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("ASCII header").to_string())
    }

    /// Asserts a success status and returns the body.
    pub fn ok(self, status: u16, what: &str) -> Value {
        assert_eq!(
            self.status, status,
            "{what}: expected {status}, got {} {}",
            self.status, self.text
        );
        self.body
    }

    /// Asserts an error answer: its status, its code, and the `{"error":{"code","message"}}` shape.
    pub fn assert_error(&self, status: u16, code: &str, what: &str) {
        assert_eq!(
            (self.status, self.code()),
            (status, code),
            "{what}: expected {status} {code}, got {} {}",
            self.status,
            self.text
        );
        assert!(
            self.body["error"]["message"].is_string(),
            "{what}: error without a message: {}",
            self.text
        );
    }
}

/// A player talking to a server: a client, the server's base URL and a bearer token.
#[derive(Clone)]
pub struct Player {
    pub client: reqwest::Client,
    pub base: String,
    pub token: String,
}

impl Player {
    /// A new anonymous player on `server`.
    pub async fn new(server: &TestServer) -> Player {
        let client = client();
        let token = server.new_token(&client).await;
        Player {
            client,
            base: server.base.clone(),
            token,
        }
    }

    /// The same player (same token) on another server process, e.g. after a restart.
    pub fn on(&self, server: &TestServer) -> Player {
        Player {
            base: server.base.clone(),
            ..self.clone()
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// A request with this player's bearer token.
    pub fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.client
            .request(method, self.url(path))
            .bearer_auth(&self.token)
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        Reply::read(request.send().await.expect("request sent")).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.request(reqwest::Method::GET, path)).await
    }

    /// POST with a JSON body.
    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.send(self.request(reqwest::Method::POST, path).json(body))
            .await
    }

    /// POST without a body (undo, resign).
    pub async fn post_empty(&self, path: &str) -> Reply {
        self.send(self.request(reqwest::Method::POST, path)).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.send(self.request(reqwest::Method::DELETE, path)).await
    }

    /// Creates a game with these settings, asserting 201; its state.
    pub async fn create(&self, settings: Value) -> Value {
        self.post("/api/v1/games", &settings)
            .await
            .ok(201, "POST /api/v1/games")
    }

    /// A game's current state, asserting 200.
    pub async fn game(&self, id: &str) -> Value {
        self.get(&format!("/api/v1/games/{id}"))
            .await
            .ok(200, "GET /api/v1/games/{id}")
    }

    /// Sends a move without `ply`.
    pub async fn try_move(&self, id: &str, row: i64, col: i64) -> Reply {
        self.post(
            &format!("/api/v1/games/{id}/moves"),
            &json!({"row": row, "col": col}),
        )
        .await
    }

    /// Plays a move, asserting 200; the new state.
    pub async fn play(&self, id: &str, row: i64, col: i64) -> Value {
        let reply = self.try_move(id, row, col).await;
        reply.ok(200, &format!("move ({row},{col})"))
    }

    /// Plays the moves in order, asserting each is accepted; the last state.
    pub async fn play_all(&self, id: &str, moves: &[(i64, i64)]) -> Value {
        let mut state = Value::Null;
        for &(row, col) in moves {
            state = self.play(id, row, col).await;
        }
        state
    }

    /// One page of this player's list; `query` holds extra (name, value) pairs.
    pub async fn list_page(&self, query: &[(&str, &str)]) -> Reply {
        let request = self
            .request(reqwest::Method::GET, "/api/v1/games")
            .query(query);
        self.send(request).await
    }

    /// Every game in this player's list (all pages of `limit`), following cursors; `status` is
    /// the optional filter.
    pub async fn list_all(&self, status: Option<&str>, limit: u32) -> Vec<Value> {
        let mut games = Vec::new();
        let mut cursor: Option<String> = None;
        let limit = limit.to_string();
        loop {
            let mut query = vec![("limit", limit.as_str())];
            if let Some(status) = status {
                query.push(("status", status));
            }
            if let Some(cursor) = &cursor {
                query.push(("cursor", cursor.as_str()));
            }
            let page = self.list_page(&query).await.ok(200, "GET /api/v1/games");
            let items = page["games"].as_array().expect("games array");
            assert!(
                items.len() <= limit.parse().unwrap(),
                "page longer than limit"
            );
            games.extend(items.iter().cloned());
            match page["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_string()),
                None => return games,
            }
            assert!(games.len() < 10_000, "cursor never ends");
        }
    }
}

/// The flags a server needs when a test sends many writes with one token.
pub const NO_RATE_LIMIT: &[&str] = &["--write-rate-limit", "0"];

impl TestServer {
    /// Like [`TestServer::start_with_args`], but the server's stderr (its logs) goes to a file in
    /// the server's temporary folder instead of the test's output; returns that file's path. For
    /// tests that check what the server logs.
    pub fn start_logging_to_file(args: &[&str], envs: &[(&str, &str)]) -> (TestServer, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let db_path = dir.path().join("gomoku.db");
        let log_path = dir.path().join("server.log");
        let log = std::fs::File::create(&log_path).expect("create server log");
        let mut server = Self::spawn(&db_path, args, envs, Stdio::from(log));
        server.dir = Some(dir);
        (server, log_path)
    }
}

/// Black makes the five (7,3)…(7,7) on its fifth move; white plays harmlessly on row 0.
pub const BLACK_FIVE: &[(i64, i64)] = &[
    (7, 3),
    (0, 0),
    (7, 4),
    (0, 1),
    (7, 5),
    (0, 2),
    (7, 6),
    (0, 3),
    (7, 7),
];

/// `(row, col, player)` of each move in a list of moves.
pub fn move_triples(moves: &Value) -> Vec<(i64, i64, i64)> {
    moves
        .as_array()
        .expect("moves array")
        .iter()
        .map(|m| {
            (
                m["row"].as_i64().unwrap(),
                m["col"].as_i64().unwrap(),
                m["player"].as_i64().unwrap(),
            )
        })
        .collect()
}
