//! Players, their display names and their sessions: the operations, each handed to the
//! backend's own SQL. A session row holds only the SHA-256 of its bearer token, and when it was
//! last used (refreshed at most once a day, so that reads stay reads). A new player is named
//! "棋手" and four random digits until they choose a name.
//!
//! Starting a session is one write: it may end the session the client held before (renewing it
//! for the same player when that session is still recent enough), make the player, and record
//! the new session, all in one transaction.

use rand::Rng;
use time::OffsetDateTime;

use super::{Db, StoreError};

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
    match db {
        Db::Sqlite(s) => s.start_session(who, token_hash, previous).await,
        Db::Postgres(p) => p.start_session(who, token_hash, previous).await,
    }
}

/// A player's display name; None if there is no such player.
pub async fn name(db: &Db, player_id: &str) -> Result<Option<String>, StoreError> {
    match db {
        Db::Sqlite(s) => s.name(player_id).await,
        Db::Postgres(p) => p.name(player_id).await,
    }
}

/// Gives a player a new display name (already checked by the caller); false if there is no such
/// player. The next read of any of their games shows the new name.
pub async fn rename(db: &Db, player_id: &str, name: &str) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.rename(player_id, name).await,
        Db::Postgres(p) => p.rename(player_id, name).await,
    }
}

/// The session stored under a token hash.
pub async fn session(db: &Db, token_hash: &[u8; 32]) -> Result<Option<Session>, StoreError> {
    match db {
        Db::Sqlite(s) => s.session(token_hash).await,
        Db::Postgres(p) => p.session(token_hash).await,
    }
}

/// Records that a session is being used now; returns that time.
pub async fn touch_session(db: &Db, token_hash: [u8; 32]) -> Result<OffsetDateTime, StoreError> {
    let at = OffsetDateTime::now_utc();
    match db {
        Db::Sqlite(s) => s.touch_session(token_hash, at).await?,
        Db::Postgres(p) => p.touch_session(token_hash, at).await?,
    }
    Ok(at)
}

/// Ends a session (logout); false if there was none.
pub async fn end_session(db: &Db, token_hash: [u8; 32]) -> Result<bool, StoreError> {
    match db {
        Db::Sqlite(s) => s.end_session(token_hash).await,
        Db::Postgres(p) => p.end_session(token_hash).await,
    }
}

/// Deletes the sessions last used before `before` (stored form): past their idle time and the
/// renewal grace, nothing can use them any more. Returns how many went.
pub async fn sweep_sessions(db: &Db, before: String) -> Result<u64, StoreError> {
    match db {
        Db::Sqlite(s) => s.sweep_sessions(before).await,
        Db::Postgres(p) => p.sweep_sessions(before).await,
    }
}

/// A stored session from its player id and stored last use.
pub(super) fn stored_session(player_id: String, last_used: &str) -> Result<Session, StoreError> {
    let last_used = super::parse_timestamp(last_used).ok_or_else(|| {
        StoreError::Corrupt(format!("session of {player_id}"), "last_used_at".into())
    })?;
    Ok(Session {
        player_id,
        last_used,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::tests::each_backend;

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
        for (db, _keep) in each_backend().await {
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
    }

    /// With WeChat the openid decides the player, and the previous session only ends.
    #[tokio::test]
    async fn wechat_openid_decides() {
        for (db, _keep) in each_backend().await {
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
    }

    /// A new player has a default name of "棋手" and four digits; a new name is stored.
    #[tokio::test]
    async fn names() {
        for (db, _keep) in each_backend().await {
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
}
