//! The HTTP layer: one module per resource, each with its `router()`, merged here under the
//! middleware stack (request ids, tracing, CORS, compression, timeout, body limit).
//!
//! Nothing below this layer knows about HTTP; this layer turns every failure, including those
//! made by middleware (405, 408, 413) and unknown routes, into the one JSON error shape.

pub mod analysis;
pub mod auth;
pub mod error;
mod extract;
pub mod games;
pub mod health;
pub mod hint;
pub mod listener;
pub mod live;
pub mod me;
pub mod online;
pub mod openapi;
pub mod pairing;
pub mod play;
pub mod players;
pub mod records;
pub mod replay;
pub mod responses;
pub mod sessions;
pub mod view;
pub mod wire;

use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::http::{header, HeaderName, Method, Request, Response, StatusCode};
use axum::middleware::{from_fn, map_response, Next};
use axum::response::IntoResponse;
use axum::Router;
use std::time::Duration;

use http_body_util::BodyExt;
use tower::ServiceBuilder;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{Any, CorsLayer};
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::state::AppState;
use error::{body_for_status, ApiError};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// How much of an oversized body is read and thrown away so the client can read its 413.
const DRAIN_LIMIT: usize = 16 * 1024 * 1024;
/// How long that reading may take.
const DRAIN_TIME: Duration = Duration::from_secs(5);

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole application, ready to serve (no socket needed: tests may call it directly).
pub fn app(state: AppState) -> Router {
    let timeout = state.config.request_timeout();
    let routes = Router::new()
        .merge(health::router())
        .merge(openapi::router())
        .merge(sessions::router())
        .merge(games::router())
        .merge(play::router())
        .merge(online::router())
        .merge(live::router())
        .merge(pairing::router())
        .merge(players::router())
        .merge(me::router())
        .merge(hint::router())
        .merge(replay::router())
        .merge(analysis::router())
        .merge(records::router())
        .fallback(|| async { ApiError::NotFound })
        .with_state(state);

    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE]);

    let trace = TraceLayer::new_for_http().make_span_with(|request: &Request<Body>| {
        let id = request
            .headers()
            .get(&REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-");
        // Method, path and request id only: headers (the token) and queries stay out of logs.
        let (method, path) = (request.method(), request.uri().path());
        tracing::info_span!("request", request_id = %id, method = %method, path = %path)
    });

    // Router::layer wraps what is already there, so the last layer added runs first. Inside
    // out: axum's own default body limit is lifted so the tower-http limit is the one in force,
    // then the body limit, the timeout, the JSON rewriting of their errors, and the outer stack.
    routes
        .layer(DefaultBodyLimit::disable())
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(from_fn(refuse_oversized))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(map_response(json_errors))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
                .layer(trace)
                .layer(PropagateRequestIdLayer::new(REQUEST_ID))
                .layer(cors)
                .layer(CompressionLayer::new()),
        )
}

/// Answers 413 to a body whose declared length is over the limit, after reading (and dropping)
/// what the client sends, up to a cap. Answering straight away would close the connection under
/// a client still writing, which then sees a broken pipe instead of our 413. Bodies without a
/// declared length are cut off by `RequestBodyLimitLayer` as they are read.
async fn refuse_oversized(request: Request<Body>, next: Next) -> Response<Body> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_none_or(|len| len <= BODY_LIMIT as u64) {
        return next.run(request).await;
    }
    let mut body = request.into_body();
    let drain = async {
        let mut seen = 0usize;
        while let Some(Ok(frame)) = body.frame().await {
            seen += frame.data_ref().map_or(0, |d| d.len());
            if seen > DRAIN_LIMIT {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, drain).await;
    ApiError::PayloadTooLarge.into_response()
}

/// Gives error responses made outside the handlers (axum's 405, the timeout's 408, the body
/// limit's 413) the API's JSON shape, keeping their headers (such as `Allow`).
async fn json_errors(response: Response<Body>) -> Response<Body> {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        return response;
    }
    let Some(error) = body_for_status(response.status()) else {
        return response;
    };
    let (mut parts, _) = response.into_parts();
    let fresh = error.into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    for (name, value) in fresh.headers() {
        parts.headers.insert(name, value.clone());
    }
    Response::from_parts(parts, fresh.into_body())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::store::Db;
    use tower::ServiceExt;

    async fn test_app(dir: &tempfile::TempDir) -> Router {
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let config = Config::for_database(&url);
        let db = Db::open(&config).await.unwrap();
        db.migrate().await.unwrap();
        app(AppState::new(db, config))
    }

    async fn send(
        app: &Router,
        request: Request<Body>,
    ) -> (StatusCode, axum::http::HeaderMap, serde_json::Value) {
        let response = app.clone().oneshot(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        (
            parts.status,
            parts.headers,
            serde_json::from_slice(&bytes).unwrap_or_default(),
        )
    }

    /// Failures made outside the handlers (unknown route, wrong method, oversized body) come
    /// out in the one JSON error shape, keeping headers such as `Allow`.
    #[tokio::test]
    async fn framework_errors_have_the_api_shape() {
        let dir = tempfile::tempdir().unwrap();
        let app = test_app(&dir).await;

        let (status, _, body) =
            send(&app, Request::get("/nowhere").body(Body::empty()).unwrap()).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::NOT_FOUND, Some("NOT_FOUND"))
        );

        let (status, headers, body) = send(
            &app,
            Request::put("/api/v1/games").body(Body::empty()).unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(body["error"]["code"], "METHOD_NOT_ALLOWED");
        assert!(headers.contains_key(header::ALLOW));

        let big = vec![b' '; BODY_LIMIT + 1];
        let request = Request::post("/api/v1/sessions")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::CONTENT_LENGTH, big.len())
            .body(Body::from(big))
            .unwrap();
        let (status, _, body) = send(&app, request).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::PAYLOAD_TOO_LARGE, Some("PAYLOAD_TOO_LARGE"))
        );
    }

    /// A session made through the router opens the game endpoints; without it they are 401,
    /// and every response carries a request id.
    #[tokio::test]
    async fn sessions_open_the_game_endpoints() {
        let dir = tempfile::tempdir().unwrap();
        let app = test_app(&dir).await;

        let (status, headers, body) = send(
            &app,
            Request::get("/api/v1/games").body(Body::empty()).unwrap(),
        )
        .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("UNAUTHORIZED"))
        );
        assert!(headers.contains_key(&REQUEST_ID));

        let (status, _, session) = send(
            &app,
            Request::post("/api/v1/sessions")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED);
        let token = session["token"].as_str().unwrap();
        let request = Request::get("/api/v1/games")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .body(Body::empty())
            .unwrap();
        let (status, _, list) = send(&app, request).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(list["games"], serde_json::json!([]));
        assert_eq!(list["nextCursor"], serde_json::Value::Null);
    }
}
