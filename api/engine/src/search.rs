//! The main search: iterative deepening over a principal-variation search (PVS) alpha-beta.
//!
//! Each node first settles the forced cases (a five to make, a four to block, an open four to
//! play) without branching; then it probes the transposition table, generates candidates near
//! the stones (`movegen.rs`), orders them (hash move, killer moves, history, point score) and
//! searches the best few — a beam whose width grows with the remaining depth. At the horizon a
//! small VCF search stands in for quiescence: a position with a forced win by fours is not
//! "quiet" whatever the static evaluation says.

use crate::eval::evaluate;
use crate::movegen::{self, Situation};
use crate::params::{
    BEAM, DEFENCE_BONUS, LMR_AFTER, LMR_MIN_DEPTH, MAX_DEPTH, NEW_ITERATION_CUTOFF, PV_PLIES,
    VCF_DEFENCE_NODES_IN_SEARCH, VCF_MAX_DEPTH, VCF_NODES_IN_SEARCH, VCT_DEPTH_IN_SEARCH,
    VCT_NODES_IN_SEARCH, WIN, WIN_THRESHOLD,
};
use crate::position::{Position, Threat};
use crate::threat::{opponent_threat, Kind, Solver};
use crate::time::Clock;
use crate::tt::{Bound, Table, NO_MOVE};
use crate::Line;

/// What a finished search found.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub best: usize,
    pub score: i32,
    /// Deepest fully searched iteration.
    pub depth: i32,
    pub nodes: u64,
    /// Every root move, best first: `best`, then the order of the last completed iteration.
    pub ranked: Vec<usize>,
}

pub struct Search {
    pub pos: Position,
    tt: Table,
    pub clock: Clock,
    killers: Vec<[usize; 2]>,
    history: Vec<i32>,
    /// Run a small VCF at the horizon.
    pub vcf_at_horizon: bool,
    pub max_depth: i32,
    /// No new iteration once this fraction (per 16) of the budget is spent.
    pub iteration_cutoff: u32,
    /// Nodes at this ply or nearer the root run a small VCT first (0: none).
    pub vct_plies: i32,
    /// Quiet nodes at this ply or nearer the root search as many moves as the root does (0:
    /// none). The opponent's replies at ply 1 then include every move it would consider at its
    /// own root, so a quiet winning reply is not pruned away.
    pub wide_plies: i32,
    /// Quiet inner nodes look for the opponent's VCF as if it were to move, and search the
    /// points of that line first (they are the defences; the beam could cut them off).
    pub threat_defence: bool,
    /// Moves searched at quiet nodes beyond the beam of their depth.
    pub beam_extra: usize,
}

const INF: i32 = WIN + 1;
/// Score of a node whose searched moves all lose by force while others went unsearched.
const UNPROVEN_LOSS: i32 = WIN_THRESHOLD - 1;
/// The root searches this many more moves than the beam of its depth.
const ROOT_EXTRA: usize = 6;
/// Plies with killer slots; forced-reply extensions can make lines longer than the depth.
const KILLER_PLIES: usize = 512;

impl Search {
    pub fn new(pos: Position, clock: Clock, tt_entries: usize) -> Search {
        let cells = pos.points().iter().copied().max().unwrap_or(0) + 1;
        Search {
            pos,
            tt: Table::new(tt_entries),
            clock,
            killers: vec![[usize::MAX; 2]; KILLER_PLIES],
            history: vec![0; cells],
            vcf_at_horizon: true,
            max_depth: MAX_DEPTH,
            iteration_cutoff: NEW_ITERATION_CUTOFF,
            vct_plies: 0,
            wide_plies: 0,
            threat_defence: false,
            beam_extra: 0,
        }
    }

    /// Iterative deepening over the given root moves (best first). Returns None only when
    /// `roots` is empty.
    pub fn run(&mut self, roots: &[(usize, i32)]) -> Option<Outcome> {
        let mut roots: Vec<(usize, i32)> = roots.to_vec();
        if roots.is_empty() {
            return None;
        }
        let mut result = Outcome {
            best: roots[0].0,
            score: 0,
            depth: 0,
            nodes: 0,
            ranked: Vec::new(),
        };
        for depth in 1..=self.max_depth {
            let mut alpha = -INF;
            let mut best_this: Option<(usize, i32)> = None;
            let mut scored: Vec<(usize, i32)> = Vec::with_capacity(roots.len());
            let width = roots.len().min(beam(depth) + ROOT_EXTRA);
            for (n, &(m, _)) in roots.iter().take(width).enumerate() {
                self.pos.make(m);
                // PVS: the first move gets the full window, the rest a null window first and
                // a re-search only if they beat the best so far.
                let score = if n == 0 {
                    -self.negamax(depth - 1, 1, -INF, -alpha)
                } else {
                    let s = -self.negamax(depth - 1, 1, -alpha - 1, -alpha);
                    if s > alpha && !self.clock.stopped() {
                        -self.negamax(depth - 1, 1, -INF, -alpha)
                    } else {
                        s
                    }
                };
                self.pos.unmake();
                if self.clock.stopped() {
                    break;
                }
                scored.push((m, score));
                if score > alpha {
                    alpha = score;
                    best_this = Some((m, score));
                }
            }
            let completed = !self.clock.stopped();
            if let Some((m, s)) = best_this {
                // A partial iteration counts when its best move is the previous best or beat
                // the previous iteration's score (it was searched to the new depth).
                if completed || m == result.best || s > result.score {
                    result.best = m;
                    result.score = s;
                }
            }
            if !completed {
                break;
            }
            result.depth = depth;
            // Next iteration: moves in this iteration's order, the rest behind them.
            scored.sort_by_key(|s| std::cmp::Reverse(s.1));
            let rest: Vec<(usize, i32)> = roots[width..].iter().map(|&(m, _)| (m, -INF)).collect();
            roots = scored;
            roots.extend(rest);
            if result.score.abs() >= WIN_THRESHOLD || self.clock.spent(self.iteration_cutoff) {
                break;
            }
        }
        result.nodes = self.clock.nodes;
        result.ranked.push(result.best);
        result
            .ranked
            .extend(roots.iter().map(|r| r.0).filter(|&m| m != result.best));
        Some(result)
    }

    fn negamax(&mut self, depth: i32, ply: i32, mut alpha: i32, beta: i32) -> i32 {
        if self.clock.tick() {
            return 0;
        }
        if self.pos.is_full() {
            return 0;
        }
        let mut quiet = false;
        let moves = match movegen::situation(&self.pos, depth > 0) {
            Situation::Five(_) => return WIN - ply - 1,
            Situation::Lost => return -(WIN - ply - 2),
            Situation::OpenFour(_) => return WIN - ply - 3,
            Situation::Block(p) => {
                // Forced reply: searched without spending depth (a check extension).
                self.pos.make(p);
                let v = -self.negamax(depth, ply + 1, -beta, -alpha);
                self.pos.unmake();
                return v;
            }
            Situation::Defend(m) => m,
            Situation::Quiet(m) => {
                if depth <= 0 {
                    return self.horizon(ply);
                }
                quiet = true;
                m
            }
        };
        if moves.is_empty() {
            // Every answer to the open three is forbidden or none exists: treat as lost.
            return -(WIN - ply - 4);
        }
        let depth = depth.max(1);
        let key = self.pos.hash();
        let mut hash_move = NO_MOVE;
        if let Some(e) = self.tt.probe(key, ply) {
            hash_move = e.best;
            if e.depth as i32 >= depth {
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.score >= beta,
                    Bound::Upper => e.score <= alpha,
                };
                if cut {
                    return e.score;
                }
            }
        }
        // Threat search near the root (master): a win by continuous threats for the side to
        // move decides the node without a full-width search, and seen from the parent it is
        // the threat a defensive move has to prevent.
        if ply <= self.vct_plies && quiet {
            let mut solver = Solver::new(Kind::Vct, self.pos.to_move(), VCT_NODES_IN_SEARCH);
            let found = solver.run(&mut self.pos, VCT_DEPTH_IN_SEARCH);
            self.clock.nodes += solver.nodes;
            if let Some(win) = found {
                let v = WIN - ply - win.line.len() as i32;
                self.tt
                    .store(key, ply, MAX_DEPTH, v, Bound::Exact, win.first() as u16);
                return v;
            }
        }
        let mut ordered = moves;
        let slot = (ply as usize).min(KILLER_PLIES - 1);
        let k = self.killers[slot];
        // Move ordering: hash move first, then killers, then history on top of the point score.
        for (m, s) in ordered.iter_mut() {
            if *m as u16 == hash_move {
                *s = i32::MAX;
            } else {
                if *m == k[0] || *m == k[1] {
                    *s += 5_000;
                }
                *s += self.history[*m].min(4_000);
            }
        }
        let mut defences = 0;
        if quiet
            && self.threat_defence
            && depth >= 2
            && self
                .pos
                .count_at_least(1 - self.pos.to_move(), Threat::Four)
                > 0
        {
            let (line, nodes) = opponent_threat(
                &mut self.pos,
                Kind::Vcf,
                VCF_MAX_DEPTH,
                VCF_DEFENCE_NODES_IN_SEARCH,
            );
            self.clock.nodes += nodes;
            if let Some(line) = line {
                for (m, s) in ordered.iter_mut() {
                    if line.contains(m) && *s != i32::MAX {
                        *s = s.saturating_add(DEFENCE_BONUS);
                        defences += 1;
                    }
                }
            }
        }
        movegen::sort(&mut ordered);
        // The beam narrows quiet nodes only; every answer to an open three is searched.
        let width = if quiet {
            // The root's width near the root (master's ply 1), the beam elsewhere; never fewer
            // than the defences against the opponent's line.
            let extra = if ply <= self.wide_plies {
                ROOT_EXTRA
            } else {
                self.beam_extra
            };
            ordered.len().min((beam(depth) + extra).max(defences))
        } else {
            ordered.len()
        };
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = ordered[0].0;
        for (n, &(m, _)) in ordered.iter().take(width).enumerate() {
            // No reduction where the node searches as wide as the root (master's ply 1): the
            // opponent's quiet reply there is exactly what its own root search would find.
            let reduce = quiet
                && ply > self.wide_plies
                && n >= LMR_AFTER
                && depth >= LMR_MIN_DEPTH
                && !self.threatens(m);
            self.pos.make(m);
            let score = if n == 0 {
                -self.negamax(depth - 1, ply + 1, -beta, -alpha)
            } else {
                // Late move reduction: a late, non-threatening quiet move is first searched one
                // ply shallower; only if it then looks better than the best so far is it
                // searched at full depth.
                let mut s = if reduce {
                    -self.negamax(depth - 2, ply + 1, -alpha - 1, -alpha)
                } else {
                    alpha + 1
                };
                if s > alpha {
                    s = -self.negamax(depth - 1, ply + 1, -alpha - 1, -alpha);
                }
                if s > alpha && s < beta {
                    -self.negamax(depth - 1, ply + 1, -beta, -alpha)
                } else {
                    s
                }
            };
            self.pos.unmake();
            if self.clock.stopped() {
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                // Beta cut-off: the opponent avoids this line. Remember the refutation.
                let kk = &mut self.killers[slot];
                if kk[0] != m {
                    kk[1] = kk[0];
                    kk[0] = m;
                }
                self.history[m] += depth * depth;
                break;
            }
        }
        if width < ordered.len() && best <= -WIN_THRESHOLD {
            // Every move searched here loses by force, but the beam left some unsearched: that
            // is no proof. A score just short of a mate keeps the line attractive to the
            // attacker without claiming a forced win (which the hint would show to a player).
            best = -UNPROVEN_LOSS;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, ply, depth, best, bound, best_move as u16);
        best
    }

    /// The principal variation after a search, starting with `first` (the root move chosen):
    /// forced replies as the search plays them (a five, a block, an open four), otherwise each
    /// position's best move from the transposition table, until a position has none (not
    /// stored, or overwritten), a five ends the game or the line is full. Reads the table only,
    /// so the search is not changed by it; the position is returned unchanged.
    pub fn principal_variation(&mut self, first: usize) -> Line {
        let mut line = Line::new(&[first]);
        self.pos.make(first);
        let mut made = 1;
        while line.len() < PV_PLIES && !self.pos.is_full() {
            let me = self.pos.to_move();
            let next = match movegen::situation(&self.pos, false) {
                Situation::Five(p) | Situation::Block(p) | Situation::OpenFour(p) => Some(p),
                Situation::Lost => None,
                Situation::Defend(_) | Situation::Quiet(_) => self
                    .tt
                    .probe(self.pos.hash(), made)
                    .map(|e| e.best)
                    .filter(|&m| m != NO_MOVE)
                    .map(usize::from)
                    .filter(|&m| self.pos.is_empty(m) && self.pos.is_legal(m, me)),
            };
            let Some(m) = next else { break };
            line.push(m);
            if self.pos.threat(m, me) == Threat::Five {
                break;
            }
            self.pos.make(m);
            made += 1;
        }
        for _ in 0..made {
            self.pos.unmake();
        }
        line
    }

    /// Whether a stone of the side to move on `m` makes a three or more, or stops one of the
    /// opponent's: such moves are never reduced.
    fn threatens(&self, m: usize) -> bool {
        let me = self.pos.to_move();
        self.pos.threat(m, me) >= Threat::Three || self.pos.threat(m, 1 - me) >= Threat::Three
    }

    /// A quiet position at the horizon: a VCF for the side to move decides it, otherwise the
    /// static evaluation does.
    fn horizon(&mut self, ply: i32) -> i32 {
        if self.vcf_at_horizon && self.pos.count_at_least(self.pos.to_move(), Threat::Four) > 0 {
            let mut solver = Solver::new(Kind::Vcf, self.pos.to_move(), VCF_NODES_IN_SEARCH);
            let found = solver.run(&mut self.pos, VCF_MAX_DEPTH);
            self.clock.nodes += solver.nodes;
            if let Some(win) = found {
                return WIN - ply - win.line.len() as i32;
            }
        }
        evaluate(&self.pos)
    }
}

fn beam(depth: i32) -> usize {
    BEAM[(depth.max(0) as usize).min(BEAM.len() - 1)]
}
