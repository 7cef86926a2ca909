//! The puzzle set as the service uses it: the engine's stored set
//! ([`gomoku_engine::puzzle::set`]), each puzzle set up once at start (its position replayed,
//! its solution turned into points), indexed by id, with the choices made from it: the next
//! puzzle for a player and the daily puzzle.

use std::collections::HashMap;

use gomoku_engine::puzzle::{self, parse_point, Puzzle};
use gomoku_engine::threat::Kind;
use gomoku_rules::{Game, Point, Rule, Stone};
use rand::seq::SliceRandom;
use rand::Rng;
use time::Date;

/// The daily puzzle is one of this difficulty or the next: moderate, neither a one-look four
/// nor an expert's problem.
pub const DAILY_DIFFICULTY: [u8; 2] = [2, 3];

/// The first window of ratings around the player's, in which `next` looks for a puzzle; it
/// doubles until a window holds one.
pub const NEXT_WINDOW: f64 = 100.0;

/// One puzzle of the set, ready to play.
#[derive(Debug, Clone)]
pub struct Entry {
    /// As stored in the set.
    pub puzzle: Puzzle,
    pub rule: Rule,
    pub kind: Kind,
    /// The side the player takes.
    pub attacker: Stone,
    /// The position the player starts from (the attacker to move).
    pub start: Game,
    /// The stored principal line, both sides' moves from the attacker's first.
    pub solution: Vec<Point>,
    /// Every first move that wins in the puzzle's N.
    pub first_moves: Vec<Point>,
}

impl Entry {
    fn new(puzzle: Puzzle) -> Result<Entry, String> {
        let setup = puzzle.setup().map_err(|e| e.to_string())?;
        let points = |moves: &[String]| {
            moves
                .iter()
                .map(|m| parse_point(m, puzzle.size).ok_or_else(|| format!("{}: {m}", puzzle.id)))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Entry {
            rule: setup.game.rule(),
            kind: setup.kind,
            attacker: setup.attacker,
            solution: points(&puzzle.solution)?,
            first_moves: points(&puzzle.first_moves)?,
            start: setup.game,
            puzzle,
        })
    }

    pub fn id(&self) -> &str {
        &self.puzzle.id
    }

    /// The puzzle's rating, on the Glicko-2 scale.
    pub fn rating(&self) -> f64 {
        f64::from(self.puzzle.rating)
    }
}

/// The whole set, indexed.
#[derive(Debug)]
pub struct Catalog {
    /// In the set's order (by rule, then number).
    entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    /// The daily puzzles' candidates, indices into `entries`, and the step between one day's
    /// and the next's (prime to their count, so every candidate comes once before any twice).
    daily: Vec<usize>,
    daily_stride: usize,
}

impl Catalog {
    /// The engine's stored set, set up once per process and shared.
    pub fn shared() -> std::sync::Arc<Catalog> {
        static SHARED: std::sync::LazyLock<std::sync::Arc<Catalog>> =
            std::sync::LazyLock::new(|| std::sync::Arc::new(Catalog::load()));
        SHARED.clone()
    }

    /// The engine's stored set. Panics if a stored puzzle does not set up: the set is compiled
    /// in and checked by the engine's tests, so that is a broken build, not a runtime condition.
    pub fn load() -> Catalog {
        Catalog::new(puzzle::set()).expect("the stored puzzle set sets up")
    }

    /// A catalog of `puzzles`; an error names a puzzle that does not set up.
    pub fn new(puzzles: Vec<Puzzle>) -> Result<Catalog, String> {
        let entries = puzzles
            .into_iter()
            .map(Entry::new)
            .collect::<Result<Vec<_>, _>>()?;
        let by_id = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id().to_string(), i))
            .collect();
        let mut daily: Vec<usize> = (0..entries.len())
            .filter(|&i| DAILY_DIFFICULTY.contains(&entries[i].puzzle.difficulty))
            .collect();
        if daily.is_empty() {
            daily = (0..entries.len()).collect();
        }
        // A stride near the golden section of the count spreads consecutive days over the set
        // (and so over the rules and kinds, which the set groups).
        let n = daily.len().max(1);
        let mut stride = (n * 618 / 1000).max(1);
        while gcd(stride, n) != 1 {
            stride += 1;
        }
        Ok(Catalog {
            entries,
            by_id,
            daily,
            daily_stride: stride,
        })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    /// The puzzle of UTC day `date`: the same for everyone, a different one each day until the
    /// candidates run out, then round again in the same order.
    pub fn daily(&self, date: Date) -> &Entry {
        let n = self.daily.len() as i64;
        let day = i64::from(date.to_julian_day());
        let k = (day.rem_euclid(n) * self.daily_stride as i64).rem_euclid(n);
        &self.entries[self.daily[k as usize]]
    }

    /// The next puzzle for a player rated `rating`, of `rule` if given, who has `tried` these
    /// puzzles (ids, least recently started first): one they have not tried, chosen at random
    /// among those nearest their rating (within [`NEXT_WINDOW`], the window doubling until it
    /// holds one); when they have tried every one, the least recently started. None only when
    /// the set has no puzzle of the rule.
    pub fn next<'a>(
        &'a self,
        rating: f64,
        rule: Option<Rule>,
        tried: &[String],
        rng: &mut impl Rng,
    ) -> Option<&'a Entry> {
        let of_rule = |e: &&Entry| rule.is_none_or(|r| e.rule == r);
        let tried_ids: std::collections::HashSet<&str> = tried.iter().map(String::as_str).collect();
        let fresh: Vec<&Entry> = self
            .entries
            .iter()
            .filter(of_rule)
            .filter(|e| !tried_ids.contains(e.id()))
            .collect();
        if fresh.is_empty() {
            return tried
                .iter()
                .filter_map(|id| self.get(id))
                .find(|e| of_rule(e));
        }
        let mut window = NEXT_WINDOW;
        loop {
            let near: Vec<&Entry> = fresh
                .iter()
                .copied()
                .filter(|e| (e.rating() - rating).abs() <= window)
                .collect();
            if let Some(e) = near.choose(rng) {
                return Some(e);
            }
            window *= 2.0;
        }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
