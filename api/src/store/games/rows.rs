//! Row mapping for the `games`, `moves` and `seats` tables, for both backends: the columns a
//! query selects, and turning a row into the store's types. Every name column (mode, rule,
//! level, status, end reason) is read through its type's `FromStr`, written through its
//! `as_str`; a stored value that no type knows is [`StoreError::Corrupt`], never a default.
//!
//! A row is read through [`Columns`], the little each backend's row type must say (a column as
//! text, or as an integer of whatever width the backend stores it in), so the mapping itself is
//! written once.

use std::str::FromStr;

use gomoku_rules::opening::{Choice, Seat as OpeningSeat, Step};
use gomoku_rules::{Game, Opening, OpeningRule, Point, Rule, Status, Stone};
use serde::{Deserialize, Serialize};
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Column, Row, TypeInfo};

use super::model::{
    AiSetting, Clock, GameRow, GameStatus, Mode, Offer, Offers, Seat, Seats, StoredGame,
    StoredMove, Summary, TimeControl,
};
use super::DueGame;
use crate::store::{parse_timestamp, timestamp, StoreError};
use time::OffsetDateTime;

/// The columns of a game row, in the order [`game_row`] reads them by name.
pub const GAME_COLUMNS: &str = "g.id, g.player_id, g.mode, g.rule, g.board_size, g.ai_level, \
     g.ai_player, g.status, g.end_reason, g.move_count, g.version, g.created_at, g.updated_at, \
     g.finished_at, g.initial_ms, g.increment_ms, g.black_ms, g.white_ms, g.deadline, \
     g.takeback_offer, g.draw_offer, g.takeback_expires, g.draw_expires, g.rematch_offer, \
     g.rematch_expires, g.rematch_game_id, g.opening, g.opening_steps";

/// The games whose timer is due some time (a running clock, a pending offer), with the
/// instants [`due_game`] reads.
pub const DUE_GAMES: &str = "select id, version, deadline, takeback_expires, draw_expires, \
     rematch_expires from games where deadline is not null or takeback_expires is not null \
     or draw_expires is not null or rematch_expires is not null";

/// What a listing adds to the game row, from `games` and its last move (`m`).
pub const SUMMARY_COLUMNS: &str = "g.win_line, g.to_move, m.row as last_row, \
     m.col as last_col, m.player as last_player";

/// The columns of a move joined to its game row (null for a game without moves). `row` is
/// quoted: PostgreSQL knows it as a keyword.
pub const MOVE_COLUMNS: &str = "m.\"row\" as m_row, m.col as m_col, m.player as m_player, \
     m.played_at as m_at, m.clock_ms as m_clock_ms";

/// The columns of a seat with its player's name (`s` seats, `p` players), as [`seat`] reads them.
pub const SEAT_COLUMNS: &str = "s.game_id, s.player_id, s.colour, p.name";

/// What the row mapping needs of a backend's row: a column by name, as text, as an integer or
/// as a float (None when null).
pub trait Columns {
    fn text(&self, column: &str) -> Result<Option<String>, StoreError>;
    fn int(&self, column: &str) -> Result<Option<i64>, StoreError>;
    fn real(&self, column: &str) -> Result<Option<f64>, StoreError>;

    /// A column that may not be null.
    fn need_text(&self, column: &str) -> Result<String, StoreError> {
        self.text(column)?.ok_or_else(|| null(column))
    }

    /// An integer column that may not be null.
    fn need_int(&self, column: &str) -> Result<i64, StoreError> {
        self.int(column)?.ok_or_else(|| null(column))
    }
}

fn null(column: &str) -> StoreError {
    StoreError::Corrupt(column.to_string(), "unexpected null".into())
}

impl Columns for SqliteRow {
    fn text(&self, column: &str) -> Result<Option<String>, StoreError> {
        Ok(self.try_get(column)?)
    }

    fn int(&self, column: &str) -> Result<Option<i64>, StoreError> {
        Ok(self.try_get(column)?)
    }

    fn real(&self, column: &str) -> Result<Option<f64>, StoreError> {
        Ok(self.try_get(column)?)
    }
}

impl Columns for PgRow {
    fn text(&self, column: &str) -> Result<Option<String>, StoreError> {
        Ok(self.try_get(column)?)
    }

    /// PostgreSQL decodes an integer only into a Rust type of its own width.
    fn int(&self, column: &str) -> Result<Option<i64>, StoreError> {
        let width = self.try_column(column)?.type_info().name().to_string();
        Ok(match width.as_str() {
            "INT2" => self.try_get::<Option<i16>, _>(column)?.map(i64::from),
            "INT4" => self.try_get::<Option<i32>, _>(column)?.map(i64::from),
            _ => self.try_get(column)?,
        })
    }

    /// Stored as `double precision`.
    fn real(&self, column: &str) -> Result<Option<f64>, StoreError> {
        Ok(self.try_get(column)?)
    }
}

/// A row as a JSON object (PostgreSQL's `json_build_object`), such as one seat of the seats a
/// game load aggregates beside its row: numbers are integers or reals, as the column was.
impl Columns for serde_json::Map<String, serde_json::Value> {
    fn text(&self, column: &str) -> Result<Option<String>, StoreError> {
        json_value(self, column, "not text", |v| v.as_str().map(str::to_string))
    }

    fn int(&self, column: &str) -> Result<Option<i64>, StoreError> {
        json_value(self, column, "not an integer", serde_json::Value::as_i64)
    }

    fn real(&self, column: &str) -> Result<Option<f64>, StoreError> {
        json_value(self, column, "not a number", serde_json::Value::as_f64)
    }
}

/// A JSON row's value read by `read`: None when absent or null, `wrong` when `read` takes none.
fn json_value<T>(
    row: &serde_json::Map<String, serde_json::Value>,
    column: &str,
    wrong: &str,
    read: impl Fn(&serde_json::Value) -> Option<T>,
) -> Result<Option<T>, StoreError> {
    match row.get(column) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(value) => read(value).map(Some).ok_or_else(|| corrupt(column, wrong)),
    }
}

/// A row's value that no type accepts.
fn corrupt(id: &str, what: &str) -> StoreError {
    StoreError::Corrupt(id.to_string(), what.to_string())
}

/// A name column parsed by its type.
fn named<T: FromStr>(r: &impl Columns, column: &str, id: &str) -> Result<T, StoreError> {
    optional_named(r, column, id)?.ok_or_else(|| corrupt(id, column))
}

fn optional_named<T: FromStr>(
    r: &impl Columns,
    column: &str,
    id: &str,
) -> Result<Option<T>, StoreError> {
    match r.text(column)? {
        Some(text) => text.parse().map(Some).map_err(|_| corrupt(id, column)),
        None => Ok(None),
    }
}

fn stone(value: i64) -> Option<Stone> {
    u8::try_from(value).ok().and_then(Stone::from_u8)
}

fn optional_stone(r: &impl Columns, column: &str, id: &str) -> Result<Option<Stone>, StoreError> {
    match r.int(column)? {
        Some(v) => stone(v).map(Some).ok_or_else(|| corrupt(id, column)),
        None => Ok(None),
    }
}

fn count(r: &impl Columns, column: &str, id: &str) -> Result<usize, StoreError> {
    usize::try_from(r.need_int(column)?).map_err(|_| corrupt(id, column))
}

/// A colour as stored: 1 black, 2 white.
pub fn stone_value(stone: Stone) -> i64 {
    i64::from(stone.as_u8())
}

/// An instant stored as RFC 3339 text.
fn optional_time(
    r: &impl Columns,
    column: &str,
    id: &str,
) -> Result<Option<OffsetDateTime>, StoreError> {
    match r.text(column)? {
        Some(text) => Ok(Some(
            parse_timestamp(&text).ok_or_else(|| corrupt(id, column))?,
        )),
        None => Ok(None),
    }
}

/// A pending offer: its colour and its expiry, both or neither.
fn offer(r: &impl Columns, by: &str, expires: &str, id: &str) -> Result<Option<Offer>, StoreError> {
    match (optional_stone(r, by, id)?, optional_time(r, expires, id)?) {
        (Some(by), Some(expires)) => Ok(Some(Offer { by, expires })),
        (None, None) => Ok(None),
        _ => Err(corrupt(id, by)),
    }
}

fn optional_ms(r: &impl Columns, column: &str, id: &str) -> Result<Option<i64>, StoreError> {
    match r.int(column)? {
        Some(ms) if ms >= 0 => Ok(Some(ms)),
        Some(_) => Err(corrupt(id, column)),
        None => Ok(None),
    }
}

/// The game row of a query that selected [`GAME_COLUMNS`]. The status, end reason, time control
/// and clock must agree with each other and with the mode.
pub fn game_row(r: &impl Columns) -> Result<GameRow, StoreError> {
    let id = r.need_text("id")?;
    let ai = match (
        optional_named(r, "ai_level", &id)?,
        optional_stone(r, "ai_player", &id)?,
    ) {
        (Some(level), Some(player)) => Some(AiSetting { level, player }),
        (None, None) => None,
        _ => return Err(corrupt(&id, "ai")),
    };
    let mode: Mode = named(r, "mode", &id)?;
    let status: GameStatus = named(r, "status", &id)?;
    let end_reason = optional_named(r, "end_reason", &id)?;
    if status.is_over() != end_reason.is_some()
        || (status == GameStatus::Waiting && mode != Mode::Online)
    {
        return Err(corrupt(&id, "status"));
    }
    let time_control = match (
        optional_ms(r, "initial_ms", &id)?,
        optional_ms(r, "increment_ms", &id)?,
    ) {
        (Some(initial_ms), Some(increment_ms)) => Some(TimeControl {
            initial_ms,
            increment_ms,
        }),
        (None, None) => None,
        _ => return Err(corrupt(&id, "time control")),
    };
    let rule: Rule = named(r, "rule", &id)?;
    let board_size = count(r, "board_size", &id)?;
    let opening = match (
        optional_named::<OpeningRule>(r, "opening", &id)?,
        r.text("opening_steps")?,
    ) {
        (Some(opening), Some(steps)) => Some(
            replay_opening(board_size, rule, opening, &steps)
                .ok_or_else(|| corrupt(&id, "opening_steps"))?,
        ),
        (None, None) => None,
        _ => return Err(corrupt(&id, "opening")),
    };
    // The stored AI colour is the one its seat started with (see `GameRow::swapped`).
    let swapped = opening
        .as_ref()
        .is_some_and(|o| o.black() == OpeningSeat::Second);
    let ai = ai.map(|ai| AiSetting {
        player: if swapped {
            ai.player.opponent()
        } else {
            ai.player
        },
        ..ai
    });
    let deadline = optional_time(r, "deadline", &id)?;
    let clock = match (
        optional_ms(r, "black_ms", &id)?,
        optional_ms(r, "white_ms", &id)?,
    ) {
        (Some(black_ms), Some(white_ms)) if time_control.is_some() => Some(Clock {
            black_ms,
            white_ms,
            deadline,
        }),
        (None, None) if time_control.is_none() && deadline.is_none() => None,
        _ => return Err(corrupt(&id, "clock")),
    };
    Ok(GameRow {
        player_id: r.need_text("player_id")?,
        mode,
        rule,
        board_size,
        ai,
        status,
        end_reason,
        move_count: count(r, "move_count", &id)?,
        version: r.need_int("version")?,
        created_at: r.need_text("created_at")?,
        updated_at: r.need_text("updated_at")?,
        finished_at: r.text("finished_at")?,
        time_control,
        clock,
        offers: Offers {
            takeback: offer(r, "takeback_offer", "takeback_expires", &id)?,
            draw: offer(r, "draw_offer", "draw_expires", &id)?,
            rematch: offer(r, "rematch_offer", "rematch_expires", &id)?,
        },
        rematch_game_id: r.text("rematch_game_id")?,
        opening,
        id,
    })
}

/// One opening step as stored: its seat and the step, e.g. `{"by":"first","place":[7,7]}`,
/// `{"by":"second","choose":"black"}`, `{"by":"first","offer":[[7,9],...]}`.
#[derive(Serialize, Deserialize)]
struct StepRecord {
    by: String,
    #[serde(flatten)]
    step: StepKind,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum StepKind {
    Place([usize; 2]),
    Choose(String),
    Offer(Vec<[usize; 2]>),
    Pick([usize; 2]),
}

/// The stored form of an opening's steps: a JSON list of [`StepRecord`]s.
pub fn opening_steps_json(opening: &Opening) -> String {
    let pair = |p: &Point| [p.row, p.col];
    let records: Vec<StepRecord> = opening
        .steps()
        .iter()
        .map(|(seat, step)| StepRecord {
            by: seat.as_str().to_string(),
            step: match step {
                Step::Place(p) => StepKind::Place(pair(p)),
                Step::Choose(c) => StepKind::Choose(c.as_str().to_string()),
                Step::Offer(points) => StepKind::Offer(points.iter().map(pair).collect()),
                Step::Pick(p) => StepKind::Pick(pair(p)),
            },
        })
        .collect();
    serde_json::to_string(&records).unwrap_or_else(|_| "[]".into())
}

/// The opening a game's stored steps lead to, each step taken again through the rules; None
/// when the steps do not parse or the rules refuse one.
fn replay_opening(size: usize, rule: Rule, opening: OpeningRule, steps: &str) -> Option<Opening> {
    let point = |[row, col]: [usize; 2]| Point::new(row, col);
    let mut replayed = Opening::new(size, rule, opening).ok()?;
    for record in serde_json::from_str::<Vec<StepRecord>>(steps).ok()? {
        let seat: OpeningSeat = record.by.parse().ok()?;
        let step = match record.step {
            StepKind::Place(p) => Step::Place(point(p)),
            StepKind::Choose(c) => Step::Choose(c.parse::<Choice>().ok()?),
            StepKind::Offer(points) => Step::Offer(points.into_iter().map(point).collect()),
            StepKind::Pick(p) => Step::Pick(point(p)),
        };
        replayed.apply(seat, step).ok()?;
    }
    Some(replayed)
}

/// A seat of a query that selected [`SEAT_COLUMNS`]: its game's id, and where the player sits
/// (None: both colours, the owner of a local game).
pub fn seat(r: &impl Columns) -> Result<(String, Option<Stone>, Seat), StoreError> {
    let game_id = r.need_text("game_id")?;
    let colour = optional_stone(r, "colour", &game_id)?;
    let seat = Seat {
        player_id: r.need_text("player_id")?,
        name: r.need_text("name")?,
    };
    Ok((game_id, colour, seat))
}

/// The seats of one game, from rows that selected [`SEAT_COLUMNS`].
pub fn seats<R: Columns>(rows: &[R]) -> Result<Seats, StoreError> {
    let mut seats = Seats::default();
    for r in rows {
        let (_, colour, seat) = seat(r)?;
        add_seat(&mut seats, colour, seat);
    }
    Ok(seats)
}

/// Seats each listed game's players, from rows that selected [`SEAT_COLUMNS`] for them all.
pub fn seat_summaries<R: Columns>(summaries: &mut [Summary], rows: &[R]) -> Result<(), StoreError> {
    for r in rows {
        let (game_id, colour, seat) = seat(r)?;
        if let Some(summary) = summaries.iter_mut().find(|s| s.row.id == game_id) {
            let swapped = summary.row.swapped();
            add_seat(&mut summary.seats, colour.map(|c| seated(c, swapped)), seat);
        }
    }
    Ok(())
}

/// The seats of the game of `row` at the colours they play: the stored colours are those the
/// seats started with, which an opening's swaps may have exchanged (see `GameRow::swapped`).
pub fn as_played(row: &GameRow, seats: Seats) -> Seats {
    if row.swapped() {
        seats.swapped()
    } else {
        seats
    }
}

/// A loaded game: its row with its moves (rows that selected [`GAME_COLUMNS`] and
/// [`MOVE_COLUMNS`], one per move in ply order, or one with null move columns), its seats, and
/// the position rebuilt from them; None when there is no such game.
pub fn stored<R: Columns>(rows: &[R], seats: Seats) -> Result<Option<StoredGame>, StoreError> {
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let row = game_row(first)?;
    let seats = as_played(&row, seats);
    let mut moves = Vec::with_capacity(rows.len());
    for r in rows {
        moves.extend(joined_move(r, &row.id)?);
    }
    if moves.len() != row.move_count {
        return Err(corrupt(&row.id, "move count differs from moves"));
    }
    let game = rebuild(&row, &moves)?;
    if let Some(opening) = &row.opening {
        // The opening's stones are the game's first moves, all of them while it goes on.
        let stones = opening.game().moves();
        let fits = game.moves().get(..stones.len()) == Some(stones)
            && (opening.is_done() || stones.len() == moves.len());
        if !fits {
            return Err(corrupt(&row.id, "opening stones differ from moves"));
        }
    }
    Ok(Some(StoredGame {
        row,
        seats,
        moves,
        game,
    }))
}

/// `cached` brought forward by the rows of a query like [`stored`]'s that read the game's row and
/// only its moves from ply `cached.moves.len()` on: the moves it has are played on the cached
/// position rather than replayed from the start. None when the rows do not simply follow it
/// (moves taken back, a game with an opening, a cached game already over, a move count that does
/// not add up): then the whole game must be read.
pub fn advanced<R: Columns>(
    cached: &StoredGame,
    rows: &[R],
    seats: Seats,
) -> Result<Option<StoredGame>, StoreError> {
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let row = game_row(first)?;
    let simple = row.opening.is_none()
        && cached.row.opening.is_none()
        && row.move_count >= cached.moves.len()
        && cached.game.outcome().status() == Status::Playing;
    if !simple {
        return Ok(None);
    }
    let mut moves = cached.moves.clone();
    for r in rows {
        moves.extend(joined_move(r, &row.id)?);
    }
    if moves.len() != row.move_count {
        return Ok(None);
    }
    let mut game = cached.game.clone();
    for (index, m) in moves.iter().enumerate().skip(cached.moves.len()) {
        game.play(m.point)
            .map_err(|e| StoreError::Corrupt(row.id.clone(), format!("move {index}: {e:?}")))?;
    }
    let game = ended(&row, game)?;
    Ok(Some(StoredGame {
        row,
        seats,
        moves,
        game,
    }))
}

/// The colour now of a seat stored at `colour`, in a game whose opening has `swapped` them.
fn seated(colour: Stone, swapped: bool) -> Stone {
    if swapped {
        colour.opponent()
    } else {
        colour
    }
}

/// Seats a player read by [`seat`] (at both colours when `colour` is None).
pub fn add_seat(seats: &mut Seats, colour: Option<Stone>, seat: Seat) {
    match colour {
        Some(colour) => seats.set(colour, seat),
        None => {
            seats.set(Stone::Black, seat.clone());
            seats.set(Stone::White, seat);
        }
    }
}

/// The move of a row that selected [`MOVE_COLUMNS`]; None for the null row of a game without
/// moves.
pub fn joined_move(r: &impl Columns, game_id: &str) -> Result<Option<StoredMove>, StoreError> {
    let Some(row) = r.int("m_row")? else {
        return Ok(None);
    };
    let bad = || corrupt(game_id, "move");
    Ok(Some(StoredMove {
        point: Point::new(
            usize::try_from(row).map_err(|_| bad())?,
            usize::try_from(r.need_int("m_col")?).map_err(|_| bad())?,
        ),
        stone: stone(r.need_int("m_player")?).ok_or_else(bad)?,
        played_at: r.need_text("m_at")?,
        clock_ms: optional_ms(r, "m_clock_ms", game_id)?,
    }))
}

/// A listing entry from a query that selected [`GAME_COLUMNS`] and [`SUMMARY_COLUMNS`], without
/// its seats (read apart). The stored status and side to move must agree.
pub fn summary(r: &impl Columns) -> Result<Summary, StoreError> {
    let row = game_row(r)?;
    let id = row.id.as_str();
    let to_move = optional_stone(r, "to_move", id)?;
    if row.status.is_over() == to_move.is_some() {
        return Err(corrupt(id, "status"));
    }
    let win_line = match r.text("win_line")? {
        Some(text) => serde_json::from_str::<Vec<[usize; 2]>>(&text)
            .map_err(|_| corrupt(id, "win_line"))?
            .into_iter()
            .map(|[row, col]| Point::new(row, col))
            .collect(),
        None => vec![],
    };
    let last_move = match (
        r.int("last_row")?,
        r.int("last_col")?,
        optional_stone(r, "last_player", id)?,
    ) {
        (Some(lr), Some(lc), Some(stone)) => Some((
            Point::new(
                usize::try_from(lr).map_err(|_| corrupt(id, "last move"))?,
                usize::try_from(lc).map_err(|_| corrupt(id, "last move"))?,
            ),
            stone,
        )),
        _ => None,
    };
    Ok(Summary {
        seats: Seats::default(),
        win_line,
        to_move,
        last_move,
        row,
    })
}

/// A game of [`DUE_GAMES`]: when its timer is due, the earliest of its instants.
pub fn due_game(r: &impl Columns) -> Result<DueGame, StoreError> {
    let id = r.need_text("id")?;
    let mut due: Option<OffsetDateTime> = None;
    for column in [
        "deadline",
        "takeback_expires",
        "draw_expires",
        "rematch_expires",
    ] {
        if let Some(at) = optional_time(r, column, &id)? {
            due = Some(due.map_or(at, |d| d.min(at)));
        }
    }
    Ok(DueGame {
        version: r.need_int("version")?,
        due: due.ok_or_else(|| corrupt(&id, "due"))?,
        id,
    })
}

/// The stored form of an offer: its colour and its expiry.
pub fn offer_columns(offer: Option<Offer>) -> (Option<i64>, Option<String>) {
    (
        offer.map(|o| stone_value(o.by)),
        offer.map(|o| timestamp(o.expires)),
    )
}

/// The stored form of a clock's deadline.
pub fn deadline_text(clock: Option<Clock>) -> Option<String> {
    clock.and_then(|c| c.deadline).map(timestamp)
}

/// The winning line as stored: JSON `[[row, col], ...]`, or null when there is none.
pub fn win_line_json(line: &[Point]) -> Option<String> {
    if line.is_empty() {
        return None;
    }
    let pairs: Vec<[usize; 2]> = line.iter().map(|p| [p.row, p.col]).collect();
    serde_json::to_string(&pairs).ok()
}

/// Rebuilds the position of a stored game: replays the moves, then the ending off the board
/// that the stored result records. The result must agree with the stored status and end reason.
pub fn rebuild(row: &GameRow, moves: &[StoredMove]) -> Result<Game, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt(row.id.clone(), what);
    let points: Vec<Point> = moves.iter().map(|m| m.point).collect();
    let game = Game::replay(row.board_size, row.rule, &points)
        .map_err(|(index, e)| corrupt(format!("move {index}: {e:?}")))?;
    ended(row, game)
}

/// `game`, its moves played, with the row's ending off the board applied, checked against the
/// stored result.
fn ended(row: &GameRow, mut game: Game) -> Result<Game, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt(row.id.clone(), what);
    if let Some(ending) = row.ending() {
        game.end(ending)
            .map_err(|e| corrupt(format!("{ending:?} after the moves: {e:?}")))?;
    }
    let status = match row.status {
        GameStatus::Waiting => Status::Playing,
        GameStatus::Rules(status) => status,
    };
    let outcome = game.outcome();
    if outcome.status() != status || outcome.end_reason() != row.end_reason {
        return Err(corrupt(format!(
            "stored result {} {:?} but the moves give {} {:?}",
            row.status.as_str(),
            row.end_reason,
            outcome.status(),
            outcome.end_reason()
        )));
    }
    Ok(game)
}
