//! Playing a game: moves (with the AI's reply in `ai` mode), undo and resign.
//!
//! Each handler loads the game, works out the new position with the rules (and the AI, which
//! may think for a while: no lock is held meanwhile), then commits guarded by the version it
//! loaded. If another request changed the game in between, nothing was written: the handler
//! loads again and decides afresh. For a move with `ply` that means the retried-move rule or
//! 409 PLY_MISMATCH; a move without `ply`, undo and resign apply to the newer position.

use std::future::Future;
use std::sync::Arc;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use gomoku_rules::{Point, UndoError};
use serde::Deserialize;
use utoipa::ToSchema;

use super::extract::{GameId, JsonBody};
use super::games::load;
use super::openapi::{BadBody, Busy, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::GameState;
use crate::ai::Ai;
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::games::{self, Change, Mode, StoredGame, StoredMove};
use crate::store::now;

/// Loads after a lost race before giving up with 503 BUSY (only under heavy contention on one
/// game).
const ATTEMPTS: usize = 8;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/games/{id}/moves", post(play))
        .route("/api/v1/games/{id}/undo", post(undo))
        .route("/api/v1/games/{id}/resign", post(resign))
}

/// A move by the side to move.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
pub struct MoveRequest {
    /// Row, 0 at the top (below the board size).
    #[schema(minimum = 0, maximum = 18)]
    pub row: i64,
    /// Column, 0 at the left (below the board size).
    #[schema(minimum = 0, maximum = 18)]
    pub col: i64,
    /// The number of moves the client believes are on the board (0 before the first move).
    /// When given and different from `moveCount`: 200 if `moveHistory[ply]` is this very move
    /// (a retried request), otherwise 409 PLY_MISMATCH.
    #[schema(minimum = 0)]
    pub ply: Option<i64>,
}

/// Loads the game, lets `decide` work out the change from it, and commits that change guarded
/// by the version loaded. If another request changed the game first, nothing was written: it
/// loads again and decides afresh, up to [`ATTEMPTS`] times, then gives up with 503 BUSY.
/// `decide` answers `None` when there is nothing to write: the answer is then the game as loaded.
///
/// `decide` returns a future that owns what it uses rather than being an async closure: the
/// future of an async closure borrows the closure, and rustc cannot yet prove such a future
/// `Send` for every borrow, which axum needs of a handler's future.
async fn change_game<F, D>(
    state: &AppState,
    player: &Player,
    id: &str,
    mut decide: F,
) -> Result<Json<GameState>, ApiError>
where
    F: FnMut(Arc<StoredGame>) -> D,
    D: Future<Output = Result<Option<Change>, ApiError>>,
{
    for _ in 0..ATTEMPTS {
        let stored = load(state, player, id).await?;
        let Some(change) = decide(stored.clone()).await? else {
            return Ok(Json(GameState::new(&stored)));
        };
        if let Some(committed) = games::commit(&state.db, change).await? {
            return Ok(Json(GameState::new(&committed)));
        }
    }
    Err(ApiError::Busy)
}

/// Whether `moveHistory[ply]` is the move (row, col) by the caller's colour: the caller is
/// repeating a request whose answer it did not get.
fn is_retry(stored: &StoredGame, ply: i64, row: i64, col: i64) -> bool {
    let Some(m) = usize::try_from(ply).ok().and_then(|i| stored.moves.get(i)) else {
        return false;
    };
    let callers_colour = match stored.row.ai {
        Some(ai) => m.stone != ai.player,
        // In local mode the caller plays both colours.
        None => true,
    };
    callers_colour && i64::try_from(m.point.row) == Ok(row) && i64::try_from(m.point.col) == Ok(col)
}

/// Play a move. In `ai` mode the AI's reply is already in the answer.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/moves", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    request_body = MoveRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game after the move (and the AI's reply)", body = GameState),
        BadBody,
        Unauthorized,
        GameNotFound,
        (status = 409, description = "CELL_OCCUPIED, GAME_OVER or PLY_MISMATCH", body = ErrorBody),
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
    change_game(&state, &player, &id, |stored| {
        decide_move(stored, body, state.ai.clone())
    })
    .await
}

/// The change a move makes: the move, and in `ai` mode the AI's reply; `None` for a retried move
/// that is already on the board.
async fn decide_move(
    stored: Arc<StoredGame>,
    body: MoveRequest,
    engine: Ai,
) -> Result<Option<Change>, ApiError> {
    let move_count = stored.row.move_count;
    if let Some(ply) = body.ply {
        if ply != move_count as i64 {
            if is_retry(&stored, ply, body.row, body.col) {
                return Ok(None);
            }
            return Err(ApiError::PlyMismatch { ply, move_count });
        }
    }
    if stored.game.is_over() {
        return Err(ApiError::GameOver);
    }
    let point = match (usize::try_from(body.row), usize::try_from(body.col)) {
        (Ok(row), Ok(col)) => Point::new(row, col),
        _ => return Err(ApiError::OutOfBounds),
    };
    let Some(mover) = stored.game.to_move() else {
        return Err(ApiError::GameOver);
    };
    let mut game = stored.game.clone();
    game.play(point)?;
    let mut moves = stored.moves.clone();
    moves.push(StoredMove {
        point,
        stone: mover,
        played_at: now(),
    });
    if let (Mode::Ai, Some(ai)) = (stored.row.mode, stored.row.ai) {
        if game.to_move() == Some(ai.player) {
            let reply = engine
                .best_move(game.clone(), ai.level)
                .await?
                .ok_or_else(|| ApiError::internal("the AI found no move in an open game"))?;
            game.play(reply)
                .map_err(|e| ApiError::internal(format!("the AI's move was refused: {e:?}")))?;
            moves.push(StoredMove {
                point: reply,
                stone: ai.player,
                played_at: now(),
            });
        }
    }
    Ok(Some(Change {
        row: stored.row.clone(),
        keep: move_count,
        moves,
        game,
        resigned_by: None,
        at: now(),
    }))
}

/// Take back the last move (in `ai` mode, the person's last move and the AI's reply).
#[utoipa::path(
    post, path = "/api/v1/games/{id}/undo", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game after the undo", body = GameState),
        Unauthorized,
        GameNotFound,
        (status = 409, description = "NOTHING_TO_UNDO, or GAME_OVER for a resigned game", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn undo(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    change_game(&state, &player, &id, |stored| async move {
        take_back(&stored).map(Some)
    })
    .await
}

/// The change an undo makes: the last move off the board, or in `ai` mode the person's last move
/// and the AI's reply to it.
fn take_back(stored: &StoredGame) -> Result<Change, ApiError> {
    if stored.row.resigned_by.is_some() {
        return Err(ApiError::GameOver);
    }
    let count = stored.moves.len();
    let take = match stored.row.ai {
        None if count == 0 => return Err(ApiError::NothingToUndo),
        None => 1,
        Some(ai) => match stored.moves.last() {
            None => return Err(ApiError::NothingToUndo),
            // The AI moved last: take back its reply and the person's move before it.
            Some(last) if last.stone == ai.player => {
                if count < 2 {
                    // Only the AI's opening move is on the board.
                    return Err(ApiError::NothingToUndo);
                }
                2
            }
            // The person's move ended the game before the AI replied.
            Some(_) => 1,
        },
    };
    let mut game = stored.game.clone();
    for _ in 0..take {
        game.undo().map_err(|e| match e {
            UndoError::NothingToUndo => ApiError::NothingToUndo,
            UndoError::Resigned => ApiError::GameOver,
        })?;
    }
    let keep = count - take;
    Ok(Change {
        row: stored.row.clone(),
        keep,
        moves: stored.moves[..keep].to_vec(),
        game,
        resigned_by: None,
        at: now(),
    })
}

/// Resign: the side to move (the person, in `ai` mode) loses.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/resign", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The resigned game", body = GameState),
        Unauthorized,
        GameNotFound,
        (status = 409, description = "GAME_OVER", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn resign(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    change_game(&state, &player, &id, |stored| async move {
        let Some(loser) = stored.game.to_move() else {
            return Err(ApiError::GameOver);
        };
        let mut game = stored.game.clone();
        game.resign()?;
        Ok(Some(Change {
            row: stored.row.clone(),
            keep: stored.moves.len(),
            moves: stored.moves.clone(),
            game,
            resigned_by: Some(loser),
            at: now(),
        }))
    })
    .await
}
