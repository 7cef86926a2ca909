//! Renju forbidden moves for black: overline, double-four, double-three (with the recursive
//! check that a three must be able to become a straight four by a move that is not forbidden).
//!
//! The analysis of a point reads only the four lines through it, each as a window of eleven
//! cells centred on the point (five either side is all that a five, an overline, a four or a
//! three through the point can involve). Only a candidate three sends the analysis back to the
//! whole board: the point that would turn it into a straight four must itself be legal, which is
//! the same question one stone later, so the check recurses.
//!
//! Definitions used (black stones only; the new stone is always part of the shape):
//! - five: exactly five in a row; six or more is an overline.
//! - four: four stones that one more stone turns into a five. Fours are told apart by their
//!   stones, so `.XXXX.` (two ways to five, same stones) is one four, while `X.XXX.X` or
//!   `XX.XX.XX` with the new stone in the middle are two fours on one line.
//! - straight four: four in a row with an empty cell at each end where a stone makes a five.
//! - three: a line with no four through the point where some empty cell, itself not forbidden,
//!   makes a straight four through the point.

use crate::board::DIRECTIONS;
use crate::{by_name, Board, ParseError, Point};

/// Why a black move is forbidden in renju. Wire names: "double_three", "double_four", "overline".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ForbiddenKind {
    DoubleThree,
    DoubleFour,
    Overline,
}

impl ForbiddenKind {
    pub const ALL: [ForbiddenKind; 3] = [
        ForbiddenKind::DoubleThree,
        ForbiddenKind::DoubleFour,
        ForbiddenKind::Overline,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ForbiddenKind::DoubleThree => "double_three",
            ForbiddenKind::DoubleFour => "double_four",
            ForbiddenKind::Overline => "overline",
        }
    }

    /// Words for messages: "double three", "double four", "overline".
    pub fn describe(self) -> &'static str {
        match self {
            ForbiddenKind::DoubleThree => "double three",
            ForbiddenKind::DoubleFour => "double four",
            ForbiddenKind::Overline => "overline",
        }
    }
}

impl std::str::FromStr for ForbiddenKind {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<ForbiddenKind, ParseError> {
        by_name(&ForbiddenKind::ALL, ForbiddenKind::as_str, s)
            .ok_or(ParseError::UnknownForbiddenKind)
    }
}

impl std::fmt::Display for ForbiddenKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
/// Cells either side of the centre in a line window.
const REACH: usize = 5;
const WIDTH: usize = 2 * REACH + 1;
const CENTRE: usize = REACH;

/// The cells along `dir` from `REACH` before `p` to `REACH` after it (3 marks off-board).
fn line_window(board: &Board, p: Point, dir: (isize, isize)) -> [u8; WIDTH] {
    let mut line = [0u8; WIDTH];
    for (i, cell) in line.iter_mut().enumerate() {
        *cell = board.cell_at(p, dir, i as isize - REACH as isize);
    }
    line
}

/// Length of the black run through the centre (capped by the window, which is enough to tell
/// five from six or more).
fn centre_run(line: &[u8; WIDTH]) -> usize {
    let (lo, hi) = run_bounds(line, CENTRE);
    hi - lo + 1
}

/// Inclusive window indices of the black run through `at`.
fn run_bounds(line: &[u8; WIDTH], at: usize) -> (usize, usize) {
    let mut lo = at;
    while lo > 0 && line[lo - 1] == BLACK {
        lo -= 1;
    }
    let mut hi = at;
    while hi + 1 < WIDTH && line[hi + 1] == BLACK {
        hi += 1;
    }
    (lo, hi)
}

/// The number of distinct fours through the centre: each five-cell window containing the
/// centre with four black stones and one empty cell, whose filling gives exactly five, names
/// a four by its set of stones; windows sharing the same stones (a straight four) count once.
fn fours_in_line(line: &[u8; WIDTH]) -> usize {
    let mut found: [u16; 5] = [0; 5];
    let mut count = 0;
    for start in CENTRE - 4..=CENTRE {
        let window = &line[start..start + 5];
        let blacks = window.iter().filter(|&&c| c == BLACK).count();
        let empties = window.iter().filter(|&&c| c == EMPTY).count();
        // Black just beyond the window would lengthen the five into an overline.
        if blacks != 4 || empties != 1 || line[start - 1] == BLACK || line[start + 5] == BLACK {
            continue;
        }
        let stones = window
            .iter()
            .enumerate()
            .filter(|(_, &c)| c == BLACK)
            .fold(0u16, |mask, (i, _)| mask | 1 << (start + i));
        if !found[..count].contains(&stones) {
            found[count] = stones;
            count += 1;
        }
    }
    count
}

/// Window indices of the empty cells that would turn the centre's line into a straight four
/// through the centre, ignoring whether those cells are themselves forbidden.
fn straight_four_points(line: &[u8; WIDTH]) -> ([usize; 6], usize) {
    let mut points = [0usize; 6];
    let mut count = 0;
    let mut line = *line;
    // A straight four through the centre spans at most three cells either side of it.
    for q in CENTRE - 3..=CENTRE + 3 {
        if line[q] != EMPTY {
            continue;
        }
        line[q] = BLACK;
        let (lo, hi) = run_bounds(&line, CENTRE);
        // Exactly four in a row, open at both ends, and neither end's five grows into six.
        if hi - lo + 1 == 4
            && (lo..=hi).contains(&q)
            && line[lo - 1] == EMPTY
            && line[hi + 1] == EMPTY
            && line[lo - 2] != BLACK
            && line[hi + 2] != BLACK
        {
            points[count] = q;
            count += 1;
        }
        line[q] = EMPTY;
    }
    (points, count)
}

/// The analysis proper, on a scratch board: places black at the empty point `p`, judges, and
/// takes the stone back, leaving `board` as it was.
fn analyse(board: &mut Board, p: Point) -> Option<ForbiddenKind> {
    board.set(p, Some(crate::Stone::Black));
    let lines = DIRECTIONS.map(|dir| line_window(board, p, dir));
    let verdict = judge_placed(board, p, &lines);
    board.set(p, None);
    verdict
}

/// Decides for a black stone already standing at `p`, given the four line windows through it.
fn judge_placed(board: &mut Board, p: Point, lines: &[[u8; WIDTH]; 4]) -> Option<ForbiddenKind> {
    let runs = lines.map(|line| centre_run(&line));
    // An exact five wins, which overrides every prohibition.
    if runs.contains(&5) {
        return None;
    }
    if runs.iter().any(|&len| len > 5) {
        return Some(ForbiddenKind::Overline);
    }
    let fours = lines.map(|line| fours_in_line(&line));
    if fours.iter().sum::<usize>() >= 2 {
        return Some(ForbiddenKind::DoubleFour);
    }
    // Candidate threes first (cheap, no recursion); only two or more of them need the
    // recursive check that a straight-four point is itself legal.
    let candidates: [([usize; 6], usize); 4] = lines.map(|line| straight_four_points(&line));
    let open_lines = (0..4)
        .filter(|&d| fours[d] == 0 && candidates[d].1 > 0)
        .count();
    if open_lines < 2 {
        return None;
    }
    let mut threes = 0;
    for (d, &dir) in DIRECTIONS.iter().enumerate() {
        if fours[d] != 0 {
            continue;
        }
        let (points, count) = candidates[d];
        let real = points[..count].iter().any(|&q| {
            let q = p
                .offset(dir, q as isize - CENTRE as isize, board.size())
                .expect("an empty window cell lies on the board");
            !could_be_forbidden(board, q) || analyse(board, q).is_none()
        });
        if real {
            threes += 1;
            if threes == 2 {
                return Some(ForbiddenKind::DoubleThree);
            }
        }
    }
    None
}

/// Whether a black stone on the empty point `p` would be forbidden, and why. A move that makes
/// an exact five is never forbidden. Returns None for an occupied or off-board point.
///
/// When several kinds apply, one is named in this order: overline, then double-four, then
/// double-three.
pub fn forbidden_kind(board: &Board, p: Point) -> Option<ForbiddenKind> {
    if !board.contains(p) || board.get(p).is_some() || !could_be_forbidden(board, p) {
        return None;
    }
    analyse(&mut board.clone(), p)
}

/// Shorthand for `forbidden_kind(board, p).is_some()`.
pub fn is_forbidden(board: &Board, p: Point) -> bool {
    forbidden_kind(board, p).is_some()
}

/// Every empty point where black may not play (row-major order).
pub fn forbidden_points(board: &Board) -> Vec<(Point, ForbiddenKind)> {
    // One scratch board for all points: `analyse` leaves it as it found it.
    let mut scratch = board.clone();
    let mut out = Vec::new();
    for p in board.points() {
        if board.get(p).is_none() && could_be_forbidden(board, p) {
            if let Some(kind) = analyse(&mut scratch, p) {
                out.push((p, kind));
            }
        }
    }
    out
}

/// A cheap necessary condition, checked before any real analysis (most empty points fail it).
/// A forbidden point needs either two lines each holding at least two black stones within four
/// cells of it (a three or a four spans at most five cells, the new stone and two or three
/// others), or one line holding at least four within five cells (an overline needs five more,
/// two fours on one line at least four).
fn could_be_forbidden(board: &Board, p: Point) -> bool {
    let mut busy_lines = 0;
    for &dir in &DIRECTIONS {
        let mut near = 0;
        let mut far = 0;
        for step in 1..=REACH as isize {
            for s in [step, -step] {
                if board.cell_at(p, dir, s) == BLACK {
                    far += 1;
                    if step <= 4 {
                        near += 1;
                    }
                }
            }
        }
        if far >= 4 {
            return true;
        }
        if near >= 2 {
            busy_lines += 1;
        }
    }
    busy_lines >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line window from text, centre at index 5 (`#` marks the off-board).
    fn window(text: &str) -> [u8; WIDTH] {
        let cells: Vec<u8> = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| match c {
                'X' => BLACK,
                'O' => 2,
                '#' => 3,
                _ => EMPTY,
            })
            .collect();
        cells.try_into().expect("eleven cells")
    }

    /// Fours are counted by their stones: a straight four is one, two fours sharing the new
    /// stone on one line are two, and a four whose five would be six is none.
    #[test]
    fn four_counting() {
        assert_eq!(fours_in_line(&window("...XXXX....")), 1); // .XXXX. with the centre in it
        assert_eq!(fours_in_line(&window("...OXXXX...")), 1); // closed four
        assert_eq!(fours_in_line(&window(".XX.XX.XX..")), 2); // XX.XX.XX
        assert_eq!(fours_in_line(&window(".XXX.X.XXX.")), 2); // XXX.X.XXX
        assert_eq!(fours_in_line(&window("XXX.XX.....")), 0); // XXX.XX: the gap makes six
        assert_eq!(fours_in_line(&window("...XXX.XX..")), 0); // filling gives six
        assert_eq!(fours_in_line(&window("..X.XXX.X..")), 2); // X.XXX.X
        assert_eq!(fours_in_line(&window("....XX##...")), 0);
    }

    proptest::proptest! {
        /// The quick pre-check never rules out a point the full analysis finds forbidden, on
        /// crowded random boards.
        #[test]
        fn precheck_never_hides_a_forbidden_point(
            cells in proptest::collection::vec(0u8..3, 81),
        ) {
            let mut board = Board::new(15).unwrap();
            for (i, &cell) in cells.iter().enumerate() {
                board.set(Point::new(3 + i / 9, 3 + i % 9), crate::Stone::from_u8(cell));
            }
            for p in board.points() {
                if board.get(p).is_none() && !could_be_forbidden(&board, p) {
                    proptest::prop_assert_eq!(analyse(&mut board.clone(), p), None, "{:?}", p);
                }
            }
        }
    }

    /// Straight-four points: open both ways, not at an end that would make an overline.
    #[test]
    fn straight_four_points_in_a_line() {
        let points = |text| {
            let (p, n) = straight_four_points(&window(text));
            p[..n].to_vec()
        };
        assert_eq!(points("....XXX...."), vec![3, 7]);
        assert_eq!(points("...X.XX...."), vec![4]);
        assert_eq!(points("..O.XXX...."), vec![7]);
        assert_eq!(points("...OXXX...."), Vec::<usize>::new());
        assert_eq!(points("...OXXX.O.."), Vec::<usize>::new());
        assert_eq!(points("X..XXX.O..."), Vec::<usize>::new());
    }
}
