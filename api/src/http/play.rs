//! Playing a game: moves (with the AI's reply in `ai` mode), undo and resign.
//!
//! Each handler loads the game, works out the new position with the rules, then commits guarded
//! by the version it loaded. If another request changed the game in between, nothing was
//! written: the handler loads again and decides afresh. For a move with `ply` that means the
//! retried-move rule or 409 PLY_MISMATCH; a move without `ply`, undo and resign apply to the
//! newer position.
//!
//! The AI's reply is searched once per move request, outside any lock and outside that loop: if
//! the game changed while the AI thought, the answer is the game as it now is when the move is
//! in it (a retry that landed), and otherwise 409 GAME_CHANGED. It never searches again, so a
//! request takes at most one AI budget.

use std::sync::Arc;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use gomoku_rules::{Point, UndoError};
use serde::Deserialize;
use utoipa::ToSchema;

use super::extract::{GameId, JsonBody, Whole};
use super::games::load;
use super::responses::{BadBody, Busy, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::GameState;
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::games::{self, AiSetting, Change, StoredGame, StoredMove, Written};
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
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub row: Whole,
    /// Column, 0 at the left (below the board size).
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub col: Whole,
    /// The number of moves the client believes are on the board (0 before the first move).
    /// When given and different from `moveCount`: 200 if `moveHistory[ply]` is this very move
    /// (a retried request), otherwise 409 PLY_MISMATCH.
    #[schema(value_type = Option<i64>, minimum = 0)]
    pub ply: Option<Whole>,
}

/// Commits a change; the answer for a stored game, None when another request got there first.
async fn commit(state: &AppState, change: Change) -> Result<Option<Arc<StoredGame>>, ApiError> {
    let cap = state.config.max_unfinished_games;
    match games::commit(&state.db, change, cap).await? {
        Written::Stored(stored) => Ok(Some(stored)),
        Written::Stale => Ok(None),
        Written::OverCap => Err(ApiError::TooManyGames(cap)),
    }
}

/// Loads the game, lets `decide` work out the change from it, and commits that change guarded
/// by the version loaded. If another request changed the game first, nothing was written: it
/// loads again and decides afresh, up to [`ATTEMPTS`] times, then gives up with 503 BUSY.
/// `decide` answers `None` when there is nothing to write: the answer is then the game as loaded.
async fn change_game<F>(
    state: &AppState,
    player: &Player,
    id: &str,
    decide: F,
) -> Result<Json<GameState>, ApiError>
where
    F: Fn(&StoredGame) -> Result<Option<Change>, ApiError>,
{
    for _ in 0..ATTEMPTS {
        let stored = load(state, player, id).await?;
        let Some(change) = decide(&stored)? else {
            return Ok(Json(GameState::new(&stored)));
        };
        if let Some(committed) = commit(state, change).await? {
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
        (status = 409, description = "CELL_OCCUPIED, GAME_OVER, PLY_MISMATCH, or GAME_CHANGED (the game changed while the AI was thinking; nothing was played)", body = ErrorBody),
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
    for _ in 0..ATTEMPTS {
        let stored = load(&state, &player, &id).await?;
        let Some(mut change) = decide_move(&stored, body)? else {
            return Ok(Json(GameState::new(&stored)));
        };
        let Some(ai) = ai_to_reply(&stored, &change) else {
            match commit(&state, change).await? {
                Some(committed) => return Ok(Json(GameState::new(&committed))),
                None => continue,
            }
        };
        reply(&state, &mut change, ai).await?;
        if let Some(committed) = commit(&state, change).await? {
            return Ok(Json(GameState::new(&committed)));
        }
        // The reply was for a game that is no more: answer for the game as it is now.
        let ply = body.ply.map_or(stored.row.move_count as i64, |p| p.0);
        let now = load(&state, &player, &id).await?;
        return if is_retry(&now, ply, body.row.0, body.col.0) {
            Ok(Json(GameState::new(&now)))
        } else {
            Err(ApiError::GameChanged)
        };
    }
    Err(ApiError::Busy)
}

/// The change a move makes, without the AI's reply; `None` for a retried move that is already
/// on the board.
fn decide_move(stored: &StoredGame, body: MoveRequest) -> Result<Option<Change>, ApiError> {
    let move_count = stored.row.move_count;
    if let Some(Whole(ply)) = body.ply {
        if ply != move_count as i64 {
            if is_retry(stored, ply, body.row.0, body.col.0) {
                return Ok(None);
            }
            return Err(ApiError::PlyMismatch { ply, move_count });
        }
    }
    let Some(mover) = stored.game.to_move() else {
        return Err(ApiError::GameOver);
    };
    let point = match (usize::try_from(body.row.0), usize::try_from(body.col.0)) {
        (Ok(row), Ok(col)) => Point::new(row, col),
        _ => return Err(ApiError::OutOfBounds),
    };
    let mut game = stored.game.clone();
    game.play(point)?;
    let mut moves = stored.moves.clone();
    moves.push(StoredMove {
        point,
        stone: mover,
        played_at: now(),
    });
    Ok(Some(Change {
        row: stored.row.clone(),
        keep: move_count,
        moves,
        game,
        at: now(),
    }))
}

/// The AI's settings when, after `change`, it is the AI's turn in an `ai`-mode game.
fn ai_to_reply(stored: &StoredGame, change: &Change) -> Option<AiSetting> {
    stored
        .row
        .ai
        .filter(|ai| change.game.to_move() == Some(ai.player))
}

/// Adds the AI's reply to `change` (one search).
async fn reply(state: &AppState, change: &mut Change, ai: AiSetting) -> Result<(), ApiError> {
    let point = state
        .ai
        .best_move(change.game.clone(), ai.level)
        .await?
        .ok_or_else(|| ApiError::internal("the AI found no move in an open game"))?;
    change
        .game
        .play(point)
        .map_err(|e| ApiError::internal(format!("the AI's move was refused: {e:?}")))?;
    change.moves.push(StoredMove {
        point,
        stone: ai.player,
        played_at: now(),
    });
    change.at = now();
    Ok(())
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
        (status = 409, description = "NOTHING_TO_UNDO; GAME_OVER for a resigned game; TOO_MANY_GAMES when it would reopen a finished game past the cap on unfinished games", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn undo(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    change_game(&state, &player, &id, |stored| take_back(stored).map(Some)).await
}

/// The change an undo makes: the last move off the board, or in `ai` mode the person's last move
/// and the AI's reply to it.
fn take_back(stored: &StoredGame) -> Result<Change, ApiError> {
    if stored.game.outcome().resigned_by().is_some() {
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
    change_game(&state, &player, &id, |stored| {
        let mut game = stored.game.clone();
        game.resign()?;
        Ok(Some(Change {
            row: stored.row.clone(),
            keep: stored.moves.len(),
            moves: stored.moves.clone(),
            game,
            at: now(),
        }))
    })
    .await
}
