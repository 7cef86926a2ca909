//! The AI's play in the opening rules of [`gomoku_rules::opening`] (swap2, Taraguchi-10).
//!
//! Every opening rule asks a player one of two things: to set up a position that the other
//! may take either side of, or to take a side of a position the other set up. So the AI has
//! two ways of playing, both driven by [`balance`], its short-search judgement of a position
//! as a score for black (0 even, positive good for black):
//!
//! - **As proposer** it wants balance: whatever stones it places, the other player will take
//!   the better side. It lists candidate placements near the stones (swap2's three stones near
//!   the centre and its two extra stones as up to [`POOL`] random groups, narrowed to the
//!   [`CANDIDATES`] a quick judgement finds nearest to even; each Taraguchi stone as up to
//!   [`POOL`] points of its square, different up to symmetry), judges them fully one after
//!   another while the budget affords one more, and places one of those within
//!   [`BALANCE_TOLERANCE`] of the nearest to even, picked by the seed so that it does not play
//!   one opening forever.
//! - **As chooser** it takes the side its judgement favours; in swap2, when the three stones
//!   are close to even, it places two more instead and leaves the choice to the other.
//!   Taraguchi-10's offer of ten 5th moves is the exception to "propose balance": white will
//!   take the offer worst for black, so black offers its ten best, and does so only when even
//!   the tenth is clearly good for black ([`OFFER_MARGIN`]); as white it picks that worst one.
//!
//! [`opening_turn`] returns the steps of the seat to act up to where the turn passes, for the
//! caller to apply. Time and nodes come from [`SearchOptions`] like a move's search: each
//! judgement gets a share of what is left, so a turn ends within the budget; under a node limit
//! (and a budget that does not bind) the steps are the same on every call for a seed.
//!
//! The numbers below are this module's own tunables, kept beside the code that reads them.

use crate::movegen::{self, Situation};
use crate::params::WIN_THRESHOLD;
use crate::position::{Position, Rng};
use crate::search::Search;
use crate::time::Clock;
use crate::SearchOptions;
use gomoku_rules::opening::{Choice, Phase, Step, Zone, TARAGUCHI_OFFERS};
use gomoku_rules::{Game, Opening, OpeningRule, Point, Stone};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Search depth of a judgement that decides (the depth the balanced opening sets were judged
/// at).
pub const DEPTH: i32 = 6;
/// Node cap of a judgement that decides.
pub const EVAL_NODES: u64 = 30_000;
/// Depth and node cap of the quick judgement that narrows many candidates down to a few.
pub const QUICK_DEPTH: i32 = 4;
pub const QUICK_NODES: u64 = 5_000;
/// Transposition table entries of one judgement (a few thousand nodes fill a small table).
const TT_ENTRIES: usize = 1 << 15;
/// Placements judged quickly when proposing stones ...
pub const POOL: usize = 32;
/// ... and the ones nearest to even among them judged again to decide.
pub const CANDIDATES: usize = 12;
/// Scores within this of the most balanced candidate count as balanced too (eval units; the
/// win-probability scale is 3,800, so 40 is about one per cent).
pub const BALANCE_TOLERANCE: i32 = 40;
/// Swap2: after three stones, a score this close to even is answered by placing two more.
pub const PLACE_TWO_MARGIN: i32 = 80;
/// Taraguchi-10: black offers ten 5th moves only when the worst of them still scores this much
/// for black (otherwise it places one balanced 5th move, as the zone rule asks).
pub const OFFER_MARGIN: i32 = 60;
/// Taraguchi-10: the best 5th moves by move order that are judged for an offer.
pub const OFFER_POOL: usize = 16;
/// A proposed stone lies within this many points (in both directions) of a stone on the board.
const REACH: usize = 2;
/// Swap2's first three stones stay inside this central square.
const SWAP2_SQUARE: usize = 7;

/// The steps the AI takes for the seat whose turn it is, in order, up to where the turn passes
/// to the other seat or the opening ends: e.g. swap2's three first stones, or the choice to
/// place two followed by the two stones, or a Taraguchi swap followed by the next stone. Empty
/// once the opening is done. Every step is legal for the opening as it stands.
pub fn opening_turn(opening: &Opening, options: &SearchOptions) -> Vec<Step> {
    let Some(seat) = opening.phase().by() else {
        return Vec::new();
    };
    let mut budget = Budget {
        deadline: Instant::now() + options.time_budget,
        nodes: options.node_limit,
        stop: options.stop.clone(),
        used: 0,
        spent: Duration::ZERO,
    };
    let mut rng = Rng::new(options.seed ^ Position::from_game(opening.game()).hash());
    let mut current = opening.clone();
    let mut steps = Vec::new();
    while current.phase().by() == Some(seat) {
        let planned = plan(&current, &mut budget, &mut rng);
        if planned.is_empty() {
            // Only a zone without a legal point could leave nothing to plan; the rules never
            // ask for a stone there, but a loop must not hang on it.
            break;
        }
        for step in planned {
            current
                .apply(seat, step.clone())
                .expect("the AI plans legal steps");
            steps.push(step);
        }
    }
    steps
}

/// The AI's judgement of a position: a short search's score for black (0 even, positive good
/// for black, about ±[`WIN_THRESHOLD`] when a side wins by force), within the options' budget.
pub fn balance(game: &Game, options: &SearchOptions) -> i32 {
    let time = options.time_budget;
    let nodes = options.node_limit.unwrap_or(EVAL_NODES);
    judge(game, DEPTH, time, nodes, options.stop.clone()).0
}

/// What is left of a turn's time and nodes.
struct Budget {
    deadline: Instant,
    /// Nodes left under the caller's limit.
    nodes: Option<u64>,
    stop: Option<Arc<AtomicBool>>,
    /// Nodes searched and time taken so far: the speed that the time left is worth.
    used: u64,
    spent: Duration,
}

/// How hard to judge: a search depth and the node cap of one judgement.
#[derive(Clone, Copy)]
struct Effort {
    depth: i32,
    nodes: u64,
}

const QUICK: Effort = Effort {
    depth: QUICK_DEPTH,
    nodes: QUICK_NODES,
};
const FULL: Effort = Effort {
    depth: DEPTH,
    nodes: EVAL_NODES,
};

impl Budget {
    /// Judges `game` with `effort`, given that judgements worth `rest` nodes (at their caps)
    /// are still to come in this plan: each gets its proportional share of what is left, so
    /// the plan ends within the budget whatever the budget is.
    fn judge(&mut self, game: &Game, effort: Effort, rest: u64) -> i32 {
        let (mine, all) = (effort.nodes, effort.nodes + rest);
        let left = self.deadline.saturating_duration_since(Instant::now());
        let time = left.mul_f64(mine as f64 / all as f64);
        let nodes = self
            .nodes
            .map_or(mine, |n| (n as u128 * mine as u128 / all as u128) as u64)
            .clamp(1, mine);
        let started = Instant::now();
        let (score, used) = judge(game, effort.depth, time, nodes, self.stop.clone());
        self.used += used;
        self.spent += started.elapsed();
        if let Some(n) = &mut self.nodes {
            *n = n.saturating_sub(used);
        }
        score
    }

    /// How many judgements with `effort` what is left affords at their node cap: under a node
    /// limit by the nodes left, so that the plan stays reproducible; otherwise by the time left
    /// at the speed measured so far (unbounded before anything was measured).
    fn affords(&self, effort: Effort) -> usize {
        let nodes = match self.nodes {
            Some(n) => n,
            None if self.used == 0 => return usize::MAX,
            None => {
                let left = self.deadline.saturating_duration_since(Instant::now());
                let speed = self.used as f64 / self.spent.as_secs_f64().max(1e-6);
                (left.as_secs_f64() * speed) as u64
            }
        };
        (nodes / effort.nodes) as usize
    }

    /// Judges each game in turn (as [`Budget::judge`]), with `rest` nodes' worth to come after.
    fn judge_all(&mut self, games: &[Game], effort: Effort, rest: u64) -> Vec<i32> {
        let n = games.len() as u64;
        games
            .iter()
            .enumerate()
            .map(|(i, g)| self.judge(g, effort, (n - 1 - i as u64) * effort.nodes + rest))
            .collect()
    }
}

/// A score for black by iterative deepening to `depth`, and the nodes spent. Forced
/// situations are scored without a search.
fn judge(
    game: &Game,
    depth: i32,
    time: Duration,
    nodes: u64,
    stop: Option<Arc<AtomicBool>>,
) -> (i32, u64) {
    let Some(to_move) = game.to_move() else {
        let score = match game.outcome().winner() {
            Some(Stone::Black) => WIN_THRESHOLD,
            Some(Stone::White) => -WIN_THRESHOLD,
            None => 0,
        };
        return (score, 0);
    };
    let pos = Position::from_game(game);
    let roots = match movegen::situation(&pos, true) {
        Situation::Five(_) | Situation::OpenFour(_) => return (side(to_move, WIN_THRESHOLD), 0),
        Situation::Lost => return (side(to_move, -WIN_THRESHOLD), 0),
        Situation::Block(p) => vec![(p, 0)],
        Situation::Defend(moves) | Situation::Quiet(moves) => moves,
    };
    if roots.is_empty() {
        return (0, 0);
    }
    let mut search = Search::new(pos, Clock::new(time, stop, Some(nodes)), TT_ENTRIES);
    search.max_depth = depth;
    match search.run(&roots) {
        Some(out) => (side(to_move, out.score), out.nodes),
        None => (0, 0),
    }
}

/// A score for the side to move seen from black.
fn side(to_move: Stone, score: i32) -> i32 {
    if to_move == Stone::Black {
        score
    } else {
        -score
    }
}

/// The next steps of the seat to act: a group of stones, a choice, an offer or a pick.
fn plan(opening: &Opening, budget: &mut Budget, rng: &mut Rng) -> Vec<Step> {
    match opening.phase() {
        Phase::Place { zone, left, .. } => {
            // Swap2's free placement stays near the centre, where openings are played.
            let zone = match (opening.rule(), zone) {
                (OpeningRule::Swap2, Zone::Anywhere) => Zone::Central(SWAP2_SQUARE),
                (_, &zone) => zone,
            };
            propose(opening, zone, *left, budget, rng)
                .into_iter()
                .map(Step::Place)
                .collect()
        }
        Phase::Choose { options, .. } => match choose(opening, options, budget) {
            // The offer judged for the choice is the one made: black offers at once.
            (Choice::OfferTen, Some(offers)) => vec![
                Step::Choose(Choice::OfferTen),
                Step::Offer(offers.into_iter().map(|(p, _)| p).collect()),
            ],
            (choice, _) => vec![Step::Choose(choice)],
        },
        Phase::Offer { count, .. } => {
            let offers = best_offers(opening, *count, budget);
            vec![Step::Offer(offers.into_iter().map(|(p, _)| p).collect())]
        }
        Phase::Pick { offers, .. } => vec![Step::Pick(pick(opening, offers, budget))],
        Phase::Done { .. } => Vec::new(),
    }
}

/// `left` stones inside `zone` whose resulting position is nearest to even (see the module
/// comment).
fn propose(
    opening: &Opening,
    zone: Zone,
    left: usize,
    budget: &mut Budget,
    rng: &mut Rng,
) -> Vec<Point> {
    let game = opening.game();
    let mut groups: Vec<Vec<Point>> = if left == 1 {
        // Single stones can be listed: one of each kind up to symmetry, in random order.
        let mut kinds: Vec<Point> = Vec::new();
        for p in near_points(game, zone) {
            if !kinds.iter().any(|&k| opening.symmetric(k, p)) {
                kinds.push(p);
            }
        }
        shuffle(&mut kinds, rng);
        kinds.truncate(POOL);
        kinds.into_iter().map(|p| vec![p]).collect()
    } else {
        let mut groups: Vec<Vec<Point>> = Vec::new();
        for _ in 0..POOL * 4 {
            if groups.len() == POOL {
                break;
            }
            if let Some(group) = random_group(game, zone, left, rng) {
                if !groups.contains(&group) {
                    groups.push(group);
                }
            }
        }
        groups
    };
    if groups.is_empty() {
        // Nothing near the stones in the zone: any legal point of it (the zone always has one
        // while the opening is on, or the rules would not ask for a stone there).
        return fallback_group(game, zone, left);
    }
    let after = |group: &Vec<Point>| {
        let mut g = game.clone();
        for &p in group {
            g.play(p).expect("candidates are legal");
        }
        g
    };
    if groups.len() > CANDIDATES && left > 1 {
        // Random groups are many and mostly poor: a quick judgement keeps the nearest to even.
        let games: Vec<Game> = groups.iter().map(after).collect();
        let quick = budget.judge_all(&games, QUICK, CANDIDATES as u64 * EVAL_NODES);
        let mut order: Vec<usize> = (0..groups.len()).collect();
        // Nearest to even first; ties keep the drawing order (a stable sort).
        order.sort_by_key(|&i| quick[i].abs());
        let mut kept: Vec<Vec<Point>> = order
            .into_iter()
            .take(CANDIDATES)
            .map(|i| std::mem::take(&mut groups[i]))
            .collect();
        std::mem::swap(&mut groups, &mut kept);
    }
    // Full judgements one after another while the budget affords one more (the first always):
    // a few candidates searched to the full depth beat many cut short.
    let mut scores: Vec<i32> = Vec::with_capacity(groups.len());
    for group in &groups {
        if !scores.is_empty() && budget.affords(FULL) == 0 {
            break;
        }
        scores.push(budget.judge(&after(group), FULL, 0).abs());
    }
    groups.truncate(scores.len());
    let best = scores.iter().copied().min().unwrap_or(0);
    let near: Vec<usize> = (0..groups.len())
        .filter(|&i| scores[i] <= best.saturating_add(BALANCE_TOLERANCE))
        .collect();
    groups.swap_remove(near[rng.below(near.len() as u64) as usize])
}

/// `left` stones placed one after another, each at a random legal point of `zone` near the
/// stones (the centre on an empty board); None when the zone runs out of such points.
fn random_group(game: &Game, zone: Zone, left: usize, rng: &mut Rng) -> Option<Vec<Point>> {
    let mut g = game.clone();
    let mut group = Vec::with_capacity(left);
    for _ in 0..left {
        let points = near_points(&g, zone);
        if points.is_empty() {
            return None;
        }
        let p = points[rng.below(points.len() as u64) as usize];
        g.play(p).ok()?;
        group.push(p);
    }
    Some(group)
}

/// The first legal points of `zone` in board order, played one after another.
fn fallback_group(game: &Game, zone: Zone, left: usize) -> Vec<Point> {
    let mut g = game.clone();
    let mut group = Vec::with_capacity(left);
    for _ in 0..left {
        let size = g.size();
        let Some(p) = g
            .board()
            .points()
            .find(|&p| zone.contains(size, p) && g.check(p).is_ok())
        else {
            break;
        };
        g.play(p).expect("checked");
        group.push(p);
    }
    group
}

/// Legal points of `zone` within [`REACH`] of a stone; on an empty board, the centre.
fn near_points(game: &Game, zone: Zone) -> Vec<Point> {
    let size = game.size();
    let board = game.board();
    if board.stone_count() == 0 {
        let c = Point::new(size / 2, size / 2);
        return vec![c];
    }
    board
        .points()
        .filter(|&p| zone.contains(size, p) && game.check(p).is_ok())
        .filter(|&p| {
            game.moves().iter().any(|m| {
                m.point.row.abs_diff(p.row) <= REACH && m.point.col.abs_diff(p.col) <= REACH
            })
        })
        .collect()
}

/// Fisher–Yates with the seeded generator.
fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

/// The chooser's decision: the colour its judgement favours; swap2's place-two when the three
/// stones are close to even; Taraguchi-10's offer when ten good 5th moves exist (returned with
/// the offer).
fn choose(opening: &Opening, options: &[Choice], budget: &mut Budget) -> (Choice, Option<Offers>) {
    let offer = options.contains(&Choice::OfferTen);
    let rest = if offer {
        OFFER_POOL as u64 * EVAL_NODES
    } else {
        0
    };
    let score = budget.judge(opening.game(), FULL, rest);
    if options.contains(&Choice::PlaceTwo) && score.abs() < PLACE_TWO_MARGIN {
        return (Choice::PlaceTwo, None);
    }
    if offer {
        // White will take the offer worst for black: offering is worth that worst one.
        let count = TARAGUCHI_OFFERS;
        let offers = best_offers(opening, count, budget);
        let worst = offers.iter().map(|o| o.1).min().flatten();
        if offers.len() == count && worst.is_some_and(|w| w >= OFFER_MARGIN) {
            return (Choice::OfferTen, Some(offers));
        }
    }
    let colour = if score >= 0 {
        Choice::Black
    } else {
        Choice::White
    };
    (colour, None)
}

/// Offered points with their judged scores for black.
type Offers = Vec<(Point, Option<i32>)>;

/// Black's `count` best 5th moves, no two the same up to symmetry, each with its judged score
/// (None for the points added unjudged when the judged pool has too few kinds).
fn best_offers(opening: &Opening, count: usize, budget: &mut Budget) -> Offers {
    let game = opening.game();
    let pos = Position::from_game(game);
    let mut pool: Vec<(usize, i32)> = movegen::quiet_moves(&pos);
    pool.truncate(OFFER_POOL);
    let points: Vec<Point> = pool.iter().map(|&(m, _)| pos.point(m)).collect();
    let games: Vec<Game> = points
        .iter()
        .map(|&p| {
            let mut after = game.clone();
            after.play(p).expect("legal for black");
            after
        })
        .collect();
    let scores = budget.judge_all(&games, FULL, 0);
    let mut judged: Vec<(Point, Option<i32>)> = points
        .into_iter()
        .zip(scores.into_iter().map(Some))
        .collect();
    // Best for black first; ties in board order, so that the offer is reproducible.
    judged.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut offers: Offers = Vec::with_capacity(count);
    let unjudged = game
        .board()
        .points()
        .filter(|&p| game.check(p).is_ok())
        .map(|p| (p, None));
    for (p, score) in judged.into_iter().chain(unjudged) {
        if offers.len() == count {
            break;
        }
        if !offers
            .iter()
            .any(|&(q, _)| q == p || opening.symmetric(q, p))
        {
            offers.push((p, score));
        }
    }
    offers
}

/// White's pick among the offered 5th moves: the one its judgement scores worst for black.
fn pick(opening: &Opening, offers: &[Point], budget: &mut Budget) -> Point {
    let game = opening.game();
    let games: Vec<Game> = offers
        .iter()
        .map(|&p| {
            let mut after = game.clone();
            after.play(p).expect("offers were checked");
            after
        })
        .collect();
    let scores = budget.judge_all(&games, FULL, 0);
    // The first of the lowest: ties go to the earlier offer.
    let worst = (0..offers.len()).min_by_key(|&i| scores[i]).unwrap_or(0);
    offers[worst]
}
