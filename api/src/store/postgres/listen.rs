//! The listener of the other instances' news: one connection of its own (sqlx's `PgListener`)
//! listening on `gomoku_games` (every committed change of a game, announced by a trigger) and
//! `gomoku_presence` (each instance's live connections), handing what it hears to the watchers.
//!
//! PostgreSQL delivers the notifications of other transactions in commit order, but only while
//! the connection lives: what is committed while it is down is never delivered. `PgListener`
//! reconnects by itself; each time it does (and once at the start, when the watchers may have
//! read the database before the listener listened), the watchers hear that news may have been
//! missed, and read what they keep afresh: every live socket gets a fresh state, the timers are
//! armed from the stored clocks, the others' presence is read again.

use std::time::Duration;

use sqlx::postgres::{PgListener, PgNotification};

use super::presence::parse as parse_presence;
use super::Store;
use crate::store::{parse_timestamp, GameNews};

/// Channel of game changes (see `migrations/postgres/`).
const GAMES: &str = "gomoku_games";
/// Channel of presence.
const PRESENCE: &str = "gomoku_presence";
/// Wait between attempts to reach the database.
const RETRY: Duration = Duration::from_secs(1);

/// Listens until the store closes.
pub(super) async fn run(store: Store) {
    let mut listener = loop {
        match listening(&store).await {
            Ok(listener) => break listener,
            Err(e) if store.listen_pool.is_closed() => {
                tracing::debug!(error = %e, "listener stopped before it began");
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for other instances' news; retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    };
    store.shared.watchers.missed();
    loop {
        match listener.try_recv().await {
            Ok(Some(notification)) => hear(&store, &notification),
            // The connection was lost and is back (sqlx reconnected and listens again).
            Ok(None) => {
                tracing::warn!("the listener reconnected; reading what may have been missed");
                store.shared.watchers.missed();
            }
            Err(_) if store.listen_pool.is_closed() => return,
            Err(e) => {
                tracing::warn!(error = %e, "the listener failed; reconnecting");
                tokio::time::sleep(RETRY).await;
                // Any statement makes the listener reconnect (and listen again) if it must.
                if sqlx::query("select 1").execute(&mut listener).await.is_ok() {
                    store.shared.watchers.missed();
                }
            }
        }
    }
}

async fn listening(store: &Store) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(&store.listen_pool).await?;
    listener.listen_all([GAMES, PRESENCE]).await?;
    Ok(listener)
}

fn hear(store: &Store, notification: &PgNotification) {
    let payload = notification.payload();
    match notification.channel() {
        GAMES => match parse_game(payload) {
            Some(Heard::Changed(news)) => store.shared.watchers.heard(&news),
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
        _ => {}
    }
}

/// What a game announcement says.
#[derive(Debug, PartialEq, Eq)]
enum Heard<'a> {
    Changed(GameNews),
    Deleted(&'a str),
}

/// "<id> <version> <timer instant or ->" (the flag fall or the first offer to lapse), or
/// "<id> deleted".
fn parse_game(payload: &str) -> Option<Heard<'_>> {
    let mut parts = payload.split(' ');
    let id = parts.next().filter(|id| !id.is_empty())?;
    let version = parts.next()?;
    if version == "deleted" {
        return Some(Heard::Deleted(id));
    }
    let deadline = match parts.next()? {
        "-" => None,
        text => Some(parse_timestamp(text)?),
    };
    Some(Heard::Changed(GameNews {
        id: id.to_string(),
        version: version.parse().ok()?,
        deadline,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trigger's payloads read back; anything else is not news.
    #[test]
    fn game_announcements() {
        assert_eq!(
            parse_game("g1 3 -"),
            Some(Heard::Changed(GameNews {
                id: "g1".into(),
                version: 3,
                deadline: None
            }))
        );
        let Some(Heard::Changed(timed)) = parse_game("g1 4 2026-12-03T10:00:00.000000Z") else {
            panic!("a deadline reads back");
        };
        assert_eq!(
            timed.deadline.map(crate::store::timestamp).as_deref(),
            Some("2026-12-03T10:00:00.000000Z")
        );
        assert_eq!(parse_game("g1 deleted"), Some(Heard::Deleted("g1")));
        assert_eq!(parse_game("g1 x -"), None);
        assert_eq!(parse_game("g1 3 yesterday"), None);
        assert_eq!(parse_game(""), None);
    }
}
