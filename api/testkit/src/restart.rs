//! A flag that falls while PostgreSQL is down (issue 23): a timed online game between a player
//! whose live socket is on one instance and a player whose socket is on the other; the database
//! is stopped before the deadline and started again after it. Both instances' timers fire while
//! it is down; once it is back one of them ends the game, and both sockets must get the
//! timed-out state — the other instance's only through its listener, which has to come back and
//! catch up on what it missed.
//!
//! One trial, written once for the integration test (which asserts it) and the stress run (which
//! loops it and prints how often and how fast the state arrived). The cluster is the caller's own
//! [`Cluster`]: the rest of the suite must not see its database go away.

use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::{Connection, PgConnection};

use crate::client::{Api, Player};
use crate::live::{Live, Received};
use crate::online;
use crate::postgres::Cluster;
use crate::server::{Database, Server};

/// The game's clock: long enough for the database to stop before the flag falls.
pub const CLOCK: Duration = Duration::from_millis(2500);
/// How long a socket may take to get the timed-out state once the database is back before the
/// trial counts it as lost (the issue saw 40 s and more).
pub const GIVE_UP: Duration = Duration::from_secs(15);

/// What one trial saw.
#[derive(Debug, Clone)]
pub struct Trial {
    /// Sockets (of two) that got the timed-out state within [`GIVE_UP`].
    pub delivered: usize,
    /// From the database accepting connections again to the later of the two sockets' states.
    pub after_database: Option<Duration>,
    /// From both instances' listeners being connected again to the later of the two states.
    pub after_listeners: Option<Duration>,
    /// Why the trial proves nothing (the database took too long to stop), if it does not.
    pub void: Option<String>,
}

/// Runs one trial on `database` (on `cluster`), served by instances `a` and `b`; the database
/// stays down until `down_past_deadline` after the flag fell (the length of the outage decides
/// at which step of its reconnecting a listener finds it back).
pub async fn flag_fall_across_restart(
    cluster: &Cluster,
    database: &Database,
    (a, b): (&Server, &Server),
    down_past_deadline: Duration,
) -> Trial {
    let black = Player::new(a).await;
    let white = Api::on(b).new_player().await;
    let clock = json!({"timeControl": {"initialMs": CLOCK.as_millis() as u64, "incrementMs": 0}});
    let (id, _) = online::start(&black, &white, clock).await;
    let mut on_a = Live::connect(&black, &id)
        .await
        .expect("black's socket on A");
    let mut on_b = Live::connect(&white, &id)
        .await
        .expect("white's socket on B");
    on_a.state().await;
    on_b.state().await;

    // White's clock runs from the commit of this move, which lies between sending and answer.
    let sent = Instant::now();
    black.play_at(&id, 7, 7, 0).await;
    let answered = Instant::now();
    cluster.halt();
    if Instant::now() >= sent + CLOCK {
        cluster.resume();
        return Trial {
            delivered: 0,
            after_database: None,
            after_listeners: None,
            void: Some(format!(
                "the database took {:?} to stop, past the deadline",
                answered.elapsed()
            )),
        };
    }
    // Not an ordering: the deadline passing while the database is down is the trial's subject.
    tokio::time::sleep_until((answered + CLOCK + down_past_deadline).into()).await;
    cluster.resume();
    let back = Instant::now();

    let (black_at, white_at, listeners_at) = tokio::join!(
        timed_out(&mut on_a, back + GIVE_UP),
        timed_out(&mut on_b, back + GIVE_UP),
        listeners_back(database.url(), back + GIVE_UP),
    );
    let arrivals = [black_at, white_at];
    let delivered = arrivals.iter().flatten().count();
    let last = (delivered == 2).then(|| arrivals.into_iter().flatten().max().expect("two"));
    Trial {
        delivered,
        after_database: last.map(|at| at.duration_since(back)),
        after_listeners: last
            .zip(listeners_at)
            .map(|(at, listening)| at.saturating_duration_since(listening)),
        void: None,
    }
}

/// When `live` got a state ended by timeout, if before `until`.
async fn timed_out(live: &mut Live, until: Instant) -> Option<Instant> {
    loop {
        let left = until.checked_duration_since(Instant::now())?;
        match live.receive(left).await? {
            Received::Json(message)
                if message["type"] == "state" && message["game"]["endReason"] == "timeout" =>
            {
                return Some(Instant::now());
            }
            Received::Json(_) => {}
            Received::Closed(_) => return None,
        }
    }
}

/// When both instances' listeners were connected to the database again, if before `until`:
/// polled from a connection of our own (an observer's view, within the polling step).
async fn listeners_back(url: &str, until: Instant) -> Option<Instant> {
    const STEP: Duration = Duration::from_millis(10);
    let mut conn = loop {
        match PgConnection::connect(url).await {
            Ok(conn) => break conn,
            Err(_) if Instant::now() < until => tokio::time::sleep(STEP).await,
            Err(_) => return None,
        }
    };
    while Instant::now() < until {
        let listening: Option<i64> = sqlx::query_scalar(
            "select count(*) from pg_stat_activity \
             where application_name like 'gomoku-listener %' and datname = current_database() \
             and state = 'idle'",
        )
        .fetch_one(&mut conn)
        .await
        .ok();
        if listening == Some(2) {
            return Some(Instant::now());
        }
        tokio::time::sleep(STEP).await;
    }
    None
}
