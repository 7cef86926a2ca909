//! The board: a square grid of cells, each empty or holding a stone.

/// Smallest board the rules accept.
pub const MIN_BOARD_SIZE: usize = 5;
/// Largest board the rules accept (20 is the Gomocup freestyle board; the service allows 9..=19).
pub const MAX_BOARD_SIZE: usize = 20;

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
}

/// A square board of `size` × `size` cells.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    // implementer: private fields of your choice
}

impl Board {
    /// An empty board; None when `size` is outside MIN_BOARD_SIZE..=MAX_BOARD_SIZE.
    pub fn new(size: usize) -> Option<Board> { todo!() }
    pub fn size(&self) -> usize { todo!() }
    pub fn contains(&self, p: Point) -> bool { todo!() }
    /// The stone at `p` (None for empty or off-board).
    pub fn get(&self, p: Point) -> Option<Stone> { todo!() }
    /// Puts or clears a stone without any rule check (the judge and search use this).
    pub fn set(&mut self, p: Point, stone: Option<Stone>) { todo!() }
    pub fn stone_count(&self) -> usize { todo!() }
    pub fn is_full(&self) -> bool { todo!() }
    /// Rows of 0/1/2, row 0 first: the wire form `board[row][col]`.
    pub fn to_rows(&self) -> Vec<Vec<u8>> { todo!() }
    /// Parses an ASCII diagram (one line per row, `.`/`+` empty, `X`/`x`/`B` black,
    /// `O`/`o`/`W` white; spaces ignored) — the form tests draw positions in.
    pub fn from_ascii(diagram: &str) -> Option<Board> { todo!() }
}
