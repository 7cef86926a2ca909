//! Issue 5, bad input: property tests that throw arbitrary input at the judge (no panic, and
//! what it answers hangs together), the record importer fuzzed through the real HTTP endpoint
//! (a record whose replay is legal is accepted as exactly that game, any other is 422
//! INVALID_RECORD blaming the right move), and a sweep of hostile requests, each answered with its
//! documented error while the stored data stays as it was.
//!
//! Case counts are bounded so the suite stays fast; `gomoku-stress import-fuzz` runs many more.

use gomoku_rules::{
    judge, renju, Board, DrawReason, Game, Outcome, PlayError, Point, Rule, Stone, UndoError,
    WinReason, MAX_BOARD_SIZE, MIN_BOARD_SIZE,
};
use gomoku_testkit::lines::{record, RENJU_DOUBLE_THREE, RENJU_OVERLINE};
use gomoku_testkit::state::{expected_result, game_triples, moves_of};
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{gomoku_server, Player, NO_RATE_LIMIT};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::Method;
use serde_json::{json, Value};

const RULES: [Rule; 3] = [Rule::Freestyle, Rule::Standard, Rule::Renju];

// ---------------------------------------------------------------------------------------------
// The judge
// ---------------------------------------------------------------------------------------------

/// True when `line` is at least five points of one colour (the colour at `last`), in one
/// straight run of adjacent cells, and passes through `last`.
fn is_winning_run(board: &Board, line: &[Point], last: Point) -> bool {
    let Some(stone) = board.get(last) else {
        return false;
    };
    if line.len() < 5 || !line.contains(&last) || line.iter().any(|&p| board.get(p) != Some(stone))
    {
        return false;
    }
    let mut sorted = line.to_vec();
    sorted.sort();
    let (dr, dc) = (
        sorted[1].row as isize - sorted[0].row as isize,
        sorted[1].col as isize - sorted[0].col as isize,
    );
    sorted.windows(2).all(|w| {
        w[1].row as isize - w[0].row as isize == dr && w[1].col as isize - w[0].col as isize == dc
    }) && dr.abs() <= 1
        && dc.abs() <= 1
}

proptest! {
    #![proptest_config(Config { cases: 2000, ..Config::default() })]

    /// Any sequence of points, on any board size (also ones the rules refuse), under every rule:
    /// nothing panics; `check` predicts `play`; out-of-bounds and occupied answers are true; each
    /// accepted move is on the board in the mover's colour; a win is a real run through the last
    /// move (exactly five under standard rules); a finished game takes no more moves; replaying
    /// the accepted moves gives the same game; undoing them all gives back the empty game.
    #[test]
    fn judge_survives_any_move_sequence(
        size in 3usize..=23,
        rule in 0usize..3,
        // Anywhere (mostly off small boards), or crowded into a 6×6 window where fives, overlines
        // and renju's forbidden shapes come up often.
        points in prop::collection::vec(
            prop_oneof![(0usize..24, 0usize..24), (4usize..10, 4usize..10)],
            0..150,
        ),
    ) {
        let rule = RULES[rule];
        let game = Game::new(size, rule);
        prop_assert_eq!(game.is_ok(), (MIN_BOARD_SIZE..=MAX_BOARD_SIZE).contains(&size));
        let Ok(mut game) = game else { return Ok(()) };
        let mut accepted = Vec::new();
        for (row, col) in points {
            let p = Point::new(row, col);
            let checked = game.check(p);
            let was_over = game.is_over();
            let mover = game.to_move();
            prop_assert_eq!(mover.is_none(), was_over);
            let occupied = game.board().get(p).is_some();
            let played = game.play(p).cloned();
            prop_assert_eq!(checked, played.as_ref().map(|_| ()).map_err(|e| *e));
            match played {
                Err(PlayError::OutOfBounds) => prop_assert!(row >= size || col >= size),
                Err(PlayError::Occupied) => prop_assert!(occupied),
                Err(PlayError::GameOver) => prop_assert!(was_over),
                Err(PlayError::Forbidden(kind)) => {
                    prop_assert_eq!(rule, Rule::Renju);
                    prop_assert_eq!(mover, Some(Stone::Black));
                    prop_assert_eq!(renju::forbidden_kind(game.board(), p), Some(kind));
                }
                Ok(outcome) => {
                    prop_assert!(!was_over && row < size && col < size && !occupied);
                    prop_assert_eq!(game.board().get(p), mover);
                    accepted.push(p);
                    prop_assert_eq!(game.board().stone_count(), accepted.len());
                    if let Outcome::Win { winner, reason, line } = &outcome {
                        prop_assert_eq!(Some(*winner), mover);
                        prop_assert_eq!(*reason, WinReason::Five);
                        prop_assert!(is_winning_run(game.board(), line, p), "bad win line {:?}", line);
                        if rule == Rule::Standard {
                            prop_assert_eq!(line.len(), 5);
                        }
                    }
                    if let Outcome::Draw { reason: DrawReason::BoardFull } = outcome {
                        prop_assert!(game.board().is_full());
                    }
                }
            }
        }
        prop_assert_eq!(&Game::replay(size, rule, &accepted).expect("accepted moves replay"), &game);
        for (i, _) in accepted.iter().enumerate().rev() {
            let undone = game.undo().expect("undo an accepted move");
            prop_assert_eq!(undone.point, accepted[i]);
        }
        prop_assert_eq!(game.undo(), Err(UndoError::NothingToUndo));
        prop_assert_eq!(&game, &Game::new(size, rule).unwrap());
    }

    /// The judge's functions on arbitrary boards (any mix of stones, not only reachable ones):
    /// nothing panics; a forbidden kind is only given for an empty point on the board; a win
    /// found from a stone is a real run and the whole-board scan finds a win too; when no five is
    /// possible, neither side has one.
    #[test]
    fn judge_functions_survive_arbitrary_boards(
        size in MIN_BOARD_SIZE..=MAX_BOARD_SIZE,
        density in 0u32..=100,
        seed in any::<u64>(),
        probes in prop::collection::vec((0usize..22, 0usize..22), 1..12),
    ) {
        let mut rng = StdRng::seed_from_u64(seed);
        let rows: Vec<Vec<u8>> = (0..size)
            .map(|_| (0..size).map(|_| if rng.gen_range(0..100) < density { rng.gen_range(1..=2) } else { 0 }).collect())
            .collect();
        let board = Board::from_rows(&rows).expect("a valid board");
        for rule in RULES {
            let none_possible = judge::no_five_possible(&board, rule);
            for stone in [Stone::Black, Stone::White] {
                let win = judge::scan_for_win(&board, stone, rule);
                if none_possible {
                    prop_assert!(win.is_none(), "no five possible, yet {:?} has {:?}", stone, win);
                }
            }
            for &(row, col) in &probes {
                let p = Point::new(row, col);
                if let Some(line) = judge::winning_line(&board, p, rule) {
                    prop_assert!(is_winning_run(&board, &line, p), "bad line {:?} from {:?}", line, p);
                    prop_assert!(judge::scan_for_win(&board, board.get(p).unwrap(), rule).is_some());
                }
            }
        }
        for &(row, col) in &probes {
            let p = Point::new(row, col);
            if renju::forbidden_kind(&board, p).is_some() {
                prop_assert!(board.contains(p) && board.get(p).is_none(), "forbidden kind for {:?}", p);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The importer, fuzzed through POST /api/v1/games/import
// ---------------------------------------------------------------------------------------------

/// The one thing wrong with a generated record (or nothing).
#[derive(Debug, Clone, Copy)]
enum Flaw {
    None,
    /// Move `i` (modulo the length) is put on the cell of an earlier move.
    Occupied(usize),
    /// Move `i` gets a coordinate off the board: one past the edge, negative, or huge.
    OffBoard(usize, u8),
    /// Move `i` carries the wrong player.
    WrongPlayer(usize),
    /// One more move after the game has been won.
    AfterEnd,
    UnknownVersion,
    BadSize(i64),
    UnknownRule,
}

#[derive(Debug, Clone)]
struct RecordCase {
    seed: u64,
    size: usize,
    rule: Rule,
    /// Moves of random legal play (before any flaw), unless the record is a quick win.
    length: usize,
    quick_win: bool,
    flaw: Flaw,
    /// Garbage in the fields the importer must not trust (id, mode, ai, result, dates, coord).
    noise: bool,
}

fn record_case() -> impl Strategy<Value = RecordCase> {
    let flaw = prop_oneof![
        3 => Just(Flaw::None),
        1 => any::<usize>().prop_map(Flaw::Occupied),
        1 => (any::<usize>(), 0u8..3).prop_map(|(i, how)| Flaw::OffBoard(i, how)),
        1 => any::<usize>().prop_map(Flaw::WrongPlayer),
        1 => Just(Flaw::AfterEnd),
        1 => Just(Flaw::UnknownVersion),
        1 => prop_oneof![Just(8i64), Just(20), Just(0), Just(-15), Just(1_000_000)].prop_map(Flaw::BadSize),
        1 => Just(Flaw::UnknownRule),
    ];
    (
        any::<u64>(),
        9usize..=19,
        0usize..3,
        0usize..60,
        any::<bool>(),
        flaw,
        any::<bool>(),
    )
        .prop_map(
            |(seed, size, rule, length, quick_win, flaw, noise)| RecordCase {
                seed,
                size,
                rule: RULES[rule],
                length,
                quick_win,
                flaw,
                noise,
            },
        )
}

/// The legal moves of a case before its flaw: random play, or a quick win for black along a row
/// while white plays two rows below.
fn legal_points(case: &RecordCase, rng: &mut StdRng) -> Vec<Point> {
    let mut game = Game::new(case.size, case.rule).unwrap();
    if case.quick_win || matches!(case.flaw, Flaw::AfterEnd) {
        let (row, col) = (
            rng.gen_range(0..case.size - 2),
            rng.gen_range(0..case.size - 4),
        );
        for i in 0..9 {
            let p = if i % 2 == 0 {
                Point::new(row, col + i / 2)
            } else {
                Point::new(row + 2, col + i / 2)
            };
            game.play(p).expect("quick-win move");
        }
        assert!(game.is_over(), "a quick win ends the game");
    } else {
        for _ in 0..10_000 {
            if game.moves().len() >= case.length || game.is_over() {
                break;
            }
            let p = Point::new(rng.gen_range(0..case.size), rng.gen_range(0..case.size));
            let _ = game.play(p); // refused points (occupied, forbidden) are simply not played
        }
    }
    game.moves().iter().map(|m| m.point).collect()
}

/// The record of a case, and what the importer must answer: the legal game, or the index of the
/// move to blame (None when the record as a whole is bad).
fn build_record(case: &RecordCase) -> (Value, Result<Game, Option<usize>>) {
    let mut rng = StdRng::seed_from_u64(case.seed);
    let points = legal_points(case, &mut rng);
    let mut moves: Vec<(i64, i64, i64)> = points
        .iter()
        .enumerate()
        .map(|(i, p)| (p.row as i64, p.col as i64, 1 + (i % 2) as i64))
        .collect();
    let (mut version, mut size, mut rule) = (
        json!("gomoku-1.0"),
        json!(case.size),
        json!(case.rule.as_str()),
    );
    let mut blame: Option<Option<usize>> = None;
    match case.flaw {
        Flaw::None => {}
        Flaw::Occupied(i) if moves.len() >= 2 => {
            let i = 1 + i % (moves.len() - 1);
            let earlier = moves[rng.gen_range(0..i)];
            moves[i].0 = earlier.0;
            moves[i].1 = earlier.1;
            blame = Some(Some(i));
        }
        Flaw::OffBoard(i, how) if !moves.is_empty() => {
            let i = i % moves.len();
            match how {
                0 => moves[i].0 = case.size as i64,
                1 => moves[i].1 = -1,
                _ => moves[i].0 = 1 << 40,
            }
            blame = Some(Some(i));
        }
        Flaw::WrongPlayer(i) if !moves.is_empty() => {
            let i = i % moves.len();
            moves[i].2 = 3 - moves[i].2;
            blame = Some(Some(i));
        }
        Flaw::AfterEnd => {
            let game = Game::replay(case.size, case.rule, &points).unwrap();
            let empty = game
                .board()
                .points()
                .find(|&p| game.board().get(p).is_none())
                .unwrap();
            moves.push((
                empty.row as i64,
                empty.col as i64,
                1 + (moves.len() % 2) as i64,
            ));
            blame = Some(Some(moves.len() - 1));
        }
        Flaw::UnknownVersion => {
            version = json!(
                ["gomoku-2.0", "", "GOMOKU-1.0", "gomoku-1.0' or '1'='1"][rng.gen_range(0..4)]
            );
            blame = Some(None);
        }
        Flaw::BadSize(bad) => {
            size = json!(bad);
            blame = Some(None);
        }
        Flaw::UnknownRule => {
            rule = json!(["gomoku", "Freestyle", "renju; drop table games"][rng.gen_range(0..3)]);
            blame = Some(None);
        }
        // A flaw that needs moves, on a record without enough of them: the record stays valid.
        _ => {}
    }
    let size_n = case.size;
    let move_values: Vec<Value> = moves
        .iter()
        .map(|&(row, col, player)| {
            let mut m =
                json!({"row": row, "col": col, "player": player, "at": "2026-01-01T00:00:00Z"});
            if case.noise {
                m["coord"] = json!("z99");
                m["at"] = json!("not a date");
            }
            m
        })
        .collect();
    let mut record =
        json!({"version": version, "rule": rule, "boardSize": size, "moves": move_values});
    if case.noise {
        record["id"] = json!("'; drop table games; --");
        record["mode"] = json!("ai");
        record["ai"] = json!({"level": "master", "player": 1});
        record["result"] = json!({"status": "white_won", "winner": 2, "endReason": "resign", "winLine": [{"row": 0, "col": 0}]});
        record["createdAt"] = json!("yesterday");
        record["finishedAt"] = json!(12);
    }
    let expected = match blame {
        Some(blame) => Err(blame),
        None => Ok(Game::replay(size_n, case.rule, &points).expect("unflawed records are legal")),
    };
    (record, expected)
}

async fn check_import(player: &Player, case: &RecordCase) -> Result<(), TestCaseError> {
    let (record, expected) = build_record(case);
    let reply = player.post("/api/v1/games/import", &record).await;
    let body = &reply.body;
    match expected {
        Ok(game) => {
            prop_assert_eq!(
                reply.status,
                201,
                "a legal record is accepted: {} -> {}",
                record,
                body
            );
            prop_assert_eq!(moves_of(body), game_triples(&game));
            let (status_name, winner, reason) = expected_result(&game);
            prop_assert_eq!(
                &body["status"],
                &json!(status_name),
                "recomputed status: {}",
                body
            );
            prop_assert_eq!(&body["winner"], &winner);
            prop_assert_eq!(&body["endReason"], &reason);
            prop_assert_eq!(&body["mode"], &json!("local"));
            prop_assert_eq!(&body["ai"], &Value::Null);
        }
        Err(blame) => {
            prop_assert!(
                reply.is(422, "INVALID_RECORD"),
                "{:?}: {} -> {}",
                case.flaw,
                record,
                body
            );
            if let Some(index) = blame {
                prop_assert_eq!(
                    &body["error"]["moveIndex"],
                    &json!(index),
                    "moveIndex for {:?}: {}",
                    case.flaw,
                    body
                );
            }
        }
    }
    Ok(())
}

/// The importer, fuzzed over HTTP with 500 generated records (legal games, quick wins, and records
/// with one flaw each, some with garbage in the untrusted fields): a record whose replay is legal
/// is accepted as exactly that game with its result recomputed; any other is 422 INVALID_RECORD
/// with `moveIndex` naming the move to blame. Two fixed renju records add forbidden moves.
#[test]
fn importer_accepts_legal_records_and_rejects_the_rest() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = gomoku_server!()
        .args(NO_RATE_LIMIT)
        .args(["--max-unfinished-games", "1000000"])
        .start();
    let player = runtime.block_on(Player::new(&server));

    // Renju: black's last move makes a double three at (7,7), or an overline at (7,4); both are
    // legal in freestyle (the overline even wins there).
    for (line, last, blamed_kind) in [
        (RENJU_DOUBLE_THREE, (7, 7), "double_three"),
        (RENJU_OVERLINE, (7, 4), "overline"),
    ] {
        let moves = [line, &[last]].concat();
        for (rule, accepted) in [("renju", false), ("freestyle", true)] {
            let record = record(rule, 15, &moves);
            let reply = runtime.block_on(player.post("/api/v1/games/import", &record));
            if accepted {
                reply.ok(201, &format!("{rule} {blamed_kind}"));
            } else {
                reply.assert_error(422, "INVALID_RECORD", blamed_kind);
                assert_eq!(
                    reply.body["error"]["moveIndex"],
                    json!(line.len()),
                    "{blamed_kind}: {}",
                    reply.text
                );
            }
        }
    }

    let mut runner = TestRunner::new(Config {
        cases: 500,
        ..Config::default()
    });
    let result = runner.run(&record_case(), |case| {
        runtime.block_on(check_import(&player, &case))
    });
    if let Err(failure) = result {
        panic!("importer fuzz: {failure}");
    }
}

// ---------------------------------------------------------------------------------------------
// The hostile-request sweep
// ---------------------------------------------------------------------------------------------

const INVALID_JSON: &[(u16, &str)] = &[(400, "INVALID_JSON")];
const UNSUPPORTED: &[(u16, &str)] = &[(415, "UNSUPPORTED_MEDIA_TYPE")];
const TOO_LARGE: &[(u16, &str)] = &[(413, "PAYLOAD_TOO_LARGE")];
const NOT_A_GAME: &[(u16, &str)] = &[(404, "GAME_NOT_FOUND")];
const NO_ROUTE: &[(u16, &str)] = &[(404, "NOT_FOUND")];
const NO_METHOD: &[(u16, &str)] = &[(405, "METHOD_NOT_ALLOWED")];
const BAD_NUMBER: &[(u16, &str)] = &[(400, "INVALID_JSON"), (422, "OUT_OF_BOUNDS")];
const BAD_SETTINGS: &[(u16, &str)] = &[(400, "INVALID_JSON"), (422, "INVALID_SETTINGS")];
const BAD_RECORD: &[(u16, &str)] = &[(400, "INVALID_JSON"), (422, "INVALID_RECORD")];

/// One hostile request and the answers its documentation allows.
struct Hostile {
    method: Method,
    path: String,
    content_type: Option<&'static str>,
    body: Option<Vec<u8>>,
    allowed: &'static [(u16, &'static str)],
}

fn hostile(
    method: Method,
    path: &str,
    content_type: Option<&'static str>,
    body: Option<&[u8]>,
    allowed: &'static [(u16, &'static str)],
) -> Hostile {
    Hostile {
        method,
        path: path.to_string(),
        content_type,
        body: body.map(<[u8]>::to_vec),
        allowed,
    }
}

/// Every hostile request of the sweep against a game `id` (a local 15×15 game with two moves).
fn hostile_requests(id: &str) -> Vec<Hostile> {
    let moves = format!("/api/v1/games/{id}/moves");
    let json = Some("application/json");
    let mut list = Vec::new();
    // Wrong types, out-of-range numbers, null, missing fields, on a move.
    for (body, allowed) in [
        (r#"{"row": "7", "col": 7}"#, INVALID_JSON),
        (r#"{"row": 7, "col": "7"}"#, INVALID_JSON),
        (r#"{"row": 7.5, "col": 7}"#, INVALID_JSON),
        (r#"{"row": 1e3, "col": 7}"#, BAD_NUMBER),
        (r#"{"row": -1, "col": 7}"#, BAD_NUMBER),
        (r#"{"row": 7, "col": -2147483649}"#, BAD_NUMBER),
        (r#"{"row": 4294967296, "col": 7}"#, BAD_NUMBER),
        (r#"{"row": 18446744073709551616, "col": 7}"#, BAD_NUMBER),
        (
            r#"{"row": 99999999999999999999999999999999, "col": 7}"#,
            BAD_NUMBER,
        ),
        (r#"{"row": 15, "col": 7}"#, &[(422, "OUT_OF_BOUNDS")]),
        (r#"{"row": null, "col": 7}"#, INVALID_JSON),
        (r#"{"row": true, "col": 7}"#, INVALID_JSON),
        (r#"{"row": [7], "col": 7}"#, INVALID_JSON),
        (r#"{"row": {"$gt": 0}, "col": 7}"#, INVALID_JSON),
        (r#"{"col": 7}"#, INVALID_JSON),
        (r#"{}"#, INVALID_JSON),
        (r#"{"row": 7, "col": 7, "ply": "2"}"#, INVALID_JSON),
        (
            r#"{"row": 7, "col": 7, "ply": -1}"#,
            &[(400, "INVALID_JSON"), (409, "PLY_MISMATCH")],
        ),
        (
            r#"{"row": 7, "col": 7, "ply": 1e40}"#,
            &[(400, "INVALID_JSON"), (409, "PLY_MISMATCH")],
        ),
        (
            r#"{"row": 3, "col": 3, "ply": 0}"#,
            &[(409, "PLY_MISMATCH")],
        ),
        (r#"{"row": 7, "col": 7}"#, &[(409, "CELL_OCCUPIED")]),
        (r#"[7, 7]"#, INVALID_JSON),
        (r#"null"#, INVALID_JSON),
        (r#""row=7&col=7""#, INVALID_JSON),
        (r#"{"row": 7, "col": 7"#, INVALID_JSON),
        (r#"row=7&col=7"#, INVALID_JSON),
        ("", INVALID_JSON),
        ("{\"row\": 7, \"col\": 7,}", INVALID_JSON),
    ] {
        list.push(hostile(
            Method::POST,
            &moves,
            json,
            Some(body.as_bytes()),
            allowed,
        ));
    }
    // Invalid UTF-8, deep nesting (within the size limit), content types, sizes.
    list.push(hostile(
        Method::POST,
        &moves,
        json,
        Some(b"{\"row\": \"\xff\xfe\", \"col\": 7}"),
        INVALID_JSON,
    ));
    list.push(hostile(
        Method::POST,
        &moves,
        json,
        Some(b"{\"r\xc3\x28w\": 3, \"col\": 3}"),
        INVALID_JSON,
    ));
    list.push(hostile(
        Method::POST,
        &moves,
        json,
        Some(b"\xff\xfe\xfd"),
        INVALID_JSON,
    ));
    let deep_array = format!(
        r#"{{"row": {}7{}, "col": 3}}"#,
        "[".repeat(20_000),
        "]".repeat(20_000)
    );
    list.push(hostile(
        Method::POST,
        &moves,
        json,
        Some(deep_array.as_bytes()),
        INVALID_JSON,
    ));
    let deep_object = format!(
        r#"{}"row": 3, "col": 3{}"#,
        r#"{"a": "#.repeat(8_000),
        "}".repeat(8_000)
    );
    list.push(hostile(
        Method::POST,
        &moves,
        json,
        Some(deep_object.as_bytes()),
        INVALID_JSON,
    ));
    let good = br#"{"row": 3, "col": 3, "ply": 2}"#;
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/xml"),
        Some("application/jsonx"),
    ] {
        list.push(hostile(
            Method::POST,
            &moves,
            content_type,
            Some(good),
            UNSUPPORTED,
        ));
    }
    let mut padded = good.to_vec();
    padded.splice(1..1, std::iter::repeat_n(b' ', 65 * 1024));
    list.push(hostile(
        Method::POST,
        &moves,
        json,
        Some(&padded),
        TOO_LARGE,
    ));
    list.push(hostile(
        Method::POST,
        &moves,
        json,
        Some(&vec![b'['; 10 * 1024 * 1024]),
        TOO_LARGE,
    ));
    list.push(hostile(
        Method::POST,
        "/api/v1/games/import",
        json,
        Some(&vec![b' '; 10 * 1024 * 1024]),
        TOO_LARGE,
    ));
    // Settings: wrong types, out of range, SQL-looking strings.
    for body in [
        r#"{"boardSize": "15"}"#,
        r#"{"boardSize": 8}"#,
        r#"{"boardSize": 20}"#,
        r#"{"boardSize": -15}"#,
        r#"{"boardSize": 15.5}"#,
        r#"{"boardSize": 1e9}"#,
        r#"{"boardSize": null, "rule": null, "mode": 3}"#,
        r#"{"rule": "freestyle'; drop table games; --"}"#,
        r#"{"rule": "FREESTYLE"}"#,
        r#"{"mode": "remote"}"#,
        r#"{"mode": "ai"}"#,
        r#"{"mode": "ai", "ai": {"level": "impossible", "player": 2}}"#,
        r#"{"mode": "ai", "ai": {"level": "easy", "player": 3}}"#,
        r#"{"mode": "ai", "ai": {"level": "easy"}}"#,
        r#"{"mode": "ai", "ai": "easy"}"#,
        r#"[]"#,
    ] {
        list.push(hostile(
            Method::POST,
            "/api/v1/games",
            json,
            Some(body.as_bytes()),
            BAD_SETTINGS,
        ));
    }
    // Records: wrong shapes and SQL-looking strings.
    for body in [
        r#"{}"#,
        r#"{"version": "gomoku-1.0' or 1=1 --", "rule": "freestyle", "boardSize": 15, "moves": []}"#,
        r#"{"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": "all"}"#,
        r#"{"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": [{"row": "7", "col": 7, "player": 1}]}"#,
        r#"{"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": [{"row": 7, "col": 7, "player": 0}]}"#,
        r#"{"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": [{"row": 7, "col": 7}]}"#,
        r#"{"version": "gomoku-1.0", "rule": "freestyle", "boardSize": 15, "moves": [null]}"#,
        r#"{"version": 1, "rule": "freestyle", "boardSize": 15, "moves": []}"#,
    ] {
        list.push(hostile(
            Method::POST,
            "/api/v1/games/import",
            json,
            Some(body.as_bytes()),
            BAD_RECORD,
        ));
    }
    // Path ids that are not ids (of this player's games), on reads and writes.
    let long = "a".repeat(2000);
    for bad in [
        "not-an-id",
        "1",
        "-1",
        "0",
        "null",
        "%27%20OR%20%271%27%3D%271",
        "1%3B%20drop%20table%20games",
        "..%2F..%2Fetc%2Fpasswd",
        "%00",
        "%FF%FE",
        long.as_str(),
        "00000000-0000-0000-0000-000000000000",
        &format!("{id}x"),
        &format!("{id}%20"),
    ] {
        list.push(hostile(
            Method::GET,
            &format!("/api/v1/games/{bad}"),
            None,
            None,
            NOT_A_GAME,
        ));
        list.push(hostile(
            Method::GET,
            &format!("/api/v1/games/{bad}/replay"),
            None,
            None,
            NOT_A_GAME,
        ));
        list.push(hostile(
            Method::POST,
            &format!("/api/v1/games/{bad}/moves"),
            json,
            Some(good),
            NOT_A_GAME,
        ));
        list.push(hostile(
            Method::DELETE,
            &format!("/api/v1/games/{bad}"),
            None,
            None,
            NOT_A_GAME,
        ));
    }
    // Unknown routes and methods.
    for path in [
        "/api/v1/nope",
        "/api/v2/games",
        "/api/v1/games/x/y/z",
        &format!("/api/v1/games/{id}/teleport"),
        "/api/v1/sessions/all",
        "/.env",
    ] {
        list.push(hostile(Method::GET, path, None, None, NO_ROUTE));
    }
    for (method, path) in [
        ("PUT", format!("/api/v1/games/{id}")),
        ("PATCH", format!("/api/v1/games/{id}")),
        ("PATCH", "/api/v1/games".to_string()),
        ("DELETE", "/api/v1/games".to_string()),
        ("PUT", "/api/v1/games".to_string()),
        ("GET", moves.clone()),
        ("DELETE", moves.clone()),
        ("GET", "/api/v1/sessions".to_string()),
        ("DELETE", "/api/v1/sessions".to_string()),
        ("BREW", "/api/v1/games".to_string()),
    ] {
        list.push(hostile(
            Method::from_bytes(method.as_bytes()).unwrap(),
            &path,
            None,
            None,
            NO_METHOD,
        ));
    }
    // "import" is a route of its own (POST) and, read as a game id, names no game.
    list.push(hostile(
        Method::GET,
        "/api/v1/games/import",
        None,
        None,
        &[(405, "METHOD_NOT_ALLOWED"), (404, "GAME_NOT_FOUND")],
    ));
    list
}

/// The hostile-request sweep: wrong types, floats, negatives, huge integers, null, missing
/// fields, non-JSON bodies, wrong or missing content types, a 10 MB body, deeply nested JSON,
/// invalid UTF-8, path ids that are not ids, SQL-looking strings, bad queries, unknown routes and
/// methods — each answered with its documented error in the documented shape, and afterwards
/// every stored row and the served game are exactly as before. Extra fields are then shown to be
/// either ignored or refused, never a 5xx.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_get_documented_errors_and_change_nothing() {
    let server = gomoku_server!().args(NO_RATE_LIMIT).start();
    let player = Player::new(&server).await;
    let id = player.create_id(json!({"mode": "local"})).await;
    for (ply, (row, col)) in [(7, 7), (7, 8)].into_iter().enumerate() {
        player.play_at(&id, row, col, ply as i64).await;
    }
    let before = player.game(&id).await;
    let mut stored = Stored::open(server.database()).await;
    let stored_before = stored.dump().await;

    let requests = hostile_requests(&id);
    let mut failures = Vec::new();
    for request in &requests {
        let mut sent = player.request(request.method.clone(), &request.path);
        if let Some(content_type) = request.content_type {
            sent = sent.header("content-type", content_type);
        }
        if let Some(body) = &request.body {
            sent = sent.body(body.clone());
        }
        let reply = player.send(sent).await;
        let answer = (reply.status.as_u16(), reply.code());
        let shaped = reply.body["error"]["message"].is_string();
        if !request.allowed.contains(&answer) || !shaped {
            let shown_path: String = request.path.chars().take(80).collect();
            let shown_body: String = request
                .body
                .as_deref()
                .map(|b| String::from_utf8_lossy(&b[..b.len().min(60)]).into_owned())
                .unwrap_or_default();
            failures.push(format!(
                "{} {shown_path} [{:?}] {shown_body:?}: got {answer:?} {}, allowed {:?}",
                request.method, request.content_type, reply.body, request.allowed
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} hostile requests answered wrongly:\n{}",
        failures.len(),
        requests.len(),
        failures.join("\n")
    );
    player
        .assert_same(&id, &before, "the hostile requests")
        .await;
    assert_eq!(
        stored.dump().await,
        stored_before,
        "hostile requests changed stored rows"
    );

    // Extra fields: ignored (the request does what it says) or refused as INVALID_JSON.
    for (path, body) in [
        (
            format!("/api/v1/games/{id}/moves"),
            json!({"row": 3, "col": 3, "ply": 2, "player": 2, "admin": true}),
        ),
        (
            "/api/v1/games".to_string(),
            json!({"mode": "local", "owner": "someone-else", "id": "chosen"}),
        ),
    ] {
        let reply = player.post(&path, &body).await;
        assert!(
            reply.status.is_success() || reply.is(400, "INVALID_JSON"),
            "{path} {body}: {} {}",
            reply.status,
            reply.text
        );
        if reply.status.is_success() {
            assert_ne!(
                reply.body["id"],
                json!("chosen"),
                "a client chose its game id"
            );
        }
    }
}
