//! The Gomoku game service: the single authority over rules, games and replays.
//!
//! The layers, from the bottom; each imports only from the layers below it (and the same
//! layer's modules named with it):
//!
//! 1. The rules (`gomoku-rules`) and the engine (`gomoku-engine`) are crates of their own: the
//!    engine knows the rules, the rules know nothing else.
//! 2. [`ai`] runs the engine off the async runtime under a fair queue; [`config`] is the
//!    server's flags (it names [`ai`]'s analysis budget); [`limits`] the rate limits;
//!    [`wechat`] the WeChat login client.
//! 3. [`store`] maps SQLite and PostgreSQL rows to the rules' types behind one interface, and
//!    tells its watchers of every commit.
//! 4. On the store: [`auth`] tokens and sessions; [`analysis`] the post-game analyses, run
//!    through [`ai`] in the background; [`online::clock`] and [`online::offers`], online play's
//!    clock arithmetic and offer rules, pure.
//! 5. [`games`], the game service: what every request to a game decides (moves and the AI's
//!    reply, undo, resign, seats, offers, flag falls, creating and deleting), loading once,
//!    deciding, and committing guarded by the version; its errors are domain values.
//! 6. [`online::hub`] and [`online::timers`], fed by the store's commit hooks: the hub carries
//!    commits to live sockets, the timers end games on time through [`games::commit`].
//! 7. [`state`] gathers what the handlers share, and [`http`] is the REST API and the live
//!    WebSocket on top: it extracts, calls the layers below and renders; the one error type
//!    (`http::error::ApiError`) and the extractors (`http::auth`) are its own. Nothing imports
//!    it but [`serve`], which with [`store::backup`] is what the `gomoku-server` binary runs.

pub mod ai;
pub mod analysis;
pub mod auth;
pub mod config;
pub mod games;
pub mod http;
pub mod limits;
pub mod matchmaking;
pub mod online;
pub mod ratings;
pub mod state;
pub mod store;
pub mod wechat;

use std::future::Future;
use std::io::Write;
use std::time::Duration;

pub use http::app;
pub use state::AppState;

use auth::Sessions;
use config::Config;
use http::listener::{self, ConnectionCap};
use store::{players, Db};

/// How often the rate limiters forget keys that have been quiet.
const LIMITER_SWEEP: Duration = Duration::from_secs(60);
/// How often sessions past their idle time and renewal grace are deleted.
const SESSION_SWEEP: Duration = Duration::from_secs(3600);
/// How long a stopping server waits for its live sockets to close.
const SOCKETS_CLOSE: Duration = Duration::from_secs(3);

/// Binds the configured address, re-arms the flag timers of running clocks, resumes the running
/// analyses, prints `listening on <addr>` on stdout (how tests learn the port), and serves until
/// `shutdown` completes, within the caps on open connections ([`http::listener`]); then closes
/// the live sockets and lets in-flight requests finish, but no longer than the request timeout
/// plus a margin.
pub async fn serve(
    db: Db,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(config.addr).await?;
    let addr = listener.local_addr()?;
    let drain_limit = config.request_timeout() + Duration::from_secs(5);
    let header_read_timeout = config.header_read_timeout();
    // The cap on connections is set below the limit on open files, which `main` has raised.
    let open_files = rlimit::Resource::NOFILE
        .get()
        .map_or(1024, |(soft, _)| soft);
    let (total, per_address) = (
        config.max_connections(open_files),
        config.max_connections_per_address(),
    );
    let cap = ConnectionCap::new(per_address, total);
    tracing::info!(total, per_address, "connections allowed at once");
    let state = AppState::new(db.clone(), config);
    let limits = state.limits.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(LIMITER_SWEEP);
        loop {
            tick.tick().await;
            limits.retain_recent();
        }
    });
    // Sessions past their renewal grace can never be used again: deleted before serving, so a
    // restart sees no dead session, and then every hour.
    sweep_sessions(&db, &state.sessions).await;
    let (sessions, sweep_db) = (state.sessions.clone(), db.clone());
    tokio::spawn(async move {
        let start = tokio::time::Instant::now() + SESSION_SWEEP;
        let mut tick = tokio::time::interval_at(start, SESSION_SWEEP);
        loop {
            tick.tick().await;
            sweep_sessions(&sweep_db, &sessions).await;
        }
    });
    // Clocks that ran when the server stopped: a flag that fell meanwhile falls now, at its
    // deadline.
    match state.timers.rearm_all().await {
        Ok(0) => {}
        Ok(running) => tracing::info!(running, "re-armed the clocks of running games"),
        Err(e) => tracing::error!(error = %e, "could not re-arm the running clocks"),
    }
    // Analyses that were running when the server stopped go on where they were.
    match state.analyses.resume_all().await {
        Ok(0) => {}
        Ok(running) => tracing::info!(running, "resumed the running analyses"),
        Err(e) => tracing::error!(error = %e, "could not resume the running analyses"),
    }
    // Seeks nobody holds any more (on SQLite: all of them, this process being the only one),
    // then this instance's pairing rounds.
    match store::seeks::clear_left(&db).await {
        Ok(0) => {}
        Ok(cleared) => tracing::info!(cleared, "dropped the seeks of players gone"),
        Err(e) => tracing::error!(error = %e, "could not drop the seeks of players gone"),
    }
    tokio::spawn(state.lobby.clone().run());
    // Rated games nobody moved in are aborted, and endings left unsettled settled, by every
    // instance (the store decides who does it).
    tokio::spawn(games::rated::keep_sweeping(
        db.clone(),
        state.config.rated_abort(),
        online::lobby::ROUND,
    ));
    // On PostgreSQL, analyses that another instance left (stopped or killed) are taken over.
    tokio::spawn(state.analyses.clone().sweep());
    let analyses = state.analyses.clone();
    let (hub, closing_hub) = (state.hub.clone(), state.hub.clone());
    let app = app(state);

    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on {addr}")?;
        out.flush()?;
    }
    tracing::info!(%addr, "listening");

    // Once the shutdown signal fires, the server stops accepting and drains; the watch makes
    // sure a stuck connection cannot keep the process alive forever.
    let (fired_tx, mut fired_rx) = tokio::sync::watch::channel(false);
    let signal = async move {
        shutdown.await;
        tracing::info!("shutting down");
        // Live sockets are upgraded connections, which a graceful shutdown does not wait for:
        // they are told to close, and their clients reconnect to the next server.
        closing_hub.close_all();
        // Analyses stop after their current move and stay running for the next start.
        analyses.stop();
        let _ = fired_tx.send(true);
    };
    let server = listener::serve(listener, app, cap, header_read_timeout, signal);
    let deadline = async move {
        let _ = fired_rx.wait_for(|fired| *fired).await;
        tokio::time::sleep(drain_limit).await;
    };
    tokio::select! {
        () = server => {}
        () = deadline => tracing::warn!("in-flight requests did not finish in time; exiting"),
    }
    // The live sockets were told to close; give them a moment for their closing handshake.
    let sockets_closed = async {
        while hub.connections() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    if tokio::time::timeout(SOCKETS_CLOSE, sockets_closed)
        .await
        .is_err()
    {
        tracing::warn!("live connections did not close in time; exiting");
    }
    db.close().await;
    Ok(())
}

async fn sweep_sessions(db: &Db, sessions: &Sessions) {
    match players::sweep_sessions(db, sessions.renewable_since()).await {
        Ok(0) => {}
        Ok(swept) => tracing::info!(swept, "deleted sessions past their renewal grace"),
        Err(e) => tracing::warn!(error = %e, "could not sweep old sessions"),
    }
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
