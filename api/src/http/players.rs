//! `GET /api/v1/leaderboard` (a rule family's highest rated players) and
//! `GET /api/v1/players/{id}` (a player's card: name, ratings, recent rated results). Public:
//! no token needed. What is shown of a player is what their opponents see already (id, display
//! name, ratings); never a token or an openid.

use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use gomoku_rules::Rule;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ErrorBody};
use super::puzzles::PuzzleRatingView;
use super::responses::Busy;
use super::view::RatingView;
use crate::ratings::{shown_delta, Family};
use crate::state::AppState;
use crate::store::ratings::{self, LEADERBOARD};
use crate::store::{self, parse_timestamp, timestamp, Db};

/// How many recent rated results a player's card lists.
pub const RECENT: usize = 20;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/leaderboard", get(leaderboard))
        .route("/api/v1/players/{id}", get(player_card))
}

/// Which family's leaderboard: by a rule of it, or by its name (default gomoku).
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    /// "freestyle", "standard" (both the gomoku family) or "renju".
    pub rule: Option<String>,
    /// "gomoku" or "renju".
    pub family: Option<String>,
}

impl LeaderboardQuery {
    fn family(&self) -> Result<Family, ApiError> {
        let bad =
            |what: &str, value: &str| ApiError::InvalidQuery(format!("unknown {what} {value:?}"));
        match (&self.rule, &self.family) {
            (Some(_), Some(_)) => Err(ApiError::InvalidQuery(
                "give rule or family, not both".into(),
            )),
            (Some(rule), None) => rule
                .parse::<Rule>()
                .map(Family::of)
                .map_err(|_| bad("rule", rule)),
            (None, Some(family)) => family.parse().map_err(|_| bad("family", family)),
            (None, None) => Ok(Family::Gomoku),
        }
    }
}

/// One place on the leaderboard.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Leader {
    #[schema(minimum = 1)]
    pub place: usize,
    pub player_id: String,
    pub name: String,
    pub rating: RatingView,
}

/// A family's leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    /// "gomoku" or "renju".
    pub family: String,
    /// At most 100, highest first; provisional ratings are left off.
    pub players: Vec<Leader>,
}

/// The highest rated players of a rule family (top 100, no provisional ratings).
#[utoipa::path(
    get, path = "/api/v1/leaderboard", tag = "players",
    params(LeaderboardQuery),
    responses(
        (status = 200, description = "The family's leaderboard", body = Leaderboard),
        (status = 400, description = "INVALID_QUERY: an unknown rule or family", body = ErrorBody),
        Busy,
    )
)]
pub async fn leaderboard(
    State(db): State<Db>,
    query: Result<Query<LeaderboardQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Leaderboard>, ApiError> {
    let Query(query) = query?;
    let family = query.family()?;
    let leaders = ratings::leaderboard(&db, family, LEADERBOARD).await?;
    Ok(Json(Leaderboard {
        family: family.as_str().to_string(),
        players: leaders
            .into_iter()
            .enumerate()
            .map(|(i, l)| Leader {
                place: i + 1,
                rating: RatingView::from(&l.record),
                player_id: l.player_id,
                name: l.name,
            })
            .collect(),
    }))
}

/// A player named on a result.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Opponent {
    pub player_id: String,
    pub name: String,
}

/// One rated result, as the player's card lists it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecentView {
    pub game_id: String,
    /// "gomoku" or "renju".
    pub family: String,
    /// The game's rule: "freestyle", "standard" or "renju" (null if the game is gone).
    pub rule: Option<String>,
    pub opponent: Opponent,
    /// The colour they played: 1 black, 2 white.
    #[schema(minimum = 1, maximum = 2)]
    pub colour: u8,
    /// "win", "loss" or "draw".
    pub score: String,
    /// The change to their rating, in whole points.
    pub delta: i32,
    /// The change as shown: "+12", "−9", "±0".
    pub shown: String,
    /// When the result was applied (RFC 3339).
    pub at: String,
}

/// A player's card.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerCard {
    pub player_id: String,
    pub name: String,
    /// Their gomoku rating, then their renju rating.
    pub ratings: Vec<RatingView>,
    /// Their puzzle rating (1500? before any rated attempt).
    pub puzzle: PuzzleRatingView,
    /// Their last 20 rated results, newest first.
    pub recent: Vec<RecentView>,
}

/// A player's card: name, ratings per family, recent rated results.
#[utoipa::path(
    get, path = "/api/v1/players/{id}", tag = "players",
    params(("id" = String, Path, description = "Player id")),
    responses(
        (status = 200, description = "The player's card", body = PlayerCard),
        (status = 404, description = "PLAYER_NOT_FOUND", body = ErrorBody),
        Busy,
    )
)]
pub async fn player_card(
    State(db): State<Db>,
    Path(id): Path<String>,
) -> Result<Json<PlayerCard>, ApiError> {
    let profile = ratings::profile(&db, &id, RECENT)
        .await?
        .ok_or(ApiError::PlayerNotFound)?;
    let puzzle = PuzzleRatingView::from(&store::puzzles::puzzle_rating(&db, &id).await?);
    let mut recent = Vec::with_capacity(profile.recent.len());
    for r in &profile.recent {
        let rule = ratings::rated_game(&db, &r.game_id)
            .await?
            .map(|g| g.pool.rule.as_str().to_string());
        recent.push(RecentView {
            game_id: r.game_id.clone(),
            family: r.family.as_str().to_string(),
            rule,
            opponent: Opponent {
                player_id: r.opponent_id.clone(),
                name: r.opponent_name.clone(),
            },
            colour: r.colour.as_u8(),
            score: r.score.as_str().to_string(),
            delta: r.delta(),
            shown: shown_delta(r.delta()),
            at: parse_timestamp(&r.at).map_or_else(|| r.at.clone(), timestamp),
        });
    }
    Ok(Json(PlayerCard {
        ratings: Family::ALL
            .iter()
            .map(|&f| RatingView::from(&profile.record(f)))
            .collect(),
        player_id: profile.player_id,
        name: profile.name,
        puzzle,
        recent,
    }))
}
