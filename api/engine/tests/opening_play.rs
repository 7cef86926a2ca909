//! The AI in the opening rules: its proposals are near even by its own judgement, as chooser
//! it takes the side its judgement favours, it offers and picks Taraguchi 5th moves as the
//! rule rewards, and its turns are reproducible for a seed and bounded in time.

mod common;

use common::pinned;
use gomoku_engine::opening_play::{balance, opening_turn, EVAL_NODES};
use gomoku_engine::SearchOptions;
use gomoku_rules::opening::{Choice, Phase, Seat, Step, Zone};
use gomoku_rules::{Coord, Opening, OpeningRule, Point, Rule};
use std::time::{Duration, Instant};

const SIZE: usize = 15;
use Seat::{First, Second};

fn at(text: &str) -> Point {
    text.parse::<Coord>()
        .expect("notation")
        .to_point(SIZE)
        .expect("on the board")
}

/// An opening after the given steps, which must all be legal.
fn opening(rule: Rule, opening_rule: OpeningRule, steps: &[(Seat, Step)]) -> Opening {
    let mut o = Opening::new(SIZE, rule, opening_rule).expect("suited");
    for (by, step) in steps {
        o.apply(*by, step.clone()).expect("a legal step");
    }
    o
}

fn place(text: &str) -> Step {
    Step::Place(at(text))
}

/// The score the AI's own judgement gives a position (the effort of one deciding judgement).
fn judged(o: &Opening) -> i32 {
    balance(o.game(), &pinned(1, EVAL_NODES))
}

/// Applies an AI turn for the seat to act and returns the steps.
fn ai_turn(o: &mut Opening, options: &SearchOptions) -> Vec<Step> {
    let seat = o.phase().by().expect("not done");
    let steps = opening_turn(o, options);
    assert!(!steps.is_empty(), "a turn has steps");
    for step in &steps {
        o.apply(seat, step.clone())
            .expect("the AI's steps are legal");
    }
    steps
}

/// Swap2 as proposer: three stones, black, white, black, near the centre, whose position the
/// AI's own judgement scores near even — far nearer than a lopsided opening it judges too.
#[test]
fn swap2_proposal_is_near_even() {
    let lopsided = opening(
        Rule::Freestyle,
        OpeningRule::Swap2,
        &[
            (First, place("h8")),
            (First, place("a1")),
            (First, place("i9")),
        ],
    );
    assert!(judged(&lopsided) > 1000, "{}", judged(&lopsided));
    for seed in 0..3 {
        let mut o = opening(Rule::Freestyle, OpeningRule::Swap2, &[]);
        let steps = ai_turn(&mut o, &pinned(seed, 150_000));
        assert_eq!(steps.len(), 3);
        assert!(matches!(o.phase(), Phase::Choose { by: Second, .. }));
        for m in o.game().moves() {
            assert!(
                Zone::Central(7).contains(SIZE, m.point),
                "{:?}",
                o.game().board()
            );
        }
        let score = judged(&o);
        assert!(
            score.abs() <= 250,
            "seed {seed}: {score}\n{:?}",
            o.game().board()
        );
    }
}

/// Swap2 as chooser after three stones and after five: black where its judgement favours black,
/// white where it favours white (white to move with the centre, black's stones in the corners).
#[test]
fn swap2_chooser_takes_the_favoured_side() {
    let three = |points: [&str; 3]| {
        opening(
            Rule::Freestyle,
            OpeningRule::Swap2,
            &points.map(|p| (First, place(p))),
        )
    };
    let five = |points: [&str; 5]| {
        let mut steps: Vec<(Seat, Step)> = points[..3].iter().map(|&p| (First, place(p))).collect();
        steps.push((Second, Step::Choose(Choice::PlaceTwo)));
        steps.extend(points[3..].iter().map(|&p| (Second, place(p))));
        opening(Rule::Freestyle, OpeningRule::Swap2, &steps)
    };
    let cases = [
        (three(["h8", "a1", "i9"]), Choice::Black),
        (three(["a1", "h8", "o15"]), Choice::White),
        (five(["h8", "a1", "i9", "o1", "j10"]), Choice::Black),
        (five(["a1", "h8", "o15", "h9", "a15"]), Choice::White),
    ];
    for (o, want) in cases {
        let steps = opening_turn(&o, &pinned(3, 100_000));
        assert_eq!(steps, [Step::Choose(want)], "{:?}", o.game().board());
        let score = judged(&o);
        assert_eq!(score > 0, want == Choice::Black, "its judgement: {score}");
    }
}

/// Taraguchi-10 played by the AI on both seats: every turn is legal, each stone lies in its
/// square, and the opening ends with five stones and white to move.
#[test]
fn taraguchi_ai_against_itself() {
    for seed in 0..2 {
        let mut o = opening(Rule::Renju, OpeningRule::Taraguchi10, &[]);
        let mut turns = 0;
        while o.phase().by().is_some() {
            ai_turn(&mut o, &pinned(seed, 60_000));
            turns += 1;
            assert!(turns <= 10, "the opening ends");
        }
        assert_eq!(o.game().moves().len(), 5);
        assert_eq!(o.game().to_move(), Some(gomoku_rules::Stone::White));
    }
}

/// After a far-away white 4th move black is well ahead: black offers ten 5th moves (different
/// up to symmetry, as the rules check) rather than place one for white to swap on, and white
/// then picks the offer its judgement scores worst for black.
#[test]
fn taraguchi_offer_and_pick() {
    // Black h8 and i9 on a diagonal; white g9 beside them and e5 far off in the 7×7 corner.
    let mut o = opening(
        Rule::Renju,
        OpeningRule::Taraguchi10,
        &[
            (First, place("h8")),
            (Second, Step::Choose(Choice::White)),
            (Second, place("g9")),
            (First, Step::Choose(Choice::Black)),
            (First, place("i9")),
            (Second, Step::Choose(Choice::White)),
            (Second, place("e5")),
        ],
    );
    assert!(judged(&o) > 1000, "black is ahead: {}", judged(&o));
    let steps = ai_turn(&mut o, &pinned(3, 800_000));
    assert_eq!(steps[0], Step::Choose(Choice::OfferTen));
    let Phase::Pick { offers, .. } = o.phase().clone() else {
        panic!("white picks next: {:?}", o.phase());
    };
    assert_eq!(offers.len(), 10);
    let steps = opening_turn(&o, &pinned(3, 10 * EVAL_NODES));
    let worst = offers
        .iter()
        .copied()
        .min_by_key(|&p| {
            let mut after = o.clone();
            after.apply(Second, Step::Pick(p)).expect("offered");
            judged(&after)
        })
        .expect("ten offers");
    assert_eq!(steps, [Step::Pick(worst)]);
}

/// The same seed and node limit give the same steps on every call.
#[test]
fn deterministic_for_a_seed_and_node_limit() {
    let o = opening(Rule::Freestyle, OpeningRule::Swap2, &[]);
    let first = opening_turn(&o, &pinned(5, 80_000));
    for _ in 0..2 {
        assert_eq!(opening_turn(&o, &pinned(5, 80_000)), first);
    }
}

/// Under a time budget alone a turn ends within it (with room for a loaded machine): every
/// judgement gets its share of what is left.
#[test]
fn time_budget_bounds_a_turn() {
    let o = opening(Rule::Freestyle, OpeningRule::Swap2, &[]);
    let options = SearchOptions {
        time_budget: Duration::from_millis(300),
        seed: 1,
        stop: None,
        node_limit: None,
    };
    let start = Instant::now();
    let steps = opening_turn(&o, &options);
    assert_eq!(steps.len(), 3);
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
}

/// Nothing to do once the opening is over.
#[test]
fn no_steps_once_done() {
    let o = opening(
        Rule::Freestyle,
        OpeningRule::Swap2,
        &[
            (First, place("h8")),
            (First, place("h9")),
            (First, place("i9")),
            (Second, Step::Choose(Choice::White)),
        ],
    );
    assert!(opening_turn(&o, &pinned(1, 1_000)).is_empty());
}

/// On every board size from 5 to 15, under both opening rules and a tiny node budget, the AI
/// playing both seats takes only legal steps (`ai_turn` applies them) and finishes the opening.
#[test]
fn every_board_size_finishes() {
    for size in 5..=15 {
        for (rule, opening_rule) in [
            (Rule::Standard, OpeningRule::Swap2),
            (Rule::Renju, OpeningRule::Taraguchi10),
        ] {
            let mut o = Opening::new(size, rule, opening_rule).expect("suited");
            let mut turns = 0;
            while o.phase().by().is_some() {
                ai_turn(&mut o, &pinned(size as u64, 3_000));
                turns += 1;
                assert!(turns <= 10, "size {size}: the opening ends");
            }
            assert!(o.is_done());
        }
    }
}
