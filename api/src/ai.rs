//! Runs the engine off the async runtime, a bounded number of searches at a time.
//!
//! A search is CPU-bound, so it runs on the blocking pool (`spawn_blocking`). A semaphore caps
//! how many run at once (`--ai-concurrency`); a request waits at most `--ai-queue-timeout-ms`
//! for a slot, then gets 503 AI_BUSY. Each search gets its level's time budget and a stop flag,
//! raised shortly after the budget runs out or when the request is dropped (client gone, request
//! timeout), so no search outlives its request by much. The permit travels into the blocking
//! task, so the cap counts searches that are really running, not requests still waiting.
//!
//! Post-game analyses (see [`crate::analysis`]) search here too, one move at a time, under the
//! same cap: nobody waits on them, so an analysed move waits for its slot as long as it takes
//! rather than failing, and analyses together hold at most `cap − 1` slots (one with a cap of
//! one), so a player's AI move or hint always has a slot that no analysis can take. Semaphores
//! are fair (first come, first served) and an analysis takes its slots again for every move, so
//! a request waits behind at most one analysed move per slot.
//!
//! Every search that starts is logged (`ai search`, at debug level, inside the request's span),
//! which is how a test can count the searches one request made.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gomoku_engine::analysis::{analyse_move, MoveAnalysis};
use gomoku_engine::{Hint, Level, SearchOptions};
use gomoku_rules::{Game, PlayError, Point};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The hint's thinking time: short, since a person is waiting with nothing else to do.
pub const HINT_BUDGET: Duration = Duration::from_millis(300);

/// How long past its budget a search may run before the stop flag is raised.
const GRACE: Duration = Duration::from_millis(50);

/// The seed of analyses' searches: the same game analysed twice under a node limit gives the
/// same answers.
const ANALYSIS_SEED: u64 = 15;

/// Why the AI gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum AiError {
    /// Every slot stayed taken past the queue deadline.
    #[error("every AI slot is taken")]
    Busy,
    /// The search task failed (a panic in the engine).
    #[error("the AI search failed: {0}")]
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct Ai {
    permits: Arc<Semaphore>,
    /// The share of `permits` that analyses may hold at once.
    analysis_slots: Arc<Semaphore>,
    queue_timeout: Duration,
    master_budget: Duration,
}

/// What one analysed move may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalysisBudget {
    /// The whole analysis of the move: the engine's choice and the scoring of both positions.
    pub time: Duration,
    /// Each search stops after this many nodes (reproducible analyses, for tests).
    pub node_limit: Option<u64>,
}

/// Raises the stop flag when dropped: the request that started the search has gone.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Ai {
    pub fn new(concurrency: usize, queue_timeout: Duration, master_budget: Duration) -> Ai {
        let concurrency = concurrency.max(1);
        Ai {
            permits: Arc::new(Semaphore::new(concurrency)),
            analysis_slots: Arc::new(Semaphore::new((concurrency - 1).max(1))),
            queue_timeout,
            master_budget,
        }
    }

    /// The thinking time of a level on this server (master's is configurable).
    pub fn budget(&self, level: Level) -> Duration {
        match level {
            Level::Master => self.master_budget,
            other => other.default_budget(),
        }
    }

    /// The AI's move for the side to move in `game`.
    pub async fn best_move(&self, game: Game, level: Level) -> Result<Option<Point>, AiError> {
        self.run(self.budget(level), move |options| {
            gomoku_engine::best_move(&game, level, &options)
        })
        .await
    }

    /// A suggestion for the side to move in `game`.
    pub async fn hint(&self, game: Game) -> Result<Option<Hint>, AiError> {
        self.run(HINT_BUDGET, move |options| {
            gomoku_engine::hint(&game, &options)
        })
        .await
    }

    /// The analysis of the move `played` from the position `before`, within `budget`. Waits
    /// for an analysis slot, then for an AI slot, as long as it takes; both are given back as
    /// soon as the move is analysed. The inner error is the rules' refusal of the move.
    pub async fn analyse_move(
        &self,
        before: Game,
        played: Point,
        budget: AnalysisBudget,
    ) -> Result<Result<MoveAnalysis, PlayError>, AiError> {
        let failed = |e: tokio::sync::AcquireError| AiError::Failed(e.to_string());
        let _slot = self
            .analysis_slots
            .clone()
            .acquire_owned()
            .await
            .map_err(failed)?;
        let permit = self.permits.clone().acquire_owned().await.map_err(failed)?;
        self.search_with(
            permit,
            budget.time,
            ANALYSIS_SEED,
            budget.node_limit,
            move |options| analyse_move(&before, played, &options),
        )
        .await
    }

    async fn run<T, F>(&self, budget: Duration, search: F) -> Result<T, AiError>
    where
        T: Send + 'static,
        F: FnOnce(SearchOptions) -> T + Send + 'static,
    {
        let permit = tokio::time::timeout(self.queue_timeout, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| AiError::Busy)?
            .map_err(|e| AiError::Failed(e.to_string()))?;
        self.search_with(permit, budget, rand::random(), None, search)
            .await
    }

    /// Runs `search` on the blocking pool holding `permit`, with a stop flag raised shortly
    /// after `budget` or when the caller goes away.
    async fn search_with<T, F>(
        &self,
        permit: OwnedSemaphorePermit,
        budget: Duration,
        seed: u64,
        node_limit: Option<u64>,
        search: F,
    ) -> Result<T, AiError>
    where
        T: Send + 'static,
        F: FnOnce(SearchOptions) -> T + Send + 'static,
    {
        tracing::debug!(budget_ms = budget.as_millis() as u64, "ai search");
        let stop = Arc::new(AtomicBool::new(false));
        let _stop_on_drop = StopOnDrop(stop.clone());
        let watchdog = {
            let stop = stop.clone();
            tokio::spawn(async move {
                tokio::time::sleep(budget + GRACE).await;
                stop.store(true, Ordering::Relaxed);
            })
        };
        let options = SearchOptions {
            time_budget: budget,
            seed,
            stop: Some(stop),
            node_limit,
        };
        let result = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            search(options)
        })
        .await;
        watchdog.abort();
        result.map_err(|e| AiError::Failed(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With every slot taken, a request gives up after the queue timeout with AI_BUSY.
    #[tokio::test]
    async fn busy_after_queue_timeout() {
        let ai = Ai::new(1, Duration::from_millis(50), Duration::from_millis(100));
        let _held = ai.permits.clone().acquire_owned().await.unwrap();
        let started = std::time::Instant::now();
        let result = ai.run(Duration::from_millis(10), |_| 1).await;
        assert!(matches!(result, Err(AiError::Busy)));
        assert!(started.elapsed() >= Duration::from_millis(50));
    }

    /// The stop flag is raised once the budget and its grace have passed.
    #[tokio::test]
    async fn stop_flag_raised_after_budget() {
        let ai = Ai::new(1, Duration::from_secs(1), Duration::from_millis(100));
        let stopped_in_time = ai
            .run(Duration::from_millis(20), |options| {
                let stop = options.stop.expect("a stop flag");
                let start = std::time::Instant::now();
                while !stop.load(Ordering::Relaxed) {
                    if start.elapsed() > Duration::from_secs(2) {
                        return false;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                true
            })
            .await
            .unwrap();
        assert!(stopped_in_time);
    }

    /// Analyses hold at most cap − 1 slots: with two, while an analysed move holds the
    /// analyses' one, the next analysed move waits, and a player's search still starts at once.
    /// With a cap of one, analyses share the one slot with everyone.
    #[tokio::test]
    async fn analyses_leave_a_slot_for_players() {
        let budget = AnalysisBudget {
            time: Duration::from_secs(60),
            node_limit: Some(500),
        };
        let opening = Game::new(15, gomoku_rules::Rule::Freestyle).unwrap();
        let centre = Point::new(7, 7);
        let ai = Ai::new(2, Duration::from_millis(50), Duration::from_millis(100));
        let held = ai.analysis_slots.clone().acquire_owned().await.unwrap();
        assert_eq!(ai.run(Duration::from_millis(10), |_| 7).await.unwrap(), 7);
        let waiting = tokio::time::timeout(
            Duration::from_millis(200),
            ai.analyse_move(opening.clone(), centre, budget),
        )
        .await;
        assert!(
            waiting.is_err(),
            "the next analysed move waits for the slot"
        );
        drop(held);
        let analysed = ai.analyse_move(opening.clone(), centre, budget).await;
        assert_eq!(analysed.unwrap().unwrap().best, centre);

        let one = Ai::new(1, Duration::from_millis(50), Duration::from_millis(100));
        assert_eq!(one.analysis_slots.available_permits(), 1);
        let analysed = one.analyse_move(opening, centre, budget).await;
        assert_eq!(analysed.unwrap().unwrap().mark, None);
    }

    /// Master's budget comes from the configuration, the others from the engine's levels.
    #[test]
    fn budgets() {
        let ai = Ai::new(2, Duration::from_secs(1), Duration::from_millis(1234));
        assert_eq!(ai.budget(Level::Master), Duration::from_millis(1234));
        assert_eq!(ai.budget(Level::Easy), Level::Easy.default_budget());
    }
}
