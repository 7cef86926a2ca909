//! The online-play migration (issue 12) on a database written by the schema before it: a server
//! started on it migrates it (rebuilding `games`, adding seats, names and clock columns) with
//! every game, move and session intact, and play goes on.

use std::path::{Path, PathBuf};

use gomoku_testkit::lines::BLACK_FIVE;
use gomoku_testkit::stored::{insert_moves, older_schema, Stored};
use gomoku_testkit::{gomoku_server, Api, Database};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use sqlx::{Connection, Row};

/// The migration that brings online play; the database is built with every one before it.
const ONLINE_MIGRATION: &str = "20261202000000_online_play.sql";

/// A database at the schema before online play in `dir`, as a server of that version left it
/// (WAL, migrations table included): two players with sessions, a local game in play (three
/// moves), a won local game, a resigned ai game and a finished ai game of the second player.
/// Returns its path and the two tokens.
async fn previous_schema_database(dir: &Path) -> (PathBuf, [String; 2]) {
    let path = dir.join("previous.db");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut db = older_schema(&path, &shipped, |name| name < ONLINE_MIGRATION).await;
    let applied: i64 = sqlx::query_scalar("select count(*) from _sqlx_migrations")
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_eq!(applied, 3, "the three migrations before online play");
    let at = "2026-11-30T10:00:00.000000Z";
    let tokens = ["ab".repeat(32), "cd".repeat(32)];
    let statements = [
        "insert into players (id, created_at) values ('p1', ?1), ('p2', ?1)",
        "insert into games (id, player_id, mode, rule, board_size, status, move_count, version, \
         created_at, updated_at, to_move) values ('g-playing', 'p1', 'local', 'freestyle', 15, \
         'playing', 3, 3, ?1, '2026-11-30T10:00:04.000000Z', 2)",
        "insert into games (id, player_id, mode, rule, board_size, status, end_reason, win_line, \
         move_count, version, created_at, updated_at, finished_at) values ('g-won', 'p1', \
         'local', 'standard', 15, 'black_won', 'five', '[[7,3],[7,4],[7,5],[7,6],[7,7]]', 9, 9, \
         ?1, '2026-11-30T10:00:03.000000Z', '2026-11-30T10:00:03.000000Z')",
        "insert into games (id, player_id, mode, rule, board_size, ai_level, ai_player, status, \
         end_reason, resigned_by, move_count, version, created_at, updated_at, finished_at) \
         values ('g-resigned', 'p1', 'ai', 'renju', 15, 'hard', 2, 'white_won', 'resign', 1, 2, \
         3, ?1, '2026-11-30T10:00:02.000000Z', '2026-11-30T10:00:02.000000Z')",
        "insert into games (id, player_id, mode, rule, board_size, ai_level, ai_player, status, \
         end_reason, win_line, move_count, version, created_at, updated_at, finished_at) values \
         ('g-ai', 'p2', 'ai', 'freestyle', 15, 'easy', 2, 'black_won', 'five', \
         '[[7,3],[7,4],[7,5],[7,6],[7,7]]', 9, 9, ?1, '2026-11-30T10:00:01.000000Z', \
         '2026-11-30T10:00:01.000000Z')",
    ];
    for sql in statements {
        sqlx::query(sql).bind(at).execute(&mut db).await.unwrap();
    }
    for (token, player) in tokens.iter().zip(["p1", "p2"]) {
        sqlx::query(
            "insert into sessions (token_hash, player_id, created_at, last_used_at) \
             values (?, ?, ?, ?)",
        )
        .bind(Sha256::digest(token.as_bytes()).to_vec())
        .bind(player)
        .bind(at)
        .bind(at)
        .execute(&mut db)
        .await
        .unwrap();
    }
    let moves: [(&str, &[(i64, i64)]); 4] = [
        ("g-playing", &[(7, 7), (7, 8), (8, 8)]),
        ("g-won", BLACK_FIVE),
        ("g-resigned", &[(7, 7), (6, 6)]),
        ("g-ai", BLACK_FIVE),
    ];
    for (game, points) in moves {
        insert_moves(&mut db, game, points, at).await;
    }
    db.close().await.unwrap();
    (path, tokens)
}

/// Every game, move and session of a database at the previous schema is there after the
/// migration that the server runs on start: the lists, the states and the moves are as stored,
/// each owner sits at their games, every player has a default name, no row dangles, and play
/// goes on.
#[tokio::test]
async fn previous_schema_migrates_with_every_game_move_and_session() {
    let dir = tempfile::tempdir().unwrap();
    let (path, [first, second]) = previous_schema_database(dir.path()).await;
    let database = Database::sqlite_file(&path);
    let server = gomoku_server!().database(&database).start();
    let api = Api::on(&server);
    let (alice, bob) = (api.player(&first), api.player(&second));

    let listed = alice.list_all(None, 10).await;
    let ids: Vec<&str> = listed.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["g-playing", "g-won", "g-resigned"],
        "newest activity first"
    );
    assert_eq!(bob.game_ids().await, ["g-ai"]);

    let playing = alice.game("g-playing").await;
    assert_eq!(playing["moveCount"], 3);
    assert_eq!(playing["currentPlayer"], 2);
    assert_eq!(playing["version"], 3);
    let owner = &playing["players"]["black"];
    assert_eq!(owner["playerId"], "p1");
    assert_eq!(
        playing["players"]["white"], *owner,
        "a local game's owner plays both"
    );
    assert_eq!(playing["you"], Value::Null);
    let name = alice.me().await["name"].as_str().unwrap().to_string();
    assert!(
        name.starts_with("棋手") && name.chars().count() == 6,
        "{name}"
    );
    assert_eq!(owner["name"], json!(name));

    let won = alice.game("g-won").await;
    assert_eq!(
        (won["status"].as_str(), won["endReason"].as_str()),
        (Some("black_won"), Some("five"))
    );
    assert_eq!(won["winLine"].as_array().unwrap().len(), 5);
    let resigned = alice.game("g-resigned").await;
    assert_eq!(
        (
            resigned["status"].as_str(),
            resigned["endReason"].as_str(),
            resigned["moveCount"].as_i64()
        ),
        (Some("white_won"), Some("resign"), Some(2))
    );
    assert_eq!(
        resigned["you"], 1,
        "the person of an ai game plays black here"
    );
    assert_eq!(resigned["players"]["white"], Value::Null, "the AI's seat");
    let ai = bob.game("g-ai").await;
    assert_eq!(
        (ai["ai"]["level"].as_str(), ai["moveCount"].as_i64()),
        (Some("easy"), Some(9))
    );
    alice
        .get("/api/v1/games/g-ai")
        .await
        .assert_error(404, "GAME_NOT_FOUND", "still private");

    let mut stored = Stored::open(&database).await;
    for state in [&playing, &won, &resigned, &ai] {
        stored.assert_game(state).await;
    }
    stored.integrity().await.expect("no dangling rows");
    let rows: i64 = sqlx::query("select count(*) from moves")
        .fetch_one(stored.connection())
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 3 + 9 + 2 + 9, "every move is kept");

    let next = alice.play("g-playing", 0, 0).await;
    assert_eq!(
        (next["moveCount"].as_i64(), next["version"].as_i64()),
        (Some(4), Some(4))
    );
    let (id, _) = gomoku_testkit::online::start(&alice, &bob, json!({})).await;
    assert_eq!(bob.game(&id).await["players"]["black"]["playerId"], "p1");
}
