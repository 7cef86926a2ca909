//! The opening of a game that starts with an opening rule: one step at a time. The decisions
//! are the game service's ([`crate::games`]); this handler reads the step, takes the time it
//! arrived, calls the service and renders its answer.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use gomoku_rules::opening::{Choice, Step};
use gomoku_rules::Point;
use serde::Deserialize;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::{GameId, JsonBody, Whole};
use super::responses::{BadBody, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::{answer, GameState};
use super::wire::ChoiceName;
use crate::state::AppState;
use crate::store::now_exact;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/games/{id}/opening", post(step))
}

/// A point named in a step.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PointRequest {
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub row: Whole,
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub col: Whole,
}

/// One opening step, named by `step`: the phase it belongs to (`opening.phase`).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum StepRequest {
    /// Place the stone `opening.stone` at (row, col), inside `opening.zone`. `ply`, when given,
    /// is the number of stones the client believes are on the board: a retry of a stone already
    /// placed answers the game as it is, any other mismatch is 409 PLY_MISMATCH.
    Place {
        #[schema(value_type = i64, minimum = 0, maximum = 18)]
        row: Whole,
        #[schema(value_type = i64, minimum = 0, maximum = 18)]
        col: Whole,
        #[schema(value_type = Option<i64>, minimum = 0)]
        ply: Option<Whole>,
    },
    /// Take one of `opening.options`: "black", "white", "place_two" or "offer_ten".
    Choose {
        #[schema(value_type = ChoiceName)]
        choice: String,
    },
    /// Offer `opening.count` 5th moves, no two the same up to a symmetry of the position.
    Offer { points: Vec<PointRequest> },
    /// Pick one of `opening.offers`.
    Pick {
        #[schema(value_type = i64, minimum = 0, maximum = 18)]
        row: Whole,
        #[schema(value_type = i64, minimum = 0, maximum = 18)]
        col: Whole,
    },
}

/// A point of a request: 422 OUT_OF_BOUNDS for a negative coordinate, which no board has (a
/// coordinate past the board is the rules' to refuse, the same way).
fn point(row: Whole, col: Whole) -> Result<Point, ApiError> {
    match (usize::try_from(row.0), usize::try_from(col.0)) {
        (Ok(row), Ok(col)) => Ok(Point::new(row, col)),
        _ => Err(ApiError::OutOfBounds),
    }
}

impl StepRequest {
    /// The step as the rules take it, and the `ply` of a placed stone.
    fn step(self) -> Result<(Step, Option<usize>), ApiError> {
        Ok(match self {
            StepRequest::Place { row, col, ply } => {
                let ply = match ply {
                    None => None,
                    Some(Whole(ply)) => Some(usize::try_from(ply).map_err(|_| {
                        ApiError::InvalidJson(format!("ply must be 0 or more, not {ply}"))
                    })?),
                };
                (Step::Place(point(row, col)?), ply)
            }
            StepRequest::Choose { choice } => {
                let choice = choice.parse::<Choice>().map_err(|_| {
                    ApiError::InvalidJson(
                        "choice must be \"black\", \"white\", \"place_two\" or \"offer_ten\""
                            .into(),
                    )
                })?;
                (Step::Choose(choice), None)
            }
            StepRequest::Offer { points } => {
                let points = points
                    .into_iter()
                    .map(|p| point(p.row, p.col))
                    .collect::<Result<Vec<_>, _>>()?;
                (Step::Offer(points), None)
            }
            StepRequest::Pick { row, col } => (Step::Pick(point(row, col)?), None),
        })
    }
}

/// Take an opening step. The answer is the game after it; against the AI, with the AI's steps
/// that follow (and its first move, when the opening ends with the AI to move).
#[utoipa::path(
    post, path = "/api/v1/games/{id}/opening", tag = "play",
    params(("id" = String, Path, description = "Game id")),
    request_body = StepRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game after the step (and the AI's)", body = GameState),
        BadBody,
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator of an online game", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "OPENING_OVER (the opening is done); NO_OPENING (the game has no opening rule); NOT_YOUR_TURN (the other seat is to act); WRONG_STEP (the phase expects another kind of step); CELL_OCCUPIED; PLY_MISMATCH; GAME_OVER; GAME_CHANGED (ai games); WAITING_FOR_OPPONENT (online games)", body = ErrorBody),
        (status = 422, description = "OUTSIDE_ZONE; OUT_OF_BOUNDS; FORBIDDEN_MOVE (with kind); NOT_AN_OPTION; OFFER_COUNT; DUPLICATE_OFFER; SYMMETRIC_OFFERS; NOT_OFFERED", body = ErrorBody),
        RateLimited,
        BusyOrAiBusy,
    )
)]
pub async fn step(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
    JsonBody(body): JsonBody<StepRequest>,
) -> Result<Json<GameState>, ApiError> {
    let arrival = now_exact();
    let (step, ply) = body.step()?;
    let stepped = state
        .games
        .opening_step(&player.id, &id, step, ply, arrival)
        .await;
    answer(&state, &player, stepped).await
}
