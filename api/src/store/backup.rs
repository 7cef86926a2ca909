//! `gomoku-server backup <path>`: a consistent copy of a database, made without touching it.
//!
//! The source is opened read-only, is never created and never migrated: a backup of a database
//! written by an older version copies it as it is (the server migrates the copy when it starts
//! on it). The database file is left byte for byte as it was; when no server has it open,
//! SQLite makes its empty `-wal` and `-shm` companions to read it safely, as any reader would. `VACUUM INTO` reads one snapshot, so a server may go on writing meanwhile. Mistakes a
//! person makes on the command line (a mistyped source, a target that exists) are told apart
//! from failures, so the binary can exit with the usage code for them.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

use super::in_memory;

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("invalid database URL {url:?}: {why}")]
    BadUrl { url: String, why: String },
    #[error("{url:?} is an in-memory database: there is nothing to back up")]
    InMemory { url: String },
    #[error("no database file at {0} (backup never creates one; check --database-url)")]
    NoSource(PathBuf),
    #[error("{0} already exists (backup writes a new file and never overwrites one)")]
    TargetExists(PathBuf),
    #[error("the folder of {0} does not exist")]
    NoTargetFolder(PathBuf),
    #[error("backup failed: {0}")]
    Sql(#[from] sqlx::Error),
}

impl BackupError {
    /// A mistake in what was asked for, not a failure while doing it.
    pub fn is_usage(&self) -> bool {
        !matches!(self, BackupError::Sql(_))
    }
}

/// Copies the database at `database_url` to the new file `target`.
pub async fn backup(
    database_url: &str,
    target: &Path,
    busy_timeout: Duration,
) -> Result<(), BackupError> {
    if in_memory(database_url) {
        return Err(BackupError::InMemory {
            url: database_url.to_string(),
        });
    }
    let options =
        SqliteConnectOptions::from_str(database_url).map_err(|e| BackupError::BadUrl {
            url: database_url.to_string(),
            why: e.to_string(),
        })?;
    let source = options.get_filename().to_path_buf();
    if !source.is_file() {
        return Err(BackupError::NoSource(source));
    }
    if target.exists() {
        return Err(BackupError::TargetExists(target.to_path_buf()));
    }
    let folder = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(BackupError::NoTargetFolder(target.to_path_buf()));
    }
    let mut conn = options
        .read_only(true)
        .create_if_missing(false)
        .busy_timeout(busy_timeout)
        .connect()
        .await?;
    sqlx::query("vacuum into ?")
        .bind(target.to_string_lossy().into_owned())
        .execute(&mut conn)
        .await?;
    conn.close().await?;
    Ok(())
}
