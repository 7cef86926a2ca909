//! Property tests: the incremental judge against a whole-board scan, replay and undo against
//! playing, notation round trips, the draw check against brute force, the renju listing
//! against the per-point verdict, and the opening rules under random and arbitrary steps.

use gomoku_rules::judge::{no_five_possible, scan_for_win, winning_line, wins_with_run};
use gomoku_rules::opening::{Choice, Phase, Seat, Step, Zone};
use gomoku_rules::renju::{forbidden_kind, forbidden_points};
use gomoku_rules::{
    Board, Coord, DrawReason, Game, Opening, OpeningRule, Outcome, PlayError, Point, Rule, Stone,
    WinReason, MAX_BOARD_SIZE, MIN_BOARD_SIZE,
};
use proptest::prelude::*;

fn any_rule() -> impl Strategy<Value = Rule> {
    prop_oneof![
        Just(Rule::Freestyle),
        Just(Rule::Standard),
        Just(Rule::Renju)
    ]
}

/// The legal moves of the side to move, row-major.
fn legal_moves(game: &Game) -> Vec<Point> {
    game.board()
        .points()
        .filter(|&p| game.check(p).is_ok())
        .collect()
}

/// Plays from an empty board, each choice picking among the legal moves, until the choices run
/// out or the game ends; `after_move` sees the game after every move.
fn play_random(
    size: usize,
    rule: Rule,
    choices: &[usize],
    mut after_move: impl FnMut(&Game, &Game),
) -> Game {
    let mut game = Game::new(size, rule).expect("valid size");
    for &choice in choices {
        if game.is_over() {
            break;
        }
        let legal = legal_moves(&game);
        if legal.is_empty() {
            break;
        }
        let before = game.clone();
        game.play(legal[choice % legal.len()])
            .expect("a legal move");
        after_move(&before, &game);
    }
    game
}

/// True when `line` is a straight run of adjacent points.
fn is_straight_run(line: &[Point]) -> bool {
    if line.len() < 2 {
        return true;
    }
    let step = |a: Point, b: Point| {
        (
            b.row as isize - a.row as isize,
            b.col as isize - a.col as isize,
        )
    };
    let first = step(line[0], line[1]);
    first.0.abs() <= 1
        && first.1.abs() <= 1
        && first != (0, 0)
        && line.windows(2).all(|w| step(w[0], w[1]) == first)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// After every move of random play, under every rule, the judge working from the last move
    /// finds a win exactly when the whole-board scan does, its line is a straight run of the
    /// mover's stones through the last move with a winning length, and the game's outcome
    /// follows.
    #[test]
    fn incremental_judge_agrees_with_scan(
        size in 5usize..=9,
        rule in any_rule(),
        choices in prop::collection::vec(any::<usize>(), 1..90),
    ) {
        play_random(size, rule, &choices, |before, game| {
            let last = game.last_move().expect("a move was played");
            let board = game.board();
            let incremental = winning_line(board, last.point, rule);
            let scan = scan_for_win(board, last.stone, rule);
            assert_eq!(incremental.is_some(), scan.is_some(), "{board:?}");
            assert_eq!(scan_for_win(board, last.stone.opponent(), rule), None);
            match (&incremental, game.outcome()) {
                (Some(line), Outcome::Win { winner, reason: WinReason::Five, line: won }) => {
                    assert_eq!(*winner, last.stone);
                    assert_eq!(won, line);
                    assert!(line.contains(&last.point));
                    assert!(line.iter().all(|&p| board.get(p) == Some(last.stone)));
                    assert!(is_straight_run(line));
                    assert!(wins_with_run(rule, last.stone, line.len()));
                }
                (None, Outcome::Draw { reason: DrawReason::BoardFull }) => {
                    assert!(board.is_full());
                }
                (None, Outcome::Draw { reason: DrawReason::NoFivePossible }) => {
                    assert!(!board.is_full() && no_five_possible(board, rule));
                }
                (None, Outcome::Ongoing) => {
                    assert!(!board.is_full() && !no_five_possible(board, rule));
                }
                (line, outcome) => panic!("judge {line:?} but outcome {outcome:?}"),
            }
            assert_eq!(before.moves().len() + 1, game.moves().len());
        });
    }

    /// Replaying a game's points from an empty board gives the very same game.
    #[test]
    fn replay_equals_playing(
        size in 5usize..=15,
        rule in any_rule(),
        choices in prop::collection::vec(any::<usize>(), 0..120),
    ) {
        let game = play_random(size, rule, &choices, |_, _| {});
        let points: Vec<Point> = game.moves().iter().map(|m| m.point).collect();
        prop_assert_eq!(Game::replay(size, rule, &points), Ok(game));
    }

    /// Undo after any move restores exactly the state before it, whether the move ended the
    /// game or not; and a move after the end is refused.
    #[test]
    fn undo_restores_the_previous_state(
        size in 5usize..=9,
        rule in any_rule(),
        choices in prop::collection::vec(any::<usize>(), 1..90),
    ) {
        let game = play_random(size, rule, &choices, |before, after| {
            let mut undone = after.clone();
            let taken = undone.undo().expect("a move to undo");
            assert_eq!(Some(taken), after.last_move());
            assert_eq!(&undone, before);
        });
        if game.is_over() {
            let mut finished = game.clone();
            let empty = game.board().points().find(|&p| game.board().get(p).is_none());
            if let Some(p) = empty {
                assert_eq!(finished.play(p), Err(PlayError::GameOver));
            }
            assert_eq!(finished, game);
        }
    }

    /// Any accepted coordinate text prints back as itself (in lowercase).
    #[test]
    fn parsed_coordinates_print_back(text in "[a-zA-Z][0-9]{1,3}|.{0,4}") {
        if let Ok(coord) = text.parse::<Coord>() {
            prop_assert_eq!(coord.to_string(), text.to_lowercase());
        }
    }

    /// On small random boards the draw check says "no five possible" exactly when a
    /// brute-force fill finds no five: filling every empty cell with one colour makes a run of
    /// five or more for it iff some five-cell segment is still free of the other colour.
    #[test]
    fn no_five_possible_matches_brute_force(
        size in 5usize..=7,
        rule in any_rule(),
        cells in prop::collection::vec(prop_oneof![1 => Just(0u8), 2 => Just(1u8), 2 => Just(2u8)], 49),
    ) {
        let mut board = Board::new(size).unwrap();
        for (i, p) in board.points().collect::<Vec<_>>().into_iter().enumerate() {
            board.set(p, Stone::from_u8(cells[i]));
        }
        let reachable = |stone: Stone| {
            let mut filled = board.clone();
            for p in board.points() {
                if board.get(p).is_none() {
                    filled.set(p, Some(stone));
                }
            }
            scan_for_win(&filled, stone, Rule::Freestyle).is_some()
        };
        let either = reachable(Stone::Black) || reachable(Stone::White);
        prop_assert_eq!(no_five_possible(&board, rule), !either, "{:?}", board);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// In renju games, whenever black is to move, the listed forbidden points are exactly the
    /// empty points that `check` refuses, with the same kinds; every other empty point is legal.
    #[test]
    fn renju_listing_matches_check(
        choices in prop::collection::vec(any::<usize>(), 1..70),
    ) {
        play_random(15, Rule::Renju, &choices, |_, game| {
            let listed = game.forbidden_points();
            if game.to_move() != Some(Stone::Black) {
                assert!(listed.is_empty());
                return;
            }
            let refused: Vec<_> = game
                .board()
                .points()
                .filter_map(|p| match game.check(p) {
                    Err(PlayError::Forbidden(kind)) => Some((p, kind)),
                    _ => None,
                })
                .collect();
            assert_eq!(listed, refused, "{:?}", game.board());
        });
    }

    /// On crowded random 15×15 positions (not necessarily reachable in a game) the fast
    /// whole-board listing equals asking every empty point one by one.
    #[test]
    fn renju_listing_matches_per_point_verdict(
        cells in prop::collection::vec(prop_oneof![3 => Just(0u8), 3 => Just(1u8), 1 => Just(2u8)], 81),
    ) {
        let mut board = Board::new(15).unwrap();
        // Stones in the central 9×9, so shapes are dense and the edges stay open.
        for (i, &cell) in cells.iter().enumerate() {
            board.set(Point::new(3 + i / 9, 3 + i % 9), Stone::from_u8(cell));
        }
        let one_by_one: Vec<_> = board
            .points()
            .filter_map(|p| forbidden_kind(&board, p).map(|kind| (p, kind)))
            .collect();
        prop_assert_eq!(forbidden_points(&board), one_by_one);
    }
}

/// Every point of every board size 5..=20 round-trips through notation: point → coordinate →
/// text → coordinate → point.
#[test]
fn notation_round_trips_on_every_size() {
    for size in MIN_BOARD_SIZE..=MAX_BOARD_SIZE {
        let board = Board::new(size).unwrap();
        for p in board.points() {
            let coord = Coord::from_point(p, size);
            let text = coord.to_string();
            let parsed: Coord = text.parse().expect("printed coordinates parse");
            assert_eq!(parsed, coord);
            assert_eq!(parsed.to_point(size), Some(p), "{text} on {size}");
        }
        // One past the last column or rank lies outside.
        let beyond_file = Coord {
            file: size as u8,
            rank: 1,
        };
        let beyond_rank = Coord {
            file: 0,
            rank: size as u8 + 1,
        };
        assert_eq!(beyond_file.to_point(size), None);
        assert_eq!(beyond_rank.to_point(size), None);
    }
}

/// An opening rule with a game rule it suits.
fn any_opening() -> impl Strategy<Value = (OpeningRule, Rule)> {
    prop_oneof![
        Just((OpeningRule::Swap2, Rule::Freestyle)),
        Just((OpeningRule::Swap2, Rule::Standard)),
        Just((OpeningRule::Taraguchi10, Rule::Renju)),
    ]
}

/// A legal step for the opening's phase, picked by `choice`; None once done.
fn legal_step(o: &Opening, choice: usize) -> Option<Step> {
    let game = o.game();
    let size = game.size();
    let free: Vec<Point> = game
        .board()
        .points()
        .filter(|&p| game.check(p).is_ok())
        .collect();
    Some(match o.phase() {
        Phase::Place { zone, .. } => {
            let inside: Vec<Point> = free
                .into_iter()
                .filter(|&p| zone.contains(size, p))
                .collect();
            Step::Place(inside[choice % inside.len()])
        }
        Phase::Choose { options, .. } => Step::Choose(options[choice % options.len()]),
        Phase::Offer { count, .. } => {
            // One point of each kind up to symmetry, from a start chosen by `choice`.
            let start = choice % free.len();
            let mut offer: Vec<Point> = Vec::new();
            for &p in free[start..].iter().chain(&free[..start]) {
                if offer.len() < *count && !offer.iter().any(|&q| o.symmetric(q, p)) {
                    offer.push(p);
                }
            }
            Step::Offer(offer)
        }
        Phase::Pick { offers, .. } => Step::Pick(offers[choice % offers.len()]),
        Phase::Done { .. } => return None,
    })
}

/// Any step at all, legal or not: points may lie off the board, offers be of any length.
fn any_step() -> impl Strategy<Value = Step> {
    let point = (0usize..22, 0usize..22).prop_map(|(r, c)| Point::new(r, c));
    prop_oneof![
        point.clone().prop_map(Step::Place),
        prop::sample::select(Choice::ALL.to_vec()).prop_map(Step::Choose),
        prop::collection::vec(point.clone(), 0..12).prop_map(Step::Offer),
        point.prop_map(Step::Pick),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Random legal steps always finish the opening within twelve steps, with black holding
    /// the seat the last phase names, three or five stones alternating black and white (five
    /// under Taraguchi-10, each of the first four in its central square), white to move, and
    /// the same opening again when its steps are replayed.
    #[test]
    fn legal_steps_always_finish(
        size in 5usize..=15,
        (opening_rule, rule) in any_opening(),
        choices in prop::collection::vec(any::<usize>(), 12),
    ) {
        let mut o = Opening::new(size, rule, opening_rule).expect("suited");
        for &choice in &choices {
            let Some(step) = legal_step(&o, choice) else { break };
            let by = o.phase().by().expect("not done");
            o.apply(by, step).expect("a legal step");
        }
        prop_assert_eq!(o.phase(), &Phase::Done { black: o.black() });
        let game = o.game();
        let stones = game.moves().len();
        prop_assert!(stones == 5 || (stones == 3 && opening_rule == OpeningRule::Swap2));
        prop_assert_eq!(game.to_move(), Some(Stone::White));
        let points: Vec<Point> = game.moves().iter().map(|m| m.point).collect();
        prop_assert_eq!(&Game::replay(size, rule, &points).expect("legal"), game);
        if opening_rule == OpeningRule::Taraguchi10 {
            for (i, &p) in points.iter().take(4).enumerate() {
                prop_assert!(Zone::Central(2 * i + 1).contains(size, p));
            }
        }
        let mut again = Opening::new(size, rule, opening_rule).expect("suited");
        for (by, step) in o.steps() {
            again.apply(*by, step.clone()).expect("replayed");
        }
        prop_assert_eq!(again, o);
    }

    /// Arbitrary steps by either seat, mixed with legal ones to get deep into the opening,
    /// never panic; a refused step leaves the opening unchanged, and an accepted one adds
    /// exactly one step.
    #[test]
    fn arbitrary_steps_never_panic(
        size in 5usize..=15,
        (opening_rule, rule) in any_opening(),
        tries in prop::collection::vec(
            (any::<bool>(), prop::sample::select(Seat::ALL.to_vec()), any_step(), any::<usize>()),
            1..40,
        ),
    ) {
        let mut o = Opening::new(size, rule, opening_rule).expect("suited");
        for (legal, seat, step, choice) in tries {
            let before = o.clone();
            let (by, step) = match (legal, legal_step(&o, choice)) {
                (true, Some(step)) => (o.phase().by().expect("not done"), step),
                _ => (seat, step),
            };
            match o.apply(by, step) {
                Ok(_) => prop_assert_eq!(o.steps().len(), before.steps().len() + 1),
                Err(_) => prop_assert_eq!(&o, &before),
            }
        }
    }
}
