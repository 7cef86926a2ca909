//! Helpers shared by the integration tests: games from ASCII diagrams, pinned search options,
//! and a checker that a threat line really wins under the rules crate's judge.

#![allow(dead_code)]

use gomoku_engine::{Level, SearchOptions};
use gomoku_rules::{judge, renju, Board, Game, Point, Rule, Stone};
use std::time::Duration;

/// A game whose board is the diagram (`X` black, `O` white, `.` empty). The stones are put in
/// an alternating order that the rules accept; black moves next when the counts are equal,
/// white when black has one more.
pub fn game(diagram: &str, rule: Rule) -> Game {
    let board = Board::from_ascii(diagram).expect("a square diagram");
    let n = board.size();
    let (mut blacks, mut whites) = (Vec::new(), Vec::new());
    for r in 0..n {
        for c in 0..n {
            match board.get(Point::new(r, c)) {
                Some(Stone::Black) => blacks.push(Point::new(r, c)),
                Some(Stone::White) => whites.push(Point::new(r, c)),
                None => {}
            }
        }
    }
    assert!(
        blacks.len() == whites.len() || blacks.len() == whites.len() + 1,
        "stone counts"
    );
    // Some orders pass through a forbidden point or an early five; try rotations until one works.
    for shift in 0..blacks.len().max(1) {
        let mut b = blacks.clone();
        b.rotate_left(shift);
        for wshift in 0..whites.len().max(1) {
            let mut w = whites.clone();
            w.rotate_left(wshift);
            let mut moves = Vec::new();
            for i in 0..b.len() {
                moves.push(b[i]);
                if i < w.len() {
                    moves.push(w[i]);
                }
            }
            if let Ok(g) = Game::replay(n, rule, &moves) {
                if !g.is_over() {
                    return g;
                }
            }
        }
    }
    panic!("no legal move order reaches this diagram")
}

/// Options that make a search reproducible: a node limit and a budget that never binds.
pub fn pinned(seed: u64, nodes: u64) -> SearchOptions {
    SearchOptions {
        time_budget: Duration::from_secs(3600),
        seed,
        stop: None,
        node_limit: Some(nodes),
    }
}

/// Options per level for tactical tests (small node limits keep debug builds fast).
pub fn for_test(level: Level) -> SearchOptions {
    pinned(7, if level == Level::Easy { 1 } else { 4_000 })
}

pub fn p(row: usize, col: usize) -> Point {
    Point::new(row, col)
}

/// Whether `stone` would complete a winning line at `at` on `board`.
pub fn wins_at(board: &Board, at: Point, stone: Stone, rule: Rule) -> bool {
    if board.get(at).is_some() {
        return false;
    }
    let mut b = board.clone();
    b.set(at, Some(stone));
    judge::winning_line(&b, at, rule).is_some()
}

/// Replays a VCF line (attacker first, alternating) on `board` and checks that it proves a
/// win under the rules crate: every attacker move but the last makes a four, every defender
/// move blocks a five point, black never plays a forbidden point in renju, and the line
/// ends with the attacker's five — or, in renju, with a four whose every block is forbidden.
pub fn check_vcf_line(board: &Board, attacker: Stone, rule: Rule, line: &[Point]) {
    let mut b = board.clone();
    let five_points = |b: &Board| -> Vec<Point> {
        (0..b.size())
            .flat_map(|r| (0..b.size()).map(move |c| Point::new(r, c)))
            .filter(|&q| wins_at(b, q, attacker, rule))
            .collect()
    };
    for (i, &pt) in line.iter().enumerate() {
        let mover = if i % 2 == 0 {
            attacker
        } else {
            attacker.opponent()
        };
        assert!(b.get(pt).is_none(), "move {i} on an occupied point");
        if rule == Rule::Renju && mover == Stone::Black {
            assert_eq!(
                renju::forbidden_kind(&b, pt),
                None,
                "move {i} is forbidden for black"
            );
        }
        if mover != attacker {
            // Against a four, its five point; against two, either (the other then wins).
            assert!(
                five_points(&b).contains(&pt),
                "defence {i} does not block a four"
            );
        }
        b.set(pt, Some(mover));
        if judge::winning_line(&b, pt, rule).is_some() {
            assert_eq!(mover, attacker, "the defender won at move {i}");
            assert_eq!(i, line.len() - 1, "moves after the five");
            return;
        }
        if mover == attacker {
            assert!(
                !five_points(&b).is_empty(),
                "attacker move {i} is not a four"
            );
        }
    }
    // No five at the end: only a renju white four whose blocks are all forbidden may end a line.
    assert_eq!(
        (rule, attacker),
        (Rule::Renju, Stone::White),
        "the line does not end in a five"
    );
    let fives = five_points(&b);
    assert!(!fives.is_empty());
    for q in fives {
        assert!(
            renju::forbidden_kind(&b, q).is_some(),
            "black can block at {q:?}"
        );
    }
}

/// [`check_vcf_line`] for the side to move of a game.
pub fn check_game_vcf_line(game: &Game, line: &[Point]) {
    check_vcf_line(
        game.board(),
        game.to_move().expect("game on"),
        game.rule(),
        line,
    );
}
