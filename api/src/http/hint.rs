//! `GET /api/v1/games/{id}/hint`: the engine's suggestion for the side to move, under a short
//! budget and the same concurrency cap as the AI's moves. Each hint costs a search, so hints
//! count against a per-session bucket of their own (429 RATE_LIMITED past it). A hint must not
//! help a player against a person: online games have none (409 HINTS_DISABLED).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::GameId;
use super::responses::{BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use crate::state::AppState;
use crate::store::games::Mode;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/games/{id}/hint", get(hint))
}

/// A suggested move.
#[derive(Debug, Serialize, ToSchema)]
pub struct HintView {
    pub row: usize,
    pub col: usize,
    /// Why, in words: "wins: five", "blocks an open four", "VCF in 7", "best by search".
    pub reason: String,
}

/// A hint for the side to move.
#[utoipa::path(
    get, path = "/api/v1/games/{id}/hint", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The suggested move", body = HintView),
        Unauthorized,
        GameNotFound,
        (status = 409, description = "GAME_OVER; HINTS_DISABLED in an online game", body = ErrorBody),
        RateLimited,
        BusyOrAiBusy,
    )
)]
pub async fn hint(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<HintView>, ApiError> {
    let stored = state.games.load(&player.id, &id).await?;
    if stored.row.mode == Mode::Online {
        return Err(ApiError::HintsDisabled);
    }
    if stored.game.is_over() {
        return Err(ApiError::GameOver);
    }
    state.limits.hint(&player.session)?;
    let hint = state
        .ai
        .hint(&player.id, stored.game.clone())
        .await?
        .ok_or_else(|| ApiError::internal("the engine had no hint in an open game"))?;
    Ok(Json(HintView {
        row: hint.point.row,
        col: hint.point.col,
        reason: hint.reason,
    }))
}
