//! `ai-load`: master-level AI games keep the server's AI cap saturated while other clients read
//! game states and play local moves; the latency of those reads and moves is measured against
//! a baseline without AI games. The target: p99 under 50 ms for both while the AI is busy.
//!
//! The fairness run (`--ai-clients 3 --games-per-token 4 --easy-players 1`): each master token
//! plays several games at once, and light players play easy games meanwhile; their reply
//! latency (queueing included) shows whether the AI queue serves them in turn rather than
//! behind every master search queued before them. The target: easy replies under 500 ms.

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
    /// Clients (tokens) playing master-level AI games (several per AI slot keep the cap
    /// saturated).
    #[arg(long, default_value_t = 8)]
    ai_clients: usize,
    /// Master games each AI client plays at once, each with a move always outstanding.
    #[arg(long, default_value_t = 1)]
    games_per_token: usize,
    /// Players playing easy AI games meanwhile, one game each; their reply latency is printed.
    #[arg(long, default_value_t = 0)]
    easy_players: usize,
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

/// Keeps asking the AI at `level` for replies in one game after another until `until`; how long
/// each reply asked after `measure_from` took (queueing for an AI slot included). `in_flight`
/// counts the AI moves sent and not yet answered, over the clients sharing it.
async fn ai_client(
    player: Player,
    level: &'static str,
    (measure_from, until): (Instant, Instant),
    seed: u64,
    in_flight: Arc<AtomicU64>,
) -> Vec<Duration> {
    let mut rng = StdRng::seed_from_u64(seed);
    let stats = player.stats();
    let mut replies = Vec::new();
    let mut state = Value::Null;
    while Instant::now() < until {
        if state["status"] != "playing" || state["moveCount"].as_u64().unwrap_or(0) > 30 {
            let settings = json!({"mode": "ai", "ai": {"level": level, "player": 2}});
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
            if asked >= measure_from {
                replies.push(asked.elapsed());
            }
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

/// Runs readers, local movers and easy players for `window` (after a short warm-up), with
/// `ai_clients` master AI tokens busy in the background (none for the baseline); the figures as a
/// line, and those the summary judges.
async fn measure(
    api: &Api,
    args: &AiLoadArgs,
    ai_clients: usize,
    window: Duration,
    rng: &mut StdRng,
) -> (String, Figures) {
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
        for _ in 0..args.games_per_token.max(1) {
            let task = ai_client(
                player.clone(),
                "master",
                (measure_from, until),
                rng.gen(),
                in_flight.clone(),
            );
            ai.push(tokio::spawn(task));
        }
    }
    let mut easy = Vec::new();
    for _ in 0..args.easy_players {
        let player = api.new_player().await;
        let task = ai_client(
            player,
            "easy",
            (measure_from, until),
            rng.gen(),
            Arc::new(AtomicU64::new(0)),
        );
        easy.push(tokio::spawn(task));
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
    let mut easy_replies = Vec::new();
    for e in easy {
        easy_replies.extend(e.await.unwrap());
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
            "; master replies n={} ({:.2}/s) p50 {a50:.0} ms p99 {a99:.0} ms max {amax:.0} ms (queueing included)",
            replies.len(),
            replies.len() as f64 / window.as_secs_f64()
        ));
    }
    let easy_p99 = (!easy_replies.is_empty()).then(|| {
        let (e50, e99, emax) = percentiles(&mut easy_replies);
        line.push_str(&format!(
            "; easy replies n={} p50 {e50:.0} ms p99 {e99:.0} ms max {emax:.0} ms (queueing included)",
            easy_replies.len()
        ));
        e99
    });
    let figures = Figures {
        read_p99: r99,
        move_p99: m99,
        master_replies: replies.len() as u64,
        easy_p99,
    };
    (line, figures)
}

/// The figures of one measured window the summary judges.
struct Figures {
    read_p99: f64,
    move_p99: f64,
    master_replies: u64,
    /// None without easy players.
    easy_p99: Option<f64>,
}

pub async fn run(bin: &ServerBinary, args: &AiLoadArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let master_ms = args.master_ms.to_string();
    let cap = args.ai_concurrency.map(|c| c.to_string());
    let mut flags = vec!["--ai-master-ms", &master_ms];
    if let Some(cap) = &cap {
        flags.extend(["--ai-concurrency", cap]);
    }
    let (_server, api) = crate::start(bin, &flags);

    let (baseline, _) = measure(&api, args, 0, Duration::from_secs(5), rng).await;
    println!("ai-load baseline (no AI games, 5 s): {baseline}");
    let window = Duration::from_secs(args.duration_s);
    let (loaded, figures) = measure(&api, args, args.ai_clients, window, rng).await;
    let cap = cap.unwrap_or_else(|| "server default".to_string());
    println!(
        "ai-load saturated ({} master clients x {} games, {} easy players, AI cap {cap}, master budget {} ms, {} s): {loaded}",
        args.ai_clients, args.games_per_token, args.easy_players, args.master_ms, args.duration_s
    );
    println!(
        "ai-load: {} master AI replies ({:.2}/s), {} AI_BUSY answers",
        figures.master_replies,
        figures.master_replies as f64 / window.as_secs_f64(),
        api.stats().ai_busy()
    );
    let (r99, m99) = (figures.read_p99, figures.move_p99);
    let under = |ok: bool| if ok { "under" } else { "OVER" };
    let mut summary = format!("ai-load: with the AI cap saturated, read p99 {r99:.1} ms, local-move p99 {m99:.1} ms ({} the 50 ms target)", under(r99 < 50.0 && m99 < 50.0));
    if let Some(e99) = figures.easy_p99 {
        summary.push_str(&format!(
            ", easy-reply p99 {e99:.0} ms ({} the 500 ms target)",
            under(e99 < 500.0)
        ));
    }
    (api.stats().clone(), summary)
}
