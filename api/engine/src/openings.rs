//! The 26 classical three-stone openings (the set renju tournaments use): black in the centre,
//! white on a neighbouring point straight (direct, 13 openings) or diagonal (indirect, 13), and
//! black's second stone anywhere in the central 5×5 square up to the opening's mirror symmetry.
//! Playing each twice with colours swapped cancels their bias, so they make a fair test set.

use gomoku_rules::Point;

/// Offsets (row, col) from the centre of the three stones: black, white, black.
pub fn openings() -> Vec<[(isize, isize); 3]> {
    let mut out = Vec::with_capacity(26);
    // Direct: white above the centre; the mirror axis is the centre column.
    for r in -2..=2 {
        for c in 0..=2 {
            if (r, c) != (0, 0) && (r, c) != (-1, 0) {
                out.push([(0, 0), (-1, 0), (r, c)]);
            }
        }
    }
    // Indirect: white up and right; the mirror axis is the diagonal through both stones.
    for r in -2..=2isize {
        for c in -2..=2isize {
            if r + c >= 0 && (r, c) != (0, 0) && (r, c) != (-1, 1) {
                out.push([(0, 0), (-1, 1), (r, c)]);
            }
        }
    }
    out
}

/// The opening's three points on a board of `size`.
pub fn points(opening: &[(isize, isize); 3], size: usize) -> Vec<Point> {
    let centre = (size / 2) as isize;
    opening
        .iter()
        .map(|&(r, c)| Point::new((centre + r) as usize, (centre + c) as usize))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// There are 13 + 13 distinct openings, each on three distinct points.
    #[test]
    fn twenty_six_distinct_openings() {
        let all = openings();
        assert_eq!(all.len(), 26);
        for o in &all {
            assert!(o[0] != o[1] && o[1] != o[2] && o[0] != o[2]);
        }
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 26);
    }
}
