//! Matchmaking: the pools players seek a rated game in, and the decision of who plays whom.
//!
//! Pure, like [`ratings`](crate::ratings): no SQL, no clock of its own. A player seeks a game in
//! one [`Pool`] (a rule and a time control); the store keeps one [`Seek`] per player; a pairing
//! round (on any instance, every so often) reads a pool's seeks and calls [`pair`] with the time
//! now, then asks the store to claim each [`Pairing`], and the database decides: a claim whose
//! seeks another instance took first writes nothing (`store::seeks::claim`).
//!
//! Who may meet: two seeks whose ratings are within both players' windows. A window starts at
//! [`WINDOW_START`] points and widens by [`WIDEN_PER_SECOND`] for every second waited, so a
//! player waits for a close opponent a little and then takes a wider one; a player who aborted
//! games lately sits out a penalty first ([`Seek::penalty`]). Among all the pairs that may meet,
//! the closest in rating go first (and, between pairs equally close, those who waited longer),
//! each player in at most one pair, never one with themself.
//!
//! Colours by a fair rule ([`colours`]): black to the player who did not have black in their
//! last rated game when the other did; otherwise to the lower rated player (black moves first,
//! the stronger side in gomoku); otherwise to the one who waited longer.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use gomoku_rules::{Rule, Stone};
use time::OffsetDateTime;

use crate::ratings::Family;

/// The rating difference every seek accepts at once.
pub const WINDOW_START: f64 = 100.0;
/// How much a seek's window widens for each second it waits: after 20 s, 500 points either side.
pub const WIDEN_PER_SECOND: f64 = 20.0;
/// Aborts (in the store's look-back) that cost nothing: anyone's connection fails now and then.
pub const FREE_ABORTS: u32 = 1;
/// The wait added for each abort past the free ones.
pub const ABORT_PENALTY: Duration = Duration::from_secs(15);
/// The most an abort penalty can make a player wait.
pub const MAX_PENALTY: Duration = Duration::from_secs(120);

/// A pool: the rule and the time control of the rated games it pairs (boards are 15×15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pool {
    pub rule: Rule,
    /// Each side's time at the start.
    pub initial_ms: i64,
    /// Added to the mover's clock by each move.
    pub increment_ms: i64,
    key: &'static str,
}

const fn pool(rule: Rule, minutes: i64, increment_s: i64, key: &'static str) -> Pool {
    Pool {
        rule,
        initial_ms: minutes * 60_000,
        increment_ms: increment_s * 1_000,
        key,
    }
}

impl Pool {
    /// The board size of every rated game.
    pub const BOARD_SIZE: usize = 15;

    /// Every pool: freestyle and standard at 1+0, 3+2 and 10+5 (minutes + seconds a move),
    /// renju at 10+5 (its forbidden moves want time).
    pub const ALL: [Pool; 7] = [
        pool(Rule::Freestyle, 1, 0, "freestyle/1+0"),
        pool(Rule::Freestyle, 3, 2, "freestyle/3+2"),
        pool(Rule::Freestyle, 10, 5, "freestyle/10+5"),
        pool(Rule::Standard, 1, 0, "standard/1+0"),
        pool(Rule::Standard, 3, 2, "standard/3+2"),
        pool(Rule::Standard, 10, 5, "standard/10+5"),
        pool(Rule::Renju, 10, 5, "renju/10+5"),
    ];

    /// The pool's key as stored: "freestyle/3+2".
    pub fn as_str(self) -> &'static str {
        self.key
    }

    /// The pool of a rule and time control, if there is one.
    pub fn find(rule: Rule, initial_ms: i64, increment_ms: i64) -> Option<Pool> {
        Pool::ALL.into_iter().find(|p| {
            p.rule == rule && p.initial_ms == initial_ms && p.increment_ms == increment_ms
        })
    }

    /// The rating family its games count in.
    pub fn family(self) -> Family {
        Family::of(self.rule)
    }
}

impl fmt::Display for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key)
    }
}

/// A key that is not one of [`Pool::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown pool")]
pub struct UnknownPool;

impl FromStr for Pool {
    type Err = UnknownPool;
    fn from_str(s: &str) -> Result<Pool, UnknownPool> {
        gomoku_rules::by_name(&Pool::ALL, Pool::as_str, s).ok_or(UnknownPool)
    }
}

/// A player waiting in a pool, as the seek was stored: the rating and deviation they had in
/// the pool's family when they began to seek.
#[derive(Debug, Clone, PartialEq)]
pub struct Seek {
    /// The seek's own id: a claim takes this seek, not a later one of the same player.
    pub id: String,
    pub player_id: String,
    pub pool: Pool,
    pub rating: f64,
    pub rd: f64,
    /// When the player began to seek.
    pub since: OffsetDateTime,
    /// Games the player aborted lately (see [`Seek::penalty`]).
    pub aborts: u32,
    /// Their colour in their last rated game in the pool's family, if any.
    pub last_colour: Option<Stone>,
}

impl Seek {
    /// How long the player sits out before they may be paired: [`ABORT_PENALTY`] for each
    /// abort past [`FREE_ABORTS`], at most [`MAX_PENALTY`].
    pub fn penalty(&self) -> Duration {
        let paid = self.aborts.saturating_sub(FREE_ABORTS);
        ABORT_PENALTY.saturating_mul(paid).min(MAX_PENALTY)
    }

    /// The rating difference the player accepts at `now`, or None while they sit out their
    /// penalty: the window widens from the end of the penalty.
    pub fn window(&self, now: OffsetDateTime) -> Option<f64> {
        let waited = (now - self.since).max(time::Duration::ZERO);
        let penalty = time::Duration::try_from(self.penalty()).unwrap_or(time::Duration::MAX);
        let widening = waited.saturating_sub(penalty);
        (!widening.is_negative())
            .then(|| WINDOW_START + WIDEN_PER_SECOND * widening.as_seconds_f64())
    }
}

/// Two seeks paired, each at its colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairing {
    pub black: Seek,
    pub white: Seek,
}

/// Who of two paired seeks plays black, and who white (see the module's rule).
pub fn colours(a: Seek, b: Seek) -> Pairing {
    let had_black = |s: &Seek| s.last_colour == Some(Stone::Black);
    let a_black = match (had_black(&a), had_black(&b)) {
        (true, false) => false,
        (false, true) => true,
        _ => match a.rating.total_cmp(&b.rating) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => (a.since, &a.id) <= (b.since, &b.id),
        },
    };
    if a_black {
        Pairing { black: a, white: b }
    } else {
        Pairing { black: b, white: a }
    }
}

/// A pair worth trying: seeks `low` and `high` (indices into the seeks sorted by rating),
/// `gap` points apart, having waited `waited` seconds between them.
struct Candidate {
    gap: f64,
    waited: f64,
    low: usize,
    high: usize,
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Candidate) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Candidate) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    /// The best candidate is the greatest (the heap is a max-heap): the smallest gap, then the
    /// longest wait, then the lowest indices (so a round is the same whatever the heap does).
    fn cmp(&self, other: &Candidate) -> Ordering {
        other
            .gap
            .total_cmp(&self.gap)
            .then(self.waited.total_cmp(&other.waited))
            .then(other.low.cmp(&self.low))
            .then(other.high.cmp(&self.high))
    }
}

/// The pairs to make from the seeks waiting in one pool at `now`: every pair within both
/// players' windows may meet, the closest in rating first (ties: the longer waited), each
/// player at most once and never with themself, each pair at its colours ([`colours`]).
///
/// Greedy by gap, exactly: with the seeks sorted by rating, each seek keeps one candidate, its
/// nearest partner above it not yet ruled out, in a heap ordered by gap. The best candidate
/// popped is either a pair (both free, within both windows: no closer pair is left, since every
/// seek's candidate is its closest possible one) or rules its upper seek out for the lower one,
/// which moves on to its next partner above while still within its own window. Each seek is
/// ruled out for another at most once, so a round costs O(n log n) plus the pairs ruled out,
/// which the windows bound.
pub fn pair(seeks: &[Seek], now: OffsetDateTime) -> Vec<Pairing> {
    let mut ready: Vec<(&Seek, f64)> = seeks
        .iter()
        .filter_map(|s| Some((s, s.window(now)?)))
        .collect();
    ready.sort_by(|(a, _), (b, _)| {
        a.rating
            .total_cmp(&b.rating)
            .then(a.since.cmp(&b.since))
            .then(a.id.cmp(&b.id))
    });
    let waited = |s: &Seek| (now - s.since).as_seconds_f64().max(0.0);
    let mut heap = BinaryHeap::with_capacity(ready.len());
    let mut taken = vec![false; ready.len()];
    let mut paired_players: HashSet<&str> = HashSet::new();
    // The nearest partner of `low` from `from` up, within `low`'s own window.
    let next = |low: usize, from: usize, taken: &[bool]| -> Option<Candidate> {
        let (seek, window) = ready[low];
        (from..ready.len())
            .take_while(|&high| ready[high].0.rating - seek.rating <= window)
            .find(|&high| !taken[high])
            .map(|high| Candidate {
                gap: ready[high].0.rating - seek.rating,
                waited: waited(seek) + waited(ready[high].0),
                low,
                high,
            })
    };
    for low in 0..ready.len() {
        heap.extend(next(low, low + 1, &taken));
    }
    let mut pairs = Vec::new();
    while let Some(c) = heap.pop() {
        if taken[c.low] {
            continue;
        }
        let (low, high) = (ready[c.low].0, ready[c.high]);
        let fits = !taken[c.high]
            && c.gap <= high.1
            && low.player_id != high.0.player_id
            && !paired_players.contains(low.player_id.as_str())
            && !paired_players.contains(high.0.player_id.as_str());
        if !fits {
            heap.extend(next(c.low, c.high + 1, &taken));
            continue;
        }
        taken[c.low] = true;
        taken[c.high] = true;
        paired_players.insert(&low.player_id);
        paired_players.insert(&high.0.player_id);
        pairs.push(colours(low.clone(), high.0.clone()));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> OffsetDateTime {
        OffsetDateTime::UNIX_EPOCH + time::Duration::seconds(1_800_000_000 + secs)
    }

    /// Seek `id` by player `id` at `rating`, from second `since`.
    fn seek(id: &str, rating: f64, since: i64) -> Seek {
        Seek {
            id: format!("seek-{id}"),
            player_id: id.to_string(),
            pool: Pool::ALL[1],
            rating,
            rd: 80.0,
            since: at(since),
            aborts: 0,
            last_colour: None,
        }
    }

    fn names(pairs: &[Pairing]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|p| (p.black.player_id.clone(), p.white.player_id.clone()))
            .collect()
    }

    /// Pool keys round-trip, and a rule with a time control finds its pool.
    #[test]
    fn pools() {
        for pool in Pool::ALL {
            assert_eq!(pool.as_str().parse(), Ok(pool));
        }
        let blitz = Pool::find(Rule::Standard, 180_000, 2_000).unwrap();
        assert_eq!(blitz.as_str(), "standard/3+2");
        assert_eq!(Pool::find(Rule::Renju, 180_000, 2_000), None);
        assert_eq!(
            "renju/10+5".parse::<Pool>().unwrap().family(),
            Family::Renju
        );
        assert!("freestyle/5+0".parse::<Pool>().is_err());
    }

    /// The window starts at 100 points and widens with the wait; a penalty delays it.
    #[test]
    fn windows_widen() {
        let s = seek("a", 1500.0, 0);
        assert_eq!(s.window(at(0)), Some(WINDOW_START));
        assert_eq!(
            s.window(at(10)),
            Some(WINDOW_START + 10.0 * WIDEN_PER_SECOND)
        );
        // A clock a little behind the seek's own time is no wait, not a negative one.
        assert_eq!(s.window(at(-3)), Some(WINDOW_START));
        let aborter = Seek { aborts: 3, ..s };
        assert_eq!(aborter.penalty(), ABORT_PENALTY * 2);
        assert_eq!(aborter.window(at(29)), None);
        assert_eq!(aborter.window(at(30)), Some(WINDOW_START));
        let habitual = Seek {
            aborts: 100,
            ..aborter
        };
        assert_eq!(habitual.penalty(), MAX_PENALTY);
    }

    /// The closest pairs first: 1500/1510 and 1700/1720 pair, not 1510/1700.
    #[test]
    fn closest_pairs_first() {
        let seeks = [
            seek("a", 1500.0, 0),
            seek("b", 1700.0, 0),
            seek("c", 1510.0, 0),
            seek("d", 1720.0, 0),
        ];
        let mut pairs = names(&pair(&seeks, at(0)));
        pairs.sort();
        assert_eq!(pairs, [("a".into(), "c".into()), ("b".into(), "d".into())]);
    }

    /// Too far apart at first; paired once both windows have widened enough.
    #[test]
    fn waiting_widens_to_a_pair() {
        let seeks = [seek("a", 1500.0, 0), seek("b", 1800.0, 5)];
        assert!(pair(&seeks, at(5)).is_empty());
        // b's window reaches 300 after 10 s of waiting; a's has long been wider.
        assert!(pair(&seeks, at(14)).is_empty());
        assert_eq!(names(&pair(&seeks, at(15))), [("a".into(), "b".into())]);
    }

    /// Both windows must hold: a long-waiting player does not pull in one who just came.
    #[test]
    fn both_windows_hold() {
        let seeks = [seek("old", 1500.0, 0), seek("new", 1750.0, 100)];
        assert!(pair(&seeks, at(100)).is_empty());
    }

    /// A player is never paired with themself, nor twice, even if the pool held two of their
    /// seeks; others still pair.
    #[test]
    fn never_self_never_twice() {
        let mut twin = seek("a", 1501.0, 0);
        twin.id = "seek-a2".into();
        let seeks = [seek("a", 1500.0, 0), twin, seek("b", 1502.0, 0)];
        let pairs = pair(&seeks, at(0));
        assert_eq!(pairs.len(), 1);
        let p = &pairs[0];
        assert_ne!(p.black.player_id, p.white.player_id);
        let lone = [
            seek("a", 1500.0, 0),
            Seek {
                id: "x".into(),
                ..seek("a", 1500.0, 0)
            },
        ];
        assert!(pair(&lone, at(60)).is_empty());
    }

    /// A player sitting out an abort penalty is left waiting; the others pair around them.
    #[test]
    fn penalised_seek_waits() {
        let aborter = Seek {
            aborts: 3,
            ..seek("x", 1500.0, 0)
        };
        let seeks = [aborter, seek("a", 1500.0, 0), seek("b", 1505.0, 0)];
        let pairs = names(&pair(&seeks, at(1)));
        assert_eq!(pairs, [("a".into(), "b".into())]);
        let seeks = [seeks[0].clone(), seek("c", 1500.0, 0)];
        assert!(pair(&seeks, at(29)).is_empty());
        assert_eq!(pair(&seeks, at(30)).len(), 1);
    }

    /// Between equally close pairs, those who waited longer go first.
    #[test]
    fn equal_gaps_longer_wait_first() {
        // b pairs with a (1490) or c (1510), both 10 away: c has waited longer.
        let seeks = [
            seek("a", 1490.0, 8),
            seek("b", 1500.0, 9),
            seek("c", 1510.0, 0),
        ];
        let pairs = pair(&seeks, at(10));
        assert_eq!(pairs.len(), 1);
        let players = [&pairs[0].black.player_id, &pairs[0].white.player_id];
        assert!(players.contains(&&"c".to_string()) && players.contains(&&"b".to_string()));
    }

    /// Black goes to the one who did not have black last; else to the lower rated; else to the
    /// one who waited longer.
    #[test]
    fn fair_colours() {
        let (low, high) = (seek("low", 1400.0, 0), seek("high", 1600.0, 0));
        let p = colours(high.clone(), low.clone());
        assert_eq!(
            (p.black.player_id.as_str(), p.white.player_id.as_str()),
            ("low", "high")
        );
        let low_had_black = Seek {
            last_colour: Some(Stone::Black),
            ..low.clone()
        };
        let p = colours(low_had_black.clone(), high.clone());
        assert_eq!(p.black.player_id, "high");
        // Both had black last: the rating decides again.
        let high_had_black = Seek {
            last_colour: Some(Stone::Black),
            ..high.clone()
        };
        assert_eq!(
            colours(high_had_black, low_had_black).black.player_id,
            "low"
        );
        let (early, late) = (seek("early", 1500.0, 0), seek("late", 1500.0, 5));
        assert_eq!(colours(late, early).black.player_id, "early");
    }

    /// A large pool pairs everyone close at once, each player once.
    #[test]
    fn large_pool_pairs_everyone() {
        let seeks: Vec<Seek> = (0..2000)
            .map(|i| seek(&format!("p{i}"), 1000.0 + f64::from(i) * 0.5, 0))
            .collect();
        let pairs = pair(&seeks, at(0));
        assert_eq!(pairs.len(), 1000);
        let mut players: Vec<&str> = pairs
            .iter()
            .flat_map(|p| [p.black.player_id.as_str(), p.white.player_id.as_str()])
            .collect();
        players.sort_unstable();
        players.dedup();
        assert_eq!(players.len(), 2000);
        assert!(pairs
            .iter()
            .all(|p| (p.black.rating - p.white.rating).abs() <= 0.5));
    }
}
