//! The AI queue's fairness against the real binary: one search per player at a time, the next
//! free slot to the player served least recently, and a light player's reply not held up by
//! another's master searches.

use std::time::Duration;

use gomoku_testkit::{eventually, gomoku_server, Player, Server, NO_RATE_LIMIT};
use serde_json::json;
use tokio::sync::mpsc;

/// How many times the server has logged `what` (the AI logs each request it queues and each
/// search it starts).
fn logged(server: &Server, what: &str) -> usize {
    server.log_text().matches(what).count()
}

/// Waits until the server has logged `what` at least `count` times; panics after 20 s.
async fn until_logged(server: &Server, what: &str, count: usize) {
    let wanted = format!("`{what}` logged {count} times");
    eventually(&wanted, Duration::from_secs(20), async || {
        logged(server, what) >= count
    })
    .await;
}

/// With one AI slot, player A's master search holding it and A's second master move waiting in
/// A's own queue: C's easy move is answered at once (the quick slot above the cap), and B's
/// master move, queued after A's second, is served before it when A's first ends (round-robin
/// over players, not first come first served). Every request is answered; none is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_player_is_served_before_the_first_players_queued_moves() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args([
            "--ai-concurrency",
            "1",
            "--ai-master-ms",
            "1500",
            "--ai-queue-timeout-ms",
            "30000",
            "--request-timeout-ms",
            "60000",
        ])
        .env("RUST_LOG", "warn,gomoku::ai=debug")
        .capture_log()
        .start();
    let master = json!({"mode": "ai", "ai": {"level": "master", "player": 2}});
    let easy = json!({"mode": "ai", "ai": {"level": "easy", "player": 2}});
    let a = Player::new(&server).await;
    let b = Player::new(&server).await;
    let c = Player::new(&server).await;
    let (a1, a2) = (
        a.create_id(master.clone()).await,
        a.create_id(master.clone()).await,
    );
    let (b_master, c_easy) = (b.create_id(master).await, c.create_id(easy).await);

    // Each master move reports its label when answered, so the order of answers is observed.
    let (done, mut answers) = mpsc::unbounded_channel();
    let send = |player: &Player, game: &str, label: &'static str| {
        let (player, game, done) = (player.clone(), game.to_string(), done.clone());
        tokio::spawn(async move {
            let state = player.play_at(&game, 7, 7, 0).await;
            assert_eq!(state["moveCount"], 2, "{label}: the AI replied");
            done.send(label).unwrap();
        })
    };
    let first = send(&a, &a1, "A's first");
    until_logged(&server, "ai search", 1).await;
    let second = send(&a, &a2, "A's second");
    until_logged(&server, "ai queued", 2).await;
    assert_eq!(
        logged(&server, "ai search"),
        1,
        "A's second waits for A's first"
    );

    let state = c.play_at(&c_easy, 7, 7, 0).await;
    assert_eq!(state["moveCount"], 2, "C's easy move answered");
    assert!(
        !first.is_finished(),
        "C's easy move was answered while A's master search held the slot"
    );

    let third = send(&b, &b_master, "B's master");
    until_logged(&server, "ai queued", 4).await;
    let mut order = Vec::new();
    for _ in 0..3 {
        order.push(answers.recv().await.unwrap());
    }
    assert_eq!(order, ["A's first", "B's master", "A's second"]);
    for task in [first, second, third] {
        task.await.unwrap();
    }
}
