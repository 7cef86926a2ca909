//! The live client: a real WebSocket (`tokio-tungstenite`) to `GET /api/v1/games/{id}/live`,
//! opened with a player's bearer token as `wx.connectSocket` sends it, reading the JSON messages
//! the server pushes. A refused upgrade comes back as the HTTP [`Refusal`] (status and JSON
//! error body), so tests can check the 401/404/429 answers too.
//!
//! Reads wait with a timeout and never assert on how long something took: a test says what must
//! arrive, and a generous bound only keeps a broken server from hanging it.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::client::Player;

/// How long a read waits by default before the test fails: far longer than any push takes.
pub const WAIT: Duration = Duration::from_secs(15);

/// The answer to an upgrade the server refused: its status and its JSON body.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub status: u16,
    pub body: Value,
}

impl Refusal {
    /// The error code of the body.
    pub fn code(&self) -> &str {
        crate::client::code(&self.body)
    }
}

/// What came from the socket.
#[derive(Debug, Clone)]
pub enum Received {
    /// A JSON text message.
    Json(Value),
    /// The server closed the connection (with its close frame, if it sent one).
    Closed(Option<(u16, String)>),
}

/// One live connection.
pub struct Live {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// The `ws://` URL of a game's live stream on the server `base` (`http://…`).
pub fn live_url(base: &str, id: &str) -> String {
    format!("{}/api/v1/games/{id}/live", base.replacen("http", "ws", 1))
}

impl Live {
    /// Opens game `id`'s live stream as `player`.
    pub async fn connect(player: &Player, id: &str) -> Result<Live, Refusal> {
        Live::connect_with(player.api.base(), id, Some(&player.token)).await
    }

    /// Opens `player`'s own live channel (`GET /api/v1/live`: pairings, seeks ended).
    pub async fn own(player: &Player) -> Result<Live, Refusal> {
        let url = format!(
            "{}/api/v1/live",
            player.api.base().replacen("http", "ws", 1)
        );
        Live::connect_url(&url, Some(&player.token)).await
    }

    /// Opens game `id`'s live stream on `base` with `token` as the bearer (or none).
    pub async fn connect_with(base: &str, id: &str, token: Option<&str>) -> Result<Live, Refusal> {
        Live::connect_url(&live_url(base, id), token).await
    }

    /// Opens the WebSocket at `url` with `token` as the bearer (or none).
    pub async fn connect_url(url: &str, token: Option<&str>) -> Result<Live, Refusal> {
        let mut request = url.into_client_request().expect("a WebSocket request");
        if let Some(token) = token {
            request.headers_mut().insert(
                "authorization",
                HeaderValue::from_str(&format!("Bearer {token}")).expect("header"),
            );
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((socket, _)) => Ok(Live { socket }),
            Err(WsError::Http(response)) => {
                let status = response.status().as_u16();
                let body = response
                    .body()
                    .as_deref()
                    .and_then(|b| serde_json::from_slice(b).ok())
                    .unwrap_or(Value::Null);
                Err(Refusal { status, body })
            }
            Err(e) => panic!("live connection to {url} failed: {e}"),
        }
    }

    /// The next thing from the server within `within` (pings are answered by the library and
    /// skipped); None if nothing came in time.
    pub async fn receive(&mut self, within: Duration) -> Option<Received> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let next = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .ok()?;
            match next {
                Some(Ok(Message::Text(text))) => {
                    let value = serde_json::from_str(&text).unwrap_or_else(|e| {
                        panic!("a live message that is not JSON ({e}): {text}")
                    });
                    return Some(Received::Json(value));
                }
                Some(Ok(Message::Close(frame))) => {
                    return Some(Received::Closed(frame.map(
                        |CloseFrame { code, reason }| (u16::from(code), reason.to_string()),
                    )))
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Some(Received::Closed(None)),
            }
        }
    }

    /// The next JSON message within `within`; panics on a close, None if nothing came.
    pub async fn message_within(&mut self, within: Duration) -> Option<Value> {
        match self.receive(within).await? {
            Received::Json(value) => Some(value),
            Received::Closed(frame) => panic!("the live connection closed: {frame:?}"),
        }
    }

    /// The next JSON message; panics if none comes within [`WAIT`].
    pub async fn message(&mut self) -> Value {
        self.message_within(WAIT)
            .await
            .unwrap_or_else(|| panic!("no live message within {WAIT:?}"))
    }

    /// The game of the next `state` message, skipping presence messages.
    pub async fn state(&mut self) -> Value {
        loop {
            let message = self.message().await;
            if message["type"] == "state" {
                return message["game"].clone();
            }
            assert_eq!(message["type"], "presence", "unknown message {message}");
        }
    }

    /// The game of the first `state` message for which `wanted` holds, skipping the others and
    /// presence messages; no state may be older than the one before it (the same one again is
    /// a fresh state, sent after news between instances may have been missed).
    pub async fn state_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let mut version = -1;
        loop {
            let game = self.state().await;
            let v = game["version"].as_i64().expect("version");
            assert!(v >= version, "states in order: {v} after {version}");
            version = v;
            if wanted(&game) {
                return game;
            }
        }
    }

    /// The game of the first `state` message at `version` or later.
    pub async fn state_at(&mut self, version: i64) -> Value {
        self.state_where(|g| g["version"].as_i64() >= Some(version))
            .await
    }

    /// The next `presence` message, skipping state messages.
    pub async fn presence(&mut self) -> Value {
        loop {
            let message = self.message().await;
            if message["type"] == "presence" {
                return message;
            }
        }
    }

    /// The first `presence` message for which `wanted` holds.
    pub async fn presence_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let presence = self.presence().await;
            if wanted(&presence) {
                return presence;
            }
        }
    }

    /// Reads until the server closes the connection, within `within`; its close frame (code,
    /// reason) if it sent one. Panics if it stays open.
    pub async fn closed_within(&mut self, within: Duration) -> Option<(u16, String)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.receive(left).await {
                Some(Received::Closed(frame)) => return frame,
                Some(Received::Json(_)) => continue,
                None => panic!("the live connection stayed open for {within:?}"),
            }
        }
    }

    /// Sends a text message (the server ignores its content).
    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::Text(text.into()))
            .await
            .expect("send a text message");
    }

    /// Closes the connection from this side.
    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }
}
