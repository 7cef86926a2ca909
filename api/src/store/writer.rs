//! The single writer: every write of the service goes through one connection owned by one task,
//! which commits the writes waiting at the same moment together (group commit).
//!
//! SQLite admits one writer at a time and, at `synchronous=FULL`, pays one fsync per commit.
//! Committing each move on its own would make 16 concurrent players queue behind 16 fsyncs;
//! committing whatever is queued as one transaction pays one fsync for all of them. Each write
//! runs inside its own savepoint, so a write that fails (or finds its game changed) is rolled
//! back alone while the others in the batch still land. Nobody is answered before the commit
//! that holds their write has succeeded, so an acknowledged write is a durable write.
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
//! needs of a connection ([`Batching`]: a transaction holding several writes, each in a savepoint
//! it can undo alone), and over each write's result and error type, which only has to take in the
//! writer's own [`WriteFailed`]. SQLite's connection is the one [`Batching`] today (in
//! [`sqlite`](super::sqlite)).

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

/// The statements the writer itself sends around the writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Starts the batch's transaction, taking the write lock.
    Begin,
    /// Marks the start of one write.
    Savepoint,
    /// Undoes the newest write alone.
    RollbackToSavepoint,
    Commit,
    /// Abandons the whole batch.
    Rollback,
}

/// What the writer needs of its connection.
pub trait Batching: Send + 'static {
    type Error: std::fmt::Display + Send;
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
trait Task<C>: Send {
    /// Runs the write; on success, what to do once the batch is committed (or not).
    fn run<'c>(self: Box<Self>, conn: &'c mut C) -> BoxFuture<'c, Option<Box<dyn Finish>>>;
    /// The batch could not start: answer with this error.
    fn fail(self: Box<Self>, error: WriteFailed);
    fn enqueued(&self) -> Instant;
}

/// A write that ran; answers its caller once the fate of the batch is known.
trait Finish: Send {
    fn finish(self: Box<Self>, committed: Result<(), WriteFailed>);
}

/// Runs in the writer task right after the commit that made a write durable, before its caller
/// hears of it: such hooks therefore run in commit order.
pub type OnCommit<T> = Box<dyn FnOnce(&T) + Send>;

struct Pending<F, T, E> {
    work: F,
    on_commit: Option<OnCommit<T>>,
    reply: oneshot::Sender<Result<T, E>>,
    enqueued: Instant,
}

struct Ran<T, E> {
    value: T,
    on_commit: Option<OnCommit<T>>,
    reply: oneshot::Sender<Result<T, E>>,
}

impl<T: Send, E: From<WriteFailed> + Send> Finish for Ran<T, E> {
    fn finish(self: Box<Self>, committed: Result<(), WriteFailed>) {
        let Ran {
            value,
            on_commit,
            reply,
        } = *self;
        let mut answer = committed.map(|()| value).map_err(E::from);
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

impl<C, F, T, E> Task<C> for Pending<F, T, E>
where
    C: Send + 'static,
    F: for<'c> FnOnce(&'c mut C) -> BoxFuture<'c, Result<T, E>> + Send + 'static,
    T: Send + 'static,
    E: From<WriteFailed> + Send + 'static,
{
    fn run<'c>(self: Box<Self>, conn: &'c mut C) -> BoxFuture<'c, Option<Box<dyn Finish>>> {
        Box::pin(async move {
            let Pending {
                work,
                on_commit,
                reply,
                ..
            } = *self;
            match work(conn).await {
                Ok(value) => Some(Box::new(Ran {
                    value,
                    on_commit,
                    reply,
                }) as Box<dyn Finish>),
                Err(e) => {
                    let _ = reply.send(Err(e));
                    None
                }
            }
        })
    }

    fn fail(self: Box<Self>, error: WriteFailed) {
        let _ = self.reply.send(Err(error.into()));
    }

    fn enqueued(&self) -> Instant {
        self.enqueued
    }
}

/// The handle through which writes are queued. Cheap to clone.
pub struct Writer<C> {
    queue: mpsc::Sender<Box<dyn Task<C>>>,
}

impl<C> Clone for Writer<C> {
    fn clone(&self) -> Self {
        Writer {
            queue: self.queue.clone(),
        }
    }
}

impl<C> std::fmt::Debug for Writer<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl<C: Batching> Writer<C> {
    /// Starts the writer task on `conn`.
    pub fn start(conn: C, busy_timeout: Duration) -> Writer<C> {
        let (queue, receiver) = mpsc::channel(QUEUE);
        tokio::spawn(write_loop(conn, receiver, busy_timeout));
        Writer { queue }
    }

    /// Runs `work` in the next batch and returns its result once that batch has committed.
    /// `work` must leave the connection as it found it on error; its savepoint is rolled back.
    pub async fn write<F, T, E>(&self, work: F) -> Result<T, E>
    where
        F: for<'c> FnOnce(&'c mut C) -> BoxFuture<'c, Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<WriteFailed> + Send + 'static,
    {
        self.write_then(work, None).await
    }

    /// Like [`Writer::write`], and runs `on_commit` with the result in the writer task once the
    /// write is committed, before answering: hooks of successive writes run in commit order.
    pub async fn write_then<F, T, E>(&self, work: F, on_commit: Option<OnCommit<T>>) -> Result<T, E>
    where
        F: for<'c> FnOnce(&'c mut C) -> BoxFuture<'c, Result<T, E>> + Send + 'static,
        T: Send + 'static,
        E: From<WriteFailed> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let task = Box::new(Pending {
            work,
            on_commit,
            reply,
            enqueued: Instant::now(),
        });
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
            task.fail(WriteFailed::Busy);
        }
        if batch.is_empty() {
            continue;
        }
        let writes = batch.len();
        if let Err(panic) = catch_panic(run_batch(&mut conn, batch)).await {
            tracing::error!(
                panic = panic_message(&*panic),
                writes,
                "a write batch panicked; rolling it back"
            );
            // Fails harmlessly if the panic came after the commit, or before BEGIN.
            let _ = conn.step(Step::Rollback).await;
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

async fn run_batch<C: Batching>(conn: &mut C, batch: Vec<Box<dyn Task<C>>>) {
    if let Err(e) = conn.step(Step::Begin).await {
        tracing::warn!(error = %e, writes = batch.len(), "could not start a write batch");
        for task in batch {
            task.fail(batch_error::<C>(&e));
        }
        return;
    }
    let mut ran: Vec<Box<dyn Finish>> = Vec::with_capacity(batch.len());
    let mut tasks = batch.into_iter();
    let mut failure = None;
    for task in tasks.by_ref() {
        if let Err(e) = conn.step(Step::Savepoint).await {
            task.fail(batch_error::<C>(&e));
            failure = Some(e);
            break;
        }
        let outcome = task.run(conn).await;
        match outcome {
            // The savepoint is left open: COMMIT releases them all, and a later rollback to a
            // savepoint finds the newest one, its own. One statement fewer a write.
            Some(finish) => ran.push(finish),
            None => {
                if let Err(e) = conn.step(Step::RollbackToSavepoint).await {
                    failure = Some(e);
                    break;
                }
            }
        }
    }
    let result = match failure {
        Some(e) => Err(e),
        None => conn.step(Step::Commit).await,
    };
    match result {
        Ok(()) => {
            for finish in ran {
                finish.finish(Ok(()));
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "write batch failed; rolling back");
            let _ = conn.step(Step::Rollback).await;
            for finish in ran {
                finish.finish(Err(batch_error::<C>(&e)));
            }
            for task in tasks {
                task.fail(batch_error::<C>(&e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::{Connection, SqliteConnection};

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
        Writer::start(conn, Duration::from_secs(5))
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
