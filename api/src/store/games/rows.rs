//! Row mapping for the `games` and `moves` tables: the columns a query selects, and turning a
//! row into the store's types. Every name column (mode, rule, level, status, end reason) is read
//! through its type's `FromStr`, written through its `as_str`; a stored value that no type knows
//! is [`StoreError::Corrupt`], never a default.

use std::str::FromStr;

use gomoku_rules::{Game, Point, Status, Stone};
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

use super::model::{
    AiSetting, Clock, GameRow, GameStatus, Mode, Offers, Seat, Seats, StoredMove, Summary,
    TimeControl,
};
use crate::store::{parse_timestamp, StoreError};

/// The columns of a game row, in the order [`game_row`] reads them by name.
pub const GAME_COLUMNS: &str = "g.id, g.player_id, g.mode, g.rule, g.board_size, g.ai_level, \
     g.ai_player, g.status, g.end_reason, g.move_count, g.version, g.created_at, g.updated_at, \
     g.finished_at, g.initial_ms, g.increment_ms, g.black_ms, g.white_ms, g.deadline, \
     g.takeback_offer, g.draw_offer";

/// What a listing adds to the game row, from `games` and its last move (`m`).
pub const SUMMARY_COLUMNS: &str = "g.win_line, g.to_move, m.row as last_row, \
     m.col as last_col, m.player as last_player";

/// The columns of a move joined to its game row (null for a game without moves).
pub const MOVE_COLUMNS: &str = "m.row as m_row, m.col as m_col, m.player as m_player, \
     m.played_at as m_at, m.clock_ms as m_clock_ms";

/// The columns of a seat with its player's name (`s` seats, `p` players), as [`seat`] reads them.
pub const SEAT_COLUMNS: &str = "s.game_id, s.player_id, s.colour, p.name";

/// A row's value that no type accepts.
fn corrupt(id: &str, what: &str) -> StoreError {
    StoreError::Corrupt(id.to_string(), what.to_string())
}

/// A name column parsed by its type.
fn named<T: FromStr>(r: &SqliteRow, column: &str, id: &str) -> Result<T, StoreError> {
    r.try_get::<&str, _>(column)?
        .parse()
        .map_err(|_| corrupt(id, column))
}

fn optional_named<T: FromStr>(
    r: &SqliteRow,
    column: &str,
    id: &str,
) -> Result<Option<T>, StoreError> {
    match r.try_get::<Option<&str>, _>(column)? {
        Some(text) => text.parse().map(Some).map_err(|_| corrupt(id, column)),
        None => Ok(None),
    }
}

fn stone(value: i64) -> Option<Stone> {
    u8::try_from(value).ok().and_then(Stone::from_u8)
}

fn optional_stone(r: &SqliteRow, column: &str, id: &str) -> Result<Option<Stone>, StoreError> {
    match r.try_get::<Option<i64>, _>(column)? {
        Some(v) => stone(v).map(Some).ok_or_else(|| corrupt(id, column)),
        None => Ok(None),
    }
}

fn count(r: &SqliteRow, column: &str, id: &str) -> Result<usize, StoreError> {
    usize::try_from(r.try_get::<i64, _>(column)?).map_err(|_| corrupt(id, column))
}

/// A colour as stored: 1 black, 2 white.
pub fn stone_value(stone: Stone) -> i64 {
    i64::from(stone.as_u8())
}

fn optional_ms(r: &SqliteRow, column: &str, id: &str) -> Result<Option<i64>, StoreError> {
    match r.try_get::<Option<i64>, _>(column)? {
        Some(ms) if ms >= 0 => Ok(Some(ms)),
        Some(_) => Err(corrupt(id, column)),
        None => Ok(None),
    }
}

/// The game row of a query that selected [`GAME_COLUMNS`]. The status, end reason, time control
/// and clock must agree with each other and with the mode.
pub fn game_row(r: &SqliteRow) -> Result<GameRow, StoreError> {
    let id: String = r.try_get("id")?;
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
    let deadline = match r.try_get::<Option<&str>, _>("deadline")? {
        Some(text) => Some(parse_timestamp(text).ok_or_else(|| corrupt(&id, "deadline"))?),
        None => None,
    };
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
        player_id: r.try_get("player_id")?,
        mode,
        rule: named(r, "rule", &id)?,
        board_size: count(r, "board_size", &id)?,
        ai,
        status,
        end_reason,
        move_count: count(r, "move_count", &id)?,
        version: r.try_get("version")?,
        created_at: r.try_get("created_at")?,
        updated_at: r.try_get("updated_at")?,
        finished_at: r.try_get("finished_at")?,
        time_control,
        clock,
        offers: Offers {
            takeback: optional_stone(r, "takeback_offer", &id)?,
            draw: optional_stone(r, "draw_offer", &id)?,
        },
        id,
    })
}

/// A seat of a query that selected [`SEAT_COLUMNS`]: its game's id, and where the player sits
/// (None: both colours, the owner of a local game).
pub fn seat(r: &SqliteRow) -> Result<(String, Option<Stone>, Seat), StoreError> {
    let game_id: String = r.try_get("game_id")?;
    let colour = optional_stone(r, "colour", &game_id)?;
    let seat = Seat {
        player_id: r.try_get("player_id")?,
        name: r.try_get("name")?,
    };
    Ok((game_id, colour, seat))
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
pub fn joined_move(r: &SqliteRow, game_id: &str) -> Result<Option<StoredMove>, StoreError> {
    let Some(row) = r.try_get::<Option<i64>, _>("m_row")? else {
        return Ok(None);
    };
    let bad = || corrupt(game_id, "move");
    Ok(Some(StoredMove {
        point: Point::new(
            usize::try_from(row).map_err(|_| bad())?,
            usize::try_from(r.try_get::<i64, _>("m_col")?).map_err(|_| bad())?,
        ),
        stone: stone(r.try_get("m_player")?).ok_or_else(bad)?,
        played_at: r.try_get("m_at")?,
        clock_ms: optional_ms(r, "m_clock_ms", game_id)?,
    }))
}

/// A listing entry from a query that selected [`GAME_COLUMNS`] and [`SUMMARY_COLUMNS`], without
/// its seats (read apart). The stored status and side to move must agree.
pub fn summary(r: &SqliteRow) -> Result<Summary, StoreError> {
    let row = game_row(r)?;
    let id = row.id.as_str();
    let to_move = optional_stone(r, "to_move", id)?;
    if row.status.is_over() == to_move.is_some() {
        return Err(corrupt(id, "status"));
    }
    let win_line = match r.try_get::<Option<&str>, _>("win_line")? {
        Some(text) => serde_json::from_str::<Vec<[usize; 2]>>(text)
            .map_err(|_| corrupt(id, "win_line"))?
            .into_iter()
            .map(|[row, col]| Point::new(row, col))
            .collect(),
        None => vec![],
    };
    let last_move = match (
        r.try_get::<Option<i64>, _>("last_row")?,
        r.try_get::<Option<i64>, _>("last_col")?,
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
    let mut game = Game::replay(row.board_size, row.rule, &points)
        .map_err(|(index, e)| corrupt(format!("move {index}: {e:?}")))?;
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
