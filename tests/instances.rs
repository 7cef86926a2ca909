//! Two server processes on one PostgreSQL database, as behind a load balancer without sticky
//! sessions: every request may reach either. A race for one ply sent to both lands once; a move
//! through one is read at once through the other and pushed to a socket held by the other; the
//! cap on unfinished games holds under creates split across both; a session made on one works on
//! the other, and a logout through one holds on both at once; a player's presence shows through
//! the instance that does not hold their socket; a flag falls once with both armed, and on time
//! when the instance that started the clock is gone; a SIGKILL of one under load loses no
//! acknowledged write while the other keeps serving; a listener that reconnects gives every
//! socket a fresh state; an offer lapses once with both armed, pushed through both; accepts of a
//! rematch through both at once make one game, pushed to both players' sockets; a flag that falls
//! while PostgreSQL is down reaches both instances' sockets once it is back; and a spectator
//! connecting at the same moment as both players is told their presence only ever growing (also
//! on one server, on either backend).
//!
//! These need PostgreSQL, so they are ignored unless asked for: `scripts/test.sh` runs them with
//! `GOMOKU_TEST_DATABASE` naming a cluster and `-- --include-ignored`; asked for without a
//! cluster, they fail saying so. The one that stops PostgreSQL does it to a private cluster of
//! its own, never to the suite's. (The last test, on one server, runs on either backend.)

use std::time::Duration;

use gomoku_testkit::crash::CrashRun;
use gomoku_testkit::live::{Live, WAIT};
use gomoku_testkit::online;
use gomoku_testkit::postgres::{self, Cluster};
use gomoku_testkit::restart::flag_fall_across_restart;
use gomoku_testkit::state::{id_of, moves_of};
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{
    clock_seed, eventually, gomoku_server, one_landed, race_players, race_posts, Api, Database,
    Player, Server, ServerBuilder, NO_RATE_LIMIT,
};
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde_json::{json, Value};

/// Two instances on `database`, both started from `builder`.
fn two_instances(builder: ServerBuilder, database: &Database) -> (Server, Server) {
    let builder = builder.database(database);
    (builder.clone().start(), builder.start())
}

/// How long a change may take to travel between instances through the database.
const TRAVEL: Duration = Duration::from_secs(10);

/// For twelve plies running, the same player sends a different move for the same ply through
/// each instance at once: exactly one lands, the other gets a clean 409 PLY_MISMATCH, and the
/// stored moves are exactly the ones that landed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_race_for_one_ply_across_instances_lands_once() {
    let database = Database::required_postgres();
    let (a, b) = two_instances(gomoku_server!().args(NO_RATE_LIMIT), &database);
    let on_a = Player::new(&a).await;
    let on_b = on_a.on(&b);
    let id = on_a.create_id(json!({"boardSize": 15})).await;
    let mut landed = Vec::new();
    for ply in 0..12 {
        // Two cells in a row far apart from the other plies', so no five ever forms.
        let (row, col) = (ply / 6 * 3, ply % 6 * 2);
        let answers = race_players(
            &id,
            vec![
                (on_a.clone(), json!({"row": row, "col": col, "ply": ply})),
                (
                    on_b.clone(),
                    json!({"row": row + 1, "col": col, "ply": ply}),
                ),
            ],
        )
        .await;
        let won = one_landed(&answers, "PLY_MISMATCH", &format!("ply {ply}"));
        landed.push(moves_of(&won.body)[ply as usize]);
    }
    for player in [&on_a, &on_b] {
        assert_eq!(moves_of(&player.game(&id).await), landed);
    }
    Stored::open(&database)
        .await
        .assert_game(&on_b.game(&id).await)
        .await;
}

/// A move through instance A is in a GET through B at once (B had the game cached at the
/// version before), and reaches a live socket held by B: the opponent's and a spectator's.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_move_through_one_instance_is_seen_through_the_other() {
    let database = Database::required_postgres();
    let (a, b) = two_instances(gomoku_server!().args(NO_RATE_LIMIT), &database);
    let api = Api::on(&a);
    let (black, white, watcher) = (
        api.new_player().await,
        api.new_player().await,
        api.new_player().await,
    );
    let (id, joined) = online::start(&black, &white, json!({})).await;
    let (white_b, watcher_b) = (white.on(&b), watcher.on(&b));
    assert_eq!(white_b.game(&id).await["version"], joined["version"]);
    let mut sockets = Vec::new();
    for player in [&white_b, &watcher_b] {
        let mut live = Live::connect(player, &id).await.expect("connect on B");
        assert_eq!(live.state().await["version"], joined["version"]);
        sockets.push(live);
    }

    for (ply, (row, col)) in [(7, 7), (8, 8), (7, 8)].into_iter().enumerate() {
        let mover = if ply % 2 == 0 { &black } else { &white };
        let moved = mover.play_at(&id, row, col, ply as i64).await;
        let version = moved["version"].as_i64().unwrap();
        // Through B at once: no waiting, no retry.
        let read = watcher_b.game(&id).await;
        assert_eq!(
            read["version"], moved["version"],
            "GET on B after ply {ply}"
        );
        assert_eq!(read["moveHistory"], moved["moveHistory"]);
        for live in &mut sockets {
            let pushed = live.state_at(version).await;
            assert_eq!(pushed["moveHistory"], moved["moveHistory"], "socket on B");
        }
    }
}

/// 32 creates at once by one player, half through each instance, with a cap of 10 unfinished
/// games: exactly 10 are made, the rest are 409 TOO_MANY_GAMES, and the player has 10 games.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn the_cap_holds_under_creates_split_across_instances() {
    let database = Database::required_postgres();
    let builder =
        gomoku_server!().args(["--write-rate-limit", "0", "--max-unfinished-games", "10"]);
    let (a, b) = two_instances(builder, &database);
    let on_a = Player::new(&a).await;
    let on_b = on_a.on(&b);
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(32));
    let creates: Vec<_> = (0..32)
        .map(|i| {
            let player = if i % 2 == 0 {
                on_a.clone()
            } else {
                on_b.clone()
            };
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                player
                    .post("/api/v1/games", &json!({"mode": "local"}))
                    .await
            })
        })
        .collect();
    let mut made = 0;
    for create in creates {
        let reply = create.await.unwrap();
        if reply.status == 201 {
            made += 1;
        } else {
            reply.assert_error(409, "TOO_MANY_GAMES", "a create past the cap");
        }
    }
    assert_eq!(made, 10, "exactly the cap is made");
    assert_eq!(on_b.game_ids().await.len(), 10);
    assert_eq!(on_a.list_all(Some("playing"), 100).await.len(), 10);
}

/// A session started on A works on B; logging out through B ends it on A at once (no instance
/// believes a session it read before).
#[tokio::test]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn sessions_are_shared_and_logout_holds_everywhere() {
    let database = Database::required_postgres();
    let (a, b) = two_instances(gomoku_server!(), &database);
    let on_a = Player::new(&a).await;
    let id = on_a.create_id(json!({})).await;
    let on_b = on_a.on(&b);
    assert_eq!(id_of(&on_b.game(&id).await), id, "B knows A's session");
    on_a.get("/api/v1/games")
        .await
        .ok(200, "A reads the session");
    on_b.delete("/api/v1/sessions/current")
        .await
        .ok(204, "logout through B");
    on_a.get("/api/v1/games")
        .await
        .assert_error(401, "UNAUTHORIZED", "A right after the logout");
}

/// A player whose socket is held by A shows as online in a GET through B (and in B's listing),
/// and as offline once the socket closes; a socket on B hears the presence change too.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn presence_shows_through_the_instance_without_the_socket() {
    let database = Database::required_postgres();
    let (a, b) = two_instances(gomoku_server!(), &database);
    let api = Api::on(&a);
    let (black, white) = (api.new_player().await, api.new_player().await);
    let (id, _) = online::start(&black, &white, json!({})).await;
    let white_b = white.on(&b);
    let mut white_live = Live::connect(&white_b, &id).await.expect("white on B");
    white_live.state().await;
    let online = |state: &Value, colour: &str| state["players"][colour]["online"] == true;

    let black_live = Live::connect(&black, &id).await.expect("black on A");
    // Published before the socket's first message: B knows at once, or nearly.
    eventually("black online through B", TRAVEL, async || {
        online(&white_b.game(&id).await, "black")
    })
    .await;
    let listed = white_b.list_all(None, 20).await;
    assert!(online(&listed[0], "black"), "B's listing: {}", listed[0]);
    white_live
        .presence_where(|p| p["black"] == true && p["white"] == true)
        .await;

    black_live.close().await;
    eventually("black offline through B", TRAVEL, async || {
        !online(&white_b.game(&id).await, "black")
    })
    .await;
    white_live.presence_where(|p| p["black"] == false).await;
}

/// An online game on a 1-second clock (no increment) between black, a player through `a`, and
/// white, a player through `b`; its id.
async fn one_second_game(a: &Server, b: &Server) -> (Player, Player, String) {
    let black = Player::new(a).await;
    let white = Api::on(b).new_player().await;
    let (id, _) = online::start(
        &black,
        &white,
        json!({"timeControl": {"initialMs": 1000, "incrementMs": 0}}),
    )
    .await;
    (black, white, id)
}

/// A 1-second clock with both players' sockets, one on each instance, so both instances arm a
/// timer: the flag falls once (one write: the version goes up by one, one "flag fell" in the two
/// logs together), and both sockets get the timed-out state.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_flag_falls_once_with_both_instances_armed() {
    let database = Database::required_postgres();
    let builder = gomoku_server!()
        .env("RUST_LOG", "gomoku::online=info")
        .capture_log();
    let (a, b) = two_instances(builder, &database);
    let (black, white, id) = one_second_game(&a, &b).await;
    let mut sockets = vec![
        Live::connect(&black, &id).await.expect("black on A"),
        Live::connect(&white, &id).await.expect("white on B"),
    ];
    let moved = black.play_at(&id, 7, 7, 0).await;
    let version = moved["version"].as_i64().unwrap();
    for live in &mut sockets {
        let ended = live.state_where(|s| s["endReason"] == "timeout").await;
        assert_eq!(ended["status"], "black_won");
        assert_eq!(ended["version"], version + 1, "one write ended the game");
    }
    // The log line follows the commit that pushed the state; the other timer fired at the same
    // deadline and has long found the game ended by the time a second has passed.
    let falls = || {
        [&a, &b]
            .iter()
            .map(|s| s.log_text().matches("flag fell").count())
            .sum::<usize>()
    };
    eventually(
        "a flag fall logged by either instance",
        TRAVEL,
        async || falls() > 0,
    )
    .await;
    // A sleep that is the check itself: the other timer finding the game ended leaves no trace
    // to wait for, so it is given a second to write a second fall, and must not have.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(falls(), 1, "the flag fell once over both instances");
    assert_eq!(white.game(&id).await["version"], version + 1);
}

/// The instance that started a clock is killed right after the move: the other, armed through
/// the database's news, ends the game on time and pushes it to the socket it holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_flag_falls_on_time_when_the_clock_starter_is_gone() {
    let database = Database::required_postgres();
    let (mut a, b) = two_instances(gomoku_server!(), &database);
    let (black, white, id) = one_second_game(&a, &b).await;
    let mut live = Live::connect(&white, &id).await.expect("white on B");
    live.state().await;
    black.play_at(&id, 7, 7, 0).await;
    a.kill();
    let ended = live.state_where(|s| s["endReason"] == "timeout").await;
    assert_eq!(ended["status"], "black_won");
    assert_eq!(white.game(&id).await["status"], "black_won");
}

/// Writers on both instances; one instance is killed with SIGKILL three times over (and started
/// again): every write acknowledged by either survives, the other instance serves its writers all
/// along (no refusal, writes acknowledged after each kill), and the database stays sound.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_killed_instance_loses_nothing_and_the_other_keeps_serving() {
    let database = Database::required_postgres();
    let builder = gomoku_server!().args(["--write-rate-limit", "0", "--ai-concurrency", "1"]);
    let (mut victim, survivor) = two_instances(builder, &database);
    let seed = clock_seed();
    eprintln!("random seed {seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut crashes = CrashRun::new(&Api::on(&survivor), 8, &[9, 15]).await;
    for round in 0..3 {
        let figures = crashes
            .round_beside(
                &mut victim,
                &survivor,
                (Duration::from_millis(800), Duration::from_millis(500)),
                &mut rng,
                round,
            )
            .await;
        assert!(figures.integrity_ok && figures.lost == 0, "{figures:?}");
        assert!(
            figures.acked_after_kill > 0,
            "round {round}: the survivor served nothing after the kill: {figures:?}"
        );
        victim.restart();
    }
}

/// When the listeners' connections are cut (the database terminates them), they reconnect, and
/// a socket on that instance gets a fresh state even though the game did not change, then
/// hears the moves made through the other instance as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_reconnected_listener_gives_every_socket_a_fresh_state() {
    let database = Database::required_postgres();
    let (a, b) = two_instances(gomoku_server!(), &database);
    let black = Player::new(&a).await;
    let white = Api::on(&b).new_player().await;
    let (id, joined) = online::start(&black, &white, json!({})).await;
    let version = joined["version"].as_i64().unwrap();
    let mut live = Live::connect(&white, &id).await.expect("white on B");
    assert_eq!(live.state().await["version"], version);

    let mut stored = Stored::open(&database).await;
    let cut: i64 = sqlx::query_scalar(
        "select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity \
         where application_name like 'gomoku-listener %' and datname = current_database()) t",
    )
    .fetch_one(stored.connection())
    .await
    .expect("terminate the listeners");
    assert_eq!(cut, 2, "both instances listen");
    let fresh = live.state().await;
    assert_eq!(fresh["version"], version, "the same game, sent again");

    let moved = black.play_at(&id, 7, 7, 0).await;
    let pushed = live.state_at(moved["version"].as_i64().unwrap()).await;
    assert_eq!(pushed["moveHistory"], moved["moveHistory"]);
}

/// A draw offered through A, standing 300 ms, lapses with both instances' timers armed (B's
/// from A's news): the sockets on both get the state without it, one change (one version) made
/// by one of them, and an accept through B after it is 409 NO_OFFER.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn an_offer_lapses_once_with_both_instances_armed() {
    let database = Database::required_postgres();
    let builder = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--offer-ttl-ms", "300"]);
    let (a, b) = two_instances(builder, &database);
    let api = Api::on(&a);
    let (black, white) = (api.new_player().await, api.new_player().await);
    let (id, _) = online::start(&black, &white, json!({})).await;
    let white_b = white.on(&b);
    let mut on_a = Live::connect(&black, &id).await.expect("connect on A");
    let mut on_b = Live::connect(&white_b, &id).await.expect("connect on B");
    on_a.state().await;
    on_b.state().await;
    let offered = black.draw(&id, "offer").await.ok(200, "offer through A");
    let version = offered["version"].as_i64().unwrap();
    for live in [&mut on_a, &mut on_b] {
        let lapsed = live
            .state_where(|g| g["version"].as_i64() > Some(version))
            .await;
        assert_eq!(lapsed["offers"]["draw"], Value::Null, "the lapse is pushed");
        assert_eq!(lapsed["version"], version + 1, "one change");
    }
    white_b
        .draw(&id, "accept")
        .await
        .assert_error(409, "NO_OFFER", "an accept after the lapse");
    assert_eq!(white_b.game(&id).await["version"], version + 1);
}

/// White offers a rematch through A; black's socket on B hears it. Black's accepts through both
/// instances at once make one game (the version-guarded write decides, the loser answers the
/// finished game naming it), and both players' sockets, one on each instance, get the finished
/// game naming the new one, which either instance serves with the colours swapped.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_rematch_across_instances_is_made_once_and_pushed_to_both() {
    let database = Database::required_postgres();
    let (a, b) = two_instances(gomoku_server!().args(NO_RATE_LIMIT), &database);
    let api = Api::on(&a);
    let (black, white) = (api.new_player().await, api.new_player().await);
    let (id, _) = online::start(&black, &white, json!({})).await;
    let black_b = black.on(&b);
    let mut white_on_a = Live::connect(&white, &id).await.expect("connect on A");
    let mut black_on_b = Live::connect(&black_b, &id).await.expect("connect on B");
    let ended = black.resign(&id).await.ok(200, "black resigns");
    let ended_at = ended["version"].as_i64().unwrap();
    white_on_a.state_at(ended_at).await;
    black_on_b.state_at(ended_at).await;

    white.rematch(&id, "offer").await.ok(200, "offer through A");
    black_on_b
        .state_where(|g| g["offers"]["rematch"]["by"] == 2)
        .await;
    let accept = json!({"action": "accept"});
    let answers = race_posts(
        &format!("/api/v1/games/{id}/rematch"),
        vec![(black.clone(), accept.clone()), (black_b.clone(), accept)],
    )
    .await;
    let made: Vec<Value> = answers
        .into_iter()
        .map(|a| a.ok(200, "an accept")["rematchGameId"].clone())
        .collect();
    let new_id = made[0].as_str().expect("a rematch was made").to_string();
    assert_eq!(made[1], made[0], "one game");
    for live in [&mut white_on_a, &mut black_on_b] {
        live.state_where(|g| g["rematchGameId"] == new_id).await;
    }
    let new = black_b.game(&new_id).await;
    assert_eq!(
        (new["status"].as_str(), new["you"].as_i64()),
        (Some("playing"), Some(2))
    );
    assert_eq!(white.game(&new_id).await["you"], 1);
    for player in [&black, &white] {
        assert_eq!(
            player.list_all(Some("playing"), 20).await.len(),
            1,
            "one new game"
        );
    }
}

/// A PostgreSQL cluster of the test's own, which it may stop and start; panics, saying why,
/// when the suite has no cluster or PostgreSQL's programs are not installed here.
fn private_cluster() -> Cluster {
    postgres::required_cluster();
    assert!(
        Cluster::installed(),
        "this test starts a PostgreSQL cluster of its own: PostgreSQL's programs must be \
         installed (under /usr/lib/postgresql)"
    );
    Cluster::start(false)
}

/// A timed game with black's socket on A and white's on B; PostgreSQL is stopped before the
/// deadline and started again after it (both instances' timers fire while it is down): both
/// sockets get the timed-out state once it is back, the one on the instance that did not write
/// it through a listener that must catch up on what it missed. (The stress run `pg-restart` loops
/// this and prints how fast.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_flag_that_falls_while_the_database_is_down_reaches_both_instances() {
    let cluster = private_cluster();
    let database = Database::postgres_on(cluster.url());
    let (a, b) = two_instances(gomoku_server!(), &database);
    // Down for long enough that the listeners' first attempts to reconnect fail.
    let down = Duration::from_secs(7);
    let trial = flag_fall_across_restart(&cluster, &database, (&a, &b), down).await;
    assert!(trial.void.is_none(), "{trial:?}");
    assert_eq!(
        trial.delivered, 2,
        "both sockets get the timeout: {trial:?}"
    );
}

/// Who a live message says is connected, (black, white): a state's players, or a presence.
fn told_presence(message: &Value) -> Option<(bool, bool)> {
    let online = |v: &Value| v["online"] == true;
    match message["type"].as_str()? {
        "state" => {
            let players = &message["game"]["players"];
            Some((online(&players["black"]), online(&players["white"])))
        }
        "presence" => Some((message["black"] == true, message["white"] == true)),
        _ => None,
    }
}

/// `rounds` times: a new game between a player through `a` and a player through `b`, whose
/// sockets connect at the same moment as a spectator's (through `a` and `b` in turn). What the
/// spectator is told of the players' presence (its states and its presence messages) only moves
/// toward both connected: once it said a player was there, it never says otherwise while they
/// stay. Read until a move made after both were seen arrives, so everything queued before it
/// has been sent. The servers' logs must be captured (they are shown when something never
/// comes).
async fn presence_only_grows(a: &Server, b: &Server, rounds: usize) {
    for round in 0..rounds {
        let black = Player::new(a).await;
        let (white, watcher) = (Api::on(b).new_player().await, Api::on(a).new_player().await);
        let (id, _) = online::start(&black, &white, json!({})).await;
        let watcher = if round % 2 == 0 {
            watcher
        } else {
            watcher.on(b)
        };
        let (spectator, black_live, white_live) = tokio::join!(
            Live::connect(&watcher, &id),
            Live::connect(&black, &id),
            Live::connect(&white, &id),
        );
        let mut spectator = spectator.expect("the spectator connects");
        let mut told = Vec::new();
        while told.last() != Some(&(true, true)) {
            let message = spectator.message_within(WAIT).await.unwrap_or_else(|| {
                panic!(
                    "round {round}: both players never shown; the spectator was told {told:?}\n\
                     A: {}\nB: {}",
                    a.log_text(),
                    b.log_text()
                )
            });
            told.extend(told_presence(&message));
        }
        let moved = black.play_at(&id, 7, 7, 0).await;
        loop {
            let message = spectator.message_within(WAIT).await.unwrap_or_else(|| {
                panic!(
                    "round {round}: the move never reached the spectator; told {told:?}\n\
                     A: {}\nB: {}",
                    a.log_text(),
                    b.log_text()
                )
            });
            told.extend(told_presence(&message));
            if message["game"]["version"] == moved["version"] {
                break;
            }
        }
        for pair in told.windows(2) {
            let ((b0, w0), (b1, w1)) = (pair[0], pair[1]);
            assert!(
                b1 >= b0 && w1 >= w0,
                "round {round}: the spectator was told (black, white) {told:?}"
            );
        }
        drop((black_live, white_live));
    }
}

/// Two players and a spectator connecting at once, the players through different instances:
/// the spectator's presence never steps back (it once went (T,T) → (F,F) → (T,F) → (T,T)).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn presence_told_across_instances_only_moves_toward_the_truth() {
    let database = Database::required_postgres();
    let (a, b) = two_instances(gomoku_server!().capture_log(), &database);
    presence_only_grows(&a, &b, 10).await;
}

/// The same on one server (the suite's backend): a connection's first message tells the
/// presence of now, and what was queued for it before then does not bring back older ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn presence_told_by_one_server_only_moves_toward_the_truth() {
    let server = gomoku_server!().capture_log().start();
    presence_only_grows(&server, &server, 10).await;
}
