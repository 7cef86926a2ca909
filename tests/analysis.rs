//! Post-game analysis through the real server: the marks of constructed blunders, the states of
//! the endpoint (none, running, done) and how it follows a game that changes, who may read and
//! start it, its limits, a restart in the middle of one, and (on PostgreSQL) two instances on
//! one database, of which one works on an analysis.
//!
//! Searches are pinned by a node limit (`--analysis-node-limit`) under a budget that never binds,
//! so the marks do not depend on the machine's speed.

use std::time::Duration;

use gomoku_rules::{Game, Outcome, Point, Rule, Stone};
use gomoku_testkit::lines::record;
use gomoku_testkit::state::id_of;
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{
    eventually, gomoku_server, online, Database, Player, Server, ServerBuilder, NO_RATE_LIMIT,
};
use serde_json::{json, Value};

/// Nodes per search of an analysed move: enough for the tactics below, a few tens of ms a move.
const NODES: &str = "8000";
/// Longest wait for one analysis of the games below.
const DONE_WITHIN: Duration = Duration::from_secs(120);

/// Black (X) has a four on row 7, blocked at (7,6); white (O) ignored it. At ply 8 black plays
/// (3,3) instead of the five at (7,11); at ply 9 white blocks, the only move that does not lose.
/// ```text
///      0 1 2 3 4 5 6 7 8 9 10 11
///   0  O . . . . . . . . . .  .   (and O at (0,14), (14,0))
///   3  . . . * . . . . . . .  .   * = ply 8, black
///   7  . . . . . . O X X X X  +   + = the five, then white's block at ply 9
/// ```
const MISSED_FIVE: &[(i64, i64)] = &[
    (7, 7),
    (7, 6),
    (7, 8),
    (0, 0),
    (7, 9),
    (0, 14),
    (7, 10),
    (14, 0),
    (3, 3),
    (7, 11),
];

/// White builds a four on row 3 (blocked by black at (3,3)) while black plays in the centre. At
/// ply 8 black plays (10,10) instead of blocking at (3,8), and white makes five there.
/// ```text
///      3 4 5 6 7 8 9 10
///   3  X O O O O + . .    + = black's block, white's five at ply 9
///   7  . . . . X X . .
///   9  . . . . . . X .
///  10  . . . . . . . *    * = ply 8, black
/// ```
const UNBLOCKED_FOUR: &[(i64, i64)] = &[
    (7, 7),
    (3, 4),
    (7, 8),
    (3, 5),
    (3, 3),
    (3, 6),
    (9, 9),
    (3, 7),
    (10, 10),
    (3, 8),
];

/// Black to move at ply 16 wins by fours: (6,6) makes a four on the anti-diagonal (3,9)…(6,6)
/// that white must block at (7,5); then (7,6) makes two fours, on column 6 ((4,6)…(7,6), five
/// at (8,6)) and on the diagonal (7,6)…(10,9) (five at (6,5)). Black plays (13,2) instead, and
/// white breaks it up at (6,6).
/// ```text
///      2 3 4 5 6 7 8 9 10
///   2  . . . . . . . . O
///   3  . . . . O . . X .
///   4  . . . . X O X . .
///   5  . . . O X X . . .
///   6  . . . . 1 . O . .     1 = black's first four, 2 = the double four
///   7  . . . . 2 . . O .
///   8  . . . . . X . . .
///   9  . . . . O . X . .
///  10  . . . . . . . X .
///  11  . . . . . . . . O
///  13  * . . . . . . . .     * = ply 16, black
/// ```
const MISSED_VCF: &[(i64, i64)] = &[
    (4, 8),
    (4, 7),
    (5, 7),
    (6, 8),
    (3, 9),
    (2, 10),
    (5, 6),
    (5, 5),
    (4, 6),
    (3, 6),
    (8, 7),
    (7, 9),
    (9, 8),
    (11, 10),
    (10, 9),
    (9, 6),
    (13, 2),
    (6, 6),
];

/// A server whose analyses are pinned by the node limit, without the rate limit on writes,
/// plus `args`.
fn server_with(args: &[&str]) -> ServerBuilder {
    gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args([
            "--analysis-node-limit",
            NODES,
            "--analysis-move-ms",
            "60000",
        ])
        .args(args)
}

/// [`server_with`] without the limit on hints (which starting an analysis costs).
fn server() -> ServerBuilder {
    server_with(&["--hints-per-minute", "0"])
}

/// A local game of `player` holding `moves` (imported), its id.
async fn game_of(player: &Player, moves: &[(i64, i64)]) -> String {
    let state = player
        .import(&record("freestyle", 15, moves))
        .await
        .ok(201, "import");
    id_of(&state)
}

/// The analysis of the game, started and waited for; the done answer.
async fn analysed(player: &Player, id: &str) -> Value {
    let started = player.start_analysis(id).await.ok(202, "POST analysis");
    assert_eq!(started["status"], "running", "{started}");
    player
        .analysis_until_done(id, DONE_WITHIN)
        .await
        .pop()
        .expect("the done answer")
}

/// The analysed move at `ply`.
fn at(analysis: &Value, ply: usize) -> &Value {
    let m = &analysis["moves"][ply];
    assert_eq!(m["ply"], ply, "moves are listed by ply: {analysis}");
    m
}

fn point(m: &Value) -> (i64, i64) {
    (
        m["best"]["row"].as_i64().unwrap(),
        m["best"]["col"].as_i64().unwrap(),
    )
}

/// The move at `ply` gave up a forced win that starts at `win`: marked so, with the winning move
/// as the better one, won (1.0) after it and no longer won after the move played.
#[track_caller]
fn assert_missed_win(analysis: &Value, ply: usize, win: (i64, i64)) {
    let missed = at(analysis, ply);
    assert_eq!(missed["mark"], "winning_threat_missed", "{missed}");
    assert_eq!(point(missed), win, "the win is the better move: {missed}");
    assert_eq!(missed["bestEval"], 1.0, "{missed}");
    assert!(missed["eval"].as_f64().unwrap() < 1.0, "{missed}");
}

/// A done analysis of a game of `count` moves: every move once, in order, with probabilities.
fn assert_complete(analysis: &Value, count: usize) {
    assert_eq!(analysis["status"], "done", "{analysis}");
    assert_eq!(analysis["progress"], 1.0, "{analysis}");
    assert_eq!(analysis["moveCount"], count, "{analysis}");
    assert_eq!(analysis["outdated"], false, "{analysis}");
    let moves = analysis["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), count, "{analysis}");
    for (ply, m) in moves.iter().enumerate() {
        assert_eq!(m["ply"], ply);
        for key in ["eval", "bestEval"] {
            let p = m[key].as_f64().expect("a probability");
            assert!((0.0..=1.0).contains(&p), "{key} {p} at ply {ply}");
        }
    }
}

/// Every analysed move of the game of `moves` carries its line: present, at most 6 plies, the
/// first being `best`, and playable in order from the position before the move; the game after
/// the line of each move, to look further.
#[track_caller]
fn assert_lines(analysis: &Value, moves: &[(i64, i64)]) -> Vec<Game> {
    let points: Vec<Point> = moves
        .iter()
        .map(|&(r, c)| Point::new(r as usize, c as usize))
        .collect();
    let mut after = Vec::new();
    for (ply, m) in analysis["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .enumerate()
    {
        let line = m["line"].as_array().expect("a line");
        assert!((1..=6).contains(&line.len()), "ply {ply}: {m}");
        assert_eq!(line[0], m["best"], "the line starts with best: {m}");
        let mut game = Game::replay(15, Rule::Freestyle, &points[..ply]).expect("a legal game");
        for step in line {
            let (r, c) = (step["row"].as_u64().unwrap(), step["col"].as_u64().unwrap());
            game.play(Point::new(r as usize, c as usize))
                .unwrap_or_else(|e| panic!("ply {ply}: {step} refused ({e:?}): {m}"));
        }
        after.push(game);
    }
    after
}

/// The fixture's VCF really wins under the rules: after the first 16 moves, (6,6), the forced
/// block (7,5) and (7,6) leave two fives that one stone cannot both stop.
#[test]
fn the_missed_vcf_wins_by_the_rules() {
    let points: Vec<Point> = MISSED_VCF[..16]
        .iter()
        .map(|&(r, c)| Point::new(r as usize, c as usize))
        .collect();
    for (block, five) in [((8, 6), (6, 5)), ((6, 5), (8, 6))] {
        let mut game = Game::replay(15, Rule::Freestyle, &points).expect("a legal game");
        for (r, c) in [(6, 6), (7, 5), (7, 6), block, five] {
            game.play(Point::new(r, c)).expect("a legal move");
        }
        assert!(
            matches!(
                game.outcome(),
                Outcome::Win {
                    winner: Stone::Black,
                    ..
                }
            ),
            "{:?}",
            game.outcome()
        );
    }
}

/// Constructed blunders get their marks: a five missed and a VCF missed are forced wins given
/// away (with the engine's winning move as the better one), a four left open is a blunder, and
/// the one block of a four is the only move. Every move's line is legal from the position
/// before it and starts with `best`; the missed five's line is the five, and the missed VCF's
/// is the winning sequence, ending in black's five.
#[tokio::test]
async fn constructed_blunders_get_their_marks() {
    let server = server().start();
    let player = Player::new(&server).await;

    let id = game_of(&player, MISSED_FIVE).await;
    let analysis = analysed(&player, &id).await;
    assert_complete(&analysis, MISSED_FIVE.len());
    assert_missed_win(&analysis, 8, (7, 11));
    assert_eq!(at(&analysis, 9)["mark"], "only_move", "white's block");
    let after = assert_lines(&analysis, MISSED_FIVE);
    assert_eq!(at(&analysis, 8)["line"], json!([{"row": 7, "col": 11}]));
    assert_eq!(after[8].outcome().winner(), Some(Stone::Black));

    let id = game_of(&player, UNBLOCKED_FOUR).await;
    let analysis = analysed(&player, &id).await;
    assert_complete(&analysis, UNBLOCKED_FOUR.len());
    let open = at(&analysis, 8);
    assert_eq!(open["mark"], "blunder", "{open}");
    assert_eq!(open["eval"], 0.0, "white has five next");
    assert_eq!(point(open), (3, 8), "the block is the better move");
    assert!(open["bestEval"].as_f64().unwrap() >= 0.35, "{open}");
    let five = at(&analysis, 9);
    assert_eq!(
        (five["mark"].clone(), five["eval"].clone()),
        (json!(null), json!(0.0))
    );
    assert_lines(&analysis, UNBLOCKED_FOUR);

    let id = game_of(&player, MISSED_VCF).await;
    let analysis = analysed(&player, &id).await;
    assert_complete(&analysis, MISSED_VCF.len());
    assert_missed_win(&analysis, 16, (6, 6));
    let after = assert_lines(&analysis, MISSED_VCF);
    let vcf = at(&analysis, 16)["line"].as_array().unwrap().clone();
    assert_eq!(
        vcf.len(),
        5,
        "four, block, double four, block, five: {vcf:?}"
    );
    assert_eq!(after[16].outcome().winner(), Some(Stone::Black));
}

/// None, then running, then done: GET before any POST is 404 ANALYSIS_NOT_FOUND; the POST
/// answers 202 running; the moves come in order while the progress climbs to 1; a POST on a
/// done analysis is 200 and changes nothing. When the game goes on, or moves are taken back and
/// played differently, the analysis says it is outdated and keeps only the moves that still
/// hold; a POST analyses the rest and reuses those.
#[tokio::test]
async fn states_and_a_game_that_changes() {
    let server = server().start();
    let player = Player::new(&server).await;
    let id = game_of(&player, &UNBLOCKED_FOUR[..8]).await;

    player
        .analysis(&id)
        .await
        .assert_error(404, "ANALYSIS_NOT_FOUND", "before any POST");
    let started = player.start_analysis(&id).await.ok(202, "POST");
    assert_eq!(started["status"], "running");
    assert_eq!(started["moveCount"], 8);
    assert!(started["progress"].as_f64().unwrap() < 1.0, "{started}");
    let seen = player.analysis_until_done(&id, DONE_WITHIN).await;
    let mut so_far = 0;
    for answer in &seen {
        let count = answer["moves"].as_array().unwrap().len();
        let progress = answer["progress"].as_f64().unwrap();
        assert!(count >= so_far, "moves are never lost: {answer}");
        if answer["status"] == "running" {
            assert_eq!((progress * 8.0).round() as usize, count, "{answer}");
        }
        so_far = count;
    }
    let done = seen.last().unwrap().clone();
    assert_complete(&done, 8);
    let again = player.start_analysis(&id).await.ok(200, "POST when done");
    assert_eq!(again, done, "nothing to do");

    // The game goes on: white's five is not analysed yet.
    player.play_all(&id, &UNBLOCKED_FOUR[8..]).await;
    let outdated = player.analysis(&id).await.ok(200, "GET");
    assert_eq!(outdated["outdated"], true, "{outdated}");
    assert_eq!(outdated["moves"], done["moves"]);
    let extended = player.start_analysis(&id).await.ok(202, "POST again");
    assert_eq!(
        extended["moves"], done["moves"],
        "the first eight are kept, not analysed again"
    );
    assert_eq!(extended["progress"], 0.8);
    let longer = player
        .analysis_until_done(&id, DONE_WITHIN)
        .await
        .pop()
        .unwrap();
    assert_complete(&longer, 10);
    assert_eq!(at(&longer, 8)["mark"], "blunder");

    // Take back both moves and block the four instead: the old ply 8 no longer holds.
    player.undo(&id).await.ok(200, "undo");
    player.undo(&id).await.ok(200, "undo");
    player.play_all(&id, &[(3, 8), (8, 8)]).await;
    let changed = player.analysis(&id).await.ok(200, "GET after the undo");
    assert_eq!(changed["outdated"], true);
    assert_eq!(changed["moves"], done["moves"], "plies 0 to 7 still hold");
    let redone = analysed(&player, &id).await;
    assert_complete(&redone, 10);
    assert_eq!(
        redone["moves"].as_array().unwrap()[..8],
        done["moves"].as_array().unwrap()[..]
    );
    assert_eq!(at(&redone, 8)["mark"], "only_move", "the block");
}

/// Who may read and start an analysis: another player's local game is 404 GAME_NOT_FOUND both
/// ways; an online game is analysed only once over (409 GAME_NOT_OVER), by its players, while a
/// spectator may read it (its POST is 403 NOT_A_PLAYER). A player runs one analysis at a time
/// (409 ANALYSIS_RUNNING), and a deleted game's analysis goes with it.
#[tokio::test]
async fn access_and_one_analysis_per_player() {
    let server = server().start();
    let (alice, bob, carol) = (
        Player::new(&server).await,
        Player::new(&server).await,
        Player::new(&server).await,
    );

    let local = game_of(&alice, MISSED_FIVE).await;
    analysed(&alice, &local).await;
    for reply in [bob.analysis(&local).await, bob.start_analysis(&local).await] {
        reply.assert_error(404, "GAME_NOT_FOUND", "another player's local game");
    }

    let (online_id, _) = online::start(&alice, &bob, json!({})).await;
    online::play_alternately(&alice, &bob, &online_id, 0, &MISSED_FIVE[..4]).await;
    alice.start_analysis(&online_id).await.assert_error(
        409,
        "GAME_NOT_OVER",
        "an online game in play",
    );
    carol.analysis(&online_id).await.assert_error(
        404,
        "ANALYSIS_NOT_FOUND",
        "a spectator, before any analysis",
    );
    bob.resign(&online_id).await.ok(200, "resign");
    carol.start_analysis(&online_id).await.assert_error(
        403,
        "NOT_A_PLAYER",
        "a spectator starting it",
    );
    bob.start_analysis(&online_id)
        .await
        .ok(202, "a player starts it");
    let watched = carol.analysis_until_done(&online_id, DONE_WITHIN).await;
    assert_complete(watched.last().unwrap(), 4);
    assert_eq!(
        &alice.analysis(&online_id).await.ok(200, "the other player"),
        watched.last().unwrap()
    );

    // One at a time: the second is refused while the first runs, accepted once it is done.
    let first = game_of(&alice, MISSED_VCF).await;
    let second = game_of(&alice, UNBLOCKED_FOUR).await;
    alice.start_analysis(&first).await.ok(202, "the first");
    alice
        .start_analysis(&second)
        .await
        .assert_error(409, "ANALYSIS_RUNNING", "a second one");
    alice.analysis(&second).await.assert_error(
        404,
        "ANALYSIS_NOT_FOUND",
        "the refused one was not started",
    );
    alice.analysis_until_done(&first, DONE_WITHIN).await;
    alice
        .start_analysis(&second)
        .await
        .ok(202, "once the first is done");

    // Deleting the game under its running analysis ends it, and frees the player.
    alice
        .delete(&format!("/api/v1/games/{second}"))
        .await
        .ok(204, "delete");
    alice
        .analysis(&second)
        .await
        .assert_error(404, "GAME_NOT_FOUND", "the deleted game");
    let third = game_of(&alice, MISSED_FIVE).await;
    alice
        .start_analysis(&third)
        .await
        .ok(202, "after the delete");
}

/// Starting an analysis costs a hint from the caller's bucket; reading one, or asking again for
/// one that is done, costs nothing.
#[tokio::test]
async fn starting_costs_a_hint() {
    let server = server_with(&["--hints-per-minute", "1", "--hint-burst", "1"]).start();
    let player = Player::new(&server).await;
    let id = game_of(&player, MISSED_FIVE).await;
    let other = game_of(&player, UNBLOCKED_FOUR).await;
    let done = analysed(&player, &id).await;
    for _ in 0..3 {
        assert_eq!(
            player.start_analysis(&id).await.ok(200, "POST when done"),
            done
        );
    }
    player
        .start_analysis(&other)
        .await
        .assert_rate_limited("a second analysis within the minute");
    player
        .analysis(&other)
        .await
        .assert_error(404, "ANALYSIS_NOT_FOUND", "nothing was started");
}

/// Across a restart: a done analysis is served exactly as before; one that was running when
/// the server died (SIGKILL), or when it was stopped (SIGTERM: it stops after its current move,
/// still running), is taken up again by the next start and completes.
#[tokio::test]
async fn restart_keeps_and_resumes_analyses() {
    let mut server: Server = server().start();
    let player = Player::new(&server).await;
    let done_id = game_of(&player, MISSED_FIVE).await;
    let done = analysed(&player, &done_id).await;
    let running_id = game_of(&player, MISSED_VCF).await;
    let started = player.start_analysis(&running_id).await.ok(202, "POST");
    assert_eq!(started["status"], "running");
    server.kill();

    let mut stored = Stored::open(server.database()).await;
    assert_eq!(
        stored.analysis_status(&running_id).await.as_deref(),
        Some("running"),
        "killed before it was done"
    );
    drop(stored);

    server.restart();
    let player = player.on(&server);
    assert_eq!(
        player.analysis(&done_id).await.ok(200, "after the restart"),
        done
    );
    let resumed = player
        .analysis_until_done(&running_id, DONE_WITHIN)
        .await
        .pop()
        .unwrap();
    assert_complete(&resumed, MISSED_VCF.len());
    assert_missed_win(&resumed, 16, (6, 6));

    let stopped_id = game_of(&player, MISSED_VCF).await;
    player.start_analysis(&stopped_id).await.ok(202, "POST");
    server.terminate();
    assert!(
        server.wait_until_exited(Duration::from_secs(60)).is_some(),
        "the server stops"
    );
    let mut stored = Stored::open(server.database()).await;
    assert_eq!(
        stored.analysis_status(&stopped_id).await.as_deref(),
        Some("running"),
        "a stopping server leaves it running"
    );
    drop(stored);
    server.restart();
    let player = player.on(&server);
    let resumed = player
        .analysis_until_done(&stopped_id, DONE_WITHIN)
        .await
        .pop()
        .unwrap();
    assert_complete(&resumed, MISSED_VCF.len());
    assert_missed_win(&resumed, 16, (6, 6));
}

/// Two instances on one PostgreSQL database: an analysis started through A and asked for again
/// through B is worked on by one of them alone (both try: the first to claim it in the database
/// keeps it); when that one is killed in the middle of it, the other takes it over and completes
/// it. Needs PostgreSQL: ignored unless asked for (`--include-ignored`, as `scripts/test.sh`).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn two_instances_work_on_an_analysis_once() {
    let database = Database::required_postgres();
    let builder = server()
        .database(&database)
        .env("RUST_LOG", "gomoku::analysis=info")
        .capture_log();
    let mut instances = [builder.clone().start(), builder.start()];
    let working = |s: &Server| s.log_text().matches("analysis task working").count();
    let on_a = Player::new(&instances[0]).await;
    let on_b = on_a.on(&instances[1]);
    let id = game_of(&on_a, MISSED_VCF).await;
    on_a.start_analysis(&id).await.ok(202, "POST through A");
    for _ in 0..3 {
        let again = on_b.start_analysis(&id).await.ok(202, "POST through B");
        assert_eq!(again["status"], "running");
    }
    eventually("some of it done, seen through B", DONE_WITHIN, async || {
        on_b.analysis(&id).await.ok(200, "GET through B")["moves"]
            .as_array()
            .is_some_and(|m| m.len() >= 2)
    })
    .await;
    let counts = [working(&instances[0]), working(&instances[1])];
    assert_eq!(
        counts[0] + counts[1],
        1,
        "one instance works on it: {counts:?}"
    );

    let (worker, other) = if counts[0] == 1 { (0, 1) } else { (1, 0) };
    instances[worker].kill();
    let mut stored = Stored::open(&database).await;
    assert_eq!(
        stored.analysis_status(&id).await.as_deref(),
        Some("running"),
        "killed before it was done"
    );
    drop(stored);
    let done = on_a
        .on(&instances[other])
        .analysis_until_done(&id, DONE_WITHIN)
        .await
        .pop()
        .unwrap();
    assert_complete(&done, MISSED_VCF.len());
    assert_missed_win(&done, 16, (6, 6));
    assert_eq!(working(&instances[other]), 1, "the other took it over once");
}
