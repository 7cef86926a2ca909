//! Connection floods and oversized live messages (issue 23, points 1 and 7), against the real
//! binary: half-sent requests are closed after the header read timeout, connections over the
//! per-address and total caps are refused as soon as they are accepted, a flood from one address
//! leaves another client's moves and live pushes unharmed and the server's open files and memory
//! come back to their level, an idle kept-alive connection is closed, and a live message over the
//! size limit gets a close frame 1009.
//!
//! The flood comes from 127.0.0.2 and further loopback addresses, the honest clients from
//! 127.0.0.1 (see `gomoku_testkit::flood`).

use std::time::Duration;

use gomoku_testkit::flood::{
    closed_by_server, connect_from, flood_address, half_request, healthz_from,
};
use gomoku_testkit::lines::brick_fill;
use gomoku_testkit::live::WAIT;
use gomoku_testkit::online::start;
use gomoku_testkit::{eventually, gomoku_server, Live, Player, Server, NO_RATE_LIMIT};
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::task::JoinSet;

/// How long a condition the server must reach (sockets closed, files released) may take before
/// the test fails: far longer than it takes.
const DEADLINE: Duration = Duration::from_secs(60);

/// A flood of 2,000 half-sent requests from one address, with 64 connections allowed per
/// address and a 1 s header read timeout: meanwhile two players at another address play and the
/// watcher's live socket gets every state; the server never holds more than the flood's 64
/// sockets; every flooded socket is closed by the server; its open files and memory come back
/// to their level.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_half_requests_leaves_other_clients_unharmed() {
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args([
            "--max-connections-per-address",
            "64",
            "--header-read-timeout-ms",
            "1000",
        ])
        .start();
    let black = Player::new(&server).await;
    let white = Player::new(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    let mut live = Live::connect(&white, &id).await.unwrap();
    live.state().await;
    let files = server.open_files().expect("the server's open files");
    let memory = server.resident_kib().expect("the server's memory");

    let mut flood = Vec::new();
    for _ in 0..2000 {
        flood.push(half_request(flood_address(0), server.addr()).await.unwrap());
    }
    let during = server.open_files().unwrap();
    assert!(
        during <= files + 64 + 8,
        "{during} files open during the flood, {files} before: more than the 64 allowed"
    );
    // The game goes on, and the watcher sees every move.
    let moves = brick_fill(15);
    for (ply, &(row, col)) in moves.iter().enumerate().take(6) {
        let mover = if ply % 2 == 0 { &black } else { &white };
        let state = mover.play_at(&id, row, col, ply as i64).await;
        let pushed = live.state_at(state["version"].as_i64().unwrap()).await;
        assert_eq!(pushed["moveCount"], ply + 1);
    }

    let mut closing = JoinSet::new();
    for mut socket in flood {
        closing.spawn(async move { closed_by_server(&mut socket, DEADLINE).await });
    }
    let closed = closing.join_all().await;
    assert!(
        closed.iter().all(|c| *c),
        "every flooded socket closed by the server"
    );

    eventually("the flood's files released", DEADLINE, async || {
        server.open_files().unwrap() <= files + 4
    })
    .await;
    eventually("the memory back near its level", DEADLINE, async || {
        server.resident_kib().unwrap() <= memory + 32 * 1024
    })
    .await;
    let (row, col) = moves[6];
    let state = black.play_at(&id, row, col, 6).await;
    assert_eq!(
        live.state_at(state["version"].as_i64().unwrap()).await["moveCount"],
        7
    );
}

/// Past the cap per address, a connection is closed without an answer while another address is
/// served; past the cap in all, every address is refused; once a connection closes, its place is
/// free again.
#[tokio::test]
async fn connections_over_the_caps_are_refused() {
    let server = gomoku_server!()
        .args([
            "--max-connections-per-address",
            "4",
            "--max-connections",
            "6",
            "--header-read-timeout-ms",
            "60000",
        ])
        .start();
    let (first, second, third) = (flood_address(0), flood_address(1), flood_address(2));
    // Accepted in the order they connected, one at a time, so each count below is exact.
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(half_request(first, server.addr()).await.unwrap());
    }
    assert!(
        !healthz_from(first, server.addr()).await,
        "a fifth connection from one address"
    );
    for _ in 0..2 {
        held.push(half_request(second, server.addr()).await.unwrap());
    }
    assert!(
        !healthz_from(third, server.addr()).await,
        "a seventh connection in all"
    );
    drop(held.remove(0));
    eventually(
        "a place free once a connection closed",
        DEADLINE,
        async || healthz_from(third, server.addr()).await,
    )
    .await;
}

/// A kept-alive connection that sends nothing after its answer is closed after the header read
/// timeout.
#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed() {
    let server = gomoku_server!()
        .args(["--header-read-timeout-ms", "300"])
        .start();
    let mut socket = connect_from("127.0.0.1".parse().unwrap(), server.addr())
        .await
        .unwrap();
    socket
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert!(
        closed_by_server(&mut socket, DEADLINE).await,
        "closed once idle"
    );
}

/// A live message of the largest allowed size is taken (the socket stays open and gets the
/// next state); one byte more gets a close frame 1009, and the player can connect again.
#[tokio::test]
async fn an_oversized_live_message_gets_1009() {
    let server: Server = gomoku_server!().start();
    let black = Player::new(&server).await;
    let white = Player::new(&server).await;
    let (id, _) = start(&black, &white, json!({})).await;
    let mut live = Live::connect(&white, &id).await.unwrap();
    live.state().await;

    live.send_text(&"x".repeat(16 * 1024)).await;
    let state = black.play_at(&id, 7, 7, 0).await;
    live.state_at(state["version"].as_i64().unwrap()).await;

    live.send_text(&"x".repeat(16 * 1024 + 1)).await;
    let (code, _) = live.closed_within(WAIT).await.expect("a close frame");
    assert_eq!(code, 1009, "message too big");
    let mut again = Live::connect(&white, &id).await.unwrap();
    assert_eq!(again.state().await["moveCount"], 1);
}
