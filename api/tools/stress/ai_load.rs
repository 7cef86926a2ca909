//! `ai-load`: master-level AI games keep the server's AI cap saturated while other clients read
//! game states and play local moves; the latency of those reads and moves is measured against
//! a baseline without AI games. The target: p99 under 50 ms for both while the AI is busy.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use gomoku_testkit::state::{id_of, open_cells};
use gomoku_testkit::{percentile, Api, Player, ServerBinary, Stats};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

#[derive(Args, Clone)]
pub struct AiLoadArgs {
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

/// p50, p99 and max of latencies, in ms.
fn percentiles(samples: &mut [Duration]) -> (f64, f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (
        ms(percentile(samples, 0.50)),
        ms(percentile(samples, 0.99)),
        ms(percentile(samples, 1.0)),
    )
}

/// Keeps asking a master-level AI for replies until `until`; how long each reply took (queueing
/// for an AI slot included). `in_flight` counts the AI moves sent and not yet answered, over all
/// AI clients.
async fn ai_client(
    player: Player,
    until: Instant,
    seed: u64,
    in_flight: Arc<AtomicU64>,
) -> Vec<Duration> {
    let mut rng = StdRng::seed_from_u64(seed);
    let stats = player.stats();
    let mut replies = Vec::new();
    let mut state = Value::Null;
    while Instant::now() < until {
        if state["status"] != "playing" || state["moveCount"].as_u64().unwrap_or(0) > 30 {
            let settings = json!({"mode": "ai", "ai": {"level": "master", "player": 2}});
            let reply = player.post("/api/v1/games", &settings).await;
            let Some(created) = stats.expect(reply, 201, "AI game create") else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            state = created;
        }
        let id = id_of(&state);
        let ply = state["moveCount"].as_i64().unwrap();
        // Near the centre, where the AI has something to think about.
        let cells: Vec<_> = open_cells(&state)
            .into_iter()
            .filter(|&(r, c)| (4..=10).contains(&r) && (4..=10).contains(&c))
            .collect();
        let Some(&(row, col)) = cells.get(rng.gen_range(0..cells.len().max(1))) else {
            state = Value::Null;
            continue;
        };
        in_flight.fetch_add(1, Ordering::Relaxed);
        let asked = Instant::now();
        let reply = player.try_move_at(&id, row, col, ply).await;
        in_flight.fetch_sub(1, Ordering::Relaxed);
        if reply.status == 200 {
            replies.push(asked.elapsed());
            state = reply.body;
        } else if reply.is(503, "AI_BUSY") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        } else {
            stats.violation(format!("AI move answered {} {}", reply.status, reply.text));
            state = Value::Null;
        }
    }
    replies
}

/// What a latency client does in a loop.
#[derive(Clone, Copy, PartialEq)]
enum Probe {
    /// Reads its game's state.
    Read,
    /// Plays a local move in its game.
    Move,
}

/// Reads or plays local moves in its own local game until `until`, pausing `pause` between
/// requests; the latencies of the requests made after `measure_from`.
async fn latency_client(
    player: Player,
    probe: Probe,
    (measure_from, until): (Instant, Instant),
    pause: Duration,
    seed: u64,
) -> Vec<Duration> {
    let mut rng = StdRng::seed_from_u64(seed);
    let new_game = json!({"mode": "local", "boardSize": 19});
    let mut samples = Vec::new();
    let mut state = player.create(new_game.clone()).await;
    while Instant::now() < until {
        let id = id_of(&state);
        let started = Instant::now();
        let reply = match probe {
            Probe::Move => {
                let ply = state["moveCount"].as_i64().unwrap();
                let cells = open_cells(&state);
                let (row, col) = cells[rng.gen_range(0..cells.len())];
                player.try_move_at(&id, row, col, ply).await
            }
            Probe::Read => player.get(&format!("/api/v1/games/{id}")).await,
        };
        let took = started.elapsed();
        let what = if probe == Probe::Move {
            "local move"
        } else {
            "read"
        };
        if reply.status != 200 {
            player
                .stats()
                .violation(format!("{what} answered {} {}", reply.status, reply.text));
        } else if started >= measure_from {
            samples.push(took);
        }
        if probe == Probe::Move {
            let body = &reply.body;
            if body["status"] != "playing" || body["moveCount"].as_u64().unwrap_or(0) >= 150 {
                state = player.create(new_game.clone()).await;
            } else if reply.status == 200 {
                state = reply.body;
            }
        }
        tokio::time::sleep(pause).await;
    }
    samples
}

/// Runs readers and local movers for `window` (after a short warm-up), with `ai_clients` master
/// AI players busy in the background (none for the baseline); the figures as a line, the read
/// and move p99 in ms, and the AI replies counted.
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
        let player = api.new_player().await;
        ai.push(tokio::spawn(ai_client(
            player,
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
    let pause = Duration::from_millis(args.pause_ms);
    let mut probes = Vec::new();
    for probe in [Probe::Read, Probe::Move] {
        let count = if probe == Probe::Read {
            args.readers
        } else {
            args.movers
        };
        for _ in 0..count {
            let player = api.new_player().await;
            let task = latency_client(player, probe, (measure_from, until), pause, rng.gen());
            probes.push((probe, tokio::spawn(task)));
        }
    }
    let (mut reads, mut moves) = (Vec::new(), Vec::new());
    for (probe, task) in probes {
        let samples = task.await.unwrap();
        match probe {
            Probe::Read => reads.extend(samples),
            Probe::Move => moves.extend(samples),
        }
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

pub async fn run(bin: &ServerBinary, args: &AiLoadArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let master_ms = args.master_ms.to_string();
    let cap = args.ai_concurrency.map(|c| c.to_string());
    let mut flags = vec!["--ai-master-ms", &master_ms];
    if let Some(cap) = &cap {
        flags.extend(["--ai-concurrency", cap]);
    }
    let (_server, api) = crate::start(bin, &flags);

    let (baseline, _, _, _) = measure(&api, args, 0, Duration::from_secs(5), rng).await;
    println!("ai-load baseline (no AI games, 5 s): {baseline}");
    let window = Duration::from_secs(args.duration_s);
    let (loaded, r99, m99, replies) = measure(&api, args, args.ai_clients, window, rng).await;
    let cap = cap.unwrap_or_else(|| "server default".to_string());
    println!(
        "ai-load saturated ({} master clients, AI cap {cap}, master budget {} ms, {} s): {loaded}",
        args.ai_clients, args.master_ms, args.duration_s
    );
    println!(
        "ai-load: {replies} master AI replies ({:.2}/s), {} AI_BUSY answers",
        replies as f64 / (window.as_secs_f64() + 2.0 * args.master_ms as f64 / 1000.0),
        api.stats().ai_busy()
    );
    let verdict = if r99 < 50.0 && m99 < 50.0 {
        "under"
    } else {
        "OVER"
    };
    let summary = format!("ai-load: with the AI cap saturated, read p99 {r99:.1} ms, local-move p99 {m99:.1} ms ({verdict} the 50 ms target)");
    (api.stats().clone(), summary)
}
