//! What the handlers share: the database, the configuration, the game service, the AI pool and
//! the analysis tasks, the sessions, the rate limits, the WeChat client, and online play's live
//! hub, flag timers and matchmaking lobby. Cheap to clone (everything is behind `Arc` or is a
//! handle). Each part is its own `FromRef` source, so an extractor such as
//! [`Player`](crate::http::auth::Player) asks for the parts it needs rather than for all of this.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;

use crate::ai::Ai;
use crate::analysis::Analyses;
use crate::auth::Sessions;
use crate::config::Config;
use crate::games::rated::RatedBook;
use crate::games::{Games, Terms};
use crate::limits::Limits;
use crate::online::hub::Hub;
use crate::online::lobby::Lobby;
use crate::online::timers::Timers;
use crate::store::{Db, Watch};
use crate::wechat::WeChat;

#[derive(Clone, FromRef)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    /// The game service: what requests to games decide.
    pub games: Games,
    pub ai: Ai,
    /// Post-game analyses running in this process.
    pub analyses: Arc<Analyses>,
    pub sessions: Arc<Sessions>,
    pub limits: Arc<Limits>,
    /// None when no WeChat credentials are configured (sessions are anonymous then).
    pub wechat: Option<WeChat>,
    /// Live connections of this process, and presence (shared with other instances on
    /// PostgreSQL).
    pub hub: Arc<Hub>,
    /// This process's flag timers (every instance arms its own).
    pub timers: Arc<Timers>,
    /// The matchmaking lobby: seeks, pairing rounds, and the players' own live channels here.
    pub lobby: Arc<Lobby>,
    /// Which games are rated, and their ratings, as the views show them.
    pub rated: Arc<RatedBook>,
}

impl AppState {
    /// The state of a server on `db`; the hub and the timers start watching its commits.
    pub fn new(db: Db, config: Config) -> AppState {
        let wechat = config
            .wechat_credentials()
            .map(|(appid, secret)| WeChat::new(&config.wechat_api_base, appid, secret));
        let ai = Ai::new(
            config.ai_permits(),
            Duration::from_millis(config.ai_queue_timeout_ms),
            Duration::from_millis(config.ai_master_ms),
        );
        let analyses = Arc::new(Analyses::new(
            db.clone(),
            ai.clone(),
            config.analysis_budget(),
        ));
        let hub = Hub::new(usize::from(config.live_connections_per_token), db.clone());
        let timers = Timers::new(db.clone());
        let session_recheck = db.session_recheck();
        let lobby = Lobby::new(db.clone(), config.max_unfinished_games, config.seek_grace());
        let rated = Arc::new(RatedBook::new(db.clone()));
        let watchers: Vec<Arc<dyn Watch>> = vec![hub.clone(), timers.clone(), lobby.clone()];
        if !db.watch(watchers) {
            tracing::warn!("the database already has watchers; this state's hub stays unfed");
        }
        let games = Games::new(
            db.clone(),
            ai.clone(),
            Terms {
                max_unfinished_games: config.max_unfinished_games,
                offer_ttl: config.offer_ttl(),
                rematch_ttl: config.rematch_ttl(),
            },
        );
        AppState {
            db,
            games,
            ai,
            analyses,
            hub,
            timers,
            lobby,
            rated,
            sessions: Arc::new(Sessions::new(
                config.session_idle(),
                config.session_renew_grace(),
                session_recheck,
            )),
            limits: Arc::new(Limits::new(&config)),
            wechat,
            config: Arc::new(config),
        }
    }
}
