//! Playing a game: a move (with the AI's reply in `ai` mode, on the clocks in a timed online
//! game), undo and resign.
//!
//! A move carries the `ply` its asker believes the game is at. When it is not the game's move
//! count, the move is either a retry of one already on the board (the asker missed the answer:
//! the game as it is) or PLY_MISMATCH. A move without `ply`, undo and resign apply to whatever
//! position a lost race leaves.
//!
//! The AI's reply is searched once per move, outside any lock and outside the retry loop: if the
//! game changed while the AI thought, the answer is the game as it now is when the move is in it
//! (a retry that landed), and otherwise GAME_CHANGED. It never searches again, so a request takes
//! at most one AI budget.

use std::sync::Arc;

use gomoku_rules::{Ending, Point, Stone};
use time::OffsetDateTime;

use super::{Error, Games, ATTEMPTS};
use crate::online::clock::{flag_fall, running};
use crate::store::games::{
    self as stored_games, AiSetting, Change, GameStatus, Mode, Offers, Role, StoredGame, StoredMove,
};
use crate::store::{now, now_exact, timestamp};

/// A move as asked: where, and how many moves the asker believes are on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveAsked {
    /// None for a point with a negative coordinate, which no board has (it is OUT_OF_BOUNDS
    /// once the checks before it pass).
    pub point: Option<Point>,
    pub ply: Option<usize>,
}

impl Games {
    /// Plays the move asked by `player_id` in game `id`, the request having arrived at
    /// `arrival`; in `ai` mode with the AI's reply.
    pub async fn play(
        &self,
        player_id: &str,
        id: &str,
        asked: MoveAsked,
        arrival: OffsetDateTime,
    ) -> Result<Arc<StoredGame>, Error> {
        if let Some(cached) = stored_games::current(&self.db, id) {
            if let Some(played) = self.play_on(cached, player_id, asked, arrival).await? {
                return Ok(played);
            }
        }
        for _ in 0..ATTEMPTS {
            let stored = self.load(player_id, id).await?;
            if stored.row.mode == Mode::Online {
                let decide = |stored: &StoredGame, me| {
                    decide_online_move(stored, player_id, me, asked, arrival)
                };
                match self
                    .online_attempt(stored, player_id, arrival, decide)
                    .await?
                {
                    Some(game) => return Ok(game),
                    None => continue,
                }
            }
            let Some(mut change) = decide_move(&stored, player_id, asked)? else {
                return Ok(stored);
            };
            let Some(ai) = ai_to_reply(&stored, &change) else {
                match self.commit(change).await? {
                    Some(committed) => return Ok(committed),
                    None => continue,
                }
            };
            self.reply(player_id, &mut change, ai).await?;
            if let Some(committed) = self.commit(change).await? {
                return Ok(committed);
            }
            // The reply was for a game that is no more: answer for the game as it is now.
            let ply = asked.ply.unwrap_or(stored.row.move_count);
            let now = self.load(player_id, id).await?;
            return if is_retry(&now, player_id, ply, asked.point) {
                Ok(now)
            } else {
                Err(Error::GameChanged)
            };
        }
        Err(Error::Busy)
    }

    /// The move asked, decided on the game as this instance last knew it, without reading the
    /// database (with several instances on PostgreSQL this spares the version check of a load):
    /// the game as stored when the move lands, its version guard having checked the cached
    /// state. None for anything else — a lost race, an error, nothing to write, a flag fallen —
    /// which [`Games::play`] decides again on a checked load, so that no answer but a landed
    /// move comes from a state that may be stale. An `ai` game is left to the load at once: its
    /// move waits for a search, which must not start on a stale state, and which costs far more
    /// than the read spared.
    async fn play_on(
        &self,
        cached: Arc<StoredGame>,
        player_id: &str,
        asked: MoveAsked,
        arrival: OffsetDateTime,
    ) -> Result<Option<Arc<StoredGame>>, Error> {
        let decided = match cached.role(player_id) {
            Some(Role::Seated(me))
                if cached.row.mode == Mode::Online
                    && cached.row.status != GameStatus::Waiting
                    && flag_fall(&cached, arrival).is_none() =>
            {
                decide_online_move(&cached, player_id, me, asked, arrival)
            }
            Some(Role::Owner) if cached.row.ai.is_none() => decide_move(&cached, player_id, asked),
            _ => return Ok(None),
        };
        match decided {
            Ok(Some(change)) => self.commit(change).await,
            _ => Ok(None),
        }
    }

    /// Adds the AI's reply to `change` (one search, queued as player `player_id`'s).
    pub(super) async fn reply(
        &self,
        player_id: &str,
        change: &mut Change,
        ai: AiSetting,
    ) -> Result<(), Error> {
        let point = self
            .ai
            .best_move(player_id, change.game.clone(), ai.level)
            .await?
            .ok_or_else(|| Error::Internal("the AI found no move in an open game".into()))?;
        change
            .game
            .play(point)
            .map_err(|e| Error::Internal(format!("the AI's move was refused: {e:?}")))?;
        change.moves.push(StoredMove {
            point,
            stone: ai.player,
            played_at: now(),
            clock_ms: None,
        });
        change.at = now();
        Ok(())
    }

    /// Takes back the last move of a local game, or in an `ai` game the person's last move and
    /// the AI's reply to it. Online games have no plain undo (TAKEBACK_REQUIRED).
    pub async fn undo(&self, player_id: &str, id: &str) -> Result<Arc<StoredGame>, Error> {
        for _ in 0..ATTEMPTS {
            let stored = self.load(player_id, id).await?;
            let change = match stored.role(player_id) {
                Some(Role::Spectator) => return Err(Error::NotAPlayer),
                Some(Role::Seated(_)) => return Err(Error::TakebackRequired),
                _ => take_back(&stored)?,
            };
            if let Some(committed) = self.commit(change).await? {
                return Ok(committed);
            }
        }
        Err(Error::Busy)
    }

    /// Resigns for `player_id`: in a local or ai game the side to move loses (the person, in
    /// `ai` mode); in an online game the caller's colour, whoever is to move.
    pub async fn resign(
        &self,
        player_id: &str,
        id: &str,
        arrival: OffsetDateTime,
    ) -> Result<Arc<StoredGame>, Error> {
        for _ in 0..ATTEMPTS {
            let stored = self.load(player_id, id).await?;
            let written = if stored.row.mode == Mode::Online {
                let decide = |stored: &StoredGame, me| {
                    end_online(stored, Ending::Resigned(me), arrival).map(Some)
                };
                self.online_attempt(stored, player_id, arrival, decide)
                    .await?
            } else {
                let mut change = stored.change(now());
                change.game.resign()?;
                self.commit(change).await?
            };
            if let Some(game) = written {
                return Ok(game);
            }
        }
        Err(Error::Busy)
    }
}

/// Whether `moveHistory[ply]` is the move at `point` by the caller's colour: the caller is
/// repeating a request whose answer it did not get.
fn is_retry(stored: &StoredGame, player_id: &str, ply: usize, point: Option<Point>) -> bool {
    let (Some(m), Some(point)) = (stored.moves.get(ply), point) else {
        return false;
    };
    // In local mode the caller plays both colours.
    let callers_colour = stored
        .colour_of(player_id)
        .is_none_or(|colour| m.stone == colour);
    callers_colour && m.point == point
}

/// The `ply` rule: `Ok(true)` when the move is a retry of one already on the board (nothing to
/// write), `Ok(false)` when it is for the current position, PLY_MISMATCH otherwise.
fn is_repeat(stored: &StoredGame, player_id: &str, asked: MoveAsked) -> Result<bool, Error> {
    let move_count = stored.row.move_count;
    match asked.ply {
        Some(ply) if ply != move_count => {
            if is_retry(stored, player_id, ply, asked.point) {
                Ok(true)
            } else {
                Err(Error::PlyMismatch { ply, move_count })
            }
        }
        _ => Ok(false),
    }
}

/// The change a move makes in a local or ai game, without the AI's reply; `None` for a retried
/// move that is already on the board.
fn decide_move(
    stored: &StoredGame,
    player_id: &str,
    asked: MoveAsked,
) -> Result<Option<Change>, Error> {
    if stored.row.in_opening() {
        return Err(Error::OpeningInProgress);
    }
    if is_repeat(stored, player_id, asked)? {
        return Ok(None);
    }
    let Some(mover) = stored.game.to_move() else {
        return Err(Error::game_over());
    };
    let point = asked.point.ok_or(Error::OutOfBounds)?;
    let mut change = stored.change(now());
    change.game.play(point)?;
    change.moves.push(StoredMove {
        point,
        stone: mover,
        played_at: now(),
        clock_ms: None,
    });
    Ok(Some(change))
}

/// The change a move by `me` makes in an online game, arriving at `arrival`; `None` for a
/// retried move already on the board. The mover's clock keeps what it had left at arrival plus
/// the increment, the opponent's starts now, and pending offers are cleared.
fn decide_online_move(
    stored: &StoredGame,
    player_id: &str,
    me: Stone,
    asked: MoveAsked,
    arrival: OffsetDateTime,
) -> Result<Option<Change>, Error> {
    if stored.row.in_opening() {
        return Err(Error::OpeningInProgress);
    }
    if is_repeat(stored, player_id, asked)? {
        return Ok(None);
    }
    match stored.game.to_move() {
        None => return Err(Error::game_over()),
        Some(mover) if mover != me => return Err(Error::NotYourTurn),
        Some(_) => {}
    }
    let point = asked.point.ok_or(Error::OutOfBounds)?;
    let at = now_exact();
    let mut change = stored.change(timestamp(at));
    change.game.play(point)?;
    let increment = stored.row.time_control.map_or(0, |tc| tc.increment_ms);
    change.clock = match stored.row.clock {
        // The flag was checked against the same arrival before this decision.
        Some(clock) => Some(
            clock
                .after_move(me, increment, arrival, at)
                .map_err(|_| Error::game_over())?,
        ),
        None => None,
    };
    if change.game.is_over() {
        // A five or a draw stops the clocks: nobody's runs any more.
        change.clock = change.clock.map(|c| c.stopped(None, at));
    }
    change.offers = Offers::default();
    change.moves.push(StoredMove {
        point,
        stone: me,
        played_at: timestamp(at),
        clock_ms: change.clock.map(|c| c.left(me)),
    });
    Ok(Some(change))
}

/// The AI's settings when, after `change`, it is the AI's turn in an `ai`-mode game.
fn ai_to_reply(stored: &StoredGame, change: &Change) -> Option<AiSetting> {
    stored
        .row
        .ai
        .filter(|ai| change.game.to_move() == Some(ai.player))
}

/// The change an undo makes: the last move off the board, or in `ai` mode the person's last move
/// and the AI's reply to it.
fn take_back(stored: &StoredGame) -> Result<Change, Error> {
    if stored.game.outcome().ending().is_some() {
        return Err(Error::game_over());
    }
    if stored.row.in_opening() {
        return Err(Error::OpeningInProgress);
    }
    let count = stored.moves.len();
    let take = match stored.row.ai {
        None if count == 0 => return Err(Error::NothingToUndo),
        None => 1,
        Some(ai) => match stored.moves.last() {
            None => return Err(Error::NothingToUndo),
            // The AI moved last: take back its reply and the person's move before it.
            Some(last) if last.stone == ai.player => {
                if count < 2 {
                    // Only the AI's opening move is on the board.
                    return Err(Error::NothingToUndo);
                }
                2
            }
            // The person's move ended the game before the AI replied.
            Some(_) => 1,
        },
    };
    if count - take < stored.row.opening_stones() {
        // The opening's stones were agreed on, not played: they stay.
        return Err(Error::NothingToUndo);
    }
    let mut change = stored.change(now());
    change.game.take_back(take)?;
    change.keep = count - take;
    change.moves.truncate(change.keep);
    Ok(change)
}

/// The change that ends an online game off the board at `at` (a resignation, a draw agreed):
/// the clocks stop where they stand and pending offers go.
pub(super) fn end_online(
    stored: &StoredGame,
    ending: Ending,
    at: OffsetDateTime,
) -> Result<Change, Error> {
    let mut change = stored.change(timestamp(at));
    change.game.end(ending)?;
    change.clock = stored.row.clock.map(|c| c.stopped(running(stored), at));
    change.offers = Offers::default();
    Ok(change)
}
