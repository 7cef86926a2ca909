//! `gomoku-stress`: the larger fault, load and fuzz runs of issue 5, against the real
//! `gomoku-server` started on a SQLite file in a temporary folder and bound to 127.0.0.1.
//!
//! - `crash`: clients write moves, undos, resignations and new games without pause; the server is
//!   killed with SIGKILL at random moments and restarted on the same file; after each kill the
//!   file's integrity, every acknowledged write and every game's consistency are checked.
//! - `race`: rounds of 32 concurrent requests for one ply (different cells, one cell, retries).
//! - `ai-load`: master-level AI games keep the server's AI cap saturated while other clients
//!   read game states and play local moves; their latency percentiles are measured.
//! - `import-fuzz`: generated and byte-mangled game records sent to the importer.
//! - `all`: each of the above at its default size.
//!
//! Every run prints its figures and ends with a `stress:` summary line; the exit status is non-zero
//! when an invariant broke (an acknowledged write lost, a 5xx other than a documented AI_BUSY,
//! an inconsistent game, a wrong answer).
//!
//! Build the server and this tool together, e.g. `cargo build --release --bins`, then run
//! `target/release/gomoku-stress all`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use gomoku_rules::{DrawReason, Game, Outcome, Point, Rule, Stone, WinReason};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Row, SqliteConnection};

#[derive(Parser)]
#[command(
    name = "gomoku-stress",
    about = "Fault, load and fuzz runs against the real gomoku-server"
)]
struct Cli {
    /// The server binary (default: `gomoku-server` next to this tool).
    #[arg(long, global = true)]
    server_bin: Option<PathBuf>,
    /// Seed for every random choice (default: from the clock); printed so a run can be repeated.
    #[arg(long, global = true)]
    seed: Option<u64>,
    #[command(subcommand)]
    command: Run,
}

#[derive(Subcommand)]
enum Run {
    /// SIGKILL under sustained writes, restart, check nothing acknowledged was lost.
    Crash(CrashArgs),
    /// Concurrent requests for one ply.
    Race(RaceArgs),
    /// Read and local-move latency while the AI cap is saturated.
    AiLoad(AiLoadArgs),
    /// Generated and mangled records through the importer.
    ImportFuzz(ImportArgs),
    /// Every run above at its default size.
    All,
}

#[derive(Args, Clone)]
struct CrashArgs {
    /// How many times the server is killed.
    #[arg(long, default_value_t = 10)]
    rounds: usize,
    /// Concurrent writing clients, each with its own player and games.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Shortest time from (re)start to kill, in ms.
    #[arg(long, default_value_t = 500)]
    min_ms: u64,
    /// Longest time from (re)start to kill, in ms.
    #[arg(long, default_value_t = 4000)]
    max_ms: u64,
    /// `--synchronous` for the server (full or normal).
    #[arg(long, default_value = "full")]
    synchronous: String,
}

#[derive(Args, Clone)]
struct RaceArgs {
    /// Rounds; each makes three races of 32 requests.
    #[arg(long, default_value_t = 50)]
    rounds: usize,
}

#[derive(Args, Clone)]
struct AiLoadArgs {
    /// Length of the measured window, in seconds (after a warm-up).
    #[arg(long, default_value_t = 30)]
    duration_s: u64,
    /// `--ai-concurrency` for the server (default: the server's own default, the core count).
    #[arg(long)]
    ai_concurrency: Option<usize>,
    /// `--ai-master-ms` for the server: the master level's budget per move.
    #[arg(long, default_value_t = 1000)]
    master_ms: u64,
    /// Clients playing master-level AI games (several per AI slot keep the cap saturated).
    #[arg(long, default_value_t = 8)]
    ai_clients: usize,
    /// Clients reading a game state in a loop.
    #[arg(long, default_value_t = 4)]
    readers: usize,
    /// Clients playing local-mode moves in a loop.
    #[arg(long, default_value_t = 4)]
    movers: usize,
    /// Pause between two requests of one reader or mover, in ms.
    #[arg(long, default_value_t = 10)]
    pause_ms: u64,
}

#[derive(Args, Clone)]
struct ImportArgs {
    /// Records sent (half generated with at most one flaw, half byte-mangled).
    #[arg(long, default_value_t = 5000)]
    cases: usize,
}

// ---------------------------------------------------------------------------------------------
// Counters, the server process, the HTTP client
// ---------------------------------------------------------------------------------------------

/// Figures shared by every client of a run. Atomics: many tasks bump them, nothing reads them
/// until the run is over.
#[derive(Default)]
struct Stats {
    requests: AtomicU64,
    server_errors: AtomicU64,
    ai_busy: AtomicU64,
    /// Invariant violations: each also printed when found.
    violations: AtomicU64,
}

impl Stats {
    fn violation(&self, what: String) {
        self.violations.fetch_add(1, Ordering::Relaxed);
        eprintln!("VIOLATION: {what}");
    }
}

fn count(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

/// A temporary folder for one run's database and server log, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "gomoku-stress-{name}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("create scratch folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The server under test: a child process; killed on drop.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    /// Starts `bin` on `db` with `args`, its log appended to `log`, and waits for
    /// `listening on <addr>`.
    fn start(bin: &Path, db: &Path, log: &Path, args: &[String]) -> Server {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("server log");
        let mut child = Command::new(bin)
            .arg("--addr")
            .arg("127.0.0.1:0")
            .arg("--database-url")
            .arg(format!("sqlite://{}", db.display()))
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "start {}: {e} (build it with `cargo build --release --bins`)",
                    bin.display()
                )
            });
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            while let Some(Ok(line)) = lines.next() {
                if let Some(addr) = line.trim().strip_prefix("listening on ") {
                    let _ = tx.send(addr.to_string());
                    break;
                }
            }
            for _ in lines {}
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                let _ = child.kill();
                panic!("gomoku-server printed no `listening on` line within 60 s")
            });
        Server {
            child,
            base: format!("http://{addr}"),
        }
    }

    /// SIGKILL: the process gets no chance to clean up.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
    stats: Arc<Stats>,
}

impl Api {
    fn new(base: &str, stats: &Arc<Stats>) -> Api {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        Api {
            http,
            base: base.to_string(),
            stats: stats.clone(),
        }
    }

    /// One request; counts it and any 5xx. A transport error is returned (the crash run expects
    /// them).
    async fn send_raw(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        content_type: Option<&str>,
        body: Option<Vec<u8>>,
    ) -> Result<(StatusCode, Value), reqwest::Error> {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        self.stats.requests.fetch_add(1, Ordering::Relaxed);
        let response = request.send().await?;
        let status = response.status();
        let body: Value = serde_json::from_slice(&response.bytes().await?).unwrap_or(Value::Null);
        if status.is_server_error() {
            if status == StatusCode::SERVICE_UNAVAILABLE && code(&body) == "AI_BUSY" {
                self.stats.ai_busy.fetch_add(1, Ordering::Relaxed);
            } else {
                self.stats.server_errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("5xx: {status} on {path}: {body}");
            }
        }
        Ok((status, body))
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), reqwest::Error> {
        let bytes = body.map(|b| b.to_string().into_bytes());
        let content_type = body.map(|_| "application/json");
        self.send_raw(method, path, token, content_type, bytes)
            .await
    }

    /// Like `send`, but a transport error is fatal (for runs where the server must stay up).
    async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (StatusCode, Value) {
        self.send(method.clone(), path, token, body)
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    async fn session(&self) -> String {
        let (status, body) = self
            .call(Method::POST, "/api/v1/sessions", None, Some(&json!({})))
            .await;
        assert_eq!(status, StatusCode::CREATED, "POST /api/v1/sessions: {body}");
        body["token"].as_str().unwrap().to_string()
    }

    async fn new_game(&self, token: &str, settings: &Value) -> Value {
        let (status, body) = self
            .call(Method::POST, "/api/v1/games", Some(token), Some(settings))
            .await;
        assert_eq!(
            status,
            StatusCode::CREATED,
            "POST /api/v1/games {settings}: {body}"
        );
        body
    }

    async fn all_games(&self, token: &str) -> Vec<String> {
        let mut ids = Vec::new();
        let mut path = "/api/v1/games?limit=100".to_string();
        loop {
            let (status, body) = self.call(Method::GET, &path, Some(token), None).await;
            assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
            ids.extend(
                body["games"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g["id"].as_str().unwrap().to_string()),
            );
            match body["nextCursor"].as_str() {
                Some(cursor) => path = format!("/api/v1/games?limit=100&cursor={cursor}"),
                None => return ids,
            }
        }
    }
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

fn moves_of(state: &Value) -> Vec<(i64, i64, i64)> {
    state["moveHistory"]
        .as_array()
        .map(|history| {
            history
                .iter()
                .map(|m| {
                    (
                        m["row"].as_i64().unwrap_or(-1),
                        m["col"].as_i64().unwrap_or(-1),
                        m["player"].as_i64().unwrap_or(-1),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn empty_cells(state: &Value) -> Vec<(i64, i64)> {
    let forbidden: Vec<(i64, i64)> = state["forbiddenMoves"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|p| (p["row"].as_i64().unwrap(), p["col"].as_i64().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    let mut cells = Vec::new();
    for (r, row) in state["board"].as_array().into_iter().flatten().enumerate() {
        for (c, cell) in row.as_array().into_iter().flatten().enumerate() {
            if cell.as_i64() == Some(0) && !forbidden.contains(&(r as i64, c as i64)) {
                cells.push((r as i64, c as i64));
            }
        }
    }
    cells
}

/// The status, winner and end reason the rules give for a game's moves.
fn judged(game: &Game) -> (&'static str, Value, Value) {
    match game.outcome() {
        Outcome::Ongoing => ("playing", Value::Null, Value::Null),
        Outcome::Win {
            winner: Stone::Black,
            reason: WinReason::Five,
            ..
        } => ("black_won", json!(1), json!("five")),
        Outcome::Win {
            reason: WinReason::Five,
            ..
        } => ("white_won", json!(2), json!("five")),
        Outcome::Win { .. } => ("resigned", Value::Null, json!("resign")),
        Outcome::Draw {
            reason: DrawReason::BoardFull,
        } => ("draw", Value::Null, json!("board_full")),
        Outcome::Draw {
            reason: DrawReason::NoFivePossible,
        } => ("draw", Value::Null, json!("no_five_possible")),
    }
}

/// Whether a served state tells one story (board = moves replayed, counters, alternating players,
/// status from the judge unless resigned); the first disagreement found.
fn check_state(state: &Value) -> Result<(), String> {
    let id = &state["id"];
    let size = state["boardSize"].as_u64().ok_or("no boardSize")? as usize;
    let rule: Rule = state["rule"]
        .as_str()
        .unwrap_or("")
        .parse()
        .map_err(|_| format!("game {id}: unknown rule"))?;
    let moves = moves_of(state);
    if state["moveCount"].as_u64() != Some(moves.len() as u64) {
        return Err(format!(
            "game {id}: moveCount {} but {} moves",
            state["moveCount"],
            moves.len()
        ));
    }
    let mut board = vec![vec![0i64; size]; size];
    for (ply, &(row, col, player)) in moves.iter().enumerate() {
        if player != 1 + (ply % 2) as i64
            || row < 0
            || col < 0
            || row as usize >= size
            || col as usize >= size
        {
            return Err(format!(
                "game {id}: bad move {ply}: {row},{col} by {player}"
            ));
        }
        board[row as usize][col as usize] = player;
    }
    let served: Vec<Vec<i64>> = serde_json::from_value(state["board"].clone())
        .map_err(|e| format!("game {id}: board: {e}"))?;
    if served != board {
        return Err(format!(
            "game {id}: the served board is not its moves replayed"
        ));
    }
    let points: Vec<Point> = moves
        .iter()
        .map(|&(r, c, _)| Point::new(r as usize, c as usize))
        .collect();
    let game = Game::replay(size, rule, &points)
        .map_err(|(i, e)| format!("game {id}: stored move {i} illegal: {e:?}"))?;
    let (status, winner, reason) = judged(&game);
    if state["endReason"] == "resign" {
        if status != "playing" {
            return Err(format!("game {id}: resigned after its moves had ended it"));
        }
    } else if state["status"] != status || state["winner"] != winner || state["endReason"] != reason
    {
        return Err(format!(
            "game {id}: status {} / {} / {} but its moves give {status} / {winner} / {reason}",
            state["status"], state["winner"], state["endReason"]
        ));
    }
    Ok(())
}

async fn open_db(path: &Path) -> SqliteConnection {
    SqliteConnectOptions::new()
        .filename(path)
        .busy_timeout(Duration::from_secs(10))
        .connect()
        .await
        .expect("open the database file")
}

/// The `moves` rows of a game run 0, 1, 2… and match the served history and the `games` row.
async fn check_stored(db: &mut SqliteConnection, state: &Value) -> Result<(), String> {
    let id = state["id"].as_str().unwrap_or("");
    let rows =
        sqlx::query(r#"select ply, "row", col, player from moves where game_id = ?1 order by ply"#)
            .bind(id)
            .fetch_all(&mut *db)
            .await
            .map_err(|e| e.to_string())?;
    let mut stored = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if row.get::<i64, _>(0) != i as i64 {
            return Err(format!("game {id}: stored plies not contiguous at {i}"));
        }
        stored.push((
            row.get::<i64, _>(1),
            row.get::<i64, _>(2),
            row.get::<i64, _>(3),
        ));
    }
    if stored != moves_of(state) {
        return Err(format!(
            "game {id}: stored moves differ from the served history"
        ));
    }
    let (count, status): (i64, String) =
        sqlx::query_as("select move_count, status from games where id = ?1")
            .bind(id)
            .fetch_one(&mut *db)
            .await
            .map_err(|e| e.to_string())?;
    if count != stored.len() as i64 || state["status"] != status.as_str() {
        return Err(format!("game {id}: games row says {count} moves, {status}"));
    }
    Ok(())
}

/// p50, p99 and max of latencies, in ms.
fn percentiles(samples: &mut [Duration]) -> (f64, f64, f64) {
    if samples.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    samples.sort();
    let at = |q: f64| {
        samples[((samples.len() as f64 * q).ceil() as usize).clamp(1, samples.len()) - 1]
            .as_secs_f64()
            * 1000.0
    };
    (
        at(0.50),
        at(0.99),
        samples[samples.len() - 1].as_secs_f64() * 1000.0,
    )
}

// ---------------------------------------------------------------------------------------------
// crash
// ---------------------------------------------------------------------------------------------

/// What a client knows of one of its games: whether the AI plays in it, the history in the last
/// acknowledged answer and the write that was in flight (or about to go) when the server died.
#[derive(Clone, Debug)]
struct Book {
    ai: bool,
    acked: Vec<(i64, i64, i64)>,
    acked_status: String,
    pending: Option<Pending>,
}

#[derive(Clone, Copy, Debug)]
enum Pending {
    /// Row, column and the mover's colour.
    Move(i64, i64, i64),
    Undo,
    Resign,
}

impl Book {
    /// Whether `stored` is what the game may hold after the crash: exactly the acknowledged
    /// history, or that history with the write in flight applied whole — a move together with
    /// the AI's reply (unless the move ended the game), an undo of one move (local) or of the
    /// human's move and the reply (AI).
    fn allows(&self, stored: &[(i64, i64, i64)], finished: bool) -> bool {
        let (acked, n) = (&self.acked[..], self.acked.len());
        if stored == acked {
            return true;
        }
        match self.pending {
            None | Some(Pending::Resign) => false,
            Some(Pending::Move(row, col, player)) => {
                let whole = if !self.ai || (stored.len() == n + 1 && finished) {
                    n + 1
                } else {
                    n + 2
                };
                stored.len() == whole && stored[..n] == *acked && stored[n] == (row, col, player)
            }
            Some(Pending::Undo) => {
                let taken = if self.ai { 2 } else { 1 };
                n >= taken && stored == &acked[..n - taken]
            }
        }
    }
}

type Books = Arc<Mutex<HashMap<String, Book>>>;

/// Writes without pause until the server dies under it; the number of acknowledged writes.
async fn crash_client(api: Api, token: String, books: Books, seed: u64) -> u64 {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut acked = 0;
    let mut current: Option<Value> = None;
    loop {
        let state = match current.take() {
            Some(state) if state["status"] == "playing" => state,
            _ => {
                let rule = ["freestyle", "standard", "renju"][rng.gen_range(0..3)];
                let size = [9, 11, 15, 19][rng.gen_range(0..4)];
                let mut settings = json!({"mode": "local", "rule": rule, "boardSize": size});
                if rng.gen_range(0..4) == 0 {
                    settings["mode"] = json!("ai");
                    settings["ai"] = json!({"level": "easy", "player": rng.gen_range(1..=2)});
                }
                match api
                    .send(Method::POST, "/api/v1/games", Some(&token), Some(&settings))
                    .await
                {
                    Err(_) => return acked,
                    Ok((StatusCode::CREATED, body)) => {
                        acked += 1;
                        let id = body["id"].as_str().unwrap().to_string();
                        let book = Book {
                            ai: body["mode"] == "ai",
                            acked: moves_of(&body),
                            acked_status: "playing".into(),
                            pending: None,
                        };
                        books.lock().unwrap().insert(id, book);
                        body
                    }
                    Ok((status, body)) => {
                        api.stats
                            .violation(format!("create answered {status}: {body}"));
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                }
            }
        };
        let id = state["id"].as_str().unwrap().to_string();
        let count = state["moveCount"].as_i64().unwrap();
        let mover = state["currentPlayer"].as_i64().unwrap_or(1);
        // In an AI game there is something to undo once the human has moved.
        let can_undo = moves_of(&state).iter().any(|m| m.2 == mover);
        let roll = rng.gen_range(0..100);
        let (op, path, body) = if roll < 6 && can_undo {
            (Pending::Undo, format!("/api/v1/games/{id}/undo"), json!({}))
        } else if roll < 8 {
            (
                Pending::Resign,
                format!("/api/v1/games/{id}/resign"),
                json!({}),
            )
        } else {
            let cells = empty_cells(&state);
            let (row, col) = cells[rng.gen_range(0..cells.len())];
            (
                Pending::Move(row, col, mover),
                format!("/api/v1/games/{id}/moves"),
                json!({"row": row, "col": col, "ply": count}),
            )
        };
        books.lock().unwrap().get_mut(&id).unwrap().pending = Some(op);
        match api
            .send(Method::POST, &path, Some(&token), Some(&body))
            .await
        {
            Err(_) => return acked,
            Ok((StatusCode::OK, answer)) => {
                acked += 1;
                let mut books = books.lock().unwrap();
                let book = books.get_mut(&id).unwrap();
                book.acked = moves_of(&answer);
                book.acked_status = answer["status"].as_str().unwrap_or("").to_string();
                book.pending = None;
                current = Some(answer);
            }
            Ok((status, answer)) => {
                // Not acknowledged, so nothing was applied: the book stays as it was.
                api.stats
                    .violation(format!("{path} {body} answered {status}: {answer}"));
                books.lock().unwrap().get_mut(&id).unwrap().pending = None;
                current = None;
            }
        }
    }
}

/// After a restart: every game of every client against its book. Returns the acknowledged moves
/// missing; rebases the books on what is stored.
async fn verify_after_crash(
    api: &Api,
    db: &mut SqliteConnection,
    tokens: &[String],
    books: &[Books],
    round: usize,
) -> u64 {
    let mut lost = 0;
    for (token, books) in tokens.iter().zip(books) {
        let mut expected = books.lock().unwrap().clone();
        for id in api.all_games(token).await {
            let (status, state) = api
                .call(
                    Method::GET,
                    &format!("/api/v1/games/{id}"),
                    Some(token),
                    None,
                )
                .await;
            if status != StatusCode::OK {
                api.stats
                    .violation(format!("round {round}: GET game {id} answered {status}"));
                continue;
            }
            if let Err(e) = check_state(&state) {
                api.stats.violation(format!("round {round}: {e}"));
            }
            if let Err(e) = check_stored(db, &state).await {
                api.stats.violation(format!("round {round}: {e}"));
            }
            let stored = moves_of(&state);
            if let Some(book) = expected.remove(&id) {
                if !book.allows(&stored, state["status"] != "playing") {
                    let kept = stored
                        .iter()
                        .zip(&book.acked)
                        .take_while(|(a, b)| a == b)
                        .count();
                    // An undo in flight may rightly have taken back the last one or two moves.
                    let undo_allowance = match book.pending {
                        Some(Pending::Undo) if book.ai => 2,
                        Some(Pending::Undo) => 1,
                        _ => 0,
                    };
                    lost += (book.acked.len() - kept).saturating_sub(undo_allowance) as u64;
                    api.stats.violation(format!("round {round}, game {id}: stored {stored:?}, acknowledged {:?}, in flight {:?}", book.acked, book.pending));
                } else if stored == book.acked
                    && !matches!(book.pending, Some(Pending::Resign))
                    && state["status"] != book.acked_status.as_str()
                {
                    api.stats.violation(format!(
                        "round {round}, game {id}: status {} but {} was acknowledged",
                        state["status"], book.acked_status
                    ));
                }
            }
            if let Some(book) = books.lock().unwrap().get_mut(&id) {
                book.acked = stored;
                book.acked_status = state["status"].as_str().unwrap_or("").to_string();
                book.pending = None;
            }
        }
        for (id, book) in expected {
            lost += book.acked.len() as u64;
            api.stats
                .violation(format!("round {round}: acknowledged game {id} is gone"));
        }
    }
    lost
}

async fn run_crash(bin: &Path, args: &CrashArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let stats = Arc::new(Stats::default());
    let scratch = Scratch::new("crash");
    let (db_path, log) = (scratch.0.join("crash.db"), scratch.0.join("server.log"));
    let flags: Vec<String> = [
        "--write-rate-limit",
        "0",
        "--max-unfinished-games",
        "1000000",
        "--synchronous",
        &args.synchronous,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut server = Server::start(bin, &db_path, &log, &flags);
    let api = Api::new(&server.base, &stats);
    let mut tokens = Vec::new();
    for _ in 0..args.clients {
        tokens.push(api.session().await);
    }
    let books: Vec<Books> = (0..args.clients)
        .map(|_| Arc::new(Mutex::new(HashMap::new())))
        .collect();
    let (mut acked, mut lost, mut integrity_failures, mut kills) = (0u64, 0u64, 0u64, 0u64);
    let started = Instant::now();
    for round in 1..=args.rounds {
        let api = Api::new(&server.base, &stats);
        let clients: Vec<_> = (0..args.clients)
            .map(|i| {
                tokio::spawn(crash_client(
                    api.clone(),
                    tokens[i].clone(),
                    books[i].clone(),
                    rng.gen(),
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(
            rng.gen_range(args.min_ms..=args.max_ms.max(args.min_ms)),
        ))
        .await;
        server.kill();
        kills += 1;
        let mut round_acked = 0;
        for client in clients {
            round_acked += client.await.unwrap_or(0);
        }
        acked += round_acked;

        let mut db = open_db(&db_path).await;
        let integrity: String = sqlx::query_scalar("pragma integrity_check")
            .fetch_one(&mut db)
            .await
            .unwrap_or_else(|e| e.to_string());
        let orphans = sqlx::query("pragma foreign_key_check")
            .fetch_all(&mut db)
            .await
            .map(|r| r.len())
            .unwrap_or(usize::MAX);
        if integrity != "ok" || orphans != 0 {
            integrity_failures += 1;
            stats.violation(format!(
                "round {round}: integrity_check {integrity}, {orphans} foreign key violations"
            ));
        }
        server = Server::start(bin, &db_path, &log, &flags);
        let api = Api::new(&server.base, &stats);
        let round_lost = verify_after_crash(&api, &mut db, &tokens, &books, round).await;
        lost += round_lost;
        println!("crash round {round}: {round_acked} writes acknowledged, killed, restarted, {round_lost} acknowledged moves lost");
    }
    let games: usize = books.iter().map(|b| b.lock().unwrap().len()).sum();
    let summary = format!(
        "crash: {kills} SIGKILLs survived in {:.0} s, {} clients, {acked} writes acknowledged over {games} games, {lost} acknowledged moves lost, {integrity_failures} integrity failures, synchronous={}",
        started.elapsed().as_secs_f64(),
        args.clients,
        args.synchronous
    );
    (stats, summary)
}

// ---------------------------------------------------------------------------------------------
// race
// ---------------------------------------------------------------------------------------------

async fn race(api: &Api, token: &str, id: &str, bodies: Vec<Value>) -> Vec<(StatusCode, Value)> {
    let barrier = Arc::new(tokio::sync::Barrier::new(bodies.len()));
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let (api, token, path, barrier) = (
                api.clone(),
                token.to_string(),
                format!("/api/v1/games/{id}/moves"),
                barrier.clone(),
            );
            tokio::spawn(async move {
                barrier.wait().await;
                api.call(Method::POST, &path, Some(&token), Some(&body))
                    .await
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.expect("race task"));
    }
    answers
}

async fn run_race(bin: &Path, args: &RaceArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let stats = Arc::new(Stats::default());
    let scratch = Scratch::new("race");
    let (db_path, log) = (scratch.0.join("race.db"), scratch.0.join("server.log"));
    let flags: Vec<String> = [
        "--write-rate-limit",
        "0",
        "--max-unfinished-games",
        "1000000",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let server = Server::start(bin, &db_path, &log, &flags);
    let api = Api::new(&server.base, &stats);
    let mut db = open_db(&db_path).await;
    let token = api.session().await;
    let mut races = 0;
    for round in 0..args.rounds {
        let game = api
            .new_game(&token, &json!({"mode": "local", "boardSize": 19}))
            .await;
        let id = game["id"].as_str().unwrap().to_string();
        let mut state = game;
        // A few setup moves on the top row, so the races happen at varied plies.
        for ply in 0..rng.gen_range(0..6) {
            let (_, s) = api
                .call(
                    Method::POST,
                    &format!("/api/v1/games/{id}/moves"),
                    Some(&token),
                    Some(&json!({"row": 0, "col": 2 * ply, "ply": ply})),
                )
                .await;
            state = s;
        }
        let ply = state["moveCount"].as_i64().unwrap();
        let mut cells = empty_cells(&state);
        cells.retain(|&(r, _)| r > 1);
        let mut picks = Vec::new();
        while picks.len() < 32 {
            let cell = cells.swap_remove(rng.gen_range(0..cells.len()));
            picks.push(cell);
        }
        // Different cells, one ply: one 200, 31 PLY_MISMATCH.
        let answers = race(
            &api,
            &token,
            &id,
            picks
                .iter()
                .map(|&(r, c)| json!({"row": r, "col": c, "ply": ply}))
                .collect(),
        )
        .await;
        let ok = answers.iter().filter(|a| a.0 == StatusCode::OK).count();
        let clean = answers
            .iter()
            .filter(|a| a.0 == StatusCode::CONFLICT && code(&a.1) == "PLY_MISMATCH")
            .count();
        if ok != 1 || clean != 31 {
            stats.violation(format!(
                "round {round}: different cells at ply {ply}: {ok} landed, {clean} clean 409s"
            ));
        }
        // One cell, no ply: one 200, 31 CELL_OCCUPIED.
        let (r, c) = cells.swap_remove(rng.gen_range(0..cells.len()));
        let answers = race(&api, &token, &id, vec![json!({"row": r, "col": c}); 32]).await;
        let ok = answers.iter().filter(|a| a.0 == StatusCode::OK).count();
        let clean = answers
            .iter()
            .filter(|a| a.0 == StatusCode::CONFLICT && code(&a.1) == "CELL_OCCUPIED")
            .count();
        if ok != 1 || clean != 31 {
            stats.violation(format!(
                "round {round}: one cell without ply: {ok} landed, {clean} clean 409s"
            ));
        }
        // One cell, one ply: retries, all 200, applied once.
        let (r, c) = cells.swap_remove(rng.gen_range(0..cells.len()));
        let answers = race(
            &api,
            &token,
            &id,
            vec![json!({"row": r, "col": c, "ply": ply + 2}); 32],
        )
        .await;
        let ok = answers.iter().filter(|a| a.0 == StatusCode::OK).count();
        if ok != 32 {
            stats.violation(format!(
                "round {round}: retries of one move: {ok} of 32 answered 200"
            ));
        }
        races += 3;
        let (_, state) = api
            .call(
                Method::GET,
                &format!("/api/v1/games/{id}"),
                Some(&token),
                None,
            )
            .await;
        if state["moveCount"].as_i64() != Some(ply + 3) {
            stats.violation(format!(
                "round {round}: {} moves stored after three races from ply {ply}",
                state["moveCount"]
            ));
        }
        for check in [check_state(&state), check_stored(&mut db, &state).await] {
            if let Err(e) = check {
                stats.violation(format!("round {round}: {e}"));
            }
        }
    }
    (
        stats,
        format!("race: {races} races of 32 concurrent requests"),
    )
}

// ---------------------------------------------------------------------------------------------
// ai-load
// ---------------------------------------------------------------------------------------------

/// Keeps asking a master-level AI for replies until `until`; how long each reply took (queueing
/// for an AI slot included).
/// `in_flight` counts the AI moves sent and not yet answered, over all AI clients.
async fn ai_client(
    api: Api,
    token: String,
    until: Instant,
    seed: u64,
    in_flight: Arc<AtomicU64>,
) -> Vec<Duration> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut replies = Vec::new();
    let mut state = Value::Null;
    while Instant::now() < until {
        if state["status"] != "playing" || state["moveCount"].as_u64().unwrap_or(0) > 30 {
            let (status, body) = api
                .call(
                    Method::POST,
                    "/api/v1/games",
                    Some(&token),
                    Some(&json!({"mode": "ai", "ai": {"level": "master", "player": 2}})),
                )
                .await;
            if status != StatusCode::CREATED {
                api.stats
                    .violation(format!("AI game create answered {status}: {body}"));
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            state = body;
        }
        let id = state["id"].as_str().unwrap().to_string();
        let ply = state["moveCount"].as_i64().unwrap();
        // Near the centre, where the AI has something to think about.
        let cells: Vec<_> = empty_cells(&state)
            .into_iter()
            .filter(|&(r, c)| (4..=10).contains(&r) && (4..=10).contains(&c))
            .collect();
        let Some(&(row, col)) = cells.get(rng.gen_range(0..cells.len().max(1))) else {
            state = Value::Null;
            continue;
        };
        in_flight.fetch_add(1, Ordering::Relaxed);
        let asked = Instant::now();
        let (status, body) = api
            .call(
                Method::POST,
                &format!("/api/v1/games/{id}/moves"),
                Some(&token),
                Some(&json!({"row": row, "col": col, "ply": ply})),
            )
            .await;
        in_flight.fetch_sub(1, Ordering::Relaxed);
        match status {
            StatusCode::OK => {
                replies.push(asked.elapsed());
                state = body;
            }
            StatusCode::SERVICE_UNAVAILABLE if code(&body) == "AI_BUSY" => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            _ => {
                api.stats
                    .violation(format!("AI move answered {status}: {body}"));
                state = Value::Null;
            }
        }
    }
    replies
}

/// Reads (`write == false`) or plays local moves in its own local game until `until`, pausing
/// `pause` between requests; the latencies of the requests made after `measure_from`.
async fn latency_client(
    api: Api,
    token: String,
    write: bool,
    measure_from: Instant,
    until: Instant,
    pause: Duration,
    seed: u64,
) -> Vec<Duration> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut samples = Vec::new();
    let mut state = api
        .new_game(&token, &json!({"mode": "local", "boardSize": 19}))
        .await;
    while Instant::now() < until {
        let id = state["id"].as_str().unwrap().to_string();
        let started = Instant::now();
        let (status, body) = if write {
            let ply = state["moveCount"].as_i64().unwrap();
            let cells = empty_cells(&state);
            let (row, col) = cells[rng.gen_range(0..cells.len())];
            api.call(
                Method::POST,
                &format!("/api/v1/games/{id}/moves"),
                Some(&token),
                Some(&json!({"row": row, "col": col, "ply": ply})),
            )
            .await
        } else {
            api.call(
                Method::GET,
                &format!("/api/v1/games/{id}"),
                Some(&token),
                None,
            )
            .await
        };
        let took = started.elapsed();
        if status != StatusCode::OK {
            api.stats.violation(format!(
                "{} answered {status}: {body}",
                if write { "local move" } else { "read" }
            ));
        } else if started >= measure_from {
            samples.push(took);
        }
        if write && (body["status"] != "playing" || body["moveCount"].as_u64().unwrap_or(0) >= 150)
        {
            state = api
                .new_game(&token, &json!({"mode": "local", "boardSize": 19}))
                .await;
        } else if status == StatusCode::OK && write {
            state = body;
        }
        tokio::time::sleep(pause).await;
    }
    samples
}

/// Runs readers and local movers for `window` (after a short warm-up), with `ai_clients` master
/// AI players busy in the background (none for the baseline); the figures as a line.
async fn measure(
    api: &Api,
    args: &AiLoadArgs,
    ai_clients: usize,
    window: Duration,
    rng: &mut StdRng,
) -> (String, f64, f64, u64) {
    let warmup = Duration::from_millis(if ai_clients > 0 {
        2 * args.master_ms + 500
    } else {
        500
    });
    let now = Instant::now();
    let (measure_from, until) = (now + warmup, now + warmup + window);
    let in_flight = Arc::new(AtomicU64::new(0));
    let mut ai = Vec::new();
    for _ in 0..ai_clients {
        ai.push(tokio::spawn(ai_client(
            api.clone(),
            api.session().await,
            until,
            rng.gen(),
            in_flight.clone(),
        )));
    }
    // Samples how many AI moves wait or run at the server during the measured window: when that
    // never drops below the AI cap, the cap was saturated throughout.
    let sampler = {
        let in_flight = in_flight.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(measure_from.into()).await;
            let mut samples = Vec::new();
            while Instant::now() < until {
                samples.push(in_flight.load(Ordering::Relaxed));
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            samples
        })
    };
    let mut readers = Vec::new();
    let mut movers = Vec::new();
    let pause = Duration::from_millis(args.pause_ms);
    for _ in 0..args.readers {
        readers.push(tokio::spawn(latency_client(
            api.clone(),
            api.session().await,
            false,
            measure_from,
            until,
            pause,
            rng.gen(),
        )));
    }
    for _ in 0..args.movers {
        movers.push(tokio::spawn(latency_client(
            api.clone(),
            api.session().await,
            true,
            measure_from,
            until,
            pause,
            rng.gen(),
        )));
    }
    let (mut reads, mut moves) = (Vec::new(), Vec::new());
    for r in readers {
        reads.extend(r.await.unwrap());
    }
    for m in movers {
        moves.extend(m.await.unwrap());
    }
    let mut replies = Vec::new();
    for a in ai {
        replies.extend(a.await.unwrap());
    }
    let (r50, r99, rmax) = percentiles(&mut reads);
    let (m50, m99, mmax) = percentiles(&mut moves);
    let mut line = format!(
        "reads n={} p50 {r50:.1} ms p99 {r99:.1} ms max {rmax:.1} ms; local moves n={} p50 {m50:.1} ms p99 {m99:.1} ms max {mmax:.1} ms",
        reads.len(),
        moves.len()
    );
    let samples = sampler.await.unwrap();
    if ai_clients > 0 && !samples.is_empty() {
        let mean = samples.iter().sum::<u64>() as f64 / samples.len() as f64;
        let min = samples.iter().min().unwrap();
        line.push_str(&format!(
            "; AI moves outstanding during the window: min {min}, mean {mean:.1}"
        ));
        let (a50, a99, amax) = percentiles(&mut replies);
        line.push_str(&format!(
            "; AI replies n={} p50 {a50:.0} ms p99 {a99:.0} ms max {amax:.0} ms (queueing included)",
            replies.len()
        ));
    }
    (line, r99, m99, replies.len() as u64)
}

async fn run_ai_load(bin: &Path, args: &AiLoadArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let stats = Arc::new(Stats::default());
    let scratch = Scratch::new("ai");
    let (db_path, log) = (scratch.0.join("ai.db"), scratch.0.join("server.log"));
    let mut flags: Vec<String> = vec![
        "--write-rate-limit".into(),
        "0".into(),
        "--max-unfinished-games".into(),
        "1000000".into(),
        "--ai-master-ms".into(),
        args.master_ms.to_string(),
    ];
    if let Some(cap) = args.ai_concurrency {
        flags.extend(["--ai-concurrency".to_string(), cap.to_string()]);
    }
    let server = Server::start(bin, &db_path, &log, &flags);
    let api = Api::new(&server.base, &stats);

    let (baseline, _, _, _) = measure(&api, args, 0, Duration::from_secs(5), rng).await;
    println!("ai-load baseline (no AI games, 5 s): {baseline}");
    let window = Duration::from_secs(args.duration_s);
    let (loaded, r99, m99, replies) = measure(&api, args, args.ai_clients, window, rng).await;
    let cap = args
        .ai_concurrency
        .map_or("server default".to_string(), |c| c.to_string());
    println!(
        "ai-load saturated ({} master clients, AI cap {cap}, master budget {} ms, {} s): {loaded}",
        args.ai_clients, args.master_ms, args.duration_s
    );
    println!(
        "ai-load: {replies} master AI replies ({:.2}/s), {} AI_BUSY answers",
        replies as f64 / (window.as_secs_f64() + 2.0 * args.master_ms as f64 / 1000.0),
        count(&stats.ai_busy)
    );
    let verdict = if r99 < 50.0 && m99 < 50.0 {
        "under"
    } else {
        "OVER"
    };
    let summary = format!("ai-load: with the AI cap saturated, read p99 {r99:.1} ms, local-move p99 {m99:.1} ms ({verdict} the 50 ms target)");
    (stats, summary)
}

// ---------------------------------------------------------------------------------------------
// import-fuzz
// ---------------------------------------------------------------------------------------------

/// A generated record and what the importer must answer: the legal game, or the move to blame
/// (None when the record as a whole is bad).
fn generate_record(rng: &mut StdRng) -> (Value, Result<Game, Option<usize>>) {
    let rules = [Rule::Freestyle, Rule::Standard, Rule::Renju];
    let (size, rule) = (rng.gen_range(9..=19), rules[rng.gen_range(0..3)]);
    let mut game = Game::new(size, rule).unwrap();
    let target = rng.gen_range(0..=size * size);
    // Random play, with black sometimes building a line so that games also end.
    let mut attempts = 0;
    while game.moves().len() < target && !game.is_over() && attempts < 20_000 {
        attempts += 1;
        let p = match game.last_move() {
            Some(last) if rng.gen_bool(0.3) => {
                let (dr, dc) = [(0, 1), (1, 0), (1, 1), (1, -1)][rng.gen_range(0..4)];
                last.point
                    .offset((dr, dc), rng.gen_range(-2..=2), size)
                    .unwrap_or(last.point)
            }
            _ => Point::new(rng.gen_range(0..size), rng.gen_range(0..size)),
        };
        let _ = game.play(p);
    }
    let mut moves: Vec<(i64, i64, i64)> = game
        .moves()
        .iter()
        .map(|m| {
            (
                m.point.row as i64,
                m.point.col as i64,
                m.stone.as_u8() as i64,
            )
        })
        .collect();
    let (mut version, mut board_size, mut rule_name) =
        (json!("gomoku-1.0"), json!(size), json!(rule.as_str()));
    let n = moves.len();
    let blame = match rng.gen_range(0..10) {
        0 if n >= 2 => {
            let i = rng.gen_range(1..n);
            let j = rng.gen_range(0..i);
            (moves[i].0, moves[i].1) = (moves[j].0, moves[j].1);
            Some(Some(i))
        }
        1 if n >= 1 => {
            let i = rng.gen_range(0..n);
            moves[i].0 = [-1, size as i64, 1 << 40, i64::MIN][rng.gen_range(0..4)];
            Some(Some(i))
        }
        2 if n >= 1 => {
            let i = rng.gen_range(0..n);
            moves[i].2 = [0, 3, 3 - moves[i].2][rng.gen_range(0..3)];
            Some(Some(i))
        }
        3 if game.is_over() && !game.board().is_full() => {
            let empty = game
                .board()
                .points()
                .find(|&p| game.board().get(p).is_none())
                .unwrap();
            moves.push((empty.row as i64, empty.col as i64, 1 + (n % 2) as i64));
            Some(Some(n))
        }
        4 => {
            version = json!(["gomoku-0.9", "", "gomoku-1.0 ", "1.0"][rng.gen_range(0..4)]);
            Some(None)
        }
        5 => {
            board_size = json!([0, 8, 20, 25, -1, 1_000_000_000][rng.gen_range(0..6)]);
            Some(None)
        }
        6 => {
            rule_name = json!(["gomoku", "RENJU", ""][rng.gen_range(0..3)]);
            Some(None)
        }
        _ => None,
    };
    let moves: Vec<Value> = moves
        .iter()
        .map(|&(row, col, player)| json!({"row": row, "col": col, "player": player}))
        .collect();
    let record = json!({"version": version, "rule": rule_name, "boardSize": board_size, "moves": moves, "mode": "ai", "result": {"status": "draw"}});
    (record, blame.map_or(Ok(game), Err))
}

/// Changes one to three bytes of `bytes` (replace, insert or delete).
fn mangle(bytes: &mut Vec<u8>, rng: &mut StdRng) {
    const INTERESTING: &[u8] = b"{}[]\",:-0123456789.eE nulltruefalse\\\x00\xff";
    for _ in 0..rng.gen_range(1..=3) {
        if bytes.is_empty() {
            bytes.push(b'{');
        }
        let at = rng.gen_range(0..bytes.len());
        let byte = if rng.gen_bool(0.7) {
            INTERESTING[rng.gen_range(0..INTERESTING.len())]
        } else {
            rng.gen()
        };
        match rng.gen_range(0..3) {
            0 => bytes[at] = byte,
            1 => bytes.insert(at, byte),
            _ => {
                bytes.remove(at);
            }
        }
    }
}

async fn run_import_fuzz(bin: &Path, args: &ImportArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let stats = Arc::new(Stats::default());
    let scratch = Scratch::new("import");
    let (db_path, log) = (scratch.0.join("import.db"), scratch.0.join("server.log"));
    let flags: Vec<String> = [
        "--write-rate-limit",
        "0",
        "--max-unfinished-games",
        "100000000",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let server = Server::start(bin, &db_path, &log, &flags);
    let api = Api::new(&server.base, &stats);
    let token = api.session().await;
    let (mut accepted, mut rejected, mut mangled) = (0, 0, 0);
    for case in 0..args.cases {
        let (record, expected) = generate_record(rng);
        if case % 2 == 1 {
            // Byte-mangled: any documented answer but a 5xx; if accepted, a consistent game.
            mangled += 1;
            let mut bytes = record.to_string().into_bytes();
            mangle(&mut bytes, rng);
            let (status, body) = api
                .send_raw(
                    Method::POST,
                    "/api/v1/games/import",
                    Some(&token),
                    Some("application/json"),
                    Some(bytes.clone()),
                )
                .await
                .expect("import");
            match (status.as_u16(), code(&body)) {
                (201, _) => {
                    accepted += 1;
                    if let Err(e) = check_state(&body) {
                        stats.violation(format!(
                            "mangled record accepted as an inconsistent game: {e}; record {}",
                            String::from_utf8_lossy(&bytes)
                        ));
                    }
                }
                (400, "INVALID_JSON") | (422, "INVALID_RECORD") => rejected += 1,
                (status, code) => stats.violation(format!(
                    "mangled record answered {status} {code}: {}",
                    String::from_utf8_lossy(&bytes)
                )),
            }
            continue;
        }
        let (status, body) = api
            .call(
                Method::POST,
                "/api/v1/games/import",
                Some(&token),
                Some(&record),
            )
            .await;
        match expected {
            Ok(game) => {
                if status != StatusCode::CREATED {
                    stats.violation(format!(
                        "legal record answered {status}: {body}; record {record}"
                    ));
                    continue;
                }
                accepted += 1;
                let want: Vec<(i64, i64, i64)> = game
                    .moves()
                    .iter()
                    .map(|m| {
                        (
                            m.point.row as i64,
                            m.point.col as i64,
                            m.stone.as_u8() as i64,
                        )
                    })
                    .collect();
                let (status_name, _, _) = judged(&game);
                if moves_of(&body) != want
                    || body["status"] != status_name
                    || body["mode"] != "local"
                {
                    stats.violation(format!(
                        "legal record imported as something else: {body}; record {record}"
                    ));
                }
            }
            Err(blame) => {
                if (status, code(&body)) != (StatusCode::UNPROCESSABLE_ENTITY, "INVALID_RECORD") {
                    stats.violation(format!(
                        "bad record answered {status}: {body}; record {record}"
                    ));
                    continue;
                }
                rejected += 1;
                if let Some(index) = blame {
                    if body["error"]["moveIndex"] != json!(index) {
                        stats.violation(format!(
                            "bad record blamed {} instead of move {index}: {record}",
                            body["error"]["moveIndex"]
                        ));
                    }
                }
            }
        }
    }
    (stats, format!("import-fuzz: {} records ({mangled} byte-mangled): {accepted} accepted, {rejected} rejected", args.cases))
}

// ---------------------------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------------------------

fn report(summary: &str, stats: &Stats) -> bool {
    let (requests, errors, violations) = (
        count(&stats.requests),
        count(&stats.server_errors),
        count(&stats.violations),
    );
    println!("{summary}; {requests} requests sent, {errors} 5xx (besides {} AI_BUSY), {violations} violations", count(&stats.ai_busy));
    errors == 0 && violations == 0
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let bin = cli.server_bin.clone().unwrap_or_else(|| {
        std::env::current_exe()
            .expect("own path")
            .with_file_name("gomoku-server")
    });
    if !bin.exists() {
        eprintln!("no server binary at {}: build it (`cargo build --release --bins`) or pass --server-bin", bin.display());
        std::process::exit(2);
    }
    let seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    });
    println!("gomoku-stress: seed {seed}, server {}", bin.display());
    let mut rng = StdRng::seed_from_u64(seed);

    let runs: Vec<Run> = match cli.command {
        Run::All => vec![
            Run::Race(RaceArgs { rounds: 50 }),
            Run::ImportFuzz(ImportArgs { cases: 5000 }),
            Run::Crash(CrashArgs {
                rounds: 10,
                clients: 8,
                min_ms: 500,
                max_ms: 4000,
                synchronous: "full".into(),
            }),
            Run::AiLoad(AiLoadArgs {
                duration_s: 30,
                ai_concurrency: None,
                master_ms: 1000,
                ai_clients: 8,
                readers: 4,
                movers: 4,
                pause_ms: 10,
            }),
        ],
        run => vec![run],
    };
    let (mut all_ok, mut requests, mut errors) = (true, 0, 0);
    for run in runs {
        let (stats, summary) = match &run {
            Run::Crash(args) => run_crash(&bin, args, &mut rng).await,
            Run::Race(args) => run_race(&bin, args, &mut rng).await,
            Run::AiLoad(args) => run_ai_load(&bin, args, &mut rng).await,
            Run::ImportFuzz(args) => run_import_fuzz(&bin, args, &mut rng).await,
            Run::All => unreachable!("expanded above"),
        };
        all_ok &= report(&summary, &stats);
        requests += count(&stats.requests);
        errors += count(&stats.server_errors);
    }
    println!(
        "stress: {} ({requests} requests, {errors} 5xx)",
        if all_ok { "passed" } else { "FAILED" }
    );
    if !all_ok {
        std::process::exit(1);
    }
}
