//! The JSON the API serves about games, shared by the resource modules, with its OpenAPI
//! schemas. Built from the store's rows and the rules' types; field names are camelCase. What
//! a game's result is (status, winner, end reason, win line, side to move) is read off the
//! rules' outcome, or off the columns the store wrote from it, and never worked out here.
//!
//! A state is rendered for one viewer: `you` is the viewer's colour, and the rest is the same
//! for everyone (the players' presence, the clocks as of the time of rendering). [`render`] and
//! [`answer`] are how a handler turns the game service's answer into its caller's view.

use std::sync::Arc;

use axum::Json;
use gomoku_rules::opening::{Phase, Seat as OpeningSeat, Step, Zone};
use gomoku_rules::{Game, Move, Point, Stone};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::auth::Player;
use super::error::ApiError;
use super::wire::{
    EndReasonName, ForbiddenKindName, LevelName, ModeName, RuleName, StatusName, Wire,
};
use crate::games;
use crate::games::rated::RatedInfo;
use crate::online::hub::Presence;
use crate::ratings::{self, Rating};
use crate::state::AppState;
use crate::store::games::{
    AiSetting, Clock, GameRow, GameStatus, Mode, Offer, Offers, Seats, StoredGame, StoredMove,
    Summary, TimeControl,
};
use crate::store::ratings::{RatedState, Record};
use crate::store::timestamp;

/// A point on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct PointView {
    pub row: usize,
    pub col: usize,
}

impl From<Point> for PointView {
    fn from(p: Point) -> Self {
        PointView {
            row: p.row,
            col: p.col,
        }
    }
}

/// A move: where, and by whom (1 black, 2 white).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct MoveView {
    pub row: usize,
    pub col: usize,
    #[schema(minimum = 1, maximum = 2)]
    pub player: u8,
}

impl MoveView {
    pub fn new(point: Point, stone: Stone) -> MoveView {
        MoveView {
            row: point.row,
            col: point.col,
            player: stone.as_u8(),
        }
    }
}

impl From<Move> for MoveView {
    fn from(m: Move) -> Self {
        MoveView::new(m.point, m.stone)
    }
}

impl From<&StoredMove> for MoveView {
    fn from(m: &StoredMove) -> Self {
        MoveView::new(m.point, m.stone)
    }
}

/// A point black may not play, and why.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct ForbiddenView {
    pub row: usize,
    pub col: usize,
    pub kind: ForbiddenKindName,
}

/// The AI's side of an `ai`-mode game.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct AiView {
    pub level: LevelName,
    /// The colour the AI plays: 1 black, 2 white.
    #[schema(minimum = 1, maximum = 2)]
    pub player: u8,
}

impl From<AiSetting> for AiView {
    fn from(ai: AiSetting) -> Self {
        AiView {
            level: Wire(ai.level),
            player: ai.player.as_u8(),
        }
    }
}

/// How a game stands, as every view of it shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultView {
    pub status: StatusName,
    #[schema(minimum = 1, maximum = 2)]
    pub winner: Option<u8>,
    pub end_reason: Option<EndReasonName>,
    pub win_line: Option<Vec<PointView>>,
}

impl ResultView {
    /// The rules' verdict on a stored game (`waiting` while an online game waits for its second
    /// player).
    pub fn of(stored: &StoredGame) -> ResultView {
        let outcome = stored.game.outcome();
        ResultView {
            status: Wire(status_of(stored.row.status, &stored.game)),
            winner: outcome.winner().map(Stone::as_u8),
            end_reason: outcome.end_reason().map(Wire),
            win_line: win_line_view(outcome.win_line()),
        }
    }
}

/// The status to show: waiting, or what the rules say.
fn status_of(stored: GameStatus, game: &Game) -> GameStatus {
    match stored {
        GameStatus::Waiting => GameStatus::Waiting,
        GameStatus::Rules(_) => GameStatus::Rules(game.outcome().status()),
    }
}

/// A player at a game.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerView {
    pub player_id: String,
    /// Their display name.
    pub name: String,
    /// Whether they have a live connection to this game now.
    pub online: bool,
    /// In a rated game, their rating and deviation when the pairing made the game (its counts
    /// of games are their record now); null otherwise.
    pub rating: Option<RatingView>,
}

/// Who sits at each colour: null for a seat no one has taken yet (and for the AI's seat). The
/// owner of a local game sits at both.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayersView {
    pub black: Option<PlayerView>,
    pub white: Option<PlayerView>,
}

impl PlayersView {
    fn new(seats: &Seats, presence: Presence, rated: Option<&RatedInfo>) -> PlayersView {
        let view = |colour| {
            seats.get(colour).map(|seat| PlayerView {
                player_id: seat.player_id.clone(),
                name: seat.name.clone(),
                online: presence.of(colour),
                rating: rated.map(|r| RatingView::from(r.record(colour))),
            })
        };
        PlayersView {
            black: view(Stone::Black),
            white: view(Stone::White),
        }
    }
}

/// A pending offer: who made it, and how long it stands unanswered.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OfferView {
    /// The colour offering: 1 black, 2 white.
    #[schema(minimum = 1, maximum = 2)]
    pub by: u8,
    /// Milliseconds left, when this state was rendered, before the offer lapses (relative, so
    /// the client's clock need not agree with the server's).
    #[schema(minimum = 1)]
    pub expires_in_ms: i64,
}

/// Offers of an online game standing when the state was rendered, each null when there is
/// none: a takeback or a draw while the game is played, a rematch once it is over.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct OffersView {
    pub takeback: Option<OfferView>,
    pub draw: Option<OfferView>,
    pub rematch: Option<OfferView>,
}

impl OffersView {
    /// The offers standing at `now` (a lapsed one shows as none).
    fn new(offers: Offers, now: OffsetDateTime) -> OffersView {
        let view = |offer: Option<Offer>| {
            offer.filter(|o| o.stands(now)).map(|o| OfferView {
                by: o.by.as_u8(),
                expires_in_ms: i64::try_from((o.expires - now).whole_milliseconds())
                    .unwrap_or(i64::MAX)
                    .max(1),
            })
        };
        OffersView {
            takeback: view(offers.takeback),
            draw: view(offers.draw),
            rematch: view(offers.rematch),
        }
    }
}

/// A time control: each side's time at the start, and what a move adds to the mover's clock.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimeControlView {
    #[schema(minimum = 1000, maximum = 86400000)]
    pub initial_ms: i64,
    #[schema(minimum = 0, maximum = 60000)]
    pub increment_ms: i64,
}

impl From<TimeControl> for TimeControlView {
    fn from(tc: TimeControl) -> Self {
        TimeControlView {
            initial_ms: tc.initial_ms,
            increment_ms: tc.increment_ms,
        }
    }
}

/// The clocks of a timed game at `asOf`: each side's time left, and whose clock runs (null
/// before black's first move and once the game is over). A client counts the running clock down
/// from `asOf` itself.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClockView {
    #[schema(minimum = 0)]
    pub black_ms: i64,
    #[schema(minimum = 0)]
    pub white_ms: i64,
    #[schema(minimum = 1, maximum = 2)]
    pub running: Option<u8>,
    /// When these times were read (RFC 3339).
    pub as_of: String,
}

impl ClockView {
    /// The clock as it stands at `now`, `to_move` being the side to move.
    fn new(clock: Clock, to_move: Option<Stone>, now: OffsetDateTime) -> ClockView {
        let running = clock.deadline.and(to_move);
        let (black_ms, white_ms) = clock.at(running, now);
        ClockView {
            black_ms,
            white_ms,
            running: running.map(Stone::as_u8),
            as_of: timestamp(now),
        }
    }
}

/// What every view of a game shows about who plays it, for one viewer.
struct Table<'a> {
    mode: Mode,
    rated: Option<&'a RatedInfo>,
    seats: &'a Seats,
    offers: Offers,
    clock: Option<Clock>,
    time_control: Option<TimeControl>,
    to_move: Option<Stone>,
}

/// The viewer's part and the table's: `you`, `players`, `offers`, `clock`, `timeControl`.
struct TableView {
    players: PlayersView,
    you: Option<u8>,
    offers: OffersView,
    clock: Option<ClockView>,
    time_control: Option<TimeControlView>,
}

impl Table<'_> {
    fn view(&self, viewer: &str, presence: Presence, now: OffsetDateTime) -> TableView {
        TableView {
            players: PlayersView::new(self.seats, presence, self.rated),
            you: self.seats.you(self.mode, viewer).map(Stone::as_u8),
            offers: OffersView::new(self.offers, now),
            clock: self.clock.map(|c| ClockView::new(c, self.to_move, now)),
            time_control: self.time_control.map(TimeControlView::from),
        }
    }
}

/// The winning line, or null when there is none.
fn win_line_view(line: &[Point]) -> Option<Vec<PointView>> {
    (!line.is_empty()).then(|| line.iter().copied().map(PointView::from).collect())
}

/// A game in a listing: where it stands, without the board and the moves.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameSummary {
    pub id: String,
    pub mode: ModeName,
    pub rule: RuleName,
    #[schema(minimum = 9, maximum = 19)]
    pub board_size: usize,
    pub move_count: usize,
    /// The colour to move; null once the game is over, and while its opening goes on.
    #[schema(minimum = 1, maximum = 2)]
    pub current_player: Option<u8>,
    #[serde(flatten)]
    pub result: ResultView,
    pub last_move: Option<MoveView>,
    pub ai: Option<AiView>,
    /// Who sits at each colour, by id and name, and whether they are connected live.
    pub players: PlayersView,
    /// The caller's colour: their seat in an online game, theirs in an ai game; null for a
    /// spectator and in a local game (its owner plays both).
    #[schema(minimum = 1, maximum = 2)]
    pub you: Option<u8>,
    /// Offers standing in an online game (takeback, draw, rematch).
    pub offers: OffersView,
    /// The game an accepted rematch of this one created; null before (and in other modes).
    pub rematch_game_id: Option<String>,
    /// The clocks of a timed online game; null when untimed.
    pub clock: Option<ClockView>,
    /// The time control of a timed online game; null when untimed.
    pub time_control: Option<TimeControlView>,
    /// The game's opening rule and where it stands; null for a game without one.
    pub opening: Option<OpeningView>,
    /// Increases by one with every change of the game; a client drops a state older than the
    /// one it has.
    #[schema(minimum = 0)]
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
    /// Whether the game was made by a pairing and counts for the players' ratings.
    pub rated: bool,
    /// The pool a rated game was paired in ("freestyle/3+2"); null otherwise.
    pub pool: Option<String>,
    /// What a rated game's result did to each player's rating, once it is applied; null before,
    /// for an aborted game, and for unrated games.
    pub rating_changes: Option<RatingChangesView>,
}

/// One player's rating change: "+12", "−9" (a minus sign), "±0".
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingChangeView {
    pub before: i32,
    pub after: i32,
    pub delta: i32,
    pub shown: String,
}

impl RatingChangeView {
    fn new((before, after): (f64, f64)) -> RatingChangeView {
        let delta = ratings::delta(before, after);
        RatingChangeView {
            before: before.round() as i32,
            after: after.round() as i32,
            delta,
            shown: ratings::shown_delta(delta),
        }
    }
}

/// Both players' rating changes.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingChangesView {
    pub black: RatingChangeView,
    pub white: RatingChangeView,
}

/// The rated fields of a summary: `rated`, `pool`, `ratingChanges`. The rated record is read
/// when the view is made, which may be after a later version of the game: a result shows only
/// on a state of the game over (a state still in play, rendered late, shows none).
fn rated_fields(
    rated: Option<&RatedInfo>,
    over: bool,
) -> (bool, Option<String>, Option<RatingChangesView>) {
    let changes = rated.filter(|_| over).and_then(|r| match r.state {
        RatedState::Rated { black, white } => Some(RatingChangesView {
            black: RatingChangeView::new(black),
            white: RatingChangeView::new(white),
        }),
        RatedState::Pending | RatedState::Aborted => None,
    });
    (
        rated.is_some(),
        rated.map(|r| r.pool.as_str().to_string()),
        changes,
    )
}

/// The opening of a game that starts with an opening rule, as one viewer sees it: where it
/// stands, what is expected and from whom, and the steps so far. The stones placed are in the
/// board and the move history too.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpeningView {
    /// "swap2" or "taraguchi10".
    pub rule: &'static str,
    /// "place", "choose", "offer", "pick" or "done".
    pub phase: &'static str,
    /// The seat expected to act, "first" or "second"; null once done.
    pub by: Option<&'static str>,
    /// The viewer's seat; null for a spectator.
    pub your_seat: Option<&'static str>,
    /// Whether the viewer is expected to act now.
    pub your_turn: bool,
    /// Phase place: the colour of the stone to place (1 black, 2 white).
    #[schema(minimum = 1, maximum = 2)]
    pub stone: Option<u8>,
    /// Phase place: the stones this seat places in a row from here, this one included.
    pub left: Option<usize>,
    /// Phase place: null anywhere on the board, else the central `side`×`side` square.
    pub zone: Option<ZoneView>,
    /// Phase choose: what may be chosen ("black", "white", "place_two", "offer_ten").
    pub options: Vec<&'static str>,
    /// Phase offer: how many 5th moves to offer.
    pub count: Option<usize>,
    /// Phase pick: the offered 5th moves.
    pub offers: Vec<PointView>,
    /// The seat holding black so far ("first" until a swap; final once done).
    pub black_seat: Option<&'static str>,
    /// Every step so far, in order.
    pub steps: Vec<StepView>,
}

/// The central square the next stone must lie in.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct ZoneView {
    pub side: usize,
}

/// An opening step taken.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StepView {
    /// "first" or "second".
    pub by: &'static str,
    /// "place", "choose", "offer" or "pick".
    pub kind: &'static str,
    /// place, pick: the point.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<PointView>,
    /// choose: what was chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<&'static str>,
    /// offer: the points offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<PointView>>,
}

impl OpeningView {
    /// The opening of the game of `row` and `seats` as `viewer` sees it; None for a game
    /// without one.
    fn new(row: &GameRow, seats: &Seats, viewer: &str) -> Option<OpeningView> {
        let opening = row.opening.as_ref()?;
        let your_seat = match row.mode {
            // The AI's seat is the one holding its colour; the person has the other.
            Mode::Ai => row
                .ai
                .map(|ai| opening.seat_of(ai.player).other())
                .filter(|_| row.player_id == viewer),
            _ if row.player_id == viewer => Some(OpeningSeat::First),
            _ if seats.has(viewer) => Some(OpeningSeat::Second),
            _ => None,
        };
        let phase = opening.phase();
        let by = phase.by();
        let mut view = OpeningView {
            rule: opening.rule().as_str(),
            phase: phase.as_str(),
            by: by.map(OpeningSeat::as_str),
            your_seat: your_seat.map(OpeningSeat::as_str),
            your_turn: by.is_some() && by == your_seat && !row.status.is_over(),
            stone: None,
            left: None,
            zone: None,
            options: vec![],
            count: None,
            offers: vec![],
            black_seat: Some(opening.black().as_str()),
            steps: opening.steps().iter().map(StepView::new).collect(),
        };
        match phase {
            Phase::Place {
                stone, zone, left, ..
            } => {
                view.stone = Some(stone.as_u8());
                view.left = Some(*left);
                view.zone = match zone {
                    Zone::Anywhere => None,
                    Zone::Central(side) => Some(ZoneView { side: *side }),
                };
            }
            Phase::Choose { options, .. } => {
                view.options = options.iter().map(|c| c.as_str()).collect()
            }
            Phase::Offer { count, .. } => view.count = Some(*count),
            Phase::Pick { offers, .. } => {
                view.offers = offers.iter().copied().map(PointView::from).collect()
            }
            Phase::Done { .. } => {}
        }
        Some(view)
    }
}

impl StepView {
    fn new((seat, step): &(OpeningSeat, Step)) -> StepView {
        let mut view = StepView {
            by: seat.as_str(),
            kind: step.as_str(),
            point: None,
            choice: None,
            points: None,
        };
        match step {
            Step::Place(p) | Step::Pick(p) => view.point = Some(PointView::from(*p)),
            Step::Choose(c) => view.choice = Some(c.as_str()),
            Step::Offer(points) => {
                view.points = Some(points.iter().copied().map(PointView::from).collect())
            }
        }
        view
    }
}

/// The full state of a game: its summary, plus the board, the moves and black's forbidden points.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GameState {
    #[serde(flatten)]
    pub summary: GameSummary,
    /// `board[row][col]`: 0 empty, 1 black, 2 white; row 0 is the top.
    pub board: Vec<Vec<u8>>,
    pub move_history: Vec<MoveView>,
    /// Black's forbidden points (renju, black to move); empty otherwise.
    pub forbidden_moves: Vec<ForbiddenView>,
}

impl GameState {
    /// The state of `stored` as `viewer` (a player id) sees it, with `presence` and the clocks
    /// as of `now`; `rated` if it is a rated game.
    pub fn new(
        stored: &StoredGame,
        viewer: &str,
        presence: Presence,
        now: OffsetDateTime,
        rated: Option<&RatedInfo>,
    ) -> GameState {
        let StoredGame {
            row,
            seats,
            moves,
            game,
        } = stored;
        let table = Table {
            mode: row.mode,
            rated,
            seats,
            offers: row.offers,
            clock: row.clock,
            time_control: row.time_control,
            to_move: game.to_move(),
        }
        .view(viewer, presence, now);
        let over = row.status.is_over();
        let (is_rated, pool, rating_changes) = rated_fields(rated, over);
        GameState {
            summary: GameSummary {
                id: row.id.clone(),
                mode: Wire(row.mode),
                rule: Wire(row.rule),
                board_size: row.board_size,
                move_count: moves.len(),
                current_player: game
                    .to_move()
                    .filter(|_| !row.in_opening())
                    .map(Stone::as_u8),
                result: ResultView::of(stored),
                rated: is_rated,
                pool,
                rating_changes,
                last_move: game.last_move().map(MoveView::from),
                ai: row.ai.map(AiView::from),
                players: table.players,
                you: table.you,
                offers: table.offers,
                rematch_game_id: row.rematch_game_id.clone(),
                clock: table.clock,
                time_control: table.time_control,
                opening: OpeningView::new(row, seats, viewer),
                version: row.version,
                created_at: row.created_at.clone(),
                updated_at: row.updated_at.clone(),
            },
            board: game.board().to_rows(),
            move_history: moves.iter().map(MoveView::from).collect(),
            forbidden_moves: game
                .forbidden_points()
                .into_iter()
                .map(|(p, kind)| ForbiddenView {
                    row: p.row,
                    col: p.col,
                    kind: Wire(kind),
                })
                .collect(),
        }
    }
}

impl GameSummary {
    /// A listing entry as `viewer` sees it, with `presence` and the clocks as of `now`; `rated`
    /// if it is a rated game.
    pub fn new(
        s: Summary,
        viewer: &str,
        presence: Presence,
        now: OffsetDateTime,
        rated: Option<&RatedInfo>,
    ) -> GameSummary {
        let status = s.row.status;
        let winner = match status {
            GameStatus::Rules(status) => status.winner(),
            GameStatus::Waiting => None,
        };
        let table = Table {
            mode: s.row.mode,
            rated,
            seats: &s.seats,
            offers: s.row.offers,
            clock: s.row.clock,
            time_control: s.row.time_control,
            to_move: s.to_move,
        }
        .view(viewer, presence, now);
        let opening = OpeningView::new(&s.row, &s.seats, viewer);
        let over = status.is_over();
        let (is_rated, pool, rating_changes) = rated_fields(rated, over);
        GameSummary {
            current_player: s.to_move.filter(|_| !s.row.in_opening()).map(Stone::as_u8),
            result: ResultView {
                status: Wire(status),
                winner: winner.map(Stone::as_u8),
                end_reason: s.row.end_reason.map(Wire),
                win_line: win_line_view(&s.win_line),
            },
            rated: is_rated,
            pool,
            rating_changes,
            last_move: s.last_move.map(|(p, stone)| MoveView::new(p, stone)),
            players: table.players,
            you: table.you,
            offers: table.offers,
            rematch_game_id: s.row.rematch_game_id,
            clock: table.clock,
            time_control: table.time_control,
            opening,
            version: s.row.version,
            id: s.row.id,
            mode: Wire(s.row.mode),
            rule: Wire(s.row.rule),
            board_size: s.row.board_size,
            move_count: s.row.move_count,
            ai: s.row.ai.map(AiView::from),
            created_at: s.row.created_at,
            updated_at: s.row.updated_at,
        }
    }
}

/// The state of `stored` as the caller sees it: with this process's presence, the clocks as of
/// now, and its rating if it is a rated game.
pub async fn render(
    state: &AppState,
    stored: &StoredGame,
    player: &Player,
) -> Result<GameState, ApiError> {
    let rated = state.rated.of(&stored.row, &stored.seats).await?;
    Ok(GameState::new(
        stored,
        &player.id,
        state.hub.presence(&stored.row.id),
        OffsetDateTime::now_utc(),
        rated.as_deref(),
    ))
}

/// The answer of a game service call that yields a game: the game rendered for the caller, or
/// the error; a game over that carries the game it ended in is answered with it, rendered too.
pub async fn answer(
    state: &AppState,
    player: &Player,
    result: Result<Arc<StoredGame>, games::Error>,
) -> Result<Json<GameState>, ApiError> {
    match result {
        Ok(stored) => Ok(Json(render(state, &stored, player).await?)),
        Err(games::Error::GameOver { game: Some(game) }) => Err(ApiError::GameOverWith(Box::new(
            render(state, &game, player).await?,
        ))),
        Err(e) => Err(e.into()),
    }
}

/// A rank (段位) beside a rating.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RankView {
    /// "3段", "4级", "新手".
    pub name: String,
    /// "dan", "kyu" or "novice".
    pub tier: String,
}

/// A Glicko-2 rating as every page shows it, a game rating or a puzzle rating alike.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RatingPoints {
    /// Rounded to a whole point.
    pub rating: i32,
    /// The rating deviation, rounded.
    pub rd: i32,
    /// Too few rated results to trust yet (deviation 110 or more).
    pub provisional: bool,
    /// The rating as shown: "1523", or "1500?" while provisional.
    pub shown: String,
}

impl From<&Rating> for RatingPoints {
    fn from(r: &Rating) -> RatingPoints {
        RatingPoints {
            rating: r.points(),
            rd: r.rd.round() as i32,
            provisional: r.provisional(),
            shown: r.shown(),
        }
    }
}

/// A player's rating in one family, as every page shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingView {
    /// "gomoku" (freestyle and standard) or "renju".
    pub family: String,
    #[serde(flatten)]
    pub points: RatingPoints,
    pub rank: RankView,
    pub games: u32,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl From<&Record> for RatingView {
    fn from(r: &Record) -> RatingView {
        let rank = ratings::rank(r.rating.rating);
        RatingView {
            family: r.family.as_str().to_string(),
            points: RatingPoints::from(&r.rating),
            rank: RankView {
                name: rank.name.to_string(),
                tier: rank.tier().to_string(),
            },
            games: r.games,
            wins: r.wins,
            losses: r.losses,
            draws: r.draws,
        }
    }
}
