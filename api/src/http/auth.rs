//! Who is asking: the `Authorization: Bearer <token>` header turned into the token's hash
//! ([`Bearer`]) or into the player of its session ([`Player`]).
//!
//! The [`Player`] extractor takes what it needs from the application state through `FromRef`
//! (the database, the [`Sessions`], the rate [`Limits`]) and applies the per-token write limit
//! to every POST, PATCH and DELETE (moves, joins, offers, resignations, renames…), so only valid
//! sessions take room in the limiter.

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{header, Method};

use super::error::ApiError;
use crate::auth::{hash_token, is_token, Sessions};
use crate::limits::Limits;
use crate::store::Db;

/// The token in an `Authorization: Bearer <64 hex digits>` header, if well formed.
fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && is_token(token)).then_some(token)
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
    use crate::auth::new_token;
    use axum::http::Request;

    fn parts_with(auth: Option<&str>) -> Parts {
        let mut builder = Request::builder().uri("/api/v1/games");
        if let Some(value) = auth {
            builder = builder.header(header::AUTHORIZATION, value);
        }
        builder.body(()).unwrap().into_parts().0
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
