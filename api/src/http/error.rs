//! The HTTP edge's one error type and its one JSON shape:
//! `{"error": {"code": "GAME_OVER", "message": "...", ...extra}}`.
//!
//! Handlers return `Result<_, ApiError>`; extractor rejections (bad JSON, bad path, bad query)
//! are turned into variants here too, so every failure a client sees has the same shape, and so
//! are the errors of the layers below (the game service's, the sessions', the store's, the AI's).
//! Internal errors are logged with their cause and shown only as a generic 500.

use std::time::Duration;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use gomoku_rules::ForbiddenKind;
use serde::Serialize;
use utoipa::ToSchema;

use super::view::GameState;
use crate::ai::AiError;
use crate::auth::SessionError;
use crate::games;
use crate::limits::RateLimited;
use crate::online::offers::OfferError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the body is not JSON, or has wrong types, missing or unknown fields, or a value
    /// outside its described shape (a negative `ply`).
    #[error("the request body is not valid JSON for this endpoint: {0}")]
    InvalidJson(String),
    /// 400: a query parameter is unknown in value, out of range or malformed.
    #[error("invalid query: {0}")]
    InvalidQuery(String),
    /// 401: no valid bearer token: none, malformed, never issued, or ended (or a failed WeChat
    /// code exchange).
    #[error("a valid bearer token is required")]
    Unauthorized,
    /// 401: the token names a session that went unused for too long.
    #[error("the session has expired; start a new one, naming this token as previousToken")]
    SessionExpired,
    /// 403: the caller does not sit at this online game (a spectator may read and watch it only).
    #[error("only the game's players may do this")]
    NotAPlayer,
    /// 404: the id names no game the caller may see (another player's local or ai game is as
    /// good as none).
    #[error("no such game")]
    GameNotFound,
    /// 404: no analysis of this game was ever started (POST starts one).
    #[error("this game has not been analysed; POST to start an analysis")]
    AnalysisNotFound,
    /// 404: no such route.
    #[error("no such route")]
    NotFound,
    /// 404: `GET /seeks` while the caller waits in no pool.
    #[error("you are not seeking a game")]
    NotSeeking,
    /// 404: the id names no player.
    #[error("no such player")]
    PlayerNotFound,
    /// 409: a seek in one pool while the caller waits in another: leave that one first.
    #[error("you already seek a game in pool {0}; leave it first")]
    AlreadySeeking(String),
    /// 405: the route exists but not for this method.
    #[error("method not allowed on this route")]
    MethodNotAllowed,
    /// 408: the request took longer than the server's request timeout.
    #[error("the request took too long")]
    RequestTimeout,
    /// 409: the cell already holds a stone.
    #[error("the cell is already occupied")]
    CellOccupied,
    /// 409: the game is finished (or resigned, for undo).
    #[error("the game is over")]
    GameOver,
    /// 409 GAME_OVER, with the game as it ended: a write on an online game that is over (the
    /// flag may have fallen just before the request arrived).
    #[error("the game is over")]
    GameOverWith(Box<GameState>),
    /// 409: it is the other player's turn.
    #[error("it is the other player's turn")]
    NotYourTurn,
    /// 409: the online game still waits for its second player.
    #[error("the game waits for a second player to join")]
    WaitingForOpponent,
    /// 409: both seats of the online game are taken.
    #[error("both seats of this game are taken")]
    GameFull,
    /// 409: online games have no plain undo; offer a takeback instead.
    #[error("in an online game a move is taken back by a takeback the opponent accepts")]
    TakebackRequired,
    /// 409: an online game with two players belongs to both and cannot be deleted.
    #[error("this game belongs to both of its players and cannot be deleted")]
    SharedGame,
    /// 409: joining, takeback, draw and rematch offers are for online games.
    #[error("only online games have seats and offers; use undo and resign")]
    OnlineOnly,
    /// 409: no hints in a game against a person.
    #[error("hints are off in games against a person")]
    HintsDisabled,
    /// 409: an analysis of another of the caller's games is still running.
    #[error("another analysis of yours is still running; start this one when it is done")]
    AnalysisRunning,
    /// 409: an online game is analysed once it is over (an analysis must not help a player
    /// against a person), and rematched once it is over.
    #[error("an online game can be analysed once it is over")]
    GameNotOver,
    /// 409: the client's `ply` does not match the game.
    #[error("ply {ply} does not match the {move_count} moves on the board")]
    PlyMismatch { ply: usize, move_count: usize },
    /// 409: the game changed while the AI was thinking of its reply; nothing was played (the
    /// AI does not search twice for one request).
    #[error("the game changed while the AI was thinking; nothing was played, reload the game")]
    GameChanged,
    /// 409: no move to take back.
    #[error("there is no move to undo")]
    NothingToUndo,
    /// 409: accept or decline with no standing offer of that kind from the opponent, or
    /// withdraw with none of one's own (it was answered, withdrawn, cleared by a move, or lapsed).
    #[error("there is no standing offer of this kind to act on")]
    NoOffer,
    /// 409: an offer while the opponent's offer of that kind stands: accept or decline it first.
    #[error("the opponent's offer of this kind stands: accept or decline it first")]
    OfferPending,
    /// 409: the player already has the maximum number of unfinished games.
    #[error("too many unfinished games (at most {0})")]
    TooManyGames(u32),
    /// 413: the body is larger than the limit.
    #[error("the request body is too large")]
    PayloadTooLarge,
    /// 415: a body without `Content-Type: application/json`.
    #[error("expected a body with Content-Type: application/json")]
    UnsupportedMediaType,
    /// 422: the point lies outside the board.
    #[error("the point is outside the board")]
    OutOfBounds,
    /// 422: the move is forbidden for black under renju.
    #[error("the move is forbidden for black: {}", .0.as_str())]
    ForbiddenMove(ForbiddenKind),
    /// 422: no pool has this rule, board size and time control.
    #[error("no pool plays this rule, board size and time control")]
    UnknownPool,
    /// 422: the game settings are not valid.
    #[error("invalid settings: {0}")]
    InvalidSettings(String),
    /// 422: the display name is empty once spaces and invisible characters are removed, longer
    /// than 16 characters, or has a character that does not show (`store::players::Name`).
    #[error("invalid name: {0}")]
    InvalidName(String),
    /// 426: `GET /live` without a WebSocket upgrade.
    #[error("this endpoint is a WebSocket: send the upgrade headers")]
    UpgradeRequired,
    /// 422: the imported record is not valid; `move_index` names the move to blame.
    #[error("invalid record: {message}")]
    InvalidRecord {
        message: String,
        move_index: Option<usize>,
    },
    /// 429: too many writes or hints for this token, or new sessions from this address; retry
    /// after the given time.
    #[error("too many requests")]
    RateLimited { retry_after: Duration },
    /// 429: the token already holds as many live connections as allowed.
    #[error("too many live connections for this token (at most {0})")]
    TooManyConnections(usize),
    /// 503: the database stayed locked by another writer past the busy timeout.
    #[error("the database is busy, try again")]
    Busy,
    /// 503: no AI slot came free for the request within the queue timeout (the queue serves
    /// players in turn, one search each at a time).
    #[error("the AI is busy, try again")]
    AiBusy,
    /// 500: anything else; the cause goes to the log only.
    #[error("internal error")]
    Internal(String),
}

/// The error shape as documented in the OpenAPI description.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// One error: a stable code, a human message, and per-code extras.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Stable machine-readable code, e.g. `GAME_OVER`.
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
    /// With FORBIDDEN_MOVE: "double_three", "double_four" or "overline".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// With INVALID_RECORD when a move is to blame: its 0-based index.
    #[serde(rename = "moveIndex", skip_serializing_if = "Option::is_none")]
    pub move_index: Option<usize>,
    /// With PLY_MISMATCH: the number of moves on the board.
    #[serde(rename = "moveCount", skip_serializing_if = "Option::is_none")]
    pub move_count: Option<usize>,
    /// With RATE_LIMITED: seconds to wait (also in the Retry-After header).
    #[serde(rename = "retryAfter", skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
    /// With GAME_OVER on a write to an online game: the game as it ended (for a flag that fell
    /// before the request arrived, the timed-out state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<Box<GameState>>,
}

impl ApiError {
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        ApiError::Internal(cause.to_string())
    }

    pub fn status(&self) -> StatusCode {
        use ApiError::*;
        match self {
            InvalidJson(_) | InvalidQuery(_) => StatusCode::BAD_REQUEST,
            Unauthorized | SessionExpired => StatusCode::UNAUTHORIZED,
            NotAPlayer => StatusCode::FORBIDDEN,
            GameNotFound | AnalysisNotFound | NotFound | NotSeeking | PlayerNotFound => {
                StatusCode::NOT_FOUND
            }
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            CellOccupied
            | GameOver
            | GameOverWith(_)
            | NotYourTurn
            | WaitingForOpponent
            | GameFull
            | TakebackRequired
            | SharedGame
            | OnlineOnly
            | HintsDisabled
            | AnalysisRunning
            | GameNotOver
            | PlyMismatch { .. }
            | GameChanged
            | NothingToUndo
            | NoOffer
            | OfferPending
            | TooManyGames(_)
            | AlreadySeeking(_) => StatusCode::CONFLICT,
            PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            OutOfBounds
            | UnknownPool
            | ForbiddenMove(_)
            | InvalidSettings(_)
            | InvalidName(_)
            | InvalidRecord { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            UpgradeRequired => StatusCode::UPGRADE_REQUIRED,
            RateLimited { .. } | TooManyConnections(_) => StatusCode::TOO_MANY_REQUESTS,
            Busy | AiBusy => StatusCode::SERVICE_UNAVAILABLE,
            Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        use ApiError::*;
        match self {
            InvalidJson(_) => "INVALID_JSON",
            InvalidQuery(_) => "INVALID_QUERY",
            Unauthorized => "UNAUTHORIZED",
            SessionExpired => "SESSION_EXPIRED",
            NotAPlayer => "NOT_A_PLAYER",
            GameNotFound => "GAME_NOT_FOUND",
            AnalysisNotFound => "ANALYSIS_NOT_FOUND",
            NotFound => "NOT_FOUND",
            NotSeeking => "NOT_SEEKING",
            PlayerNotFound => "PLAYER_NOT_FOUND",
            AlreadySeeking(_) => "ALREADY_SEEKING",
            UnknownPool => "UNKNOWN_POOL",
            MethodNotAllowed => "METHOD_NOT_ALLOWED",
            RequestTimeout => "REQUEST_TIMEOUT",
            CellOccupied => "CELL_OCCUPIED",
            GameOver | GameOverWith(_) => "GAME_OVER",
            NotYourTurn => "NOT_YOUR_TURN",
            WaitingForOpponent => "WAITING_FOR_OPPONENT",
            GameFull => "GAME_FULL",
            TakebackRequired => "TAKEBACK_REQUIRED",
            SharedGame => "SHARED_GAME",
            OnlineOnly => "ONLINE_ONLY",
            HintsDisabled => "HINTS_DISABLED",
            AnalysisRunning => "ANALYSIS_RUNNING",
            GameNotOver => "GAME_NOT_OVER",
            PlyMismatch { .. } => "PLY_MISMATCH",
            GameChanged => "GAME_CHANGED",
            NothingToUndo => "NOTHING_TO_UNDO",
            NoOffer => "NO_OFFER",
            OfferPending => "OFFER_PENDING",
            TooManyGames(_) => "TOO_MANY_GAMES",
            PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            OutOfBounds => "OUT_OF_BOUNDS",
            ForbiddenMove(_) => "FORBIDDEN_MOVE",
            InvalidSettings(_) => "INVALID_SETTINGS",
            InvalidName(_) => "INVALID_NAME",
            InvalidRecord { .. } => "INVALID_RECORD",
            UpgradeRequired => "UPGRADE_REQUIRED",
            RateLimited { .. } => "RATE_LIMITED",
            TooManyConnections(_) => "TOO_MANY_CONNECTIONS",
            Busy => "BUSY",
            AiBusy => "AI_BUSY",
            Internal(_) => "INTERNAL",
        }
    }

    /// The JSON body of this error.
    pub fn body(&self) -> ErrorBody {
        let message = match self {
            // The cause of an internal error is for the log, never for the client.
            ApiError::Internal(_) => "internal error".to_string(),
            other => other.to_string(),
        };
        let mut detail = ErrorDetail {
            code: self.code().to_string(),
            message,
            kind: None,
            move_index: None,
            move_count: None,
            retry_after: None,
            game: None,
        };
        match self {
            ApiError::ForbiddenMove(kind) => detail.kind = Some(kind.as_str().to_string()),
            ApiError::InvalidRecord { move_index, .. } => detail.move_index = *move_index,
            ApiError::PlyMismatch { move_count, .. } => detail.move_count = Some(*move_count),
            ApiError::RateLimited { retry_after } => {
                detail.retry_after = Some(retry_secs(*retry_after))
            }
            ApiError::GameOverWith(game) => detail.game = Some(game.clone()),
            _ => {}
        }
        ErrorBody { error: detail }
    }
}

/// Whole seconds to wait, rounded up and at least one (Retry-After takes integers).
fn retry_secs(wait: Duration) -> u64 {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    secs.max(1)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(cause) = &self {
            tracing::error!(%cause, "internal error");
        }
        let mut response = (self.status(), Json(self.body())).into_response();
        if let ApiError::RateLimited { retry_after } = &self {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(retry_secs(*retry_after)),
            );
        }
        response
    }
}

/// The game service's refusals. A game over that carries its game becomes plain GAME_OVER here:
/// the handlers that answer with the game render it for their caller first
/// ([`answer`](super::view::answer)).
impl From<games::Error> for ApiError {
    fn from(e: games::Error) -> ApiError {
        use games::Error as E;
        match e {
            E::NotFound => ApiError::GameNotFound,
            E::NotAPlayer => ApiError::NotAPlayer,
            E::OnlineOnly => ApiError::OnlineOnly,
            E::WaitingForOpponent => ApiError::WaitingForOpponent,
            E::GameOver { .. } => ApiError::GameOver,
            E::NotYourTurn => ApiError::NotYourTurn,
            E::GameFull => ApiError::GameFull,
            E::TakebackRequired => ApiError::TakebackRequired,
            E::SharedGame => ApiError::SharedGame,
            E::GameNotOver => ApiError::GameNotOver,
            E::PlyMismatch { ply, move_count } => ApiError::PlyMismatch { ply, move_count },
            E::GameChanged => ApiError::GameChanged,
            E::NothingToUndo => ApiError::NothingToUndo,
            E::Offer(e) => e.into(),
            E::OutOfBounds => ApiError::OutOfBounds,
            E::CellOccupied => ApiError::CellOccupied,
            E::Forbidden(kind) => ApiError::ForbiddenMove(kind),
            E::TooManyGames(cap) => ApiError::TooManyGames(cap),
            E::InvalidSettings(why) => ApiError::InvalidSettings(why),
            E::Busy => ApiError::Busy,
            E::Store(e) => e.into(),
            E::Ai(e) => e.into(),
            E::Internal(cause) => ApiError::Internal(cause),
        }
    }
}

impl From<OfferError> for ApiError {
    fn from(e: OfferError) -> ApiError {
        match e {
            OfferError::NoOffer => ApiError::NoOffer,
            OfferError::OfferPending => ApiError::OfferPending,
        }
    }
}

impl From<SessionError> for ApiError {
    fn from(e: SessionError) -> ApiError {
        match e {
            SessionError::Unknown => ApiError::Unauthorized,
            SessionError::Expired => ApiError::SessionExpired,
            SessionError::Store(e) => e.into(),
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        match rejection {
            JsonRejection::MissingJsonContentType(_) => ApiError::UnsupportedMediaType,
            // A body cut off by the size limit surfaces as a failed read with status 413.
            other if other.status() == StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
            other => ApiError::InvalidJson(other.body_text()),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::InvalidQuery(rejection.body_text())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Busy => {
                tracing::warn!("database busy");
                ApiError::Busy
            }
            other => ApiError::internal(other),
        }
    }
}

impl From<AiError> for ApiError {
    fn from(e: AiError) -> ApiError {
        match e {
            AiError::Busy => ApiError::AiBusy,
            other => ApiError::internal(other),
        }
    }
}

impl From<RateLimited> for ApiError {
    fn from(limited: RateLimited) -> ApiError {
        ApiError::RateLimited {
            retry_after: limited.retry_after,
        }
    }
}

/// Builds the JSON body for a status produced outside our handlers (a layer's 413, 405, 408).
pub fn body_for_status(status: StatusCode) -> Option<ApiError> {
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => Some(ApiError::PayloadTooLarge),
        StatusCode::METHOD_NOT_ALLOWED => Some(ApiError::MethodNotAllowed),
        StatusCode::REQUEST_TIMEOUT => Some(ApiError::RequestTimeout),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => Some(ApiError::UnsupportedMediaType),
        StatusCode::NOT_FOUND => Some(ApiError::NotFound),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The body of an error as JSON.
    fn to_value(e: &ApiError) -> Value {
        serde_json::to_value(e.body()).unwrap()
    }

    /// Every variant maps to the status and code the API documents.
    #[test]
    fn statuses_and_codes() {
        let cases: Vec<(ApiError, u16, &str)> = vec![
            (ApiError::InvalidJson("x".into()), 400, "INVALID_JSON"),
            (ApiError::InvalidQuery("x".into()), 400, "INVALID_QUERY"),
            (ApiError::Unauthorized, 401, "UNAUTHORIZED"),
            (ApiError::SessionExpired, 401, "SESSION_EXPIRED"),
            (ApiError::NotAPlayer, 403, "NOT_A_PLAYER"),
            (ApiError::GameNotFound, 404, "GAME_NOT_FOUND"),
            (ApiError::AnalysisNotFound, 404, "ANALYSIS_NOT_FOUND"),
            (ApiError::NotFound, 404, "NOT_FOUND"),
            (ApiError::NotSeeking, 404, "NOT_SEEKING"),
            (ApiError::PlayerNotFound, 404, "PLAYER_NOT_FOUND"),
            (ApiError::AlreadySeeking("x".into()), 409, "ALREADY_SEEKING"),
            (ApiError::UnknownPool, 422, "UNKNOWN_POOL"),
            (ApiError::MethodNotAllowed, 405, "METHOD_NOT_ALLOWED"),
            (ApiError::CellOccupied, 409, "CELL_OCCUPIED"),
            (ApiError::GameOver, 409, "GAME_OVER"),
            (ApiError::NotYourTurn, 409, "NOT_YOUR_TURN"),
            (ApiError::WaitingForOpponent, 409, "WAITING_FOR_OPPONENT"),
            (ApiError::GameFull, 409, "GAME_FULL"),
            (ApiError::TakebackRequired, 409, "TAKEBACK_REQUIRED"),
            (ApiError::SharedGame, 409, "SHARED_GAME"),
            (ApiError::OnlineOnly, 409, "ONLINE_ONLY"),
            (ApiError::HintsDisabled, 409, "HINTS_DISABLED"),
            (ApiError::AnalysisRunning, 409, "ANALYSIS_RUNNING"),
            (ApiError::GameNotOver, 409, "GAME_NOT_OVER"),
            (ApiError::InvalidName("x".into()), 422, "INVALID_NAME"),
            (ApiError::UpgradeRequired, 426, "UPGRADE_REQUIRED"),
            (ApiError::TooManyConnections(8), 429, "TOO_MANY_CONNECTIONS"),
            (
                ApiError::PlyMismatch {
                    ply: 3,
                    move_count: 2,
                },
                409,
                "PLY_MISMATCH",
            ),
            (ApiError::GameChanged, 409, "GAME_CHANGED"),
            (ApiError::NothingToUndo, 409, "NOTHING_TO_UNDO"),
            (ApiError::TooManyGames(100), 409, "TOO_MANY_GAMES"),
            (ApiError::PayloadTooLarge, 413, "PAYLOAD_TOO_LARGE"),
            (
                ApiError::UnsupportedMediaType,
                415,
                "UNSUPPORTED_MEDIA_TYPE",
            ),
            (ApiError::OutOfBounds, 422, "OUT_OF_BOUNDS"),
            (
                ApiError::ForbiddenMove(ForbiddenKind::Overline),
                422,
                "FORBIDDEN_MOVE",
            ),
            (
                ApiError::InvalidSettings("x".into()),
                422,
                "INVALID_SETTINGS",
            ),
            (
                ApiError::InvalidRecord {
                    message: "x".into(),
                    move_index: None,
                },
                422,
                "INVALID_RECORD",
            ),
            (
                ApiError::RateLimited {
                    retry_after: Duration::from_millis(10),
                },
                429,
                "RATE_LIMITED",
            ),
            (ApiError::Busy, 503, "BUSY"),
            (ApiError::AiBusy, 503, "AI_BUSY"),
            (ApiError::Internal("secret cause".into()), 500, "INTERNAL"),
        ];
        for (error, status, code) in cases {
            assert_eq!(error.status().as_u16(), status, "{code}");
            assert_eq!(to_value(&error)["error"]["code"], code);
        }
    }

    /// Extras appear only on the codes that carry them; internal causes never leak.
    #[test]
    fn extras_and_no_leaks() {
        let forbidden = to_value(&ApiError::ForbiddenMove(ForbiddenKind::DoubleThree));
        assert_eq!(forbidden["error"]["kind"], "double_three");
        let record = to_value(&ApiError::InvalidRecord {
            message: "occupied".into(),
            move_index: Some(4),
        });
        assert_eq!(record["error"]["moveIndex"], 4);
        let plain = to_value(&ApiError::GameOver);
        assert!(plain["error"].get("kind").is_none() && plain["error"].get("moveIndex").is_none());
        let internal = to_value(&ApiError::Internal("password=hunter2".into()));
        assert!(!internal.to_string().contains("hunter2"));
    }

    /// A rate-limited answer carries a whole-second Retry-After of at least one.
    #[test]
    fn retry_after_header() {
        let response = ApiError::RateLimited {
            retry_after: Duration::from_millis(1500),
        }
        .into_response();
        assert_eq!(response.headers()[header::RETRY_AFTER], "2");
        let response = ApiError::RateLimited {
            retry_after: Duration::ZERO,
        }
        .into_response();
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
    }

    /// The game service's refusals map to their HTTP codes; a game over carrying its game
    /// becomes plain GAME_OVER unless the handler renders it.
    #[test]
    fn service_errors() {
        use gomoku_rules::PlayError;
        let code = |e: games::Error| ApiError::from(e).code();
        assert_eq!(code(PlayError::Occupied.into()), "CELL_OCCUPIED");
        assert_eq!(code(PlayError::OutOfBounds.into()), "OUT_OF_BOUNDS");
        assert_eq!(code(PlayError::GameOver.into()), "GAME_OVER");
        assert_eq!(
            code(PlayError::Forbidden(ForbiddenKind::DoubleFour).into()),
            "FORBIDDEN_MOVE"
        );
        assert_eq!(code(games::Error::NotFound), "GAME_NOT_FOUND");
        assert_eq!(code(OfferError::OfferPending.into()), "OFFER_PENDING");
        assert_eq!(code(games::Error::Busy), "BUSY");
        assert_eq!(code(games::Error::Store(StoreError::Busy)), "BUSY");
        assert_eq!(code(games::Error::Ai(AiError::Busy)), "AI_BUSY");
        assert_eq!(
            code(games::Error::PlyMismatch {
                ply: 3,
                move_count: 2
            }),
            "PLY_MISMATCH"
        );
    }
}
