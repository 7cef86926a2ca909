//! The games resource: create (local, against the AI, or online), list (the saved-games list:
//! the games where the caller has a seat), read and delete.
//!
//! Who may see a game: a local or ai game its owner only (anyone else gets 404, as if there were
//! no such game); an online game its two players, and anyone holding its id as a spectator
//! ([`Games::load`](crate::games::Games::load)). Reading the body of a new game is this
//! module's; making it is the game service's.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use gomoku_engine::Level;
use gomoku_rules::opening::Seat as OpeningSeat;
use gomoku_rules::{OpeningRule, Rule, Stone};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::auth::Player;
use super::error::{ApiError, ErrorBody};
use super::extract::{GameId, JsonBody, Whole};
use super::responses::{BadBody, Busy, BusyOrAiBusy, GameNotFound, RateLimited, Unauthorized};
use super::view::{render, GameState, GameSummary};
use super::wire::{LevelName, OpeningRuleName, RuleName, SeatName};
use crate::games::{OpeningSetting, Settings};
use crate::state::AppState;
use crate::store::games::{self, AiSetting, Mode, OnlineSetup, StatusFilter, TimeControl};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/games", get(list).post(create))
        .route("/api/v1/games/{id}", get(read).delete(delete))
}

/// Settings of a new game. A local game (the default) takes no `ai`; an AI game names
/// `"mode": "ai"` and needs `ai`; an online game names `"mode": "online"` and may take `seat` and
/// `timeControl`. The names are read with their types' `FromStr`, so a name the server does not
/// know is 422 INVALID_SETTINGS; a field it does not know at all is 400 INVALID_JSON, as the
/// description's `additionalProperties: false` says.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateGame {
    pub mode: Option<String>,
    pub rule: Option<String>,
    pub board_size: Option<Whole>,
    pub ai: Option<AiRequest>,
    pub seat: Option<String>,
    pub time_control: Option<TimeControlRequest>,
    pub opening: Option<String>,
    pub opening_seat: Option<String>,
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

/// "online"
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnlineMode {
    Online,
}

/// The creator's colour in an online game; "random" (the default) draws it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatChoice {
    Black,
    White,
    Random,
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
#[serde(rename_all = "camelCase", deny_unknown_fields)]
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
    /// An opening rule: "swap2" (freestyle, standard) or "taraguchi10" (renju); none by default.
    /// With one, the opening decides the colours and `ai.player` is ignored.
    #[schema(value_type = Option<OpeningRuleName>)]
    opening: Option<String>,
    /// With `opening`: the person's seat, "first" (the default: the person starts the opening)
    /// or "second".
    #[schema(value_type = Option<SeatName>)]
    opening_seat: Option<String>,
}

/// A game against a friend on another device: it waits (`status: "waiting"`) until a second
/// player joins.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
pub struct CreateOnlineGame {
    #[schema(inline)]
    mode: OnlineMode,
    /// Default "freestyle".
    #[schema(value_type = Option<RuleName>)]
    rule: Option<String>,
    /// 9 to 19, default 15.
    #[schema(minimum = 9, maximum = 19)]
    board_size: Option<i64>,
    /// The creator's colour; default "random".
    #[schema(inline)]
    seat: Option<SeatChoice>,
    /// Fischer clocks; absent for an untimed game.
    time_control: Option<TimeControlRequest>,
    /// An opening rule: "swap2" (freestyle, standard) or "taraguchi10" (renju); none by default.
    /// With one, the creator is the opening's first seat and `seat` may only be "random".
    #[schema(value_type = Option<OpeningRuleName>)]
    opening: Option<String>,
}

/// Settings of a new game: a local game, a game against the AI, or an online game.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum CreateGameBody {
    Local(CreateLocalGame),
    Ai(CreateAiGame),
    Online(CreateOnlineGame),
}

/// A time control: each side's time at the start (1 s to 24 h), and what each move adds to the
/// mover's clock (0 to 60 s).
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TimeControlRequest {
    #[schema(value_type = i64, minimum = 1000, maximum = 86400000)]
    pub initial_ms: Whole,
    #[schema(value_type = i64, minimum = 0, maximum = 60000)]
    pub increment_ms: Whole,
}

/// The AI's settings in a new game.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AiRequest {
    #[schema(value_type = LevelName)]
    pub level: String,
    /// The AI's colour, 1 black or 2 white (black moves first). Required without an opening
    /// rule; ignored with one (the opening decides the colours).
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 2)]
    pub player: Option<Whole>,
}

impl CreateGame {
    pub fn settings(&self) -> Result<Settings, ApiError> {
        let invalid = |m: &str| ApiError::InvalidSettings(m.to_string());
        let mode = match &self.mode {
            None => Mode::Local,
            Some(m) => m
                .parse()
                .map_err(|_| invalid("mode must be \"local\", \"ai\" or \"online\""))?,
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
        let opening = match self.opening.as_deref() {
            None => None,
            Some(name) => Some(
                name.parse::<OpeningRule>()
                    .map_err(|_| invalid("opening must be \"swap2\" or \"taraguchi10\""))?,
            ),
        };
        if let Some(opening) = opening {
            if mode == Mode::Local {
                return Err(invalid(
                    "an opening rule is for modes \"online\" and \"ai\"",
                ));
            }
            if !opening.suits(rule) {
                return Err(invalid(
                    "swap2 is played under freestyle and standard, taraguchi10 under renju",
                ));
            }
        }
        let person_seat = match (self.opening_seat.as_deref(), opening, mode) {
            (None, _, _) => OpeningSeat::First,
            (Some(seat), Some(_), Mode::Ai) => seat
                .parse()
                .map_err(|_| invalid("openingSeat must be \"first\" or \"second\""))?,
            (Some(_), _, _) => {
                return Err(invalid(
                    "openingSeat is only for mode \"ai\" with an opening",
                ))
            }
        };
        let ai = match (mode, &self.ai) {
            (Mode::Local | Mode::Online, None) => None,
            (Mode::Local | Mode::Online, Some(_)) => {
                return Err(invalid("ai settings are only for mode \"ai\""))
            }
            (Mode::Ai, None) => return Err(invalid("mode \"ai\" needs ai settings")),
            (Mode::Ai, Some(ai)) => Some(AiSetting {
                level: ai.level.parse::<Level>().map_err(|_| {
                    invalid("ai.level must be \"easy\", \"medium\", \"hard\" or \"master\"")
                })?,
                player: match ai.player {
                    Some(Whole(player)) => u8::try_from(player)
                        .ok()
                        .and_then(Stone::from_u8)
                        .ok_or_else(|| invalid("ai.player must be 1 or 2"))?,
                    // The opening decides it (see `Games::create`).
                    None if opening.is_some() => Stone::Black,
                    // Required without an opening (a rule the description cannot state, so it
                    // is a setting refused, not a body of the wrong shape).
                    None => return Err(invalid("ai.player is required without an opening")),
                },
            }),
        };
        let online = match mode {
            Mode::Online => Some(OnlineSetup {
                seat: match self.seat.as_deref() {
                    // The creator is the opening's first seat, black until a swap.
                    Some("black" | "white") if opening.is_some() => {
                        return Err(invalid(
                            "with an opening the opening decides the colours: no seat",
                        ))
                    }
                    None | Some("random") => {
                        if rand::random() {
                            Stone::Black
                        } else {
                            Stone::White
                        }
                    }
                    Some("black") => Stone::Black,
                    Some("white") => Stone::White,
                    Some(_) => {
                        return Err(invalid("seat must be \"black\", \"white\" or \"random\""))
                    }
                },
                time_control: self.time_control.map(time_control).transpose()?,
            }),
            Mode::Local | Mode::Ai if self.seat.is_some() || self.time_control.is_some() => {
                return Err(invalid("seat and timeControl are only for mode \"online\""))
            }
            Mode::Local | Mode::Ai => None,
        };
        Ok(Settings {
            mode,
            rule,
            board_size,
            ai,
            online,
            opening: opening.map(|rule| OpeningSetting {
                rule,
                ai_seat: person_seat.other(),
            }),
        })
    }
}

/// A time control within its documented ranges.
fn time_control(request: TimeControlRequest) -> Result<TimeControl, ApiError> {
    let (initial_ms, increment_ms) = (request.initial_ms.0, request.increment_ms.0);
    if !TimeControl::INITIAL_MS.contains(&initial_ms) {
        return Err(ApiError::InvalidSettings(
            "timeControl.initialMs must be between 1000 (1 s) and 86400000 (24 h)".into(),
        ));
    }
    if !TimeControl::INCREMENT_MS.contains(&increment_ms) {
        return Err(ApiError::InvalidSettings(
            "timeControl.incrementMs must be between 0 and 60000 (60 s)".into(),
        ));
    }
    Ok(TimeControl {
        initial_ms,
        increment_ms,
    })
}

/// Create a game. If the AI plays black, its first move is already made. An online game waits
/// for its second player (`status: "waiting"`); share its id, which the friend joins. An online
/// or ai game may start with an opening rule (`opening`); when the AI holds the first seat its
/// first opening steps are already taken.
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
    let created = state.games.create(&player.id, settings).await?;
    Ok((
        StatusCode::CREATED,
        Json(render(&state, &created, &player).await?),
    ))
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
    /// "playing" (unfinished: online games still waiting included) or "finished"; all games
    /// when absent.
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

/// The caller's games (local and ai games of theirs, online games where they have a seat),
/// newest activity first.
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
    let now = OffsetDateTime::now_utc();
    let mut games = Vec::with_capacity(rows.len());
    for row in rows {
        let presence = state.hub.presence(&row.row.id);
        let rated = state.rated.of(&row.row, &row.seats).await?;
        games.push(GameSummary::new(
            row,
            &player.id,
            presence,
            now,
            rated.as_deref(),
        ));
    }
    Ok(Json(GameList { games, next_cursor }))
}

/// One game's state: a game of the caller's, or any online game (a spectator's view, `you`
/// null).
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
    let stored = state.games.load(&player.id, &id).await?;
    Ok(Json(render(&state, &stored, &player).await?))
}

/// Delete a game and its moves: a local or ai game of the caller's, or an online game of theirs
/// still waiting for its second player (cancelling the invitation). An online game with two
/// players belongs to both and stays.
#[utoipa::path(
    delete, path = "/api/v1/games/{id}", tag = "games",
    params(("id" = String, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        Unauthorized,
        (status = 403, description = "NOT_A_PLAYER: a spectator's", body = ErrorBody),
        GameNotFound,
        (status = 409, description = "SHARED_GAME: an online game with two players", body = ErrorBody),
        RateLimited,
        Busy,
    )
)]
pub async fn delete(
    State(state): State<AppState>,
    player: Player,
    GameId(id): GameId,
) -> Result<StatusCode, ApiError> {
    state.games.delete(&player.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store;

    fn settings(json: &str) -> Result<Settings, ApiError> {
        serde_json::from_str::<CreateGame>(json).unwrap().settings()
    }

    /// An empty body gives the documented defaults.
    #[test]
    fn defaults() {
        let s = settings("{}").unwrap();
        assert_eq!(
            (s.mode, s.rule, s.board_size, s.ai, s.online),
            (Mode::Local, Rule::Freestyle, 15, None, None)
        );
    }

    /// An online game takes a seat (drawn when random or absent) and an optional time control
    /// within its ranges; neither is for another mode.
    #[test]
    fn online_settings() {
        let s = settings(
            r#"{"mode":"online","seat":"white","timeControl":{"initialMs":300000,"incrementMs":5000}}"#,
        )
        .unwrap();
        assert_eq!(
            s.online,
            Some(OnlineSetup {
                seat: Stone::White,
                time_control: Some(TimeControl {
                    initial_ms: 300_000,
                    increment_ms: 5_000
                })
            })
        );
        let untimed = settings(r#"{"mode":"online"}"#).unwrap().online.unwrap();
        assert_eq!(untimed.time_control, None);
        for body in [
            r#"{"mode":"online","seat":"red"}"#,
            r#"{"mode":"online","timeControl":{"initialMs":999,"incrementMs":0}}"#,
            r#"{"mode":"online","timeControl":{"initialMs":86400001,"incrementMs":0}}"#,
            r#"{"mode":"online","timeControl":{"initialMs":60000,"incrementMs":60001}}"#,
            r#"{"mode":"online","timeControl":{"initialMs":60000,"incrementMs":-1}}"#,
            r#"{"mode":"online","ai":{"level":"easy","player":2}}"#,
            r#"{"mode":"local","seat":"black"}"#,
            r#"{"timeControl":{"initialMs":60000,"incrementMs":0}}"#,
        ] {
            assert!(
                matches!(settings(body), Err(ApiError::InvalidSettings(_))),
                "{body}"
            );
        }
    }

    /// Values outside the documented sets are INVALID_SETTINGS, not silently replaced.
    #[test]
    fn invalid_settings() {
        for body in [
            r#"{"mode":"remote"}"#,
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

    /// AI settings are read, master included; both of their fields are required (the colour
    /// only without an opening, which decides it: leaving it out otherwise is a setting refused,
    /// as the description makes it optional).
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
        assert!(serde_json::from_str::<CreateGame>(r#"{"mode":"ai","ai":{}}"#).is_err());
        assert!(matches!(
            settings(r#"{"mode":"ai","ai":{"level":"easy"}}"#),
            Err(ApiError::InvalidSettings(_))
        ));
        let s = settings(r#"{"mode":"ai","opening":"swap2","ai":{"level":"easy"}}"#).unwrap();
        assert_eq!(s.opening.map(|o| o.ai_seat), Some(OpeningSeat::Second));
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
