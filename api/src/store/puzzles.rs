//! Puzzles as stored: each player's puzzle rating (`puzzle_ratings`) and their attempts
//! (`puzzle_attempts`, one row per player and puzzle holding the current attempt). The puzzles
//! themselves are the engine's compiled-in set, named here by id; what a move decides is
//! [`crate::puzzles`]'s. The rating arithmetic is [`crate::ratings`]'s Glicko-2, run here inside
//! the transaction that ends a rated attempt: the attempt is a game against the puzzle, won
//! when solved, lost when failed.
//!
//! A move is written by [`advance`], guarded by the attempt's moves as the caller read them
//! (like a game's ply): if another request changed the attempt in between (the same move sent
//! twice, a retry), nothing is written and the caller reads again. The attempt's new moves and
//! status, and for a rated attempt that ends the player's new rating with its counts, commit
//! together or not at all. On PostgreSQL the attempt's row and then the player's rating row are
//! locked first (a rating row is made at its initial value to be locked), so two attempts of one
//! player ending at once rate one after the other; on SQLite the single writer runs them one
//! after the other anyway, and every write reads what it needs before writing anything (the
//! writer has no savepoint per write).

use std::str::FromStr;

use gomoku_rules::Coord;

use super::games::rows::Columns;
use super::ratings::parse;
use super::{Db, StoreError};
use crate::ratings::{self, Rating, Score};

/// Where an attempt stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptStatus {
    Playing,
    Solved,
    Failed,
}

impl AttemptStatus {
    pub const ALL: [AttemptStatus; 3] = [
        AttemptStatus::Playing,
        AttemptStatus::Solved,
        AttemptStatus::Failed,
    ];

    /// "playing", "solved", "failed": the stored and served name.
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptStatus::Playing => "playing",
            AttemptStatus::Solved => "solved",
            AttemptStatus::Failed => "failed",
        }
    }

    /// Solved or failed.
    pub fn is_over(self) -> bool {
        self != AttemptStatus::Playing
    }
}

/// A name that is not one of [`AttemptStatus::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown attempt status")]
pub struct UnknownStatus;

impl FromStr for AttemptStatus {
    type Err = UnknownStatus;
    fn from_str(s: &str) -> Result<AttemptStatus, UnknownStatus> {
        gomoku_rules::by_name(&AttemptStatus::ALL, AttemptStatus::as_str, s).ok_or(UnknownStatus)
    }
}

/// A player's puzzle rating and their rated attempts' results.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PuzzleRecord {
    pub rating: Rating,
    pub solved: u32,
    pub failed: u32,
}

impl Default for PuzzleRecord {
    /// A player with no rated attempt.
    fn default() -> PuzzleRecord {
        PuzzleRecord {
            rating: Rating::INITIAL,
            solved: 0,
            failed: 0,
        }
    }
}

/// A player's current attempt at one puzzle.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub puzzle_id: String,
    /// Both sides' moves after the puzzle's position, the attacker's first.
    pub moves: Vec<Coord>,
    pub status: AttemptStatus,
    /// The first attempt at the puzzle, which moves the puzzle rating; later ones are practice.
    pub rated: bool,
    /// Attempts made at this puzzle, this one included.
    pub tries: u32,
    /// When this attempt started (stored form).
    pub started_at: String,
    pub ended_at: Option<String>,
    /// A rated attempt that ended: the player's puzzle rating before and after it.
    pub change: Option<(f64, f64)>,
}

/// A move of an attempt to write: the attempt as the caller read it (None: no attempt yet, this
/// is its first move) and what it becomes.
#[derive(Debug, Clone)]
pub struct Step {
    pub player_id: String,
    pub puzzle_id: String,
    /// The moves the caller read; the write happens only if they are still the stored ones and
    /// the attempt is still being played.
    pub expected: Option<Vec<Coord>>,
    /// The attempt's moves after this step.
    pub moves: Vec<Coord>,
    pub status: AttemptStatus,
    /// The puzzle's rating, for a rated attempt that this step ends.
    pub puzzle_rating: Rating,
}

/// What writing a step came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Advanced {
    /// Written: the attempt as it now is.
    Done(Attempt),
    /// The attempt changed since the caller read it: nothing written.
    Stale,
}

/// Player `player_id`'s puzzle rating and counts (the initial rating if they have none yet):
/// what their player card shows.
pub async fn puzzle_rating(db: &Db, player_id: &str) -> Result<PuzzleRecord, StoreError> {
    match db {
        Db::Sqlite(s) => s.puzzle_rating(player_id).await,
        Db::Postgres(p) => p.puzzle_rating(player_id).await,
    }
}

/// Player `player_id`'s current attempt at puzzle `puzzle_id`, if they ever started one.
pub async fn attempt(
    db: &Db,
    player_id: &str,
    puzzle_id: &str,
) -> Result<Option<Attempt>, StoreError> {
    match db {
        Db::Sqlite(s) => s.puzzle_attempt(player_id, puzzle_id).await,
        Db::Postgres(p) => p.puzzle_attempt(player_id, puzzle_id).await,
    }
}

/// The puzzles player `player_id` has tried, each with when its current attempt started, least
/// recently started first.
pub async fn tried(db: &Db, player_id: &str) -> Result<Vec<(String, String)>, StoreError> {
    match db {
        Db::Sqlite(s) => s.puzzles_tried(player_id).await,
        Db::Postgres(p) => p.puzzles_tried(player_id).await,
    }
}

/// Writes a move of an attempt (see the module comment), and, when it ends a rated attempt, the
/// player's new puzzle rating, at once or not at all.
pub async fn advance(db: &Db, step: Step) -> Result<Advanced, StoreError> {
    let at = super::now();
    match db {
        Db::Sqlite(s) => s.advance_attempt(step, at).await,
        Db::Postgres(p) => p.advance_attempt(step, at).await,
    }
}

/// Starts player `player_id`'s attempt at `puzzle_id` again, as practice. A rated attempt still
/// being played counts as failed first (given up), so a retry never dodges a rating. None when
/// there is no attempt to start again (the first is still to be made, and it is rated); an
/// attempt that is already fresh practice is left as it is.
pub async fn retry(
    db: &Db,
    player_id: &str,
    puzzle_id: &str,
    puzzle_rating: Rating,
) -> Result<Option<Attempt>, StoreError> {
    let at = super::now();
    match db {
        Db::Sqlite(s) => {
            s.retry_attempt(player_id, puzzle_id, puzzle_rating, at)
                .await
        }
        Db::Postgres(p) => {
            p.retry_attempt(player_id, puzzle_id, puzzle_rating, at)
                .await
        }
    }
}

/// Moves in their stored form: notation, space-separated.
pub(super) fn moves_text(moves: &[Coord]) -> String {
    moves
        .iter()
        .map(Coord::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The stored form of moves read back.
fn moves_of(id: &str, text: &str) -> Result<Vec<Coord>, StoreError> {
    text.split_whitespace()
        .map(|m| parse(id, "move", m))
        .collect()
}

/// A row of [`ATTEMPT_SQL`].
pub(super) fn attempt_of(r: &impl Columns, puzzle_id: &str) -> Result<Attempt, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(puzzle_id.into(), what.into());
    let before = r.real("rating_before")?;
    let after = r.real("rating_after")?;
    Ok(Attempt {
        puzzle_id: puzzle_id.to_string(),
        moves: moves_of(puzzle_id, &r.need_text("moves")?)?,
        status: parse(puzzle_id, "status", &r.need_text("status")?)?,
        rated: r.need_int("rated")? == 1,
        tries: u32::try_from(r.need_int("tries")?).map_err(|_| corrupt("tries"))?,
        started_at: r.need_text("started_at")?,
        ended_at: r.text("ended_at")?,
        change: before.zip(after),
    })
}

/// A row of [`RECORD_SQL`].
pub(super) fn record_of(r: &impl Columns, player_id: &str) -> Result<PuzzleRecord, StoreError> {
    let corrupt = |what: &str| StoreError::Corrupt(player_id.into(), what.into());
    let count = |column: &str| -> Result<u32, StoreError> {
        u32::try_from(r.need_int(column)?).map_err(|_| corrupt(column))
    };
    let real = |column: &str| -> Result<f64, StoreError> {
        r.real(column)?.ok_or_else(|| corrupt(column))
    };
    Ok(PuzzleRecord {
        rating: Rating {
            rating: real("rating")?,
            rd: real("rd")?,
            volatility: real("volatility")?,
        },
        solved: count("solved")?,
        failed: count("failed")?,
    })
}

/// What ending a rated attempt writes: the player's record after it, and their rating before
/// and after.
pub(super) fn rated_end(
    record: PuzzleRecord,
    puzzle_rating: Rating,
    solved: bool,
) -> (PuzzleRecord, (f64, f64)) {
    let score = if solved { Score::Win } else { Score::Loss };
    let (after, _) = ratings::rate(record.rating, puzzle_rating, score);
    let new = PuzzleRecord {
        rating: after,
        solved: record.solved + u32::from(solved),
        failed: record.failed + u32::from(!solved),
    };
    (new, (record.rating.rating, after.rating))
}

/// A player's record.
pub(super) const RECORD_SQL: &str =
    "select rating, rd, volatility, solved, failed from puzzle_ratings where player_id = $1";
/// A player's attempt at a puzzle.
pub(super) const ATTEMPT_SQL: &str = "select moves, status, rated, tries, started_at, ended_at, \
    rating_before, rating_after from puzzle_attempts where player_id = $1 and puzzle_id = $2";
/// The puzzles a player tried.
pub(super) const TRIED_SQL: &str = "select puzzle_id, started_at from puzzle_attempts \
    where player_id = $1 order by started_at, puzzle_id";
/// A first attempt's first move.
pub(super) const INSERT_ATTEMPT: &str = "insert into puzzle_attempts (player_id, puzzle_id, \
    moves, status, rated, tries, started_at, ended_at) values ($1, $2, $3, $4, 1, 1, $5, $6) \
    on conflict do nothing";
/// A later move of an attempt.
pub(super) const UPDATE_ATTEMPT: &str = "update puzzle_attempts set moves = $1, status = $2, \
    ended_at = $3 where player_id = $4 and puzzle_id = $5";
/// The rating change of a rated attempt that ended.
pub(super) const ATTEMPT_CHANGE: &str = "update puzzle_attempts set rating_before = $1, \
    rating_after = $2 where player_id = $3 and puzzle_id = $4";
/// A player's record after a rated attempt.
pub(super) const UPSERT_RECORD: &str = "insert into puzzle_ratings (player_id, rating, rd, \
    volatility, solved, failed, updated_at) values ($1, $2, $3, $4, $5, $6, $7) \
    on conflict (player_id) do update set rating = excluded.rating, rd = excluded.rd, \
    volatility = excluded.volatility, solved = excluded.solved, failed = excluded.failed, \
    updated_at = excluded.updated_at";
/// An attempt started again as practice.
pub(super) const RESET_ATTEMPT: &str = "update puzzle_attempts set moves = '', \
    status = 'playing', rated = 0, tries = tries + 1, started_at = $1, ended_at = null, \
    rating_before = null, rating_after = null where player_id = $2 and puzzle_id = $3";

#[cfg(test)]
mod tests;
