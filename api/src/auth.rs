//! Bearer tokens: making them, and turning an `Authorization` header into a player.
//!
//! A token is 256 random bits written as 64 hex digits. Only its SHA-256 is stored; a request's
//! token is hashed, looked up by that hash, and the stored hash compared in constant time.
//! Sessions are never revoked, so a small in-memory cache of hash → player saves the lookup on
//! the hot path. Tokens are never logged. The [`Player`] extractor also applies the per-token
//! write rate limit, so only valid sessions take room in the limiter.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, Method};
use governor::clock::{Clock, DefaultClock};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;
use crate::state::AppState;
use crate::store::players;

/// Sessions remembered in memory; past this the cache starts over (it is only a shortcut).
const CACHE_LIMIT: usize = 100_000;

/// A new token: 256 bits from the OS-seeded generator, as 64 lowercase hex digits.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The token in an `Authorization: Bearer <64 hex digits>` header, if well formed.
fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer")
        && token.len() == 64
        && token.bytes().all(|b| b.is_ascii_hexdigit()))
    .then_some(token)
}

/// Token hash → player id for sessions seen recently.
#[derive(Debug, Default)]
pub struct SessionCache {
    // A std Mutex, not tokio's: nothing awaits while it is held.
    entries: Mutex<HashMap<[u8; 32], String>>,
}

impl SessionCache {
    fn get(&self, hash: &[u8; 32]) -> Option<String> {
        self.entries.lock().ok()?.get(hash).cloned()
    }

    fn put(&self, hash: [u8; 32], player_id: String) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= CACHE_LIMIT {
                entries.clear();
            }
            entries.insert(hash, player_id);
        }
    }
}

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Player {
    pub id: String,
}

impl FromRequestParts<AppState> for Player {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Player, ApiError> {
        let token = bearer(parts).ok_or(ApiError::Unauthorized)?;
        let hash = hash_token(&token.to_ascii_lowercase());
        let id = match state.sessions.get(&hash) {
            Some(id) => id,
            None => {
                let (stored, id) = players::session_by_hash(&state.db, &hash)
                    .await?
                    .ok_or(ApiError::Unauthorized)?;
                if !bool::from(stored.as_slice().ct_eq(&hash[..])) {
                    return Err(ApiError::Unauthorized);
                }
                state.sessions.put(hash, id.clone());
                id
            }
        };
        if parts.method == Method::POST || parts.method == Method::DELETE {
            if let Some(limiter) = &state.limiter {
                if let Err(not_until) = limiter.check_key(&hash) {
                    let wait = not_until.wait_time_from(DefaultClock::default().now());
                    return Err(ApiError::RateLimited { retry_after: wait });
                }
            }
        }
        Ok(Player { id })
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
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_ne!(hash_token(&a), hash_token(&b));
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
