//! Extractors whose failures come out in the API's error shape, and the client's address.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderName};
use axum::Json;
use serde::de::{self, DeserializeOwned, Deserializer, Unexpected, Visitor};
use serde::Deserialize;

use super::error::ApiError;
use crate::config::Config;

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

/// Like [`JsonBody`], but an empty body (with or without a content type), or a JSON `null`,
/// means `T::default()`.
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
        let Json(value) = Json::<Option<T>>::from_bytes(&bytes)?;
        Ok(JsonOrEmpty(value.unwrap_or_default()))
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

/// An integer in a request body, read as JSON Schema counts integers: any number without a
/// fractional part (`7` and `7.0` alike), so that whatever the description calls an integer is
/// one here too. A value past the range of `i64` is clamped to it, which puts it outside every
/// range the API accepts, and it is refused as such (out of bounds, a ply that does not match).
/// Fields of this type are described with `#[schema(value_type = i64)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Whole(pub i64);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Whole, D::Error> {
        struct Visit;

        impl Visitor<'_> for Visit {
            type Value = Whole;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an integer")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Whole, E> {
                Ok(Whole(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Whole, E> {
                Ok(Whole(i64::try_from(v).unwrap_or(i64::MAX)))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Whole, E> {
                if v.is_finite() && v.fract() == 0.0 {
                    // `as` saturates at the ends of the range.
                    Ok(Whole(v as i64))
                } else {
                    Err(E::invalid_type(Unexpected::Float(v), &self))
                }
            }
        }

        d.deserialize_any(Visit)
    }
}

const FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The client's address: the peer's, or with `--trust-forwarded-for` the first address of
/// `X-Forwarded-For` when there is a readable one. Without a connection (a router called
/// directly, as in unit tests) it is the unspecified address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddr(pub IpAddr);

impl<S> FromRequestParts<S> for ClientAddr
where
    S: Send + Sync,
    Arc<Config>: FromRef<S>,
{
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Infallible> {
        if Arc::<Config>::from_ref(state).trust_forwarded_for {
            if let Some(addr) = first_forwarded(parts) {
                return Ok(ClientAddr(addr));
            }
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip());
        Ok(ClientAddr(
            peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        ))
    }
}

/// The first address of the first `X-Forwarded-For` header (a bare address, or one with a port).
fn first_forwarded(parts: &Parts) -> Option<IpAddr> {
    let value = parts.headers.get(FORWARDED_FOR)?.to_str().ok()?;
    let first = value.split(',').next()?.trim();
    first
        .parse::<IpAddr>()
        .or_else(|_| first.parse::<SocketAddr>().map(|a| a.ip()))
        .ok()
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parts(forwarded: Option<&str>, peer: Option<&str>) -> Parts {
        let mut builder = Request::builder().uri("/api/v1/sessions");
        if let Some(value) = forwarded {
            builder = builder.header("x-forwarded-for", value);
        }
        let mut parts = builder.body(()).unwrap().into_parts().0;
        if let Some(peer) = peer {
            parts
                .extensions
                .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
        }
        parts
    }

    async fn client(trust: bool, forwarded: Option<&str>, peer: Option<&str>) -> IpAddr {
        let mut config = Config::for_database("sqlite://x.db");
        config.trust_forwarded_for = trust;
        let state = Arc::new(config);
        let ClientAddr(addr) = ClientAddr::from_request_parts(&mut parts(forwarded, peer), &state)
            .await
            .unwrap();
        addr
    }

    /// Integral numbers are integers whatever their spelling; fractions, strings and booleans
    /// are not; a number past i64 is clamped.
    #[test]
    fn whole_numbers() {
        let read = |json: &str| serde_json::from_str::<Whole>(json).map(|w| w.0);
        assert_eq!(read("7").unwrap(), 7);
        assert_eq!(read("-2").unwrap(), -2);
        assert_eq!(read("7.0").unwrap(), 7);
        assert_eq!(read("1e3").unwrap(), 1000);
        assert_eq!(read("1e300").unwrap(), i64::MAX);
        assert_eq!(read("18446744073709551615").unwrap(), i64::MAX);
        for bad in ["7.5", "\"7\"", "true", "null", "[7]"] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    /// The peer decides unless the forwarded header is trusted and readable.
    #[tokio::test]
    async fn forwarded_for_only_when_trusted() {
        let peer = Some("10.0.0.1:4000");
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(
            client(false, Some("203.0.113.9"), peer).await,
            ip("10.0.0.1")
        );
        assert_eq!(
            client(true, Some("203.0.113.9, 10.0.0.2"), peer).await,
            ip("203.0.113.9")
        );
        assert_eq!(
            client(true, Some("[2001:db8::1]:443"), peer).await,
            ip("2001:db8::1")
        );
        assert_eq!(client(true, Some("garbage"), peer).await, ip("10.0.0.1"));
        assert_eq!(client(true, None, None).await, ip("0.0.0.0"));
    }
}
