//! Issue 5, faults, access and operations: races for one ply, retried moves, SIGKILL in the middle
//! of sustained writes, graceful shutdown, a busy database, who may see which game, the write
//! limits, CORS, the online backup, request ids and token-free logs.
//!
//! Every test starts the real `gomoku-server` (through `gomoku-testkit`) on a SQLite file of its
//! own. Where a test checks what is stored, it reads that file directly with sqlx (the `moves`
//! table) as well as the served `moveHistory`, so a server that answers well but stores badly is
//! caught. The bad-input half of the issue (hostile requests, judge and importer fuzzing) is in
//! `reliability_fuzz.rs`; larger runs of the same ideas are in the `gomoku-stress` tool.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use gomoku_testkit::crash::CrashRun;
use gomoku_testkit::lines::{record, BLACK_FIVE};
use gomoku_testkit::live::WAIT;
use gomoku_testkit::state::{assert_state_consistent, id_of, moves_of};
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{
    assert_all_unauthorized, clock_seed, eventually, game_endpoints, gomoku_server, one_landed,
    race, Api, Database, Endpoint, Player, Reply, Server, NO_RATE_LIMIT,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::Method;
use serde_json::{json, Value};
use tokio::task::JoinHandle;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// The seed for a test's random choices: RELIABILITY_SEED if set, else from the clock (printed).
fn seed() -> u64 {
    let seed = std::env::var("RELIABILITY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(clock_seed);
    eprintln!("random seed {seed} (set RELIABILITY_SEED to repeat)");
    seed
}

/// Asserts that every one of `answers` is 200 and tells a game that starts with black at (7,7).
fn all_answered_with_the_move(answers: &[Reply], what: &str) {
    for reply in answers {
        assert_eq!(reply.status, 200, "{what}: {}", reply.text);
        assert_eq!(
            reply.body["moveHistory"][0],
            json!({"row": 7, "col": 7, "player": 1}),
            "{what}: {}",
            reply.text
        );
    }
}

/// What the servers of the tests that need an AI move in flight log: each request's id (its
/// span) and each AI search as it starts, which [`in_flight`] waits for.
const LOG_SEARCHES: &str = "warn,gomoku::http=info,gomoku::ai=debug";

/// Sends black's first move, (7,7), to an AI game in the background (as request `request_id`)
/// and waits until the server has started the AI's search for it; fails if it was answered by
/// then, since the test needs a request in flight (the master AI still thinking). The server
/// must capture its log at [`LOG_SEARCHES`].
async fn in_flight(
    server: &Server,
    player: &Player,
    id: &str,
    request_id: &'static str,
) -> JoinHandle<Reply> {
    let (player, id) = (player.clone(), id.to_string());
    let task = tokio::spawn(async move {
        let request = player
            .request(Method::POST, &format!("/api/v1/games/{id}/moves"))
            .header("x-request-id", request_id)
            .json(&json!({"row": 7, "col": 7, "ply": 0}));
        player.send(request).await
    });
    let tag = format!("request_id={request_id}");
    eventually("the AI's search for the move started", WAIT, async || {
        server.log_lines_with(&["ai search", &tag]) == 1
    })
    .await;
    assert!(
        !task.is_finished(),
        "the master AI answered as soon as it started; the test needs it thinking"
    );
    task
}

/// Waits (30 s at most) for a first move sent to an AI game in the background; asserts it was
/// answered 200 with the AI's reply in it. The answer.
async fn assert_ai_replied(task: JoinHandle<Reply>, what: &str) -> Value {
    let reply = tokio::time::timeout(Duration::from_secs(30), task)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within 30 s"))
        .unwrap();
    assert_eq!(reply.status, 200, "{what}: {}", reply.text);
    assert_eq!(
        reply.body["moveCount"],
        json!(2),
        "{what}: the AI's reply is in the answer: {}",
        reply.text
    );
    reply.body
}

/// A server without the write limit, allowing each player `games` unfinished games.
fn server_allowing(games: &str) -> Server {
    gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--max-unfinished-games", games])
        .start()
}

/// Two new players on `server`, sharing one client.
async fn two_players(server: &Server) -> (Player, Player) {
    let api = Api::on(server);
    (api.new_player().await, api.new_player().await)
}

/// A game's served state, checked to be consistent and to be what is stored.
async fn served_and_stored(server: &Server, player: &Player, id: &str) -> Value {
    let state = player.game(id).await;
    assert_state_consistent(&state);
    let mut stored = Stored::open(server.database()).await;
    stored.assert_game(&state).await;
    state
}

/// Creates `n` local games one after another; their ids.
async fn create_games(player: &Player, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..n {
        ids.push(player.create_id(json!({"mode": "local"})).await);
    }
    ids
}

/// Settings of an AI game where the AI plays white at the master level.
fn master_ai() -> Value {
    json!({"mode": "ai", "ai": {"level": "master", "player": 2}})
}

// ---------------------------------------------------------------------------------------------
// Faults and races
// ---------------------------------------------------------------------------------------------

/// 32 concurrent moves for the same ply on different cells (at ply 0 and again at ply 3): exactly
/// one lands, the other 31 get 409 PLY_MISMATCH; the stored moves run contiguously from ply 0 and
/// the served board is those moves replayed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn same_ply_race_on_different_cells_lands_exactly_one() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let player = Player::new(&server).await;
    let settings = json!({"mode": "local", "rule": "freestyle", "boardSize": 15});
    let id = player.create_id(settings).await;

    // The first race at ply 0 in columns 3..=6; two more moves; the second race at ply 3 in
    // columns 8..=11, so no racer there finds its cell taken by the first race's winner.
    for (ply, first_col, setup) in [(0, 3, vec![]), (3, 8, vec![(0, 0), (0, 14)])] {
        for (i, (row, col)) in setup.into_iter().enumerate() {
            player.play_at(&id, row, col, 1 + i as i64).await;
        }
        // 32 distinct cells: rows 3..=10, four columns from `first_col`.
        let bodies = (0..32)
            .map(|i| json!({"row": 3 + i / 4, "col": first_col + i % 4, "ply": ply}))
            .collect();
        let answers = race(&player, &id, bodies).await;
        let won = one_landed(&answers, "PLY_MISMATCH", &format!("ply {ply}"));
        assert_eq!(won.body["moveCount"], json!(ply + 1));
    }

    let state = served_and_stored(&server, &player, &id).await;
    assert_eq!(state["moveCount"], json!(4));
}

/// 32 concurrent moves on the same cell without a `ply`: the first lands, the other 31 find the
/// cell taken (409 CELL_OCCUPIED), and exactly one move is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn same_cell_race_without_ply_lands_once() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let player = Player::new(&server).await;
    let id = player.create_id(json!({"mode": "local"})).await;

    let answers = race(&player, &id, vec![json!({"row": 7, "col": 7}); 32]).await;
    one_landed(&answers, "CELL_OCCUPIED", "32 identical moves");
    let state = served_and_stored(&server, &player, &id).await;
    assert_eq!(moves_of(&state), vec![(7, 7, 1)]);
}

/// A move retried with the same `ply` never lands twice: 32 copies of one move sent at once (so
/// most retries arrive while the first is in flight) all answer 200 with that one move stored; a
/// late retry after the opponent replied still answers 200 without applying anything; a
/// different cell at that old ply (the opponent's among them), or a ply ahead of the game, is a
/// PLY_MISMATCH; the retry of a winning move answers the won game, and a ply after it is
/// GAME_OVER. The same holds in AI mode, where the answer
/// already carries the AI's reply, also for a retry sent while a master-level search for the
/// first request is surely still running.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn retried_move_with_same_ply_never_lands_twice() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--ai-master-ms", "2000", "--request-timeout-ms", "60000"])
        .env("RUST_LOG", LOG_SEARCHES)
        .capture_log()
        .start();
    let player = Player::new(&server).await;
    let id = player.create_id(json!({"mode": "local"})).await;

    let retries = vec![json!({"row": 7, "col": 7, "ply": 0}); 32];
    let answers = race(&player, &id, retries).await;
    all_answered_with_the_move(&answers, "a retry of the same move at the same ply");
    player.play_at(&id, 7, 8, 1).await;
    let late = player.play_at(&id, 7, 7, 0).await;
    assert_eq!(
        late["moveCount"],
        json!(2),
        "a late retry applies nothing: {late}"
    );
    for (row, col, ply, what) in [
        (3, 3, 0, "another cell at an old ply"),
        (7, 8, 0, "white's stone claimed as black's old ply"),
        (3, 3, 3, "a ply ahead of the game"),
        (3, 3, 99, "a ply far ahead"),
    ] {
        player
            .try_move_at(&id, row, col, ply)
            .await
            .assert_error(409, "PLY_MISMATCH", what);
    }

    let state = player.game(&id).await;
    assert_eq!(moves_of(&state), vec![(7, 7, 1), (7, 8, 2)]);
    let mut stored = Stored::open(server.database()).await;
    stored.assert_game(&state).await;

    // The retry of a winning move is a retry still, not a move after the end.
    let won = player.create_id(json!({"mode": "local"})).await;
    let last = player.play_all(&won, BLACK_FIVE).await;
    assert_eq!(last["status"], "black_won");
    let (row, col) = BLACK_FIVE[BLACK_FIVE.len() - 1];
    let ply = BLACK_FIVE.len() as i64 - 1;
    assert_eq!(player.play_at(&won, row, col, ply).await, last);
    player.try_move_at(&won, 9, 9, ply + 1).await.assert_error(
        409,
        "GAME_OVER",
        "a ply after the end",
    );
    player.assert_same(&won, &last, "a ply after the end").await;

    // AI mode: the human plays black; retries of its first move while the AI may be thinking.
    let medium = json!({"mode": "ai", "ai": {"level": "medium", "player": 2}});
    let ai_id = player.create_id(medium).await;
    let retries = vec![json!({"row": 7, "col": 7, "ply": 0}); 8];
    let answers = race(&player, &ai_id, retries).await;
    all_answered_with_the_move(&answers, "AI game retry");
    let state = player.game(&ai_id).await;
    assert_eq!(
        state["moveCount"],
        json!(2),
        "the human move once and the AI's reply once: {state}"
    );
    assert_state_consistent(&state);
    stored.assert_game(&state).await;

    // A retry that surely arrives while the first request is in flight: the master AI thinks
    // for its whole 2 s budget, and the retry goes once its search has started. Both answers
    // carry the same two moves, and two moves are stored.
    let slow_id = player.create_id(master_ai()).await;
    let first = in_flight(&server, &player, &slow_id, "the-first-of-a-retry").await;
    let retry = player.try_move_at(&slow_id, 7, 7, 0).await;
    let first = assert_ai_replied(first, "the first request").await;
    assert_eq!(
        retry.status, 200,
        "a retry while the first is in flight: {}",
        retry.text
    );
    assert_eq!(
        retry.body["moveHistory"], first["moveHistory"],
        "both answers tell the same game"
    );
    let state = player.game(&slow_id).await;
    assert_eq!(
        state["moveCount"],
        json!(2),
        "the move and the AI's reply, once each"
    );
    stored.assert_game(&state).await;
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
    let mut rng = StdRng::seed_from_u64(seed());
    let mut server = server_allowing("100000");
    // The test's client is strict: the crash run's first violation fails the test.
    let mut crashes = CrashRun::new(&Api::on(&server), CLIENTS, &[9, 15]).await;
    let mut total_acked = 0;
    for round in 0..ROUNDS {
        let kill_after = Duration::from_millis(rng.gen_range(300..1500));
        let figures = crashes
            .round(&mut server, kill_after, &mut rng, round)
            .await;
        assert!(
            figures.acked > 0,
            "round {round}: no write was acknowledged before the kill"
        );
        assert!(figures.integrity_ok && figures.lost == 0, "{figures:?}");
        total_acked += figures.acked;
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
    let mut server = gomoku_server!()
        .args(["--ai-master-ms", "3000", "--request-timeout-ms", "60000"])
        .env("RUST_LOG", LOG_SEARCHES)
        .capture_log()
        .start();
    let player = Player::new(&server).await;
    let addr = server.addr().to_string();
    let ai_id = player.create_id(master_ai()).await;

    let body = r#"{"mode": "local", "rule": "renju", "boardSize": 15}"#;
    let mut slow = start_slow_request(&addr, &player.token, body, 10);
    let ai_move = in_flight(&server, &player, &ai_id, "the-move-at-shutdown").await;

    server.terminate();
    eventually(
        "new connections refused after SIGTERM",
        Duration::from_secs(10),
        async || {
            TcpStream::connect(&addr)
                .is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionRefused)
        },
    )
    .await;

    // The slow request, held open until now, still gets its answer.
    slow.write_all(&body.as_bytes()[10..]).unwrap();
    let mut answer = String::new();
    slow.read_to_string(&mut answer)
        .expect("read the slow request's answer");
    assert!(
        answer.starts_with("HTTP/1.1 201"),
        "the in-flight create was answered: {answer}"
    );

    assert_ai_replied(ai_move, "the in-flight AI move").await;

    let exit = server
        .wait_until_exited(Duration::from_secs(15))
        .expect("server exits within 15 s of its last request");
    assert!(
        exit.success(),
        "graceful shutdown exits with success, got {exit}"
    );
}

/// While another connection holds the lock writes need (SQLite's BEGIN IMMEDIATE plus an insert;
/// on PostgreSQL a table lock), writes wait for `--busy-timeout-ms` and then fail with a clean
/// 503 BUSY — never a hang or a 500 — reads
/// still work or are BUSY too, nothing is changed, and once the lock goes the server recovers.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn busy_database_answers_503_busy_then_recovers() {
    let server = gomoku_server!()
        .args(["--busy-timeout-ms", "300", "--write-rate-limit", "0"])
        .start();
    let player = Player::new(&server).await;
    let id = player.create_id(json!({"mode": "local"})).await;
    let before = player.game(&id).await;

    let mut blocker = Stored::open(server.database()).await;
    blocker.hold_writes().await;

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
        let answer = tokio::time::timeout(Duration::from_secs(20), player.post(path, body)).await;
        let reply =
            answer.unwrap_or_else(|_| panic!("POST {path} hung for 20 s on a locked database"));
        reply.assert_error(503, "BUSY", &format!("POST {path}"));
        assert!(
            started.elapsed() >= Duration::from_millis(250),
            "POST {path} failed before waiting out the busy timeout"
        );
    }
    let reply = player.get(&format!("/api/v1/games/{id}")).await;
    assert!(
        reply.status == 200 || reply.is(503, "BUSY"),
        "a read during the lock: {} {}",
        reply.status,
        reply.text
    );

    blocker.release_writes().await;
    player.assert_same(&id, &before, "failed writes").await;
    player.play_at(&id, 7, 7, 0).await;
    assert_eq!(
        player.game_ids().await.len(),
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
    let server = gomoku_server!()
        .args([
            "--ai-concurrency",
            "1",
            "--ai-master-ms",
            "3000",
            "--ai-queue-timeout-ms",
            "300",
            "--request-timeout-ms",
            "60000",
        ])
        .env("RUST_LOG", LOG_SEARCHES)
        .capture_log()
        .start();
    let (first, second) = two_players(&server).await;
    let first_game = first.create_id(master_ai()).await;
    let second_game = second.create_id(master_ai()).await;
    let local = second.create_id(json!({"mode": "local"})).await;

    let started = Instant::now();
    let searching = in_flight(&server, &first, &first_game, "the-first-search").await;

    let reply = second.try_move_at(&second_game, 7, 7, 0).await;
    assert!(
        !searching.is_finished(),
        "the first search ended before the queued move was answered"
    );
    reply.assert_error(503, "AI_BUSY", "a second master move");
    assert_eq!(
        second.game(&second_game).await["moveCount"],
        json!(0),
        "AI_BUSY changed the game"
    );

    let read = second.get(&format!("/api/v1/games/{local}")).await;
    assert_eq!(read.status, 200, "a read while the AI searches");
    let moved = second.try_move_at(&local, 1, 1, 0).await;
    assert_eq!(moved.status, 200, "a local move while the AI searches");
    assert!(
        !searching.is_finished(),
        "the read and the local move waited for the AI search"
    );

    assert_ai_replied(searching, "the master search, ended by its deadline").await;
    eprintln!("master move answered in {:?}", started.elapsed());
}

// ---------------------------------------------------------------------------------------------
// Access
// ---------------------------------------------------------------------------------------------

/// A missing, malformed or unknown bearer token gets 401 UNAUTHORIZED on every game endpoint
/// (list, create, import and each per-game one), and the game is left as it was.
#[tokio::test]
async fn missing_malformed_or_unknown_token_is_401() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let player = Player::new(&server).await;
    let token = player.token.clone();
    assert!(
        token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "a token is 64 hex chars (256 bits): {token}"
    );
    let id = player.create_id(json!({"mode": "local"})).await;
    player.try_move(&id, 7, 7).await;
    let before = player.game(&id).await;

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
    endpoints.extend([
        Endpoint::new(Method::GET, "/api/v1/games", None),
        Endpoint::new(
            Method::POST,
            "/api/v1/games",
            Some(json!({"mode": "local"})),
        ),
        Endpoint::new(
            Method::POST,
            "/api/v1/games/import",
            Some(record("freestyle", 15, &[])),
        ),
    ]);
    assert_all_unauthorized(&player.api, &endpoints, &credentials).await;
    player.assert_same(&id, &before, "rejected requests").await;
    assert_eq!(
        player.game_ids().await.len(),
        1,
        "rejected creates/imports made games"
    );
}

/// Another player's game answers 404 GAME_NOT_FOUND on every game endpoint (a move with and
/// without `ply` among them) — the very answer a game id that does not exist gets, whatever its
/// shape — it is absent from that player's list, and the owner finds it unchanged.
#[tokio::test]
async fn another_players_game_is_404_everywhere() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let (owner, intruder) = two_players(&server).await;
    let id = owner.create_id(json!({"mode": "local"})).await;
    for (ply, (row, col)) in [(7, 7), (7, 8), (8, 8)].into_iter().enumerate() {
        owner.play_at(&id, row, col, ply as i64).await;
    }
    let intruder_game = intruder.create_id(json!({"mode": "local"})).await;
    let before = owner.game(&id).await;

    let long = "a".repeat(300);
    let absent = [
        "00000000-0000-4000-8000-000000000000",
        "does-not-exist",
        "0",
        &long,
        "%E2%9C%93",
    ];
    for game in std::iter::once(id.as_str()).chain(absent) {
        let mut endpoints = game_endpoints(game);
        endpoints.push(Endpoint::new(
            Method::POST,
            format!("/api/v1/games/{game}/moves"),
            Some(json!({"row": 1, "col": 1, "ply": 3})),
        ));
        for endpoint in endpoints {
            let request = endpoint.request(&intruder.api);
            let what = format!("{endpoint} by another player");
            intruder
                .send(request.bearer_auth(&intruder.token))
                .await
                .assert_error(404, "GAME_NOT_FOUND", &what);
        }
    }
    assert_eq!(
        intruder.game_ids().await,
        vec![intruder_game],
        "the intruder's list shows only its own game"
    );
    owner.assert_same(&id, &before, "the intruder").await;
}

/// Tokens are stored only as hashes: no issued token appears in the SQLite files (main file, WAL,
/// shared memory, journal), neither as its hex text nor as its 32 raw bytes, while the server runs and after it stops.
#[tokio::test]
async fn tokens_are_stored_only_as_hashes() {
    let mut server = gomoku_server!().database(&Database::temp_sqlite()).start();
    let api = Api::on(&server);
    let mut tokens = Vec::new();
    for _ in 0..5 {
        let player = api.new_player().await;
        player.create(json!({"mode": "local"})).await;
        tokens.push(player.token);
    }
    let db_path = server.database().sqlite_path().to_path_buf();
    let scan = |when: &str| {
        let mut scanned = 0;
        for suffix in ["", "-wal", "-shm", "-journal"] {
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
    let server = gomoku_server!()
        .args([
            "--write-rate-limit",
            "1",
            "--write-burst",
            "5",
            "--max-unfinished-games",
            "1000",
        ])
        .start();
    let (player, other) = two_players(&server).await;
    let mut created = 0;
    let mut retry_after = None;
    for _ in 0..20 {
        let reply = player.post("/api/v1/games", &json!({})).await;
        match reply.status.as_u16() {
            201 => created += 1,
            429 => {
                assert_eq!(reply.code(), "RATE_LIMITED", "{}", reply.text);
                let header = reply.header("retry-after");
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
        player.game_ids().await.len(),
        created,
        "rate-limited creates stored nothing"
    );
    for _ in 0..30 {
        let reply = player.get("/api/v1/games").await;
        assert_eq!(reply.status, 200, "reads are not rate limited");
    }
    other.create(json!({})).await;

    // A sleep that is the test's subject: the bucket refills with time, as Retry-After said.
    tokio::time::sleep(Duration::from_secs(retry_after.clamp(1, 5))).await;
    player.create(json!({})).await;
}

/// A player may hold at most `--max-unfinished-games` unfinished games: one more (created or
/// imported) is 409 TOO_MANY_GAMES and stores nothing; finishing or deleting one frees a place;
/// other players are not affected.
#[tokio::test]
async fn unfinished_games_cap_answers_too_many_games() {
    let server = server_allowing("3");
    let (player, other) = two_players(&server).await;
    let ids: Vec<String> = create_games(&player, 3).await;

    player
        .post("/api/v1/games", &json!({"mode": "local"}))
        .await
        .assert_error(409, "TOO_MANY_GAMES", "a fourth unfinished game");
    let record = record("freestyle", 15, &[(7, 7)]);
    player
        .post("/api/v1/games/import", &record)
        .await
        .assert_error(409, "TOO_MANY_GAMES", "import at the cap");
    assert_eq!(player.game_ids().await.len(), 3);
    other.create(json!({})).await;

    let resign = format!("/api/v1/games/{}/resign", ids[0]);
    player.post(&resign, &json!({})).await.ok(200, "resign");
    player.create(json!({})).await;
    let deleted = player.delete(&format!("/api/v1/games/{}", ids[1])).await;
    assert_eq!(deleted.status, 204, "{}", deleted.text);
    player
        .post("/api/v1/games/import", &record)
        .await
        .ok(201, "import after a place was freed");
}

/// Listing pages hold at most 100 games: `limit` above 100 (or not a positive number, an unknown
/// status, a forged cursor) is 400 INVALID_QUERY; `limit=100` over 105 games gives 100 and a cursor
/// to the last 5.
#[tokio::test]
async fn list_page_size_is_capped_at_100() {
    let server = server_allowing("1000");
    let player = Player::new(&server).await;
    create_games(&player, 105).await;
    for query in [
        "limit=101",
        "limit=1000000",
        "limit=-1",
        "limit=abc",
        "limit=1.5",
        "status=bogus",
        "cursor=%27%20OR%201%3D1%20--",
    ] {
        player
            .get(&format!("/api/v1/games?{query}"))
            .await
            .assert_error(400, "INVALID_QUERY", &format!("?{query}"));
    }
    let page = player
        .get("/api/v1/games?limit=100")
        .await
        .ok(200, "a page of 100");
    assert_eq!(page["games"].as_array().unwrap().len(), 100);
    let cursor = page["nextCursor"].as_str().expect("a cursor to the rest");
    let rest = player
        .get(&format!("/api/v1/games?limit=100&cursor={cursor}"))
        .await
        .ok(200, "the rest");
    assert_eq!(rest["games"].as_array().unwrap().len(), 5, "{rest}");
    assert_eq!(rest["nextCursor"], Value::Null);
}

// ---------------------------------------------------------------------------------------------
// CORS
// ---------------------------------------------------------------------------------------------

async fn preflight(api: &Api, path: &str, method: &str, headers: &str) -> Reply {
    let request = api
        .request(Method::OPTIONS, path)
        .header("origin", "https://arbitrary-origin.example")
        .header("access-control-request-method", method)
        .header("access-control-request-headers", headers);
    api.send(request).await
}

fn header_list(reply: &Reply, name: &str) -> Vec<String> {
    reply
        .headers
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
/// Content-Type is granted (the mini-program and its developer tool need exactly that, PUT for
/// renaming since `wx.request` has no PATCH); a method and a header the client does not need are
/// not granted, and credentials are not allowed.
#[tokio::test]
async fn cors_grants_what_the_mini_program_needs_and_no_more() {
    let server = gomoku_server!().start();
    let api = Api::on(&server);
    for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
        let response = preflight(&api, "/api/v1/games", method, "authorization,content-type").await;
        assert!(
            response.status.is_success(),
            "preflight {method}: {}",
            response.status
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
    let trace = preflight(&api, "/api/v1/games", "TRACE", "content-type").await;
    let methods = header_list(&trace, "access-control-allow-methods");
    assert!(
        !methods.iter().any(|m| m == "trace" || m == "*"),
        "TRACE granted: {methods:?}"
    );
    let extra = preflight(&api, "/api/v1/games", "POST", "authorization,x-not-needed").await;
    let headers = header_list(&extra, "access-control-allow-headers");
    assert!(
        !headers.iter().any(|h| h == "x-not-needed" || h == "*"),
        "an unneeded header granted: {headers:?}"
    );

    let player = api.new_player().await;
    let request = player
        .request(Method::GET, "/api/v1/games")
        .header("origin", "https://arbitrary-origin.example");
    let response = player.send(request).await;
    assert_eq!(response.status, 200);
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
    // `backup` is SQLite's (PostgreSQL has pg_dump).
    let server = gomoku_server!()
        .database(&Database::temp_sqlite())
        .args(NO_RATE_LIMIT)
        .start();
    let player = Player::new(&server).await;
    let mut quiet = Vec::new();
    for (i, rule) in ["freestyle", "standard", "renju"].into_iter().enumerate() {
        let id = player
            .create_id(json!({"mode": "local", "rule": rule}))
            .await;
        for ply in 0..=i as i64 {
            player.play_at(&id, 1 + ply, 2 * ply, ply).await;
        }
        quiet.push(player.game(&id).await);
    }
    let busy = player
        .create_id(json!({"mode": "local", "boardSize": 19}))
        .await;
    let writer = {
        let (player, busy) = (player.clone(), busy.clone());
        tokio::spawn(async move {
            for ply in 0..120 {
                let (row, col) = (ply / 19 * 2 % 19, ply % 19);
                // Rows 0, 2, 4… filled left to right: colours alternate along rows and columns,
                // and filled rows are never adjacent, so no line of five ever forms.
                let state = player.play_at(&busy, row, col, ply).await;
                assert_eq!(state["status"], "playing", "busy writer at ply {ply}");
            }
        })
    };
    eventually("the busy game under way", WAIT, async || {
        player.game(&busy).await["moveCount"].as_i64() >= Some(5)
    })
    .await;

    let copy = server
        .database()
        .sqlite_path()
        .with_file_name("backup-copy.db");
    let mut backup = server.binary().backup(server.database(), &copy);
    let output = tokio::task::spawn_blocking(move || backup.output().expect("run backup"))
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "backup failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    writer.await.unwrap();
    let copy = Database::sqlite_file(&copy);
    if let Err(e) = Stored::open(&copy).await.integrity().await {
        panic!("the backup copy: {e}");
    }

    let restored = gomoku_server!().database(&copy).start();
    let restored_player = player.on(&restored);
    for state in &quiet {
        assert_eq!(
            &restored_player.game(&id_of(state)).await,
            state,
            "a quiet game on the copy"
        );
    }
    let copied = restored_player.game(&busy).await;
    assert_state_consistent(&copied);
    let original = moves_of(&player.game(&busy).await);
    let copied_moves = moves_of(&copied);
    assert_eq!(
        copied_moves[..],
        original[..copied_moves.len()],
        "the busy game on the copy is a prefix of the original"
    );
    assert_eq!(restored_player.game_ids().await.len(), 4);
}

/// Every response carries an `x-request-id` (a fresh one per request, or the client's own echoed
/// back); with RUST_LOG=debug the server's log carries request ids and never a token — not for a
/// good request, a rejected one, nor an unknown token.
#[tokio::test]
async fn request_ids_in_responses_and_no_token_in_logs() {
    let mut server = gomoku_server!()
        .env("RUST_LOG", "debug")
        .capture_log()
        .start();
    let player = Player::new(&server).await;
    let token = player.token.clone();
    let unknown = "feedface".repeat(8);

    let mut ids = Vec::new();
    for (method, path, auth) in [
        (Method::POST, "/api/v1/games", &token),
        (Method::GET, "/api/v1/games", &token),
        (Method::GET, "/api/v1/games/not-a-game", &token),
        (Method::GET, "/api/v1/games", &unknown),
        (Method::GET, "/healthz", &token),
    ] {
        let mut request = player.api.request(method.clone(), path).bearer_auth(auth);
        if method == Method::POST {
            request = request.json(&json!({"mode": "local"}));
        }
        let reply = player.api.send(request).await;
        let id = reply.header("x-request-id");
        ids.push(id.unwrap_or_else(|| panic!("{method} {path}: no x-request-id")));
    }
    let mut distinct = ids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), ids.len(), "request ids repeat: {ids:?}");
    let request = player
        .request(Method::GET, "/api/v1/games")
        .header("x-request-id", "client-chosen-42");
    let reply = player.send(request).await;
    assert_eq!(
        reply.header("x-request-id").as_deref(),
        Some("client-chosen-42")
    );

    server.terminate();
    server
        .wait_until_exited(Duration::from_secs(15))
        .expect("exit after SIGTERM");
    let text = server.log_text();
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
