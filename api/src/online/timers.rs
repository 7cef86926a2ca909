//! Flag timers: a game whose clock runs has a timer here that ends it on time at its deadline,
//! even if no request comes — and the live hub pushes the timed-out state like any other change.
//! The same timer clears a pending offer when it lapses unanswered ([`offers::lapse`]), so the
//! players' sockets hear that it is gone: a game's timer is due at the earlier of its flag fall
//! and its first offer's expiry ([`GameRow::due`](crate::store::games::GameRow::due)).
//!
//! Timers are armed by the store's commit hooks: every committed change of a game with a running
//! clock or a pending offer arms a timer for that version and instant (replacing the one
//! before), and a change that leaves neither disarms it. When a timer fires it reloads the game
//! and writes the flag fall, or else the lapse of the expired offers, guarded by the version it
//! was armed for: if the game changed meanwhile, the write changes nothing (the change armed a
//! newer timer). At start, [`Timers::rearm_all`] arms every game's timer from the database; an
//! instant that passed while the server was down fires at once, and a game ends at its deadline.
//!
//! Only one process can know which timers run: they are this process's tasks. With several
//! instances on PostgreSQL, every instance arms a timer for every running clock: from its own
//! commits, and from the other instances' news, which carries the deadline (and from the stored
//! clocks again whenever that news may have had a gap). So a flag falls on time even if the
//! instance that started the clock is gone; when it falls, every instance fires, and the
//! version-guarded write lets exactly one of them end the game (the others find the version moved
//! on and write nothing).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use time::OffsetDateTime;
use tokio::task::AbortHandle;

use super::clock::flag_fall;
use super::offers;
use crate::store::games::{self, StoredGame, Written};
use crate::store::{now_exact, Db, GameNews, StoreError, Watch};

/// How long a timer waits before trying again when its write failed (the database busy).
const RETRY: Duration = Duration::from_secs(1);
/// How many times it tries; past that a late move still finds the flag fallen.
const ATTEMPTS: usize = 60;

/// A timer waiting for a deadline.
struct Armed {
    version: i64,
    deadline: OffsetDateTime,
    task: AbortHandle,
}

type ArmedMap = Arc<Mutex<HashMap<String, Armed>>>;

/// This process's flag timers.
pub struct Timers {
    /// Itself, for the tasks it starts.
    me: Weak<Timers>,
    db: Db,
    // A std Mutex, not tokio's: nothing awaits while it is held (the commit hooks take it).
    armed: ArmedMap,
}

fn lock(armed: &ArmedMap) -> std::sync::MutexGuard<'_, HashMap<String, Armed>> {
    armed.lock().unwrap_or_else(|p| p.into_inner())
}

impl Timers {
    pub fn new(db: Db) -> Arc<Timers> {
        Arc::new_cyclic(|me| Timers {
            me: me.clone(),
            db,
            armed: Default::default(),
        })
    }

    /// Arms the timer of game `id` at `version` for `deadline`, replacing an older one; with no
    /// deadline, disarms it.
    fn arm(&self, id: &str, version: i64, deadline: Option<OffsetDateTime>) {
        let mut armed = lock(&self.armed);
        if let Some(old) = armed.get(id) {
            if old.version > version || (old.version == version && Some(old.deadline) == deadline) {
                // News of an older version, or of this one again: the timer armed stands.
                return;
            }
        }
        if let Some(old) = armed.remove(id) {
            old.task.abort();
        }
        let Some(deadline) = deadline else {
            return;
        };
        let (db, all, game) = (self.db.clone(), self.armed.clone(), id.to_string());
        let task = tokio::spawn(async move {
            wait_until(deadline).await;
            // From here on the timer writes, and nothing may abort it half-way: the write's own
            // commit hook (or, on PostgreSQL, its news coming back) arms the next version, which
            // would otherwise cancel the write that armed it while it waits for its answer.
            {
                let mut armed = lock(&all);
                if armed.get(&game).is_some_and(|a| a.version == version) {
                    armed.remove(&game);
                }
            }
            fire(&db, &game, version).await;
        });
        armed.insert(
            id.to_string(),
            Armed {
                version,
                deadline,
                task: task.abort_handle(),
            },
        );
    }

    /// Arms a timer for every running clock and pending offer in the database (at start); how
    /// many games.
    pub async fn rearm_all(&self) -> Result<usize, StoreError> {
        let due = games::due_games(&self.db).await?;
        for game in &due {
            self.arm(&game.id, game.version, Some(game.due));
        }
        Ok(due.len())
    }

    /// Timers armed now.
    pub fn armed(&self) -> usize {
        lock(&self.armed).len()
    }
}

impl Watch for Timers {
    fn changed(&self, game: &Arc<StoredGame>) {
        self.heard(&GameNews {
            id: game.row.id.clone(),
            version: game.row.version,
            deadline: game.row.due(),
        });
    }

    fn heard(&self, news: &GameNews) {
        if news.deadline.is_some() || lock(&self.armed).contains_key(&news.id) {
            self.arm(&news.id, news.version, news.deadline);
        }
    }

    fn missed(&self) {
        let Some(timers) = self.me.upgrade() else {
            return;
        };
        tokio::spawn(async move {
            super::patiently("re-arm the running clocks", || timers.rearm_all()).await;
        });
    }

    fn deleted(&self, id: &str) {
        if let Some(old) = lock(&self.armed).remove(id) {
            old.task.abort();
        }
    }
}

/// Sleeps until `deadline`, wall-clock time: again if the machine's clock was set back.
async fn wait_until(deadline: OffsetDateTime) {
    loop {
        let wait = deadline - OffsetDateTime::now_utc();
        match Duration::try_from(wait) {
            Ok(wait) if !wait.is_zero() => tokio::time::sleep(wait).await,
            _ => return,
        }
    }
}

/// Ends game `id` on time if it is still at `version` and its flag has fallen, or else clears its
/// lapsed offers (retrying while the database is busy).
async fn fire(db: &Db, id: &str, version: i64) {
    for _ in 0..ATTEMPTS {
        match try_fire(db, id, version).await {
            Ok(()) => return,
            Err(e) => {
                tracing::warn!(game = %id, error = %e, "could not end a game on time; retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
    tracing::error!(game = %id, "gave up ending a game on time");
}

async fn try_fire(db: &Db, id: &str, version: i64) -> Result<(), StoreError> {
    let Some(stored) = games::load(db, id).await? else {
        return Ok(());
    };
    if stored.row.version != version {
        return Ok(());
    }
    let now = now_exact();
    let (change, what) = match flag_fall(&stored, now) {
        Some(change) => (change, "flag fell"),
        None => match offers::lapse(&stored, now) {
            Some(change) => (change, "offer lapsed"),
            None => return Ok(()),
        },
    };
    // A flag fall or a lapse never reopens a game or seats anyone: the cap has nothing to count.
    // Written through the game service's commit, where every ending of a game passes.
    match crate::games::commit(db, change, u32::MAX).await? {
        Written::Stored(_) => tracing::info!(game = %id, "{what}"),
        Written::Stale | Written::OverCap => {}
    }
    Ok(())
}
