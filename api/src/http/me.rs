//! `GET /api/v1/me` and `PATCH /api/v1/me`: the caller's player id and display name, which the
//! other player of an online game sees. Nothing else about a player is ever shown to another:
//! not their token, not their WeChat openid.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::JsonBody;
use super::responses::{BadBody, Busy, RateLimited, Unauthorized};
use crate::state::AppState;
use crate::store::players::{self, Name};

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/me", get(me).put(rename).patch(rename))
}

/// The caller as other players see them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Me {
    pub player_id: String,
    /// The display name: "棋手" and four digits until the player chooses one.
    pub name: String,
}

/// A new display name.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rename {
    /// 1 to 16 characters once put in NFC and trimmed of spaces at either end, all of them
    /// visible: no control or format characters (bidirectional controls, zero-width spaces and
    /// joiners, the BOM), no line or paragraph separators, nothing else that renders as nothing
    /// (a variation selector only right after a visible character), no combining mark first.
    /// Otherwise 422 INVALID_NAME.
    #[schema(
        min_length = 1,
        max_length = 16,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\uFEFF]*[^\\u0000-\\u0020\\u007F-\\u00A0\\u1680\\u2000-\\u200F\\u2028-\\u202F\\u205F-\\u206F\\u3000\\uFEFF][^\\u0000-\\u001F\\u007F-\\u009F\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\uFEFF]*$"
    )]
    pub name: String,
}

/// The caller's player id and display name.
#[utoipa::path(
    get, path = "/api/v1/me", tag = "players",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = Me),
        Unauthorized,
        Busy,
    )
)]
pub async fn me(State(state): State<AppState>, player: Player) -> Result<Json<Me>, ApiError> {
    let name = players::name(&state.db, &player.id)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    Ok(Json(Me {
        player_id: player.id,
        name,
    }))
}

/// Choose a display name. PUT is what `wx.request` can send (it has no PATCH); PATCH does the
/// same for other clients (the description copies this operation for it).
#[utoipa::path(
    put, path = "/api/v1/me", tag = "players",
    request_body = Rename,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller with the new name", body = Me),
        BadBody,
        Unauthorized,
        (status = 422, description = "INVALID_NAME", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn rename(
    State(state): State<AppState>,
    player: Player,
    JsonBody(body): JsonBody<Rename>,
) -> Result<Json<Me>, ApiError> {
    let name = Name::parse(&body.name).map_err(|e| ApiError::InvalidName(e.to_string()))?;
    if !players::rename(&state.db, &player.id, name.as_str()).await? {
        return Err(ApiError::Unauthorized);
    }
    Ok(Json(Me {
        player_id: player.id,
        name: name.into_string(),
    }))
}
