//! The steps of an opening rule (swap2, Taraguchi-10; see [`gomoku_rules::opening`]) in an
//! online or ai game. The rules' [`Opening`] decides every step; this module loads the game,
//! has the step decided for the caller's seat, and commits it guarded by the version, as a move
//! is (so it reaches the game's live sockets the same way).
//!
//! A step that places a stone adds it to the game's moves, so the board and the move history
//! show the opening as it goes; a choice that swaps colours exchanges the seats (and the AI's
//! colour) in the stored game. Until the opening is done, ordinary moves, undo and takeback or
//! draw offers are refused (OPENING_IN_PROGRESS): they would act on a position whose colours
//! are not settled. Resigning is allowed: a player may always leave.
//!
//! Clocks: the opening is untimed. No clock runs while it goes on; when it ends, the clock of
//! the side to move starts, as a move starts the opponent's. So a player who stalls in the
//! opening costs the other nothing but patience, and nobody's time goes on a phase that asks
//! for negotiation rather than play.
//!
//! Against the AI, the person takes their steps here, and whenever the AI's seat must act the
//! AI's steps for its turn (one search through the AI runner, under its cap) follow in the same
//! change, then its first ordinary move when the opening ends with the AI to move. Like a move's
//! reply, the AI thinks at most once for each of these per request and never again after a lost
//! race: GAME_CHANGED.

use std::sync::Arc;

use gomoku_rules::opening::{Seat, Step};
use gomoku_rules::{Game, Opening};
use time::OffsetDateTime;

use super::{Error, Games, ATTEMPTS};
use crate::store::games::{AiSetting, Change, Mode, StoredGame, StoredMove};
use crate::store::{now_exact, timestamp};

impl Games {
    /// Takes the opening step `step` for `player_id` in game `id`, the request having arrived
    /// at `arrival`; against the AI with the AI's steps (and first move) that follow.
    pub async fn opening_step(
        &self,
        player_id: &str,
        id: &str,
        step: Step,
        ply: Option<usize>,
        arrival: OffsetDateTime,
    ) -> Result<Arc<StoredGame>, Error> {
        for _ in 0..ATTEMPTS {
            let stored = self.load(player_id, id).await?;
            let retry = |stored: &StoredGame| is_retry(stored, &step, ply);
            match stored.row.mode {
                Mode::Online => {
                    // The creator started the opening: the first seat.
                    let seat = if stored.row.player_id == player_id {
                        Seat::First
                    } else {
                        Seat::Second
                    };
                    let decide = |stored: &StoredGame, _| {
                        if retry(stored)? {
                            return Ok(None);
                        }
                        decide_step(stored, seat, step.clone(), arrival).map(Some)
                    };
                    match self
                        .online_attempt(stored, player_id, arrival, decide)
                        .await?
                    {
                        Some(game) => return Ok(game),
                        None => continue,
                    }
                }
                Mode::Ai => {
                    let (Some(opening), Some(ai)) = (&stored.row.opening, stored.row.ai) else {
                        return Err(Error::NoOpening);
                    };
                    if retry(&stored)? {
                        return Ok(stored);
                    }
                    let person = opening.seat_of(ai.player).other();
                    let mut change = decide_step(&stored, person, step.clone(), arrival)?;
                    let thought = self.ai_turn(player_id, &mut change).await?;
                    match self.commit(change).await? {
                        Some(committed) => return Ok(committed),
                        None if !thought => continue,
                        // The AI thought for a game that is no more; it does not think again.
                        None => return Err(Error::GameChanged),
                    }
                }
                Mode::Local => return Err(Error::NoOpening),
            }
        }
        Err(Error::Busy)
    }

    /// Adds to `change` what the AI does next in an ai game's opening: its steps while its seat
    /// is to act, then its first move if the opening ended with the AI to move. Whether the AI
    /// searched.
    async fn ai_turn(&self, player_id: &str, change: &mut Change) -> Result<bool, Error> {
        let mut thought = false;
        // One turn passes the opening to the person or ends it; the bound only guards a loop.
        for _ in 0..2 {
            let (Some(opening), Some(ai)) = (&change.row.opening, change.row.ai) else {
                return Ok(thought);
            };
            let seat = opening.seat_of(ai.player);
            if opening.phase().by() != Some(seat) {
                break;
            }
            let steps = self
                .ai
                .opening_turn(player_id, opening.clone(), ai.level)
                .await?;
            thought = true;
            let at = now_exact();
            for step in steps {
                apply_step(change, seat, step, at)
                    .map_err(|e| Error::Internal(format!("the AI's opening step: {e}")))?;
            }
        }
        let done = change.row.opening.as_ref().is_some_and(Opening::is_done);
        if let Some(ai) = change.row.ai.filter(|ai: &AiSetting| {
            done && !change.game.is_over() && change.game.to_move() == Some(ai.player)
        }) {
            self.reply(player_id, change, ai).await?;
            thought = true;
        }
        Ok(thought)
    }
}

/// The `ply` rule of a placed stone, as for a move: `Ok(true)` when the stone is already the
/// `ply`th move (a retry: nothing to write), `Ok(false)` when `ply` is absent or the number of
/// moves, PLY_MISMATCH otherwise.
fn is_retry(stored: &StoredGame, step: &Step, ply: Option<usize>) -> Result<bool, Error> {
    let move_count = stored.moves.len();
    match (ply, step) {
        (Some(ply), Step::Place(point)) if ply != move_count => {
            if stored.moves.get(ply).is_some_and(|m| m.point == *point) {
                Ok(true)
            } else {
                Err(Error::PlyMismatch { ply, move_count })
            }
        }
        _ => Ok(false),
    }
}

/// The change `step` by `seat` makes in `stored` at `at`.
fn decide_step(
    stored: &StoredGame,
    seat: Seat,
    step: Step,
    at: OffsetDateTime,
) -> Result<Change, Error> {
    if stored.row.opening.is_none() {
        return Err(Error::NoOpening);
    }
    if stored.game.is_over() {
        return Err(Error::game_over());
    }
    let mut change = stored.change(timestamp(at));
    apply_step(&mut change, seat, step, at)?;
    Ok(change)
}

/// Takes `step` for `seat` in `change`: its stone (if it places one) joins the moves, a swap
/// exchanges the seats and the AI's colour, and the end of the opening starts the clock of the
/// side to move.
fn apply_step(
    change: &mut Change,
    seat: Seat,
    step: Step,
    at: OffsetDateTime,
) -> Result<(), Error> {
    let mut opening = change.row.opening.clone().ok_or(Error::NoOpening)?;
    let black = opening.black();
    let stamp = timestamp(at);
    take_step(
        &mut opening,
        &mut change.game,
        &mut change.moves,
        seat,
        step,
        &stamp,
    )?;
    if opening.black() != black {
        change.seats = std::mem::take(&mut change.seats).swapped();
        if let Some(ai) = &mut change.row.ai {
            ai.player = ai.player.opponent();
        }
    }
    if opening.is_done() {
        if let (Some(clock), Some(side)) = (change.clock, change.game.to_move()) {
            change.clock = Some(clock.started(side, at));
        }
    }
    change.row.opening = Some(opening);
    change.at = stamp;
    Ok(())
}

/// Takes `step` for `seat` in `opening`; a stone it places is played in `game` (the position
/// the opening's stones are the first moves of) and added to `moves`, stamped `at`.
pub(super) fn take_step(
    opening: &mut Opening,
    game: &mut Game,
    moves: &mut Vec<StoredMove>,
    seat: Seat,
    step: Step,
    at: &str,
) -> Result<(), Error> {
    let placed = opening.game().moves().len();
    opening.apply(seat, step)?;
    if let Some(stone) = opening.game().moves().get(placed).copied() {
        game.play(stone.point)?;
        moves.push(StoredMove {
            point: stone.point,
            stone: stone.stone,
            played_at: at.to_string(),
            clock_ms: None,
        });
    }
    Ok(())
}
