//! What the server stored, read behind its back: a connection of our own to the database, so a
//! server that answers well but stores badly is caught. SQLite's WAL lets it read while the
//! server runs. Tests that must do SQLite-only things (hold the write lock) use
//! [`Stored::connection`].

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{ConnectOptions, Row, SqliteConnection};

use crate::server::Database;
use crate::state::{id_of, moves_of};

/// A new SQLite database at `path` as an older server left it (WAL, the migrations table
/// included): migrated with those of the migrations in `shipped` whose file names `keep`
/// admits, to be filled by hand and then migrated by the current server.
pub async fn older_schema(
    path: &Path,
    shipped: &Path,
    keep: impl Fn(&str) -> bool,
) -> SqliteConnection {
    let chosen = tempfile::tempdir().expect("temp dir for migrations");
    for entry in std::fs::read_dir(shipped).expect("read the migrations") {
        let name = entry.expect("a migration").file_name();
        let name = name.to_str().expect("a UTF-8 file name");
        if keep(name) {
            std::fs::copy(shipped.join(name), chosen.path().join(name)).expect("copy a migration");
        }
    }
    let mut conn = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
    sqlx::migrate::Migrator::new(chosen.path())
        .await
        .expect("read the chosen migrations")
        .run(&mut conn)
        .await
        .expect("migrate to the older schema");
    conn
}

/// Writes the `moves` rows of `game` as a server of any schema so far writes them: `points` in
/// order, black first, each played `at`. For databases built by hand at an older schema.
pub async fn insert_moves(
    conn: &mut SqliteConnection,
    game: &str,
    points: &[(i64, i64)],
    at: &str,
) {
    for (ply, (row, col)) in points.iter().enumerate() {
        sqlx::query(
            "insert into moves (game_id, ply, row, col, player, played_at) \
             values (?, ?, ?, ?, ?, ?)",
        )
        .bind(game)
        .bind(ply as i64)
        .bind(row)
        .bind(col)
        .bind(1 + ply as i64 % 2)
        .bind(at)
        .execute(&mut *conn)
        .await
        .unwrap_or_else(|e| panic!("insert a move of {game}: {e}"));
    }
}

/// A connection to a server's database.
pub struct Stored {
    conn: SqliteConnection,
}

impl Stored {
    pub async fn open(database: &Database) -> Stored {
        let path = database.sqlite_path();
        let conn = SqliteConnectOptions::new()
            .filename(path)
            .busy_timeout(Duration::from_secs(10))
            .connect()
            .await
            .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
        Stored { conn }
    }

    pub fn connection(&mut self) -> &mut SqliteConnection {
        &mut self.conn
    }

    /// The rows of the `moves` table for one game, in ply order: `(ply, row, col, player)`.
    pub async fn moves(&mut self, game_id: &str) -> Result<Vec<(i64, i64, i64, i64)>, String> {
        let rows = sqlx::query(
            r#"select ply, "row", col, player from moves where game_id = ?1 order by ply"#,
        )
        .bind(game_id)
        .fetch_all(&mut self.conn)
        .await
        .map_err(|e| format!("select from moves: {e}"))?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
    }

    /// Whether the `moves` rows of a served game run 0, 1, 2… without a gap, are exactly its
    /// `moveHistory`, and agree with the `games` row's move count and status.
    pub async fn check_game(&mut self, state: &Value) -> Result<(), String> {
        let id = id_of(state);
        let rows = self.moves(&id).await?;
        if let Some(gap) = rows.iter().enumerate().position(|(i, r)| r.0 != i as i64) {
            return Err(format!(
                "game {id}: stored plies are not contiguous from 0 at {gap}: {rows:?}"
            ));
        }
        let stored: Vec<(i64, i64, i64)> = rows.iter().map(|&(_, r, c, p)| (r, c, p)).collect();
        if stored != moves_of(state) {
            return Err(format!(
                "game {id}: stored moves {stored:?} differ from the served moveHistory"
            ));
        }
        let (count, status): (i64, String) =
            sqlx::query_as("select move_count, status from games where id = ?1")
                .bind(&id)
                .fetch_one(&mut self.conn)
                .await
                .map_err(|e| format!("game {id}: select from games: {e}"))?;
        if count != rows.len() as i64 || state["status"] != status.as_str() {
            return Err(format!(
                "game {id}: the games row says {count} moves, {status}; served {} moves, {}",
                rows.len(),
                state["status"]
            ));
        }
        Ok(())
    }

    /// Panics unless [`Stored::check_game`] passes.
    pub async fn assert_game(&mut self, state: &Value) {
        if let Err(e) = self.check_game(state).await {
            panic!("{e}");
        }
    }

    /// The stored status of a game's analysis (`running`, `done`), None when it has none.
    pub async fn analysis_status(&mut self, game_id: &str) -> Option<String> {
        sqlx::query_scalar("select status from analyses where game_id = ?1")
            .bind(game_id)
            .fetch_optional(&mut self.conn)
            .await
            .unwrap_or_else(|e| panic!("select from analyses: {e}"))
    }

    /// Whether `PRAGMA integrity_check` is ok and no row breaks a foreign key.
    pub async fn integrity(&mut self) -> Result<(), String> {
        let result: String = sqlx::query_scalar("pragma integrity_check")
            .fetch_one(&mut self.conn)
            .await
            .map_err(|e| format!("integrity_check: {e}"))?;
        let orphans = sqlx::query("pragma foreign_key_check")
            .fetch_all(&mut self.conn)
            .await
            .map_err(|e| format!("foreign_key_check: {e}"))?;
        if result != "ok" || !orphans.is_empty() {
            return Err(format!(
                "integrity_check: {result}; foreign_key_check found {} rows",
                orphans.len()
            ));
        }
        Ok(())
    }

    /// Every row of the service's game tables, as text, so "nothing changed" compares all
    /// stored data.
    pub async fn dump(&mut self) -> Vec<String> {
        let mut dump = Vec::new();
        for table in ["games", "moves"] {
            let columns: Vec<String> =
                sqlx::query(&format!("select name from pragma_table_info('{table}')"))
                    .fetch_all(&mut self.conn)
                    .await
                    .unwrap()
                    .iter()
                    .map(|r| r.get::<String, _>(0))
                    .collect();
            assert!(!columns.is_empty(), "table {table} exists");
            let row_text = columns
                .iter()
                .map(|c| format!("quote(\"{c}\")"))
                .collect::<Vec<_>>()
                .join(" || '|' || ");
            let rows = sqlx::query(&format!("select {row_text} from {table} order by 1"))
                .fetch_all(&mut self.conn)
                .await
                .unwrap();
            dump.extend(
                rows.iter()
                    .map(|r| format!("{table}: {}", r.get::<String, _>(0))),
            );
        }
        dump
    }
}
