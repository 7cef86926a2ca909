//! Announcing this instance's commits to the other instances, after the commit rather than
//! inside it (issue 25), and noticing when an instance died before it could announce.
//!
//! A transaction that has queued a `NOTIFY` takes a lock shared by the whole cluster just before
//! it commits and keeps it until its commit record is on disk. With the announcement inside every
//! game write (a trigger did it until `20261206000000_announce_after_commit.sql`), the writes of
//! all instances waited for each other's WAL flushes one at a time: about 450 moves/s on this
//! machine, one or two instances alike, while the disk could flush far more commits at once. Now
//! a write commits alone, so concurrent commits share their flushes (PostgreSQL's own group
//! commit), and then hands its announcement to this instance's [`Announcer`]: one task sends
//! everything queued while it was busy as one statement, on a connection of its own with
//! `synchronous_commit = off`, so it holds that lock for the moment it takes to queue the
//! notifications, not for a flush.
//!
//! The request that made the change is answered once its announcement has been sent (or after
//! the busy timeout, should the database not take it): an answered change is one the other
//! instances hear of, unless the database itself goes down — and then their listeners lose their
//! connections too, and read everything afresh when they listen again ([`listen`](super::listen)).
//!
//! What else can lose an announcement, and what makes up for it:
//! - the announcer's statement fails (its connection cut, the database busy): it sends the same
//!   batch again, on a new connection if need be, until it goes out;
//! - the instance dies between a commit and its announcement (the client got no answer; when it
//!   retries, it finds its change made): the others notice within [`VIGIL`], from
//!   `server_instances` and `pg_stat_activity` (the kernel closes a killed process's sockets and
//!   PostgreSQL ends their sessions; a machine that vanished is noticed when its heartbeat is
//!   [`GONE_AFTER`] old), and read afresh what they learned from news: every live socket gets a
//!   fresh state and every running clock's timer is armed from the database, as after a
//!   listener's reconnection. An instance's row is made at its start, right after the migrations
//!   and before it serves anything, so an instance that has committed anything has a row by which
//!   the others notice its death.
//!
//! One instance's announcements go out in the order they were queued. Two instances' announcements
//! of one game may still arrive in any order, and a watcher hears its own instance's commits
//! directly and then again through the listener: the watchers keep the newest version
//! ([`Watch`](crate::store::Watch)).
//!
//! The payloads, on the channel `gomoku_games`: "<id> <version> <timer instant or ->" (the flag
//! fall or the first offer to lapse, as [`timestamp`] writes it), or "<id> deleted".

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::postgres::PgPool;
use tokio::sync::{watch, Notify};

use super::Store;
use crate::store::games::StoredGame;
use crate::store::presence::GONE_AFTER;
use crate::store::{parse_timestamp, timestamp, GameNews, StoreError};

/// Channel of game changes.
pub(super) const GAMES: &str = "gomoku_games";
/// Channel of news for one player's live channel (`store::seeks::PlayerNews`).
pub(super) const PLAYERS: &str = "gomoku_players";
/// How often an instance looks for instances that died since it last looked.
pub(super) const VIGIL: Duration = Duration::from_secs(1);
/// Pause before sending a batch again after a failure.
const RETRY: Duration = Duration::from_millis(100);

/// The announcements this instance has queued, and how far they have been sent.
#[derive(Debug)]
pub(super) struct Announcer {
    // A std Mutex, not tokio's: nothing awaits while it is held.
    queue: Mutex<Queue>,
    /// Wakes the sending task.
    wake: Notify,
    /// The number of announcements sent so far (they are numbered from 1 as they are queued).
    sent: watch::Sender<u64>,
}

#[derive(Debug, Default)]
struct Queue {
    payloads: Vec<String>,
    /// The number of announcements queued so far.
    queued: u64,
}

impl Default for Announcer {
    fn default() -> Announcer {
        Announcer {
            queue: Mutex::default(),
            wake: Notify::new(),
            sent: watch::Sender::new(0),
        }
    }
}

impl Announcer {
    /// Queues `payloads` (in order); the number the last of them has.
    fn queue(&self, payloads: impl IntoIterator<Item = String>) -> u64 {
        let queued = {
            let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            let before = queue.payloads.len();
            queue.payloads.extend(payloads);
            queue.queued += (queue.payloads.len() - before) as u64;
            queue.queued
        };
        // A permit is kept if the task is not waiting yet: no announcement is left behind.
        self.wake.notify_one();
        queued
    }

    /// Wakes the sending task to find its connection closed.
    pub(super) fn stop(&self) {
        self.wake.notify_one();
    }

    /// Everything queued and not yet taken, with the number of the last of it.
    fn take(&self) -> (Vec<String>, u64) {
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        (std::mem::take(&mut queue.payloads), queue.queued)
    }

    /// Waits until announcement `number` has been sent, at most `patience`.
    async fn sent(&self, number: u64, patience: Duration) {
        let mut sent = self.sent.subscribe();
        let waited = tokio::time::timeout(patience, sent.wait_for(|&s| s >= number)).await;
        if waited.is_err() {
            tracing::warn!("an announcement is late; answering without waiting for it");
        }
    }
}

/// The announcement of `game` as it now is.
pub(super) fn changed(game: &StoredGame) -> String {
    let due = game.row.due().map_or_else(|| "-".to_string(), timestamp);
    format!("{} {} {due}", game.row.id, game.row.version)
}

/// The announcement of game `id`'s deletion.
pub(super) fn deleted(id: &str) -> String {
    format!("{id} deleted")
}

/// What a game announcement says.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Heard<'a> {
    Changed(GameNews),
    Deleted(&'a str),
}

/// Reads an announcement; None for anything else.
pub(super) fn parse(payload: &str) -> Option<Heard<'_>> {
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

impl Store {
    /// Announces news for a player's live channel to every instance, this one included (its
    /// listener hears it like the others'). Sent at once, not batched: pairings are few.
    pub(in crate::store) async fn tell_player(&self, payload: &str) -> Result<(), StoreError> {
        sqlx::query("select pg_notify($1, $2)")
            .bind(PLAYERS)
            .bind(payload)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Announces `payloads` to the other instances, in order; returns once they are sent, or
    /// after the busy timeout.
    pub(super) async fn announce(&self, payloads: impl IntoIterator<Item = String>) {
        let number = self.announcer.queue(payloads);
        self.announcer.sent(number, self.busy).await;
    }

    /// Instances whose row says they were here, but which are gone: no connection of theirs is
    /// left, or their heartbeat is too old.
    async fn gone(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "select i.id from server_instances i where i.id <> $1 \
             and (i.seen_at < now() - make_interval(secs => $2) \
               or not exists (select 1 from pg_stat_activity s \
                 where s.datname = current_database() and s.application_name in \
                   ('gomoku-server ' || i.id, 'gomoku-listener ' || i.id, \
                    'gomoku-notifier ' || i.id)))",
        )
        .bind(&*self.instance)
        .bind(GONE_AFTER.as_secs_f64())
        .fetch_all(&self.pool)
        .await?)
    }
}

/// Sends the queued announcements until the store closes: each time, all that waits, in one
/// statement.
pub(super) async fn send(pool: PgPool, announcer: Arc<Announcer>) {
    loop {
        announcer.wake.notified().await;
        loop {
            let (payloads, last) = announcer.take();
            if payloads.is_empty() {
                break;
            }
            loop {
                if pool.is_closed() {
                    return;
                }
                let sent = sqlx::query("select pg_notify($1, p) from unnest($2::text[]) as p")
                    .bind(GAMES)
                    .bind(&payloads)
                    .execute(&pool)
                    .await;
                match sent {
                    Ok(_) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "could not announce; trying again");
                        tokio::time::sleep(RETRY).await;
                    }
                }
            }
            announcer.sent.send_replace(last);
        }
        if pool.is_closed() {
            return;
        }
    }
}

/// Looks every [`VIGIL`] for instances gone since the last look; when there is one, the
/// watchers read afresh what they learned from the others' news (what it committed last may
/// never have been announced).
pub(super) async fn vigil(store: Store) {
    let mut mourned: HashSet<String> = HashSet::new();
    let mut tick = tokio::time::interval(VIGIL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if store.pool.is_closed() {
            return;
        }
        let gone = match store.gone().await {
            Ok(gone) => gone,
            Err(e) => {
                tracing::warn!(error = %e, "could not look for instances gone");
                continue;
            }
        };
        let new: Vec<&String> = gone.iter().filter(|id| !mourned.contains(*id)).collect();
        if !new.is_empty() {
            tracing::info!(
                instances = ?new,
                "instances gone; reading afresh what their last news may have missed"
            );
            store.shared.positions.doubt_all();
            store.shared.watchers.missed();
        }
        // Rows swept since are forgotten; an instance back from the dead (a listener that
        // reconnected) may be mourned again.
        mourned = gone.into_iter().collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The payloads read back; anything else is not news.
    #[test]
    fn game_announcements() {
        assert_eq!(
            parse("g1 3 -"),
            Some(Heard::Changed(GameNews {
                id: "g1".into(),
                version: 3,
                deadline: None
            }))
        );
        let Some(Heard::Changed(timed)) = parse("g1 4 2026-12-03T10:00:00.000000Z") else {
            panic!("a deadline reads back");
        };
        assert_eq!(
            timed.deadline.map(timestamp).as_deref(),
            Some("2026-12-03T10:00:00.000000Z")
        );
        assert_eq!(parse(&deleted("g1")), Some(Heard::Deleted("g1")));
        assert_eq!(parse("g1 x -"), None);
        assert_eq!(parse("g1 3 yesterday"), None);
        assert_eq!(parse(""), None);
    }
}
