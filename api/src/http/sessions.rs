//! `POST /api/v1/sessions`: a bearer token for a new anonymous player, or, with WeChat
//! configured, for the player behind a `wx.login` code.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::extract::JsonOrEmpty;
use super::openapi::{BadBody, Busy};
use crate::auth::{hash_token, new_token};
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::players;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/sessions", post(create))
}

/// Body of `POST /sessions`; may be empty.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct SessionRequest {
    /// The code from `wx.login`; ignored unless the server has WeChat credentials.
    pub code: Option<String>,
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
    post, path = "/api/v1/sessions", tag = "sessions",
    request_body(content = Option<SessionRequest>, description = "May be empty"),
    responses(
        (status = 201, description = "A new session", body = SessionResponse),
        BadBody,
        (status = 401, description = "UNAUTHORIZED: the WeChat code exchange failed", body = ErrorBody),
        Busy,
    )
)]
pub async fn create(
    State(state): State<AppState>,
    JsonOrEmpty(body): JsonOrEmpty<SessionRequest>,
) -> Result<(StatusCode, Json<SessionResponse>), ApiError> {
    let player_id = match &state.wechat {
        None => players::create_anonymous(&state.db).await?,
        Some(wechat) => {
            let code = body
                .code
                .filter(|c| !c.is_empty())
                .ok_or(ApiError::Unauthorized)?;
            let openid = wechat.openid(&code).await.map_err(|e| {
                tracing::warn!(error = %e, "wechat code exchange failed");
                ApiError::Unauthorized
            })?;
            players::find_or_create_wechat(&state.db, &openid).await?
        }
    };
    let token = new_token();
    players::create_session(&state.db, &player_id, &hash_token(&token)).await?;
    Ok((
        StatusCode::CREATED,
        Json(SessionResponse { token, player_id }),
    ))
}
