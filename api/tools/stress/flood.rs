//! `flood`: the connection flood of issue 23. One client opens N connections that each send half
//! a request head and nothing more, from one loopback address or spread over several
//! (127.0.0.2 onwards), while an honest client at 127.0.0.1 plays an online game, one move every
//! 50 ms, with the other player watching on a live socket. Prints the honest client's `/healthz`,
//! move and live push latency (p50/p99) without and during the flood, the server's open files and
//! memory before, during and after, and how long the server took to close the flood's sockets
//! (those closed within half the header read timeout count as refused at accept). The flood is
//! repeated (`--rounds`): memory the allocator keeps after the first should serve the next.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use gomoku_testkit::flood::{closed_by_server, flood_address, half_request};
use gomoku_testkit::lines::brick_fill;
use gomoku_testkit::online::start;
use gomoku_testkit::{percentile, Api, Live, Player, Server, ServerBinary, Stats};
use rand::rngs::StdRng;
use serde_json::json;
use tokio::task::JoinSet;

#[derive(Args, Clone)]
pub struct FloodArgs {
    /// Half-sent requests to open (fewer if this tool's open-files limit does not allow them).
    #[arg(long, default_value_t = 20_000)]
    connections: usize,
    /// Loopback addresses the flood comes from, its connections spread evenly over them.
    #[arg(long, default_value_t = 1)]
    addresses: usize,
    /// The server's `--max-connections-per-address`.
    #[arg(long, default_value_t = 256)]
    per_address: u32,
    /// The server's `--header-read-timeout-ms`.
    #[arg(long, default_value_t = 10_000)]
    header_timeout_ms: u64,
    /// Floods, one after the other: memory that the first leaves allocated should serve the
    /// next rather than grow.
    #[arg(long, default_value_t = 2)]
    rounds: usize,
}

/// Open files this tool keeps for itself besides the flood's sockets.
const OWN_FILES: u64 = 256;
/// The honest client's pace.
const HONEST_PACE: Duration = Duration::from_millis(50);
/// Moves per honest game before a new one starts (far from any five, see `brick_fill`).
const MOVES_PER_GAME: usize = 20;
/// How long the honest client is measured before the first flood.
const QUIET: Duration = Duration::from_secs(3);
/// How long the server's open files may take to come back before the run gives up on them.
const SETTLE: Duration = Duration::from_secs(60);

/// One timed step of the honest client.
#[derive(Clone, Copy, PartialEq)]
enum Step {
    Healthz,
    Move,
    Push,
}

/// The server's open files and resident memory in KiB, now.
fn load(server: &Server) -> (usize, u64) {
    (
        server.open_files().unwrap_or(0),
        server.resident_kib().unwrap_or(0),
    )
}

pub async fn run(bin: &ServerBinary, args: &FloodArgs, _rng: &mut StdRng) -> (Arc<Stats>, String) {
    let own_limit = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    let n = args
        .connections
        .min(own_limit.saturating_sub(OWN_FILES) as usize);
    let addresses = args.addresses.max(1);
    let (per_address, header_timeout) = (
        args.per_address.to_string(),
        args.header_timeout_ms.to_string(),
    );
    let (server, api) = crate::start(
        bin,
        &[
            "--max-connections-per-address",
            &per_address,
            "--header-read-timeout-ms",
            &header_timeout,
        ],
    );
    let server = Arc::new(server);
    println!(
        "flood: {} rounds of {n} half-sent requests from {addresses} address(es), 127.0.0.2 onwards (this tool may open {own_limit} files); server --max-connections-per-address {per_address} --header-read-timeout-ms {header_timeout}",
        args.rounds
    );

    let stop = Arc::new(AtomicBool::new(false));
    let honest = tokio::spawn(honest_client(api.clone(), stop.clone()));
    tokio::time::sleep(QUIET).await;
    let mut windows = Vec::new();
    let (mut refused, mut timed_out, mut still_open) = (0, 0, 0);
    for round in 1..=args.rounds {
        let figures = flood_round(&server, n, addresses, args.header_timeout_ms).await;
        refused += figures.refused;
        timed_out += figures.timed_out;
        still_open += figures.still_open;
        windows.push(figures.window);
        println!("flood round {round}: {}", figures.text);
    }

    stop.store(true, Ordering::Relaxed);
    let (samples, failures) = honest.await.expect("the honest client");
    let times = |step: Step, during: bool| {
        let mut d: Vec<Duration> = samples
            .iter()
            .filter(|(at, s, _)| {
                *s == step && windows.iter().any(|(from, to)| at >= from && at <= to) == during
            })
            .map(|(_, _, d)| *d)
            .collect();
        d.sort();
        d
    };
    for (name, step) in [
        ("/healthz", Step::Healthz),
        ("move", Step::Move),
        ("live push (from the move's request)", Step::Push),
    ] {
        let (quiet, during) = (times(step, false), times(step, true));
        println!(
            "flood: honest {name}: without a flood p50 {:.1} ms p99 {:.1} ms ({}), during the floods p50 {:.1} ms p99 {:.1} ms ({})",
            ms(percentile(&quiet, 0.5)),
            ms(percentile(&quiet, 0.99)),
            quiet.len(),
            ms(percentile(&during, 0.5)),
            ms(percentile(&during, 0.99)),
            during.len(),
        );
    }
    let stats = api.stats().clone();
    if failures > 0 {
        stats.violation(format!(
            "{failures} requests of the honest client failed during the flood"
        ));
    }
    if still_open > 0 {
        stats.violation(format!("{still_open} flooded sockets never closed"));
    }
    (
        stats,
        format!(
            "flood: {} rounds of {n} half-sent requests from {addresses} address(es): {refused} refused at once, {timed_out} closed after the header timeout; {failures} honest requests failed",
            args.rounds
        ),
    )
}

/// What one round of the flood did.
struct Round {
    refused: usize,
    timed_out: usize,
    still_open: usize,
    /// From the first connection to the last close.
    window: (Instant, Instant),
    /// Its figures, for printing.
    text: String,
}

/// Opens `n` half-sent requests from `addresses` addresses and waits for the server to close
/// them all, sampling its open files and memory meanwhile; then waits for its open files to come
/// back.
async fn flood_round(
    server: &Arc<Server>,
    n: usize,
    addresses: usize,
    header_timeout_ms: u64,
) -> Round {
    let (files_before, memory_before) = load(server);
    // The sampler keeps the highest open files and memory seen while the flood lasts.
    let flooding = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (server, flooding) = (server.clone(), flooding.clone());
        tokio::spawn(async move {
            let mut peak = (0, 0);
            while flooding.load(Ordering::Relaxed) {
                let (files, memory) = load(&server);
                peak = (peak.0.max(files), peak.1.max(memory));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            peak
        })
    };
    let flood_start = Instant::now();
    let mut closing = JoinSet::new();
    let mut failed_connects = 0;
    for i in 0..n {
        match half_request(flood_address(i % addresses), server.addr()).await {
            Ok(mut socket) => {
                let opened = Instant::now();
                closing.spawn(async move {
                    closed_by_server(&mut socket, SETTLE)
                        .await
                        .then(|| opened.elapsed())
                });
            }
            Err(_) => failed_connects += 1,
        }
    }
    let opened_in = flood_start.elapsed();
    let closes = closing.join_all().await;
    let flood_end = Instant::now();
    flooding.store(false, Ordering::Relaxed);
    let (files_peak, memory_peak) = sampler.await.expect("the sampler");

    // Refused at accept: closed long before the header read timeout could have.
    let refused_within = Duration::from_millis(header_timeout_ms / 2);
    let mut held: Vec<Duration> = closes
        .iter()
        .flatten()
        .copied()
        .filter(|d| *d >= refused_within)
        .collect();
    held.sort();
    let refused = closes.iter().flatten().count() - held.len();
    let still_open = closes.iter().filter(|c| c.is_none()).count();

    let settle_start = Instant::now();
    let mut after = load(server);
    while after.0 > files_before + 8 && settle_start.elapsed() < SETTLE {
        tokio::time::sleep(Duration::from_millis(50)).await;
        after = load(server);
    }
    let mib = |kib: u64| kib as f64 / 1024.0;
    let text = format!(
        "opened in {:.1} s ({failed_connects} connects failed); {refused} refused at once, {} held and closed by the server after p50 {:.2} s, max {:.2} s; {still_open} still open after {SETTLE:?}; the last closed {:.2} s after the flood began. Server: open files {files_before} before, {files_peak} at most during, {} after ({:.1} s after the last close); memory {:.1} MiB before, {:.1} MiB at most during, {:.1} MiB after",
        opened_in.as_secs_f64(),
        held.len(),
        percentile(&held, 0.5).as_secs_f64(),
        held.last().copied().unwrap_or_default().as_secs_f64(),
        (flood_end - flood_start).as_secs_f64(),
        after.0,
        settle_start.elapsed().as_secs_f64(),
        mib(memory_before),
        mib(memory_peak),
        mib(after.1),
    );
    Round {
        refused,
        timed_out: held.len(),
        still_open,
        window: (flood_start, flood_end),
        text,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Plays online games at [`HONEST_PACE`] until `stop`: each step a `/healthz`, a move, and the
/// live push of that move to the other player. Every step's time, and how many failed.
async fn honest_client(api: Api, stop: Arc<AtomicBool>) -> (Vec<(Instant, Step, Duration)>, u64) {
    let black = api.new_player().await;
    let white = api.new_player().await;
    let moves = brick_fill(15);
    let (mut samples, mut failures) = (Vec::new(), 0);
    let mut pace = tokio::time::interval(HONEST_PACE);
    while !stop.load(Ordering::Relaxed) {
        let (id, _) = start(&black, &white, json!({})).await;
        let mut watchers = [
            Live::connect(&black, &id)
                .await
                .expect("black's live socket"),
            Live::connect(&white, &id)
                .await
                .expect("white's live socket"),
        ];
        for live in &mut watchers {
            live.state().await;
        }
        for (ply, &(row, col)) in moves.iter().enumerate().take(MOVES_PER_GAME) {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            pace.tick().await;
            let at = Instant::now();
            match api
                .try_send(api.request(reqwest::Method::GET, "/healthz"))
                .await
            {
                Ok(reply) if reply.status == 200 => samples.push((at, Step::Healthz, at.elapsed())),
                _ => failures += 1,
            }
            let mover: &Player = if ply % 2 == 0 { &black } else { &white };
            let at = Instant::now();
            let body = json!({"row": row, "col": col, "ply": ply});
            let state = match mover
                .try_post(&format!("/api/v1/games/{id}/moves"), &body)
                .await
            {
                Ok(reply) if reply.status == 200 => reply.body,
                _ => {
                    failures += 1;
                    break;
                }
            };
            samples.push((at, Step::Move, at.elapsed()));
            // The other player hears of the move.
            let version = state["version"].as_i64().expect("version");
            watchers[1 - ply % 2].state_at(version).await;
            samples.push((at, Step::Push, at.elapsed()));
        }
    }
    (samples, failures)
}
