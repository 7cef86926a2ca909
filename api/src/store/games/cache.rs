//! The position cache: each game as this process last committed it, with its rebuilt position,
//! so the hot path (load, play, commit) neither reads every move nor replays them through the
//! judge.
//!
//! Only the writer task changes entries (in hooks that run right after each commit, in commit
//! order), so an entry is always the committed state of its game as long as this process is the
//! only writer of its database file. Loads never fill it, since a load racing a write or a delete
//! could put back a state that is no longer true. A game not in the cache (not written since the
//! start, or evicted) is read from the database.
//!
//! Only one process can know what it holds: with several server instances on one database, an
//! entry would have to be checked against the stored version before it decides anything, or
//! dropped when another instance writes the game.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::model::StoredGame;

/// Games remembered at once; past this the cache starts over (it is only a shortcut).
const LIMIT: usize = 10_000;

#[derive(Debug, Default)]
pub struct PositionCache {
    // A std Mutex, not tokio's: nothing awaits while it is held.
    entries: Mutex<HashMap<String, Arc<StoredGame>>>,
}

impl PositionCache {
    pub fn get(&self, id: &str) -> Option<Arc<StoredGame>> {
        self.entries.lock().ok()?.get(id).cloned()
    }

    /// Records a game as just committed (called from the writer's commit hooks only).
    pub fn put(&self, stored: &Arc<StoredGame>) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= LIMIT && !entries.contains_key(&stored.row.id) {
                entries.clear();
            }
            entries.insert(stored.row.id.clone(), stored.clone());
        }
    }

    /// Drops a game (deleted, or found changed by someone else).
    pub fn forget(&self, id: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(id);
        }
    }
}
