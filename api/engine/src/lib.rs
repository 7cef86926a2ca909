//! The AI: chooses moves for the service's levels, gives hints and analyses games. Depends only
//! on the rules.
//!
//! The public interface the service uses: [`Level`] (easy, medium, hard, master, each with its
//! default thinking time) and [`SearchOptions`] (time budget, seed, stop flag, node limit);
//! [`best_move`] for the AI's move, [`hint`] for a suggestion with its reason, and
//! [`analysis::analyse_move`] for the review of one move of a game. All are pure, blocking and
//! single-threaded: the caller runs them off its async runtime (e.g. `spawn_blocking`), and they
//! return within the time budget or soon after the stop flag is raised. Memory per search is
//! bounded by its transposition table (`params::TT_ENTRIES`).
//!
//! How the parts fit: [`position`] is the search's board, keeping line patterns ([`pattern`])
//! and point scores up to date incrementally; [`eval`] turns those into a static score;
//! [`movegen`] lists and orders candidates and spots forced situations; [`threat`] proves wins
//! by continuous fours (VCF) or threats (VCT); [`search`] is the iterative-deepening PVS with the
//! transposition table of [`tt`] under the clock of [`time`]; [`params`] holds every tunable
//! number; [`analysis`] scores a played move against the engine's choice;
//! [`opening_play`] plays the opening rules (swap2, Taraguchi-10) as proposer and chooser;
//! [`puzzle`] proves puzzle positions against every defence and holds the stored puzzle set.
//! This file turns a level into a recipe over those parts.

pub mod analysis;
pub mod eval;
pub mod movegen;
pub mod opening_play;
pub mod openings;
pub mod params;
pub mod pattern;
pub mod position;
pub mod puzzle;
pub mod search;
pub mod threat;
pub mod time;
pub mod tt;

use gomoku_rules::{Game, Point};
use movegen::Situation;
use params::{
    DEFENCE_LINE_VCF_NODES, DEFENCE_LINE_VCT_DEPTH, DEFENCE_LINE_VCT_NODES, DEFENCE_ROOTS,
    DEFENCE_VCF_NODES, DEFENCE_VCT_DEPTH, DEFENCE_VCT_NODES, DEFENCE_VCT_ROOTS, EASY_MIN_SHARE,
    EASY_MISS_PERCENT, HARD_DEFENCE_SHARE, HARD_VCF_SHARE, MASTER_BEAM_EXTRA, MASTER_DEFENCE_SHARE,
    MASTER_ITERATION_CUTOFF, MASTER_VCT_PLIES, MASTER_VCT_SHARE, MASTER_VERIFY_SHARE,
    MASTER_WIDE_PLIES, MEDIUM_MAX_DEPTH, PV_PLIES, TT_ENTRIES, VCF_MAX_DEPTH, VCF_ROOT_NODES,
    VCT_MAX_DEPTH, VCT_ROOT_NODES, VERIFY_MOVES, VERIFY_VCF_NODES, VERIFY_VCT_DEPTH,
    VERIFY_VCT_NODES, WIN_THRESHOLD,
};
use position::{Position, Rng, Threat};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use threat::{Kind, Solver};

/// The API's `ai.level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    Easy,
    Medium,
    Hard,
    Master,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Master => "master",
        }
    }
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "easy" => Some(Level::Easy),
            "medium" => Some(Level::Medium),
            "hard" => Some(Level::Hard),
            "master" => Some(Level::Master),
            _ => None,
        }
    }
    /// The default thinking time of this level. Hard gets an eighth of master's: with a quarter
    /// master won only 64–71% of their games (it needs 75%), with an eighth 76–77% over 100
    /// games in either rule; a sixteenth weakened hard no further (README, "The AI").
    pub fn default_budget(self) -> Duration {
        match self {
            Level::Easy => Duration::from_millis(50),
            Level::Medium => Duration::from_millis(100),
            Level::Hard => Duration::from_millis(250),
            Level::Master => Duration::from_millis(2000),
        }
    }
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Easy, Level::Medium, Level::Hard, Level::Master];
}

/// A name that is not one of [`Level::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownLevel;

impl std::fmt::Display for UnknownLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unknown level")
    }
}

impl std::error::Error for UnknownLevel {}

/// The inverse of [`Level::as_str`], the same way the rules parse their names.
impl std::str::FromStr for Level {
    type Err = UnknownLevel;
    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        gomoku_rules::by_name(&Level::ALL, Level::as_str, s).ok_or(UnknownLevel)
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Limits of one search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub time_budget: Duration,
    /// Makes random choices (easy level's mistakes, ties) reproducible.
    pub seed: u64,
    /// Stop early when set (the budget still applies).
    pub stop: Option<Arc<AtomicBool>>,
    /// Deterministic cut-off for tests: stop after this many nodes.
    pub node_limit: Option<u64>,
}

impl SearchOptions {
    pub fn for_level(level: Level, seed: u64) -> SearchOptions {
        SearchOptions {
            time_budget: level.default_budget(),
            seed,
            stop: None,
            node_limit: None,
        }
    }
}

/// The move the AI plays for the side to move, or None when the game is over or the board full.
/// In renju, never a point forbidden for black.
pub fn best_move(game: &Game, level: Level, options: &SearchOptions) -> Option<Point> {
    if game.is_over() {
        return None;
    }
    let mut pos = Position::from_game(game);
    let d = decide(&mut pos, level, options)?;
    Some(pos.point(d.point))
}

/// A suggestion for the side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub point: Point,
    /// In words: "wins: five", "blocks an open four", "VCF in 7", "best by search".
    pub reason: String,
}

/// A hint for the side to move: the hard level's choice under the given budget, with the
/// reason it was chosen.
pub fn hint(game: &Game, options: &SearchOptions) -> Option<Hint> {
    if game.is_over() {
        return None;
    }
    let mut pos = Position::from_game(game);
    let d = decide(&mut pos, Level::Hard, options)?;
    Some(Hint {
        point: pos.point(d.point),
        reason: d.reason.to_string(),
    })
}

/// Why a move was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Opening,
    Five,
    BlockFour,
    BlockOpenFour,
    OpenFour,
    /// A win by continuous fours in this many own moves.
    Vcf(usize),
    /// A win by continuous threats in this many own moves.
    Vct(usize),
    /// The search proved a win.
    ForcedWin,
    BlocksThree,
    Search,
    /// Easy level: a plausible move picked at random.
    Casual,
    /// Nothing saves the game; the least bad move.
    Lost,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Opening => f.write_str("opening: centre"),
            Reason::Five => f.write_str("wins: five"),
            Reason::BlockFour => f.write_str("blocks a four"),
            Reason::BlockOpenFour => f.write_str("blocks an open four"),
            Reason::OpenFour => f.write_str("makes an open four"),
            Reason::Vcf(n) => write!(f, "VCF in {n}"),
            Reason::Vct(n) => write!(f, "VCT in {n}"),
            Reason::ForcedWin => f.write_str("wins by search"),
            Reason::BlocksThree => f.write_str("blocks an open three"),
            Reason::Search => f.write_str("best by search"),
            Reason::Casual => f.write_str("a casual move"),
            Reason::Lost => f.write_str("no defence left"),
        }
    }
}

/// The moves the engine expects from a position, its own choice first (grid indices), up to
/// [`PV_PLIES`] plies: the principal variation of the search, or a threat solver's winning
/// sequence. A fixed array, so that a decision stays a plain copyable value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    moves: [u16; PV_PLIES],
    len: u8,
}

impl Line {
    /// The first [`PV_PLIES`] moves of `moves`.
    pub fn new(moves: &[usize]) -> Line {
        let mut line = Line {
            moves: [0; PV_PLIES],
            len: 0,
        };
        for &m in moves.iter().take(PV_PLIES) {
            line.push(m);
        }
        line
    }

    /// Adds a move at the end (nothing when the line is full).
    pub(crate) fn push(&mut self, m: usize) {
        if let Some(slot) = self.moves.get_mut(usize::from(self.len)) {
            // Grid indices fit in 16 bits (the transposition table keeps moves so too).
            *slot = m as u16;
            self.len += 1;
        }
    }

    /// The moves in order.
    pub fn moves(&self) -> impl Iterator<Item = usize> + '_ {
        self.moves[..usize::from(self.len)]
            .iter()
            .map(|&m| usize::from(m))
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A chosen move with its reason and search statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Index into the position's grid (`Position::point` converts it).
    pub point: usize,
    /// The line the engine expects from here, `point` first.
    pub line: Line,
    pub reason: Reason,
    /// Deepest completed iteration (0 when no search ran).
    pub depth: i32,
    /// Nodes visited by the search and the threat solvers.
    pub nodes: u64,
    /// The search's score for the side to move (0 when no search ran).
    pub score: i32,
}

/// The move of `level` for the side to move in `pos`; None when there is no legal move.
pub fn decide(pos: &mut Position, level: Level, options: &SearchOptions) -> Option<Decision> {
    let start = Instant::now();
    let quick = |point, reason| {
        Some(Decision {
            point,
            line: Line::new(&[point]),
            reason,
            depth: 0,
            nodes: 0,
            score: 0,
        })
    };
    if pos.is_full() {
        return None;
    }
    if pos.stones() == 0 {
        let c = pos.size() / 2;
        return quick(pos.index(Point::new(c, c)), Reason::Opening);
    }
    let me = pos.to_move();
    let you = 1 - me;
    // Forced positions are answered at once, by every level.
    let moves = match movegen::situation(pos, true) {
        Situation::Five(p) => return quick(p, Reason::Five),
        Situation::Block(p) => return quick(p, Reason::BlockFour),
        Situation::Lost => {
            let fives = pos.five_points(you);
            let block = fives.iter().copied().find(|&p| pos.is_legal(p, me));
            let any = block.or_else(|| movegen::quiet_moves(pos).first().map(|m| m.0));
            return any.and_then(|p| {
                quick(
                    p,
                    if fives.len() > 1 {
                        Reason::BlockOpenFour
                    } else {
                        Reason::Lost
                    },
                )
            });
        }
        Situation::OpenFour(p) => return quick(p, Reason::OpenFour),
        Situation::Defend(m) => (m, true),
        Situation::Quiet(m) => (m, false),
    };
    let (mut moves, defending) = moves;
    if moves.is_empty() {
        // No answer to the open three (all forbidden) or no stone nearby: any legal point.
        moves = pos
            .points()
            .iter()
            .copied()
            .filter(|&p| pos.is_empty(p) && pos.is_legal(p, me))
            .map(|p| (p, 0))
            .collect();
        if moves.is_empty() {
            return None;
        }
    }
    let deadline = start + options.time_budget;
    match level {
        Level::Easy => Some(easy(pos, moves, defending, options.seed)),
        Level::Medium => {
            let clock = time::Clock::new(
                options.time_budget,
                options.stop.clone(),
                options.node_limit,
            );
            let mut s = search::Search::new(pos.clone(), clock, TT_ENTRIES / 16);
            s.vcf_at_horizon = false;
            s.max_depth = MEDIUM_MAX_DEPTH;
            let out = s.run(&moves)?;
            let line = s.principal_variation(out.best);
            Some(from_search(out, line, defending))
        }
        Level::Hard | Level::Master => {
            let mut nodes = 0;
            // Under a node limit the solvers share it, so a pinned search stays pinned.
            let cap = |n: u64| options.node_limit.map_or(n, |l| l.min(n));
            // A win by continuous fours needs no full search.
            let mut vcf = Solver::new(Kind::Vcf, me, cap(VCF_ROOT_NODES))
                .with_deadline(start + options.time_budget * HARD_VCF_SHARE / 16)
                .with_stop(options.stop.clone());
            let found = vcf.run(pos, VCF_MAX_DEPTH);
            nodes += vcf.nodes;
            if let Some(win) = found {
                return Some(threat_win(&win, Reason::Vcf, nodes));
            }
            if level == Level::Master {
                let mut vct = Solver::new(Kind::Vct, me, cap(VCT_ROOT_NODES))
                    .with_deadline(start + options.time_budget * MASTER_VCT_SHARE / 16)
                    .with_stop(options.stop.clone());
                let found = vct.run(pos, VCT_MAX_DEPTH);
                nodes += vct.nodes;
                if let Some(win) = found {
                    return Some(threat_win(&win, Reason::Vct, nodes));
                }
            }
            // If the opponent, were it to move, would win by fours (master: or threats), a move
            // that neither touches its line nor threatens in turn (a four against fours; a
            // three or four against threats) mostly lets that win through: try the moves that do
            // first, the line's points leading, so that the defence checks below need look at
            // few. The rest are set aside, not dropped: a threat line is only the principal one,
            // and a stone near it can break it too (a renju white line often has a way round
            // every point black may take on it; dropping them cost master 11 points of its score
            // against hard in renju).
            let mut moves = moves;
            let mut set_aside = Vec::new();
            let (mut threat, n) =
                threat::opponent_threat(pos, Kind::Vcf, VCF_MAX_DEPTH, cap(DEFENCE_LINE_VCF_NODES));
            nodes += n;
            let mut counter = Threat::Four;
            if threat.is_none() && level == Level::Master {
                let (line, n) = threat::opponent_threat(
                    pos,
                    Kind::Vct,
                    DEFENCE_LINE_VCT_DEPTH,
                    cap(DEFENCE_LINE_VCT_NODES),
                );
                threat = line;
                counter = Threat::Three;
                nodes += n;
            }
            if let Some(line) = threat {
                let (mut first, rest): (Vec<_>, Vec<_>) =
                    moves.into_iter().partition(|m| line.contains(&m.0));
                let (counters, others): (Vec<_>, Vec<_>) = rest
                    .into_iter()
                    .partition(|m| pos.threat(m.0, me) >= counter);
                first.extend(counters);
                if first.is_empty() {
                    first = others;
                } else {
                    set_aside = others;
                }
                moves = first;
            }
            // Defence by threat search: drop candidates after which the opponent wins by
            // continuous fours (master: also by continuous threats).
            let share = if level == Level::Master {
                MASTER_DEFENCE_SHARE
            } else {
                HARD_DEFENCE_SHARE
            };
            let defence_deadline = start + options.time_budget * share / 16;
            let (mut safe, n) = safe_roots(pos, &moves, level, options, defence_deadline);
            nodes += n;
            // Every kept move loses: the ones set aside above may still break the line.
            if safe.is_none() && !set_aside.is_empty() {
                let (wider, n) = safe_roots(pos, &set_aside, level, options, defence_deadline);
                nodes += n;
                safe = wider;
            }
            let moves = safe.unwrap_or(moves);
            // Master keeps back a share of its time to verify the search's choice below.
            let reserve = if level == Level::Master {
                options.time_budget * MASTER_VERIFY_SHARE / 16
            } else {
                Duration::ZERO
            };
            let remaining = deadline
                .saturating_duration_since(Instant::now())
                .saturating_sub(reserve);
            let clock = time::Clock::new(remaining, options.stop.clone(), options.node_limit);
            let tt = if level == Level::Master {
                TT_ENTRIES
            } else {
                TT_ENTRIES / 4
            };
            let mut s = search::Search::new(pos.clone(), clock, tt);
            if level == Level::Master {
                s.iteration_cutoff = MASTER_ITERATION_CUTOFF;
                s.vct_plies = MASTER_VCT_PLIES;
                s.wide_plies = MASTER_WIDE_PLIES;
                s.threat_defence = true;
                s.beam_extra = MASTER_BEAM_EXTRA;
            }
            let mut out = s.run(&moves)?;
            if level == Level::Master && out.score.abs() < WIN_THRESHOLD {
                let (choice, n) = verified(pos, &out.ranked, options, deadline);
                nodes += n;
                if choice != out.best {
                    out.best = choice;
                }
            }
            let line = s.principal_variation(out.best);
            let mut d = from_search(out, line, defending);
            d.nodes += nodes;
            Some(d)
        }
    }
}

/// Master's check of the search's choice (as strong engines do after each iteration): the
/// opponent's VCT after the move, deeper and with more nodes than the screening before the
/// search; a move that allows one gives way to the next in the search's order, up to
/// `VERIFY_MOVES` moves. Returns the first move that holds (the search's best when none does
/// or time runs out) and the solver nodes spent.
fn verified(
    pos: &mut Position,
    ranked: &[usize],
    options: &SearchOptions,
    deadline: Instant,
) -> (usize, u64) {
    let cap = |n: u64| options.node_limit.map_or(n, |l| (l / 8).min(n));
    let you = 1 - pos.to_move();
    let mut nodes = 0;
    for &m in ranked.iter().take(VERIFY_MOVES) {
        if Instant::now() >= deadline {
            break;
        }
        pos.make(m);
        let mut lost = false;
        for (kind, depth, budget) in [
            (Kind::Vcf, VCF_MAX_DEPTH, VERIFY_VCF_NODES),
            (Kind::Vct, VERIFY_VCT_DEPTH, VERIFY_VCT_NODES),
        ] {
            let mut solver = Solver::new(kind, you, cap(budget))
                .with_deadline(deadline)
                .with_stop(options.stop.clone());
            lost = solver.run(pos, depth).is_some();
            nodes += solver.nodes;
            if lost {
                break;
            }
        }
        pos.unmake();
        if !lost {
            return (m, nodes);
        }
    }
    (ranked[0], nodes)
}

/// The root candidates after which the opponent has no quick VCF (master: no VCT either),
/// in their original order; None when every one checked loses (the caller then lets the search
/// pick the longest resistance). Also returns the solver nodes spent.
fn safe_roots(
    pos: &mut Position,
    moves: &[(usize, i32)],
    level: Level,
    options: &SearchOptions,
    deadline: Instant,
) -> (Option<Vec<(usize, i32)>>, u64) {
    let cap = |n: u64| options.node_limit.map_or(n, |l| (l / 8).min(n));
    let mut nodes = 0;
    let mut safe = Vec::new();
    let checked = moves.len().min(DEFENCE_ROOTS);
    for &(m, s) in &moves[..checked] {
        if Instant::now() >= deadline {
            safe.push((m, s));
            continue;
        }
        let you = 1 - pos.to_move();
        pos.make(m);
        let mut vcf = Solver::new(Kind::Vcf, you, cap(DEFENCE_VCF_NODES))
            .with_deadline(deadline)
            .with_stop(options.stop.clone());
        let mut lost = vcf.run(pos, VCF_MAX_DEPTH).is_some();
        nodes += vcf.nodes;
        if !lost && level == Level::Master && safe.len() < DEFENCE_VCT_ROOTS {
            let mut vct = Solver::new(Kind::Vct, you, cap(DEFENCE_VCT_NODES))
                .with_deadline(deadline)
                .with_stop(options.stop.clone());
            lost = vct.run(pos, DEFENCE_VCT_DEPTH).is_some();
            nodes += vct.nodes;
        }
        pos.unmake();
        if !lost {
            safe.push((m, s));
        }
    }
    if safe.is_empty() {
        return (None, nodes);
    }
    safe.extend_from_slice(&moves[checked..]);
    (Some(safe), nodes)
}

/// The first move of a proven win by continuous fours (`Reason::Vcf`) or threats (`Reason::Vct`).
fn threat_win(win: &threat::Win, reason: fn(usize) -> Reason, nodes: u64) -> Decision {
    Decision {
        point: win.first(),
        line: Line::new(&win.line),
        reason: reason(win.attacker_moves()),
        depth: 0,
        nodes,
        score: WIN_THRESHOLD,
    }
}

fn from_search(out: search::Outcome, line: Line, defending: bool) -> Decision {
    let reason = if out.score >= WIN_THRESHOLD {
        Reason::ForcedWin
    } else if defending {
        Reason::BlocksThree
    } else {
        Reason::Search
    };
    Decision {
        point: out.best,
        line,
        reason,
        depth: out.depth,
        nodes: out.nodes,
        score: out.score,
    }
}

/// The easy level: the one-ply point scorer of the first version, with a child's mistakes.
/// It always takes a five and blocks a four (handled before), but now and then overlooks an
/// open three, and picks at random among the moves worth at least half the best one.
fn easy(pos: &Position, moves: Vec<(usize, i32)>, defending: bool, seed: u64) -> Decision {
    let mut rng = Rng::new(seed ^ pos.hash());
    let moves = if defending && rng.below(100) < EASY_MISS_PERCENT {
        // The mistake: play as if the open three were not there.
        let quiet = movegen::quiet_moves(pos);
        if quiet.is_empty() {
            moves
        } else {
            quiet
        }
    } else {
        moves
    };
    let best = moves[0].1.max(1);
    let pool: Vec<usize> = moves
        .iter()
        .filter(|m| m.1 * 100 >= best * EASY_MIN_SHARE)
        .map(|m| m.0)
        .collect();
    let point = pool[rng.below(pool.len() as u64) as usize];
    let reason = if defending && pos.threat(point, 1 - pos.to_move()) >= Threat::Four {
        Reason::BlocksThree
    } else {
        Reason::Casual
    };
    Decision {
        point,
        line: Line::new(&[point]),
        reason,
        depth: 0,
        nodes: 0,
        score: 0,
    }
}
