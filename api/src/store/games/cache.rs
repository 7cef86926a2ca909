//! The position cache: each game as this process last committed (or, on PostgreSQL, read) it,
//! with its rebuilt position, so the hot path (load, play, commit) neither reads every move nor
//! replays them through the judge.
//!
//! On SQLite only the writer task changes entries (in hooks that run right after each commit,
//! in commit order), so an entry is always the committed state of its game as long as this
//! process is the only writer of its database file. Loads never fill it there, since a load
//! racing a write or a delete could put back a state that is no longer true. A game not in the
//! cache (not written since the start, or evicted) is read from the database.
//!
//! With several instances on one PostgreSQL database, a load checks an entry against the stored
//! version before believing it, and fills it. An entry never goes back to an older version (a
//! load racing this instance's own commit cannot undo it), and it remembers the newest version
//! the other instances' news has named, so that [`PositionCache::current`] can tell a game that
//! may be believed without asking the database — for a write, whose version guard checks it
//! anyway — from one known to have moved on. When news may have been missed (the listener
//! reconnected, an instance died), every entry is doubted until it is read or written again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::model::StoredGame;

/// Games remembered at once; past this the cache starts over (it is only a shortcut).
const LIMIT: usize = 10_000;

#[derive(Debug)]
struct Entry {
    stored: Arc<StoredGame>,
    /// The newest version news has named (at least the entry's own).
    heard: i64,
    /// News may have been missed since the entry was last read or written.
    doubted: bool,
}

impl Entry {
    fn current(&self) -> bool {
        !self.doubted && self.heard <= self.stored.row.version
    }
}

#[derive(Debug, Default)]
pub struct PositionCache {
    // A std Mutex, not tokio's: nothing awaits while it is held.
    entries: Mutex<HashMap<String, Entry>>,
}

impl PositionCache {
    /// Game `id` as last committed or read, whatever news there is of it since.
    pub fn get(&self, id: &str) -> Option<Arc<StoredGame>> {
        Some(self.entries.lock().ok()?.get(id)?.stored.clone())
    }

    /// Game `id` as last committed or read, unless a newer version is known of or news may have
    /// been missed since: on one process (SQLite) the game as stored, on several as stored
    /// unless another instance's change has not been heard of yet.
    pub fn current(&self, id: &str) -> Option<Arc<StoredGame>> {
        let entries = self.entries.lock().ok()?;
        let entry = entries.get(id)?;
        entry.current().then(|| entry.stored.clone())
    }

    /// Records a game as just committed, or read at its stored version; an entry at a newer
    /// version stays.
    pub fn put(&self, stored: &Arc<StoredGame>) {
        let Ok(mut entries) = self.entries.lock() else {
            return;
        };
        let version = stored.row.version;
        match entries.get_mut(&stored.row.id) {
            Some(entry) if entry.stored.row.version > version => {}
            Some(entry) => {
                entry.stored = stored.clone();
                entry.heard = entry.heard.max(version);
                entry.doubted = false;
            }
            None => {
                if entries.len() >= LIMIT {
                    entries.clear();
                }
                let entry = Entry {
                    stored: stored.clone(),
                    heard: version,
                    doubted: false,
                };
                entries.insert(stored.row.id.clone(), entry);
            }
        }
    }

    /// Notes that game `id` is stored at `version` or later (news of another instance's change).
    pub fn heard(&self, id: &str, version: i64) {
        if let Ok(mut entries) = self.entries.lock() {
            if let Some(entry) = entries.get_mut(id) {
                entry.heard = entry.heard.max(version);
            }
        }
    }

    /// Doubts every entry: news may have been missed.
    pub fn doubt_all(&self) {
        if let Ok(mut entries) = self.entries.lock() {
            for entry in entries.values_mut() {
                entry.doubted = true;
            }
        }
    }

    /// Drops a game (deleted, or found changed by someone else).
    pub fn forget(&self, id: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(id);
        }
    }
}
