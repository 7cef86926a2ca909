//! The JSON the API serves about games, shared by the resource modules, with its OpenAPI
//! schemas. Built from the store's rows and the rules' types; field names are camelCase. What
//! a game's result is (status, winner, end reason, win line, side to move) is read off the
//! rules' outcome, or off the columns the store wrote from it, and never worked out here.

use gomoku_rules::{Game, Move, Point, Stone};
use serde::Serialize;
use utoipa::ToSchema;

use super::wire::{
    EndReasonName, ForbiddenKindName, LevelName, ModeName, RuleName, StatusName, Wire,
};
use crate::store::games::{AiSetting, StoredGame, StoredMove, Summary};

/// A point on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct PointView {
    pub row: usize,
    pub col: usize,
}

impl From<Point> for PointView {
    fn from(p: Point) -> Self {
        PointView {
            row: p.row,
            col: p.col,
        }
    }
}

/// A move: where, and by whom (1 black, 2 white).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct MoveView {
    pub row: usize,
    pub col: usize,
    #[schema(minimum = 1, maximum = 2)]
    pub player: u8,
}

impl MoveView {
    pub fn new(point: Point, stone: Stone) -> MoveView {
        MoveView {
            row: point.row,
            col: point.col,
            player: stone.as_u8(),
        }
    }
}

impl From<Move> for MoveView {
    fn from(m: Move) -> Self {
        MoveView::new(m.point, m.stone)
    }
}

impl From<&StoredMove> for MoveView {
    fn from(m: &StoredMove) -> Self {
        MoveView::new(m.point, m.stone)
    }
}

/// A point black may not play, and why.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct ForbiddenView {
    pub row: usize,
    pub col: usize,
    pub kind: ForbiddenKindName,
}

/// The AI's side of an `ai`-mode game.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct AiView {
    pub level: LevelName,
    /// The colour the AI plays: 1 black, 2 white.
    #[schema(minimum = 1, maximum = 2)]
    pub player: u8,
}

impl From<AiSetting> for AiView {
    fn from(ai: AiSetting) -> Self {
        AiView {
            level: Wire(ai.level),
            player: ai.player.as_u8(),
        }
    }
}

/// How a game stands, as every view of it shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultView {
    pub status: StatusName,
    #[schema(minimum = 1, maximum = 2)]
    pub winner: Option<u8>,
    pub end_reason: Option<EndReasonName>,
    pub win_line: Option<Vec<PointView>>,
}

impl ResultView {
    /// The rules' verdict on `game`.
    pub fn of(game: &Game) -> ResultView {
        let outcome = game.outcome();
        ResultView {
            status: Wire(outcome.status()),
            winner: outcome.winner().map(Stone::as_u8),
            end_reason: outcome.end_reason().map(Wire),
            win_line: win_line_view(outcome.win_line()),
        }
    }
}

/// The winning line, or null when there is none.
fn win_line_view(line: &[Point]) -> Option<Vec<PointView>> {
    (!line.is_empty()).then(|| line.iter().copied().map(PointView::from).collect())
}

/// A game in a listing: where it stands, without the board and the moves.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameSummary {
    pub id: String,
    pub mode: ModeName,
    pub rule: RuleName,
    #[schema(minimum = 9, maximum = 19)]
    pub board_size: usize,
    pub move_count: usize,
    /// The colour to move; null once the game is over.
    #[schema(minimum = 1, maximum = 2)]
    pub current_player: Option<u8>,
    #[serde(flatten)]
    pub result: ResultView,
    pub last_move: Option<MoveView>,
    pub ai: Option<AiView>,
    pub created_at: String,
    pub updated_at: String,
}

/// The full state of a game: its summary, plus the board, the moves and black's forbidden points.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameState {
    #[serde(flatten)]
    pub summary: GameSummary,
    /// `board[row][col]`: 0 empty, 1 black, 2 white; row 0 is the top.
    pub board: Vec<Vec<u8>>,
    pub move_history: Vec<MoveView>,
    /// Black's forbidden points (renju, black to move); empty otherwise.
    pub forbidden_moves: Vec<ForbiddenView>,
}

impl GameState {
    pub fn new(stored: &StoredGame) -> GameState {
        let StoredGame { row, moves, game } = stored;
        GameState {
            summary: GameSummary {
                id: row.id.clone(),
                mode: Wire(row.mode),
                rule: Wire(row.rule),
                board_size: row.board_size,
                move_count: moves.len(),
                current_player: game.to_move().map(Stone::as_u8),
                result: ResultView::of(game),
                last_move: game.last_move().map(MoveView::from),
                ai: row.ai.map(AiView::from),
                created_at: row.created_at.clone(),
                updated_at: row.updated_at.clone(),
            },
            board: game.board().to_rows(),
            move_history: moves.iter().map(MoveView::from).collect(),
            forbidden_moves: game
                .forbidden_points()
                .into_iter()
                .map(|(p, kind)| ForbiddenView {
                    row: p.row,
                    col: p.col,
                    kind: Wire(kind),
                })
                .collect(),
        }
    }
}

impl From<Summary> for GameSummary {
    fn from(s: Summary) -> Self {
        let status = s.row.status;
        GameSummary {
            current_player: s.to_move.map(Stone::as_u8),
            result: ResultView {
                status: Wire(status),
                winner: status.winner().map(Stone::as_u8),
                end_reason: s.end_reason.map(Wire),
                win_line: win_line_view(&s.win_line),
            },
            last_move: s.last_move.map(|(p, stone)| MoveView::new(p, stone)),
            id: s.row.id,
            mode: Wire(s.row.mode),
            rule: Wire(s.row.rule),
            board_size: s.row.board_size,
            move_count: s.row.move_count,
            ai: s.row.ai.map(AiView::from),
            created_at: s.row.created_at,
            updated_at: s.row.updated_at,
        }
    }
}
