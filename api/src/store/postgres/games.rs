//! The games' SQL on PostgreSQL, for several instances writing at once.
//!
//! A load is one statement, so one snapshot: the game's row, its seats with their names (a rename
//! on another instance changes a name, not the version) and its moves — only those the position
//! cache lacks when it holds the game. The cache serves the game if it holds that very version
//! with those seats; when it holds an earlier one that the new moves simply follow (another
//! instance's move, mostly), they are played on the cached position; otherwise (a takeback, an
//! opening) the whole game is read and replayed. A move skips even that statement when the
//! cache has no news of a newer version ([`store::games::current`](crate::store::games::current)):
//! the version guard of its write is the check, and anything but a landed move is decided again
//! on a load. A change is one statement: the version-guarded update of the game row,
//! with the moves it adds or takes back and the seat it fills as data-modifying `with` parts that
//! run only if the update changed the row; PostgreSQL runs a statement atomically, so a stale
//! version writes nothing, and a move at a ply already taken fails the whole statement on the
//! primary key. Changes that can pass a player's cap on unfinished games (a new game, a join, an
//! undo that reopens a game) run in a transaction that first locks the player's row, then
//! counts: two such writes for one player, from any instances, count one after the other.
//! The other changes (a move, an offer, a resignation, a flag fall) go to the instance's group
//! writer ([`group`](super::group)), which writes those arriving together as one statement.
//! Once committed, a change is told to this instance's watchers, then announced to the other
//! instances ([`announce`](super::announce)), and only then answered.

use std::sync::{Arc, LazyLock};

use gomoku_rules::EndReason;
use sqlx::postgres::PgRow;
use sqlx::PgConnection;

use super::{announce, group, Store};
use crate::store::games::rows::{
    self, deadline_text, offer_columns, opening_steps_json, stone_value, win_line_json, Columns,
    DUE_GAMES, GAME_COLUMNS, MOVE_COLUMNS, SEAT_COLUMNS, SUMMARY_COLUMNS,
};
use crate::store::games::{
    status_clause, DueGame, Fresh, Seats, StatusFilter, StoredGame, StoredMove, Summary, Update,
    Written,
};
use crate::store::StoreError;

/// A game's row, its seats (as JSON objects of [`SEAT_COLUMNS`]' names) and its moves from ply
/// $2 on, one row per move (one with null move columns when there are none).
static GAME_SEATS_MOVES: LazyLock<String> = LazyLock::new(|| {
    format!(
        "select {GAME_COLUMNS}, st.seats, {MOVE_COLUMNS} from games g \
         cross join lateral (select json_agg(json_build_object('game_id', s.game_id, \
         'player_id', s.player_id, 'colour', s.colour, 'name', p.name))::text as seats \
         from seats s join players p on p.id = s.player_id where s.game_id = g.id) st \
         left join moves m on m.game_id = g.id and m.ply >= $2 where g.id = $1 order by m.ply"
    )
});
/// Locks a player's row: whoever counts that player's unfinished games next waits for this
/// transaction.
const LOCK_PLAYER: &str = "select id from players where id = $1 for update";
/// A player's games waiting or in play (for the cap on unfinished games).
const COUNT_UNFINISHED: &str = "select count(*) from seats s join games g on g.id = s.game_id \
    where s.player_id = $1 and g.status in ('waiting', 'playing')";
/// A new game (at version 0), its moves, its creator's seat and the second player's (a
/// rematch's, when $27 is not null), then the creator's name.
const INSERT_GAME: &str = "with g as (insert into games (id, player_id, mode, rule, board_size, \
    ai_level, ai_player, status, end_reason, win_line, to_move, move_count, version, created_at, \
    updated_at, finished_at, initial_ms, increment_ms, black_ms, white_ms, opening, opening_steps) \
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0, $13, $14, $15, $16, $17, $18, \
    $19, $29, $30) returning id), \
    m as (insert into moves (game_id, ply, \"row\", col, player, played_at, clock_ms) \
    select g.id, u.* from g cross join \
    unnest($20::int[], $21::int[], $22::int[], $23::int[], $24::text[], $25::bigint[]) as u), \
    s as (insert into seats (game_id, player_id, colour) select g.id, $2, $26 from g \
    union all select g.id, $27::text, $28::int from g where $27::text is not null) \
    select name from players where id = $2";
/// The version-guarded update of a change ($1–$19); what else the change writes follows it as
/// `with` parts reading `up`, which holds a row only if the update landed.
const UPDATE_GAME: &str = "with up as (update games set status = $1, end_reason = $2, \
    win_line = $3, to_move = $4, move_count = $5, version = version + 1, updated_at = $6, \
    finished_at = $7, black_ms = $8, white_ms = $9, deadline = $10, takeback_offer = $11, \
    draw_offer = $12, takeback_expires = $15, draw_expires = $16, rematch_offer = $17, \
    rematch_expires = $18, rematch_game_id = $19, opening_steps = $20 where id = $13 \
    and version = $14 returning id)";
/// The number of [`UPDATE_GAME`]'s parameters.
const UPDATE_MARKS: usize = 20;
/// The seats of a game with their players' names.
pub(super) const SEATS_OF_GAME: &str = "select s.game_id, s.player_id, s.colour, p.name \
    from seats s join players p on p.id = s.player_id where s.game_id = $1";

impl Store {
    pub(in crate::store) async fn load(
        &self,
        id: &str,
    ) -> Result<Option<Arc<StoredGame>>, StoreError> {
        if !storable(id) {
            return Ok(None);
        }
        let sql = GAME_SEATS_MOVES.as_str();
        let cached = self.shared.positions.get(id);
        if let Some(cached) = cached {
            let rows = sqlx::query(sql)
                .bind(id)
                .bind(i32::try_from(cached.moves.len()).unwrap_or(i32::MAX))
                .fetch_all(&self.pool)
                .await?;
            let Some(first) = rows.first() else {
                self.shared.positions.forget(id);
                return Ok(None);
            };
            let seats = seats(first)?;
            if cached.row.version == first.need_int("version")? {
                // At one version the row is the cache's, and so is its orientation of the seats;
                // only a name may have changed since. Put back, the game is no longer doubted.
                let seats = rows::as_played(&cached.row, seats);
                let stored = if cached.seats == seats {
                    cached
                } else {
                    Arc::new(StoredGame {
                        seats,
                        ..(*cached).clone()
                    })
                };
                self.shared.positions.put(&stored);
                return Ok(Some(stored));
            }
            if let Some(stored) = rows::advanced(&cached, &rows, seats)? {
                let stored = Arc::new(stored);
                self.shared.positions.put(&stored);
                return Ok(Some(stored));
            }
        }
        let rows = sqlx::query(sql)
            .bind(id)
            .bind(0)
            .fetch_all(&self.pool)
            .await?;
        let Some(first) = rows.first() else {
            self.shared.positions.forget(id);
            return Ok(None);
        };
        let Some(stored) = rows::stored(&rows, seats(first)?)? else {
            return Ok(None);
        };
        let stored = Arc::new(stored);
        self.shared.positions.put(&stored);
        Ok(Some(stored))
    }

    /// Tells the position cache and the watchers of games this instance committed, in order,
    /// then the other instances.
    async fn committed(&self, games: &[&Arc<StoredGame>]) {
        for stored in games {
            self.shared.positions.put(stored);
            self.shared.watchers.changed(stored);
        }
        self.announce(games.iter().map(|stored| announce::changed(stored)))
            .await;
    }

    pub(in crate::store) async fn insert(
        &self,
        fresh: Arc<Fresh>,
        cap: u32,
    ) -> Result<Written, StoreError> {
        let mut tx = self.pool.begin().await?;
        if fresh.unfinished() && at_cap(&mut tx, &fresh.row.player_id, cap).await? {
            return Ok(Written::OverCap);
        }
        let name = insert_fresh(&mut tx, &fresh).await?;
        tx.commit().await?;
        let stored = fresh.stored(name);
        self.committed(&[&stored]).await;
        Ok(Written::Stored(stored))
    }

    pub(in crate::store) async fn rematch(
        &self,
        update: Arc<Update>,
        fresh: Arc<Fresh>,
        cap: u32,
    ) -> Result<Written, StoreError> {
        // Locks in one order, as a capped commit does.
        let mut players: Vec<&str> = fresh.players().collect();
        players.sort_unstable();
        let mut tx = self.pool.begin().await?;
        for player in players {
            if at_cap(&mut tx, player, cap).await? {
                return Ok(Written::OverCap);
            }
        }
        // Another accept of the same offer, on any instance, moved the version on: it made the
        // game, and this transaction is dropped (rolled back) having written nothing.
        if run_update(&mut tx, &update).await?.is_none() {
            return Ok(Written::Stale);
        }
        insert_fresh(&mut tx, &fresh).await?;
        let seats = sqlx::query(SEATS_OF_GAME)
            .bind(&fresh.row.id)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        let (new, old) = (fresh.seated(rows::seats(&seats)?), update.seated(None));
        // The new game first: a client that hears of the finished game naming it finds it.
        self.committed(&[&new, &old]).await;
        Ok(Written::Stored(old))
    }

    pub(in crate::store) async fn commit(
        &self,
        update: Arc<Update>,
        cap: u32,
    ) -> Result<Written, StoreError> {
        let mut capped: Vec<&str> = update.capped_players().collect();
        let landed = if group::Group::takes(&update) {
            // A move, an offer, a resignation, a flag fall: written with the others that arrive
            // with it, one statement for the group ([`group`]).
            self.group.write(update.clone()).await?.then_some(None)
        } else if capped.is_empty() {
            // A takeback: one statement, no transaction.
            let mut conn = self.pool.acquire().await?;
            run_update(&mut conn, &update).await?
        } else {
            // Locks in one order, so two such writes never wait for each other in a circle.
            capped.sort_unstable();
            capped.dedup();
            let mut tx = self.pool.begin().await?;
            for player in capped {
                if at_cap(&mut tx, player, cap).await? {
                    return Ok(Written::OverCap);
                }
            }
            let landed = run_update(&mut tx, &update).await?;
            tx.commit().await?;
            landed
        };
        let Some(name) = landed else {
            return Ok(Written::Stale);
        };
        let stored = update.seated(name);
        self.committed(&[&stored]).await;
        Ok(Written::Stored(stored))
    }

    pub(in crate::store) async fn delete(
        &self,
        id: &str,
        creator: &str,
        waiting_only: bool,
    ) -> Result<bool, StoreError> {
        if !storable(id) {
            return Ok(false);
        }
        // A join that lands first makes the game shared: then nothing is deleted.
        let sql = if waiting_only {
            "delete from games where id = $1 and player_id = $2 and status = 'waiting'"
        } else {
            "delete from games where id = $1 and player_id = $2"
        };
        let done = sqlx::query(sql)
            .bind(id)
            .bind(creator)
            .execute(&self.pool)
            .await?;
        let deleted = done.rows_affected() > 0;
        if deleted {
            self.shared.positions.forget(id);
            self.shared.watchers.deleted(id);
            self.announce([announce::deleted(id)]).await;
        }
        Ok(deleted)
    }

    pub(in crate::store) async fn list(
        &self,
        player_id: &str,
        filter: StatusFilter,
        limit: usize,
        after: Option<(&str, &str)>,
    ) -> Result<Vec<Summary>, StoreError> {
        let status_clause = status_clause(filter);
        let (after_clause, limit_mark) = if after.is_some() {
            ("and (g.updated_at, g.id) < ($2, $3)", "$4")
        } else {
            ("", "$2")
        };
        let sql = format!(
            "select {GAME_COLUMNS}, {SUMMARY_COLUMNS} \
             from seats s join games g on g.id = s.game_id \
             left join moves m on m.game_id = g.id and m.ply = g.move_count - 1 \
             where s.player_id = $1 {status_clause} {after_clause} \
             order by g.updated_at desc, g.id desc limit {limit_mark}"
        );
        // One snapshot for the games and their seats.
        let mut tx = self.pool.begin().await?;
        sqlx::query("set transaction isolation level repeatable read, read only")
            .execute(&mut *tx)
            .await?;
        let mut query = sqlx::query(&sql).bind(player_id);
        if let Some((updated_at, id)) = after {
            query = query.bind(updated_at).bind(id);
        }
        let rows = query.bind(limit as i64).fetch_all(&mut *tx).await?;
        let mut summaries: Vec<Summary> =
            rows.iter().map(rows::summary).collect::<Result<_, _>>()?;
        if !summaries.is_empty() {
            let ids: Vec<&str> = summaries.iter().map(|s| s.row.id.as_str()).collect();
            let sql = format!(
                "select {SEAT_COLUMNS} from seats s join players p on p.id = s.player_id \
                 where s.game_id = any($1)"
            );
            let seats = sqlx::query(&sql).bind(&ids).fetch_all(&mut *tx).await?;
            rows::seat_summaries(&mut summaries, &seats)?;
        }
        tx.commit().await?;
        Ok(summaries)
    }

    pub(in crate::store) async fn due_games(&self) -> Result<Vec<DueGame>, StoreError> {
        let rows = sqlx::query(DUE_GAMES).fetch_all(&self.pool).await?;
        rows.iter().map(rows::due_game).collect()
    }
}

/// Whether `text` can be stored at all: PostgreSQL's text holds no NUL character, so an id
/// The seats a [`GAME_SEATS_MOVES`] row carries.
fn seats(row: &PgRow) -> Result<Seats, StoreError> {
    let json = row.need_text("seats")?;
    match serde_json::from_str::<Vec<serde_json::Map<String, serde_json::Value>>>(&json) {
        Ok(seats) => rows::seats(&seats),
        Err(e) => Err(StoreError::Corrupt(
            row.need_text("id")?,
            format!("seats: {e}"),
        )),
    }
}

/// with one (from a request's path) names no game, and asking for it would be an error.
fn storable(text: &str) -> bool {
    !text.contains('\0')
}

/// Locks the player's row, then whether they already have `cap` games waiting or in play. The
/// count is a statement of its own, after the lock: in PostgreSQL's default isolation each
/// statement sees what was committed before it began, so it sees the games of whoever held the
/// lock before.
pub(super) async fn at_cap(
    conn: &mut PgConnection,
    player_id: &str,
    cap: u32,
) -> Result<bool, StoreError> {
    sqlx::query(LOCK_PLAYER)
        .bind(player_id)
        .fetch_optional(&mut *conn)
        .await?;
    let unfinished: i64 = sqlx::query_scalar(COUNT_UNFINISHED)
        .bind(player_id)
        .fetch_one(&mut *conn)
        .await?;
    Ok(unfinished >= i64::from(cap))
}

/// Inserts a new game with its moves and its seats; the creator's name.
pub(super) async fn insert_fresh(
    conn: &mut PgConnection,
    fresh: &Fresh,
) -> Result<String, StoreError> {
    let row = &fresh.row;
    let (outcome, time_control) = (fresh.game.outcome(), row.time_control);
    let moves = MoveColumns::of(&fresh.moves, 0);
    Ok(sqlx::query_scalar::<_, String>(INSERT_GAME)
        .bind(&row.id)
        .bind(&row.player_id)
        .bind(row.mode.as_str())
        .bind(row.rule.as_str())
        .bind(row.board_size as i64)
        .bind(row.ai.map(|a| a.level.as_str()))
        .bind(row.ai.map(|a| stone_value(a.player)))
        .bind(row.status.as_str())
        .bind(row.end_reason.map(EndReason::as_str))
        .bind(win_line_json(outcome.win_line()))
        .bind(fresh.game.to_move().map(stone_value))
        .bind(row.move_count as i64)
        .bind(&row.created_at)
        .bind(&row.updated_at)
        .bind(&row.finished_at)
        .bind(time_control.map(|tc| tc.initial_ms))
        .bind(time_control.map(|tc| tc.increment_ms))
        .bind(row.clock.map(|c| c.black_ms))
        .bind(row.clock.map(|c| c.white_ms))
        .bind(moves.ply)
        .bind(moves.row)
        .bind(moves.col)
        .bind(moves.player)
        .bind(moves.played_at)
        .bind(moves.clock_ms)
        .bind(fresh.colour.map(stone_value))
        .bind(fresh.second.as_ref().map(|(player, _)| player))
        .bind(
            fresh
                .second
                .as_ref()
                .map(|(_, colour)| stone_value(*colour)),
        )
        .bind(row.opening.as_ref().map(|o| o.rule().as_str()))
        .bind(row.opening.as_ref().map(opening_steps_json))
        .fetch_one(&mut *conn)
        .await?)
}

/// Moves as the columns `unnest` turns back into rows.
#[derive(Default)]
pub(super) struct MoveColumns {
    pub(super) ply: Vec<i32>,
    pub(super) row: Vec<i32>,
    pub(super) col: Vec<i32>,
    pub(super) player: Vec<i32>,
    pub(super) played_at: Vec<String>,
    pub(super) clock_ms: Vec<Option<i64>>,
}

impl MoveColumns {
    /// `moves`, the first at ply `first`.
    fn of(moves: &[StoredMove], first: usize) -> MoveColumns {
        let mut columns = MoveColumns::default();
        columns.extend(moves, first);
        columns
    }

    /// Adds `moves`, the first at ply `first`.
    pub(super) fn extend(&mut self, moves: &[StoredMove], first: usize) {
        let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        self.ply.extend((0..moves.len()).map(|i| int(first + i)));
        self.row.extend(moves.iter().map(|m| int(m.point.row)));
        self.col.extend(moves.iter().map(|m| int(m.point.col)));
        self.player
            .extend(moves.iter().map(|m| i32::from(m.stone.as_u8())));
        self.played_at
            .extend(moves.iter().map(|m| m.played_at.clone()));
        self.clock_ms.extend(moves.iter().map(|m| m.clock_ms));
    }
}

/// Runs the statement of a change: None when the version had moved on (nothing written), else
/// the name of the player it seated, if it seated one.
pub(super) async fn run_update(
    conn: &mut PgConnection,
    update: &Update,
) -> Result<Option<Option<String>>, StoreError> {
    let (next, keep) = (&update.next, update.keep);
    let row = &next.row;
    let appended = update.appended();
    let mut sql = String::from(UPDATE_GAME);
    let mut mark = UPDATE_MARKS;
    let mut next_mark = || {
        mark += 1;
        mark
    };
    if update.truncate {
        let from = next_mark();
        sql.push_str(&format!(
            ", gone as (delete from moves where game_id = (select id from up) and ply >= ${from})"
        ));
    }
    if !appended.is_empty() {
        let marks: Vec<usize> = (0..6).map(|_| next_mark()).collect();
        sql.push_str(&format!(
            ", added as (insert into moves (game_id, ply, \"row\", col, player, played_at, \
             clock_ms) select up.id, u.* from up cross join unnest(${}::int[], ${}::int[], \
             ${}::int[], ${}::int[], ${}::text[], ${}::bigint[]) as u)",
            marks[0], marks[1], marks[2], marks[3], marks[4], marks[5]
        ));
    }
    if update.seat.is_some() {
        let (player, colour) = (next_mark(), next_mark());
        sql.push_str(&format!(
            ", seated as (insert into seats (game_id, player_id, colour) \
             select up.id, ${player}, ${colour} from up) \
             select (select name from players where id = ${player}) as name from up"
        ));
    } else {
        sql.push_str(" select null::text as name from up");
    }
    let outcome = next.game.outcome();
    let mut query = sqlx::query(&sql)
        .bind(row.status.as_str())
        .bind(outcome.end_reason().map(EndReason::as_str))
        .bind(win_line_json(outcome.win_line()))
        .bind(next.game.to_move().map(stone_value))
        .bind(row.move_count as i64)
        .bind(&row.updated_at)
        .bind(&row.finished_at)
        .bind(row.clock.map(|c| c.black_ms))
        .bind(row.clock.map(|c| c.white_ms))
        .bind(deadline_text(row.clock))
        .bind(row.offers.takeback.map(|o| stone_value(o.by)))
        .bind(row.offers.draw.map(|o| stone_value(o.by)))
        .bind(&row.id)
        .bind(update.from_version);
    for offer in [row.offers.takeback, row.offers.draw] {
        query = query.bind(offer_columns(offer).1);
    }
    let (rematch_by, rematch_expires) = offer_columns(row.offers.rematch);
    query = query
        .bind(rematch_by)
        .bind(rematch_expires)
        .bind(&row.rematch_game_id)
        .bind(row.opening.as_ref().map(opening_steps_json));
    if update.truncate {
        query = query.bind(keep as i64);
    }
    if !appended.is_empty() {
        let moves = MoveColumns::of(appended, keep);
        query = query
            .bind(moves.ply)
            .bind(moves.row)
            .bind(moves.col)
            .bind(moves.player)
            .bind(moves.played_at)
            .bind(moves.clock_ms);
    }
    if let Some((player, colour)) = &update.seat {
        query = query.bind(player).bind(stone_value(*colour));
    }
    let landed = query.fetch_optional(&mut *conn).await?;
    landed.map(|r| r.text("name")).transpose()
}
