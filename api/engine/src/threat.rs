//! Threat-space search: VCF (victory by continuous fours) and VCT (victory by continuous
//! threats, fours and open threes).
//!
//! The attacker only plays threats, so the defender's replies are few: against a four only the
//! five point, against an open three the points that stop it or a four of its own. That narrow
//! tree is searched depth-first to far greater depth than the full search reaches. Positions
//! already proven to fail are remembered (a transposition set), since threat sequences reach the
//! same position in many orders. Rules enter through `Position::is_legal`: a renju black
//! attacker never uses a forbidden point, and a black defender whose only block is forbidden has
//! lost — the way white wins with black's forbidden points.
//!
//! Limits, kept on purpose for speed: a threat is a four or an open three, so a quiet move
//! that only threatens a VCF (a "fukumi" move) is not used; against an open three the
//! defender's answers are the points where the attacker would make a four plus its own fours
//! (the textbook defences). A black renju "three" whose four point is forbidden is no threat.

use crate::params::CHECK_EVERY;
use crate::pattern::Shape;
use crate::position::{Colour, Position, Threat};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Which threats the attacker may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Fours only.
    Vcf,
    /// Fours and open threes.
    Vct,
}

/// A proven win: the attacker's first move and the whole forcing line (both sides' moves,
/// ending with the attacker's five).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Win {
    pub line: Vec<usize>,
    /// The line stops at a four that black cannot block (every block forbidden); the five
    /// itself is not in it.
    pub unanswerable: bool,
}

impl Win {
    pub fn first(&self) -> usize {
        self.line[0]
    }
    /// Attacker moves up to and including the five.
    pub fn attacker_moves(&self) -> usize {
        self.line.len().div_ceil(2) + usize::from(self.unanswerable)
    }
}

/// Solver state of one call: budget and the set of positions already refuted.
pub struct Solver {
    kind: Kind,
    attacker: Colour,
    pub nodes: u64,
    node_limit: u64,
    refuted: HashSet<(u64, u32)>,
    line: Vec<usize>,
    /// The attacker's stones placed so far on the current line (see `relevant`).
    played: Vec<usize>,
    /// This pass prunes lone threats (see `relevant`).
    pruned: bool,
    /// Set when the budget ran out: a "no" is then only "not found".
    pub exhausted: bool,
    deadline: Option<Instant>,
    stop: Option<Arc<AtomicBool>>,
}

/// Searches a win for the side to move by `kind` threats within `depth` attacker moves and
/// `node_limit` nodes. `pos` is returned unchanged.
pub fn solve(pos: &mut Position, kind: Kind, depth: u32, node_limit: u64) -> Option<Win> {
    let mut solver = Solver::new(kind, pos.to_move(), node_limit);
    solver.run(pos, depth)
}

impl Solver {
    pub fn new(kind: Kind, attacker: Colour, node_limit: u64) -> Solver {
        Solver {
            kind,
            attacker,
            nodes: 0,
            node_limit,
            refuted: HashSet::new(),
            line: Vec::new(),
            played: Vec::new(),
            pruned: false,
            exhausted: false,
            deadline: None,
            stop: None,
        }
    }

    /// Also stop at this instant (the root searches share the move's time budget).
    pub fn with_deadline(mut self, deadline: Instant) -> Solver {
        self.deadline = Some(deadline);
        self
    }

    /// Also stop when the caller raises this flag.
    pub fn with_stop(mut self, stop: Option<Arc<AtomicBool>>) -> Solver {
        self.stop = stop;
        self
    }

    pub fn run(&mut self, pos: &mut Position, depth: u32) -> Option<Win> {
        debug_assert_eq!(pos.to_move(), self.attacker);
        // VCT: a pruned pass first (see `relevant`), then, if it ends without a win and with
        // budget left, an unpruned one (its refutations do not hold without the pruning).
        let passes: &[bool] = if self.kind == Kind::Vct {
            &[true, false]
        } else {
            &[false]
        };
        for &pruned in passes {
            self.pruned = pruned;
            self.refuted.clear();
            // Iterative deepening for VCT: short wins are found before the wide tree of long
            // attempts is explored. VCF branches so little that one deep pass is cheaper.
            let first = if self.kind == Kind::Vct { 1 } else { depth };
            for d in first..=depth {
                self.line.clear();
                if self.attack(pos, d) {
                    let line = self.line.clone();
                    let unanswerable = !ends_in_five(pos, &line);
                    return Some(Win { line, unanswerable });
                }
                if self.exhausted {
                    return None;
                }
            }
        }
        None
    }

    fn out_of_budget(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.node_limit
            || (self.nodes.is_multiple_of(CHECK_EVERY)
                && (self.deadline.is_some_and(|d| Instant::now() >= d)
                    || self
                        .stop
                        .as_ref()
                        .is_some_and(|s| s.load(Ordering::Relaxed))))
        {
            self.exhausted = true;
        }
        self.exhausted
    }

    /// Attacker to move: true if a forcing win exists. On success `self.line` holds it.
    fn attack(&mut self, pos: &mut Position, depth: u32) -> bool {
        let me = self.attacker;
        let you = 1 - me;
        // A five on the board for the taking.
        if let Some(&five) = pos.five_points(me).first() {
            self.line.push(five);
            return true;
        }
        if self.out_of_budget() {
            return false;
        }
        // The defender has a four: the attacker must block, and keeps the initiative only if
        // the block is itself a threat of the allowed kind.
        if pos.has_four(you) {
            let fives = pos.five_points(you);
            if fives.len() > 1 || !pos.is_legal(fives[0], me) {
                return false;
            }
            let block = fives[0];
            if depth == 0 || !self.keeps_initiative(pos, block) {
                return false;
            }
            return self.try_threat(pos, block, depth);
        }
        // An open four (or double four) that is legal wins outright.
        for p in pos.points_with(me, Threat::OpenFour) {
            if pos.threat(p, me) == Threat::OpenFour && pos.is_legal(p, me) {
                // Defender blocks one end, attacker takes the other: three more moves at most.
                return self.finish_open_four(pos, p);
            }
        }
        if depth == 0 {
            return false;
        }
        let key = (pos.hash(), depth);
        if self.refuted.contains(&key) {
            return false;
        }
        let mut moves: Vec<(usize, Threat, i32)> = pos
            .points_with(
                me,
                if self.kind == Kind::Vcf {
                    Threat::Four
                } else {
                    Threat::Three
                },
            )
            .into_iter()
            .map(|p| (p, pos.threat(p, me), pos.score(p, me)))
            .filter(|&(p, t, _)| self.allowed(t) && self.relevant(pos, p, t))
            .collect();
        // Move ordering: strongest threat first, then the richer point.
        moves.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
        for (p, _, _) in moves {
            if !pos.is_legal(p, me) {
                continue;
            }
            if self.try_threat(pos, p, depth) {
                return true;
            }
            if self.exhausted {
                return false;
            }
        }
        if !self.exhausted {
            self.refuted.insert(key);
        }
        false
    }

    /// Whether the attacker, blocking the defender's four at `block`, still threatens: by the
    /// block itself, or (VCT) by an open three already on the board — a defender's four played
    /// against an open three leaves that three standing.
    fn keeps_initiative(&self, pos: &mut Position, block: usize) -> bool {
        if self.allowed(pos.threat(block, self.attacker)) {
            return true;
        }
        if self.kind == Kind::Vcf {
            return false;
        }
        pos.make(block);
        let threatens = pos.threatens_open_four(self.attacker);
        pos.unmake();
        threatens
    }

    /// VCT, first pass only: after the first threat, a plain three or four must also build
    /// something on another line (an open two or more there), the way the threats of a real
    /// sequence do; combined threats (four-three, double three) always pass. Pruning the lone
    /// threes and fours shrinks the tree severalfold, so most wins are found on a far smaller
    /// budget; a win that needs a lone threat is left to the second, unpruned pass.
    fn relevant(&self, pos: &Position, p: usize, t: Threat) -> bool {
        !self.pruned
            || self.played.is_empty()
            || matches!(
                t,
                Threat::DoubleThree | Threat::FourThree | Threat::OpenFour
            )
            || pos
                .shapes(p, self.attacker)
                .iter()
                .filter(|&&s| s >= Shape::OpenTwo)
                .count()
                >= 2
    }

    fn allowed(&self, t: Threat) -> bool {
        match self.kind {
            Kind::Vcf => t >= Threat::Four,
            Kind::Vct => t >= Threat::Three && t != Threat::None,
        }
    }

    /// The attacker plays an open four at `p`: record the rest of the line (a block and the five).
    fn finish_open_four(&mut self, pos: &mut Position, p: usize) -> bool {
        pos.make(p);
        let fives = pos.five_points(self.attacker);
        pos.unmake();
        self.line.push(p);
        if let [a, b, ..] = fives[..] {
            self.line.push(a);
            self.line.push(b);
        }
        true
    }

    /// The attacker plays the threat `p`; true if every defence loses.
    fn try_threat(&mut self, pos: &mut Position, p: usize, depth: u32) -> bool {
        let me = self.attacker;
        let you = 1 - me;
        let mark = self.line.len();
        self.line.push(p);
        self.played.push(p);
        pos.make(p);
        let won = 'defend: {
            // The defender completes its own five first.
            if pos.has_four(you) {
                break 'defend false;
            }
            let replies: Vec<usize> = if pos.has_four(me) {
                let fives = pos.five_points(me);
                if fives.len() > 1 {
                    // Two five points: no single block.
                    self.line.push(fives[0]);
                    self.line.push(fives[1]);
                    break 'defend true;
                }
                vec![fives[0]]
            } else if !pos.threatens_open_four(me) {
                // Not a threat after all (a renju black three whose four point is forbidden).
                break 'defend false;
            } else {
                // Against an open three: the points that stop it, or a four of one's own. The
                // direct blocks (the attacker's open-four points) first, then counter-fours,
                // then the far blocks: a refutation found early ends this node.
                let mut r = pos.points_with(me, Threat::Four);
                for q in pos.points_with(you, Threat::Four) {
                    if !r.contains(&q) {
                        r.push(q);
                    }
                }
                r.sort_by_key(|&q| {
                    let rank = if pos.threat(q, me) >= Threat::OpenFour {
                        0
                    } else if pos.threat(q, you) >= Threat::Four {
                        1
                    } else {
                        2
                    };
                    (rank, -pos.score(q, me) - pos.score(q, you), q)
                });
                r
            };
            let mut any_legal = false;
            let mut principal: Option<Vec<usize>> = None;
            for q in replies {
                if !pos.is_legal(q, you) {
                    continue;
                }
                any_legal = true;
                let before = self.line.len();
                self.line.push(q);
                pos.make(q);
                let ok = self.attack(pos, depth - 1);
                pos.unmake();
                if !ok {
                    self.line.truncate(before);
                    break 'defend false;
                }
                // The line shown is the one against the first defence; all must lose.
                if principal.is_none() {
                    principal = Some(self.line[before..].to_vec());
                }
                self.line.truncate(before);
            }
            if let Some(l) = principal {
                self.line.extend(l);
            }
            if !any_legal {
                // Every block is forbidden for black: the threat wins as it stands, and the
                // line ends here (black cannot legally answer it).
                break 'defend true;
            }
            true
        };
        pos.unmake();
        self.played.pop();
        if !won {
            self.line.truncate(mark);
        }
        won
    }
}

/// Whether the last move of `line`, played from `pos`, makes a five.
fn ends_in_five(pos: &mut Position, line: &[usize]) -> bool {
    let Some((&last, rest)) = line.split_last() else {
        return false;
    };
    for &m in rest {
        pos.make(m);
    }
    let five = pos.threat(last, pos.to_move()) == Threat::Five;
    for _ in rest {
        pos.unmake();
    }
    five
}

/// The opponent's forcing win if it could move now (a null move for the side to move): the
/// points of its line, attacker's and defender's moves alike. A move that is not on that line
/// (and is not a four of our own) lets the win through, so these are the defences to search
/// first. `pos` is returned unchanged.
pub fn opponent_threat(
    pos: &mut Position,
    kind: Kind,
    depth: u32,
    node_limit: u64,
) -> (Option<Vec<usize>>, u64) {
    let me = pos.to_move();
    let you = 1 - me;
    pos.set_to_move(you);
    let mut solver = Solver::new(kind, you, node_limit);
    let found = solver.run(pos, depth);
    pos.set_to_move(me);
    (found.map(|w| w.line), solver.nodes)
}
