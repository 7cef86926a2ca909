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
        let mut command = Command::new(env!("CARGO_BIN_EXE_gomoku-server"));
        command
            .arg("--addr")
            .arg("127.0.0.1:0")
            .arg("--database-url")
            .arg(format!("sqlite://{}", db_path.display()))
            .args(args)
            .env_remove("WECHAT_APPID")
            .env_remove("WECHAT_SECRET")
            .env("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
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
        TestServer { base: format!("http://{addr}"), db_path: db_path.to_path_buf(), child, dir: None }
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
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
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
        let response = client.post(self.url("/api/v1/sessions")).json(&json!({})).send().await.expect("POST /sessions");
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
    reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client")
}
