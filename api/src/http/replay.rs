//! `GET /api/v1/games/{id}/replay`: the whole move list, or with `?step=N` the position after
//! the first N moves (rebuilt through the rules, so each frame is judged as it was then).

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use gomoku_rules::{Game, Point, Stone};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::extract::GameId;
use super::games::load;
use super::openapi::{Busy, GameNotFound, Unauthorized};
use super::view::{
    rule_name, status_name, win_line_view, MoveView, PointView, RuleName, StatusName,
};
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::games::Standing;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/games/{id}/replay", get(replay))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReplayQuery {
    /// A frame: the position after this many moves (0 to moveCount).
    #[param(value_type = Option<i64>, minimum = 0)]
    pub step: Option<String>,
}

/// The whole game for a replay.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    pub board_size: usize,
    pub rule: RuleName,
    pub move_count: usize,
    pub moves: Vec<MoveView>,
    pub status: StatusName,
    #[schema(minimum = 1, maximum = 2)]
    pub winner: Option<u8>,
    pub win_line: Option<Vec<PointView>>,
}

/// One frame of a replay.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayFrame {
    pub step: usize,
    /// Not in the original contract, but lets a client draw the frame on its own.
    pub board_size: usize,
    pub move_count: usize,
    pub board: Vec<Vec<u8>>,
    pub last_move: Option<MoveView>,
    #[schema(minimum = 1, maximum = 2)]
    pub current_player: Option<u8>,
    pub status: StatusName,
    #[schema(minimum = 1, maximum = 2)]
    pub winner: Option<u8>,
    pub win_line: Option<Vec<PointView>>,
}

/// Either answer of the replay endpoint.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum ReplayAnswer {
    Replay(Replay),
    Frame(ReplayFrame),
}

/// The move list, or one frame with `?step=N`.
#[utoipa::path(
    get, path = "/api/v1/games/{id}/replay", tag = "replay",
    params(("id" = String, Path, description = "Game id"), ReplayQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Without step: the moves (Replay); with step: a frame (ReplayFrame)", body = ReplayAnswer),
        (status = 400, description = "INVALID_QUERY", body = ErrorBody),
        Unauthorized,
        GameNotFound,
        (status = 422, description = "INVALID_STEP", body = ErrorBody),
        Busy,
    )
)]
pub async fn replay(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
    query: Result<Query<ReplayQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let stored = load(&state, &player, &id).await?;
    let move_count = stored.moves.len();
    let Some(step) = query.step else {
        let standing = Standing::of(&stored.game);
        return Ok(Json(Replay {
            board_size: stored.row.board_size,
            rule: rule_name(stored.row.rule),
            move_count,
            moves: stored.moves.iter().map(MoveView::from).collect(),
            status: status_name(standing.status),
            winner: standing.winner.map(Stone::as_u8),
            win_line: win_line_view(&standing.win_line),
        })
        .into_response());
    };
    let step = match step.trim().parse::<usize>() {
        Ok(n) if n <= move_count => n,
        _ => {
            return Err(ApiError::InvalidStep(format!(
                "step must be an integer from 0 to {move_count}"
            )))
        }
    };
    // The last frame is the stored game itself, resignation included.
    let replayed;
    let frame = if step == move_count {
        &stored.game
    } else {
        let points: Vec<Point> = stored.moves[..step].iter().map(|m| m.point).collect();
        replayed =
            Game::replay(stored.row.board_size, stored.row.rule, &points).map_err(|(i, e)| {
                ApiError::internal(format!("stored game {id} fails at move {i}: {e:?}"))
            })?;
        &replayed
    };
    let standing = Standing::of(frame);
    Ok(Json(ReplayFrame {
        step,
        board_size: stored.row.board_size,
        move_count,
        board: frame.board().to_rows(),
        last_move: frame.last_move().map(MoveView::from),
        current_player: frame.to_move().map(Stone::as_u8),
        status: status_name(standing.status),
        winner: standing.winner.map(Stone::as_u8),
        win_line: win_line_view(&standing.win_line),
    })
    .into_response())
}
