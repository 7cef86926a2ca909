//! The abuse paths and operations of the hardening issue, against the real binary: hints are
//! rate-limited, the AI searches at most once per move request, undo respects the cap on
//! unfinished games, an in-memory database works, `backup` leaves its source untouched and
//! refuses mistakes with exit code 2, and a database written by the first schema migrates on
//! start with every game intact. Request bodies (issue 23): unknown fields are refused as the
//! description says, numbers out of range are validation errors, and names cannot hide or spoof.

use std::path::{Path, PathBuf};
use std::process::Output;

use gomoku_testkit::lines::BLACK_FIVE;
use gomoku_testkit::live::WAIT;
use gomoku_testkit::stored::{insert_moves, older_schema, Stored};
use gomoku_testkit::{
    eventually, gomoku_server, Api, Database, Player, Reply, Server, NO_RATE_LIMIT,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use sqlx::{Connection, SqliteConnection};
use tokio::task::JoinHandle;

/// A hint flood: past the hint bucket's burst, 429 RATE_LIMITED with a Retry-After of whole
/// seconds and no search; another player's hints and the same player's moves are not held up.
#[tokio::test]
async fn hint_flood_is_rate_limited() {
    let server = gomoku_server!()
        .args(["--hints-per-minute", "2", "--hint-burst", "3"])
        .start();
    let alice = Player::new(&server).await;
    let bob = Player::new(&server).await;
    let game = alice.create_id(json!({})).await;
    alice.play(&game, 7, 7).await;
    for _ in 0..3 {
        alice
            .get(&format!("/api/v1/games/{game}/hint"))
            .await
            .ok(200, "a hint within the burst");
    }
    alice
        .get(&format!("/api/v1/games/{game}/hint"))
        .await
        .assert_rate_limited("a hint past the burst");

    alice.play(&game, 7, 8).await;
    let bobs = bob.create_id(json!({})).await;
    bob.get(&format!("/api/v1/games/{bobs}/hint"))
        .await
        .ok(200, "another player's hint");
}

/// Lines of the server log that record `what` ("ai queued", "ai search") for the request with
/// this id.
fn logged_for(server: &Server, what: &str, request_id: &str) -> usize {
    server.log_lines_with(&[what, &format!("request_id={request_id}")])
}

/// Sends black's move at (9,9) to `game` in the background, with this request id.
fn move_in_background(player: &Player, game: &str, request_id: &'static str) -> JoinHandle<Reply> {
    let (player, game) = (player.clone(), game.to_string());
    tokio::spawn(async move {
        player
            .send(
                player
                    .request(
                        reqwest::Method::POST,
                        &format!("/api/v1/games/{game}/moves"),
                    )
                    .header("x-request-id", request_id)
                    .json(&json!({"row": 9, "col": 9})),
            )
            .await
    })
}

/// A move request searches for the AI's reply once, however the game changes meanwhile. Here the
/// one AI slot is held by another game's search while a move (without `ply`) waits for it, and
/// an undo changes the game before that move's search is done: the move is answered 409
/// GAME_CHANGED after one search, not searched again for the new position, and nothing of it
/// is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ai_searches_once_per_move_request() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--ai-concurrency", "1", "--ai-master-ms", "1500"])
        .env("RUST_LOG", "warn,gomoku::http=info,gomoku::ai=debug")
        .capture_log()
        .start();
    let player = Player::new(&server).await;
    let ai = json!({"mode": "ai", "ai": {"level": "master", "player": 2}});
    let game = player.create_id(ai.clone()).await;
    let state = player.play(&game, 7, 7).await;
    assert_eq!(state["moveCount"], 2, "the AI replied");
    let hog = player.create_id(ai).await;

    let hogging = move_in_background(&player, &hog, "the-hog");
    eventually("the hog's search holds the slot", WAIT, async || {
        logged_for(&server, "ai search", "the-hog") == 1
    })
    .await;
    let request_id = "the-move-that-waits";
    let waiting = move_in_background(&player, &game, request_id);
    eventually("the move waits in the AI queue", WAIT, async || {
        logged_for(&server, "ai queued", request_id) == 1
    })
    .await;
    let undone = player
        .undo(&game)
        .await
        .ok(200, "undo while the move waits for the AI");
    assert_eq!(undone["moveCount"], 0);

    let answer: Reply = waiting.await.unwrap();
    answer.assert_error(409, "GAME_CHANGED", "the move whose game changed");
    hogging.await.unwrap().ok(200, "the hog's move");
    assert_eq!(
        logged_for(&server, "ai search", request_id),
        1,
        "one search for one request"
    );
    assert_eq!(
        player.game(&game).await,
        undone,
        "nothing of the move stored"
    );
}

/// Undo that would reopen a finished game counts against the cap on unfinished games: 409
/// TOO_MANY_GAMES while the player has as many games in play as allowed, and the game stays as
/// it was; once a game is resigned, the same undo reopens it.
#[tokio::test]
async fn undo_reopening_a_game_respects_the_cap() {
    let server = gomoku_server!()
        .args(["--max-unfinished-games", "1"])
        .start();
    let player = Player::new(&server).await;
    let won = player.create_id(json!({})).await;
    let finished = player.play_all(&won, BLACK_FIVE).await;
    assert_eq!(finished["status"], "black_won");
    let open = player.create_id(json!({})).await;

    player
        .undo(&won)
        .await
        .assert_error(409, "TOO_MANY_GAMES", "undo past the cap");
    assert_eq!(
        player.game(&won).await,
        finished,
        "the finished game is unchanged"
    );

    player.resign(&open).await.ok(200, "resign the open game");
    let reopened = player.undo(&won).await.ok(200, "undo under the cap");
    assert_eq!(reopened["status"], "playing");
    assert_eq!(reopened["currentPlayer"], 1);
    player.post("/api/v1/games", &json!({})).await.assert_error(
        409,
        "TOO_MANY_GAMES",
        "the reopened game counts",
    );
}

/// `sqlite::memory:` works for a quick trial: several players play at once, and every
/// acknowledged move is there to read and list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_database_works() {
    let server = gomoku_server!()
        .database(&Database::sqlite_in_memory())
        .args(NO_RATE_LIMIT)
        .start();
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let player = Player::new(&server).await;
        tasks.push(tokio::spawn(async move {
            let id = player.create_id(json!({"rule": "standard"})).await;
            let last = player.play_all(&id, BLACK_FIVE).await;
            (player, id, last)
        }));
    }
    for task in tasks {
        let (player, id, last) = task.await.unwrap();
        assert_eq!(last["status"], "black_won");
        assert_eq!(player.game(&id).await, last);
        let listed = player.list_all(None, 10).await;
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0]["moveCount"], 9);
    }
}

/// The first schema's migration, as shipped.
const FIRST_MIGRATION: &str = "20261130000000_initial.sql";

/// A database written by the first schema in `dir`, as a server of that version left it (WAL
/// mode, migrations table included): a player with a session, a game in play (three moves, white
/// to move), a won game and a resigned one. Returns its path and the session's token.
async fn first_schema_database(dir: &Path) -> (PathBuf, String) {
    let path = dir.join("old.db");
    let token = "ab".repeat(32);
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
    let mut db = older_schema(&path, &shipped, |name| name == FIRST_MIGRATION).await;
    let at = "2026-11-01T10:00:00.000000Z";
    let hash = Sha256::digest(token.as_bytes()).to_vec();
    let win_line = "[[7,3],[7,4],[7,5],[7,6],[7,7]]";
    let script: Vec<(&str, Vec<&str>)> = vec![
        ("insert into players (id, created_at) values ('p1', ?)", vec![at]),
        (
            "insert into games (id, player_id, mode, rule, board_size, status, move_count, version, \
             created_at, updated_at) values ('g-playing', 'p1', 'local', 'freestyle', 15, 'playing', \
             3, 3, ?, '2026-11-01T10:00:03.000000Z')",
            vec![at],
        ),
        (
            "insert into games (id, player_id, mode, rule, board_size, status, end_reason, win_line, \
             move_count, version, created_at, updated_at, finished_at) values ('g-won', 'p1', \
             'local', 'standard', 15, 'black_won', 'five', ?, 9, 9, ?, \
             '2026-11-01T10:00:02.000000Z', '2026-11-01T10:00:02.000000Z')",
            vec![win_line, at],
        ),
        (
            "insert into games (id, player_id, mode, rule, board_size, ai_level, ai_player, status, \
             end_reason, resigned_by, move_count, version, created_at, updated_at, finished_at) \
             values ('g-resigned', 'p1', 'ai', 'renju', 15, 'hard', 2, 'white_won', 'resign', 1, \
             2, 3, ?, '2026-11-01T10:00:01.000000Z', '2026-11-01T10:00:01.000000Z')",
            vec![at],
        ),
    ];
    for (sql, binds) in script {
        let mut query = sqlx::query(sql);
        for value in binds {
            query = query.bind(value);
        }
        query.execute(&mut db).await.unwrap();
    }
    sqlx::query("insert into sessions (token_hash, player_id, created_at) values (?, 'p1', ?)")
        .bind(hash)
        .bind(at)
        .execute(&mut db)
        .await
        .unwrap();
    let moves: [(&str, &[(i64, i64)]); 3] = [
        ("g-playing", &[(7, 7), (7, 8), (8, 8)]),
        ("g-won", BLACK_FIVE),
        ("g-resigned", &[(7, 7), (6, 6)]),
    ];
    for (game, points) in moves {
        insert_moves(&mut db, game, points, at).await;
    }
    db.close().await.unwrap();
    (path, token)
}

/// What a player of the first-schema database must find after the migration.
async fn assert_first_schema_games(server: &Server, token: &str) {
    let player = Api::on(server).player(token);
    let listed = player.list_all(None, 10).await;
    let ids: Vec<&str> = listed.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["g-playing", "g-won", "g-resigned"],
        "newest activity first"
    );
    assert_eq!(
        listed[0]["currentPlayer"], 2,
        "white to move after three moves"
    );
    assert_eq!(listed[1]["status"], "black_won");
    assert_eq!(listed[1]["endReason"], "five");
    assert_eq!(listed[1]["winner"], 1);
    assert_eq!(listed[1]["currentPlayer"], Value::Null);
    assert_eq!(listed[2]["status"], "white_won");
    assert_eq!(listed[2]["endReason"], "resign");
    assert_eq!(listed[2]["ai"], json!({"level": "hard", "player": 2}));

    let won = player.game("g-won").await;
    assert_eq!(won["moveCount"], 9);
    assert_eq!(won["winLine"].as_array().unwrap().len(), 5);
    let playing = player.game("g-playing").await;
    assert_eq!(playing["board"][8][8], 1);
    for (summary, id) in listed.iter().zip(["g-playing", "g-won", "g-resigned"]) {
        let state = player.game(id).await;
        for field in [
            "status",
            "winner",
            "endReason",
            "currentPlayer",
            "moveCount",
        ] {
            assert_eq!(summary[field], state[field], "{id}: {field} listed as read");
        }
    }
    let next = player.play("g-playing", 0, 0).await;
    assert_eq!(next["moveCount"], 4, "play goes on");
}

/// A database written by the first schema is migrated when a server starts on it: the session
/// still works, and every game is there with its moves, result and side to move.
#[tokio::test]
async fn first_schema_database_migrates_with_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let (path, token) = first_schema_database(dir.path()).await;
    let server = gomoku_server!()
        .database(&Database::sqlite_file(&path))
        .start();
    assert_first_schema_games(&server, &token).await;
}

/// Runs `gomoku-server backup <target>` on `database`.
fn backup(database: &Database, target: &Path) -> Output {
    gomoku_server!()
        .binary()
        .backup(database, target)
        .output()
        .expect("run gomoku-server backup")
}

fn sha256_of(path: &Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).expect("read file")).to_vec()
}

/// The files in a folder, by name.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A backup of a database at the first schema leaves the source byte for byte as it was and
/// migrates nothing: the copy still has the first schema, and a server started on the copy
/// migrates it and finds every game.
#[tokio::test]
async fn backup_leaves_an_older_database_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let (source, token) = first_schema_database(dir.path()).await;
    let before = sha256_of(&source);
    let copies = tempfile::tempdir().unwrap();
    let copy = copies.path().join("copy.db");

    let output = backup(&Database::sqlite_file(&source), &copy);
    assert!(
        output.status.success(),
        "backup failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(sha256_of(&source), before, "the source is unchanged");
    // With no server on it, SQLite reads a WAL database by making its companion files; the log
    // stays empty (nothing was written).
    let wal = dir.path().join("old.db-wal");
    assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0);

    let mut db = SqliteConnection::connect(&format!("sqlite://{}?mode=ro", copy.display()))
        .await
        .unwrap();
    let applied: Vec<i64> = sqlx::query_scalar("select version from _sqlx_migrations")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(applied, [20261130000000], "the copy is not migrated");
    db.close().await.unwrap();

    let server = gomoku_server!()
        .database(&Database::sqlite_file(&copy))
        .start();
    assert_first_schema_games(&server, &token).await;
}

/// Mistakes on the command line exit with code 2 and say what is wrong, creating nothing: a
/// mistyped database path, a target that exists (left as it was), an in-memory database.
#[test]
fn backup_mistakes_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gomku.db");
    let target = dir.path().join("copy.db");
    let output = backup(&Database::sqlite_file(&missing), &target);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no database file") && stderr.contains("gomku.db"),
        "{stderr}"
    );
    assert!(files_in(dir.path()).is_empty(), "nothing created");

    let existing: PathBuf = dir.path().join("there.db");
    std::fs::write(&existing, b"keep me").unwrap();
    let source = dir.path().join("source.db");
    std::fs::write(&source, b"").unwrap();
    let output = backup(&Database::sqlite_file(&source), &existing);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("already exists"));
    assert_eq!(std::fs::read(&existing).unwrap(), b"keep me");

    let output = backup(&Database::sqlite_in_memory(), &target);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("in-memory"));
    assert!(!target.exists());
}

/// A PostgreSQL database is backed up with PostgreSQL's own tools: `backup` says so, naming
/// pg_dump and not the URL's password, with exit code 2, connecting to nothing and creating
/// nothing.
#[test]
fn backup_of_postgres_names_pg_dump() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("copy.db");
    let output = gomoku_server!()
        .binary()
        .command()
        .arg("backup")
        .arg(&target)
        .args([
            "--database-url",
            "postgres://gomoku:secret@127.0.0.1:1/gomoku",
        ])
        .output()
        .expect("run gomoku-server backup");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("pg_dump"), "{stderr}");
    assert!(!stderr.contains("secret"), "{stderr}");
    assert!(files_in(dir.path()).is_empty(), "nothing created");
}

/// The request body schema of an operation in the served description, with `$ref`s resolved.
fn request_schema<'a>(doc: &'a Value, path: &str, method: &str) -> &'a Value {
    let schema =
        &doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"];
    assert!(!schema.is_null(), "{method} {path} has a request body");
    resolve(doc, schema)
}

fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap();
            resolve(doc, &doc["components"]["schemas"][name])
        }
        None => schema,
    }
}

/// How many players and sessions are stored.
async fn people_and_sessions(stored: &mut Stored) -> (i64, i64) {
    (
        stored.count("players").await,
        stored.count("sessions").await,
    )
}

/// Whether a schema (every alternative of a `oneOf`, and every object inside it) says
/// `additionalProperties: false`.
fn closed(doc: &Value, schema: &Value) -> bool {
    let schema = resolve(doc, schema);
    if let Some(alternatives) = schema["oneOf"].as_array() {
        return alternatives.iter().all(|s| closed(doc, s));
    }
    if schema.get("properties").is_none() {
        return true;
    }
    schema["additionalProperties"] == json!(false)
        && schema["properties"]
            .as_object()
            .unwrap()
            .values()
            .all(|p| closed(doc, p))
}

/// Unknown fields in a request body are refused where the description says
/// `additionalProperties: false`, and the description says it of every body but a game record's:
/// each body below with an extra field (at the top or inside) is 400 INVALID_JSON and stores
/// nothing. A record to import may carry fields the import does not read (an exported record
/// does), and the description leaves it open.
#[tokio::test]
async fn unknown_fields_are_refused_as_described() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let api = Api::on(&server);
    let doc = api.get("/api/v1/openapi.json").await.ok(200, "openapi");
    let alice = Player::new(&server).await;
    alice.rename("小明").await.ok(200, "rename");
    let game = alice.create_id(json!({})).await;
    let state = alice.play(&game, 7, 7).await;
    let moves = format!("/api/v1/games/{game}/moves");
    let mut stored = Stored::open(server.database()).await;
    let before = stored.dump().await;
    let people = people_and_sessions(&mut stored).await;

    let table: Vec<(reqwest::Method, &str, &str, Value)> = vec![
        (
            reqwest::Method::POST,
            "/api/v1/sessions",
            "/api/v1/sessions",
            json!({"admin": true}),
        ),
        (
            reqwest::Method::POST,
            "/api/v1/sessions",
            "/api/v1/sessions",
            json!({"previousToken": alice.token, "playerId": "someone"}),
        ),
        (
            reqwest::Method::POST,
            "/api/v1/games",
            "/api/v1/games",
            json!({"admin": true}),
        ),
        (
            reqwest::Method::POST,
            "/api/v1/games",
            "/api/v1/games",
            json!({"mode": "ai", "ai": {"level": "easy", "player": 2, "depth": 99}}),
        ),
        (
            reqwest::Method::POST,
            "/api/v1/games",
            "/api/v1/games",
            json!({"mode": "online", "timeControl": {"initialMs": 60000, "incrementMs": 0, "bonusMs": 1}}),
        ),
        (
            reqwest::Method::POST,
            "/api/v1/games/{id}/moves",
            &moves,
            json!({"row": 7, "col": 8, "ply": 1, "player": 2}),
        ),
        (
            reqwest::Method::PUT,
            "/api/v1/me",
            "/api/v1/me",
            json!({"name": "x", "admin": true}),
        ),
        (
            reqwest::Method::PATCH,
            "/api/v1/me",
            "/api/v1/me",
            json!({"name": "x", "playerId": "p"}),
        ),
    ];
    for (method, described, path, body) in table {
        let what = format!("{method} {path} {body}");
        let schema = request_schema(&doc, described, &method.as_str().to_lowercase());
        assert!(
            closed(&doc, schema),
            "{what}: described as closed: {schema}"
        );
        let request = if path == "/api/v1/sessions" {
            api.request(method, path).json(&body)
        } else {
            alice.request(method, path).json(&body)
        };
        api.send(request)
            .await
            .assert_error(400, "INVALID_JSON", &what);
        assert_eq!(stored.dump().await, before, "{what} changed stored games");
        assert_eq!(
            people_and_sessions(&mut stored).await,
            people,
            "{what} changed players or sessions"
        );
    }
    assert_eq!(alice.me().await["name"], "小明");
    assert_eq!(alice.game(&game).await, state);

    let import = request_schema(&doc, "/api/v1/games/import", "post");
    assert_ne!(
        import["additionalProperties"],
        json!(false),
        "records stay open"
    );
    let mut record = alice.export(&game).await;
    record["comment"] = json!("from a later version");
    record["moves"][0]["thinkingMs"] = json!(1200);
    let imported = alice
        .import(&record)
        .await
        .ok(201, "a record with extra fields");
    assert_eq!(imported["moveHistory"], state["moveHistory"]);
}

/// Numbers out of their described range are validation errors, never conflicts, and store
/// nothing: a negative `ply` is 400 INVALID_JSON (not 409 PLY_MISMATCH), a negative row or column
/// 422 OUT_OF_BOUNDS, a board size, time control or AI colour out of range 422 INVALID_SETTINGS.
#[tokio::test]
async fn out_of_range_numbers_are_validation_errors() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let alice = Player::new(&server).await;
    let game = alice.create_id(json!({})).await;
    let state = alice.play(&game, 7, 7).await;
    let mut stored = Stored::open(server.database()).await;
    let before = stored.dump().await;
    for (body, status, code) in [
        (json!({"row": 7, "col": 8, "ply": -1}), 400, "INVALID_JSON"),
        (
            json!({"row": 7, "col": 8, "ply": -1.0}),
            400,
            "INVALID_JSON",
        ),
        (
            json!({"row": 7, "col": 8, "ply": -9e18}),
            400,
            "INVALID_JSON",
        ),
        (json!({"row": -1, "col": 8, "ply": 1}), 422, "OUT_OF_BOUNDS"),
        (json!({"row": 7, "col": -1}), 422, "OUT_OF_BOUNDS"),
        (json!({"row": 7, "col": 15, "ply": 1}), 422, "OUT_OF_BOUNDS"),
    ] {
        alice.move_body(&game, body.clone()).await.assert_error(
            status,
            code,
            &format!("move {body}"),
        );
    }
    for body in [
        json!({"boardSize": -1}),
        json!({"boardSize": 0}),
        json!({"boardSize": 8}),
        json!({"boardSize": 20}),
        json!({"mode": "ai", "ai": {"level": "easy", "player": -1}}),
        json!({"mode": "ai", "ai": {"level": "easy", "player": 3}}),
        json!({"mode": "online", "timeControl": {"initialMs": -1, "incrementMs": 0}}),
        json!({"mode": "online", "timeControl": {"initialMs": 999, "incrementMs": 0}}),
        json!({"mode": "online", "timeControl": {"initialMs": 60000, "incrementMs": -5}}),
        json!({"mode": "online", "timeControl": {"initialMs": 60000, "incrementMs": 60001}}),
    ] {
        alice.post("/api/v1/games", &body).await.assert_error(
            422,
            "INVALID_SETTINGS",
            &format!("create {body}"),
        );
    }
    assert_eq!(stored.dump().await, before, "nothing stored");
    assert_eq!(alice.game(&game).await, state);
}

/// Names cannot hide or spoof, through `PUT /me`: every name below is 422 INVALID_NAME and the
/// stored name stays; a decomposed accent is stored composed (NFC), CJK and emoji pass.
#[tokio::test]
async fn names_cannot_hide_or_spoof() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let alice = Player::new(&server).await;
    alice.rename("小明").await.ok(200, "a CJK name");
    for bad in [
        "",
        "\u{200B}\u{200D}",
        "\u{3164}",
        "ab\u{202E}cd",
        "\u{2066}ab\u{2069}",
        "admin\u{200B}",
        "a\u{200D}b",
        "\u{FEFF}小明",
        "a\u{2028}b",
        "a\u{2029}b",
        "a\u{AD}b",
        "\u{301}ab",
        "❤\u{FE0F}\u{FE0F}",
        "一二三四五六七八九十一二三四五六七",
    ] {
        alice
            .rename(bad)
            .await
            .assert_error(422, "INVALID_NAME", &format!("{bad:?}"));
        assert_eq!(alice.me().await["name"], "小明", "{bad:?} changed nothing");
    }
    let composed = alice
        .rename("Jose\u{301}")
        .await
        .ok(200, "a combining accent");
    assert_eq!(composed["name"], "José");
    assert_eq!(alice.me().await["name"], "José");
    for good in ["😀", "❤\u{FE0F}", "👍🏽 小明", "김민준"] {
        let renamed = alice.rename(good).await.ok(200, good);
        assert_eq!(renamed["name"], good);
        assert_eq!(alice.me().await["name"], good);
    }
}
