//! Post-game analyses: the `analyses` and `analysis_moves` tables. One analysis per game, shared
//! by everyone who may read the game; one row per analysed move, written as the engine finishes
//! it (see [`crate::analysis`] for who writes them and when).
//!
//! A move's row keeps the move it judged: a row holds for the game as it now is only if every
//! move up to it is still the game's (the rows are written in ply order, and writing a ply drops
//! the rows after it, so the stored rows are always one line of play from the first move).
//! [`Analysis::valid_moves`] is that check.
//!
//! A few plain statements, one per operation, so another backend ports them as they are.

use std::str::FromStr;

use gomoku_engine::analysis::Mark;
use gomoku_rules::Point;
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use super::games::StoredMove;
use super::{now, Db, StoreError};

/// Whether the server is still working on an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnalysisStatus {
    Running,
    Done,
}

impl AnalysisStatus {
    pub const ALL: [AnalysisStatus; 2] = [AnalysisStatus::Running, AnalysisStatus::Done];

    /// "running", "done".
    pub fn as_str(self) -> &'static str {
        match self {
            AnalysisStatus::Running => "running",
            AnalysisStatus::Done => "done",
        }
    }
}

/// A name that is not one of [`AnalysisStatus::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown analysis status")]
pub struct UnknownAnalysisStatus;

impl FromStr for AnalysisStatus {
    type Err = UnknownAnalysisStatus;
    fn from_str(s: &str) -> Result<AnalysisStatus, UnknownAnalysisStatus> {
        gomoku_rules::by_name(&AnalysisStatus::ALL, AnalysisStatus::as_str, s)
            .ok_or(UnknownAnalysisStatus)
    }
}

/// The analysis of one move.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysedMove {
    /// 0 for the first move.
    pub ply: usize,
    /// The move judged.
    pub played: Point,
    /// Black's win probability (0–1) after the move played.
    pub eval: f64,
    /// The engine's move for the mover.
    pub best: Point,
    /// Black's win probability after the engine's move.
    pub best_eval: f64,
    pub mark: Option<Mark>,
}

/// A game's analysis as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub game_id: String,
    /// Who asked for the work that runs or ran last.
    pub requested_by: String,
    /// The game's moves when it was last asked for: it covers plies `0..move_count`.
    pub move_count: usize,
    pub status: AnalysisStatus,
    /// The analysed moves, in ply order from 0 without gaps.
    pub moves: Vec<AnalysedMove>,
}

impl Analysis {
    /// The analysed moves that still hold for a game with these moves: those up to the first
    /// whose move is no longer the game's.
    pub fn valid_moves(&self, game: &[StoredMove]) -> &[AnalysedMove] {
        let valid = self
            .moves
            .iter()
            .zip(game)
            .enumerate()
            .take_while(|(i, (a, m))| a.ply == *i && a.played == m.point)
            .count();
        &self.moves[..valid]
    }
}

/// What became of a request to (re)start an analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    /// The analysis runs (it did already, or does now) towards the new move count.
    Running,
    /// The player already runs an analysis of another game; nothing was written.
    PlayerBusy,
}

/// Starts (or extends) the analysis of game `game_id` up to `move_count` moves, asked for by
/// `player_id`. A running analysis keeps the player who started it; a done one (or none) is
/// now theirs, refused with [`Started::PlayerBusy`] when they run another one already (the
/// unique index on running analyses decides, so two requests cannot both slip through).
pub async fn start(
    db: &Db,
    game_id: &str,
    player_id: &str,
    move_count: usize,
) -> Result<Started, StoreError> {
    let (game_id, player_id) = (game_id.to_string(), player_id.to_string());
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                let at = now();
                let upsert = sqlx::query(
                    "insert into analyses \
                       (game_id, requested_by, move_count, status, created_at, updated_at) \
                     values (?, ?, ?, 'running', ?, ?) \
                     on conflict (game_id) do update set \
                       requested_by = case when analyses.status = 'running' \
                         then analyses.requested_by else excluded.requested_by end, \
                       move_count = excluded.move_count, status = 'running', \
                       updated_at = excluded.updated_at",
                )
                .bind(&game_id)
                .bind(&player_id)
                .bind(move_count as i64)
                .bind(&at)
                .bind(&at)
                .execute(&mut *conn)
                .await;
                match upsert {
                    Ok(_) => Ok(Started::Running),
                    Err(e)
                        if e.as_database_error()
                            .is_some_and(|d| d.is_unique_violation()) =>
                    {
                        Ok(Started::PlayerBusy)
                    }
                    Err(e) => Err(StoreError::from(e)),
                }
            })
        })
        .await
}

/// Records the analysis of one move, dropping any rows after its ply (an older line of play),
/// if the game's analysis still runs; false when it does not (the game was deleted).
pub async fn record(db: &Db, game_id: &str, analysed: AnalysedMove) -> Result<bool, StoreError> {
    let game_id = game_id.to_string();
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                let ply = analysed.ply as i64;
                sqlx::query("delete from analysis_moves where game_id = ? and ply >= ?")
                    .bind(&game_id)
                    .bind(ply)
                    .execute(&mut *conn)
                    .await?;
                let done = sqlx::query(
                    "insert into analysis_moves \
                       (game_id, ply, row, col, eval, best_row, best_col, best_eval, mark) \
                     select ?, ?, ?, ?, ?, ?, ?, ?, ? where exists \
                       (select 1 from analyses where game_id = ? and status = 'running')",
                )
                .bind(&game_id)
                .bind(ply)
                .bind(analysed.played.row as i64)
                .bind(analysed.played.col as i64)
                .bind(analysed.eval)
                .bind(analysed.best.row as i64)
                .bind(analysed.best.col as i64)
                .bind(analysed.best_eval)
                .bind(analysed.mark.map(Mark::as_str))
                .bind(&game_id)
                .execute(&mut *conn)
                .await?;
                Ok::<_, StoreError>(done.rows_affected() == 1)
            })
        })
        .await
}

/// Marks the analysis done if it still runs towards `move_count`; false when it was extended
/// (or deleted) meanwhile, so the caller looks again.
pub async fn finish(db: &Db, game_id: &str, move_count: usize) -> Result<bool, StoreError> {
    let game_id = game_id.to_string();
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                let done = sqlx::query(
                    "update analyses set status = 'done', updated_at = ? \
                     where game_id = ? and status = 'running' and move_count = ?",
                )
                .bind(now())
                .bind(&game_id)
                .bind(move_count as i64)
                .execute(&mut *conn)
                .await?;
                Ok::<_, StoreError>(done.rows_affected() == 1)
            })
        })
        .await
}

/// The analysis of game `game_id`, if one was ever started.
pub async fn load(db: &Db, game_id: &str) -> Result<Option<Analysis>, StoreError> {
    // One read transaction, so the analysis and its moves come from one snapshot.
    let mut tx = db.reader().begin().await?;
    let row =
        sqlx::query("select requested_by, move_count, status from analyses where game_id = ?")
            .bind(game_id)
            .fetch_optional(&mut *tx)
            .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let moves = sqlx::query(
        "select ply, row, col, eval, best_row, best_col, best_eval, mark \
         from analysis_moves where game_id = ? order by ply",
    )
    .bind(game_id)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let corrupt = |what: &str| StoreError::Corrupt(game_id.to_string(), what.to_string());
    let status: &str = row.try_get("status")?;
    Ok(Some(Analysis {
        game_id: game_id.to_string(),
        requested_by: row.try_get("requested_by")?,
        move_count: usize::try_from(row.try_get::<i64, _>("move_count")?)
            .map_err(|_| corrupt("analysis move_count"))?,
        status: status.parse().map_err(|_| corrupt("analysis status"))?,
        moves: moves
            .iter()
            .map(|r| analysed_move(r).ok_or_else(|| corrupt("analysed move")))
            .collect::<Result<_, _>>()?,
    }))
}

/// An `analysis_moves` row; None when a value is out of its range or names no mark.
fn analysed_move(r: &SqliteRow) -> Option<AnalysedMove> {
    let index = |column: &str| {
        r.try_get::<i64, _>(column)
            .ok()
            .and_then(|v| usize::try_from(v).ok())
    };
    let probability = |column: &str| {
        r.try_get::<f64, _>(column)
            .ok()
            .filter(|p| (0.0..=1.0).contains(p))
    };
    let mark = match r.try_get::<Option<&str>, _>("mark").ok()? {
        Some(name) => Some(name.parse().ok()?),
        None => None,
    };
    Some(AnalysedMove {
        ply: index("ply")?,
        played: Point::new(index("row")?, index("col")?),
        eval: probability("eval")?,
        best: Point::new(index("best_row")?, index("best_col")?),
        best_eval: probability("best_eval")?,
        mark,
    })
}

/// The games whose analysis was running (to resume them at start).
pub async fn running(db: &Db) -> Result<Vec<String>, StoreError> {
    Ok(
        sqlx::query_scalar("select game_id from analyses where status = 'running'")
            .fetch_all(db.reader())
            .await?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::games::{self, Mode, NewGame, Written};
    use crate::store::players;
    use crate::store::tests::db_in;
    use gomoku_rules::{Game, Rule, Stone};

    /// A local game of `player` with `points` played, stored.
    async fn game_with(db: &Db, player: &str, points: &[(usize, usize)]) -> String {
        let points: Vec<Point> = points.iter().map(|&(r, c)| Point::new(r, c)).collect();
        let game = Game::replay(15, Rule::Freestyle, &points).unwrap();
        let moves = game
            .moves()
            .iter()
            .map(|m| StoredMove {
                point: m.point,
                stone: m.stone,
                played_at: now(),
                clock_ms: None,
            })
            .collect();
        let new = NewGame {
            player_id: player.to_string(),
            mode: Mode::Local,
            ai: None,
            moves,
            game,
            online: None,
        };
        match games::insert(db, new, 10).await.unwrap() {
            Written::Stored(stored) => stored.row.id.clone(),
            other => panic!("not stored: {other:?}"),
        }
    }

    fn analysed(ply: usize, played: (usize, usize), mark: Option<Mark>) -> AnalysedMove {
        AnalysedMove {
            ply,
            played: Point::new(played.0, played.1),
            eval: 0.25,
            best: Point::new(0, 0),
            best_eval: 0.75,
            mark,
        }
    }

    fn stored_moves(points: &[(usize, usize)]) -> Vec<StoredMove> {
        points
            .iter()
            .enumerate()
            .map(|(i, &(r, c))| StoredMove {
                point: Point::new(r, c),
                stone: if i % 2 == 0 {
                    Stone::Black
                } else {
                    Stone::White
                },
                played_at: now(),
                clock_ms: None,
            })
            .collect()
    }

    /// Moves are recorded while the analysis runs and read back as written; writing a ply again
    /// drops the rows after it; finishing is refused once the target moved on; only the rows
    /// that match the game's moves from the first on are valid.
    #[tokio::test]
    async fn record_finish_and_valid_moves() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let player = players::tests::anonymous(&db).await;
        let line = [(7, 7), (7, 8), (8, 8)];
        let id = game_with(&db, &player, &line).await;
        assert_eq!(load(&db, &id).await.unwrap(), None);

        assert_eq!(start(&db, &id, &player, 2).await.unwrap(), Started::Running);
        for (ply, &point) in line.iter().enumerate() {
            let mark = (ply == 1).then_some(Mark::Blunder);
            assert!(record(&db, &id, analysed(ply, point, mark)).await.unwrap());
        }
        assert_eq!(running(&db).await.unwrap(), vec![id.clone()]);
        assert_eq!(start(&db, &id, &player, 3).await.unwrap(), Started::Running);
        assert!(!finish(&db, &id, 2).await.unwrap(), "the target moved on");
        assert!(finish(&db, &id, 3).await.unwrap());
        let done = load(&db, &id).await.unwrap().unwrap();
        assert_eq!(done.status, AnalysisStatus::Done);
        assert_eq!(done.move_count, 3);
        assert_eq!(done.moves[1], analysed(1, (7, 8), Some(Mark::Blunder)));
        assert!(running(&db).await.unwrap().is_empty());

        // The game as it would be after an undo of two moves and another second move.
        let changed = stored_moves(&[(7, 7), (0, 0), (8, 8)]);
        assert_eq!(done.valid_moves(&changed).len(), 1);
        assert_eq!(done.valid_moves(&stored_moves(&line)).len(), 3);
        assert_eq!(done.valid_moves(&stored_moves(&line[..2])).len(), 2);

        // Done: nothing more is recorded until it runs again; then ply 1 again drops ply 2.
        assert!(!record(&db, &id, analysed(1, (0, 0), None)).await.unwrap());
        assert_eq!(start(&db, &id, &player, 3).await.unwrap(), Started::Running);
        assert!(record(&db, &id, analysed(1, (0, 0), None)).await.unwrap());
        let again = load(&db, &id).await.unwrap().unwrap();
        assert_eq!(again.moves.len(), 2);
        assert_eq!(again.valid_moves(&changed).len(), 2);
    }

    /// A player runs one analysis at a time; once it is done they may start another, and the
    /// analysis of a deleted game goes with it.
    #[tokio::test]
    async fn one_running_analysis_per_player() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let player = players::tests::anonymous(&db).await;
        let first = game_with(&db, &player, &[(7, 7)]).await;
        let second = game_with(&db, &player, &[(7, 7)]).await;
        assert_eq!(
            start(&db, &first, &player, 1).await.unwrap(),
            Started::Running
        );
        assert_eq!(
            start(&db, &second, &player, 1).await.unwrap(),
            Started::PlayerBusy
        );
        assert_eq!(load(&db, &second).await.unwrap(), None, "nothing written");
        assert!(finish(&db, &first, 1).await.unwrap());
        assert_eq!(
            start(&db, &second, &player, 1).await.unwrap(),
            Started::Running
        );

        assert!(games::delete(&db, &second, &player, false).await.unwrap());
        assert_eq!(load(&db, &second).await.unwrap(), None);
        assert!(!record(&db, &second, analysed(0, (7, 7), None))
            .await
            .unwrap());
        assert!(running(&db).await.unwrap().is_empty());
    }
}
