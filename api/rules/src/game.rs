//! A game: a validated position reached by legal moves, with its outcome.

pub use crate::outcome::{DrawReason, Ending, Outcome, WinReason};
use crate::{judge, renju};
use crate::{Board, ForbiddenKind, Point, Rule, Stone, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
use std::fmt;

/// A move as played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub point: Point,
    pub stone: Stone,
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
    /// No move on the board (or fewer than a takeback asks for).
    NothingToUndo,
    /// A game ended off the board (resigned, on time, by agreement) stays ended.
    Decided,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupError {
    BadBoardSize,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::OutOfBounds => f.write_str("the point is off the board"),
            PlayError::Occupied => f.write_str("the point is already occupied"),
            PlayError::GameOver => f.write_str("the game is over"),
            PlayError::Forbidden(kind) => {
                write!(f, "forbidden move for black ({})", kind.describe())
            }
        }
    }
}
impl std::error::Error for PlayError {}

impl fmt::Display for UndoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UndoError::NothingToUndo => f.write_str("there is no move to undo"),
            UndoError::Decided => {
                f.write_str("a game ended by resignation, on time or by agreement cannot be undone")
            }
        }
    }
}
impl std::error::Error for UndoError {}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::BadBoardSize => write!(
                f,
                "the board size must be between {MIN_BOARD_SIZE} and {MAX_BOARD_SIZE}"
            ),
        }
    }
}
impl std::error::Error for SetupError {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    // Invariant: `board` holds exactly the stones of `moves`, and `outcome` is the judge's
    // verdict on the last of them (or a resignation).
    rule: Rule,
    board: Board,
    moves: Vec<Move>,
    outcome: Outcome,
}

impl Game {
    pub fn new(size: usize, rule: Rule) -> Result<Game, SetupError> {
        let board = Board::new(size).ok_or(SetupError::BadBoardSize)?;
        Ok(Game {
            rule,
            board,
            moves: Vec::new(),
            outcome: Outcome::Ongoing,
        })
    }

    /// Plays `points` in order from an empty board (black first, alternating).
    /// On failure, the index of the move to blame and why. A board size outside
    /// MIN_BOARD_SIZE..=MAX_BOARD_SIZE has no points at all, so it is reported as move 0 being
    /// out of bounds (callers that care validate the size with [`Game::new`] first).
    pub fn replay(size: usize, rule: Rule, points: &[Point]) -> Result<Game, (usize, PlayError)> {
        let mut game = Game::new(size, rule).map_err(|_| (0, PlayError::OutOfBounds))?;
        for (index, &p) in points.iter().enumerate() {
            game.play(p).map_err(|e| (index, e))?;
        }
        Ok(game)
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    pub fn size(&self) -> usize {
        self.board.size()
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().copied()
    }

    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    pub fn is_over(&self) -> bool {
        self.outcome != Outcome::Ongoing
    }

    /// The colour to move; None once the game is over.
    pub fn to_move(&self) -> Option<Stone> {
        if self.is_over() {
            None
        } else {
            Some(Self::side_after(self.moves.len()))
        }
    }

    /// Black plays the even plies (the first move is ply 0).
    fn side_after(plies: usize) -> Stone {
        if plies.is_multiple_of(2) {
            Stone::Black
        } else {
            Stone::White
        }
    }

    /// Plays the move of the side to move. Judges win and draw from this move: a winning line
    /// first, then a full board, then no five possible for either side.
    pub fn play(&mut self, p: Point) -> Result<&Outcome, PlayError> {
        self.check(p)?;
        let stone = Self::side_after(self.moves.len());
        self.board.set(p, Some(stone));
        self.moves.push(Move { point: p, stone });
        self.outcome = if let Some(line) = judge::winning_line(&self.board, p, self.rule) {
            Outcome::Win {
                winner: stone,
                reason: WinReason::Five,
                line,
            }
        } else if self.board.is_full() {
            Outcome::Draw {
                reason: DrawReason::BoardFull,
            }
        } else if judge::no_five_possible(&self.board, self.rule) {
            Outcome::Draw {
                reason: DrawReason::NoFivePossible,
            }
        } else {
            Outcome::Ongoing
        };
        Ok(&self.outcome)
    }

    /// Checks a move without playing it (same errors as `play`), in this order: game over,
    /// out of bounds, occupied, forbidden.
    pub fn check(&self, p: Point) -> Result<(), PlayError> {
        let stone = self.to_move().ok_or(PlayError::GameOver)?;
        if !self.board.contains(p) {
            return Err(PlayError::OutOfBounds);
        }
        if self.board.get(p).is_some() {
            return Err(PlayError::Occupied);
        }
        if self.rule == Rule::Renju && stone == Stone::Black {
            if let Some(kind) = renju::forbidden_kind(&self.board, p) {
                return Err(PlayError::Forbidden(kind));
            }
        }
        Ok(())
    }

    /// Takes back the last move; a game finished on the board (five or draw) reopens.
    pub fn undo(&mut self) -> Result<Move, UndoError> {
        if self.outcome.ending().is_some() {
            return Err(UndoError::Decided);
        }
        let last = self.moves.pop().ok_or(UndoError::NothingToUndo)?;
        self.board.set(last.point, None);
        // Play stops at the first decisive move, so the position before the last move was open.
        self.outcome = Outcome::Ongoing;
        Ok(last)
    }

    /// Takes back the last `count` moves (a takeback in play against a person: one's own last
    /// move, or one's own and the reply to it), all or none.
    pub fn take_back(&mut self, count: usize) -> Result<(), UndoError> {
        if self.outcome.ending().is_some() {
            return Err(UndoError::Decided);
        }
        if count > self.moves.len() {
            return Err(UndoError::NothingToUndo);
        }
        for _ in 0..count {
            self.undo()?;
        }
        Ok(())
    }

    /// The side to move resigns: the other side wins with `WinReason::Resign`.
    pub fn resign(&mut self) -> Result<&Outcome, PlayError> {
        let loser = self.to_move().ok_or(PlayError::GameOver)?;
        self.end(Ending::Resigned(loser))
    }

    /// Ends an open game off the board: a resignation by either colour (in play against a
    /// person one may resign at any time), a flag fall, or a draw agreed.
    pub fn end(&mut self, ending: Ending) -> Result<&Outcome, PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        self.outcome = ending.outcome();
        Ok(&self.outcome)
    }

    /// Black's forbidden points when the rule is renju, the game is on and black is to move;
    /// empty otherwise. Row-major order; see [`renju::forbidden_kind`] for which kind is named
    /// when several apply.
    pub fn forbidden_points(&self) -> Vec<(Point, ForbiddenKind)> {
        if self.rule == Rule::Renju && self.to_move() == Some(Stone::Black) {
            renju::forbidden_points(&self.board)
        } else {
            Vec::new()
        }
    }
}
