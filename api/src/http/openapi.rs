//! `GET /api/v1/openapi.json`: the OpenAPI 3 description, generated from the handlers'
//! annotations and the types they serve, so it cannot drift from the code.
//!
//! The error answers that many routes share are declared in [`responses`](super::responses),
//! which the handlers import; this module imports the handlers, and nothing imports it but the
//! router.

use axum::routing::get;
use axum::{Json, Router};
use utoipa::openapi::schema::{AdditionalProperties, Schema};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::RefOr;
use utoipa::{Modify, OpenApi};

use super::error::{ErrorBody, ErrorDetail};
use super::{
    analysis, games, health, hint, live, me, online, opening, pairing, play, players, puzzles,
    records, replay, sessions, view,
};
use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(title = "Gomoku API", description = "Gomoku games: play (on one device, against the AI, or online against a friend or a rated opponent from a matchmaking pool), save and resume, undo, replay with a post-game analysis, export and import; ratings, leaderboards and player cards."),
    paths(
        health::health,
        sessions::create,
        sessions::end,
        games::create,
        games::list,
        games::read,
        games::delete,
        play::play,
        play::undo,
        play::resign,
        opening::step,
        online::join,
        online::takeback,
        online::draw,
        online::rematch,
        live::live,
        me::me,
        me::rename,
        hint::hint,
        replay::replay,
        analysis::start_analysis,
        analysis::read_analysis,
        records::export,
        records::import,
        pairing::pools,
        pairing::seek,
        pairing::current_seek,
        pairing::cancel_seek,
        pairing::own_live,
        players::leaderboard,
        players::player_card,
        puzzles::next_puzzle,
        puzzles::daily_puzzle,
        puzzles::read_puzzle,
        puzzles::play_puzzle,
        puzzles::retry_puzzle,
        spec,
    ),
    components(schemas(ErrorBody, ErrorDetail, view::GameState, view::GameSummary)),
    modifiers(&BearerAuth, &PatchMe, &ClosedSteps),
    tags(
        (name = "sessions", description = "Bearer tokens"),
        (name = "games", description = "Create, list, read and delete games"),
        (name = "play", description = "Moves, undo, resign and hints"),
        (name = "online", description = "Online games: join, takeback, draw and rematch offers, the live WebSocket"),
        (name = "players", description = "The caller's display name, leaderboards and player cards"),
        (name = "matchmaking", description = "Rated games: the pools, seeking, and the player's own live channel"),
        (name = "replay", description = "A finished or unfinished game's moves, for a replay"),
        (name = "analysis", description = "Post-game analysis: each move's evaluation, the engine's better move and a mark"),
        (name = "records", description = "Export and import game records"),
        (name = "puzzles", description = "Puzzles (残局): the next and the daily puzzle, moves against the defence, the puzzle rating"),
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

/// `PATCH /me` is served by the handler of `PUT /me`: the description gets a copy of that
/// operation under its own id (operation ids are unique).
struct PatchMe;

impl Modify for PatchMe {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(item) = openapi.paths.paths.get_mut("/api/v1/me") {
            if let Some(put) = item.put.clone() {
                let mut patch = put;
                patch.operation_id = Some("rename_by_patch".into());
                item.patch = Some(patch);
            }
        }
    }
}

/// The opening's steps refuse unknown fields (`deny_unknown_fields`), which the derive writes for
/// structs but not for the variants of a tagged enum: each variant is closed here.
struct ClosedSteps;

impl Modify for ClosedSteps {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let schemas = openapi.components.as_mut().map(|c| &mut c.schemas);
        let Some(RefOr::T(Schema::OneOf(steps))) = schemas.and_then(|s| s.get_mut("StepRequest"))
        else {
            return;
        };
        for variant in &mut steps.items {
            if let RefOr::T(Schema::Object(object)) = variant {
                object.additional_properties =
                    Some(Box::new(AdditionalProperties::FreeForm(false)));
            }
        }
    }
}

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

    /// Each opening step is described closed, as the server reads it: an unknown field is a
    /// request the description does not allow.
    #[test]
    fn opening_steps_are_closed() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        let steps = doc["components"]["schemas"]["StepRequest"]["oneOf"]
            .as_array()
            .unwrap();
        assert_eq!(steps.len(), 4);
        for step in steps {
            assert_eq!(step["additionalProperties"], false, "{step}");
        }
    }

    /// Every route the API serves is described, with the error shape among the schemas.
    #[test]
    fn covers_every_path() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        for path in [
            "/healthz",
            "/api/v1/sessions",
            "/api/v1/sessions/current",
            "/api/v1/games",
            "/api/v1/games/{id}",
            "/api/v1/games/{id}/moves",
            "/api/v1/games/{id}/undo",
            "/api/v1/games/{id}/resign",
            "/api/v1/games/{id}/join",
            "/api/v1/games/{id}/takeback",
            "/api/v1/games/{id}/draw",
            "/api/v1/games/{id}/live",
            "/api/v1/me",
            "/api/v1/games/{id}/hint",
            "/api/v1/games/{id}/replay",
            "/api/v1/games/{id}/analysis",
            "/api/v1/games/{id}/export",
            "/api/v1/games/import",
            "/api/v1/openapi.json",
            "/api/v1/pools",
            "/api/v1/seeks",
            "/api/v1/live",
            "/api/v1/leaderboard",
            "/api/v1/players/{id}",
            "/api/v1/puzzles/next",
            "/api/v1/puzzles/daily",
            "/api/v1/puzzles/{id}",
            "/api/v1/puzzles/{id}/moves",
            "/api/v1/puzzles/{id}/retry",
        ] {
            assert!(doc["paths"].get(path).is_some(), "{path} missing");
        }
        assert!(doc["components"]["schemas"].get("ErrorBody").is_some());
        assert!(doc["components"]["securitySchemes"].get("bearer").is_some());
    }

    /// Renaming is described for PUT (what `wx.request` sends) and PATCH alike, and operation
    /// ids stay unique.
    #[test]
    fn rename_by_put_and_patch() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        let me = &doc["paths"]["/api/v1/me"];
        assert_eq!(me["put"]["requestBody"], me["patch"]["requestBody"]);
        let mut ids: Vec<&str> = doc["paths"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|item| item.as_object().unwrap().values())
            .filter_map(|op| op["operationId"].as_str())
            .collect();
        let all = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all, "operation ids repeat");
    }
}
