//! The games' SQL on SQLite. Every write goes through the single writer, so the position cache
//! (filled by the writer's commit hooks, in commit order) always holds the committed state of
//! the games it has, and a load serves from it without reading the file. Loads never fill it:
//! a load racing a write or a delete could put back a state that is no longer true.

use std::sync::Arc;

use gomoku_rules::EndReason;
use sqlx::error::BoxDynError;
use sqlx::sqlite::SqliteArguments;
use sqlx::{Arguments, Row, SqliteConnection};

use super::{Done, Store};
use crate::store::games::rows::{
    self, deadline_text, offer_columns, opening_steps_json, stone_value, win_line_json, DUE_GAMES,
    GAME_COLUMNS, MOVE_COLUMNS, SEAT_COLUMNS, SUMMARY_COLUMNS,
};
use crate::store::games::{
    status_clause, DueGame, Fresh, StatusFilter, StoredGame, StoredMove, Summary, Update, Written,
};
use crate::store::writer::{BoxFuture, OnCommit};
use crate::store::StoreError;

/// What a rematch wrote: the finished game's write, and the new game when it landed.
type Rematched = (Written, Option<Arc<StoredGame>>);

/// Adds a game (at version 0); a `where` may follow.
const INSERT_GAME: &str = "insert into games (id, player_id, mode, rule, board_size, ai_level, \
    ai_player, status, end_reason, win_line, to_move, move_count, version, created_at, \
    updated_at, finished_at, initial_ms, increment_ms, black_ms, white_ms, opening, \
    opening_steps) select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?";
/// A player's games waiting or in play (for the cap on unfinished games).
const COUNT_UNFINISHED: &str = "select count(*) from seats s join games g on g.id = s.game_id \
    where s.player_id = ? and g.status in ('waiting', 'playing')";
/// The update of a change, guarded by the version the change was computed from.
const UPDATE_GAME: &str = "update games set status = ?, end_reason = ?, win_line = ?, \
    to_move = ?, move_count = ?, version = version + 1, updated_at = ?, finished_at = ?, \
    black_ms = ?, white_ms = ?, deadline = ?, takeback_offer = ?, takeback_expires = ?, \
    draw_offer = ?, draw_expires = ?, rematch_offer = ?, rematch_expires = ?, rematch_game_id = ?, \
    opening_steps = ? where id = ? and version = ?;";
/// Takes back moves from a ply on, if the statement before changed one row.
const DELETE_MOVES_FROM: &str =
    "delete from moves where game_id = ? and ply >= ? and changes() = 1;";
/// Adds a move, if the statement before changed one row.
const INSERT_MOVE_GUARDED: &str = "insert into moves (game_id, ply, \"row\", col, player, \
    played_at, clock_ms) select ?, ?, ?, ?, ?, ?, ? where changes() = 1;";
/// Seats a player, if the statement before changed one row.
const INSERT_SEAT_GUARDED: &str = "insert into seats (game_id, player_id, colour) \
    select ?, ?, ? where changes() = 1;";
/// A player's display name.
const PLAYER_NAME: &str = "select name from players where id = ?";

/// The seats of a game with their players' names.
pub(super) fn seats_of_game() -> String {
    format!(
        "select {SEAT_COLUMNS} from seats s join players p on p.id = s.player_id \
         where s.game_id = ?"
    )
}

impl Store {
    pub(in crate::store) async fn load(
        &self,
        id: &str,
    ) -> Result<Option<Arc<StoredGame>>, StoreError> {
        if let Some(cached) = self.shared.positions.get(id) {
            return Ok(Some(cached));
        }
        // One read transaction, so the game row, its moves and its seats come from one snapshot.
        let mut tx = self.reader().begin().await?;
        // A row per move (or one row with null move columns for a game without moves).
        let sql = format!(
            "select {GAME_COLUMNS}, {MOVE_COLUMNS} \
             from games g left join moves m on m.game_id = g.id \
             where g.id = ? order by m.ply"
        );
        let rows = sqlx::query(&sql).bind(id).fetch_all(&mut *tx).await?;
        let seats = sqlx::query(&seats_of_game())
            .bind(id)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(rows::stored(&rows, rows::seats(&seats)?)?.map(Arc::new))
    }

    /// Runs a write of a game through the writer; once committed, its stored result goes into
    /// the position cache and to the watchers.
    async fn write_game<F>(&self, work: F) -> Result<Written, StoreError>
    where
        F: for<'c> FnMut(&'c mut SqliteConnection) -> BoxFuture<'c, Result<Written, StoreError>>
            + Send
            + 'static,
    {
        self.writer().write_then(work, Some(self.remember())).await
    }

    /// The commit hook of a write of a game: records a stored result in the position cache and
    /// tells the watchers.
    fn remember(&self) -> OnCommit<Written> {
        let shared = self.shared.clone();
        Box::new(move |written| {
            if let Written::Stored(stored) = written {
                shared.positions.put(stored);
                shared.watchers.changed(stored);
            }
        })
    }

    pub(in crate::store) async fn insert(
        &self,
        fresh: Arc<Fresh>,
        cap: u32,
    ) -> Result<Written, StoreError> {
        // The cap is a guard in the game's insert, so a new game looks at nothing first either:
        // it joins the batch's script.
        let (sql, statements) = insert_sql(&fresh);
        let created = fresh.clone();
        self.writer()
            .plan(
                move |script| script.add(&sql, statements, |args| bind_insert(args, &fresh, cap)),
                move |done: Vec<Done>| match (done.first(), done.last()) {
                    (Some(game), Some(name)) if game.changes > 0 => {
                        // Always there: the game's foreign key holds its player, whose name is
                        // `not null`.
                        let name = name.rows.first().and_then(|r| r.try_get(0).ok());
                        Written::Stored(created.stored(name.unwrap_or_default()))
                    }
                    _ => Written::OverCap,
                },
                Some(self.remember()),
            )
            .await
    }

    pub(in crate::store) async fn commit(
        &self,
        update: Arc<Update>,
        cap: u32,
    ) -> Result<Written, StoreError> {
        // The statements are made once, before queueing: the writer runs one write after
        // another, so it should only run them.
        let (sql, statements) = update_sql(&update);
        if update.capped_players().next().is_some() || update.seat.is_some() {
            // It must count a player's games (or read a name) before it writes: on its own.
            let sql = Arc::new(sql);
            return self
                .write_game(move |conn| Box::pin(commit_in(conn, update.clone(), sql.clone(), cap)))
                .await;
        }
        // Everything else (moves played or taken back, an ending, the clocks, the offers) looks
        // at nothing first: it joins the batch's script, guarded by the version alone.
        let stored = update.next.clone();
        self.writer()
            .plan(
                move |script| script.add(&sql, statements, |args| bind_update(args, &update)),
                move |done: Vec<Done>| match done.first() {
                    Some(update) if update.changes > 0 => Written::Stored(stored.clone()),
                    _ => Written::Stale,
                },
                Some(self.remember()),
            )
            .await
    }

    pub(in crate::store) async fn rematch(
        &self,
        update: Arc<Update>,
        fresh: Arc<Fresh>,
        cap: u32,
    ) -> Result<Written, StoreError> {
        // It counts both players' games before it writes: on its own, like a join.
        let sql = Arc::new((update_sql(&update).0, insert_sql(&fresh).0));
        let shared = self.shared.clone();
        // The new game first: a client that hears of the finished game naming it finds it.
        let remember: OnCommit<Rematched> = Box::new(move |(written, new)| {
            if let Written::Stored(old) = written {
                for game in new.iter().chain([old]) {
                    shared.positions.put(game);
                    shared.watchers.changed(game);
                }
            }
        });
        let (written, _) = self
            .writer()
            .write_then(
                move |conn| {
                    let (update, fresh, sql) = (update.clone(), fresh.clone(), sql.clone());
                    Box::pin(async move { rematch_in(conn, &update, &fresh, &sql, cap).await })
                },
                Some(remember),
            )
            .await?;
        Ok(written)
    }

    pub(in crate::store) async fn delete(
        &self,
        id: &str,
        creator: &str,
        waiting_only: bool,
    ) -> Result<bool, StoreError> {
        let (creator, game_id) = (creator.to_string(), id.to_string());
        let shared = self.shared.clone();
        let forget_id = game_id.clone();
        let forget: OnCommit<bool> = Box::new(move |deleted| {
            if *deleted {
                shared.positions.forget(&forget_id);
                shared.watchers.deleted(&forget_id);
            }
        });
        self.writer()
            .write_then(
                move |conn| {
                    let (game_id, creator) = (game_id.clone(), creator.clone());
                    Box::pin(async move {
                        // A join that lands first makes the game shared: then nothing is deleted.
                        let sql = if waiting_only {
                            "delete from games where id = ? and player_id = ? \
                             and status = 'waiting'"
                        } else {
                            "delete from games where id = ? and player_id = ?"
                        };
                        let done = sqlx::query(sql)
                            .bind(&game_id)
                            .bind(&creator)
                            .execute(&mut *conn)
                            .await?;
                        Ok::<_, StoreError>(done.rows_affected() > 0)
                    })
                },
                Some(forget),
            )
            .await
    }

    pub(in crate::store) async fn list(
        &self,
        player_id: &str,
        filter: StatusFilter,
        limit: usize,
        after: Option<(&str, &str)>,
    ) -> Result<Vec<Summary>, StoreError> {
        let status_clause = status_clause(filter);
        let after_clause = if after.is_some() {
            "and (g.updated_at, g.id) < (?, ?)"
        } else {
            ""
        };
        let sql = format!(
            "select {GAME_COLUMNS}, {SUMMARY_COLUMNS} \
             from seats s join games g on g.id = s.game_id \
             left join moves m on m.game_id = g.id and m.ply = g.move_count - 1 \
             where s.player_id = ? {status_clause} {after_clause} \
             order by g.updated_at desc, g.id desc limit ?"
        );
        // One read transaction, so the games and their seats come from one snapshot.
        let mut tx = self.reader().begin().await?;
        let mut query = sqlx::query(&sql).bind(player_id);
        if let Some((updated_at, id)) = after {
            query = query.bind(updated_at).bind(id);
        }
        let rows = query.bind(limit as i64).fetch_all(&mut *tx).await?;
        let mut summaries: Vec<Summary> =
            rows.iter().map(rows::summary).collect::<Result<_, _>>()?;
        if !summaries.is_empty() {
            let marks = vec!["?"; summaries.len()].join(", ");
            let sql = format!(
                "select {SEAT_COLUMNS} from seats s join players p on p.id = s.player_id \
                 where s.game_id in ({marks})"
            );
            let mut query = sqlx::query(&sql);
            for summary in &summaries {
                query = query.bind(&summary.row.id);
            }
            let seats = query.fetch_all(&mut *tx).await?;
            rows::seat_summaries(&mut summaries, &seats)?;
        }
        tx.commit().await?;
        Ok(summaries)
    }

    pub(in crate::store) async fn due_games(&self) -> Result<Vec<DueGame>, StoreError> {
        let rows = sqlx::query(DUE_GAMES).fetch_all(self.reader()).await?;
        rows.iter().map(rows::due_game).collect()
    }
}

/// Whether the player already has `cap` games waiting or in play (inside the writer's
/// transaction, so a concurrent write cannot slip past the count).
pub(super) async fn at_cap(
    conn: &mut SqliteConnection,
    player_id: &str,
    cap: u32,
) -> Result<bool, StoreError> {
    let unfinished: i64 = sqlx::query_scalar(COUNT_UNFINISHED)
        .bind(player_id)
        .fetch_one(&mut *conn)
        .await?;
    Ok(unfinished >= i64::from(cap))
}

async fn player_name(conn: &mut SqliteConnection, player_id: &str) -> Result<String, StoreError> {
    sqlx::query_scalar(PLAYER_NAME)
        .bind(player_id)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or_else(|| StoreError::Corrupt(player_id.to_string(), "no such player".into()))
}

/// Every statement of a new game in one text, and how many statements that is: the game (if
/// unfinished, only while its creator has fewer unfinished games than the cap), its moves, its
/// creator's seat and the second player's (a rematch's), each only if the statement before it
/// changed one row, then the creator's name.
pub(super) fn insert_sql(fresh: &Fresh) -> (String, usize) {
    let mut sql = String::from(INSERT_GAME);
    if fresh.unfinished() {
        sql.push_str(&format!(" where ({COUNT_UNFINISHED}) < ?"));
    }
    sql.push(';');
    for _ in &fresh.moves {
        sql.push_str(INSERT_MOVE_GUARDED);
    }
    sql.push_str(INSERT_SEAT_GUARDED);
    if fresh.second.is_some() {
        sql.push_str(INSERT_SEAT_GUARDED);
    }
    sql.push_str(PLAYER_NAME);
    sql.push(';');
    let seats = 1 + usize::from(fresh.second.is_some());
    (sql, fresh.moves.len() + seats + 2)
}

/// Binds the arguments of [`insert_sql`]'s statements, in order.
pub(super) fn bind_insert(
    args: &mut SqliteArguments<'static>,
    fresh: &Fresh,
    cap: u32,
) -> Result<(), BoxDynError> {
    let row = &fresh.row;
    let (outcome, time_control) = (fresh.game.outcome(), row.time_control);
    args.add(row.id.clone())?;
    args.add(row.player_id.clone())?;
    args.add(row.mode.as_str())?;
    args.add(row.rule.as_str())?;
    args.add(row.board_size as i64)?;
    args.add(row.ai.map(|a| a.level.as_str()))?;
    args.add(row.ai.map(|a| stone_value(a.player)))?;
    args.add(row.status.as_str())?;
    args.add(row.end_reason.map(EndReason::as_str))?;
    args.add(win_line_json(outcome.win_line()))?;
    args.add(fresh.game.to_move().map(stone_value))?;
    args.add(row.move_count as i64)?;
    args.add(row.created_at.clone())?;
    args.add(row.updated_at.clone())?;
    args.add(row.finished_at.clone())?;
    args.add(time_control.map(|tc| tc.initial_ms))?;
    args.add(time_control.map(|tc| tc.increment_ms))?;
    args.add(row.clock.map(|c| c.black_ms))?;
    args.add(row.clock.map(|c| c.white_ms))?;
    args.add(row.opening.as_ref().map(|o| o.rule().as_str()))?;
    args.add(row.opening.as_ref().map(opening_steps_json))?;
    if fresh.unfinished() {
        args.add(row.player_id.clone())?;
        args.add(i64::from(cap))?;
    }
    for (ply, m) in fresh.moves.iter().enumerate() {
        bind_move(args, &row.id, ply, m)?;
    }
    args.add(row.id.clone())?;
    args.add(row.player_id.clone())?;
    args.add(fresh.colour.map(stone_value))?;
    if let Some((player, colour)) = &fresh.second {
        args.add(row.id.clone())?;
        args.add(player.clone())?;
        args.add(stone_value(*colour))?;
    }
    args.add(row.player_id.clone())?;
    Ok(())
}

/// Binds the arguments of an [`INSERT_MOVE_GUARDED`]: move `m` at `ply` of game `id`.
fn bind_move(
    args: &mut SqliteArguments<'static>,
    id: &str,
    ply: usize,
    m: &StoredMove,
) -> Result<(), BoxDynError> {
    args.add(id.to_string())?;
    args.add(ply as i64)?;
    args.add(m.point.row as i64)?;
    args.add(m.point.col as i64)?;
    args.add(stone_value(m.stone))?;
    args.add(m.played_at.clone())?;
    args.add(m.clock_ms)?;
    Ok(())
}

/// Every statement of a change in one text, one call to SQLite (each call is a round trip to the
/// connection's thread), and how many statements that is. Every statement after the update runs
/// only if the one before it changed exactly one row, so a stale version changes nothing at all.
fn update_sql(update: &Update) -> (String, usize) {
    let mut sql = String::from(UPDATE_GAME);
    let mut statements = 1;
    if update.truncate {
        sql.push_str(DELETE_MOVES_FROM);
        statements += 1;
    }
    for _ in update.appended() {
        sql.push_str(INSERT_MOVE_GUARDED);
        statements += 1;
    }
    if update.seat.is_some() {
        sql.push_str(INSERT_SEAT_GUARDED);
        statements += 1;
    }
    (sql, statements)
}

/// Binds the arguments of [`update_sql`]'s statements, in order.
fn bind_update(args: &mut SqliteArguments<'static>, update: &Update) -> Result<(), BoxDynError> {
    let (next, keep) = (&update.next, update.keep);
    let row = &next.row;
    let outcome = next.game.outcome();
    args.add(row.status.as_str())?;
    args.add(outcome.end_reason().map(EndReason::as_str))?;
    args.add(win_line_json(outcome.win_line()))?;
    args.add(next.game.to_move().map(stone_value))?;
    args.add(row.move_count as i64)?;
    args.add(row.updated_at.clone())?;
    args.add(row.finished_at.clone())?;
    args.add(row.clock.map(|c| c.black_ms))?;
    args.add(row.clock.map(|c| c.white_ms))?;
    args.add(deadline_text(row.clock))?;
    for offer in [row.offers.takeback, row.offers.draw, row.offers.rematch] {
        let (by, expires) = offer_columns(offer);
        args.add(by)?;
        args.add(expires)?;
    }
    args.add(row.rematch_game_id.clone())?;
    args.add(row.opening.as_ref().map(opening_steps_json))?;
    args.add(row.id.clone())?;
    args.add(update.from_version)?;
    if update.truncate {
        args.add(row.id.clone())?;
        args.add(keep as i64)?;
    }
    for (i, m) in update.appended().iter().enumerate() {
        bind_move(args, &row.id, keep + i, m)?;
    }
    if let Some((player, colour)) = &update.seat {
        args.add(row.id.clone())?;
        args.add(player.clone())?;
        args.add(stone_value(*colour))?;
    }
    Ok(())
}

/// The write of [`Store::commit`], inside the writer's transaction.
async fn commit_in(
    conn: &mut SqliteConnection,
    update: Arc<Update>,
    sql: Arc<String>,
    cap: u32,
) -> Result<Written, StoreError> {
    for player in update.capped_players() {
        if at_cap(conn, player, cap).await? {
            return Ok(Written::OverCap);
        }
    }
    let mut args = SqliteArguments::default();
    bind_update(&mut args, &update).map_err(sqlx::Error::Encode)?;
    let query = sqlx::query_with(&sql, args);
    let done = query.execute(&mut *conn).await?;
    if done.rows_affected() == 0 {
        return Ok(Written::Stale);
    }
    // A join (rare next to moves) reads the new seat's name in the transaction that seats it.
    let name = match &update.seat {
        Some((player, _)) => Some(player_name(conn, player).await?),
        None => None,
    };
    Ok(Written::Stored(update.seated(name)))
}

/// The write of [`Store::rematch`], inside the writer's transaction: both players' caps first
/// (nothing is written past either), then the finished game's guarded update, then the new game
/// with both seats, only if the update landed; the seats are read back with their names.
async fn rematch_in(
    conn: &mut SqliteConnection,
    update: &Update,
    fresh: &Fresh,
    sql: &(String, String),
    cap: u32,
) -> Result<Rematched, StoreError> {
    for player in fresh.players() {
        if at_cap(conn, player, cap).await? {
            return Ok((Written::OverCap, None));
        }
    }
    let mut args = SqliteArguments::default();
    bind_update(&mut args, update).map_err(sqlx::Error::Encode)?;
    let done = sqlx::query_with(&sql.0, args).execute(&mut *conn).await?;
    if done.rows_affected() == 0 {
        return Ok((Written::Stale, None));
    }
    let mut args = SqliteArguments::default();
    bind_insert(&mut args, fresh, cap).map_err(sqlx::Error::Encode)?;
    sqlx::query_with(&sql.1, args).execute(&mut *conn).await?;
    let seats = sqlx::query(&seats_of_game())
        .bind(&fresh.row.id)
        .fetch_all(&mut *conn)
        .await?;
    let new = fresh.seated(rows::seats(&seats)?);
    Ok((Written::Stored(update.next.clone()), Some(new)))
}
