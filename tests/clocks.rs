//! Clocks of online games (issue 12) through the real binary: Fischer time with its increment,
//! a flag that falls with no request and is pushed live, a move after the deadline, and a
//! restart in the middle of a timed game (the clock keeps its deadline; one that passed while
//! the server was down ends the game at that deadline).
//!
//! Durations are never asserted tightly: a flag must fall, be pushed and read `timeout`; times
//! left are checked against bounds with generous margins, because these machines are shared.

use std::time::Duration;

use gomoku_testkit::online::{play_alternately, start};
use gomoku_testkit::state::assert_state_consistent;
use gomoku_testkit::{gomoku_server, Api, Live, Player, Server, NO_RATE_LIMIT};
use serde_json::{json, Value};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

fn server() -> Server {
    gomoku_server!().args(NO_RATE_LIMIT).start()
}

async fn two(server: &Server) -> (Player, Player) {
    let api = Api::on(server);
    (api.new_player().await, api.new_player().await)
}

fn time_of(value: &Value) -> OffsetDateTime {
    OffsetDateTime::parse(value.as_str().expect("a time"), &Rfc3339).expect("RFC 3339")
}

/// When the running clock's flag falls, as a state tells it: its `asOf` plus the running side's
/// time left.
fn deadline_of(state: &Value) -> OffsetDateTime {
    let clock = &state["clock"];
    let running = match clock["running"].as_i64() {
        Some(1) => "blackMs",
        Some(2) => "whiteMs",
        _ => panic!("no clock runs: {clock}"),
    };
    time_of(&clock["asOf"]) + time::Duration::milliseconds(clock[running].as_i64().unwrap())
}

/// Asserts that game `id` ended on time for `winner`, and finished at `deadline` (to within the
/// rounding of the stored times).
async fn assert_timed_out_at(player: &Player, id: &str, winner: &str, deadline: OffsetDateTime) {
    let state = player.game(id).await;
    assert_eq!(
        (state["status"].as_str(), state["endReason"].as_str()),
        (Some(winner), Some("timeout"))
    );
    let finished = time_of(&player.export(id).await["finishedAt"]);
    let off = (finished - deadline).whole_milliseconds().abs();
    assert!(off <= 5, "it finished at its deadline (off by {off} ms)");
}

fn ms(value: &Value) -> i64 {
    value
        .as_i64()
        .unwrap_or_else(|| panic!("not milliseconds: {value}"))
}

/// Before black's first move no clock runs; black's first move costs nothing and earns the
/// increment; then the side to move's clock runs, and each move adds the increment to the
/// mover's clock. The export carries the time control and, per move, the mover's time left.
#[tokio::test]
async fn fischer_increment() {
    let server = server();
    let (black, white) = two(&server).await;
    let control = json!({"initialMs": 60_000, "incrementMs": 5_000});
    let (id, joined) = start(&black, &white, json!({"timeControl": control})).await;
    assert_eq!(joined["timeControl"], control);
    assert_eq!(
        (
            ms(&joined["clock"]["blackMs"]),
            ms(&joined["clock"]["whiteMs"]),
            &joined["clock"]["running"]
        ),
        (60_000, 60_000, &Value::Null),
        "no clock runs before black's first move"
    );
    let after_black = black.play_at(&id, 7, 7, 0).await;
    assert_eq!(
        ms(&after_black["clock"]["blackMs"]),
        65_000,
        "the first move earns the increment"
    );
    assert_eq!(after_black["clock"]["running"], 2);
    // Not an ordering: white's clock running down while white thinks is what is checked.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after_white = white.play_at(&id, 7, 8, 1).await;
    let white_left = ms(&after_white["clock"]["whiteMs"]);
    assert!(
        (5_000..65_000 - 250).contains(&white_left),
        "white's clock ran at least 300 ms and earned 5 s: {white_left}"
    );
    assert_eq!(after_white["clock"]["running"], 1);
    assert!(ms(&after_white["clock"]["blackMs"]) <= 65_000);

    let record = black.export(&id).await;
    assert_eq!(record["timeControl"], control);
    assert_eq!(record["moves"][0]["clockMs"], 65_000);
    assert_eq!(ms(&record["moves"][1]["clockMs"]), white_left);
}

/// A 2-second clock falls with no request at all: both players' sockets get the timed-out state
/// (status for the other colour, `endReason: "timeout"`, no time left, no clock running), and a
/// move after the deadline is 409 GAME_OVER with that state.
#[tokio::test]
async fn a_short_clock_falls_and_is_pushed() {
    let server = server();
    let (black, white) = two(&server).await;
    let control = json!({"initialMs": 2_000, "incrementMs": 0});
    let (id, _) = start(&black, &white, json!({"timeControl": control})).await;
    let mut black_live = Live::connect(&black, &id).await.unwrap();
    let mut white_live = Live::connect(&white, &id).await.unwrap();
    black_live.state().await;
    white_live.state().await;
    play_alternately(&black, &white, &id, 0, &[(7, 7), (7, 8)]).await;
    // Black's clock runs now; nobody sends anything.
    for live in [&mut black_live, &mut white_live] {
        let ended = live.state_where(|g| g["status"] != "playing").await;
        assert_eq!(
            (
                ended["status"].as_str(),
                ended["endReason"].as_str(),
                &ended["winner"]
            ),
            (Some("white_won"), Some("timeout"), &json!(2))
        );
        assert_eq!(
            (ms(&ended["clock"]["blackMs"]), &ended["clock"]["running"]),
            (0, &Value::Null)
        );
        assert_eq!(ended["currentPlayer"], Value::Null);
        assert_state_consistent(&ended);
    }
    let late = black.try_move_at(&id, 8, 8, 2).await;
    late.assert_error(409, "GAME_OVER", "a move after the flag fell");
    let game = &late.body["error"]["game"];
    assert_eq!(
        (game["status"].as_str(), game["endReason"].as_str()),
        (Some("white_won"), Some("timeout"))
    );
    assert_eq!(game["moveCount"], 2, "the late move is not played");
}

/// A restart in the middle of a timed game keeps the running clock's deadline: the flag still
/// falls, is pushed to a socket opened on the new server, and the game ends at that deadline.
/// A deadline that passes while the server is down ends the game on start, at the deadline.
#[tokio::test]
async fn a_restart_keeps_the_deadline() {
    let mut server = server();
    let (black, white) = two(&server).await;
    let control = json!({"initialMs": 4_000, "incrementMs": 0});
    let (id, _) = start(&black, &white, json!({"timeControl": control})).await;
    let before = black.play_at(&id, 7, 7, 0).await;
    let deadline = deadline_of(&before);

    server.restart();
    let (black, white) = (black.on(&server), white.on(&server));
    let after = white.game(&id).await;
    assert_eq!(after["clock"]["running"], 2, "white's clock still runs");
    let drift = (deadline_of(&after) - deadline).whole_milliseconds().abs();
    assert!(
        drift <= 5,
        "the deadline is kept across the restart (off by {drift} ms)"
    );
    let mut live = Live::connect(&black, &id).await.unwrap();
    live.state_where(|g| g["status"] != "playing").await;
    assert_timed_out_at(&black, &id, "black_won", deadline).await;

    // A second game whose deadline passes while the server is down.
    let (id, _) = start(&black, &white, json!({"timeControl": control})).await;
    let before = play_alternately(&black, &white, &id, 0, &[(7, 7), (7, 8)]).await;
    let deadline = deadline_of(&before);
    server.kill();
    // Not an ordering: the deadline passing while the server is down is what is checked.
    let wait = deadline - OffsetDateTime::now_utc() + time::Duration::milliseconds(500);
    tokio::time::sleep(Duration::try_from(wait).unwrap_or_default()).await;
    server.restart();
    let black = black.on(&server);
    // The timer re-armed at start fires at once; the game ends at the deadline that passed
    // while the server was down, not at the restart.
    let mut live = Live::connect(&black, &id).await.unwrap();
    live.state_where(|g| g["status"] != "playing").await;
    assert_timed_out_at(&black, &id, "white_won", deadline).await;
}
