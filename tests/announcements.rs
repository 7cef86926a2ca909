//! Two server processes on one PostgreSQL database, each announcing its commits to the other
//! after the commit (issue 25). An announcement that never went out, because its instance died
//! between the commit and the announcement, is made up for: the other instance notices it gone
//! and pushes the change to its sockets, and arms the timer of the clock it started. An
//! announcer whose connection is cut sends again on a new one.
//!
//! These need PostgreSQL: a plain `cargo test` lists them as ignored; `scripts/test.sh` runs them
//! with `-- --include-ignored` and `GOMOKU_TEST_DATABASE` naming a cluster (without one, they
//! fail and say so).

use std::process::Command;
use std::time::Duration;

use gomoku_testkit::live::Live;
use gomoku_testkit::online;
use gomoku_testkit::state::moves_of;
use gomoku_testkit::{eventually, gomoku_server, Api, Database, Player};
use serde_json::json;
use sqlx::{Connection, Executor, PgConnection};

/// Waits (testkit's `eventually`, 10 s) until `wanted` holds of the query `sql` (one number).
async fn until(conn: &mut PgConnection, what: &str, sql: &str, wanted: impl Fn(i64) -> bool) {
    eventually(what, Duration::from_secs(10), async || {
        let value: i64 = sqlx::query_scalar(sql)
            .fetch_one(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        wanted(value)
    })
    .await;
}

/// Black's first move through A commits while A is stopped (SIGSTOP: the move's statement was
/// waiting for a row lock the test held, and goes on in PostgreSQL without A), so A never
/// announces it; then A is killed. B, whose socket white holds, notices A gone, pushes the move
/// to white's socket, and arms the timer of white's running clock from the database: white's
/// flag falls on B, on time.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_commit_whose_announcement_never_went_out_reaches_the_other_instance() {
    let database = Database::required_postgres();
    let builder = gomoku_server!().database(&database);
    let (mut a, b) = (builder.clone().start(), builder.start());
    let black = Player::new(&a).await;
    let white = Api::on(&b).new_player().await;
    let (id, _) = online::start(
        &black,
        &white,
        json!({"timeControl": {"initialMs": 3000, "incrementMs": 0}}),
    )
    .await;
    let mut live = Live::connect(&white, &id).await.expect("white on B");
    let before = live.state().await;
    assert!(moves_of(&before).is_empty());

    let mut holder = PgConnection::connect(database.url())
        .await
        .expect("connect");
    holder.execute("begin").await.expect("begin");
    sqlx::query("select 1 from games where id = $1 for update")
        .bind(&id)
        .execute(&mut holder)
        .await
        .expect("lock the game's row");
    let path = format!("/api/v1/games/{id}/moves");
    let mover = black.clone();
    // Never answered: A is stopped, then killed.
    let request = tokio::spawn(async move {
        let _ = mover
            .try_post(&path, &json!({"row": 7, "col": 7, "ply": 0}))
            .await;
    });
    let mut watcher = PgConnection::connect(database.url())
        .await
        .expect("connect");
    until(
        &mut watcher,
        "A's move waits for the row lock",
        "select count(*) from pg_stat_activity where datname = current_database() \
         and wait_event_type = 'Lock' and application_name like 'gomoku-server %'",
        |waiting| waiting == 1,
    )
    .await;
    let stopped = Command::new("kill")
        .args(["-STOP", &a.pid().to_string()])
        .status()
        .expect("run kill");
    assert!(stopped.success(), "kill -STOP failed");
    holder.execute("rollback").await.expect("rollback");
    let version = before["version"].as_i64().unwrap();
    until(
        &mut watcher,
        "the move is committed",
        &format!("select version from games where id = '{id}'"),
        |now| now > version,
    )
    .await;
    a.kill();
    request.abort();

    let moved = live.state_where(|s| moves_of(s).len() == 1).await;
    assert_eq!(moved["version"], version + 1);
    let ended = live.state_where(|s| s["endReason"] == "timeout").await;
    assert_eq!(ended["status"], "black_won");
    assert_eq!(white.game(&id).await["status"], "black_won");
}

/// The announcer's connection is cut by the database (as when it restarts it, but with the
/// listeners' connections left alone, so nothing reads afresh): the next moves through A still
/// reach the socket on B, the announcer having sent them on a new connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn an_announcer_whose_connection_is_cut_announces_again() {
    let database = Database::required_postgres();
    let builder = gomoku_server!().database(&database);
    let (a, b) = (builder.clone().start(), builder.start());
    let black = Player::new(&a).await;
    let white = Api::on(&b).new_player().await;
    let (id, _) = online::start(&black, &white, json!({})).await;
    let mut live = Live::connect(&white, &id).await.expect("white on B");
    live.state().await;
    black.play_at(&id, 7, 7, 0).await;
    live.state_where(|s| moves_of(s).len() == 1).await;

    let mut admin = PgConnection::connect(database.url())
        .await
        .expect("connect");
    let cut: i64 = sqlx::query_scalar(
        "select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity \
         where datname = current_database() and application_name like 'gomoku-notifier %') t",
    )
    .fetch_one(&mut admin)
    .await
    .expect("terminate the announcers");
    assert!(cut >= 1, "an announcer's connection was there to cut");
    let white_on_a = white.on(&a);
    white_on_a.play_at(&id, 7, 8, 1).await;
    black.play_at(&id, 8, 8, 2).await;
    let state = live.state_where(|s| moves_of(s).len() == 3).await;
    assert_eq!(state["status"], "playing");
}
