//! `gomoku-server`: parse the configuration, open the database, migrate, then serve until
//! Ctrl-C or SIGTERM. With `backup <path>`, copy the database (read-only) and exit instead.
//!
//! Exit codes: 0 done, 1 failed, 2 a mistake on the command line (clap's own usage errors, and
//! a backup whose source is missing or whose target exists).

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use gomoku::config::{Cli, Command, Config};
use gomoku::store::{self, backup, Db};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    // Logs go to stderr; stdout carries only the `listening on` line.
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Backup { path }) => {
            let config = &cli.config;
            match backup::backup(&config.database_url, &path, config.busy_timeout()).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) if e.is_usage() => {
                    eprintln!("gomoku-server backup: {e}");
                    ExitCode::from(2)
                }
                Err(e) => {
                    tracing::error!(error = %e, "backup failed");
                    ExitCode::FAILURE
                }
            }
        }
        None => match serve(cli.config).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                tracing::error!(error = %e, "gomoku-server failed");
                ExitCode::FAILURE
            }
        },
    }
}

async fn serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    // Every live connection is an open file: lift the soft limit on them to the hard one.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::debug!(limit, "open files allowed"),
        Err(e) => tracing::warn!(error = %e, "could not raise the limit on open files"),
    }
    if store::in_memory(&config.database_url) {
        tracing::warn!("in-memory database: every game is lost when the server stops");
    }
    let db = Db::open(&config).await?;
    db.migrate().await?;
    Ok(gomoku::serve(db, config, gomoku::shutdown_signal()).await?)
}
