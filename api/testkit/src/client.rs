//! The one API client. [`Api`] talks to a server without credentials (sessions, health, CORS,
//! requests that must be refused); a [`Player`] is an `Api` with a bearer token, and has the
//! game calls. Every answer is a [`Reply`]. `send` panics on a transport error, `try_send`
//! returns it, for runs that kill the server under their clients' feet.
//!
//! Each `Api` reports to a [`Stats`]: requests and 5xx answers are counted, and checks that find
//! something wrong report it there. A test's `Stats` is strict (the first violation panics, as an
//! assertion would); the stress tool's counts them and carries on, so one run reports them all.
//!
//! The live WebSocket client is [`Live`](crate::live::Live), opened for a [`Player`]: it has
//! the base URL and the token a socket needs.

use std::fmt::Display;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{json, Value};

use crate::server::Server;

/// What the clients of one run saw. Atomics: many tasks bump them, nothing reads them until the
/// run is over.
#[derive(Default)]
pub struct Stats {
    /// Panic on the first violation instead of counting it.
    strict: bool,
    requests: AtomicU64,
    server_errors: AtomicU64,
    ai_busy: AtomicU64,
    violations: AtomicU64,
}

impl Stats {
    /// For tests: a violation panics.
    pub fn strict() -> Arc<Stats> {
        Arc::new(Stats {
            strict: true,
            ..Stats::default()
        })
    }

    /// For long runs: a violation is printed and counted.
    pub fn counting() -> Arc<Stats> {
        Arc::new(Stats::default())
    }

    /// Something that must not happen did.
    #[track_caller]
    pub fn violation(&self, what: impl Display) {
        if self.strict {
            panic!("{what}");
        }
        self.violations.fetch_add(1, Ordering::Relaxed);
        eprintln!("VIOLATION: {what}");
    }

    /// The body of `reply` if it has `status`; otherwise a violation, and None.
    #[track_caller]
    pub fn expect(&self, reply: Reply, status: u16, what: impl Display) -> Option<Value> {
        if reply.status == status {
            return Some(reply.body);
        }
        self.violation(format!("{what}: {} {}", reply.status, reply.text));
        None
    }

    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// 5xx answers other than 503 AI_BUSY (which the AI cap documents).
    pub fn server_errors(&self) -> u64 {
        self.server_errors.load(Ordering::Relaxed)
    }

    pub fn ai_busy(&self) -> u64 {
        self.ai_busy.load(Ordering::Relaxed)
    }

    pub fn violations(&self) -> u64 {
        self.violations.load(Ordering::Relaxed)
    }

    fn answered(&self, reply: &Reply, path: &str) {
        if !reply.status.is_server_error() {
            return;
        }
        if reply.is(503, "AI_BUSY") {
            self.ai_busy.fetch_add(1, Ordering::Relaxed);
        } else {
            self.server_errors.fetch_add(1, Ordering::Relaxed);
            if !self.strict {
                eprintln!("5xx: {} on {path}: {}", reply.status, reply.text);
            }
        }
    }
}

/// One HTTP answer: the status, the headers and the body parsed as JSON (`Value::Null` when the
/// body is empty or not JSON; the raw text is kept for such cases).
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    pub text: String,
}

impl Reply {
    async fn read(response: reqwest::Response) -> Result<Reply, reqwest::Error> {
        let status = response.status();
        let headers = response.headers().clone();
        let text = response.text().await?;
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Ok(Reply {
            status,
            headers,
            body,
            text,
        })
    }

    /// The `error.code` of an error answer, or "" when there is none.
    pub fn code(&self) -> &str {
        code(&self.body)
    }

    /// Whether this is the answer `status` with error code `code`.
    pub fn is(&self, status: u16, code: &str) -> bool {
        self.status == status && self.code() == code
    }

    /// A header as text, if present.
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("ASCII header").to_string())
    }

    /// Asserts a success status and returns the body.
    #[track_caller]
    pub fn ok(self, status: u16, what: &str) -> Value {
        assert_eq!(
            self.status, status,
            "{what}: expected {status}, got {} {}",
            self.status, self.text
        );
        self.body
    }

    /// Asserts an error answer that is one of `allowed` (status and code), in the
    /// `{"error":{"code","message"}}` shape.
    #[track_caller]
    pub fn assert_error_in(&self, allowed: &[(u16, &str)], what: &str) {
        assert!(
            allowed.iter().any(|&(status, code)| self.is(status, code)),
            "{what}: expected one of {allowed:?}, got {} {}",
            self.status,
            self.text
        );
        assert!(
            self.body["error"]["message"].is_string(),
            "{what}: error without a message: {}",
            self.text
        );
    }

    /// Asserts an error answer: its status, its code, and the `{"error":{"code","message"}}` shape.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str, what: &str) {
        self.assert_error_in(&[(status, code)], what);
    }

    /// Asserts a 429 RATE_LIMITED answer whose Retry-After header is whole seconds (1 to 60) and
    /// agrees with the body's `retryAfter`; returns the wait.
    #[track_caller]
    pub fn assert_rate_limited(&self, what: &str) -> u64 {
        self.assert_error(429, "RATE_LIMITED", what);
        let wait: u64 = self
            .header("retry-after")
            .expect("Retry-After")
            .parse()
            .expect("Retry-After in whole seconds");
        assert!((1..=60).contains(&wait), "{what}: Retry-After {wait}");
        assert_eq!(self.body["error"]["retryAfter"], wait, "{what}");
        wait
    }
}

/// The error code of an error body (`{"error": {"code": ...}}`), or "" when there is none.
pub fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

/// One server's API: a connection pool, the base URL and the stats it reports to. Cheap to
/// clone, so concurrent tasks can each own one.
#[derive(Clone)]
pub struct Api {
    http: reqwest::Client,
    base: String,
    stats: Arc<Stats>,
}

impl Api {
    /// Long enough for a master-level search behind a full AI queue; short enough that a hung
    /// server fails the test instead of hanging it.
    pub const TIMEOUT: Duration = Duration::from_secs(30);

    /// A new client of `server`, strict.
    pub fn on(server: &Server) -> Api {
        Api::new(server.base(), Api::TIMEOUT, Stats::strict())
    }

    pub fn new(base: &str, timeout: Duration, stats: Arc<Stats>) -> Api {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .expect("HTTP client");
        Api {
            http,
            base: base.to_string(),
            stats,
        }
    }

    /// The same client (and stats) pointed at another server process, e.g. after a restart.
    pub fn at(&self, server: &Server) -> Api {
        Api {
            base: server.base().to_string(),
            ..self.clone()
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn stats(&self) -> &Arc<Stats> {
        &self.stats
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request without credentials.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.http.request(method, self.url(path))
    }

    /// Sends a request and reads the whole answer; a transport error is returned.
    pub async fn try_send(&self, request: RequestBuilder) -> Result<Reply, reqwest::Error> {
        self.stats.requests.fetch_add(1, Ordering::Relaxed);
        let response = request.send().await?;
        let path = response.url().path().to_string();
        let reply = Reply::read(response).await?;
        self.stats.answered(&reply, &path);
        Ok(reply)
    }

    /// Sends a request and reads the whole answer; a transport error panics.
    pub async fn send(&self, request: RequestBuilder) -> Reply {
        self.try_send(request)
            .await
            .unwrap_or_else(|e| panic!("transport error: {e}"))
    }

    /// GET without credentials.
    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.request(Method::GET, path)).await
    }

    /// POST of a JSON body without credentials.
    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.send(self.request(Method::POST, path).json(body)).await
    }

    /// `POST /api/v1/sessions` with `body` (a login `code`, a `previousToken`) and extra headers.
    pub async fn start_session(&self, body: &Value, headers: &[(&str, &str)]) -> Reply {
        let mut request = self.request(Method::POST, "/api/v1/sessions").json(body);
        for &(name, value) in headers {
            request = request.header(name, value);
        }
        self.send(request).await
    }

    /// A new anonymous player's bearer token.
    pub async fn new_token(&self) -> String {
        let session = self
            .start_session(&json!({}), &[])
            .await
            .ok(201, "POST /api/v1/sessions");
        session["token"].as_str().expect("token").to_string()
    }

    /// A new anonymous player, sharing this client.
    pub async fn new_player(&self) -> Player {
        let token = self.new_token().await;
        self.player(&token)
    }

    /// The player holding `token`, through this client.
    pub fn player(&self, token: &str) -> Player {
        Player {
            api: self.clone(),
            token: token.to_string(),
        }
    }
}

/// A player talking to a server: an [`Api`] and a bearer token.
#[derive(Clone)]
pub struct Player {
    pub api: Api,
    pub token: String,
}

impl Player {
    /// A new anonymous player on `server`, with a client of its own.
    pub async fn new(server: &Server) -> Player {
        Api::on(server).new_player().await
    }

    /// The same player (same token) on another server process, e.g. after a restart.
    pub fn on(&self, server: &Server) -> Player {
        self.api.at(server).player(&self.token)
    }

    pub fn stats(&self) -> &Stats {
        &self.api.stats
    }

    /// A request with this player's bearer token.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.api.request(method, path).bearer_auth(&self.token)
    }

    pub async fn send(&self, request: RequestBuilder) -> Reply {
        self.api.send(request).await
    }

    pub async fn try_send(&self, request: RequestBuilder) -> Result<Reply, reqwest::Error> {
        self.api.try_send(request).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(self.request(Method::GET, path)).await
    }

    /// POST with a JSON body.
    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        self.send(self.request(Method::POST, path).json(body)).await
    }

    /// POST with a JSON body; a transport error is returned.
    pub async fn try_post(&self, path: &str, body: &Value) -> Result<Reply, reqwest::Error> {
        self.try_send(self.request(Method::POST, path).json(body))
            .await
    }

    /// POST without a body.
    pub async fn post_empty(&self, path: &str) -> Reply {
        self.send(self.request(Method::POST, path)).await
    }

    /// POST of a raw body (malformed JSON, not JSON at all) with the content type given, if any.
    pub async fn post_raw(&self, path: &str, content_type: Option<&str>, body: &[u8]) -> Reply {
        let mut request = self.request(Method::POST, path).body(body.to_vec());
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        self.send(request).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.send(self.request(Method::DELETE, path)).await
    }

    /// Creates a game with these settings, asserting 201; its state.
    pub async fn create(&self, settings: Value) -> Value {
        self.post("/api/v1/games", &settings)
            .await
            .ok(201, &format!("POST /api/v1/games {settings}"))
    }

    /// Creates a game with these settings, asserting 201; its id.
    pub async fn create_id(&self, settings: Value) -> String {
        crate::state::id_of(&self.create(settings).await)
    }

    /// A game's current state, asserting 200.
    pub async fn game(&self, id: &str) -> Value {
        self.get(&format!("/api/v1/games/{id}"))
            .await
            .ok(200, &format!("GET /api/v1/games/{id}"))
    }

    /// Asserts the game still reads the same as `before`.
    pub async fn assert_same(&self, id: &str, before: &Value, what: &str) {
        assert_eq!(&self.game(id).await, before, "{what} changed the game");
    }

    /// Takes back the last move (two in an AI game), without a body.
    pub async fn undo(&self, id: &str) -> Reply {
        self.post_empty(&format!("/api/v1/games/{id}/undo")).await
    }

    /// Resigns for the side to move, without a body.
    pub async fn resign(&self, id: &str) -> Reply {
        self.post_empty(&format!("/api/v1/games/{id}/resign")).await
    }

    /// A game's record, asserting 200.
    pub async fn export(&self, id: &str) -> Value {
        self.get(&format!("/api/v1/games/{id}/export"))
            .await
            .ok(200, &format!("export of {id}"))
    }

    /// `POST /games/{id}/analysis`: starts (or extends) the game's analysis.
    pub async fn start_analysis(&self, id: &str) -> Reply {
        self.post_empty(&format!("/api/v1/games/{id}/analysis"))
            .await
    }

    /// `GET /games/{id}/analysis`.
    pub async fn analysis(&self, id: &str) -> Reply {
        self.get(&format!("/api/v1/games/{id}/analysis")).await
    }

    /// Reads the game's analysis every 50 ms until it is done; every answer on the way, the
    /// last one done. Panics on an error answer, or when it is not done within `limit`.
    pub async fn analysis_until_done(&self, id: &str, limit: Duration) -> Vec<Value> {
        let mut seen = Vec::new();
        let what = format!("the analysis of {id} done");
        crate::eventually(&what, limit, async || {
            let analysis = self.analysis(id).await.ok(200, "GET analysis");
            let done = analysis["status"] == "done";
            seen.push(analysis);
            done
        })
        .await;
        seen
    }

    /// Imports a record.
    pub async fn import(&self, record: &Value) -> Reply {
        self.post("/api/v1/games/import", record).await
    }

    /// Sends a move without `ply`.
    pub async fn try_move(&self, id: &str, row: i64, col: i64) -> Reply {
        self.move_body(id, json!({"row": row, "col": col})).await
    }

    /// Sends a move for ply `ply`.
    pub async fn try_move_at(&self, id: &str, row: i64, col: i64, ply: i64) -> Reply {
        self.move_body(id, json!({"row": row, "col": col, "ply": ply}))
            .await
    }

    /// Sends `body` to the game's moves endpoint.
    pub async fn move_body(&self, id: &str, body: Value) -> Reply {
        self.post(&format!("/api/v1/games/{id}/moves"), &body).await
    }

    /// Plays a move, asserting 200; the new state.
    pub async fn play(&self, id: &str, row: i64, col: i64) -> Value {
        let reply = self.try_move(id, row, col).await;
        reply.ok(200, &format!("move ({row},{col})"))
    }

    /// Plays a move for ply `ply`, asserting 200; the new state.
    pub async fn play_at(&self, id: &str, row: i64, col: i64, ply: i64) -> Value {
        let reply = self.try_move_at(id, row, col, ply).await;
        reply.ok(200, &format!("move ({row},{col}) at ply {ply}"))
    }

    /// Plays the moves in order, asserting each is accepted; the last state.
    pub async fn play_all(&self, id: &str, moves: &[(i64, i64)]) -> Value {
        let mut state = Value::Null;
        for &(row, col) in moves {
            state = self.play(id, row, col).await;
        }
        state
    }

    /// One page of this player's list; `query` holds extra (name, value) pairs.
    pub async fn list_page(&self, query: &[(&str, &str)]) -> Reply {
        let request = self.request(Method::GET, "/api/v1/games").query(query);
        self.send(request).await
    }

    /// Every game in this player's list (all pages of `limit`), following cursors; `status` is
    /// the optional filter.
    pub async fn list_all(&self, status: Option<&str>, limit: u32) -> Vec<Value> {
        let mut games = Vec::new();
        let mut cursor: Option<String> = None;
        let limit = limit.to_string();
        loop {
            let mut query = vec![("limit", limit.as_str())];
            if let Some(status) = status {
                query.push(("status", status));
            }
            if let Some(cursor) = &cursor {
                query.push(("cursor", cursor.as_str()));
            }
            let page = self.list_page(&query).await.ok(200, "GET /api/v1/games");
            let items = page["games"].as_array().expect("games array");
            assert!(
                items.len() <= limit.parse().unwrap(),
                "page longer than limit"
            );
            games.extend(items.iter().cloned());
            match page["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_string()),
                None => return games,
            }
            assert!(games.len() < 10_000, "cursor never ends");
        }
    }

    /// Creates an online game with these settings (`mode` is set), asserting 201; its state.
    pub async fn create_online(&self, mut settings: Value) -> Value {
        settings["mode"] = json!("online");
        self.create(settings).await
    }

    /// `POST /games/{id}/join`.
    pub async fn join(&self, id: &str) -> Reply {
        self.post_empty(&format!("/api/v1/games/{id}/join")).await
    }

    /// `POST /games/{id}/{kind}` (`takeback`, `draw` or `rematch`) with `{"action": action}`
    /// (`offer`, `accept`, `decline` or `withdraw`).
    pub async fn act_on_offer(&self, id: &str, kind: &str, action: &str) -> Reply {
        let path = format!("/api/v1/games/{id}/{kind}");
        self.post(&path, &json!({ "action": action })).await
    }

    /// `POST /games/{id}/takeback` with `{"action": action}`.
    pub async fn takeback(&self, id: &str, action: &str) -> Reply {
        self.act_on_offer(id, "takeback", action).await
    }

    /// `POST /games/{id}/draw` with `{"action": action}`.
    pub async fn draw(&self, id: &str, action: &str) -> Reply {
        self.act_on_offer(id, "draw", action).await
    }

    /// `POST /games/{id}/rematch` with `{"action": action}`.
    pub async fn rematch(&self, id: &str, action: &str) -> Reply {
        self.act_on_offer(id, "rematch", action).await
    }

    /// `GET /me`, asserting 200: `{playerId, name}`.
    pub async fn me(&self) -> Value {
        self.get("/api/v1/me").await.ok(200, "GET /api/v1/me")
    }

    /// `PUT /me` with `{"name": name}` (what the mini-program sends: `wx.request` has no PATCH).
    pub async fn rename(&self, name: &str) -> Reply {
        self.rename_with(Method::PUT, name).await
    }

    /// `/me` with `{"name": name}` through `method` (PUT or PATCH).
    pub async fn rename_with(&self, method: Method, name: &str) -> Reply {
        let request = self
            .request(method, "/api/v1/me")
            .json(&json!({ "name": name }));
        self.send(request).await
    }

    /// The ids of every game in this player's list.
    pub async fn game_ids(&self) -> Vec<String> {
        let games = self.list_all(None, 100).await;
        games.iter().map(crate::state::id_of).collect()
    }
}

/// Fires `bodies` at one game's moves endpoint all at once (a barrier releases them together);
/// the answers in request order.
pub async fn race(player: &Player, id: &str, bodies: Vec<Value>) -> Vec<Reply> {
    let moves = bodies.into_iter().map(|b| (player.clone(), b)).collect();
    race_players(id, moves).await
}

/// Like [`race`], each body sent by its own player (two phones racing for one ply).
pub async fn race_players(id: &str, moves: Vec<(Player, Value)>) -> Vec<Reply> {
    race_posts(&format!("/api/v1/games/{id}/moves"), moves).await
}

/// Fires POSTs of `bodies` at `path`, each by its own player, all at once (a barrier releases
/// them together); the answers in request order.
pub async fn race_posts(path: &str, bodies: Vec<(Player, Value)>) -> Vec<Reply> {
    let barrier = Arc::new(tokio::sync::Barrier::new(bodies.len()));
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|(player, body)| {
            let (path, barrier) = (path.to_string(), barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                player.post(&path, &body).await
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.expect("race task"));
    }
    answers
}

/// Asserts that exactly one of `answers` is 200 and every other one the error 409 `code`; the
/// one that landed.
#[track_caller]
pub fn one_landed<'a>(answers: &'a [Reply], code: &str, what: &str) -> &'a Reply {
    let won: Vec<&Reply> = answers.iter().filter(|r| r.status == 200).collect();
    let statuses: Vec<_> = answers.iter().map(|a| a.status.as_u16()).collect();
    assert_eq!(won.len(), 1, "{what}: exactly one lands: {statuses:?}");
    for reply in answers.iter().filter(|r| r.status != 200) {
        reply.assert_error(409, code, &format!("{what}: a losing request"));
    }
    won[0]
}

/// One endpoint of the API, with the body a request to it carries where it takes one.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub method: Method,
    pub path: String,
    pub body: Option<Value>,
}

impl Endpoint {
    pub fn new(method: Method, path: impl Into<String>, body: Option<Value>) -> Endpoint {
        Endpoint {
            method,
            path: path.into(),
            body,
        }
    }

    /// A request to it, without credentials.
    pub fn request(&self, api: &Api) -> RequestBuilder {
        let request = api.request(self.method.clone(), &self.path);
        match &self.body {
            Some(body) => request.json(body),
            None => request,
        }
    }
}

impl Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

/// Every endpoint of one game.
pub fn game_endpoints(id: &str) -> Vec<Endpoint> {
    let at =
        |method, tail: &str, body| Endpoint::new(method, format!("/api/v1/games/{id}{tail}"), body);
    vec![
        at(Method::GET, "", None),
        at(Method::POST, "/moves", Some(json!({"row": 0, "col": 0}))),
        at(Method::POST, "/undo", Some(json!({}))),
        at(Method::POST, "/resign", Some(json!({}))),
        at(Method::GET, "/replay", None),
        at(Method::GET, "/export", None),
        at(Method::GET, "/hint", None),
        at(Method::POST, "/analysis", None),
        at(Method::GET, "/analysis", None),
        at(Method::POST, "/join", None),
        at(Method::POST, "/takeback", Some(json!({"action": "offer"}))),
        at(Method::POST, "/draw", Some(json!({"action": "offer"}))),
        at(Method::POST, "/rematch", Some(json!({"action": "offer"}))),
        // Without the upgrade headers: refused before the upgrade like any other request.
        at(Method::GET, "/live", None),
        at(Method::DELETE, "", None),
    ]
}

/// Sends every endpoint with every credential (an `Authorization` header value, or none) and
/// asserts that each is refused with 401 UNAUTHORIZED.
pub async fn assert_all_unauthorized(
    api: &Api,
    endpoints: &[Endpoint],
    credentials: &[Option<String>],
) {
    for credential in credentials {
        for endpoint in endpoints {
            let mut request = endpoint.request(api);
            if let Some(value) = credential {
                request = request.header("authorization", value);
            }
            let what = format!("{endpoint} with {credential:?}");
            api.send(request)
                .await
                .assert_error(401, "UNAUTHORIZED", &what);
        }
    }
}
