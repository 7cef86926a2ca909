//! Puzzles (残局, issue 26) through the real `gomoku-server` binary: real HTTP on 127.0.0.1,
//! a real database (SQLite, or PostgreSQL when `GOMOKU_TEST_DATABASE` names a cluster).
//!
//! Written from the contract (briefs' API26, section D): a VCF puzzle solved by playing the
//! attacker's moves (the stored line while the server's defence follows it, else the engine's
//! winning move from the position), a puzzle failed by a losing move, the puzzle rating moving
//! by the Glicko-2 amount computed here, retries unrated, the daily puzzle the same for two
//! players, next never repeating a solved puzzle, and refused moves changing nothing stored.
//! Positions are `(row, col)` on a 15×15 board, row 0 at the top.

use gomoku_engine::position::Position;
use gomoku_engine::puzzle::{self, parse_point, Puzzle};
use gomoku_engine::threat::Kind;
use gomoku_rules::{Game, Point};
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{gomoku_server, Player, Server, NO_RATE_LIMIT};
use serde_json::{json, Value};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// A VCF puzzle in three (black to move): four, four-three, five.
const VCF_IN_3: &str = "f0002";
/// A VCF puzzle in five (white to move).
const VCF_IN_5: &str = "f0008";
/// A VCF puzzle in five (black to move) with two winning first moves: the one off the stored
/// line makes the server search its defence.
const TWO_WAYS: &str = "f0050";

fn server() -> Server {
    gomoku_server!().args(NO_RATE_LIMIT).start()
}

fn stored(id: &str) -> Puzzle {
    puzzle::set()
        .into_iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("{id} in the set"))
}

fn point(v: &Value) -> Point {
    Point::new(
        v["row"].as_u64().unwrap() as usize,
        v["col"].as_u64().unwrap() as usize,
    )
}

/// The stored line's points.
fn line(p: &Puzzle) -> Vec<Point> {
    p.solution
        .iter()
        .map(|m| parse_point(m, p.size).unwrap())
        .collect()
}

/// The position of a served puzzle view, rebuilt from the set and the attempt's moves.
fn position_of(p: &Puzzle, view: &Value) -> Game {
    let mut game = p.setup().unwrap().game;
    for m in view["moves"].as_array().unwrap() {
        game.play(point(m)).unwrap();
    }
    game
}

/// The attacker's next winning move: the stored line's while the attempt is on it, else the
/// engine's proof from the position.
fn winning_move(p: &Puzzle, view: &Value) -> Point {
    let played: Vec<Point> = view["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(point)
        .collect();
    let line = line(p);
    if line.len() > played.len() && line[..played.len()] == played[..] {
        return line[played.len()];
    }
    let game = position_of(p, view);
    let mut pos = Position::from_game(&game);
    let kind = if p.kind == "vcf" {
        Kind::Vcf
    } else {
        Kind::Vct
    };
    let left = view["attempt"]["movesLeft"].as_u64().unwrap() as u32;
    let proof = puzzle::prove(&mut pos, kind, left, 5_000_000)
        .expect("the proof within budget")
        .expect("a win from the served position");
    pos.point(proof.first_moves[0])
}

async fn show(player: &Player, id: &str) -> Value {
    player
        .get(&format!("/api/v1/puzzles/{id}"))
        .await
        .ok(200, "GET puzzle")
}

async fn try_move(
    player: &Player,
    id: &str,
    p: Point,
    ply: Option<usize>,
) -> gomoku_testkit::Reply {
    let mut body = json!({ "row": p.row, "col": p.col });
    if let Some(ply) = ply {
        body["ply"] = json!(ply);
    }
    player
        .post(&format!("/api/v1/puzzles/{id}/moves"), &body)
        .await
}

/// Plays the puzzle out to the five, checking every answer on the way; returns the last view.
async fn solve(player: &Player, id: &str) -> Value {
    solve_from(player, id, None).await
}

/// [`solve`], opening with `first` if given.
async fn solve_from(player: &Player, id: &str, mut first: Option<Point>) -> Value {
    let p = stored(id);
    let mut view = show(player, id).await;
    for _ in 0..p.win_in {
        assert_eq!(view["attempt"]["status"], "playing", "{view}");
        let mv = first.take().unwrap_or_else(|| winning_move(&p, &view));
        let ply = view["ply"].as_u64().unwrap() as usize;
        let before = view["attempt"]["movesLeft"].as_u64().unwrap();
        view = try_move(player, id, mv, Some(ply))
            .await
            .ok(200, "a winning move");
        let moves = view["moves"].as_array().unwrap();
        assert_eq!(point(&moves[ply]), mv, "the move is the attempt's next");
        assert_eq!(moves[ply]["player"], view["attacker"]);
        if view["attempt"]["status"] == "solved" {
            assert_eq!(moves.len(), ply + 1, "no reply after the five");
            return view;
        }
        assert_eq!(moves.len(), ply + 2, "the defence answered: {view}");
        assert_ne!(moves[ply + 1]["player"], view["attacker"]);
        assert_eq!(view["attempt"]["movesLeft"].as_u64().unwrap(), before - 1);
        assert!(view["solution"].is_null(), "no solution while playing");
    }
    panic!("{id}: not solved in {} moves: {view}", p.win_in);
}

/// Glicko-2 by hand (the skillratings crate, τ = 0.5, the server's constant): the player's
/// rating after one attempt at a puzzle rated `puzzle` with a deviation of 80.
fn glicko(player: (f64, f64, f64), puzzle: f64, solved: bool) -> (f64, f64, f64) {
    let config = Glicko2Config {
        tau: 0.5,
        ..Glicko2Config::new()
    };
    let me = Glicko2Rating {
        rating: player.0,
        deviation: player.1,
        volatility: player.2,
    };
    let it = Glicko2Rating {
        rating: puzzle,
        deviation: 80.0,
        volatility: 0.06,
    };
    let outcome = if solved {
        Outcomes::WIN
    } else {
        Outcomes::LOSS
    };
    let (after, _) = glicko2(&me, &it, &outcome, &config);
    (after.rating, after.deviation, after.volatility)
}

const NEW: (f64, f64, f64) = (1500.0, 350.0, 0.06);

/// Every row of the puzzle tables, as text, to compare before and after a refused request.
async fn dump(stored: &mut Stored) -> Vec<String> {
    stored
        .dump_tables(&["puzzle_attempts", "puzzle_ratings"])
        .await
}

/// A VCF puzzle solved by playing the attacker's moves against the server's defence: the
/// attempt ends solved with the stored solution shown, and the first attempt raises the puzzle
/// rating by exactly the Glicko-2 amount of a win against the puzzle (rating, RD 80), in the
/// answer and on the player card's figures.
#[tokio::test]
async fn a_vcf_puzzle_is_solved_and_the_rating_rises() {
    let server = server();
    let player = gomoku_testkit::Api::on(&server).new_player().await;
    let p = stored(VCF_IN_5);
    let fresh = show(&player, VCF_IN_5).await;
    assert_eq!(
        (
            &fresh["kind"],
            &fresh["winIn"],
            &fresh["attacker"],
            &fresh["rating"]
        ),
        (&json!("vcf"), &json!(5), &json!(2), &json!(p.rating))
    );
    assert_eq!(fresh["attempt"]["status"], "playing");
    assert_eq!(fresh["attempt"]["movesLeft"], 5);
    assert_eq!(fresh["you"]["shown"], "1500?");
    assert_eq!(
        fresh["board"],
        json!(position_of(&p, &fresh).board().to_rows())
    );

    let solved = solve(&player, VCF_IN_5).await;
    assert_eq!(solved["attempt"]["status"], "solved");
    assert_eq!(solved["attempt"]["movesLeft"], 0);
    assert_eq!(solved["attempt"]["rated"], true);
    let solution: Vec<Point> = solved["solution"]
        .as_array()
        .expect("the solution once solved")
        .iter()
        .map(point)
        .collect();
    assert_eq!(solution, line(&p));

    let (rating, rd, _) = glicko(NEW, f64::from(p.rating), true);
    let change = &solved["attempt"]["ratingChange"];
    assert_eq!(change["before"], 1500);
    assert_eq!(change["after"], rating.round() as i64);
    assert_eq!(change["delta"], rating.round() as i64 - 1500);
    assert_eq!(
        change["shown"],
        format!("+{}", rating.round() as i64 - 1500)
    );
    assert!(rating > 1500.0);
    assert_eq!(solved["you"]["rating"], rating.round() as i64);
    assert_eq!(solved["you"]["rd"], rd.round() as i64);
    assert_eq!(
        (&solved["you"]["solved"], &solved["you"]["failed"]),
        (&json!(1), &json!(0))
    );
    // Read back as stored.
    assert_eq!(show(&player, VCF_IN_5).await, solved);

    // The other winning first move leaves the stored line: the server searches its defence,
    // and the engine here finds the attacker's moves from the served positions.
    let two = stored(TWO_WAYS);
    let other = parse_point(&two.first_moves[1], two.size).unwrap();
    assert_ne!(other, line(&two)[0]);
    let solved = solve_from(&player, TWO_WAYS, Some(other)).await;
    assert_eq!(solved["attempt"]["status"], "solved");
    assert_eq!(point(&solved["moves"][0]), other);
    assert_eq!(solved["you"]["solved"], 2);
}

/// A move that loses the win (a quiet move, in a VCF puzzle) fails the attempt at once: the
/// solution is shown, and the puzzle rating falls by the Glicko-2 amount of a loss.
#[tokio::test]
async fn a_losing_move_fails_and_the_rating_falls() {
    let server = server();
    let player = gomoku_testkit::Api::on(&server).new_player().await;
    let p = stored(VCF_IN_3);
    let view = show(&player, VCF_IN_3).await;
    let corner = Point::new(0, 0);
    assert!(
        position_of(&p, &view).board().get(corner).is_none(),
        "the corner is free"
    );
    let failed = try_move(&player, VCF_IN_3, corner, Some(0))
        .await
        .ok(200, "a losing move");
    assert_eq!(failed["attempt"]["status"], "failed");
    assert_eq!(point(&failed["moves"][0]), corner);
    assert!(failed["solution"].is_array());
    let (rating, _, _) = glicko(NEW, f64::from(p.rating), false);
    assert!(rating < 1500.0);
    let change = &failed["attempt"]["ratingChange"];
    assert_eq!(change["after"], rating.round() as i64);
    assert_eq!(change["delta"], rating.round() as i64 - 1500);
    assert_eq!(
        change["shown"],
        format!("\u{2212}{}", 1500 - rating.round() as i64)
    );
    assert_eq!(
        (&failed["you"]["solved"], &failed["you"]["failed"]),
        (&json!(0), &json!(1))
    );
    try_move(&player, VCF_IN_3, Point::new(0, 1), None)
        .await
        .assert_error(409, "PUZZLE_OVER", "a move after the end");
}

/// A retry starts the puzzle again as practice: solving it again, or failing it, moves no
/// rating; a rated attempt given up by a retry counts as failed.
#[tokio::test]
async fn retries_are_practice() {
    let server = server();
    let player = gomoku_testkit::Api::on(&server).new_player().await;
    let first = solve(&player, VCF_IN_3).await;
    let you = first["you"].clone();

    let again = player
        .post_empty(&format!("/api/v1/puzzles/{VCF_IN_3}/retry"))
        .await
        .ok(200, "retry");
    assert_eq!(again["attempt"]["status"], "playing");
    assert_eq!(again["attempt"]["rated"], false);
    assert_eq!(again["attempt"]["tries"], 2);
    assert_eq!(again["moves"], json!([]));
    assert!(again["solution"].is_null() && again["attempt"]["ratingChange"].is_null());
    let practice = solve(&player, VCF_IN_3).await;
    assert_eq!(practice["attempt"]["status"], "solved");
    assert!(practice["attempt"]["ratingChange"].is_null());
    assert_eq!(practice["you"], you, "practice moves no rating");

    player
        .post_empty(&format!("/api/v1/puzzles/{VCF_IN_3}/retry"))
        .await
        .ok(200, "retry");
    let failed = try_move(&player, VCF_IN_3, Point::new(0, 0), Some(0))
        .await
        .ok(200, "a losing move in practice");
    assert_eq!(failed["attempt"]["status"], "failed");
    assert_eq!(failed["you"], you, "a practice failure moves no rating");

    // A first attempt left half-way and retried counts as failed.
    let other = VCF_IN_5;
    let p = stored(other);
    let view = show(&player, other).await;
    let started = try_move(&player, other, winning_move(&p, &view), Some(0))
        .await
        .ok(200, "a first move");
    assert_eq!(started["attempt"]["status"], "playing");
    let given_up = player
        .post_empty(&format!("/api/v1/puzzles/{other}/retry"))
        .await
        .ok(200, "retry half-way");
    assert_eq!(given_up["attempt"]["rated"], false);
    assert_eq!(given_up["you"]["failed"], 1);
    assert_eq!(given_up["you"]["solved"], 1);
    assert!(given_up["you"]["rating"].as_f64() < you["rating"].as_f64());
}

/// The daily puzzle is the same for two players, marked daily, and GET by id says so too. The
/// requests are made again if the UTC date turned while they ran (the daily puzzle changed).
#[tokio::test]
async fn the_daily_puzzle_is_the_same_for_everyone() {
    let server = server();
    let api = gomoku_testkit::Api::on(&server);
    let (a, b) = (api.new_player().await, api.new_player().await);
    let (da, db, shown, other) = loop {
        let day = utc_day();
        let da = a.get("/api/v1/puzzles/daily").await.ok(200, "daily");
        let db = b.get("/api/v1/puzzles/daily").await.ok(200, "daily");
        let shown = show(&a, da["id"].as_str().unwrap()).await;
        let other = show(&a, VCF_IN_3).await;
        if utc_day() == day {
            break (da, db, shown, other);
        }
    };
    assert_eq!(da["id"], db["id"]);
    assert_eq!(da["board"], db["board"]);
    assert_eq!(da["daily"], true);
    assert_eq!(shown["daily"], true);
    assert!(
        [2, 3].contains(&da["difficulty"].as_u64().unwrap()),
        "moderate: {da}"
    );
    assert_eq!(other["daily"], da["id"] == VCF_IN_3);
}

/// The UTC day now, counted from 1970-01-01: the daily puzzle changes with it.
fn utc_day() -> u64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970");
    since.as_secs() / 86_400
}

/// Next offers a puzzle of the rule asked, near the player's rating, and never one they have
/// solved while others are left; an unknown rule is 400 INVALID_QUERY.
#[tokio::test]
async fn next_does_not_repeat_a_solved_puzzle() {
    let server = server();
    let player = gomoku_testkit::Api::on(&server).new_player().await;
    let first = player
        .get("/api/v1/puzzles/next?rule=freestyle")
        .await
        .ok(200, "next");
    assert_eq!(first["rule"], "freestyle");
    assert_eq!(first["attempt"]["tries"], 0, "never tried");
    // A new player is rated 1500: the first window is 1400..=1600.
    let rating = first["rating"].as_i64().unwrap();
    assert!((1400..=1600).contains(&rating), "{rating}");

    solve(&player, VCF_IN_3).await;
    for _ in 0..40 {
        let next = player
            .get("/api/v1/puzzles/next?rule=freestyle")
            .await
            .ok(200, "next");
        assert_ne!(next["id"], VCF_IN_3, "a solved puzzle came again");
        assert_eq!(next["attempt"]["tries"], 0);
    }
    for rule in ["standard", "renju"] {
        let next = player
            .get(&format!("/api/v1/puzzles/next?rule={rule}"))
            .await
            .ok(200, "next");
        assert_eq!(next["rule"], rule);
    }
    player
        .get("/api/v1/puzzles/next")
        .await
        .ok(200, "next of any rule");
    player
        .get("/api/v1/puzzles/next?rule=chess")
        .await
        .assert_error(400, "INVALID_QUERY", "unknown rule");
}

/// Refused moves (an occupied cell, off the board, a renju black forbidden point, an unknown
/// puzzle, a move after the end, a stale ply) answer their codes and store nothing; the same
/// move sent twice with its ply is applied once.
#[tokio::test]
async fn bad_moves_are_refused_and_store_nothing() {
    let server = server();
    let player = gomoku_testkit::Api::on(&server).new_player().await;
    let mut stored_rows = Stored::open(server.database()).await;
    let view = show(&player, VCF_IN_3).await;
    let before = dump(&mut stored_rows).await;

    let occupied = point(&view["lastMove"]);
    try_move(&player, VCF_IN_3, occupied, None)
        .await
        .assert_error(409, "CELL_OCCUPIED", "occupied");
    try_move(&player, VCF_IN_3, Point::new(15, 0), None)
        .await
        .assert_error(422, "OUT_OF_BOUNDS", "row 15");
    player
        .post(
            &format!("/api/v1/puzzles/{VCF_IN_3}/moves"),
            &json!({ "row": -1, "col": 3 }),
        )
        .await
        .assert_error(422, "OUT_OF_BOUNDS", "row -1");
    player
        .post(
            &format!("/api/v1/puzzles/{VCF_IN_3}/moves"),
            &json!({ "row": 3 }),
        )
        .await
        .assert_error(400, "INVALID_JSON", "no col");
    player
        .post(
            &format!("/api/v1/puzzles/{VCF_IN_3}/moves"),
            &json!({ "row": 3, "col": 3, "player": 2 }),
        )
        .await
        .assert_error(400, "INVALID_JSON", "an unknown field");
    try_move(&player, "x9999", Point::new(7, 7), None)
        .await
        .assert_error(404, "PUZZLE_NOT_FOUND", "unknown puzzle");
    player.get("/api/v1/puzzles/x9999").await.assert_error(
        404,
        "PUZZLE_NOT_FOUND",
        "unknown puzzle",
    );
    try_move(&player, VCF_IN_3, Point::new(7, 4), Some(2))
        .await
        .assert_error(409, "PLY_MISMATCH", "a ply ahead");

    // A renju puzzle with black to move and a forbidden point on its board.
    let (renju, forbidden) = puzzle::set()
        .into_iter()
        .find_map(|p| {
            let game = p.setup().ok()?.game;
            let is_black = p.rule == "renju" && p.to_move == "black";
            let first = game.forbidden_points().first().map(|&(pt, _)| pt);
            is_black.then_some(()).and(first).map(|pt| (p.id, pt))
        })
        .expect("a renju puzzle with a forbidden point for black");
    try_move(&player, &renju, forbidden, None)
        .await
        .assert_error(422, "FORBIDDEN_MOVE", "forbidden for black");
    assert_eq!(
        dump(&mut stored_rows).await,
        before,
        "refusals stored nothing"
    );

    // The same first move twice with its ply: applied once, answered alike.
    let p = stored(VCF_IN_3);
    let mv = winning_move(&p, &view);
    let once = try_move(&player, VCF_IN_3, mv, Some(0))
        .await
        .ok(200, "move");
    let stored_once = dump(&mut stored_rows).await;
    let twice = try_move(&player, VCF_IN_3, mv, Some(0))
        .await
        .ok(200, "the same move again");
    assert_eq!(once, twice);
    assert_eq!(dump(&mut stored_rows).await, stored_once, "applied once");
    // Without a ply the point is simply taken.
    try_move(&player, VCF_IN_3, mv, None).await.assert_error(
        409,
        "CELL_OCCUPIED",
        "the same move without ply",
    );

    // After the end.
    let solved = solve(&player, VCF_IN_3).await;
    let after = dump(&mut stored_rows).await;
    let free = (0..15)
        .flat_map(|r| (0..15).map(move |c| Point::new(r, c)))
        .find(|&pt| solved["board"][pt.row][pt.col] == 0)
        .unwrap();
    try_move(&player, VCF_IN_3, free, None)
        .await
        .assert_error(409, "PUZZLE_OVER", "after the end");
    assert_eq!(dump(&mut stored_rows).await, after);
}
