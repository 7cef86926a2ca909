//! The listener of the other instances' news: one connection of its own (sqlx's `PgListener`)
//! listening on `gomoku_games` (every committed change of a game, announced after its commit by
//! the instance that made it: [`announce`](super::announce)), `gomoku_presence` (each
//! instance's live connections) and `gomoku_players` (news for one player's live channel: a
//! pairing, a seek ended), handing what it hears to the watchers.
//!
//! PostgreSQL delivers the notifications of other transactions in commit order, but only while
//! the connection lives: what is committed while it is down is never delivered. So whenever the
//! listener has (re)connected — at the start, when the watchers may have read the database before
//! it listened, and after every loss — the watchers hear that news may have been missed, and read
//! what they keep afresh: every live socket gets a fresh state, the timers are armed from the
//! stored clocks, the others' presence is read again. Only after `LISTEN` has been answered on
//! the new connection, so that a commit is either heard or there to be read.
//!
//! The listener is made anew after any failure, rather than left to `PgListener`'s own
//! reconnecting: that reconnects silently inside whichever call next needs the connection, and a
//! resync tied to one way of noticing missed the others (issue 23: a flag that fell while the
//! database restarted never reached the other instance's sockets, 2 trials in 16).

use std::time::Duration;

use sqlx::postgres::{PgListener, PgNotification};

use super::announce::{self, Heard, GAMES, PLAYERS};
use super::presence::parse as parse_presence;
use super::Store;
use crate::store::seeks::PlayerNews;

/// Channel of presence.
const PRESENCE: &str = "gomoku_presence";
/// Pause between attempts to reach the database (each attempt itself tries for the pool's
/// acquire timeout).
const RETRY: Duration = Duration::from_millis(250);

/// Listens until the store closes.
pub(super) async fn run(store: Store) {
    loop {
        let Some(mut listener) = listening(&store).await else {
            return;
        };
        tracing::info!("listening for other instances' news; reading what may have been missed");
        store.shared.positions.doubt_all();
        store.shared.watchers.missed();
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => hear(&store, &notification),
                // The connection was lost (sqlx says so, not reconnecting: see `listening`).
                Ok(None) => {
                    tracing::warn!("the listener's connection was lost; reconnecting");
                    break;
                }
                Err(_) if store.listen_pool.is_closed() => return,
                Err(e) => {
                    tracing::warn!(error = %e, "the listener failed; reconnecting");
                    break;
                }
            }
        }
    }
}

/// A listener on a new connection, `LISTEN` answered; None once the store is closed. Tries until
/// the database answers (each attempt lasts the listener pool's acquire timeout, sqlx trying to
/// connect meanwhile with a backoff of up to a fifth of it, so the database is found within
/// about 200 ms of its return).
async fn listening(store: &Store) -> Option<PgListener> {
    loop {
        if store.listen_pool.is_closed() {
            return None;
        }
        let attempt = async {
            let mut listener = PgListener::connect_with(&store.listen_pool).await?;
            // A lost connection ends this listener (the loop above makes the next one).
            listener.eager_reconnect(false);
            listener.listen_all([GAMES, PRESENCE, PLAYERS]).await?;
            Ok::<_, sqlx::Error>(listener)
        };
        match attempt.await {
            Ok(listener) => return Some(listener),
            Err(_) if store.listen_pool.is_closed() => return None,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for other instances' news; retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

fn hear(store: &Store, notification: &PgNotification) {
    let payload = notification.payload();
    match notification.channel() {
        GAMES => match announce::parse(payload) {
            Some(Heard::Changed(news)) => {
                store.shared.positions.heard(&news.id, news.version);
                store.shared.watchers.heard(&news);
            }
            Some(Heard::Deleted(id)) => {
                store.shared.positions.forget(id);
                store.shared.watchers.deleted(id);
            }
            None => tracing::warn!(payload, "unreadable game news"),
        },
        PRESENCE => match parse_presence(payload) {
            Some(news) if *news.instance != *store.instance => {
                store.shared.watchers.presence_heard(&news)
            }
            Some(_) => {}
            // An instance left: read who is still there.
            None => store.shared.watchers.recheck_presence(),
        },
        PLAYERS => match PlayerNews::parse(payload) {
            Some(news) => store.shared.watchers.player_heard(&news),
            None => tracing::warn!(payload, "unreadable player news"),
        },
        _ => {}
    }
}
