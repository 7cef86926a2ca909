//! The full-defence prover of puzzle.rs: boards drawn here, the published renju problems of
//! tests/data (copied from ../shared/data: the MIT-licensed realcore and quintet suites), and
//! the stored puzzle set (data/puzzles.jsonl, made by the `puzzles-gen` binary).

mod common;

use common::{game, p};
use gomoku_engine::position::{colour_of, Position};
use gomoku_engine::puzzle::{self, parse_point, Puzzle};
use gomoku_engine::threat::Kind;
use gomoku_rules::{Coord, Game, Outcome, Point, Rule, Stone};
use serde_json::Value;

const NODES: u64 = 2_000_000;

/// Black's four-three at (5,5): the row of three closed on the left becomes a four, the column
/// an open three. White must block the four at (5,6); black's open four follows.
const FOUR_THREE: &str = "
    O . . . . . . . . . O
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    . O X X X . . . . . .
    . . . . . X . . . . .
    . . . . . X . . . . .
    . . . . . . . . . . .
    . . . . . . . . . . .
    O . . . . . . . . . O";

/// A VCF in three with one winning first move; the defence is the five point, and the second
/// move must make the open four, not a mere four.
#[test]
fn a_four_three_is_a_vcf_in_three() {
    let g = game(FOUR_THREE, Rule::Freestyle);
    let mut pos = Position::from_game(&g);
    let proof = puzzle::prove(&mut pos, Kind::Vcf, 11, NODES)
        .expect("budget")
        .expect("a win");
    assert_eq!(proof.win_in, 3);
    let firsts: Vec<Point> = proof.first_moves.iter().map(|&i| pos.point(i)).collect();
    assert_eq!(firsts, vec![p(5, 5)]);
    common::check_game_vcf_line(
        &g,
        &proof.line.iter().map(|&i| pos.point(i)).collect::<Vec<_>>(),
    );

    // Grid indices depend on the board size only.
    let grid = pos.clone();
    let at = |r, c| grid.index(p(r, c));
    // (5,6) is a four too, but white's block at (5,5) ends everything.
    assert_eq!(
        puzzle::check_attack(&mut pos, Kind::Vcf, at(5, 6), 3, NODES),
        Ok(None)
    );
    // A quiet move is no attack at all.
    assert_eq!(
        puzzle::check_attack(&mut pos, Kind::Vcf, at(2, 8), 3, NODES),
        Ok(None)
    );
    // The four-three keeps the win: three moves counting itself, but not two.
    assert_eq!(
        puzzle::check_attack(&mut pos, Kind::Vcf, at(5, 5), 3, NODES),
        Ok(Some(3))
    );
    assert_eq!(
        puzzle::check_attack(&mut pos, Kind::Vcf, at(5, 5), 2, NODES),
        Ok(None)
    );

    pos.make(at(5, 5));
    let reply = puzzle::defend(&mut pos, Kind::Vcf, 2, NODES)
        .expect("budget")
        .expect("a reply");
    assert_eq!(pos.point(reply.point), p(5, 6));
    assert_eq!(reply.attacker_wins_in, Some(2));
    pos.make(reply.point);
    // Either end of the column makes the open four; the far point makes only a four.
    for (r, c, keeps) in [(4, 5, true), (8, 5, true), (3, 5, false)] {
        let n = puzzle::check_attack(&mut pos, Kind::Vcf, at(r, c), 2, NODES).expect("budget");
        assert_eq!(n.is_some(), keeps, "({r},{c})");
    }
}

/// Black's double three at (7,7) (the row and the column): a VCT in three in freestyle, no
/// win at all in renju, where a double three is forbidden for black.
const DOUBLE_THREE: &str = "
    O . . . . . . . . . . . . . O
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . X . . . . . . .
    . . . . . . . X . . . . . . .
    . . . . . X X . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . . . . . . . . . . . . . O";

/// A renju black attacker never plays a forbidden point: the double three that wins in
/// freestyle is no move in renju (and no other win is as short).
#[test]
fn a_renju_black_attacker_avoids_forbidden_points() {
    let mut free = Position::from_game(&game(DOUBLE_THREE, Rule::Freestyle));
    let proof = puzzle::prove(&mut free, Kind::Vct, 11, NODES)
        .expect("budget")
        .expect("a win");
    assert_eq!(proof.win_in, 3);
    assert!(proof.first_moves.contains(&free.index(p(7, 7))));

    let mut renju = Position::from_game(&game(DOUBLE_THREE, Rule::Renju));
    assert!(!renju.is_legal(renju.index(p(7, 7)), colour_of(Stone::Black)));
    let proof = puzzle::prove(&mut renju, Kind::Vct, 5, NODES).expect("budget");
    assert!(
        proof
            .as_ref()
            .is_none_or(|pr| !pr.first_moves.contains(&renju.index(p(7, 7)))),
        "{proof:?}"
    );
}

/// White's row of three, closed by black on the left; black's stones make (7,7), the end of
/// the row, a double three for black (the column and the diagonal).
const FORBIDDEN_BLOCK: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . X .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . X O O O . . . . . . . . .
    . . . . . . . X X . . . . . .
    . . . . . . . X . X . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . O . . . . . . . . . . . . .
    . . . . . . . . . . . . . . O";

/// In renju white wins by a four whose only block is forbidden for black; in freestyle black
/// blocks it and white has nothing.
#[test]
fn a_renju_white_attacker_wins_through_a_forbidden_block() {
    let mut renju = Position::from_game(&game(FORBIDDEN_BLOCK, Rule::Renju));
    assert_eq!(renju.to_move(), colour_of(Stone::White));
    let proof = puzzle::prove(&mut renju, Kind::Vcf, 11, NODES)
        .expect("budget")
        .expect("a win");
    assert_eq!(proof.win_in, 2);
    assert_eq!(
        proof.first_moves,
        vec![renju.index(p(7, 6))],
        "the four that ends on the forbidden point"
    );
    renju.make(renju.index(p(7, 6)));
    let reply = puzzle::defend(&mut renju, Kind::Vcf, 1, NODES)
        .expect("budget")
        .expect("black has legal moves");
    assert_ne!(renju.point(reply.point), p(7, 7));
    assert_eq!(reply.attacker_wins_in, Some(1));

    let mut free = Position::from_game(&game(FORBIDDEN_BLOCK, Rule::Freestyle));
    assert_eq!(
        puzzle::win_in(&mut free, Kind::Vcf, 11, NODES),
        Ok(None),
        "black blocks at (7,7)"
    );
}

fn point(v: &Value) -> Point {
    let c: Coord = v.as_str().expect("a coordinate").parse().expect("notation");
    c.to_point(15).expect("on the board")
}

/// A published problem: its position (attacker to move) and what the source says.
struct Problem {
    case: String,
    pos: Position,
    first_move: Point,
    win_in: Option<u32>,
}

fn problems(text: &str) -> Vec<Problem> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            let mut pos = Position::new(15, Rule::Renju);
            for (key, stone) in [("black", Stone::Black), ("white", Stone::White)] {
                for s in v[key].as_array().expect("stones") {
                    let i = pos.index(point(s));
                    pos.place(i, colour_of(stone));
                }
            }
            let attacker = if v["to_move"] == "black" {
                Stone::Black
            } else {
                Stone::White
            };
            pos.set_to_move(colour_of(attacker));
            Problem {
                case: v["case"].as_str().unwrap_or("?").to_string(),
                pos,
                first_move: point(&v["first_move"]),
                win_in: v["win_in"].as_u64().map(|n| n as u32),
            }
        })
        .collect()
}

/// The published VCF problems (the 74-move one aside) are proven at exactly their published
/// minimal length, and the published first move is one of the winning first moves.
#[test]
fn published_vcfs_have_their_published_length() {
    for mut pr in problems(include_str!("data/renju-vcf.jsonl")) {
        if pr.case == "test_vcf_long" {
            continue;
        }
        let proof = puzzle::prove(&mut pr.pos, Kind::Vcf, 15, NODES)
            .expect("budget")
            .unwrap_or_else(|| panic!("{}: no VCF", pr.case));
        assert_eq!(Some(proof.win_in), pr.win_in, "{}", pr.case);
        assert!(
            proof.first_moves.contains(&pr.pos.index(pr.first_move)),
            "{}",
            pr.case
        );
    }
}

/// The published VCT problems that our attacker's threats can solve (not the benchmarks, not
/// `test_vct_fukumi_move`, whose key move threatens a VCF and is no three or four) are proven
/// against every defence, in five attacker moves (the source's four plus the five). The first
/// move is the source's, except `test_vct_dual_forbiddens`, where the source's j4 wins only
/// later and the shortest wins start with i3 (checked by hand in threat_data.rs) or k3.
#[test]
fn published_vcts_hold_against_every_defence() {
    for mut pr in problems(include_str!("data/renju-vct.jsonl")) {
        if pr.case.starts_with("bench") || pr.case == "test_vct_fukumi_move" {
            continue;
        }
        let proof = puzzle::prove(&mut pr.pos, Kind::Vct, 8, NODES)
            .expect("budget")
            .unwrap_or_else(|| panic!("{}: no VCT", pr.case));
        let firsts: Vec<Point> = proof.first_moves.iter().map(|&i| pr.pos.point(i)).collect();
        if pr.case == "test_vct_dual_forbiddens" {
            assert_eq!(proof.win_in, 6);
            let own = ["i3", "k3"].map(|c| c.parse::<Coord>().unwrap().to_point(15).unwrap());
            assert_eq!(firsts, own.to_vec());
        } else {
            assert_eq!(proof.win_in, 5, "{}", pr.case);
            assert_eq!(firsts, vec![pr.first_move], "{}", pr.case);
        }
    }
}

/// Every published problem's first move holds against *every* legal reply, not only those the
/// prover searches, and the prover's most stubborn reply is the one that delays the five
/// longest among them all.
#[test]
fn published_first_moves_hold_against_every_reply() {
    for (text, kind) in [
        (include_str!("data/renju-vcf.jsonl"), Kind::Vcf),
        (include_str!("data/renju-vct.jsonl"), Kind::Vct),
    ] {
        for mut pr in problems(text) {
            if pr.case == "test_vcf_long"
                || pr.case.starts_with("bench")
                || pr.case == "test_vct_fukumi_move"
            {
                continue;
            }
            let n = puzzle::win_in(&mut pr.pos, kind, 15, NODES)
                .expect("budget")
                .expect("a win");
            let first = puzzle::prove(&mut pr.pos, kind, n, NODES)
                .expect("budget")
                .expect("a win")
                .first_moves[0];
            every_reply_loses(&mut pr.pos, kind, first, n, &pr.case);
        }
    }
}

/// The attacker plays `first` (a win in `n`); tries every legal reply by brute force and checks
/// that each loses within `n - 1` more attacker moves, the slowest exactly so, and that
/// `puzzle::defend` finds that slowest.
fn every_reply_loses(pos: &mut Position, kind: Kind, first: usize, n: u32, case: &str) {
    let attacker = pos.to_move();
    let defender = 1 - attacker;
    pos.make(first);
    let mut slowest = 0;
    let points = pos.points().to_vec();
    for q in points {
        if !pos.is_empty(q) || !pos.is_legal(q, defender) {
            continue;
        }
        pos.make(q);
        let left = puzzle::win_in(pos, kind, n - 1, NODES).expect("budget");
        pos.unmake();
        let left = left.unwrap_or_else(|| panic!("{case}: the reply {:?} escapes", pos.point(q)));
        slowest = slowest.max(left);
    }
    if slowest > 0 {
        assert_eq!(slowest, n - 1, "{case}: the slowest reply");
        let reply = puzzle::defend(pos, kind, n - 1, NODES)
            .expect("budget")
            .expect("a reply");
        assert_eq!(
            reply.attacker_wins_in,
            Some(n - 1),
            "{case}: stubborn reply"
        );
    }
    pos.unmake();
}

/// Re-proves a stored puzzle: it replays legally, its length and first moves are what the
/// prover finds with every defence considered, a VCT puzzle has no VCF, and its solution is a
/// legal line, every attacker move of it keeping the win, that ends with the attacker's five
/// (or, renju white, a four black may not block).
fn verify(pz: &Puzzle) {
    let setup = pz.setup().expect("the puzzle sets up");
    let mut pos = Position::from_game(&setup.game);
    let proof = puzzle::prove(&mut pos, setup.kind, pz.win_in, NODES)
        .unwrap_or_else(|_| panic!("{}: budget", pz.id))
        .unwrap_or_else(|| panic!("{}: no win in {}", pz.id, pz.win_in));
    assert_eq!(proof.win_in, pz.win_in, "{}", pz.id);
    let names: Vec<String> = proof
        .first_moves
        .iter()
        .map(|&i| puzzle::notation(pos.point(i), pz.size))
        .collect();
    assert_eq!(names, pz.first_moves, "{}", pz.id);
    if setup.kind == Kind::Vct {
        assert_eq!(
            puzzle::win_in(&mut pos, Kind::Vcf, 11, NODES),
            Ok(None),
            "{}: a VCF",
            pz.id
        );
    }
    let mut g: Game = setup.game.clone();
    let mut left = pz.win_in;
    for (k, m) in pz.solution.iter().enumerate() {
        let pt = parse_point(m, pz.size).expect("notation");
        if k % 2 == 0 {
            let mut here = Position::from_game(&g);
            let mv = here.index(pt);
            let n = puzzle::check_attack(&mut here, setup.kind, mv, left, NODES)
                .expect("budget")
                .unwrap_or_else(|| panic!("{}: solution move {k} loses the win", pz.id));
            left = n - 1;
        }
        g.play(pt)
            .unwrap_or_else(|e| panic!("{}: solution move {k}: {e:?}", pz.id));
    }
    match g.outcome() {
        Outcome::Win { winner, .. } => assert_eq!(*winner, setup.attacker, "{}", pz.id),
        _ => {
            assert_eq!(
                (g.rule(), setup.attacker),
                (Rule::Renju, Stone::White),
                "{}: the solution does not end in a five",
                pz.id
            );
            let pos = Position::from_game(&g);
            let fives = pos.five_points(colour_of(Stone::White));
            assert!(!fives.is_empty(), "{}", pz.id);
            assert!(fives
                .iter()
                .all(|&f| !pos.is_legal(f, colour_of(Stone::Black))));
        }
    }
}

/// The stored set holds at least 500 puzzles, at least 150 in each rule family (freestyle and
/// standard; renju), both kinds in each, ids unique, lengths 3 to 11, ratings in range.
#[test]
fn the_stored_set_is_large_and_mixed() {
    let set = puzzle::set();
    assert!(set.len() >= 500, "{} puzzles", set.len());
    let count = |f: &dyn Fn(&Puzzle) -> bool| set.iter().filter(|p| f(p)).count();
    assert!(count(&|p| p.rule != "renju") >= 150);
    assert!(count(&|p| p.rule == "renju") >= 150);
    for family in [["freestyle", "standard"], ["renju", "renju"]] {
        for kind in ["vcf", "vct"] {
            let n = count(&|p| family.contains(&p.rule.as_str()) && p.kind == kind);
            assert!(n >= 30, "{family:?} {kind}: {n}");
        }
    }
    let mut ids: Vec<&str> = set.iter().map(|p| p.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), set.len(), "ids are unique");
    for p in &set {
        assert!((3..=11).contains(&p.win_in), "{}", p.id);
        assert!((1..=2).contains(&p.first_moves.len()), "{}", p.id);
        assert!((800..=2400).contains(&p.rating), "{}", p.id);
        assert!((1..=5).contains(&p.difficulty), "{}", p.id);
    }
}

/// A sample of the stored set (every 25th puzzle) re-proven; the whole set is
/// `every_stored_puzzle_is_proven`, which is slow.
#[test]
fn a_sample_of_the_stored_set_is_proven() {
    for p in puzzle::set().iter().step_by(25) {
        verify(p);
    }
}

/// A smaller sample (every 100th puzzle) holds against every legal reply at its first move.
#[test]
fn a_sample_of_stored_first_moves_holds_against_every_reply() {
    for p in puzzle::set().iter().step_by(100) {
        let setup = p.setup().expect("sets up");
        let mut pos = Position::from_game(&setup.game);
        let first = pos.index(parse_point(&p.first_moves[0], p.size).expect("notation"));
        every_reply_loses(&mut pos, setup.kind, first, p.win_in, &p.id);
    }
}

/// Every stored puzzle re-proven, and its first move held against every reply (minutes in a
/// release build: `cargo test --release -p gomoku-engine --test puzzle -- --ignored`).
#[test]
#[ignore = "slow: the whole set"]
fn every_stored_puzzle_is_proven() {
    for p in puzzle::set() {
        verify(&p);
        let setup = p.setup().expect("sets up");
        let mut pos = Position::from_game(&setup.game);
        let first = pos.index(parse_point(&p.first_moves[0], p.size).expect("notation"));
        every_reply_loses(&mut pos, setup.kind, first, p.win_in, &p.id);
    }
}

/// A stored puzzle that does not replay, or whose side to move is not the attacker it names,
/// is refused with its id rather than set up wrongly.
#[test]
fn a_bad_stored_puzzle_is_refused() {
    let good = puzzle::set().into_iter().next().expect("a puzzle");
    assert!(good.setup().is_ok());
    let mut wrong_side = good.clone();
    wrong_side.to_move = if good.to_move == "black" {
        "white".into()
    } else {
        "black".into()
    };
    let mut occupied = good.clone();
    occupied.moves.push(good.moves[0].clone());
    let mut unknown_kind = good.clone();
    unknown_kind.kind = "vc4".into();
    for bad in [wrong_side, occupied, unknown_kind] {
        let err = bad.setup().err().expect("refused");
        assert!(err.to_string().contains(&good.id), "{err}");
    }
}
