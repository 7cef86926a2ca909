//! Bearer tokens and sessions: making tokens, and turning an `Authorization` header into a
//! player.
//!
//! A token is 256 random bits written as 64 hex digits. Only its SHA-256 is stored and looked
//! up. A session expires once unused for the idle time (401 SESSION_EXPIRED, which a client
//! answers by asking for a new session with `previousToken`); its last use is written at most
//! once a day, so that reads stay reads. [`Sessions`] remembers recently seen sessions so the hot
//! path does not read the database; tokens are never logged.
//!
//! The [`Player`] extractor takes what it needs from the application state through `FromRef`
//! (the database, [`Sessions`], the rate [`Limits`]) and applies the per-token write limit to
//! every POST, PATCH and DELETE (moves, joins, offers, resignations, renames…), so only valid
//! sessions take room in the limiter.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{header, Method};
use rand::RngCore;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::error::ApiError;
use crate::limits::Limits;
use crate::store::{self, players, Db};

/// Sessions remembered in memory; past this the cache starts over (it is only a shortcut).
const CACHE_LIMIT: usize = 100_000;
/// How long a remembered session is believed before it is read again, so that a logout through
/// another server instance on the same database takes effect here too.
const RECHECK: Duration = Duration::from_secs(60);
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

/// The token in an `Authorization: Bearer <64 hex digits>` header, if well formed.
fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && is_token(token)).then_some(token)
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
/// The cache is this process's alone; it stays right across instances because an entry is read
/// again after [`RECHECK`], and within this process because a logout or renewal drops it.
#[derive(Debug)]
pub struct Sessions {
    idle: Duration,
    renew_grace: Duration,
    // A std Mutex, not tokio's: nothing awaits while it is held.
    seen: Mutex<HashMap<[u8; 32], Seen>>,
}

impl Sessions {
    pub fn new(idle: Duration, renew_grace: Duration) -> Sessions {
        Sessions {
            idle,
            renew_grace,
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
        (seen.read_at.elapsed() < RECHECK).then_some(seen)
    }

    fn remember(&self, hash: [u8; 32], session: Seen) {
        if let Ok(mut seen) = self.seen.lock() {
            if seen.len() >= CACHE_LIMIT && !seen.contains_key(&hash) {
                seen.clear();
            }
            seen.insert(hash, session);
        }
    }

    /// The player of the session under `hash`: 401 UNAUTHORIZED when there is none, 401
    /// SESSION_EXPIRED when it has gone unused for the idle time. Refreshes the stored last use
    /// when it is a day old.
    pub async fn player(&self, db: &Db, hash: [u8; 32]) -> Result<String, ApiError> {
        let mut session = match self.remembered(&hash) {
            Some(seen) => seen,
            None => {
                let Some(stored) = players::session(db, &hash).await? else {
                    self.forget(&hash);
                    return Err(ApiError::Unauthorized);
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
            return Err(ApiError::SessionExpired);
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

/// The hash of a well-formed bearer token, whether or not it names a session (for logout, which
/// also ends an expired session).
#[derive(Debug, Clone, Copy)]
pub struct Bearer(pub [u8; 32]);

impl<S: Send + Sync> FromRequestParts<S> for Bearer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Bearer, ApiError> {
        let token = bearer(parts).ok_or(ApiError::Unauthorized)?;
        Ok(Bearer(hash_token(token)))
    }
}

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Player {
    pub id: String,
    /// The hash of the token the request came with: the key of its per-session limits.
    pub session: [u8; 32],
}

impl<S> FromRequestParts<S> for Player
where
    S: Send + Sync,
    Db: FromRef<S>,
    Arc<Sessions>: FromRef<S>,
    Arc<Limits>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Player, ApiError> {
        let Bearer(hash) = Bearer::from_request_parts(parts, state).await?;
        let sessions = Arc::<Sessions>::from_ref(state);
        let id = sessions.player(&Db::from_ref(state), hash).await?;
        if matches!(parts.method, Method::POST | Method::PATCH | Method::DELETE) {
            Arc::<Limits>::from_ref(state).write(&hash)?;
        }
        Ok(Player { id, session: hash })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parts_with(auth: Option<&str>) -> Parts {
        let mut builder = Request::builder().uri("/api/v1/games");
        if let Some(value) = auth {
            builder = builder.header(header::AUTHORIZATION, value);
        }
        builder.body(()).unwrap().into_parts().0
    }

    /// Tokens are 64 hex digits and differ every time.
    #[test]
    fn tokens_are_long_and_fresh() {
        let (a, b) = (new_token(), new_token());
        assert!(is_token(&a));
        assert_ne!(a, b);
        assert_ne!(hash_token(&a), hash_token(&b));
        assert_eq!(hash_token(&a), hash_token(&a.to_ascii_uppercase()));
    }

    /// Only a well-formed bearer header yields a token.
    #[test]
    fn bearer_parsing() {
        let token = new_token();
        assert_eq!(
            bearer(&parts_with(Some(&format!("Bearer {token}")))),
            Some(token.as_str())
        );
        assert_eq!(
            bearer(&parts_with(Some(&format!("bearer {token}")))),
            Some(token.as_str())
        );
        assert_eq!(bearer(&parts_with(None)), None);
        assert_eq!(bearer(&parts_with(Some(&token))), None);
        assert_eq!(bearer(&parts_with(Some("Bearer short"))), None);
        assert_eq!(bearer(&parts_with(Some(&format!("Basic {token}")))), None);
        assert_eq!(
            bearer(&parts_with(Some(&format!("Bearer {}", "z".repeat(64))))),
            None
        );
    }
}
