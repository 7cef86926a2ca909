//! Game lines more than one test plays: move lists on a 15×15 board, `(row, col)` with row 0 at
//! the top, black first and the two colours alternating; and records built from such lists.

use serde_json::{json, Value};

/// Black makes the five (7,3)…(7,7) on its fifth move; white plays harmlessly on row 0.
pub const BLACK_FIVE: &[(i64, i64)] = &[
    (7, 3),
    (0, 0),
    (7, 4),
    (0, 1),
    (7, 5),
    (0, 2),
    (7, 6),
    (0, 3),
    (7, 7),
];

/// Black plays (7,1) (7,2) (7,3) (7,5) (7,6) and then (7,4): a run of six on row 7.
pub const BLACK_SIX: &[(i64, i64)] = &[
    (7, 1),
    (0, 0),
    (7, 2),
    (0, 2),
    (7, 3),
    (0, 4),
    (7, 5),
    (0, 6),
    (7, 6),
    (0, 8),
    (7, 4),
];

/// Renju, black to move: (7,7) would make two open threes.
/// ```text
///      5 6 7 8
///   5  . . X .
///   6  . . X .
///   7  X X * .
/// ```
pub const RENJU_DOUBLE_THREE: &[(i64, i64)] = &[
    (7, 5),
    (0, 0),
    (7, 6),
    (0, 2),
    (5, 7),
    (0, 4),
    (6, 7),
    (0, 6),
];

/// Renju, black to move: (7,7) would make two fours (row 7 and column 7).
pub const RENJU_DOUBLE_FOUR: &[(i64, i64)] = &[
    (7, 4),
    (0, 0),
    (7, 5),
    (0, 2),
    (7, 6),
    (0, 4),
    (4, 7),
    (0, 6),
    (5, 7),
    (0, 8),
    (6, 7),
    (0, 10),
];

/// Renju, black to move: (7,4) would join (7,1)…(7,3) and (7,5) (7,6) into six: [`BLACK_SIX`]
/// but its last move.
pub const RENJU_OVERLINE: &[(i64, i64)] = BLACK_SIX.split_at(BLACK_SIX.len() - 1).0;

/// The colour that plays ply `i`: black (1) the even plies, white (2) the odd ones.
pub fn colour_of_ply(i: usize) -> i64 {
    1 + (i % 2) as i64
}

/// An order that fills a `size`×`size` board without five in a row for either side: 2×1 bricks
/// (`XXOO` rows, shifted by two every other row), black's cells and white's cells each in
/// reading order, the colours alternating. On 9×9, 41 black and 40 white:
/// ```text
///   XXOOXXOOX
///   OOXXOOXXO
///   XXOOXXOOX
///   OOXXOOXXO
///   XXOOXXOOX
///   OOXXOOXXO
///   XXOOXXOOX
///   OOXXOOXXO
///   XXOOXXOOX
/// ```
/// A game may still end early in a draw (no five possible).
pub fn brick_fill(size: i64) -> Vec<(i64, i64)> {
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for r in 0..size {
        for c in 0..size {
            if ((c / 2) % 2 == 0) != (r % 2 == 1) {
                black.push((r, c));
            } else {
                white.push((r, c));
            }
        }
    }
    let mut white = white.into_iter();
    let mut moves = Vec::new();
    for b in black {
        moves.push(b);
        moves.extend(white.next());
    }
    moves
}

/// A game record (`gomoku-1.0`) holding just what an import trusts: rule, board size and the
/// moves, colours alternating from black.
pub fn record(rule: &str, size: i64, moves: &[(i64, i64)]) -> Value {
    let moves: Vec<Value> = moves
        .iter()
        .enumerate()
        .map(|(i, &(row, col))| json!({"row": row, "col": col, "player": colour_of_ply(i)}))
        .collect();
    json!({"version": "gomoku-1.0", "rule": rule, "boardSize": size, "moves": moves})
}

#[cfg(test)]
mod tests {
    use super::*;
    use gomoku_rules::{Game, Outcome, Point, Rule};

    /// The brick fill never gives either side five, on the sizes the tests and the bench use.
    #[test]
    fn brick_fill_makes_no_five() {
        for size in [9, 15] {
            let moves = brick_fill(size);
            assert_eq!(moves.len() as i64, size * size, "every cell once");
            let mut game = Game::new(size as usize, Rule::Freestyle).unwrap();
            for (row, col) in moves {
                if game.is_over() {
                    break;
                }
                let outcome = game.play(Point::new(row as usize, col as usize)).unwrap();
                assert!(
                    !matches!(outcome, Outcome::Win { .. }),
                    "a five at ({row},{col}) on {size}×{size}"
                );
            }
        }
    }
}
