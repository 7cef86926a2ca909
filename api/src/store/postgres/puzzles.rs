//! Puzzles' SQL on PostgreSQL (see [`store::puzzles`](crate::store::puzzles)). A step is one
//! transaction that first locks the attempt's row (a second request for the same attempt, from
//! any instance, waits, then finds it changed), and, when it ends a rated attempt, the player's
//! rating row (made at its initial value if missing, so that there is a row to lock): two
//! attempts of one player ending at once rate one after the other. A first move has no row to
//! lock; two first moves at once both insert, and the primary key lets one in.

use sqlx::PgConnection;

use super::Store;
use crate::ratings::Rating;
use crate::store::puzzles::{
    attempt_of, moves_text, rated_end, record_of, Advanced, Attempt, AttemptStatus, PuzzleRecord,
    Step, ATTEMPT_CHANGE, ATTEMPT_SQL, INSERT_ATTEMPT, RECORD_SQL, RESET_ATTEMPT, TRIED_SQL,
    UPDATE_ATTEMPT, UPSERT_RECORD,
};
use crate::store::StoreError;

impl Store {
    pub(in crate::store) async fn puzzle_rating(
        &self,
        player_id: &str,
    ) -> Result<PuzzleRecord, StoreError> {
        let row = sqlx::query(RECORD_SQL)
            .bind(player_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map_or(Ok(PuzzleRecord::default()), |r| record_of(&r, player_id))
    }

    pub(in crate::store) async fn puzzle_attempt(
        &self,
        player_id: &str,
        puzzle_id: &str,
    ) -> Result<Option<Attempt>, StoreError> {
        let row = sqlx::query(ATTEMPT_SQL)
            .bind(player_id)
            .bind(puzzle_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| attempt_of(&r, puzzle_id)).transpose()
    }

    pub(in crate::store) async fn puzzles_tried(
        &self,
        player_id: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as(TRIED_SQL)
            .bind(player_id)
            .fetch_all(&self.pool)
            .await?)
    }

    pub(in crate::store) async fn advance_attempt(
        &self,
        step: Step,
        at: String,
    ) -> Result<Advanced, StoreError> {
        let mut tx = self.pool.begin().await?;
        let stored = lock_attempt(&mut tx, &step.player_id, &step.puzzle_id).await?;
        let rated = match (&step.expected, &stored) {
            (None, None) => true,
            (Some(expected), Some(a))
                if a.status == AttemptStatus::Playing && a.moves == *expected =>
            {
                a.rated
            }
            _ => return Ok(Advanced::Stale),
        };
        let ended = step.status.is_over().then_some(at.as_str());
        let moves = moves_text(&step.moves);
        if stored.is_none() {
            let done = sqlx::query(INSERT_ATTEMPT)
                .bind(&step.player_id)
                .bind(&step.puzzle_id)
                .bind(&moves)
                .bind(step.status.as_str())
                .bind(&at)
                .bind(ended)
                .execute(&mut *tx)
                .await?;
            if done.rows_affected() == 0 {
                return Ok(Advanced::Stale);
            }
        } else {
            sqlx::query(UPDATE_ATTEMPT)
                .bind(&moves)
                .bind(step.status.as_str())
                .bind(ended)
                .bind(&step.player_id)
                .bind(&step.puzzle_id)
                .execute(&mut *tx)
                .await?;
        }
        if rated && step.status.is_over() {
            let solved = step.status == AttemptStatus::Solved;
            let (before, after) =
                rate_in(&mut tx, &step.player_id, step.puzzle_rating, solved, &at).await?;
            sqlx::query(ATTEMPT_CHANGE)
                .bind(before)
                .bind(after)
                .bind(&step.player_id)
                .bind(&step.puzzle_id)
                .execute(&mut *tx)
                .await?;
        }
        let attempt = lock_attempt(&mut tx, &step.player_id, &step.puzzle_id).await?;
        tx.commit().await?;
        Ok(attempt.map_or(Advanced::Stale, Advanced::Done))
    }

    pub(in crate::store) async fn retry_attempt(
        &self,
        player_id: &str,
        puzzle_id: &str,
        puzzle_rating: Rating,
        at: String,
    ) -> Result<Option<Attempt>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let Some(stored) = lock_attempt(&mut tx, player_id, puzzle_id).await? else {
            return Ok(None);
        };
        if !stored.rated && stored.status == AttemptStatus::Playing && stored.moves.is_empty() {
            return Ok(Some(stored));
        }
        if stored.rated && stored.status == AttemptStatus::Playing {
            rate_in(&mut tx, player_id, puzzle_rating, false, &at).await?;
        }
        sqlx::query(RESET_ATTEMPT)
            .bind(&at)
            .bind(player_id)
            .bind(puzzle_id)
            .execute(&mut *tx)
            .await?;
        let attempt = lock_attempt(&mut tx, player_id, puzzle_id).await?;
        tx.commit().await?;
        Ok(attempt)
    }
}

/// The attempt's row, locked until the transaction ends.
async fn lock_attempt(
    conn: &mut PgConnection,
    player_id: &str,
    puzzle_id: &str,
) -> Result<Option<Attempt>, StoreError> {
    let row = sqlx::query(&format!("{ATTEMPT_SQL} for update"))
        .bind(player_id)
        .bind(puzzle_id)
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| attempt_of(&r, puzzle_id)).transpose()
}

/// Rates the end of a rated attempt: locks the player's record (made at the initial rating if
/// missing), writes it anew, and returns their rating before and after.
async fn rate_in(
    conn: &mut PgConnection,
    player_id: &str,
    puzzle_rating: Rating,
    solved: bool,
    at: &str,
) -> Result<(f64, f64), StoreError> {
    let initial = PuzzleRecord::default();
    sqlx::query(
        "insert into puzzle_ratings (player_id, rating, rd, volatility, solved, failed, \
         updated_at) values ($1, $2, $3, $4, 0, 0, $5) on conflict do nothing",
    )
    .bind(player_id)
    .bind(initial.rating.rating)
    .bind(initial.rating.rd)
    .bind(initial.rating.volatility)
    .bind(at)
    .execute(&mut *conn)
    .await?;
    let row = sqlx::query(&format!("{RECORD_SQL} for update"))
        .bind(player_id)
        .fetch_one(&mut *conn)
        .await?;
    let record = record_of(&row, player_id)?;
    let (new, change) = rated_end(record, puzzle_rating, solved);
    sqlx::query(UPSERT_RECORD)
        .bind(player_id)
        .bind(new.rating.rating)
        .bind(new.rating.rd)
        .bind(new.rating.volatility)
        .bind(i64::from(new.solved))
        .bind(i64::from(new.failed))
        .bind(at)
        .execute(&mut *conn)
        .await?;
    Ok(change)
}
