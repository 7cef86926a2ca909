//! The AI: chooses moves for the service's levels and gives hints. Depends only on the rules.
//!
//! INTERFACE CONTRACT (fixed by the lead): `Level`, `SearchOptions`, `best_move`, `Hint`, `hint`.
//! The service calls these from `spawn_blocking`; they must honour `SearchOptions::time_budget`
//! and the `stop` flag.

use gomoku_rules::{Game, Point};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// The API's `ai.level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    Easy,
    Medium,
    Hard,
    Master,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Master => "master",
        }
    }
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "easy" => Some(Level::Easy),
            "medium" => Some(Level::Medium),
            "hard" => Some(Level::Hard),
            "master" => Some(Level::Master),
            _ => None,
        }
    }
    /// The default thinking time of this level.
    pub fn default_budget(self) -> Duration {
        match self {
            Level::Easy => Duration::from_millis(50),
            Level::Medium => Duration::from_millis(100),
            Level::Hard => Duration::from_millis(500),
            Level::Master => Duration::from_millis(2000),
        }
    }
}

/// Limits of one search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub time_budget: Duration,
    /// Makes random choices (easy level's mistakes, ties) reproducible.
    pub seed: u64,
    /// Stop early when set (the budget still applies).
    pub stop: Option<Arc<AtomicBool>>,
    /// Deterministic cut-off for tests: stop after this many nodes.
    pub node_limit: Option<u64>,
}

impl SearchOptions {
    pub fn for_level(level: Level, seed: u64) -> SearchOptions {
        SearchOptions { time_budget: level.default_budget(), seed, stop: None, node_limit: None }
    }
}

/// The move the AI plays for the side to move, or None when the game is over or the board full.
/// In renju, never a point forbidden for black.
pub fn best_move(game: &Game, level: Level, options: &SearchOptions) -> Option<Point> {
    todo!()
}

/// A suggestion for the side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub point: Point,
    /// In words: "wins: five", "blocks an open four", "VCF in 7", "best by search".
    pub reason: String,
}

pub fn hint(game: &Game, options: &SearchOptions) -> Option<Hint> {
    todo!()
}
