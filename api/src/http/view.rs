//! The JSON the API serves and accepts, shared by the resource modules, with its OpenAPI
//! schemas. Built from the store's rows and the rules' types; field names are camelCase.

use gomoku_engine::Level;
use gomoku_rules::{ForbiddenKind, Move, Point, Stone};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::games::{AiSetting, Mode, Standing, StoredGame, StoredMove, SummaryRow};

/// How a game is played.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModeName {
    Local,
    Ai,
}

/// The rule set judging a game.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleName {
    Freestyle,
    Standard,
    Renju,
}

/// The AI's strength.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LevelName {
    Easy,
    Medium,
    Hard,
    Master,
}

/// Where a game stands.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusName {
    Playing,
    BlackWon,
    WhiteWon,
    Draw,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReasonName {
    Five,
    Resign,
    BoardFull,
    NoFivePossible,
}

/// Why a point is forbidden for black under renju.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ForbiddenKindName {
    DoubleThree,
    DoubleFour,
    Overline,
}

impl From<ForbiddenKind> for ForbiddenKindName {
    fn from(kind: ForbiddenKind) -> Self {
        match kind {
            ForbiddenKind::DoubleThree => ForbiddenKindName::DoubleThree,
            ForbiddenKind::DoubleFour => ForbiddenKindName::DoubleFour,
            ForbiddenKind::Overline => ForbiddenKindName::Overline,
        }
    }
}

pub fn mode_name(mode: Mode) -> ModeName {
    match mode {
        Mode::Local => ModeName::Local,
        Mode::Ai => ModeName::Ai,
    }
}

pub fn rule_name(rule: gomoku_rules::Rule) -> RuleName {
    match rule {
        gomoku_rules::Rule::Freestyle => RuleName::Freestyle,
        gomoku_rules::Rule::Standard => RuleName::Standard,
        gomoku_rules::Rule::Renju => RuleName::Renju,
    }
}

fn level_name(level: Level) -> LevelName {
    match level {
        Level::Easy => LevelName::Easy,
        Level::Medium => LevelName::Medium,
        Level::Hard => LevelName::Hard,
        Level::Master => LevelName::Master,
    }
}

pub fn status_name(status: &str) -> StatusName {
    match status {
        "black_won" => StatusName::BlackWon,
        "white_won" => StatusName::WhiteWon,
        "draw" => StatusName::Draw,
        _ => StatusName::Playing,
    }
}

pub fn end_reason_name(reason: &str) -> Option<EndReasonName> {
    match reason {
        "five" => Some(EndReasonName::Five),
        "resign" => Some(EndReasonName::Resign),
        "board_full" => Some(EndReasonName::BoardFull),
        "no_five_possible" => Some(EndReasonName::NoFivePossible),
        _ => None,
    }
}

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
            level: level_name(ai.level),
            player: ai.player.as_u8(),
        }
    }
}

/// The winning line, or null when there is none.
pub fn win_line_view(line: &[Point]) -> Option<Vec<PointView>> {
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
    pub status: StatusName,
    #[schema(minimum = 1, maximum = 2)]
    pub winner: Option<u8>,
    pub end_reason: Option<EndReasonName>,
    pub win_line: Option<Vec<PointView>>,
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
        let standing = Standing::of(game);
        GameState {
            summary: GameSummary {
                id: row.id.clone(),
                mode: mode_name(row.mode),
                rule: rule_name(row.rule),
                board_size: row.board_size,
                move_count: moves.len(),
                current_player: game.to_move().map(Stone::as_u8),
                status: status_name(standing.status),
                winner: standing.winner.map(Stone::as_u8),
                end_reason: standing.end_reason.and_then(end_reason_name),
                win_line: win_line_view(&standing.win_line),
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
                    kind: kind.into(),
                })
                .collect(),
        }
    }
}

impl From<SummaryRow> for GameSummary {
    fn from(s: SummaryRow) -> Self {
        let playing = s.status == "playing";
        // Black plays the even plies, so the side to move follows from the count.
        let current_player = playing.then_some(if s.row.move_count.is_multiple_of(2) {
            1
        } else {
            2
        });
        GameSummary {
            winner: s.winner().map(Stone::as_u8),
            status: status_name(&s.status),
            end_reason: s.end_reason.as_deref().and_then(end_reason_name),
            win_line: win_line_view(&s.win_line),
            last_move: s.last_move.map(|(p, stone)| MoveView::new(p, stone)),
            id: s.row.id,
            mode: mode_name(s.row.mode),
            rule: rule_name(s.row.rule),
            board_size: s.row.board_size,
            move_count: s.row.move_count,
            current_player,
            ai: s.row.ai.map(AiView::from),
            created_at: s.row.created_at,
            updated_at: s.row.updated_at,
        }
    }
}
