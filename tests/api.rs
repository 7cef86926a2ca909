//! The REST API of issue 2, exercised through the real `gomoku-server` binary over HTTP.
//!
//! Written from the specification, not from the code: every endpoint, every error code (and
//! that a rejected request changes nothing stored), the shape of the game state, the three
//! rules, AI mode, the saved-game list, replay, export and import. Tokens and ownership, the
//! limits, CORS, the race for one ply and retried moves are `reliability.rs`'s. Positions are drawn as move lists on a 15×15 board unless a test says otherwise;
//! `(row, col)` with row 0 at the top.

use std::collections::BTreeSet;

use gomoku_testkit::lines::{
    brick_fill, colour_of_ply, record, BLACK_FIVE, BLACK_SIX, RENJU_DOUBLE_FOUR,
    RENJU_DOUBLE_THREE, RENJU_OVERLINE,
};
use gomoku_testkit::state::{id_of, move_triples};
use gomoku_testkit::{gomoku_server, Api, Player, Reply, Server, NO_RATE_LIMIT};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Positions (the shared ones are in `gomoku_testkit::lines`)
// ---------------------------------------------------------------------------------------------

/// Renju, black to move: (7,7) makes an exact five on row 7, and threes on column 7 and the
/// diagonal too.
/// ```text
///      3 4 5 6 7
///   5  . . X . X
///   6  . . . X X
///   7  X X X X *      * = five on row 7, threes on column 7 and the diagonal
/// ```
const RENJU_FIVE_OVER_DOUBLE_THREE: &[(i64, i64)] = &[
    (7, 3),
    (0, 0),
    (7, 4),
    (0, 2),
    (7, 5),
    (0, 4),
    (5, 5),
    (0, 6),
    (5, 7),
    (0, 8),
    (6, 7),
    (0, 10),
    (6, 6),
    (0, 12),
    (7, 6),
    (2, 0),
];

/// Renju: white makes a run of six on row 7 with (7,4); black plays harmlessly elsewhere.
const RENJU_WHITE_SIX: &[(i64, i64)] = &[
    (0, 0),
    (7, 1),
    (0, 3),
    (7, 2),
    (0, 6),
    (7, 3),
    (0, 9),
    (7, 5),
    (0, 12),
    (7, 6),
    (2, 0),
    (7, 4),
];

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// The content type of a raw body meant as JSON.
const JSON: Option<&str> = Some("application/json");

/// A server without the write limit, and a player on it.
async fn server_and_player() -> (Server, Player) {
    server_with(NO_RATE_LIMIT).await
}

/// A server without the write limit, a player on it, and the id of a new game of theirs with
/// these settings.
async fn new_game(settings: Value) -> (Server, Player, String) {
    let (server, player) = server_and_player().await;
    let id = player.create_id(settings).await;
    (server, player, id)
}

/// A server started with `flags`, and a player on it.
async fn server_with(flags: &[&str]) -> (Server, Player) {
    let server = gomoku_server!().args(flags).start();
    let player = Player::new(&server).await;
    (server, player)
}

/// A list of `{"row","col",...}` objects as a set of points (order-free comparison).
fn point_set(points: &Value) -> BTreeSet<(i64, i64)> {
    points
        .as_array()
        .expect("array of points")
        .iter()
        .map(|p| (p["row"].as_i64().unwrap(), p["col"].as_i64().unwrap()))
        .collect()
}

fn points(list: &[(i64, i64)]) -> BTreeSet<(i64, i64)> {
    list.iter().copied().collect()
}

fn rfc3339(value: &Value, what: &str) -> time::OffsetDateTime {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value}"));
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("{what} = {text:?} is not RFC 3339: {e}"))
}

/// The board of a state as a vector of rows, checked to be `boardSize` rows of `boardSize`
/// cells of 0, 1 or 2.
fn board_of(state: &Value) -> Vec<Vec<i64>> {
    let size = state["boardSize"].as_u64().expect("boardSize") as usize;
    board_rows(state, size)
}

/// The `board` field of `value`, checked to be `size` rows of `size` cells of 0, 1 or 2.
fn board_rows(value: &Value, size: usize) -> Vec<Vec<i64>> {
    let rows = value["board"].as_array().expect("board array");
    assert_eq!(rows.len(), size, "board rows");
    rows.iter()
        .map(|row| {
            let row = row.as_array().expect("board row");
            assert_eq!(row.len(), size, "board row length");
            row.iter()
                .map(|cell| {
                    let v = cell.as_i64().expect("board cell");
                    assert!((0..=2).contains(&v), "cell value {v}");
                    v
                })
                .collect()
        })
        .collect()
}

/// The board that the moves in `history` make on a board of `size`.
fn board_from_moves(size: usize, history: &[Value]) -> Vec<Vec<i64>> {
    let mut board = vec![vec![0; size]; size];
    for m in history {
        let (r, c) = (m["row"].as_u64().unwrap(), m["col"].as_u64().unwrap());
        board[r as usize][c as usize] = m["player"].as_i64().unwrap();
    }
    board
}

/// Checks that a full game state is internally consistent and has every field of the contract.
fn assert_state_shape(state: &Value) {
    for field in [
        "id",
        "mode",
        "rule",
        "boardSize",
        "board",
        "moveHistory",
        "moveCount",
        "currentPlayer",
        "status",
        "winner",
        "endReason",
        "winLine",
        "lastMove",
        "forbiddenMoves",
        "ai",
        "createdAt",
        "updatedAt",
    ] {
        assert!(state.get(field).is_some(), "state lacks {field:?}: {state}");
    }
    let size = state["boardSize"].as_u64().unwrap() as usize;
    let history = state["moveHistory"].as_array().expect("moveHistory");
    assert_eq!(state["moveCount"].as_u64().unwrap() as usize, history.len());
    assert_eq!(
        board_of(state),
        board_from_moves(size, history),
        "board = moveHistory"
    );
    for (i, m) in history.iter().enumerate() {
        let expected = colour_of_ply(i);
        assert_eq!(m["player"], expected, "players alternate from black");
    }
    assert_eq!(
        state["lastMove"],
        history.last().cloned().unwrap_or(Value::Null),
        "lastMove is the last of moveHistory"
    );
    let status = state["status"].as_str().unwrap();
    if status == "playing" {
        let to_move = colour_of_ply(history.len());
        assert_eq!(state["currentPlayer"], to_move);
        assert_eq!(state["winner"], Value::Null);
        assert_eq!(state["endReason"], Value::Null);
        assert_eq!(state["winLine"], Value::Null);
    } else {
        assert_eq!(
            state["currentPlayer"],
            Value::Null,
            "no one moves once over"
        );
        match status {
            "black_won" => assert_eq!(state["winner"], 1),
            "white_won" => assert_eq!(state["winner"], 2),
            "draw" => assert_eq!(state["winner"], Value::Null),
            other => panic!("unknown status {other}"),
        }
        assert!(state["endReason"].is_string());
    }
    assert!(state["forbiddenMoves"].is_array());
    let created = rfc3339(&state["createdAt"], "createdAt");
    let updated = rfc3339(&state["updatedAt"], "updatedAt");
    assert!(updated >= created, "updatedAt before createdAt");
}

async fn count_games(player: &Player) -> usize {
    player.list_all(None, 100).await.len()
}

// ---------------------------------------------------------------------------------------------
// Sessions, health, documentation, routing
// ---------------------------------------------------------------------------------------------

/// `POST /sessions` makes a new anonymous player each time; without WeChat configured a code
/// is ignored; a malformed body is INVALID_JSON.
#[tokio::test]
async fn sessions_make_distinct_anonymous_players() {
    let server = gomoku_server!().start();
    let api = Api::on(&server);
    let mut ids = BTreeSet::new();
    let mut tokens = BTreeSet::new();
    for body in [json!({}), json!({}), json!({"code": "081abc"})] {
        let reply = api.post("/api/v1/sessions", &body).await;
        let session = reply.ok(201, "POST /sessions");
        let token = session["token"].as_str().expect("token");
        let player = session["playerId"].as_str().expect("playerId");
        assert!(!token.is_empty() && !player.is_empty());
        tokens.insert(token.to_string());
        ids.insert(player.to_string());
    }
    assert_eq!(ids.len(), 3, "each session is a new player");
    assert_eq!(tokens.len(), 3, "each session has its own token");

    let truncated = api
        .request(reqwest::Method::POST, "/api/v1/sessions")
        .header("content-type", "application/json")
        .body("{\"code\":");
    let malformed = api.send(truncated).await;
    malformed.assert_error(400, "INVALID_JSON", "malformed session body");
}

/// `GET /healthz` answers 200 without a token.
#[tokio::test]
async fn healthz_answers() {
    let server = gomoku_server!().start();
    assert_eq!(Api::on(&server).get("/healthz").await.status, 200);
}

/// The OpenAPI document is JSON, version 3.x, and lists every path of the API with its methods.
#[tokio::test]
async fn openapi_lists_every_path() {
    let server = gomoku_server!().start();
    let reply = Api::on(&server).get("/api/v1/openapi.json").await;
    let doc = reply.ok(200, "GET /api/v1/openapi.json");
    let version = doc["openapi"].as_str().expect("openapi version");
    assert!(version.starts_with("3."), "openapi {version}");
    // Path parameters may be named anything: compare with every `{name}` written as `{}`.
    let normalise = |path: &str| {
        let mut out = String::new();
        let mut in_param = false;
        for ch in path.chars() {
            match ch {
                '{' => {
                    in_param = true;
                    out.push('{');
                }
                '}' => {
                    in_param = false;
                    out.push('}');
                }
                _ if in_param => {}
                _ => out.push(ch),
            }
        }
        out
    };
    let paths = doc["paths"].as_object().expect("paths object");
    let listed: std::collections::BTreeMap<String, &Value> =
        paths.iter().map(|(k, v)| (normalise(k), v)).collect();
    let expected: &[(&str, &[&str])] = &[
        ("/api/v1/sessions", &["post"]),
        ("/api/v1/games", &["get", "post"]),
        ("/api/v1/games/{}", &["get", "delete"]),
        ("/api/v1/games/{}/moves", &["post"]),
        ("/api/v1/games/{}/undo", &["post"]),
        ("/api/v1/games/{}/resign", &["post"]),
        ("/api/v1/games/{}/replay", &["get"]),
        ("/api/v1/games/{}/export", &["get"]),
        ("/api/v1/games/{}/hint", &["get"]),
        ("/api/v1/games/import", &["post"]),
        ("/healthz", &["get"]),
    ];
    for (path, methods) in expected {
        let item = listed
            .get(*path)
            .unwrap_or_else(|| panic!("openapi lacks {path}; has {:?}", listed.keys()));
        for method in *methods {
            assert!(item.get(*method).is_some(), "openapi lacks {method} {path}");
        }
    }
}

/// An unknown route is 404 NOT_FOUND and a wrong method 405 METHOD_NOT_ALLOWED, both in the
/// error shape.
#[tokio::test]
async fn unknown_route_and_wrong_method_use_the_error_shape() {
    let (_server, player) = server_and_player().await;
    let game = player.create(json!({})).await;
    let id = id_of(&game);
    for path in [
        "/api/v1/nothing-here".to_string(),
        format!("/api/v1/games/{id}/nothing-here"),
    ] {
        let reply = player.get(&path).await;
        reply.assert_error(404, "NOT_FOUND", &format!("unknown route {path}"));
    }
    use reqwest::Method;
    for (method, path) in [
        (Method::PUT, format!("/api/v1/games/{id}")),
        (Method::PATCH, format!("/api/v1/games/{id}")),
        (Method::DELETE, "/api/v1/games".to_string()),
        (Method::GET, format!("/api/v1/games/{id}/moves")),
        (Method::GET, "/api/v1/sessions".to_string()),
    ] {
        let what = format!("{method} {path}");
        let reply = player.send(player.request(method, &path)).await;
        reply.assert_error(405, "METHOD_NOT_ALLOWED", &what);
    }
    assert_eq!(player.game(&id).await, game, "the game is untouched");
}

/// Responses are compressed for a client that accepts gzip, and not for one that does not.
#[tokio::test]
async fn responses_are_compressed_on_request() {
    let (_server, player, id) = new_game(json!({"boardSize": 19})).await;
    let path = format!("/api/v1/games/{id}");
    let gzip = player
        .request(reqwest::Method::GET, &path)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(gzip.status(), 200);
    assert_eq!(
        gzip.headers()
            .get("content-encoding")
            .map(|v| v.to_str().unwrap()),
        Some("gzip")
    );
    let plain = player.get(&path).await;
    assert_eq!(plain.status, 200);
    assert!(plain.header("content-encoding").is_none());
}

// ---------------------------------------------------------------------------------------------
// Creating games and the state shape
// ---------------------------------------------------------------------------------------------

/// A new game with defaults has every field of the state with its documented value, and a move
/// updates each field accordingly; GET returns exactly the state the move returned.
#[tokio::test]
async fn new_game_state_has_every_field() {
    let (_server, player) = server_and_player().await;
    let state = player.create(json!({})).await;
    assert_state_shape(&state);
    assert!(!id_of(&state).is_empty());
    assert_eq!(state["mode"], "local");
    assert_eq!(state["rule"], "freestyle");
    assert_eq!(state["boardSize"], 15);
    assert!(board_of(&state).iter().flatten().all(|&v| v == 0));
    assert_eq!(state["moveHistory"], json!([]));
    assert_eq!(state["moveCount"], 0);
    assert_eq!(state["currentPlayer"], 1);
    assert_eq!(state["status"], "playing");
    assert_eq!(state["winner"], Value::Null);
    assert_eq!(state["endReason"], Value::Null);
    assert_eq!(state["winLine"], Value::Null);
    assert_eq!(state["lastMove"], Value::Null);
    assert_eq!(state["forbiddenMoves"], json!([]));
    assert_eq!(state["ai"], Value::Null);
    let id = id_of(&state);
    assert_eq!(player.game(&id).await, state, "GET = the 201 body");

    let after = player.play(&id, 7, 7).await;
    assert_state_shape(&after);
    assert_eq!(after["id"], state["id"]);
    assert_eq!(board_of(&after)[7][7], 1);
    assert_eq!(
        after["moveHistory"],
        json!([{"row": 7, "col": 7, "player": 1}])
    );
    assert_eq!(after["moveCount"], 1);
    assert_eq!(after["currentPlayer"], 2);
    assert_eq!(after["lastMove"], json!({"row": 7, "col": 7, "player": 1}));
    assert_eq!(after["createdAt"], state["createdAt"]);
    assert!(rfc3339(&after["updatedAt"], "updatedAt") >= rfc3339(&state["updatedAt"], "u"));
    assert_eq!(player.game(&id).await, after, "GET = the move's body");

    let white = player.play(&id, 7, 8).await;
    assert_eq!(board_of(&white)[7][8], 2);
    assert_eq!(white["currentPlayer"], 1);
    assert_eq!(white["lastMove"], json!({"row": 7, "col": 8, "player": 2}));
}

/// Every rule and board size 9 and 19 can be chosen, and the state says so.
#[tokio::test]
async fn settings_are_echoed() {
    let (_server, player) = server_and_player().await;
    for (rule, size) in [("freestyle", 9), ("standard", 19), ("renju", 15)] {
        let state = player
            .create(json!({"mode": "local", "rule": rule, "boardSize": size}))
            .await;
        assert_state_shape(&state);
        assert_eq!(state["rule"], rule);
        assert_eq!(state["boardSize"], size);
        assert_eq!(board_of(&state).len(), size as usize);
        // The far corner is on the board, one past it is not.
        let id = id_of(&state);
        let before = player.game(&id).await;
        let outside = player.try_move(&id, size, 0).await;
        outside.assert_error(422, "OUT_OF_BOUNDS", "row = size");
        player.assert_same(&id, &before, "row = size").await;
        player.play(&id, size - 1, size - 1).await;
    }
}

/// Bad settings are 422 INVALID_SETTINGS, bodies of the wrong type 400 INVALID_JSON, and
/// neither creates a game.
#[tokio::test]
async fn invalid_settings_create_nothing() {
    let (_server, player) = server_and_player().await;
    for body in [
        json!({"boardSize": 8}),
        json!({"boardSize": 20}),
        json!({"boardSize": 0}),
        json!({"rule": "go"}),
        json!({"mode": "remote"}),
        json!({"mode": "ai"}),
        json!({"mode": "ai", "ai": {"level": "godlike", "player": 2}}),
        json!({"mode": "ai", "ai": {"level": "easy", "player": 3}}),
        json!({"mode": "ai", "ai": {"level": "easy", "player": 0}}),
    ] {
        player.post("/api/v1/games", &body).await.assert_error(
            422,
            "INVALID_SETTINGS",
            &body.to_string(),
        );
    }
    for body in [
        json!({"boardSize": "15"}),
        json!({"rule": 3}),
        json!({"mode": ["local"]}),
        json!([]),
        json!("local"),
    ] {
        player.post("/api/v1/games", &body).await.assert_error(
            400,
            "INVALID_JSON",
            &body.to_string(),
        );
    }
    let malformed = player
        .post_raw("/api/v1/games", JSON, b"{\"rule\": \"renju\"")
        .await;
    malformed.assert_error(400, "INVALID_JSON", "truncated body");
    for path in ["/api/v1/games", "/api/v1/games/import"] {
        let untyped = player.post_raw(path, None, b"{\"rule\": \"renju\"}").await;
        untyped.assert_error(415, "UNSUPPORTED_MEDIA_TYPE", path);
    }
    assert_eq!(count_games(&player).await, 0, "nothing was created");
}

// ---------------------------------------------------------------------------------------------
// The three rules
// ---------------------------------------------------------------------------------------------

/// Under every rule an exact five wins for black: status, winner, endReason, the five as
/// winLine, currentPlayer null; a further move is GAME_OVER and changes nothing.
#[tokio::test]
async fn exact_five_wins_under_every_rule() {
    let (_server, player) = server_and_player().await;
    for rule in ["freestyle", "standard", "renju"] {
        let id = player.create_id(json!({"rule": rule})).await;
        let state = player.play_all(&id, BLACK_FIVE).await;
        assert_state_shape(&state);
        assert_eq!(state["status"], "black_won", "{rule}");
        assert_eq!(state["winner"], 1);
        assert_eq!(state["endReason"], "five");
        assert_eq!(state["currentPlayer"], Value::Null);
        assert_eq!(
            point_set(&state["winLine"]),
            points(&[(7, 3), (7, 4), (7, 5), (7, 6), (7, 7)])
        );
        assert_eq!(state["winLine"].as_array().unwrap().len(), 5);
        assert_eq!(state["lastMove"], json!({"row": 7, "col": 7, "player": 1}));
        assert_eq!(state["moveCount"], 9);
        let over = Finished(&player, &id, &state);
        over.refuses(player.try_move(&id, 10, 10).await, "a move after five")
            .await;
    }
}

/// White wins with a five too (freestyle): status white_won, winner 2.
#[tokio::test]
async fn white_five_wins() {
    let (_server, player, id) = new_game(json!({})).await;
    let moves = [
        (0, 0),
        (5, 1),
        (0, 2),
        (5, 2),
        (0, 4),
        (5, 3),
        (0, 6),
        (5, 4),
        (0, 8),
        (5, 5),
    ];
    let state = player.play_all(&id, &moves).await;
    assert_state_shape(&state);
    assert_eq!(state["status"], "white_won");
    assert_eq!(state["winner"], 2);
    assert_eq!(state["endReason"], "five");
    assert_eq!(
        point_set(&state["winLine"]),
        points(&[(5, 1), (5, 2), (5, 3), (5, 4), (5, 5)])
    );
}

/// A new game under `rule` in which black has played [`BLACK_SIX`]; its state, checked for shape.
async fn black_six_under(rule: &str) -> (Server, Player, String, Value) {
    let (server, player, id) = new_game(json!({ "rule": rule })).await;
    let state = player.play_all(&id, BLACK_SIX).await;
    assert_state_shape(&state);
    (server, player, id, state)
}

/// Freestyle: an overline wins, and the winLine is the whole run of six.
#[tokio::test]
async fn freestyle_overline_wins_with_the_whole_run() {
    let (_server, _player, _id, state) = black_six_under("freestyle").await;
    assert_eq!(state["status"], "black_won");
    assert_eq!(state["endReason"], "five");
    assert_eq!(
        point_set(&state["winLine"]),
        points(&[(7, 1), (7, 2), (7, 3), (7, 4), (7, 5), (7, 6)])
    );
}

/// Standard: an overline is no win and play goes on with white to move; an exact five later
/// still wins.
#[tokio::test]
async fn standard_overline_does_not_win() {
    let (_server, player, id, state) = black_six_under("standard").await;
    assert_eq!(state["status"], "playing");
    assert_eq!(state["winner"], Value::Null);
    assert_eq!(state["currentPlayer"], 2);
    assert_eq!(state["forbiddenMoves"], json!([]), "none in standard");
    // Black then makes an exact five on row 10: that still wins.
    let state = player
        .play_all(
            &id,
            &[
                (3, 14),
                (10, 0),
                (5, 14),
                (10, 1),
                (9, 14),
                (10, 2),
                (11, 14),
                (10, 3),
                (13, 14),
                (10, 4),
            ],
        )
        .await;
    assert_eq!(state["status"], "black_won", "{state}");
    assert_eq!(
        point_set(&state["winLine"]),
        points(&[(10, 0), (10, 1), (10, 2), (10, 3), (10, 4)])
    );

    // A white overline is no win either.
    let id = player.create_id(json!({"rule": "standard"})).await;
    let white_six = [
        (2, 0),
        (12, 1),
        (2, 2),
        (12, 2),
        (2, 4),
        (12, 3),
        (2, 6),
        (12, 5),
        (2, 8),
        (12, 6),
        (2, 10),
        (12, 4),
    ];
    let state = player.play_all(&id, &white_six).await;
    assert_eq!(
        state["status"], "playing",
        "a white overline is no win: {state}"
    );
    assert_eq!(state["currentPlayer"], 1);
}

/// Renju: when black is to move, each forbidden point is listed with its kind; playing it is
/// 422 FORBIDDEN_MOVE with that kind and changes nothing; white's turn lists nothing; the same
/// point is legal in freestyle.
#[tokio::test]
async fn renju_forbidden_moves_are_listed_and_rejected() {
    let (_server, player) = server_and_player().await;
    for (moves, point, kind) in [
        (RENJU_DOUBLE_THREE, (7, 7), "double_three"),
        (RENJU_DOUBLE_FOUR, (7, 7), "double_four"),
        (RENJU_OVERLINE, (7, 4), "overline"),
    ] {
        let id = player.create_id(json!({"rule": "renju"})).await;
        // White's turn: nothing is forbidden for white.
        let white_turn = player.play_all(&id, &moves[..moves.len() - 1]).await;
        assert_eq!(white_turn["currentPlayer"], 2);
        assert_eq!(
            white_turn["forbiddenMoves"],
            json!([]),
            "{kind}: white to move"
        );

        let state = player
            .play(&id, moves[moves.len() - 1].0, moves[moves.len() - 1].1)
            .await;
        assert_state_shape(&state);
        assert_eq!(state["currentPlayer"], 1);
        let listed = state["forbiddenMoves"].as_array().unwrap();
        let entry = listed
            .iter()
            .find(|f| (f["row"].as_i64(), f["col"].as_i64()) == (Some(point.0), Some(point.1)))
            .unwrap_or_else(|| panic!("{kind}: {point:?} not in forbiddenMoves {listed:?}"));
        assert_eq!(entry["kind"], kind);
        for f in listed {
            let (r, c) = (f["row"].as_u64().unwrap(), f["col"].as_u64().unwrap());
            assert_eq!(
                board_of(&state)[r as usize][c as usize],
                0,
                "forbidden point is empty"
            );
        }

        let reply = player.try_move(&id, point.0, point.1).await;
        assert_eq!(reply.body["error"]["kind"], kind, "{kind}: {}", reply.text);
        reply.assert_error(422, "FORBIDDEN_MOVE", kind);
        player.assert_same(&id, &state, kind).await;

        let free = player.create_id(json!({"rule": "freestyle"})).await;
        let free_state = player.play_all(&free, moves).await;
        assert_eq!(
            free_state["forbiddenMoves"],
            json!([]),
            "freestyle lists nothing"
        );
        player.play(&free, point.0, point.1).await;
    }
}

/// Renju: a black move that makes an exact five wins even though it also makes a double three
/// (and so is not listed as forbidden): see [`RENJU_FIVE_OVER_DOUBLE_THREE`].
#[tokio::test]
async fn renju_five_beats_forbidden() {
    let (_server, player, id) = new_game(json!({"rule": "renju"})).await;
    let state = player.play_all(&id, RENJU_FIVE_OVER_DOUBLE_THREE).await;
    assert_eq!(state["currentPlayer"], 1);
    assert!(
        !point_set(&state["forbiddenMoves"]).contains(&(7, 7)),
        "a five is never forbidden: {}",
        state["forbiddenMoves"]
    );
    let won = player.play(&id, 7, 7).await;
    assert_eq!(won["status"], "black_won");
    assert_eq!(
        point_set(&won["winLine"]),
        points(&[(7, 3), (7, 4), (7, 5), (7, 6), (7, 7)])
    );
}

/// Renju: white wins with an overline (nothing is forbidden for white).
#[tokio::test]
async fn renju_white_overline_wins() {
    let (_server, player, id) = new_game(json!({"rule": "renju"})).await;
    let state = player.play_all(&id, RENJU_WHITE_SIX).await;
    assert_eq!(state["status"], "white_won", "{state}");
    assert_eq!(
        point_set(&state["winLine"]),
        points(&[(7, 1), (7, 2), (7, 3), (7, 4), (7, 5), (7, 6)])
    );
}

/// A 9×9 board played out without a five ends in a draw (board full or no five possible);
/// before that the game is in play.
#[tokio::test]
async fn small_board_ends_in_a_draw() {
    let (_server, player, id) = new_game(json!({"boardSize": 9})).await;
    let moves = brick_fill(9);
    let mut last = Value::Null;
    for (i, &(r, c)) in moves.iter().enumerate() {
        last = player.play(&id, r, c).await;
        if last["status"] != "playing" {
            assert!(i >= 8, "a draw after {} moves is not certain", i + 1);
            break;
        }
    }
    assert_state_shape(&last);
    assert_eq!(last["status"], "draw", "{last}");
    assert_eq!(last["winner"], Value::Null);
    assert_eq!(last["winLine"], Value::Null);
    assert_eq!(last["currentPlayer"], Value::Null);
    let reason = last["endReason"].as_str().unwrap();
    assert!(
        reason == "board_full" || reason == "no_five_possible",
        "endReason {reason}"
    );
    // Undo of a drawn game reopens it.
    let reopened = player.undo(&id).await.ok(200, "undo of a draw");
    assert_state_shape(&reopened);
    assert_eq!(reopened["status"], "playing");
    assert_eq!(reopened["endReason"], Value::Null);
    let (r, c) = {
        let m = &last["lastMove"];
        (m["row"].as_i64().unwrap(), m["col"].as_i64().unwrap())
    };
    let last = player.play(&id, r, c).await;
    assert_eq!(last["status"], "draw", "the same move draws again");
    if reason == "board_full" {
        assert_eq!(last["moveCount"], 81);
    } else {
        let next = moves[last["moveCount"].as_u64().unwrap() as usize];
        let reply = player.try_move(&id, next.0, next.1).await;
        Finished(&player, &id, &last)
            .refuses(reply, "move after draw")
            .await;
    }
}

// ---------------------------------------------------------------------------------------------
// Move errors, body handling
// ---------------------------------------------------------------------------------------------

/// Every way a move can be refused gets its code, and none changes the stored game.
#[tokio::test]
async fn refused_moves_change_nothing() {
    let (_server, player, id) = new_game(json!({})).await;
    let before = player.play(&id, 7, 7).await;
    let path = format!("/api/v1/games/{id}/moves");

    for (r, c) in [(15, 0), (0, 15), (15, 15), (99, 3)] {
        let reply = player.try_move(&id, r, c).await;
        reply.assert_error(422, "OUT_OF_BOUNDS", "outside");
        player.assert_same(&id, &before, "outside").await;
    }
    // A negative coordinate is outside the board; a server may also call it a wrong type.
    for (r, c) in [(-1, 3), (3, -1)] {
        let reply = player.try_move(&id, r, c).await;
        let allowed = [(422, "OUT_OF_BOUNDS"), (400, "INVALID_JSON")];
        reply.assert_error_in(&allowed, "negative coordinate");
        assert_eq!(player.game(&id).await, before);
    }
    let occupied = player.try_move(&id, 7, 7).await;
    occupied.assert_error(409, "CELL_OCCUPIED", "occupied");
    player.assert_same(&id, &before, "occupied").await;

    for body in [
        json!({"row": 7}),
        json!({"col": 7}),
        json!({"row": "7", "col": 8}),
        json!({"row": 7.5, "col": 8}),
        json!({"row": null, "col": 8}),
        json!({"row": 7, "col": 8, "ply": "one"}),
        json!([7, 8]),
        json!(null),
    ] {
        let reply = player.post(&path, &body).await;
        reply.assert_error(400, "INVALID_JSON", &body.to_string());
        player.assert_same(&id, &before, &body.to_string()).await;
    }
    for text in ["", "{", "{\"row\": 7, \"col\": }", "row=7&col=8"] {
        let reply = player.post_raw(&path, JSON, text.as_bytes()).await;
        reply.assert_error(400, "INVALID_JSON", text);
        player.assert_same(&id, &before, text).await;
    }
    let untyped = player
        .post_raw(&path, None, b"{\"row\": 7, \"col\": 8}")
        .await;
    untyped.assert_error(415, "UNSUPPORTED_MEDIA_TYPE", "no content type");
    player.assert_same(&id, &before, "no content type").await;
    let as_text = player
        .post_raw(&path, Some("text/plain"), b"{\"row\": 7, \"col\": 8}")
        .await;
    as_text.assert_error(415, "UNSUPPORTED_MEDIA_TYPE", "text");
    player.assert_same(&id, &before, "text").await;

    // 70 KiB: over the 64 KiB limit, whatever the content.
    let padding = "x".repeat(70 * 1024);
    let big = player
        .post(&path, &json!({"row": 7, "col": 8, "padding": padding}))
        .await;
    big.assert_error(413, "PAYLOAD_TOO_LARGE", "70 KiB");
    player.assert_same(&id, &before, "70 KiB").await;
    let big_import = player
        .post("/api/v1/games/import", &json!({"padding": padding}))
        .await;
    big_import.assert_error(413, "PAYLOAD_TOO_LARGE", "70 KiB import");
    assert_eq!(count_games(&player).await, 1);

    // The game still takes a good move.
    let after = player.play(&id, 7, 8).await;
    assert_eq!(after["moveCount"], 2);
}

// ---------------------------------------------------------------------------------------------
// Undo, resign, delete
// ---------------------------------------------------------------------------------------------

/// Local undo takes back one move; with nothing left it is NOTHING_TO_UNDO; undo of a won game
/// reopens it; undo of a resigned game is GAME_OVER.
#[tokio::test]
async fn local_undo() {
    let (_server, player, id) = new_game(json!({})).await;
    let empty = player.game(&id).await;
    let reply = player.undo(&id).await;
    reply.assert_error(409, "NOTHING_TO_UNDO", "undo empty");
    player.assert_same(&id, &empty, "undo empty").await;

    let one = player.play(&id, 7, 7).await;
    let two = player.play(&id, 8, 8).await;
    let undone = player.undo(&id).await.ok(200, "undo");
    assert_state_shape(&undone);
    assert_eq!(undone["moveHistory"], one["moveHistory"]);
    assert_eq!(undone["board"], one["board"]);
    assert_eq!(undone["currentPlayer"], 2);
    assert_eq!(player.game(&id).await, undone);
    assert_ne!(undone["board"], two["board"]);

    // A won game reopens.
    let won_id = player.create_id(json!({})).await;
    let won = player.play_all(&won_id, BLACK_FIVE).await;
    assert_eq!(won["status"], "black_won");
    let reopened = player.undo(&won_id).await.ok(200, "undo of a won game");
    assert_state_shape(&reopened);
    assert_eq!(reopened["status"], "playing");
    assert_eq!(reopened["winner"], Value::Null);
    assert_eq!(reopened["winLine"], Value::Null);
    assert_eq!(reopened["endReason"], Value::Null);
    assert_eq!(reopened["moveCount"], 8);
    assert_eq!(reopened["currentPlayer"], 1);
    // ...and can be won again.
    let again = player.play(&won_id, 7, 7).await;
    assert_eq!(again["status"], "black_won");

    // A resigned game stays over.
    let resigned = player.resign(&id).await.ok(200, "resign");
    let reply = player.undo(&id).await;
    Finished(&player, &id, &resigned)
        .refuses(reply, "undo resigned")
        .await;
}

/// Resigning: the player to move loses with endReason "resign"; a finished game cannot be
/// resigned, moved in or hinted.
#[tokio::test]
async fn local_resign() {
    let (_server, player) = server_and_player().await;
    // Black to move resigns: white wins.
    let id = player.create_id(json!({})).await;
    let state = player.resign(&id).await.ok(200, "resign");
    assert_state_shape(&state);
    assert_eq!(state["status"], "white_won");
    assert_eq!(state["winner"], 2);
    assert_eq!(state["endReason"], "resign");
    assert_eq!(state["winLine"], Value::Null);
    assert_eq!(state["currentPlayer"], Value::Null);

    // White to move resigns: black wins.
    let id2 = player.create_id(json!({})).await;
    player.play(&id2, 7, 7).await;
    let state2 = player.resign(&id2).await.ok(200, "resign");
    assert_eq!(state2["status"], "black_won");
    assert_eq!(state2["winner"], 1);
    assert_eq!(state2["moveCount"], 1);

    // Each refused with GAME_OVER, the game kept as it was.
    let over = Finished(&player, &id2, &state2);
    over.refuses(player.resign(&id2).await, "resign twice")
        .await;
    over.refuses(player.try_move(&id2, 1, 1).await, "move")
        .await;
    let hint = player.get(&format!("/api/v1/games/{id2}/hint")).await;
    over.refuses(hint, "hint").await;
}

/// A finished game (player, id) and the state it keeps: every request to change it is refused.
struct Finished<'a>(&'a Player, &'a str, &'a Value);

impl Finished<'_> {
    /// Asserts `reply` is 409 GAME_OVER and the game still reads the same.
    async fn refuses(&self, reply: Reply, what: &str) {
        let Finished(player, id, state) = self;
        reply.assert_error(409, "GAME_OVER", what);
        player.assert_same(id, state, what).await;
    }
}

/// DELETE removes a game: 204 with no body, then 404 for it everywhere and gone from the list.
#[tokio::test]
async fn delete_removes_the_game() {
    let (_server, player) = server_and_player().await;
    let keep = player.create_id(json!({})).await;
    let id = player.create_id(json!({})).await;
    player.play(&id, 7, 7).await;
    let reply = player.delete(&format!("/api/v1/games/{id}")).await;
    assert_eq!(reply.status, 204, "{}", reply.text);
    assert!(reply.text.is_empty(), "204 with a body: {}", reply.text);
    let game = format!("/api/v1/games/{id}");
    let after = [
        ("GET deleted", player.get(&game).await),
        ("DELETE deleted", player.delete(&game).await),
        ("move in deleted", player.try_move(&id, 1, 1).await),
        (
            "replay deleted",
            player.get(&format!("{game}/replay")).await,
        ),
    ];
    for (what, reply) in &after {
        reply.assert_error(404, "GAME_NOT_FOUND", what);
    }
    let listed = player.list_all(None, 100).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"], json!(keep));
}

// ---------------------------------------------------------------------------------------------
// Hint
// ---------------------------------------------------------------------------------------------

/// A hint names an empty point on the board with a reason, is never a renju forbidden point,
/// and changes nothing.
#[tokio::test]
async fn hint_suggests_a_legal_point_and_changes_nothing() {
    let (_server, player) = server_and_player().await;
    for (rule, moves) in [
        ("freestyle", &[(7, 7), (7, 8)][..]),
        ("renju", RENJU_DOUBLE_THREE),
        ("renju", RENJU_OVERLINE),
    ] {
        let id = player.create_id(json!({"rule": rule})).await;
        let state = player.play_all(&id, moves).await;
        let hint = player
            .get(&format!("/api/v1/games/{id}/hint"))
            .await
            .ok(200, "hint");
        let (r, c) = (
            hint["row"].as_i64().expect("row"),
            hint["col"].as_i64().expect("col"),
        );
        assert!((0..15).contains(&r) && (0..15).contains(&c), "{hint}");
        assert_eq!(
            board_of(&state)[r as usize][c as usize],
            0,
            "hint on a stone"
        );
        assert!(hint["reason"].is_string(), "{hint}");
        assert!(
            !point_set(&state["forbiddenMoves"]).contains(&(r, c)),
            "hint on a forbidden point"
        );
        assert_eq!(player.game(&id).await, state, "hint changed the game");
        // The hinted point is accepted.
        player.play(&id, r, c).await;
    }
}

// ---------------------------------------------------------------------------------------------
// AI mode
// ---------------------------------------------------------------------------------------------

/// AI as black has made its first move in the 201; the human's move comes back with the AI's
/// reply; undo takes back both; the AI's opening cannot be undone; the human resigns and loses.
#[tokio::test]
async fn ai_as_black_moves_first_and_undo_takes_two_plies() {
    let (_server, player) = server_and_player().await;
    let created = player
        .create(json!({"mode": "ai", "ai": {"level": "easy", "player": 1}}))
        .await;
    assert_state_shape(&created);
    assert_eq!(created["mode"], "ai");
    assert_eq!(created["ai"], json!({"level": "easy", "player": 1}));
    assert_eq!(created["moveCount"], 1, "the AI opened");
    assert_eq!(created["moveHistory"][0]["player"], 1);
    assert_eq!(created["currentPlayer"], 2);
    let id = id_of(&created);
    assert_eq!(player.game(&id).await, created);

    let board = board_of(&created);
    let (r, c) = first_empty_near(&board, 7, 7);
    let after = player.play(&id, r, c).await;
    assert_state_shape(&after);
    assert_eq!(after["moveCount"], 3, "the AI's reply is in the response");
    assert_eq!(
        after["moveHistory"][1],
        json!({"row": r, "col": c, "player": 2})
    );
    assert_eq!(after["moveHistory"][2]["player"], 1);
    assert_eq!(after["currentPlayer"], 2);
    assert_eq!(player.game(&id).await, after);

    let undone = player.undo(&id).await.ok(200, "undo");
    assert_state_shape(&undone);
    assert_eq!(undone["moveCount"], 1, "undo takes back two plies");
    assert_eq!(undone["moveHistory"], created["moveHistory"]);
    assert_eq!(undone["currentPlayer"], 2);

    let reply = player.undo(&id).await;
    reply.assert_error(409, "NOTHING_TO_UNDO", "AI opening");
    player.assert_same(&id, &undone, "AI opening").await;

    let resigned = player.resign(&id).await.ok(200, "resign");
    assert_eq!(resigned["status"], "black_won", "the human (white) loses");
    assert_eq!(resigned["winner"], 1);
    assert_eq!(resigned["endReason"], "resign");
}

/// AI as white at every level answers within the move request with a legal reply; undo takes
/// back both plies; the human resigning makes white the winner.
#[tokio::test]
async fn ai_as_white_replies_at_every_level() {
    let (_server, player) =
        server_with(&["--write-rate-limit", "0", "--ai-master-ms", "300"]).await;
    for level in ["easy", "medium", "hard", "master"] {
        let created = player
            .create(json!({"mode": "ai", "ai": {"level": level, "player": 2}}))
            .await;
        assert_eq!(created["moveCount"], 0, "{level}: the human opens");
        assert_eq!(created["currentPlayer"], 1);
        assert_eq!(created["ai"], json!({"level": level, "player": 2}));
        let id = id_of(&created);
        let after = player.play(&id, 7, 7).await;
        assert_state_shape(&after);
        assert_eq!(after["moveCount"], 2, "{level}: reply included");
        assert_eq!(after["moveHistory"][1]["player"], 2);
        assert_eq!(after["currentPlayer"], 1);
        let after2 = player
            .play(&id, 7, if board_of(&after)[7][8] == 0 { 8 } else { 6 })
            .await;
        assert_eq!(after2["moveCount"], 4);
        assert_state_shape(&after2);

        let undone = player.undo(&id).await.ok(200, "undo");
        assert_eq!(undone["moveHistory"], after["moveHistory"], "{level}");
        let resigned = player.resign(&id).await.ok(200, "resign");
        assert_eq!(resigned["status"], "white_won");
        assert_eq!(resigned["winner"], 2);
    }
}

/// When every AI slot is busy past the queue timeout, a move in an AI game is 503 AI_BUSY and
/// the human's move is not stored; with a free slot the same move is accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ai_busy_when_every_slot_is_taken() {
    let (_server, player) = server_with(&[
        "--write-rate-limit",
        "0",
        "--ai-concurrency",
        "1",
        "--ai-queue-timeout-ms",
        "100",
        "--ai-master-ms",
        "1500",
    ])
    .await;
    let mut games = Vec::new();
    for _ in 0..3 {
        let state = player
            .create(json!({"mode": "ai", "ai": {"level": "master", "player": 2}}))
            .await;
        games.push(id_of(&state));
    }
    let mut tasks = Vec::new();
    for id in &games {
        let (player, id) = (player.clone(), id.clone());
        // An opening far from the centre, so no opening book answers it without a search.
        tasks.push(tokio::spawn(async move {
            let reply = player.try_move(&id, 3, 11).await;
            (id, reply)
        }));
    }
    let mut busy = Vec::new();
    for task in tasks {
        let (id, reply) = task.await.unwrap();
        match reply.status.as_u16() {
            200 => assert_eq!(reply.body["moveCount"], 2),
            _ => {
                reply.assert_error(503, "AI_BUSY", "move while the AI slot is taken");
                busy.push(id);
            }
        }
    }
    assert!(
        !busy.is_empty(),
        "3 searches of 1.5 s on 1 slot with a 100 ms queue all ran"
    );
    for id in &busy {
        let state = player.game(id).await;
        assert_eq!(state["moveCount"], 0, "the refused move was stored");
        let replied = player.play(id, 3, 11).await;
        assert_eq!(replied["moveCount"], 2);
    }
}

fn first_empty_near(board: &[Vec<i64>], row: i64, col: i64) -> (i64, i64) {
    let size = board.len() as i64;
    for radius in 0..size {
        for r in row - radius..=row + radius {
            for c in col - radius..=col + radius {
                if (0..size).contains(&r)
                    && (0..size).contains(&c)
                    && board[r as usize][c as usize] == 0
                {
                    return (r, c);
                }
            }
        }
    }
    panic!("board full")
}

/// Whether `player` placing a stone at (r, c) makes five or more in a row (freestyle).
fn makes_five(board: &[Vec<i64>], r: i64, c: i64, player: i64) -> bool {
    let size = board.len() as i64;
    let at = |r: i64, c: i64| {
        (0..size).contains(&r) && (0..size).contains(&c) && board[r as usize][c as usize] == player
    };
    [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dr, dc)| {
        let mut run = 1;
        for sign in [1, -1] {
            let (mut rr, mut cc) = (r + sign * dr, c + sign * dc);
            while at(rr, cc) {
                run += 1;
                rr += sign * dr;
                cc += sign * dc;
            }
        }
        run >= 5
    })
}

/// The empty points where `player` would make five.
fn winning_points(board: &[Vec<i64>], player: i64) -> Vec<(i64, i64)> {
    let size = board.len() as i64;
    let mut out = Vec::new();
    for r in 0..size {
        for c in 0..size {
            if board[r as usize][c as usize] == 0 && makes_five(board, r, c, player) {
                out.push((r, c));
            }
        }
    }
    out
}

/// A greedy attacker for `player`: wins if it can, otherwise makes as many winning points
/// (fours) as it can, otherwise extends near its own stones.
fn attacking_move(board: &[Vec<i64>], player: i64) -> (i64, i64) {
    let size = board.len() as i64;
    let own: Vec<(i64, i64)> = (0..size)
        .flat_map(|r| (0..size).map(move |c| (r, c)))
        .filter(|&(r, c)| board[r as usize][c as usize] == player)
        .collect();
    if own.is_empty() {
        return first_empty_near(board, 7, 7);
    }
    let mut best: Option<((usize, usize), (i64, i64))> = None;
    for r in 0..size {
        for c in 0..size {
            if board[r as usize][c as usize] != 0
                || !own
                    .iter()
                    .any(|&(or, oc)| (or - r).abs() <= 1 && (oc - c).abs() <= 1)
            {
                continue;
            }
            let wins = usize::from(makes_five(board, r, c, player)) * 100;
            let mut next = board.to_vec();
            next[r as usize][c as usize] = player;
            let fours = winning_points(&next, player).len();
            let near = own
                .iter()
                .filter(|&&(or, oc)| (or - r).abs() <= 1 && (oc - c).abs() <= 1)
                .count();
            let score = (wins + fours, near);
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, (r, c)));
            }
        }
    }
    best.map(|(_, p)| p)
        .unwrap_or_else(|| first_empty_near(board, 7, 7))
}

/// At easy and hard, the AI always completes its own five and always blocks a four of the
/// human's (a single winning point), against a human who keeps making fours.
#[tokio::test]
async fn ai_takes_its_five_and_blocks_fours() {
    let (_server, player) = server_and_player().await;
    let mut situations = 0;
    for level in ["easy", "hard"] {
        for _game in 0..3 {
            let id = player
                .create_id(json!({"mode": "ai", "ai": {"level": level, "player": 2}}))
                .await;
            let mut board = vec![vec![0i64; 15]; 15];
            for _turn in 0..40 {
                let (r, c) = attacking_move(&board, 1);
                let state = player.play(&id, r, c).await;
                assert_state_shape(&state);
                let mut before_ai = board.clone();
                before_ai[r as usize][c as usize] = 1;
                board = board_of(&state);
                if state["status"] == "black_won" {
                    assert_eq!(
                        state["lastMove"],
                        json!({"row": r, "col": c, "player": 1}),
                        "no AI reply after the human's winning move"
                    );
                    break;
                }
                let reply = state["lastMove"].clone();
                assert_eq!(reply["player"], 2, "{level}: the AI replied");
                let reply = (
                    reply["row"].as_i64().unwrap(),
                    reply["col"].as_i64().unwrap(),
                );
                let ai_wins = winning_points(&before_ai, 2);
                let human_wins = winning_points(&before_ai, 1);
                if !ai_wins.is_empty() {
                    situations += 1;
                    assert!(
                        ai_wins.contains(&reply),
                        "{level}: AI missed its five at {ai_wins:?}"
                    );
                    assert_eq!(state["status"], "white_won");
                } else if human_wins.len() == 1 {
                    situations += 1;
                    assert_eq!(reply, human_wins[0], "{level}: AI did not block the four");
                }
                if state["status"] != "playing" {
                    break;
                }
            }
        }
    }
    assert!(
        situations > 0,
        "the human never made a four: the test proved nothing"
    );
}

/// A black AI under renju never plays a forbidden point: its games import cleanly (import
/// replays every move through the judge), and no AI move was listed as forbidden beforehand.
#[tokio::test]
async fn renju_black_ai_never_plays_forbidden() {
    let (_server, player) = server_and_player().await;
    for level in ["easy", "hard"] {
        let created = player
            .create(json!({"mode": "ai", "rule": "renju", "ai": {"level": level, "player": 1}}))
            .await;
        let id = id_of(&created);
        let mut state = created;
        for _ in 0..25 {
            if state["status"] != "playing" {
                break;
            }
            let board = board_of(&state);
            let (r, c) = attacking_move(&board, 2);
            state = player.play(&id, r, c).await;
        }
        let record = player.export(&id).await;
        let imported = player
            .import(&record)
            .await
            .ok(201, "the AI's game replays under the judge");
        assert_eq!(imported["moveHistory"], state["moveHistory"]);
    }
}

// ---------------------------------------------------------------------------------------------
// The saved-game list
// ---------------------------------------------------------------------------------------------

/// The list pages with a cursor, newest activity first, each game once; a move brings a game to
/// the top; the status filter splits playing from finished; summaries leave out the board.
#[tokio::test]
async fn list_pages_newest_activity_first() {
    let (_server, player) = server_and_player().await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(player.create_id(json!({})).await);
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    let listed = |games: &[Value]| -> Vec<String> { games.iter().map(id_of).collect() };

    assert_eq!(listed(&player.list_all(None, 100).await), newest_first);
    assert_eq!(
        listed(&player.list_all(None, 2).await),
        newest_first,
        "pages of 2"
    );
    assert_eq!(
        listed(&player.list_all(None, 1).await),
        newest_first,
        "pages of 1"
    );
    let first_page = player
        .list_page(&[("limit", "2")])
        .await
        .ok(200, "first page");
    assert_eq!(first_page["games"].as_array().unwrap().len(), 2);
    assert!(first_page["nextCursor"].is_string());
    let whole = player.list_page(&[("limit", "5")]).await.ok(200, "all");
    assert_eq!(whole["nextCursor"], Value::Null, "no cursor past the end");
    let default = player.list_page(&[]).await.ok(200, "default limit");
    assert_eq!(listed(default["games"].as_array().unwrap()), newest_first);

    // A move in the oldest game makes it the newest activity.
    let oldest = ids[0].clone();
    let moved = player.play(&oldest, 7, 7).await;
    let order = listed(&player.list_all(None, 2).await);
    assert_eq!(order[0], oldest, "the game just played comes first");
    assert_eq!(order.len(), 5);

    // Summaries: the state without board, moveHistory and forbiddenMoves.
    let summary = player.list_all(None, 100).await[0].clone();
    for field in ["board", "moveHistory", "forbiddenMoves"] {
        assert!(summary.get(field).is_none(), "summary has {field}");
    }
    let mut expected = moved.as_object().unwrap().clone();
    for field in ["board", "moveHistory", "forbiddenMoves"] {
        expected.remove(field);
    }
    assert_eq!(
        summary,
        Value::Object(expected),
        "summary = state minus the big fields"
    );

    // Finish one game: the filter separates it.
    let finished = ids[2].clone();
    player.resign(&finished).await.ok(200, "resign");
    let done = listed(&player.list_all(Some("finished"), 2).await);
    assert_eq!(done, vec![finished.clone()]);
    let playing = listed(&player.list_all(Some("playing"), 2).await);
    assert_eq!(playing.len(), 4);
    assert!(!playing.contains(&finished));
    assert_eq!(player.list_all(None, 3).await.len(), 5);
}

/// A bad list query is 400 INVALID_QUERY.
#[tokio::test]
async fn bad_list_queries_are_invalid_query() {
    let (_server, player) = server_and_player().await;
    player.create(json!({})).await;
    for query in [
        &[("status", "won")][..],
        &[("limit", "0")][..],
        &[("limit", "101")][..],
        &[("limit", "-1")][..],
        &[("limit", "ten")][..],
        &[("cursor", "not a cursor!")][..],
    ] {
        player
            .list_page(query)
            .await
            .assert_error(400, "INVALID_QUERY", &format!("{query:?}"));
    }
    for limit in ["1", "100"] {
        player.list_page(&[("limit", limit)]).await.ok(200, limit);
    }
}

// ---------------------------------------------------------------------------------------------
// Replay, export, import
// ---------------------------------------------------------------------------------------------

/// The replay has the board size, the rule, every move in order and the result; a client draws
/// each frame from the moves itself.
#[tokio::test]
async fn replay_has_the_moves_and_the_result() {
    let (_server, player, id) = new_game(json!({"rule": "standard"})).await;
    let state = player.play_all(&id, BLACK_FIVE).await;
    let replay = player
        .get(&format!("/api/v1/games/{id}/replay"))
        .await
        .ok(200, "replay");
    assert_eq!(replay["boardSize"], 15);
    assert_eq!(replay["rule"], "standard");
    assert_eq!(replay["moveCount"], 9);
    assert_eq!(
        move_triples(&replay["moves"]),
        move_triples(&state["moveHistory"])
    );
    assert_eq!(replay["status"], "black_won");
    assert_eq!(replay["winner"], 1);
    assert_eq!(replay["endReason"], "five");
    assert_eq!(point_set(&replay["winLine"]), point_set(&state["winLine"]));
    // A fresh game has no moves and no result yet.
    let fresh = player.create_id(json!({})).await;
    let empty = player
        .get(&format!("/api/v1/games/{fresh}/replay"))
        .await
        .ok(200, "replay of an empty game");
    assert_eq!(empty["moves"], json!([]));
    assert_eq!(empty["status"], "playing");
    assert_eq!(empty["winLine"], Value::Null);
}

/// The export is a JSON attachment named after the game, with every field of the record,
/// `coord` in standard notation and RFC 3339 timestamps.
#[tokio::test]
async fn export_record_shape_and_notation() {
    let (_server, player, id) = new_game(json!({})).await;
    let state = player.play_all(&id, BLACK_FIVE).await;
    let reply = player.get(&format!("/api/v1/games/{id}/export")).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let content_type = reply.header("content-type").expect("content-type");
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    assert_eq!(
        reply.header("content-disposition").as_deref(),
        Some(format!("attachment; filename=\"gomoku-{id}.json\"").as_str())
    );
    let record = reply.body;
    assert_eq!(record["version"], "gomoku-1.0");
    assert_eq!(record["id"], json!(id));
    assert_eq!(record["rule"], "freestyle");
    assert_eq!(record["boardSize"], 15);
    assert_eq!(record["mode"], "local");
    assert_eq!(record["ai"], Value::Null);
    assert_eq!(
        move_triples(&record["moves"]),
        move_triples(&state["moveHistory"])
    );
    let coords: Vec<&str> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["coord"].as_str().expect("coord"))
        .collect();
    assert_eq!(
        coords,
        ["d8", "a15", "e8", "b15", "f8", "c15", "g8", "d15", "h8"]
    );
    let mut previous = None;
    for m in record["moves"].as_array().unwrap() {
        let at = rfc3339(&m["at"], "move at");
        if let Some(p) = previous {
            assert!(at >= p, "move times go forward");
        }
        previous = Some(at);
    }
    assert_eq!(record["result"]["status"], "black_won");
    assert_eq!(record["result"]["winner"], 1);
    assert_eq!(record["result"]["endReason"], "five");
    assert_eq!(
        point_set(&record["result"]["winLine"]),
        point_set(&state["winLine"])
    );
    let created = rfc3339(&record["createdAt"], "createdAt");
    let finished = rfc3339(&record["finishedAt"], "finishedAt");
    let exported = rfc3339(&record["exportedAt"], "exportedAt");
    assert!(created <= finished && finished <= exported);
    assert_eq!(player.game(&id).await, state, "export changed nothing");

    // An unfinished AI game on other board sizes: corners in notation, finishedAt null.
    for (size, corners) in [
        (9, [(8, 0, "a1"), (0, 8, "i9"), (4, 4, "e5")]),
        (19, [(18, 0, "a1"), (0, 18, "s19"), (9, 9, "j10")]),
    ] {
        let game = player.create_id(json!({"boardSize": size})).await;
        for &(r, c, _) in &corners {
            player.play(&game, r, c).await;
        }
        let record = player.export(&game).await;
        let coords: Vec<&str> = record["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["coord"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = corners.iter().map(|c| c.2).collect();
        assert_eq!(coords, expected, "{size}×{size}");
        assert_eq!(record["finishedAt"], Value::Null);
        assert_eq!(record["result"]["status"], "playing");
        assert_eq!(record["result"]["winner"], Value::Null);
    }
    let ai = player
        .create_id(json!({"mode": "ai", "ai": {"level": "medium", "player": 1}}))
        .await;
    let record = player.export(&ai).await;
    assert_eq!(record["mode"], "ai");
    assert_eq!(record["ai"], json!({"level": "medium", "player": 1}));
    assert_eq!(record["moves"].as_array().unwrap().len(), 1);
}

/// The fields of a state that an import must reproduce from the moves alone.
fn replayed_fields(state: &Value) -> Value {
    json!({
        "rule": state["rule"], "boardSize": state["boardSize"], "board": state["board"],
        "moveHistory": state["moveHistory"], "moveCount": state["moveCount"],
        "currentPlayer": state["currentPlayer"], "status": state["status"],
        "winner": state["winner"], "endReason": state["endReason"],
        "winLine": point_set_or_null(&state["winLine"]), "lastMove": state["lastMove"],
        "forbiddenMoves": state["forbiddenMoves"],
    })
}

fn point_set_or_null(v: &Value) -> Value {
    if v.is_null() {
        Value::Null
    } else {
        json!(point_set(v).into_iter().collect::<Vec<_>>())
    }
}

/// Importing an export gives a new local game equal in board, moves and result, and its replay
/// and export match the original's.
#[tokio::test]
async fn import_of_an_export_round_trips() {
    let (server, player) = server_and_player().await;
    let mut originals = Vec::new();
    let won = player.create_id(json!({})).await;
    originals.push(player.play_all(&won, BLACK_FIVE).await);
    let renju = player.create_id(json!({"rule": "renju"})).await;
    originals.push(player.play_all(&renju, RENJU_DOUBLE_FOUR).await);
    let standard = player.create_id(json!({"rule": "standard"})).await;
    originals.push(player.play_all(&standard, BLACK_SIX).await);
    let draw = player.create_id(json!({"boardSize": 9})).await;
    let mut last = Value::Null;
    for (r, c) in brick_fill(9) {
        last = player.play(&draw, r, c).await;
        if last["status"] != "playing" {
            break;
        }
    }
    originals.push(last);
    let ai = player
        .create(json!({"mode": "ai", "ai": {"level": "easy", "player": 1}}))
        .await;
    let ai_id = id_of(&ai);
    let (r, c) = first_empty_near(&board_of(&ai), 7, 7);
    originals.push(player.play(&ai_id, r, c).await);

    for original in &originals {
        let id = id_of(original);
        let record = player.export(&id).await;
        let imported = player.import(&record).await.ok(201, "import");
        assert_state_shape(&imported);
        assert_ne!(imported["id"], original["id"], "a new game");
        assert_eq!(imported["mode"], "local");
        assert_eq!(imported["ai"], Value::Null);
        assert_eq!(replayed_fields(&imported), replayed_fields(original));
        let new_id = id_of(&imported);
        assert_eq!(player.game(&new_id).await, imported);

        let replay_a = player
            .get(&format!("/api/v1/games/{id}/replay"))
            .await
            .ok(200, "replay");
        let replay_b = player
            .get(&format!("/api/v1/games/{new_id}/replay"))
            .await
            .ok(200, "replay");
        for field in ["boardSize", "rule", "moveCount", "status", "winner"] {
            assert_eq!(replay_a[field], replay_b[field], "replay {field}");
        }
        assert_eq!(
            move_triples(&replay_a["moves"]),
            move_triples(&replay_b["moves"])
        );
        assert_eq!(
            point_set_or_null(&replay_a["winLine"]),
            point_set_or_null(&replay_b["winLine"])
        );
        let again = player.export(&new_id).await;
        assert_eq!(
            move_triples(&again["moves"]),
            move_triples(&record["moves"])
        );
        let coords = |r: &Value| -> Vec<Value> {
            r["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["coord"].clone())
                .collect()
        };
        assert_eq!(coords(&again), coords(&record));
        assert_eq!(again["result"]["status"], record["result"]["status"]);
        assert_eq!(again["result"]["endReason"], record["result"]["endReason"]);
    }
    // The original games are untouched.
    assert_eq!(player.game(&won).await, originals[0]);
    // An imported game belongs to the importer alone.
    let record = player.export(&won).await;
    let other = Player::new(&server).await;
    let theirs = other
        .import(&record)
        .await
        .ok(201, "another player imports");
    player
        .get(&format!("/api/v1/games/{}", id_of(&theirs)))
        .await
        .assert_error(404, "GAME_NOT_FOUND", "someone else's import");
}

/// Import trusts only version, rule, boardSize and the moves: a minimal record is enough, and
/// a record whose result, coords and times lie is recomputed from its moves.
#[tokio::test]
async fn import_recomputes_everything_else() {
    let (_server, player) = server_and_player().await;
    let minimal = record("freestyle", 15, &[(7, 7), (7, 8)]);
    let state = player.import(&minimal).await.ok(201, "minimal record");
    assert_eq!(state["moveCount"], 2);
    assert_eq!(state["currentPlayer"], 1);

    let lying = json!({
        "version": "gomoku-1.0", "id": "someone-elses-id", "rule": "freestyle", "boardSize": 15,
        "mode": "ai", "ai": {"level": "hard", "player": 2},
        "moves": [
            {"row": 7, "col": 7, "player": 1, "coord": "a1", "at": "1999-01-01T00:00:00Z"},
            {"row": 7, "col": 8, "player": 2, "coord": "zz", "at": "not a time"},
        ],
        "result": {
            "status": "black_won", "winner": 1, "endReason": "five",
            "winLine": [{"row": 7, "col": 7}],
        },
        "createdAt": "2000-01-01T00:00:00Z", "finishedAt": "2000-01-01T00:00:00Z",
        "exportedAt": "2000-01-01T00:00:00Z",
    });
    let state = player
        .import(&lying)
        .await
        .ok(201, "record with untrusted fields");
    assert_state_shape(&state);
    assert_ne!(state["id"], "someone-elses-id");
    assert_eq!(state["mode"], "local");
    assert_eq!(state["ai"], Value::Null);
    assert_eq!(state["status"], "playing", "the result is recomputed");
    assert_eq!(state["winner"], Value::Null);
    assert_eq!(state["moveCount"], 2);
    let created = rfc3339(&state["createdAt"], "createdAt");
    assert!(
        created.year() > 2000,
        "createdAt is the import's, not the record's"
    );
}

/// Invalid records are 422 INVALID_RECORD, with `moveIndex` naming the move to blame, and
/// create nothing.
#[tokio::test]
async fn import_errors_name_the_move() {
    let (_server, player) = server_and_player().await;
    let won = player.create_id(json!({})).await;
    player.play_all(&won, BLACK_FIVE).await;
    let won_record = player.export(&won).await;
    let short = player.create_id(json!({})).await;
    player.play_all(&short, &[(7, 7), (7, 8), (8, 7)]).await;
    let base = player.export(&short).await;
    let games_before = count_games(&player).await;

    let edit = |f: &dyn Fn(&mut Value)| {
        let mut record = base.clone();
        f(&mut record);
        record
    };
    let mut cases: Vec<(&str, Value, Option<u64>)> = vec![
        (
            "unknown version",
            edit(&|r| r["version"] = json!("gomoku-2.0")),
            None,
        ),
        ("board size 8", edit(&|r| r["boardSize"] = json!(8)), None),
        ("board size 20", edit(&|r| r["boardSize"] = json!(20)), None),
        ("unknown rule", edit(&|r| r["rule"] = json!("go")), None),
        (
            "occupied",
            edit(&|r| {
                r["moves"][2]["row"] = json!(7);
                r["moves"][2]["col"] = json!(7);
            }),
            Some(2),
        ),
    ];
    // One field of one move: (what, move index, field, value).
    for (what, i, field, value) in [
        ("row out of range", 1, "row", 15),
        ("col out of range", 2, "col", 15),
        ("white first", 0, "player", 2),
        ("black twice", 1, "player", 1),
        ("player 3", 2, "player", 3),
    ] {
        let record = edit(&|r| r["moves"][i][field] = json!(value));
        cases.push((what, record, Some(i as u64)));
    }
    let mut after_end = won_record.clone();
    after_end["moves"].as_array_mut().unwrap().push(
        json!({"row": 12, "col": 12, "player": 2, "coord": "m3", "at": won_record["exportedAt"]}),
    );
    cases.push(("move after the five", after_end, Some(9)));
    let double_three = [RENJU_DOUBLE_THREE, &[(7, 7)]].concat();
    cases.push((
        "forbidden double three",
        record("renju", 15, &double_three),
        Some(8),
    ));
    // The same moves are fine in freestyle.
    let mut free = cases.last().unwrap().1.clone();
    free["rule"] = json!("freestyle");
    player
        .import(&free)
        .await
        .ok(201, "the same moves in freestyle");
    let games_before = games_before + 1;

    for (what, record, index) in &cases {
        let reply = player.import(record).await;
        reply.assert_error(422, "INVALID_RECORD", what);
        if let Some(index) = index {
            assert_eq!(
                reply.body["error"]["moveIndex"].as_u64(),
                Some(*index),
                "{what}: moveIndex in {}",
                reply.text
            );
        }
    }
    let malformed = player
        .post_raw("/api/v1/games/import", JSON, b"{\"version\": ")
        .await;
    malformed.assert_error(400, "INVALID_JSON", "malformed record");
    assert_eq!(
        count_games(&player).await,
        games_before,
        "invalid records created games"
    );
}
