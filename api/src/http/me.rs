//! `GET /api/v1/me` and `PATCH /api/v1/me`: the caller's player id and display name, which the
//! other player of an online game sees. Nothing else about a player is ever shown to another:
//! not their token, not their WeChat openid.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::extract::JsonBody;
use super::responses::{BadBody, Busy, RateLimited, Unauthorized};
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::players;

/// The longest name, in characters, after trimming.
pub const MAX_NAME_CHARS: usize = 16;

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
pub struct Rename {
    /// 1 to 16 characters once spaces at either end are trimmed, without control characters.
    #[schema(
        min_length = 1,
        max_length = 16,
        pattern = "^[^\\u0000-\\u001F\\u007F-\\u009F]*[^\\u0000-\\u0020\\u007F-\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000][^\\u0000-\\u001F\\u007F-\\u009F]*$"
    )]
    pub name: String,
}

/// A name as stored: trimmed, 1 to [`MAX_NAME_CHARS`] characters, no control characters.
pub fn checked_name(raw: &str) -> Result<String, ApiError> {
    let name = raw.trim();
    let invalid = |why: &str| ApiError::InvalidName(why.to_string());
    if name.is_empty() {
        return Err(invalid("the name is empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(invalid("the name is longer than 16 characters"));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid("the name has control characters"));
    }
    Ok(name.to_string())
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
    let name = checked_name(&body.name)?;
    if !players::rename(&state.db, &player.id, &name).await? {
        return Err(ApiError::Unauthorized);
    }
    Ok(Json(Me {
        player_id: player.id,
        name,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are trimmed, then must have 1 to 16 characters and no control character.
    #[test]
    fn names() {
        assert_eq!(checked_name("  小明 ").unwrap(), "小明");
        assert_eq!(checked_name(&"棋".repeat(16)).unwrap(), "棋".repeat(16));
        assert_eq!(
            checked_name(&format!("  {}  ", "a".repeat(16))).unwrap(),
            "a".repeat(16)
        );
        for bad in [
            "",
            "   ",
            "\u{3000}",
            &"棋".repeat(17),
            "a\nb",
            "a\u{7}",
            "a\u{85}b",
        ] {
            assert!(
                matches!(checked_name(bad), Err(ApiError::InvalidName(_))),
                "{bad:?}"
            );
        }
    }
}
