//! A game: a validated position reached by legal moves, with its outcome.

use crate::{Board, ForbiddenKind, Point, Rule, Stone};

/// A move as played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub point: Point,
    pub stone: Stone,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WinReason {
    Five,
    Resign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawReason {
    BoardFull,
    NoFivePossible,
}

/// Where the game stands.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Outcome {
    Ongoing,
    /// `line` is the winning stones for a five, empty for a resignation.
    Win { winner: Stone, reason: WinReason, line: Vec<Point> },
    Draw { reason: DrawReason },
}

/// Why a move was refused. Display messages are lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayError {
    OutOfBounds,
    Occupied,
    GameOver,
    Forbidden(ForbiddenKind),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoError {
    /// No move on the board.
    NothingToUndo,
    /// A resigned game stays resigned.
    Resigned,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupError {
    BadBoardSize,
}

// implementer: std::fmt::Display + std::error::Error for PlayError, UndoError, SetupError.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    // implementer: private fields of your choice
}

impl Game {
    pub fn new(size: usize, rule: Rule) -> Result<Game, SetupError> { todo!() }
    /// Plays `points` in order from an empty board (black first, alternating).
    /// On failure, the index of the move to blame and why.
    pub fn replay(size: usize, rule: Rule, points: &[Point]) -> Result<Game, (usize, PlayError)> { todo!() }
    pub fn rule(&self) -> Rule { todo!() }
    pub fn size(&self) -> usize { todo!() }
    pub fn board(&self) -> &Board { todo!() }
    pub fn moves(&self) -> &[Move] { todo!() }
    pub fn last_move(&self) -> Option<Move> { todo!() }
    pub fn outcome(&self) -> &Outcome { todo!() }
    pub fn is_over(&self) -> bool { todo!() }
    /// The colour to move; None once the game is over.
    pub fn to_move(&self) -> Option<Stone> { todo!() }
    /// Plays the move of the side to move. Judges win and draw from this move.
    pub fn play(&mut self, p: Point) -> Result<&Outcome, PlayError> { todo!() }
    /// Checks a move without playing it (same errors as `play`).
    pub fn check(&self, p: Point) -> Result<(), PlayError> { todo!() }
    /// Takes back the last move; a game finished by five or draw reopens.
    pub fn undo(&mut self) -> Result<Move, UndoError> { todo!() }
    /// The side to move resigns: the other side wins with `WinReason::Resign`.
    pub fn resign(&mut self) -> Result<&Outcome, PlayError> { todo!() }
    /// Black's forbidden points when the rule is renju, the game is on and black is to move;
    /// empty otherwise.
    pub fn forbidden_points(&self) -> Vec<(Point, ForbiddenKind)> { todo!() }
}
