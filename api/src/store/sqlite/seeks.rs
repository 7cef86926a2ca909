//! The matchmaking pool's SQL on SQLite (see [`store::seeks`](crate::store::seeks)). One
//! process holds every seek, and its single writer runs one write after another: a claim looks
//! at both seeks and both players' caps before it writes anything, and nothing can change them
//! in between.

use std::sync::Arc;

use sqlx::sqlite::SqliteArguments;
use sqlx::SqliteConnection;

use super::games::{at_cap, bind_insert, insert_sql, seats_of_game};
use super::Store;
use crate::matchmaking::{Pool, Seek};
use crate::ratings::Rating;
use crate::store::games::{rows, Fresh};
use crate::store::ratings::{colour_of, rating_of, RATING_SQL};
use crate::store::seeks::{
    insert_rated_game, paired_players, seek_of, Added, Claimed, NewSeek, SEEK_COLUMNS,
};
use crate::store::writer::OnCommit;
use crate::store::StoreError;

impl Store {
    pub(in crate::store) async fn add_seek(
        &self,
        player_id: &str,
        pool: Pool,
        new: NewSeek,
    ) -> Result<Added, StoreError> {
        let player_id = player_id.to_string();
        self.writer()
            .write(move |conn| {
                let (player_id, new) = (player_id.clone(), new.clone());
                Box::pin(async move { add_in(conn, &player_id, pool, &new).await })
            })
            .await
    }

    pub(in crate::store) async fn drop_unheld_seek(&self, id: &str) -> Result<bool, StoreError> {
        let id = id.to_string();
        self.writer()
            .write(move |conn| {
                let id = id.clone();
                Box::pin(async move {
                    let done = sqlx::query("delete from seeks where id = ?")
                        .bind(&id)
                        .execute(&mut *conn)
                        .await?;
                    Ok::<_, StoreError>(done.rows_affected() > 0)
                })
            })
            .await
    }

    pub(in crate::store) async fn remove_seek(&self, player_id: &str) -> Result<bool, StoreError> {
        let player_id = player_id.to_string();
        self.writer()
            .write(move |conn| {
                let player_id = player_id.clone();
                Box::pin(async move {
                    let done = sqlx::query("delete from seeks where player_id = ?")
                        .bind(&player_id)
                        .execute(&mut *conn)
                        .await?;
                    Ok::<_, StoreError>(done.rows_affected() > 0)
                })
            })
            .await
    }

    pub(in crate::store) async fn seek_of(
        &self,
        player_id: &str,
    ) -> Result<Option<Seek>, StoreError> {
        let sql = format!("select {SEEK_COLUMNS} from seeks s where s.player_id = ?");
        let row = sqlx::query(&sql)
            .bind(player_id)
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(seek_of).transpose()
    }

    pub(in crate::store) async fn waiting(&self, pool: Pool) -> Result<Vec<Seek>, StoreError> {
        let sql =
            format!("select {SEEK_COLUMNS} from seeks s where s.pool = ? order by s.since, s.id");
        let rows = sqlx::query(&sql)
            .bind(pool.as_str())
            .fetch_all(self.reader())
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
        let sql = Arc::new(insert_sql(&fresh).0);
        let shared = self.shared.clone();
        // The new game reaches the position cache and the watchers as any new game does.
        let remember: OnCommit<Claimed> = Box::new(move |claimed| {
            if let Claimed::Paired(game) = claimed {
                shared.positions.put(game);
                shared.watchers.changed(game);
            }
        });
        self.writer()
            .write_then(
                move |conn| {
                    let (seeks, fresh, sql) = (seeks.clone(), fresh.clone(), sql.clone());
                    Box::pin(async move { claim_in(conn, &seeks, &fresh, &sql, pool, cap).await })
                },
                Some(remember),
            )
            .await
    }

    pub(in crate::store) async fn clear_seeks(&self) -> Result<u64, StoreError> {
        self.writer()
            .write(|conn| {
                Box::pin(async move {
                    let done = sqlx::query("delete from seeks").execute(&mut *conn).await?;
                    Ok::<_, StoreError>(done.rows_affected())
                })
            })
            .await
    }
}

/// The write of an added seek: what it stores is read first, then the seek is inserted unless
/// the player has one.
async fn add_in(
    conn: &mut SqliteConnection,
    player_id: &str,
    pool: Pool,
    new: &NewSeek,
) -> Result<Added, StoreError> {
    let family = pool.family().as_str();
    let rating = match sqlx::query(RATING_SQL)
        .bind(player_id)
        .bind(family)
        .fetch_optional(&mut *conn)
        .await?
    {
        Some(r) => rating_of(&r, player_id)?,
        None => crate::ratings::Rating::INITIAL,
    };
    let last = sqlx::query(
        "select colour from rating_changes where player_id = ? and family = ? \
         order by at desc, game_id desc limit 1",
    )
    .bind(player_id)
    .bind(family)
    .fetch_optional(&mut *conn)
    .await?;
    let last_colour = last
        .map(|r| colour_of(&r, "colour", player_id))
        .transpose()?;
    let aborts: i64 =
        sqlx::query_scalar("select count(*) from aborts where player_id = ? and at >= ?")
            .bind(player_id)
            .bind(&new.aborts_since)
            .fetch_one(&mut *conn)
            .await?;
    let done = sqlx::query(
        "insert into seeks (player_id, id, pool, rating, rd, last_colour, aborts, since) \
         values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (player_id) do nothing",
    )
    .bind(player_id)
    .bind(&new.id)
    .bind(pool.as_str())
    .bind(rating.rating)
    .bind(rating.rd)
    .bind(last_colour.map(rows::stone_value))
    .bind(aborts)
    .bind(&new.since)
    .execute(&mut *conn)
    .await?;
    let sql = format!("select {SEEK_COLUMNS} from seeks s where s.player_id = ?");
    let row = sqlx::query(&sql)
        .bind(player_id)
        .fetch_one(&mut *conn)
        .await?;
    let seek = seek_of(&row)?;
    Ok(if done.rows_affected() > 0 {
        Added::Added(seek)
    } else {
        Added::Seeking(seek)
    })
}

/// The write of a claim: both seeks and both caps are looked at first, so a claim that cannot
/// land writes nothing.
async fn claim_in(
    conn: &mut SqliteConnection,
    seeks: &[String; 2],
    fresh: &Fresh,
    insert: &str,
    pool: Pool,
    cap: u32,
) -> Result<Claimed, StoreError> {
    let present: i64 = sqlx::query_scalar("select count(*) from seeks where id in (?, ?)")
        .bind(&seeks[0])
        .bind(&seeks[1])
        .fetch_one(&mut *conn)
        .await?;
    if present < 2 {
        return Ok(Claimed::Gone);
    }
    for player in fresh.players() {
        if at_cap(conn, player, cap).await? {
            return Ok(Claimed::OverCap(player.to_string()));
        }
    }
    sqlx::query("delete from seeks where id in (?, ?)")
        .bind(&seeks[0])
        .bind(&seeks[1])
        .execute(&mut *conn)
        .await?;
    let mut args = SqliteArguments::default();
    bind_insert(&mut args, fresh, cap).map_err(sqlx::Error::Encode)?;
    sqlx::query_with(insert, args).execute(&mut *conn).await?;
    let [black, white] = paired_players(fresh);
    sqlx::query(&insert_rated_game('?'))
        .bind(&fresh.row.id)
        .bind(pool.family().as_str())
        .bind(pool.as_str())
        .bind(black)
        .bind(white)
        .bind(Rating::INITIAL.rating)
        .bind(Rating::INITIAL.rd)
        .execute(&mut *conn)
        .await?;
    let seats = sqlx::query(&seats_of_game())
        .bind(&fresh.row.id)
        .fetch_all(&mut *conn)
        .await?;
    Ok(Claimed::Paired(fresh.seated(rows::seats(&seats)?)))
}
