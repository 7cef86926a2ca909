//! Bearer tokens and sessions: making tokens, and telling the player of a token's session.
//!
//! A token is 256 random bits written as 64 hex digits. Only its SHA-256 is stored and looked
//! up. A session expires once unused for the idle time (401 SESSION_EXPIRED, which a client
//! answers by asking for a new session with `previousToken`); its last use is written at most
//! once a day, so that reads stay reads. [`Sessions`] remembers recently seen sessions so the hot
//! path does not read the database, for as long as the store says a session read may be believed
//! (a minute on SQLite, not at all on PostgreSQL, where any instance may end a session); tokens
//! are never logged.
//!
//! The HTTP edge reads the token from the `Authorization` header and asks [`Sessions::player`]
//! (the extractor `http::auth::Player`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::RngCore;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::store::{self, players, Db, StoreError};

/// Sessions remembered in memory; past this the cache starts over (it is only a shortcut).
const CACHE_LIMIT: usize = 100_000;
/// The stored last use is refreshed once it is this old.
const REFRESH_AFTER: Duration = Duration::from_secs(86_400);

/// A new token: 256 bits from the OS-seeded generator, as 64 lowercase hex digits.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// Whether `token` has the shape of a token this server hands out: 64 hex digits.
pub fn is_token(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The hash a token is stored and looked up under (hex digits in either case name one token).
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.to_ascii_lowercase().as_bytes()).into()
}

/// Why a token gives no player.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The token names no session: never issued, or ended.
    #[error("no such session")]
    Unknown,
    /// The session went unused for the idle time.
    #[error("the session has expired")]
    Expired,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A remembered session.
#[derive(Debug, Clone)]
struct Seen {
    player_id: String,
    last_used: OffsetDateTime,
    /// When it was last read from the database.
    read_at: Instant,
}

/// The sessions' rules (idle time, renewal grace) and the cache of recently seen ones, token
/// hash → player.
///
/// The cache is this process's alone; it stays right within this process because a logout or
/// renewal drops it, and across instances because an entry is believed only for `recheck`
/// ([`Db::session_recheck`]: zero on PostgreSQL, so there every request reads its session, and a
/// logout or expiry through one instance holds on all at once).
#[derive(Debug)]
pub struct Sessions {
    idle: Duration,
    renew_grace: Duration,
    recheck: Duration,
    // A std Mutex, not tokio's: nothing awaits while it is held.
    seen: Mutex<HashMap<[u8; 32], Seen>>,
}

impl Sessions {
    pub fn new(idle: Duration, renew_grace: Duration, recheck: Duration) -> Sessions {
        Sessions {
            idle,
            renew_grace,
            recheck,
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// The stored form of the oldest last use a session may have and still be renewed. Past it
    /// a session can neither be used nor renewed, and the sweep deletes it.
    pub fn renewable_since(&self) -> String {
        store::ago(self.idle + self.renew_grace)
    }

    /// Drops a session from the cache (ended or renewed).
    pub fn forget(&self, hash: &[u8; 32]) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.remove(hash);
        }
    }

    fn remembered(&self, hash: &[u8; 32]) -> Option<Seen> {
        let seen = self.seen.lock().ok()?.get(hash).cloned()?;
        (seen.read_at.elapsed() < self.recheck).then_some(seen)
    }

    fn remember(&self, hash: [u8; 32], session: Seen) {
        if self.recheck.is_zero() {
            return;
        }
        if let Ok(mut seen) = self.seen.lock() {
            if seen.len() >= CACHE_LIMIT && !seen.contains_key(&hash) {
                seen.clear();
            }
            seen.insert(hash, session);
        }
    }

    /// The player of the session under `hash`: [`SessionError::Unknown`] when there is none,
    /// [`SessionError::Expired`] when it has gone unused for the idle time. Refreshes the stored
    /// last use when it is a day old.
    pub async fn player(&self, db: &Db, hash: [u8; 32]) -> Result<String, SessionError> {
        let mut session = match self.remembered(&hash) {
            Some(seen) => seen,
            None => {
                let Some(stored) = players::session(db, &hash).await? else {
                    self.forget(&hash);
                    return Err(SessionError::Unknown);
                };
                let seen = Seen {
                    player_id: stored.player_id,
                    last_used: stored.last_used,
                    read_at: Instant::now(),
                };
                self.remember(hash, seen.clone());
                seen
            }
        };
        let unused = OffsetDateTime::now_utc() - session.last_used;
        if unused > self.idle {
            return Err(SessionError::Expired);
        }
        if unused > REFRESH_AFTER {
            // Failing to record the use costs nothing now (the session stays valid), so the
            // request goes on; the next one tries again.
            match players::touch_session(db, hash).await {
                Ok(at) => {
                    session.last_used = at;
                    self.remember(hash, session.clone());
                }
                Err(e) => tracing::warn!(error = %e, "could not record a session's use"),
            }
        }
        Ok(session.player_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens are 64 hex digits and differ every time.
    #[test]
    fn tokens_are_long_and_fresh() {
        let (a, b) = (new_token(), new_token());
        assert!(is_token(&a));
        assert_ne!(a, b);
        assert_ne!(hash_token(&a), hash_token(&b));
        assert_eq!(hash_token(&a), hash_token(&a.to_ascii_uppercase()));
    }
}
