//! Moves through the HTTP API against the raw SQLite commit rate (issue 2).
//!
//! Two measurements in one run, both on a temporary file at the default durability (WAL,
//! `synchronous=FULL`):
//! - HTTP: the release `gomoku-server` binary, and 16 concurrent clients, each a player of its
//!   own playing moves in its own local-mode game (a new game when one ends), for a fixed
//!   number of moves. Every move is timed from request to parsed response.
//! - Raw: the same one-move transaction the service needs (insert into `moves` + update the
//!   `games` row, in one transaction) through sqlx on a second file with the same migrations.
//!   It runs on a single connection: SQLite lets one writer commit at a time, so 16 writers
//!   would only add lock waits (SQLite's busy handler sleeps between retries) to the same
//!   serial stream of fsyncs; one connection committing back to back is the ceiling any server
//!   that commits each move on its own can reach, which makes the ratio a fair (conservative)
//!   measure of the server's overhead.
//!
//! The disk's fsync rate drifts on a shared machine, so the two alternate in rounds (raw, HTTP,
//! raw, HTTP, …) and the totals are compared, rather than one long run of each. Both sides are
//! warmed up first, and each HTTP round starts fresh games.
//!
//! Run with `cargo bench --bench http_moves`. `BENCH_MOVES` (default 10800: a whole game per
//! client per round), `BENCH_RAW_COMMITS` (default 3000), `BENCH_ROUNDS` (default 3) and
//! `BENCH_CLIENTS` (default 16) change the counts.

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gomoku_testkit::lines::brick_fill;
use gomoku_testkit::{env_count, gomoku_server, percentile, Database, Player, NO_RATE_LIMIT};
use serde_json::json;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, SqliteConnection};

/// Concurrent HTTP clients; `BENCH_CLIENTS` overrides it (e.g. 1, to see one request's floor).
const CLIENTS: usize = 16;
/// Games the raw run spreads its moves over, like the HTTP clients' games.
const RAW_GAMES: usize = 16;
const BOARD: i64 = 15;

fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .expect("format time")
}

/// One HTTP client: a player, its current game and how far into its moves it is. Every game
/// fills the 15×15 board in the order of [`brick_fill`], so neither side makes five; a game may
/// still end early in a draw (no five possible), and the client then starts another.
struct Client {
    player: Player,
    game: Option<String>,
    next: usize,
}

impl Client {
    /// Plays `count` moves; each move's latency.
    async fn play(mut self, count: usize, moves: Arc<Vec<(i64, i64)>>) -> (Client, Vec<Duration>) {
        let mut latencies = Vec::with_capacity(count);
        while latencies.len() < count {
            let game = match &self.game {
                Some(game) if self.next < moves.len() => game.clone(),
                _ => {
                    let state = self.player.create(json!({"mode": "local"})).await;
                    self.next = 0;
                    let id = state["id"].as_str().expect("game id").to_string();
                    self.game = Some(id.clone());
                    id
                }
            };
            let (row, col) = moves[self.next];
            self.next += 1;
            let started = Instant::now();
            let reply = self.player.try_move(&game, row, col).await;
            latencies.push(started.elapsed());
            let state = reply.ok(200, &format!("move ({row},{col})"));
            if state["status"] != "playing" {
                self.game = None;
            }
        }
        (self, latencies)
    }
}

/// All clients play `per_client` moves at once; the elapsed time and every latency.
async fn http_round(
    clients: Vec<Client>,
    per_client: usize,
    moves: &Arc<Vec<(i64, i64)>>,
) -> (Vec<Client>, Duration, Vec<Duration>) {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for mut client in clients {
        // Every round starts new games, so every round has the same mix of early and late moves
        // (a late move costs more: its state carries the whole move history).
        client.game = None;
        tasks.push(tokio::spawn(client.play(per_client, moves.clone())));
    }
    let mut clients = Vec::new();
    let mut latencies = Vec::new();
    for task in tasks {
        let (client, l) = task.await.expect("client");
        clients.push(client);
        latencies.extend(l);
    }
    (clients, started.elapsed(), latencies)
}

/// The raw side: a connection to a migrated file and the next ply of each of its games.
struct Raw {
    conn: SqliteConnection,
    games: Vec<String>,
    plies: [i64; RAW_GAMES],
    next_game: usize,
}

impl Raw {
    async fn open(path: &std::path::Path) -> Raw {
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{}", path.display()))
            .expect("sqlite url")
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let mut conn = options.connect().await.expect("open raw database");
        sqlx::migrate!("./migrations")
            .run(&mut conn)
            .await
            .expect("migrations");
        sqlx::query("insert into players (id, created_at) values ('bench-player', ?)")
            .bind(now())
            .execute(&mut conn)
            .await
            .expect("player");
        let games: Vec<String> = (0..RAW_GAMES).map(|i| format!("bench-game-{i}")).collect();
        for game in &games {
            sqlx::query(
                "insert into games (id, player_id, mode, rule, board_size, created_at, updated_at) \
                 values (?, 'bench-player', 'local', 'freestyle', 15, ?, ?)",
            )
            .bind(game)
            .bind(now())
            .bind(now())
            .execute(&mut conn)
            .await
            .expect("game");
        }
        Raw {
            conn,
            games,
            plies: [0; RAW_GAMES],
            next_game: 0,
        }
    }

    /// Commits `count` one-move transactions back to back; the elapsed time.
    async fn commit(&mut self, count: usize) -> Duration {
        let started = Instant::now();
        for _ in 0..count {
            let g = self.next_game;
            self.next_game = (g + 1) % RAW_GAMES;
            let ply = self.plies[g];
            self.plies[g] += 1;
            let at = now();
            let mut tx = self.conn.begin().await.expect("begin");
            sqlx::query(
                "insert into moves (game_id, ply, row, col, player, played_at) \
                 values (?, ?, ?, ?, ?, ?)",
            )
            .bind(&self.games[g])
            .bind(ply)
            .bind((ply / BOARD) % BOARD)
            .bind(ply % BOARD)
            .bind(1 + ply % 2)
            .bind(&at)
            .execute(&mut *tx)
            .await
            .expect("insert move");
            // Every column a move can change, guarded by the row's version (optimistic update).
            let updated = sqlx::query(
                "update games set status = ?, end_reason = ?, win_line = ?, to_move = ?, \
                 move_count = ?, version = version + 1, updated_at = ?, finished_at = ?, \
                 black_ms = ?, white_ms = ?, deadline = ?, takeback_offer = ?, draw_offer = ? \
                 where id = ? and version = ?",
            )
            .bind("playing")
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(1 + (ply + 1) % 2)
            .bind(ply + 1)
            .bind(&at)
            .bind(None::<String>)
            .bind(None::<i64>)
            .bind(None::<i64>)
            .bind(None::<String>)
            .bind(None::<i64>)
            .bind(None::<i64>)
            .bind(&self.games[g])
            .bind(ply)
            .execute(&mut *tx)
            .await
            .expect("update game");
            assert_eq!(updated.rows_affected(), 1, "the version guard matched");
            tx.commit().await.expect("commit");
        }
        started.elapsed()
    }
}

fn main() {
    // By default one whole game (225 moves) per client per round.
    let moves_total = env_count("BENCH_MOVES", 3 * CLIENTS * 225);
    let commits_total = env_count("BENCH_RAW_COMMITS", 3000);
    let rounds = env_count("BENCH_ROUNDS", 3).max(1);
    let clients_n = env_count("BENCH_CLIENTS", CLIENTS).max(1);
    // The machine may be shared: say how busy it was, since fsync and CPU time both vary.
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average at start: {}", load.trim());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        // A file of its own, in a temporary folder removed at the end.
        let raw_file = Database::temp_sqlite();
        let mut raw = Raw::open(raw_file.sqlite_path()).await;
        // Warm-up until the WAL has been checkpointed and is being reused, as in a server that
        // has run for a while: while the WAL file still grows, every commit costs more.
        raw.commit(1000).await;

        // Default durability; only the per-token write limit is lifted (many moves/s per token),
        // and the per-address session limit, which the harness lifts for every server it starts.
        let server = gomoku_server!().args(NO_RATE_LIMIT).start();
        let moves = Arc::new(brick_fill(BOARD));
        let mut clients = Vec::new();
        for _ in 0..clients_n {
            clients.push(Client {
                player: Player::new(&server).await,
                game: None,
                next: 0,
            });
        }
        let per_client = moves_total.div_ceil(clients_n * rounds);
        // Warm-up, not measured: one round like the others (connections, the server's WAL).
        let (warm, _, _) = http_round(clients, per_client, &moves).await;
        clients = warm;

        let per_round_commits = commits_total.div_ceil(rounds);
        let (mut http_time, mut raw_time) = (Duration::ZERO, Duration::ZERO);
        let mut latencies = Vec::new();
        for round in 1..=rounds {
            let raw_elapsed = raw.commit(per_round_commits).await;
            let (next, elapsed, l) = http_round(clients, per_client, &moves).await;
            clients = next;
            println!(
                "round {round}: raw {:.0} commits/s, http {:.0} moves/s",
                per_round_commits as f64 / raw_elapsed.as_secs_f64(),
                l.len() as f64 / elapsed.as_secs_f64()
            );
            raw_time += raw_elapsed;
            http_time += elapsed;
            latencies.extend(l);
        }
        latencies.sort_unstable();

        let raw_rate = (per_round_commits * rounds) as f64 / raw_time.as_secs_f64();
        let rate = latencies.len() as f64 / http_time.as_secs_f64();
        let ms = |q| percentile(&latencies, q).as_secs_f64() * 1000.0;
        let (p50, p99, max) = (ms(0.50), ms(0.99), ms(1.0));
        println!(
            "raw sqlite: {} one-move transactions on 1 connection, WAL, synchronous=FULL: \
             {raw_rate:.0} commits/s",
            per_round_commits * rounds
        );
        println!(
            "http: {} moves by {clients_n} clients, synchronous=FULL: {rate:.0} moves/s, \
             p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms",
            latencies.len()
        );
        let ratio = rate / raw_rate;
        println!(
            "ratio http moves/s ÷ raw commits/s: {ratio:.2} (target ≥ 0.5: {})",
            if ratio >= 0.5 { "met" } else { "missed" }
        );
        println!(
            "p99 target ≤ 10 ms: {}",
            if p99 <= 10.0 { "met" } else { "missed" }
        );
    });
}
