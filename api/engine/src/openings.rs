//! Opening sets for engine matches. An opening is a short list of stones, black first and then
//! alternating, given as (row, col) offsets from the centre so that it fits any board size.
//!
//! - [`classic`]: the 26 three-stone openings renju tournaments use (black in the centre, white
//!   on a neighbouring point straight or diagonal, black's second stone in the central 5×5 square
//!   up to mirror symmetry). They favour black heavily in freestyle.
//! - [`balanced`]: per rule, 50 quiet three- to five-stone openings that the engine itself
//!   judges close to even (written by the `openings-gen` binary into `data/`). Playing each twice
//!   with colours swapped then gives 100 distinct games in which the colour decides little.

use gomoku_rules::{Point, Rule};

/// Stones as (row, col) offsets from the centre, black first.
pub type Opening = Vec<(isize, isize)>;

/// The 26 classical three-stone openings.
pub fn classic() -> Vec<Opening> {
    let mut out = Vec::with_capacity(26);
    // Direct: white above the centre; the mirror axis is the centre column.
    for r in -2..=2 {
        for c in 0..=2 {
            if (r, c) != (0, 0) && (r, c) != (-1, 0) {
                out.push(vec![(0, 0), (-1, 0), (r, c)]);
            }
        }
    }
    // Indirect: white up and right; the mirror axis is the diagonal through both stones.
    for r in -2..=2isize {
        for c in -2..=2isize {
            if r + c >= 0 && (r, c) != (0, 0) && (r, c) != (-1, 1) {
                out.push(vec![(0, 0), (-1, 1), (r, c)]);
            }
        }
    }
    out
}

const BALANCED_FREESTYLE: &str = include_str!("../data/openings-freestyle.txt");
const BALANCED_RENJU: &str = include_str!("../data/openings-renju.txt");

/// The balanced set of a rule (standard, an exact-five rule without forbidden points, shares
/// freestyle's set).
pub fn balanced(rule: Rule) -> Vec<Opening> {
    let text = match rule {
        Rule::Renju => BALANCED_RENJU,
        Rule::Freestyle | Rule::Standard => BALANCED_FREESTYLE,
    };
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| parse(l).unwrap_or_else(|| panic!("bad opening line {l:?}")))
        .collect()
}

/// Parses "r,c r,c …" (offsets from the centre).
pub fn parse(line: &str) -> Option<Opening> {
    line.split_whitespace()
        .map(|pair| {
            let (r, c) = pair.split_once(',')?;
            Some((r.parse().ok()?, c.parse().ok()?))
        })
        .collect()
}

/// Formats an opening the way [`parse`] reads it.
pub fn format(opening: &[(isize, isize)]) -> String {
    opening
        .iter()
        .map(|(r, c)| format!("{r},{c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The opening's points on a board of `size` (large enough to hold them).
pub fn points(opening: &[(isize, isize)], size: usize) -> Vec<Point> {
    let centre = (size / 2) as isize;
    opening
        .iter()
        .map(|&(r, c)| Point::new((centre + r) as usize, (centre + c) as usize))
        .collect()
}

/// The opening's stones in a form equal for all eight rotations and reflections of it (the
/// smallest of the eight sorted stone lists, each stone tagged with its colour).
pub fn canonical(opening: &[(isize, isize)]) -> Vec<(bool, isize, isize)> {
    type Map = fn(isize, isize) -> (isize, isize);
    let maps: [Map; 8] = [
        |r, c| (r, c),
        |r, c| (c, -r),
        |r, c| (-r, -c),
        |r, c| (-c, r),
        |r, c| (r, -c),
        |r, c| (-r, c),
        |r, c| (c, r),
        |r, c| (-c, -r),
    ];
    maps.iter()
        .map(|f| {
            let mut v: Vec<(bool, isize, isize)> = opening
                .iter()
                .enumerate()
                .map(|(i, &(r, c))| {
                    let (r, c) = f(r, c);
                    (i % 2 == 1, r, c)
                })
                .collect();
            v.sort();
            v
        })
        .min()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gomoku_rules::Game;

    /// There are 13 + 13 distinct classical openings, each on three distinct points.
    #[test]
    fn twenty_six_distinct_classical_openings() {
        let all = classic();
        assert_eq!(all.len(), 26);
        let mut forms: Vec<_> = all.iter().map(|o| canonical(o)).collect();
        forms.sort();
        forms.dedup();
        assert_eq!(forms.len(), 26, "no two are the same up to symmetry");
    }

    /// Each balanced set holds 50 openings, distinct up to symmetry, that are legal, unfinished
    /// and fit the smallest service board (9×9).
    #[test]
    fn balanced_sets_are_fifty_distinct_legal_openings() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let set = balanced(rule);
            assert_eq!(set.len(), 50, "{rule}");
            let mut forms: Vec<_> = set.iter().map(|o| canonical(o)).collect();
            forms.sort();
            forms.dedup();
            assert_eq!(forms.len(), 50, "{rule}: duplicates up to symmetry");
            for o in &set {
                assert!((3..=5).contains(&o.len()));
                assert!(o.iter().all(|&(r, c)| r.abs() <= 4 && c.abs() <= 4));
                let game = Game::replay(9, rule, &points(o, 9)).expect("legal");
                assert!(!game.is_over());
                assert_eq!(parse(&format(o)).as_ref(), Some(o));
            }
        }
    }
}
