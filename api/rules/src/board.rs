//! The board: a square grid of cells, each empty or holding a stone.
//!
//! Cells live in a fixed array with a row stride of `MAX_BOARD_SIZE`, so a board never
//! allocates and cloning it (as the judge and the search do for scratch work) is a plain copy.

use std::fmt;

/// Smallest board the rules accept.
pub const MIN_BOARD_SIZE: usize = 5;
/// Largest board the rules accept (20 is the Gomocup freestyle board; the service allows 9..=19).
pub const MAX_BOARD_SIZE: usize = 20;

const STRIDE: usize = MAX_BOARD_SIZE;
const CELLS: usize = MAX_BOARD_SIZE * MAX_BOARD_SIZE;

/// A stone colour. On the wire black is 1 and white is 2 (0 is an empty cell).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stone {
    Black = 1,
    White = 2,
}

impl Stone {
    pub fn opponent(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }
    /// 1 for black, 2 for white.
    pub fn as_u8(self) -> u8 {
        self as u8
    }
    /// 1 → black, 2 → white, anything else → None.
    pub fn from_u8(value: u8) -> Option<Stone> {
        match value {
            1 => Some(Stone::Black),
            2 => Some(Stone::White),
            _ => None,
        }
    }
}

/// An intersection: `row` 0 is the top, `col` 0 the left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    pub row: usize,
    pub col: usize,
}

impl Point {
    pub const fn new(row: usize, col: usize) -> Point {
        Point { row, col }
    }

    /// The point `steps` cells away in direction `(dr, dc)`, or None if it would leave the
    /// grid of `size` × `size`.
    pub fn offset(self, (dr, dc): (isize, isize), steps: isize, size: usize) -> Option<Point> {
        let row = self.row as isize + dr * steps;
        let col = self.col as isize + dc * steps;
        if row < 0 || col < 0 || row >= size as isize || col >= size as isize {
            None
        } else {
            Some(Point::new(row as usize, col as usize))
        }
    }
}

/// The four line directions (row step, column step): horizontal, vertical, and both diagonals.
/// Every line through a point is one of these taken both ways.
pub const DIRECTIONS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// A square board of `size` × `size` cells.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    size: usize,
    stones: usize,
    /// 0 empty, 1 black, 2 white; index `row * STRIDE + col`. Cells outside `size` stay 0.
    cells: [u8; CELLS],
}

impl Board {
    /// An empty board; None when `size` is outside MIN_BOARD_SIZE..=MAX_BOARD_SIZE.
    pub fn new(size: usize) -> Option<Board> {
        if (MIN_BOARD_SIZE..=MAX_BOARD_SIZE).contains(&size) {
            Some(Board {
                size,
                stones: 0,
                cells: [0; CELLS],
            })
        } else {
            None
        }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn contains(&self, p: Point) -> bool {
        p.row < self.size && p.col < self.size
    }

    /// The stone at `p` (None for empty or off-board).
    pub fn get(&self, p: Point) -> Option<Stone> {
        if self.contains(p) {
            Stone::from_u8(self.cells[p.row * STRIDE + p.col])
        } else {
            None
        }
    }

    /// The raw cell value at `p`: 0 empty, 1 black, 2 white, and 3 for a point off the board
    /// (so line scans can treat the edge like a blocking stone without a separate check).
    pub fn cell(&self, p: Point) -> u8 {
        if self.contains(p) {
            self.cells[p.row * STRIDE + p.col]
        } else {
            3
        }
    }

    /// Like [`Board::cell`] for the point `steps` away from `p` in direction `dir`; off-board is 3.
    pub fn cell_at(&self, p: Point, dir: (isize, isize), steps: isize) -> u8 {
        match p.offset(dir, steps, self.size) {
            Some(q) => self.cells[q.row * STRIDE + q.col],
            None => 3,
        }
    }

    /// Puts or clears a stone without any rule check (the judge and search use this).
    /// Off-board points are ignored.
    pub fn set(&mut self, p: Point, stone: Option<Stone>) {
        if !self.contains(p) {
            return;
        }
        let cell = &mut self.cells[p.row * STRIDE + p.col];
        let new = stone.map_or(0, Stone::as_u8);
        match (*cell != 0, new != 0) {
            (false, true) => self.stones += 1,
            (true, false) => self.stones -= 1,
            _ => {}
        }
        *cell = new;
    }

    pub fn stone_count(&self) -> usize {
        self.stones
    }

    pub fn is_full(&self) -> bool {
        self.stones == self.size * self.size
    }

    /// Every point of the board in row-major order.
    pub fn points(&self) -> impl Iterator<Item = Point> {
        let size = self.size;
        (0..size).flat_map(move |row| (0..size).map(move |col| Point::new(row, col)))
    }

    /// Rows of 0/1/2, row 0 first: the wire form `board[row][col]`.
    pub fn to_rows(&self) -> Vec<Vec<u8>> {
        (0..self.size)
            .map(|row| self.cells[row * STRIDE..row * STRIDE + self.size].to_vec())
            .collect()
    }

    /// The inverse of [`Board::to_rows`]: None unless the rows form a square of an accepted
    /// size holding only 0, 1 and 2.
    pub fn from_rows(rows: &[Vec<u8>]) -> Option<Board> {
        let mut board = Board::new(rows.len())?;
        for (row, cells) in rows.iter().enumerate() {
            if cells.len() != board.size {
                return None;
            }
            for (col, &value) in cells.iter().enumerate() {
                if value > 2 {
                    return None;
                }
                board.set(Point::new(row, col), Stone::from_u8(value));
            }
        }
        Some(board)
    }

    /// Parses an ASCII diagram (one line per row, `.`/`+` empty, `X`/`x`/`B` black,
    /// `O`/`o`/`W` white; spaces ignored) — the form tests draw positions in.
    /// Blank lines are skipped; the diagram must be square and of an accepted size.
    pub fn from_ascii(diagram: &str) -> Option<Board> {
        let mut rows = Vec::new();
        for line in diagram.lines() {
            let mut row = Vec::new();
            for ch in line.chars() {
                match ch {
                    ' ' | '\t' => {}
                    '.' | '+' => row.push(0),
                    'X' | 'x' | 'B' => row.push(1),
                    'O' | 'o' | 'W' => row.push(2),
                    _ => return None,
                }
            }
            if !row.is_empty() {
                rows.push(row);
            }
        }
        Board::from_rows(&rows)
    }

    /// The diagram form read by [`Board::from_ascii`]: `X` black, `O` white, `.` empty.
    pub fn to_ascii(&self) -> String {
        let mut out = String::with_capacity(self.size * (self.size + 1));
        for row in 0..self.size {
            for col in 0..self.size {
                out.push(match self.cells[row * STRIDE + col] {
                    1 => 'X',
                    2 => 'O',
                    _ => '.',
                });
            }
            out.push('\n');
        }
        out
    }
}

// A diagram reads far better than 400 raw cells in a failed assertion.
impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board({}×{}):", self.size, self.size)?;
        f.write_str(&self.to_ascii())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Setting and clearing stones keeps the count, and off-board points are ignored.
    #[test]
    fn set_get_and_count() {
        let mut board = Board::new(9).unwrap();
        let p = Point::new(8, 8);
        board.set(p, Some(Stone::Black));
        board.set(p, Some(Stone::White));
        assert_eq!(board.get(p), Some(Stone::White));
        assert_eq!(board.stone_count(), 1);
        board.set(Point::new(9, 0), Some(Stone::Black));
        assert_eq!(board.stone_count(), 1);
        assert_eq!(board.get(Point::new(9, 0)), None);
        assert_eq!(board.cell(Point::new(9, 0)), 3);
        board.set(p, None);
        assert_eq!(board, Board::new(9).unwrap());
    }

    /// Sizes outside 5..=20 are refused; a 5×5 board fills after 25 stones.
    #[test]
    fn sizes_and_fullness() {
        assert!(Board::new(4).is_none() && Board::new(21).is_none());
        let mut board = Board::new(5).unwrap();
        for p in board.points().collect::<Vec<_>>() {
            assert!(!board.is_full());
            board.set(p, Some(Stone::Black));
        }
        assert!(board.is_full());
    }

    /// Diagrams parse in every accepted spelling, round-trip through rows and text, and
    /// anything not square or with stray characters is refused.
    #[test]
    fn diagrams() {
        let board = Board::from_ascii(
            "
            X . O . +
            x B o W .

            . . . . .
            . . . . .
            . . . . .",
        )
        .unwrap();
        assert_eq!(board.to_rows()[0], vec![1, 0, 2, 0, 0]);
        assert_eq!(board.to_rows()[1], vec![1, 1, 2, 2, 0]);
        assert_eq!(Board::from_rows(&board.to_rows()), Some(board.clone()));
        assert_eq!(Board::from_ascii(&board.to_ascii()), Some(board));
        assert_eq!(Board::from_ascii(". . . . .\n. . . . ."), None);
        assert_eq!(Board::from_ascii(&". . . . .\n".repeat(4)), None);
        assert_eq!(Board::from_ascii(&". . . . ?\n".repeat(5)), None);
        assert_eq!(Board::from_rows(&vec![vec![3, 0, 0, 0, 0]; 5]), None);
    }
}
