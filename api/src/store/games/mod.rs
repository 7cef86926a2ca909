//! Games and their moves: the operations on the `games` and `moves` tables (load, insert,
//! commit a change, delete, list).
//!
//! A game is stored as its settings plus one row per move. Loading replays the moves through
//! the rules (then applies a stored resignation), so a loaded [`Game`] is always one the judge
//! accepted. The status columns on `games` (status, end reason, win line, side to move) mirror
//! that replay for listings, written from the rules' [`Outcome`](gomoku_rules::Outcome) at every
//! commit, never worked out anew.
//!
//! Writes are optimistic: a handler loads a game, works out the change (which may include an
//! AI search, done without holding any lock), then commits it guarded by the `version` it
//! loaded. If another request changed the game meanwhile, nothing is written and the caller
//! hears [`Written::Stale`]. The primary key (game_id, ply) backs this up: two moves can never
//! share a ply. The cap on unfinished games is checked in the same write as the change that
//! would pass it (a new game, or an undo that reopens a finished one).
//!
//! [`model`] holds the types, [`rows`] maps rows to them, [`cache`] keeps each game as last
//! committed.

pub(super) mod cache;
mod model;
mod rows;

use std::sync::Arc;

use gomoku_rules::EndReason;
use sqlx::SqliteConnection;

use super::writer::OnCommit;
use super::{now, Db, StoreError};
pub use model::{
    AiSetting, Change, GameRow, Mode, NewGame, StatusFilter, StoredGame, StoredMove, Summary,
    UnknownMode, Written,
};
use rows::{stone_value, win_line_json, GAME_COLUMNS, MOVE_COLUMNS, SUMMARY_COLUMNS};

/// Adds a game (at version 0).
const INSERT_GAME: &str = "insert into games (id, player_id, mode, rule, board_size, ai_level, \
    ai_player, status, end_reason, win_line, to_move, resigned_by, move_count, version, \
    created_at, updated_at, finished_at) \
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)";
/// A player's games in play (for the cap on unfinished games).
const COUNT_PLAYING: &str = "select count(*) from games where player_id = ? and status = 'playing'";
/// Adds a move.
const INSERT_MOVE: &str =
    "insert into moves (game_id, ply, row, col, player, played_at) values (?, ?, ?, ?, ?, ?)";
/// The update of a change, guarded by the version the change was computed from.
const UPDATE_GAME: &str = "update games set status = ?, end_reason = ?, win_line = ?, \
    to_move = ?, resigned_by = ?, move_count = ?, version = version + 1, updated_at = ?, \
    finished_at = ? where id = ? and version = ?;";
/// Takes back moves from a ply on, if the statement before changed one row.
const DELETE_MOVES_FROM: &str =
    "delete from moves where game_id = ? and ply >= ? and changes() = 1;";
/// Adds a move, if the statement before changed one row.
const INSERT_MOVE_GUARDED: &str = "insert into moves (game_id, ply, row, col, player, played_at) \
    select ?, ?, ?, ?, ?, ? where changes() = 1;";

/// Loads the caller's game `id` (None if it is not theirs or does not exist). The game may be
/// the cache's own: a change to it is made on copies.
pub async fn load(
    db: &Db,
    player_id: &str,
    id: &str,
) -> Result<Option<Arc<StoredGame>>, StoreError> {
    if let Some(cached) = db.positions().get(id) {
        return Ok((cached.row.player_id == player_id).then_some(cached));
    }
    // One statement, so the game row and its moves come from the same snapshot: a row per
    // move (or one row with null move columns for a game without moves).
    let sql = format!(
        "select {GAME_COLUMNS}, {MOVE_COLUMNS} \
         from games g left join moves m on m.game_id = g.id \
         where g.id = ? and g.player_id = ? order by m.ply"
    );
    let rows = sqlx::query(&sql)
        .bind(id)
        .bind(player_id)
        .fetch_all(db.reader())
        .await?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let row = rows::game_row(first)?;
    let mut moves = Vec::with_capacity(rows.len());
    for r in &rows {
        moves.extend(rows::joined_move(r, &row.id)?);
    }
    if moves.len() != row.move_count {
        return Err(StoreError::Corrupt(
            row.id.clone(),
            "move count differs from moves".into(),
        ));
    }
    let game = rows::rebuild(&row, &moves)?;
    Ok(Some(Arc::new(StoredGame { row, moves, game })))
}

/// Runs a write of a game through the writer and records a stored result in the position cache.
async fn write_game<F>(db: &Db, work: F) -> Result<Written, StoreError>
where
    F: for<'c> FnMut(
            &'c mut SqliteConnection,
        ) -> super::writer::BoxFuture<'c, Result<Written, StoreError>>
        + Send
        + 'static,
{
    let positions = db.positions().clone();
    let remember: OnCommit<Written> = Box::new(move |written| {
        if let Written::Stored(stored) = written {
            positions.put(stored);
        }
    });
    db.writer().write_then(work, Some(remember)).await
}

/// Whether the player already has `cap` games in play (inside the writer's transaction, so a
/// concurrent write cannot slip past the count).
async fn at_cap(
    conn: &mut SqliteConnection,
    player_id: &str,
    cap: u32,
) -> Result<bool, StoreError> {
    let playing: i64 = sqlx::query_scalar(COUNT_PLAYING)
        .bind(player_id)
        .fetch_one(&mut *conn)
        .await?;
    Ok(playing >= i64::from(cap))
}

/// Stores a new game: [`Written::OverCap`] when it would be playing and the player already has
/// `cap` playing games.
pub async fn insert(db: &Db, new: NewGame, cap: u32) -> Result<Written, StoreError> {
    // A copy for each run: a new game is not the hot path, and a second run is rare.
    write_game(db, move |conn| Box::pin(insert_in(conn, new.clone(), cap))).await
}

/// The write of [`insert`], inside the writer's transaction.
async fn insert_in(
    conn: &mut SqliteConnection,
    new: NewGame,
    cap: u32,
) -> Result<Written, StoreError> {
    let id = uuid::Uuid::new_v4().to_string();
    let at = now();
    let outcome = new.game.outcome();
    let status = outcome.status();
    if !status.is_over() && at_cap(conn, &new.player_id, cap).await? {
        return Ok(Written::OverCap);
    }
    let finished_at = status.is_over().then(|| at.clone());
    let (rule, board_size) = (new.game.rule(), new.game.size());
    let resigned_by = outcome.resigned_by();
    sqlx::query(INSERT_GAME)
        .bind(&id)
        .bind(&new.player_id)
        .bind(new.mode.as_str())
        .bind(rule.as_str())
        .bind(board_size as i64)
        .bind(new.ai.map(|a| a.level.as_str()))
        .bind(new.ai.map(|a| stone_value(a.player)))
        .bind(status.as_str())
        .bind(outcome.end_reason().map(EndReason::as_str))
        .bind(win_line_json(outcome.win_line()))
        .bind(new.game.to_move().map(stone_value))
        .bind(resigned_by.map(stone_value))
        .bind(new.moves.len() as i64)
        .bind(&at)
        .bind(&at)
        .bind(&finished_at)
        .execute(&mut *conn)
        .await?;
    for (ply, m) in new.moves.iter().enumerate() {
        sqlx::query(INSERT_MOVE)
            .bind(&id)
            .bind(ply as i64)
            .bind(m.point.row as i64)
            .bind(m.point.col as i64)
            .bind(stone_value(m.stone))
            .bind(&m.played_at)
            .execute(&mut *conn)
            .await?;
    }
    let row = GameRow {
        id,
        player_id: new.player_id,
        mode: new.mode,
        rule,
        board_size,
        ai: new.ai,
        status,
        resigned_by,
        move_count: new.moves.len(),
        version: 0,
        created_at: at.clone(),
        updated_at: at,
        finished_at,
    };
    Ok(Written::Stored(Arc::new(StoredGame {
        row,
        moves: new.moves,
        game: new.game,
    })))
}

/// Commits a change if the game is still at the version it was loaded at, and, when the change
/// reopens a finished game, if its player has fewer than `cap` games in play.
pub async fn commit(db: &Db, change: Change, cap: u32) -> Result<Written, StoreError> {
    let id = change.row.id.clone();
    let update = Arc::new(Update::new(change)?);
    let written = match write_game(db, move |conn| {
        Box::pin(commit_in(conn, update.clone(), cap))
    })
    .await
    {
        // The version guard makes this unreachable in one process; the primary key still
        // decides if another process writes the same file. The failed write was rolled back
        // whole, its update of the game row with it.
        Err(StoreError::Sql(e))
            if e.as_database_error()
                .is_some_and(|d| d.is_unique_violation()) =>
        {
            Written::Stale
        }
        written => written?,
    };
    if let Written::Stale = written {
        // Usually another request of ours won, and the cache already holds its result; but if
        // something else wrote the file, the cached state is stale: read it afresh next time.
        db.positions().forget(&id);
    }
    Ok(written)
}

/// A change made ready to write before it is queued, so that the writer, which runs one write
/// after another, only runs its statement: the game as it will be once the change lands, and
/// what guards it.
struct Update {
    /// The game after the change, at the next version.
    next: Arc<StoredGame>,
    /// The version the change was computed from.
    from_version: i64,
    /// The change turns a finished game back into one in play.
    reopens: bool,
    /// Stored moves that stay: those after them are taken back, or the new moves follow them.
    keep: usize,
    truncate: bool,
    /// Every statement of the change, each after the first guarded by the one before.
    sql: String,
}

impl Update {
    fn new(change: Change) -> Result<Update, StoreError> {
        let Change {
            row,
            keep,
            moves,
            game,
            at,
        } = change;
        let status = game.outcome().status();
        let move_count = moves.len();
        let truncate = keep < row.move_count;
        let appended = move_count.saturating_sub(keep);
        if truncate && appended > 0 {
            // The guard chain relies on `changes()`: one kind of change.
            return Err(StoreError::Batch(
                "a change may truncate or append, not both".into(),
            ));
        }
        // One call to SQLite for the whole change (each call is a round trip to the connection's
        // thread). Every statement after the update runs only if the one before it changed
        // exactly one row, so a stale version changes nothing at all.
        let mut sql = String::from(UPDATE_GAME);
        if truncate {
            sql.push_str(DELETE_MOVES_FROM);
        }
        for _ in 0..appended {
            sql.push_str(INSERT_MOVE_GUARDED);
        }
        let (from_version, reopens) = (row.version, row.status.is_over() && !status.is_over());
        // The finish time stays that of the first finish; a reopened game loses it.
        let finished_at = if status.is_over() {
            Some(row.finished_at.clone().unwrap_or_else(|| at.clone()))
        } else {
            None
        };
        let row = GameRow {
            status,
            resigned_by: game.outcome().resigned_by(),
            move_count,
            version: row.version + 1,
            updated_at: at,
            finished_at,
            ..row
        };
        Ok(Update {
            next: Arc::new(StoredGame { row, moves, game }),
            from_version,
            reopens,
            keep,
            truncate,
            sql,
        })
    }
}

/// The write of [`commit`], inside the writer's transaction.
async fn commit_in(
    conn: &mut SqliteConnection,
    update: Arc<Update>,
    cap: u32,
) -> Result<Written, StoreError> {
    let (next, keep) = (&update.next, update.keep);
    let row = &next.row;
    if update.reopens && at_cap(conn, &row.player_id, cap).await? {
        return Ok(Written::OverCap);
    }
    let outcome = next.game.outcome();
    let mut query = sqlx::query(&update.sql)
        .bind(row.status.as_str())
        .bind(outcome.end_reason().map(EndReason::as_str))
        .bind(win_line_json(outcome.win_line()))
        .bind(next.game.to_move().map(stone_value))
        .bind(row.resigned_by.map(stone_value))
        .bind(row.move_count as i64)
        .bind(&row.updated_at)
        .bind(&row.finished_at)
        .bind(&row.id)
        .bind(update.from_version);
    if update.truncate {
        query = query.bind(&row.id).bind(keep as i64);
    }
    for (i, m) in next.moves[keep.min(row.move_count)..].iter().enumerate() {
        query = query
            .bind(&row.id)
            .bind((keep + i) as i64)
            .bind(m.point.row as i64)
            .bind(m.point.col as i64)
            .bind(stone_value(m.stone))
            .bind(&m.played_at);
    }
    let done = query.execute(&mut *conn).await?;
    Ok(if done.rows_affected() == 0 {
        Written::Stale
    } else {
        Written::Stored(next.clone())
    })
}

/// Deletes the caller's game and its moves; false if there was none.
pub async fn delete(db: &Db, player_id: &str, id: &str) -> Result<bool, StoreError> {
    let (player_id, game_id) = (player_id.to_string(), id.to_string());
    let positions = db.positions().clone();
    let forget_id = game_id.clone();
    let forget: OnCommit<bool> = Box::new(move |_| positions.forget(&forget_id));
    db.writer()
        .write_then(
            move |conn| {
                let (game_id, player_id) = (game_id.clone(), player_id.clone());
                Box::pin(async move {
                    let done = sqlx::query("delete from games where id = ? and player_id = ?")
                        .bind(&game_id)
                        .bind(&player_id)
                        .execute(&mut *conn)
                        .await?;
                    Ok::<_, StoreError>(done.rows_affected() > 0)
                })
            },
            Some(forget),
        )
        .await
}

/// A page of the caller's games, newest activity first, starting after `after`
/// (the `(updated_at, id)` of the last game of the previous page, or any pair of strings: the
/// order is that of the text).
pub async fn list(
    db: &Db,
    player_id: &str,
    filter: StatusFilter,
    limit: usize,
    after: Option<(&str, &str)>,
) -> Result<Vec<Summary>, StoreError> {
    let status_clause = match filter {
        StatusFilter::All => "",
        StatusFilter::Playing => "and g.status = 'playing'",
        StatusFilter::Finished => "and g.status <> 'playing'",
    };
    let after_clause = if after.is_some() {
        "and (g.updated_at, g.id) < (?, ?)"
    } else {
        ""
    };
    let sql = format!(
        "select {GAME_COLUMNS}, {SUMMARY_COLUMNS} \
         from games g left join moves m on m.game_id = g.id and m.ply = g.move_count - 1 \
         where g.player_id = ? {status_clause} {after_clause} \
         order by g.updated_at desc, g.id desc limit ?"
    );
    let mut query = sqlx::query(&sql).bind(player_id);
    if let Some((updated_at, id)) = after {
        query = query.bind(updated_at).bind(id);
    }
    let rows = query.bind(limit as i64).fetch_all(db.reader()).await?;
    rows.iter().map(rows::summary).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::players;
    use crate::store::tests::db_in;
    use gomoku_rules::{Game, Point, Rule, Status};

    fn play(stored: &StoredGame, point: Point) -> Change {
        let mut game = stored.game.clone();
        let stone = game.to_move().unwrap();
        game.play(point).unwrap();
        let mut moves = stored.moves.clone();
        moves.push(StoredMove {
            point,
            stone,
            played_at: now(),
        });
        Change {
            row: stored.row.clone(),
            keep: stored.moves.len(),
            moves,
            game,
            at: now(),
        }
    }

    fn stored(written: Written) -> Arc<StoredGame> {
        match written {
            Written::Stored(stored) => stored,
            other => panic!("expected a stored game, got {other:?}"),
        }
    }

    fn new_game(player: &str) -> NewGame {
        NewGame {
            player_id: player.to_string(),
            mode: Mode::Local,
            ai: None,
            moves: vec![],
            game: Game::new(9, Rule::Freestyle).unwrap(),
        }
    }

    /// A change lands only on the version it was computed from; the loser writes nothing, and
    /// what is loaded afresh (cache cleared) equals what the cache served.
    #[tokio::test]
    async fn version_guard_and_cache_agree_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let player = players::tests::anonymous(&db).await;
        let created = stored(insert(&db, new_game(&player), 10).await.unwrap());
        let id = created.row.id.clone();

        let first = play(&created, Point::new(4, 4));
        let rival = play(&created, Point::new(3, 3));
        let landed = stored(commit(&db, first, 10).await.unwrap());
        assert!(
            matches!(commit(&db, rival, 10).await.unwrap(), Written::Stale),
            "the stale change is refused"
        );

        let cached = load(&db, &player, &id).await.unwrap().unwrap();
        db.positions().forget(&id);
        let fresh = load(&db, &player, &id).await.unwrap().unwrap();
        for loaded in [&cached, &fresh] {
            assert_eq!(loaded.moves, landed.moves);
            assert_eq!(loaded.game, landed.game);
            assert_eq!(loaded.row.version, 1);
            assert_eq!(loaded.row.status, Status::Playing);
        }
        assert!(
            load(&db, "someone-else", &id).await.unwrap().is_none(),
            "games are private"
        );
    }

    /// The cap on unfinished games is enforced in the same transaction as the insert.
    #[tokio::test]
    async fn unfinished_cap() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let player = players::tests::anonymous(&db).await;
        let (a, b, c) = tokio::join!(
            insert(&db, new_game(&player), 2),
            insert(&db, new_game(&player), 2),
            insert(&db, new_game(&player), 2)
        );
        let results = [a.unwrap(), b.unwrap(), c.unwrap()];
        let made = results
            .iter()
            .filter(|r| matches!(r, Written::Stored(_)))
            .count();
        let refused = results
            .iter()
            .filter(|r| matches!(r, Written::OverCap))
            .count();
        assert_eq!((made, refused), (2, 1));
    }

    /// A status the server does not know (a newer version's, or a hand edit) is an error when
    /// read, in a listing as in a load, never taken for "playing".
    #[tokio::test]
    async fn unknown_stored_status_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let player = players::tests::anonymous(&db).await;
        let id = stored(insert(&db, new_game(&player), 10).await.unwrap())
            .row
            .id
            .clone();
        // The check constraint stands in the way of a bad name; switch it off for this edit.
        let mut conn = db.read.acquire().await.unwrap();
        sqlx::query("pragma ignore_check_constraints = on")
            .execute(&mut *conn)
            .await
            .unwrap();
        sqlx::query("update games set status = 'abandoned' where id = ?")
            .bind(&id)
            .execute(&mut *conn)
            .await
            .unwrap();
        drop(conn);
        db.positions().forget(&id);
        assert!(matches!(
            list(&db, &player, StatusFilter::All, 10, None).await,
            Err(StoreError::Corrupt(..))
        ));
        assert!(matches!(
            load(&db, &player, &id).await,
            Err(StoreError::Corrupt(..))
        ));
    }
}
