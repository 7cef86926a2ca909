//! Post-game analyses' SQL on PostgreSQL. Every instance may be asked to run an analysis, so
//! the database says which one does: the `runner` column names the instance whose task works on
//! it. An instance takes it ([`Store::claim_analysis`]) before each analysed move, with a guarded
//! update that succeeds only when no other live instance holds it. An instance that stops,
//! leaving its analyses running, gives them up as its `server_instances` row goes (on delete set
//! null). One that was killed loses them as soon as none of its connections is left (each names
//! its instance in `application_name`; the kernel closes a killed process's sockets, and
//! PostgreSQL ends their sessions), or, when its machine vanished without closing them, once its
//! heartbeat is [`GONE_AFTER`] old. Taking over from an instance that was wrongly thought gone
//! costs at most one move analysed twice: its next claim fails and its task ends.

use gomoku_engine::analysis::Mark;

use super::presence::BEAT;
use super::Store;
use crate::store::analyses::{analysis, line_text, started, AnalysedMove, Analysis, Started};
use crate::store::games::rows::Columns;
use crate::store::presence::GONE_AFTER;
use crate::store::{now, StoreError};

/// Rows of `analyses` (`a`) that the instance `$1` may work on: running, and held by no other
/// live instance (one with a recent heartbeat and a connection).
const CLAIMABLE: &str = "a.status = 'running' and (a.runner is null or a.runner = $1 \
    or not exists (select 1 from server_instances i \
      where i.id = a.runner and i.seen_at > now() - make_interval(secs => $2)) \
    or not exists (select 1 from pg_stat_activity s where s.application_name \
      in ('gomoku-server ' || a.runner, 'gomoku-listener ' || a.runner)))";

impl Store {
    pub(in crate::store) async fn start_analysis(
        &self,
        game_id: &str,
        player_id: &str,
        move_count: usize,
    ) -> Result<Started, StoreError> {
        let at = now();
        // Racing starts of one game (on any instances) meet on the primary key; racing starts
        // of two games by one player on the unique index of running analyses.
        let upsert = sqlx::query(
            "insert into analyses \
               (game_id, requested_by, move_count, status, created_at, updated_at) \
             values ($1, $2, $3, 'running', $4, $4) \
             on conflict (game_id) do update set \
               requested_by = case when analyses.status = 'running' \
                 then analyses.requested_by else excluded.requested_by end, \
               move_count = excluded.move_count, status = 'running', \
               updated_at = excluded.updated_at",
        )
        .bind(game_id)
        .bind(player_id)
        .bind(move_count as i64)
        .bind(&at)
        .execute(&self.pool)
        .await;
        started(upsert)
    }

    pub(in crate::store) async fn claim_analysis(&self, game_id: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        // The runner must be a live row of `server_instances`; this beat makes it one.
        sqlx::query(BEAT)
            .bind(&*self.instance)
            .execute(&mut *tx)
            .await?;
        // A second claimer of the same row waits for the first one's row lock, then finds the
        // runner alive and not itself, and takes nothing.
        let claimed = sqlx::query(&format!(
            "update analyses a set runner = $1 where a.game_id = $3 and {CLAIMABLE}"
        ))
        .bind(&*self.instance)
        .bind(GONE_AFTER.as_secs_f64())
        .bind(game_id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(claimed.rows_affected() == 1)
    }

    pub(in crate::store) async fn record_analysed(
        &self,
        game_id: &str,
        analysed: AnalysedMove,
    ) -> Result<bool, StoreError> {
        let ply = analysed.ply as i64;
        let mut tx = self.pool.begin().await?;
        sqlx::query("delete from analysis_moves where game_id = $1 and ply >= $2")
            .bind(game_id)
            .bind(ply)
            .execute(&mut *tx)
            .await?;
        let done = sqlx::query(
            "insert into analysis_moves \
               (game_id, ply, \"row\", col, eval, best_row, best_col, best_eval, mark, line) \
             select $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 where exists \
               (select 1 from analyses where game_id = $1 and status = 'running')",
        )
        .bind(game_id)
        .bind(ply)
        .bind(analysed.played.row as i64)
        .bind(analysed.played.col as i64)
        .bind(analysed.eval)
        .bind(analysed.best.row as i64)
        .bind(analysed.best.col as i64)
        .bind(analysed.best_eval)
        .bind(analysed.mark.map(Mark::as_str))
        .bind(line_text(&analysed.line))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    pub(in crate::store) async fn finish_analysis(
        &self,
        game_id: &str,
        move_count: usize,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "update analyses set status = 'done', runner = null, updated_at = $1 \
             where game_id = $2 and status = 'running' and move_count = $3",
        )
        .bind(now())
        .bind(game_id)
        .bind(move_count as i64)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub(in crate::store) async fn load_analysis(
        &self,
        game_id: &str,
    ) -> Result<Option<Analysis>, StoreError> {
        // One statement, so the analysis and its moves come from one snapshot: one row per
        // analysed move, or one with the move's columns null when there is none.
        let rows = sqlx::query(
            "select a.requested_by, a.move_count, a.status, m.ply, m.\"row\", m.col, m.eval, \
               m.best_row, m.best_col, m.best_eval, m.mark, m.line \
             from analyses a left join analysis_moves m on m.game_id = a.game_id \
             where a.game_id = $1 order by m.ply",
        )
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let moves = if first.int("ply")?.is_some() {
            &rows[..]
        } else {
            &[]
        };
        analysis(game_id, first, moves).map(Some)
    }

    pub(in crate::store) async fn claimable_analyses(&self) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(&format!(
            "select a.game_id from analyses a where {CLAIMABLE}"
        ))
        .bind(&*self.instance)
        .bind(GONE_AFTER.as_secs_f64())
        .fetch_all(&self.pool)
        .await?)
    }
}
