//! Playing a game: moves (with the AI's reply in `ai` mode), undo and resign. The decisions
//! are the game service's ([`crate::games`]): these handlers read the request, take the time it
//! arrived, call the service and render its answer.
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use gomoku_rules::Point;
use serde::Deserialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::{GameId, JsonBody, Whole};
use super::responses::{BadBody, Busy, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::{answer, GameState};
use crate::games::MoveAsked;
use crate::state::AppState;
use crate::store::now_exact;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/games/{id}/moves", post(play))
        .route("/api/v1/games/{id}/undo", post(undo))
        .route("/api/v1/games/{id}/resign", post(resign))
}

/// A move by the side to move.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// Row, 0 at the top (below the board size).
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub row: Whole,
    /// Column, 0 at the left (below the board size).
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub col: Whole,
    /// The number of moves the client believes are on the board (0 before the first move).
    /// When given and different from `moveCount`: 200 if `moveHistory[ply]` is this very move
    /// (a retried request), otherwise 409 PLY_MISMATCH.
    /// A negative ply is 400 INVALID_JSON.
    #[schema(value_type = Option<i64>, minimum = 0)]
    pub ply: Option<Whole>,
}

impl MoveRequest {
    /// The move as the game service takes it. 400 INVALID_JSON for a ply below the
    /// description's minimum: it can match no game, so it is a malformed request, not a conflict
    /// with this one (row and col are checked against the board: 422 OUT_OF_BOUNDS).
    fn asked(self) -> Result<MoveAsked, ApiError> {
        let ply =
            match self.ply {
                None => None,
                Some(Whole(ply)) => Some(usize::try_from(ply).map_err(|_| {
                    ApiError::InvalidJson(format!("ply must be 0 or more, not {ply}"))
                })?),
            };
        let point = match (usize::try_from(self.row.0), usize::try_from(self.col.0)) {
            (Ok(row), Ok(col)) => Some(Point::new(row, col)),
            _ => None,
        };
        Ok(MoveAsked { point, ply })
    }
}

/// Play a move. In `ai` mode the AI's reply is already in the answer. In an online game only
/// the player whose colour is to move plays.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/moves", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    request_body = MoveRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game after the move (and the AI's reply)", body = GameState),
        BadBody,
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator of an online game", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "CELL_OCCUPIED; GAME_OVER (in an online game with `game`, the state it ended in: a flag that fell before the move arrived gives the timed-out state); PLY_MISMATCH; GAME_CHANGED (the game changed while the AI was thinking; nothing was played); NOT_YOUR_TURN and WAITING_FOR_OPPONENT (online games); OPENING_IN_PROGRESS (the game's opening rule is still being played: use its opening steps)", body = ErrorBody),
        (status = 422, description = "OUT_OF_BOUNDS or FORBIDDEN_MOVE (with kind)", body = ErrorBody),
        RateLimited,
        BusyOrAiBusy,
    )
)]
pub async fn play(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
    JsonBody(body): JsonBody<MoveRequest>,
) -> Result<Json<GameState>, ApiError> {
    let arrival = now_exact();
    let asked = body.asked()?;
    let played = state.games.play(&player.id, &id, asked, arrival).await;
    answer(&state, &player, played).await
}

/// Take back the last move (in `ai` mode, the person's last move and the AI's reply). Online
/// games have no plain undo: a player offers a takeback, which the opponent accepts.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/undo", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game after the undo", body = GameState),
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator of an online game", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "NOTHING_TO_UNDO; GAME_OVER for a game ended off the board (resigned); TOO_MANY_GAMES when it would reopen a finished game past the cap on unfinished games; TAKEBACK_REQUIRED in an online game; OPENING_IN_PROGRESS while the opening rule is being played", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn undo(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    let undone = state.games.undo(&player.id, &id).await;
    answer(&state, &player, undone).await
}

/// Resign: the side to move (the person, in `ai` mode) loses. In an online game the caller's
/// colour loses, whoever is to move.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/resign", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The resigned game", body = GameState),
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator of an online game", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "GAME_OVER (in an online game with `game`, the state it ended in); WAITING_FOR_OPPONENT", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn resign(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    let arrival = now_exact();
    let resigned = state.games.resign(&player.id, &id, arrival).await;
    answer(&state, &player, resigned).await
}
