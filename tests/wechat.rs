//! WeChat login through a fake `jscode2session` server started by the test on 127.0.0.1:0:
//! the same WeChat user always gets the same player, and a failed exchange is 401.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::routing::get;
use axum::Router;
use gomoku_testkit::{gomoku_server, Api, Reply, Server, ServerBuilder};
use serde_json::{json, Value};

const APPID: &str = "wx0123456789abcdef";
const SECRET: &str = "test-secret-value";

/// What the fake saw: the query of every exchange request.
type Seen = Arc<Mutex<Vec<HashMap<String, String>>>>;

/// A fake WeChat API: `code-a…` codes belong to user `openid-a`, `code-b…` to `openid-b`,
/// anything else is refused with errcode 40029, as the real service does. Like the real one it
/// answers JSON with a `text/plain` content type. Returns its base URL and its request log.
async fn fake_wechat() -> (String, Seen) {
    async fn exchange(
        State(seen): State<Seen>,
        Query(query): Query<HashMap<String, String>>,
    ) -> ([(&'static str, &'static str); 1], String) {
        seen.lock().unwrap().push(query.clone());
        let code = query.get("js_code").cloned().unwrap_or_default();
        let good_app = query.get("appid").map(String::as_str) == Some(APPID)
            && query.get("secret").map(String::as_str) == Some(SECRET)
            && query.get("grant_type").map(String::as_str) == Some("authorization_code");
        let body = if !good_app {
            json!({"errcode": 40013, "errmsg": "invalid appid"})
        } else if code.starts_with("code-a") {
            json!({"openid": "openid-a", "session_key": "c2Vzc2lvbi1h"})
        } else if code.starts_with("code-b") {
            json!({"openid": "openid-b", "session_key": "c2Vzc2lvbi1i"})
        } else {
            json!({"errcode": 40029, "errmsg": "invalid code"})
        };
        ([("content-type", "text/plain")], body.to_string())
    }
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/sns/jscode2session", get(exchange))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind fake WeChat");
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("fake WeChat");
    });
    (base, seen)
}

/// A server that exchanges login codes with the WeChat API at `base`, given by flags.
fn wechat_server(base: &str) -> ServerBuilder {
    gomoku_server!().args([
        "--wechat-appid",
        APPID,
        "--wechat-secret",
        SECRET,
        "--wechat-api-base",
        base,
    ])
}

/// `POST /sessions` with a login code.
async fn login(server: &Server, code: &str) -> Reply {
    let body = json!({ "code": code });
    Api::on(server).start_session(&body, &[]).await
}

/// The same WeChat user (two different login codes) gets the same playerId and sees the same
/// games through either token; another user gets another player; the exchange carries the
/// app id, secret, code and grant type.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_wechat_user_gets_the_same_player() {
    let (base, seen) = fake_wechat().await;
    let server = wechat_server(&base).start();

    let first = login(&server, "code-a-1").await.ok(201, "login a-1");
    let second = login(&server, "code-a-2").await.ok(201, "login a-2");
    let other = login(&server, "code-b-1").await.ok(201, "login b-1");
    assert_eq!(
        first["playerId"], second["playerId"],
        "same openid, same player"
    );
    assert_ne!(
        first["playerId"], other["playerId"],
        "another openid, another player"
    );
    assert_ne!(
        first["token"], second["token"],
        "each login has its own token"
    );

    let as_player = |session: &Value| Api::on(&server).player(session["token"].as_str().unwrap());
    let (a1, a2, b) = (as_player(&first), as_player(&second), as_player(&other));
    let game = a1.create(json!({})).await;
    let id = game["id"].as_str().unwrap();
    assert_eq!(
        a2.game(id).await,
        game,
        "the other token of the same player sees it"
    );
    b.get(&format!("/api/v1/games/{id}")).await.assert_error(
        404,
        "GAME_NOT_FOUND",
        "another WeChat user",
    );

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "one exchange per login: {seen:?}");
    let codes: Vec<&str> = seen.iter().map(|q| q["js_code"].as_str()).collect();
    assert_eq!(codes, ["code-a-1", "code-a-2", "code-b-1"]);
    for query in &seen {
        assert_eq!(query["appid"], APPID);
        assert_eq!(query["secret"], SECRET);
        assert_eq!(query["grant_type"], "authorization_code");
    }
}

/// With WeChat configured the openid decides the player: a `previousToken` of another player
/// only ends that session. A code over 128 characters or with a control character is 400
/// INVALID_JSON and never reaches WeChat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn previous_token_only_ends_the_old_session() {
    let (base, seen) = fake_wechat().await;
    let server = wechat_server(&base).start();
    let api = Api::on(&server);
    let a = login(&server, "code-a-1").await.ok(201, "login a");
    let b = api
        .start_session(
            &json!({"code": "code-b-1", "previousToken": a["token"]}),
            &[],
        )
        .await
        .ok(201, "login b naming a's token");
    assert_ne!(a["playerId"], b["playerId"], "the openid decides");
    let old = api.player(a["token"].as_str().unwrap());
    old.get("/api/v1/games").await.assert_error(
        401,
        "UNAUTHORIZED",
        "the session named as previousToken",
    );
    let again = login(&server, "code-a-2").await.ok(201, "login a again");
    assert_eq!(again["playerId"], a["playerId"], "a's player is still a's");

    for code in ["code-a-".repeat(8_000), "code-a-\u{7}".to_string()] {
        login(&server, &code)
            .await
            .assert_error(400, "INVALID_JSON", "a malformed code");
    }
    assert_eq!(
        seen.lock().unwrap().len(),
        3,
        "malformed codes are not sent"
    );
}

/// A code WeChat refuses (errcode 40029) is 401 UNAUTHORIZED and makes no session; a good code
/// after it still works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_code_is_unauthorized() {
    let (base, _seen) = fake_wechat().await;
    let server = wechat_server(&base).start();
    let reply = login(&server, "expired-code").await;
    reply.assert_error(401, "UNAUTHORIZED", "errcode 40029");
    assert!(reply.body.get("token").is_none());
    login(&server, "code-b-9")
        .await
        .ok(201, "a good code still logs in");
}

/// Credentials given through the environment (WECHAT_APPID, WECHAT_SECRET, WECHAT_API_BASE)
/// work like the flags; wrong credentials (the fake answers errcode 40013) are 401.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_from_the_environment() {
    let (base, seen) = fake_wechat().await;
    let server = gomoku_server!()
        .env("WECHAT_APPID", APPID)
        .env("WECHAT_SECRET", SECRET)
        .env("WECHAT_API_BASE", &base)
        .start();
    let one = login(&server, "code-a-1").await.ok(201, "env login");
    let two = login(&server, "code-a-7").await.ok(201, "env login");
    assert_eq!(one["playerId"], two["playerId"]);
    assert_eq!(seen.lock().unwrap().len(), 2, "the fake was asked");

    let wrong = gomoku_server!()
        .env("WECHAT_APPID", "wx-someone-else")
        .env("WECHAT_SECRET", SECRET)
        .env("WECHAT_API_BASE", &base)
        .start();
    login(&wrong, "code-a-1")
        .await
        .assert_error(401, "UNAUTHORIZED", "errcode 40013");
}

/// When WeChat cannot be reached at all, login is 401 UNAUTHORIZED (not a hang or a 500).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_wechat_is_unauthorized() {
    // A port that was just free: nothing listens there.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let server = wechat_server(&closed).start();
    login(&server, "code-a-1")
        .await
        .assert_error(401, "UNAUTHORIZED", "WeChat unreachable");
}

/// Neither bearer tokens nor the WeChat secret or session key appear in the server's logs,
/// even at debug level and when the exchange fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_never_reach_the_logs() {
    let (base, _seen) = fake_wechat().await;
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let mut logs = Vec::new();
    let mut tokens = Vec::new();
    for api_base in [&base, &closed] {
        let mut server = wechat_server(api_base)
            .env("RUST_LOG", "debug")
            .capture_log()
            .start();
        let reply = login(&server, "code-a-1").await;
        login(&server, "refused").await;
        if reply.status == 201 {
            let player = Api::on(&server).player(reply.body["token"].as_str().unwrap());
            let game = player.create(json!({})).await;
            let id = game["id"].as_str().unwrap();
            player.play(id, 7, 7).await;
            player.get("/api/v1/games").await;
            player.get("/api/v1/games/no-such-game").await;
            tokens.push(player.token.clone());
        }
        // A wrong token is a credential too (a typo of a real one).
        let api = Api::on(&server);
        let wrong = api.request(reqwest::Method::GET, "/api/v1/games");
        let response = api.send(wrong.bearer_auth("wrong-token-0123456789")).await;
        assert_eq!(response.status, 401);
        server.kill();
        logs.push(server.log_text());
    }
    assert_eq!(tokens.len(), 1, "the login through the fake worked");
    for log in &logs {
        for secret in [
            SECRET,
            "c2Vzc2lvbi1h",
            "wrong-token-0123456789",
            tokens[0].as_str(),
        ] {
            let line = log.lines().find(|line| line.contains(secret));
            assert!(line.is_none(), "{secret:?} is logged: {}", line.unwrap());
        }
    }
}
