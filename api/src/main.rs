//! `gomoku-server`: parse the configuration, open the database, migrate, then serve until
//! Ctrl-C or SIGTERM (or, with `backup <path>`, write a copy of the database and exit).

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use gomoku::config::{Cli, Command};
use gomoku::store::Db;
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
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "gomoku-server failed");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let db = Db::open(&cli.config).await?;
    db.migrate().await?;
    match cli.command {
        Some(Command::Backup { path }) => {
            gomoku::backup(&db, &path).await?;
            db.close().await;
            Ok(())
        }
        None => Ok(gomoku::serve(db, cli.config, gomoku::shutdown_signal()).await?),
    }
}
