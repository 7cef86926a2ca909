//! The single writer: every write of the service goes through one connection owned by one task,
//! which commits the writes waiting at the same moment together (group commit).
//!
//! SQLite admits one writer at a time and, at `synchronous=FULL`, pays one fsync per commit.
//! Committing each move on its own would make 16 concurrent players queue behind 16 fsyncs;
//! committing whatever is queued as one transaction pays one fsync for all of them. Nobody is
//! answered before the commit that holds their write has succeeded, so an acknowledged write is a
//! durable write.
//!
//! The batch is the one thing here that runs in series, so it holds nothing but the writes'
//! statements, and as few trips to the connection as it can. Every call on the connection is a
//! round trip to its thread (two thread wake-ups), and a profile under load showed the batch's
//! time going to those round trips more than to the fsync: about 140 µs a write against 2 ms for
//! the commit of ten. So a write that knows its statements in advance is *planned*: it adds them
//! to the batch's [`Script`], and the whole script (the `BEGIN`, every planned write, and the
//! `COMMIT` when nothing else is in the batch) runs in one call; the write then reads its share
//! of the results, which cannot fail (what a write decides from them, such as "the game changed
//! meanwhile", is a value). A write that must look before it writes (a cap on unfinished games, a
//! name to read) runs its own statements on the connection after the script, one call each.
//! Writes of one batch were all queued before any of them was answered, so running the planned
//! ones first is an order they could have arrived in.
//!
//! No write gets a savepoint of its own. A write that fails instead costs a retry: the
//! transaction is rolled back (the failed write may have done half of what it meant to), that
//! write is answered with its own error, and the others run again in a new transaction. The
//! outcome is the same as with a savepoint per write, or as if each write had run alone in the
//! batch's order: the failed ones leave nothing, the others all land. Writes may therefore run
//! more than once, and only their last run counts. Failures are rare, since the expected outcomes
//! of a write (a game changed meanwhile, a cap reached) are values, not errors.
//!
//! A write that has waited longer than the busy timeout before its batch starts fails as busy:
//! that bounds how long a request waits while another process holds the database.
//!
//! A panic in a write (a bug) must not take the writer down with it, or every later write would
//! fail: the loop catches it, rolls the whole batch back and goes on with the next one. The
//! writes of that batch are dropped unanswered, which their callers see as a failed write (500
//! INTERNAL at the HTTP edge). A panic in a commit hook fails only that hook's write, whose batch
//! is committed by then.
//!
//! The writer knows nothing of the tables or of the store's errors: it is generic over what it
//! needs of a connection ([`Batching`]: a script it can run in one call, a transaction it can
//! commit and roll back), and over each write's result and error type, which only has to take in
//! the writer's own [`WriteFailed`] (and the connection's error, for a planned write). SQLite's
//! connection is the one [`Batching`] today (in [`sqlite`](super::sqlite)).

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::{pin, Pin};
use std::task::Poll;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

/// Most writes committed in one transaction.
const MAX_BATCH: usize = 128;
/// Writes waiting for the writer before senders wait too.
const QUEUE: usize = 4096;

/// A future borrowing the connection.
pub type BoxFuture<'c, T> = Pin<Box<dyn Future<Output = T> + Send + 'c>>;

/// The statements the writer itself sends after the writes (the `BEGIN` is the script's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Commit,
    /// Abandons the whole transaction.
    Rollback,
}

/// Statements of several planned writes, gathered to run in one call.
pub trait Script: Default + Send + 'static {
    /// Closes the statements of one write: those added next are the next write's.
    fn end_write(&mut self);
}

/// Where a script's run stopped.
#[derive(Debug)]
pub enum Stopped<E> {
    /// The transaction could not begin.
    Begin(E),
    /// A statement of this planned write (its index in the script) failed.
    Write(usize, E),
    /// The commit at the end of the script failed.
    Commit(E),
}

/// What a script's run gave: each planned write's results, in the script's order, or where it
/// stopped.
pub type Ran<R, E> = Result<Vec<R>, Stopped<E>>;

/// What the writer needs of its connection.
pub trait Batching: Send + 'static {
    type Error: std::fmt::Display + Send;
    type Script: Script;
    /// What one planned write's statements gave.
    type Results: Send;
    /// Begins the batch's transaction, taking the write lock, and runs `script`, then commits
    /// if `commit`, all in one call: each planned write's results, in the script's order.
    fn run(
        &mut self,
        script: Self::Script,
        commit: bool,
    ) -> BoxFuture<'_, Ran<Self::Results, Self::Error>>;
    fn step(&mut self, step: Step) -> BoxFuture<'_, Result<(), Self::Error>>;
    /// Whether a failure means "another process holds the database" (worth retrying).
    fn is_busy(error: &Self::Error) -> bool;
    fn close(self) -> BoxFuture<'static, ()>;
}

/// Why the writer could not carry out a write (the write's own errors are its own type).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteFailed {
    /// The database stayed locked by another process past the busy timeout.
    #[error("the database is busy")]
    Busy,
    /// The batch failed as a whole (or panicked), a commit hook panicked, or the writer stopped.
    #[error("write batch failed: {0}")]
    Batch(String),
}

/// One queued write, its result and error types erased.
trait Task<C: Batching>: Send {
    /// Adds the write's statements to the batch's script; false for a write that runs its own
    /// ([`Task::run`]), leaving the script as it was.
    fn plan(&self, script: &mut C::Script) -> bool;
    /// Whether [`Task::plan`] adds to the script.
    fn planned(&self) -> bool;
    /// Takes in what its planned statements gave, or the error of the one that failed.
    fn read(&mut self, results: Result<C::Results, C::Error>);
    /// Runs the write (again, after a rollback) and keeps what it gave; whether it succeeded.
    fn run<'a>(&'a mut self, conn: &'a mut C) -> BoxFuture<'a, bool>;
    /// Answers the caller now that the fate of its transaction is known: with the write's own
    /// error if its last run failed, whatever `committed` says; otherwise with its result once
    /// committed (running its commit hook first), or with the reason it was not.
    fn finish(self: Box<Self>, committed: Result<(), WriteFailed>);
    fn enqueued(&self) -> Instant;
}

/// Runs in the writer task right after the commit that made a write durable, before its caller
/// hears of it: such hooks therefore run in commit order.
pub type OnCommit<T> = Box<dyn FnOnce(&T) + Send>;

/// What every queued write carries: where its answer goes, and what its last run gave.
struct Answer<T, E> {
    on_commit: Option<OnCommit<T>>,
    reply: oneshot::Sender<Result<T, E>>,
    enqueued: Instant,
    /// What the last run gave; None until the write has run.
    outcome: Option<Result<T, E>>,
}

impl<T, E: From<WriteFailed>> Answer<T, E> {
    fn new(on_commit: Option<OnCommit<T>>, reply: oneshot::Sender<Result<T, E>>) -> Self {
        Answer {
            on_commit,
            reply,
            enqueued: Instant::now(),
            outcome: None,
        }
    }

    /// Whether the last run succeeded.
    fn ran(&self) -> bool {
        matches!(self.outcome, Some(Ok(_)))
    }

    fn finish(self, committed: Result<(), WriteFailed>) {
        let Answer {
            on_commit,
            reply,
            outcome,
            ..
        } = self;
        let mut answer = match (outcome, committed) {
            (Some(Err(own)), _) => Err(own),
            (Some(Ok(value)), Ok(())) => Ok(value),
            (_, Err(why)) => Err(E::from(why)),
            (None, Ok(())) => Err(E::from(WriteFailed::Batch("the write never ran".into()))),
        };
        if let (Ok(value), Some(hook)) = (&answer, on_commit) {
            // Caught here rather than by the batch, so that the other writes of the batch, which
            // are committed too, still run their hooks and hear of it.
            if let Err(panic) = catch_unwind(AssertUnwindSafe(|| hook(value))) {
                tracing::error!(panic = panic_message(&*panic), "a commit hook panicked");
                answer = Err(WriteFailed::Batch("a commit hook panicked".into()).into());
            }
        }
        // A caller that has gone away (client disconnected) no longer needs the answer.
        let _ = reply.send(answer);
    }
}

/// A write that runs its own statements on the connection.
struct Pending<F, T, E> {
    work: F,
    answer: Answer<T, E>,
}

impl<C, F, T, E> Task<C> for Pending<F, T, E>
where
    C: Batching,
    F: for<'c> FnMut(&'c mut C) -> BoxFuture<'c, Result<T, E>> + Send + 'static,
    T: Send + 'static,
    E: From<WriteFailed> + Send + 'static,
{
    fn plan(&self, _: &mut C::Script) -> bool {
        false
    }

    fn planned(&self) -> bool {
        false
    }

    fn read(&mut self, _: Result<C::Results, C::Error>) {
        // Never planned, so never given results.
        self.answer.outcome = Some(Err(E::from(WriteFailed::Batch(
            "results for an unplanned write".into(),
        ))));
    }

    fn run<'a>(&'a mut self, conn: &'a mut C) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            self.answer.outcome = Some((self.work)(conn).await);
            self.answer.ran()
        })
    }

    fn finish(self: Box<Self>, committed: Result<(), WriteFailed>) {
        self.answer.finish(committed)
    }

    fn enqueued(&self) -> Instant {
        self.answer.enqueued
    }
}

/// A write whose statements go into the batch's script.
struct Planned<P, R, T, E> {
    plan: P,
    read: R,
    answer: Answer<T, E>,
}

impl<C, P, R, T, E> Task<C> for Planned<P, R, T, E>
where
    C: Batching,
    P: Fn(&mut C::Script) + Send + 'static,
    R: FnMut(C::Results) -> T + Send + 'static,
    T: Send + 'static,
    E: From<WriteFailed> + From<C::Error> + Send + 'static,
{
    fn plan(&self, script: &mut C::Script) -> bool {
        (self.plan)(script);
        script.end_write();
        true
    }

    fn planned(&self) -> bool {
        true
    }

    fn read(&mut self, results: Result<C::Results, C::Error>) {
        self.answer.outcome = Some(match results {
            Ok(results) => Ok((self.read)(results)),
            Err(e) => Err(E::from(e)),
        });
    }

    fn run<'a>(&'a mut self, _: &'a mut C) -> BoxFuture<'a, bool> {
        // Planned writes run in the script, never on their own.
        self.answer.outcome = Some(Err(E::from(WriteFailed::Batch(
            "a planned write run on its own".into(),
        ))));
        Box::pin(std::future::ready(false))
    }

    fn finish(self: Box<Self>, committed: Result<(), WriteFailed>) {
        self.answer.finish(committed)
    }

    fn enqueued(&self) -> Instant {
        self.answer.enqueued
    }
}

/// The handle through which writes are queued. Cheap to clone.
pub struct Writer<C: Batching> {
    queue: mpsc::Sender<Box<dyn Task<C>>>,
}

impl<C: Batching> Clone for Writer<C> {
    fn clone(&self) -> Self {
        Writer {
            queue: self.queue.clone(),
        }
    }
}

impl<C: Batching> std::fmt::Debug for Writer<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl<C: Batching> Writer<C> {
    /// Starts the writer task on `conn`; `committed` runs in it after each batch it commits
    /// (and is dropped when it stops).
    pub fn start(
        conn: C,
        busy_timeout: Duration,
        committed: impl Fn() + Send + 'static,
    ) -> Writer<C> {
        let (queue, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(write_loop(conn, receiver, busy_timeout, committed));
        Writer { queue }
    }

    /// Runs `work` in the next batch and returns its result once that batch has committed.
    /// `work` may run more than once (when another write of its batch fails, the batch is rolled
    /// back and run again without it); only its last run is committed, so it must act through
    /// the connection alone and work out everything else before it is queued.
    pub async fn write<F, T, E>(&self, work: F) -> Result<T, E>
    where
        F: for<'c> FnMut(&'c mut C) -> BoxFuture<'c, Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<WriteFailed> + Send + 'static,
    {
        self.write_then(work, None).await
    }

    /// Like [`Writer::write`], and runs `on_commit` with the result in the writer task once the
    /// write is committed, before answering: hooks of successive writes run in commit order.
    pub async fn write_then<F, T, E>(&self, work: F, on_commit: Option<OnCommit<T>>) -> Result<T, E>
    where
        F: for<'c> FnMut(&'c mut C) -> BoxFuture<'c, Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<WriteFailed> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let answer_to = Answer::new(on_commit, reply);
        self.queue(
            Box::new(Pending {
                work,
                answer: answer_to,
            }),
            answer,
        )
        .await
    }

    /// Runs a planned write in the next batch: `plan` adds its statements to the batch's script
    /// (again on a rerun), and `read` makes its result of what they gave once they have run
    /// (once per run; only the last run counts). Answers once the batch has committed, running
    /// `on_commit` first as [`Writer::write_then`] does. A statement that fails fails the write
    /// with the connection's error.
    pub async fn plan<P, R, T, E>(
        &self,
        plan: P,
        read: R,
        on_commit: Option<OnCommit<T>>,
    ) -> Result<T, E>
    where
        P: Fn(&mut C::Script) + Send + 'static,
        R: FnMut(C::Results) -> T + Send + 'static,
        T: Send + 'static,
        E: From<WriteFailed> + From<C::Error> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let answer_to = Answer::new(on_commit, reply);
        self.queue(
            Box::new(Planned {
                plan,
                read,
                answer: answer_to,
            }),
            answer,
        )
        .await
    }

    /// Queues `task` and waits for its answer on `answer`.
    async fn queue<T, E: From<WriteFailed>>(
        &self,
        task: Box<dyn Task<C>>,
        answer: oneshot::Receiver<Result<T, E>>,
    ) -> Result<T, E> {
        if self.queue.send(task).await.is_err() {
            return Err(WriteFailed::Batch("the writer has stopped".into()).into());
        }
        // Dropped unanswered: its batch panicked.
        match answer.await {
            Ok(result) => result,
            Err(_) => Err(WriteFailed::Batch("the writer dropped a write".into()).into()),
        }
    }
}

/// A failure of the batch as a whole, for every write in it.
fn batch_error<C: Batching>(e: &C::Error) -> WriteFailed {
    if C::is_busy(e) {
        WriteFailed::Busy
    } else {
        WriteFailed::Batch(e.to_string())
    }
}

async fn write_loop<C: Batching>(
    mut conn: C,
    mut receiver: mpsc::Receiver<Box<dyn Task<C>>>,
    busy_timeout: Duration,
    committed: impl Fn(),
) {
    while let Some(first) = receiver.recv().await {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(task) => batch.push(task),
                Err(_) => break,
            }
        }
        // Writes that already waited out the busy timeout (behind a batch that was itself
        // waiting for another process's lock) give up rather than wait a second time.
        let (stale, batch): (Vec<_>, Vec<_>) = batch
            .into_iter()
            .partition(|t| t.enqueued().elapsed() > busy_timeout);
        for task in stale {
            task.finish(Err(WriteFailed::Busy));
        }
        if batch.is_empty() {
            continue;
        }
        let writes = batch.len();
        match catch_panic(run_batch(&mut conn, batch)).await {
            Ok(true) => committed(),
            Ok(false) => {}
            Err(panic) => {
                tracing::error!(
                    panic = panic_message(&*panic),
                    writes,
                    "a write batch panicked; rolling it back"
                );
                // Fails harmlessly if the panic came after the commit, or before BEGIN.
                let _ = conn.step(Step::Rollback).await;
            }
        }
    }
    conn.close().await;
}

/// Runs `future` to completion, or up to a panic inside it, which is returned as an error
/// instead of unwinding through the writer task. What is left of `future` after a panic is
/// dropped, never polled again.
async fn catch_panic<F: Future>(future: F) -> Result<F::Output, Box<dyn Any + Send>> {
    let mut future = pin!(future);
    // Unwind safety: after a panic the future is dropped and the connection it borrowed is
    // rolled back, so no half-updated state is used again.
    std::future::poll_fn(
        |cx| match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(panic) => Poll::Ready(Err(panic)),
        },
    )
    .await
}

/// The message of a panic, when it has one.
fn panic_message(panic: &(dyn Any + Send)) -> &str {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s
    } else {
        "(no message)"
    }
}

/// Answers every write of a batch with the batch's fate.
fn finish_all<C: Batching>(batch: Vec<Box<dyn Task<C>>>, committed: Result<(), WriteFailed>) {
    for task in batch {
        task.finish(committed.clone());
    }
}

/// Runs the batch in one transaction and answers every write in it: the planned writes first,
/// in one call with the `BEGIN` (and the `COMMIT`, when there is no other write), then each of
/// the others. Each pass ends in a commit, in a failure of the whole batch, or in the rollback of
/// a pass where one write failed: that write is answered and the next pass runs the others
/// again, so a batch takes at most one pass per failed write more than one. Whether it committed.
async fn run_batch<C: Batching>(conn: &mut C, mut batch: Vec<Box<dyn Task<C>>>) -> bool {
    // Stable: the planned writes, then the others, each in the order they came.
    batch.sort_by_key(|task| !task.planned());
    while !batch.is_empty() {
        let mut script = C::Script::default();
        let mut planned = 0;
        for task in &batch {
            if !task.plan(&mut script) {
                break;
            }
            planned += 1;
        }
        let commit_in_script = planned == batch.len();
        let mut failed = None;
        match conn.run(script, commit_in_script).await {
            Ok(results) => {
                for (task, results) in batch.iter_mut().zip(results) {
                    task.read(Ok(results));
                }
            }
            Err(Stopped::Begin(e)) => {
                tracing::warn!(error = %e, writes = batch.len(), "could not start a write batch");
                finish_all(batch, Err(batch_error::<C>(&e)));
                return false;
            }
            Err(Stopped::Write(i, e)) => {
                batch[i].read(Err(e));
                failed = Some(i);
            }
            Err(Stopped::Commit(e)) => {
                tracing::warn!(error = %e, "write batch failed; rolling back");
                let _ = conn.step(Step::Rollback).await;
                finish_all(batch, Err(batch_error::<C>(&e)));
                return false;
            }
        }
        if failed.is_none() {
            for (i, task) in batch.iter_mut().enumerate().skip(planned) {
                if !task.run(conn).await {
                    failed = Some(i);
                    break;
                }
            }
        }
        let Some(failed) = failed else {
            let committed = if commit_in_script {
                Ok(())
            } else {
                conn.step(Step::Commit).await.map_err(|e| {
                    tracing::warn!(error = %e, "write batch failed; rolling back");
                    batch_error::<C>(&e)
                })
            };
            if committed.is_err() {
                let _ = conn.step(Step::Rollback).await;
            }
            let done = committed.is_ok();
            finish_all(batch, committed);
            return done;
        };
        let rolled_back = conn.step(Step::Rollback).await;
        batch
            .remove(failed)
            .finish(Err(WriteFailed::Batch("rolled back".into())));
        if let Err(e) = rolled_back {
            tracing::warn!(error = %e, "could not roll back a failed write");
            finish_all(batch, Err(batch_error::<C>(&e)));
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::{Done, Script};
    use sqlx::{Connection, Row, SqliteConnection};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    type Writer = super::Writer<SqliteConnection>;

    /// What the test writes fail with: their own statement, or the writer.
    #[derive(Debug)]
    enum TestError {
        Sql,
        Write(WriteFailed),
    }

    impl From<sqlx::Error> for TestError {
        fn from(_: sqlx::Error) -> TestError {
            TestError::Sql
        }
    }

    impl From<WriteFailed> for TestError {
        fn from(e: WriteFailed) -> TestError {
            TestError::Write(e)
        }
    }

    /// A writer on a fresh in-memory database with one table `t (x)`.
    async fn writer_on_table() -> Writer {
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.unwrap();
        sqlx::query("create table t (x integer primary key)")
            .execute(&mut conn)
            .await
            .unwrap();
        Writer::start(conn, Duration::from_secs(5), || {})
    }

    async fn insert(writer: &Writer, x: i64) -> Result<(), TestError> {
        writer
            .write(move |conn| {
                Box::pin(async move {
                    sqlx::query("insert into t (x) values (?)")
                        .bind(x)
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    /// Writes queued together share a batch, and one that fails is rolled back alone.
    #[tokio::test]
    async fn a_failed_write_does_not_sink_its_batch() {
        let writer = writer_on_table().await;
        insert(&writer, 1).await.unwrap();
        let (a, b, c) = tokio::join!(insert(&writer, 2), insert(&writer, 1), insert(&writer, 3));
        assert!(a.is_ok() && c.is_ok());
        assert!(matches!(b, Err(TestError::Sql)));
        assert_eq!(all(&writer).await, vec![1, 2, 3]);
    }

    /// A write that fails halfway (its first insert done, its second refused) leaves nothing,
    /// and the writes of its batch end as if each had run alone in queue order: the one before
    /// it runs again after the rollback and lands once, the one after it sees that write and not
    /// the failed one's half.
    #[tokio::test]
    async fn a_half_done_write_is_undone_and_the_others_run_as_in_order() {
        let writer = writer_on_table().await;
        insert(&writer, 1).await.unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = runs.clone();
        let before = writer.write::<_, (), TestError>(move |conn| {
            counted.fetch_add(1, Ordering::Relaxed);
            Box::pin(async move {
                sqlx::query("insert into t (x) values (2)")
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            })
        });
        let half_done = writer.write::<_, (), TestError>(|conn| {
            Box::pin(async move {
                sqlx::query("insert into t (x) values (10)")
                    .execute(&mut *conn)
                    .await?;
                sqlx::query("insert into t (x) values (1)")
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            })
        });
        let count = writer.write::<_, i64, TestError>(|conn| {
            Box::pin(async move {
                Ok(sqlx::query_scalar("select count(*) from t")
                    .fetch_one(&mut *conn)
                    .await?)
            })
        });
        let (before, failed, seen) = tokio::join!(before, half_done, count);
        before.unwrap();
        assert_eq!(runs.load(Ordering::Relaxed), 2, "one batch, run twice");
        assert!(matches!(failed, Err(TestError::Sql)));
        assert_eq!(seen.unwrap(), 2, "1 and 2, not the failed write's 10");
        assert_eq!(all(&writer).await, vec![1, 2]);
    }

    async fn all(writer: &Writer) -> Vec<i64> {
        writer
            .write::<_, _, TestError>(|conn| {
                Box::pin(async move {
                    Ok(sqlx::query_scalar("select x from t order by x")
                        .fetch_all(&mut *conn)
                        .await?)
                })
            })
            .await
            .unwrap()
    }

    /// A write that panics fails, takes its unanswered batch with it (rolled back, so nothing
    /// acknowledged is lost and nothing unacknowledged lands), and the writer goes on serving.
    #[tokio::test]
    async fn the_writer_survives_a_panicking_write() {
        let writer = writer_on_table().await;
        let panicking = writer.write::<_, (), TestError>(|conn| {
            Box::pin(async move {
                sqlx::query("insert into t (x) values (99)")
                    .execute(&mut *conn)
                    .await?;
                panic!("a bug in a write");
            })
        });
        let (a, boom, c) = tokio::join!(insert(&writer, 1), panicking, insert(&writer, 2));
        assert!(matches!(boom, Err(TestError::Write(WriteFailed::Batch(_)))));
        let acknowledged: Vec<i64> = [(1, a), (2, c)]
            .into_iter()
            .filter_map(|(x, r)| r.is_ok().then_some(x))
            .collect();
        assert_eq!(all(&writer).await, acknowledged);
        insert(&writer, 3).await.unwrap();
        assert!(all(&writer).await.contains(&3));
    }

    /// A planned write adding `statements` (binding `xs` in order); its result is what each
    /// statement changed.
    async fn planned(
        writer: &Writer,
        statements: &'static str,
        count: usize,
        xs: Vec<i64>,
    ) -> Result<Vec<u64>, TestError> {
        writer
            .plan(
                move |script: &mut Script| {
                    script.add(statements, count, |args| {
                        xs.iter().try_for_each(|&x| sqlx::Arguments::add(args, x))
                    })
                },
                |done: Vec<Done>| done.iter().map(|d| d.changes).collect(),
                None,
            )
            .await
    }

    /// Planned writes and writes that run their own statements share a batch; a planned write
    /// that fails halfway (its first insert done, its second refused) leaves nothing, and the
    /// others land, the planned ones before the rest.
    #[tokio::test]
    async fn a_failed_planned_write_is_undone_alone() {
        let writer = writer_on_table().await;
        insert(&writer, 1).await.unwrap();
        let two = "insert into t (x) values (?); insert into t (x) values (?);";
        let one = "insert into t (x) values (?);";
        let (a, half_done, b, c) = tokio::join!(
            planned(&writer, one, 1, vec![2]),
            planned(&writer, two, 2, vec![10, 1]),
            insert(&writer, 3),
            planned(&writer, two, 2, vec![4, 5]),
        );
        assert_eq!(a.unwrap(), vec![1]);
        assert!(matches!(half_done, Err(TestError::Sql)));
        b.unwrap();
        assert_eq!(c.unwrap(), vec![1, 1]);
        assert_eq!(all(&writer).await, vec![1, 2, 3, 4, 5]);
    }

    /// A planned write reads the rows its statements return, as of its place in the batch.
    #[tokio::test]
    async fn a_planned_write_reads_its_rows() {
        let writer = writer_on_table().await;
        let count = writer.plan::<_, _, _, TestError>(
            |script: &mut Script| script.add("select count(*) from t;", 1, |_| Ok(())),
            |done: Vec<Done>| done[0].rows[0].get::<i64, _>(0),
            None,
        );
        let (before, seen) = tokio::join!(
            planned(&writer, "insert into t (x) values (?);", 1, vec![7]),
            count
        );
        before.unwrap();
        assert_eq!(seen.unwrap(), 1);
    }

    /// A panicking commit hook fails only its own write; the batch stays committed.
    #[tokio::test]
    async fn a_panicking_hook_fails_only_its_write() {
        let writer = writer_on_table().await;
        let hooked = writer.write_then::<_, _, TestError>(
            |conn| {
                Box::pin(async move {
                    sqlx::query("insert into t (x) values (1)")
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            },
            Some(Box::new(|_: &()| panic!("a bug in a hook"))),
        );
        let (hooked, other) = tokio::join!(hooked, insert(&writer, 2));
        assert!(matches!(
            hooked,
            Err(TestError::Write(WriteFailed::Batch(_)))
        ));
        other.unwrap();
        assert_eq!(all(&writer).await, vec![1, 2]);
    }
}
