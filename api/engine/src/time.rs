//! Time management: a deadline, an optional node limit and the caller's atomic stop flag.
//!
//! The clock is read every `CHECK_EVERY` nodes, not at each one (cheap, but not free);
//! with a node limit and no deadline pressure the search is fully deterministic.

use crate::params::CHECK_EVERY;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Clock {
    start: Instant,
    budget: Duration,
    stop: Option<Arc<AtomicBool>>,
    node_limit: Option<u64>,
    pub nodes: u64,
    next_check: u64,
    stopped: bool,
}

impl Clock {
    pub fn new(budget: Duration, stop: Option<Arc<AtomicBool>>, node_limit: Option<u64>) -> Clock {
        Clock {
            start: Instant::now(),
            budget,
            stop,
            node_limit,
            nodes: 0,
            next_check: CHECK_EVERY,
            stopped: false,
        }
    }
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
    pub fn budget(&self) -> Duration {
        self.budget
    }
    /// Counts a node; true once the search must stop (deadline, stop flag or node limit).
    pub fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.stopped {
            return true;
        }
        if let Some(limit) = self.node_limit {
            if self.nodes >= limit {
                self.stopped = true;
                return true;
            }
        }
        // A threshold, not `nodes % CHECK_EVERY`: the threat solver adds its nodes in bulk.
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            self.stopped = self.start.elapsed() >= self.budget
                || self
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed));
        }
        self.stopped
    }
    pub fn stopped(&self) -> bool {
        self.stopped
    }
    /// Whether a fraction (`num`/16) of the budget is spent; used before starting new work.
    /// Under a node limit alone time is ignored so results stay reproducible.
    pub fn spent(&self, num: u32) -> bool {
        if self.stopped {
            return true;
        }
        if self.node_limit.is_some() && self.budget >= Duration::from_secs(3600) {
            return false;
        }
        self.start.elapsed() >= self.budget * num / 16
    }
}
