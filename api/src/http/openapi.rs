//! `GET /api/v1/openapi.json`: the OpenAPI 3 description, generated from the handlers'
//! annotations and the types they serve, so it cannot drift from the code.
//!
//! The error answers that many routes share (bad body, no session, no such game, rate limited,
//! busy) are defined once here, as `IntoResponses` types the handlers list in `responses(...)`.

use axum::routing::get;
use axum::{Json, Router};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{IntoResponses, Modify, OpenApi};

use super::{games, health, hint, play, records, replay, sessions, view};
use crate::error::{ErrorBody, ErrorDetail};
use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(title = "Gomoku API", description = "Gomoku games: play, save and resume, undo, replay, export and import."),
    paths(
        health::health,
        sessions::create,
        games::create,
        games::list,
        games::read,
        games::delete,
        play::play,
        play::undo,
        play::resign,
        hint::hint,
        replay::replay,
        records::export,
        records::import,
        spec,
    ),
    components(schemas(ErrorBody, ErrorDetail, view::GameState, view::GameSummary)),
    modifiers(&BearerAuth),
    tags(
        (name = "sessions", description = "Bearer tokens"),
        (name = "games", description = "Create, list, read and delete games"),
        (name = "play", description = "Moves, undo, resign and hints"),
        (name = "replay", description = "Step through a game"),
        (name = "records", description = "Export and import game records"),
    )
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

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
#[response(status = 401, description = "UNAUTHORIZED")]
pub struct Unauthorized(pub ErrorBody);

/// 404 on a route naming a game.
#[derive(IntoResponses)]
#[response(status = 404, description = "GAME_NOT_FOUND")]
pub struct GameNotFound(pub ErrorBody);

/// 429 on a write.
#[derive(IntoResponses)]
#[response(status = 429, description = "RATE_LIMITED")]
pub struct RateLimited(pub ErrorBody);

/// 503 when the database stays busy.
#[derive(IntoResponses)]
#[response(status = 503, description = "BUSY")]
pub struct Busy(pub ErrorBody);

/// 503 on a route that may also wait for the AI.
#[derive(IntoResponses)]
#[response(status = 503, description = "BUSY or AI_BUSY")]
pub struct BusyOrAiBusy(pub ErrorBody);

pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/openapi.json", get(spec))
}

/// This description.
#[utoipa::path(
    get, path = "/api/v1/openapi.json", tag = "health",
    responses((status = 200, description = "The OpenAPI description", body = Object))
)]
pub async fn spec() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every route the API serves is described, with the error shape among the schemas.
    #[test]
    fn covers_every_path() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        for path in [
            "/healthz",
            "/api/v1/sessions",
            "/api/v1/games",
            "/api/v1/games/{id}",
            "/api/v1/games/{id}/moves",
            "/api/v1/games/{id}/undo",
            "/api/v1/games/{id}/resign",
            "/api/v1/games/{id}/hint",
            "/api/v1/games/{id}/replay",
            "/api/v1/games/{id}/export",
            "/api/v1/games/import",
            "/api/v1/openapi.json",
        ] {
            assert!(doc["paths"].get(path).is_some(), "{path} missing");
        }
        assert!(doc["components"]["schemas"].get("ErrorBody").is_some());
        assert!(doc["components"]["securitySchemes"].get("bearer").is_some());
    }
}
