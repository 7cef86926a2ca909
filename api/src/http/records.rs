//! Game records: `GET /api/v1/games/{id}/export` downloads a game as a JSON attachment, and
//! `POST /api/v1/games/import` makes a new local game from such a record.
//!
//! An import trusts only the version, rule, board size, and each move's row, col and player;
//! everything else is recomputed by replaying the moves through the judge. A resignation cannot
//! be recomputed from moves, so a resigned game comes back open at the position it was resigned
//! in: the record's `result` is never believed.

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use gomoku_rules::{Coord, Game, PlayError, Point, Rule};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::{GameId, JsonBody, Whole};
use super::responses::{BadBody, Busy, GameNotFound, RateLimited, Unauthorized};
use super::view::{render, AiView, GameState, ResultView, TimeControlView};
use super::wire::{ModeName, RuleName, Wire};
use crate::state::AppState;
use crate::store::now;

/// The record format this server writes and reads.
pub const RECORD_VERSION: &str = "gomoku-1.0";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/games/{id}/export", get(export))
        .route("/api/v1/games/import", post(import))
}

/// A move in a record.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordMove {
    pub row: usize,
    pub col: usize,
    #[schema(minimum = 1, maximum = 2)]
    pub player: u8,
    /// Standard notation: columns a, b, c… from the left, rows from 1 at the bottom.
    pub coord: String,
    /// When the move was played (RFC 3339).
    pub at: String,
    /// In a timed game: the mover's time left after the move, its increment included.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub clock_ms: Option<i64>,
}

/// A game record (`gomoku-1.0`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameRecord {
    /// Always "gomoku-1.0".
    pub version: String,
    pub id: String,
    pub rule: RuleName,
    pub board_size: usize,
    pub mode: ModeName,
    pub ai: Option<AiView>,
    /// The time control of a timed online game; null otherwise.
    pub time_control: Option<TimeControlView>,
    pub moves: Vec<RecordMove>,
    /// How the game ended (or stands).
    pub result: ResultView,
    pub created_at: String,
    pub finished_at: Option<String>,
    pub exported_at: String,
}

/// Download a game record (of a game of the caller's, or of any online game).
#[utoipa::path(
    get, path = "/api/v1/games/{id}/export", tag = "records",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The record, as an attachment gomoku-<id>.json", body = GameRecord,
         headers(("Content-Disposition" = String, description = "attachment; filename=\"gomoku-<id>.json\""))),
        Unauthorized,
        GameNotFound,
        Busy,
    )
)]
pub async fn export(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Response, ApiError> {
    let stored = state.games.load(&player.id, &id).await?;
    let size = stored.row.board_size;
    let record = GameRecord {
        version: RECORD_VERSION.to_string(),
        id: stored.row.id.clone(),
        rule: Wire(stored.row.rule),
        board_size: size,
        mode: Wire(stored.row.mode),
        ai: stored.row.ai.map(AiView::from),
        time_control: stored.row.time_control.map(TimeControlView::from),
        moves: stored
            .moves
            .iter()
            .map(|m| RecordMove {
                row: m.point.row,
                col: m.point.col,
                player: m.stone.as_u8(),
                coord: Coord::from_point(m.point, size).to_string(),
                at: m.played_at.clone(),
                clock_ms: m.clock_ms,
            })
            .collect(),
        result: ResultView::of(&stored),
        created_at: stored.row.created_at.clone(),
        finished_at: stored.row.finished_at.clone(),
        exported_at: now(),
    };
    // Game ids are uuids we made, but the header is built defensively all the same.
    let disposition = HeaderValue::from_str(&format!(
        "attachment; filename=\"gomoku-{}.json\"",
        stored.row.id
    ))
    .map_err(ApiError::internal)?;
    let mut response = Json(record).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_DISPOSITION, disposition);
    Ok(response)
}

/// The record versions this server reads (as the description shows them).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)] // describes the JSON only
pub enum RecordVersion {
    #[serde(rename = "gomoku-1.0")]
    V1,
}

/// A record to import. Fields not listed (ids, times, result, coords) are ignored.
// Unlike the other bodies, unknown fields pass (and the description does not say
// `additionalProperties: false`): an exported record carries more than an import reads, and a
// record written by a later version may carry more still.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportRecord {
    /// Must be "gomoku-1.0"; read as text, so that another version is INVALID_RECORD.
    #[schema(value_type = RecordVersion, inline)]
    pub version: String,
    #[schema(value_type = RuleName)]
    pub rule: String,
    #[schema(value_type = i64, minimum = 9, maximum = 19)]
    pub board_size: Whole,
    pub moves: Vec<ImportMove>,
}

/// A move of a record to import.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ImportMove {
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub row: Whole,
    #[schema(value_type = i64, minimum = 0, maximum = 18)]
    pub col: Whole,
    /// 1 black, 2 white, alternating from black.
    #[schema(value_type = i64, minimum = 1, maximum = 2)]
    pub player: Whole,
}

fn invalid(message: impl Into<String>, move_index: Option<usize>) -> ApiError {
    ApiError::InvalidRecord {
        message: message.into(),
        move_index,
    }
}

/// Replays a record through the judge: the game it describes, or why it is not valid.
pub fn replay_record(record: &ImportRecord) -> Result<Game, ApiError> {
    if record.version != RECORD_VERSION {
        return Err(invalid(
            format!("unknown version (expected {RECORD_VERSION})"),
            None,
        ));
    }
    let rule: Rule = record
        .rule
        .parse()
        .map_err(|_| invalid("unknown rule", None))?;
    let size = match record.board_size.0 {
        n @ 9..=19 => n as usize,
        _ => return Err(invalid("boardSize must be between 9 and 19", None)),
    };
    let mut game = Game::new(size, rule).map_err(|e| invalid(format!("{e:?}"), None))?;
    for (index, m) in record.moves.iter().enumerate() {
        let Some(expected) = game.to_move() else {
            return Err(invalid("move after the game ended", Some(index)));
        };
        if m.player.0 != i64::from(expected.as_u8()) {
            return Err(invalid("players must alternate, black first", Some(index)));
        }
        let point = match (usize::try_from(m.row.0), usize::try_from(m.col.0)) {
            (Ok(row), Ok(col)) if row < size && col < size => Point::new(row, col),
            _ => return Err(invalid("move outside the board", Some(index))),
        };
        game.play(point).map_err(|e| {
            let why = match e {
                PlayError::OutOfBounds => "move outside the board".to_string(),
                PlayError::Occupied => "cell already occupied".to_string(),
                PlayError::GameOver => "move after the game ended".to_string(),
                PlayError::Forbidden(kind) => format!("forbidden move ({})", kind.as_str()),
            };
            invalid(why, Some(index))
        })?;
    }
    Ok(game)
}

/// Import a record as a new local game.
#[utoipa::path(
    post, path = "/api/v1/games/import", tag = "records",
    request_body = ImportRecord,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The new local game", body = GameState),
        BadBody,
        Unauthorized,
        (status = 409, description = "TOO_MANY_GAMES", body = ErrorBody),
        (status = 422, description = "INVALID_RECORD (with moveIndex when a move is to blame)", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn import(
    State(state): State<AppState>,
    player: Player,
    JsonBody(record): JsonBody<ImportRecord>,
) -> Result<(StatusCode, Json<GameState>), ApiError> {
    let game = replay_record(&record)?;
    let imported = state.games.import(&player.id, game).await?;
    Ok((
        StatusCode::CREATED,
        Json(render(&state, &imported, &player).await?),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(json: serde_json::Value) -> ImportRecord {
        serde_json::from_value(json).unwrap()
    }

    fn move_index(e: ApiError) -> Option<usize> {
        match e {
            ApiError::InvalidRecord { move_index, .. } => move_index,
            other => panic!("expected INVALID_RECORD, got {other:?}"),
        }
    }

    /// A header the server does not know is refused without a move index.
    #[test]
    fn bad_header() {
        let base = serde_json::json!({"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": []});
        let mut v = base.clone();
        v["version"] = "gomoku-2.0".into();
        assert_eq!(move_index(replay_record(&record(v)).unwrap_err()), None);
        let mut v = base.clone();
        v["boardSize"] = 20.into();
        assert_eq!(move_index(replay_record(&record(v)).unwrap_err()), None);
        let mut v = base;
        v["rule"] = "go".into();
        assert_eq!(move_index(replay_record(&record(v)).unwrap_err()), None);
    }

    /// A move out of turn or off the board is blamed by its index.
    #[test]
    fn bad_moves_are_blamed() {
        let v = serde_json::json!({"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 9,
            "moves": [{"row": 4, "col": 4, "player": 1}, {"row": 4, "col": 5, "player": 1}]});
        assert_eq!(move_index(replay_record(&record(v)).unwrap_err()), Some(1));
        let v = serde_json::json!({"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 9,
            "moves": [{"row": 4, "col": 4, "player": 1}, {"row": 9, "col": 0, "player": 2}]});
        assert_eq!(move_index(replay_record(&record(v)).unwrap_err()), Some(1));
        let v = serde_json::json!({"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 9,
            "moves": [{"row": -1, "col": 4, "player": 1}]});
        assert_eq!(move_index(replay_record(&record(v)).unwrap_err()), Some(0));
    }
}
