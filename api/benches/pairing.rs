//! Pairing 10,000 seekers (issue 26): how long a seeker waits for a pairing, and what a pairing
//! round costs, in three runs.
//!
//! 1. Arrivals: `BENCH_SEEKERS` (default 10,000) players arrive at random (a Poisson stream of
//!    `BENCH_ARRIVALS_PER_S`, default 50 a second) over the seven pools (3+2 the busiest),
//!    ratings spread around 1500 (σ 300) with deviations from 45 to 350, one in twenty with
//!    recent aborts. Every simulated second a round pairs each pool ([`matchmaking::pair`]),
//!    and the paired leave. Prints the time to pair (simulated seconds from the seek to the
//!    round that paired it) p50, p99 and the longest, for all and for the seekers without an
//!    abort penalty, and the CPU time of a round (this thread's CPU clock) p50, p99 and the
//!    longest.
//! 2. Burst: all the seekers waiting at once in one pool (a restart, a tournament's start): the
//!    CPU time of the one round that pairs them.
//! 3. Store: the same seekers as stored seeks on a SQLite file (and on PostgreSQL when
//!    `GOMOKU_TEST_DATABASE` names a cluster), paired by rounds as a server would run them:
//!    read each pool's seeks, pair them, claim every pairing (one transaction each, which makes
//!    the rated game). Prints the rounds' wall time, the claims per second, and the process's
//!    CPU time (user + system, the database's own threads included for SQLite; PostgreSQL's
//!    server runs in processes of its own) per claim.
//!
//! Run with `cargo bench --bench pairing`.

use std::time::{Duration, Instant};

use gomoku::config::Config;
use gomoku::matchmaking::{pair, Pool, Seek};
use gomoku::store::players::{self, Who};
use gomoku::store::{seeks, Db};
use gomoku_testkit::{env_count, percentile};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use time::OffsetDateTime;

/// How often a pairing round runs, in simulated time.
const ROUND: Duration = Duration::from_secs(1);
/// Each pool's share of the arrivals, in the order of [`Pool::ALL`].
const POOL_WEIGHTS: [u32; 7] = [10, 30, 15, 5, 20, 10, 10];

/// This thread's CPU time so far (`CLOCK_THREAD_CPUTIME_ID`, to the nanosecond).
fn thread_cpu() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `t` is, and reads nothing else.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    ok.then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

/// The process's user and system CPU time so far (`/proc/self/stat`, in clock ticks of 10 ms).
fn process_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name may hold spaces: the fields after it start past its closing parenthesis.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// A random seeker's rating, deviation and aborts.
fn seeker(rng: &mut StdRng) -> (f64, f64, u32) {
    // Box–Muller: a normal spread around 1500, σ 300.
    let (u, v): (f64, f64) = (rng.gen_range(1e-9..1.0), rng.gen());
    let normal = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
    let rating = (1500.0 + 300.0 * normal).clamp(600.0, 2900.0);
    let rd = rng.gen_range(45.0..350.0);
    let aborts = if rng.gen_ratio(1, 20) {
        rng.gen_range(2..5)
    } else {
        0
    };
    (rating, rd, aborts)
}

fn random_pool(rng: &mut StdRng) -> usize {
    let total: u32 = POOL_WEIGHTS.iter().sum();
    let mut pick = rng.gen_range(0..total);
    for (i, w) in POOL_WEIGHTS.iter().enumerate() {
        if pick < *w {
            return i;
        }
        pick -= w;
    }
    0
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn micros(d: Duration) -> String {
    format!("{} µs", d.as_micros())
}

/// Run 1: seekers arriving over time, a round every simulated second.
fn arrivals(seekers: usize, per_second: f64) {
    let mut rng = StdRng::seed_from_u64(26);
    let start = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
    // Arrival times: exponential gaps.
    let mut at = 0.0;
    let mut arriving: Vec<(f64, Seek)> = (0..seekers)
        .map(|i| {
            at += -rng.gen_range(1e-9..1.0f64).ln() / per_second;
            let (rating, rd, aborts) = seeker(&mut rng);
            let seek = Seek {
                id: format!("s{i}"),
                player_id: format!("p{i}"),
                pool: Pool::ALL[random_pool(&mut rng)],
                rating,
                rd,
                since: start + time::Duration::seconds_f64(at),
                aborts,
                last_colour: None,
            };
            (at, seek)
        })
        .collect();
    arriving.reverse();
    let mut pools: Vec<Vec<Seek>> = vec![Vec::new(); Pool::ALL.len()];
    let (mut waits, mut rounds) = (Vec::with_capacity(seekers), Vec::new());
    let mut unpenalised = Vec::with_capacity(seekers);
    let mut now_s = 0.0;
    while !arriving.is_empty() || pools.iter().any(|p| p.len() > 1) {
        now_s += ROUND.as_secs_f64();
        if now_s > at + 3600.0 {
            break;
        }
        while arriving.last().is_some_and(|(t, _)| *t <= now_s) {
            let (_, seek) = arriving.pop().unwrap();
            let i = Pool::ALL.iter().position(|p| *p == seek.pool).unwrap();
            pools[i].push(seek);
        }
        let now = start + time::Duration::seconds_f64(now_s);
        let cpu = thread_cpu();
        let mut paired = Vec::new();
        for pool in &pools {
            paired.push(pair(pool, now));
        }
        if let (Some(before), Some(after)) = (cpu, thread_cpu()) {
            rounds.push(after - before);
        }
        for (pool, pairs) in pools.iter_mut().zip(paired) {
            let mut gone = std::collections::HashSet::new();
            for p in &pairs {
                for s in [&p.black, &p.white] {
                    let wait = (now - s.since).unsigned_abs();
                    waits.push(wait);
                    if s.penalty().is_zero() {
                        unpenalised.push(wait);
                    }
                    gone.insert(s.id.clone());
                }
            }
            pool.retain(|s| !gone.contains(&s.id));
        }
    }
    waits.sort_unstable();
    unpenalised.sort_unstable();
    rounds.sort_unstable();
    let left: usize = pools.iter().map(Vec::len).sum();
    println!(
        "arrivals: {seekers} seekers at {per_second}/s over {} pools, {} rounds ({} s apart): \
         {} paired, {left} left alone in their pool",
        Pool::ALL.len(),
        rounds.len(),
        ROUND.as_secs(),
        waits.len()
    );
    println!(
        "  time to pair: p50 {}, p99 {}, longest {}",
        secs(percentile(&waits, 0.5)),
        secs(percentile(&waits, 0.99)),
        secs(*waits.last().unwrap_or(&Duration::ZERO))
    );
    println!(
        "  time to pair without an abort penalty ({}): p50 {}, p99 {}, longest {}",
        unpenalised.len(),
        secs(percentile(&unpenalised, 0.5)),
        secs(percentile(&unpenalised, 0.99)),
        secs(*unpenalised.last().unwrap_or(&Duration::ZERO))
    );
    println!(
        "  CPU per round (all pools): p50 {}, p99 {}, longest {}",
        micros(percentile(&rounds, 0.5)),
        micros(percentile(&rounds, 0.99)),
        micros(*rounds.last().unwrap_or(&Duration::ZERO))
    );
}

/// Run 2: every seeker waiting at once in one pool.
fn burst(seekers: usize) {
    let mut rng = StdRng::seed_from_u64(27);
    let now = OffsetDateTime::UNIX_EPOCH + time::Duration::days(20_000);
    let pool: Vec<Seek> = (0..seekers)
        .map(|i| {
            let (rating, rd, aborts) = seeker(&mut rng);
            Seek {
                id: format!("s{i}"),
                player_id: format!("p{i}"),
                pool: Pool::ALL[1],
                rating,
                rd,
                since: now - time::Duration::seconds(rng.gen_range(0..30)),
                aborts,
                last_colour: None,
            }
        })
        .collect();
    let (cpu, wall) = (thread_cpu(), Instant::now());
    let pairs = pair(&pool, now);
    let wall = wall.elapsed();
    let cpu = cpu.zip(thread_cpu()).map(|(a, b)| b - a);
    println!(
        "burst: {seekers} seekers in one pool, one round: {} pairs, CPU {} (wall {})",
        pairs.len(),
        cpu.map_or("unknown".into(), micros),
        micros(wall)
    );
}

/// Run 3: the seekers as stored seeks, paired and claimed round by round.
async fn store(name: &str, db: Db, seekers: usize) {
    let mut rng = StdRng::seed_from_u64(28);
    db.migrate().await.expect("migrate");
    // Players made 16 at a time, so the writer commits them in batches.
    let mut made = tokio::task::JoinSet::new();
    for task in 0..16 {
        let db = db.clone();
        let count = seekers / 16 + usize::from(task < seekers % 16);
        let tokens: Vec<[u8; 32]> = (0..count).map(|_| rng.gen()).collect();
        made.spawn(async move {
            let mut ids = Vec::with_capacity(tokens.len());
            for token in tokens {
                let id = players::start_session(&db, Who::Anonymous, token, None)
                    .await
                    .expect("player");
                ids.push(id);
            }
            ids
        });
    }
    let players_of: Vec<String> = made.join_all().await.into_iter().flatten().collect();
    let mut adds = tokio::task::JoinSet::new();
    for chunk in players_of.chunks(seekers.div_ceil(16).max(1)) {
        let (db, chunk) = (db.clone(), chunk.to_vec());
        let pools: Vec<Pool> = chunk
            .iter()
            .map(|_| Pool::ALL[random_pool(&mut rng)])
            .collect();
        adds.spawn(async move {
            for (player, pool) in chunk.iter().zip(pools) {
                seeks::add(&db, player, pool).await.expect("seek");
            }
        });
    }
    adds.join_all().await;
    let (cpu, wall) = (process_cpu(), Instant::now());
    let (mut claims, mut rounds, mut first_read) = (0usize, 0usize, None);
    loop {
        let mut made = 0;
        let read = Instant::now();
        let mut pairings = Vec::new();
        for pool in Pool::ALL {
            let waiting = seeks::waiting(&db, pool).await.expect("waiting");
            pairings.extend(pair(&waiting, gomoku::store::now_exact()));
        }
        first_read.get_or_insert(read.elapsed());
        {
            for pairing in pairings {
                if let seeks::Claimed::Paired(_) =
                    seeks::claim(&db, &pairing, 10).await.expect("claim")
                {
                    made += 1;
                }
            }
        }
        rounds += 1;
        claims += made;
        if made == 0 {
            break;
        }
    }
    let wall = wall.elapsed();
    let cpu = cpu.zip(process_cpu()).map(|(a, b)| b - a);
    println!(
        "store ({name}): {seekers} stored seeks; the first round read and paired every pool in \
         {}; {claims} games claimed in {rounds} rounds, {} ({:.0} claims/s); process CPU {} \
         ({} per claim)",
        micros(first_read.unwrap_or_default()),
        secs(wall),
        claims as f64 / wall.as_secs_f64(),
        cpu.map_or("unknown".into(), secs),
        cpu.map_or("unknown".into(), |c| micros(c / claims.max(1) as u32)),
    );
    db.close().await;
}

fn main() {
    let seekers = env_count("BENCH_SEEKERS", 10_000);
    let per_second = env_count("BENCH_ARRIVALS_PER_S", 50) as f64;
    arrivals(seekers, per_second);
    burst(seekers);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("pairing.db").display());
        let db = Db::open(&Config::for_database(&url)).await.expect("open");
        store("SQLite", db, seekers).await;
        if let Some(cluster) = gomoku_testkit::postgres::cluster() {
            let database = gomoku_testkit::postgres::PgDatabase::create(&cluster);
            let db = Db::open(&Config::for_database(database.url()))
                .await
                .expect("open");
            store("PostgreSQL", db, seekers).await;
        }
    });
}
