//! Online play's machinery below the HTTP layer: the Fischer clock's arithmetic ([`clock`],
//! pure), what the actions on takeback, draw and rematch offers decide ([`offers`], pure), the
//! live hub that carries committed changes and presence to WebSocket connections ([`hub`]), and
//! the timers that end a game when its flag falls, and clear an offer when it lapses, with no
//! request to notice it ([`timers`]), and the matchmaking lobby with each player's own live
//! channel ([`lobby`]).
//!
//! The hub and the timers are what only one process can know: which sockets are open here, and
//! which timers run here. Both are fed by the store's [`Watch`](crate::store::Watch) hooks, in
//! commit order. With several server instances on one database, each instance's hub must also
//! hear of the others' commits (PostgreSQL's `LISTEN/NOTIFY`), and every instance may arm a timer
//! for the same game: the version-guarded write decides which one ends it, and the rest change
//! nothing.

pub mod clock;
pub mod hub;
pub mod lobby;
pub mod offers;
pub mod timers;

use std::future::Future;
use std::time::{Duration, Instant};

use crate::store::StoreError;

/// How long a read after missed news keeps trying.
const PATIENCE: Duration = Duration::from_secs(30);

/// Runs `read` until it succeeds, pausing between attempts (100 ms, doubling up to 1 s), for
/// [`PATIENCE`] at most; None if it never did. After news was missed the database may have only
/// just come back, its pool still finding connections: a read that fails then is tried again,
/// not given up (issue 23).
pub(crate) async fn patiently<T, F, Fut>(what: &str, mut read: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    let (start, mut pause) = (Instant::now(), Duration::from_millis(100));
    loop {
        match read().await {
            Ok(value) => return Some(value),
            Err(e) if start.elapsed() >= PATIENCE => {
                tracing::warn!(error = %e, "gave up: {what}");
                return None;
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not {what} yet; retrying");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(1));
            }
        }
    }
}
