//! The search's own board: a padded one-dimensional grid with everything the evaluation needs
//! kept up to date incrementally as stones are placed and removed.
//!
//! For every empty point, colour and direction it keeps the base-3 key of the neighbourhood
//! (see `pattern.rs`). Placing a stone changes one digit of the keys of the 40 points within five
//! cells along its four lines, so `make`/`unmake` add or subtract a place value instead of
//! re-reading the board; the touched points then get their shape, threat level and point score
//! recomputed, and per-colour totals and threat counts are adjusted by the difference.

use crate::params::{
    DOUBLE_FOUR_BONUS, DOUBLE_THREE_BONUS, EVAL_CLASS, EVAL_SHAPE, FOUR_THREE_BONUS, NEAR,
    SHAPE_SCORE,
};
use crate::pattern::{self, Shape, BLOCKED, OWN, REACH};
use gomoku_rules::{renju, Board, Game, Point, Rule, Stone};
use std::cell::Cell;
use std::sync::OnceLock;

/// Entries of the renju forbidden-point cache (a power of two).
const FORBIDDEN_CACHE: usize = 1 << 14;
/// Padding of walls around the board: a point's neighbourhood never leaves the array.
const PAD: usize = REACH;
/// Cell contents.
pub const EMPTY: u8 = 0;
pub const WALL: u8 = 3;

/// Colour index: 0 black, 1 white (a stone's wire value minus one).
pub type Colour = usize;
pub const BLACK: Colour = 0;
pub const WHITE: Colour = 1;

pub fn colour_of(stone: Stone) -> Colour {
    stone.as_u8() as usize - 1
}
pub fn stone_of(c: Colour) -> Stone {
    if c == BLACK {
        Stone::Black
    } else {
        Stone::White
    }
}

/// What a stone on a point makes for one colour, all four lines together, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Threat {
    None = 0,
    /// Some two or three that is not yet a threat.
    Minor,
    /// One open three.
    Three,
    /// Two open threes.
    DoubleThree,
    /// One four.
    Four,
    /// A four and an open three.
    FourThree,
    /// An open four or two fours: a five next move cannot be stopped.
    OpenFour,
    /// A five.
    Five,
}

pub const THREAT_KINDS: usize = 8;

pub fn threat_of(shapes: [Shape; 4]) -> Threat {
    let mut fours = 0;
    let mut threes = 0;
    let mut minor = false;
    for s in shapes {
        match s {
            Shape::Five => return Threat::Five,
            Shape::OpenFour => fours += 2,
            Shape::Four => fours += 1,
            Shape::OpenThree => threes += 1,
            Shape::Two | Shape::OpenTwo | Shape::Three => minor = true,
            _ => {}
        }
    }
    match (fours, threes) {
        (f, _) if f >= 2 => Threat::OpenFour,
        (1, t) if t >= 1 => Threat::FourThree,
        (1, _) => Threat::Four,
        (_, t) if t >= 2 => Threat::DoubleThree,
        (_, 1) => Threat::Three,
        _ if minor => Threat::Minor,
        _ => Threat::None,
    }
}

/// Place values of the four directions' shapes in a point's combination code (base 10: a shape
/// is one of ten).
const POW10: [u16; 4] = [1, 10, 100, 1000];
const COMBOS: usize = 10_000;

/// What four line shapes make together, for every combination code: the threat, the point
/// score (move ordering) and the point's part of the evaluation for its colour, as the side to
/// move and as the side waiting (see `params::EVAL_SHAPE`). A point's code changes one digit
/// when a stone lands on one of its lines, so its new values are one look-up each.
#[derive(Debug)]
struct Combos {
    threat: Vec<Threat>,
    score: Vec<i32>,
    /// Indexed by `[forbidding][code]`: `forbidding` is 1 for black in renju, whose double
    /// threes and double fours are forbidden points, worth nothing to it.
    eval: [Vec<[i32; 2]>; 2],
}

fn combos() -> &'static Combos {
    static COMBO: OnceLock<Combos> = OnceLock::new();
    COMBO.get_or_init(|| {
        let mut threat = Vec::with_capacity(COMBOS);
        let mut score = Vec::with_capacity(COMBOS);
        let mut eval = [Vec::with_capacity(COMBOS), Vec::with_capacity(COMBOS)];
        for code in 0..COMBOS {
            let shapes =
                [0, 1, 2, 3].map(|d| Shape::from_u8((code / POW10[d] as usize % 10) as u8));
            let t = threat_of(shapes);
            threat.push(t);
            score.push(point_score(shapes, t));
            let class = class_of(shapes);
            for (forbidding, table) in eval.iter_mut().enumerate() {
                // Two open threes or two fours (on two lines) without a five: forbidden to
                // black in renju. A lone open four is not, and keeps its value.
                let fours = shapes
                    .iter()
                    .filter(|&&s| matches!(s, Shape::Four | Shape::OpenFour))
                    .count();
                let dead = forbidding == 1 && class != 14 && (class == 8 || fours >= 2);
                table.push([0, 1].map(|role| {
                    if dead {
                        0
                    } else {
                        shapes
                            .iter()
                            .map(|&s| EVAL_SHAPE[role][s as usize])
                            .sum::<i32>()
                            + EVAL_CLASS[role][class]
                    }
                }));
            }
        }
        Combos {
            threat,
            score,
            eval,
        }
    })
}

/// Classes of what one stone on a point makes over its four lines together, finer than
/// [`Threat`]: the evaluation weighs each (`params::EVAL_CLASS`).
pub const CLASSES: usize = 15;

/// The class (0..`CLASSES`) of a point by its four shapes:
/// 0 nothing; 1 a two; 2 an open two; 3 a three; 4 two of (three, open two);
/// 5 an open three; 6 an open three and a two; 7 an open three and a three or open two;
/// 8 two open threes; 9 a four; 10 a four and a two; 11 a four and a three or open two;
/// 12 a four and an open three; 13 an open four or two fours; 14 a five.
/// Classes 6, 7, 10 and 11 are the points that threaten and build at once.
pub fn class_of(shapes: [Shape; 4]) -> usize {
    let n = |x: Shape| shapes.iter().filter(|&&s| s == x).count();
    let (fours, open_threes) = (n(Shape::Four), n(Shape::OpenThree));
    let builders = n(Shape::Three) + n(Shape::OpenTwo);
    let twos = n(Shape::Two);
    if n(Shape::Five) > 0 {
        14
    } else if n(Shape::OpenFour) > 0 || fours >= 2 {
        13
    } else if fours == 1 {
        if open_threes > 0 {
            12
        } else if builders > 0 {
            11
        } else if twos > 0 {
            10
        } else {
            9
        }
    } else if open_threes >= 2 {
        8
    } else if open_threes == 1 {
        if builders > 0 {
            7
        } else if twos > 0 {
            6
        } else {
            5
        }
    } else if builders >= 2 {
        4
    } else if n(Shape::Three) == 1 {
        3
    } else if n(Shape::OpenTwo) == 1 {
        2
    } else if twos > 0 {
        1
    } else {
        0
    }
}

fn point_score(shapes: [Shape; 4], threat: Threat) -> i32 {
    let base: i32 = shapes.iter().map(|&s| SHAPE_SCORE[s as usize]).sum();
    base + match threat {
        Threat::FourThree => FOUR_THREE_BONUS,
        Threat::DoubleThree => DOUBLE_THREE_BONUS,
        Threat::OpenFour => DOUBLE_FOUR_BONUS,
        _ => 0,
    }
}

/// SplitMix64: a tiny seeded generator, enough for Zobrist keys and the easy level's choices.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[derive(Debug, Clone)]
pub struct Position {
    size: usize,
    stride: usize,
    rule: Rule,
    cells: Vec<u8>,
    /// Neighbourhood keys per point, colour, direction.
    keys: Vec<[[u32; 4]; 2]>,
    shapes: Vec<[[Shape; 4]; 2]>,
    /// Per point and colour, the four shapes as one base-10 code (see `Combos`).
    codes: Vec<[u16; 2]>,
    threats: Vec<[Threat; 2]>,
    scores: Vec<[i32; 2]>,
    /// Stones within `NEAR` (Chebyshev distance) of each point.
    near: Vec<u8>,
    /// Per colour, the evaluation's sums over empty points as the side to move (0) and as the
    /// side waiting (1).
    eval_totals: [[i64; 2]; 2],
    /// Empty points per colour and threat kind.
    threat_counts: [[u32; THREAT_KINDS]; 2],
    hash: u64,
    zobrist: Vec<[u64; 2]>,
    history: Vec<usize>,
    to_move: Colour,
    /// Mirror in the rules crate's form, for the renju forbidden-move judge.
    mirror: Board,
    /// The board's points (indices), row-major.
    points: Vec<usize>,
    /// Renju judge answers already computed (see `is_forbidden`).
    forbidden_cache: Vec<Cell<u64>>,
    /// The shape table of each colour's rule (exact five or five or more), the evaluation
    /// table of each colour (`Combos::eval`) and the combination tables, held here so that the
    /// hot path skips the lazy initialisation.
    shape_tables: [&'static [u8]; 2],
    eval_tables: [&'static [[i32; 2]]; 2],
    combos: &'static Combos,
}

impl Position {
    pub fn new(size: usize, rule: Rule) -> Position {
        let stride = size + 2 * PAD;
        let cells_len = stride * stride;
        let exact = match rule {
            Rule::Freestyle => [false, false],
            Rule::Standard => [true, true],
            Rule::Renju => [true, false],
        };
        let mut rng = Rng::new(0x005E_ED0F_607C_u64);
        let zobrist = (0..cells_len)
            .map(|_| [rng.next_u64(), rng.next_u64()])
            .collect();
        let mut cells = vec![WALL; cells_len];
        let mut points = Vec::with_capacity(size * size);
        for r in 0..size {
            for c in 0..size {
                let i = (r + PAD) * stride + c + PAD;
                cells[i] = EMPTY;
                points.push(i);
            }
        }
        let mut pos = Position {
            size,
            stride,
            rule,
            cells,
            keys: vec![[[0; 4]; 2]; cells_len],
            shapes: vec![[[Shape::Dead; 4]; 2]; cells_len],
            codes: vec![[0; 2]; cells_len],
            threats: vec![[Threat::None; 2]; cells_len],
            scores: vec![[0; 2]; cells_len],
            near: vec![0; cells_len],
            eval_totals: [[0; 2]; 2],
            threat_counts: [[0; THREAT_KINDS]; 2],
            hash: 0,
            zobrist,
            history: Vec::new(),
            to_move: BLACK,
            mirror: Board::new(size).expect("board size checked by the caller"),
            points,
            forbidden_cache: vec![Cell::new(0); FORBIDDEN_CACHE],
            shape_tables: exact.map(pattern::table),
            eval_tables: [BLACK, WHITE].map(|c| {
                let forbidding = rule == Rule::Renju && c == BLACK;
                combos().eval[usize::from(forbidding)].as_slice()
            }),
            combos: combos(),
        };
        // Walls are blocked cells in every key; then classify every point once.
        let dirs = pos.dirs();
        for &p in &pos.points.clone() {
            for (d, &step) in dirs.iter().enumerate() {
                for j in (-(REACH as isize)..=REACH as isize).filter(|&j| j != 0) {
                    let q = (p as isize + j * step) as usize;
                    if pos.cells[q] == WALL {
                        for c in 0..2 {
                            pos.keys[p][c][d] += BLOCKED * pattern::place(j);
                        }
                    }
                }
            }
        }
        for p in pos.points.clone() {
            pos.classify(p);
        }
        pos
    }

    /// The position of a game, side to move included.
    pub fn from_game(game: &Game) -> Position {
        let mut pos = Position::new(game.size(), game.rule());
        for m in game.moves() {
            let p = pos.index(m.point);
            pos.to_move = colour_of(m.stone);
            pos.make(p);
        }
        pos.to_move = game.to_move().map(colour_of).unwrap_or(pos.to_move);
        pos
    }

    pub fn size(&self) -> usize {
        self.size
    }
    pub fn rule(&self) -> Rule {
        self.rule
    }
    pub fn to_move(&self) -> Colour {
        self.to_move
    }
    /// Zobrist hash of stones and side to move.
    pub fn hash(&self) -> u64 {
        if self.to_move == WHITE {
            self.hash ^ 0x9D39_247E_3377_6D41
        } else {
            self.hash
        }
    }
    pub fn stones(&self) -> usize {
        self.history.len()
    }
    pub fn last_move(&self) -> Option<usize> {
        self.history.last().copied()
    }
    pub fn is_full(&self) -> bool {
        self.history.len() == self.size * self.size
    }
    pub fn points(&self) -> &[usize] {
        &self.points
    }
    pub fn index(&self, p: Point) -> usize {
        (p.row + PAD) * self.stride + p.col + PAD
    }
    pub fn point(&self, i: usize) -> Point {
        Point::new(i / self.stride - PAD, i % self.stride - PAD)
    }
    pub fn is_empty(&self, i: usize) -> bool {
        self.cells[i] == EMPTY
    }
    /// Steps of the four directions: across, down, down-right, down-left.
    pub fn dirs(&self) -> [isize; 4] {
        let s = self.stride as isize;
        [1, s, s + 1, s - 1]
    }
    pub fn shapes(&self, i: usize, c: Colour) -> [Shape; 4] {
        self.shapes[i][c]
    }
    pub fn threat(&self, i: usize, c: Colour) -> Threat {
        self.threats[i][c]
    }
    pub fn score(&self, i: usize, c: Colour) -> i32 {
        self.scores[i][c]
    }
    /// The evaluation's sum over empty points of `c`'s values, as the side to move (`role`
    /// 0) or waiting (1).
    pub fn eval_total(&self, c: Colour, role: usize) -> i64 {
        self.eval_totals[c][role]
    }
    pub fn is_near(&self, i: usize) -> bool {
        self.near[i] > 0
    }
    /// Empty points where `c` would make at least `t`.
    pub fn count_at_least(&self, c: Colour, t: Threat) -> u32 {
        self.threat_counts[c][t as usize..].iter().sum()
    }
    /// Does `c` have a four on the board (an empty point completing its five)?
    pub fn has_four(&self, c: Colour) -> bool {
        self.threat_counts[c][Threat::Five as usize] > 0
    }
    /// The empty points completing a five for `c`.
    pub fn five_points(&self, c: Colour) -> Vec<usize> {
        self.points_with(c, Threat::Five)
    }
    /// Empty points where `c` would make at least `t` (scan of the board).
    pub fn points_with(&self, c: Colour, t: Threat) -> Vec<usize> {
        if self.count_at_least(c, t) == 0 {
            return Vec::new();
        }
        self.points
            .iter()
            .copied()
            .filter(|&i| self.cells[i] == EMPTY && self.threats[i][c] >= t)
            .collect()
    }

    /// Whether `c` has an open three: a point where it would make an open four, and (renju
    /// black) may legally play. A black "three" whose four point is forbidden threatens nothing.
    pub fn threatens_open_four(&self, c: Colour) -> bool {
        if self.count_at_least(c, Threat::OpenFour) == 0 {
            return false;
        }
        if !(self.rule == Rule::Renju && c == BLACK) {
            return true;
        }
        self.points_with(c, Threat::OpenFour)
            .into_iter()
            .any(|p| self.is_legal(p, c))
    }

    /// Whether `c` may play on the empty point `i`: always, except black's forbidden points in
    /// renju. Cheap shape tests first; the rules' full judge only for a point that makes an
    /// overline, two fours or two threes.
    pub fn is_legal(&self, i: usize, c: Colour) -> bool {
        !(self.rule == Rule::Renju && c == BLACK && self.is_forbidden(i))
    }

    fn is_forbidden(&self, i: usize) -> bool {
        let shapes = self.shapes[i][BLACK];
        let mut fours = 0;
        let mut threes = 0;
        let mut overline = false;
        for s in shapes {
            match s {
                Shape::Five => return false,
                Shape::Overline => overline = true,
                Shape::OpenFour => fours += 2,
                Shape::Four => fours += 1,
                Shape::OpenThree => threes += 1,
                _ => {}
            }
        }
        if !overline && fours < 2 && threes < 2 {
            return false;
        }
        // The full judge can be slow (threes are checked recursively), and the search asks
        // about the same point in the same position many times: a direct-mapped cache keyed
        // by the Zobrist hash of the stones and the point. The low bit holds the answer.
        let key = (self.hash ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1;
        let slot = &self.forbidden_cache[(key >> 1) as usize & (FORBIDDEN_CACHE - 1)];
        let stored = slot.get();
        if stored | 1 == key {
            return stored & 1 == 1;
        }
        let forbidden = renju::forbidden_kind(&self.mirror, self.point(i)).is_some();
        slot.set(if forbidden { key } else { key & !1 });
        forbidden
    }

    /// Places a stone of colour `c` on the empty point `i` (for setting up a position given
    /// stone by stone, as the Gomocup `BOARD` command does); `c`'s opponent is then to move.
    pub fn place(&mut self, i: usize, c: Colour) {
        self.to_move = c;
        self.make(i);
    }

    /// Sets the side to move (setting up a position).
    pub fn set_to_move(&mut self, c: Colour) {
        self.to_move = c;
    }

    /// Places a stone of the side to move on the empty point `i` and passes the turn.
    pub fn make(&mut self, i: usize) {
        debug_assert_eq!(self.cells[i], EMPTY);
        let c = self.to_move;
        self.remove_point(i);
        self.cells[i] = c as u8 + 1;
        self.hash ^= self.zobrist[i][c];
        self.mirror.set(self.point(i), Some(stone_of(c)));
        self.history.push(i);
        self.update_keys(i, c, 1);
        self.update_near(i, 1);
        self.to_move = 1 - c;
    }

    /// Takes back the last stone.
    pub fn unmake(&mut self) {
        let i = self.history.pop().expect("a move to take back");
        let c = self.cells[i] as usize - 1;
        self.update_keys(i, c, -1);
        self.update_near(i, -1);
        self.cells[i] = EMPTY;
        self.hash ^= self.zobrist[i][c];
        self.mirror.set(self.point(i), None);
        self.classify(i);
        self.to_move = c;
    }

    fn update_keys(&mut self, i: usize, stone: Colour, sign: i32) {
        let dirs = self.dirs();
        for (d, &step) in dirs.iter().enumerate() {
            for j in (-(REACH as isize)..=REACH as isize).filter(|&j| j != 0) {
                // The stone is at offset j from q.
                let q = (i as isize - j * step) as usize;
                if self.cells[q] == WALL {
                    continue;
                }
                let place = pattern::place(j);
                for c in 0..2 {
                    let digit = if c == stone { OWN } else { BLOCKED };
                    let k = &mut self.keys[q][c][d];
                    if sign > 0 {
                        *k += digit * place;
                    } else {
                        *k -= digit * place;
                    }
                }
                if self.cells[q] == EMPTY {
                    self.reshape(q, d);
                }
            }
        }
    }

    /// An empty point whose key changed in direction `d` only: its shape there is looked up
    /// again, and when it changed, its threat and score follow from the new combination code.
    fn reshape(&mut self, q: usize, d: usize) {
        for c in 0..2 {
            let new = self.shape_tables[c][self.keys[q][c][d] as usize];
            let old = self.shapes[q][c][d] as u8;
            if new == old {
                continue;
            }
            self.shapes[q][c][d] = Shape::from_u8(new);
            let was_code = self.codes[q][c] as usize;
            let code = self.codes[q][c] + POW10[d] * u16::from(new) - POW10[d] * u16::from(old);
            self.codes[q][c] = code;
            for role in 0..2 {
                self.eval_totals[c][role] += i64::from(
                    self.eval_tables[c][code as usize][role] - self.eval_tables[c][was_code][role],
                );
            }
            let threat = self.combos.threat[code as usize];
            let score = self.combos.score[code as usize];
            self.scores[q][c] = score;
            let was = self.threats[q][c];
            if was != threat {
                self.threat_counts[c][was as usize] -= 1;
                self.threat_counts[c][threat as usize] += 1;
                self.threats[q][c] = threat;
            }
        }
    }

    fn update_near(&mut self, i: usize, sign: i32) {
        let s = self.stride as isize;
        let n = NEAR as isize;
        for dr in -n..=n {
            for dc in -n..=n {
                let q = (i as isize + dr * s + dc) as usize;
                if q < self.near.len() {
                    self.near[q] = (self.near[q] as i32 + sign) as u8;
                }
            }
        }
    }

    /// Takes an empty point's contribution out of the totals (before it changes or fills).
    fn remove_point(&mut self, i: usize) {
        for c in 0..2 {
            let code = self.codes[i][c] as usize;
            for role in 0..2 {
                self.eval_totals[c][role] -= i64::from(self.eval_tables[c][code][role]);
            }
            self.threat_counts[c][self.threats[i][c] as usize] -= 1;
            self.scores[i][c] = 0;
            self.threats[i][c] = Threat::None;
        }
    }

    /// Recomputes an empty point's shapes, threat and score and adds them to the totals.
    fn classify(&mut self, i: usize) {
        for c in 0..2 {
            let mut code = 0;
            for (d, place) in POW10.iter().enumerate() {
                let s = self.shape_tables[c][self.keys[i][c][d] as usize];
                self.shapes[i][c][d] = Shape::from_u8(s);
                code += place * u16::from(s);
            }
            self.codes[i][c] = code;
            let threat = self.combos.threat[code as usize];
            let score = self.combos.score[code as usize];
            self.threats[i][c] = threat;
            self.scores[i][c] = score;
            for role in 0..2 {
                self.eval_totals[c][role] += i64::from(self.eval_tables[c][code as usize][role]);
            }
            self.threat_counts[c][threat as usize] += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(diagram: &str, rule: Rule, to_move: Colour) -> Position {
        let board = Board::from_ascii(diagram).expect("a diagram");
        let mut pos = Position::new(board.size(), rule);
        for r in 0..board.size() {
            for c in 0..board.size() {
                if let Some(s) = board.get(Point::new(r, c)) {
                    pos.to_move = colour_of(s);
                    let i = pos.index(Point::new(r, c));
                    pos.make(i);
                }
            }
        }
        pos.to_move = to_move;
        pos
    }

    /// Incremental keys, totals and counts equal those of a position built from scratch after
    /// a sequence of makes and unmakes.
    #[test]
    fn incremental_state_matches_fresh_build() {
        let mut pos = Position::new(9, Rule::Renju);
        let mut rng = Rng::new(7);
        for _ in 0..40 {
            let empties: Vec<usize> = pos
                .points()
                .iter()
                .copied()
                .filter(|&i| pos.is_empty(i))
                .collect();
            let i = empties[rng.below(empties.len() as u64) as usize];
            pos.make(i);
            if rng.below(3) == 0 {
                pos.unmake();
            }
        }
        let mut fresh = Position::new(9, Rule::Renju);
        for &i in &pos.history {
            fresh.to_move = pos.cells[i] as usize - 1;
            fresh.make(i);
        }
        assert_eq!(pos.keys, fresh.keys);
        assert_eq!(pos.eval_totals, fresh.eval_totals);
        assert_eq!(pos.threat_counts, fresh.threat_counts);
        assert_eq!(pos.hash, fresh.hash);
        while !pos.history.is_empty() {
            pos.unmake();
        }
        let empty = Position::new(9, Rule::Renju);
        assert_eq!(pos.keys, empty.keys);
        assert_eq!(pos.eval_totals, empty.eval_totals);
    }

    /// A broken three is seen as an open three, and its completion points as four-making points.
    #[test]
    fn threats_of_a_split_three() {
        let pos = position(
            "
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . X X . X . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .
            . . . . . . . . .",
            Rule::Freestyle,
            BLACK,
        );
        let gap = pos.index(Point::new(4, 4));
        assert_eq!(pos.threat(gap, BLACK), Threat::OpenFour);
        assert_eq!(pos.threat(pos.index(Point::new(4, 1)), BLACK), Threat::Four);
        assert_eq!(pos.count_at_least(BLACK, Threat::OpenFour), 1);
        assert!(!pos.has_four(BLACK));
    }
}
