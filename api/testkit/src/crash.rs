//! The crash run, shared by the reliability test and `gomoku-stress crash`: writers keep the
//! server busy with moves, undos, resignations and new games, each keeping a [`Book`] of what the
//! server acknowledged and what was in flight; the server is killed with SIGKILL, restarted on
//! the same database, and every game is checked against its book. An acknowledged write must
//! survive; the write in flight may have landed, but only whole. With two instances on one
//! database ([`CrashRun::round_beside`]), one of them is killed while the other goes on serving
//! its writers, and every game is checked through the one that lives.
//!
//! What goes wrong is reported to the writers' [`Stats`](crate::Stats): a test's panics at the
//! first violation, the stress tool's counts them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::client::{Api, Player, Stats};
use crate::server::Server;
use crate::state::{check_state, id_of, moves_of, open_cells, Triple};
use crate::stored::Stored;

/// What a writer knows of one of its games: whether the AI plays in it, the history in the last
/// acknowledged answer, and the write that was in flight (or about to go) when the server died.
#[derive(Debug, Clone)]
pub struct Book {
    pub ai: bool,
    pub acked: Vec<Triple>,
    pub acked_status: String,
    pub pending: Option<Pending>,
}

#[derive(Debug, Clone, Copy)]
pub enum Pending {
    /// Row, column and the mover's colour.
    Move(i64, i64, i64),
    Undo,
    Resign,
}

impl Book {
    /// A book holding what `state` says, nothing in flight.
    fn of(state: &Value) -> Book {
        Book {
            ai: state["mode"] == "ai",
            acked: moves_of(state),
            acked_status: state["status"].as_str().unwrap_or("").to_string(),
            pending: None,
        }
    }

    /// Whether `stored` is what the game may hold after the crash: exactly the acknowledged
    /// history, or that history with the write in flight applied whole — a move together with
    /// the AI's reply to it (unless the move ended the game), an undo of one move (local) or of
    /// the human's move and the reply (AI).
    pub fn allows(&self, stored: &[Triple], finished: bool) -> bool {
        let (acked, n) = (&self.acked[..], self.acked.len());
        if stored == acked {
            return true;
        }
        match self.pending {
            None | Some(Pending::Resign) => false,
            Some(Pending::Move(row, col, player)) => {
                let whole = if !self.ai || (stored.len() == n + 1 && finished) {
                    n + 1
                } else {
                    n + 2
                };
                stored.len() == whole && stored[..n] == *acked && stored[n] == (row, col, player)
            }
            Some(Pending::Undo) => {
                let taken = self.undo_takes();
                n >= taken && stored == &acked[..n - taken]
            }
        }
    }

    /// Moves an undo takes back: the human's and the AI's reply in an AI game, one otherwise.
    fn undo_takes(&self) -> usize {
        if self.ai {
            2
        } else {
            1
        }
    }

    /// Acknowledged moves that `stored` lacks, beyond what an undo in flight may have taken.
    fn lost_in(&self, stored: &[Triple]) -> u64 {
        let kept = stored
            .iter()
            .zip(&self.acked)
            .take_while(|(a, b)| a == b)
            .count();
        let undo_allowance = match self.pending {
            Some(Pending::Undo) => self.undo_takes(),
            _ => 0,
        };
        (self.acked.len() - kept).saturating_sub(undo_allowance) as u64
    }
}

/// One writer's books, by game id; shared with its task.
type Books = Arc<Mutex<HashMap<String, Book>>>;

/// What one round measured.
#[derive(Debug, Clone, Copy, Default)]
pub struct Round {
    /// Writes the server acknowledged before it died.
    pub acked: u64,
    /// Acknowledged moves missing after the restart.
    pub lost: u64,
    /// `PRAGMA integrity_check` and the foreign-key check passed after the kill.
    pub integrity_ok: bool,
    /// Writes the instance that lived acknowledged after the other was killed
    /// ([`CrashRun::round_beside`] only).
    pub acked_after_kill: u64,
}

/// How the writers of a round stop: when told to, and counting their acknowledged writes.
#[derive(Clone, Default)]
struct Until {
    stop: Arc<AtomicBool>,
    acked: Arc<AtomicU64>,
}

/// Writers and their books across rounds.
pub struct CrashRun {
    writers: Vec<(Player, Books)>,
    stats: Arc<Stats>,
    /// The board sizes new games are drawn from.
    sizes: &'static [i64],
}

impl CrashRun {
    /// `writers` new players on `api`'s server, each writing to games of its own on boards of the
    /// given sizes.
    pub async fn new(api: &Api, writers: usize, sizes: &'static [i64]) -> CrashRun {
        let mut list = Vec::new();
        for _ in 0..writers {
            list.push((api.new_player().await, Books::default()));
        }
        CrashRun {
            writers: list,
            stats: api.stats().clone(),
            sizes,
        }
    }

    /// Games acknowledged so far, over all writers.
    pub fn games(&self) -> usize {
        self.writers
            .iter()
            .map(|(_, b)| b.lock().unwrap().len())
            .sum()
    }

    /// One round: the writers write on `server` until it is killed `kill_after` from now; then
    /// the database's integrity is checked, the server restarted on it and every game checked
    /// against its book. The books then start again from what is stored.
    pub async fn round(
        &mut self,
        server: &mut Server,
        kill_after: Duration,
        seeds: &mut StdRng,
        round: usize,
    ) -> Round {
        let tasks = self.start(&[&*server], &Until::default(), seeds);
        // Not an ordering: a kill at a moment the run chose is what it checks.
        tokio::time::sleep(kill_after).await;
        server.kill();
        let mut figures = self.stopped(tasks, round).await;
        let mut stored = Stored::open(server.database()).await;
        figures.integrity_ok = self.integrity(&mut stored, round).await;
        server.restart();
        figures.lost = self.verify_all(server, &mut stored, round).await;
        figures
    }

    /// One round on two instances sharing one database: the writers take turns between
    /// `victim` and `survivor`; `victim` is killed `kill_after` from now, the survivor's
    /// writers go on for `after_kill` (every write of theirs must be served), and then every
    /// game of every writer is checked against its book through the survivor.
    pub async fn round_beside(
        &mut self,
        victim: &mut Server,
        survivor: &Server,
        (kill_after, after_kill): (Duration, Duration),
        seeds: &mut StdRng,
        round: usize,
    ) -> Round {
        let until = Until::default();
        let tasks = self.start(&[&*victim, survivor], &until, seeds);
        // Not orderings: a kill at a moment the run chose, then the survivor serving on for
        // a while, are what it checks.
        tokio::time::sleep(kill_after).await;
        victim.kill();
        let at_kill = until.acked.load(Ordering::Relaxed);
        tokio::time::sleep(after_kill).await;
        until.stop.store(true, Ordering::Relaxed);
        let mut figures = self.stopped(tasks, round).await;
        figures.acked_after_kill = until.acked.load(Ordering::Relaxed) - at_kill;
        let mut stored = Stored::open(survivor.database()).await;
        figures.integrity_ok = self.integrity(&mut stored, round).await;
        figures.lost = self.verify_all(survivor, &mut stored, round).await;
        figures
    }

    /// Starts every writer, the n-th on the n-th of `servers` (round robin).
    fn start(
        &self,
        servers: &[&Server],
        until: &Until,
        seeds: &mut StdRng,
    ) -> Vec<tokio::task::JoinHandle<u64>> {
        self.writers
            .iter()
            .enumerate()
            .map(|(i, (player, books))| {
                let player = player.on(servers[i % servers.len()]);
                let (books, until, seed) = (books.clone(), until.clone(), seeds.gen());
                tokio::spawn(write_until_refused(player, books, self.sizes, seed, until))
            })
            .collect()
    }

    /// Waits for the writers to end; what they acknowledged.
    async fn stopped(&self, tasks: Vec<tokio::task::JoinHandle<u64>>, round: usize) -> Round {
        let mut figures = Round::default();
        for task in tasks {
            match task.await {
                Ok(acked) => figures.acked += acked,
                Err(e) => self
                    .stats
                    .violation(format!("round {round}: a writer failed: {e}")),
            }
        }
        figures
    }

    async fn integrity(&self, stored: &mut Stored, round: usize) -> bool {
        match stored.integrity().await {
            Ok(()) => true,
            Err(e) => {
                self.stats.violation(format!("round {round}: {e}"));
                false
            }
        }
    }

    /// Checks every writer's games through `server`; the acknowledged moves missing.
    async fn verify_all(&self, server: &Server, stored: &mut Stored, round: usize) -> u64 {
        let mut lost = 0;
        for (player, books) in &self.writers {
            lost += verify(&player.on(server), books, stored, round).await;
        }
        lost
    }
}

/// Checks every game of one writer after a restart against its book; the acknowledged moves
/// missing. Rebases the book on what is stored.
async fn verify(player: &Player, books: &Books, stored: &mut Stored, round: usize) -> u64 {
    let stats = player.stats();
    let mut expected = books.lock().unwrap().clone();
    let mut lost = 0;
    for id in player.game_ids().await {
        let reply = player.get(&format!("/api/v1/games/{id}")).await;
        if reply.status != 200 {
            stats.violation(format!("round {round}: GET game {id}: {}", reply.text));
            continue;
        }
        let state = reply.body;
        for check in [check_state(&state), stored.check_game(&state).await] {
            if let Err(e) = check {
                stats.violation(format!("round {round}: {e}"));
            }
        }
        // A game nobody acknowledged is a create that was in flight and landed: fine.
        if let Some(book) = expected.remove(&id) {
            let moves = moves_of(&state);
            let context = format!(
                "round {round}, game {id}: stored {moves:?}, acknowledged {:?}, in flight {:?}",
                book.acked, book.pending
            );
            if !book.allows(&moves, state["status"] != "playing") {
                lost += book.lost_in(&moves);
                stats.violation(context);
            } else if moves == book.acked
                && !matches!(book.pending, Some(Pending::Resign))
                && state["status"] != book.acked_status.as_str()
            {
                // Unless the write in flight landed (or was a resignation, which may have), the
                // status is the acknowledged one.
                stats.violation(format!("{context}: status {}", state["status"]));
            }
        }
        if let Some(book) = books.lock().unwrap().get_mut(&id) {
            *book = Book::of(&state);
        }
    }
    for (id, book) in expected {
        lost += book.acked.len() as u64;
        stats.violation(format!(
            "round {round}: acknowledged game {id} is missing after restart"
        ));
    }
    lost
}

/// Writes without pause until the server stops answering (or `until` says stop): moves with
/// `ply` (mostly), undos, resignations and new games (local, and AI games at the easy level), on
/// this writer's own games. Returns how many writes were acknowledged; any answer but the
/// expected success is a violation.
async fn write_until_refused(
    player: Player,
    books: Books,
    sizes: &[i64],
    seed: u64,
    until: Until,
) -> u64 {
    let mut rng = StdRng::seed_from_u64(seed);
    let stats = player.stats();
    let mut acked = 0;
    let mut current: Option<Value> = None;
    while !until.stop.load(Ordering::Relaxed) {
        let state = match current.take() {
            Some(state) if state["status"] == "playing" => state,
            _ => {
                let rule = ["freestyle", "standard", "renju"][rng.gen_range(0..3)];
                let size = sizes[rng.gen_range(0..sizes.len())];
                let mut settings = json!({"mode": "local", "rule": rule, "boardSize": size});
                if rng.gen_range(0..4) == 0 {
                    settings["mode"] = json!("ai");
                    settings["ai"] = json!({"level": "easy", "player": rng.gen_range(1..=2)});
                }
                let Ok(reply) = player.try_post("/api/v1/games", &settings).await else {
                    return acked;
                };
                let what = format!("create {settings}");
                let Some(state) = stats.expect(reply, 201, what) else {
                    // A create refused (the server busy or going down): a pause before the
                    // next try, not an ordering.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                acked += 1;
                until.acked.fetch_add(1, Ordering::Relaxed);
                books
                    .lock()
                    .unwrap()
                    .insert(id_of(&state), Book::of(&state));
                state
            }
        };
        let id = id_of(&state);
        let count = state["moveCount"].as_i64().unwrap_or(0);
        let Some(mover) = state["currentPlayer"].as_i64() else {
            stats.violation(format!(
                "game {id} in play without a player to move: {state}"
            ));
            continue;
        };
        // In an AI game there is something to undo once the human has moved.
        let can_undo = moves_of(&state).iter().any(|m| m.2 == mover);
        let roll = rng.gen_range(0..100);
        let (op, path, body) = if roll < 6 && can_undo {
            (Pending::Undo, format!("/api/v1/games/{id}/undo"), json!({}))
        } else if roll < 8 {
            let path = format!("/api/v1/games/{id}/resign");
            (Pending::Resign, path, json!({}))
        } else {
            let cells = open_cells(&state);
            let (row, col) = cells[rng.gen_range(0..cells.len())];
            (
                Pending::Move(row, col, mover),
                format!("/api/v1/games/{id}/moves"),
                json!({"row": row, "col": col, "ply": count}),
            )
        };
        books.lock().unwrap().get_mut(&id).unwrap().pending = Some(op);
        let Ok(reply) = player.try_post(&path, &body).await else {
            return acked;
        };
        let mut books = books.lock().unwrap();
        let book = books.get_mut(&id).unwrap();
        if reply.status == 200 {
            acked += 1;
            until.acked.fetch_add(1, Ordering::Relaxed);
            *book = Book::of(&reply.body);
            current = Some(reply.body);
        } else {
            // Not acknowledged, so nothing was applied: the book stays as it was.
            book.pending = None;
            drop(books);
            stats.violation(format!("{path} {body}: {} {}", reply.status, reply.text));
        }
    }
    acked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(ai: bool, acked: &[Triple], pending: Option<Pending>) -> Book {
        Book {
            ai,
            acked: acked.to_vec(),
            acked_status: "playing".into(),
            pending,
        }
    }

    /// Exactly the acknowledged history is always allowed; anything else only with a write in
    /// flight, and then only that write applied whole.
    #[test]
    fn allows_the_acknowledged_history_or_the_write_in_flight_whole() {
        let acked = [(7, 7, 1), (7, 8, 2)];
        let quiet = book(false, &acked, None);
        assert!(quiet.allows(&acked, false));
        assert!(!quiet.allows(&acked[..1], false), "a lost move");

        let local = book(false, &acked, Some(Pending::Move(8, 8, 1)));
        assert!(local.allows(&[(7, 7, 1), (7, 8, 2), (8, 8, 1)], false));
        assert!(
            !local.allows(&[(7, 7, 1), (7, 8, 2), (9, 9, 1)], false),
            "another move"
        );

        let ai = book(true, &acked, Some(Pending::Move(8, 8, 1)));
        let with_reply = [(7, 7, 1), (7, 8, 2), (8, 8, 1), (6, 6, 2)];
        assert!(ai.allows(&with_reply, false));
        assert!(
            !ai.allows(&with_reply[..3], false),
            "the move without the AI's reply"
        );
        assert!(
            ai.allows(&with_reply[..3], true),
            "a winning move has no reply"
        );

        let undo = book(true, &acked, Some(Pending::Undo));
        assert!(undo.allows(&[], false));
        assert!(!undo.allows(&acked[..1], false), "half an AI undo");
        let local_undo = book(false, &acked, Some(Pending::Undo));
        assert!(local_undo.allows(&acked[..1], false));

        let resign = book(false, &acked, Some(Pending::Resign));
        assert!(
            !resign.allows(&acked[..1], true),
            "a resignation takes no move back"
        );
    }

    /// Lost moves are counted from the first difference, minus what an undo in flight may take.
    #[test]
    fn counts_lost_moves_beyond_an_undo_in_flight() {
        let acked = [(7, 7, 1), (7, 8, 2), (8, 8, 1)];
        assert_eq!(book(false, &acked, None).lost_in(&acked[..1]), 2);
        assert_eq!(
            book(false, &acked, Some(Pending::Undo)).lost_in(&acked[..1]),
            1
        );
        assert_eq!(
            book(true, &acked, Some(Pending::Undo)).lost_in(&acked[..1]),
            0
        );
    }
}
