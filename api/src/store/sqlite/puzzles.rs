//! Puzzles' SQL on SQLite (see [`store::puzzles`](crate::store::puzzles)). Every write goes
//! through the single writer, which runs one write after another: each reads what it needs
//! before it writes anything, so a write that decides to do nothing (a stale step) leaves
//! nothing behind.

use sqlx::SqliteConnection;

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
            .fetch_optional(self.reader())
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
            .fetch_optional(self.reader())
            .await?;
        row.map(|r| attempt_of(&r, puzzle_id)).transpose()
    }

    pub(in crate::store) async fn puzzles_tried(
        &self,
        player_id: &str,
    ) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as(TRIED_SQL)
            .bind(player_id)
            .fetch_all(self.reader())
            .await?)
    }

    pub(in crate::store) async fn advance_attempt(
        &self,
        step: Step,
        at: String,
    ) -> Result<Advanced, StoreError> {
        self.writer()
            .write(move |conn| {
                let (step, at) = (step.clone(), at.clone());
                Box::pin(async move { advance_in(conn, &step, &at).await })
            })
            .await
    }

    pub(in crate::store) async fn retry_attempt(
        &self,
        player_id: &str,
        puzzle_id: &str,
        puzzle_rating: Rating,
        at: String,
    ) -> Result<Option<Attempt>, StoreError> {
        let (player_id, puzzle_id) = (player_id.to_string(), puzzle_id.to_string());
        self.writer()
            .write(move |conn| {
                let (player_id, puzzle_id, at) = (player_id.clone(), puzzle_id.clone(), at.clone());
                Box::pin(
                    async move { retry_in(conn, &player_id, &puzzle_id, puzzle_rating, &at).await },
                )
            })
            .await
    }
}

async fn read_attempt(
    conn: &mut SqliteConnection,
    player_id: &str,
    puzzle_id: &str,
) -> Result<Option<Attempt>, StoreError> {
    let row = sqlx::query(ATTEMPT_SQL)
        .bind(player_id)
        .bind(puzzle_id)
        .fetch_optional(&mut *conn)
        .await?;
    row.map(|r| attempt_of(&r, puzzle_id)).transpose()
}

async fn advance_in(
    conn: &mut SqliteConnection,
    step: &Step,
    at: &str,
) -> Result<Advanced, StoreError> {
    let stored = read_attempt(conn, &step.player_id, &step.puzzle_id).await?;
    let rated = match (&step.expected, &stored) {
        (None, None) => true,
        (Some(expected), Some(a)) if a.status == AttemptStatus::Playing && a.moves == *expected => {
            a.rated
        }
        _ => return Ok(Advanced::Stale),
    };
    let record = if rated && step.status.is_over() {
        Some(read_record(conn, &step.player_id).await?)
    } else {
        None
    };
    let ended = step.status.is_over().then_some(at);
    let moves = moves_text(&step.moves);
    if stored.is_none() {
        sqlx::query(INSERT_ATTEMPT)
            .bind(&step.player_id)
            .bind(&step.puzzle_id)
            .bind(&moves)
            .bind(step.status.as_str())
            .bind(at)
            .bind(ended)
            .execute(&mut *conn)
            .await?;
    } else {
        sqlx::query(UPDATE_ATTEMPT)
            .bind(&moves)
            .bind(step.status.as_str())
            .bind(ended)
            .bind(&step.player_id)
            .bind(&step.puzzle_id)
            .execute(&mut *conn)
            .await?;
    }
    if let Some(record) = record {
        let solved = step.status == AttemptStatus::Solved;
        let (before, after) = rate_in(
            conn,
            &step.player_id,
            record,
            step.puzzle_rating,
            solved,
            at,
        )
        .await?;
        sqlx::query(ATTEMPT_CHANGE)
            .bind(before)
            .bind(after)
            .bind(&step.player_id)
            .bind(&step.puzzle_id)
            .execute(&mut *conn)
            .await?;
    }
    let attempt = read_attempt(conn, &step.player_id, &step.puzzle_id).await?;
    Ok(attempt.map_or(Advanced::Stale, Advanced::Done))
}

async fn read_record(
    conn: &mut SqliteConnection,
    player_id: &str,
) -> Result<PuzzleRecord, StoreError> {
    let row = sqlx::query(RECORD_SQL)
        .bind(player_id)
        .fetch_optional(&mut *conn)
        .await?;
    row.map_or(Ok(PuzzleRecord::default()), |r| record_of(&r, player_id))
}

/// Rates the end of a rated attempt: writes the player's record, returns their rating before
/// and after.
async fn rate_in(
    conn: &mut SqliteConnection,
    player_id: &str,
    record: PuzzleRecord,
    puzzle_rating: Rating,
    solved: bool,
    at: &str,
) -> Result<(f64, f64), StoreError> {
    let (new, (before, after)) = rated_end(record, puzzle_rating, solved);
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
    Ok((before, after))
}

async fn retry_in(
    conn: &mut SqliteConnection,
    player_id: &str,
    puzzle_id: &str,
    puzzle_rating: Rating,
    at: &str,
) -> Result<Option<Attempt>, StoreError> {
    let Some(stored) = read_attempt(conn, player_id, puzzle_id).await? else {
        return Ok(None);
    };
    if !stored.rated && stored.status == AttemptStatus::Playing && stored.moves.is_empty() {
        return Ok(Some(stored));
    }
    if stored.rated && stored.status == AttemptStatus::Playing {
        let record = read_record(conn, player_id).await?;
        rate_in(conn, player_id, record, puzzle_rating, false, at).await?;
    }
    sqlx::query(RESET_ATTEMPT)
        .bind(at)
        .bind(player_id)
        .bind(puzzle_id)
        .execute(&mut *conn)
        .await?;
    read_attempt(conn, player_id, puzzle_id).await
}
