//! Playing a game: moves (with the AI's reply in `ai` mode), undo and resign, and the loop
//! every write to an online game goes through ([`write_online`]).
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
//!
//! In an online game only a seated player writes, and a move only on their turn. Time is taken
//! when the request arrives: if the running clock's flag fell before then, the write that the
//! request asked for does not happen; the game is ended on time (if no timer did it first) and
//! the answer is 409 GAME_OVER with the timed-out state.
use std::sync::Arc;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use gomoku_rules::{Ending, Point, Stone, UndoError};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::extract::{GameId, JsonBody, Whole};
use super::games::{load, render};
use super::responses::{BadBody, Busy, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::GameState;
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::online::clock::{flag_fall, running};
use crate::state::AppState;
use crate::store::games::{
    self, AiSetting, Change, GameStatus, Mode, Offers, Role, StoredGame, StoredMove, Written,
};
use crate::store::{now, now_exact, timestamp};

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
pub(super) async fn commit(
    state: &AppState,
    change: Change,
) -> Result<Option<Arc<StoredGame>>, ApiError> {
    let cap = state.config.max_unfinished_games;
    landed(games::commit(&state.db, change, cap).await?, cap)
}

/// What a guarded write came to, for the caller: the stored game, None when another request got
/// there first, 409 TOO_MANY_GAMES past the cap.
pub(super) fn landed(written: Written, cap: u32) -> Result<Option<Arc<StoredGame>>, ApiError> {
    match written {
        Written::Stored(stored) => Ok(Some(stored)),
        Written::Stale => Ok(None),
        Written::OverCap => Err(ApiError::TooManyGames(cap)),
    }
}

/// The caller's colour at an online game: 403 NOT_A_PLAYER for a spectator, 409 ONLINE_ONLY
/// for a game of another mode.
pub(super) fn seat_of(stored: &StoredGame, player: &Player) -> Result<Stone, ApiError> {
    match stored.role(&player.id) {
        Some(Role::Seated(colour)) => Ok(colour),
        Some(Role::Spectator) => Err(ApiError::NotAPlayer),
        Some(Role::Owner) => Err(ApiError::OnlineOnly),
        None => Err(ApiError::GameNotFound),
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
            return Ok(Json(render(state, &stored, player)));
        };
        if let Some(committed) = commit(state, change).await? {
            return Ok(Json(render(state, &committed, player)));
        }
    }
    Err(ApiError::Busy)
}

/// 409 GAME_OVER with the game as it ended, for the caller.
fn game_over(state: &AppState, stored: &StoredGame, player: &Player) -> ApiError {
    ApiError::GameOverWith(Box::new(render(state, stored, player)))
}

/// The loop every write to an online game goes through: loads the game and checks that the
/// caller sits at it (403 NOT_A_PLAYER for a spectator, 409 ONLINE_ONLY for a game of another
/// mode) and that it has begun (409 WAITING_FOR_OPPONENT); if the flag fell before `arrival`,
/// ends the game on time and answers 409 GAME_OVER with that state; then lets `decide` work out
/// the change from the game and the caller's colour (None: nothing to write, the answer is the
/// game as loaded; `ApiError::GameOver` from it is answered with the game's state), and commits
/// it guarded by the version loaded, deciding afresh after a lost race.
pub(super) async fn write_online<F>(
    state: &AppState,
    player: &Player,
    id: &str,
    arrival: OffsetDateTime,
    decide: F,
) -> Result<Json<GameState>, ApiError>
where
    F: Fn(&StoredGame, Stone) -> Result<Option<Change>, ApiError>,
{
    for _ in 0..ATTEMPTS {
        let stored = load(state, player, id).await?;
        let me = seat_of(&stored, player)?;
        if stored.row.status == GameStatus::Waiting {
            return Err(ApiError::WaitingForOpponent);
        }
        if let Some(timed_out) = flag_fall(&stored, arrival) {
            match commit(state, timed_out).await? {
                Some(ended) => return Err(game_over(state, &ended, player)),
                None => continue,
            }
        }
        let change = match decide(&stored, me) {
            Ok(Some(change)) => change,
            Ok(None) => return Ok(Json(render(state, &stored, player))),
            Err(ApiError::GameOver) => return Err(game_over(state, &stored, player)),
            Err(e) => return Err(e),
        };
        if let Some(committed) = commit(state, change).await? {
            return Ok(Json(render(state, &committed, player)));
        }
    }
    Err(ApiError::Busy)
}

/// Whether `moveHistory[ply]` is the move (row, col) by the caller's colour: the caller is
/// repeating a request whose answer it did not get.
fn is_retry(stored: &StoredGame, player_id: &str, ply: i64, row: i64, col: i64) -> bool {
    let Some(m) = usize::try_from(ply).ok().and_then(|i| stored.moves.get(i)) else {
        return false;
    };
    // In local mode the caller plays both colours.
    let callers_colour = stored
        .colour_of(player_id)
        .is_none_or(|colour| m.stone == colour);
    callers_colour && i64::try_from(m.point.row) == Ok(row) && i64::try_from(m.point.col) == Ok(col)
}

/// The board point of a move request (out of bounds when negative).
fn point_of(body: MoveRequest) -> Result<Point, ApiError> {
    match (usize::try_from(body.row.0), usize::try_from(body.col.0)) {
        (Ok(row), Ok(col)) => Ok(Point::new(row, col)),
        _ => Err(ApiError::OutOfBounds),
    }
}

/// The `ply` rule: `Ok(true)` when the move is a retry of one already on the board (nothing to
/// write), `Ok(false)` when it is for the current position, 409 PLY_MISMATCH otherwise.
fn is_repeat(stored: &StoredGame, player_id: &str, body: MoveRequest) -> Result<bool, ApiError> {
    let move_count = stored.row.move_count;
    match body.ply {
        Some(Whole(ply)) if ply != move_count as i64 => {
            if is_retry(stored, player_id, ply, body.row.0, body.col.0) {
                Ok(true)
            } else {
                Err(ApiError::PlyMismatch { ply, move_count })
            }
        }
        _ => Ok(false),
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
        (status = 409, description = "CELL_OCCUPIED; GAME_OVER (in an online game with `game`, the state it ended in: a flag that fell before the move arrived gives the timed-out state); PLY_MISMATCH; GAME_CHANGED (the game changed while the AI was thinking; nothing was played); NOT_YOUR_TURN and WAITING_FOR_OPPONENT (online games)", body = ErrorBody),
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
    for _ in 0..ATTEMPTS {
        let stored = load(&state, &player, &id).await?;
        if stored.row.mode == Mode::Online {
            return write_online(&state, &player, &id, arrival, |stored, me| {
                decide_online_move(stored, &player.id, me, body, arrival)
            })
            .await;
        }
        let Some(mut change) = decide_move(&stored, &player.id, body)? else {
            return Ok(Json(render(&state, &stored, &player)));
        };
        let Some(ai) = ai_to_reply(&stored, &change) else {
            match commit(&state, change).await? {
                Some(committed) => return Ok(Json(render(&state, &committed, &player))),
                None => continue,
            }
        };
        reply(&state, &mut change, ai).await?;
        if let Some(committed) = commit(&state, change).await? {
            return Ok(Json(render(&state, &committed, &player)));
        }
        // The reply was for a game that is no more: answer for the game as it is now.
        let ply = body.ply.map_or(stored.row.move_count as i64, |p| p.0);
        let now = load(&state, &player, &id).await?;
        return if is_retry(&now, &player.id, ply, body.row.0, body.col.0) {
            Ok(Json(render(&state, &now, &player)))
        } else {
            Err(ApiError::GameChanged)
        };
    }
    Err(ApiError::Busy)
}

/// The change a move makes in a local or ai game, without the AI's reply; `None` for a retried
/// move that is already on the board.
fn decide_move(
    stored: &StoredGame,
    player_id: &str,
    body: MoveRequest,
) -> Result<Option<Change>, ApiError> {
    if is_repeat(stored, player_id, body)? {
        return Ok(None);
    }
    let Some(mover) = stored.game.to_move() else {
        return Err(ApiError::GameOver);
    };
    let point = point_of(body)?;
    let mut change = stored.change(now());
    change.game.play(point)?;
    change.moves.push(StoredMove {
        point,
        stone: mover,
        played_at: now(),
        clock_ms: None,
    });
    Ok(Some(change))
}

/// The change a move by `me` makes in an online game, arriving at `arrival`; `None` for a
/// retried move already on the board. The mover's clock keeps what it had left at arrival plus
/// the increment, the opponent's starts now, and pending offers are cleared.
fn decide_online_move(
    stored: &StoredGame,
    player_id: &str,
    me: Stone,
    body: MoveRequest,
    arrival: OffsetDateTime,
) -> Result<Option<Change>, ApiError> {
    if is_repeat(stored, player_id, body)? {
        return Ok(None);
    }
    match stored.game.to_move() {
        None => return Err(ApiError::GameOver),
        Some(mover) if mover != me => return Err(ApiError::NotYourTurn),
        Some(_) => {}
    }
    let point = point_of(body)?;
    let at = now_exact();
    let mut change = stored.change(timestamp(at));
    change.game.play(point)?;
    let increment = stored.row.time_control.map_or(0, |tc| tc.increment_ms);
    change.clock = match stored.row.clock {
        // The flag was checked against the same arrival before this decision.
        Some(clock) => Some(
            clock
                .after_move(me, increment, arrival, at)
                .map_err(|_| ApiError::GameOver)?,
        ),
        None => None,
    };
    if change.game.is_over() {
        // A five or a draw stops the clocks: nobody's runs any more.
        change.clock = change.clock.map(|c| c.stopped(None, at));
    }
    change.offers = Offers::default();
    change.moves.push(StoredMove {
        point,
        stone: me,
        played_at: timestamp(at),
        clock_ms: change.clock.map(|c| c.left(me)),
    });
    Ok(Some(change))
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
        clock_ms: None,
    });
    change.at = now();
    Ok(())
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
        (status = 409, description = "NOTHING_TO_UNDO; GAME_OVER for a game ended off the board (resigned); TOO_MANY_GAMES when it would reopen a finished game past the cap on unfinished games; TAKEBACK_REQUIRED in an online game", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn undo(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    change_game(&state, &player, &id, |stored| {
        match stored.role(&player.id) {
            Some(Role::Spectator) => Err(ApiError::NotAPlayer),
            Some(Role::Seated(_)) => Err(ApiError::TakebackRequired),
            _ => take_back(stored).map(Some),
        }
    })
    .await
}

/// The change an undo makes: the last move off the board, or in `ai` mode the person's last move
/// and the AI's reply to it.
fn take_back(stored: &StoredGame) -> Result<Change, ApiError> {
    if stored.game.outcome().ending().is_some() {
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
    let mut change = stored.change(now());
    change.game.take_back(take).map_err(|e| match e {
        UndoError::NothingToUndo => ApiError::NothingToUndo,
        UndoError::Decided => ApiError::GameOver,
    })?;
    change.keep = count - take;
    change.moves.truncate(change.keep);
    Ok(change)
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
    let stored = load(&state, &player, &id).await?;
    if stored.row.mode == Mode::Online {
        return write_online(&state, &player, &id, arrival, |stored, me| {
            end_online(stored, Ending::Resigned(me), arrival).map(Some)
        })
        .await;
    }
    change_game(&state, &player, &id, |stored| {
        let mut change = stored.change(now());
        change.game.resign()?;
        Ok(Some(change))
    })
    .await
}

/// The change that ends an online game off the board at `at` (a resignation, a draw agreed):
/// the clocks stop where they stand and pending offers go.
pub(super) fn end_online(
    stored: &StoredGame,
    ending: Ending,
    at: OffsetDateTime,
) -> Result<Change, ApiError> {
    let mut change = stored.change(timestamp(at));
    change.game.end(ending)?;
    change.clock = stored.row.clock.map(|c| c.stopped(running(stored), at));
    change.offers = Offers::default();
    Ok(change)
}
