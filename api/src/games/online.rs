//! What only online games have: the attempt every write to one goes through (seat, start and
//! flag checked first), joining the free seat, takeback and draw offers, and the rematch.
//!
//! In an online game only a seated player writes. Time is taken when the request arrives: if
//! the running clock's flag fell before then, what the request asked for does not happen; the
//! game is ended on time (unless a timer did it first) and the answer is GAME_OVER with the
//! timed-out state. The actions on offers mean only what they say ([`offers::decide`]); a
//! rematch accepted creates the new game and names it on the finished one in one write
//! ([`store::games::rematch`](crate::store::games::rematch)).

use std::sync::Arc;

use gomoku_rules::{Ending, Stone};
use time::OffsetDateTime;

use super::play::end_online;
use super::{landed, Error, Games, ATTEMPTS};
use crate::online::clock::{flag_fall, running};
use crate::online::offers::{self, Action, Decision, OfferError};
use crate::store::games::{self as stored_games, Change, GameStatus, OfferKind, Role, StoredGame};
use crate::store::{now_exact, timestamp};

/// The caller's colour at an online game: NOT_A_PLAYER for a spectator, ONLINE_ONLY for a game
/// of another mode.
fn seat_of(stored: &StoredGame, player_id: &str) -> Result<Stone, Error> {
    match stored.role(player_id) {
        Some(Role::Seated(colour)) => Ok(colour),
        Some(Role::Spectator) => Err(Error::NotAPlayer),
        Some(Role::Owner) => Err(Error::OnlineOnly),
        None => Err(Error::NotFound),
    }
}

impl Games {
    /// One attempt at a write to an online game, on `stored` as this attempt loaded it: checks
    /// that the caller sits at it and that it has begun; if the flag fell before `arrival`, ends
    /// the game on time and answers GAME_OVER with that state; then lets `decide` work out the
    /// change from the game and the caller's colour (None: nothing to write, the answer is the
    /// game as loaded; a GAME_OVER from it is answered with the game), and commits it. None
    /// after a lost race: the caller loads again and decides afresh.
    pub(super) async fn online_attempt<F>(
        &self,
        stored: Arc<StoredGame>,
        player_id: &str,
        arrival: OffsetDateTime,
        decide: F,
    ) -> Result<Option<Arc<StoredGame>>, Error>
    where
        F: FnOnce(&StoredGame, Stone) -> Result<Option<Change>, Error>,
    {
        let me = seat_of(&stored, player_id)?;
        if stored.row.status == GameStatus::Waiting {
            return Err(Error::WaitingForOpponent);
        }
        if let Some(timed_out) = flag_fall(&stored, arrival) {
            return match self.commit(timed_out).await? {
                Some(ended) => Err(Error::GameOver { game: Some(ended) }),
                None => Ok(None),
            };
        }
        let change = match decide(&stored, me) {
            Ok(Some(change)) => change,
            Ok(None) => return Ok(Some(stored)),
            Err(Error::GameOver { game: None }) => {
                return Err(Error::GameOver { game: Some(stored) })
            }
            Err(e) => return Err(e),
        };
        self.commit(change).await
    }

    /// Seats `player_id` in the free seat of a waiting online game, which then starts. Joining
    /// again, or a game one sits at already, changes nothing.
    pub async fn join(&self, player_id: &str, id: &str) -> Result<Arc<StoredGame>, Error> {
        for _ in 0..ATTEMPTS {
            let stored = self.load(player_id, id).await?;
            match stored.role(player_id) {
                Some(Role::Owner) => return Err(Error::OnlineOnly),
                Some(Role::Seated(_)) => return Ok(stored),
                Some(Role::Spectator) => {}
                None => return Err(Error::NotFound),
            }
            if stored.row.status.is_over() {
                return Err(Error::GameOver { game: Some(stored) });
            }
            let Some(colour) = stored.seats.free() else {
                return Err(Error::GameFull);
            };
            let mut change = stored.change(timestamp(now_exact()));
            change.waiting = false;
            change.seat = Some((player_id.to_string(), colour));
            if let Some(joined) = self.commit(change).await? {
                return Ok(joined);
            }
        }
        Err(Error::Busy)
    }

    /// What `action` on a takeback or draw offer (`kind`) by `player_id` decides, timed from its
    /// arrival. An accepted takeback takes the offerer's last move back, with the reply after it
    /// if there is one; an accepted draw ends the game.
    pub async fn act_in_play(
        &self,
        player_id: &str,
        id: &str,
        kind: OfferKind,
        action: Action,
        arrival: OffsetDateTime,
    ) -> Result<Arc<StoredGame>, Error> {
        let ttl = self.terms.offer_ttl;
        for _ in 0..ATTEMPTS {
            let stored = self.load(player_id, id).await?;
            let decide =
                |stored: &StoredGame, me| decide_in_play(stored, me, kind, action, arrival, ttl);
            if let Some(game) = self
                .online_attempt(stored, player_id, arrival, decide)
                .await?
            {
                return Ok(game);
            }
        }
        Err(Error::Busy)
    }

    /// What `action` on the rematch offer of a finished online game by `player_id` decides,
    /// timed from its arrival. Accepted, the new game is created, and the finished game names it.
    /// Once it exists, an offer or an accept changes nothing and answers the finished game.
    pub async fn rematch(
        &self,
        player_id: &str,
        id: &str,
        action: Action,
        arrival: OffsetDateTime,
    ) -> Result<Arc<StoredGame>, Error> {
        let cap = self.terms.max_unfinished_games;
        for _ in 0..ATTEMPTS {
            let stored = self.load(player_id, id).await?;
            let me = seat_of(&stored, player_id)?;
            // A flag that fell with no timer to notice it yet: the game is over, as of its
            // deadline.
            if let Some(timed_out) = flag_fall(&stored, arrival) {
                self.commit(timed_out).await?;
                continue;
            }
            if !stored.row.status.is_over() {
                return Err(Error::GameNotOver);
            }
            if stored.row.rematch_game_id.is_some() {
                // Made already (a retried accept, or both accepting at once): the game that
                // names it.
                return match action {
                    Action::Offer | Action::Accept => Ok(stored),
                    Action::Decline | Action::Withdraw => Err(OfferError::NoOffer.into()),
                };
            }
            let mut change = stored.change(timestamp(arrival));
            let written = match offers::decide(stored.row.offers.rematch, me, action, arrival)? {
                Decision::Nothing => return Ok(stored),
                Decision::Clear => {
                    change.offers.rematch = None;
                    self.commit(change).await?
                }
                Decision::Offer => {
                    let ttl = self.terms.rematch_ttl;
                    change.offers.rematch = Some(offers::made(me, arrival, ttl));
                    self.commit(change).await?
                }
                Decision::Accept(offer) => {
                    change.offers.rematch = None;
                    let written = stored_games::rematch(&self.db, change, offer.by, cap).await?;
                    landed(written, cap)?
                }
            };
            if let Some(committed) = written {
                return Ok(committed);
            }
        }
        Err(Error::Busy)
    }
}

/// The change an action on a takeback or draw offer by `me` makes, arriving at `arrival`; None
/// when nothing changes.
fn decide_in_play(
    stored: &StoredGame,
    me: Stone,
    kind: OfferKind,
    action: Action,
    arrival: OffsetDateTime,
    ttl: std::time::Duration,
) -> Result<Option<Change>, Error> {
    if stored.game.is_over() {
        return Err(Error::game_over());
    }
    if stored.row.in_opening() {
        return Err(Error::OpeningInProgress);
    }
    let mut change = stored.change(timestamp(arrival));
    match offers::decide(stored.row.offers.get(kind), me, action, arrival)? {
        Decision::Nothing => return Ok(None),
        Decision::Clear => change.offers.set(kind, None),
        Decision::Offer => {
            // The opening's stones were agreed on, not played: none of them is taken back.
            let played = &stored.moves[stored.row.opening_stones()..];
            if kind == OfferKind::Takeback && !played.iter().any(|m| m.stone == me) {
                return Err(Error::NothingToUndo);
            }
            change
                .offers
                .set(kind, Some(offers::made(me, arrival, ttl)));
        }
        Decision::Accept(offer) if kind == OfferKind::Takeback => {
            change = accepted_takeback(stored, offer.by, arrival)?;
        }
        Decision::Accept(_) => change = end_online(stored, Ending::DrawAgreed, arrival)?,
    }
    Ok(Some(change))
}

/// The change an accepted takeback offered by `offerer` makes at `at`: the offerer's last move
/// goes, with the reply after it if there is one; offers are cleared.
fn accepted_takeback(
    stored: &StoredGame,
    offerer: Stone,
    at: OffsetDateTime,
) -> Result<Change, Error> {
    let mut change = stored.change(timestamp(at));
    let count = match stored.moves.last() {
        Some(last) if last.stone == offerer => 1,
        _ => 2,
    };
    if stored.moves.len() < stored.row.opening_stones() + count {
        return Err(Error::NothingToUndo);
    }
    change.game.take_back(count)?;
    change.keep = stored.moves.len() - count;
    change.moves.truncate(change.keep);
    change.offers = Default::default();
    // The clock that ran stops now; the side to move again starts, unless the board is empty
    // (no clock runs before black's first move).
    change.clock = stored.row.clock.map(|clock| {
        let stopped = clock.stopped(running(stored), at);
        match change.game.to_move() {
            Some(side) if change.keep > 0 => stopped.started(side, at),
            _ => stopped,
        }
    });
    Ok(change)
}
