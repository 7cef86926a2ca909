//! What the server stored, read behind its back: a connection of our own to the database, so a
//! server that answers well but stores badly is caught. SQLite's WAL lets it read while the
//! server runs; PostgreSQL is made for it. The same checks run on both backends.
//!
//! Also the making of SQLite databases as older versions of the server left them (migrations
//! from then on are SQLite's alone: the PostgreSQL backend started at the current schema).

use std::path::Path;

use serde_json::Value;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{AnyConnection, ConnectOptions, Connection, Row, SqliteConnection};

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

/// A connection to a server's database (sqlx's `Any` driver: one connection type for both
/// backends; the few statements that differ say so).
pub struct Stored {
    conn: AnyConnection,
    postgres: bool,
}

impl Stored {
    pub async fn open(database: &Database) -> Stored {
        sqlx::any::install_default_drivers();
        let url = database.url();
        let mut conn = AnyConnection::connect(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
        if !database.is_postgres() {
            // Wait for the server's writer rather than failing at once.
            sqlx::query("pragma busy_timeout = 10000")
                .execute(&mut conn)
                .await
                .expect("set the busy timeout");
        }
        Stored {
            conn,
            postgres: database.is_postgres(),
        }
    }

    pub fn connection(&mut self) -> &mut AnyConnection {
        &mut self.conn
    }

    /// The rows of the `moves` table for one game, in ply order: `(ply, row, col, player)`.
    pub async fn moves(&mut self, game_id: &str) -> Result<Vec<(i64, i64, i64, i64)>, String> {
        let rows = sqlx::query(
            r#"select ply, "row", col, player from moves where game_id = $1 order by ply"#,
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
            sqlx::query_as("select move_count, status from games where id = $1")
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
        sqlx::query_scalar("select status from analyses where game_id = $1")
            .bind(game_id)
            .fetch_optional(&mut self.conn)
            .await
            .unwrap_or_else(|e| panic!("select from analyses: {e}"))
    }

    /// Whether the database is sound and no row breaks a reference: SQLite's `integrity_check`
    /// and `foreign_key_check`; on PostgreSQL, which enforces references itself, that no move
    /// or seat names a missing game.
    pub async fn integrity(&mut self) -> Result<(), String> {
        if self.postgres {
            let orphans: i64 = sqlx::query_scalar(
                "select (select count(*) from moves m where not exists \
                 (select 1 from games g where g.id = m.game_id)) + (select count(*) from seats s \
                 where not exists (select 1 from games g where g.id = s.game_id))",
            )
            .fetch_one(&mut self.conn)
            .await
            .map_err(|e| format!("orphan check: {e}"))?;
            return match orphans {
                0 => Ok(()),
                n => Err(format!("{n} moves or seats of games that do not exist")),
            };
        }
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
        self.dump_tables(&["games", "moves", "seats"]).await
    }

    /// Every row of `tables`, as text (each row prefixed with its table's name), in a stable
    /// order: what "nothing changed" compares for any part of the store.
    pub async fn dump_tables(&mut self, tables: &[&str]) -> Vec<String> {
        let mut dump = Vec::new();
        for &table in tables {
            let sql = if self.postgres {
                format!("select t::text from {table} t order by 1")
            } else {
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
                format!("select {row_text} from {table} order by 1")
            };
            let rows = sqlx::query(&sql).fetch_all(&mut self.conn).await.unwrap();
            dump.extend(
                rows.iter()
                    .map(|r| format!("{table}: {}", r.get::<String, _>(0))),
            );
        }
        dump
    }

    /// Takes the lock every write of the service needs, and keeps it until
    /// [`Stored::release_writes`]: SQLite's write lock (`begin immediate` and a write), or on
    /// PostgreSQL a lock on the game tables that lets reads through and stops every write.
    pub async fn hold_writes(&mut self) {
        let statements: &[&str] = if self.postgres {
            &[
                "begin",
                "lock table games, moves, seats, players, sessions in exclusive mode",
            ]
        } else {
            &[
                "begin immediate",
                "create table reliability_lock_probe (x integer)",
                "insert into reliability_lock_probe values (1)",
            ]
        };
        for statement in statements {
            sqlx::query(statement)
                .execute(&mut self.conn)
                .await
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
    }

    /// Gives back what [`Stored::hold_writes`] took, writing nothing.
    pub async fn release_writes(&mut self) {
        sqlx::query("rollback")
            .execute(&mut self.conn)
            .await
            .expect("rollback");
    }

    /// Moves the last use of the session of `token_hash` back to `hours` before now (with the
    /// server stopped, or at least not using it); false if there is no such session.
    pub async fn age_session(&mut self, token_hash: &[u8], hours: u32) -> bool {
        let sql = if self.postgres {
            "update sessions set last_used_at = to_char((now() - make_interval(hours => $1)) \
             at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || '.000000Z' \
             where token_hash = $2"
        } else {
            "update sessions set last_used_at = \
             strftime('%Y-%m-%dT%H:%M:%S', 'now', '-' || $1 || ' hours') || '.000000Z' \
             where token_hash = $2"
        };
        let done = sqlx::query(sql)
            .bind(i32::try_from(hours).expect("hours fit"))
            .bind(token_hash.to_vec())
            .execute(&mut self.conn)
            .await
            .expect("age the session");
        done.rows_affected() == 1
    }

    /// The stored last use of the session of `token_hash`, if there is one.
    pub async fn session_last_used(&mut self, token_hash: &[u8]) -> Option<String> {
        sqlx::query_scalar("select last_used_at from sessions where token_hash = $1")
            .bind(token_hash.to_vec())
            .fetch_optional(&mut self.conn)
            .await
            .expect("read the session")
    }

    /// The number of rows in `table`.
    pub async fn count(&mut self, table: &str) -> i64 {
        sqlx::query_scalar(&format!("select count(*) from {table}"))
            .fetch_one(&mut self.conn)
            .await
            .unwrap_or_else(|e| panic!("count {table}: {e}"))
    }
}
