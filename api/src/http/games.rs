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

use super::extract::{GameId, JsonBody, Whole};
use super::responses::{BadBody, Busy, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::{GameState, GameSummary};
use super::wire::{LevelName, RuleName};
use crate::auth::Player;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use crate::store;
use crate::store::games::{
    self, AiSetting, Mode, NewGame, StatusFilter, StoredGame, StoredMove, Written,
};

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
    match games::insert(&state.db, new, cap).await? {
        Written::Stored(stored) => Ok((StatusCode::CREATED, Json(GameState::new(&stored)))),
        Written::OverCap => Err(ApiError::TooManyGames(cap)),
        Written::Stale => Err(ApiError::internal("a new game cannot be stale")),
    }
}

/// Settings of a new game. A local game (the default) takes no `ai`; an AI game names
/// `"mode": "ai"` and needs `ai`. The names are read with their types' `FromStr`, so a name the
/// server does not know is 422 INVALID_SETTINGS.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateGame {
    pub mode: Option<String>,
    pub rule: Option<String>,
    pub board_size: Option<Whole>,
    pub ai: Option<AiRequest>,
}

// The body of `POST /games` as the description shows it: one of two kinds of game. These
// types describe the JSON only; `CreateGame` reads it, so that a wrong combination gets 422
// INVALID_SETTINGS rather than a parse error.

/// "local"
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LocalMode {
    Local,
}

/// "ai"
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AiMode {
    Ai,
}

/// A local game: two people on one device. Takes no `ai`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
pub struct CreateLocalGame {
    /// Default "local".
    #[schema(inline)]
    mode: Option<LocalMode>,
    /// Default "freestyle".
    #[schema(value_type = Option<RuleName>)]
    rule: Option<String>,
    /// 9 to 19, default 15.
    #[schema(minimum = 9, maximum = 19)]
    board_size: Option<i64>,
}

/// A game against the AI.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct CreateAiGame {
    #[schema(inline)]
    mode: AiMode,
    /// Default "freestyle".
    #[schema(value_type = Option<RuleName>)]
    rule: Option<String>,
    /// 9 to 19, default 15.
    #[schema(minimum = 9, maximum = 19)]
    board_size: Option<i64>,
    ai: AiRequest,
}

/// Settings of a new game: a local game, or a game against the AI.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum CreateGameBody {
    Local(CreateLocalGame),
    Ai(CreateAiGame),
}

/// The AI's settings in a new game.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AiRequest {
    #[schema(value_type = LevelName)]
    pub level: String,
    /// The AI's colour, 1 black or 2 white (black moves first).
    #[schema(value_type = i64, minimum = 1, maximum = 2)]
    pub player: Whole,
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
            Some(m) => m
                .parse()
                .map_err(|_| invalid("mode must be \"local\" or \"ai\""))?,
        };
        let rule = match &self.rule {
            None => Rule::Freestyle,
            Some(r) => r
                .parse()
                .map_err(|_| invalid("rule must be \"freestyle\", \"standard\" or \"renju\""))?,
        };
        let board_size = match self.board_size {
            None => 15,
            Some(Whole(n @ 9..=19)) => n as usize,
            Some(_) => return Err(invalid("boardSize must be between 9 and 19")),
        };
        let ai = match (mode, &self.ai) {
            (Mode::Local, None) => None,
            (Mode::Local, Some(_)) => return Err(invalid("ai settings are only for mode \"ai\"")),
            (Mode::Ai, None) => return Err(invalid("mode \"ai\" needs ai settings")),
            (Mode::Ai, Some(ai)) => Some(AiSetting {
                level: ai.level.parse::<Level>().map_err(|_| {
                    invalid("ai.level must be \"easy\", \"medium\", \"hard\" or \"master\"")
                })?,
                player: u8::try_from(ai.player.0)
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
    request_body = CreateGameBody,
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
        moves,
        game,
    };
    store_new(&state, new).await
}

/// Which games a listing shows.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ListStatus {
    Playing,
    Finished,
}

/// Query of the games list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// "playing" or "finished"; all games when absent.
    #[param(value_type = Option<ListStatus>, inline)]
    pub status: Option<String>,
    /// Page size, 1 to 100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// `nextCursor` of the previous page, as it was given.
    #[param(value_type = Option<String>, pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z[0-9a-f-]{1,36}$")]
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

/// The cursor names the last game of a page by its activity time (fixed width) and its id, one
/// after the other. The listing asks for what sorts before that pair as text, so any string of
/// the cursor's shape is a valid bound, and the description's pattern is exactly what is
/// accepted.
fn encode_cursor(updated_at: &str, id: &str) -> String {
    format!("{updated_at}{id}")
}

/// The shape of a stored time, digit by digit (`9` a digit, anything else itself).
const TIME_SHAPE: &[u8; 27] = b"9999-99-99T99:99:99.999999Z";

fn decode_cursor(cursor: &str) -> Option<(&str, &str)> {
    let (at, id) = cursor.split_at_checked(TIME_SHAPE.len())?;
    let at_fits = at.bytes().zip(TIME_SHAPE).all(|(b, &shape)| match shape {
        b'9' => b.is_ascii_digit(),
        other => b == other,
    });
    let id_fits = (1..=36).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-');
    (at_fits && id_fits).then_some((at, id))
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
        Some(c) => Some(decode_cursor(c).ok_or_else(|| {
            ApiError::InvalidQuery("cursor must be a nextCursor as the server gave it".into())
        })?),
    };
    // One extra row tells whether there is a next page.
    let mut rows = games::list(&state.db, &player.id, filter, limit + 1, after).await?;
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
            r#"{"mode":"AI"}"#,
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

    /// Cursors round-trip and anything not of their shape is refused.
    #[test]
    fn cursors() {
        let at = store::now();
        let id = uuid::Uuid::new_v4().to_string();
        let c = encode_cursor(&at, &id);
        assert_eq!(decode_cursor(&c), Some((at.as_str(), id.as_str())));
        for bad in [
            "",
            "zz",
            "2026-01-01T00:00:00Zabc",
            "2026-01-01T00:00:00.000000Z",
            "2026-01-01T00:00:00.000000ZABC",
            "2026-01-01T00:00:00.000000Zab\n",
            "2026-01-01 00:00:00.000000Zab",
            "٢026-01-01T00:00:00.000000Zab",
        ] {
            assert_eq!(decode_cursor(bad), None, "{bad:?}");
        }
        assert!(decode_cursor(&format!("{at}{}", "a".repeat(37))).is_none());
    }
}
