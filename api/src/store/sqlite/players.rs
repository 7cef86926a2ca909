//! Players' and sessions' SQL on SQLite, every write through the single writer.

use sqlx::{Row, SqliteConnection};
use time::OffsetDateTime;

use super::Store;
use crate::store::players::{stored_session, Name, Renewing, Session, Who};
use crate::store::writer::OnCommit;
use crate::store::{now, timestamp, StoreError};

impl Store {
    pub(in crate::store) async fn start_session(
        &self,
        who: Who,
        token_hash: [u8; 32],
        previous: Option<Renewing>,
    ) -> Result<String, StoreError> {
        self.writer()
            .write(move |conn| {
                let (who, previous) = (who.clone(), previous.clone());
                Box::pin(async move {
                    let at = now();
                    let renewed = match previous {
                        Some(previous) => {
                            let anonymous = who == Who::Anonymous;
                            renew(&mut *conn, &previous, anonymous, &at).await?
                        }
                        None => None,
                    };
                    let player_id = match (who, renewed) {
                        (Who::Anonymous, Some(player)) => player,
                        (Who::Anonymous, None) => {
                            let id = uuid::Uuid::new_v4().to_string();
                            sqlx::query(
                                "insert into players (id, name, created_at) values (?, ?, ?)",
                            )
                            .bind(&id)
                            .bind(Name::random_default().into_string())
                            .bind(&at)
                            .execute(&mut *conn)
                            .await?;
                            id
                        }
                        // The unique constraint on `wechat_openid` decides between racing first
                        // logins: the same openid always maps to the same player.
                        (Who::WeChat(openid), _) => {
                            sqlx::query(
                                "insert into players (id, wechat_openid, name, created_at) \
                                 values (?, ?, ?, ?) on conflict (wechat_openid) do nothing",
                            )
                            .bind(uuid::Uuid::new_v4().to_string())
                            .bind(&openid)
                            .bind(Name::random_default().into_string())
                            .bind(&at)
                            .execute(&mut *conn)
                            .await?;
                            sqlx::query_scalar("select id from players where wechat_openid = ?")
                                .bind(&openid)
                                .fetch_one(&mut *conn)
                                .await?
                        }
                    };
                    sqlx::query(
                        "insert into sessions (token_hash, player_id, created_at, last_used_at) \
                         values (?, ?, ?, ?)",
                    )
                    .bind(&token_hash[..])
                    .bind(&player_id)
                    .bind(&at)
                    .bind(&at)
                    .execute(&mut *conn)
                    .await?;
                    Ok(player_id)
                })
            })
            .await
    }

    pub(in crate::store) async fn name(
        &self,
        player_id: &str,
    ) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("select name from players where id = ?")
            .bind(player_id)
            .fetch_optional(self.reader())
            .await?)
    }

    /// Renames; the player's games are dropped from the position cache once it is committed,
    /// since the cache is believed without reading the file.
    pub(in crate::store) async fn rename(
        &self,
        player_id: &str,
        name: &str,
    ) -> Result<bool, StoreError> {
        let (player_id, name) = (player_id.to_string(), name.to_string());
        let positions = self.shared.positions.clone();
        let forget: OnCommit<Option<Vec<String>>> = Box::new(move |games| {
            for id in games.iter().flatten() {
                positions.forget(id);
            }
        });
        let games = self
            .writer()
            .write_then(
                move |conn| {
                    let (player_id, name) = (player_id.clone(), name.clone());
                    Box::pin(async move {
                        let done = sqlx::query("update players set name = ? where id = ?")
                            .bind(&name)
                            .bind(&player_id)
                            .execute(&mut *conn)
                            .await?;
                        if done.rows_affected() == 0 {
                            return Ok::<_, StoreError>(None);
                        }
                        let games =
                            sqlx::query_scalar("select game_id from seats where player_id = ?")
                                .bind(&player_id)
                                .fetch_all(&mut *conn)
                                .await?;
                        Ok(Some(games))
                    })
                },
                Some(forget),
            )
            .await?;
        Ok(games.is_some())
    }

    pub(in crate::store) async fn session(
        &self,
        token_hash: &[u8; 32],
    ) -> Result<Option<Session>, StoreError> {
        let row = sqlx::query("select player_id, last_used_at from sessions where token_hash = ?")
            .bind(&token_hash[..])
            .fetch_optional(self.reader())
            .await?;
        row.map(|r| stored_session(r.try_get(0)?, r.try_get(1)?))
            .transpose()
    }

    pub(in crate::store) async fn touch_session(
        &self,
        token_hash: [u8; 32],
        at: OffsetDateTime,
    ) -> Result<(), StoreError> {
        let stored = timestamp(at);
        self.writer()
            .write(move |conn| {
                let stored = stored.clone();
                Box::pin(async move {
                    sqlx::query("update sessions set last_used_at = ? where token_hash = ?")
                        .bind(&stored)
                        .bind(&token_hash[..])
                        .execute(&mut *conn)
                        .await?;
                    Ok::<_, StoreError>(())
                })
            })
            .await
    }

    pub(in crate::store) async fn end_session(
        &self,
        token_hash: [u8; 32],
    ) -> Result<bool, StoreError> {
        self.writer()
            .write(move |conn| {
                Box::pin(async move {
                    let done = sqlx::query("delete from sessions where token_hash = ?")
                        .bind(&token_hash[..])
                        .execute(&mut *conn)
                        .await?;
                    Ok(done.rows_affected() > 0)
                })
            })
            .await
    }

    pub(in crate::store) async fn sweep_sessions(
        &self,
        before: String,
        renewed_before: String,
    ) -> Result<u64, StoreError> {
        self.writer()
            .write(move |conn| {
                let (before, renewed_before) = (before.clone(), renewed_before.clone());
                Box::pin(async move {
                    let done = sqlx::query("delete from sessions where last_used_at < ?")
                        .bind(&before)
                        .execute(&mut *conn)
                        .await?;
                    sqlx::query("delete from session_renewals where renewed_at < ?")
                        .bind(&renewed_before)
                        .execute(&mut *conn)
                        .await?;
                    Ok(done.rows_affected())
                })
            })
            .await
    }
}

/// Ends the previous session; the player it renews for, if any. A session last used recently
/// enough renews its player, and an anonymous renewal is recorded; a session already gone renews
/// for the player a recent renewal of it recorded (writes are serial on SQLite, so a concurrent
/// renewal of the same token has committed or is earlier in this batch).
async fn renew(
    conn: &mut SqliteConnection,
    previous: &Renewing,
    anonymous: bool,
    at: &str,
) -> Result<Option<String>, StoreError> {
    let ended =
        sqlx::query("delete from sessions where token_hash = ? returning player_id, last_used_at")
            .bind(&previous.token_hash[..])
            .fetch_optional(&mut *conn)
            .await?
            .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)));
    match ended {
        Some((player, last_used)) if last_used >= previous.renewable_since => {
            if anonymous {
                sqlx::query(
                    "insert into session_renewals (token_hash, player_id, renewed_at) \
                     values (?, ?, ?)",
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
            "select player_id from session_renewals where token_hash = ? and renewed_at >= ?",
        )
        .bind(&previous.token_hash[..])
        .bind(&previous.repeat_since)
        .fetch_optional(&mut *conn)
        .await?),
    }
}
