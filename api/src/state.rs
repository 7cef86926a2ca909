//! What every handler shares: the database, the configuration, the AI pool, the session cache,
//! the write rate limiter and the WeChat client. Cheap to clone (everything is behind `Arc`).

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::ai::Ai;
use crate::auth::SessionCache;
use crate::config::Config;
use crate::store::Db;
use crate::wechat::WeChat;

/// Writes are limited per session, keyed by the token's hash (the token itself is not kept).
pub type WriteLimiter = DefaultKeyedRateLimiter<[u8; 32]>;

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    pub ai: Ai,
    pub sessions: Arc<SessionCache>,
    /// None when `--write-rate-limit 0` turns limiting off.
    pub limiter: Option<Arc<WriteLimiter>>,
    /// None when no WeChat credentials are configured (sessions are anonymous then).
    pub wechat: Option<WeChat>,
}

impl AppState {
    pub fn new(db: Db, config: Config) -> AppState {
        let limiter = NonZeroU32::new(config.write_rate_limit).map(|rate| {
            let burst = NonZeroU32::new(config.write_burst).unwrap_or(rate);
            Arc::new(RateLimiter::keyed(
                Quota::per_second(rate).allow_burst(burst),
            ))
        });
        let wechat = config
            .wechat_credentials()
            .map(|(appid, secret)| WeChat::new(&config.wechat_api_base, appid, secret));
        let ai = Ai::new(
            config.ai_permits(),
            Duration::from_millis(config.ai_queue_timeout_ms),
            Duration::from_millis(config.ai_master_ms),
        );
        AppState {
            db,
            ai,
            sessions: Arc::new(SessionCache::default()),
            limiter,
            wechat,
            config: Arc::new(config),
        }
    }
}
