//! `GET /healthz`: the process is up and the database answers.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::ApiError;
use super::responses::Busy;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(health))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always "ok".
    pub status: String,
}

/// Liveness and database check.
#[utoipa::path(
    get, path = "/healthz", tag = "health",
    responses(
        (status = 200, description = "Healthy", body = Health),
        Busy,
    )
)]
pub async fn health(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    state.db.ping().await?;
    Ok(Json(Health {
        status: "ok".into(),
    }))
}
