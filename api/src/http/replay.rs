//! `GET /api/v1/games/{id}/replay`: the whole move list and the result, from which a client
//! draws every frame of a replay itself.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::ApiError;
use super::extract::GameId;
use super::responses::{Busy, GameNotFound, Unauthorized};
use super::view::{MoveView, ResultView};
use super::wire::{RuleName, Wire};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/games/{id}/replay", get(replay))
}

/// The whole game for a replay.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    pub board_size: usize,
    pub rule: RuleName,
    pub move_count: usize,
    pub moves: Vec<MoveView>,
    #[serde(flatten)]
    pub result: ResultView,
}

/// The moves and the result (of a game of the caller's, or of any online game).
#[utoipa::path(
    get, path = "/api/v1/games/{id}/replay", tag = "replay",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The moves and the result", body = Replay),
        Unauthorized,
        GameNotFound,
        Busy,
    )
)]
pub async fn replay(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<Replay>, ApiError> {
    let stored = state.games.load(&player.id, &id).await?;
    Ok(Json(Replay {
        board_size: stored.row.board_size,
        rule: Wire(stored.row.rule),
        move_count: stored.moves.len(),
        moves: stored.moves.iter().map(MoveView::from).collect(),
        result: ResultView::of(&stored),
    }))
}
