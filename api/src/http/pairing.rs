//! Matchmaking over HTTP: `GET /api/v1/pools` (the pools and how many wait in each),
//! `POST/GET/DELETE /api/v1/seeks` (the caller's seek), and `GET /api/v1/live`, the caller's
//! own WebSocket, which tells them when they are paired. The decisions are the lobby's
//! ([`crate::online::lobby`]); this module extracts, calls and renders.
//!
//! The player's channel sends JSON text messages: `{"type": "hello", "seek": <seek> | null}` on
//! connect, `{"type": "paired", "gameId", "pool", "you": 1|2}` when a pairing made their game
//! (on every channel of theirs, on any instance), and `{"type": "seekEnded", "reason":
//! "cancelled"|"gone"|"tooManyGames"}` when their seek left the pool otherwise. A seek dies with
//! its player's last channel; pings, the idle limit and the cap on a token's live connections
//! are the per-game stream's ([`super::live`]).

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use gomoku_rules::Rule;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::RecvError;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::{JsonBody, Whole};
use super::games::TimeControlRequest;
use super::live::{too_big, MAX_CLIENT_MESSAGE, MAX_WRITE_BUFFER, READ_BUFFER, SEND_TIMEOUT};
use super::responses::{BadBody, Busy, Unauthorized};
use super::view::{RatingView, TimeControlView};
use super::wire::{RuleName, Wire};
use crate::matchmaking::{Pool, Seek};
use crate::online::lobby::{SeekError, Sought};
use crate::state::AppState;
use crate::store::ratings;
use crate::store::seeks::{self, PlayerNews};
use crate::store::{timestamp, Db, StoreError};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/pools", get(pools))
        .route(
            "/api/v1/seeks",
            get(current_seek).post(seek).delete(cancel_seek),
        )
        .route("/api/v1/live", get(own_live))
}

/// One pool: its key, rule, board and time control, and how many wait in it now.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PoolView {
    /// The pool's key, e.g. "freestyle/3+2".
    pub pool: String,
    pub rule: RuleName,
    #[schema(minimum = 15, maximum = 15)]
    pub board_size: usize,
    pub time_control: TimeControlView,
    /// Players waiting in it now (on every instance).
    pub waiting: usize,
}

/// The seven pools, in a fixed order.
#[derive(Debug, Serialize, ToSchema)]
pub struct Pools {
    pub pools: Vec<PoolView>,
}

/// A player's seek.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SeekView {
    pub pool: String,
    pub rule: RuleName,
    #[schema(minimum = 15, maximum = 15)]
    pub board_size: usize,
    pub time_control: TimeControlView,
    /// When the player began to seek (RFC 3339).
    pub since: String,
    /// Their rating in the pool's family now.
    pub rating: RatingView,
}

/// The caller's seek.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeekAnswer {
    pub seek: SeekView,
}

/// A seek: the pool by its rule, board size (15) and time control.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SeekRequest {
    #[schema(value_type = RuleName)]
    pub rule: String,
    #[schema(value_type = i64, minimum = 15, maximum = 15)]
    pub board_size: Whole,
    pub time_control: TimeControlRequest,
}

impl SeekRequest {
    /// The pool it names, or UNKNOWN_POOL.
    fn pool(&self) -> Result<Pool, ApiError> {
        let rule: Rule = self.rule.parse().map_err(|_| ApiError::UnknownPool)?;
        if self.board_size != Whole(Pool::BOARD_SIZE as i64) {
            return Err(ApiError::UnknownPool);
        }
        let tc = self.time_control;
        Pool::find(rule, tc.initial_ms.0, tc.increment_ms.0).ok_or(ApiError::UnknownPool)
    }
}

fn pool_view(pool: Pool, waiting: usize) -> PoolView {
    PoolView {
        pool: pool.as_str().to_string(),
        rule: Wire(pool.rule),
        board_size: Pool::BOARD_SIZE,
        time_control: time_control(pool),
        waiting,
    }
}

fn time_control(pool: Pool) -> TimeControlView {
    TimeControlView {
        initial_ms: pool.initial_ms,
        increment_ms: pool.increment_ms,
    }
}

async fn seek_view(db: &Db, seek: &Seek) -> Result<SeekView, StoreError> {
    let record = ratings::record(db, &seek.player_id, seek.pool.family()).await?;
    Ok(SeekView {
        pool: seek.pool.as_str().to_string(),
        rule: Wire(seek.pool.rule),
        board_size: Pool::BOARD_SIZE,
        time_control: time_control(seek.pool),
        since: timestamp(seek.since),
        rating: RatingView::from(&record),
    })
}

/// The matchmaking pools, with how many players wait in each.
#[utoipa::path(
    get, path = "/api/v1/pools", tag = "matchmaking",
    responses(
        (status = 200, description = "The seven pools in a fixed order", body = Pools),
        Busy,
    )
)]
pub async fn pools(State(db): State<Db>) -> Result<Json<Pools>, ApiError> {
    let mut pools = Vec::with_capacity(Pool::ALL.len());
    for pool in Pool::ALL {
        pools.push(pool_view(pool, seeks::waiting(&db, pool).await?.len()));
    }
    Ok(Json(Pools { pools }))
}

/// Seek a rated game in a pool. Keep `GET /api/v1/live` open while waiting: the seek dies with
/// the caller's last live connection (and one made without any is dropped if none comes within
/// 10 s).
#[utoipa::path(
    post, path = "/api/v1/seeks", tag = "matchmaking",
    request_body = SeekRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The caller now waits in the pool", body = SeekAnswer),
        (status = 200, description = "The caller already waited in this pool: their seek", body = SeekAnswer),
        BadBody,
        Unauthorized,
        (status = 409, description = "ALREADY_SEEKING: the caller waits in another pool", body = ErrorBody),
        (status = 422, description = "UNKNOWN_POOL: no pool plays this rule, board size and time control", body = ErrorBody),
        Busy,
    )
)]
pub async fn seek(
    State(state): State<AppState>,
    player: Player,
    JsonBody(body): JsonBody<SeekRequest>,
) -> Result<Response, ApiError> {
    let pool = body.pool()?;
    let (status, seek) = match state.lobby.seek(&player.id, pool).await {
        Ok(Sought::New(seek)) => (StatusCode::CREATED, seek),
        Ok(Sought::Same(seek)) => (StatusCode::OK, seek),
        Err(SeekError::Elsewhere(seek)) => {
            return Err(ApiError::AlreadySeeking(seek.pool.to_string()))
        }
        Err(SeekError::Store(e)) => return Err(e.into()),
    };
    let seek = seek_view(&state.db, &seek).await?;
    Ok((status, Json(SeekAnswer { seek })).into_response())
}

/// The caller's seek.
#[utoipa::path(
    get, path = "/api/v1/seeks", tag = "matchmaking",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's seek", body = SeekAnswer),
        Unauthorized,
        (status = 404, description = "NOT_SEEKING: the caller waits in no pool", body = ErrorBody),
        Busy,
    )
)]
pub async fn current_seek(
    State(state): State<AppState>,
    player: Player,
) -> Result<Json<SeekAnswer>, ApiError> {
    let seek = state
        .lobby
        .current(&player.id)
        .await?
        .ok_or(ApiError::NotSeeking)?;
    Ok(Json(SeekAnswer {
        seek: seek_view(&state.db, &seek).await?,
    }))
}

/// Leave the pool (also when not in it).
#[utoipa::path(
    delete, path = "/api/v1/seeks", tag = "matchmaking",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The caller waits in no pool"),
        Unauthorized,
        Busy,
    )
)]
pub async fn cancel_seek(
    State(state): State<AppState>,
    player: Player,
) -> Result<StatusCode, ApiError> {
    state.lobby.cancel(&player.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// What the player's channel sends.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Outgoing {
    Hello {
        seek: Option<SeekView>,
    },
    #[serde(rename_all = "camelCase")]
    Paired {
        game_id: String,
        pool: String,
        you: u8,
    },
    SeekEnded {
        reason: &'static str,
    },
}

impl From<PlayerNews> for Outgoing {
    fn from(news: PlayerNews) -> Outgoing {
        match news {
            PlayerNews::Paired {
                game_id, pool, you, ..
            } => Outgoing::Paired {
                game_id,
                pool: pool.as_str().to_string(),
                you: you.as_u8(),
            },
            PlayerNews::SeekEnded { reason, .. } => Outgoing::SeekEnded {
                reason: reason.as_str(),
            },
        }
    }
}

/// The caller's own news (WebSocket): pairings and the end of their seek.
#[utoipa::path(
    get, path = "/api/v1/live", tag = "matchmaking",
    security(("bearer" = [])),
    responses(
        (status = 101, description = "Switching to the WebSocket protocol: JSON text messages {\"type\": \"hello\", \"seek\": <SeekView>|null}, {\"type\": \"paired\", \"gameId\", \"pool\", \"you\": 1|2} and {\"type\": \"seekEnded\", \"reason\": \"cancelled\"|\"gone\"|\"tooManyGames\"}"),
        Unauthorized,
        (status = 426, description = "UPGRADE_REQUIRED: not a WebSocket upgrade request", body = ErrorBody),
        (status = 429, description = "TOO_MANY_CONNECTIONS: the token holds as many live connections as allowed", body = ErrorBody),
        Busy,
    )
)]
pub async fn own_live(
    State(state): State<AppState>,
    player: Player,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|_| ApiError::UpgradeRequired)?;
    let ticket = state
        .hub
        .ticket(player.session)
        .ok_or(ApiError::TooManyConnections(state.hub.per_token()))?;
    Ok(upgrade
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
        .max_message_size(MAX_CLIENT_MESSAGE)
        .max_frame_size(MAX_CLIENT_MESSAGE)
        .on_upgrade(move |mut socket| async move {
            let _ticket = ticket;
            if let Some((code, reason)) = serve(&mut socket, &state, &player.id).await {
                let frame = CloseFrame {
                    code,
                    reason: Utf8Bytes::from_static(reason),
                };
                let close = socket.send(Message::Close(Some(frame)));
                let _ = tokio::time::timeout(SEND_TIMEOUT, close).await;
            }
        }))
}

async fn send(socket: &mut WebSocket, message: &Outgoing) -> Result<(), ()> {
    let text = serde_json::to_string(message).expect("a message serialises");
    match tokio::time::timeout(SEND_TIMEOUT, socket.send(Message::Text(text.into()))).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

/// Sends the player's news until the connection ends; the close to send, if any.
async fn serve(
    socket: &mut WebSocket,
    state: &AppState,
    player_id: &str,
) -> Option<(u16, &'static str)> {
    // Listening before the seek is read: a pairing in between is not missed.
    let mut listening = state.lobby.listen(player_id);
    let seek = match state.lobby.current(player_id).await {
        Ok(Some(seek)) => match seek_view(&state.db, &seek).await {
            Ok(view) => Some(view),
            Err(_) => return Some((1011, "the seek could not be read")),
        },
        Ok(None) => None,
        Err(_) => return Some((1011, "the seek could not be read")),
    };
    send(socket, &Outgoing::Hello { seek }).await.ok()?;
    let config = state.config.clone();
    let mut ping = tokio::time::interval(config.live_ping());
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ping.tick().await;
    let idle = tokio::time::sleep(config.live_idle());
    tokio::pin!(idle);
    let mut closing = state.hub.closing();
    if *closing.borrow_and_update() {
        return Some((1001, "the server is going away"));
    }
    loop {
        tokio::select! {
            news = listening.news.recv() => match news {
                Ok(news) => send(socket, &Outgoing::from(news)).await.ok()?,
                Err(RecvError::Lagged(_)) => {
                    return Some((1013, "too slow: reconnect for a fresh state"));
                }
                Err(RecvError::Closed) => return Some((1011, "the lobby closed")),
            },
            message = socket.recv() => match message {
                Some(Err(e)) if too_big(&e) => return Some((1009, "message too big")),
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
                Some(Ok(_)) => idle
                    .as_mut()
                    .reset(tokio::time::Instant::now() + config.live_idle()),
            },
            _ = ping.tick() => {
                let ping = socket.send(Message::Ping(Default::default()));
                if !matches!(tokio::time::timeout(SEND_TIMEOUT, ping).await, Ok(Ok(()))) {
                    return None;
                }
            }
            () = &mut idle => return Some((1001, "silent for too long")),
            _ = closing.changed() => return Some((1001, "the server is going away")),
        }
    }
}
