//! `GET /api/v1/games/{id}/live`: a WebSocket carrying a game's news. Writes stay REST requests
//! (with `ply`); the socket only tells, so a client that missed something is right again with
//! the next message, or by reconnecting.
//!
//! Before the upgrade, in the API's JSON error shape: 401 without a valid token (the same
//! `Authorization: Bearer` header as every request; `wx.connectSocket` sends it), 404 for a game
//! the caller may not see, 426 for a request that is not a WebSocket upgrade, 429
//! TOO_MANY_CONNECTIONS past the live connections a token may hold.
//!
//! Then the server sends JSON text messages: first `{"type": "state", "game": <state>}` and
//! `{"type": "presence", "black": bool, "white": bool, "spectators": n}`, then a state after
//! every change of the game from any source, in commit order (never one older than the last one
//! sent; after two commits within one wake-up, the newer state), and a presence whenever it
//! changes. The game deleted (an invitation cancelled): the
//! socket closes (1000). It pings every `--live-ping-ms` and closes a connection silent for
//! `--live-idle-ms` (1001). A client's messages are only signs of life: their content is
//! ignored. A connection that falls behind the game's channel is closed (1013, "too slow") and
//! the client reconnects to a fresh state, rather than holding up the others.
//!
//! One task per socket owns it whole (no split halves), and keeps little else: its
//! subscription, its viewer, the last version and presence it sent. The socket's buffers are
//! sized for messages of a few kilobytes, so an idle connection costs a few kilobytes.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use serde::Serialize;
use time::OffsetDateTime;
use tokio::sync::broadcast::error::RecvError;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::GameId;
use super::responses::{Busy, GameNotFound, Unauthorized};
use super::view::GameState;
use crate::games::rated::{RatedBook, RatedInfo};
use crate::online::hub::{Event, Presence, Ticket};
use crate::state::AppState;
use crate::store::games::{self, StoredGame};

/// The socket's read buffer: client messages are pongs and the odd text, all small.
pub(super) const READ_BUFFER: usize = 4 * 1024;
/// Largest message or frame a client may send.
pub(super) const MAX_CLIENT_MESSAGE: usize = 16 * 1024;
/// Most bytes waiting to be written before a send fails (a state of a full 19×19 board is about
/// 12 KiB).
pub(super) const MAX_WRITE_BUFFER: usize = 256 * 1024;
/// How long one send may take before the connection counts as dead.
pub(super) const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a close waits for the client's answering close before the connection is dropped.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/games/{id}/live", get(live))
}

/// What the server sends.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Outgoing<'a> {
    State { game: &'a GameState },
    Presence(PresenceMessage),
}

#[derive(Serialize)]
struct PresenceMessage {
    black: bool,
    white: bool,
    spectators: u32,
}

fn presence_message(presence: Presence) -> String {
    let message = Outgoing::Presence(PresenceMessage {
        black: presence.black,
        white: presence.white,
        spectators: presence.spectators,
    });
    serde_json::to_string(&message).expect("a presence serialises")
}

/// The state message of `stored` for `viewer`.
fn state_message(
    stored: &StoredGame,
    viewer: &str,
    presence: Presence,
    rated: Option<&RatedInfo>,
) -> String {
    let game = GameState::new(stored, viewer, presence, OffsetDateTime::now_utc(), rated);
    serde_json::to_string(&Outgoing::State { game: &game }).expect("a state serialises")
}

/// The rated state of `game`, None for an unrated game.
async fn rated_of(rated: &RatedBook, game: &StoredGame) -> Result<Option<Arc<RatedInfo>>, Close> {
    rated
        .of(&game.row, &game.seats)
        .await
        .map_err(|_| Close::With(1011, "the game could not be read"))
}

/// Watch a game live (WebSocket).
#[utoipa::path(
    get, path = "/api/v1/games/{id}/live", tag = "online",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 101, description = "Switching to the WebSocket protocol: JSON text messages {\"type\": \"state\", \"game\": <GameState>} and {\"type\": \"presence\", \"black\": bool, \"white\": bool, \"spectators\": n}"),
        Unauthorized,
        GameNotFound,
        (status = 426, description = "UPGRADE_REQUIRED: not a WebSocket upgrade request", body = ErrorBody),
        (status = 429, description = "TOO_MANY_CONNECTIONS: the token holds as many live connections as allowed", body = ErrorBody),
        Busy,
    )
)]
pub async fn live(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    state.games.load(&player.id, &id).await?;
    let upgrade = upgrade.map_err(|_| ApiError::UpgradeRequired)?;
    let ticket = state
        .hub
        .ticket(player.session)
        .ok_or(ApiError::TooManyConnections(state.hub.per_token()))?;
    Ok(upgrade
        .read_buffer_size(READ_BUFFER)
        // Each message is written out at once: nothing waits in a buffer for company.
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
        .max_message_size(MAX_CLIENT_MESSAGE)
        .max_frame_size(MAX_CLIENT_MESSAGE)
        .on_upgrade(move |socket| async move {
            let connection = Connection {
                socket,
                state,
                viewer: player.id,
                _ticket: ticket,
            };
            connection.run(id).await;
        }))
}

/// One live socket, and the place it holds among its token's connections.
struct Connection {
    socket: WebSocket,
    state: AppState,
    viewer: String,
    _ticket: Ticket,
}

/// Why a connection ends from our side.
enum Close {
    /// The peer is gone or broke the protocol: nothing more to send.
    Quiet,
    /// Close with this code and reason.
    With(u16, &'static str),
    /// The client sent a message over the size limit: close with 1009, without reading on (the
    /// rest of the message would be read whole, whatever its size).
    TooBig,
}

/// Whether a read failed on a message or frame over the size limit.
pub(super) fn too_big(e: &axum::Error) -> bool {
    use std::error::Error;
    matches!(
        e.source()
            .and_then(|e| e.downcast_ref::<tungstenite::Error>()),
        Some(tungstenite::Error::Capacity(_))
    )
}

impl Connection {
    async fn run(mut self, id: String) {
        let close = match self.serve(&id).await {
            Ok(never) => match never {},
            Err(close) => close,
        };
        let (code, reason, answer_awaited) = match close {
            Close::Quiet => return,
            Close::With(code, reason) => (code, reason, true),
            Close::TooBig => (1009, "message too big", false),
        };
        let frame = CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        };
        let sent =
            tokio::time::timeout(SEND_TIMEOUT, self.socket.send(Message::Close(Some(frame)))).await;
        if matches!(sent, Ok(Ok(()))) && answer_awaited {
            // The closing handshake: the client answers with its own close, after which the
            // connection ends cleanly (dropping it at once could cost the client the frame).
            let _ = tokio::time::timeout(CLOSE_WAIT, async {
                while let Some(Ok(message)) = self.socket.recv().await {
                    if matches!(message, Message::Close(_)) {
                        break;
                    }
                }
            })
            .await;
        }
    }

    async fn send(&mut self, text: impl Into<Utf8Bytes>) -> Result<(), Close> {
        match tokio::time::timeout(SEND_TIMEOUT, self.socket.send(Message::Text(text.into()))).await
        {
            Ok(Ok(())) => Ok(()),
            _ => Err(Close::Quiet),
        }
    }

    /// Sends the game's news until the connection ends; why it ended.
    async fn serve(&mut self, id: &str) -> Result<std::convert::Infallible, Close> {
        let hub = self.state.hub.clone();
        let read = |loaded: Result<Option<_>, _>| match loaded {
            Ok(Some(game)) => Ok(game),
            Ok(None) => Err(Close::With(1000, "the game was deleted")),
            Err(_) => Err(Close::With(1011, "the game could not be read")),
        };
        // The first state is read after subscribing, so that no change in between is missed;
        // the seats known to the hub are brought up to it.
        let seats = read(games::load(&self.state.db, id).await)?;
        let mut subscription = hub.subscribe(&seats, &self.viewer);
        // With other instances, they hear of this connection before it hears anything.
        hub.shared(id).await;
        let current = read(games::load(&self.state.db, id).await)?;
        hub.seen(&current);
        let mut last_version = current.row.version;
        let mut last_presence = hub.presence(id);
        let book = self.state.rated.clone();
        let rated = rated_of(&book, &current).await?;
        self.send(state_message(
            &current,
            &self.viewer,
            last_presence,
            rated.as_deref(),
        ))
        .await?;
        self.send(presence_message(last_presence)).await?;

        let config = self.state.config.clone();
        let mut ping = tokio::time::interval(config.live_ping());
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ping.tick().await;
        let idle = tokio::time::sleep(config.live_idle());
        tokio::pin!(idle);
        let mut closing = hub.closing();
        if *closing.borrow_and_update() {
            return Err(Close::With(1001, "the server is going away"));
        }
        loop {
            tokio::select! {
                event = subscription.receiver.recv() => {
                    match event {
                        Ok(event @ (Event::State(_) | Event::Fresh)) => {
                            // A fresh state goes out even at the version last sent.
                            let (after, fresh) = match event {
                                Event::State(version) => (version, false),
                                _ => (last_version, true),
                            };
                            if after <= last_version && !fresh {
                                continue;
                            }
                            // The latest state, which may be newer than this event's.
                            let Some(update) = hub.latest(id) else {
                                continue;
                            };
                            let version = update.game.row.version;
                            if version < last_version || (version == last_version && !fresh) {
                                continue;
                            }
                            last_version = update.game.row.version;
                            let you = update.game.colour_of(&self.viewer);
                            let rated = rated_of(&book, &update.game).await?;
                            let text = update.rendered(you, || {
                                state_message(
                                    &update.game,
                                    &self.viewer,
                                    update.presence,
                                    rated.as_deref(),
                                )
                            });
                            // The presence inside the state is the hub's of now; a presence
                            // message still follows if that changed what was last said in one.
                            self.send(text.as_ref()).await?;
                        }
                        Ok(Event::Presence) => {
                            // The presence of now, not of when the event was sent.
                            let presence = hub.presence(id);
                            if presence != last_presence {
                                last_presence = presence;
                                self.send(presence_message(presence)).await?;
                            }
                        }
                        Ok(Event::Gone) | Err(RecvError::Closed) => {
                            return Err(Close::With(1000, "the game was deleted"));
                        }
                        Err(RecvError::Lagged(_)) => {
                            return Err(Close::With(1013, "too slow: reconnect for a fresh state"));
                        }
                    }
                }
                message = self.socket.recv() => match message {
                    Some(Err(e)) if too_big(&e) => return Err(Close::TooBig),
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Err(Close::Quiet),
                    // Any message, a pong included, is a sign of life; its content is ignored.
                    Some(Ok(_)) => idle
                        .as_mut()
                        .reset(tokio::time::Instant::now() + config.live_idle()),
                },
                _ = ping.tick() => {
                    let sent = tokio::time::timeout(
                        SEND_TIMEOUT,
                        self.socket.send(Message::Ping(Default::default())),
                    )
                    .await;
                    if !matches!(sent, Ok(Ok(()))) {
                        return Err(Close::Quiet);
                    }
                }
                () = &mut idle => return Err(Close::With(1001, "silent for too long")),
                // The only change is to "closing" (or the hub went away).
                _ = closing.changed() => {
                    return Err(Close::With(1001, "the server is going away"));
                }
            }
        }
    }
}
