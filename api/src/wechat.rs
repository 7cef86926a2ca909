//! WeChat login: exchanging a `wx.login` code for the user's openid through `jscode2session`.
//!
//! The base URL is configurable so tests can stand up a local fake. WeChat answers with JSON
//! (sometimes labelled `text/plain`) holding `openid`, or `errcode`/`errmsg` on failure.

use std::time::Duration;

use serde::Deserialize;

/// A client for the code exchange.
#[derive(Clone)]
pub struct WeChat {
    http: reqwest::Client,
    base: String,
    appid: String,
    secret: String,
}

impl std::fmt::Debug for WeChat {
    // The secret stays out of logs and panics.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WeChat")
            .field("base", &self.base)
            .field("appid", &self.appid)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WeChatError {
    /// The error carries no URL: the URL holds the app secret.
    #[error("wechat request failed: {0}")]
    Request(reqwest::Error),
    #[error("wechat answered with an unreadable body")]
    Unreadable,
    #[error("wechat refused the code: {code} {message}")]
    Refused { code: i64, message: String },
}

#[derive(Debug, Deserialize)]
struct Answer {
    openid: Option<String>,
    errcode: Option<i64>,
    errmsg: Option<String>,
}

impl WeChat {
    pub fn new(base: &str, appid: String, secret: String) -> WeChat {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        WeChat {
            http,
            base: base.trim_end_matches('/').to_string(),
            appid,
            secret,
        }
    }

    /// The openid of the user who obtained `code`.
    pub async fn openid(&self, code: &str) -> Result<String, WeChatError> {
        let url = format!("{}/sns/jscode2session", self.base);
        let response = self
            .http
            .get(url)
            .query(&[
                ("appid", self.appid.as_str()),
                ("secret", self.secret.as_str()),
                ("js_code", code),
                ("grant_type", "authorization_code"),
            ])
            .send()
            .await
            .map_err(|e| WeChatError::Request(e.without_url()))?;
        let bytes = response
            .bytes()
            .await
            .map_err(|e| WeChatError::Request(e.without_url()))?;
        let answer: Answer = serde_json::from_slice(&bytes).map_err(|_| WeChatError::Unreadable)?;
        match answer {
            Answer {
                openid: Some(openid),
                errcode: None | Some(0),
                ..
            } if !openid.is_empty() => Ok(openid),
            Answer {
                errcode, errmsg, ..
            } => Err(WeChatError::Refused {
                code: errcode.unwrap_or(-1),
                message: errmsg.unwrap_or_default(),
            }),
        }
    }
}
