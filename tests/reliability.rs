//! Issue 5, faults, access and operations: races for one ply, retried moves, SIGKILL in the middle
//! of sustained writes, graceful shutdown, a busy database, who may see which game, the write
//! limits, CORS, the online backup, request ids and token-free logs.
//!
//! Every test starts the real `gomoku-server` (tests/common) on a SQLite file of its own. Where a
//! test checks what is stored, it reads that file directly with sqlx (the `moves` table) as well as
//! the served `moveHistory`, so a server that answers well but stores badly is caught. The bad-input
//! half of the issue (hostile requests, judge and importer fuzzing) is in `reliability_fuzz.rs`;
//! larger runs of the same ideas are in the `gomoku-stress` tool.

mod common;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use common::TestServer;
use gomoku_rules::{DrawReason, Game, Outcome, Point, Rule, Stone, WinReason};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Row, SqliteConnection};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A cloneable handle on one server's API, so concurrent tasks can each own one.
#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
}

impl Api {
    fn new(server: &TestServer) -> Api {
        Api {
            http: common::client(),
            base: server.base.clone(),
        }
    }

    /// One request; a transport error (refused, reset) is returned, not a panic, for the tests
    /// that kill the server under the clients' feet.
    async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value), reqwest::Error> {
        let mut request = self.http.request(method, format!("{}{}", self.base, path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await?;
        let status = response.status();
        let bytes = response.bytes().await?;
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> (StatusCode, Value) {
        self.send(method.clone(), path, token, body)
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: transport error {e}"))
    }

    async fn get(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, Some(token), None).await
    }

    async fn post(&self, path: &str, token: &str, body: &Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(token), Some(body)).await
    }

    async fn session(&self) -> String {
        let (status, body) = self
            .call(Method::POST, "/api/v1/sessions", None, Some(&json!({})))
            .await;
        assert_eq!(status, StatusCode::CREATED, "POST /api/v1/sessions: {body}");
        body["token"].as_str().expect("token").to_string()
    }

    async fn new_game(&self, token: &str, settings: Value) -> Value {
        let (status, body) = self.post("/api/v1/games", token, &settings).await;
        assert_eq!(
            status,
            StatusCode::CREATED,
            "POST /api/v1/games {settings}: {body}"
        );
        body
    }

    async fn state(&self, token: &str, id: &str) -> Value {
        let (status, body) = self.get(&format!("/api/v1/games/{id}"), token).await;
        assert_eq!(status, StatusCode::OK, "GET game {id}: {body}");
        body
    }

    /// Every game summary of the player, following `nextCursor`.
    async fn all_games(&self, token: &str) -> Vec<Value> {
        let mut games = Vec::new();
        let mut path = "/api/v1/games?limit=100".to_string();
        loop {
            let (status, body) = self.get(&path, token).await;
            assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
            games.extend(
                body["games"]
                    .as_array()
                    .expect("games array")
                    .iter()
                    .cloned(),
            );
            match body["nextCursor"].as_str() {
                Some(cursor) => path = format!("/api/v1/games?limit=100&cursor={cursor}"),
                None => return games,
            }
        }
    }
}

/// The error code of an error body (`{"error": {"code": ...}}`), or "" when there is none.
fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

fn id_of(state: &Value) -> String {
    state["id"].as_str().expect("game id").to_string()
}

/// `(row, col, player)` of each entry of a served `moveHistory`.
fn moves_of(state: &Value) -> Vec<(i64, i64, i64)> {
    common::move_triples(&state["moveHistory"])
}

/// The empty cells of a served board, row-major.
fn empty_cells(state: &Value) -> Vec<(i64, i64)> {
    let mut cells = Vec::new();
    for (r, row) in state["board"].as_array().expect("board").iter().enumerate() {
        for (c, cell) in row.as_array().expect("board row").iter().enumerate() {
            if cell.as_i64() == Some(0) {
                cells.push((r as i64, c as i64));
            }
        }
    }
    cells
}

/// Checks that a served state tells one story: the board is the moves replayed, the counters
/// and last move match them, players alternate from black, and status, winner, end reason and
/// win line are what the rules crate's judge says the moves lead to (a resignation aside).
fn assert_state_consistent(state: &Value) {
    let id = &state["id"];
    let size = state["boardSize"].as_u64().expect("boardSize") as usize;
    let rule: Rule = state["rule"]
        .as_str()
        .expect("rule")
        .parse()
        .expect("known rule");
    let moves = moves_of(state);
    assert_eq!(
        state["moveCount"].as_u64(),
        Some(moves.len() as u64),
        "game {id}: moveCount vs moveHistory"
    );

    let mut board = vec![vec![0i64; size]; size];
    for (ply, &(row, col, player)) in moves.iter().enumerate() {
        assert_eq!(
            player,
            if ply % 2 == 0 { 1 } else { 2 },
            "game {id}: player order at ply {ply}"
        );
        board[row as usize][col as usize] = player;
    }
    let served: Vec<Vec<i64>> =
        serde_json::from_value(state["board"].clone()).expect("board of ints");
    assert_eq!(
        served, board,
        "game {id}: served board differs from its moves replayed"
    );
    let last = moves
        .last()
        .map(|&(row, col, player)| json!({"row": row, "col": col, "player": player}));
    assert_eq!(
        state["lastMove"],
        last.unwrap_or(Value::Null),
        "game {id}: lastMove"
    );

    let points: Vec<Point> = moves
        .iter()
        .map(|&(r, c, _)| Point::new(r as usize, c as usize))
        .collect();
    let game = Game::replay(size, rule, &points)
        .unwrap_or_else(|(i, e)| panic!("game {id}: stored move {i} is illegal: {e:?}"));
    let status = state["status"].as_str().expect("status");
    if state["endReason"] == "resign" {
        assert_eq!(
            game.outcome(),
            &Outcome::Ongoing,
            "game {id}: resigned, but its moves already ended it"
        );
        assert!(
            status == "black_won" || status == "white_won",
            "game {id}: resigned with status {status}"
        );
        return;
    }
    let (want_status, want_winner, want_reason) = match game.outcome() {
        Outcome::Ongoing => ("playing", Value::Null, Value::Null),
        Outcome::Win {
            winner,
            reason: WinReason::Five,
            ..
        } => (
            if *winner == Stone::Black {
                "black_won"
            } else {
                "white_won"
            },
            json!(winner.as_u8()),
            json!("five"),
        ),
        Outcome::Win {
            reason: WinReason::Resign,
            ..
        } => panic!("game {id}: replay cannot resign"),
        Outcome::Draw {
            reason: DrawReason::BoardFull,
        } => ("draw", Value::Null, json!("board_full")),
        Outcome::Draw {
            reason: DrawReason::NoFivePossible,
        } => ("draw", Value::Null, json!("no_five_possible")),
    };
    assert_eq!(status, want_status, "game {id}: status vs its moves");
    assert_eq!(
        state["winner"], want_winner,
        "game {id}: winner vs its moves"
    );
    assert_eq!(
        state["endReason"], want_reason,
        "game {id}: endReason vs its moves"
    );
    let to_move = if want_status == "playing" {
        json!(1 + moves.len() % 2)
    } else {
        Value::Null
    };
    assert_eq!(state["currentPlayer"], to_move, "game {id}: currentPlayer");
    let mut want_line: Vec<(i64, i64)> = match game.outcome() {
        Outcome::Win { line, .. } => line.iter().map(|p| (p.row as i64, p.col as i64)).collect(),
        _ => Vec::new(),
    };
    let mut served_line: Vec<(i64, i64)> = state["winLine"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|p| (p["row"].as_i64().unwrap(), p["col"].as_i64().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    want_line.sort();
    served_line.sort();
    assert_eq!(served_line, want_line, "game {id}: winLine vs its moves");
}

/// A connection of our own to the server's SQLite file (WAL lets it read while the server runs).
async fn open_db(path: &Path) -> SqliteConnection {
    SqliteConnectOptions::new()
        .filename(path)
        .busy_timeout(Duration::from_secs(10))
        .connect()
        .await
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

/// The rows of the `moves` table for one game, in ply order: `(ply, row, col, player)`.
async fn stored_moves(db: &mut SqliteConnection, game_id: &str) -> Vec<(i64, i64, i64, i64)> {
    sqlx::query(r#"select ply, "row", col, player from moves where game_id = ?1 order by ply"#)
        .bind(game_id)
        .fetch_all(&mut *db)
        .await
        .expect("select from moves")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect()
}

/// Checks the `moves` rows of a game run 0, 1, 2… without a gap, are exactly the served
/// `moveHistory`, and agree with the `games` row's move count and status.
async fn assert_stored_matches_served(db: &mut SqliteConnection, state: &Value) {
    let id = id_of(state);
    let rows = stored_moves(db, &id).await;
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            row.0, i as i64,
            "game {id}: stored plies are not contiguous from 0: {rows:?}"
        );
    }
    let stored: Vec<(i64, i64, i64)> = rows.iter().map(|&(_, r, c, p)| (r, c, p)).collect();
    assert_eq!(
        stored,
        moves_of(state),
        "game {id}: stored moves differ from the served moveHistory"
    );
    let (count, status): (i64, String) =
        sqlx::query_as("select move_count, status from games where id = ?1")
            .bind(&id)
            .fetch_one(&mut *db)
            .await
            .expect("select from games");
    assert_eq!(
        (count, status.as_str()),
        (rows.len() as i64, state["status"].as_str().unwrap()),
        "game {id}: the games row disagrees with its moves"
    );
}

/// Asserts `PRAGMA integrity_check` is ok and no row breaks a foreign key.
async fn integrity_check(path: &Path) {
    let mut db = open_db(path).await;
    let result: String = sqlx::query_scalar("pragma integrity_check")
        .fetch_one(&mut db)
        .await
        .expect("integrity_check");
    assert_eq!(result, "ok", "PRAGMA integrity_check on {}", path.display());
    let orphans = sqlx::query("pragma foreign_key_check")
        .fetch_all(&mut db)
        .await
        .expect("foreign_key_check");
    assert!(
        orphans.is_empty(),
        "PRAGMA foreign_key_check found {} rows",
        orphans.len()
    );
}

/// The seed for a test's random choices: RELIABILITY_SEED if set, else from the clock (printed).
fn seed() -> u64 {
    let seed = std::env::var("RELIABILITY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("random seed {seed} (set RELIABILITY_SEED to repeat)");
    seed
}

// ---------------------------------------------------------------------------------------------
// Faults and races
// ---------------------------------------------------------------------------------------------

/// Fires `bodies` at one game's moves endpoint all at once; the answers in request order.
async fn race(api: &Api, token: &str, id: &str, bodies: Vec<Value>) -> Vec<(StatusCode, Value)> {
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(bodies.len()));
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let (api, token, path, barrier) = (
                api.clone(),
                token.to_string(),
                format!("/api/v1/games/{id}/moves"),
                barrier.clone(),
            );
            tokio::spawn(async move {
                barrier.wait().await;
                api.post(&path, &token, &body).await
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.expect("race task"));
    }
    answers
}

/// 32 concurrent moves for the same ply on different cells (at ply 0 and again at ply 3): exactly
/// one lands, the other 31 get 409 PLY_MISMATCH; the stored moves run contiguously from ply 0 and
/// the served board is those moves replayed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn same_ply_race_on_different_cells_lands_exactly_one() {
    let server = TestServer::start_with_args(&["--write-rate-limit", "0"], &[]);
    let api = Api::new(&server);
    let token = api.session().await;
    let id = id_of(
        &api.new_game(
            &token,
            json!({"mode": "local", "rule": "freestyle", "boardSize": 15}),
        )
        .await,
    );

    // The first race at ply 0 in columns 3..=6; two more moves; the second race at ply 3 in
    // columns 8..=11, so no racer there finds its cell taken by the first race's winner.
    for (ply, first_col, setup) in [(0, 3, vec![]), (3, 8, vec![(0, 0), (0, 14)])] {
        for (i, (row, col)) in setup.into_iter().enumerate() {
            let (status, body) = api
                .post(
                    &format!("/api/v1/games/{id}/moves"),
                    &token,
                    &json!({"row": row, "col": col, "ply": 1 + i}),
                )
                .await;
            assert_eq!(status, StatusCode::OK, "setup move: {body}");
        }
        // 32 distinct cells: rows 3..=10, four columns from `first_col`.
        let bodies = (0..32)
            .map(|i| json!({"row": 3 + i / 4, "col": first_col + i % 4, "ply": ply}))
            .collect();
        let answers = race(&api, &token, &id, bodies).await;
        let won: Vec<_> = answers
            .iter()
            .filter(|(s, _)| *s == StatusCode::OK)
            .collect();
        assert_eq!(
            won.len(),
            1,
            "exactly one move lands at ply {ply}: {:?}",
            answers.iter().map(|a| a.0).collect::<Vec<_>>()
        );
        for (status, body) in &answers {
            if *status != StatusCode::OK {
                assert_eq!(
                    (*status, code(body)),
                    (StatusCode::CONFLICT, "PLY_MISMATCH"),
                    "a losing request at ply {ply}: {body}"
                );
            }
        }
        assert_eq!(won[0].1["moveCount"], json!(ply + 1));
    }

    let state = api.state(&token, &id).await;
    assert_eq!(state["moveCount"], json!(4));
    assert_state_consistent(&state);
    let mut db = open_db(&server.db_path).await;
    assert_stored_matches_served(&mut db, &state).await;
}

/// 32 concurrent moves on the same cell without a `ply`: the first lands, the other 31 find the
/// cell taken (409 CELL_OCCUPIED), and exactly one move is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn same_cell_race_without_ply_lands_once() {
    let server = TestServer::start_with_args(&["--write-rate-limit", "0"], &[]);
    let api = Api::new(&server);
    let token = api.session().await;
    let id = id_of(&api.new_game(&token, json!({"mode": "local"})).await);

    let answers = race(&api, &token, &id, vec![json!({"row": 7, "col": 7}); 32]).await;
    let landed = answers.iter().filter(|(s, _)| *s == StatusCode::OK).count();
    assert_eq!(landed, 1, "exactly one of 32 identical moves lands");
    for (status, body) in answers.iter().filter(|(s, _)| *s != StatusCode::OK) {
        assert_eq!(
            (*status, code(body)),
            (StatusCode::CONFLICT, "CELL_OCCUPIED"),
            "{body}"
        );
    }
    let state = api.state(&token, &id).await;
    assert_eq!(moves_of(&state), vec![(7, 7, 1)]);
    assert_state_consistent(&state);
    assert_stored_matches_served(&mut open_db(&server.db_path).await, &state).await;
}

/// A move retried with the same `ply` never lands twice: 32 copies of one move sent at once (so
/// most retries arrive while the first is in flight) all answer 200 with that one move stored; a
/// late retry after the opponent replied still answers 200 without applying anything; a
/// different cell at that old ply is a PLY_MISMATCH. The same holds in AI mode, where the answer
/// already carries the AI's reply, also for a retry sent while a master-level search for the
/// first request is surely still running.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retried_move_with_same_ply_never_lands_twice() {
    let server = TestServer::start_with_args(
        &[
            "--write-rate-limit",
            "0",
            "--ai-master-ms",
            "2000",
            "--request-timeout-ms",
            "60000",
        ],
        &[],
    );
    let api = Api::new(&server);
    let token = api.session().await;
    let id = id_of(&api.new_game(&token, json!({"mode": "local"})).await);

    let answers = race(
        &api,
        &token,
        &id,
        vec![json!({"row": 7, "col": 7, "ply": 0}); 32],
    )
    .await;
    for (status, body) in &answers {
        assert_eq!(
            *status,
            StatusCode::OK,
            "a retry of the same move at the same ply is answered 200: {body}"
        );
        assert_eq!(
            body["moveHistory"][0],
            json!({"row": 7, "col": 7, "player": 1}),
            "{body}"
        );
    }
    let (status, _) = api
        .post(
            &format!("/api/v1/games/{id}/moves"),
            &token,
            &json!({"row": 7, "col": 8, "ply": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = api
        .post(
            &format!("/api/v1/games/{id}/moves"),
            &token,
            &json!({"row": 7, "col": 7, "ply": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "late retry: {body}");
    assert_eq!(
        body["moveCount"],
        json!(2),
        "a late retry applies nothing: {body}"
    );
    let (status, body) = api
        .post(
            &format!("/api/v1/games/{id}/moves"),
            &token,
            &json!({"row": 3, "col": 3, "ply": 0}),
        )
        .await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::CONFLICT, "PLY_MISMATCH"),
        "{body}"
    );

    let state = api.state(&token, &id).await;
    assert_eq!(moves_of(&state), vec![(7, 7, 1), (7, 8, 2)]);
    let mut db = open_db(&server.db_path).await;
    assert_stored_matches_served(&mut db, &state).await;

    // AI mode: the human plays black; retries of its first move while the AI may be thinking.
    let ai_game = api
        .new_game(
            &token,
            json!({"mode": "ai", "ai": {"level": "medium", "player": 2}}),
        )
        .await;
    let ai_id = id_of(&ai_game);
    let answers = race(
        &api,
        &token,
        &ai_id,
        vec![json!({"row": 7, "col": 7, "ply": 0}); 8],
    )
    .await;
    for (status, body) in &answers {
        assert_eq!(*status, StatusCode::OK, "AI game retry: {body}");
        assert_eq!(
            body["moveHistory"][0],
            json!({"row": 7, "col": 7, "player": 1}),
            "{body}"
        );
    }
    let state = api.state(&token, &ai_id).await;
    assert_eq!(
        state["moveCount"],
        json!(2),
        "the human move once and the AI's reply once: {state}"
    );
    assert_state_consistent(&state);
    assert_stored_matches_served(&mut db, &state).await;

    // A retry that surely arrives while the first request is in flight: the master AI thinks
    // for its whole 2 s budget, and the retry goes 0.3 s in. Both answers carry the same
    // two moves, and two moves are stored.
    let master = json!({"mode": "ai", "ai": {"level": "master", "player": 2}});
    let slow_id = id_of(&api.new_game(&token, master).await);
    let path = format!("/api/v1/games/{slow_id}/moves");
    let first = {
        let (api, token, path) = (api.clone(), token.clone(), path.clone());
        tokio::spawn(async move {
            api.post(&path, &token, &json!({"row": 7, "col": 7, "ply": 0}))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !first.is_finished(),
        "the master AI answered within 0.3 s; the test needs it thinking"
    );
    let (status, retry) = api
        .post(&path, &token, &json!({"row": 7, "col": 7, "ply": 0}))
        .await;
    let (first_status, first) = first.await.unwrap();
    assert_eq!(first_status, StatusCode::OK, "{first}");
    assert_eq!(
        status,
        StatusCode::OK,
        "a retry while the first is in flight: {retry}"
    );
    assert_eq!(
        retry["moveHistory"], first["moveHistory"],
        "both answers tell the same game"
    );
    assert_eq!(first["moveCount"], json!(2), "{first}");
    let state = api.state(&token, &slow_id).await;
    assert_eq!(
        state["moveCount"],
        json!(2),
        "the move and the AI's reply, once each"
    );
    assert_stored_matches_served(&mut db, &state).await;
}

/// What a crash-test client knows about one of its games: whether it is an AI game, the history
/// of the last acknowledged answer, and the write that was in flight (or about to be sent) when
/// the server died.
#[derive(Debug, Clone)]
struct Book {
    ai: bool,
    acked: Vec<(i64, i64, i64)>,
    acked_status: String,
    pending: Option<Pending>,
}

#[derive(Debug, Clone, Copy)]
enum Pending {
    /// Row, column and the mover's colour.
    Move(i64, i64, i64),
    Undo,
    Resign,
}

impl Book {
    /// Whether `stored` is what the game may hold after the crash: exactly the acknowledged
    /// history, or that history with the write in flight applied whole — a move together with
    /// the AI's reply to it (unless the move ended the game), an undo of one move (local) or of
    /// the human's move and the reply (AI).
    fn allows(&self, stored: &[(i64, i64, i64)], finished: bool) -> bool {
        let (acked, n) = (&self.acked[..], self.acked.len());
        if stored == acked {
            return true;
        }
        match self.pending {
            None | Some(Pending::Resign) => false,
            Some(Pending::Move(row, col, player)) => {
                let whole = if !self.ai || (stored.len() == n + 1 && finished) {
                    n + 1
                } else {
                    n + 2
                };
                stored.len() == whole && stored[..n] == *acked && stored[n] == (row, col, player)
            }
            Some(Pending::Undo) => {
                let taken = if self.ai { 2 } else { 1 };
                n >= taken && stored == &acked[..n - taken]
            }
        }
    }
}

/// One client's sustained traffic until the server dies under it: moves with `ply` (mostly),
/// undos, resignations and new games (local, and AI games at the easy level), each on the
/// client's own games. Returns how many writes were acknowledged; panics on any answer other
/// than the expected success.
async fn crash_client(
    api: Api,
    token: String,
    books: std::sync::Arc<std::sync::Mutex<HashMap<String, Book>>>,
    seed: u64,
) -> usize {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut acked = 0;
    let mut current: Option<Value> = None;
    loop {
        let state = match current.take() {
            Some(state) if state["status"] == "playing" => state,
            _ => {
                let rule = ["freestyle", "standard", "renju"][rng.gen_range(0..3)];
                let size = [9, 15][rng.gen_range(0..2)];
                let mut settings = json!({"mode": "local", "rule": rule, "boardSize": size});
                if rng.gen_range(0..4) == 0 {
                    settings["mode"] = json!("ai");
                    settings["ai"] = json!({"level": "easy", "player": rng.gen_range(1..=2)});
                }
                match api
                    .send(Method::POST, "/api/v1/games", Some(&token), Some(&settings))
                    .await
                {
                    Err(_) => return acked,
                    Ok((status, body)) => {
                        assert_eq!(status, StatusCode::CREATED, "create: {body}");
                        acked += 1;
                        let book = Book {
                            ai: body["mode"] == "ai",
                            acked: moves_of(&body),
                            acked_status: "playing".into(),
                            pending: None,
                        };
                        books.lock().unwrap().insert(id_of(&body), book);
                        body
                    }
                }
            }
        };
        let id = id_of(&state);
        let count = state["moveCount"].as_i64().unwrap();
        let mover = state["currentPlayer"].as_i64().unwrap();
        // In an AI game there is something to undo once the human has moved.
        let can_undo = moves_of(&state).iter().any(|m| m.2 == mover);
        let roll = rng.gen_range(0..100);
        let (op, path, body) = if roll < 6 && can_undo {
            (Pending::Undo, format!("/api/v1/games/{id}/undo"), json!({}))
        } else if roll < 8 {
            let path = format!("/api/v1/games/{id}/resign");
            (Pending::Resign, path, json!({}))
        } else {
            let forbidden: Vec<(i64, i64)> = state["forbiddenMoves"]
                .as_array()
                .map(|f| {
                    f.iter()
                        .map(|p| (p["row"].as_i64().unwrap(), p["col"].as_i64().unwrap()))
                        .collect()
                })
                .unwrap_or_default();
            let cells: Vec<_> = empty_cells(&state)
                .into_iter()
                .filter(|c| !forbidden.contains(c))
                .collect();
            let (row, col) = cells[rng.gen_range(0..cells.len())];
            (
                Pending::Move(row, col, mover),
                format!("/api/v1/games/{id}/moves"),
                json!({"row": row, "col": col, "ply": count}),
            )
        };
        books.lock().unwrap().get_mut(&id).unwrap().pending = Some(op);
        match api
            .send(Method::POST, &path, Some(&token), Some(&body))
            .await
        {
            Err(_) => return acked,
            Ok((status, answer)) => {
                assert_eq!(status, StatusCode::OK, "{path} {body}: {answer}");
                acked += 1;
                let mut books = books.lock().unwrap();
                let book = books.get_mut(&id).unwrap();
                book.acked = moves_of(&answer);
                book.acked_status = answer["status"].as_str().unwrap().to_string();
                book.pending = None;
                current = Some(answer);
            }
        }
    }
}

/// Sustained writes from six clients (local and AI games), SIGKILL at a random moment, restart
/// on the same file; four times. After each kill `PRAGMA integrity_check` is ok, every
/// acknowledged game and move is stored, each game holds exactly its acknowledged history or that
/// history with the one write in flight applied whole (a move with its AI reply, never half of
/// it), and every game's status, counters and `games` row agree with its moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigkill_under_sustained_writes_loses_no_acknowledged_move() {
    const ROUNDS: usize = 4;
    const CLIENTS: usize = 6;
    let args = [
        "--write-rate-limit",
        "0",
        "--max-unfinished-games",
        "100000",
    ];
    let mut rng = StdRng::seed_from_u64(seed());
    let mut server = TestServer::start_with_args(&args, &[]);
    let api = Api::new(&server);
    let mut tokens = Vec::new();
    for _ in 0..CLIENTS {
        tokens.push(api.session().await);
    }
    let books: Vec<_> = (0..CLIENTS)
        .map(|_| std::sync::Arc::new(std::sync::Mutex::new(HashMap::new())))
        .collect();

    let mut total_acked = 0;
    for round in 0..ROUNDS {
        let api = Api::new(&server);
        let clients: Vec<_> = (0..CLIENTS)
            .map(|i| {
                tokio::spawn(crash_client(
                    api.clone(),
                    tokens[i].clone(),
                    books[i].clone(),
                    rng.gen(),
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(rng.gen_range(300..1500))).await;
        server.kill();
        let mut acked_this_round = 0;
        for client in clients {
            acked_this_round += client.await.expect("crash client panicked");
        }
        assert!(
            acked_this_round > 0,
            "round {round}: no write was acknowledged before the kill"
        );
        total_acked += acked_this_round;

        integrity_check(&server.db_path).await;
        server = server.restart(&args);
        let api = Api::new(&server);
        let mut db = open_db(&server.db_path).await;
        for (i, token) in tokens.iter().enumerate() {
            let mut expected = books[i].lock().unwrap().clone();
            for summary in api.all_games(token).await {
                let state = api.state(token, summary["id"].as_str().unwrap()).await;
                assert_state_consistent(&state);
                assert_stored_matches_served(&mut db, &state).await;
                // A game nobody acknowledged is a create that was in flight and landed: fine.
                let Some(book) = expected.remove(&id_of(&state)) else {
                    continue;
                };
                let stored = moves_of(&state);
                let context = format!(
                    "round {round}, game {}: stored {stored:?}, acknowledged {:?}, in flight {:?}",
                    state["id"], book.acked, book.pending
                );
                assert!(
                    book.allows(&stored, state["status"] != "playing"),
                    "{context}"
                );
                // Unless the write in flight landed (or was a resignation, which may have), the
                // status is the acknowledged one.
                if stored == book.acked && !matches!(book.pending, Some(Pending::Resign)) {
                    assert_eq!(state["status"], json!(book.acked_status), "{context}");
                }
            }
            assert!(
                expected.is_empty(),
                "round {round}: acknowledged games missing after restart: {:?}",
                expected.keys().collect::<Vec<_>>()
            );
        }
        // The next round starts from what is stored now.
        for (i, token) in tokens.iter().enumerate() {
            let ids: Vec<String> = books[i].lock().unwrap().keys().cloned().collect();
            for id in ids {
                let state = api.state(token, &id).await;
                let mut books = books[i].lock().unwrap();
                let book = books.get_mut(&id).unwrap();
                book.acked = moves_of(&state);
                book.acked_status = state["status"].as_str().unwrap().to_string();
                book.pending = None;
            }
        }
    }
    eprintln!("crash test: {ROUNDS} kills survived, {total_acked} writes acknowledged, none lost");
}

/// Writes an HTTP/1.1 request head and the first part of its body, leaving the request in flight
/// until the caller sends the rest.
fn start_slow_request(addr: &str, token: &str, body: &str, sent: usize) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect for the slow request");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /api/v1/games HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        body.len(),
        &body[..sent]
    )
    .unwrap();
    stream.flush().unwrap();
    stream
}

/// On SIGTERM the server stops accepting connections at once, yet finishes the requests it has
/// in flight (a request whose body is still arriving, and an AI move at a long master budget)
/// with their normal answers, then exits with success within a bounded time.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_finishes_in_flight_requests_refuses_new_ones_and_exits() {
    let mut server = TestServer::start_with_args(
        &["--ai-master-ms", "3000", "--request-timeout-ms", "60000"],
        &[],
    );
    let api = Api::new(&server);
    let addr = server.base.trim_start_matches("http://").to_string();
    let token = api.session().await;
    let ai_id = id_of(
        &api.new_game(
            &token,
            json!({"mode": "ai", "ai": {"level": "master", "player": 2}}),
        )
        .await,
    );

    let ai_move = {
        let (api, token) = (api.clone(), token.clone());
        tokio::spawn(async move {
            api.post(
                &format!("/api/v1/games/{ai_id}/moves"),
                &token,
                &json!({"row": 7, "col": 7, "ply": 0}),
            )
            .await
        })
    };
    let body = r#"{"mode": "local", "rule": "renju", "boardSize": 15}"#;
    let mut slow = start_slow_request(&addr, &token, body, 10);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !ai_move.is_finished(),
        "the master AI answered within 0.5 s; the test needs it in flight"
    );

    let terminated_at = Instant::now();
    server.terminate();
    let refused = loop {
        match TcpStream::connect(&addr) {
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => break true,
            _ if terminated_at.elapsed() > Duration::from_secs(10) => break false,
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    assert!(
        refused,
        "new connections are still accepted 10 s after SIGTERM"
    );

    // The slow request, held open until now, still gets its answer.
    slow.write_all(&body.as_bytes()[10..]).unwrap();
    let mut answer = String::new();
    slow.read_to_string(&mut answer)
        .expect("read the slow request's answer");
    assert!(
        answer.starts_with("HTTP/1.1 201"),
        "the in-flight create was answered: {answer}"
    );

    let (status, state) = tokio::time::timeout(Duration::from_secs(30), ai_move)
        .await
        .expect("AI move answered")
        .unwrap();
    assert_eq!(status, StatusCode::OK, "in-flight AI move: {state}");
    assert_eq!(
        state["moveCount"],
        json!(2),
        "the AI's reply is in the answer: {state}"
    );

    let exit = server
        .wait_until_exited(Duration::from_secs(15))
        .expect("server exits within 15 s of its last request");
    assert!(
        exit.success(),
        "graceful shutdown exits with success, got {exit}"
    );
}

/// While another connection holds the write lock (BEGIN IMMEDIATE plus an insert), writes wait
/// for `--busy-timeout-ms` and then fail with a clean 503 BUSY — never a hang or a 500 — reads
/// still work or are BUSY too, nothing is changed, and once the lock goes the server recovers.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn busy_database_answers_503_busy_then_recovers() {
    let server = TestServer::start_with_args(
        &["--busy-timeout-ms", "300", "--write-rate-limit", "0"],
        &[],
    );
    let api = Api::new(&server);
    let token = api.session().await;
    let id = id_of(&api.new_game(&token, json!({"mode": "local"})).await);
    let before = api.state(&token, &id).await;

    let mut blocker = open_db(&server.db_path).await;
    sqlx::query("begin immediate")
        .execute(&mut blocker)
        .await
        .expect("begin immediate");
    sqlx::query("create table reliability_lock_probe (x integer)")
        .execute(&mut blocker)
        .await
        .unwrap();
    sqlx::query("insert into reliability_lock_probe values (1)")
        .execute(&mut blocker)
        .await
        .unwrap();

    let writes = [
        (
            format!("/api/v1/games/{id}/moves"),
            json!({"row": 7, "col": 7, "ply": 0}),
        ),
        ("/api/v1/games".to_string(), json!({"mode": "local"})),
        (format!("/api/v1/games/{id}/resign"), json!({})),
    ];
    for (path, body) in &writes {
        let started = Instant::now();
        let answer =
            tokio::time::timeout(Duration::from_secs(20), api.post(path, &token, body)).await;
        let (status, answer) =
            answer.unwrap_or_else(|_| panic!("POST {path} hung for 20 s on a locked database"));
        assert_eq!(
            (status, code(&answer)),
            (StatusCode::SERVICE_UNAVAILABLE, "BUSY"),
            "POST {path}: {answer}"
        );
        assert!(
            started.elapsed() >= Duration::from_millis(250),
            "POST {path} failed before waiting out the busy timeout"
        );
    }
    let (status, answer) = api.get(&format!("/api/v1/games/{id}"), &token).await;
    assert!(
        status == StatusCode::OK
            || (status == StatusCode::SERVICE_UNAVAILABLE && code(&answer) == "BUSY"),
        "a read during the lock: {status} {answer}"
    );

    sqlx::query("rollback").execute(&mut blocker).await.unwrap();
    assert_eq!(
        api.state(&token, &id).await,
        before,
        "failed writes changed the game"
    );
    let (status, answer) = api
        .post(
            &format!("/api/v1/games/{id}/moves"),
            &token,
            &json!({"row": 7, "col": 7, "ply": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "after the lock is gone: {answer}");
    assert_eq!(
        api.all_games(&token).await.len(),
        1,
        "the game create that got BUSY was not stored"
    );
}

/// AI searches run under a cap: with `--ai-concurrency 1`, a second master move arriving while
/// the first is searching waits at most `--ai-queue-timeout-ms` and gets a clean 503 AI_BUSY
/// (changing nothing), while reads and local moves are served meanwhile; the first search ends by
/// its deadline and answers with the AI's reply.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ai_cap_answers_ai_busy_and_leaves_other_requests_alone() {
    let server = TestServer::start_with_args(
        &[
            "--ai-concurrency",
            "1",
            "--ai-master-ms",
            "3000",
            "--ai-queue-timeout-ms",
            "300",
            "--request-timeout-ms",
            "60000",
        ],
        &[],
    );
    let api = Api::new(&server);
    let (first, second) = (api.session().await, api.session().await);
    let master = json!({"mode": "ai", "ai": {"level": "master", "player": 2}});
    let first_game = id_of(&api.new_game(&first, master.clone()).await);
    let second_game = id_of(&api.new_game(&second, master).await);
    let local = id_of(&api.new_game(&second, json!({"mode": "local"})).await);

    let started = Instant::now();
    let searching = {
        let (api, first) = (api.clone(), first.clone());
        tokio::spawn(async move {
            let path = format!("/api/v1/games/{first_game}/moves");
            api.post(&path, &first, &json!({"row": 7, "col": 7, "ply": 0}))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !searching.is_finished(),
        "the master search ended within 0.5 s; the test needs it running"
    );

    let path = format!("/api/v1/games/{second_game}/moves");
    let (status, body) = api
        .post(&path, &second, &json!({"row": 7, "col": 7, "ply": 0}))
        .await;
    assert!(
        !searching.is_finished(),
        "the first search ended before the queued move was answered"
    );
    assert_eq!(
        (status, code(&body)),
        (StatusCode::SERVICE_UNAVAILABLE, "AI_BUSY"),
        "{body}"
    );
    assert_eq!(
        api.state(&second, &second_game).await["moveCount"],
        json!(0),
        "AI_BUSY changed the game"
    );

    let (status, _) = api.get(&format!("/api/v1/games/{local}"), &second).await;
    assert_eq!(status, StatusCode::OK, "a read while the AI searches");
    let (status, _) = api
        .post(
            &format!("/api/v1/games/{local}/moves"),
            &second,
            &json!({"row": 1, "col": 1, "ply": 0}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "a local move while the AI searches");
    assert!(
        !searching.is_finished(),
        "the read and the local move waited for the AI search"
    );

    let (status, state) = tokio::time::timeout(Duration::from_secs(30), searching)
        .await
        .expect("the master search ends by its deadline")
        .unwrap();
    assert_eq!(status, StatusCode::OK, "{state}");
    assert_eq!(
        state["moveCount"],
        json!(2),
        "the AI's reply is in the answer: {state}"
    );
    eprintln!("master move answered in {:?}", started.elapsed());
}

// ---------------------------------------------------------------------------------------------
// Access
// ---------------------------------------------------------------------------------------------

/// Every game endpoint of one game, with a body where the endpoint takes one.
fn game_endpoints(id: &str) -> Vec<(Method, String, Option<Value>)> {
    vec![
        (Method::GET, format!("/api/v1/games/{id}"), None),
        (
            Method::POST,
            format!("/api/v1/games/{id}/moves"),
            Some(json!({"row": 0, "col": 0})),
        ),
        (
            Method::POST,
            format!("/api/v1/games/{id}/undo"),
            Some(json!({})),
        ),
        (
            Method::POST,
            format!("/api/v1/games/{id}/resign"),
            Some(json!({})),
        ),
        (Method::GET, format!("/api/v1/games/{id}/replay"), None),
        (Method::GET, format!("/api/v1/games/{id}/export"), None),
        (Method::GET, format!("/api/v1/games/{id}/hint"), None),
        (Method::DELETE, format!("/api/v1/games/{id}"), None),
    ]
}

/// A missing, malformed or unknown bearer token gets 401 UNAUTHORIZED on every game endpoint
/// (list, create, import and each per-game one), and the game is left as it was.
#[tokio::test]
async fn missing_malformed_or_unknown_token_is_401() {
    let server = TestServer::start_with_args(&["--write-rate-limit", "0"], &[]);
    let api = Api::new(&server);
    let token = api.session().await;
    assert!(
        token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "a token is 64 hex chars (256 bits): {token}"
    );
    let id = id_of(&api.new_game(&token, json!({"mode": "local"})).await);
    api.post(
        &format!("/api/v1/games/{id}/moves"),
        &token,
        &json!({"row": 7, "col": 7}),
    )
    .await;
    let before = api.state(&token, &id).await;

    let unknown = "0123456789abcdef".repeat(4);
    let credentials: Vec<Option<String>> = vec![
        None,
        Some(String::new()),
        Some("Bearer".into()),
        Some("Bearer ".into()),
        Some(token.clone()),                                 // no scheme
        Some(format!("Basic {token}")),                      // wrong scheme
        Some(format!("Bearer {}", &token[..63])),            // one char short
        Some(format!("Bearer {token}0")),                    // one char long
        Some(format!("Bearer {}", "zz".repeat(32))),         // not hex
        Some(format!("Bearer {unknown}")),                   // well-formed, never issued
        Some(format!("Bearer {token} {token}")),             // two tokens
        Some(format!("Bearer {}' OR '1'='1", &token[..40])), // SQL-looking
    ];
    let mut endpoints = game_endpoints(&id);
    endpoints.push((Method::GET, "/api/v1/games".into(), None));
    endpoints.push((
        Method::POST,
        "/api/v1/games".into(),
        Some(json!({"mode": "local"})),
    ));
    endpoints.push((
        Method::POST,
        "/api/v1/games/import".into(),
        Some(json!({"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": []})),
    ));
    for credential in &credentials {
        for (method, path, body) in &endpoints {
            let mut request = api.http.request(method.clone(), server.url(path));
            if let Some(value) = credential {
                request = request.header("authorization", value);
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            let response = request.send().await.expect("send");
            let status = response.status();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            assert_eq!(
                (status, code(&body)),
                (StatusCode::UNAUTHORIZED, "UNAUTHORIZED"),
                "{method} {path} with {credential:?}: {body}"
            );
        }
    }
    assert_eq!(
        api.state(&token, &id).await,
        before,
        "rejected requests changed the game"
    );
    assert_eq!(
        api.all_games(&token).await.len(),
        1,
        "rejected creates/imports made games"
    );
}

/// Another player's game answers 404 GAME_NOT_FOUND on read, move, undo, resign, replay, export,
/// hint and delete — the very answer a game id that does not exist gets — it is absent from that
/// player's list, and the owner finds it unchanged.
#[tokio::test]
async fn another_players_game_is_404_everywhere() {
    let server = TestServer::start_with_args(&["--write-rate-limit", "0"], &[]);
    let api = Api::new(&server);
    let (owner, intruder) = (api.session().await, api.session().await);
    let id = id_of(&api.new_game(&owner, json!({"mode": "local"})).await);
    for (ply, (row, col)) in [(7, 7), (7, 8), (8, 8)].into_iter().enumerate() {
        let (status, _) = api
            .post(
                &format!("/api/v1/games/{id}/moves"),
                &owner,
                &json!({"row": row, "col": col, "ply": ply}),
            )
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let intruder_game = id_of(&api.new_game(&intruder, json!({"mode": "local"})).await);
    let before = api.state(&owner, &id).await;

    let absent = "00000000-0000-4000-8000-000000000000";
    for (method, path, body) in game_endpoints(&id)
        .into_iter()
        .chain(game_endpoints(absent))
    {
        let (status, answer) = api
            .call(method.clone(), &path, Some(&intruder), body.as_ref())
            .await;
        assert_eq!(
            (status, code(&answer)),
            (StatusCode::NOT_FOUND, "GAME_NOT_FOUND"),
            "{method} {path} by another player: {answer}"
        );
    }
    let listed: Vec<String> = api.all_games(&intruder).await.iter().map(id_of).collect();
    assert_eq!(
        listed,
        vec![intruder_game],
        "the intruder's list shows only its own game"
    );
    assert_eq!(
        api.state(&owner, &id).await,
        before,
        "the intruder changed the owner's game"
    );
}

/// Tokens are stored only as hashes: no issued token appears in the SQLite files (main file and
/// WAL), neither as its hex text nor as its 32 raw bytes, while the server runs and after it stops.
#[tokio::test]
async fn tokens_are_stored_only_as_hashes() {
    let mut server = TestServer::start();
    let api = Api::new(&server);
    let mut tokens = Vec::new();
    for _ in 0..5 {
        let token = api.session().await;
        api.new_game(&token, json!({"mode": "local"})).await;
        tokens.push(token);
    }
    let db_path = server.db_path.clone();
    let scan = |when: &str| {
        let mut scanned = 0;
        for suffix in ["", "-wal"] {
            let path = format!("{}{suffix}", db_path.display());
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            scanned += bytes.len();
            for token in &tokens {
                let raw: Vec<u8> = (0..32)
                    .map(|i| u8::from_str_radix(&token[2 * i..2 * i + 2], 16).unwrap())
                    .collect();
                for needle in [token.as_bytes(), token.to_uppercase().as_bytes(), &raw[..]] {
                    assert!(
                        !bytes.windows(needle.len()).any(|w| w == needle),
                        "{when}: a token is stored in clear in {path}"
                    );
                }
            }
        }
        assert!(
            scanned > 0,
            "{when}: no database file to scan at {}",
            db_path.display()
        );
    };
    scan("while running");
    server.terminate();
    server
        .wait_until_exited(Duration::from_secs(15))
        .expect("exit after SIGTERM");
    scan("after shutdown");
}

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

/// Writes beyond the per-token rate get 429 RATE_LIMITED with a Retry-After of whole seconds and
/// change nothing; the limit is per token (another player writes on) and on writes only (reads go
/// on); after Retry-After the token may write again.
#[tokio::test]
async fn write_rate_limit_answers_429_with_retry_after() {
    let server = TestServer::start_with_args(
        &[
            "--write-rate-limit",
            "1",
            "--write-burst",
            "5",
            "--max-unfinished-games",
            "1000",
        ],
        &[],
    );
    let api = Api::new(&server);
    let (token, other) = (api.session().await, api.session().await);
    let mut created = 0;
    let mut retry_after = None;
    for _ in 0..20 {
        let response = api
            .http
            .post(server.url("/api/v1/games"))
            .bearer_auth(&token)
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        match response.status() {
            StatusCode::CREATED => created += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                let header = response
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap_or("").to_string());
                let body: Value = response.json().await.unwrap();
                assert_eq!(code(&body), "RATE_LIMITED", "{body}");
                let seconds: u64 = header
                    .as_deref()
                    .and_then(|h| h.parse().ok())
                    .unwrap_or_else(|| panic!("Retry-After in whole seconds, got {header:?}"));
                retry_after = Some(seconds);
            }
            other => panic!("create: unexpected {other}"),
        }
    }
    let retry_after =
        retry_after.expect("20 quick writes at 1/s with a burst of 5 were never limited");
    assert!(
        (5..20).contains(&created),
        "the burst of 5 passes, the rest mostly not: {created} created"
    );
    assert_eq!(
        api.all_games(&token).await.len(),
        created,
        "rate-limited creates stored nothing"
    );
    for _ in 0..30 {
        let (status, _) = api.get("/api/v1/games", &token).await;
        assert_eq!(status, StatusCode::OK, "reads are not rate limited");
    }
    let (status, body) = api.post("/api/v1/games", &other, &json!({})).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "another token is not limited: {body}"
    );

    tokio::time::sleep(Duration::from_secs(retry_after.clamp(1, 5))).await;
    let (status, body) = api.post("/api/v1/games", &token, &json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "after Retry-After: {body}");
}

/// A player may hold at most `--max-unfinished-games` unfinished games: one more (created or
/// imported) is 409 TOO_MANY_GAMES and stores nothing; finishing or deleting one frees a place;
/// other players are not affected.
#[tokio::test]
async fn unfinished_games_cap_answers_too_many_games() {
    let server = TestServer::start_with_args(
        &["--max-unfinished-games", "3", "--write-rate-limit", "0"],
        &[],
    );
    let api = Api::new(&server);
    let (token, other) = (api.session().await, api.session().await);
    let ids: Vec<String> = create_games(&api, &token, 3).await;

    let (status, body) = api
        .post("/api/v1/games", &token, &json!({"mode": "local"}))
        .await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::CONFLICT, "TOO_MANY_GAMES"),
        "{body}"
    );
    let record = json!({"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": [{"row": 7, "col": 7, "player": 1}]});
    let (status, body) = api.post("/api/v1/games/import", &token, &record).await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::CONFLICT, "TOO_MANY_GAMES"),
        "import at the cap: {body}"
    );
    assert_eq!(api.all_games(&token).await.len(), 3);
    api.new_game(&other, json!({})).await;

    let (status, _) = api
        .post(
            &format!("/api/v1/games/{}/resign", ids[0]),
            &token,
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    api.new_game(&token, json!({})).await;
    let (status, _) = api
        .call(
            Method::DELETE,
            &format!("/api/v1/games/{}", ids[1]),
            Some(&token),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, body) = api.post("/api/v1/games/import", &token, &record).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "import after a place was freed: {body}"
    );
}

/// Creates `n` local games one after another; their ids.
async fn create_games(api: &Api, token: &str, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..n {
        ids.push(id_of(&api.new_game(token, json!({"mode": "local"})).await));
    }
    ids
}

/// Listing pages hold at most 100 games: `limit` above 100 (or not a positive number, an unknown
/// status, a forged cursor) is 400 INVALID_QUERY; `limit=100` over 105 games gives 100 and a cursor
/// to the last 5.
#[tokio::test]
async fn list_page_size_is_capped_at_100() {
    let server = TestServer::start_with_args(
        &["--write-rate-limit", "0", "--max-unfinished-games", "1000"],
        &[],
    );
    let api = Api::new(&server);
    let token = api.session().await;
    create_games(&api, &token, 105).await;
    for query in [
        "limit=101",
        "limit=1000000",
        "limit=-1",
        "limit=abc",
        "limit=1.5",
        "status=bogus",
        "cursor=%27%20OR%201%3D1%20--",
    ] {
        let (status, body) = api.get(&format!("/api/v1/games?{query}"), &token).await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::BAD_REQUEST, "INVALID_QUERY"),
            "?{query}: {body}"
        );
    }
    let (status, page) = api.get("/api/v1/games?limit=100", &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["games"].as_array().unwrap().len(), 100);
    let cursor = page["nextCursor"]
        .as_str()
        .expect("a cursor to the rest")
        .to_string();
    let (_, rest) = api
        .get(&format!("/api/v1/games?limit=100&cursor={cursor}"), &token)
        .await;
    assert_eq!(rest["games"].as_array().unwrap().len(), 5, "{rest}");
    assert_eq!(rest["nextCursor"], Value::Null);
}

// ---------------------------------------------------------------------------------------------
// CORS
// ---------------------------------------------------------------------------------------------

async fn preflight(api: &Api, path: &str, method: &str, headers: &str) -> reqwest::Response {
    api.http
        .request(Method::OPTIONS, format!("{}{path}", api.base))
        .header("origin", "https://arbitrary-origin.example")
        .header("access-control-request-method", method)
        .header("access-control-request-headers", headers)
        .send()
        .await
        .expect("preflight")
}

fn header_list(response: &reqwest::Response, name: &str) -> Vec<String> {
    response
        .headers()
        .get_all(name)
        .iter()
        .flat_map(|v| {
            v.to_str()
                .unwrap_or("")
                .split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// A preflight from an arbitrary origin for GET, POST or DELETE with Authorization and
/// Content-Type is granted (the mini-program and its developer tool need exactly that); PUT and
/// a header the client did not need are not granted, and credentials are not allowed.
#[tokio::test]
async fn cors_grants_what_the_mini_program_needs_and_no_more() {
    let server = TestServer::start();
    let api = Api::new(&server);
    for method in ["GET", "POST", "DELETE"] {
        let response = preflight(&api, "/api/v1/games", method, "authorization,content-type").await;
        assert!(
            response.status().is_success(),
            "preflight {method}: {}",
            response.status()
        );
        let origin = header_list(&response, "access-control-allow-origin");
        assert!(
            origin == ["*"] || origin == ["https://arbitrary-origin.example"],
            "allow-origin {origin:?}"
        );
        let methods = header_list(&response, "access-control-allow-methods");
        assert!(
            methods.contains(&method.to_ascii_lowercase()),
            "{method} not in allow-methods {methods:?}"
        );
        let headers = header_list(&response, "access-control-allow-headers");
        for needed in ["authorization", "content-type"] {
            assert!(
                headers.iter().any(|h| h == needed),
                "{needed} not in allow-headers {headers:?}"
            );
        }
        assert!(
            header_list(&response, "access-control-allow-credentials") != ["true"],
            "credentials are not needed and must not be allowed"
        );
    }
    let put = preflight(&api, "/api/v1/games", "PUT", "content-type").await;
    let methods = header_list(&put, "access-control-allow-methods");
    assert!(
        !methods.iter().any(|m| m == "put" || m == "*"),
        "PUT granted: {methods:?}"
    );
    let extra = preflight(&api, "/api/v1/games", "POST", "authorization,x-not-needed").await;
    let headers = header_list(&extra, "access-control-allow-headers");
    assert!(
        !headers.iter().any(|h| h == "x-not-needed" || h == "*"),
        "an unneeded header granted: {headers:?}"
    );

    let token = api.session().await;
    let response = api
        .http
        .get(server.url("/api/v1/games"))
        .bearer_auth(&token)
        .header("origin", "https://arbitrary-origin.example")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        !header_list(&response, "access-control-allow-origin").is_empty(),
        "a CORS GET carries allow-origin"
    );
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

/// `gomoku-server backup <path>` run while the server is serving and a client is writing makes a
/// copy that passes `PRAGMA integrity_check`; a server started on the copy knows the same players
/// and serves the quiet games exactly as the original does, and the busy game as a consistent
/// prefix of the original's history.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn online_backup_restores_the_same_games() {
    let server = TestServer::start_with_args(&["--write-rate-limit", "0"], &[]);
    let api = Api::new(&server);
    let token = api.session().await;
    let mut quiet = Vec::new();
    for (i, rule) in ["freestyle", "standard", "renju"].into_iter().enumerate() {
        let id = id_of(
            &api.new_game(&token, json!({"mode": "local", "rule": rule}))
                .await,
        );
        for ply in 0..=i {
            let (status, body) = api
                .post(
                    &format!("/api/v1/games/{id}/moves"),
                    &token,
                    &json!({"row": 1 + ply, "col": 2 * ply, "ply": ply}),
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{body}");
        }
        quiet.push(api.state(&token, &id).await);
    }
    let busy = id_of(
        &api.new_game(&token, json!({"mode": "local", "boardSize": 19}))
            .await,
    );
    let writer = {
        let (api, token, busy) = (api.clone(), token.clone(), busy.clone());
        tokio::spawn(async move {
            for ply in 0..120 {
                let (row, col) = (ply / 19 * 2 % 19, ply % 19);
                // Rows 0, 2, 4… filled left to right: colours alternate along rows and columns,
                // and filled rows are never adjacent, so no line of five ever forms.
                let (status, body) = api
                    .post(
                        &format!("/api/v1/games/{busy}/moves"),
                        &token,
                        &json!({"row": row, "col": col, "ply": ply}),
                    )
                    .await;
                assert_eq!(status, StatusCode::OK, "busy writer at ply {ply}: {body}");
                assert_eq!(body["status"], "playing");
            }
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;

    let copy = server.db_path.with_file_name("backup-copy.db");
    let output = tokio::task::spawn_blocking({
        let (db, copy) = (server.db_path.clone(), copy.clone());
        move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_gomoku-server"))
                .arg("--database-url")
                .arg(format!("sqlite://{}", db.display()))
                .arg("backup")
                .arg(&copy)
                .output()
                .expect("run gomoku-server backup")
        }
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "backup failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    writer.await.unwrap();
    integrity_check(&copy).await;

    let restored = TestServer::start_on(&copy, &[], &[]);
    let restored_api = Api::new(&restored);
    for state in &quiet {
        assert_eq!(
            &restored_api.state(&token, &id_of(state)).await,
            state,
            "a quiet game on the copy"
        );
    }
    let copied = restored_api.state(&token, &busy).await;
    assert_state_consistent(&copied);
    let original = moves_of(&api.state(&token, &busy).await);
    let copied_moves = moves_of(&copied);
    assert_eq!(
        copied_moves[..],
        original[..copied_moves.len()],
        "the busy game on the copy is a prefix of the original"
    );
    assert_eq!(restored_api.all_games(&token).await.len(), 4);
}

/// Every response carries an `x-request-id` (a fresh one per request, or the client's own echoed
/// back); with RUST_LOG=debug the server's log carries request ids and never a token — not for a
/// good request, a rejected one, nor an unknown token.
#[tokio::test]
async fn request_ids_in_responses_and_no_token_in_logs() {
    let (mut server, log) = TestServer::start_logging_to_file(&[], &[("RUST_LOG", "debug")]);
    let api = Api::new(&server);
    let token = api.session().await;
    let unknown = "feedface".repeat(8);

    let mut ids = Vec::new();
    for (method, path, auth) in [
        (Method::POST, "/api/v1/games", &token),
        (Method::GET, "/api/v1/games", &token),
        (Method::GET, "/api/v1/games/not-a-game", &token),
        (Method::GET, "/api/v1/games", &unknown),
        (Method::GET, "/healthz", &token),
    ] {
        let mut request = api
            .http
            .request(method.clone(), server.url(path))
            .bearer_auth(auth);
        if method == Method::POST {
            request = request.json(&json!({"mode": "local"}));
        }
        let response = request.send().await.unwrap();
        let id = response
            .headers()
            .get("x-request-id")
            .map(|v| v.to_str().unwrap().to_string());
        ids.push(id.unwrap_or_else(|| panic!("{method} {path}: no x-request-id")));
    }
    let mut distinct = ids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), ids.len(), "request ids repeat: {ids:?}");
    let response = api
        .http
        .get(server.url("/api/v1/games"))
        .bearer_auth(&token)
        .header("x-request-id", "client-chosen-42")
        .send()
        .await
        .unwrap();
    assert_eq!(
        response
            .headers()
            .get("x-request-id")
            .map(|v| v.to_str().unwrap()),
        Some("client-chosen-42")
    );

    server.terminate();
    server
        .wait_until_exited(Duration::from_secs(15))
        .expect("exit after SIGTERM");
    let text = std::fs::read_to_string(&log).expect("server log");
    assert!(!text.is_empty(), "RUST_LOG=debug produced no log at all");
    for secret in [&token, &unknown] {
        assert!(
            !text
                .to_ascii_lowercase()
                .contains(&secret.to_ascii_lowercase()),
            "a token is in the log"
        );
        assert!(
            !text.contains(&secret[..16]),
            "a token prefix is in the log"
        );
    }
    assert!(
        ids.iter().any(|id| text.contains(id.as_str())),
        "the log carries no request id of ours; ids {ids:?}"
    );
}
