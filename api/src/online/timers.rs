//! Flag timers: a game whose clock runs has a timer here that ends it on time at its deadline,
//! even if no request comes — and the live hub pushes the timed-out state like any other change.
//!
//! Timers are armed by the store's commit hooks: every committed change of a game with a running
//! clock arms a timer for that version and deadline (replacing the one before), and a change
//! that stops the clock disarms it. When a timer fires it reloads the game and writes the flag
//! fall guarded by the version it was armed for: if the game changed meanwhile, the write
//! changes nothing (the change armed a newer timer). At start, [`Timers::rearm_all`] arms every
//! running clock from the database; a deadline that passed while the server was down fires at
//! once, and the game ends at that deadline.
//!
//! Only one process can know which timers run: they are this process's tasks. With several
//! instances each may arm a timer for the same game; the version-guarded write lets exactly one
//! of them end it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;
use tokio::task::AbortHandle;

use super::clock::flag_fall;
use crate::store::games::{self, StoredGame, Written};
use crate::store::{now_exact, Db, StoreError, Watch};

/// How long a timer waits before trying again when its write failed (the database busy).
const RETRY: Duration = Duration::from_secs(1);
/// How many times it tries; past that a late move still finds the flag fallen.
const ATTEMPTS: usize = 60;

/// A timer waiting for a deadline.
struct Armed {
    version: i64,
    task: AbortHandle,
}

type ArmedMap = Arc<Mutex<HashMap<String, Armed>>>;

/// This process's flag timers.
pub struct Timers {
    db: Db,
    // A std Mutex, not tokio's: nothing awaits while it is held (the commit hooks take it).
    armed: ArmedMap,
}

fn lock(armed: &ArmedMap) -> std::sync::MutexGuard<'_, HashMap<String, Armed>> {
    armed.lock().unwrap_or_else(|p| p.into_inner())
}

impl Timers {
    pub fn new(db: Db) -> Timers {
        Timers {
            db,
            armed: Default::default(),
        }
    }

    /// Arms the timer of game `id` at `version` for `deadline`, replacing an older one; with no
    /// deadline, disarms it.
    fn arm(&self, id: &str, version: i64, deadline: Option<OffsetDateTime>) {
        let mut armed = lock(&self.armed);
        if let Some(old) = armed.get(id) {
            if old.version > version {
                // A hook for an older version: the newer timer stands.
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
            fire(&db, &game, version, deadline).await;
            let mut armed = lock(&all);
            if armed.get(&game).is_some_and(|a| a.version == version) {
                armed.remove(&game);
            }
        });
        armed.insert(
            id.to_string(),
            Armed {
                version,
                task: task.abort_handle(),
            },
        );
    }

    /// Arms a timer for every running clock in the database (at start); how many.
    pub async fn rearm_all(&self) -> Result<usize, StoreError> {
        let running = games::running_clocks(&self.db).await?;
        for clock in &running {
            self.arm(&clock.id, clock.version, Some(clock.deadline));
        }
        Ok(running.len())
    }

    /// Timers armed now.
    pub fn armed(&self) -> usize {
        lock(&self.armed).len()
    }
}

impl Watch for Timers {
    fn changed(&self, game: &Arc<StoredGame>) {
        let deadline = game.row.clock.and_then(|c| c.deadline);
        if deadline.is_some() || lock(&self.armed).contains_key(&game.row.id) {
            self.arm(&game.row.id, game.row.version, deadline);
        }
    }

    fn deleted(&self, id: &str) {
        if let Some(old) = lock(&self.armed).remove(id) {
            old.task.abort();
        }
    }
}

/// Waits for `deadline`, then ends game `id` on time if it is still at `version` and its flag
/// has fallen.
async fn fire(db: &Db, id: &str, version: i64, deadline: OffsetDateTime) {
    for _ in 0..ATTEMPTS {
        // The deadline is wall-clock time; sleep again if the machine's clock was set back.
        loop {
            let wait = deadline - OffsetDateTime::now_utc();
            match Duration::try_from(wait) {
                Ok(wait) if !wait.is_zero() => tokio::time::sleep(wait).await,
                _ => break,
            }
        }
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
    let Some(change) = flag_fall(&stored, now_exact()) else {
        return Ok(());
    };
    // A flag fall never reopens a game or seats anyone: the cap has nothing to count.
    match games::commit(db, change, u32::MAX).await? {
        Written::Stored(_) => tracing::info!(game = %id, "flag fell"),
        Written::Stale | Written::OverCap => {}
    }
    Ok(())
}
