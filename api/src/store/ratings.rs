//! Ratings as stored: each player's record per rule family (the `ratings` table), which games
//! are rated (`rated_games`) and what each rated result changed (`rating_changes`), and the
//! aborts that make a player wait in the pool (`aborts`). The arithmetic is
//! [`crate::ratings`]'s; here it runs inside the transaction that writes its result.
//!
//! A rated game is settled once: [`settle`] (a win, a loss, a draw) or [`abort`] (nobody moved
//! in time) marks its `rated_games` row, guarded by the row being unsettled, in the same
//! transaction as everything the result writes, so two instances ending the same game (a flag
//! fall seen by both) rate it once, and a result arrives with both players' ratings or not at
//! all. On PostgreSQL the game's row and both players' rating rows are locked first (in player
//! order), so two games of one player settling at once rate one after the other; on SQLite the
//! single writer runs them one after the other anyway.

use gomoku_rules::Stone;

use super::games::rows::Columns;
use super::{Db, StoreError};
use crate::matchmaking::Pool;
use crate::ratings::{self, Family, Rated, Rating, Score};

/// How many players the leaderboard shows.
pub const LEADERBOARD: usize = 100;
/// How many recent results a profile shows.
pub const RECENT_RESULTS: usize = 10;

/// A player's rated record in one family.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub family: Family,
    pub rating: Rating,
    pub games: u32,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Record {
    /// The record of a player with no rated game in `family`.
    pub fn new(family: Family) -> Record {
        Record {
            family,
            rating: Rating::INITIAL,
            games: 0,
            wins: 0,
            losses: 0,
            draws: 0,
        }
    }
}

/// One row of the leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct Leader {
    pub player_id: String,
    pub name: String,
    pub record: Record,
}

/// One of a player's rated results, as a profile lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentResult {
    pub game_id: String,
    pub family: Family,
    pub colour: Stone,
    pub opponent_id: String,
    pub opponent_name: String,
    pub score: Score,
    pub rating_before: f64,
    pub rating_after: f64,
    /// When it was rated (stored form).
    pub at: String,
}

impl RecentResult {
    /// The change in whole points as shown ([`ratings::delta`]).
    pub fn delta(&self) -> i32 {
        ratings::delta(self.rating_before, self.rating_after)
    }
}

/// A player's public page: their name, a record per family they played rated games in (a
/// family without one is at [`Record::new`]), and their latest rated results, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub player_id: String,
    pub name: String,
    pub records: Vec<Record>,
    pub recent: Vec<RecentResult>,
}

impl Profile {
    /// The record in `family` (the initial one if they have played none there).
    pub fn record(&self, family: Family) -> Record {
        self.records
            .iter()
            .find(|r| r.family == family)
            .cloned()
            .unwrap_or_else(|| Record::new(family))
    }
}

/// What settling a game came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Settled {
    /// Rated: both players' changes, now stored.
    Rated(Rated),
    /// A rated game that ended before both players moved: marked so, nothing else changed.
    Unrated,
    /// Not a rated game, or one already settled (by another request or instance): nothing
    /// written.
    Untouched,
}

/// A rated game's state, for showing it: its family and, once rated, each side's change.
#[derive(Debug, Clone, PartialEq)]
pub struct RatedGame {
    pub family: Family,
    /// The pool it was paired in.
    pub pool: Pool,
    pub state: RatedState,
    /// Black's and white's rating and deviation when the pairing made the game; None for a game
    /// paired before they were kept.
    pub paired: Option<[(f64, f64); 2]>,
}

/// The columns of a rated game, on `rated_games`.
pub(super) const RATED_GAME_COLUMNS: &str =
    "family, pool, result, black_rating, black_rd, white_rating, white_rd";

/// A rated game from [`RATED_GAME_COLUMNS`] and its rating changes (from [`changes_of`]).
pub(super) fn rated_game_of(
    r: &impl Columns,
    id: &str,
    changes: &[(Stone, f64, f64)],
) -> Result<RatedGame, StoreError> {
    let result = r.text("result")?;
    let paired = match (
        r.real("black_rating")?,
        r.real("black_rd")?,
        r.real("white_rating")?,
        r.real("white_rd")?,
    ) {
        (Some(br), Some(bd), Some(wr), Some(wd)) => Some([(br, bd), (wr, wd)]),
        _ => None,
    };
    Ok(RatedGame {
        family: parse(id, "family", &r.need_text("family")?)?,
        pool: parse(id, "pool", &r.need_text("pool")?)?,
        state: rated_state(id, result.as_deref(), changes)?,
        paired,
    })
}

/// Where a rated game's result stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RatedState {
    /// Still in play.
    Pending,
    /// Ended before both moved: unrated.
    Aborted,
    /// Rated: black's rating before and after, then white's.
    Rated {
        black: (f64, f64),
        white: (f64, f64),
    },
}

/// Applies the result of rated game `game_id`, which `winner` won (None: a draw), at once or not
/// at all: both players' ratings and records, the two change rows, the game marked settled. A
/// game with fewer than [`ratings::RATED_FROM_MOVES`] moves is marked aborted instead, and
/// changes no rating.
pub async fn settle(db: &Db, game_id: &str, winner: Option<Stone>) -> Result<Settled, StoreError> {
    let at = super::now();
    match db {
        Db::Sqlite(s) => s.settle(game_id, winner, at).await,
        Db::Postgres(p) => p.settle(game_id, winner, at).await,
    }
}

/// Aborts rated game `game_id` because `player_id` did not make their first move in time: the
/// game is settled as aborted (no rating changes) and the abort counts against the player in
/// the pool. False if the game is not rated or already settled.
pub async fn abort(db: &Db, game_id: &str, player_id: &str) -> Result<bool, StoreError> {
    let at = super::now();
    match db {
        Db::Sqlite(s) => s.abort_rated(game_id, player_id, at).await,
        Db::Postgres(p) => p.abort_rated(game_id, player_id, at).await,
    }
}

/// Whether game `game_id` is rated, and where its result stands; None for an unrated game.
pub async fn rated_game(db: &Db, game_id: &str) -> Result<Option<RatedGame>, StoreError> {
    match db {
        Db::Sqlite(s) => s.rated_game(game_id).await,
        Db::Postgres(p) => p.rated_game(game_id).await,
    }
}

/// The rated games that may need a decision: unsettled ones that are over (their result not
/// applied yet: an instance stopped between the ending and its settlement), unsettled ones in
/// play before both players moved (an abort may be due), and ones marked aborted but still in
/// play (the instance that marked one stopped before ending it).
pub async fn unsettled(db: &Db) -> Result<Vec<String>, StoreError> {
    match db {
        Db::Sqlite(s) => s.unsettled().await,
        Db::Postgres(p) => p.unsettled().await,
    }
}

/// The `limit` highest rated players of `family` whose rating is no longer provisional, highest
/// first (ties: fewer games first, then by id, so the order is stable).
pub async fn leaderboard(db: &Db, family: Family, limit: usize) -> Result<Vec<Leader>, StoreError> {
    match db {
        Db::Sqlite(s) => s.leaderboard(family, limit).await,
        Db::Postgres(p) => p.leaderboard(family, limit).await,
    }
}

/// `player_id`'s record in `family` (the initial one if they have played none there, or there is
/// no such player).
pub async fn record(db: &Db, player_id: &str, family: Family) -> Result<Record, StoreError> {
    Ok(profile(db, player_id, 0)
        .await?
        .map_or_else(|| Record::new(family), |p| p.record(family)))
}

/// Player `player_id`'s profile with their `recent` latest results; None if there is no such
/// player.
pub async fn profile(
    db: &Db,
    player_id: &str,
    recent: usize,
) -> Result<Option<Profile>, StoreError> {
    match db {
        Db::Sqlite(s) => s.profile(player_id, recent).await,
        Db::Postgres(p) => p.profile(player_id, recent).await,
    }
}

/// The stored form of a result ("black", "white", "draw").
pub(super) fn result_text(winner: Option<Stone>) -> &'static str {
    match winner {
        Some(Stone::Black) => "black",
        Some(Stone::White) => "white",
        None => "draw",
    }
}

/// A stored rating state read back.
fn rated_state(
    id: &str,
    result: Option<&str>,
    changes: &[(Stone, f64, f64)],
) -> Result<RatedState, StoreError> {
    let side = |colour| {
        changes
            .iter()
            .find(|(c, _, _)| *c == colour)
            .map(|&(_, before, after)| (before, after))
            .ok_or_else(|| {
                StoreError::Corrupt(id.into(), "a rated game without its changes".into())
            })
    };
    Ok(match result {
        None => RatedState::Pending,
        Some("aborted") => RatedState::Aborted,
        Some(_) => RatedState::Rated {
            black: side(Stone::Black)?,
            white: side(Stone::White)?,
        },
    })
}

/// A stored name of `T` read back, or the row is corrupt.
pub(super) fn parse<T: std::str::FromStr>(
    id: &str,
    what: &str,
    text: &str,
) -> Result<T, StoreError> {
    text.parse()
        .map_err(|_| StoreError::Corrupt(id.into(), format!("unknown {what} {text:?}")))
}

fn corrupt(id: &str, what: &str) -> StoreError {
    StoreError::Corrupt(id.into(), what.into())
}

fn need_real(r: &impl Columns, column: &str, id: &str) -> Result<f64, StoreError> {
    r.real(column)?.ok_or_else(|| corrupt(id, column))
}

fn need_count(r: &impl Columns, column: &str, id: &str) -> Result<u32, StoreError> {
    u32::try_from(r.need_int(column)?).map_err(|_| corrupt(id, column))
}

/// A stored colour (1 black, 2 white) read back.
pub(super) fn colour_of(r: &impl Columns, column: &str, id: &str) -> Result<Stone, StoreError> {
    let value = r.need_int(column)?;
    u8::try_from(value)
        .ok()
        .and_then(Stone::from_u8)
        .ok_or_else(|| corrupt(id, column))
}

/// A rating from its columns `rating`, `rd` and `volatility`.
pub(super) fn rating_of(r: &impl Columns, id: &str) -> Result<Rating, StoreError> {
    Ok(Rating {
        rating: need_real(r, "rating", id)?,
        rd: need_real(r, "rd", id)?,
        volatility: need_real(r, "volatility", id)?,
    })
}

/// A record from the columns of [`RECORDS_SQL`] (and [`LEADERBOARD_SQL`]).
pub(super) fn record_of(r: &impl Columns, id: &str) -> Result<Record, StoreError> {
    Ok(Record {
        family: parse(id, "family", &r.need_text("family")?)?,
        rating: rating_of(r, id)?,
        games: need_count(r, "games", id)?,
        wins: need_count(r, "wins", id)?,
        losses: need_count(r, "losses", id)?,
        draws: need_count(r, "draws", id)?,
    })
}

/// A row of [`LEADERBOARD_SQL`].
pub(super) fn leader_of(r: &impl Columns) -> Result<Leader, StoreError> {
    let player_id = r.need_text("player_id")?;
    Ok(Leader {
        record: record_of(r, &player_id)?,
        name: r.need_text("name")?,
        player_id,
    })
}

/// A row of [`RECENT_SQL`].
pub(super) fn recent_of(r: &impl Columns, id: &str) -> Result<RecentResult, StoreError> {
    Ok(RecentResult {
        game_id: r.need_text("game_id")?,
        family: parse(id, "family", &r.need_text("family")?)?,
        colour: colour_of(r, "colour", id)?,
        opponent_id: r.need_text("opponent_id")?,
        opponent_name: r.need_text("opponent_name")?,
        score: parse(id, "score", &r.need_text("score")?)?,
        rating_before: need_real(r, "rating_before", id)?,
        rating_after: need_real(r, "rating_after", id)?,
        at: r.need_text("at")?,
    })
}

/// The rows of a game's changes (`colour`, `rating_before`, `rating_after`) read back.
pub(super) fn changes_of<R: Columns>(
    rows: &[R],
    id: &str,
) -> Result<Vec<(Stone, f64, f64)>, StoreError> {
    rows.iter()
        .map(|r| {
            Ok((
                colour_of(r, "colour", id)?,
                need_real(r, "rating_before", id)?,
                need_real(r, "rating_after", id)?,
            ))
        })
        .collect()
}

/// What a settlement writes, worked out from what it read: the game's two players (black's id,
/// then white's) and their ratings before.
pub(super) struct Settlement {
    pub(super) rated: Rated,
    /// Black's player, then white's.
    pub(super) players: [String; 2],
}

impl Settlement {
    pub(super) fn new(players: [String; 2], before: [Rating; 2], winner: Option<Stone>) -> Self {
        Settlement {
            rated: ratings::rate_game(before[0], before[1], winner),
            players,
        }
    }

    /// Each side: its colour, its player, its opponent, and its change.
    pub(super) fn sides(&self) -> [(Stone, &str, &str, &ratings::Change); 2] {
        let [black, white] = &self.players;
        [
            (Stone::Black, black, white, &self.rated.black),
            (Stone::White, white, black, &self.rated.white),
        ]
    }
}

/// See [`unsettled`].
pub(super) const UNSETTLED_SQL: &str = "select r.game_id from rated_games r \
    join games g on g.id = r.game_id where (r.result is null \
    and (g.status not in ('waiting', 'playing') or g.move_count < 2)) \
    or (r.result = 'aborted' and g.status = 'playing')";
/// The changes of a rated game.
pub(super) const CHANGES_SQL: &str =
    "select colour, rating_before, rating_after from rating_changes where game_id = $1";
/// A player's rating in a family.
pub(super) const RATING_SQL: &str =
    "select rating, rd, volatility from ratings where player_id = $1 and family = $2";

/// The counts a result adds to a record: (wins, losses, draws).
pub(super) fn tally(score: Score) -> (i64, i64, i64) {
    match score {
        Score::Win => (1, 0, 0),
        Score::Loss => (0, 1, 0),
        Score::Draw => (0, 0, 1),
    }
}

/// Writes a player's rating after a rated result: the first makes their row.
pub(super) const UPSERT_RATING: &str = "insert into ratings (player_id, family, rating, rd, \
    volatility, games, wins, losses, draws, updated_at) values ($1, $2, $3, $4, $5, 1, $6, $7, \
    $8, $9) on conflict (player_id, family) do update set rating = excluded.rating, \
    rd = excluded.rd, volatility = excluded.volatility, games = ratings.games + 1, \
    wins = ratings.wins + excluded.wins, losses = ratings.losses + excluded.losses, \
    draws = ratings.draws + excluded.draws, updated_at = excluded.updated_at";
/// Records what a result did to one player.
pub(super) const INSERT_CHANGE: &str = "insert into rating_changes (game_id, player_id, family, \
    colour, opponent_id, score, rating_before, rd_before, rating_after, rd_after, at) \
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
/// A family's settled players, highest first.
pub(super) const LEADERBOARD_SQL: &str = "select r.player_id, p.name, r.family, r.rating, r.rd, \
    r.volatility, r.games, r.wins, r.losses, r.draws from ratings r \
    join players p on p.id = r.player_id where r.family = $1 and r.rd < $2 \
    order by r.rating desc, r.games, r.player_id limit $3";
/// A player's records.
pub(super) const RECORDS_SQL: &str = "select family, rating, rd, volatility, games, wins, \
    losses, draws from ratings where player_id = $1 order by family";
/// A player's latest results with their opponents' names.
pub(super) const RECENT_SQL: &str = "select c.game_id, c.family, c.colour, c.opponent_id, \
    p.name as opponent_name, c.score, c.rating_before, c.rating_after, c.at from rating_changes c \
    join players p on p.id = c.opponent_id where c.player_id = $1 \
    order by c.at desc, c.game_id desc limit $2";

#[cfg(test)]
mod tests;
