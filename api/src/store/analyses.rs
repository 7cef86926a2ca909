//! Post-game analyses: the `analyses` and `analysis_moves` tables. One analysis per game, shared
//! by everyone who may read the game; one row per analysed move, written as the engine finishes
//! it (see [`crate::analysis`] for who writes them and when). Each operation is handed to the
//! backend's own SQL ([`sqlite::analyses`](super::sqlite), [`postgres::analyses`](super::postgres));
//! the row mapping is written once, here.
//!
//! A move's row keeps the move it judged: a row holds for the game as it now is only if every
//! move up to it is still the game's (the rows are written in ply order, and writing a ply drops
//! the rows after it, so the stored rows are always one line of play from the first move).
//! [`Analysis::valid_moves`] is that check.
//!
//! Which process works on a running analysis: on SQLite the only one, which keeps its own set of
//! tasks; on PostgreSQL the instance that claimed it ([`claim`]), so that a request through
//! another instance does not start a second run.

use std::str::FromStr;
use std::time::Duration;

use gomoku_engine::analysis::Mark;
use gomoku_rules::notation::Coord;
use gomoku_rules::Point;

use super::games::rows::Columns;
use super::games::StoredMove;
use super::{Db, StoreError};

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
    /// The engine's line from the position before the move, `best` first, in notation (the
    /// column keeps it so; the game's board size turns it into points). Empty for moves
    /// analysed before lines were kept.
    pub line: Vec<Coord>,
}

/// The `line` column's text: the coordinates in notation, space-separated ("h8 i9 g7").
pub(super) fn line_text(line: &[Coord]) -> String {
    line.iter()
        .map(Coord::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A `line` column's coordinates; None when one is not notation.
fn parse_line(text: &str) -> Option<Vec<Coord>> {
    text.split_whitespace().map(|c| c.parse().ok()).collect()
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
    match db {
        Db::Sqlite(s) => s.start_analysis(game_id, player_id, move_count).await,
        Db::Postgres(p) => p.start_analysis(game_id, player_id, move_count).await,
    }
}

/// What a start's upsert means, on either backend: a unique violation (only the index of running
/// analyses can give one) is the player's other running analysis.
pub(super) fn started<T>(upsert: Result<T, sqlx::Error>) -> Result<Started, StoreError> {
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
}

/// Takes (or keeps) the work on game `game_id`'s running analysis for this process; false when
/// it is not running, or another live server instance works on it. Called before each analysed
/// move, so a task whose claim was taken over stops after one move at most.
pub async fn claim(db: &Db, game_id: &str) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.claim_analysis(game_id).await,
        Db::Postgres(p) => p.claim_analysis(game_id).await,
    }
}

/// Records the analysis of one move, dropping any rows after its ply (an older line of play),
/// if the game's analysis still runs; false when it does not (the game was deleted).
pub async fn record(db: &Db, game_id: &str, analysed: AnalysedMove) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.record_analysed(game_id, analysed).await,
        Db::Postgres(p) => p.record_analysed(game_id, analysed).await,
    }
}

/// Marks the analysis done (and claimed by nobody) if it still runs towards `move_count`; false
/// when it was extended (or deleted) meanwhile, so the caller looks again.
pub async fn finish(db: &Db, game_id: &str, move_count: usize) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.finish_analysis(game_id, move_count).await,
        Db::Postgres(p) => p.finish_analysis(game_id, move_count).await,
    }
}

/// The analysis of game `game_id`, if one was ever started.
pub async fn load(db: &Db, game_id: &str) -> Result<Option<Analysis>, StoreError> {
    match db {
        Db::Sqlite(s) => s.load_analysis(game_id).await,
        Db::Postgres(p) => p.load_analysis(game_id).await,
    }
}

/// The running analyses this process may take up: at start, every one stored as running; on
/// PostgreSQL also later, those whose instance stopped or died (see [`sweep_every`]).
pub async fn claimable(db: &Db) -> Result<Vec<String>, StoreError> {
    match db {
        Db::Sqlite(s) => s.claimable_analyses().await,
        Db::Postgres(p) => p.claimable_analyses().await,
    }
}

/// How often a process looks for running analyses nobody works on: never on SQLite (its one
/// process takes them all up at start); on PostgreSQL as often as instances beat their
/// heartbeat, so the analyses of a killed instance are taken over soon after it is seen gone.
pub fn sweep_every(db: &Db) -> Option<Duration> {
    match db {
        Db::Sqlite(_) => None,
        Db::Postgres(_) => Some(super::postgres::HEARTBEAT),
    }
}

/// An analysis from its row (`requested_by`, `move_count`, `status`) and its moves' rows (in ply
/// order), on either backend.
pub(super) fn analysis<R: Columns>(
    game_id: &str,
    row: &R,
    moves: &[R],
) -> Result<Analysis, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(game_id.to_string(), what.to_string());
    Ok(Analysis {
        game_id: game_id.to_string(),
        requested_by: row.need_text("requested_by")?,
        move_count: usize::try_from(row.need_int("move_count")?)
            .map_err(|_| corrupt("analysis move_count"))?,
        status: row
            .need_text("status")?
            .parse()
            .map_err(|_| corrupt("analysis status"))?,
        moves: moves
            .iter()
            .map(|r| analysed_move(r)?.ok_or_else(|| corrupt("analysed move")))
            .collect::<Result<_, _>>()?,
    })
}

/// An `analysis_moves` row; None when a value is out of its range or names no mark.
fn analysed_move(r: &impl Columns) -> Result<Option<AnalysedMove>, StoreError> {
    let index = |column: &str| -> Result<Option<usize>, StoreError> {
        Ok(r.int(column)?.and_then(|v| usize::try_from(v).ok()))
    };
    let probability = |column: &str| -> Result<Option<f64>, StoreError> {
        Ok(r.real(column)?.filter(|p| (0.0..=1.0).contains(p)))
    };
    let mark = match r.text("mark")? {
        Some(name) => match name.parse() {
            Ok(mark) => Some(mark),
            Err(_) => return Ok(None),
        },
        None => None,
    };
    let (Some(ply), Some(row), Some(col), Some(eval), Some(best_row), Some(best_col)) = (
        index("ply")?,
        index("row")?,
        index("col")?,
        probability("eval")?,
        index("best_row")?,
        index("best_col")?,
    ) else {
        return Ok(None);
    };
    let Some(best_eval) = probability("best_eval")? else {
        return Ok(None);
    };
    let line = match r.text("line")? {
        Some(text) => match parse_line(&text) {
            Some(line) => line,
            None => return Ok(None),
        },
        None => Vec::new(),
    };
    Ok(Some(AnalysedMove {
        ply,
        played: Point::new(row, col),
        eval,
        best: Point::new(best_row, best_col),
        best_eval,
        mark,
        line,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::games::{self, Mode, NewGame, Written};
    use crate::store::now;
    use crate::store::players;
    use crate::store::tests::{each_backend, migrated};
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
            // Written as "a15 h8" and read back as these coordinates.
            line: vec![
                Coord::from_point(Point::new(0, 0), 15),
                Coord::from_point(Point::new(played.0, played.1), 15),
            ],
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

    /// Moves are recorded while the analysis runs and read back as written, lines included;
    /// writing a ply again drops the rows after it; finishing is refused once the target moved
    /// on; only the rows that match the game's moves from the first on are valid. On both
    /// backends.
    #[tokio::test]
    async fn record_finish_and_valid_moves() {
        for (db, _keep) in each_backend().await {
            let player = players::tests::anonymous(&db).await;
            let line = [(7, 7), (7, 8), (8, 8)];
            let id = game_with(&db, &player, &line).await;
            assert_eq!(load(&db, &id).await.unwrap(), None);

            assert_eq!(start(&db, &id, &player, 2).await.unwrap(), Started::Running);
            for (ply, &point) in line.iter().enumerate() {
                let mark = (ply == 1).then_some(Mark::Blunder);
                assert!(record(&db, &id, analysed(ply, point, mark)).await.unwrap());
            }
            assert_eq!(claimable(&db).await.unwrap(), vec![id.clone()]);
            assert_eq!(start(&db, &id, &player, 3).await.unwrap(), Started::Running);
            assert!(!finish(&db, &id, 2).await.unwrap(), "the target moved on");
            assert!(finish(&db, &id, 3).await.unwrap());
            let done = load(&db, &id).await.unwrap().unwrap();
            assert_eq!(done.status, AnalysisStatus::Done);
            assert_eq!(done.move_count, 3);
            assert_eq!(done.moves[1], analysed(1, (7, 8), Some(Mark::Blunder)));
            assert!(claimable(&db).await.unwrap().is_empty());
            assert!(!claim(&db, &id).await.unwrap() || matches!(db, Db::Sqlite(_)));

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
    }

    /// A player runs one analysis at a time; once it is done they may start another, and the
    /// analysis of a deleted game goes with it. On both backends.
    #[tokio::test]
    async fn one_running_analysis_per_player() {
        for (db, _keep) in each_backend().await {
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
            assert!(claimable(&db).await.unwrap().is_empty());
        }
    }

    /// Two instances on one PostgreSQL database: the first to claim a running analysis works on
    /// it, the other cannot take it (nor sees it as claimable) while the first lives; once the
    /// first stops, its claim is gone and the other takes it. A finished analysis is nobody's.
    #[tokio::test]
    #[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
    async fn one_instance_works_on_an_analysis() {
        let cluster = gomoku_testkit::postgres::required_cluster();
        let pg = gomoku_testkit::postgres::PgDatabase::create(&cluster);
        let a = migrated(pg.url()).await;
        let b = migrated(pg.url()).await;
        let player = players::tests::anonymous(&a).await;
        let id = game_with(&a, &player, &[(7, 7), (7, 8)]).await;
        assert!(!claim(&a, &id).await.unwrap(), "nothing runs yet");
        assert_eq!(start(&a, &id, &player, 2).await.unwrap(), Started::Running);

        assert!(claim(&a, &id).await.unwrap());
        assert!(claim(&a, &id).await.unwrap(), "a claim is kept");
        assert!(!claim(&b, &id).await.unwrap(), "held by a live instance");
        assert!(claimable(&b).await.unwrap().is_empty());
        assert_eq!(claimable(&a).await.unwrap(), vec![id.clone()]);
        // Extending it through the other instance leaves it with the first.
        assert_eq!(start(&b, &id, &player, 2).await.unwrap(), Started::Running);
        assert!(!claim(&b, &id).await.unwrap());

        a.close().await;
        assert_eq!(claimable(&b).await.unwrap(), vec![id.clone()]);
        assert!(
            claim(&b, &id).await.unwrap(),
            "the stopped instance's claim is gone"
        );
        assert!(finish(&b, &id, 2).await.unwrap());
        let c = migrated(pg.url()).await;
        assert_eq!(start(&c, &id, &player, 2).await.unwrap(), Started::Running);
        assert!(
            claim(&c, &id).await.unwrap(),
            "done, then started again: nobody's"
        );
        b.close().await;
        c.close().await;
    }
}
