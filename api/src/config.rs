//! Command line and environment configuration of `gomoku-server`.
//!
//! Every flag has an environment variable of the same meaning, so the server can be configured
//! either way (the flag wins when both are given). With no subcommand the server serves; the
//! `backup <path>` subcommand writes a consistent copy of the database and exits.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::ai::AnalysisBudget;

/// `gomoku-server`: the Gomoku game service.
#[derive(Debug, Parser)]
#[command(name = "gomoku-server", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub config: Config,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a consistent copy of the SQLite database to PATH (`VACUUM INTO`) and exit. The
    /// database is opened read-only: never created, never migrated. Exits 2 when the database
    /// file or the target's folder is missing, or the target exists, and for a PostgreSQL
    /// database (back it up with PostgreSQL's own `pg_dump`).
    Backup {
        /// Where to write the copy; must not exist yet.
        path: PathBuf,
    },
}

/// How hard SQLite works to make a commit durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Synchronous {
    /// Every commit is synced to disk: nothing acknowledged is lost on a power cut.
    Full,
    /// Commits survive a crash of the process but may be lost on a power cut (WAL mode).
    Normal,
}

/// The server's settings. Flags are global so they may follow the subcommand too.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// Address to listen on (port 0 picks a free port).
    #[arg(
        long,
        env = "GOMOKU_ADDR",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    pub addr: SocketAddr,

    /// The database: `sqlite://<file>` (created if missing; `sqlite::memory:` keeps everything
    /// in memory until the server stops, for quick trials), or `postgres://…` for a PostgreSQL
    /// database that several server instances may share.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://gomoku.db",
        global = true
    )]
    pub database_url: String,

    /// WeChat mini-program app id; with the secret, session codes are exchanged with WeChat.
    #[arg(long, env = "WECHAT_APPID", global = true)]
    pub wechat_appid: Option<String>,

    /// WeChat mini-program app secret.
    #[arg(long, env = "WECHAT_SECRET", global = true, hide_env_values = true)]
    pub wechat_secret: Option<String>,

    /// Base URL of the WeChat API (a test points it at a local fake).
    #[arg(
        long,
        env = "WECHAT_API_BASE",
        default_value = "https://api.weixin.qq.com",
        global = true
    )]
    pub wechat_api_base: String,

    /// Most connections to the database: on PostgreSQL the instance's whole pool (its listener
    /// has one more of its own); on SQLite the readers (the writer has one more of its own).
    #[arg(
        long,
        env = "GOMOKU_DB_MAX_CONNECTIONS",
        default_value_t = 8,
        value_parser = clap::value_parser!(u32).range(1..=1000),
        global = true
    )]
    pub db_max_connections: u32,

    /// PostgreSQL connections kept open even when idle, so that a burst does not wait for new
    /// ones (SQLite opens its connections as needed).
    #[arg(
        long,
        env = "GOMOKU_DB_MIN_CONNECTIONS",
        default_value_t = 1,
        global = true
    )]
    pub db_min_connections: u32,

    /// SQLite `synchronous` setting (PostgreSQL's durability is its own `synchronous_commit`).
    #[arg(
        long,
        env = "GOMOKU_SYNCHRONOUS",
        value_enum,
        default_value = "full",
        global = true
    )]
    pub synchronous: Synchronous,

    /// How long a write waits for a database held by another writer (on PostgreSQL: for a row
    /// lock, or for a free connection) before 503 BUSY.
    #[arg(
        long,
        env = "GOMOKU_BUSY_TIMEOUT_MS",
        default_value_t = 5000,
        global = true
    )]
    pub busy_timeout_ms: u64,

    /// Writes per second allowed per token (0 disables the limit).
    #[arg(
        long,
        env = "GOMOKU_WRITE_RATE_LIMIT",
        default_value_t = 20,
        global = true
    )]
    pub write_rate_limit: u32,

    /// Writes a token may make in a burst above the steady rate.
    #[arg(long, env = "GOMOKU_WRITE_BURST", default_value_t = 60, global = true)]
    pub write_burst: u32,

    /// Hints per minute allowed per token (0 disables the limit).
    #[arg(
        long,
        env = "GOMOKU_HINTS_PER_MINUTE",
        default_value_t = 10,
        global = true
    )]
    pub hints_per_minute: u32,

    /// Hints a token may ask for in a burst above the steady rate.
    #[arg(long, env = "GOMOKU_HINT_BURST", default_value_t = 5, global = true)]
    pub hint_burst: u32,

    /// New sessions per minute allowed per client address (0 disables the limit).
    #[arg(
        long,
        env = "GOMOKU_SESSIONS_PER_MINUTE",
        default_value_t = 30,
        global = true
    )]
    pub sessions_per_minute: u32,

    /// New sessions a client address may start in a burst above the steady rate.
    #[arg(
        long,
        env = "GOMOKU_SESSION_BURST",
        default_value_t = 30,
        global = true
    )]
    pub session_burst: u32,

    /// Take the client's address from the first entry of `X-Forwarded-For` (only behind a proxy
    /// that sets that header itself).
    #[arg(long, env = "GOMOKU_TRUST_FORWARDED_FOR", global = true)]
    pub trust_forwarded_for: bool,

    /// Days a session may go unused before it expires (401 SESSION_EXPIRED).
    #[arg(
        long,
        env = "GOMOKU_SESSION_IDLE_DAYS",
        default_value_t = 180,
        value_parser = clap::value_parser!(u32).range(1..=36_500),
        global = true
    )]
    pub session_idle_days: u32,

    /// Days after expiry during which `previousToken` still renews a session for its player.
    #[arg(
        long,
        env = "GOMOKU_SESSION_RENEW_GRACE_DAYS",
        default_value_t = 30,
        value_parser = clap::value_parser!(u32).range(0..=36_500),
        global = true
    )]
    pub session_renew_grace_days: u32,

    /// Games a player may have in status `playing` at once.
    #[arg(
        long,
        env = "GOMOKU_MAX_UNFINISHED_GAMES",
        default_value_t = 100,
        global = true
    )]
    pub max_unfinished_games: u32,

    /// AI searches running at once (default: the number of cores); one short search (300 ms
    /// or less: every level but master, hints) may run beyond it.
    #[arg(long, env = "GOMOKU_AI_CONCURRENCY", global = true)]
    pub ai_concurrency: Option<usize>,

    /// How long a request waits for its turn in the AI queue before 503 AI_BUSY.
    #[arg(
        long,
        env = "GOMOKU_AI_QUEUE_TIMEOUT_MS",
        default_value_t = 10_000,
        global = true
    )]
    pub ai_queue_timeout_ms: u64,

    /// Thinking time of the `master` level.
    #[arg(
        long,
        env = "GOMOKU_AI_MASTER_MS",
        default_value_t = 2000,
        global = true
    )]
    pub ai_master_ms: u64,

    /// Thinking time of one move of a post-game analysis (three master searches and the threat
    /// checks share it).
    #[arg(
        long,
        env = "GOMOKU_ANALYSIS_MOVE_MS",
        default_value_t = 400,
        value_parser = clap::value_parser!(u64).range(10..=60_000),
        global = true
    )]
    pub analysis_move_ms: u64,

    /// Node limit of each search of an analysed move, for reproducible analyses (tests); unset,
    /// only the time counts.
    #[arg(
        long,
        env = "GOMOKU_ANALYSIS_NODE_LIMIT",
        value_parser = clap::value_parser!(u64).range(1..),
        global = true
    )]
    pub analysis_node_limit: Option<u64>,

    /// Live connections (`GET /games/{id}/live`) one token may hold at once.
    #[arg(
        long,
        env = "GOMOKU_LIVE_CONNECTIONS_PER_TOKEN",
        default_value_t = 8,
        value_parser = clap::value_parser!(u16).range(1..),
        global = true
    )]
    pub live_connections_per_token: u16,

    /// How often a live connection is pinged.
    #[arg(
        long,
        env = "GOMOKU_LIVE_PING_MS",
        default_value_t = 20_000,
        value_parser = clap::value_parser!(u64).range(10..),
        global = true
    )]
    pub live_ping_ms: u64,

    /// A live connection silent this long (no pong, no message) is closed.
    #[arg(
        long,
        env = "GOMOKU_LIVE_IDLE_MS",
        default_value_t = 60_000,
        value_parser = clap::value_parser!(u64).range(10..),
        global = true
    )]
    pub live_idle_ms: u64,

    /// How long a takeback or draw offer stands unanswered before it lapses (a move by either
    /// player clears it before that).
    #[arg(
        long,
        env = "GOMOKU_OFFER_TTL_MS",
        default_value_t = 60_000,
        value_parser = clap::value_parser!(u64).range(10..=86_400_000),
        global = true
    )]
    pub offer_ttl_ms: u64,

    /// How long a player of a rated game has for their first move (black from the pairing,
    /// white from black's first move) before the game is aborted, unrated, and the abort counts
    /// against them.
    #[arg(
        long,
        env = "GOMOKU_RATED_ABORT_MS",
        default_value_t = 30_000,
        value_parser = clap::value_parser!(u64).range(100..=600_000),
        global = true
    )]
    pub rated_abort_ms: u64,

    /// How long a seek made without a live connection to `/api/v1/live` waits for one before it
    /// is dropped.
    #[arg(
        long,
        env = "GOMOKU_SEEK_GRACE_MS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(100..=600_000),
        global = true
    )]
    pub seek_grace_ms: u64,

    /// How long a rematch offer stands unanswered before it lapses: long enough for a player
    /// who left the finished game to come back and see it.
    #[arg(
        long,
        env = "GOMOKU_REMATCH_TTL_MS",
        default_value_t = 600_000,
        value_parser = clap::value_parser!(u64).range(10..=86_400_000),
        global = true
    )]
    pub rematch_ttl_ms: u64,

    /// Longest time a request may take before it is answered with a timeout.
    #[arg(
        long,
        env = "GOMOKU_REQUEST_TIMEOUT_MS",
        default_value_t = 30_000,
        global = true
    )]
    pub request_timeout_ms: u64,

    // Connection limits (issue 23): how long a connection may wait for a request's head, and
    // how many connections are open at once.
    /// How long a client may take to send a request's head (request line and headers), counted
    /// from the moment the connection waits for one: when it is opened, and after each response
    /// on a kept-alive connection, so it is also how long an idle kept-alive connection stays
    /// open. Past it the connection is closed.
    #[arg(
        long,
        env = "GOMOKU_HEADER_READ_TIMEOUT_MS",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64).range(10..=3_600_000),
        global = true
    )]
    pub header_read_timeout_ms: u64,

    /// Connections (live sockets included) one client address may hold open at once, an IPv6
    /// client counted by its /64; the excess is closed as soon as it is accepted. Counted by
    /// the peer address (0 lifts the limit). Default: 256, or none with `--trust-forwarded-for`
    /// (behind a proxy every client has the proxy's address; the proxy caps its clients).
    #[arg(long, env = "GOMOKU_MAX_CONNECTIONS_PER_ADDRESS", global = true)]
    pub max_connections_per_address: Option<u32>,

    /// Connections open at once from all clients; the excess is closed as soon as it is
    /// accepted (default: the open-files limit less 64 and 4 per database connection, kept for
    /// the database, the listener and the logs).
    #[arg(
        long,
        env = "GOMOKU_MAX_CONNECTIONS",
        value_parser = clap::value_parser!(u32).range(1..),
        global = true
    )]
    pub max_connections: Option<u32>,
}

impl Config {
    pub fn busy_timeout(&self) -> Duration {
        Duration::from_millis(self.busy_timeout_ms)
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    /// What one analysed move may spend.
    pub fn analysis_budget(&self) -> AnalysisBudget {
        AnalysisBudget {
            time: Duration::from_millis(self.analysis_move_ms),
            node_limit: self.analysis_node_limit,
        }
    }

    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_millis(self.header_read_timeout_ms)
    }

    /// The cap on open connections: the flag, or what `open_files` (the process's limit on open
    /// files) leaves once the database's files and sockets and a few others are set aside; at
    /// least half of `open_files`, so that a low limit still serves.
    /// The cap on one peer address's connections (0: none): as set, or 256 when clients connect
    /// directly and none behind a proxy, whose one address every client would share.
    pub fn max_connections_per_address(&self) -> u32 {
        match self.max_connections_per_address {
            Some(n) => n,
            None if self.trust_forwarded_for => 0,
            None => 256,
        }
    }

    pub fn max_connections(&self, open_files: u64) -> usize {
        match self.max_connections {
            Some(n) => n as usize,
            None => {
                let reserve = 64 + 4 * u64::from(self.db_max_connections + 2);
                open_files
                    .saturating_sub(reserve)
                    .max(open_files / 2)
                    .max(1) as usize
            }
        }
    }

    pub fn live_ping(&self) -> Duration {
        Duration::from_millis(self.live_ping_ms)
    }

    pub fn live_idle(&self) -> Duration {
        Duration::from_millis(self.live_idle_ms)
    }

    /// How long a rated game's player has for their first move.
    pub fn rated_abort(&self) -> Duration {
        Duration::from_millis(self.rated_abort_ms)
    }

    /// How long a seek waits for its player's live connection.
    pub fn seek_grace(&self) -> Duration {
        Duration::from_millis(self.seek_grace_ms)
    }

    /// How long a takeback or draw offer stands.
    pub fn offer_ttl(&self) -> Duration {
        Duration::from_millis(self.offer_ttl_ms)
    }

    /// How long a rematch offer stands.
    pub fn rematch_ttl(&self) -> Duration {
        Duration::from_millis(self.rematch_ttl_ms)
    }

    /// How long a session may go unused before it expires.
    pub fn session_idle(&self) -> Duration {
        days(self.session_idle_days)
    }

    /// How long after expiry a session may still be renewed.
    pub fn session_renew_grace(&self) -> Duration {
        days(self.session_renew_grace_days)
    }

    /// The number of AI searches allowed at once: the flag, or the cores, and at least one.
    pub fn ai_permits(&self) -> usize {
        self.ai_concurrency
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1)
    }

    /// WeChat credentials when both are configured (and non-empty).
    pub fn wechat_credentials(&self) -> Option<(String, String)> {
        match (&self.wechat_appid, &self.wechat_secret) {
            (Some(id), Some(secret)) if !id.is_empty() && !secret.is_empty() => {
                Some((id.clone(), secret.clone()))
            }
            _ => None,
        }
    }

    /// Settings for tests and embedding: the defaults, on the given database.
    pub fn for_database(database_url: &str) -> Config {
        let mut cli = Cli::parse_from(["gomoku-server"]);
        cli.config.database_url = database_url.to_string();
        cli.config
    }
}

fn days(n: u32) -> Duration {
    Duration::from_secs(u64::from(n) * 86_400)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With no flags every default is the documented one.
    #[test]
    fn defaults() {
        let cli = Cli::try_parse_from(["gomoku-server"]).unwrap();
        let c = cli.config;
        assert!(cli.command.is_none());
        assert_eq!(c.addr.to_string(), "127.0.0.1:8080");
        assert_eq!(c.synchronous, Synchronous::Full);
        assert_eq!(c.busy_timeout_ms, 5000);
        assert_eq!(c.write_rate_limit, 20);
        assert_eq!(c.write_burst, 60);
        assert_eq!(c.max_unfinished_games, 100);
        assert_eq!(c.ai_queue_timeout_ms, 10_000);
        assert_eq!(c.ai_master_ms, 2000);
        assert_eq!(c.analysis_budget().time, Duration::from_millis(400));
        assert_eq!(c.analysis_node_limit, None);
        assert_eq!(c.request_timeout_ms, 30_000);
        assert_eq!(c.live_connections_per_token, 8);
        assert_eq!(c.live_ping(), Duration::from_secs(20));
        assert_eq!(c.live_idle(), Duration::from_secs(60));
        assert_eq!(c.offer_ttl(), Duration::from_secs(60));
        assert_eq!(c.rated_abort(), Duration::from_secs(30));
        assert_eq!(c.seek_grace(), Duration::from_secs(10));
        assert_eq!(c.rematch_ttl(), Duration::from_secs(600));
        assert_eq!((c.db_max_connections, c.db_min_connections), (8, 1));
        assert_eq!((c.hints_per_minute, c.hint_burst), (10, 5));
        assert_eq!((c.sessions_per_minute, c.session_burst), (30, 30));
        assert!(!c.trust_forwarded_for);
        assert_eq!(c.session_idle(), Duration::from_secs(180 * 86_400));
        assert_eq!(c.session_renew_grace(), Duration::from_secs(30 * 86_400));
        assert!(c.ai_permits() >= 1);
        assert_eq!(c.header_read_timeout(), Duration::from_secs(10));
        assert_eq!(c.max_connections_per_address(), 256);
        assert_eq!(c.max_connections, None);
    }

    /// Behind a proxy (every client at its address) no cap per address applies unless one is set.
    #[test]
    fn no_cap_per_address_behind_a_proxy_unless_set() {
        let mut c = Config::for_database("sqlite::memory:");
        c.trust_forwarded_for = true;
        assert_eq!(c.max_connections_per_address(), 0);
        c.max_connections_per_address = Some(1000);
        assert_eq!(c.max_connections_per_address(), 1000);
    }

    /// Unset, the cap on connections leaves room for the database's connections (SQLite's
    /// three files each, a PostgreSQL socket) below the open-files limit; set, it is the flag.
    #[test]
    fn max_connections_from_the_open_files_limit() {
        let mut c = Config::for_database("sqlite::memory:");
        assert_eq!(c.max_connections(20_000), 20_000 - 64 - 4 * 10);
        assert_eq!(c.max_connections(100), 50, "half of a low limit");
        c.db_max_connections = 100;
        assert_eq!(c.max_connections(1024), 1024 - 64 - 4 * 102);
        c.max_connections = Some(7);
        assert_eq!(c.max_connections(20_000), 7);
    }

    /// The backup subcommand takes a path, and the global flags may come after it.
    #[test]
    fn backup_with_flags_after_the_subcommand() {
        let cli = Cli::try_parse_from([
            "gomoku-server",
            "backup",
            "/tmp/copy.db",
            "--database-url",
            "sqlite://x.db",
            "--synchronous",
            "normal",
        ])
        .unwrap();
        assert!(
            matches!(cli.command, Some(Command::Backup { ref path }) if path.ends_with("copy.db"))
        );
        assert_eq!(cli.config.database_url, "sqlite://x.db");
        assert_eq!(cli.config.synchronous, Synchronous::Normal);
    }

    /// A value that is not one of the choices is refused, not silently defaulted.
    #[test]
    fn bad_synchronous_is_an_error() {
        assert!(Cli::try_parse_from(["gomoku-server", "--synchronous", "off"]).is_err());
        assert!(Cli::try_parse_from(["gomoku-server", "--addr", "nowhere"]).is_err());
        assert!(Cli::try_parse_from(["gomoku-server", "--session-idle-days", "0"]).is_err());
    }

    /// WeChat is only on when both credentials are present.
    #[test]
    fn wechat_needs_both_credentials() {
        let mut c = Config::for_database("sqlite::memory:");
        c.wechat_appid = Some("app".into());
        assert!(c.wechat_credentials().is_none());
        c.wechat_secret = Some("secret".into());
        assert_eq!(
            c.wechat_credentials(),
            Some(("app".into(), "secret".into()))
        );
    }
}
