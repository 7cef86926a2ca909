//! Sessions end and renew: an idle token expires (401 SESSION_EXPIRED), a new session that names
//! it as `previousToken` within the grace keeps the player and every game (also twenty such
//! renewals at once, each with a token of its own), logout ends a session,
//! the last use is written at most once a day, `code` is checked even without WeChat, and new
//! sessions are limited per client address.
//!
//! Expiry is made real without waiting months: with the server stopped, the test moves a
//! session's `last_used_at` back in the database, then starts the server again.

use gomoku_testkit::lines::BLACK_FIVE;
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{gomoku_server, Api, Player, Reply, Server};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Moves a session's last use back from now by `hours`.
async fn age_session(server: &Server, token: &str, hours: u32) {
    let mut db = Stored::open(server.database()).await;
    assert!(
        db.age_session(&hash(token), hours).await,
        "the session is stored"
    );
}

/// A session's stored last use, if the session exists.
async fn last_used(server: &Server, token: &str) -> Option<String> {
    let mut db = Stored::open(server.database()).await;
    db.session_last_used(&hash(token)).await
}

/// `POST /api/v1/sessions` with `body` and extra headers.
async fn start_session(server: &Server, body: Value, headers: &[(&str, &str)]) -> Reply {
    Api::on(server).start_session(&body, headers).await
}

/// The same player with another token.
fn with_token(player: &Player, token: &str) -> Player {
    player.api.player(token)
}

/// A token unused for longer than the idle time gets 401 SESSION_EXPIRED on every route that
/// needs a session; naming it as `previousToken` gives a new token for the same player, who
/// finds every game as it was and plays on; the old token then names no session, and naming it
/// again soon after (a retry whose answer was lost) gives the same player another token. (After
/// a few minutes it renews nothing: the store's unit tests.)
#[tokio::test]
async fn expired_session_renews_for_the_same_player() {
    let mut server = gomoku_server!().start();
    let session = start_session(&server, json!({}), &[])
        .await
        .ok(201, "session");
    let alice = Api::on(&server).player(session["token"].as_str().unwrap());
    let bob = Player::new(&server).await;
    bob.create(json!({})).await;
    let playing = alice.create_id(json!({})).await;
    alice.play_all(&playing, &[(7, 7), (7, 8)]).await;
    let won = alice.create_id(json!({"rule": "standard"})).await;
    alice.play_all(&won, BLACK_FIVE).await;
    let before = alice.list_all(None, 10).await;

    server.kill();
    age_session(&server, &alice.token, 181 * 24).await;
    server.restart();
    let alice = alice.on(&server);

    alice.get("/api/v1/games").await.assert_error(
        401,
        "SESSION_EXPIRED",
        "list with an expired token",
    );
    alice
        .get(&format!("/api/v1/games/{playing}"))
        .await
        .assert_error(401, "SESSION_EXPIRED", "read with an expired token");
    alice.post("/api/v1/games", &json!({})).await.assert_error(
        401,
        "SESSION_EXPIRED",
        "create with an expired token",
    );

    let renewed = start_session(&server, json!({"previousToken": alice.token}), &[])
        .await
        .ok(201, "renewal");
    let new_token = renewed["token"].as_str().unwrap();
    assert_ne!(new_token, alice.token);
    assert_eq!(renewed["playerId"], session["playerId"], "the same player");
    let renewed_alice = with_token(&alice, new_token);
    assert_eq!(
        renewed_alice.list_all(None, 10).await,
        before,
        "every game kept"
    );
    let state = renewed_alice.play(&playing, 8, 8).await;
    assert_eq!(state["moveCount"], 3, "play goes on");

    alice.get("/api/v1/games").await.assert_error(
        401,
        "UNAUTHORIZED",
        "the old token after its renewal",
    );
    // A renewal repeated (its answer was lost) gets the same player, with a new token.
    let again = start_session(&server, json!({"previousToken": alice.token}), &[])
        .await
        .ok(201, "a second renewal");
    assert_eq!(
        again["playerId"], session["playerId"],
        "a renewal repeats for the same player"
    );
    assert_ne!(again["token"], renewed["token"]);
    let repeated = with_token(&alice, again["token"].as_str().unwrap());
    assert_eq!(
        repeated.list_all(None, 10).await,
        renewed_alice.list_all(None, 10).await,
        "the same player's games"
    );
    alice.get("/api/v1/games").await.assert_error(
        401,
        "UNAUTHORIZED",
        "the old token after a repeated renewal",
    );
    assert_eq!(
        renewed_alice.list_all(None, 10).await.len(),
        2,
        "bob's game is not alice's"
    );
}

/// Twenty renewals naming one `previousToken` at once (issue 23: 19 of 20 made new players and
/// stranded their games) all answer with its player, each with a token of its own that reads
/// the player's game; the old token authenticates nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_renewals_keep_the_player() {
    let server = gomoku_server!()
        .args(["--sessions-per-minute", "0"])
        .start();
    let alice = Player::new(&server).await;
    let game = alice.create_id(json!({})).await;
    let state = alice.play(&game, 7, 7).await;
    let me = alice.me().await["playerId"].clone();
    let renewals: Vec<_> = (0..20)
        .map(|_| {
            let api = alice.api.clone();
            let body = json!({"previousToken": alice.token});
            tokio::spawn(async move { api.start_session(&body, &[]).await })
        })
        .collect();
    let mut tokens = Vec::new();
    for renewal in renewals {
        let renewed = renewal.await.unwrap().ok(201, "a renewal");
        assert_eq!(renewed["playerId"], me, "every renewal keeps the player");
        tokens.push(renewed["token"].as_str().unwrap().to_string());
    }
    for token in &tokens {
        assert_eq!(with_token(&alice, token).game(&game).await, state);
    }
    tokens.sort_unstable();
    tokens.dedup();
    assert_eq!(tokens.len(), 20, "a token each");
    alice
        .get("/api/v1/games")
        .await
        .assert_error(401, "UNAUTHORIZED", "the renewed token");
}

/// Past the renewal grace a session is deleted (at start, then hourly), so its token names
/// nothing and `previousToken` is ignored: a new player with no games, to whom the old games do
/// not exist.
#[tokio::test]
async fn past_the_grace_a_new_player_starts() {
    let mut server = gomoku_server!().start();
    let alice = Player::new(&server).await;
    let game = alice.create_id(json!({})).await;
    server.kill();
    age_session(&server, &alice.token, (180 + 31) * 24).await;
    server.restart();
    let alice = alice.on(&server);
    alice
        .get("/api/v1/games")
        .await
        .assert_error(401, "UNAUTHORIZED", "expired past the grace");

    let renewed = start_session(&server, json!({"previousToken": alice.token}), &[])
        .await
        .ok(201, "a session past the grace");
    let stranger = with_token(&alice, renewed["token"].as_str().unwrap());
    assert!(stranger.list_all(None, 10).await.is_empty());
    stranger
        .get(&format!("/api/v1/games/{game}"))
        .await
        .assert_error(404, "GAME_NOT_FOUND", "the old player's game");
    assert_eq!(
        last_used(&server, &alice.token).await,
        None,
        "the old session ended"
    );
}

/// The idle time and the grace are flags: with one idle day and one day of grace, a session
/// unused for a day and a half is expired and renews for its player; one unused for three days
/// is gone.
#[tokio::test]
async fn idle_and_grace_flags() {
    let flags = [
        "--session-idle-days",
        "1",
        "--session-renew-grace-days",
        "1",
    ];
    let mut server = gomoku_server!().args(flags).start();
    let alice = Player::new(&server).await;
    let game = alice.create_id(json!({})).await;
    let bob = Player::new(&server).await;
    server.kill();
    age_session(&server, &alice.token, 36).await;
    age_session(&server, &bob.token, 72).await;
    server.restart();
    let (alice, bob) = (alice.on(&server), bob.on(&server));
    alice
        .get(&format!("/api/v1/games/{game}"))
        .await
        .assert_error(401, "SESSION_EXPIRED", "36 idle hours with one day allowed");
    let renewed = start_session(&server, json!({"previousToken": alice.token}), &[])
        .await
        .ok(201, "renewal within the grace");
    with_token(&alice, renewed["token"].as_str().unwrap())
        .game(&game)
        .await;
    bob.get("/api/v1/games")
        .await
        .assert_error(401, "UNAUTHORIZED", "past idle time and grace");
}

/// `DELETE /sessions/current` ends the session: 204, then the token is UNAUTHORIZED everywhere,
/// including a second logout. An expired session (within its grace) can be ended too; a
/// malformed or missing token cannot.
#[tokio::test]
async fn logout_ends_the_session() {
    let mut server = gomoku_server!().start();
    let alice = Player::new(&server).await;
    let game = alice.create_id(json!({})).await;
    let reply = alice.delete("/api/v1/sessions/current").await;
    assert_eq!(reply.status, 204, "logout: {}", reply.text);
    assert!(reply.text.is_empty());
    alice
        .get(&format!("/api/v1/games/{game}"))
        .await
        .assert_error(401, "UNAUTHORIZED", "after logout");
    alice.delete("/api/v1/sessions/current").await.assert_error(
        401,
        "UNAUTHORIZED",
        "logout twice",
    );

    let bob = Player::new(&server).await;
    server.kill();
    age_session(&server, &bob.token, 200 * 24).await;
    server.restart();
    let bob = bob.on(&server);
    let reply = bob.delete("/api/v1/sessions/current").await;
    assert_eq!(
        reply.status, 204,
        "logout with an expired token: {}",
        reply.text
    );
    bob.get("/api/v1/games").await.assert_error(
        401,
        "UNAUTHORIZED",
        "an expired session after logout",
    );

    let api = Api::on(&server);
    for auth in [None, Some("Bearer nope")] {
        let mut request = api.request(reqwest::Method::DELETE, "/api/v1/sessions/current");
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        api.send(request)
            .await
            .assert_error(401, "UNAUTHORIZED", &format!("logout with {auth:?}"));
    }
}

/// The stored last use moves only once it is a day old: a request after two idle days writes
/// the time of that request, one after an idle hour writes nothing.
#[tokio::test]
async fn last_use_is_written_at_most_once_a_day() {
    let mut server = gomoku_server!().start();
    let alice = Player::new(&server).await;
    let created = last_used(&server, &alice.token).await.expect("a session");

    server.kill();
    age_session(&server, &alice.token, 48).await;
    let aged = last_used(&server, &alice.token).await.unwrap();
    assert!(aged < created);
    server.restart();
    alice.on(&server).get("/api/v1/games").await.ok(200, "list");
    server.kill();
    let refreshed = last_used(&server, &alice.token).await.unwrap();
    assert!(
        refreshed >= created,
        "{refreshed} written on use after {aged}"
    );

    // An hour back: within a day of the last write, so a read writes nothing.
    age_session(&server, &alice.token, 1).await;
    let hour_ago = last_used(&server, &alice.token).await.unwrap();
    server.restart();
    for _ in 0..3 {
        alice.on(&server).get("/api/v1/games").await.ok(200, "list");
    }
    server.kill();
    assert_eq!(last_used(&server, &alice.token).await.unwrap(), hour_ago);
}

/// Without WeChat configured `code` is still checked: over 128 characters (a 60,000-character
/// one included) or holding a control character is 400 INVALID_JSON, as is a `previousToken`
/// that is not 64 hex digits; nothing is stored for them. 128 plain characters pass.
#[tokio::test]
async fn code_and_previous_token_are_checked() {
    let server = gomoku_server!().start();
    let count_players = || async { Stored::open(server.database()).await.count("players").await };
    let before = count_players().await;
    for (body, what) in [
        (
            json!({"code": "x".repeat(60_000)}),
            "a 60,000-character code",
        ),
        (json!({"code": "x".repeat(129)}), "a 129-character code"),
        (json!({"code": "abc\u{0}def"}), "a NUL in the code"),
        (json!({"code": "line\nbreak"}), "a newline in the code"),
        (json!({"previousToken": "abc"}), "a short previous token"),
        (
            json!({"previousToken": "z".repeat(64)}),
            "a non-hex previous token",
        ),
        (json!({"code": 5}), "a code that is not a string"),
    ] {
        start_session(&server, body, &[])
            .await
            .assert_error(400, "INVALID_JSON", what);
    }
    assert_eq!(count_players().await, before, "nothing stored");
    start_session(&server, json!({"code": "码".repeat(128)}), &[])
        .await
        .ok(201, "128 characters");
    start_session(&server, json!({"previousToken": "0".repeat(64)}), &[])
        .await
        .ok(201, "a previous token that names nothing is ignored");
}

/// New sessions are limited per client address: past the burst, 429 RATE_LIMITED with a
/// Retry-After of whole seconds. `X-Forwarded-For` counts only with `--trust-forwarded-for`,
/// and then each forwarded address has its own bucket.
#[tokio::test]
async fn new_sessions_are_limited_per_address() {
    let limit = ["--sessions-per-minute", "2", "--session-burst", "3"];
    let server = gomoku_server!().args(limit).start();
    for i in 0..3 {
        let spoof = format!("198.51.100.{i}");
        start_session(&server, json!({}), &[("x-forwarded-for", &spoof)])
            .await
            .ok(201, "within the burst");
    }
    let refused = start_session(&server, json!({}), &[("x-forwarded-for", "203.0.113.1")]).await;
    refused.assert_rate_limited("past the burst, X-Forwarded-For not trusted");

    let mut flags = limit.to_vec();
    flags.push("--trust-forwarded-for");
    let proxied = gomoku_server!().args(flags).start();
    for _ in 0..3 {
        start_session(
            &proxied,
            json!({}),
            &[("x-forwarded-for", "203.0.113.7, 10.0.0.1")],
        )
        .await
        .ok(201, "one forwarded client within its burst");
    }
    start_session(&proxied, json!({}), &[("x-forwarded-for", "203.0.113.7")])
        .await
        .assert_rate_limited("the same forwarded client past its burst");
    start_session(&proxied, json!({}), &[("x-forwarded-for", "203.0.113.8")])
        .await
        .ok(201, "another forwarded client");
}
