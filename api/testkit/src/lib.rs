//! What the integration tests (`tests/`), the stress tool (`api/tools/stress`) and the benches
//! (`api/benches`) share, so that each of them is written once:
//! - [`server`]: the harness that runs the real `gomoku-server` binary on 127.0.0.1:0 against a
//!   database it owns, and restarts, kills or stops it.
//! - [`postgres`]: the PostgreSQL cluster the suite may run against, a database per test, and
//!   a private cluster for a test that stops and starts PostgreSQL.
//! - [`restart`]: a flag that falls while PostgreSQL is down, across two instances.
//! - [`client`]: the one API client ([`Api`], [`Player`], [`Reply`]), error-code helpers,
//!   [`race`] and the [`Stats`] a run reports to.
//! - [`live`]: the live WebSocket client ([`Live`]) of a game's `/live` stream.
//! - [`online`]: online games set up between players (a created and joined game).
//! - [`state`]: reading served game states and checking them against the rules crate's judge.
//! - [`stored`]: reading what the server stored, behind its back.
//! - [`crash`]: the SIGKILL-under-load run and the book of acknowledged writes it checks against.
//! - [`flood`]: raw sockets from other loopback addresses: half-sent requests, refused connections.
//! - [`lines`]: the game lines several tests play.
//! - [`bench`]: the move-playing clients of the HTTP benches.
//! - [`eventually`]: the one way a test waits for something to happen (never a fixed sleep).
//!
//! Nothing here is mocked: every check goes through real HTTP to the real binary and reads the
//! real database (a SQLite file, or a database on a real PostgreSQL).

pub mod bench;
pub mod client;
pub mod crash;
pub mod flood;
pub mod lines;
pub mod live;
pub mod online;
pub mod postgres;
pub mod restart;
pub mod server;
pub mod state;
pub mod stored;

use std::time::Duration;

pub use client::{
    assert_all_unauthorized, code, game_endpoints, one_landed, race, race_players, race_posts, Api,
    Endpoint, Player, Reply, Stats,
};
pub use live::Live;
pub use server::{Database, Server, ServerBinary, ServerBuilder, NO_RATE_LIMIT};

/// Waits until `check` holds, asking again every 20 ms; panics naming `what` if it still does not
/// hold after `within`. The one way a test waits for something the server does in its own time
/// (a change to travel between instances, a search to start, a socket to be freed): a fixed sleep
/// would be too short on a loaded machine and needlessly long on an idle one.
pub async fn eventually(what: &str, within: Duration, mut check: impl AsyncFnMut() -> bool) {
    let start = std::time::Instant::now();
    while !check().await {
        assert!(start.elapsed() < within, "{what}: not within {within:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A seed for a run's random choices, from the clock; callers print it so a run can be repeated.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos() as u64
}

/// A count from the environment variable `name` (a bench's or a run's size), or `default` when it
/// is unset or not a number.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The nearest-rank `q` quantile (0 < q ≤ 1) of sorted samples; zero when there are none.
pub fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (sorted.len() as f64 * q).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
