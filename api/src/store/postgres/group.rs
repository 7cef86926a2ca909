//! The group writer: the plain changes of games that arrive together (a move, an offer, a
//! resignation, a flag fall: changes that neither take moves back nor seat anyone nor can pass a
//! cap) are written by one statement, so one commit and one WAL flush serve them all (issue 25).
//!
//! PostgreSQL shares a flush between concurrent commits by itself, but every commit still costs a
//! statement, a round trip and the backend's wake-ups, and on this two-core machine that CPU is
//! what bounds the rate. So each instance queues its plain changes for one task, which takes
//! everything queued while its last group was being written and writes it as one `update … from
//! unnest(…)`: each game's row changes only if it is still at the version its change was
//! computed from, exactly as [`run_update`](super::games) guards a change alone, and the moves a
//! change adds are inserted only for the games whose update landed. A stale change therefore
//! writes nothing and hears so, alone, while the others of its group land.
//!
//! One change per game per group: a second change of a game already in the group (two requests
//! racing on one version) waits and is written alone once the group is committed, in the order
//! it arrived. A group whose statement fails for the data's sake (a constraint, which no change
//! computed by the rules should meet) is written again one change at a time, so one bad change
//! fails alone. A group that fails because the database went away or is busy is answered busy,
//! every change of it, as a change alone would be: it may or may not have landed, and the client
//! that retries finds out (a move carries its ply).
//!
//! Nobody is answered before the commit: an acknowledged change is durable, and its
//! announcement still follows the commit (the caller announces it, as for any change).

use std::collections::HashSet;
use std::sync::Arc;

use gomoku_rules::EndReason;
use sqlx::postgres::PgPool;
use tokio::sync::{mpsc, oneshot, Semaphore};

use super::games::{run_update, MoveColumns};
use crate::store::games::rows::stone_value;
use crate::store::games::rows::{deadline_text, offer_columns, opening_steps_json, win_line_json};
use crate::store::games::Update;
use crate::store::StoreError;

/// Most changes written by one statement.
const MAX_GROUP: usize = 64;
/// Changes waiting for the writer before callers wait too.
const QUEUE: usize = 4096;
/// Groups written at once: while one waits for its flush, the next one is gathered and sent.
const IN_FLIGHT: usize = 2;

/// The version-guarded update of a group of games, and the moves of those whose update landed:
/// the ids of the games changed.
const UPDATE_GROUP: &str = "with d as (select * from unnest($1::text[], $2::bigint[], \
    $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::text[], \
    $10::bigint[], $11::bigint[], $12::text[], $13::bigint[], $14::bigint[], $15::text[], \
    $16::text[], $17::bigint[], $18::text[], $19::text[], $20::text[]) \
    as d(id, from_version, status, end_reason, win_line, to_move, move_count, updated_at, \
    finished_at, black_ms, white_ms, deadline, takeback_offer, draw_offer, takeback_expires, \
    draw_expires, rematch_offer, rematch_expires, rematch_game_id, opening_steps)), \
    up as (update games g set status = d.status, end_reason = d.end_reason, \
    win_line = d.win_line, to_move = d.to_move, move_count = d.move_count, \
    version = g.version + 1, updated_at = d.updated_at, finished_at = d.finished_at, \
    black_ms = d.black_ms, white_ms = d.white_ms, deadline = d.deadline, \
    takeback_offer = d.takeback_offer, draw_offer = d.draw_offer, \
    takeback_expires = d.takeback_expires, draw_expires = d.draw_expires, \
    rematch_offer = d.rematch_offer, rematch_expires = d.rematch_expires, \
    rematch_game_id = d.rematch_game_id, opening_steps = d.opening_steps \
    from d where g.id = d.id and g.version = d.from_version returning g.id), \
    added as (insert into moves (game_id, ply, \"row\", col, player, played_at, clock_ms) \
    select m.* from unnest($21::text[], $22::int[], $23::int[], $24::int[], $25::int[], \
    $26::text[], $27::bigint[]) as m(game_id, ply, r, c, p, at, ms) \
    where m.game_id in (select id from up)) \
    select id from up";

/// A change waiting for the writer, and where its answer goes: whether it landed.
struct Job {
    update: Arc<Update>,
    reply: oneshot::Sender<Result<bool, StoreError>>,
}

/// This instance's group writer.
#[derive(Debug)]
pub(super) struct Group {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("game", &self.update.next.row.id)
            .finish()
    }
}

impl Group {
    /// Starts the writer on `pool`; it stops when the last handle is dropped.
    pub(super) fn start(pool: PgPool) -> Group {
        let (jobs, queue) = mpsc::channel(QUEUE);
        tokio::spawn(write(pool, queue));
        Group { jobs }
    }

    /// Whether a change is one the group writer takes: it neither takes moves back nor seats a
    /// player nor reopens a game (those run their own transactions).
    pub(super) fn takes(update: &Update) -> bool {
        !update.truncate && update.seat.is_none() && update.capped_players().next().is_none()
    }

    /// Writes `update` with whatever else is queued: whether it landed (false: the version had
    /// moved on, nothing was written).
    pub(super) async fn write(&self, update: Arc<Update>) -> Result<bool, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job { update, reply })
            .await
            .map_err(|_| StoreError::Batch("the group writer stopped".into()))?;
        answer
            .await
            .map_err(|_| StoreError::Batch("the group writer dropped a change".into()))?
    }
}

/// Takes what is queued, a group at a time, until every handle is gone.
async fn write(pool: PgPool, mut queue: mpsc::Receiver<Job>) {
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
    while let Some(first) = queue.recv().await {
        let Ok(permit) = in_flight.clone().acquire_owned().await else {
            return;
        };
        // Whatever arrived while the permit was awaited joins the group.
        let mut jobs = vec![first];
        while jobs.len() < MAX_GROUP {
            match queue.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let pool = pool.clone();
        tokio::spawn(async move {
            write_group(&pool, jobs).await;
            drop(permit);
        });
    }
}

/// Writes one group: its first change of each game together, then the others one by one.
async fn write_group(pool: &PgPool, jobs: Vec<Job>) {
    let mut seen = HashSet::new();
    let (group, later): (Vec<Job>, Vec<Job>) = jobs
        .into_iter()
        .partition(|job| seen.insert(job.update.next.row.id.clone()));
    match write_together(pool, &group).await {
        Ok(landed) => {
            for job in group {
                let _ = job.reply.send(Ok(landed.contains(&job.update.next.row.id)));
            }
        }
        Err(StoreError::Busy) => {
            for job in group {
                let _ = job.reply.send(Err(StoreError::Busy));
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, changes = group.len(), "a group failed; writing its changes one by one");
            alone(pool, group).await;
        }
    }
    alone(pool, later).await;
}

/// Writes each change in its own statement, in order.
async fn alone(pool: &PgPool, jobs: Vec<Job>) {
    for job in jobs {
        let written = async {
            let mut conn = pool.acquire().await?;
            Ok(run_update(&mut conn, &job.update).await?.is_some())
        }
        .await;
        let _ = job.reply.send(written);
    }
}

/// The group's statement: the ids of the games whose change landed.
async fn write_together(pool: &PgPool, jobs: &[Job]) -> Result<HashSet<String>, StoreError> {
    if let [job] = jobs {
        // Alone, the statement of a single change is the simpler one.
        let mut conn = pool.acquire().await?;
        let landed = run_update(&mut conn, &job.update).await?.is_some();
        return Ok(landed
            .then(|| job.update.next.row.id.clone())
            .into_iter()
            .collect());
    }
    let mut c = Columns::default();
    for job in jobs {
        c.add(&job.update);
    }
    let ids: Vec<String> = sqlx::query_scalar(UPDATE_GROUP)
        .bind(c.id)
        .bind(c.from_version)
        .bind(c.status)
        .bind(c.end_reason)
        .bind(c.win_line)
        .bind(c.to_move)
        .bind(c.move_count)
        .bind(c.updated_at)
        .bind(c.finished_at)
        .bind(c.black_ms)
        .bind(c.white_ms)
        .bind(c.deadline)
        .bind(c.takeback_offer)
        .bind(c.draw_offer)
        .bind(c.takeback_expires)
        .bind(c.draw_expires)
        .bind(c.rematch_offer)
        .bind(c.rematch_expires)
        .bind(c.rematch_game_id)
        .bind(c.opening_steps)
        .bind(c.move_game)
        .bind(c.moves.ply)
        .bind(c.moves.row)
        .bind(c.moves.col)
        .bind(c.moves.player)
        .bind(c.moves.played_at)
        .bind(c.moves.clock_ms)
        .fetch_all(pool)
        .await?;
    Ok(ids.into_iter().collect())
}

/// A group's changes as the columns `unnest` turns back into rows.
#[derive(Default)]
struct Columns {
    id: Vec<String>,
    from_version: Vec<i64>,
    status: Vec<&'static str>,
    end_reason: Vec<Option<&'static str>>,
    win_line: Vec<Option<String>>,
    to_move: Vec<Option<i64>>,
    move_count: Vec<i64>,
    updated_at: Vec<String>,
    finished_at: Vec<Option<String>>,
    black_ms: Vec<Option<i64>>,
    white_ms: Vec<Option<i64>>,
    deadline: Vec<Option<String>>,
    takeback_offer: Vec<Option<i64>>,
    draw_offer: Vec<Option<i64>>,
    takeback_expires: Vec<Option<String>>,
    draw_expires: Vec<Option<String>>,
    rematch_offer: Vec<Option<i64>>,
    rematch_expires: Vec<Option<String>>,
    rematch_game_id: Vec<Option<String>>,
    opening_steps: Vec<Option<String>>,
    /// The game of each added move.
    move_game: Vec<String>,
    moves: MoveColumns,
}

impl Columns {
    /// Adds a change (as [`run_update`] writes it alone).
    fn add(&mut self, update: &Update) {
        let next = &update.next;
        let row = &next.row;
        let outcome = next.game.outcome();
        self.id.push(row.id.clone());
        self.from_version.push(update.from_version);
        self.status.push(row.status.as_str());
        self.end_reason
            .push(outcome.end_reason().map(EndReason::as_str));
        self.win_line.push(win_line_json(outcome.win_line()));
        self.to_move.push(next.game.to_move().map(stone_value));
        self.move_count.push(row.move_count as i64);
        self.updated_at.push(row.updated_at.clone());
        self.finished_at.push(row.finished_at.clone());
        self.black_ms.push(row.clock.map(|c| c.black_ms));
        self.white_ms.push(row.clock.map(|c| c.white_ms));
        self.deadline.push(deadline_text(row.clock));
        self.takeback_offer
            .push(row.offers.takeback.map(|o| stone_value(o.by)));
        self.draw_offer
            .push(row.offers.draw.map(|o| stone_value(o.by)));
        self.takeback_expires
            .push(offer_columns(row.offers.takeback).1);
        self.draw_expires.push(offer_columns(row.offers.draw).1);
        let (rematch_by, rematch_expires) = offer_columns(row.offers.rematch);
        self.rematch_offer.push(rematch_by);
        self.rematch_expires.push(rematch_expires);
        self.rematch_game_id.push(row.rematch_game_id.clone());
        self.opening_steps
            .push(row.opening.as_ref().map(opening_steps_json));
        let appended = update.appended();
        self.move_game
            .extend(std::iter::repeat_n(row.id.clone(), appended.len()));
        self.moves.extend(appended, update.keep);
    }
}
