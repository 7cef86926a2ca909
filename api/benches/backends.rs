//! Moves through the HTTP API on each backend (issue 14): SQLite (one server, its single writer
//! and group commit), PostgreSQL with one instance, and PostgreSQL with two instances on one
//! database, every client sending its requests to the two in turn (a load balancer without
//! sticky sessions: an instance mostly finds the game it is asked about changed by the other,
//! so it reads it afresh).
//!
//! Each setup runs the release `gomoku-server` with 16 clients, each a player of its own playing
//! its own local game (as in `http_moves`), every move timed from request to parsed response.
//! The setups take turns in rounds (SQLite, PostgreSQL ×1, PostgreSQL ×2, again…), since a shared
//! machine's speed drifts, and the totals are compared; each is warmed up first.
//!
//! Durability is each backend's default: SQLite `synchronous=FULL`; PostgreSQL `fsync=on`,
//! `synchronous_commit=on`. PostgreSQL is a throwaway durable cluster the bench starts itself
//! (`scripts/pg-cluster.sh start … --durable`) and removes at the end, on the same machine and
//! disk; `BENCH_POSTGRES` names a cluster to use instead (a URL where databases may be created).
//!
//! Run with `cargo bench --bench backends`. `BENCH_MOVES` (moves per setup, default 7200),
//! `BENCH_ROUNDS` (default 3) and `BENCH_CLIENTS` (default 16) change the counts.

use std::time::Duration;

use gomoku_testkit::bench::{bench_moves, play_round, summary, MoveClient};
use gomoku_testkit::postgres::Cluster;
use gomoku_testkit::{env_count, gomoku_server, Database, Player, Server, NO_RATE_LIMIT};

const CLIENTS: usize = 16;

/// One setup: its servers and clients, and what its measured rounds added up to.
struct Setup {
    name: &'static str,
    _servers: Vec<Server>,
    clients: Vec<MoveClient>,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Setup {
    /// `instances` servers on `database`, and `clients` players sending to them in turn.
    async fn new(
        name: &'static str,
        database: &Database,
        instances: usize,
        clients: usize,
    ) -> Setup {
        let servers: Vec<Server> = (0..instances)
            .map(|_| {
                gomoku_server!()
                    .args(NO_RATE_LIMIT)
                    .database(database)
                    .start()
            })
            .collect();
        let all: Vec<&Server> = servers.iter().collect();
        let mut players = Vec::new();
        for _ in 0..clients {
            players.push(MoveClient::new(Player::new(&servers[0]).await, &all));
        }
        Setup {
            name,
            _servers: servers,
            clients: players,
            elapsed: Duration::ZERO,
            latencies: Vec::new(),
        }
    }

    /// One round of `per_client` moves per client; counted unless `warm_up`.
    async fn round(&mut self, per_client: usize, warm_up: bool) -> f64 {
        let moves = bench_moves();
        let clients = std::mem::take(&mut self.clients);
        let (clients, elapsed, latencies) = play_round(clients, per_client, &moves).await;
        self.clients = clients;
        let rate = latencies.len() as f64 / elapsed.as_secs_f64();
        if !warm_up {
            self.elapsed += elapsed;
            self.latencies.extend(latencies);
        }
        rate
    }
}

fn main() {
    let moves_total = env_count("BENCH_MOVES", 2 * CLIENTS * 225);
    let rounds = env_count("BENCH_ROUNDS", 3).max(1);
    let clients = env_count("BENCH_CLIENTS", CLIENTS).max(1);
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average at start: {}", load.trim());
    }
    let own_cluster = std::env::var("BENCH_POSTGRES")
        .is_err()
        .then(|| Cluster::start(true));
    let cluster = std::env::var("BENCH_POSTGRES")
        .ok()
        .or_else(|| own_cluster.as_ref().map(|c| c.url().to_string()))
        .expect("a cluster");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let sqlite = Database::temp_sqlite();
        let (pg_one, pg_two) = (
            Database::postgres_on(&cluster),
            Database::postgres_on(&cluster),
        );
        let mut setups = vec![
            Setup::new("sqlite, 1 server", &sqlite, 1, clients).await,
            Setup::new("postgres, 1 instance", &pg_one, 1, clients).await,
            Setup::new("postgres, 2 instances", &pg_two, 2, clients).await,
        ];
        let per_client = moves_total.div_ceil(clients * rounds);
        for setup in &mut setups {
            setup.round(per_client, true).await;
        }
        for round in 1..=rounds {
            let mut line = format!("round {round}:");
            for setup in &mut setups {
                let rate = setup.round(per_client, false).await;
                line.push_str(&format!(" {} {rate:.0} moves/s;", setup.name));
            }
            println!("{line}");
        }
        let mut base = None;
        for setup in &mut setups {
            let (rate, p50, p99, max) = summary(&mut setup.latencies, setup.elapsed);
            let base = *base.get_or_insert(rate);
            println!(
                "{}: {} moves by {clients} clients: {rate:.0} moves/s ({:.2}× SQLite), \
                 p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms",
                setup.name,
                setup.latencies.len(),
                rate / base
            );
        }
        drop(setups);
    });
}
