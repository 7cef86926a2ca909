//! The opening rules step by step: every path through swap2 and Taraguchi-10, and every kind of
//! wrong step, on a 15×15 board with points in notation ("h8" is the centre).

use gomoku_rules::opening::{Choice, Phase, Seat, Step, Zone, TARAGUCHI_OFFERS};
use gomoku_rules::{
    Coord, Opening, OpeningError, OpeningRule, OpeningSetupError, PlayError, Point, Rule, Stone,
};

const SIZE: usize = 15;
use Seat::{First, Second};

fn at(text: &str) -> Point {
    text.parse::<Coord>()
        .expect("notation")
        .to_point(SIZE)
        .expect("on the board")
}

fn place(text: &str) -> Step {
    Step::Place(at(text))
}

fn swap2() -> Opening {
    Opening::new(SIZE, Rule::Freestyle, OpeningRule::Swap2).expect("valid")
}

fn taraguchi() -> Opening {
    Opening::new(SIZE, Rule::Renju, OpeningRule::Taraguchi10).expect("valid")
}

/// Applies steps that must all be accepted.
fn run(opening: &mut Opening, steps: &[(Seat, Step)]) {
    for (by, step) in steps {
        if let Err(e) = opening.apply(*by, step.clone()) {
            panic!("{step:?} by {by:?} refused: {e}");
        }
    }
}

/// A step that must be refused with `error`, leaving the opening as it was.
fn refused(opening: &Opening, by: Seat, step: Step, error: OpeningError) {
    let mut tried = opening.clone();
    assert_eq!(
        tried.apply(by, step.clone()),
        Err(error),
        "{step:?} by {by:?}"
    );
    assert_eq!(&tried, opening, "a refused step changes nothing");
}

fn swap2_three() -> Opening {
    let mut o = swap2();
    run(
        &mut o,
        &[
            (First, place("h8")),
            (First, place("h9")),
            (First, place("j10")),
        ],
    );
    o
}

/// Swap2 starts with the first player placing three stones anywhere, black, white, black; then
/// the second player chooses among black, white and placing two.
#[test]
fn swap2_first_player_places_three() {
    let mut o = swap2();
    assert_eq!(
        o.phase(),
        &Phase::Place {
            by: First,
            stone: Stone::Black,
            zone: Zone::Anywhere,
            left: 3
        }
    );
    run(&mut o, &[(First, place("a1"))]);
    assert_eq!(
        o.phase(),
        &Phase::Place {
            by: First,
            stone: Stone::White,
            zone: Zone::Anywhere,
            left: 2
        }
    );
    run(&mut o, &[(First, place("o15")), (First, place("h8"))]);
    assert_eq!(
        o.phase(),
        &Phase::Choose {
            by: Second,
            options: &[Choice::Black, Choice::White, Choice::PlaceTwo]
        }
    );
    let stones: Vec<Stone> = o.game().moves().iter().map(|m| m.stone).collect();
    assert_eq!(stones, [Stone::Black, Stone::White, Stone::Black]);
    assert_eq!(o.black(), First);
}

/// Taking black after three stones ends the opening with the second player as black; white
/// (the first player) is to move in the game.
#[test]
fn swap2_second_takes_black() {
    let mut o = swap2_three();
    run(&mut o, &[(Second, Step::Choose(Choice::Black))]);
    assert_eq!(o.phase(), &Phase::Done { black: Second });
    assert_eq!(o.seat_of(Stone::White), First);
    assert_eq!(o.game().to_move(), Some(Stone::White));
    assert_eq!(o.game().moves().len(), 3);
}

/// Taking white after three stones keeps the first player black; the second plays the 4th
/// move as the game's first ordinary move.
#[test]
fn swap2_second_takes_white() {
    let mut o = swap2_three();
    run(&mut o, &[(Second, Step::Choose(Choice::White))]);
    assert_eq!(o.phase(), &Phase::Done { black: First });
    let mut game = o.into_game();
    game.play(at("g7")).expect("white's 4th move");
}

/// Placing two: the second player places white then black, and the first player chooses the
/// colour; either way white moves next with five stones on the board.
#[test]
fn swap2_place_two_then_first_chooses() {
    for (choice, black) in [(Choice::Black, First), (Choice::White, Second)] {
        let mut o = swap2_three();
        run(&mut o, &[(Second, Step::Choose(Choice::PlaceTwo))]);
        assert_eq!(
            o.phase(),
            &Phase::Place {
                by: Second,
                stone: Stone::White,
                zone: Zone::Anywhere,
                left: 2
            }
        );
        run(&mut o, &[(Second, place("g9")), (Second, place("k11"))]);
        assert_eq!(
            o.phase(),
            &Phase::Choose {
                by: First,
                options: &[Choice::Black, Choice::White]
            }
        );
        run(&mut o, &[(First, Step::Choose(choice))]);
        assert_eq!(o.phase(), &Phase::Done { black });
        assert_eq!(o.game().moves().len(), 5);
        assert_eq!(o.game().to_move(), Some(Stone::White));
        assert_eq!(o.steps().len(), 7);
    }
}

/// Wrong steps in swap2: the wrong player, a choice while a stone is expected, a stone while a
/// choice is expected, an option of the other rule, an occupied or off-board point, and any
/// step once the opening is over.
#[test]
fn swap2_wrong_steps() {
    let o = swap2();
    refused(
        &o,
        Second,
        place("h8"),
        OpeningError::NotYourTurn { expected: First },
    );
    refused(
        &o,
        First,
        Step::Choose(Choice::Black),
        OpeningError::WrongStep { expected: "place" },
    );
    refused(
        &o,
        First,
        Step::Place(Point::new(15, 0)),
        OpeningError::Play(PlayError::OutOfBounds),
    );
    let mut o = swap2();
    run(&mut o, &[(First, place("h8"))]);
    refused(
        &o,
        First,
        place("h8"),
        OpeningError::Play(PlayError::Occupied),
    );
    let o = swap2_three();
    refused(
        &o,
        First,
        Step::Choose(Choice::Black),
        OpeningError::NotYourTurn { expected: Second },
    );
    refused(
        &o,
        Second,
        place("a1"),
        OpeningError::WrongStep { expected: "choose" },
    );
    refused(
        &o,
        Second,
        Step::Choose(Choice::OfferTen),
        OpeningError::NotAnOption(Choice::OfferTen),
    );
    refused(
        &o,
        Second,
        Step::Offer(vec![at("a1")]),
        OpeningError::WrongStep { expected: "choose" },
    );
    let mut o = swap2_three();
    run(
        &mut o,
        &[
            (Second, Step::Choose(Choice::PlaceTwo)),
            (Second, place("a1")),
            (Second, place("a2")),
        ],
    );
    refused(
        &o,
        First,
        Step::Choose(Choice::PlaceTwo),
        OpeningError::NotAnOption(Choice::PlaceTwo),
    );
    run(&mut o, &[(First, Step::Choose(Choice::White))]);
    for by in [First, Second] {
        refused(&o, by, place("b2"), OpeningError::Finished);
    }
}

/// The Taraguchi-10 path without an offer: each stone in its growing central square, a swap
/// decision after each, and white (after the last decision) to move with five stones.
#[test]
fn taraguchi_zones_and_swaps() {
    let mut o = taraguchi();
    assert_eq!(
        o.phase(),
        &Phase::Place {
            by: First,
            stone: Stone::Black,
            zone: Zone::Central(1),
            left: 1
        }
    );
    run(&mut o, &[(First, place("h8"))]);
    assert_eq!(
        o.phase(),
        &Phase::Choose {
            by: Second,
            options: &[Choice::Black, Choice::White]
        }
    );
    // The second player swaps: it now holds black, so the first player (white) places the 2nd.
    run(&mut o, &[(Second, Step::Choose(Choice::Black))]);
    assert_eq!(o.black(), Second);
    assert_eq!(
        o.phase(),
        &Phase::Place {
            by: First,
            stone: Stone::White,
            zone: Zone::Central(3),
            left: 1
        }
    );
    run(
        &mut o,
        &[
            (First, place("h9")),
            // Black (the second player) keeps black.
            (Second, Step::Choose(Choice::Black)),
            (Second, place("j10")),
            // White (the first player) keeps white.
            (First, Step::Choose(Choice::White)),
            (First, place("e5")),
        ],
    );
    assert_eq!(
        o.phase(),
        &Phase::Choose {
            by: Second,
            options: &[Choice::Black, Choice::White, Choice::OfferTen]
        }
    );
    // Black swaps after the 4th: the first player is black again and places the 5th.
    run(&mut o, &[(Second, Step::Choose(Choice::White))]);
    assert_eq!(
        o.phase(),
        &Phase::Place {
            by: First,
            stone: Stone::Black,
            zone: Zone::Central(9),
            left: 1
        }
    );
    run(&mut o, &[(First, place("l12"))]);
    assert_eq!(
        o.phase(),
        &Phase::Choose {
            by: Second,
            options: &[Choice::Black, Choice::White]
        }
    );
    run(&mut o, &[(Second, Step::Choose(Choice::White))]);
    assert_eq!(o.phase(), &Phase::Done { black: First });
    assert_eq!(o.game().moves().len(), 5);
    assert_eq!(o.game().to_move(), Some(Stone::White));
}

/// Stones outside their square are refused with the square named: the 1st off the centre, the
/// 2nd outside 3×3, the 4th outside 7×7 and the 5th outside 9×9.
#[test]
fn taraguchi_zone_errors() {
    let o = taraguchi();
    refused(
        &o,
        First,
        place("h9"),
        OpeningError::OutsideZone(Zone::Central(1)),
    );
    let mut o = taraguchi();
    run(
        &mut o,
        &[(First, place("h8")), (Second, Step::Choose(Choice::White))],
    );
    refused(
        &o,
        Second,
        place("h10"),
        OpeningError::OutsideZone(Zone::Central(3)),
    );
    assert_eq!(
        OpeningError::OutsideZone(Zone::Central(3)).to_string(),
        "the stone must lie in the central 3×3 square"
    );
    run(
        &mut o,
        &[
            (Second, place("g7")),
            (First, Step::Choose(Choice::Black)),
            (First, place("f6")),
            (Second, Step::Choose(Choice::White)),
        ],
    );
    refused(
        &o,
        Second,
        place("d4"),
        OpeningError::OutsideZone(Zone::Central(7)),
    );
    run(
        &mut o,
        &[(Second, place("e5")), (First, Step::Choose(Choice::Black))],
    );
    refused(
        &o,
        First,
        place("c3"),
        OpeningError::OutsideZone(Zone::Central(9)),
    );
    run(&mut o, &[(First, place("d4"))]);
    assert!(matches!(o.phase(), Phase::Choose { by: Second, .. }));
}

/// Taraguchi-10 up to the offer: the four stones in order (the first player holds black
/// throughout), then black chooses to offer ten 5th moves.
fn four_stones(points: [&str; 4]) -> Opening {
    let mut o = taraguchi();
    run(
        &mut o,
        &[
            (First, place(points[0])),
            (Second, Step::Choose(Choice::White)),
            (Second, place(points[1])),
            (First, Step::Choose(Choice::Black)),
            (First, place(points[2])),
            (Second, Step::Choose(Choice::White)),
            (Second, place(points[3])),
            (First, Step::Choose(Choice::OfferTen)),
        ],
    );
    o
}

fn points(texts: &[&str]) -> Vec<Point> {
    texts.iter().map(|t| at(t)).collect()
}

/// Offering ten: black offers ten different 5th moves anywhere, white picks one, it is placed
/// as black's 5th stone and the opening ends with no further swap.
#[test]
fn taraguchi_offer_and_pick() {
    // Black h8, j10; white h9, f6: no symmetry but the identity.
    let mut o = four_stones(["h8", "h9", "j10", "f6"]);
    assert_eq!(
        o.phase(),
        &Phase::Offer {
            by: First,
            count: TARAGUCHI_OFFERS
        }
    );
    let ten = points(&[
        "a1", "o15", "g7", "j8", "k11", "g8", "e12", "l4", "h5", "c9",
    ]);
    run(&mut o, &[(First, Step::Offer(ten.clone()))]);
    assert_eq!(
        o.phase(),
        &Phase::Pick {
            by: Second,
            offers: ten.clone()
        }
    );
    refused(
        &o,
        Second,
        place("k11"),
        OpeningError::WrongStep { expected: "pick" },
    );
    refused(
        &o,
        First,
        Step::Pick(at("k11")),
        OpeningError::NotYourTurn { expected: Second },
    );
    refused(
        &o,
        Second,
        Step::Pick(at("k12")),
        OpeningError::NotOffered(at("k12")),
    );
    run(&mut o, &[(Second, Step::Pick(at("k11")))]);
    assert_eq!(o.phase(), &Phase::Done { black: First });
    let last = o.game().last_move().expect("the 5th");
    assert_eq!((last.point, last.stone), (at("k11"), Stone::Black));
    assert_eq!(o.game().to_move(), Some(Stone::White));
}

/// Wrong offers: too few, a duplicate, an occupied point, and two points that a mirror of the
/// position maps onto each other.
#[test]
fn taraguchi_wrong_offers() {
    let nine = points(&["a1", "o15", "g7", "j8", "k11", "g8", "e12", "l4", "h5"]);
    let o = four_stones(["h8", "h9", "j10", "f6"]);
    refused(
        &o,
        First,
        Step::Offer(nine.clone()),
        OpeningError::OfferCount {
            expected: 10,
            got: 9,
        },
    );
    let mut twice = nine.clone();
    twice.push(at("g7"));
    refused(
        &o,
        First,
        Step::Offer(twice),
        OpeningError::DuplicateOffer(at("g7")),
    );
    let mut occupied = nine.clone();
    occupied.push(at("j10"));
    refused(
        &o,
        First,
        Step::Offer(occupied),
        OpeningError::Play(PlayError::Occupied),
    );
    refused(
        &o,
        Second,
        Step::Offer(nine.clone()),
        OpeningError::NotYourTurn { expected: First },
    );
    // Black h8 and h10, white g9 and i9 (columns g h i):
    //   row 10:  . X .
    //   row  9:  O . O
    //   row  8:  . X .
    // The mirror in column h maps every stone onto its colour, so g11 and i11 are one move.
    let mut o = taraguchi();
    run(
        &mut o,
        &[
            (First, place("h8")),
            (Second, Step::Choose(Choice::White)),
            (Second, place("g9")),
            (First, Step::Choose(Choice::Black)),
            (First, place("h10")),
            (Second, Step::Choose(Choice::White)),
            (Second, place("i9")),
            (First, Step::Choose(Choice::OfferTen)),
        ],
    );
    assert!(o.symmetric(at("g11"), at("i11")));
    assert!(!o.symmetric(at("g11"), at("h11")));
    let mut mirrored = nine;
    mirrored[0] = at("g11");
    mirrored.push(at("i11"));
    refused(
        &o,
        First,
        Step::Offer(mirrored),
        OpeningError::SymmetricOffers(at("g11"), at("i11")),
    );
}

/// Offered points go through the judge like stones: one off the board is refused as such. (A
/// forbidden point cannot arise: black has only two stones before its 5th.)
#[test]
fn taraguchi_offers_go_through_the_judge() {
    let o = four_stones(["h8", "h9", "j10", "f6"]);
    let mut off = points(&["a1", "o15", "g7", "j8", "k11", "g8", "e12", "l4", "h5"]);
    off.push(Point::new(20, 20));
    refused(
        &o,
        First,
        Step::Offer(off),
        OpeningError::Play(PlayError::OutOfBounds),
    );
}

/// A rule refuses the other family's opening, and a bad size is refused as by `Game::new`.
#[test]
fn setup_errors() {
    assert_eq!(
        Opening::new(15, Rule::Renju, OpeningRule::Swap2),
        Err(OpeningSetupError::Unsuited {
            opening: OpeningRule::Swap2,
            rule: Rule::Renju
        })
    );
    assert!(Opening::new(15, Rule::Freestyle, OpeningRule::Taraguchi10).is_err());
    assert!(Opening::new(15, Rule::Standard, OpeningRule::Swap2).is_ok());
    assert!(matches!(
        Opening::new(4, Rule::Freestyle, OpeningRule::Swap2),
        Err(OpeningSetupError::Setup(_))
    ));
}

/// Names round-trip through their one string form.
#[test]
fn names_round_trip() {
    for r in OpeningRule::ALL {
        assert_eq!(r.as_str().parse(), Ok(r));
    }
    for s in Seat::ALL {
        assert_eq!(s.as_str().parse(), Ok(s));
    }
    for c in Choice::ALL {
        assert_eq!(c.as_str().parse(), Ok(c));
    }
    assert!("swap".parse::<OpeningRule>().is_err());
    assert_eq!(OpeningRule::Taraguchi10.to_string(), "taraguchi10");
}
