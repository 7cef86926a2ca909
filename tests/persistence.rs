//! Storage seen from outside: a server killed and restarted onto the same SQLite file resumes
//! every game exactly, and a database locked by someone else gives a clean 503 BUSY that changes
//! nothing. (That tokens are kept only as hashes is checked in `reliability.rs`.)

use gomoku_testkit::lines::{BLACK_FIVE, RENJU_DOUBLE_THREE};
use gomoku_testkit::state::id_of;
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{gomoku_server, Player, NO_RATE_LIMIT};
use serde_json::{json, Value};

/// Everything a player can read about one game, except the export time.
async fn snapshot(player: &Player, id: &str) -> Value {
    let state = player.game(id).await;
    let replay = player
        .get(&format!("/api/v1/games/{id}/replay"))
        .await
        .ok(200, "replay");
    let mut export = player
        .get(&format!("/api/v1/games/{id}/export"))
        .await
        .ok(200, "export");
    export
        .as_object_mut()
        .expect("record object")
        .remove("exportedAt");
    json!({"state": state, "replay": replay, "export": export})
}

/// Killed with SIGKILL right after its last answer and restarted onto the same file, the server
/// serves every game exactly as before (state, replay, export, list order), the tokens
/// still work, and play continues where it stopped.
#[tokio::test]
async fn restart_resumes_every_game_exactly() {
    let mut server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let alice = Player::new(&server).await;
    let bob = Player::new(&server).await;

    let mut games: Vec<(Player, String)> = Vec::new();
    // A local freestyle game in progress.
    let id = alice.create_id(json!({})).await;
    alice.play_all(&id, &[(7, 7), (7, 8), (8, 8)]).await;
    games.push((alice.clone(), id));
    // A won game.
    let id = alice.create_id(json!({"rule": "standard"})).await;
    alice.play_all(&id, BLACK_FIVE).await;
    games.push((alice.clone(), id));
    // A renju game with black to move and a forbidden point listed.
    let id = alice
        .create_id(json!({"rule": "renju", "boardSize": 19}))
        .await;
    let renju = alice.play_all(&id, RENJU_DOUBLE_THREE).await;
    assert!(!renju["forbiddenMoves"].as_array().unwrap().is_empty());
    games.push((alice.clone(), id));
    // A resigned game.
    let id = bob.create_id(json!({"boardSize": 9})).await;
    bob.play(&id, 4, 4).await;
    bob.post_empty(&format!("/api/v1/games/{id}/resign"))
        .await
        .ok(200, "resign");
    games.push((bob.clone(), id));
    // An AI game, AI as black, after one exchange.
    let ai = bob
        .create(json!({"mode": "ai", "ai": {"level": "hard", "player": 1}}))
        .await;
    let ai_id = id_of(&ai);
    let (r, c) = if ai["board"][7][8] == 0 {
        (7, 8)
    } else {
        (6, 6)
    };
    bob.play(&ai_id, r, c).await;
    games.push((bob.clone(), ai_id.clone()));
    // A game played, then deleted.
    let gone = alice.create_id(json!({})).await;
    alice.play(&gone, 1, 1).await;
    alice
        .delete(&format!("/api/v1/games/{gone}"))
        .await
        .ok(204, "delete");

    let mut before = Vec::new();
    for (player, id) in &games {
        before.push(snapshot(player, id).await);
    }
    let lists_before = (alice.list_all(None, 2).await, bob.list_all(None, 2).await);

    server.restart();
    let alice = alice.on(&server);
    let bob = bob.on(&server);
    for ((player, id), expected) in games.iter().zip(&before) {
        let player = player.on(&server);
        assert_eq!(
            &snapshot(&player, id).await,
            expected,
            "game {id} after restart"
        );
    }
    let lists_after = (alice.list_all(None, 2).await, bob.list_all(None, 2).await);
    assert_eq!(lists_after, lists_before, "the saved-game lists");
    alice
        .get(&format!("/api/v1/games/{gone}"))
        .await
        .assert_error(404, "GAME_NOT_FOUND", "deleted stays deleted");

    // Play goes on: the next ply is accepted, the AI game can be undone and replied to.
    let local = &games[0].1;
    let next = alice
        .post(
            &format!("/api/v1/games/{local}/moves"),
            &json!({"row": 9, "col": 9, "ply": 3}),
        )
        .await
        .ok(200, "move after restart");
    assert_eq!(next["moveCount"], 4);
    let undone = bob
        .post_empty(&format!("/api/v1/games/{ai_id}/undo"))
        .await
        .ok(200, "undo after restart");
    assert_eq!(undone["moveCount"], 1);
    let replied = bob.play(&ai_id, r, c).await;
    assert_eq!(replied["moveCount"], 3);

    // A second restart, straight after a write, keeps that write too.
    server.restart();
    let alice = alice.on(&server);
    assert_eq!(alice.game(local).await["moveCount"], 4);
}

/// While another connection holds the lock writes need (SQLite's write lock; on PostgreSQL a
/// lock on the game tables), a move is refused with 503 BUSY (not a hang or a 500), reads still
/// work, and nothing is stored; once the lock is gone the same move is accepted.
#[tokio::test]
async fn locked_database_is_busy_and_changes_nothing() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let player = Player::new(&server).await;
    let id = player.create_id(json!({})).await;
    let before = player.play(&id, 7, 7).await;

    let mut blocker = Stored::open(server.database()).await;
    blocker.hold_writes().await;
    let reply = player.try_move(&id, 8, 8).await;
    reply.assert_error(503, "BUSY", "move while the database is locked");
    assert_eq!(
        player.game(&id).await,
        before,
        "reads go on; nothing stored"
    );

    blocker.release_writes().await;
    assert_eq!(player.game(&id).await, before);
    let after = player.play(&id, 8, 8).await;
    assert_eq!(after["moveCount"], 2);
}

/// SIGTERM shuts the server down cleanly (exit status 0), and a server started on the same
/// database afterwards has every game as it was.
#[tokio::test]
async fn sigterm_shuts_down_cleanly() {
    let mut server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let player = Player::new(&server).await;
    let id = player.create_id(json!({"rule": "renju"})).await;
    let before = player.play_all(&id, &[(7, 7), (7, 8), (8, 8)]).await;
    server.terminate();
    let status = server
        .wait_until_exited(std::time::Duration::from_secs(30))
        .expect("the server did not exit after SIGTERM");
    assert!(status.success(), "exit status {status:?}");
    server.restart();
    let player = player.on(&server);
    assert_eq!(player.game(&id).await, before);
}
