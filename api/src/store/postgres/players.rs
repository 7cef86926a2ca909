//! Players' and sessions' SQL on PostgreSQL. A rename needs no cache to be told: every load checks
//! the seats' names along with the version.

use sqlx::{PgConnection, Row};
use time::OffsetDateTime;

use super::Store;
use crate::store::players::{stored_session, Name, Renewing, Session, Who};
use crate::store::{now, timestamp, StoreError};

impl Store {
    pub(in crate::store) async fn start_session(
        &self,
        who: Who,
        token_hash: [u8; 32],
        previous: Option<Renewing>,
    ) -> Result<String, StoreError> {
        let at = now();
        let mut tx = self.pool.begin().await?;
        let renewed = match previous {
            Some(previous) => renew(&mut tx, &previous, who == Who::Anonymous, &at).await?,
            None => None,
        };
        let player_id = match (who, renewed) {
            (Who::Anonymous, Some(player)) => player,
            (Who::Anonymous, None) => {
                let id = uuid::Uuid::new_v4().to_string();
                sqlx::query("insert into players (id, name, created_at) values ($1, $2, $3)")
                    .bind(&id)
                    .bind(Name::random_default().into_string())
                    .bind(&at)
                    .execute(&mut *tx)
                    .await?;
                id
            }
            // The unique constraint on `wechat_openid` decides between racing first logins
            // (on any instances): the same openid always maps to the same player.
            (Who::WeChat(openid), _) => {
                sqlx::query(
                    "insert into players (id, wechat_openid, name, created_at) \
                     values ($1, $2, $3, $4) on conflict (wechat_openid) do nothing",
                )
                .bind(uuid::Uuid::new_v4().to_string())
                .bind(&openid)
                .bind(Name::random_default().into_string())
                .bind(&at)
                .execute(&mut *tx)
                .await?;
                sqlx::query_scalar("select id from players where wechat_openid = $1")
                    .bind(&openid)
                    .fetch_one(&mut *tx)
                    .await?
            }
        };
        sqlx::query(
            "insert into sessions (token_hash, player_id, created_at, last_used_at) \
             values ($1, $2, $3, $3)",
        )
        .bind(&token_hash[..])
        .bind(&player_id)
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(player_id)
    }

    pub(in crate::store) async fn name(
        &self,
        player_id: &str,
    ) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("select name from players where id = $1")
            .bind(player_id)
            .fetch_optional(&self.pool)
            .await?)
    }

    pub(in crate::store) async fn rename(
        &self,
        player_id: &str,
        name: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("update players set name = $1 where id = $2")
            .bind(name)
            .bind(player_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    pub(in crate::store) async fn session(
        &self,
        token_hash: &[u8; 32],
    ) -> Result<Option<Session>, StoreError> {
        let row = sqlx::query("select player_id, last_used_at from sessions where token_hash = $1")
            .bind(&token_hash[..])
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| stored_session(r.try_get(0)?, r.try_get(1)?))
            .transpose()
    }

    pub(in crate::store) async fn touch_session(
        &self,
        token_hash: [u8; 32],
        at: OffsetDateTime,
    ) -> Result<(), StoreError> {
        sqlx::query("update sessions set last_used_at = $1 where token_hash = $2")
            .bind(timestamp(at))
            .bind(&token_hash[..])
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub(in crate::store) async fn end_session(
        &self,
        token_hash: [u8; 32],
    ) -> Result<bool, StoreError> {
        let done = sqlx::query("delete from sessions where token_hash = $1")
            .bind(&token_hash[..])
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    pub(in crate::store) async fn sweep_sessions(
        &self,
        before: String,
        renewed_before: String,
    ) -> Result<u64, StoreError> {
        let done = sqlx::query("delete from sessions where last_used_at < $1")
            .bind(&before)
            .execute(&self.pool)
            .await?;
        sqlx::query("delete from session_renewals where renewed_at < $1")
            .bind(&renewed_before)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }
}

/// Ends the previous session; the player it renews for, if any. A session last used recently
/// enough renews its player, and an anonymous renewal is recorded; a session already gone renews
/// for the player a recent renewal of it recorded. Renewals of one token racing on any instances
/// meet at the session's row: the delete of the second waits for the first's transaction, then
/// finds no row, and its next statement (read committed: a fresh snapshot) sees the renewal
/// the first committed.
async fn renew(
    conn: &mut PgConnection,
    previous: &Renewing,
    anonymous: bool,
    at: &str,
) -> Result<Option<String>, StoreError> {
    let ended =
        sqlx::query("delete from sessions where token_hash = $1 returning player_id, last_used_at")
            .bind(&previous.token_hash[..])
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)));
    match ended {
        Some((player, last_used)) if last_used >= previous.renewable_since => {
            if anonymous {
                sqlx::query(
                    "insert into session_renewals (token_hash, player_id, renewed_at) \
                     values ($1, $2, $3) on conflict (token_hash) do update \
                     set player_id = excluded.player_id, renewed_at = excluded.renewed_at",
                )
                .bind(&previous.token_hash[..])
                .bind(&player)
                .bind(at)
                .execute(&mut *conn)
                .await?;
            }
            Ok(Some(player))
        }
        Some(_) => Ok(None),
        None => Ok(sqlx::query_scalar(
            "select player_id from session_renewals where token_hash = $1 and renewed_at >= $2",
        )
        .bind(&previous.token_hash[..])
        .bind(&previous.repeat_since)
        .fetch_optional(&mut *conn)
        .await?),
    }
}
