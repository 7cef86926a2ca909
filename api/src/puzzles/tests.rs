//! The puzzle service's decisions without a server: the catalog's choices (next, daily) and the
//! judging of attacker moves on stored puzzles.

use super::catalog::{Catalog, NEXT_WINDOW};
use super::judge::{judge, moves_left, position, Verdict, NODE_LIMIT};
use super::*;
use gomoku_engine::puzzle::parse_point;
use rand::rngs::StdRng;
use rand::SeedableRng;
use time::macros::date;

fn entry(id: &str) -> Entry {
    Catalog::shared().get(id).expect("in the set").clone()
}

/// The whole stored set sets up, every puzzle under its id, its start with the attacker to
/// move and its solution a legal line from there.
#[test]
fn the_set_loads_whole() {
    let catalog = Catalog::shared();
    assert!(catalog.len() >= 500, "{}", catalog.len());
    for e in catalog.entries() {
        assert_eq!(catalog.get(e.id()).map(Entry::id), Some(e.id()));
        assert_eq!(e.start.to_move(), Some(e.attacker), "{}", e.id());
        assert!(position(e, &e.solution).is_ok(), "{}", e.id());
        assert!(e.first_moves.contains(&e.solution[0]), "{}", e.id());
    }
    assert!(catalog.get("f9999").is_none());
}

/// The daily puzzle depends on the date alone, is of moderate difficulty, changes from one day
/// to the next, and comes round only after every candidate has come once.
#[test]
fn the_daily_puzzle_is_the_dates() {
    let catalog = Catalog::shared();
    let day = date!(2026 - 12 - 05);
    assert_eq!(catalog.daily(day).id(), Catalog::shared().daily(day).id());
    let mut seen = std::collections::HashSet::new();
    let mut d = day;
    let candidates = catalog
        .entries()
        .iter()
        .filter(|e| catalog::DAILY_DIFFICULTY.contains(&e.puzzle.difficulty))
        .count();
    for _ in 0..candidates {
        let e = catalog.daily(d);
        assert!(catalog::DAILY_DIFFICULTY.contains(&e.puzzle.difficulty));
        assert!(seen.insert(e.id().to_string()), "{} twice", e.id());
        d = d.next_day().unwrap();
    }
    assert_eq!(
        catalog.daily(d).id(),
        catalog.daily(day).id(),
        "round again"
    );
    // A few days in a row spread over the set, which groups its puzzles by rule.
    let mut rules = std::collections::HashSet::new();
    let mut d = day;
    for _ in 0..7 {
        rules.insert(catalog.daily(d).rule);
        d = d.next_day().unwrap();
    }
    assert_eq!(rules.len(), 3, "a week's puzzles cover the three rules");
}

/// Next gives an untried puzzle of the rule within the first window of the player's rating
/// when there is one, widens the window for a rating far from every puzzle, and once every
/// puzzle of the rule was tried gives the least recently started.
#[test]
fn next_is_near_and_untried() {
    let catalog = Catalog::shared();
    let mut rng = StdRng::seed_from_u64(26);
    for _ in 0..50 {
        let e = catalog
            .next(1500.0, Some(Rule::Renju), &[], &mut rng)
            .unwrap();
        assert_eq!(e.rule, Rule::Renju);
        assert!((e.rating() - 1500.0).abs() <= NEXT_WINDOW, "{}", e.id());
    }
    let far = catalog.next(4000.0, None, &[], &mut rng).unwrap();
    let top = catalog
        .entries()
        .iter()
        .map(Entry::rating)
        .fold(0.0, f64::max);
    assert!(far.rating() >= top - 2.0 * NEXT_WINDOW, "{}", far.id());

    let standard: Vec<String> = catalog
        .entries()
        .iter()
        .filter(|e| e.rule == Rule::Standard)
        .map(|e| e.id().to_string())
        .collect();
    let (last, rest) = standard.split_last().unwrap();
    for _ in 0..20 {
        let e = catalog
            .next(1500.0, Some(Rule::Standard), rest, &mut rng)
            .unwrap();
        assert_eq!(e.id(), last, "the only untried one");
    }
    let all_tried = catalog
        .next(1500.0, Some(Rule::Standard), &standard, &mut rng)
        .unwrap();
    assert_eq!(all_tried.id(), standard[0], "the least recently started");
}

/// The stored line of a VCF puzzle in three, judged move by move: the four keeps the win and
/// is answered by its block (the stored reply), the four-three likewise, the five solves.
#[test]
fn the_stored_line_solves() {
    let e = entry("f0002");
    let line = &e.solution;
    let mut moves = Vec::new();
    for k in (0..line.len()).step_by(2) {
        let verdict = judge(&e, &moves, line[k], NODE_LIMIT);
        if k + 1 == line.len() {
            assert_eq!(verdict, Verdict::Solved);
            return;
        }
        let left = moves_left(&e, &moves) - 1;
        assert_eq!(
            verdict,
            Verdict::Goes {
                reply: line[k + 1],
                left
            }
        );
        moves.extend([line[k], line[k + 1]]);
    }
    panic!("the line ends with the five");
}

/// A quiet move in a VCF puzzle fails at once, as does a four whose block ends the attack; the
/// defence's answer is shown.
#[test]
fn a_move_that_loses_the_win_fails() {
    let e = entry("f0002");
    let corner = Point::new(0, 0);
    assert!(e.start.board().get(corner).is_none());
    assert!(matches!(
        judge(&e, &[], corner, NODE_LIMIT),
        Verdict::Failed {
            refutation: Some(_)
        }
    ));
    // The last move of the line played one move too late: no attacker moves are left for it.
    let mut moves = e.solution[..e.solution.len() - 1].to_vec();
    moves.push(Point::new(0, 14));
    moves.push(Point::new(14, 0));
    assert_eq!(moves_left(&e, &moves), 0);
    assert_eq!(
        judge(&e, &moves, *e.solution.last().unwrap(), NODE_LIMIT),
        Verdict::Failed { refutation: None }
    );
}

/// On the stored line nothing is searched (its replies are the proof's), so even with no node
/// budget the line goes on with its replies; off the line, a search that runs out of nodes gives
/// the benefit of the doubt: a four that does not win (no stored first move) goes on with no
/// budget, and fails once the search can finish.
#[test]
fn the_line_needs_no_search_and_an_unfinished_one_gives_the_benefit_of_the_doubt() {
    use gomoku_engine::position::{colour_of, Position, Threat};
    let e = entry("f0002");
    assert_eq!(
        judge(&e, &[], e.solution[0], 0),
        Verdict::Goes {
            reply: e.solution[1],
            left: e.puzzle.win_in - 1
        }
    );
    let (e, four) = Catalog::shared()
        .entries()
        .iter()
        .filter(|e| e.puzzle.kind == "vct" && e.puzzle.tree < 200)
        .find_map(|e| {
            let pos = Position::from_game(&e.start);
            let me = colour_of(e.attacker);
            pos.points_with(me, Threat::Four)
                .into_iter()
                .filter(|&i| pos.is_legal(i, me))
                .map(|i| pos.point(i))
                .find(|p| !e.first_moves.contains(p))
                .map(|p| (e.clone(), p))
        })
        .expect("a VCT puzzle with a four that does not win");
    assert!(
        matches!(judge(&e, &[], four, 0), Verdict::Goes { .. }),
        "{}",
        e.id()
    );
    assert!(
        matches!(judge(&e, &[], four, 5_000_000), Verdict::Failed { .. }),
        "{}",
        e.id()
    );
}

/// A puzzle is rated as an opponent with the set's rating and a deviation of 80.
#[test]
fn a_puzzle_is_an_opponent_of_fixed_deviation() {
    let o = opponent(1552.0);
    assert_eq!((o.rating, o.rd), (1552.0, PUZZLE_RD));
    let solution = entry("f0001").puzzle.solution.clone();
    assert_eq!(
        parse_point(&solution[0], 15),
        Some(entry("f0001").solution[0])
    );
}

/// Every stored puzzle of a sample (every `GOMOKU_PUZZLE_STEP`th, default 5) played out through
/// the judge as a player would: the stored line while the defence follows it, else the
/// prover's winning move; each ends solved within its N. Prints the time per judged move
/// (median, 90th percentile, most) and the slowest moves, at `GOMOKU_PUZZLE_NODES` positions
/// a search (default [`NODE_LIMIT`]). Slow: `cargo test -p gomoku --lib
/// puzzles::tests::judging_the_stored_set -- --ignored --nocapture`.
#[test]
#[ignore = "slow: times the judge over a sample of the stored set; run with --ignored --nocapture"]
fn judging_the_stored_set() {
    use gomoku_engine::position::Position;
    use gomoku_engine::puzzle::prove;
    use std::time::{Duration, Instant};
    let step = std::env::var("GOMOKU_PUZZLE_STEP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let nodes = std::env::var("GOMOKU_PUZZLE_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(NODE_LIMIT);
    let mut times: Vec<Duration> = Vec::new();
    let mut slowest: Vec<(Duration, String, usize)> = Vec::new();
    let mut off_line = 0;
    for e in Catalog::shared().entries().iter().step_by(step) {
        let mut moves: Vec<Point> = Vec::new();
        loop {
            let on_line = moves.len() < e.solution.len() && e.solution[..moves.len()] == moves[..];
            let mv = if on_line {
                e.solution[moves.len()]
            } else {
                let game = position(e, &moves).unwrap();
                let mut pos = Position::from_game(&game);
                let proof = prove(&mut pos, e.kind, moves_left(e, &moves), 20_000_000)
                    .expect("budget")
                    .unwrap_or_else(|| panic!("{}: no win left after {moves:?}", e.id()));
                pos.point(proof.first_moves[0])
            };
            let started = Instant::now();
            let verdict = judge(e, &moves, mv, nodes);
            times.push(started.elapsed());
            slowest.push((started.elapsed(), e.id().to_string(), moves.len()));
            match verdict {
                Verdict::Solved => break,
                Verdict::Goes { reply, .. } => {
                    if on_line && e.solution.get(moves.len() + 1) != Some(&reply) {
                        off_line += 1;
                    }
                    moves.extend([mv, reply]);
                }
                Verdict::Failed { .. } => panic!("{}: {mv:?} after {moves:?} failed", e.id()),
            }
        }
    }
    // Off the line: the other winning first move, after which the defence is searched.
    for e in Catalog::shared().entries().iter().step_by(step) {
        if let Some(&other) = e.first_moves.iter().find(|&&p| p != e.solution[0]) {
            let started = Instant::now();
            let verdict = judge(e, &[], other, nodes);
            times.push(started.elapsed());
            slowest.push((started.elapsed(), format!("{} off the line", e.id()), 0));
            assert!(
                matches!(verdict, Verdict::Goes { .. }),
                "{}: {verdict:?}",
                e.id()
            );
        }
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "{} moves judged: median {:?}, p90 {:?}, most {:?}; the defence left the stored line {off_line} times",
        times.len(),
        at(0.5),
        at(0.9),
        times.last().unwrap()
    );
    slowest.sort();
    println!(
        "slowest (time, puzzle, ply): {:?}",
        &slowest[slowest.len().saturating_sub(5)..]
    );
}
