//! Reading served game states (JSON) and checking that one tells a single story: the board is
//! its moves replayed, and its result is what the rules crate's judge says those moves lead to.
//! The expected strings are written out here from the API's contract rather than borrowed from
//! the service, so a service that renames one is caught.

use gomoku_rules::{DrawReason, Game, Outcome, Point, Rule, Stone, WinReason};
use serde_json::{json, Value};

/// One move as the API writes it: `(row, col, player)`.
pub type Triple = (i64, i64, i64);

/// The `id` of a served state or summary.
pub fn id_of(state: &Value) -> String {
    state["id"].as_str().expect("game id").to_string()
}

/// `(row, col, player)` of each move in a list of `{"row","col","player"}` objects.
pub fn move_triples(moves: &Value) -> Vec<Triple> {
    triples(moves).unwrap_or_else(|e| panic!("{e}: {moves}"))
}

/// The moves of a served state's `moveHistory`.
pub fn moves_of(state: &Value) -> Vec<Triple> {
    move_triples(&state["moveHistory"])
}

fn triples(moves: &Value) -> Result<Vec<Triple>, String> {
    let list = moves.as_array().ok_or("not an array of moves")?;
    list.iter()
        .map(
            |m| match (m["row"].as_i64(), m["col"].as_i64(), m["player"].as_i64()) {
                (Some(row), Some(col), Some(player)) => Ok((row, col, player)),
                _ => Err(format!("a move without integer row, col and player: {m}")),
            },
        )
        .collect()
}

/// The moves of a rules-crate game, as the API writes them.
pub fn game_triples(game: &Game) -> Vec<Triple> {
    game.moves()
        .iter()
        .map(|m| {
            (
                m.point.row as i64,
                m.point.col as i64,
                i64::from(m.stone.as_u8()),
            )
        })
        .collect()
}

/// The cells of a served board where the side to move may play: empty and not listed in
/// `forbiddenMoves`; row-major.
pub fn open_cells(state: &Value) -> Vec<(i64, i64)> {
    let forbidden: Vec<(i64, i64)> = state["forbiddenMoves"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| (p["row"].as_i64().unwrap(), p["col"].as_i64().unwrap()))
        .collect();
    let mut cells = Vec::new();
    for (r, row) in state["board"].as_array().into_iter().flatten().enumerate() {
        for (c, cell) in row.as_array().into_iter().flatten().enumerate() {
            let cell_at = (r as i64, c as i64);
            if cell.as_i64() == Some(0) && !forbidden.contains(&cell_at) {
                cells.push(cell_at);
            }
        }
    }
    cells
}

/// The `status`, `winner` and `endReason` the API must report for a game with this outcome.
pub fn expected_result(game: &Game) -> (&'static str, Value, Value) {
    match game.outcome() {
        Outcome::Ongoing => ("playing", Value::Null, Value::Null),
        Outcome::Win { winner, reason, .. } => (
            match winner {
                Stone::Black => "black_won",
                Stone::White => "white_won",
            },
            json!(winner.as_u8()),
            json!(match reason {
                WinReason::Five => "five",
                WinReason::Resign => "resign",
                WinReason::Timeout => "timeout",
            }),
        ),
        Outcome::Draw { reason } => (
            "draw",
            Value::Null,
            json!(match reason {
                DrawReason::BoardFull => "board_full",
                DrawReason::NoFivePossible => "no_five_possible",
                DrawReason::Agreement => "agreement",
            }),
        ),
        Outcome::Aborted => ("aborted", Value::Null, json!("aborted")),
    }
}

/// Panics unless [`check_state`] finds the state consistent.
#[track_caller]
pub fn assert_state_consistent(state: &Value) {
    if let Err(e) = check_state(state) {
        panic!("{e}");
    }
}

/// Whether a served state tells one story: the board is the moves replayed, the counters and
/// last move match them, players alternate from black, and status, winner, end reason, side to
/// move and win line are what the judge says the moves lead to (an ending off the board aside —
/// resignation, time, agreement — which only needs moves that had not already ended the game; and
/// an online game still `waiting`, which is open with black to move). The first disagreement
/// found.
pub fn check_state(state: &Value) -> Result<(), String> {
    let id = &state["id"];
    let size = state["boardSize"]
        .as_u64()
        .ok_or(format!("game {id}: no boardSize"))? as usize;
    let rule: Rule = state["rule"]
        .as_str()
        .unwrap_or("")
        .parse()
        .map_err(|_| format!("game {id}: unknown rule {}", state["rule"]))?;
    let moves = triples(&state["moveHistory"]).map_err(|e| format!("game {id}: {e}"))?;
    if state["moveCount"].as_u64() != Some(moves.len() as u64) {
        return Err(format!(
            "game {id}: moveCount {} but {} moves",
            state["moveCount"],
            moves.len()
        ));
    }

    let mut board = vec![vec![0i64; size]; size];
    let on_board = |v: i64| (0..size as i64).contains(&v);
    for (ply, &(row, col, player)) in moves.iter().enumerate() {
        if player != 1 + (ply % 2) as i64 || !on_board(row) || !on_board(col) {
            return Err(format!(
                "game {id}: bad move at ply {ply}: ({row},{col}) by {player}"
            ));
        }
        board[row as usize][col as usize] = player;
    }
    let served: Vec<Vec<i64>> = serde_json::from_value(state["board"].clone())
        .map_err(|e| format!("game {id}: board: {e}"))?;
    if served != board {
        return Err(format!(
            "game {id}: the served board differs from its moves replayed"
        ));
    }
    let last = moves.last().map_or(
        Value::Null,
        |&(row, col, player)| json!({"row": row, "col": col, "player": player}),
    );
    if state["lastMove"] != last {
        return Err(format!(
            "game {id}: lastMove {} but {last}",
            state["lastMove"]
        ));
    }

    let points: Vec<Point> = moves
        .iter()
        .map(|&(r, c, _)| Point::new(r as usize, c as usize))
        .collect();
    let game = Game::replay(size, rule, &points)
        .map_err(|(i, e)| format!("game {id}: stored move {i} is illegal: {e:?}"))?;
    let status = state["status"].as_str().unwrap_or("");
    // Endings off the board: a resignation or a flag fall (won by either colour), a draw agreed,
    // a rated game aborted.
    let off_board = match state["endReason"].as_str() {
        Some("resign" | "timeout") => Some(["black_won", "white_won"].as_slice()),
        Some("agreement") => Some(["draw"].as_slice()),
        Some("aborted") => Some(["aborted"].as_slice()),
        _ => None,
    };
    if let Some(statuses) = off_board {
        if game.outcome() != &Outcome::Ongoing {
            return Err(format!(
                "game {id}: ended {}, but its moves already ended it",
                state["endReason"]
            ));
        }
        if !statuses.contains(&status) {
            return Err(format!(
                "game {id}: ended {} with status {status}",
                state["endReason"]
            ));
        }
        if !state["currentPlayer"].is_null() || !state["winLine"].is_null() {
            return Err(format!(
                "game {id}: ended off the board with a side to move or a win line"
            ));
        }
        return Ok(());
    }
    let (mut want_status, want_winner, want_reason) = expected_result(&game);
    if status == "waiting" && moves.is_empty() {
        want_status = "waiting";
    }
    if (status, &state["winner"], &state["endReason"]) != (want_status, &want_winner, &want_reason)
    {
        return Err(format!(
            "game {id}: status {status} / {} / {} but its moves give {want_status} / \
             {want_winner} / {want_reason}",
            state["winner"], state["endReason"]
        ));
    }
    let to_move = if want_status == "playing" || want_status == "waiting" {
        json!(1 + moves.len() % 2)
    } else {
        Value::Null
    };
    if state["currentPlayer"] != to_move {
        return Err(format!(
            "game {id}: currentPlayer {} but {to_move}",
            state["currentPlayer"]
        ));
    }
    let mut want_line: Vec<(i64, i64)> = match game.outcome() {
        Outcome::Win { line, .. } => line.iter().map(|p| (p.row as i64, p.col as i64)).collect(),
        _ => Vec::new(),
    };
    let mut served_line: Vec<(i64, i64)> = state["winLine"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["row"].as_i64().unwrap_or(-1),
                p["col"].as_i64().unwrap_or(-1),
            )
        })
        .collect();
    want_line.sort();
    served_line.sort();
    if served_line != want_line {
        return Err(format!(
            "game {id}: winLine {served_line:?} but its moves give {want_line:?}"
        ));
    }
    Ok(())
}
