//! What only online games have: joining the free seat, takeback and draw offers, and the
//! rematch.
//!
//! `POST /games/{id}/join` seats the caller in the free seat of a waiting game, which then
//! starts. `POST /games/{id}/takeback`, `/draw` and `/rematch` take `{"action": "offer" |
//! "accept" | "decline" | "withdraw"}`, each meaning only what it says
//! ([`offers`] decides). Takeback and draw offers are made while the game
//! is played, and any move clears them (see [`play`](super::play)); a rematch offer is made once
//! it is over, and accepted it creates the new game and names it on the finished one in one
//! write ([`games::rematch`]). Every offer lapses unanswered after its time
//! (`--offer-ttl-ms`, `--rematch-ttl-ms`).

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use gomoku_rules::{Ending, Stone, UndoError};
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::extract::{GameId, JsonBody};
use super::games::{load, render};
use super::play::{commit, end_online, landed, seat_of, write_online};
use super::responses::{BadBody, Busy, GameNotFound, RateLimited, Unauthorized};
use super::view::GameState;
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::online::clock::{flag_fall, running};
use crate::online::offers::{self, Action, Decision, OfferError};
use crate::state::AppState;
use crate::store::games::{self, Change, OfferKind, Role, StoredGame};
use crate::store::{now_exact, timestamp};

/// Loads after a lost race before giving up with 503 BUSY.
const ATTEMPTS: usize = 8;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/games/{id}/join", post(join))
        .route("/api/v1/games/{id}/takeback", post(takeback))
        .route("/api/v1/games/{id}/draw", post(draw))
        .route("/api/v1/games/{id}/rematch", post(rematch))
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

/// An action on an offer of one kind.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OfferRequest {
    pub action: OfferAction,
}

/// `offer`: make one's offer (made already: 200, nothing changes; while the opponent's stands:
/// 409 OFFER_PENDING). `accept` or `decline`: the opponent's standing offer; `withdraw`: one's
/// own (409 NO_OFFER when there is none to act on: answered, withdrawn, cleared or lapsed).
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum OfferAction {
    Offer,
    Accept,
    Decline,
    Withdraw,
}

impl From<OfferAction> for Action {
    fn from(action: OfferAction) -> Action {
        match action {
            OfferAction::Offer => Action::Offer,
            OfferAction::Accept => Action::Accept,
            OfferAction::Decline => Action::Decline,
            OfferAction::Withdraw => Action::Withdraw,
        }
    }
}

impl From<OfferError> for ApiError {
    fn from(e: OfferError) -> ApiError {
        match e {
            OfferError::NoOffer => ApiError::NoOffer,
            OfferError::OfferPending => ApiError::OfferPending,
        }
    }
}

/// Offer to take one's last move back, or act on an offer. Accepted, the offerer's last move is
/// taken back, with the opponent's reply after it if there is one, so that the offerer is to
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
        (status = 409, description = "NO_OFFER (accept or decline with no standing offer from the opponent, withdraw with none of one's own); OFFER_PENDING (an offer while the opponent's stands); NOTHING_TO_UNDO (an offer by a player with no move on the board); GAME_OVER (with `game`); WAITING_FOR_OPPONENT; ONLINE_ONLY (a local or ai game: use undo)", body = ErrorBody),
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
    act_in_play(
        &state,
        &player,
        &id,
        OfferKind::Takeback,
        body.action.into(),
    )
    .await
}

/// Offer a draw, or act on an offer. Accepted, the game is drawn (`status: "draw"`,
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
        (status = 409, description = "NO_OFFER (accept or decline with no standing offer from the opponent, withdraw with none of one's own); OFFER_PENDING (an offer while the opponent's stands); GAME_OVER (with `game`); WAITING_FOR_OPPONENT; ONLINE_ONLY (a local or ai game)", body = ErrorBody),
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
    act_in_play(&state, &player, &id, OfferKind::Draw, body.action.into()).await
}

/// Writes what an action on a takeback or draw offer decides, timed from its arrival.
async fn act_in_play(
    state: &AppState,
    player: &Player,
    id: &str,
    kind: OfferKind,
    action: Action,
) -> Result<Json<GameState>, ApiError> {
    let arrival = now_exact();
    let ttl = state.config.offer_ttl();
    write_online(state, player, id, arrival, |stored, me| {
        if stored.game.is_over() {
            return Err(ApiError::GameOver);
        }
        let mut change = stored.change(timestamp(arrival));
        match offers::decide(stored.row.offers.get(kind), me, action, arrival)? {
            Decision::Nothing => return Ok(None),
            Decision::Clear => change.offers.set(kind, None),
            Decision::Offer => {
                if kind == OfferKind::Takeback && !stored.moves.iter().any(|m| m.stone == me) {
                    return Err(ApiError::NothingToUndo);
                }
                change
                    .offers
                    .set(kind, Some(offers::made(me, arrival, ttl)));
            }
            Decision::Accept(offer) if kind == OfferKind::Takeback => {
                change = accepted_takeback(stored, offer.by, arrival)?;
            }
            Decision::Accept(_) => change = end_online(stored, Ending::DrawAgreed, arrival)?,
        }
        Ok(Some(change))
    })
    .await
}

/// The change an accepted takeback offered by `offerer` makes at `at`: the offerer's last move
/// goes, with the reply after it if there is one; offers are cleared.
fn accepted_takeback(
    stored: &StoredGame,
    offerer: Stone,
    at: OffsetDateTime,
) -> Result<Change, ApiError> {
    let mut change = stored.change(timestamp(at));
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
    // The clock that ran stops now; the side to move again starts, unless the board is empty
    // (no clock runs before black's first move).
    change.clock = stored.row.clock.map(|clock| {
        let stopped = clock.stopped(running(stored), at);
        match change.game.to_move() {
            Some(side) if change.keep > 0 => stopped.started(side, at),
            _ => stopped,
        }
    });
    Ok(change)
}

/// Offer the opponent a rematch of a finished game, or act on an offer. Accepted, a new online
/// game starts at once: the same rule, board size and time control, the colours swapped, both
/// players seated (`status: "playing"`; no clock runs before black's first move). The finished
/// game then names it in `rematchGameId`, pushed to both players' sockets. Once it exists, an
/// offer or an accept changes nothing and answers the finished game naming it.
#[utoipa::path(
    post, path = "/api/v1/games/{id}/rematch", tag = "online",
    params(("id" = String, Path, description = "Game id (the finished game)")),
    request_body = OfferRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The finished game with the offer made, withdrawn, declined (`offers.rematch`) or accepted (`rematchGameId`)", body = GameState),
        BadBody,
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "NO_OFFER (accept or decline with no standing offer from the opponent, withdraw with none of one's own); OFFER_PENDING (an offer while the opponent's stands); GAME_NOT_OVER (the game is waiting or in play); TOO_MANY_GAMES (an accept while either player has the most unfinished games allowed: nothing is created, the offer stands); ONLINE_ONLY (a local or ai game)", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn rematch(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
    JsonBody(body): JsonBody<OfferRequest>,
) -> Result<Json<GameState>, ApiError> {
    let arrival = now_exact();
    let action = Action::from(body.action);
    let cap = state.config.max_unfinished_games;
    for _ in 0..ATTEMPTS {
        let stored = load(&state, &player, &id).await?;
        let me = seat_of(&stored, &player)?;
        // A flag that fell with no timer to notice it yet: the game is over, as of its deadline.
        if let Some(timed_out) = flag_fall(&stored, arrival) {
            commit(&state, timed_out).await?;
            continue;
        }
        if !stored.row.status.is_over() {
            return Err(ApiError::GameNotOver);
        }
        if stored.row.rematch_game_id.is_some() {
            // Made already (a retried accept, or both accepting at once): the game that names it.
            return match action {
                Action::Offer | Action::Accept => Ok(Json(render(&state, &stored, &player))),
                Action::Decline | Action::Withdraw => Err(ApiError::NoOffer),
            };
        }
        let mut change = stored.change(timestamp(arrival));
        let written = match offers::decide(stored.row.offers.rematch, me, action, arrival)? {
            Decision::Nothing => return Ok(Json(render(&state, &stored, &player))),
            Decision::Clear => {
                change.offers.rematch = None;
                commit(&state, change).await?
            }
            Decision::Offer => {
                let ttl = state.config.rematch_ttl();
                change.offers.rematch = Some(offers::made(me, arrival, ttl));
                commit(&state, change).await?
            }
            Decision::Accept(offer) => {
                change.offers.rematch = None;
                let written = games::rematch(&state.db, change, offer.by, cap).await?;
                landed(written, cap)?
            }
        };
        if let Some(committed) = written {
            return Ok(Json(render(&state, &committed, &player)));
        }
    }
    Err(ApiError::Busy)
}
