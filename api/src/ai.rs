//! Runs the engine off the async runtime, a bounded number of searches at a time, served fairly
//! across players.
//!
//! A search is CPU-bound, so it runs on the blocking pool (`spawn_blocking`) holding a slot of
//! the fair queue ([`Requester`] says whose it is). The queue's promises:
//! - at most `--ai-concurrency` searches run at once, plus one *quick* search (a budget of at
//!   most [`QUICK_BUDGET`]: easy, medium, hard, hints) when they are all taken, so a light
//!   player's reply never waits for a master search to end (it briefly shares the cores with
//!   them instead: 50–300 ms of thinking);
//! - one search at a time per requester: a player's second request waits in that player's own
//!   queue (it is not refused: a client that plays several AI games at once is simply served in
//!   turn, and waiting there costs the others nothing, since the queue serves them first);
//! - when a slot frees, the requester served least recently gets it (round-robin over players,
//!   not first come first served over requests), so a player with many games waiting is served
//!   as often as one with a single move, and a newcomer goes first;
//! - a request waits at most `--ai-queue-timeout-ms`, then gets 503 AI_BUSY; a request whose
//!   client went away leaves the queue at once (its future is dropped, and with it its place).
//!
//! Each search gets its level's time budget and a stop flag, raised shortly after the budget
//! runs out or when the request is dropped (client gone, request timeout), so no search outlives
//! its request by much. The slot travels into the blocking task, so the cap counts searches
//! that are really running, not requests still waiting.
//!
//! Post-game analyses (see [`crate::analysis`]) search here too, one move at a time, each
//! analysis a requester of its own: nobody waits on them, so an analysed move waits for its slot
//! as long as it takes rather than failing, and analyses together hold at most `cap − 1` slots
//! (one with a cap of one), so a player's AI move or hint always has a slot that no analysis can
//! take. An analysis takes a slot again for every move, so it queues like anyone between moves.
//!
//! The queue is this process's only: with several instances each has its own cap and its own
//! round-robin (each serves the requests that reach it; the cores are per machine anyway).
//!
//! Every request that joins the queue and every search that starts is logged (`ai queued`, `ai
//! search`, at debug level, inside the request's span), which is how a test can count the
//! searches one request made, or know that a request is waiting.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use gomoku_engine::analysis::{analyse_move, MoveAnalysis};
use gomoku_engine::{Hint, Level, SearchOptions};
use gomoku_rules::opening::Step;
use gomoku_rules::{Game, Opening, PlayError, Point};
use tokio::sync::oneshot;

/// The hint's thinking time: short, since a person is waiting with nothing else to do.
pub const HINT_BUDGET: Duration = Duration::from_millis(300);

/// Searches with at most this budget may take the quick slot above the cap: every level but
/// master, and hints.
pub const QUICK_BUDGET: Duration = HINT_BUDGET;

/// The class a puzzle's searches take in the queue: they are bounded by a node limit rather
/// than a clock (see [`crate::puzzles`]), and may take a second or two, so they take one of the
/// cap's slots like a long search.
pub const PUZZLE_BUDGET: Duration = Duration::from_secs(2);

/// How long past its budget a search may run before the stop flag is raised.
const GRACE: Duration = Duration::from_millis(50);

/// The seed of analyses' searches: the same game analysed twice under a node limit gives the
/// same answers.
const ANALYSIS_SEED: u64 = 15;

/// Past this many remembered requesters, those with nothing queued or running are forgotten
/// (their next request counts as a newcomer's: a small unfairness, once, for a bounded map).
const REMEMBERED_REQUESTERS: usize = 1024;

/// Why the AI gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum AiError {
    /// No slot came free for this request before the queue deadline.
    #[error("every AI slot is taken")]
    Busy,
    /// The search task failed (a panic in the engine).
    #[error("the AI search failed: {0}")]
    Failed(String),
}

/// Whose search it is: the fair queue serves requesters in turn, one search each at a time.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Requester {
    /// A player (by id): their AI moves and hints.
    Player(String),
    /// The post-game analysis of a game (by id).
    Analysis(String),
}

#[derive(Debug, Clone)]
pub struct Ai {
    queue: Arc<FairQueue>,
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

/// Which slots a request may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A search over [`QUICK_BUDGET`]: one of the cap's slots.
    Long,
    /// A short search: one of the cap's slots, or the quick slot when they are all taken.
    Quick,
    /// An analysed move: one of the cap's slots, within the analyses' share.
    Analysis,
}

/// The fair queue: slots, the requests waiting for them, and who was served when.
#[derive(Debug)]
struct FairQueue {
    /// A std Mutex, not tokio's: nothing awaits while it is held, and a slot is given back
    /// from the blocking thread that ran the search.
    state: Mutex<QueueState>,
}

#[derive(Debug)]
struct QueueState {
    cap: usize,
    analysis_cap: usize,
    /// Slots of the cap taken.
    running: usize,
    /// Of those, taken by analyses.
    analyses: usize,
    /// Whether the quick slot is taken.
    quick: bool,
    /// Requesters with a search running (one each at most).
    busy: HashSet<Requester>,
    /// Requests waiting, in arrival order.
    waiting: Vec<Waiter>,
    /// When each requester was last given a slot (a count of grants; absent: never).
    served: HashMap<Requester, u64>,
    grants: u64,
    next_id: u64,
}

#[derive(Debug)]
struct Waiter {
    id: u64,
    requester: Requester,
    class: Class,
    grant: oneshot::Sender<Slot>,
}

/// A slot of the queue, held while a search runs; given back (and handed on) when dropped.
#[derive(Debug)]
struct Slot {
    queue: Arc<FairQueue>,
    requester: Requester,
    class: Class,
    /// Whether this is the quick slot rather than one of the cap's.
    quick: bool,
}

/// A request's place in the queue: leaves it when dropped before its slot came.
struct Place {
    queue: Arc<FairQueue>,
    id: u64,
}

impl FairQueue {
    fn new(cap: usize) -> FairQueue {
        let cap = cap.max(1);
        FairQueue {
            state: Mutex::new(QueueState {
                cap,
                analysis_cap: (cap - 1).max(1),
                running: 0,
                analyses: 0,
                quick: false,
                busy: HashSet::new(),
                waiting: Vec::new(),
                served: HashMap::new(),
                grants: 0,
                next_id: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        // A panic while the lock is held leaves counts that are still consistent (every change
        // under it is a few plain assignments), so a poisoned lock is used as it is.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a request at once (its place in the order is taken now); the returned future
    /// resolves with its slot.
    fn enqueue(
        self: &Arc<Self>,
        requester: Requester,
        class: Class,
    ) -> impl Future<Output = Result<Slot, AiError>> {
        tracing::debug!(?requester, "ai queued");
        let (grant, granted) = oneshot::channel();
        let place = {
            let mut state = self.lock();
            let id = state.next_id;
            state.next_id += 1;
            state.waiting.push(Waiter {
                id,
                requester,
                class,
                grant,
            });
            Place {
                queue: self.clone(),
                id,
            }
        };
        self.dispatch();
        async move {
            let slot = granted
                .await
                .map_err(|_| AiError::Failed("the AI queue dropped a request".into()));
            drop(place);
            slot
        }
    }

    /// Hands free slots to waiting requests, least recently served requester first. The
    /// grants are sent after the lock is released: a grant whose request has gone comes back
    /// and is dropped, which gives the slot back (and locks again).
    fn dispatch(self: &Arc<Self>) {
        let mut sends = Vec::new();
        {
            let mut state = self.lock();
            while let Some((waiter, quick)) = state.next_grant() {
                state.grants += 1;
                let grants = state.grants;
                state.served.insert(waiter.requester.clone(), grants);
                let slot = Slot {
                    queue: self.clone(),
                    requester: waiter.requester,
                    class: waiter.class,
                    quick,
                };
                sends.push((waiter.grant, slot));
            }
            state.forget_idle();
        }
        for (grant, slot) in sends {
            // A request that went away: its slot is dropped here, outside the lock.
            let _ = grant.send(slot);
        }
    }
}

impl QueueState {
    /// The next request to serve and whether it takes the quick slot, taken off the queue and
    /// counted as running; None when no waiting request can start now.
    fn next_grant(&mut self) -> Option<(Waiter, bool)> {
        let general = self.running < self.cap;
        let (index, _) = self
            .waiting
            .iter()
            .enumerate()
            .filter(|(_, w)| !self.busy.contains(&w.requester))
            .filter(|(_, w)| match w.class {
                Class::Long => general,
                Class::Quick => general || !self.quick,
                Class::Analysis => general && self.analyses < self.analysis_cap,
            })
            // Round-robin: the requester served least recently (never: first), then arrival.
            .min_by_key(|(_, w)| (self.served.get(&w.requester).copied().unwrap_or(0), w.id))?;
        let waiter = self.waiting.remove(index);
        self.busy.insert(waiter.requester.clone());
        let quick = !general;
        if quick {
            self.quick = true;
        } else {
            self.running += 1;
            if waiter.class == Class::Analysis {
                self.analyses += 1;
            }
        }
        Some((waiter, quick))
    }

    /// Keeps `served` bounded: past [`REMEMBERED_REQUESTERS`], only requesters with something
    /// queued or running stay.
    fn forget_idle(&mut self) {
        if self.served.len() > REMEMBERED_REQUESTERS {
            let active: HashSet<&Requester> = self
                .waiting
                .iter()
                .map(|w| &w.requester)
                .chain(&self.busy)
                .collect();
            self.served.retain(|r, _| active.contains(r));
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        {
            let mut state = self.queue.lock();
            if self.quick {
                state.quick = false;
            } else {
                state.running -= 1;
                if self.class == Class::Analysis {
                    state.analyses -= 1;
                }
            }
            state.busy.remove(&self.requester);
        }
        self.queue.dispatch();
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        // Still waiting: leave the queue. Already granted: the slot is in the channel, and
        // dropping the channel with it gives it back.
        self.queue.lock().waiting.retain(|w| w.id != self.id);
    }
}

impl Ai {
    pub fn new(concurrency: usize, queue_timeout: Duration, master_budget: Duration) -> Ai {
        Ai {
            queue: Arc::new(FairQueue::new(concurrency)),
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

    /// The AI's move for the side to move in `game`, searched for player `player_id`.
    pub async fn best_move(
        &self,
        player_id: &str,
        game: Game,
        level: Level,
    ) -> Result<Option<Point>, AiError> {
        self.run(player_id, self.budget(level), move |options| {
            gomoku_engine::best_move(&game, level, &options)
        })
        .await
    }

    /// The AI's steps for the seat to act in `opening` (see
    /// [`opening_turn`](gomoku_engine::opening_play::opening_turn)), judged for player
    /// `player_id` within `level`'s thinking time: one search, queued like a move's.
    pub async fn opening_turn(
        &self,
        player_id: &str,
        opening: Opening,
        level: Level,
    ) -> Result<Vec<Step>, AiError> {
        self.run(player_id, self.budget(level), move |options| {
            gomoku_engine::opening_play::opening_turn(&opening, &options)
        })
        .await
    }

    /// A suggestion for the side to move in `game`, for player `player_id`.
    pub async fn hint(&self, player_id: &str, game: Game) -> Result<Option<Hint>, AiError> {
        self.run(player_id, HINT_BUDGET, move |options| {
            gomoku_engine::hint(&game, &options)
        })
        .await
    }

    /// Runs a puzzle's searches (`work`, node-limited: it takes no stop flag) for player
    /// `player_id`, in the fair queue like the player's other searches.
    pub async fn puzzle<T, F>(&self, player_id: &str, work: F) -> Result<T, AiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.run(player_id, PUZZLE_BUDGET, move |_| work()).await
    }

    /// The analysis of the move `played` from the position `before` in game `game_id`'s
    /// analysis, within `budget`. Waits for a slot within the analyses' share as long as it
    /// takes; the slot is given back as soon as the move is analysed. The inner error is the
    /// rules' refusal of the move.
    pub async fn analyse_move(
        &self,
        game_id: &str,
        before: Game,
        played: Point,
        budget: AnalysisBudget,
    ) -> Result<Result<MoveAnalysis, PlayError>, AiError> {
        let requester = Requester::Analysis(game_id.to_string());
        let slot = self.queue.enqueue(requester, Class::Analysis).await?;
        self.search_with(
            slot,
            budget.time,
            ANALYSIS_SEED,
            budget.node_limit,
            move |options| analyse_move(&before, played, &options),
        )
        .await
    }

    /// Runs `search` for a player within `budget`, after waiting in the fair queue at most the
    /// queue timeout.
    async fn run<T, F>(&self, player_id: &str, budget: Duration, search: F) -> Result<T, AiError>
    where
        T: Send + 'static,
        F: FnOnce(SearchOptions) -> T + Send + 'static,
    {
        let class = if budget <= QUICK_BUDGET {
            Class::Quick
        } else {
            Class::Long
        };
        let requester = Requester::Player(player_id.to_string());
        // On timeout the wait is dropped, and the request leaves the queue with it.
        let slot = tokio::time::timeout(self.queue_timeout, self.queue.enqueue(requester, class))
            .await
            .map_err(|_| AiError::Busy)??;
        self.search_with(slot, budget, rand::random(), None, search)
            .await
    }

    /// Runs `search` on the blocking pool holding `slot`, with a stop flag raised shortly
    /// after `budget` or when the caller goes away.
    async fn search_with<T, F>(
        &self,
        slot: Slot,
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
            let _slot = slot;
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

    fn player(name: &str) -> Requester {
        Requester::Player(name.to_string())
    }

    /// A slot for `requester` now (the test holds it as a search would).
    async fn take(ai: &Ai, requester: Requester, class: Class) -> Slot {
        ai.queue.enqueue(requester, class).await.unwrap()
    }

    fn waiting(ai: &Ai) -> usize {
        ai.queue.lock().waiting.len()
    }

    /// When a slot frees, the requester served least recently gets it: with one slot and
    /// A's three requests queued before B's and C's, the order is A, B, C, A, A (round-robin
    /// over players), not A, A, A, B, C (first come, first served).
    #[tokio::test]
    async fn round_robin_over_players() {
        let ai = Ai::new(1, Duration::from_secs(5), Duration::from_millis(100));
        let held = take(&ai, player("x"), Class::Long).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for name in ["a", "a", "a", "b", "c"] {
            // Queued now, in this order; awaited by the task.
            let wait = ai.queue.enqueue(player(name), Class::Long);
            let order = order.clone();
            tasks.push(tokio::spawn(async move {
                let slot = wait.await.unwrap();
                order.lock().unwrap().push(name);
                drop(slot);
            }));
        }
        assert_eq!(waiting(&ai), 5);
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), ["a", "b", "c", "a", "a"]);
    }

    /// One search at a time per player: with two slots, A's second request waits while a
    /// slot is free, B's starts at once, and A's second starts when A's first ends.
    #[tokio::test]
    async fn one_search_per_player() {
        let ai = Ai::new(2, Duration::from_secs(5), Duration::from_millis(100));
        let first = take(&ai, player("a"), Class::Long).await;
        let mut second = Box::pin(ai.queue.enqueue(player("a"), Class::Long));
        assert!(futures_poll(&mut second).is_none(), "A's second waits");
        let b = tokio::time::timeout(
            Duration::from_secs(1),
            ai.queue.enqueue(player("b"), Class::Long),
        )
        .await
        .expect("B served at once")
        .unwrap();
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(1), second)
            .await
            .expect("A's second served once A's first ended")
            .unwrap();
        drop((b, second));
        assert_eq!(ai.queue.lock().running, 0);
    }

    /// Polls a future once: its output if it is ready.
    fn futures_poll<F: Future + Unpin>(f: &mut F) -> Option<F::Output> {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        match std::pin::Pin::new(f).poll(&mut cx) {
            std::task::Poll::Ready(out) => Some(out),
            std::task::Poll::Pending => None,
        }
    }

    /// A request waits at most the queue timeout, gets AI_BUSY and leaves the queue; a
    /// request dropped while waiting (client gone) leaves it too, and one dropped after its
    /// slot came but before it ran gives the slot back.
    #[tokio::test]
    async fn timeout_and_cancellation_leave_the_queue() {
        let ai = Ai::new(1, Duration::from_millis(50), Duration::from_millis(500));
        let held = take(&ai, player("x"), Class::Long).await;
        let started = std::time::Instant::now();
        let result = ai.run("a", Duration::from_secs(1), |_| 1).await;
        assert!(matches!(result, Err(AiError::Busy)));
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert_eq!(waiting(&ai), 0, "the timed-out request left the queue");

        let gone = ai.queue.enqueue(player("b"), Class::Long);
        assert_eq!(waiting(&ai), 1);
        drop(gone);
        assert_eq!(waiting(&ai), 0, "the dropped request left the queue");

        let never_polled = ai.queue.enqueue(player("c"), Class::Long);
        drop(held);
        assert_eq!(waiting(&ai), 0);
        assert_eq!(ai.queue.lock().running, 1, "the slot went to C's request");
        drop(never_polled);
        assert_eq!(
            ai.queue.lock().running,
            0,
            "and came back when it was dropped"
        );
        assert_eq!(
            ai.run("d", Duration::from_millis(10), |_| 7).await.unwrap(),
            7
        );
    }

    /// With every slot of the cap taken, one short search runs in the quick slot at once; a
    /// second short one and a long one wait.
    #[tokio::test]
    async fn quick_slot_above_the_cap() {
        let ai = Ai::new(1, Duration::from_millis(100), Duration::from_millis(500));
        let _master = take(&ai, player("m"), Class::Long).await;
        let easy = ai.run("e", Level::Easy.default_budget(), |_| 1);
        let (easy, long, second) =
            tokio::join!(easy, ai.run("l", Duration::from_secs(1), |_| 2), async {
                let _quick = take(&ai, player("q"), Class::Quick).await;
                ai.run("s", HINT_BUDGET, |_| 3).await
            });
        assert_eq!(easy.unwrap(), 1);
        assert!(matches!(long, Err(AiError::Busy)));
        assert!(matches!(second, Err(AiError::Busy)));
    }

    /// The stop flag is raised once the budget and its grace have passed.
    #[tokio::test]
    async fn stop_flag_raised_after_budget() {
        let ai = Ai::new(1, Duration::from_secs(1), Duration::from_millis(100));
        let stopped_in_time = ai
            .run("a", Duration::from_millis(20), |options| {
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
        let analysis = Requester::Analysis("g1".to_string());
        let held = take(&ai, analysis, Class::Analysis).await;
        assert_eq!(ai.run("a", Duration::from_secs(1), |_| 7).await.unwrap(), 7);
        let waiting = tokio::time::timeout(
            Duration::from_millis(200),
            ai.analyse_move("g2", opening.clone(), centre, budget),
        )
        .await;
        assert!(
            waiting.is_err(),
            "the next analysed move waits for the slot"
        );
        drop(held);
        let analysed = ai.analyse_move("g2", opening.clone(), centre, budget).await;
        assert_eq!(analysed.unwrap().unwrap().best, centre);

        let one = Ai::new(1, Duration::from_millis(50), Duration::from_millis(100));
        assert_eq!(one.queue.lock().analysis_cap, 1);
        let analysed = one.analyse_move("g3", opening, centre, budget).await;
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
