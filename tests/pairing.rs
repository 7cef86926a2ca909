//! Matchmaking and rated play (issue 26) through the real `gomoku-server` binary: real HTTP,
//! real WebSockets, a real SQLite file (and, for the tests across instances, a real PostgreSQL
//! cluster).
//!
//! Seeks in one pool pair once and both players hear it on their own live channel; fifty seekers
//! at once make twenty-five games with nobody twice and nobody with themself (also split over two
//! instances on PostgreSQL); a seek dies with its last live channel, and with its instance; a
//! rated game played to a win moves both ratings to hand-computed Glicko-2 values; a game nobody
//! moved in is aborted, unrated, the abort counted; every wrong request has its code and leaves
//! the stored data as it was.

use std::collections::HashSet;
use std::time::Duration;

use gomoku_testkit::live::{Received, WAIT};
use gomoku_testkit::postgres;
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{
    eventually, gomoku_server, Api, Database, Live, Player, Server, ServerBuilder, NO_RATE_LIMIT,
};
use serde_json::{json, Value};

/// How long a change may take to travel between instances through the database.
const TRAVEL: Duration = Duration::from_secs(10);

/// The body of a seek in the freestyle 3+2 pool.
fn blitz() -> Value {
    json!({"rule": "freestyle", "boardSize": 15,
           "timeControl": {"initialMs": 180000, "incrementMs": 2000}})
}

fn builder() -> ServerBuilder {
    gomoku_server!().args(NO_RATE_LIMIT)
}

/// `player` seeks with `body`; the answer's seek.
async fn seek(player: &Player, body: &Value) -> Value {
    player.post("/api/v1/seeks", body).await.ok(201, "seek")["seek"].clone()
}

/// The next message on `live` that is not a hello.
async fn news(live: &mut Live) -> Value {
    loop {
        let message = live.message().await;
        if message["type"] != "hello" {
            return message;
        }
    }
}

/// A player with their own live channel open (its hello read).
async fn listening(api: &Api) -> (Player, Live) {
    let player = api.new_player().await;
    let mut live = Live::own(&player)
        .await
        .expect("the player's channel opens");
    let hello = live.message().await;
    assert_eq!(hello["type"], "hello");
    (player, live)
}

/// Two players seeking in one pool are paired once: both hear `paired` with the same game, at
/// opposite colours, and the game is a rated online game in play with both seated.
#[tokio::test]
async fn two_seekers_are_paired_once() {
    let server = builder().start();
    let api = Api::on(&server);
    let (a, mut a_live) = listening(&api).await;
    let (b, mut b_live) = listening(&api).await;
    let sought = seek(&a, &blitz()).await;
    assert_eq!(sought["pool"], "freestyle/3+2");
    assert_eq!(sought["rating"]["shown"], "1500?");
    assert_eq!(sought["rating"]["rank"]["name"], "4级");
    // Seeking again in the same pool answers 200 with the same seek.
    let again = a
        .post("/api/v1/seeks", &blitz())
        .await
        .ok(200, "seek again");
    assert_eq!(again["seek"]["since"], sought["since"]);
    seek(&b, &blitz()).await;
    let (pa, pb) = (news(&mut a_live).await, news(&mut b_live).await);
    assert_eq!(
        (pa["type"].as_str(), pb["type"].as_str()),
        (Some("paired"), Some("paired"))
    );
    assert_eq!(pa["gameId"], pb["gameId"]);
    assert_eq!(pa["pool"], "freestyle/3+2");
    let mut colours = [pa["you"].as_u64().unwrap(), pb["you"].as_u64().unwrap()];
    colours.sort_unstable();
    assert_eq!(colours, [1, 2]);
    let game = a.game(pa["gameId"].as_str().unwrap()).await;
    assert_eq!(game["mode"], "online");
    assert_eq!(game["status"], "playing");
    assert_eq!(game["timeControl"]["initialMs"], 180000);
    assert_eq!(game["rated"], true);
    assert_eq!(game["pool"], "freestyle/3+2");
    assert_eq!(game["players"]["black"]["rating"]["shown"], "1500?");
    assert_eq!(game["ratingChanges"], Value::Null);
    // Nobody waits any more, and nothing else arrives.
    a.get("/api/v1/seeks")
        .await
        .assert_error(404, "NOT_SEEKING", "after pairing");
    let pools = api.get("/api/v1/pools").await.ok(200, "pools");
    assert!(pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["waiting"] == 0));
    assert!(a_live
        .message_within(Duration::from_millis(1500))
        .await
        .is_none());
}
