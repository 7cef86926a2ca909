//! Puzzles (残局): the next puzzle near the player's puzzle rating, the daily puzzle, one puzzle
//! with the player's attempt, a move (answered with the defence's reply) and a retry. The
//! decisions are the puzzle service's ([`crate::puzzles`]); these handlers extract, call it and
//! render [`PuzzleView`].

use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::routing::{get, post};
use axum::{Json, Router};
use gomoku_rules::{Point, Rule};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::{JsonBody, Whole};
use super::responses::{BadBody, Busy, BusyOrAiBusy, RateLimited, Unauthorized};
use super::view::{MoveView, PointView, RatingPoints};
use super::wire::RuleName;
use crate::puzzles::{self, Shown};
use crate::ratings;
use crate::state::AppState;
use crate::store::puzzles::PuzzleRecord;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/puzzles/next", get(next_puzzle))
        .route("/api/v1/puzzles/daily", get(daily_puzzle))
        .route("/api/v1/puzzles/{id}", get(read_puzzle))
        .route("/api/v1/puzzles/{id}/moves", post(play_puzzle))
        .route("/api/v1/puzzles/{id}/retry", post(retry_puzzle))
}

/// The `{id}` of a puzzle route: any id that fails to extract names no puzzle.
pub struct PuzzleId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PuzzleId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::PuzzleNotFound)?;
        Ok(PuzzleId(id))
    }
}

/// A puzzle rating as shown: like a game rating, with the rated attempts' results. Also the
/// player card's `puzzle` (`GET /api/v1/players/{id}`: `PuzzleRatingView::from(&record)` of
/// [`store::puzzles::puzzle_rating`](crate::store::puzzles::puzzle_rating)).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PuzzleRatingView {
    #[serde(flatten)]
    pub points: RatingPoints,
    /// Rated attempts solved.
    pub solved: u32,
    /// Rated attempts failed.
    pub failed: u32,
}

impl From<&PuzzleRecord> for PuzzleRatingView {
    fn from(r: &PuzzleRecord) -> PuzzleRatingView {
        PuzzleRatingView {
            points: RatingPoints::from(&r.rating),
            solved: r.solved,
            failed: r.failed,
        }
    }
}

/// What a rated attempt did to the player's puzzle rating.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingChangeView {
    pub before: i32,
    pub after: i32,
    /// `after - before` as shown.
    pub delta: i32,
    /// "+12", "−9" (a true minus sign), "±0".
    pub shown: String,
}

impl RatingChangeView {
    fn new((before, after): (f64, f64)) -> RatingChangeView {
        let delta = ratings::delta(before, after);
        RatingChangeView {
            before: before.round() as i32,
            after: after.round() as i32,
            delta,
            shown: ratings::shown_delta(delta),
        }
    }
}

/// The player's attempt at a puzzle.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptView {
    /// "playing", "solved" or "failed". A puzzle never played shows a fresh attempt: playing,
    /// no moves.
    #[schema(pattern = "^(playing|solved|failed)$")]
    pub status: String,
    /// The attacker moves left to make five.
    pub moves_left: u32,
    /// Whether this attempt moves the puzzle rating: the first attempt at a puzzle does,
    /// retries are practice.
    pub rated: bool,
    /// Attempts made at this puzzle, this one included (0 before the first move).
    pub tries: u32,
    /// Once a rated attempt is over: what it did to the puzzle rating.
    pub rating_change: Option<RatingChangeView>,
}

/// A puzzle as the caller sees it: the position, their attempt's moves, and once the attempt is
/// over, the stored solution.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PuzzleView {
    /// Stable id: the rule's first letter and a number ("f0001", "s0001", "r0001").
    pub id: String,
    #[schema(value_type = RuleName)]
    pub rule: String,
    pub board_size: usize,
    /// "vcf": the attacker wins by fours alone; "vct": by fours and threes.
    #[schema(pattern = "^(vcf|vct)$")]
    pub kind: String,
    /// The attacker's moves to the five, against the most stubborn defence.
    pub win_in: u32,
    /// The caller's colour: 1 black, 2 white.
    #[schema(minimum = 1, maximum = 2)]
    pub attacker: u8,
    /// 1 (easy) to 5 (expert).
    #[schema(minimum = 1, maximum = 5)]
    pub difficulty: u8,
    /// The puzzle's rating (Glicko-2 scale), which an attempt is rated against.
    pub rating: u32,
    /// Whether it is today's puzzle (UTC).
    pub daily: bool,
    /// `board[row][col]`: 0 empty, 1 black, 2 white; row 0 is the top. The puzzle's position
    /// with the attempt's moves on it.
    pub board: Vec<Vec<u8>>,
    /// The last stone placed (the attempt's, else the puzzle's).
    pub last_move: Option<PointView>,
    /// The attempt's moves after the puzzle's position, both sides, the caller's first.
    pub moves: Vec<MoveView>,
    /// The number of `moves`: pass it as `ply` with the next move.
    pub ply: usize,
    pub attempt: AttemptView,
    /// The stored solution (a principal line, both sides' moves from the attacker's first),
    /// once the attempt is solved or failed; null while it is played.
    pub solution: Option<Vec<PointView>>,
    /// The caller's puzzle rating.
    pub you: PuzzleRatingView,
}

impl PuzzleView {
    pub fn new(shown: &Shown) -> PuzzleView {
        let entry = &shown.entry;
        let status = shown.status();
        let attempt = shown.attempt.as_ref();
        let opponent = entry.attacker.opponent();
        let moves = shown
            .moves
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let who = if i % 2 == 0 { entry.attacker } else { opponent };
                MoveView::new(p, who)
            })
            .collect();
        PuzzleView {
            id: entry.id().to_string(),
            rule: entry.rule.as_str().to_string(),
            board_size: entry.start.size(),
            kind: entry.puzzle.kind.clone(),
            win_in: entry.puzzle.win_in,
            attacker: entry.attacker.as_u8(),
            difficulty: entry.puzzle.difficulty,
            rating: entry.puzzle.rating,
            daily: shown.daily,
            board: shown.game.board().to_rows(),
            last_move: shown.game.last_move().map(|m| m.point.into()),
            moves,
            ply: shown.moves.len(),
            attempt: AttemptView {
                status: status.as_str().to_string(),
                moves_left: if status.is_over() { 0 } else { shown.left },
                rated: attempt.is_none_or(|a| a.rated),
                tries: attempt.map_or(0, |a| a.tries),
                rating_change: attempt.and_then(|a| a.change).map(RatingChangeView::new),
            },
            solution: status
                .is_over()
                .then(|| entry.solution.iter().map(|&p| p.into()).collect()),
            you: (&shown.record).into(),
        }
    }
}

/// Query of the next puzzle.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NextQuery {
    /// Only puzzles of this rule; any rule when absent.
    #[param(value_type = Option<RuleName>, inline)]
    pub rule: Option<String>,
}

/// A move of the attacker.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PuzzleMove {
    /// Row, 0 at the top (below the board size).
    #[schema(value_type = i64, minimum = 0, maximum = 14)]
    pub row: Whole,
    /// Column, 0 at the left (below the board size).
    #[schema(value_type = i64, minimum = 0, maximum = 14)]
    pub col: Whole,
    /// The attempt's `ply` as the client saw it. When given and different: 200 with the attempt
    /// as it is if `moves[ply]` is this very move (a retried request), else 409 PLY_MISMATCH.
    #[schema(value_type = Option<i64>, minimum = 0)]
    pub ply: Option<Whole>,
}

/// The next puzzle: one the caller has not tried, chosen at random among those nearest their
/// puzzle rating (within 100 points, the window doubling until it holds one); once they have
/// tried every puzzle (of the rule), the one they started least recently.
#[utoipa::path(
    get, path = "/api/v1/puzzles/next", tag = "puzzles",
    params(NextQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A puzzle and the caller's attempt at it", body = PuzzleView),
        (status = 400, description = "INVALID_QUERY: an unknown rule", body = ErrorBody),
        Unauthorized,
        Busy,
    )
)]
pub async fn next_puzzle(
    State(state): State<AppState>,
    player: Player,
    query: Result<Query<NextQuery>, QueryRejection>,
) -> Result<Json<PuzzleView>, ApiError> {
    let Query(query) = query?;
    let rule = query
        .rule
        .map(|r| {
            r.parse::<Rule>()
                .map_err(|_| ApiError::InvalidQuery(format!("unknown rule {r:?}")))
        })
        .transpose()?;
    let shown = state.puzzles.next(&player.id, rule).await?;
    Ok(Json(PuzzleView::new(&shown)))
}

/// Today's puzzle (UTC): the same for everyone, a different one each day.
#[utoipa::path(
    get, path = "/api/v1/puzzles/daily", tag = "puzzles",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Today's puzzle and the caller's attempt at it", body = PuzzleView),
        Unauthorized,
        Busy,
    )
)]
pub async fn daily_puzzle(
    State(state): State<AppState>,
    player: Player,
) -> Result<Json<PuzzleView>, ApiError> {
    let shown = state.puzzles.daily(&player.id).await?;
    Ok(Json(PuzzleView::new(&shown)))
}

/// One puzzle with the caller's attempt at it.
#[utoipa::path(
    get, path = "/api/v1/puzzles/{id}", tag = "puzzles",
    params(("id" = String, Path, description = "Puzzle id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The puzzle and the caller's attempt at it", body = PuzzleView),
        Unauthorized,
        (status = 404, description = "PUZZLE_NOT_FOUND", body = ErrorBody),
        Busy,
    )
)]
pub async fn read_puzzle(
    State(state): State<AppState>,
    player: Player,
    PuzzleId(id): PuzzleId,
) -> Result<Json<PuzzleView>, ApiError> {
    let shown = state.puzzles.show(&player.id, &id).await?;
    Ok(Json(PuzzleView::new(&shown)))
}

/// Play the attacker's move. A five solves the puzzle; a move that keeps the forced win is
/// answered by the defence's most stubborn reply, already in the answer; a move after which
/// there is no forced win within the moves left fails the attempt (the refuting reply is in the
/// answer when the engine found one). The first attempt at a puzzle moves the puzzle rating
/// when it ends.
#[utoipa::path(
    post, path = "/api/v1/puzzles/{id}/moves", tag = "puzzles",
    params(("id" = String, Path, description = "Puzzle id")),
    request_body = PuzzleMove,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The puzzle after the move and the defence's reply", body = PuzzleView),
        BadBody,
        Unauthorized,
        (status = 404, description = "PUZZLE_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "PUZZLE_OVER (the attempt is solved or failed: retry it); CELL_OCCUPIED; PLY_MISMATCH", body = ErrorBody),
        (status = 422, description = "OUT_OF_BOUNDS or FORBIDDEN_MOVE (with kind)", body = ErrorBody),
        RateLimited,
        BusyOrAiBusy,
    )
)]
pub async fn play_puzzle(
    State(state): State<AppState>,
    player: Player,
    PuzzleId(id): PuzzleId,
    JsonBody(body): JsonBody<PuzzleMove>,
) -> Result<Json<PuzzleView>, ApiError> {
    let ply = match body.ply {
        None => None,
        Some(Whole(ply)) => Some(
            usize::try_from(ply)
                .map_err(|_| ApiError::InvalidJson(format!("ply must be 0 or more, not {ply}")))?,
        ),
    };
    let point = match (usize::try_from(body.row.0), usize::try_from(body.col.0)) {
        (Ok(row), Ok(col)) => Some(Point::new(row, col)),
        _ => None,
    };
    let shown = state.puzzles.play(&player.id, &id, point, ply).await?;
    Ok(Json(PuzzleView::new(&shown)))
}

/// Start the puzzle again, as practice (unrated). A rated first attempt still being played
/// counts as failed first. Before any move there is nothing to start again: the answer is the
/// puzzle as it is, its first attempt still to be made (and rated).
#[utoipa::path(
    post, path = "/api/v1/puzzles/{id}/retry", tag = "puzzles",
    params(("id" = String, Path, description = "Puzzle id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The puzzle with a fresh attempt", body = PuzzleView),
        Unauthorized,
        (status = 404, description = "PUZZLE_NOT_FOUND", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn retry_puzzle(
    State(state): State<AppState>,
    player: Player,
    PuzzleId(id): PuzzleId,
) -> Result<Json<PuzzleView>, ApiError> {
    let shown = state.puzzles.retry(&player.id, &id).await?;
    Ok(Json(PuzzleView::new(&shown)))
}

impl From<puzzles::Error> for ApiError {
    fn from(e: puzzles::Error) -> ApiError {
        use puzzles::Error as E;
        match e {
            E::NotFound => ApiError::PuzzleNotFound,
            E::Over => ApiError::PuzzleOver,
            E::OutOfBounds => ApiError::OutOfBounds,
            E::CellOccupied => ApiError::CellOccupied,
            E::Forbidden(kind) => ApiError::ForbiddenMove(kind),
            E::PlyMismatch { ply, moves } => ApiError::PlyMismatch {
                ply,
                move_count: moves,
            },
            E::Busy => ApiError::Busy,
            E::Store(e) => e.into(),
            E::Ai(e) => e.into(),
            E::Internal(cause) => ApiError::Internal(cause),
        }
    }
}
