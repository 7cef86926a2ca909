//! The PostgreSQL backend: the database several server instances share, behind a load balancer
//! without sticky sessions. Its SQL lives here, beside `migrations/postgres/`: [`games`],
//! [`players`], [`presence`], [`analyses`], and the listener of the other instances' news
//! ([`listen`]).
//!
//! No single writer: every write is its own transaction on a pooled connection, and PostgreSQL
//! commits concurrent transactions together itself; only the plain changes of games that one
//! instance makes at the same moment are written together, one statement for the group
//! ([`group`]). What SQLite's single writer gave for free is the database's job here:
//! - a change of a game lands only on the version it was computed from (`update … where version
//!   = $n`; a second writer of the same version waits for the first one's row lock, then finds
//!   the version moved on and changes nothing), and the primary key (game_id, ply) refuses a
//!   second move at one ply whatever happens;
//! - the cap on unfinished games is counted after locking the player's row (`select … for
//!   update`), so two creates for one player, on two instances, count one after the other;
//! - the position cache is only a shortcut past replaying the moves: every load reads the game's
//!   version and seats, and serves the cached game only when both still match;
//! - sessions are read on every request (no instance may believe a session another one ended).
//!
//! Only this process can know what its cache, its rate limiters, its live sockets and its flag
//! timers hold. The sockets hear of other instances' commits through `LISTEN/NOTIFY` (each
//! instance announces its changes of games after committing them, and the others read afresh
//! what they watch when one dies before it could: [`announce`]), every instance arms flag timers
//! for every running clock (the version-guarded write lets one of them end the game), and
//! presence is shared through [`presence`]. A busy database (a row lock held past `--busy-timeout-ms`, which is the
//! connections' `lock_timeout`; no free connection; the server restarting) is
//! [`StoreError::Busy`], 503 at the HTTP edge, as on SQLite.

pub(super) mod analyses;
mod announce;
pub(super) mod games;
mod group;
mod listen;
pub(super) mod players;
mod presence;
pub(super) mod puzzles;
pub(super) mod ratings;
pub(super) mod seeks;

pub(super) use presence::HEARTBEAT;

use std::str::FromStr;
use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::{Shared, StoreError};
use crate::config::Config;

/// Whether a database URL names a PostgreSQL database.
pub fn is_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// PostgreSQL's ways of saying "not now" (SQLSTATE codes): a lock not granted within
/// `lock_timeout` (55P03), a statement cancelled by its timeout (57014), a serialization failure
/// or deadlock (40001, 40P01), the server shutting down or starting (57P01–57P03), too many
/// connections (53300). With a lost connection, all mean the client may retry.
pub fn is_busy(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) => true,
        sqlx::Error::Database(db) => db
            .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
            .is_some_and(|pg| {
                matches!(
                    pg.code(),
                    "55P03" | "57014" | "40001" | "40P01" | "57P01" | "57P02" | "57P03" | "53300"
                )
            }),
        _ => false,
    }
}

/// How long the listener's attempt to connect lasts (it tries again after a pause).
const LISTEN_ACQUIRE: Duration = Duration::from_secs(1);

/// A PostgreSQL database, as one of the instances sharing it.
#[derive(Debug, Clone)]
pub struct Store {
    pool: PgPool,
    /// The listener's own connection (not one of the pool's: it is held for good).
    listen_pool: PgPool,
    /// The announcer's own connection, whose commits do not wait for a flush.
    notify_pool: PgPool,
    /// This instance's announcements of its commits, queued and sent.
    announcer: Arc<announce::Announcer>,
    /// This instance's writer of the plain changes of games, a group at a time.
    group: Arc<group::Group>,
    /// `--busy-timeout-ms`: also how long an answer waits for its announcement.
    busy: Duration,
    /// This instance's id among those sharing the database (random per start).
    instance: Arc<str>,
    /// Presence publications made so far by this instance.
    presence_seq: Arc<AtomicI64>,
    pub(super) shared: Shared,
}

impl Store {
    /// Connects the pool: `--db-max-connections` at most, `--db-min-connections` kept open, each
    /// waiting at most `--busy-timeout-ms` for a row lock and for a free connection.
    pub(super) async fn open(config: &Config) -> Result<Store, sqlx::Error> {
        let busy = config.busy_timeout();
        let instance = uuid::Uuid::new_v4().to_string();
        // Each connection names its instance, so the others can see whether it is still
        // connected (a killed process's connections close at once; its heartbeat ages slowly).
        let options = PgConnectOptions::from_str(&config.database_url)?
            .application_name(&format!("gomoku-server {instance}"))
            .options([("lock_timeout", format!("{}ms", busy.as_millis().max(1)))]);
        // No test of a connection as it is taken from the pool (sqlx's default, a round trip
        // each time, on the path of every request): a broken connection fails the statement
        // itself, which is answered busy and retried like any failure of the database, and the
        // pool then drops it.
        let pool = PgPoolOptions::new()
            .test_before_acquire(false)
            .max_connections(config.db_max_connections)
            .min_connections(config.db_min_connections.min(config.db_max_connections))
            .acquire_timeout(busy.max(Duration::from_millis(100)))
            .connect_with(options.clone())
            .await?;
        // Announcements are not worth a flush: one lost in a crash of the database is made up
        // for by the listeners' reading afresh when they reconnect (see `announce`).
        let notify_pool = PgPoolOptions::new()
            .test_before_acquire(false)
            .max_connections(1)
            .acquire_timeout(busy.max(Duration::from_millis(100)))
            .connect_lazy_with(
                options
                    .clone()
                    .application_name(&format!("gomoku-notifier {instance}"))
                    .options([("synchronous_commit", "off")]),
            );
        let listen_pool = PgPoolOptions::new()
            .max_connections(1)
            // sqlx retries a refused connection with a backoff of up to a fifth of this: a
            // listener whose database went away finds it back within ~200 ms of its return.
            .acquire_timeout(LISTEN_ACQUIRE)
            .connect_lazy_with(options.application_name(&format!("gomoku-listener {instance}")));
        let announcer = Arc::<announce::Announcer>::default();
        tokio::spawn(announce::send(notify_pool.clone(), announcer.clone()));
        let group = Arc::new(group::Group::start(pool.clone()));
        Ok(Store {
            group,
            pool,
            listen_pool,
            notify_pool,
            announcer,
            busy,
            instance: Arc::from(instance),
            presence_seq: Arc::default(),
            shared: Shared::default(),
        })
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("select 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Applies the migrations in `migrations/postgres/`. sqlx holds an advisory lock meanwhile,
    /// so instances starting together migrate one after the other. Then makes this instance's
    /// row in `server_instances` (its first heartbeat), before it serves anything: from its first
    /// commit on, the others can tell when it is gone ([`announce`]).
    pub(super) async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        sqlx::migrate!("./migrations/postgres")
            .run(&self.pool)
            .await?;
        sqlx::query(presence::BEAT)
            .bind(&*self.instance)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Runs statements behind the store's back, on one connection (tests that corrupt data).
    #[cfg(test)]
    pub(super) async fn execute_raw(&self, statements: &[&str]) -> Result<(), sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        for statement in statements {
            sqlx::query(statement).execute(&mut *conn).await?;
        }
        Ok(())
    }

    /// Starts hearing the other instances' news (their commits, their live connections),
    /// watching for instances that die, and beating this instance's heartbeat.
    pub(super) fn listen(&self) {
        tokio::spawn(listen::run(self.clone()));
        tokio::spawn(announce::vigil(self.clone()));
        tokio::spawn(presence::heartbeat(self.clone()));
    }

    /// Sends what is still to be announced, withdraws this instance's presence (the others see
    /// its connections gone at once), then closes the pools.
    pub(super) async fn close(&self) {
        self.announce(std::iter::empty()).await;
        if let Err(e) = self.leave().await {
            tracing::warn!(error = %e, "could not withdraw this instance's presence");
        }
        self.notify_pool.close().await;
        self.announcer.stop();
        self.listen_pool.close().await;
        self.pool.close().await;
    }
}
