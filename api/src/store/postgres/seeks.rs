//! The matchmaking pool's SQL on PostgreSQL (see [`store::seeks`](crate::store::seeks)), shared
//! by every instance. Each seek names the instance that took it, and counts only while that
//! instance's heartbeat is recent. A claim deletes both seeks first: a second claim of either,
//! from any instance, waits for the first one's row locks and then finds it gone, and the
//! transaction is dropped (rolled back) having written nothing. The caps are counted after
//! that, with the players' rows locked in player order, as every capped write does.

use std::sync::Arc;

use super::games::{at_cap, insert_fresh, SEATS_OF_GAME};
use super::presence::BEAT;
use super::Store;
use crate::matchmaking::{Pool, Seek};
use crate::ratings::Rating;
use crate::store::games::rows::{self, stone_value};
use crate::store::games::Fresh;
use crate::store::presence::GONE_AFTER;
use crate::store::ratings::{colour_of, rating_of, RATING_SQL};
use crate::store::seeks::{
    insert_rated_game, paired_players, seek_of, Added, Claimed, NewSeek, SEEK_COLUMNS,
};
use crate::store::StoreError;

/// Whether the instance holding seek `s` still beats: its heartbeat is younger than the
/// seconds bound to `secs` (a placeholder, such as "$2").
fn held(secs: &str) -> String {
    format!(
        "exists (select 1 from server_instances i where i.id = s.instance \
         and i.seen_at > now() - make_interval(secs => {secs}))"
    )
}

impl Store {
    pub(in crate::store) async fn add_seek(
        &self,
        player_id: &str,
        pool: Pool,
        new: NewSeek,
    ) -> Result<Added, StoreError> {
        let family = pool.family().as_str();
        let mut tx = self.pool.begin().await?;
        // This instance is alive now (the seek refers to its row).
        sqlx::query(BEAT)
            .bind(&*self.instance)
            .execute(&mut *tx)
            .await?;
        let rating = match sqlx::query(RATING_SQL)
            .bind(player_id)
            .bind(family)
            .fetch_optional(&mut *tx)
            .await?
        {
            Some(r) => rating_of(&r, player_id)?,
            None => Rating::INITIAL,
        };
        let last = sqlx::query(
            "select colour from rating_changes where player_id = $1 and family = $2 \
             order by at desc, game_id desc limit 1",
        )
        .bind(player_id)
        .bind(family)
        .fetch_optional(&mut *tx)
        .await?;
        let last_colour = last
            .map(|r| colour_of(&r, "colour", player_id))
            .transpose()?;
        let aborts: i64 =
            sqlx::query_scalar("select count(*) from aborts where player_id = $1 and at >= $2")
                .bind(player_id)
                .bind(&new.aborts_since)
                .fetch_one(&mut *tx)
                .await?;
        // A seek whose instance stopped beating is replaced; a live one stays.
        let sql = format!(
            "insert into seeks as s (player_id, id, pool, rating, rd, last_colour, aborts, since, \
             instance) values ($1, $2, $3, $4, $5, $6, $7, $8, $10) \
             on conflict (player_id) do update set id = excluded.id, pool = excluded.pool, \
             rating = excluded.rating, rd = excluded.rd, last_colour = excluded.last_colour, \
             aborts = excluded.aborts, since = excluded.since, instance = excluded.instance \
             where not {} returning s.id",
            held("$9")
        );
        let added: Option<String> = sqlx::query_scalar(&sql)
            .bind(player_id)
            .bind(&new.id)
            .bind(pool.as_str())
            .bind(rating.rating)
            .bind(rating.rd)
            .bind(last_colour.map(stone_value))
            .bind(aborts)
            .bind(&new.since)
            .bind(GONE_AFTER.as_secs_f64())
            .bind(&*self.instance)
            .fetch_optional(&mut *tx)
            .await?;
        let sql = format!("select {SEEK_COLUMNS} from seeks s where s.player_id = $1");
        let row = sqlx::query(&sql)
            .bind(player_id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        let seek = seek_of(&row)?;
        Ok(match added {
            Some(_) => Added::Added(seek),
            None => Added::Seeking(seek),
        })
    }

    pub(in crate::store) async fn remove_seek(&self, player_id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("delete from seeks where player_id = $1")
            .bind(player_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    pub(in crate::store) async fn hold_seek(&self, player_id: &str) -> Result<(), StoreError> {
        // A seek of a gone instance stays gone: its player seeks again.
        let sql = format!(
            "update seeks s set instance = $1 where s.player_id = $2 and {}",
            held("$3")
        );
        sqlx::query(&sql)
            .bind(&*self.instance)
            .bind(player_id)
            .bind(GONE_AFTER.as_secs_f64())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub(in crate::store) async fn drop_unheld_seek(&self, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("delete from seeks where id = $1 and instance = $2")
            .bind(id)
            .bind(&*self.instance)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    pub(in crate::store) async fn seek_of(
        &self,
        player_id: &str,
    ) -> Result<Option<Seek>, StoreError> {
        let sql = format!(
            "select {SEEK_COLUMNS} from seeks s where s.player_id = $1 \
             and {}",
            held("$2")
        );
        let row = sqlx::query(&sql)
            .bind(player_id)
            .bind(GONE_AFTER.as_secs_f64())
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(seek_of).transpose()
    }

    pub(in crate::store) async fn waiting(&self, pool: Pool) -> Result<Vec<Seek>, StoreError> {
        let sql = format!(
            "select {SEEK_COLUMNS} from seeks s where s.pool = $1 and {} \
             order by s.since, s.id",
            held("$2")
        );
        let rows = sqlx::query(&sql)
            .bind(pool.as_str())
            .bind(GONE_AFTER.as_secs_f64())
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(seek_of).collect()
    }

    pub(in crate::store) async fn claim(
        &self,
        seeks: [String; 2],
        fresh: Arc<Fresh>,
        pool: Pool,
        cap: u32,
    ) -> Result<Claimed, StoreError> {
        let mut tx = self.pool.begin().await?;
        let taken = sqlx::query("delete from seeks where id = any($1)")
            .bind(&seeks[..])
            .execute(&mut *tx)
            .await?;
        if taken.rows_affected() < 2 {
            return Ok(Claimed::Gone);
        }
        let mut players: Vec<&str> = fresh.players().collect();
        players.sort_unstable();
        for player in players {
            if at_cap(&mut tx, player, cap).await? {
                return Ok(Claimed::OverCap(player.to_string()));
            }
        }
        insert_fresh(&mut tx, &fresh).await?;
        let [black, white] = paired_players(&fresh);
        sqlx::query(&insert_rated_game('$'))
            .bind(&fresh.row.id)
            .bind(pool.family().as_str())
            .bind(pool.as_str())
            .bind(black)
            .bind(white)
            .bind(Rating::INITIAL.rating)
            .bind(Rating::INITIAL.rd)
            .execute(&mut *tx)
            .await?;
        let seats = sqlx::query(SEATS_OF_GAME)
            .bind(&fresh.row.id)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        let game = fresh.seated(rows::seats(&seats)?);
        self.shared.positions.put(&game);
        self.shared.watchers.changed(&game);
        Ok(Claimed::Paired(game))
    }

    pub(in crate::store) async fn clear_left_seeks(&self) -> Result<u64, StoreError> {
        let sql = format!("delete from seeks s where not {}", held("$1"));
        let done = sqlx::query(&sql)
            .bind(GONE_AFTER.as_secs_f64())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}
