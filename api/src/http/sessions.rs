//! Sessions: `POST /api/v1/sessions` starts one (for a new anonymous player, for the player of
//! the session the client held before, or with WeChat configured for the player behind a
//! `wx.login` code), and `DELETE /api/v1/sessions/current` ends the caller's.
//!
//! Starting a session costs a durable write and a fresh token escapes every per-token limit, so
//! it is limited per client address. A client whose session expired names its old token as
//! `previousToken` and, within the renewal grace, keeps its player and every game.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{delete, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Bearer;
use super::error::{ApiError, ErrorBody};
use super::extract::{ClientAddr, JsonOrEmpty};
use super::responses::{BadBody, Busy, RateLimited};
use crate::auth::{hash_token, is_token, new_token};
use crate::state::AppState;
use crate::store::players::{self, Previous, Who};

/// Longest `wx.login` code accepted (WeChat's are 32 characters).
const MAX_CODE_CHARS: usize = 128;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/sessions", post(create))
        .route("/api/v1/sessions/current", delete(end))
}

/// Body of `POST /sessions`; may be empty.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionRequest {
    /// The code from `wx.login`: required when the server has WeChat credentials, checked and
    /// then ignored otherwise. At most 128 characters, none of them a control character.
    #[schema(max_length = 128, pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$")]
    pub code: Option<String>,
    /// The token the client held before (64 hex digits). If it names a session of this server
    /// that is valid or expired less than the renewal grace ago, the new session is for the
    /// same player (every game kept); either way that session ends.
    #[schema(pattern = "^[0-9a-fA-F]{64}$")]
    pub previous_token: Option<String>,
}

impl SessionRequest {
    /// 400 INVALID_JSON for a code or previous token that is not of the documented shape.
    fn check(&self) -> Result<(), ApiError> {
        if let Some(code) = &self.code {
            if code.chars().count() > MAX_CODE_CHARS || code.chars().any(char::is_control) {
                return Err(ApiError::InvalidJson(format!(
                    "code must be at most {MAX_CODE_CHARS} characters, without control characters"
                )));
            }
        }
        if self.previous_token.as_deref().is_some_and(|t| !is_token(t)) {
            return Err(ApiError::InvalidJson(
                "previousToken must be 64 hex digits".into(),
            ));
        }
        Ok(())
    }
}

/// A new session.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionResponse {
    /// Send as `Authorization: Bearer <token>`.
    pub token: String,
    pub player_id: String,
}

/// Start a session.
#[utoipa::path(
    post, path = "/api/v1/sessions", tag = "sessions", operation_id = "create_session",
    request_body(content = Option<SessionRequest>, description = "May be empty"),
    responses(
        (status = 201, description = "A new session", body = SessionResponse),
        BadBody,
        (status = 401, description = "UNAUTHORIZED: the WeChat code is missing or was refused", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn create(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    JsonOrEmpty(body): JsonOrEmpty<SessionRequest>,
) -> Result<(StatusCode, Json<SessionResponse>), ApiError> {
    state.limits.new_session(client)?;
    body.check()?;
    let who = match &state.wechat {
        None => Who::Anonymous,
        Some(wechat) => {
            let code = body
                .code
                .filter(|c| !c.is_empty())
                .ok_or(ApiError::Unauthorized)?;
            let openid = wechat.openid(&code).await.map_err(|e| {
                tracing::warn!(error = %e, "wechat code exchange failed");
                ApiError::Unauthorized
            })?;
            Who::WeChat(openid)
        }
    };
    let token = new_token();
    let renewable_since = state.sessions.renewable_since();
    let previous = body.previous_token.as_deref().map(|t| Previous {
        token_hash: hash_token(t),
        renewable_since: &renewable_since,
    });
    let player_id = players::start_session(&state.db, who, hash_token(&token), previous).await?;
    if let Some(previous) = previous {
        state.sessions.forget(&previous.token_hash);
    }
    Ok((
        StatusCode::CREATED,
        Json(SessionResponse { token, player_id }),
    ))
}

/// End the caller's session (log out); also ends an expired one.
#[utoipa::path(
    delete, path = "/api/v1/sessions/current", tag = "sessions",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Ended: the token names no session from now on"),
        (status = 401, description = "UNAUTHORIZED: the token names no session", body = ErrorBody),
        Busy,
    )
)]
pub async fn end(
    State(state): State<AppState>,
    Bearer(hash): Bearer,
) -> Result<StatusCode, ApiError> {
    let ended = players::end_session(&state.db, hash).await?;
    state.sessions.forget(&hash);
    if ended {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::Unauthorized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(json: serde_json::Value) -> Result<(), ApiError> {
        serde_json::from_value::<SessionRequest>(json)
            .unwrap()
            .check()
    }

    /// Codes up to 128 characters without control characters pass; longer ones, control
    /// characters and malformed previous tokens are INVALID_JSON.
    #[test]
    fn code_and_previous_token_shapes() {
        assert!(check(serde_json::json!({})).is_ok());
        assert!(check(serde_json::json!({"code": "é".repeat(128)})).is_ok());
        assert!(check(serde_json::json!({"previousToken": "aB".repeat(32)})).is_ok());
        for bad in [
            serde_json::json!({"code": "x".repeat(129)}),
            serde_json::json!({"code": "x".repeat(60_000)}),
            serde_json::json!({"code": "a\nb"}),
            serde_json::json!({"code": "a\u{7f}"}),
            serde_json::json!({"code": "a\u{85}"}),
            serde_json::json!({"previousToken": "ab"}),
            serde_json::json!({"previousToken": "g".repeat(64)}),
        ] {
            assert!(
                matches!(check(bad.clone()), Err(ApiError::InvalidJson(_))),
                "{bad}"
            );
        }
    }
}
