//! `gomoku-stress`: the larger fault, load and fuzz runs of issue 5, against the real
//! `gomoku-server` started on a SQLite file in a temporary folder and bound to 127.0.0.1. One
//! file per run:
//!
//! - `crash` (crash.rs): clients write moves, undos, resignations and new games without pause;
//!   the server is killed with SIGKILL at random moments and restarted on the same file; after
//!   each kill the file's integrity, every acknowledged write and every game's consistency are
//!   checked.
//! - `race` (race.rs): rounds of 32 concurrent requests for one ply (different cells, one cell,
//!   retries).
//! - `ai-load` (ai_load.rs): master-level AI games keep the server's AI cap saturated while other
//!   clients read game states and play local moves; their latency percentiles are measured.
//! - `import-fuzz` (import_fuzz.rs): generated and byte-mangled game records sent to the importer.
//! - `pg-restart` (pg_restart.rs): two instances on PostgreSQL, which is stopped across a flag
//!   fall and started again; how often and how fast both players' sockets get the timeout
//!   (a private throwaway cluster; not part of `all`).
//! - `flood` (flood.rs): thousands of half-sent requests from other loopback addresses while an
//!   honest client plays and watches live; its latency and the server's open files and memory.
//! - `all`: each of the above at its default size.
//!
//! The server harness, the client and the checks come from `gomoku-testkit`, the same ones the
//! integration tests use; here a violation is counted rather than fatal, so one run reports them
//! all. Every run prints its figures and ends with a `stress:` summary line; the exit status is
//! non-zero when an invariant broke (an acknowledged write lost, a 5xx other than a documented
//! AI_BUSY, an inconsistent game, a wrong answer).
//!
//! Build the server and this tool together, e.g. `cargo build --release --bins`, then run
//! `target/release/gomoku-stress all`.

mod ai_load;
mod crash;
mod flood;
mod import_fuzz;
mod pg_restart;
mod race;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use gomoku_testkit::{clock_seed, Api, Server, ServerBinary, Stats};
use rand::rngs::StdRng;
use rand::SeedableRng;

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
    Crash(crash::CrashArgs),
    /// Concurrent requests for one ply.
    Race(race::RaceArgs),
    /// Read and local-move latency while the AI cap is saturated.
    AiLoad(ai_load::AiLoadArgs),
    /// Generated and mangled records through the importer.
    ImportFuzz(import_fuzz::ImportArgs),
    /// A flag fall while PostgreSQL restarts, across two instances.
    PgRestart(pg_restart::PgRestartArgs),
    /// Half-sent requests by the thousand while an honest client plays.
    Flood(flood::FloodArgs),
    /// Every run above at its default size.
    All,
}

/// A master-level search behind a full AI queue may take a while; a minute means a hung server.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(60);

/// Starts `bin` for one run on a fresh database, its log captured, with the write limits lifted
/// (the harness lifts the per-address session limit itself) and `flags` added; and a counting
/// client of it.
pub fn start(bin: &ServerBinary, flags: &[&str]) -> (Server, Api) {
    let server = Server::builder(bin.clone())
        .args([
            "--write-rate-limit",
            "0",
            "--max-unfinished-games",
            "100000000",
        ])
        .args(flags)
        .capture_log()
        .start();
    let api = Api::new(server.base(), CLIENT_TIMEOUT, Stats::counting());
    (server, api)
}

/// Prints a run's summary with its counts; whether the run passed.
fn report(summary: &str, stats: &Stats) -> bool {
    let (errors, violations) = (stats.server_errors(), stats.violations());
    println!(
        "{summary}; {} requests sent, {errors} 5xx (besides {} AI_BUSY), {violations} violations",
        stats.requests(),
        stats.ai_busy()
    );
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
    let seed = cli.seed.unwrap_or_else(clock_seed);
    println!("gomoku-stress: seed {seed}, server {}", bin.display());
    let bin = ServerBinary::at(bin);
    let mut rng = StdRng::seed_from_u64(seed);

    let runs: Vec<Run> = match cli.command {
        // Each run with its defaults, as if named alone on the command line.
        Run::All => ["race", "import-fuzz", "crash", "ai-load", "flood"]
            .map(|run| Cli::parse_from(["gomoku-stress", run]).command)
            .into(),
        run => vec![run],
    };
    let (mut all_ok, mut requests, mut errors) = (true, 0, 0);
    for run in runs {
        let (stats, summary): (Arc<Stats>, String) = match &run {
            Run::Crash(args) => crash::run(&bin, args, &mut rng).await,
            Run::Race(args) => race::run(&bin, args, &mut rng).await,
            Run::AiLoad(args) => ai_load::run(&bin, args, &mut rng).await,
            Run::ImportFuzz(args) => import_fuzz::run(&bin, args, &mut rng).await,
            Run::PgRestart(args) => pg_restart::run(&bin, args, &mut rng).await,
            Run::Flood(args) => flood::run(&bin, args, &mut rng).await,
            Run::All => unreachable!("expanded above"),
        };
        all_ok &= report(&summary, &stats);
        requests += stats.requests();
        errors += stats.server_errors();
    }
    println!(
        "stress: {} ({requests} requests, {errors} 5xx)",
        if all_ok { "passed" } else { "FAILED" }
    );
    if !all_ok {
        std::process::exit(1);
    }
}
