//! The error answers that many routes share (bad body, no session, no such game, rate limited,
//! busy), declared once as `IntoResponses` types that the handlers list in their
//! `responses(...)`. They live apart from [`openapi`](super::openapi), which imports the
//! handlers, so that no handler imports the module that imports it.

use utoipa::IntoResponses;

use super::error::ErrorBody;

/// 400, 413 and 415: how a route taking a JSON body refuses a bad one.
#[derive(IntoResponses)]
pub enum BadBody {
    #[response(status = 400, description = "INVALID_JSON")]
    InvalidJson(ErrorBody),
    #[response(status = 413, description = "PAYLOAD_TOO_LARGE")]
    PayloadTooLarge(ErrorBody),
    #[response(status = 415, description = "UNSUPPORTED_MEDIA_TYPE")]
    UnsupportedMediaType(ErrorBody),
}

/// 401 on a route that needs a session.
#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "UNAUTHORIZED (no valid token), or SESSION_EXPIRED (renew it with previousToken)"
)]
pub struct Unauthorized(pub ErrorBody);

/// 404 on a route naming a game.
#[derive(IntoResponses)]
#[response(status = 404, description = "GAME_NOT_FOUND")]
pub struct GameNotFound(pub ErrorBody);

/// 429 on a write, a hint or a new session.
#[derive(IntoResponses)]
#[response(
    status = 429,
    description = "RATE_LIMITED",
    headers(("Retry-After" = u64, description = "Seconds to wait"))
)]
pub struct RateLimited(pub ErrorBody);

/// 503 when the database stays busy.
#[derive(IntoResponses)]
#[response(status = 503, description = "BUSY")]
pub struct Busy(pub ErrorBody);

/// 503 on a route that may also wait for the AI.
#[derive(IntoResponses)]
#[response(status = 503, description = "BUSY or AI_BUSY")]
pub struct BusyOrAiBusy(pub ErrorBody);
