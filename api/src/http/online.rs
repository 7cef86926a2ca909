//! What only online games have: joining the free seat, takeback and draw offers, and the
//! rematch.
//!
//! `POST /games/{id}/join` seats the caller in the free seat of a waiting game, which then
//! starts. `POST /games/{id}/takeback`, `/draw` and `/rematch` take `{"action": "offer" |
//! "accept" | "decline" | "withdraw"}`, each meaning only what it says
//! ([`offers`](crate::online::offers) decides). Takeback and draw offers are made while the game
//! is played, and any move clears them (see [`play`](super::play)); a rematch offer is made once
//! it is over, and accepted it creates the new game and names it on the finished one in one
//! write ([`store::games::rematch`](crate::store::games::rematch)). Every offer lapses
//! unanswered after its time (`--offer-ttl-ms`, `--rematch-ttl-ms`).
//!
//! The decisions are the game service's ([`crate::games`]); these handlers read the request,
//! take the time it arrived, and render the answer.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::{GameId, JsonBody};
use super::responses::{BadBody, Busy, GameNotFound, RateLimited, Unauthorized};
use super::view::{answer, GameState};
use crate::online::offers::Action;
use crate::state::AppState;
use crate::store::games::OfferKind;
use crate::store::now_exact;

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
    let joined = state.games.join(&player.id, &id).await;
    answer(&state, &player, joined).await
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
        (status = 409, description = "NO_OFFER (accept or decline with no standing offer from the opponent, withdraw with none of one's own); OFFER_PENDING (an offer while the opponent's stands); NOTHING_TO_UNDO (an offer by a player with no move on the board); OPENING_IN_PROGRESS (takeback and draw offers wait for the opening to end); GAME_OVER (with `game`); WAITING_FOR_OPPONENT; ONLINE_ONLY (a local or ai game: use undo)", body = ErrorBody),
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
    let acted = state
        .games
        .act_in_play(&player.id, id, kind, action, arrival)
        .await;
    answer(state, player, acted).await
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
    let acted = state
        .games
        .rematch(&player.id, &id, body.action.into(), arrival)
        .await;
    answer(&state, &player, acted).await
}
