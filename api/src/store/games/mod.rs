//! Games, their seats and their moves: the operations on the `games`, `seats` and `moves` tables
//! (load, insert, commit a change, delete, list, the running clocks).
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
use sqlx::{Row, SqliteConnection};
use time::OffsetDateTime;

use super::writer::OnCommit;
use super::{now, parse_timestamp, timestamp, Db, StoreError};
pub use model::{
    AiSetting, Change, Clock, GameRow, GameStatus, Mode, NewGame, Offers, OnlineSetup, Role, Seat,
    Seats, StatusFilter, StoredGame, StoredMove, Summary, TimeControl, UnknownMode, UnknownStatus,
    Written,
};
use rows::{
    add_seat, stone_value, win_line_json, GAME_COLUMNS, MOVE_COLUMNS, SEAT_COLUMNS, SUMMARY_COLUMNS,
};

/// Adds a game (at version 0).
const INSERT_GAME: &str = "insert into games (id, player_id, mode, rule, board_size, ai_level, \
    ai_player, status, end_reason, win_line, to_move, move_count, version, created_at, \
    updated_at, finished_at, initial_ms, increment_ms, black_ms, white_ms) \
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)";
/// Seats a player at a new game.
const INSERT_SEAT: &str = "insert into seats (game_id, player_id, colour) values (?, ?, ?)";
/// A player's games waiting or in play (for the cap on unfinished games).
const COUNT_UNFINISHED: &str = "select count(*) from seats s join games g on g.id = s.game_id \
    where s.player_id = ? and g.status in ('waiting', 'playing')";
/// Adds a move.
const INSERT_MOVE: &str = "insert into moves (game_id, ply, row, col, player, played_at, \
    clock_ms) values (?, ?, ?, ?, ?, ?, ?)";
/// The update of a change, guarded by the version the change was computed from.
const UPDATE_GAME: &str = "update games set status = ?, end_reason = ?, win_line = ?, \
    to_move = ?, move_count = ?, version = version + 1, updated_at = ?, finished_at = ?, \
    black_ms = ?, white_ms = ?, deadline = ?, takeback_offer = ?, draw_offer = ? \
    where id = ? and version = ?;";
/// Takes back moves from a ply on, if the statement before changed one row.
const DELETE_MOVES_FROM: &str =
    "delete from moves where game_id = ? and ply >= ? and changes() = 1;";
/// Adds a move, if the statement before changed one row.
const INSERT_MOVE_GUARDED: &str = "insert into moves (game_id, ply, row, col, player, \
    played_at, clock_ms) select ?, ?, ?, ?, ?, ?, ? where changes() = 1;";
/// Seats a player, if the statement before changed one row.
const INSERT_SEAT_GUARDED: &str = "insert into seats (game_id, player_id, colour) \
    select ?, ?, ? where changes() = 1;";
/// A player's display name.
const PLAYER_NAME: &str = "select name from players where id = ?";

/// Loads game `id`, whoever it belongs to (None if there is none). The game may be the cache's
/// own: a change to it is made on copies.
pub async fn load(db: &Db, id: &str) -> Result<Option<Arc<StoredGame>>, StoreError> {
    if let Some(cached) = db.positions().get(id) {
        return Ok(Some(cached));
    }
    // One read transaction, so the game row, its moves and its seats come from one snapshot.
    let mut tx = db.reader().begin().await?;
    // A row per move (or one row with null move columns for a game without moves).
    let sql = format!(
        "select {GAME_COLUMNS}, {MOVE_COLUMNS} \
         from games g left join moves m on m.game_id = g.id \
         where g.id = ? order by m.ply"
    );
    let rows = sqlx::query(&sql).bind(id).fetch_all(&mut *tx).await?;
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
    let sql = format!(
        "select {SEAT_COLUMNS} from seats s join players p on p.id = s.player_id \
         where s.game_id = ?"
    );
    let mut seats = Seats::default();
    for r in sqlx::query(&sql).bind(id).fetch_all(&mut *tx).await? {
        let (_, colour, seat) = rows::seat(&r)?;
        add_seat(&mut seats, colour, seat);
    }
    tx.commit().await?;
    let game = rows::rebuild(&row, &moves)?;
    Ok(Some(Arc::new(StoredGame {
        row,
        seats,
        moves,
        game,
    })))
}

/// Runs a write of a game through the writer; once committed, records a stored result in the
/// position cache and tells the watchers.
async fn write_game<F>(db: &Db, work: F) -> Result<Written, StoreError>
where
    F: for<'c> FnOnce(
            &'c mut SqliteConnection,
        ) -> super::writer::BoxFuture<'c, Result<Written, StoreError>>
        + Send
        + 'static,
{
    let (positions, watchers) = (db.positions().clone(), db.watchers().clone());
    let remember: OnCommit<Written> = Box::new(move |written| {
        if let Written::Stored(stored) = written {
            positions.put(stored);
            watchers.changed(stored);
        }
    });
    db.writer().write_then(work, Some(remember)).await
}

/// Whether the player already has `cap` games waiting or in play (inside the writer's
/// transaction, so a concurrent write cannot slip past the count).
async fn at_cap(
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

/// The stored form of a deadline.
fn deadline_text(clock: Option<Clock>) -> Option<String> {
    clock.and_then(|c| c.deadline).map(timestamp)
}

/// Stores a new game: [`Written::OverCap`] when it would be unfinished and the player already
/// has `cap` unfinished games.
pub async fn insert(db: &Db, new: NewGame, cap: u32) -> Result<Written, StoreError> {
    write_game(db, move |conn| Box::pin(insert_in(conn, new, cap))).await
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
    let status = match new.online {
        Some(_) => GameStatus::Waiting,
        None => GameStatus::Rules(outcome.status()),
    };
    if !status.is_over() && at_cap(conn, &new.player_id, cap).await? {
        return Ok(Written::OverCap);
    }
    let finished_at = status.is_over().then(|| at.clone());
    let (rule, board_size) = (new.game.rule(), new.game.size());
    let time_control = new.online.and_then(|o| o.time_control);
    let clock = time_control.map(|tc| Clock {
        black_ms: tc.initial_ms,
        white_ms: tc.initial_ms,
        deadline: None,
    });
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
        .bind(new.moves.len() as i64)
        .bind(&at)
        .bind(&at)
        .bind(&finished_at)
        .bind(time_control.map(|tc| tc.initial_ms))
        .bind(time_control.map(|tc| tc.increment_ms))
        .bind(clock.map(|c| c.black_ms))
        .bind(clock.map(|c| c.white_ms))
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
            .bind(m.clock_ms)
            .execute(&mut *conn)
            .await?;
    }
    // The creator's seat: both colours of a local game, the person's of an ai game.
    let colour = match (new.mode, new.ai, new.online) {
        (_, _, Some(online)) => Some(online.seat),
        (_, Some(ai), None) => Some(ai.player.opponent()),
        _ => None,
    };
    sqlx::query(INSERT_SEAT)
        .bind(&id)
        .bind(&new.player_id)
        .bind(colour.map(stone_value))
        .execute(&mut *conn)
        .await?;
    let mut seats = Seats::default();
    let seat = Seat {
        name: player_name(conn, &new.player_id).await?,
        player_id: new.player_id.clone(),
    };
    add_seat(&mut seats, colour, seat);
    let row = GameRow {
        id,
        player_id: new.player_id,
        mode: new.mode,
        rule,
        board_size,
        ai: new.ai,
        status,
        end_reason: outcome.end_reason(),
        move_count: new.moves.len(),
        version: 0,
        created_at: at.clone(),
        updated_at: at,
        finished_at,
        time_control,
        clock,
        offers: Offers::default(),
    };
    Ok(Written::Stored(Arc::new(StoredGame {
        row,
        seats,
        moves: new.moves,
        game: new.game,
    })))
}

/// Commits a change if the game is still at the version it was loaded at; when the change
/// reopens a finished game, or seats a player, only if that player has fewer than `cap`
/// unfinished games.
pub async fn commit(db: &Db, change: Change, cap: u32) -> Result<Written, StoreError> {
    let id = change.row.id.clone();
    let written = write_game(db, move |conn| Box::pin(commit_in(conn, change, cap))).await?;
    if let Written::Stale = written {
        // Usually another request of ours won, and the cache already holds its result; but if
        // something else wrote the file, the cached state is stale: read it afresh next time.
        db.positions().forget(&id);
    }
    Ok(written)
}

/// The write of [`commit`], inside the writer's transaction.
async fn commit_in(
    conn: &mut SqliteConnection,
    change: Change,
    cap: u32,
) -> Result<Written, StoreError> {
    let Change {
        row,
        keep,
        moves,
        game,
        at,
        waiting,
        clock,
        offers,
        mut seats,
        seat,
    } = change;
    let outcome = game.outcome();
    let status = if waiting {
        GameStatus::Waiting
    } else {
        GameStatus::Rules(outcome.status())
    };
    if row.status.is_over() && !status.is_over() && at_cap(conn, &row.player_id, cap).await? {
        return Ok(Written::OverCap);
    }
    if let Some((player, _)) = &seat {
        if at_cap(conn, player, cap).await? {
            return Ok(Written::OverCap);
        }
    }
    let move_count = moves.len();
    // The finish time stays that of the first finish; a reopened game loses it.
    let finished_at = if status.is_over() {
        Some(row.finished_at.clone().unwrap_or_else(|| at.clone()))
    } else {
        None
    };
    let truncate = keep < row.move_count;
    let append = &moves[keep.min(move_count)..];
    if (truncate && !append.is_empty()) || (seat.is_some() && (truncate || !append.is_empty())) {
        // The guard chain below relies on `changes()`: one kind of change.
        return Err(StoreError::Batch(
            "a change may truncate, append or seat a player, only one of them".into(),
        ));
    }
    if let Some((player, colour)) = &seat {
        let name = player_name(conn, player).await?;
        seats.set(
            *colour,
            Seat {
                player_id: player.clone(),
                name,
            },
        );
    }
    // One call to SQLite for the whole change (each call is a round trip to the connection's
    // thread). Every statement after the update runs only if the one before it changed exactly
    // one row, so a stale version changes nothing at all.
    let mut sql = String::from(UPDATE_GAME);
    if truncate {
        sql.push_str(DELETE_MOVES_FROM);
    }
    for _ in append {
        sql.push_str(INSERT_MOVE_GUARDED);
    }
    if seat.is_some() {
        sql.push_str(INSERT_SEAT_GUARDED);
    }
    let mut query = sqlx::query(&sql)
        .bind(status.as_str())
        .bind(outcome.end_reason().map(EndReason::as_str))
        .bind(win_line_json(outcome.win_line()))
        .bind(game.to_move().map(stone_value))
        .bind(move_count as i64)
        .bind(&at)
        .bind(&finished_at)
        .bind(clock.map(|c| c.black_ms))
        .bind(clock.map(|c| c.white_ms))
        .bind(deadline_text(clock))
        .bind(offers.takeback.map(stone_value))
        .bind(offers.draw.map(stone_value))
        .bind(&row.id)
        .bind(row.version);
    if truncate {
        query = query.bind(&row.id).bind(keep as i64);
    }
    for (i, m) in append.iter().enumerate() {
        query = query
            .bind(&row.id)
            .bind((keep + i) as i64)
            .bind(m.point.row as i64)
            .bind(m.point.col as i64)
            .bind(stone_value(m.stone))
            .bind(&m.played_at)
            .bind(m.clock_ms);
    }
    if let Some((player, colour)) = &seat {
        query = query.bind(&row.id).bind(player).bind(stone_value(*colour));
    }
    match query.execute(&mut *conn).await {
        Ok(done) if done.rows_affected() == 0 => return Ok(Written::Stale),
        Ok(_) => {}
        // The version guard makes this unreachable in one process; the primary keys and the
        // seat's unique colour still decide if another process writes the same file.
        Err(e)
            if e.as_database_error()
                .is_some_and(|d| d.is_unique_violation()) =>
        {
            return Ok(Written::Stale)
        }
        Err(e) => return Err(e.into()),
    }
    let row = GameRow {
        status,
        end_reason: outcome.end_reason(),
        move_count,
        version: row.version + 1,
        updated_at: at,
        finished_at,
        clock,
        offers,
        ..row
    };
    Ok(Written::Stored(Arc::new(StoredGame {
        row,
        seats,
        moves,
        game,
    })))
}

/// Deletes game `id` made by `creator`, with its seats and moves, if it still waits for its
/// second player or `waiting_only` is false; false if there was no such game.
pub async fn delete(
    db: &Db,
    id: &str,
    creator: &str,
    waiting_only: bool,
) -> Result<bool, StoreError> {
    let (creator, game_id) = (creator.to_string(), id.to_string());
    let (positions, watchers) = (db.positions().clone(), db.watchers().clone());
    let forget_id = game_id.clone();
    let forget: OnCommit<bool> = Box::new(move |deleted| {
        if *deleted {
            positions.forget(&forget_id);
            watchers.deleted(&forget_id);
        }
    });
    db.writer()
        .write_then(
            move |conn| {
                Box::pin(async move {
                    // A join that lands first makes the game shared: then nothing is deleted.
                    let sql = if waiting_only {
                        "delete from games where id = ? and player_id = ? and status = 'waiting'"
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

/// A page of the caller's games (those where they have a seat), newest activity first, starting
/// after `after` (the `(updated_at, id)` of the last game of the previous page, or any pair of
/// strings: the order is that of the text).
pub async fn list(
    db: &Db,
    player_id: &str,
    filter: StatusFilter,
    limit: usize,
    after: Option<(&str, &str)>,
) -> Result<Vec<Summary>, StoreError> {
    let status_clause = match filter {
        StatusFilter::All => "",
        StatusFilter::Playing => "and g.status in ('waiting', 'playing')",
        StatusFilter::Finished => "and g.status not in ('waiting', 'playing')",
    };
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
    let mut tx = db.reader().begin().await?;
    let mut query = sqlx::query(&sql).bind(player_id);
    if let Some((updated_at, id)) = after {
        query = query.bind(updated_at).bind(id);
    }
    let rows = query.bind(limit as i64).fetch_all(&mut *tx).await?;
    let mut summaries: Vec<Summary> = rows.iter().map(rows::summary).collect::<Result<_, _>>()?;
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
        for r in query.fetch_all(&mut *tx).await? {
            let (game_id, colour, seat) = rows::seat(&r)?;
            if let Some(summary) = summaries.iter_mut().find(|s| s.row.id == game_id) {
                add_seat(&mut summary.seats, colour, seat);
            }
        }
    }
    tx.commit().await?;
    Ok(summaries)
}

/// A game whose clock runs: its id, its version and when its flag falls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningClock {
    pub id: String,
    pub version: i64,
    pub deadline: OffsetDateTime,
}

/// Every game whose clock runs (to re-arm their timers at start).
pub async fn running_clocks(db: &Db) -> Result<Vec<RunningClock>, StoreError> {
    let rows = sqlx::query("select id, version, deadline from games where deadline is not null")
        .fetch_all(db.reader())
        .await?;
    rows.iter()
        .map(|r| {
            let id: String = r.try_get(0)?;
            let deadline = parse_timestamp(r.try_get(2)?)
                .ok_or_else(|| StoreError::Corrupt(id.clone(), "deadline".into()))?;
            Ok(RunningClock {
                version: r.try_get(1)?,
                deadline,
                id,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::players;
    use crate::store::tests::db_in;
    use gomoku_rules::{Game, Point, Rule, Status, Stone};

    fn play(stored: &StoredGame, point: Point) -> Change {
        let mut change = stored.change(now());
        let stone = change.game.to_move().unwrap();
        change.game.play(point).unwrap();
        change.moves.push(StoredMove {
            point,
            stone,
            played_at: now(),
            clock_ms: None,
        });
        change
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
            online: None,
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

        let cached = load(&db, &id).await.unwrap().unwrap();
        db.positions().forget(&id);
        let fresh = load(&db, &id).await.unwrap().unwrap();
        for loaded in [&cached, &fresh] {
            assert_eq!(loaded.moves, landed.moves);
            assert_eq!(loaded.game, landed.game);
            assert_eq!(loaded.seats, landed.seats);
            assert_eq!(loaded.row.version, 1);
            assert_eq!(loaded.row.status, GameStatus::Rules(Status::Playing));
            assert_eq!(loaded.role(&player), Some(Role::Owner));
        }
        assert_eq!(fresh.role("someone-else"), None, "local games are private");
    }

    /// An online game waits with its creator's seat, takes a second player once (a rival for
    /// the same seat is refused by the version and the seat's unique colour), and then counts
    /// for both players' caps; the seats and the clock read back as written.
    #[tokio::test]
    async fn seats_of_an_online_game() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let (alice, bob, carol) = (
            players::tests::anonymous(&db).await,
            players::tests::anonymous(&db).await,
            players::tests::anonymous(&db).await,
        );
        let new = NewGame {
            mode: Mode::Online,
            online: Some(OnlineSetup {
                seat: Stone::White,
                time_control: Some(TimeControl {
                    initial_ms: 60_000,
                    increment_ms: 2_000,
                }),
            }),
            ..new_game(&alice)
        };
        let waiting = stored(insert(&db, new, 10).await.unwrap());
        assert_eq!(waiting.row.status, GameStatus::Waiting);
        assert_eq!(waiting.seats.colour_of(&alice), Some(Stone::White));
        assert_eq!(waiting.seats.free(), Some(Stone::Black));
        assert_eq!(waiting.role(&bob), Some(Role::Spectator));

        let join = |player: &str| {
            let mut change = waiting.change(now());
            change.waiting = false;
            change.seat = Some((player.to_string(), Stone::Black));
            change
        };
        let (first, second) = (join(&bob), join(&carol));
        let joined = stored(commit(&db, first, 10).await.unwrap());
        assert!(matches!(
            commit(&db, second, 10).await.unwrap(),
            Written::Stale
        ));
        assert_eq!(joined.row.status, GameStatus::Rules(Status::Playing));
        assert_eq!(joined.role(&bob), Some(Role::Seated(Stone::Black)));
        assert_eq!(joined.role(&carol), Some(Role::Spectator));

        db.positions().forget(&joined.row.id);
        let fresh = load(&db, &joined.row.id).await.unwrap().unwrap();
        assert_eq!(fresh.seats, joined.seats);
        assert_eq!(fresh.row.clock, joined.row.clock);
        assert_eq!(fresh.row.time_control, joined.row.time_control);
        for player in [&alice, &bob] {
            let listed = list(&db, player, StatusFilter::Playing, 10, None)
                .await
                .unwrap();
            assert_eq!(listed.len(), 1, "listed for both players");
            assert_eq!(listed[0].seats, joined.seats);
        }
        assert!(list(&db, &carol, StatusFilter::All, 10, None)
            .await
            .unwrap()
            .is_empty());
        let one_more = NewGame {
            player_id: bob.clone(),
            ..new_game(&bob)
        };
        assert!(matches!(
            insert(&db, one_more, 1).await.unwrap(),
            Written::OverCap
        ));
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
        assert!(matches!(load(&db, &id).await, Err(StoreError::Corrupt(..))));
    }
}
