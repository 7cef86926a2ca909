//! Puzzles (残局): proving that the side to move wins by force, with *every* defence considered,
//! and playing such a puzzle out (checking the solver's attacks, choosing the defence).
//!
//! [`threat`](crate::threat) is the AI's fast solver: against an open three it tries only the
//! textbook defences, which is right often enough for choosing a move but is no proof. A puzzle
//! is shown to players as "win by force in N", so its proof here is complete on the defender's
//! side:
//!
//! - Against a four the defender's only reply is the five point (any other move lets the five
//!   in); if the defender has a five of its own the attack has failed, and a renju black
//!   defender whose five point is forbidden has no reply at all.
//! - Against an open three (a point where the attacker would make an open four or a double
//!   four), *every* legal point is a reply, except those after which the attacker wins at once:
//!   it has a five point, or — the defender having no four — an open-four point it may play.
//!   Those replies lose in one or two more attacker moves, which the count of N includes. What is
//!   left are the points that stop every winning point (on one of its four lines within five
//!   cells, or the point itself) and the defender's fours anywhere on the board (counter-threats:
//!   the attacker must block and keep the initiative), each tried by playing it. One exception:
//!   when every winning point of a renju black attacker also makes two three shapes, a white
//!   stone far away can make one of those threes real and the point a forbidden double three
//!   (the rule is recursive), so then every legal point is tried.
//! - After a counter-four the attacker must block; the attack goes on only if that block is a
//!   threat itself or a three of the attacker still stands.
//!
//! The attacker's side is the puzzle's kind: a VCF attacker plays only fours, a VCT attacker
//! fours and open threes (a quiet move that only prepares a threat is not searched, so "the
//! first move is unique" means unique among the threats). A renju black attacker never plays a
//! forbidden point; a white attacker may win on a four whose block is forbidden for black.
//!
//! Because nothing is pruned, a result at depth d holds at every other depth in the obvious
//! direction (a win within d is a win within more; no win within d is none within less), so one
//! table of bounds per position serves the iterative deepening that finds the shortest win.
//! N counts the attacker's moves up to and including the five against the most stubborn
//! defence. [`defend`] is that defence; [`check_attack`] says whether a player's move keeps the
//! win. The stored set itself is [`set`], written by the `puzzles-gen` binary (its format:
//! [`Puzzle`] and `data/README.md`).

use crate::pattern::{Shape, REACH};
use crate::position::{Colour, Position, Threat, BLACK};
use crate::threat::Kind;
use gomoku_rules::{Coord, Game, Point, Rule, Stone};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The node budget ran out before the question was settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted;

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("node budget exhausted")
    }
}

impl std::error::Error for Exhausted {}

/// A proven forced win of the side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    pub kind: Kind,
    /// Attacker moves up to and including the five, against the most stubborn defence.
    pub win_in: u32,
    /// Every first move that wins within `win_in` (grid indices, in search order).
    pub first_moves: Vec<usize>,
    /// A principal line: the attacker's shortest win against the most stubborn defence, both
    /// sides' moves, ending with the five (or, renju white, with a four black may not block).
    pub line: Vec<usize>,
    /// Positions in the proof tree of the first move (attacker and defender nodes).
    pub tree: u64,
    /// The most replies one defender node of that tree had to be refuted one by one.
    pub widest: usize,
    /// Nodes searched to find all this.
    pub nodes: u64,
}

/// The defender's answer to an attack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    pub point: usize,
    /// Attacker moves still needed to win after this reply (within the limit given), or None
    /// when this reply refutes the attack.
    pub attacker_wins_in: Option<u32>,
}

/// What the defender may do after the attacker's move.
enum Defences {
    /// The defender has a five point: the attack has failed.
    DefenderWins,
    /// The attacker's move threatens nothing of the puzzle's kind: the defender has a free move.
    NoThreat,
    /// Every reply not listed loses within `trivial` attacker moves; the listed ones need search.
    Replies { replies: Vec<usize>, trivial: u32 },
}

/// What the memo knows of a position (attacker to move).
#[derive(Clone, Copy)]
struct Bounds {
    /// No win within this many moves (0: nothing known).
    fails_within: u32,
    /// A win within this many moves (u32::MAX: nothing known).
    wins_within: u32,
}

/// One proof search: the kind, the attacker, its budget and its memo.
pub struct Prover {
    kind: Kind,
    attacker: Colour,
    pub nodes: u64,
    node_limit: u64,
    memo: HashMap<u64, Bounds>,
}

impl Prover {
    pub fn new(kind: Kind, attacker: Colour, node_limit: u64) -> Prover {
        Prover {
            kind,
            attacker,
            nodes: 0,
            node_limit,
            memo: HashMap::new(),
        }
    }

    fn tick(&mut self) -> Result<(), Exhausted> {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            Err(Exhausted)
        } else {
            Ok(())
        }
    }

    /// The attacker wins at once: 1 with a legal five point, 2 with a legal open-four point
    /// while the defender has no four; None otherwise.
    fn immediate(&self, pos: &Position) -> Option<u32> {
        let me = self.attacker;
        if pos.five_points(me).into_iter().any(|p| pos.is_legal(p, me)) {
            return Some(1);
        }
        if pos.has_four(1 - me) {
            return None;
        }
        pos.points_with(me, Threat::OpenFour)
            .into_iter()
            .any(|p| pos.is_legal(p, me))
            .then_some(2)
    }

    /// Attacker to move: does it win within `depth` moves, every defence considered?
    pub fn attack(&mut self, pos: &mut Position, depth: u32) -> Result<bool, Exhausted> {
        debug_assert_eq!(pos.to_move(), self.attacker);
        if let Some(k) = self.immediate(pos) {
            return Ok(k <= depth);
        }
        if depth < 2 {
            return Ok(false);
        }
        let key = pos.hash();
        if let Some(b) = self.memo.get(&key) {
            if depth <= b.fails_within {
                return Ok(false);
            }
            if depth >= b.wins_within {
                return Ok(true);
            }
        }
        self.tick()?;
        let won = self.attack_moves(pos, depth)?.is_some();
        let b = self.memo.entry(key).or_insert(Bounds {
            fails_within: 0,
            wins_within: u32::MAX,
        });
        if won {
            b.wins_within = b.wins_within.min(depth);
        } else {
            b.fails_within = b.fails_within.max(depth);
        }
        Ok(won)
    }

    /// The first attacker move that wins within `depth` (no immediate win on the board).
    fn attack_moves(&mut self, pos: &mut Position, depth: u32) -> Result<Option<usize>, Exhausted> {
        let me = self.attacker;
        let you = 1 - me;
        // A counter-four: the attacker must block it, and the block is its move.
        if pos.has_four(you) {
            let fives = pos.five_points(you);
            if fives.len() > 1 || !pos.is_legal(fives[0], me) {
                return Ok(None);
            }
            let block = fives[0];
            return Ok(self.threat_wins(pos, block, depth)?.then_some(block));
        }
        for p in self.threats(pos) {
            if self.threat_wins(pos, p, depth)? {
                return Ok(Some(p));
            }
        }
        Ok(None)
    }

    /// The attacker's threats of the puzzle's kind, strongest and richest first.
    fn threats(&self, pos: &Position) -> Vec<usize> {
        let me = self.attacker;
        let least = match self.kind {
            Kind::Vcf => Threat::Four,
            Kind::Vct => Threat::Three,
        };
        let mut moves: Vec<(usize, Threat, i32)> = pos
            .points_with(me, least)
            .into_iter()
            .filter(|&p| pos.is_legal(p, me))
            .map(|p| (p, pos.threat(p, me), pos.score(p, me)))
            .collect();
        moves.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
        moves.into_iter().map(|m| m.0).collect()
    }

    /// The attacker plays `p` (one of its `depth` moves): does every defence lose within the
    /// moves left?
    fn threat_wins(&mut self, pos: &mut Position, p: usize, depth: u32) -> Result<bool, Exhausted> {
        if pos.threat(p, self.attacker) == Threat::Five {
            return Ok(depth >= 1);
        }
        pos.make(p);
        let won = self.defended(pos, depth - 1);
        pos.unmake();
        won
    }

    /// Defender to move after the attacker's move: does every reply lose within `left`
    /// attacker moves?
    fn defended(&mut self, pos: &mut Position, left: u32) -> Result<bool, Exhausted> {
        match self.defences(pos) {
            Defences::DefenderWins | Defences::NoThreat => Ok(false),
            Defences::Replies { replies, trivial } => {
                if trivial > left {
                    return Ok(false);
                }
                for q in replies {
                    pos.make(q);
                    let won = self.attack(pos, left);
                    pos.unmake();
                    if !won? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
        }
    }

    /// The replies that need search, after the attacker's move (defender to move). See the
    /// module comment for why the others may be left out.
    fn defences(&mut self, pos: &mut Position) -> Defences {
        let me = self.attacker;
        let you = 1 - me;
        if pos.has_four(you) {
            return Defences::DefenderWins;
        }
        let fives = pos.five_points(me);
        if !fives.is_empty() {
            let replies = if fives.len() == 1 && pos.is_legal(fives[0], you) {
                vec![fives[0]]
            } else {
                Vec::new()
            };
            return Defences::Replies {
                replies,
                trivial: 1,
            };
        }
        if self.kind == Kind::Vcf {
            return Defences::NoThreat;
        }
        let targets: Vec<usize> = pos
            .points_with(me, Threat::OpenFour)
            .into_iter()
            .filter(|&p| pos.is_legal(p, me))
            .collect();
        if targets.is_empty() {
            return Defences::NoThreat;
        }
        // A renju black point that makes two open-three shapes besides is legal only because
        // one of those threes is not real, and a white stone anywhere may make it real (then
        // the point is a forbidden double three): such a point can be stopped from afar. Any
        // other point is stopped only on its lines, so one of those is the target if there is.
        let fragile = |p: usize| {
            pos.rule() == Rule::Renju
                && me == BLACK
                && pos
                    .shapes(p, me)
                    .iter()
                    .filter(|&&s| s == Shape::OpenThree)
                    .count()
                    >= 2
        };
        let (target, everywhere) = match targets.iter().find(|&&p| !fragile(p)) {
            Some(&p) => (p, false),
            None => (targets[0], true),
        };
        let t = pos.point(target);
        let mut replies = Vec::new();
        let mut counters = Vec::new();
        for q in pos.points().to_vec() {
            if !pos.is_empty(q) || !pos.is_legal(q, you) {
                continue;
            }
            let counter = pos.threat(q, you) >= Threat::Four;
            if !(everywhere || counter || on_lines(t, pos.point(q))) {
                continue;
            }
            pos.make(q);
            let stops = self.immediate(pos).is_none();
            pos.unmake();
            if stops {
                if counter {
                    counters.push(q);
                } else {
                    replies.push(q);
                }
            }
        }
        // Move ordering: the blocks nearest the attacker's strength first, then the counter-
        // fours: a refutation found early ends the node.
        replies.sort_by_key(|&q| (-pos.score(q, me) - pos.score(q, you), q));
        replies.extend(counters);
        Defences::Replies {
            replies,
            trivial: 2,
        }
    }

    /// The shortest win from here (attacker to move) within `max` moves.
    pub fn shortest(&mut self, pos: &mut Position, max: u32) -> Result<Option<u32>, Exhausted> {
        for d in 1..=max {
            if self.attack(pos, d)? {
                return Ok(Some(d));
            }
        }
        Ok(None)
    }

    /// After the attacker's move (defender to move): the fewest attacker moves that win against
    /// every reply, within `max`.
    fn shortest_after(&mut self, pos: &mut Position, max: u32) -> Result<Option<u32>, Exhausted> {
        for d in 0..=max {
            if self.defended(pos, d)? {
                return Ok(Some(d));
            }
        }
        Ok(None)
    }

    /// The most stubborn reply after the attacker's move (defender to move): one that refutes
    /// the attack within `max` moves if any does, else the one that delays the five longest.
    pub fn stubborn(&mut self, pos: &mut Position, max: u32) -> Result<Option<Reply>, Exhausted> {
        let me = self.attacker;
        let you = 1 - me;
        match self.defences(pos) {
            Defences::DefenderWins => {
                let point = pos.five_points(you)[0];
                Ok(Some(Reply {
                    point,
                    attacker_wins_in: None,
                }))
            }
            Defences::NoThreat => {
                // No forced answer: the defender takes the point that matters most to both.
                Ok(self.natural(pos).map(|point| Reply {
                    point,
                    attacker_wins_in: None,
                }))
            }
            Defences::Replies { replies, trivial } => {
                let mut best: Option<Reply> = None;
                for q in replies {
                    pos.make(q);
                    let n = self.shortest(pos, max);
                    pos.unmake();
                    let reply = Reply {
                        point: q,
                        attacker_wins_in: n?,
                    };
                    if reply.attacker_wins_in.is_none() {
                        return Ok(Some(reply));
                    }
                    if best.is_none_or(|b| reply.attacker_wins_in > b.attacker_wins_in) {
                        best = Some(reply);
                    }
                }
                if best.is_some() {
                    return Ok(best);
                }
                // Every reply loses at once: block the five point, or an open-four point,
                // as a player would.
                let fives = pos.five_points(me);
                let fours = pos.points_with(me, Threat::OpenFour);
                let point = fives
                    .into_iter()
                    .chain(fours)
                    .find(|&q| pos.is_legal(q, you))
                    .or_else(|| self.natural(pos));
                Ok(point.map(|point| Reply {
                    point,
                    attacker_wins_in: Some(trivial),
                }))
            }
        }
    }

    /// The legal point richest for both sides, for the defender to move.
    fn natural(&self, pos: &Position) -> Option<usize> {
        let you = pos.to_move();
        pos.points()
            .iter()
            .copied()
            .filter(|&q| pos.is_empty(q) && pos.is_legal(q, you))
            .max_by_key(|&q| (pos.score(q, 0) + pos.score(q, 1), std::cmp::Reverse(q)))
    }

    /// The proof tree of a win within `depth` (attacker to move): its positions and its widest
    /// defender node. Stops counting at `cap` positions.
    fn tree(
        &mut self,
        pos: &mut Position,
        depth: u32,
        cap: u64,
    ) -> Result<(u64, usize), Exhausted> {
        if self.immediate(pos).is_some() {
            return Ok((1, 0));
        }
        let d = self.shortest(pos, depth)?.unwrap_or(depth);
        let Some(p) = self.attack_moves(pos, d)? else {
            return Ok((1, 0));
        };
        if pos.threat(p, self.attacker) == Threat::Five {
            return Ok((1, 0));
        }
        pos.make(p);
        let mut size = 2;
        let mut widest = 0;
        if let Defences::Replies { replies, .. } = self.defences(pos) {
            widest = replies.len();
            for q in replies {
                if size >= cap {
                    break;
                }
                pos.make(q);
                let sub = self.tree(pos, d - 1, cap - size);
                pos.unmake();
                let (n, w) = sub?;
                size += n;
                widest = widest.max(w);
            }
        }
        pos.unmake();
        Ok((size, widest))
    }
}

/// Whether `q` lies on one of the four lines through `p` within the patterns' reach: the only
/// points whose stone changes what a stone on `p` makes.
fn on_lines(p: Point, q: Point) -> bool {
    let dr = p.row.abs_diff(q.row);
    let dc = p.col.abs_diff(q.col);
    (dr == 0 || dc == 0 || dr == dc) && dr.max(dc) <= REACH
}

/// Proves a forced win of `kind` for the side to move within `max` moves, with every defence
/// considered: the shortest N, every first move that wins in N, a principal line and the size
/// of the proof. Ok(None) when there is none within `max`. `pos` is returned unchanged.
pub fn prove(
    pos: &mut Position,
    kind: Kind,
    max: u32,
    node_limit: u64,
) -> Result<Option<Proof>, Exhausted> {
    let me = pos.to_move();
    let mut prover = Prover::new(kind, me, node_limit);
    let Some(win_in) = prover.shortest(pos, max)? else {
        return Ok(None);
    };
    let mut first_moves = Vec::new();
    let five = pos
        .five_points(me)
        .into_iter()
        .find(|&p| pos.is_legal(p, me));
    if let Some(p) = five {
        first_moves.push(p);
    } else if pos.has_four(1 - me) {
        first_moves.extend(prover.attack_moves(pos, win_in)?);
    } else {
        let threats = prover.threats(pos);
        for p in threats {
            if prover.threat_wins(pos, p, win_in)? {
                first_moves.push(p);
            }
        }
        if first_moves.is_empty() {
            // An open four already on the board: it wins in two however it is played.
            first_moves.extend(
                pos.points_with(me, Threat::OpenFour)
                    .into_iter()
                    .filter(|&p| pos.is_legal(p, me)),
            );
        }
    }
    let line = principal(&mut prover, pos, win_in)?;
    let (tree, widest) = prover.tree(pos, win_in, 1_000_000)?;
    Ok(Some(Proof {
        kind,
        win_in,
        first_moves,
        line,
        tree,
        widest,
        nodes: prover.nodes,
    }))
}

/// The attacker's shortest win against the most stubborn defence, both sides' moves.
fn principal(
    prover: &mut Prover,
    pos: &mut Position,
    win_in: u32,
) -> Result<Vec<usize>, Exhausted> {
    let me = prover.attacker;
    let mut line = Vec::new();
    let mut left = win_in;
    let result = (|| {
        while left > 0 {
            let fives: Vec<usize> = pos
                .five_points(me)
                .into_iter()
                .filter(|&p| pos.is_legal(p, me))
                .collect();
            let mv = if let Some(&p) = fives.first() {
                p
            } else {
                let d = prover.shortest(pos, left)?.ok_or(Exhausted)?;
                match prover.attack_moves(pos, d)? {
                    Some(p) => p,
                    // An open four on the board: play one end.
                    None => pos
                        .points_with(me, Threat::OpenFour)
                        .into_iter()
                        .find(|&p| pos.is_legal(p, me))
                        .ok_or(Exhausted)?,
                }
            };
            let five = pos.threat(mv, me) == Threat::Five;
            line.push(mv);
            pos.make(mv);
            left -= 1;
            if five || left == 0 {
                break;
            }
            match prover.stubborn(pos, left)? {
                Some(r) if r.attacker_wins_in.is_some() => {
                    // A renju white four that black may not block ends the line.
                    if !pos.is_legal(r.point, 1 - me) {
                        break;
                    }
                    line.push(r.point);
                    pos.make(r.point);
                    left = r.attacker_wins_in.unwrap_or(left);
                }
                _ => break,
            }
        }
        Ok(())
    })();
    for _ in 0..line.len() {
        pos.unmake();
    }
    result.map(|()| line)
}

/// The shortest forced win of `kind` for the side to move within `max` moves, or None.
pub fn win_in(
    pos: &mut Position,
    kind: Kind,
    max: u32,
    node_limit: u64,
) -> Result<Option<u32>, Exhausted> {
    Prover::new(kind, pos.to_move(), node_limit).shortest(pos, max)
}

/// The solver, as the attacker, plays `mv` (empty and legal): does it keep a forced win of
/// `kind`, every defence considered, within `within` attacker moves counting this one? Some
/// with the moves it needs (this one included), None when the win is gone.
pub fn check_attack(
    pos: &mut Position,
    kind: Kind,
    mv: usize,
    within: u32,
    node_limit: u64,
) -> Result<Option<u32>, Exhausted> {
    let me = pos.to_move();
    if !pos.is_empty(mv) || !pos.is_legal(mv, me) || within == 0 {
        return Ok(None);
    }
    if pos.threat(mv, me) == Threat::Five {
        return Ok(Some(1));
    }
    let mut prover = Prover::new(kind, me, node_limit);
    pos.make(mv);
    let n = prover.shortest_after(pos, within - 1);
    pos.unmake();
    Ok(n?.map(|n| n + 1))
}

/// The defender's most stubborn reply to the attacker's last move (the defender is to move):
/// a reply that refutes a win of `kind` within `within` attacker moves if there is one, else
/// the reply that delays the five longest. None only when the defender has no legal move.
pub fn defend(
    pos: &mut Position,
    kind: Kind,
    within: u32,
    node_limit: u64,
) -> Result<Option<Reply>, Exhausted> {
    let attacker = 1 - pos.to_move();
    Prover::new(kind, attacker, node_limit).stubborn(pos, within)
}

/// Kind's name in the stored set.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Vcf => "vcf",
        Kind::Vct => "vct",
    }
}

/// One stored puzzle: a line of `data/puzzles.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Puzzle {
    /// Stable name: the rule's first letter and a number ("r0042").
    pub id: String,
    /// "freestyle", "standard" or "renju".
    pub rule: String,
    pub size: usize,
    /// The game's moves up to the puzzle, black first, in notation ("h8"); a legal game.
    pub moves: Vec<String>,
    /// "black" or "white": the attacker, the player's side.
    pub to_move: String,
    /// "vcf" (fours only) or "vct" (fours and threes).
    pub kind: String,
    /// Attacker moves to the five, against the most stubborn defence.
    pub win_in: u32,
    /// Every winning first move at that length (a good puzzle has one).
    pub first_moves: Vec<String>,
    /// The principal line, both sides' moves, from the attacker's first.
    pub solution: Vec<String>,
    /// Positions in the proof tree of the first move.
    pub tree: u64,
    /// The most replies one defender node of that tree had.
    pub widest: usize,
    /// The first move is not the obvious one: a three when fours exist, or not the attacker's
    /// richest threat point.
    pub quiet_first: bool,
    /// 1 (easy) to 5 (expert), from the figures above.
    pub difficulty: u8,
    /// The puzzle's starting rating (Glicko-2 scale, 1500 the middle).
    pub rating: u32,
    /// Where the position came from: the generator's game seed and ply.
    pub seed: u64,
    pub ply: usize,
}

/// The stored set, as the generator wrote it.
pub const SET: &str = include_str!("../data/puzzles.jsonl");

/// The stored set, parsed.
pub fn set() -> Vec<Puzzle> {
    SET.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("the stored puzzle set is valid"))
        .collect()
}

/// A stored puzzle in the rules' and the engine's types.
pub struct Setup {
    pub game: Game,
    pub kind: Kind,
    pub attacker: Stone,
}

/// Why a stored puzzle could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPuzzle(pub String);

impl std::fmt::Display for BadPuzzle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad puzzle: {}", self.0)
    }
}

impl std::error::Error for BadPuzzle {}

impl Puzzle {
    /// Replays the puzzle's moves under its rule.
    pub fn setup(&self) -> Result<Setup, BadPuzzle> {
        let bad = |why: &str| BadPuzzle(format!("{}: {why}", self.id));
        let rule: Rule = self.rule.parse().map_err(|_| bad("rule"))?;
        let points = self
            .moves
            .iter()
            .map(|m| parse_point(m, self.size).ok_or_else(|| bad("move")))
            .collect::<Result<Vec<_>, _>>()?;
        let game = Game::replay(self.size, rule, &points).map_err(|_| bad("illegal moves"))?;
        let kind = match self.kind.as_str() {
            "vcf" => Kind::Vcf,
            "vct" => Kind::Vct,
            _ => return Err(bad("kind")),
        };
        let attacker = game.to_move().ok_or_else(|| bad("game over"))?;
        if stone_name(attacker) != self.to_move {
            return Err(bad("side to move"));
        }
        Ok(Setup {
            game,
            kind,
            attacker,
        })
    }
}

/// "black" or "white".
pub fn stone_name(s: Stone) -> &'static str {
    match s {
        Stone::Black => "black",
        Stone::White => "white",
    }
}

/// A point in notation on a board of `size`.
pub fn notation(p: Point, size: usize) -> String {
    Coord::from_point(p, size).to_string()
}

/// The point of a notation on a board of `size`.
pub fn parse_point(s: &str, size: usize) -> Option<Point> {
    s.parse::<Coord>().ok()?.to_point(size)
}
