//! The games resource: create, list (the saved-games list), read and delete.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use gomoku_engine::Level;
use gomoku_rules::{Game, Rule, Stone};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::extract::{GameId, JsonBody};
use super::openapi::{BadBody, Busy, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::{GameState, GameSummary, LevelName, ModeName, RuleName};
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store::games::{self, AiSetting, Mode, NewGame, StatusFilter, StoredGame, StoredMove};
use crate::store::{self, is_timestamp};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/games", get(list).post(create))
        .route("/api/v1/games/{id}", get(read).delete(delete))
}

/// Loads the caller's game or answers 404.
pub(super) async fn load(
    state: &AppState,
    player: &Player,
    id: &str,
) -> Result<Arc<StoredGame>, ApiError> {
    games::load(&state.db, &player.id, id)
        .await?
        .ok_or(ApiError::GameNotFound)
}

/// Stores a new game and answers 201 with it, or 409 TOO_MANY_GAMES when it would be playing
/// and its player already has as many unfinished games as allowed.
pub(super) async fn store_new(
    state: &AppState,
    new: NewGame,
) -> Result<(StatusCode, Json<GameState>), ApiError> {
    let cap = state.config.max_unfinished_games;
    let stored = games::insert(&state.db, new, cap)
        .await?
        .ok_or(ApiError::TooManyGames(cap))?;
    Ok((StatusCode::CREATED, Json(GameState::new(&stored))))
}

/// Settings of a new game; every field is optional.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateGame {
    /// Default "local".
    #[schema(value_type = Option<ModeName>)]
    pub mode: Option<String>,
    /// Default "freestyle".
    #[schema(value_type = Option<RuleName>)]
    pub rule: Option<String>,
    /// 9 to 19, default 15.
    #[schema(minimum = 9, maximum = 19)]
    pub board_size: Option<i64>,
    /// Required when mode is "ai".
    pub ai: Option<AiRequest>,
}

/// The AI's settings in a new game.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AiRequest {
    #[schema(value_type = LevelName)]
    pub level: String,
    /// The AI's colour, 1 black or 2 white (black moves first).
    #[schema(minimum = 1, maximum = 2)]
    pub player: i64,
}

/// The validated settings of a new game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub mode: Mode,
    pub rule: Rule,
    pub board_size: usize,
    pub ai: Option<AiSetting>,
}

impl CreateGame {
    pub fn settings(&self) -> Result<Settings, ApiError> {
        let invalid = |m: &str| ApiError::InvalidSettings(m.to_string());
        let mode = match &self.mode {
            None => Mode::Local,
            Some(m) => Mode::parse(m).ok_or_else(|| invalid("mode must be \"local\" or \"ai\""))?,
        };
        let rule = match &self.rule {
            None => Rule::Freestyle,
            Some(r) => r
                .parse()
                .map_err(|_| invalid("rule must be \"freestyle\", \"standard\" or \"renju\""))?,
        };
        let board_size = match self.board_size {
            None => 15,
            Some(n @ 9..=19) => n as usize,
            Some(_) => return Err(invalid("boardSize must be between 9 and 19")),
        };
        let ai = match (mode, &self.ai) {
            (Mode::Local, None) => None,
            (Mode::Local, Some(_)) => return Err(invalid("ai settings are only for mode \"ai\"")),
            (Mode::Ai, None) => return Err(invalid("mode \"ai\" needs ai settings")),
            (Mode::Ai, Some(ai)) => Some(AiSetting {
                level: Level::parse(&ai.level).ok_or_else(|| {
                    invalid("ai.level must be \"easy\", \"medium\", \"hard\" or \"master\"")
                })?,
                player: u8::try_from(ai.player)
                    .ok()
                    .and_then(Stone::from_u8)
                    .ok_or_else(|| invalid("ai.player must be 1 or 2"))?,
            }),
        };
        Ok(Settings {
            mode,
            rule,
            board_size,
            ai,
        })
    }
}

/// Create a game. If the AI plays black, its first move is already made.
#[utoipa::path(
    post, path = "/api/v1/games", tag = "games",
    request_body = CreateGame,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The new game", body = GameState),
        BadBody,
        Unauthorized,
        (status = 409, description = "TOO_MANY_GAMES", body = ErrorBody),
        (status = 422, description = "INVALID_SETTINGS", body = ErrorBody),
        RateLimited,
        BusyOrAiBusy,
    )
)]
pub async fn create(
    State(state): State<AppState>,
    player: Player,
    JsonBody(body): JsonBody<CreateGame>,
) -> Result<(StatusCode, Json<GameState>), ApiError> {
    let settings = body.settings()?;
    let mut game = Game::new(settings.board_size, settings.rule)
        .map_err(|e| ApiError::InvalidSettings(format!("{e:?}")))?;
    let mut moves = Vec::new();
    if let Some(ai) = settings.ai.filter(|ai| ai.player == Stone::Black) {
        let point = state
            .ai
            .best_move(game.clone(), ai.level)
            .await?
            .ok_or_else(|| ApiError::internal("the AI found no opening move"))?;
        game.play(point)
            .map_err(|e| ApiError::internal(format!("the AI's opening move was refused: {e:?}")))?;
        moves.push(StoredMove {
            point,
            stone: Stone::Black,
            played_at: store::now(),
        });
    }
    let new = NewGame {
        player_id: player.id,
        mode: settings.mode,
        ai: settings.ai,
        resigned_by: None,
        moves,
        game,
    };
    store_new(&state, new).await
}

/// Query of the games list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// "playing" or "finished"; all games when absent.
    #[param(value_type = Option<String>, pattern = "^(playing|finished)$")]
    pub status: Option<String>,
    /// Page size, 1 to 100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

/// A page of games.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameList {
    pub games: Vec<GameSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// The cursor names the last game of a page by its activity time and id, hex-encoded so it is
/// opaque and URL-safe.
fn encode_cursor(updated_at: &str, id: &str) -> String {
    hex::encode(format!("{updated_at}\n{id}"))
}

fn decode_cursor(cursor: &str) -> Option<(String, String)> {
    let text = String::from_utf8(hex::decode(cursor).ok()?).ok()?;
    let (updated_at, id) = text.split_once('\n')?;
    (is_timestamp(updated_at) && !id.is_empty()).then(|| (updated_at.to_string(), id.to_string()))
}

/// The caller's games, newest activity first.
#[utoipa::path(
    get, path = "/api/v1/games", tag = "games",
    params(ListQuery),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "A page of games", body = GameList),
        (status = 400, description = "INVALID_QUERY", body = ErrorBody),
        Unauthorized,
        Busy,
    )
)]
pub async fn list(
    State(state): State<AppState>,
    player: Player,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<GameList>, ApiError> {
    let Query(query) = query?;
    let filter = match query.status.as_deref() {
        None => StatusFilter::All,
        Some("playing") => StatusFilter::Playing,
        Some("finished") => StatusFilter::Finished,
        Some(_) => {
            return Err(ApiError::InvalidQuery(
                "status must be \"playing\" or \"finished\"".into(),
            ))
        }
    };
    let limit = match query.limit.as_deref() {
        None => 20,
        Some(text) => match text.parse::<usize>() {
            Ok(n @ 1..=100) => n,
            _ => {
                return Err(ApiError::InvalidQuery(
                    "limit must be an integer from 1 to 100".into(),
                ))
            }
        },
    };
    let after = match query.cursor.as_deref() {
        None => None,
        Some(c) => {
            Some(decode_cursor(c).ok_or_else(|| ApiError::InvalidQuery("bad cursor".into()))?)
        }
    };
    // One extra row tells whether there is a next page.
    let mut rows = games::list(
        &state.db,
        &player.id,
        filter,
        limit + 1,
        after.as_ref().map(|(at, id)| (at.as_str(), id.as_str())),
    )
    .await?;
    let next_cursor = if rows.len() > limit {
        rows.truncate(limit);
        rows.last()
            .map(|r| encode_cursor(&r.row.updated_at, &r.row.id))
    } else {
        None
    };
    Ok(Json(GameList {
        games: rows.into_iter().map(GameSummary::from).collect(),
        next_cursor,
    }))
}

/// One game's state.
#[utoipa::path(
    get, path = "/api/v1/games/{id}", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game", body = GameState),
        Unauthorized,
        GameNotFound,
        Busy,
    )
)]
pub async fn read(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<Json<GameState>, ApiError> {
    let stored = load(&state, &player, &id).await?;
    Ok(Json(GameState::new(&stored)))
}

/// Delete a game and its moves.
#[utoipa::path(
    delete, path = "/api/v1/games/{id}", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        Unauthorized,
        GameNotFound,
        RateLimited,
        Busy,
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<StatusCode, ApiError> {
    if games::delete(&state.db, &player.id, &id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::GameNotFound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(json: &str) -> Result<Settings, ApiError> {
        serde_json::from_str::<CreateGame>(json).unwrap().settings()
    }

    /// An empty body gives the documented defaults.
    #[test]
    fn defaults() {
        let s = settings("{}").unwrap();
        assert_eq!(
            (s.mode, s.rule, s.board_size, s.ai),
            (Mode::Local, Rule::Freestyle, 15, None)
        );
    }

    /// Values outside the documented sets are INVALID_SETTINGS, not silently replaced.
    #[test]
    fn invalid_settings() {
        for body in [
            r#"{"mode":"online"}"#,
            r#"{"rule":"caro"}"#,
            r#"{"boardSize":8}"#,
            r#"{"boardSize":20}"#,
            r#"{"mode":"ai"}"#,
            r#"{"mode":"ai","ai":{"level":"godlike","player":2}}"#,
            r#"{"mode":"ai","ai":{"level":"easy","player":3}}"#,
            r#"{"mode":"local","ai":{"level":"easy","player":2}}"#,
        ] {
            assert!(
                matches!(settings(body), Err(ApiError::InvalidSettings(_))),
                "{body}"
            );
        }
    }

    /// AI settings are read, master included; both of their fields are required.
    #[test]
    fn ai_settings() {
        let s = settings(
            r#"{"mode":"ai","rule":"renju","boardSize":19,"ai":{"level":"master","player":1}}"#,
        )
        .unwrap();
        assert_eq!(
            s.ai,
            Some(AiSetting {
                level: Level::Master,
                player: Stone::Black
            })
        );
        for partial in [
            r#"{"mode":"ai","ai":{}}"#,
            r#"{"mode":"ai","ai":{"level":"easy"}}"#,
        ] {
            assert!(
                serde_json::from_str::<CreateGame>(partial).is_err(),
                "{partial}"
            );
        }
    }

    /// Cursors round-trip and anything else is refused.
    #[test]
    fn cursors() {
        let at = store::now();
        let c = encode_cursor(&at, "abc");
        assert_eq!(decode_cursor(&c), Some((at, "abc".to_string())));
        assert_eq!(decode_cursor("zz"), None);
        assert_eq!(decode_cursor(&hex::encode("2026-01-01\nabc")), None);
        assert_eq!(decode_cursor(""), None);
    }
}
