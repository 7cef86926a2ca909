//! `crash`: SIGKILL under sustained writes, many times over, with the crash run the reliability
//! test makes four rounds of (`gomoku_testkit::crash`): more writers, more rounds, every board
//! size, and a choice of `--synchronous`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use gomoku_testkit::crash::CrashRun;
use gomoku_testkit::{ServerBinary, Stats};
use rand::rngs::StdRng;
use rand::Rng;

#[derive(Args, Clone)]
pub struct CrashArgs {
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

pub async fn run(bin: &ServerBinary, args: &CrashArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let (mut server, api) = crate::start(bin, &["--synchronous", &args.synchronous]);
    let mut crashes = CrashRun::new(&api, args.clients, &[9, 11, 15, 19]).await;
    let (mut acked, mut lost, mut integrity_failures) = (0, 0, 0);
    let started = Instant::now();
    for round in 1..=args.rounds {
        let kill_after = rng.gen_range(args.min_ms..=args.max_ms.max(args.min_ms));
        let figures = crashes
            .round(&mut server, Duration::from_millis(kill_after), rng, round)
            .await;
        acked += figures.acked;
        lost += figures.lost;
        integrity_failures += u64::from(!figures.integrity_ok);
        println!(
            "crash round {round}: {} writes acknowledged, killed, restarted, {} acknowledged moves lost",
            figures.acked, figures.lost
        );
    }
    let summary = format!(
        "crash: {} SIGKILLs survived in {:.0} s, {} clients, {acked} writes acknowledged over {} games, {lost} acknowledged moves lost, {integrity_failures} integrity failures, synchronous={}",
        args.rounds,
        started.elapsed().as_secs_f64(),
        args.clients,
        crashes.games(),
        args.synchronous
    );
    (api.stats().clone(), summary)
}
