//! Players, their display names and their sessions: the operations, each handed to the
//! backend's own SQL. A session row holds only the SHA-256 of its bearer token, and when it was
//! last used (refreshed at most once a day, so that reads stay reads). A new player is named
//! "棋手" and four random digits until they choose a name.
//!
//! A display name is what another player sees, so it must show what it is: [`Name`] is the one
//! rule for every name stored (chosen or default). The character classes come from Unicode's own
//! data (ICU4X), not from a hand list, so they follow the standard as it grows.
//!
//! Starting a session is one write: it may end the session the client held before (renewing it
//! for the same player when that session is still recent enough), make the player, and record
//! the new session, all in one transaction. A renewal leaves the old token's hash in
//! `session_renewals` for [`RENEWAL_REPEATS_FOR`]: a renewal that finds the old session already
//! gone (ended by a concurrent renewal, whose transaction it waited for, or by an earlier try
//! whose answer was lost) finds the player there, so renewing twice at once never makes a new
//! player and strands the games. The old token itself authenticates nothing once renewed.

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::{
    DefaultIgnorableCodePoint, GeneralCategory, GeneralCategoryGroup, VariationSelector,
};
use icu_properties::{CodePointMapData, CodePointSetData};
use rand::Rng;
use time::OffsetDateTime;

use super::{Db, StoreError};

/// How long a renewed token keeps renewing for the same player (each time a new session, the
/// old token authenticating nothing): long enough for concurrent renewals and a client's retry
/// after a lost answer (the mini-program gives up on a request after 60 s), short enough that
/// an old token is soon worth nothing.
pub const RENEWAL_REPEATS_FOR: std::time::Duration = std::time::Duration::from_secs(300);

/// The longest name, in characters (code points of its NFC form), after trimming.
pub const MAX_NAME_CHARS: usize = 16;

/// A display name as stored: NFC, trimmed of white space, 1 to [`MAX_NAME_CHARS`] characters,
/// every one of them visible where it stands. Refused:
/// - characters of General_Category Other (control, format — bidirectional controls, zero-width
///   spaces and joiners, the BOM, tags —, surrogate, private use, unassigned) and the line and
///   paragraph separators (Zl, Zp);
/// - Default_Ignorable_Code_Points (what renders as nothing: those format characters, Hangul
///   fillers, the combining grapheme joiner…), except a variation selector right after a visible
///   character, so that "❤️" (U+2764 U+FE0F, what phone keyboards type) passes while a run of
///   selectors, which can carry hidden bytes, does not;
/// - a combining mark first, which would sit on the text before the name.
///
/// Emoji made of visible characters pass (😀, 👍🏽, 🇨🇳); sequences held together by a zero-width
/// joiner (👨‍👩‍👧) or by tags do not, since those characters can hide between any two letters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name(String);

/// Why a display name is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("the name is empty once spaces and invisible characters are removed")]
    Empty,
    #[error("the name is longer than {MAX_NAME_CHARS} characters")]
    TooLong,
    #[error("the name has an invisible or control character (U+{0:04X})")]
    Invisible(u32),
    #[error("the name starts with a combining mark")]
    StartsWithMark,
}

impl Name {
    /// The name `raw` stands for, or why it may not be shown.
    pub fn parse(raw: &str) -> Result<Name, NameError> {
        let categories = CodePointMapData::<GeneralCategory>::new();
        let ignorable = CodePointSetData::new::<DefaultIgnorableCodePoint>();
        let selector = CodePointSetData::new::<VariationSelector>();
        let normal = ComposingNormalizerBorrowed::new_nfc().normalize(raw);
        let name = normal.trim();
        let invisible = |c: char| {
            let category = categories.get(c);
            GeneralCategoryGroup::Other.contains(category)
                || matches!(
                    category,
                    GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
                )
                || ignorable.contains(c)
        };
        if name.chars().all(|c| c.is_whitespace() || invisible(c)) {
            return Err(NameError::Empty);
        }
        let mut after_visible = false;
        for c in name.chars() {
            let shown = !invisible(c);
            let modifies_the_last = selector.contains(c) && after_visible;
            if !(shown || modifies_the_last) {
                return Err(NameError::Invisible(u32::from(c)));
            }
            after_visible = shown && !c.is_whitespace();
        }
        if name
            .chars()
            .next()
            .is_some_and(|c| GeneralCategoryGroup::Mark.contains(categories.get(c)))
        {
            return Err(NameError::StartsWithMark);
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(NameError::TooLong);
        }
        Ok(Name(name.to_string()))
    }

    /// The name a new player gets: "棋手" and four digits (checked by the same rule).
    pub fn random_default() -> Name {
        let name = format!("棋手{:04}", rand::thread_rng().gen_range(0..10_000));
        Name::parse(&name).expect("the default names are valid")
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
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

/// The previous session as the backends read it: its hash, the oldest last use that may still
/// be renewed, and the oldest renewal that is repeated (stored forms).
#[derive(Debug, Clone)]
pub(super) struct Renewing {
    pub token_hash: [u8; 32],
    pub renewable_since: String,
    pub repeat_since: String,
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
/// session was last used at or after `previous.renewable_since`, or when it was itself renewed
/// less than [`RENEWAL_REPEATS_FOR`] ago (then for the player it was renewed for).
pub async fn start_session(
    db: &Db,
    who: Who,
    token_hash: [u8; 32],
    previous: Option<Previous<'_>>,
) -> Result<String, StoreError> {
    let previous = previous.map(|p| Renewing {
        token_hash: p.token_hash,
        renewable_since: p.renewable_since.to_string(),
        repeat_since: super::ago(RENEWAL_REPEATS_FOR),
    });
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

/// Gives a player a new display name (a [`Name`]'s text); false if there is no such player. The
/// next read of any of their games shows the new name.
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
/// renewal grace, nothing can use them any more. Returns how many went. Renewals older than
/// [`RENEWAL_REPEATS_FOR`] go too.
pub async fn sweep_sessions(db: &Db, before: String) -> Result<u64, StoreError> {
    let renewed_before = super::ago(RENEWAL_REPEATS_FOR);
    match db {
        Db::Sqlite(s) => s.sweep_sessions(before, renewed_before).await,
        Db::Postgres(p) => p.sweep_sessions(before, renewed_before).await,
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

    /// Names are NFC, trimmed, 1 to 16 characters; CJK, Latin with accents and emoji of visible
    /// characters pass; anything that renders as nothing or turns text around is refused.
    #[test]
    fn names_show_what_they_are() {
        let ok = |raw: &str| Name::parse(raw).map(Name::into_string);
        for (raw, stored) in [
            ("小明", "小明"),
            ("  小明 ", "小明"),
            ("\u{3000}小明\u{3000}", "小明"),
            ("김민준", "김민준"),
            ("Zoë", "Zoë"),
            // A combining sequence is stored composed: "e" + U+0301 is "é".
            ("Jose\u{301}", "José"),
            ("a b", "a b"),
            ("😀", "😀"),
            ("👍🏽", "👍🏽"),
            ("🇨🇳", "🇨🇳"),
            ("❤\u{FE0F}", "❤\u{FE0F}"),
            ("棋手0042", "棋手0042"),
        ] {
            assert_eq!(ok(raw).as_deref(), Ok(stored), "{raw:?}");
        }
        assert_eq!(ok(&"棋".repeat(16)), Ok("棋".repeat(16)));
        // 16 characters once composed: the length is counted after NFC.
        assert_eq!(ok(&"e\u{301}".repeat(16)), Ok("é".repeat(16)));
        assert_eq!(ok(&format!("  {}  ", "a".repeat(16))), Ok("a".repeat(16)));

        use NameError::*;
        for (raw, why) in [
            ("", Empty),
            ("   ", Empty),
            ("\u{3000}", Empty),
            ("\u{200B}", Empty),
            ("\u{200B}\u{200D} \u{FEFF}", Empty),
            ("\u{3164}", Empty),
            ("\u{115F}\u{1160}", Empty),
            (&"棋".repeat(17), TooLong),
            (&"a".repeat(17), TooLong),
            ("a\nb", Invisible(0x0A)),
            ("tab\there", Invisible(0x09)),
            ("a\u{7}", Invisible(0x07)),
            ("a\u{85}b", Invisible(0x85)),
            // Right-to-left override: "\u{202E}gnp.exe" shows as "exe.png".
            ("ab\u{202E}cd", Invisible(0x202E)),
            ("\u{202A}ab", Invisible(0x202A)),
            ("ab\u{2066}c\u{2069}", Invisible(0x2066)),
            ("admin\u{200B}", Invisible(0x200B)),
            ("a\u{200C}b", Invisible(0x200C)),
            ("👨\u{200D}👩\u{200D}👧", Invisible(0x200D)),
            ("\u{FEFF}小明", Invisible(0xFEFF)),
            ("a\u{2028}b", Invisible(0x2028)),
            ("a\u{2029}b", Invisible(0x2029)),
            ("a\u{AD}b", Invisible(0xAD)),
            ("a\u{2060}b", Invisible(0x2060)),
            ("a\u{200E}b", Invisible(0x200E)),
            ("a\u{34F}b", Invisible(0x34F)),
            ("🏴\u{E0067}\u{E0062}\u{E007F}", Invisible(0xE0067)),
            ("a\u{E000}", Invisible(0xE000)),
            ("a\u{378}", Invisible(0x378)),
            // Variation selectors only one at a time, right after a visible character.
            ("\u{FE0F}a", Invisible(0xFE0F)),
            ("a \u{FE0F}", Invisible(0xFE0F)),
            ("❤\u{FE0F}\u{FE0F}", Invisible(0xFE0F)),
            ("a\u{E0100}\u{E0101}", Invisible(0xE0101)),
            ("\u{301}abc", StartsWithMark),
        ] {
            assert_eq!(ok(raw), Err(why), "{raw:?}");
        }
        for _ in 0..100 {
            let name = Name::random_default();
            assert_eq!(Name::parse(name.as_str()), Ok(name.clone()));
        }
    }

    fn an_hour_ago() -> String {
        crate::store::ago(std::time::Duration::from_secs(3600))
    }

    /// A recent previous session renews its player, and renewing the same token again within
    /// [`RENEWAL_REPEATS_FOR`] gives that player again (a new session each time); past it, or
    /// from a session last used too long ago, a new player starts. Either way the previous
    /// session ends.
    #[tokio::test]
    async fn renewal_keeps_the_player() {
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

            let third: [u8; 32] = rand::random();
            let again = start_session(&db, Who::Anonymous, third, Some(previous(first)))
                .await
                .unwrap();
            assert_eq!(again, alice, "a renewal repeats for the same player");
            assert_eq!(
                session(&db, &third).await.unwrap().unwrap().player_id,
                alice
            );
            assert_eq!(session(&db, &first).await.unwrap(), None);

            db.execute_raw(&[
                "update session_renewals set renewed_at = '2000-01-01T00:00:00.000000Z'",
            ])
            .await;
            let later = start_session(&db, Who::Anonymous, rand::random(), Some(previous(first)))
                .await
                .unwrap();
            assert_ne!(
                later, alice,
                "past its repeat time a renewed token names nothing"
            );

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

            // The sweep (which also deletes renewals past their repeat time) keeps what is recent.
            sweep_sessions(&db, an_hour_ago()).await.unwrap();
            assert_eq!(
                session(&db, &third).await.unwrap().unwrap().player_id,
                alice
            );
        }
    }

    /// Twenty renewals of one token at once all get its player (none makes a new player and
    /// strands the games), and the old token authenticates nothing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_renewals_keep_the_player() {
        for (db, _keep) in each_backend().await {
            let first: [u8; 32] = rand::random();
            let alice = start_session(&db, Who::Anonymous, first, None)
                .await
                .unwrap();
            let renewals: Vec<_> = (0..20)
                .map(|_| {
                    let db = db.clone();
                    tokio::spawn(async move {
                        let since = an_hour_ago();
                        let previous = Previous {
                            token_hash: first,
                            renewable_since: &since,
                        };
                        start_session(&db, Who::Anonymous, rand::random(), Some(previous)).await
                    })
                })
                .collect();
            for renewal in renewals {
                assert_eq!(renewal.await.unwrap().unwrap(), alice);
            }
            assert_eq!(session(&db, &first).await.unwrap(), None);
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
