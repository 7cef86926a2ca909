//! Live pushes of online games (issue 12): N WebSocket connections to the release
//! `gomoku-server` — N/2 online games with both players connected, plus a few spectators — and
//! every game playing moves at once, in two phases: steady (each game moves once per think
//! time, started at random moments so the moves spread out: a busy evening of play), then flat
//! out (each move as soon as the previous one is pushed: the server's ceiling, with the bench's
//! own clients competing for the same cores).
//!
//! Prints, for each phase:
//! - push latency, p50 and p99: from the HTTP 200 of a move at one player to the push of that
//!   move's state arriving at the other player's socket. The server pushes from the commit hook,
//!   before it answers the mover, so a push may even arrive first: it then counts as zero, and
//!   the run says how often that happened;
//! - moves per second over the play phase, and the HTTP move latency p50/p99;
//! - the server's resident memory per connection: `VmRSS` of `/proc/<pid>/status` before the
//!   sockets connect and once they are all connected and idle (each has had its first state and
//!   presence), divided by their number.
//!
//! Each connection is one file descriptor on both sides, so the bench lifts its own soft limit on
//! open files (the server lifts its own at start); the harness turns the per-address limit on new
//! sessions off, since every client here comes from 127.0.0.1.
//!
//! Run with `cargo bench --bench live`. `BENCH_CONNECTIONS` (default 1000: 500 games),
//! `BENCH_SPECTATORS` (default 10), `BENCH_MOVES_PER_GAME` (default 20 in each phase) and
//! `BENCH_THINK_MS` (default 1000: the steady phase's time between a game's moves) change it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gomoku_testkit::lines::brick_fill;
use gomoku_testkit::live::Received;
use gomoku_testkit::online::start;
use gomoku_testkit::{
    env_count, gomoku_server, percentile, Api, Live, Player, Stats, NO_RATE_LIMIT,
};
use rand::Rng;
use serde_json::json;
use tokio::sync::{mpsc, Semaphore};

/// Setting up (sessions, games, sockets) at most this many at a time.
const SETUP_CONCURRENCY: usize = 64;

/// A socket's messages as they arrive: the version of each state, and when it came.
type Arrivals = mpsc::UnboundedReceiver<(i64, Instant)>;

/// Reads a socket until it closes, passing on each state's version and arrival time.
fn read_states(mut live: Live) -> Arrivals {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            match live.receive(Duration::from_secs(3600)).await {
                Some(Received::Json(message)) => {
                    let arrived = Instant::now();
                    if message["type"] == "state" {
                        let version = message["game"]["version"].as_i64().expect("version");
                        if tx.send((version, arrived)).is_err() {
                            return;
                        }
                    }
                }
                Some(Received::Closed(_)) | None => return,
            }
        }
    });
    rx
}

/// Waits for the state at `version` (or later) on `arrivals`; when it arrived.
async fn arrival_of(arrivals: &mut Arrivals, version: i64) -> Instant {
    loop {
        let (v, at) = tokio::time::timeout(Duration::from_secs(30), arrivals.recv())
            .await
            .expect("a push within 30 s")
            .expect("the socket stays open");
        if v >= version {
            return at;
        }
    }
}

/// One game: its two players, their sockets' arrivals, and the next ply.
struct Table {
    id: String,
    players: [Player; 2],
    arrivals: [Arrivals; 2],
    ply: usize,
}

/// What a game's moves measured.
#[derive(Default)]
struct Measured {
    push: Vec<Duration>,
    http: Vec<Duration>,
    push_first: usize,
}

impl Table {
    /// Plays the next `count` moves, alternating, `think` apart (from a random start within the
    /// first `think`); each move's push latency at the other player.
    async fn play(
        mut self,
        moves: Arc<Vec<(i64, i64)>>,
        count: usize,
        think: Duration,
    ) -> (Table, Measured) {
        let mut measured = Measured::default();
        let first = rand::thread_rng().gen_range(0..=think.as_millis() as u64);
        let mut next = tokio::time::Instant::now() + Duration::from_millis(first);
        for _ in 0..count {
            tokio::time::sleep_until(next).await;
            next += think;
            let ply = self.ply;
            self.ply += 1;
            let (row, col) = moves[ply];
            let (mover, other) = (ply % 2, 1 - ply % 2);
            let sent = Instant::now();
            let state = self.players[mover]
                .play_at(&self.id, row, col, ply as i64)
                .await;
            let answered = Instant::now();
            let version = state["version"].as_i64().expect("version");
            let pushed = arrival_of(&mut self.arrivals[other], version).await;
            // The mover's own socket gets the same push; drain it so it never lags.
            arrival_of(&mut self.arrivals[mover], version).await;
            measured.http.push(answered - sent);
            if pushed < answered {
                measured.push_first += 1;
            }
            measured
                .push
                .push(pushed.saturating_duration_since(answered));
        }
        (self, measured)
    }
}

/// Every game plays `count` moves at once; prints what the phase measured.
async fn phase(
    name: &str,
    tables: Vec<Table>,
    moves: &Arc<Vec<(i64, i64)>>,
    count: usize,
    think: Duration,
) -> Vec<Table> {
    let played = Instant::now();
    let mut tasks = Vec::new();
    for table in tables {
        tasks.push(tokio::spawn(table.play(moves.clone(), count, think)));
    }
    let (mut tables, mut push, mut http, mut push_first) = (Vec::new(), Vec::new(), Vec::new(), 0);
    for task in tasks {
        let (table, measured) = task.await.expect("a game's moves");
        tables.push(table);
        push.extend(measured.push);
        http.extend(measured.http);
        push_first += measured.push_first;
    }
    let elapsed = played.elapsed();
    push.sort();
    http.sort();
    let total = push.len();
    println!(
        "{name}: {total} moves in {:.2}s = {:.0} moves/s; HTTP move p50 {:.1} ms, p99 {:.1} ms",
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64(),
        ms(percentile(&http, 0.5)),
        ms(percentile(&http, 0.99)),
    );
    println!(
        "{name}: push latency (HTTP 200 at the mover -> push at the other player) p50 {:.2} ms, \
         p99 {:.2} ms, max {:.2} ms; {push_first} of {total} pushes arrived before the HTTP \
         answer (counted as 0)",
        ms(percentile(&push, 0.5)),
        ms(percentile(&push, 0.99)),
        ms(push.last().copied().unwrap_or_default()),
    );
    tables
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

#[tokio::main]
async fn main() {
    let connections = env_count("BENCH_CONNECTIONS", 1000).max(2);
    let spectators = env_count("BENCH_SPECTATORS", 10);
    let moves_per_game = env_count("BENCH_MOVES_PER_GAME", 20).clamp(1, 100);
    let games = connections / 2;
    let limit = rlimit::increase_nofile_limit(u64::MAX).expect("raise the open-files limit");
    println!(
        "live: {games} online games, {} player sockets + {spectators} spectators, \
         {moves_per_game} moves a game (open files allowed here: {limit})",
        games * 2
    );

    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let api = Api::new(server.base(), Duration::from_secs(60), Stats::strict());
    let gate = Arc::new(Semaphore::new(SETUP_CONCURRENCY));

    // Players and games.
    let mut tasks = Vec::new();
    for _ in 0..games {
        let (api, gate) = (api.clone(), gate.clone());
        tasks.push(tokio::spawn(async move {
            let _slot = gate.acquire().await.expect("gate");
            let (black, white) = (api.new_player().await, api.new_player().await);
            let (id, _) = start(&black, &white, json!({})).await;
            (id, black, white)
        }));
    }
    let mut seated = Vec::new();
    for task in tasks {
        seated.push(task.await.expect("set up a game"));
    }
    // A token holds at most 8 live connections: each spectator is a player of its own.
    let mut watchers = Vec::new();
    for _ in 0..spectators.min(games) {
        watchers.push(api.new_player().await);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = server.resident_kib().expect("the server's VmRSS");

    // Sockets: both players of every game, and spectators on the first games.
    let connected = Instant::now();
    let mut tasks = Vec::new();
    for (i, (id, black, white)) in seated.into_iter().enumerate() {
        let (gate, watcher) = (gate.clone(), watchers.get(i).cloned());
        tasks.push(tokio::spawn(async move {
            let _slot = gate.acquire().await.expect("gate");
            let mut sockets = Vec::new();
            for player in [&black, &white] {
                let mut live = Live::connect(player, &id).await.expect("connect");
                live.state().await;
                live.presence().await;
                sockets.push(live);
            }
            let spectator = match watcher {
                Some(watcher) => {
                    let mut live = Live::connect(&watcher, &id).await.expect("a spectator");
                    live.state().await;
                    Some(live)
                }
                None => None,
            };
            (id, [black, white], sockets, spectator)
        }));
    }
    let mut tables = Vec::new();
    let mut watching = Vec::new();
    for task in tasks {
        let (id, players, mut sockets, spectator) = task.await.expect("connect a game");
        let white = read_states(sockets.pop().expect("white's socket"));
        let black = read_states(sockets.pop().expect("black's socket"));
        tables.push(Table {
            id,
            players,
            arrivals: [black, white],
            ply: 0,
        });
        watching.extend(spectator.map(read_states));
    }
    let sockets = tables.len() * 2 + watching.len();
    let connect_time = connected.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = server.resident_kib().expect("the server's VmRSS");
    let per_connection = (after.saturating_sub(before)) as f64 / sockets as f64;
    println!(
        "memory: {:.1} MiB before the sockets, {:.1} MiB with {sockets} idle sockets \
         ({:.1}s to connect): {per_connection:.1} KiB per connection",
        mib(before),
        mib(after),
        connect_time.as_secs_f64()
    );

    let moves = Arc::new(brick_fill(15));
    let think = Duration::from_millis(env_count("BENCH_THINK_MS", 1000) as u64);
    let tables = phase("steady", tables, &moves, moves_per_game, think).await;
    phase("flat out", tables, &moves, moves_per_game, Duration::ZERO).await;
    println!(
        "memory after play: {:.1} MiB; targets at 1,000 connections: push p99 <= 25 ms, \
         <= 64 KiB per idle connection",
        mib(server.resident_kib().unwrap_or(0))
    );
    drop(watching);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
