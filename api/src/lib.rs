//! The Gomoku game service: the single authority over rules, games and replays.
//!
//! Layers, from the bottom: the rules (`gomoku-rules`) and the AI (`gomoku-engine`) are crates
//! of their own; [`store`] maps SQLite rows to the rules' types; [`ai`] runs the engine off the
//! async runtime; [`http`] is the REST API on top, and nothing imports it. [`serve`] and
//! [`backup`] are what the `gomoku-server` binary runs.

pub mod ai;
pub mod auth;
pub mod config;
pub mod error;
pub mod http;
pub mod state;
pub mod store;
pub mod wechat;

use std::future::Future;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

pub use http::app;
pub use state::AppState;

use config::Config;
use store::Db;

/// How often the rate limiter forgets tokens that have been quiet.
const LIMITER_SWEEP: Duration = Duration::from_secs(60);

/// Binds the configured address, prints `listening on <addr>` on stdout (how tests learn the
/// port), and serves until `shutdown` completes; then lets in-flight requests finish, but no
/// longer than the request timeout plus a margin.
pub async fn serve(
    db: Db,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(config.addr).await?;
    let addr = listener.local_addr()?;
    let drain_limit = config.request_timeout() + Duration::from_secs(5);
    let state = AppState::new(db.clone(), config);
    if let Some(limiter) = state.limiter.clone() {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(LIMITER_SWEEP);
            loop {
                tick.tick().await;
                limiter.retain_recent();
            }
        });
    }
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
        let _ = fired_tx.send(true);
    };
    let server = axum::serve(listener, app).with_graceful_shutdown(signal);
    let deadline = async move {
        let _ = fired_rx.wait_for(|fired| *fired).await;
        tokio::time::sleep(drain_limit).await;
    };
    tokio::select! {
        result = server => result?,
        () = deadline => tracing::warn!("in-flight requests did not finish in time; exiting"),
    }
    db.close().await;
    Ok(())
}

/// Writes a consistent copy of the database to `path` (the `backup` subcommand).
pub async fn backup(db: &Db, path: &Path) -> Result<(), sqlx::Error> {
    db.backup(path).await
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
