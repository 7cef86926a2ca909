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
//! `BENCH_ROUNDS` (default 3) and `BENCH_CLIENTS` (default 16) change the counts;
//! `BENCH_SETUPS` picks the setups (a comma-separated list of `sqlite`, `pg1`, `pg2`; all three
//! when unset). The ratio printed beside each setup is to the first setup run.
//!
//! Beside the figures it prints the disk's flush time as `pg_test_fsync` measures it (one 8 kB
//! write and `fdatasync`, PostgreSQL's way of flushing its WAL on Linux) in the folder the
//! cluster lives in: a commit waits for one such flush, however many moves it holds.

use std::time::Duration;

use gomoku_testkit::bench::{bench_moves, play_round, summary, MoveClient};
use gomoku_testkit::postgres::Cluster;
use gomoku_testkit::{env_count, gomoku_server, Database, Player, Server, NO_RATE_LIMIT};

const CLIENTS: usize = 16;
/// The setups, by the names `BENCH_SETUPS` lists.
const SETUPS: [&str; 3] = ["sqlite", "pg1", "pg2"];

/// One setup: its servers and clients, and what its measured rounds added up to.
struct Setup {
    name: &'static str,
    servers: Vec<Server>,
    clients: Vec<MoveClient>,
    elapsed: Duration,
    latencies: Vec<Duration>,
    /// CPU time its measured rounds took: the servers', PostgreSQL's, the bench's own.
    cpu: [Duration; 3],
}

/// CPU time (user and system) process `pid` has used so far; zero if it is gone.
fn cpu_of(pid: &str) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The fields after the command's name (in parentheses, which may hold spaces): utime and
    // stime are the 12th and 13th, in clock ticks.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf only reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Duration::from_secs_f64(ticks as f64 / per_second)
}

/// CPU time used so far by PostgreSQL's processes: the children of `postmaster` and itself, or
/// every process named `postgres` when the postmaster is not known.
fn postgres_cpu(postmaster: Option<&str>) -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    let mut total = Duration::ZERO;
    for entry in entries.flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let ours = match postmaster {
            Some(master) => {
                let parent = stat
                    .rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1).map(str::to_string));
                pid == master || parent.as_deref() == Some(master)
            }
            None => stat.contains("(postgres)"),
        };
        if ours {
            total += cpu_of(&pid);
        }
    }
    total
}

/// The postmaster's pid of the bench's own cluster.
static POSTMASTER: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

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
            servers,
            clients: players,
            elapsed: Duration::ZERO,
            latencies: Vec::new(),
            cpu: [Duration::ZERO; 3],
        }
    }

    /// CPU time used so far: the servers', PostgreSQL's, the bench's own.
    fn cpu_now(&self) -> [Duration; 3] {
        let servers = self
            .servers
            .iter()
            .map(|s| cpu_of(&s.pid().to_string()))
            .sum();
        let postgres = if self.name.starts_with("postgres") {
            postgres_cpu(POSTMASTER.get().and_then(Option::as_deref))
        } else {
            Duration::ZERO
        };
        [servers, postgres, cpu_of("self")]
    }

    /// One round of `per_client` moves per client; counted unless `warm_up`.
    async fn round(&mut self, per_client: usize, warm_up: bool) -> f64 {
        let moves = bench_moves();
        let clients = std::mem::take(&mut self.clients);
        let before = self.cpu_now();
        let (clients, elapsed, latencies) = play_round(clients, per_client, &moves).await;
        let after = self.cpu_now();
        self.clients = clients;
        let rate = latencies.len() as f64 / elapsed.as_secs_f64();
        if !warm_up {
            self.elapsed += elapsed;
            self.latencies.extend(latencies);
            for (total, (a, b)) in self.cpu.iter_mut().zip(after.iter().zip(before)) {
                *total += a.saturating_sub(b);
            }
        }
        rate
    }
}

/// The setups `BENCH_SETUPS` asks for, in the order of [`SETUPS`].
fn chosen() -> Vec<&'static str> {
    let Ok(list) = std::env::var("BENCH_SETUPS") else {
        return SETUPS.to_vec();
    };
    let asked: Vec<&str> = list.split(',').map(str::trim).collect();
    for name in &asked {
        assert!(
            SETUPS.contains(name),
            "BENCH_SETUPS: unknown setup {name:?} (known: {})",
            SETUPS.join(", ")
        );
    }
    SETUPS.into_iter().filter(|s| asked.contains(s)).collect()
}

/// `pg_test_fsync`'s line for `fdatasync` with one 8 kB write, run in `dir`; None when the
/// program is missing or says nothing of it.
fn flush_time(dir: &std::path::Path) -> Option<String> {
    let bin = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|v| v.path().join("bin/pg_test_fsync"))
        .filter(|p| p.exists())
        .max()?;
    let file = dir.join("pg_test_fsync.out");
    let output = std::process::Command::new(bin)
        .args(["-s", "1", "-f"])
        .arg(&file)
        .output()
        .ok()?;
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8_lossy(&output.stdout);
    // The first section is "one 8kB write"; its fdatasync line comes first.
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("fdatasync"))?;
    Some(
        line.split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

fn main() {
    let moves_total = env_count("BENCH_MOVES", 2 * CLIENTS * 225);
    let rounds = env_count("BENCH_ROUNDS", 3).max(1);
    let clients = env_count("BENCH_CLIENTS", CLIENTS).max(1);
    let chosen = chosen();
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average at start: {}", load.trim());
    }
    let postgres = chosen.iter().any(|s| s.starts_with("pg"));
    let own_cluster =
        (postgres && std::env::var("BENCH_POSTGRES").is_err()).then(|| Cluster::start(true));
    let cluster = std::env::var("BENCH_POSTGRES")
        .ok()
        .or_else(|| own_cluster.as_ref().map(|c| c.url().to_string()));
    let postmaster = own_cluster.as_ref().and_then(|c| {
        let pid = std::fs::read_to_string(c.dir().join("cluster/data/postmaster.pid")).ok()?;
        pid.lines().next().map(|l| l.trim().to_string())
    });
    let _ = POSTMASTER.set(postmaster);
    if postgres {
        let dir = own_cluster
            .as_ref()
            .map_or_else(std::env::temp_dir, |c| c.dir().to_path_buf());
        match flush_time(&dir) {
            Some(figure) => println!("pg_test_fsync, one 8 kB write, fdatasync: {figure}"),
            None => println!("pg_test_fsync: not run (PostgreSQL's programs not found)"),
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    runtime.block_on(async {
        let mut databases = Vec::new();
        let mut setups = Vec::new();
        for name in chosen {
            let (title, database, instances) = match name {
                "sqlite" => ("sqlite, 1 server", Database::temp_sqlite(), 1),
                "pg1" => (
                    "postgres, 1 instance",
                    Database::postgres_on(cluster.as_deref().expect("a cluster")),
                    1,
                ),
                _ => (
                    "postgres, 2 instances",
                    Database::postgres_on(cluster.as_deref().expect("a cluster")),
                    2,
                ),
            };
            setups.push(Setup::new(title, &database, instances, clients).await);
            databases.push(database);
        }
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
                "{}: {} moves by {clients} clients: {rate:.0} moves/s ({:.2}× the first), \
                 p50 {p50:.2} ms, p99 {p99:.2} ms, max {max:.2} ms",
                setup.name,
                setup.latencies.len(),
                rate / base
            );
            let per_move = |cpu: Duration| cpu.as_secs_f64() * 1e3 / setup.latencies.len() as f64;
            println!(
                "  CPU per move: server {:.3} ms, postgres {:.3} ms, bench {:.3} ms",
                per_move(setup.cpu[0]),
                per_move(setup.cpu[1]),
                per_move(setup.cpu[2])
            );
        }
        drop(setups);
        drop(databases);
    });
}
