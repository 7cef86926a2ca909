//! What only online games have: joining the free seat, and takeback and draw offers.
//!
//! `POST /games/{id}/join` seats the caller in the free seat of a waiting game, which then
//! starts. `POST /games/{id}/takeback` and `POST /games/{id}/draw` take `{"accept": bool}`:
//! `true` makes an offer, or accepts the opponent's pending one; `false` declines the opponent's
//! offer, or withdraws one's own. Offering twice changes nothing, and so does declining when
//! nothing is pending. Any move clears pending offers (see [`play`](super::play)).

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use gomoku_rules::{Ending, Stone, UndoError};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::extract::{GameId, JsonBody};
use super::games::{load, render};
use super::play::{commit, end_online, write_online};
use super::responses::{BadBody, Busy, GameNotFound, RateLimited, Unauthorized};
use super::view::GameState;
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::online::clock::running;
use crate::state::AppState;
use crate::store::games::{Change, Role, StoredGame};
use crate::store::{now_exact, timestamp};

/// Loads after a lost race before giving up with 503 BUSY.
const ATTEMPTS: usize = 8;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/games/{id}/join", post(join))
        .route("/api/v1/games/{id}/takeback", post(takeback))
        .route("/api/v1/games/{id}/draw", post(draw))
}

/// Join an online game: the caller takes the free seat and the game starts (`playing`).
/// Joining again, or joining one's own game, changes nothing.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/join", tag = "online",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game with the caller seated", body = GameState),
        Unauthorized,
        GameNotFound,
        (status = 409, description = "GAME_FULL (both seats taken), GAME_OVER (a finished game, with `game`), ONLINE_ONLY (the caller's own local or ai game), TOO_MANY_GAMES", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn join(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    for _ in 0..ATTEMPTS {
        let stored = load(&state, &player, &id).await?;
        match stored.role(&player.id) {
            Some(Role::Owner) => return Err(ApiError::OnlineOnly),
            Some(Role::Seated(_)) => return Ok(Json(render(&state, &stored, &player))),
            Some(Role::Spectator) => {}
            None => return Err(ApiError::GameNotFound),
        }
        if stored.row.status.is_over() {
            return Err(ApiError::GameOverWith(Box::new(render(
                &state, &stored, &player,
            ))));
        }
        let Some(colour) = stored.seats.free() else {
            return Err(ApiError::GameFull);
        };
        let mut change = stored.change(timestamp(now_exact()));
        change.waiting = false;
        change.seat = Some((player.id.clone(), colour));
        if let Some(joined) = commit(&state, change).await? {
            return Ok(Json(render(&state, &joined, &player)));
        }
    }
    Err(ApiError::Busy)
}

/// An answer to an offer, or an offer.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
pub struct OfferRequest {
    /// true: offer, or accept the opponent's pending offer; false: decline the opponent's offer,
    /// or withdraw one's own.
    pub accept: bool,
}

/// Ask to take a move back, or answer the opponent's request. Accepted, the offerer's last move
/// is taken back, with the opponent's reply after it if there is one, so that the offerer is to
/// move again.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/takeback", tag = "online",
    params(("id" = String, Path, description = "Game id")),
    request_body = OfferRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game with the offer made, withdrawn, declined or accepted (`offers.takeback`)", body = GameState),
        BadBody,
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "NOTHING_TO_UNDO (the caller has no move on the board); GAME_OVER (with `game`); WAITING_FOR_OPPONENT; ONLINE_ONLY (a local or ai game: use undo)", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn takeback(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
    JsonBody(body): JsonBody<OfferRequest>,
) -> Result<Json<GameState>, ApiError> {
    answer_offer(&state, &player, &id, body, decide_takeback).await
}

/// Offer a draw, or answer the opponent's offer. Accepted, the game is drawn (`status: "draw"`,
/// `endReason: "agreement"`).
#[utoipa::path(
    post, path = "/api/v1/games/{id}/draw", tag = "online",
    params(("id" = String, Path, description = "Game id")),
    request_body = OfferRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game with the offer made, withdrawn, declined or accepted (`offers.draw`)", body = GameState),
        BadBody,
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "GAME_OVER (with `game`); WAITING_FOR_OPPONENT; ONLINE_ONLY (a local or ai game)", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn draw(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
    JsonBody(body): JsonBody<OfferRequest>,
) -> Result<Json<GameState>, ApiError> {
    answer_offer(&state, &player, &id, body, decide_draw).await
}

/// The decision an answer to one kind of offer makes: from the game, the caller's colour, the
/// answer and its time.
type DecideOffer = fn(&StoredGame, Stone, bool, OffsetDateTime) -> Result<Option<Change>, ApiError>;

/// Writes what an answer to an offer decides, timed from its arrival.
async fn answer_offer(
    state: &AppState,
    player: &Player,
    id: &str,
    body: OfferRequest,
    decide: DecideOffer,
) -> Result<Json<GameState>, ApiError> {
    let arrival = now_exact();
    write_online(state, player, id, arrival, |stored, me| {
        decide(stored, me, body.accept, arrival)
    })
    .await
}

/// What an answer does to a pending offer.
enum Answer {
    /// Make an offer.
    Offer,
    /// Accept the opponent's offer, made by this colour.
    Accept(Stone),
    /// Withdraw one's own, or decline the opponent's.
    Clear,
    /// Nothing to do: offering twice, or declining when nothing is pending.
    Nothing,
}

fn answer(pending: Option<Stone>, me: Stone, accept: bool) -> Answer {
    match (accept, pending) {
        (true, None) => Answer::Offer,
        (true, Some(offerer)) if offerer == me => Answer::Nothing,
        (true, Some(offerer)) => Answer::Accept(offerer),
        (false, Some(_)) => Answer::Clear,
        (false, None) => Answer::Nothing,
    }
}

/// The change a takeback answer by `me` makes at `at`.
fn decide_takeback(
    stored: &StoredGame,
    me: Stone,
    accept: bool,
    at: OffsetDateTime,
) -> Result<Option<Change>, ApiError> {
    if stored.game.is_over() {
        return Err(ApiError::GameOver);
    }
    let mut change = stored.change(timestamp(at));
    match answer(stored.row.offers.takeback, me, accept) {
        Answer::Nothing => return Ok(None),
        Answer::Clear => change.offers.takeback = None,
        Answer::Offer => {
            if !stored.moves.iter().any(|m| m.stone == me) {
                return Err(ApiError::NothingToUndo);
            }
            change.offers.takeback = Some(me);
        }
        Answer::Accept(offerer) => {
            // The offerer's last move, and the reply after it if there is one.
            let count = match stored.moves.last() {
                Some(last) if last.stone == offerer => 1,
                _ => 2,
            };
            change.game.take_back(count).map_err(|e| match e {
                UndoError::NothingToUndo => ApiError::NothingToUndo,
                UndoError::Decided => ApiError::GameOver,
            })?;
            change.keep = stored.moves.len() - count;
            change.moves.truncate(change.keep);
            change.offers = Default::default();
            // The clock that ran stops now; the side to move again starts, unless the board is
            // empty (no clock runs before black's first move).
            change.clock = stored.row.clock.map(|clock| {
                let stopped = clock.stopped(running(stored), at);
                match change.game.to_move() {
                    Some(side) if change.keep > 0 => stopped.started(side, at),
                    _ => stopped,
                }
            });
        }
    }
    Ok(Some(change))
}

/// The change a draw answer by `me` makes at `at`.
fn decide_draw(
    stored: &StoredGame,
    me: Stone,
    accept: bool,
    at: OffsetDateTime,
) -> Result<Option<Change>, ApiError> {
    if stored.game.is_over() {
        return Err(ApiError::GameOver);
    }
    let mut change = stored.change(timestamp(at));
    match answer(stored.row.offers.draw, me, accept) {
        Answer::Nothing => return Ok(None),
        Answer::Clear => change.offers.draw = None,
        Answer::Offer => change.offers.draw = Some(me),
        Answer::Accept(_) => change = end_online(stored, Ending::DrawAgreed, at)?,
    }
    Ok(Some(change))
}
