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

use gomoku_testkit::live::WAIT;
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

/// Fifty players with their channels open seek in one pool at once: twenty-five games, each
/// player in exactly one, nobody paired with themself, and each told the game they are in.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_seekers_make_twenty_five_games() {
    let server = builder().start();
    let api = Api::on(&server);
    fifty_at_once(std::slice::from_ref(&api)).await;
}

/// Fifty players split over `apis` (round robin) seek at once; asserts the pairings.
async fn fifty_at_once(apis: &[Api]) {
    let mut players = Vec::new();
    for i in 0..50 {
        players.push(listening(&apis[i % apis.len()]).await);
    }
    let body = blitz();
    let seeks = players.iter().map(|(p, _)| seek(p, &body));
    futures_util::future::join_all(seeks).await;
    let mut games: std::collections::HashMap<String, Vec<(String, u64)>> = Default::default();
    for (player, live) in &mut players {
        let paired = news(live).await;
        assert_eq!(paired["type"], "paired", "{paired}");
        let me = player.me().await["playerId"].as_str().unwrap().to_string();
        games
            .entry(paired["gameId"].as_str().unwrap().to_string())
            .or_default()
            .push((me, paired["you"].as_u64().unwrap()));
    }
    assert_eq!(games.len(), 25, "twenty-five games");
    let mut seen = HashSet::new();
    for (id, seated) in &games {
        assert_eq!(seated.len(), 2, "game {id} has two players told");
        assert_ne!(
            seated[0].0, seated[1].0,
            "game {id} pairs a player with themself"
        );
        assert_ne!(
            seated[0].1, seated[1].1,
            "game {id} gives both the same colour"
        );
        for (player, _) in seated {
            assert!(seen.insert(player.clone()), "{player} paired twice");
        }
        let game = players[0].0.game(id).await;
        assert_eq!(game["rated"], true);
    }
    assert_eq!(seen.len(), 50);
}

/// Glicko-2 for one game as Glickman's paper gives it (steps 2 to 8, τ = 0.5, ε = 10⁻⁶), written
/// here from the formulas: the player's new rating and deviation after scoring `score` against
/// the opponent.
fn glicko2(
    (rating, rd, sigma): (f64, f64, f64),
    (opp_rating, opp_rd): (f64, f64),
    score: f64,
) -> (f64, f64) {
    const SCALE: f64 = 173.7178;
    const TAU: f64 = 0.5;
    let (mu, phi) = ((rating - 1500.0) / SCALE, rd / SCALE);
    let (mu_j, phi_j) = ((opp_rating - 1500.0) / SCALE, opp_rd / SCALE);
    let g = 1.0 / (1.0 + 3.0 * phi_j * phi_j / std::f64::consts::PI.powi(2)).sqrt();
    let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
    let v = 1.0 / (g * g * e * (1.0 - e));
    let delta = v * g * (score - e);
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    while (big_b - big_a).abs() > 1e-6 {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    let new_sigma = (big_a / 2.0).exp();
    let phi_star = (phi * phi + new_sigma * new_sigma).sqrt();
    let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let new_mu = mu + new_phi * new_phi * g * (score - e);
    (SCALE * new_mu + 1500.0, SCALE * new_phi)
}

/// Pairs two new players (channels open) and returns (black, white, game id).
async fn paired_pair(api: &Api) -> (Player, Player, String, Live, Live) {
    let (a, mut a_live) = listening(api).await;
    let (b, mut b_live) = listening(api).await;
    seek(&a, &blitz()).await;
    seek(&b, &blitz()).await;
    let (pa, _) = (news(&mut a_live).await, news(&mut b_live).await);
    let id = pa["gameId"].as_str().unwrap().to_string();
    if pa["you"] == 1 {
        (a, b, id, a_live, b_live)
    } else {
        (b, a, id, b_live, a_live)
    }
}

/// A rated game played to black's five: the result shows each side's change, and both players'
/// ratings and deviations are those Glicko-2 gives, computed here by hand; their cards list the
/// result, and the leaderboard leaves their provisional ratings off.
#[tokio::test]
async fn a_rated_win_moves_ratings_as_glicko2_says() {
    let server = builder().start();
    let api = Api::on(&server);
    let (black, white, id, _bl, _wl) = paired_pair(&api).await;
    let mut watching = Live::connect(&white, &id)
        .await
        .expect("the game's stream opens");
    let end = gomoku_testkit::online::play_alternately(
        &black,
        &white,
        &id,
        0,
        gomoku_testkit::lines::BLACK_FIVE,
    )
    .await;
    assert_eq!(end["status"], "black_won");
    // The formulas, checked against the worked value first (1500 ± 350 beating the same).
    let (won, won_rd) = glicko2((1500.0, 350.0, 0.06), (1500.0, 350.0), 1.0);
    let (lost, lost_rd) = glicko2((1500.0, 350.0, 0.06), (1500.0, 350.0), 0.0);
    assert!((won - 1662.31).abs() < 0.01 && (won_rd - 290.32).abs() < 0.01);
    // The changes reach the game's live stream too, with no request.
    let pushed = watching
        .state_where(|s| s["ratingChanges"] != Value::Null)
        .await;
    assert_eq!(pushed["status"], "black_won");
    let game = black.game(&id).await;
    assert_eq!(game["ratingChanges"], pushed["ratingChanges"]);
    let changes = &game["ratingChanges"];
    assert_eq!(changes["black"]["before"], 1500);
    assert_eq!(changes["black"]["after"], won.round() as i64);
    assert_eq!(changes["white"]["after"], lost.round() as i64);
    let up = won.round() as i64 - 1500;
    assert_eq!(changes["black"]["delta"], up);
    assert_eq!(changes["black"]["shown"], format!("+{up}"));
    assert_eq!(changes["white"]["shown"], format!("\u{2212}{up}"));
    for (player, rating, rd, score) in [
        (&black, won, won_rd, "win"),
        (&white, lost, lost_rd, "loss"),
    ] {
        let me = player.me().await["playerId"].as_str().unwrap().to_string();
        let card = api
            .get(&format!("/api/v1/players/{me}"))
            .await
            .ok(200, "card");
        let gomoku = &card["ratings"][0];
        assert_eq!(gomoku["family"], "gomoku");
        assert_eq!(gomoku["rating"], rating.round() as i64);
        assert_eq!(gomoku["rd"], rd.round() as i64);
        assert_eq!(gomoku["provisional"], true);
        assert_eq!(gomoku["games"], 1);
        assert_eq!(card["ratings"][1]["family"], "renju");
        assert_eq!(card["ratings"][1]["games"], 0);
        assert_eq!(card["recent"][0]["gameId"], id.as_str());
        assert_eq!(card["recent"][0]["score"], score);
        assert_eq!(card["recent"][0]["rule"], "freestyle");
    }
    let board = api
        .get("/api/v1/leaderboard?rule=freestyle")
        .await
        .ok(200, "leaderboard");
    assert_eq!(board["family"], "gomoku");
    assert_eq!(board["players"], json!([]));
}

/// A rated game in which black never moves is aborted once the abort time passes: unrated (no
/// rating changes, no result on the players' cards) and counted as black's abort.
#[tokio::test]
async fn a_game_nobody_moved_in_is_aborted_unrated() {
    let mut server = builder().args(["--rated-abort-ms", "1000"]).start();
    let api = Api::on(&server);
    let (black, _white, id, mut black_live, _wl) = paired_pair(&api).await;
    let mut game_live = Live::connect(&black, &id)
        .await
        .expect("the game's stream opens");
    let aborted = game_live.state_where(|s| s["status"] == "aborted").await;
    assert_eq!(aborted["endReason"], "aborted");
    assert_eq!(aborted["winner"], Value::Null);
    assert_eq!(aborted["currentPlayer"], Value::Null);
    assert_eq!(aborted["ratingChanges"], Value::Null);
    assert_eq!(aborted["rated"], true);
    let me = black.me().await["playerId"].as_str().unwrap().to_string();
    let card = api
        .get(&format!("/api/v1/players/{me}"))
        .await
        .ok(200, "card");
    assert_eq!(card["ratings"][0]["games"], 0);
    assert_eq!(card["ratings"][0]["shown"], "1500?");
    assert_eq!(card["recent"], json!([]));
    let mut stored = Stored::open(server.database()).await;
    // Stored as aborted, not as a draw: the games row, the replay and the record all say so.
    stored.assert_game(&aborted).await;
    let replay = black
        .get(&format!("/api/v1/games/{id}/replay"))
        .await
        .ok(200, "replay");
    assert_eq!(replay["status"], "aborted");
    assert_eq!(replay["endReason"], "aborted");
    let record = black
        .get(&format!("/api/v1/games/{id}/export"))
        .await
        .ok(200, "record");
    assert_eq!(record["result"]["status"], "aborted");
    assert_eq!(record["result"]["winner"], Value::Null);
    assert_eq!(stored.count("rating_changes").await, 0);
    assert_eq!(stored.count("ratings").await, 0);
    let counted: i64 = sqlx::query_scalar("select count(*) from aborts where player_id = $1")
        .bind(&me)
        .fetch_one(stored.connection())
        .await
        .unwrap();
    assert_eq!(counted, 1, "the abort counts against black");
    // A move now is refused: the game is over.
    black
        .try_move_at(&id, 7, 7, 0)
        .await
        .assert_error(409, "GAME_OVER", "move after abort");
    assert!(black_live
        .message_within(Duration::from_millis(200))
        .await
        .is_none());
    drop((black_live, game_live, stored));
    // Read back from the database alone, by a server that never held it in memory.
    server.restart();
    let black = black.on(&server);
    let reread = black.game(&id).await;
    assert_eq!(reread["status"], "aborted");
    assert_eq!(reread["endReason"], "aborted");
    let listed = black
        .get("/api/v1/games?status=finished")
        .await
        .ok(200, "finished games");
    assert!(
        listed["games"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == id.as_str()),
        "an aborted game is listed among the finished: {listed}"
    );
}

/// A seek dies with its player's last live channel; with two open, closing one keeps it.
#[tokio::test]
async fn a_seek_dies_with_its_last_channel() {
    let server = builder().start();
    let api = Api::on(&server);
    let (player, first) = listening(&api).await;
    let mut second = Live::own(&player).await.unwrap();
    let hello = second.message().await;
    assert_eq!(hello["seek"], Value::Null);
    seek(&player, &blitz()).await;
    first.close().await;
    let mut third = Live::own(&player).await.unwrap();
    let hello = third.message().await;
    assert_eq!(
        hello["seek"]["pool"], "freestyle/3+2",
        "one channel left keeps the seek"
    );
    second.close().await;
    third.close().await;
    eventually("the seek is gone", WAIT, async || {
        player.get("/api/v1/seeks").await.is(404, "NOT_SEEKING")
    })
    .await;
    // A seek made with no channel at all is dropped after the grace.
    let quick = builder().args(["--seek-grace-ms", "300"]).start();
    let lonely = Api::on(&quick).new_player().await;
    seek(&lonely, &blitz()).await;
    eventually("the seek without a channel is gone", WAIT, async || {
        lonely.get("/api/v1/seeks").await.is(404, "NOT_SEEKING")
    })
    .await;
}

/// Leaving the pool tells the player's channel, and is idempotent.
#[tokio::test]
async fn leaving_the_pool_is_told() {
    let server = builder().start();
    let api = Api::on(&server);
    let (player, mut live) = listening(&api).await;
    seek(&player, &blitz()).await;
    let got = player.get("/api/v1/seeks").await.ok(200, "seek");
    assert_eq!(got["seek"]["pool"], "freestyle/3+2");
    assert_eq!(player.delete("/api/v1/seeks").await.status.as_u16(), 204);
    let ended = news(&mut live).await;
    assert_eq!(ended, json!({"type": "seekEnded", "reason": "cancelled"}));
    assert_eq!(player.delete("/api/v1/seeks").await.status.as_u16(), 204);
    let pools = api.get("/api/v1/pools").await.ok(200, "pools");
    let keys: Vec<&str> = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pool"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "freestyle/1+0",
            "freestyle/3+2",
            "freestyle/10+5",
            "standard/1+0",
            "standard/3+2",
            "standard/10+5",
            "renju/10+5"
        ]
    );
}

/// Wrong requests: an unknown pool, bad JSON, a seek in a second pool, an unknown player, an
/// unknown leaderboard rule; each answered with its code, nothing stored changed.
#[tokio::test]
async fn wrong_requests_change_nothing() {
    let server = builder().start();
    let api = Api::on(&server);
    let (player, _live) = listening(&api).await;
    let mut stored = Stored::open(server.database()).await;
    let before = (stored.dump().await, stored.count("seeks").await);
    let mut unknown = blitz();
    unknown["timeControl"]["initialMs"] = json!(240000);
    player
        .post("/api/v1/seeks", &unknown)
        .await
        .assert_error(422, "UNKNOWN_POOL", "4+2");
    let renju_fast = json!({"rule": "renju", "boardSize": 15,
        "timeControl": {"initialMs": 60000, "incrementMs": 0}});
    player
        .post("/api/v1/seeks", &renju_fast)
        .await
        .assert_error(422, "UNKNOWN_POOL", "renju 1+0");
    let mut small = blitz();
    small["boardSize"] = json!(19);
    player
        .post("/api/v1/seeks", &small)
        .await
        .assert_error(422, "UNKNOWN_POOL", "19x19");
    player
        .post_raw("/api/v1/seeks", Some("application/json"), b"{\"rule\":")
        .await
        .assert_error(400, "INVALID_JSON", "bad JSON");
    player
        .post("/api/v1/seeks", &json!({"rule": "freestyle"}))
        .await
        .assert_error(400, "INVALID_JSON", "missing fields");
    api.get("/api/v1/players/nobody")
        .await
        .assert_error(404, "PLAYER_NOT_FOUND", "unknown id");
    api.get("/api/v1/leaderboard?rule=chess")
        .await
        .assert_error(400, "INVALID_QUERY", "rule");
    api.get("/api/v1/leaderboard?family=go")
        .await
        .assert_error(400, "INVALID_QUERY", "family");
    api.post("/api/v1/seeks", &blitz())
        .await
        .assert_error(401, "UNAUTHORIZED", "no token");
    assert_eq!((stored.dump().await, stored.count("seeks").await), before);
    // A seek in a second pool while waiting in one.
    seek(&player, &blitz()).await;
    let before = (stored.dump().await, stored.count("seeks").await);
    let mut slow = blitz();
    slow["timeControl"] = json!({"initialMs": 600000, "incrementMs": 5000});
    player
        .post("/api/v1/seeks", &slow)
        .await
        .assert_error(409, "ALREADY_SEEKING", "second pool");
    assert_eq!((stored.dump().await, stored.count("seeks").await), before);
    assert_eq!(
        player.get("/api/v1/seeks").await.ok(200, "seek")["seek"]["pool"],
        "freestyle/3+2"
    );
    // At the cap of unfinished games, a seek is refused.
    let capped = builder().args(["--max-unfinished-games", "1"]).start();
    let busy = Api::on(&capped).new_player().await;
    busy.create_online(json!({})).await;
    busy.post("/api/v1/seeks", &blitz())
        .await
        .assert_error(409, "TOO_MANY_GAMES", "at the cap");
    busy.get("/api/v1/seeks")
        .await
        .assert_error(404, "NOT_SEEKING", "nothing stored");
}

/// Two instances on `database`.
fn two_instances(database: &Database) -> (Server, Server) {
    let builder = builder().database(database);
    (builder.clone().start(), builder.start())
}

/// Fifty seekers split over two instances of one PostgreSQL database, both running pairing
/// rounds over the same pools: twenty-five games, nobody twice, each player told on the instance
/// that holds their channel.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn fifty_seekers_over_two_instances_pair_once() {
    let cluster = postgres::required_cluster();
    let database = Database::postgres_on(&cluster);
    let (a, b) = two_instances(&database);
    fifty_at_once(&[Api::on(&a), Api::on(&b)]).await;
}

/// A seek made through one instance while the player's channel is on the other is held by the
/// channel's instance (the grace for a channel to open does not drop it), a pairing made by one
/// instance reaches a player whose channel is on the other, and a seek dies with its channel on
/// the other instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn news_crosses_instances() {
    let cluster = postgres::required_cluster();
    let database = Database::postgres_on(&cluster);
    let builder = builder()
        .args(["--seek-grace-ms", "300"])
        .database(&database);
    let (a, b) = (builder.clone().start(), builder.start());
    let (x, mut x_live) = listening(&Api::on(&a)).await;
    let (y, mut y_live) = listening(&Api::on(&b)).await;
    // Each seeks through the other instance than the one holding their channel.
    seek(&x.on(&b), &blitz()).await;
    assert!(
        x_live
            .message_within(Duration::from_millis(1500))
            .await
            .is_none(),
        "the seek outlives the grace"
    );
    x.on(&b).get("/api/v1/seeks").await.ok(200, "still seeking");
    seek(&y.on(&a), &blitz()).await;
    let (px, py) = (news(&mut x_live).await, news(&mut y_live).await);
    assert_eq!(px["type"], "paired");
    assert_eq!(px["gameId"], py["gameId"]);
    let game = x.on(&b).game(px["gameId"].as_str().unwrap()).await;
    assert_eq!(game["rated"], true);
    // A seek through b dies when its player's only channel, on a, closes.
    let bullet = json!({"rule": "standard", "boardSize": 15,
        "timeControl": {"initialMs": 60000, "incrementMs": 0}});
    seek(&x.on(&b), &bullet).await;
    x_live.close().await;
    eventually("the seek dies with its channel", TRAVEL, async || {
        x.on(&b).get("/api/v1/seeks").await.is(404, "NOT_SEEKING")
    })
    .await;
}

/// An instance killed while its players seek: they drop out of the pool (nobody is paired with
/// a player who is gone), and when they seek again through the other instance they are paired.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn an_instance_killed_mid_seek_drops_its_seekers() {
    let cluster = postgres::required_cluster();
    let database = Database::postgres_on(&cluster);
    let (mut a, b) = two_instances(&database);
    let (x, _x_live) = listening(&Api::on(&a)).await;
    // One seeker on the instance about to die, in a pool of their own.
    let slow = json!({"rule": "renju", "boardSize": 15,
        "timeControl": {"initialMs": 600000, "incrementMs": 5000}});
    seek(&x, &slow).await;
    a.kill();
    let on_b = Api::on(&b);
    eventually(
        "the killed instance's seeker drops out",
        TRAVEL * 3,
        async || {
            let pools = on_b.get("/api/v1/pools").await.ok(200, "pools");
            pools["pools"][6]["waiting"] == 0
        },
    )
    .await;
    // A new player seeking in that pool on the live instance is not paired with the gone one.
    let (y, mut y_live) = listening(&on_b).await;
    seek(&y, &slow).await;
    assert!(y_live
        .message_within(Duration::from_secs(2))
        .await
        .is_none());
    // The gone player comes back through the other instance and seeks again: paired.
    let x = x.on(&b);
    let mut x_live = Live::own(&x).await.unwrap();
    assert_eq!(x_live.message().await["seek"], Value::Null);
    seek(&x, &slow).await;
    let (px, py) = (news(&mut x_live).await, news(&mut y_live).await);
    assert_eq!(
        (px["type"].as_str(), py["type"].as_str()),
        (Some("paired"), Some("paired"))
    );
    assert_eq!(px["gameId"], py["gameId"]);
    assert_eq!(px["pool"], "renju/10+5");
}
