//! Extractors whose failures come out in the API's error shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::header;
use axum::http::request::Parts;
use axum::Json;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON body: 415 without a JSON content type, 400 INVALID_JSON when it does not parse into
/// `T`, 413 when over the size limit.
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

impl<T, S> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let Json(value) = Json::<T>::from_request(req, state).await?;
        Ok(JsonBody(value))
    }
}

/// Like [`JsonBody`], but an empty body (with or without a content type) means `T::default()`.
#[derive(Debug, Clone)]
pub struct JsonOrEmpty<T>(pub T);

impl<T, S> FromRequest<S> for JsonOrEmpty<T>
where
    T: DeserializeOwned + Default,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<mime_type::Essence>().ok())
            .is_some_and(|essence| essence.is_json());
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::InvalidJson(rejection.body_text())
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonOrEmpty(T::default()));
        }
        if !is_json {
            return Err(ApiError::UnsupportedMediaType);
        }
        let Json(value) = Json::<T>::from_bytes(&bytes)?;
        Ok(JsonOrEmpty(value))
    }
}

/// The `{id}` of a game route. Any id that fails to extract names no game: 404 GAME_NOT_FOUND.
#[derive(Debug, Clone)]
pub struct GameId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for GameId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::GameNotFound)?;
        Ok(GameId(id))
    }
}

/// Content types counted as JSON, as axum's `Json` counts them: `application/json` and
/// `application/*+json`, with any parameters.
mod mime_type {
    pub struct Essence(String);

    impl std::str::FromStr for Essence {
        type Err = ();
        fn from_str(s: &str) -> Result<Self, ()> {
            let essence = s
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if essence.contains('/') {
                Ok(Essence(essence))
            } else {
                Err(())
            }
        }
    }

    impl Essence {
        pub fn is_json(&self) -> bool {
            self.0 == "application/json"
                || (self.0.starts_with("application/") && self.0.ends_with("+json"))
        }
    }
}
