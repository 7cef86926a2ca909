//! Players, their display names and their sessions. A session row holds only the SHA-256 of its
//! bearer token, and when it was last used (refreshed at most once a day, so that reads stay
//! reads). A new player is named "棋手" and four random digits until they choose a name.
//!
//! Starting a session is one write: it may end the session the client held before (renewing it
//! for the same player when that session is still recent enough), make the player, and record
//! the new session, all in one transaction.

use rand::Rng;
use sqlx::Row;
use time::OffsetDateTime;

use super::writer::OnCommit;
use super::{now, parse_timestamp, timestamp, Db, StoreError};

/// The name a new player gets: "棋手" and four digits.
pub fn default_name() -> String {
    format!("棋手{:04}", rand::thread_rng().gen_range(0..10_000))
}

/// Who a new session is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    /// The player of the previous session, if it may be renewed; else a new anonymous player.
    Anonymous,
    /// The player behind this WeChat openid, made on first sight (the previous session, if any,
    /// is only ended).
    WeChat(String),
}

/// The session a client held before, named when it asks for a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Previous<'a> {
    pub token_hash: [u8; 32],
    /// Sessions last used at or after this time (stored form) may be renewed.
    pub renewable_since: &'a str,
}

/// A stored session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub player_id: String,
    /// When it was last used (at most a day behind the truth).
    pub last_used: OffsetDateTime,
}

/// Records a new session under `token_hash` for `who`, ending `previous` if it names a session;
/// returns the player's id. An anonymous session renews the previous one's player when that
/// session was last used at or after `previous.renewable_since`; a session renews once, since
/// it ends here.
pub async fn start_session(
    db: &Db,
    who: Who,
    token_hash: [u8; 32],
    previous: Option<Previous<'_>>,
) -> Result<String, StoreError> {
    let previous = previous.map(|p| (p.token_hash, p.renewable_since.to_string()));
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                let at = now();
                let mut renewed = None;
                if let Some((hash, since)) = previous {
                    let ended = sqlx::query(
                        "delete from sessions where token_hash = ? \
                         returning player_id, last_used_at",
                    )
                    .bind(&hash[..])
                    .fetch_optional(&mut *conn)
                    .await?;
                    renewed = ended
                        .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1)))
                        .filter(|(_, last_used)| *last_used >= since)
                        .map(|(player, _)| player);
                }
                let player_id = match (who, renewed) {
                    (Who::Anonymous, Some(player)) => player,
                    (Who::Anonymous, None) => {
                        let id = uuid::Uuid::new_v4().to_string();
                        sqlx::query("insert into players (id, name, created_at) values (?, ?, ?)")
                            .bind(&id)
                            .bind(default_name())
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
                        .bind(default_name())
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

/// A player's display name; None if there is no such player.
pub async fn name(db: &Db, player_id: &str) -> Result<Option<String>, StoreError> {
    Ok(sqlx::query_scalar("select name from players where id = ?")
        .bind(player_id)
        .fetch_optional(db.reader())
        .await?)
}

/// Gives a player a new display name (already checked by the caller); false if there is no such
/// player. Their games are dropped from the position cache once it is committed, so the next
/// read shows the new name.
pub async fn rename(db: &Db, player_id: &str, name: &str) -> Result<bool, StoreError> {
    let (player_id, name) = (player_id.to_string(), name.to_string());
    let positions = db.positions().clone();
    let forget: OnCommit<Option<Vec<String>>> = Box::new(move |games| {
        for id in games.iter().flatten() {
            positions.forget(id);
        }
    });
    let games = db
        .writer()
        .write_then(
            move |conn| {
                Box::pin(async move {
                    let done = sqlx::query("update players set name = ? where id = ?")
                        .bind(&name)
                        .bind(&player_id)
                        .execute(&mut *conn)
                        .await?;
                    if done.rows_affected() == 0 {
                        return Ok::<_, StoreError>(None);
                    }
                    let games = sqlx::query_scalar("select game_id from seats where player_id = ?")
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

/// The session stored under a token hash.
pub async fn session(db: &Db, token_hash: &[u8; 32]) -> Result<Option<Session>, StoreError> {
    let row = sqlx::query("select player_id, last_used_at from sessions where token_hash = ?")
        .bind(&token_hash[..])
        .fetch_optional(db.reader())
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let player_id: String = row.try_get(0)?;
    let last_used = parse_timestamp(row.try_get(1)?).ok_or_else(|| {
        StoreError::Corrupt(format!("session of {player_id}"), "last_used_at".into())
    })?;
    Ok(Some(Session {
        player_id,
        last_used,
    }))
}

/// Records that a session is being used now; returns that time.
pub async fn touch_session(db: &Db, token_hash: [u8; 32]) -> Result<OffsetDateTime, StoreError> {
    let at = OffsetDateTime::now_utc();
    let stored = timestamp(at);
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                sqlx::query("update sessions set last_used_at = ? where token_hash = ?")
                    .bind(&stored)
                    .bind(&token_hash[..])
                    .execute(&mut *conn)
                    .await?;
                Ok::<_, StoreError>(())
            })
        })
        .await?;
    Ok(at)
}

/// Ends a session (logout); false if there was none.
pub async fn end_session(db: &Db, token_hash: [u8; 32]) -> Result<bool, StoreError> {
    db.writer()
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

/// Deletes the sessions last used before `before` (stored form): past their idle time and the
/// renewal grace, nothing can use them any more. Returns how many went.
pub async fn sweep_sessions(db: &Db, before: String) -> Result<u64, StoreError> {
    db.writer()
        .write(move |conn| {
            Box::pin(async move {
                let done = sqlx::query("delete from sessions where last_used_at < ?")
                    .bind(&before)
                    .execute(&mut *conn)
                    .await?;
                Ok(done.rows_affected())
            })
        })
        .await
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::tests::db_in;

    /// A new anonymous player's id, by way of a session.
    pub(crate) async fn anonymous(db: &Db) -> String {
        start_session(db, Who::Anonymous, rand::random(), None)
            .await
            .unwrap()
    }

    fn an_hour_ago() -> String {
        crate::store::ago(std::time::Duration::from_secs(3600))
    }

    /// A recent previous session renews its player once; an old one, an unknown one or a second
    /// renewal gives a new player. Either way the previous session ends.
    #[tokio::test]
    async fn renewal_keeps_the_player_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let first: [u8; 32] = rand::random();
        let alice = start_session(&db, Who::Anonymous, first, None)
            .await
            .unwrap();
        let since = an_hour_ago();
        let previous = |hash| Previous {
            token_hash: hash,
            renewable_since: &since,
        };

        let second: [u8; 32] = rand::random();
        let renewed = start_session(&db, Who::Anonymous, second, Some(previous(first)))
            .await
            .unwrap();
        assert_eq!(renewed, alice);
        assert_eq!(session(&db, &first).await.unwrap(), None);

        let again = start_session(&db, Who::Anonymous, rand::random(), Some(previous(first)))
            .await
            .unwrap();
        assert_ne!(again, alice, "a token renews once");

        // Last used before the renewal window: ended, but not renewed.
        let future = crate::store::ago(std::time::Duration::ZERO);
        let late = Previous {
            token_hash: second,
            renewable_since: &future,
        };
        let fresh = start_session(&db, Who::Anonymous, rand::random(), Some(late))
            .await
            .unwrap();
        assert_ne!(fresh, alice);
        assert_eq!(session(&db, &second).await.unwrap(), None);
    }

    /// With WeChat the openid decides the player, and the previous session only ends.
    #[tokio::test]
    async fn wechat_openid_decides() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let anonymous: [u8; 32] = rand::random();
        let someone = start_session(&db, Who::Anonymous, anonymous, None)
            .await
            .unwrap();
        let since = an_hour_ago();
        let a = start_session(
            &db,
            Who::WeChat("o1".into()),
            rand::random(),
            Some(Previous {
                token_hash: anonymous,
                renewable_since: &since,
            }),
        )
        .await
        .unwrap();
        let b = start_session(&db, Who::WeChat("o1".into()), rand::random(), None)
            .await
            .unwrap();
        assert_eq!(a, b);
        assert_ne!(a, someone);
        assert_eq!(session(&db, &anonymous).await.unwrap(), None);
    }

    /// A new player has a default name of "棋手" and four digits; a new name is stored.
    #[tokio::test]
    async fn names() {
        let dir = tempfile::tempdir().unwrap();
        let db = db_in(&dir).await;
        let alice = anonymous(&db).await;
        let first = name(&db, &alice).await.unwrap().unwrap();
        let digits = first.strip_prefix("棋手").expect("default name");
        assert!(digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()));
        assert!(rename(&db, &alice, "小明").await.unwrap());
        assert_eq!(name(&db, &alice).await.unwrap().as_deref(), Some("小明"));
        assert!(!rename(&db, "nobody", "x").await.unwrap());
        assert_eq!(name(&db, "nobody").await.unwrap(), None);
    }
}
