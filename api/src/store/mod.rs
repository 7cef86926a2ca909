//! Storage: SQLite or PostgreSQL through sqlx. Maps rows to the rules' types and knows nothing of
//! HTTP.
//!
//! The handlers call one small interface: the operations of [`games`], [`players`] and
//! [`presence`] on a [`Db`]. A `Db` is an enum over the two backends' own stores, and each
//! operation is one `match` that hands the call to the backend's module, where its SQL lives
//! ([`sqlite`], [`postgres`], each beside its migrations in `migrations/sqlite/` and
//! `migrations/postgres/`). An enum rather than a trait object: the set of backends is closed and
//! known here, the operations are async (a trait object would box every future and every
//! result type), and the compiler checks that each operation covers both backends. What is
//! neither backend's (the model types, row mapping, the position cache, the change a write makes)
//! is written once, above them. No sqlx type crosses out of this module.
//!
//! - SQLite (`sqlite://…`, the default): one process owns the file. Reads go through a pool of
//!   several connections (WAL lets readers run beside the writer); writes go through [`writer`]:
//!   one connection, owned by one task, committing the writes that wait at the same moment in
//!   one transaction (group commit). Its position cache is the truth, since nothing else writes.
//! - PostgreSQL (`postgres://…`): any number of server instances share the database. Every write
//!   is its own transaction, guarded by the game's version and the database's keys; the position
//!   cache is checked against the stored version on every load; the news of other instances'
//!   commits arrives through `LISTEN/NOTIFY`.
//!
//! The operations are grouped by what they store: [`players`] (players and sessions), [`games`]
//! (games, their moves and seats), [`presence`] (who is connected to a game) and [`analyses`]
//! (post-game analyses and their analysed moves).
//!
//! What else must hear of a committed change (the live hub, the clock timers) registers a
//! [`Watch`]: it hears of every change and deletion of a game this process commits, right after
//! the commit and before the request that made it is answered, and, on PostgreSQL, of what the
//! other instances commit. [`backup`] copies a SQLite database without opening it for writing.

pub mod analyses;
pub mod backup;
pub mod games;
pub mod players;
pub mod postgres;
pub mod presence;
pub mod ratings;
pub mod seeks;
pub mod sqlite;
pub mod writer;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::config::Config;
use games::cache::PositionCache;
use games::StoredGame;
pub use presence::{Presence, PresenceNews};
pub use sqlite::in_memory;
use writer::WriteFailed;

/// Failures of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sql(sqlx::Error),
    /// The database could not take the request in time: another process held SQLite's write
    /// lock, or a PostgreSQL row lock, past the busy timeout; no connection was free; or the
    /// PostgreSQL server is unreachable or restarting. Worth retrying.
    #[error("the database is busy")]
    Busy,
    /// The writer could not carry out this write: its batch failed as a whole (or panicked), a
    /// commit hook panicked, or the write was malformed.
    #[error("write batch failed: {0}")]
    Batch(String),
    /// Stored data the rules refuse, or a stored name no type knows (a correct server never
    /// writes it; it would mean the data was edited by hand or by a newer version).
    #[error("stored row {0} is inconsistent: {1}")]
    Corrupt(String, String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        if sqlite::is_busy(&e) || postgres::is_busy(&e) {
            StoreError::Busy
        } else {
            StoreError::Sql(e)
        }
    }
}

impl From<WriteFailed> for StoreError {
    fn from(e: WriteFailed) -> StoreError {
        match e {
            WriteFailed::Busy => StoreError::Busy,
            WriteFailed::Batch(why) => StoreError::Batch(why),
        }
    }
}

impl StoreError {
    /// A unique or primary key refused the write: another writer got there first.
    fn is_unique_violation(&self) -> bool {
        matches!(self, StoreError::Sql(e) if e
            .as_database_error()
            .is_some_and(|d| d.is_unique_violation()))
    }
}

/// Another server instance committed a change of a game (PostgreSQL only): its id, its version
/// now, and when it next needs its timer (its running clock's flag falls, or a pending offer
/// lapses: [`GameRow::due`](games::GameRow::due)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameNews {
    pub id: String,
    pub version: i64,
    pub deadline: Option<OffsetDateTime>,
}

/// Hears of every committed change to a game. Called right after the commit (in the SQLite
/// writer's task, in commit order; on PostgreSQL in the committing request's task) and before
/// the caller is answered, or from the listener of other instances' news, so it must neither
/// block nor await: hand the news on (a broadcast send, a spawned task) and return. A watcher
/// must take each game's versions as they come, newest wins: on PostgreSQL two commits of one
/// game may be heard in either order (once directly, once through the listener).
pub trait Watch: Send + Sync {
    /// `game` as it now is.
    fn changed(&self, game: &Arc<StoredGame>);
    /// Game `id` was deleted.
    fn deleted(&self, id: &str);
    /// Another instance committed a change of a game (its `NOTIFY`, after the commit).
    fn heard(&self, _news: &GameNews) {}
    /// Another instance's live connections to a game changed.
    fn presence_heard(&self, _news: &PresenceNews) {}
    /// News from other instances may have been lost (the listener reconnected, or an instance
    /// died before announcing what it had committed): whatever was learned from them is to be
    /// read again from the database, and every live socket sent a fresh state.
    fn missed(&self) {}
    /// Time to read the other instances' presence again (every heartbeat): an instance that
    /// stopped beating is gone, with its connections.
    fn recheck_presence(&self) {}
    /// News for one player's own live channel, from this instance or another
    /// ([`seeks::tell`]).
    fn player_heard(&self, _news: &seeks::PlayerNews) {}
}

/// The watchers of a database, set once (at start, before serving); shared by every clone.
#[derive(Clone, Default)]
pub struct Watchers(Arc<OnceLock<Vec<Arc<dyn Watch>>>>);

impl Watchers {
    fn all(&self) -> &[Arc<dyn Watch>] {
        self.0.get().map_or(&[], Vec::as_slice)
    }

    pub(crate) fn changed(&self, game: &Arc<StoredGame>) {
        for watch in self.all() {
            watch.changed(game);
        }
    }

    pub(crate) fn deleted(&self, id: &str) {
        for watch in self.all() {
            watch.deleted(id);
        }
    }

    fn heard(&self, news: &GameNews) {
        for watch in self.all() {
            watch.heard(news);
        }
    }

    fn presence_heard(&self, news: &PresenceNews) {
        for watch in self.all() {
            watch.presence_heard(news);
        }
    }

    fn missed(&self) {
        for watch in self.all() {
            watch.missed();
        }
    }

    fn recheck_presence(&self) {
        for watch in self.all() {
            watch.recheck_presence();
        }
    }

    fn player_heard(&self, news: &seeks::PlayerNews) {
        for watch in self.all() {
            watch.player_heard(news);
        }
    }
}

impl std::fmt::Debug for Watchers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Watchers({})", self.all().len())
    }
}

/// What both backends' stores hold besides their connections.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shared {
    pub(crate) positions: Arc<PositionCache>,
    pub(crate) watchers: Watchers,
}

/// The database, on one backend or the other. Cheap to clone.
#[derive(Debug, Clone)]
pub enum Db {
    Sqlite(sqlite::Store),
    Postgres(postgres::Store),
}

impl Db {
    /// Opens the database named by the config: a SQLite file (created if missing) for a
    /// `sqlite:` URL, a PostgreSQL database for a `postgres://` or `postgresql://` one.
    pub async fn open(config: &Config) -> Result<Db, sqlx::Error> {
        if postgres::is_url(&config.database_url) {
            Ok(Db::Postgres(postgres::Store::open(config).await?))
        } else {
            Ok(Db::Sqlite(sqlite::Store::open(config).await?))
        }
    }

    /// Registers what must hear of every committed change from now on, and on PostgreSQL starts
    /// listening to the other instances' news. Once per database: a second call changes nothing
    /// and returns false.
    pub fn watch(&self, watchers: Vec<Arc<dyn Watch>>) -> bool {
        if self.shared().watchers.0.set(watchers).is_err() {
            return false;
        }
        if let Db::Postgres(pg) = self {
            pg.listen();
        }
        true
    }

    /// Whether the database answers (for the health check).
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self {
            Db::Sqlite(s) => s.ping().await,
            Db::Postgres(p) => p.ping().await,
        }
    }

    /// Applies the migrations of the backend (`migrations/sqlite/` or `migrations/postgres/`)
    /// that this database has not seen yet. Runs at start, before any request.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        match self {
            Db::Sqlite(s) => s.migrate().await,
            Db::Postgres(p) => p.migrate().await,
        }
    }

    /// How long a session read from the database may be believed before it is read again. On
    /// SQLite this process is the only one that can end a session, and it drops an ended one
    /// from its cache at once, so a minute is safe; on PostgreSQL any instance may end a session
    /// at any time, so none is believed without reading it (one lookup by primary key).
    pub fn session_recheck(&self) -> Duration {
        match self {
            Db::Sqlite(_) => sqlite::SESSION_RECHECK,
            Db::Postgres(_) => Duration::ZERO,
        }
    }

    /// Closes the connections, letting in-flight statements finish; on PostgreSQL this
    /// instance's presence goes first, so the others see its connections gone at once.
    pub async fn close(&self) {
        match self {
            Db::Sqlite(s) => s.close().await,
            Db::Postgres(p) => p.close().await,
        }
    }

    fn shared(&self) -> &Shared {
        match self {
            Db::Sqlite(s) => &s.shared,
            Db::Postgres(p) => &p.shared,
        }
    }

    /// Games as last committed or loaded, with their rebuilt positions.
    fn positions(&self) -> &Arc<PositionCache> {
        &self.shared().positions
    }
}

/// The current time as stored: RFC 3339 in UTC with exactly six fractional digits, so that
/// text order is time order (listings sort on it).
pub fn now() -> String {
    timestamp(OffsetDateTime::now_utc())
}

/// The current time at the precision it is stored with (microseconds), so that a time kept in
/// memory equals the same time read back.
pub fn now_exact() -> OffsetDateTime {
    let t = OffsetDateTime::now_utc();
    t.replace_nanosecond(t.microsecond() * 1_000).unwrap_or(t)
}

/// A time in the stored form.
pub fn timestamp(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.microsecond()
    )
}

/// The stored form of the time `age` ago, to compare stored timestamps with as text.
pub fn ago(age: Duration) -> String {
    let age = time::Duration::try_from(age).unwrap_or(time::Duration::MAX);
    let then = OffsetDateTime::now_utc()
        .checked_sub(age)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    timestamp(then)
}

/// A stored time read back; None unless `s` is exactly as [`timestamp`] writes it.
pub fn parse_timestamp(s: &str) -> Option<OffsetDateTime> {
    let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
    (s.len() == 27 && timestamp(t) == s).then_some(t)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A migrated SQLite database in a file of `dir`.
    pub(crate) async fn db_in(dir: &tempfile::TempDir) -> Db {
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        migrated(&url).await
    }

    /// The database at `url`, migrated.
    pub(crate) async fn migrated(url: &str) -> Db {
        let db = Db::open(&Config::for_database(url)).await.unwrap();
        db.migrate().await.unwrap();
        db
    }

    /// What keeps a test database alive: its folder, or its PostgreSQL database.
    pub(crate) enum Keep {
        Folder(#[allow(dead_code)] tempfile::TempDir),
        Postgres(#[allow(dead_code)] gomoku_testkit::postgres::PgDatabase),
    }

    /// A migrated database on each backend the tests can reach: SQLite always, PostgreSQL when
    /// `GOMOKU_TEST_DATABASE` names a cluster (`scripts/test.sh` starts one).
    pub(crate) async fn each_backend() -> Vec<(Db, Keep)> {
        let dir = tempfile::tempdir().unwrap();
        let mut dbs = vec![(db_in(&dir).await, Keep::Folder(dir))];
        match gomoku_testkit::postgres::cluster() {
            Some(cluster) => {
                let pg = gomoku_testkit::postgres::PgDatabase::create(&cluster);
                dbs.push((migrated(pg.url()).await, Keep::Postgres(pg)));
            }
            None => eprintln!("PostgreSQL not tested: GOMOKU_TEST_DATABASE names no cluster"),
        }
        dbs
    }

    /// Two stores on one new, migrated PostgreSQL database, as two server instances have (the
    /// tests that need this are ignored without a cluster); the third value keeps it alive.
    pub(crate) async fn two_stores_on_postgres() -> (Db, Db, gomoku_testkit::postgres::PgDatabase) {
        let cluster = gomoku_testkit::postgres::required_cluster();
        let database = gomoku_testkit::postgres::PgDatabase::create(&cluster);
        let config = Config::for_database(database.url());
        let (a, b) = (
            Db::open(&config).await.unwrap(),
            Db::open(&config).await.unwrap(),
        );
        a.migrate().await.unwrap();
        (a, b, database)
    }

    impl Db {
        /// Runs statements behind the store's back (tests that corrupt data).
        pub(crate) async fn execute_raw(&self, statements: &[&str]) {
            match self {
                Db::Sqlite(s) => s.execute_raw(statements).await,
                Db::Postgres(p) => p.execute_raw(statements).await,
            }
            .unwrap()
        }
    }

    /// Stored timestamps have a fixed width, parse as RFC 3339, and sort as text in time order.
    #[test]
    fn timestamps_sort_as_text() {
        let a = timestamp(
            OffsetDateTime::from_unix_timestamp_nanos(1_000_000_000_000_000_000).unwrap(),
        );
        let b = timestamp(
            OffsetDateTime::from_unix_timestamp_nanos(1_000_000_000_000_001_000).unwrap(),
        );
        assert_eq!(a.len(), 27);
        assert!(a < b);
        assert!(parse_timestamp(&a).is_some() && parse_timestamp(&now()).is_some());
        assert!(parse_timestamp("2026-01-01T00:00:00Z").is_none());
        assert!(parse_timestamp("garbage").is_none());
    }

    /// A time in the past sorts before now, and a huge age stops at the epoch.
    #[test]
    fn ago_is_before_now() {
        let day = ago(Duration::from_secs(86_400));
        assert!(parse_timestamp(&day).is_some() && day < now());
        assert_eq!(ago(Duration::MAX), "1970-01-01T00:00:00.000000Z");
    }
}
