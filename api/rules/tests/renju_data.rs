//! Renju forbidden-move cases from reference data (positions taken from the MIT-licensed test
//! suites of renju-note/quintet and starpentagon/realcore; see data/README.md), checked
//! against our judge. Both files are one JSON object per line, coordinates in standard
//! notation ("h8" is the centre of 15×15).

use gomoku_rules::renju::{forbidden_kind, forbidden_points};
use gomoku_rules::{Board, Coord, ForbiddenKind, Point, Stone};
use serde_json::Value;
use std::collections::BTreeMap;

const POINTS: &str = include_str!("data/renju-forbidden-points.jsonl");
const MAPS: &str = include_str!("data/renju-forbidden-maps.jsonl");

fn point(coord: &str, size: usize) -> Point {
    coord
        .parse::<Coord>()
        .ok()
        .and_then(|c| c.to_point(size))
        .unwrap_or_else(|| panic!("bad coordinate {coord:?}"))
}

/// The data files write kinds with a hyphen ("double-three"), the wire with an underscore.
fn kind(name: &str) -> ForbiddenKind {
    name.replace('-', "_")
        .parse()
        .unwrap_or_else(|_| panic!("unknown kind {name:?}"))
}

/// The position of one record, and a label naming it in failure messages.
fn position(record: &Value) -> (Board, String) {
    let size = record["size"].as_u64().expect("size") as usize;
    let mut board = Board::new(size).expect("board size");
    for (key, stone) in [("black", Stone::Black), ("white", Stone::White)] {
        for coord in record[key].as_array().expect("stone list") {
            let p = point(coord.as_str().expect("coordinate"), size);
            assert!(board.get(p).is_none(), "{coord} listed twice");
            board.set(p, Some(stone));
        }
    }
    let label = format!("{} ({})", record["case"], record["source"]);
    (board, label)
}

fn records(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("valid JSON line"))
        .collect()
}

/// Every single-point case: the move is forbidden exactly when the data says so, for the
/// reason it gives.
#[test]
fn forbidden_point_cases() {
    let cases = records(POINTS);
    assert!(cases.len() >= 50, "the data file should hold every case");
    let mut failures = Vec::new();
    for record in &cases {
        assert_eq!(record["player"], "black");
        let (board, label) = position(record);
        let p = point(record["move"].as_str().expect("move"), board.size());
        let expected = if record["forbidden"].as_bool().expect("forbidden") {
            Some(kind(record["reason"].as_str().expect("reason")))
        } else {
            None
        };
        let got = forbidden_kind(&board, p);
        if got != expected {
            failures.push(format!(
                "{label} at {}: expected {expected:?}, got {got:?}\n{board:?}",
                record["move"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every complete map: black's forbidden points, with their kinds, are exactly the listed set.
#[test]
fn forbidden_map_cases() {
    let cases = records(MAPS);
    assert!(cases.len() >= 20, "the data file should hold every case");
    let mut failures = Vec::new();
    for record in &cases {
        assert_eq!(record["complete"], true);
        let (board, label) = position(record);
        let expected: BTreeMap<Point, ForbiddenKind> = record["forbidden"]
            .as_object()
            .expect("forbidden map")
            .iter()
            .map(|(coord, reason)| {
                (
                    point(coord, board.size()),
                    kind(reason.as_str().expect("reason")),
                )
            })
            .collect();
        let got: BTreeMap<Point, ForbiddenKind> = forbidden_points(&board).into_iter().collect();
        if got != expected {
            let show = |map: &BTreeMap<Point, ForbiddenKind>| {
                map.iter()
                    .map(|(p, k)| format!("{}={}", Coord::from_point(*p, board.size()), k))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            failures.push(format!(
                "{label}: expected [{}], got [{}]\n{board:?}",
                show(&expected),
                show(&got)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
