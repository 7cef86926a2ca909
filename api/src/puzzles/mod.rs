//! Puzzles (残局): the player takes the attacker's side of a stored position that wins by force
//! and the server plays the defence. The decisions below HTTP: which puzzle comes next, which
//! is today's, what a move does to an attempt, and what an attempt's end does to the player's
//! puzzle rating.
//!
//! - [`catalog`]: the engine's stored set (525 puzzles, written and proven by the engine's
//!   `puzzles-gen`), set up once at start and indexed; the next puzzle near the player's rating
//!   and the daily puzzle.
//! - [`judge`]: one attacker move, judged by the engine's full-defence prover, and the defence's
//!   most stubborn reply. It runs in the AI queue ([`Ai::puzzle`]), never on the async threads.
//! - [`Puzzles`]: the service the handlers call: it reads the attempt, refuses what the rules
//!   refuse, has the move judged, and writes the step through [`store::puzzles`], guarded by the
//!   attempt's moves as read, so a request sent twice is applied once.
//!
//! The puzzle rating is Glicko-2 as the game ratings are ([`crate::ratings`]), apart from them:
//! an attempt is a game against the puzzle, won when solved, lost when failed, rated as a rating
//! period of its own. A puzzle's rating is the set's ([`Puzzle::rating`](gomoku_engine::puzzle::Puzzle)),
//! with a fixed deviation of [`PUZZLE_RD`]: puzzles' ratings do not move. Only the first attempt
//! at a puzzle counts; a retry is practice, and a retry in the middle of the first attempt counts
//! as failing it.

pub mod catalog;
pub mod judge;

use std::sync::Arc;

use gomoku_rules::{Coord, ForbiddenKind, Game, PlayError, Point, Rule};
use time::OffsetDateTime;

use crate::ai::{Ai, AiError};
use crate::ratings::Rating;
use crate::store::puzzles::{self as stored, Advanced, Attempt, AttemptStatus, PuzzleRecord, Step};
use crate::store::{Db, StoreError};
pub use catalog::{Catalog, Entry};
use judge::Verdict;

/// The deviation a puzzle's rating is taken to have when a player's attempt is rated: about as
/// sure as a settled player's (a puzzle's starting rating comes from its proof's size, not from
/// results, so it is not taken as surer than that).
pub const PUZZLE_RD: f64 = 80.0;

/// How often a move is tried again when another request changed the attempt meanwhile.
const STALE_RETRIES: usize = 3;

/// A puzzle's rating as an attempt is rated against it: the set's figure, [`PUZZLE_RD`].
pub fn opponent(rating: f64) -> Rating {
    Rating {
        rating,
        rd: PUZZLE_RD,
        volatility: Rating::INITIAL.volatility,
    }
}

/// Why a puzzle request was refused.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no such puzzle")]
    NotFound,
    /// The attempt is solved or failed: a retry starts it again.
    #[error("this attempt is over")]
    Over,
    #[error("the point is off the board")]
    OutOfBounds,
    #[error("the cell is already occupied")]
    CellOccupied,
    #[error("the move is forbidden for black")]
    Forbidden(ForbiddenKind),
    /// The client's `ply` does not match the attempt's moves.
    #[error("ply {ply} does not match the attempt's {moves} moves")]
    PlyMismatch { ply: usize, moves: usize },
    /// The attempt kept changing under this request.
    #[error("the attempt changed meanwhile")]
    Busy,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Ai(#[from] AiError),
    #[error("{0}")]
    Internal(String),
}

impl From<PlayError> for Error {
    fn from(e: PlayError) -> Error {
        match e {
            PlayError::OutOfBounds => Error::OutOfBounds,
            PlayError::Occupied => Error::CellOccupied,
            PlayError::Forbidden(kind) => Error::Forbidden(kind),
            // An attempt whose position is over is solved or failed.
            PlayError::GameOver => Error::Over,
        }
    }
}

/// A puzzle as one player sees it: the puzzle, their attempt, its position, their rating.
#[derive(Debug, Clone)]
pub struct Shown {
    pub entry: Entry,
    /// Their current attempt; None before their first move at it.
    pub attempt: Option<Attempt>,
    /// The attempt's moves as points (both sides, after the puzzle's position).
    pub moves: Vec<Point>,
    /// The position now.
    pub game: Game,
    /// Attacker moves left.
    pub left: u32,
    /// Whether it is today's puzzle.
    pub daily: bool,
    pub record: PuzzleRecord,
}

impl Shown {
    pub fn status(&self) -> AttemptStatus {
        self.attempt
            .as_ref()
            .map_or(AttemptStatus::Playing, |a| a.status)
    }
}

/// The puzzle service. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Puzzles {
    catalog: Arc<Catalog>,
    db: Db,
    ai: Ai,
    node_limit: u64,
}

impl Puzzles {
    pub fn new(catalog: Arc<Catalog>, db: Db, ai: Ai) -> Puzzles {
        Puzzles {
            catalog,
            db,
            ai,
            node_limit: judge::NODE_LIMIT,
        }
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The next puzzle for `player_id` (of `rule` if given): see [`Catalog::next`].
    pub async fn next(&self, player_id: &str, rule: Option<Rule>) -> Result<Shown, Error> {
        let record = stored::puzzle_rating(&self.db, player_id).await?;
        let tried: Vec<String> = stored::tried(&self.db, player_id)
            .await?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let entry = self
            .catalog
            .next(record.rating.rating, rule, &tried, &mut rand::thread_rng())
            .ok_or(Error::NotFound)?
            .clone();
        self.show_entry(player_id, entry).await
    }

    /// Today's puzzle (UTC), with `player_id`'s attempt at it.
    pub async fn daily(&self, player_id: &str) -> Result<Shown, Error> {
        let entry = self.catalog.daily(today()).clone();
        self.show_entry(player_id, entry).await
    }

    /// Puzzle `id` with `player_id`'s attempt at it.
    pub async fn show(&self, player_id: &str, id: &str) -> Result<Shown, Error> {
        let entry = self.catalog.get(id).ok_or(Error::NotFound)?.clone();
        self.show_entry(player_id, entry).await
    }

    async fn show_entry(&self, player_id: &str, entry: Entry) -> Result<Shown, Error> {
        let attempt = stored::attempt(&self.db, player_id, entry.id()).await?;
        let record = stored::puzzle_rating(&self.db, player_id).await?;
        self.shown(entry, attempt, record)
    }

    fn shown(
        &self,
        entry: Entry,
        attempt: Option<Attempt>,
        record: PuzzleRecord,
    ) -> Result<Shown, Error> {
        let size = entry.start.size();
        let moves = match &attempt {
            None => Vec::new(),
            Some(a) => a
                .moves
                .iter()
                .map(|c| c.to_point(size))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| Error::Internal(format!("{}: a move off the board", entry.id())))?,
        };
        let game = judge::position(&entry, &moves)
            .map_err(|e| Error::Internal(format!("{}: stored moves refused: {e:?}", entry.id())))?;
        let left = judge::moves_left(&entry, &moves);
        let daily = self.catalog.daily(today()).id() == entry.id();
        Ok(Shown {
            entry,
            attempt,
            moves,
            game,
            left,
            daily,
            record,
        })
    }

    /// `player_id` plays `point` as the attacker in puzzle `id` (None: a point no board has,
    /// such as a negative row). With `ply` (the attempt's moves the client has seen): a request
    /// whose move is already there at that ply is answered with the attempt as it is (a retried
    /// request), another ply is a mismatch.
    pub async fn play(
        &self,
        player_id: &str,
        id: &str,
        point: Option<Point>,
        ply: Option<usize>,
    ) -> Result<Shown, Error> {
        let entry = self.catalog.get(id).ok_or(Error::NotFound)?.clone();
        for _ in 0..STALE_RETRIES {
            let shown = self.show_entry(player_id, entry.clone()).await?;
            if let Some(ply) = ply {
                if ply != shown.moves.len() {
                    if point.is_some() && shown.moves.get(ply).copied() == point && ply % 2 == 0 {
                        return Ok(shown);
                    }
                    return Err(Error::PlyMismatch {
                        ply,
                        moves: shown.moves.len(),
                    });
                }
            }
            if shown.status().is_over() {
                return Err(Error::Over);
            }
            let point = point.ok_or(Error::OutOfBounds)?;
            judge::check(&shown.game, point)?;
            let verdict = {
                let (entry, moves, limit) = (entry.clone(), shown.moves.clone(), self.node_limit);
                self.ai
                    .puzzle(player_id, move || {
                        judge::judge(&entry, &moves, point, limit)
                    })
                    .await?
            };
            let mut moves = shown.moves.clone();
            moves.push(point);
            let status = match verdict {
                Verdict::Solved => AttemptStatus::Solved,
                Verdict::Goes { reply, .. } => {
                    moves.push(reply);
                    AttemptStatus::Playing
                }
                Verdict::Failed { refutation } => {
                    moves.extend(refutation);
                    AttemptStatus::Failed
                }
            };
            let size = entry.start.size();
            let coords = |ps: &[Point]| -> Vec<Coord> {
                ps.iter().map(|&p| Coord::from_point(p, size)).collect()
            };
            let step = Step {
                player_id: player_id.to_string(),
                puzzle_id: entry.id().to_string(),
                expected: shown.attempt.as_ref().map(|a| a.moves.clone()),
                moves: coords(&moves),
                status,
                puzzle_rating: opponent(entry.rating()),
            };
            match stored::advance(&self.db, step).await? {
                Advanced::Done(attempt) => {
                    let record = stored::puzzle_rating(&self.db, player_id).await?;
                    return self.shown(entry, Some(attempt), record);
                }
                // Another request changed the attempt while the engine thought: judge afresh.
                Advanced::Stale => continue,
            }
        }
        Err(Error::Busy)
    }

    /// `player_id` starts puzzle `id` again, as practice (see [`stored::retry`]).
    pub async fn retry(&self, player_id: &str, id: &str) -> Result<Shown, Error> {
        let entry = self.catalog.get(id).ok_or(Error::NotFound)?.clone();
        let attempt = stored::retry(&self.db, player_id, id, opponent(entry.rating())).await?;
        let record = stored::puzzle_rating(&self.db, player_id).await?;
        self.shown(entry, attempt, record)
    }
}

/// Today, UTC.
fn today() -> time::Date {
    OffsetDateTime::now_utc().date()
}

#[cfg(test)]
mod tests;
