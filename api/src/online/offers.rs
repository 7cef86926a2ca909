//! Offers between the two players of an online game (a takeback or a draw while it is played, a
//! rematch once it is over): what each action on one decides, and the lapse of an offer nobody
//! answered. Pure: every function is told the time it works at.
//!
//! Every action says what it means, so a request that arrives late can never become something
//! its sender did not ask for: `offer` makes the caller's offer (made already: nothing changes;
//! the opponent's stands: refused, answer it first), `accept` takes the opponent's standing offer,
//! `decline` clears it, `withdraw` clears the caller's own; with nothing of the kind to act on,
//! `accept`, `decline` and `withdraw` are refused. An offer stands until it is answered, withdrawn,
//! cleared by a move (takeback and draw), or until it expires. An expired offer reads as none
//! wherever it is looked at ([`Offers::standing`](crate::store::games::Offers::standing)), and
//! the flag timers clear it from the stored game at its expiry ([`lapse`]), which pushes the
//! change to the live sockets like any other.

use std::time::Duration;

use gomoku_rules::Stone;
use time::OffsetDateTime;

use crate::store::games::{Change, Offer, StoredGame};
use crate::store::timestamp;

/// What a player does about one kind of offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Offer,
    Accept,
    Decline,
    Withdraw,
}

/// Why an action on an offer is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum OfferError {
    /// Accept or decline with no standing offer from the opponent, withdraw with none of one's own.
    #[error("no offer to act on")]
    NoOffer,
    /// An offer while the opponent's offer of that kind stands.
    #[error("the opponent's offer stands")]
    OfferPending,
}

/// What an action does to the offer of its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The caller's offer is made.
    Offer,
    /// The opponent's offer, this one, is accepted.
    Accept(Offer),
    /// The pending offer goes (declined or withdrawn).
    Clear,
    /// Nothing changes: the caller's offer stands already.
    Nothing,
}

/// What `action` by `me` at `now` decides, `pending` being the stored offer of its kind.
pub fn decide(
    pending: Option<Offer>,
    me: Stone,
    action: Action,
    now: OffsetDateTime,
) -> Result<Decision, OfferError> {
    let standing = pending.filter(|offer| offer.stands(now));
    let mine = standing.filter(|offer| offer.by == me);
    let theirs = standing.filter(|offer| offer.by != me);
    match action {
        Action::Offer if theirs.is_some() => Err(OfferError::OfferPending),
        Action::Offer if mine.is_some() => Ok(Decision::Nothing),
        Action::Offer => Ok(Decision::Offer),
        Action::Accept => theirs.map(Decision::Accept).ok_or(OfferError::NoOffer),
        Action::Decline => theirs.map(|_| Decision::Clear).ok_or(OfferError::NoOffer),
        Action::Withdraw => mine.map(|_| Decision::Clear).ok_or(OfferError::NoOffer),
    }
}

/// The offer `by` makes at `now`, standing for `ttl`.
pub fn made(by: Stone, now: OffsetDateTime, ttl: Duration) -> Offer {
    Offer {
        by,
        expires: now + ttl,
    }
}

/// The change that clears the offers of `stored` that have expired by `now`, stamped `now`;
/// None when none has.
pub fn lapse(stored: &StoredGame, now: OffsetDateTime) -> Option<Change> {
    let standing = stored.row.offers.standing(now);
    if standing == stored.row.offers {
        return None;
    }
    let mut change = stored.change(timestamp(now));
    change.offers = standing;
    Some(change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Duration as Span;

    fn t(ms: i64) -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + Span::days(20_000) + Span::milliseconds(ms)
    }

    const TTL: Duration = Duration::from_millis(60_000);
    const ME: Stone = Stone::White;

    /// The race of issue 23: the offerer withdrew, and the opponent's late accept is refused
    /// rather than becoming an offer of the accepter's own; the same for an offer that expired.
    #[test]
    fn accept_never_becomes_an_offer() {
        assert_eq!(
            decide(None, ME, Action::Accept, t(0)),
            Err(OfferError::NoOffer)
        );
        let theirs = made(ME.opponent(), t(0), TTL);
        assert_eq!(
            decide(Some(theirs), ME, Action::Accept, t(59_999)),
            Ok(Decision::Accept(theirs))
        );
        assert_eq!(
            decide(Some(theirs), ME, Action::Accept, t(60_000)),
            Err(OfferError::NoOffer),
            "expired"
        );
        let mine = made(ME, t(0), TTL);
        assert_eq!(
            decide(Some(mine), ME, Action::Accept, t(1)),
            Err(OfferError::NoOffer),
            "one's own offer is not the opponent's"
        );
    }

    /// An offer is made when nothing stands (an expired offer of either side included), stands
    /// unchanged when made again, and is refused over the opponent's standing one.
    #[test]
    fn offer_never_becomes_an_accept() {
        assert_eq!(decide(None, ME, Action::Offer, t(0)), Ok(Decision::Offer));
        let mine = made(ME, t(0), TTL);
        assert_eq!(
            decide(Some(mine), ME, Action::Offer, t(5)),
            Ok(Decision::Nothing)
        );
        let theirs = made(ME.opponent(), t(0), TTL);
        assert_eq!(
            decide(Some(theirs), ME, Action::Offer, t(5)),
            Err(OfferError::OfferPending)
        );
        assert_eq!(
            decide(Some(theirs), ME, Action::Offer, t(60_000)),
            Ok(Decision::Offer)
        );
    }

    /// Decline takes the opponent's standing offer, withdraw one's own; neither the other's.
    #[test]
    fn decline_and_withdraw_name_whose_offer() {
        let (mine, theirs) = (made(ME, t(0), TTL), made(ME.opponent(), t(0), TTL));
        assert_eq!(
            decide(Some(theirs), ME, Action::Decline, t(1)),
            Ok(Decision::Clear)
        );
        assert_eq!(
            decide(Some(mine), ME, Action::Decline, t(1)),
            Err(OfferError::NoOffer)
        );
        assert_eq!(
            decide(Some(mine), ME, Action::Withdraw, t(1)),
            Ok(Decision::Clear)
        );
        assert_eq!(
            decide(Some(theirs), ME, Action::Withdraw, t(1)),
            Err(OfferError::NoOffer)
        );
        assert_eq!(
            decide(Some(mine), ME, Action::Withdraw, t(60_001)),
            Err(OfferError::NoOffer),
            "expired"
        );
    }
}
