//! Post-game analyses, run in the background: a request starts one and is answered at once; a
//! task of this process then analyses the game one move at a time, in ply order, and stores
//! each move's result as soon as the engine has it, so that a client polling the analysis sees
//! it grow, and a restart loses at most the move under way.
//!
//! Each move is one engine call under the AI cap ([`Ai::analyse_move`]: the analyses' share of
//! the slots, taken again for every move, so players' AI moves and hints are never starved),
//! with the configured budget (`--analysis-move-ms`, 400 ms by default: a 40-move game takes
//! about 16 s with one slot). Before each move the task reads the analysis and the game again,
//! so it follows what happened meanwhile: a request that extended the target, an undo (the
//! rows that no longer match the game's moves are analysed again), a deleted game (it stops).
//!
//! Which analyses have a task is known to this process only ([`Analyses`]'s set): at start every
//! analysis stored as running that no other process works on gets one ([`Analyses::resume_all`]).
//! With several server instances on one database (PostgreSQL), the store says which instance
//! works on an analysis: a task claims it before each move ([`analyses::claim`]), and ends when
//! another live instance holds it, so a second POST through another instance extends the one run
//! rather than starting a second. The analyses of an instance that stopped or was killed are
//! taken over by the next POST, or by another instance's periodic look ([`Analyses::sweep`]).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gomoku_rules::notation::Coord;
use gomoku_rules::{Game, Point};

use crate::ai::{Ai, AiError, AnalysisBudget};
use crate::store::analyses::{self, AnalysedMove, AnalysisStatus};
use crate::store::{games, Db, StoreError};

/// How long a task waits before it tries again when the database was busy.
const BUSY_RETRY: Duration = Duration::from_secs(1);

/// The analysis tasks of this process.
#[derive(Debug)]
pub struct Analyses {
    db: Db,
    ai: Ai,
    budget: AnalysisBudget,
    /// Games whose analysis has a task here. A std Mutex, not tokio's: nothing awaits while it
    /// is held.
    tasks: Mutex<HashSet<String>>,
    /// Raised when the server stops: tasks end after their current move, leaving their
    /// analyses running for the next start.
    stopping: AtomicBool,
}

/// What a task does after a step.
enum Next {
    /// Analyse the next move.
    More,
    /// Nothing left to do: the analysis is done, or gone.
    Finished,
    /// Another server instance works on it.
    Elsewhere,
}

/// Why a step failed.
#[derive(Debug, thiserror::Error)]
enum StepError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Ai(#[from] AiError),
    /// A stored move the rules refuse (a stored game the judge accepted cannot give this).
    #[error("move {0} cannot be analysed: {1}")]
    Move(usize, String),
}

impl Analyses {
    pub fn new(db: Db, ai: Ai, budget: AnalysisBudget) -> Analyses {
        Analyses {
            db,
            ai,
            budget,
            tasks: Mutex::default(),
            stopping: AtomicBool::new(false),
        }
    }

    /// Makes sure the running analysis of game `id` has a task here.
    pub fn ensure_running(self: &Arc<Self>, id: &str) {
        if self.claim(id) {
            tokio::spawn(self.clone().run(id.to_string()));
        }
    }

    /// Gives a task to every analysis stored as running that no other process works on (at
    /// start); how many there were.
    pub async fn resume_all(self: &Arc<Self>) -> Result<usize, StoreError> {
        let running = analyses::claimable(&self.db).await?;
        for id in &running {
            self.ensure_running(id);
        }
        Ok(running.len())
    }

    /// Takes up, from time to time, the running analyses nobody works on any more (on
    /// PostgreSQL: those of an instance that stopped or died), until the server stops. Returns
    /// at once where there is nothing to look for (SQLite).
    pub async fn sweep(self: Arc<Self>) {
        let Some(every) = analyses::sweep_every(&self.db) else {
            return;
        };
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        while !self.stopping.load(Ordering::Relaxed) {
            tick.tick().await;
            if let Err(e) = self.resume_all().await {
                tracing::warn!(error = %e, "could not look for analyses left by other instances");
            }
        }
    }

    /// Tells every task to stop after its current move (the server is stopping).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Records that game `id` has a task; false if it had one already.
    fn claim(&self, id: &str) -> bool {
        self.tasks
            .lock()
            .is_ok_and(|mut tasks| tasks.insert(id.to_string()))
    }

    fn release(&self, id: &str) {
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.remove(id);
        }
    }

    /// The task of game `id`'s analysis: one step after another until it is done.
    async fn run(self: Arc<Self>, id: String) {
        // Whether this task has said it works on the analysis (once, in the log: which
        // instance ran an analysis is worth knowing when there are several).
        let mut announced = false;
        loop {
            while !self.stopping.load(Ordering::Relaxed) {
                match self.step(&id, &mut announced).await {
                    Ok(Next::More) => {}
                    Ok(Next::Finished) => break,
                    Ok(Next::Elsewhere) => {
                        self.release(&id);
                        return;
                    }
                    Err(StepError::Store(StoreError::Busy)) => {
                        tracing::warn!(game = %id, "database busy; the analysis waits");
                        tokio::time::sleep(BUSY_RETRY).await;
                    }
                    // The database may be closing under a stopping server: the next start
                    // takes the analysis up again.
                    Err(_) if self.stopping.load(Ordering::Relaxed) => break,
                    Err(e) => {
                        // Another try would fail the same way: the analysis ends with what it
                        // has, rather than keeping its readers waiting.
                        tracing::error!(game = %id, error = %e, "analysis failed");
                        if let Ok(Some(a)) = analyses::load(&self.db, &id).await {
                            let _ = analyses::finish(&self.db, &id, a.move_count).await;
                        }
                        break;
                    }
                }
            }
            self.release(&id);
            if self.stopping.load(Ordering::Relaxed) {
                return;
            }
            // A request may have set the analysis running again just before the release, and
            // found this task still registered: look once more.
            let again = matches!(
                analyses::load(&self.db, &id).await,
                Ok(Some(a)) if a.status == AnalysisStatus::Running
            );
            if !again || !self.claim(&id) {
                return;
            }
        }
    }

    /// Analyses the next move of game `id`, or marks the analysis done when there is none.
    async fn step(&self, id: &str, announced: &mut bool) -> Result<Next, StepError> {
        let Some(analysis) = analyses::load(&self.db, id).await? else {
            return Ok(Next::Finished);
        };
        if analysis.status != AnalysisStatus::Running {
            return Ok(Next::Finished);
        }
        if !analyses::claim(&self.db, id).await? {
            return Ok(Next::Elsewhere);
        }
        if !*announced {
            tracing::info!(game = %id, "analysis task working");
            *announced = true;
        }
        let Some(stored) = games::load(&self.db, id).await? else {
            return Ok(Next::Finished);
        };
        let ply = analysis.valid_moves(&stored.moves).len();
        // An undo since the request shortens the work; the analysis still covers the game.
        if ply >= analysis.move_count.min(stored.moves.len()) {
            return Ok(
                if analyses::finish(&self.db, id, analysis.move_count).await? {
                    Next::Finished
                } else {
                    Next::More
                },
            );
        }
        let points: Vec<Point> = stored.moves.iter().map(|m| m.point).collect();
        let before = Game::replay(stored.row.board_size, stored.row.rule, &points[..ply])
            .map_err(|(i, e)| StepError::Move(i, format!("{e:?}")))?;
        let played = points[ply];
        let result = self
            .ai
            .analyse_move(id, before, played, self.budget)
            .await?
            .map_err(|e| StepError::Move(ply, format!("{e:?}")))?;
        let analysed = AnalysedMove {
            ply,
            played,
            eval: result.eval,
            best: result.best,
            best_eval: result.best_eval,
            mark: result.mark,
            line: result
                .line
                .iter()
                .map(|&p| Coord::from_point(p, stored.row.board_size))
                .collect(),
        };
        Ok(if analyses::record(&self.db, id, analysed).await? {
            Next::More
        } else {
            Next::Finished
        })
    }
}
