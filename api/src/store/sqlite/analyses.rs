//! Post-game analyses' SQL on SQLite, every write through the single writer. One process owns
//! the file, so its own task set (see [`crate::analysis`]) is all the claim an analysis needs.

use gomoku_engine::analysis::Mark;
use sqlx::sqlite::SqliteRow;

use super::Store;
use crate::store::analyses::{analysis, line_text, started, AnalysedMove, Analysis, Started};
use crate::store::{now, StoreError};

impl Store {
    pub(in crate::store) async fn start_analysis(
        &self,
        game_id: &str,
        player_id: &str,
        move_count: usize,
    ) -> Result<Started, StoreError> {
        let (game_id, player_id) = (game_id.to_string(), player_id.to_string());
        self.writer()
            .write(move |conn| {
                let (game_id, player_id) = (game_id.clone(), player_id.clone());
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
                    // The refused statement alone is undone (SQLite aborts the statement, not
                    // the batch's transaction).
                    started(upsert)
                })
            })
            .await
    }

    /// Always true: this process is the only one that runs analyses on this file.
    pub(in crate::store) async fn claim_analysis(
        &self,
        _game_id: &str,
    ) -> Result<bool, StoreError> {
        Ok(true)
    }

    pub(in crate::store) async fn record_analysed(
        &self,
        game_id: &str,
        analysed: AnalysedMove,
    ) -> Result<bool, StoreError> {
        let game_id = game_id.to_string();
        self.writer()
            .write(move |conn| {
                let (game_id, analysed) = (game_id.clone(), analysed.clone());
                Box::pin(async move {
                    let ply = analysed.ply as i64;
                    sqlx::query("delete from analysis_moves where game_id = ? and ply >= ?")
                        .bind(&game_id)
                        .bind(ply)
                        .execute(&mut *conn)
                        .await?;
                    let done = sqlx::query(
                        "insert into analysis_moves \
                           (game_id, ply, row, col, eval, best_row, best_col, best_eval, mark, line) \
                         select ?, ?, ?, ?, ?, ?, ?, ?, ?, ? where exists \
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
                    .bind(line_text(&analysed.line))
                    .bind(&game_id)
                    .execute(&mut *conn)
                    .await?;
                    Ok::<_, StoreError>(done.rows_affected() == 1)
                })
            })
            .await
    }

    pub(in crate::store) async fn finish_analysis(
        &self,
        game_id: &str,
        move_count: usize,
    ) -> Result<bool, StoreError> {
        let game_id = game_id.to_string();
        self.writer()
            .write(move |conn| {
                let game_id = game_id.clone();
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

    pub(in crate::store) async fn load_analysis(
        &self,
        game_id: &str,
    ) -> Result<Option<Analysis>, StoreError> {
        // One read transaction, so the analysis and its moves come from one snapshot.
        let mut tx = self.reader().begin().await?;
        let row =
            sqlx::query("select requested_by, move_count, status from analyses where game_id = ?")
                .bind(game_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let moves: Vec<SqliteRow> = sqlx::query(
            "select ply, row, col, eval, best_row, best_col, best_eval, mark, line \
             from analysis_moves where game_id = ? order by ply",
        )
        .bind(game_id)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        analysis(game_id, &row, &moves).map(Some)
    }

    pub(in crate::store) async fn claimable_analyses(&self) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("select game_id from analyses where status = 'running'")
                .fetch_all(self.reader())
                .await?,
        )
    }
}
