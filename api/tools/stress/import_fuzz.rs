//! `import-fuzz`: records sent to the importer, half generated (random play, with at most one
//! flaw: an occupied cell, a coordinate off the board, a wrong player, a move after the end, a
//! bad version, size or rule) and half byte-mangled. A legal record must come back as exactly
//! that game, a flawed one as 422 INVALID_RECORD blaming the right move, a mangled one as any
//! documented answer but a 5xx (and, if accepted, as a consistent game).

use std::sync::Arc;

use clap::Args;
use gomoku_rules::{Game, Point, Rule};
use gomoku_testkit::state::{check_state, expected_result, game_triples, moves_of};
use gomoku_testkit::{ServerBinary, Stats};
use rand::rngs::StdRng;
use rand::Rng;
use serde_json::{json, Value};

#[derive(Args, Clone)]
pub struct ImportArgs {
    /// Records sent (half generated with at most one flaw, half byte-mangled).
    #[arg(long, default_value_t = 5000)]
    cases: usize,
}

/// A generated record and what the importer must answer: the legal game, or the move to blame
/// (None when the record as a whole is bad).
fn generate_record(rng: &mut StdRng) -> (Value, Result<Game, Option<usize>>) {
    let rules = [Rule::Freestyle, Rule::Standard, Rule::Renju];
    let (size, rule) = (rng.gen_range(9..=19), rules[rng.gen_range(0..3)]);
    let mut game = Game::new(size, rule).unwrap();
    let target = rng.gen_range(0..=size * size);
    // Random play, with black sometimes building a line so that games also end.
    let mut attempts = 0;
    while game.moves().len() < target && !game.is_over() && attempts < 20_000 {
        attempts += 1;
        let p = match game.last_move() {
            Some(last) if rng.gen_bool(0.3) => {
                let (dr, dc) = [(0, 1), (1, 0), (1, 1), (1, -1)][rng.gen_range(0..4)];
                last.point
                    .offset((dr, dc), rng.gen_range(-2..=2), size)
                    .unwrap_or(last.point)
            }
            _ => Point::new(rng.gen_range(0..size), rng.gen_range(0..size)),
        };
        let _ = game.play(p);
    }
    let mut moves = game_triples(&game);
    let (mut version, mut board_size, mut rule_name) =
        (json!("gomoku-1.0"), json!(size), json!(rule.as_str()));
    let n = moves.len();
    let blame = match rng.gen_range(0..10) {
        0 if n >= 2 => {
            let i = rng.gen_range(1..n);
            let j = rng.gen_range(0..i);
            (moves[i].0, moves[i].1) = (moves[j].0, moves[j].1);
            Some(Some(i))
        }
        1 if n >= 1 => {
            let i = rng.gen_range(0..n);
            moves[i].0 = [-1, size as i64, 1 << 40, i64::MIN][rng.gen_range(0..4)];
            Some(Some(i))
        }
        2 if n >= 1 => {
            let i = rng.gen_range(0..n);
            moves[i].2 = [0, 3, 3 - moves[i].2][rng.gen_range(0..3)];
            Some(Some(i))
        }
        3 if game.is_over() && !game.board().is_full() => {
            let empty = game
                .board()
                .points()
                .find(|&p| game.board().get(p).is_none())
                .unwrap();
            moves.push((empty.row as i64, empty.col as i64, 1 + (n % 2) as i64));
            Some(Some(n))
        }
        4 => {
            version = json!(["gomoku-0.9", "", "gomoku-1.0 ", "1.0"][rng.gen_range(0..4)]);
            Some(None)
        }
        5 => {
            board_size = json!([0, 8, 20, 25, -1, 1_000_000_000][rng.gen_range(0..6)]);
            Some(None)
        }
        6 => {
            rule_name = json!(["gomoku", "RENJU", ""][rng.gen_range(0..3)]);
            Some(None)
        }
        _ => None,
    };
    let moves: Vec<Value> = moves
        .iter()
        .map(|&(row, col, player)| json!({"row": row, "col": col, "player": player}))
        .collect();
    let record = json!({"version": version, "rule": rule_name, "boardSize": board_size, "moves": moves, "mode": "ai", "result": {"status": "draw"}});
    (record, blame.map_or(Ok(game), Err))
}

/// Changes one to three bytes of `bytes` (replace, insert or delete).
fn mangle(bytes: &mut Vec<u8>, rng: &mut StdRng) {
    const INTERESTING: &[u8] = b"{}[]\",:-0123456789.eE nulltruefalse\\\x00\xff";
    for _ in 0..rng.gen_range(1..=3) {
        if bytes.is_empty() {
            bytes.push(b'{');
        }
        let at = rng.gen_range(0..bytes.len());
        let byte = if rng.gen_bool(0.7) {
            INTERESTING[rng.gen_range(0..INTERESTING.len())]
        } else {
            rng.gen()
        };
        match rng.gen_range(0..3) {
            0 => bytes[at] = byte,
            1 => bytes.insert(at, byte),
            _ => {
                bytes.remove(at);
            }
        }
    }
}

/// Whether the importer's answer is what the generated record calls for; what was wrong if not.
fn judge_answer(
    (status, body): (u16, &Value),
    expected: Result<Game, Option<usize>>,
) -> Result<(), String> {
    match expected {
        Ok(game) => {
            if status != 201 {
                return Err(format!("legal record answered {status}: {body}"));
            }
            let (status_name, _, _) = expected_result(&game);
            if moves_of(body) != game_triples(&game)
                || body["status"] != status_name
                || body["mode"] != "local"
            {
                return Err(format!("legal record imported as something else: {body}"));
            }
        }
        Err(blame) => {
            if (status, gomoku_testkit::code(body)) != (422, "INVALID_RECORD") {
                return Err(format!("bad record answered {status}: {body}"));
            }
            if let Some(index) = blame.filter(|&i| body["error"]["moveIndex"] != json!(i)) {
                return Err(format!(
                    "bad record blamed {} instead of move {index}",
                    body["error"]["moveIndex"]
                ));
            }
        }
    }
    Ok(())
}

pub async fn run(bin: &ServerBinary, args: &ImportArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let (_server, api) = crate::start(bin, &[]);
    let stats = api.stats().clone();
    let player = api.new_player().await;
    let (mut accepted, mut rejected, mut mangled) = (0, 0, 0);
    for case in 0..args.cases {
        let (record, expected) = generate_record(rng);
        if case % 2 == 0 {
            let reply = player.post("/api/v1/games/import", &record).await;
            match judge_answer((reply.status.as_u16(), &reply.body), expected) {
                Ok(()) if reply.status == 201 => accepted += 1,
                Ok(()) => rejected += 1,
                Err(e) => stats.violation(format!("{e}; record {record}")),
            }
            continue;
        }
        // Byte-mangled: any documented answer but a 5xx; if accepted, a consistent game.
        mangled += 1;
        let mut bytes = record.to_string().into_bytes();
        mangle(&mut bytes, rng);
        let reply = player
            .post_raw("/api/v1/games/import", Some("application/json"), &bytes)
            .await;
        let shown = String::from_utf8_lossy(&bytes);
        match (reply.status.as_u16(), reply.code()) {
            (201, _) => {
                accepted += 1;
                if let Err(e) = check_state(&reply.body) {
                    stats.violation(format!(
                        "mangled record accepted as an inconsistent game: {e}; record {shown}"
                    ));
                }
            }
            (400, "INVALID_JSON") | (422, "INVALID_RECORD") => rejected += 1,
            (status, code) => {
                stats.violation(format!("mangled record answered {status} {code}: {shown}"))
            }
        }
    }
    let summary = format!(
        "import-fuzz: {} records ({mangled} byte-mangled): {accepted} accepted, {rejected} rejected",
        args.cases
    );
    (stats, summary)
}
