//! Players and their sessions. A session row holds only the SHA-256 of its bearer token.

use sqlx::Row;

use super::{now, Db, StoreError};

/// Makes a new anonymous player; returns its id.
pub async fn create_anonymous(db: &Db) -> Result<String, StoreError> {
    let id = uuid::Uuid::new_v4().to_string();
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                sqlx::query("insert into players (id, created_at) values (?, ?)")
                    .bind(&id)
                    .bind(now())
                    .execute(&mut *conn)
                    .await?;
                Ok(id)
            })
        })
        .await
}

/// The player behind a WeChat openid, made on first sight: the same openid always maps to the
/// same player (the unique constraint on `wechat_openid` decides between racing first logins).
pub async fn find_or_create_wechat(db: &Db, openid: &str) -> Result<String, StoreError> {
    let openid = openid.to_string();
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                sqlx::query(
                    "insert into players (id, wechat_openid, created_at) values (?, ?, ?) \
                 on conflict (wechat_openid) do nothing",
                )
                .bind(uuid::Uuid::new_v4().to_string())
                .bind(&openid)
                .bind(now())
                .execute(&mut *conn)
                .await?;
                let id: String =
                    sqlx::query_scalar("select id from players where wechat_openid = ?")
                        .bind(&openid)
                        .fetch_one(&mut *conn)
                        .await?;
                Ok(id)
            })
        })
        .await
}

/// Records a session for `player_id` under the hash of its token.
pub async fn create_session(
    db: &Db,
    player_id: &str,
    token_hash: &[u8; 32],
) -> Result<(), StoreError> {
    let (player_id, token_hash) = (player_id.to_string(), *token_hash);
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                sqlx::query(
                    "insert into sessions (token_hash, player_id, created_at) values (?, ?, ?)",
                )
                .bind(&token_hash[..])
                .bind(&player_id)
                .bind(now())
                .execute(&mut *conn)
                .await?;
                Ok(())
            })
        })
        .await
}

/// The session row found by a token hash: the stored hash (for the constant-time comparison
/// the caller makes) and the player id.
pub async fn session_by_hash(
    db: &Db,
    token_hash: &[u8; 32],
) -> Result<Option<(Vec<u8>, String)>, sqlx::Error> {
    let row = sqlx::query("select token_hash, player_id from sessions where token_hash = ?")
        .bind(&token_hash[..])
        .fetch_optional(db.reader())
        .await?;
    Ok(row.map(|r| (r.get::<Vec<u8>, _>(0), r.get::<String, _>(1))))
}
