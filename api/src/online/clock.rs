//! The Fischer clock of a timed online game, as arithmetic on the stored [`Clock`], and the
//! change a flag fall makes. Pure: every function is told the time it works at; nothing here
//! reads the machine's clock or sleeps.
//!
//! The stored clock holds each side's time left when the current turn began and, while a clock
//! runs, the absolute deadline at which the running side's flag falls. The running side's time
//! left at any instant is its deadline minus that instant, so nothing is written while a clock
//! runs, and a restarted server (or another instance) knows when the flag falls. No clock runs
//! before black's first move; from then the side to move's clock runs; a move adds the increment
//! to the mover's clock; an ending (resignation, agreement) stops the clocks where they stand.

use gomoku_rules::{Ending, Stone};
use time::OffsetDateTime;

use crate::store::games::{Change, Clock, Offers, StoredGame};
use crate::store::timestamp;

/// The mover's flag fell before their move arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flagged;

/// Whole milliseconds from `from` to `to` (negative when `to` is earlier).
fn ms_between(from: OffsetDateTime, to: OffsetDateTime) -> i64 {
    i64::try_from((to - from).whole_milliseconds()).unwrap_or(i64::MAX)
}

impl Clock {
    /// `colour`'s time left when the current turn began.
    pub fn left(&self, colour: Stone) -> i64 {
        match colour {
            Stone::Black => self.black_ms,
            Stone::White => self.white_ms,
        }
    }

    fn set_left(&mut self, colour: Stone, ms: i64) {
        match colour {
            Stone::Black => self.black_ms = ms,
            Stone::White => self.white_ms = ms,
        }
    }

    /// `running`'s time left at `now`, counting down to the deadline and never below zero;
    /// None when no clock runs.
    fn running_left(&self, now: OffsetDateTime) -> Option<i64> {
        self.deadline.map(|d| ms_between(now, d).max(0))
    }

    /// Each side's time left at `now` (black, white), `running` being the side whose clock runs
    /// (the side to move while there is a deadline).
    pub fn at(&self, running: Option<Stone>, now: OffsetDateTime) -> (i64, i64) {
        let mut clock = *self;
        if let (Some(side), Some(left)) = (running, self.running_left(now)) {
            clock.set_left(side, left);
        }
        (clock.black_ms, clock.white_ms)
    }

    /// Whether the running clock's flag has fallen by `now`.
    pub fn flag_fallen(&self, now: OffsetDateTime) -> bool {
        self.deadline.is_some_and(|d| d <= now)
    }

    /// The clocks after `mover` plays a move that arrived at `arrival`, with the other side's
    /// clock starting at `at` (when the move is written). The mover keeps what it had left at
    /// arrival (all of it when no clock ran: black's first move), plus `increment_ms`.
    pub fn after_move(
        self,
        mover: Stone,
        increment_ms: i64,
        arrival: OffsetDateTime,
        at: OffsetDateTime,
    ) -> Result<Clock, Flagged> {
        if self.flag_fallen(arrival) {
            return Err(Flagged);
        }
        let left = self
            .running_left(arrival)
            .unwrap_or_else(|| self.left(mover));
        let mut next = self;
        next.set_left(mover, left.saturating_add(increment_ms));
        Ok(next.started(mover.opponent(), at))
    }

    /// The clocks stopped at `at`: `running` (the side whose clock ran, if one did) keeps what it
    /// had left then.
    pub fn stopped(self, running: Option<Stone>, at: OffsetDateTime) -> Clock {
        let mut next = self;
        if let (Some(side), Some(left)) = (running, self.running_left(at)) {
            next.set_left(side, left);
        }
        next.deadline = None;
        next
    }

    /// The clocks with `side`'s clock running from `at`.
    pub fn started(self, side: Stone, at: OffsetDateTime) -> Clock {
        let left = self.left(side);
        Clock {
            deadline: Some(at + time::Duration::milliseconds(left)),
            ..self
        }
    }
}

/// The side whose clock runs in a stored game: the side to move, while there is a deadline.
pub fn running(stored: &StoredGame) -> Option<Stone> {
    stored
        .row
        .clock
        .and_then(|c| c.deadline)
        .and(stored.game.to_move())
}

/// The change that ends `stored` on time if its running clock's flag has fallen by `now`: the
/// side to move loses with end reason `timeout`, at the deadline (its finish time, whenever the
/// change is written), with no time left and no offer pending. None while the flag stands.
pub fn flag_fall(stored: &StoredGame, now: OffsetDateTime) -> Option<Change> {
    let clock = stored.row.clock?;
    let deadline = clock.deadline.filter(|_| clock.flag_fallen(now))?;
    let loser = stored.game.to_move()?;
    let mut change = stored.change(timestamp(deadline));
    change.game.end(Ending::TimedOut(loser)).ok()?;
    let mut ended = clock.stopped(Some(loser), deadline);
    ended.set_left(loser, 0);
    change.clock = Some(ended);
    change.offers = Offers::default();
    Some(change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Duration;

    fn t(ms: i64) -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + Duration::days(20_000) + Duration::milliseconds(ms)
    }

    fn fresh(initial_ms: i64) -> Clock {
        Clock {
            black_ms: initial_ms,
            white_ms: initial_ms,
            deadline: None,
        }
    }

    /// Black's first move costs no time and earns the increment; from then the side to move's
    /// time runs from the previous move's write to this move's arrival, and the increment goes
    /// to the mover.
    #[test]
    fn fischer_moves() {
        let start = fresh(10_000);
        let after_black = start
            .after_move(Stone::Black, 2_000, t(5_000), t(5_010))
            .unwrap();
        assert_eq!(after_black.black_ms, 12_000);
        assert_eq!(after_black.white_ms, 10_000);
        assert_eq!(after_black.deadline, Some(t(15_010)));
        assert_eq!(
            after_black.at(Some(Stone::White), t(8_010)),
            (12_000, 7_000)
        );

        let after_white = after_black
            .after_move(Stone::White, 2_000, t(9_010), t(9_020))
            .unwrap();
        assert_eq!(after_white.white_ms, 6_000 + 2_000);
        assert_eq!(after_white.deadline, Some(t(9_020 + 12_000)));
    }

    /// A move arriving at or after the deadline is refused; the flag fall ends the game at the
    /// deadline with the loser's time at zero, whenever it is noticed.
    #[test]
    fn flag_falls_at_the_deadline() {
        let running = fresh(3_000).started(Stone::White, t(0));
        assert!(!running.flag_fallen(t(2_999)));
        assert_eq!(
            running.after_move(Stone::White, 0, t(3_000), t(3_001)),
            Err(Flagged)
        );
        assert_eq!(running.at(Some(Stone::White), t(60_000)), (3_000, 0));
    }

    /// Stopping keeps the running side's time left at that instant; starting again counts from
    /// the new start.
    #[test]
    fn stop_and_start() {
        let running = fresh(10_000).started(Stone::Black, t(0));
        let stopped = running.stopped(Some(Stone::Black), t(4_000));
        assert_eq!((stopped.black_ms, stopped.deadline), (6_000, None));
        assert_eq!(
            stopped.started(Stone::Black, t(9_000)).deadline,
            Some(t(15_000))
        );
        assert_eq!(fresh(5).stopped(None, t(1)), fresh(5));
    }
}
