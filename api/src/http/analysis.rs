//! `POST /api/v1/games/{id}/analysis` starts the post-game analysis (复盘分析) of a game as it
//! stands, and `GET` reads it, as far as it has got: for each move, black's win probability after
//! it and after the engine's move, the engine's move with the line it expects, and a mark.
//!
//! The work runs in the background ([`crate::analysis`]); the POST is answered at once (202
//! while it runs, 200 when there is nothing left to do) and a client polls the GET. Whoever may
//! read the game may read its analysis (its owner, the players of an online game, and anyone
//! with an online game's id); its owner or players may start it. An online game is analysed only
//! once it is over, so that an analysis never helps a player against a person. Starting work
//! costs a hint from the caller's hint bucket (each move is an AI search), and a player runs one
//! analysis at a time (409 ANALYSIS_RUNNING).

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::GameId;
use super::responses::{Busy, GameNotFound, RateLimited, Unauthorized};
use super::view::PointView;
use super::wire::{AnalysisStatusName, MarkName, Wire};
use crate::state::AppState;
use crate::store::analyses::{self, AnalysedMove, Analysis, AnalysisStatus, Started};
use crate::store::games::{Mode, Role, StoredGame};

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/api/v1/games/{id}/analysis",
        get(read_analysis).post(start_analysis),
    )
}

/// The analysis of one move.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalysedMoveView {
    /// The move's index in the game: 0 for the first move.
    pub ply: usize,
    /// Black's win probability (0–1) after the move played.
    #[schema(minimum = 0, maximum = 1)]
    pub eval: f64,
    /// The engine's move for the mover, in the position before the move.
    pub best: PointView,
    /// Black's win probability after the engine's move (equal to `eval` when it is the move
    /// played).
    #[schema(minimum = 0, maximum = 1)]
    pub best_eval: f64,
    /// null when the move is not marked.
    pub mark: Option<MarkName>,
    /// The engine's line from the position before the move (its principal variation, or the
    /// winning sequence of a forced win), up to 6 plies in order, the first being `best`: the
    /// better continuation a review can step through. Empty for moves analysed before the
    /// server kept lines.
    #[schema(max_items = 6)]
    pub line: Vec<PointView>,
}

impl AnalysedMoveView {
    /// The view of `m` in a game on a board of `size`.
    fn of(m: &AnalysedMove, size: usize) -> AnalysedMoveView {
        AnalysedMoveView {
            ply: m.ply,
            eval: m.eval,
            best: m.best.into(),
            best_eval: m.best_eval,
            mark: m.mark.map(Wire),
            // Stored lines were written from this game's points; one off the board would be
            // a corrupt row, and ends the line there.
            line: m
                .line
                .iter()
                .map_while(|c| c.to_point(size))
                .map(PointView::from)
                .collect(),
        }
    }
}

/// A game's analysis, as far as it has got.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisView {
    /// `running` while the server is still analysing, then `done`.
    pub status: AnalysisStatusName,
    /// The share of the work done (0–1; 1 once done).
    #[schema(minimum = 0, maximum = 1)]
    pub progress: f64,
    /// How many of the game's moves, from the first, the analysis covers once done.
    pub move_count: usize,
    /// The analysed moves that hold for the game as it now is, in order from ply 0.
    pub moves: Vec<AnalysedMoveView>,
    /// Done, but the game has moves it does not cover (the game went on, or moves were taken
    /// back and played differently, since): a POST analyses them.
    pub outdated: bool,
}

impl AnalysisView {
    /// The analysis as it holds for the game `stored` as it now is.
    fn of(analysis: &Analysis, stored: &StoredGame) -> AnalysisView {
        let valid = analysis.valid_moves(&stored.moves);
        let (move_count, progress) = match analysis.status {
            AnalysisStatus::Running => {
                let target = analysis.move_count.min(stored.moves.len());
                let progress = if target == 0 {
                    1.0
                } else {
                    valid.len().min(target) as f64 / target as f64
                };
                (target, progress)
            }
            AnalysisStatus::Done => (valid.len(), 1.0),
        };
        AnalysisView {
            status: Wire(analysis.status),
            progress,
            move_count,
            moves: valid
                .iter()
                .map(|m| AnalysedMoveView::of(m, stored.row.board_size))
                .collect(),
            outdated: analysis.status == AnalysisStatus::Done && valid.len() < stored.moves.len(),
        }
    }
}

/// Starts the analysis of the game as it stands (or extends it to the moves played since).
#[utoipa::path(
    post, path = "/api/v1/games/{id}/analysis", tag = "analysis",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Already done: every move of the game is analysed", body = AnalysisView),
        (status = 202, description = "Running: poll GET for the moves as they are analysed", body = AnalysisView),
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator of an online game (who may read the analysis)", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "GAME_NOT_OVER: an online game still in play; ANALYSIS_RUNNING: the caller's analysis of another game is still running", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn start_analysis(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<(StatusCode, Json<AnalysisView>), ApiError> {
    let stored = state.games.load(&player.id, &id).await?;
    if stored.role(&player.id) == Some(Role::Spectator) {
        return Err(ApiError::NotAPlayer);
    }
    if stored.row.mode == Mode::Online && !stored.row.status.is_over() {
        return Err(ApiError::GameNotOver);
    }
    let wanted = stored.moves.len();
    let existing = analyses::load(&state.db, &id).await?;
    let running = existing
        .as_ref()
        .is_some_and(|a| a.status == AnalysisStatus::Running);
    let work = match &existing {
        None => true,
        Some(a) if running => a.move_count != wanted,
        Some(a) => a.valid_moves(&stored.moves).len() < wanted,
    };
    if work {
        // Extending a running analysis starts nothing new: no charge for it.
        if !running {
            state.limits.hint(&player.session)?;
        }
        if analyses::start(&state.db, &id, &player.id, wanted).await? == Started::PlayerBusy {
            return Err(ApiError::AnalysisRunning);
        }
    }
    if work || running {
        state.analyses.ensure_running(&id);
    }
    let analysis = analyses::load(&state.db, &id)
        .await?
        .ok_or(ApiError::GameNotFound)?;
    let view = AnalysisView::of(&analysis, &stored);
    let status = match analysis.status {
        AnalysisStatus::Running => StatusCode::ACCEPTED,
        AnalysisStatus::Done => StatusCode::OK,
    };
    Ok((status, Json(view)))
}

/// The game's analysis as far as it has got.
#[utoipa::path(
    get, path = "/api/v1/games/{id}/analysis", tag = "analysis",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The analysis, running or done", body = AnalysisView),
        Unauthorized,
        (status = 404, description = "GAME_NOT_FOUND; ANALYSIS_NOT_FOUND when none was started", body = ErrorBody),
        Busy,
    )
)]
pub async fn read_analysis(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<AnalysisView>, ApiError> {
    let stored = state.games.load(&player.id, &id).await?;
    let analysis = analyses::load(&state.db, &id)
        .await?
        .ok_or(ApiError::AnalysisNotFound)?;
    Ok(Json(AnalysisView::of(&analysis, &stored)))
}
