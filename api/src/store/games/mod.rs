//! Games and their moves: the `games` and `moves` tables, mapped to the rules' types.
//!
//! A game is stored as its settings plus one row per move. Loading replays the moves through
//! the rules (then applies a stored resignation), so a loaded [`Game`] is always one the judge
//! accepted. The status columns on `games` mirror that replay for listings.
//!
//! Writes are optimistic: a handler loads a game, works out the change (which may include an
//! AI search, done without holding any lock), then commits it guarded by the `version` it
//! loaded. If another request changed the game meanwhile, nothing is written and the caller
//! re-reads. The primary key (game_id, ply) backs this up: two moves can never share a ply.
//!
//! The [`PositionCache`] keeps each game as last committed, so the hot path (load, play,
//! commit) reads nothing from the file and replays nothing.

use gomoku_engine::Level;
use gomoku_rules::{DrawReason, Game, Outcome, Point, Rule, Stone, WinReason};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use super::writer::OnCommit;
use super::{now, Db, StoreError};

/// Who plays: two people on one device, or a person against the AI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Local,
    Ai,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Ai => "ai",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "local" => Some(Mode::Local),
            "ai" => Some(Mode::Ai),
            _ => None,
        }
    }
}

/// The AI's side of an `ai`-mode game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AiSetting {
    pub level: Level,
    /// The colour the AI plays.
    pub player: Stone,
}

/// A game's settings and bookkeeping, as in its `games` row.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: String,
    /// The owner.
    pub player_id: String,
    pub mode: Mode,
    pub rule: Rule,
    pub board_size: usize,
    pub ai: Option<AiSetting>,
    pub resigned_by: Option<Stone>,
    pub move_count: usize,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
    pub finished_at: Option<String>,
}

/// One stored move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMove {
    pub point: Point,
    pub stone: Stone,
    pub played_at: String,
}

/// A loaded game: its row, its moves, and the position rebuilt from them.
#[derive(Debug, Clone)]
pub struct StoredGame {
    pub row: GameRow,
    pub moves: Vec<StoredMove>,
    pub game: Game,
}

/// Where a game stands, in the words stored and served: status, winner, end reason, win line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// "playing", "black_won", "white_won" or "draw".
    pub status: &'static str,
    pub winner: Option<Stone>,
    /// "five", "resign", "board_full" or "no_five_possible"; None while playing.
    pub end_reason: Option<&'static str>,
    pub win_line: Vec<Point>,
}

impl Standing {
    pub fn of(game: &Game) -> Standing {
        match game.outcome() {
            Outcome::Ongoing => Standing {
                status: "playing",
                winner: None,
                end_reason: None,
                win_line: vec![],
            },
            Outcome::Win {
                winner,
                reason,
                line,
            } => Standing {
                status: match winner {
                    Stone::Black => "black_won",
                    Stone::White => "white_won",
                },
                winner: Some(*winner),
                end_reason: Some(match reason {
                    WinReason::Five => "five",
                    WinReason::Resign => "resign",
                }),
                win_line: line.clone(),
            },
            Outcome::Draw { reason } => Standing {
                status: "draw",
                winner: None,
                end_reason: Some(match reason {
                    DrawReason::BoardFull => "board_full",
                    DrawReason::NoFivePossible => "no_five_possible",
                }),
                win_line: vec![],
            },
        }
    }

    pub fn is_over(&self) -> bool {
        self.status != "playing"
    }

    fn win_line_json(&self) -> Option<String> {
        if self.win_line.is_empty() {
            return None;
        }
        let pairs: Vec<[usize; 2]> = self.win_line.iter().map(|p| [p.row, p.col]).collect();
        serde_json::to_string(&pairs).ok()
    }
}

/// A listing entry: the row plus what a summary shows without replaying the game.
#[derive(Debug, Clone)]
pub struct SummaryRow {
    pub row: GameRow,
    pub status: String,
    pub end_reason: Option<String>,
    pub win_line: Vec<Point>,
    pub last_move: Option<(Point, Stone)>,
}

impl SummaryRow {
    pub fn winner(&self) -> Option<Stone> {
        match self.status.as_str() {
            "black_won" => Some(Stone::Black),
            "white_won" => Some(Stone::White),
            _ => None,
        }
    }
}

/// Which games a listing shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    All,
    Playing,
    Finished,
}

const GAME_COLUMNS: &str =
    "g.id, g.player_id, g.mode, g.rule, g.board_size, g.ai_level, g.ai_player, g.resigned_by, \
     g.move_count, g.version, g.created_at, g.updated_at, g.finished_at";

fn stone_of(value: i64) -> Option<Stone> {
    u8::try_from(value).ok().and_then(Stone::from_u8)
}

fn game_row(r: &SqliteRow) -> Result<GameRow, StoreError> {
    let id: String = r.try_get("id")?;
    let corrupt = |what: &str| StoreError::Corrupt(id.clone(), what.to_string());
    let mode = Mode::parse(r.try_get::<&str, _>("mode")?).ok_or_else(|| corrupt("mode"))?;
    let rule = r
        .try_get::<&str, _>("rule")?
        .parse::<Rule>()
        .map_err(|_| corrupt("rule"))?;
    let board_size =
        usize::try_from(r.try_get::<i64, _>("board_size")?).map_err(|_| corrupt("board size"))?;
    let ai = match (
        r.try_get::<Option<&str>, _>("ai_level")?,
        r.try_get::<Option<i64>, _>("ai_player")?,
    ) {
        (Some(level), Some(player)) => Some(AiSetting {
            level: Level::parse(level).ok_or_else(|| corrupt("ai level"))?,
            player: stone_of(player).ok_or_else(|| corrupt("ai player"))?,
        }),
        _ => None,
    };
    let resigned_by = match r.try_get::<Option<i64>, _>("resigned_by")? {
        Some(v) => Some(stone_of(v).ok_or_else(|| corrupt("resigned_by"))?),
        None => None,
    };
    let move_count =
        usize::try_from(r.try_get::<i64, _>("move_count")?).map_err(|_| corrupt("move count"))?;
    Ok(GameRow {
        player_id: r.try_get("player_id")?,
        mode,
        rule,
        board_size,
        ai,
        resigned_by,
        move_count,
        version: r.try_get("version")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        finished_at: r.try_get("finished_at")?,
        id,
    })
}

/// Rebuilds the position of a stored game: replays the moves, then the resignation.
pub fn rebuild(row: &GameRow, moves: &[StoredMove]) -> Result<Game, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt(row.id.clone(), what);
    let points: Vec<Point> = moves.iter().map(|m| m.point).collect();
    let mut game = Game::replay(row.board_size, row.rule, &points)
        .map_err(|(index, e)| corrupt(format!("move {index}: {e:?}")))?;
    if let Some(colour) = row.resigned_by {
        if game.to_move() != Some(colour) {
            return Err(corrupt("resignation by the side not to move".into()));
        }
        game.resign()
            .map_err(|e| corrupt(format!("resignation: {e:?}")))?;
    }
    Ok(game)
}

/// Games as this process last committed them, with their rebuilt positions, so the hot path
/// neither reads every move nor replays them through the judge.
///
/// Only the writer task changes entries (in hooks that run right after each commit, in commit
/// order), so an entry is always the committed state of its game: the process is the only
/// writer of its database file. Loads never fill it, since a load racing a write or a delete
/// could put back a state that is no longer true. A game not in the cache (not written since the
/// start, or evicted) is read from the database.
#[derive(Debug, Default)]
pub struct PositionCache {
    // A std Mutex, not tokio's: nothing awaits while it is held.
    entries: Mutex<HashMap<String, Arc<StoredGame>>>,
}

/// Games remembered at once; past this the cache starts over (it is only a shortcut).
const POSITION_CACHE_LIMIT: usize = 10_000;

impl PositionCache {
    fn get(&self, id: &str) -> Option<Arc<StoredGame>> {
        self.entries.lock().ok()?.get(id).cloned()
    }

    fn put(&self, stored: &Arc<StoredGame>) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= POSITION_CACHE_LIMIT && !entries.contains_key(&stored.row.id) {
                entries.clear();
            }
            entries.insert(stored.row.id.clone(), stored.clone());
        }
    }

    /// Drops a game (deleted, or found changed by someone else).
    pub fn forget(&self, id: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.remove(id);
        }
    }
}

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
    load_all(db, player_id, id).await
}

/// Loads a game with all its moves and replays them.
async fn load_all(
    db: &Db,
    player_id: &str,
    id: &str,
) -> Result<Option<Arc<StoredGame>>, StoreError> {
    // One statement, so the game row and its moves come from the same snapshot: a row per
    // move (or one row with null move columns for a game without moves).
    let sql = format!(
        "select {GAME_COLUMNS}, m.row as m_row, m.col as m_col, m.player as m_player, \
         m.played_at as m_at \
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
    let row = game_row(first)?;
    let mut moves = Vec::with_capacity(rows.len());
    for m in &rows {
        let Some(r) = m.try_get::<Option<i64>, _>("m_row")? else {
            continue;
        };
        let bad = || StoreError::Corrupt(row.id.clone(), "move row".into());
        moves.push(StoredMove {
            point: Point::new(
                usize::try_from(r).map_err(|_| bad())?,
                usize::try_from(m.try_get::<i64, _>("m_col")?).map_err(|_| bad())?,
            ),
            stone: stone_of(m.try_get("m_player")?).ok_or_else(bad)?,
            played_at: m.try_get("m_at")?,
        });
    }
    if moves.len() != row.move_count {
        return Err(StoreError::Corrupt(
            row.id.clone(),
            "move count differs from moves".into(),
        ));
    }
    let game = rebuild(&row, &moves)?;
    Ok(Some(Arc::new(StoredGame { row, moves, game })))
}

/// A new game to store, with any moves it starts with (the AI's first move, or an import).
#[derive(Debug, Clone)]
pub struct NewGame {
    pub player_id: String,
    pub mode: Mode,
    pub ai: Option<AiSetting>,
    pub resigned_by: Option<Stone>,
    pub moves: Vec<StoredMove>,
    /// The position after `moves` (and the resignation, if any); it holds the rule and the
    /// board size.
    pub game: Game,
}

/// Stores a new game; `Ok(None)` when it would be playing and the player already has
/// `max_unfinished` playing games. The count and the insert share one write transaction, so
/// concurrent creations cannot overshoot the cap.
pub async fn insert(
    db: &Db,
    new: NewGame,
    max_unfinished: u32,
) -> Result<Option<Arc<StoredGame>>, StoreError> {
    let positions = db.positions().clone();
    let remember: OnCommit<Option<Arc<StoredGame>>> = Box::new(move |stored| {
        if let Some(stored) = stored {
            positions.put(stored);
        }
    });
    db.writer()
        .write_then(
            move |conn| Box::pin(insert_in(conn, new, max_unfinished)),
            Some(remember),
        )
        .await
}

/// The write of [`insert`], inside the writer's transaction.
async fn insert_in(
    conn: &mut SqliteConnection,
    new: NewGame,
    max_unfinished: u32,
) -> Result<Option<Arc<StoredGame>>, StoreError> {
    let id = uuid::Uuid::new_v4().to_string();
    let at = now();
    let standing = Standing::of(&new.game);
    let finished_at = standing.is_over().then(|| at.clone());
    if !standing.is_over() {
        let playing: i64 = sqlx::query_scalar(COUNT_PLAYING)
            .bind(&new.player_id)
            .fetch_one(&mut *conn)
            .await?;
        if playing >= i64::from(max_unfinished) {
            return Ok(None);
        }
    }
    let (rule, board_size) = (new.game.rule(), new.game.size());
    sqlx::query(INSERT_GAME)
        .bind(&id)
        .bind(&new.player_id)
        .bind(new.mode.as_str())
        .bind(rule.as_str())
        .bind(board_size as i64)
        .bind(new.ai.map(|a| a.level.as_str()))
        .bind(new.ai.map(|a| i64::from(a.player.as_u8())))
        .bind(standing.status)
        .bind(standing.end_reason)
        .bind(standing.win_line_json())
        .bind(new.resigned_by.map(|s| i64::from(s.as_u8())))
        .bind(new.moves.len() as i64)
        .bind(&at)
        .bind(&at)
        .bind(&finished_at)
        .execute(&mut *conn)
        .await?;
    insert_moves(conn, &id, &new.moves).await?;
    let row = GameRow {
        id,
        player_id: new.player_id,
        mode: new.mode,
        rule,
        board_size,
        ai: new.ai,
        resigned_by: new.resigned_by,
        move_count: new.moves.len(),
        version: 0,
        created_at: at.clone(),
        updated_at: at,
        finished_at,
    };
    Ok(Some(Arc::new(StoredGame {
        row,
        moves: new.moves,
        game: new.game,
    })))
}

/// Stores the moves of a new game, from ply 0.
async fn insert_moves(
    conn: &mut SqliteConnection,
    game_id: &str,
    moves: &[StoredMove],
) -> Result<(), sqlx::Error> {
    for (ply, m) in moves.iter().enumerate() {
        sqlx::query(INSERT_MOVE)
            .bind(game_id)
            .bind(ply as i64)
            .bind(m.point.row as i64)
            .bind(m.point.col as i64)
            .bind(i64::from(m.stone.as_u8()))
            .bind(&m.played_at)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// A change to a loaded game: of its stored moves the first `keep` stay, and the game's moves
/// become `moves` (so `moves[keep..]` are new), with `game` the position after them.
#[derive(Debug, Clone)]
pub struct Change {
    /// The row as loaded; its version guards the update.
    pub row: GameRow,
    pub keep: usize,
    pub moves: Vec<StoredMove>,
    pub game: Game,
    pub resigned_by: Option<Stone>,
    pub at: String,
}

/// Adds a game (at version 0).
const INSERT_GAME: &str = "insert into games (id, player_id, mode, rule, board_size, ai_level, \
    ai_player, status, end_reason, win_line, resigned_by, move_count, version, created_at, \
    updated_at, finished_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)";
/// A player's games in play (for the cap on unfinished games).
const COUNT_PLAYING: &str = "select count(*) from games where player_id = ? and status = 'playing'";
/// Adds a move.
const INSERT_MOVE: &str =
    "insert into moves (game_id, ply, row, col, player, played_at) values (?, ?, ?, ?, ?, ?)";

/// The update of a change, guarded by the version the change was computed from.
const UPDATE_GAME: &str = "update games set status = ?, end_reason = ?, win_line = ?, \
    resigned_by = ?, move_count = ?, version = version + 1, updated_at = ?, finished_at = ? \
    where id = ? and version = ?;";
/// Takes back moves from a ply on, if the statement before changed one row.
const DELETE_MOVES_FROM: &str =
    "delete from moves where game_id = ? and ply >= ? and changes() = 1;";
/// Adds a move, if the statement before changed one row.
const INSERT_MOVE_GUARDED: &str = "insert into moves (game_id, ply, row, col, player, played_at) \
    select ?, ?, ?, ?, ?, ? where changes() = 1;";

/// Commits a change if the game is still at the version it was loaded at. Returns the game as
/// now stored, or None when another request got there first (nothing is written then).
pub async fn commit(db: &Db, change: Change) -> Result<Option<Arc<StoredGame>>, StoreError> {
    let id = change.row.id.clone();
    let positions = db.positions().clone();
    let remember: OnCommit<Arc<StoredGame>> = Box::new(move |stored| positions.put(stored));
    let result = db
        .writer()
        .write_then(
            move |conn| Box::pin(commit_in(conn, change)),
            Some(remember),
        )
        .await;
    match result {
        Ok(stored) => Ok(Some(stored)),
        Err(StoreError::Conflict) => {
            // Usually another request of ours won, and the cache already holds its result;
            // but if something else wrote the file, the cached state is stale: read it afresh.
            db.positions().forget(&id);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The write of [`commit`], inside the writer's transaction: [`StoreError::Conflict`] when the
/// game is no longer at the version the change was computed from.
async fn commit_in(
    conn: &mut SqliteConnection,
    change: Change,
) -> Result<Arc<StoredGame>, StoreError> {
    let Change {
        row,
        keep,
        moves,
        game,
        resigned_by,
        at,
    } = change;
    let standing = Standing::of(&game);
    let move_count = moves.len();
    // The finish time stays that of the first finish; a reopened game loses it.
    let finished_at = if standing.is_over() {
        Some(row.finished_at.clone().unwrap_or_else(|| at.clone()))
    } else {
        None
    };
    let truncate = keep < row.move_count;
    let append = &moves[keep.min(move_count)..];
    if truncate && !append.is_empty() {
        // The guard chain below relies on `changes()`: one kind of change.
        return Err(StoreError::Batch(
            "a change may truncate or append, not both".into(),
        ));
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
    let mut query = sqlx::query(&sql)
        .bind(standing.status)
        .bind(standing.end_reason)
        .bind(standing.win_line_json())
        .bind(resigned_by.map(|s| i64::from(s.as_u8())))
        .bind(move_count as i64)
        .bind(&at)
        .bind(&finished_at)
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
            .bind(i64::from(m.stone.as_u8()))
            .bind(&m.played_at);
    }
    match query.execute(&mut *conn).await {
        Ok(done) if done.rows_affected() == 0 => return Err(StoreError::Conflict),
        Ok(_) => {}
        // The version guard makes this unreachable in one process; the primary key still
        // decides if another process writes the same file.
        Err(e)
            if e.as_database_error()
                .is_some_and(|d| d.is_unique_violation()) =>
        {
            return Err(StoreError::Conflict)
        }
        Err(e) => return Err(e.into()),
    }
    let row = GameRow {
        resigned_by,
        move_count,
        version: row.version + 1,
        updated_at: at,
        finished_at,
        ..row
    };
    Ok(Arc::new(StoredGame { row, moves, game }))
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
                Box::pin(async move {
                    let done = sqlx::query("delete from games where id = ? and player_id = ?")
                        .bind(&game_id)
                        .bind(&player_id)
                        .execute(&mut *conn)
                        .await?;
                    Ok(done.rows_affected() > 0)
                })
            },
            Some(forget),
        )
        .await
}

/// A page of the caller's games, newest activity first, starting after `after`
/// (the `(updated_at, id)` of the last game of the previous page).
pub async fn list(
    db: &Db,
    player_id: &str,
    filter: StatusFilter,
    limit: usize,
    after: Option<(&str, &str)>,
) -> Result<Vec<SummaryRow>, StoreError> {
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
        "select {GAME_COLUMNS}, g.status, g.end_reason, g.win_line, m.row as last_row, \
         m.col as last_col, \
         m.player as last_player \
         from games g left join moves m on m.game_id = g.id and m.ply = g.move_count - 1 \
         where g.player_id = ? {status_clause} {after_clause} \
         order by g.updated_at desc, g.id desc limit ?"
    );
    let mut query = sqlx::query(&sql).bind(player_id);
    if let Some((updated_at, id)) = after {
        query = query.bind(updated_at).bind(id);
    }
    let rows = query.bind(limit as i64).fetch_all(db.reader()).await?;
    rows.iter()
        .map(|r| {
            let row = game_row(r)?;
            let corrupt = |what: &str| StoreError::Corrupt(row.id.clone(), what.to_string());
            let win_line = match r.try_get::<Option<String>, _>("win_line")? {
                Some(text) => serde_json::from_str::<Vec<[usize; 2]>>(&text)
                    .map_err(|_| corrupt("win line"))?
                    .into_iter()
                    .map(|[row, col]| Point::new(row, col))
                    .collect(),
                None => vec![],
            };
            let last_move = match (
                r.try_get::<Option<i64>, _>("last_row")?,
                r.try_get::<Option<i64>, _>("last_col")?,
                r.try_get::<Option<i64>, _>("last_player")?,
            ) {
                (Some(lr), Some(lc), Some(lp)) => Some((
                    Point::new(
                        usize::try_from(lr).map_err(|_| corrupt("last move"))?,
                        usize::try_from(lc).map_err(|_| corrupt("last move"))?,
                    ),
                    stone_of(lp).ok_or_else(|| corrupt("last move"))?,
                )),
                _ => None,
            };
            Ok(SummaryRow {
                status: r.try_get("status")?,
                end_reason: r.try_get("end_reason")?,
                win_line,
                last_move,
                row,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::store::players;

    async fn db_in(dir: &tempfile::TempDir) -> Db {
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let db = Db::open(&Config::for_database(&url)).await.unwrap();
        db.migrate().await.unwrap();
        db
    }

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
            resigned_by: None,
            at: now(),
        }
    }

    /// A change lands only on the version it was computed from; the loser writes nothing, and
    /// what is loaded afresh (cache cleared) equals what the cache served.
    #[tokio::test]
    async fn version_guard_and_cache_agree_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let player = players::create_anonymous(&db).await.unwrap();
        let new = NewGame {
            player_id: player.clone(),
            mode: Mode::Local,
            ai: None,
            resigned_by: None,
            moves: vec![],
            game: Game::new(15, Rule::Freestyle).unwrap(),
        };
        let created = insert(&db, new, 10).await.unwrap().unwrap();
        let id = created.row.id.clone();

        let first = play(&created, Point::new(7, 7));
        let rival = play(&created, Point::new(3, 3));
        let landed = commit(&db, first)
            .await
            .unwrap()
            .expect("the first change lands");
        assert!(
            commit(&db, rival).await.unwrap().is_none(),
            "the stale change is refused"
        );

        let cached = load(&db, &player, &id).await.unwrap().unwrap();
        db.positions().forget(&id);
        let fresh = load(&db, &player, &id).await.unwrap().unwrap();
        for loaded in [&cached, &fresh] {
            assert_eq!(loaded.moves, landed.moves);
            assert_eq!(loaded.game, landed.game);
            assert_eq!(loaded.row.version, 1);
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
        let player = players::create_anonymous(&db).await.unwrap();
        let new = || NewGame {
            player_id: player.clone(),
            mode: Mode::Local,
            ai: None,
            resigned_by: None,
            moves: vec![],
            game: Game::new(9, Rule::Renju).unwrap(),
        };
        let (a, b, c) = tokio::join!(
            insert(&db, new(), 2),
            insert(&db, new(), 2),
            insert(&db, new(), 2)
        );
        let made = [a, b, c]
            .into_iter()
            .filter(|r| matches!(r, Ok(Some(_))))
            .count();
        assert_eq!(made, 2);
    }
}
