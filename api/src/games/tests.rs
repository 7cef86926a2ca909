//! The game service against a real database and no server: on SQLite in a temporary folder
//! always, and on PostgreSQL too when `GOMOKU_TEST_DATABASE` names a cluster. The AI plays at
//! the easy level. Time is handed to the service as the arrival instant, so a flag that fell is
//! a deadline in the request's past, not a wait.

use std::sync::atomic::Ordering;
use std::time::Duration;

use gomoku_engine::Level;
use gomoku_rules::opening::{Choice, Seat as OpeningSeat, Step};
use gomoku_rules::{EndReason, ForbiddenKind, OpeningRule, Point, Rule, Status, Stone};

use super::*;
use crate::online::offers::Action;
use crate::store::games::{AiSetting, GameStatus, Mode, OfferKind, OnlineSetup, TimeControl};
use crate::store::players::tests::anonymous;
use crate::store::tests::{each_backend, Keep};
use crate::store::{now_exact, timestamp};

const TERMS: Terms = Terms {
    max_unfinished_games: 10,
    offer_ttl: Duration::from_secs(60),
    rematch_ttl: Duration::from_secs(600),
};

/// The service on each backend the tests can reach, with what keeps its database alive.
async fn services() -> Vec<(Games, Keep)> {
    each_backend()
        .await
        .into_iter()
        .map(|(db, keep)| {
            let ai = Ai::new(2, Duration::from_secs(10), Duration::from_secs(1));
            (Games::new(db, ai, TERMS), keep)
        })
        .collect()
}

impl Games {
    /// Loads made so far.
    fn loads(&self) -> usize {
        self.loads.load(Ordering::Relaxed)
    }
}

fn settings(mode: Mode, rule: Rule) -> Settings {
    Settings {
        mode,
        rule,
        board_size: 15,
        ai: None,
        online: None,
        opening: None,
    }
}

/// A move at (row, col), with the ply the asker believes the game is at.
fn at(row: usize, col: usize, ply: Option<usize>) -> MoveAsked {
    MoveAsked {
        point: Some(Point::new(row, col)),
        ply,
    }
}

/// A local game of a new player's: the player and the game's id.
async fn local_game(games: &Games, rule: Rule) -> (String, String) {
    let player = anonymous(&games.db).await;
    let game = games
        .create(&player, settings(Mode::Local, rule))
        .await
        .unwrap();
    (player, game.row.id.clone())
}

/// An online game in play between two new players, black's creator first; timed when
/// `initial_ms` is given.
async fn online_game(games: &Games, initial_ms: Option<i64>) -> (String, String, String) {
    let (black, white) = (anonymous(&games.db).await, anonymous(&games.db).await);
    let mut setup = settings(Mode::Online, Rule::Freestyle);
    setup.online = Some(OnlineSetup {
        seat: Stone::Black,
        time_control: initial_ms.map(|initial_ms| TimeControl {
            initial_ms,
            increment_ms: 0,
        }),
    });
    let game = games.create(&black, setup).await.unwrap();
    assert_eq!(game.row.status, GameStatus::Waiting);
    let joined = games.join(&white, &game.row.id).await.unwrap();
    assert_eq!(joined.seats.colour_of(&white), Some(Stone::White));
    (black, white, game.row.id.clone())
}

/// A move lands at the next version; asked again with the ply it was asked at, it is a retry
/// whose answer is the game as it is (nothing written); another move at a stale ply is
/// PLY_MISMATCH, and a point off the board OUT_OF_BOUNDS.
#[tokio::test]
async fn a_move_its_retry_and_a_ply_mismatch() {
    for (games, _keep) in services().await {
        let (player, id) = local_game(&games, Rule::Freestyle).await;
        let played = games
            .play(&player, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        assert_eq!((played.row.move_count, played.row.version), (1, 1));
        assert_eq!(played.moves[0].point, Point::new(7, 7));
        assert_eq!(played.moves[0].stone, Stone::Black);

        let retried = games
            .play(&player, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        assert_eq!(retried.row.version, 1, "a retry writes nothing");

        match games
            .play(&player, &id, at(3, 3, Some(0)), now_exact())
            .await
        {
            Err(Error::PlyMismatch {
                ply: 0,
                move_count: 1,
            }) => {}
            other => panic!("expected PLY_MISMATCH, got {other:?}"),
        }
        let off = MoveAsked {
            point: None,
            ply: Some(1),
        };
        assert!(matches!(
            games.play(&player, &id, off, now_exact()).await,
            Err(Error::OutOfBounds)
        ));
        assert!(matches!(
            games.play(&player, &id, at(7, 7, None), now_exact()).await,
            Err(Error::CellOccupied)
        ));
        let other = anonymous(&games.db).await;
        assert!(matches!(
            games.play(&other, &id, at(1, 1, None), now_exact()).await,
            Err(Error::NotFound)
        ));
        let stored = games.load(&player, &id).await.unwrap();
        assert_eq!(stored.row.version, 1, "no refusal wrote anything");
    }
}

/// Under renju, black's double three is refused with its kind and leaves the game unchanged.
#[tokio::test]
async fn a_forbidden_move() {
    for (games, _keep) in services().await {
        let (player, id) = local_game(&games, Rule::Renju).await;
        // Black builds two twos that meet at (7, 7); white plays far away on the top row.
        //   col: 5 6 7
        //   row 5 . . X
        //   row 6 . . X
        //   row 7 X X ?
        let moves = [
            (7, 5),
            (0, 0),
            (7, 6),
            (0, 2),
            (5, 7),
            (0, 4),
            (6, 7),
            (0, 6),
        ];
        for (ply, (row, col)) in moves.into_iter().enumerate() {
            games
                .play(&player, &id, at(row, col, Some(ply)), now_exact())
                .await
                .unwrap();
        }
        match games
            .play(&player, &id, at(7, 7, Some(8)), now_exact())
            .await
        {
            Err(Error::Forbidden(ForbiddenKind::DoubleThree)) => {}
            other => panic!("expected a forbidden double three, got {other:?}"),
        }
        assert_eq!(games.load(&player, &id).await.unwrap().row.move_count, 8);
    }
}

/// In an ai game the AI's reply comes with the move; undo takes back both plies, and with
/// nothing left to take back it is NOTHING_TO_UNDO.
#[tokio::test]
async fn undo_in_ai_mode_takes_two_plies() {
    for (games, _keep) in services().await {
        let player = anonymous(&games.db).await;
        let mut setup = settings(Mode::Ai, Rule::Freestyle);
        setup.ai = Some(AiSetting {
            level: Level::Easy,
            player: Stone::White,
        });
        let id = games.create(&player, setup).await.unwrap().row.id.clone();
        let played = games
            .play(&player, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        assert_eq!(played.moves.len(), 2, "the AI replied");
        assert_eq!(played.moves[1].stone, Stone::White);

        let undone = games.undo(&player, &id).await.unwrap();
        assert_eq!(undone.moves.len(), 0);
        assert_eq!(undone.game.to_move(), Some(Stone::Black));
        assert!(matches!(
            games.undo(&player, &id).await,
            Err(Error::NothingToUndo)
        ));
    }
}

/// An ai game where the AI plays black starts with its opening move.
#[tokio::test]
async fn the_ai_opens_as_black() {
    for (games, _keep) in services().await {
        let player = anonymous(&games.db).await;
        let mut setup = settings(Mode::Ai, Rule::Standard);
        setup.ai = Some(AiSetting {
            level: Level::Easy,
            player: Stone::Black,
        });
        let created = games.create(&player, setup).await.unwrap();
        assert_eq!(created.moves.len(), 1);
        assert_eq!(created.game.to_move(), Some(Stone::White));
    }
}

/// Resigning a local game ends it for the side to move; a second resignation and an undo find
/// the game over (without the game: local games are answered plainly).
#[tokio::test]
async fn resign_ends_a_local_game() {
    for (games, _keep) in services().await {
        let (player, id) = local_game(&games, Rule::Freestyle).await;
        games
            .play(&player, &id, at(7, 7, None), now_exact())
            .await
            .unwrap();
        let resigned = games.resign(&player, &id, now_exact()).await.unwrap();
        assert_eq!(resigned.row.status, GameStatus::Rules(Status::BlackWon));
        assert_eq!(resigned.row.end_reason, Some(EndReason::Resign));
        assert!(resigned.row.finished_at.is_some());
        for refused in [
            games.resign(&player, &id, now_exact()).await,
            games.undo(&player, &id).await,
        ] {
            assert!(matches!(refused, Err(Error::GameOver { game: None })));
        }
    }
}

/// Online: only the side to move plays (NOT_YOUR_TURN), a spectator is NOT_A_PLAYER, and a
/// resignation loses the caller's colour whoever is to move; after it, a move is GAME_OVER
/// with the game as it ended.
#[tokio::test]
async fn online_turns_seats_and_resignation() {
    for (games, _keep) in services().await {
        let (black, white, id) = online_game(&games, None).await;
        assert!(matches!(
            games
                .play(&white, &id, at(7, 7, Some(0)), now_exact())
                .await,
            Err(Error::NotYourTurn)
        ));
        let spectator = anonymous(&games.db).await;
        assert!(matches!(
            games
                .play(&spectator, &id, at(7, 7, Some(0)), now_exact())
                .await,
            Err(Error::NotAPlayer)
        ));
        games
            .play(&black, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        // Black resigns on white's turn.
        let resigned = games.resign(&black, &id, now_exact()).await.unwrap();
        assert_eq!(resigned.row.status, GameStatus::Rules(Status::WhiteWon));
        match games
            .play(&white, &id, at(8, 8, Some(1)), now_exact())
            .await
        {
            Err(Error::GameOver { game: Some(game) }) => {
                assert_eq!(game.row.version, resigned.row.version)
            }
            other => panic!("expected GAME_OVER with the game, got {other:?}"),
        }
        assert!(matches!(
            games.undo(&white, &id).await,
            Err(Error::TakebackRequired)
        ));
        assert!(matches!(
            games.delete(&black, &id).await,
            Err(Error::SharedGame)
        ));
    }
}

/// A move that arrives after the mover's flag fell is not played: the game ends on time at the
/// deadline, and the answer is GAME_OVER with that state.
#[tokio::test]
async fn a_flag_that_fell_before_the_move_arrived() {
    for (games, _keep) in services().await {
        let (black, white, id) = online_game(&games, Some(60_000)).await;
        let moved = games
            .play(&black, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        let deadline = moved.row.clock.and_then(|c| c.deadline).unwrap();
        let late = deadline + time::Duration::milliseconds(1);
        match games.play(&white, &id, at(8, 8, Some(1)), late).await {
            Err(Error::GameOver { game: Some(ended) }) => {
                assert_eq!(ended.row.status, GameStatus::Rules(Status::BlackWon));
                assert_eq!(ended.row.end_reason, Some(EndReason::Timeout));
                assert_eq!(ended.row.finished_at, Some(timestamp(deadline)));
                assert_eq!(ended.row.clock.unwrap().white_ms, 0);
                assert_eq!(ended.moves.len(), 1, "the late move is not played");
            }
            other => panic!("expected GAME_OVER on time, got {other:?}"),
        }
        // In time, the same move would have been played: the clock still ran a moment before.
        let (black, white, id) = online_game(&games, Some(60_000)).await;
        let moved = games
            .play(&black, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        let deadline = moved.row.clock.and_then(|c| c.deadline).unwrap();
        let in_time = deadline - time::Duration::milliseconds(1);
        let played = games
            .play(&white, &id, at(8, 8, Some(1)), in_time)
            .await
            .unwrap();
        assert_eq!(played.row.clock.unwrap().white_ms, 1, "white had 1 ms left");
    }
}

/// One load per attempt: an online move that lands reads its game once (the seat, the flag and
/// the move are all decided on that one read), or not at all when the position cache holds the
/// game as last written; a resignation and an offer read it once.
#[tokio::test]
async fn an_online_write_loads_the_game_once() {
    for (games, _keep) in services().await {
        let (black, white, id) = online_game(&games, Some(60_000)).await;
        let before = games.loads();
        games
            .play(&black, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        assert_eq!(games.loads() - before, 0, "a cached game is not loaded");
        games.db.positions().forget(&id);
        let before = games.loads();
        games
            .play(&white, &id, at(8, 8, Some(1)), now_exact())
            .await
            .unwrap();
        assert_eq!(games.loads() - before, 1, "one load for an online move");
        let before = games.loads();
        games
            .act_in_play(&white, &id, OfferKind::Draw, Action::Offer, now_exact())
            .await
            .unwrap();
        games.resign(&white, &id, now_exact()).await.unwrap();
        assert_eq!(games.loads() - before, 2, "one load each");
    }
}

/// A lost race writes nothing and the service decides afresh on the newer game: an attempt on
/// a game loaded before another write landed comes back empty-handed, and the whole call then
/// plays on the game as it now is. Moves raced from several tasks at once all land.
#[tokio::test]
async fn a_lost_race_decides_afresh() {
    for (games, _keep) in services().await {
        let (black, white, id) = online_game(&games, None).await;
        let stale = games.load(&black, &id).await.unwrap();
        games
            .play(&black, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        let arrival = now_exact();
        // White resigns on the game as loaded before black's move: the version moved on.
        let decide = |stored: &StoredGame, me| {
            play::end_online(stored, gomoku_rules::Ending::Resigned(me), arrival).map(Some)
        };
        let attempt = games
            .online_attempt(stale, &white, arrival, decide)
            .await
            .unwrap();
        assert!(attempt.is_none(), "the stale attempt wrote nothing");
        let now = games.load(&white, &id).await.unwrap();
        assert_eq!((now.row.version, now.row.move_count), (2, 1));
        // A move without ply is for whatever position the game is in.
        let played = games
            .play(&white, &id, at(8, 8, None), now_exact())
            .await
            .unwrap();
        assert_eq!(played.row.move_count, 2);

        let (player, id) = local_game(&games, Rule::Freestyle).await;
        let tasks: Vec<_> = (0..4)
            .map(|col| {
                let (games, player, id) = (games.clone(), player.clone(), id.clone());
                tokio::spawn(async move {
                    games
                        .play(&player, &id, at(0, col * 2, None), now_exact())
                        .await
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        let stored = games.load(&player, &id).await.unwrap();
        assert_eq!((stored.row.move_count, stored.row.version), (4, 4));
    }
}

/// Two services on one PostgreSQL database, as two instances have. A move is first decided on
/// the game as the instance last knew it, and only a move that lands is answered from that:
/// B, holding the game from before A took its move back, plays that move again when asked (its
/// stale copy would call it a retry of the move on the board); a move at a ply A has since
/// passed is PLY_MISMATCH. Either way, whether B has heard A's news yet or not.
#[tokio::test]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn a_move_on_a_stale_copy_is_decided_again() {
    let (a, b, _database) = crate::store::tests::two_stores_on_postgres().await;
    b.migrate().await.unwrap();
    let ai = Ai::new(2, Duration::from_secs(10), Duration::from_secs(1));
    let (on_a, on_b) = (Games::new(a, ai.clone(), TERMS), Games::new(b, ai, TERMS));
    let (player, id) = local_game(&on_a, Rule::Freestyle).await;
    on_a.play(&player, &id, at(7, 7, Some(0)), now_exact())
        .await
        .unwrap();
    assert_eq!(on_b.load(&player, &id).await.unwrap().row.move_count, 1);
    on_a.undo(&player, &id).await.unwrap();

    let played = on_b
        .play(&player, &id, at(7, 7, Some(0)), now_exact())
        .await
        .unwrap();
    assert_eq!((played.row.move_count, played.row.version), (1, 3));

    on_a.play(&player, &id, at(8, 8, Some(1)), now_exact())
        .await
        .unwrap();
    let refused = on_b
        .play(&player, &id, at(9, 9, Some(1)), now_exact())
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused,
            Error::PlyMismatch {
                ply: 1,
                move_count: 2
            }
        ),
        "{refused:?}"
    );
    let stored = on_a.load(&player, &id).await.unwrap();
    let points: Vec<Point> = stored.moves.iter().map(|m| m.point).collect();
    assert_eq!(points, [Point::new(7, 7), Point::new(8, 8)]);
}

/// Offers through the service: a takeback accepted takes the offerer's move back; accepting
/// with nothing offered is NO_OFFER, offering over the opponent's standing offer OFFER_PENDING;
/// a draw accepted ends the game by agreement, and a rematch accepted creates the next game.
#[tokio::test]
async fn offers_through_the_service() {
    for (games, _keep) in services().await {
        let (black, white, id) = online_game(&games, Some(60_000)).await;
        let offer = |who: &str, kind: OfferKind, action: Action| {
            let (games, who, id) = (games.clone(), who.to_string(), id.clone());
            async move {
                games
                    .act_in_play(&who, &id, kind, action, now_exact())
                    .await
            }
        };
        assert!(matches!(
            offer(&black, OfferKind::Takeback, Action::Offer).await,
            Err(Error::NothingToUndo)
        ));
        games
            .play(&black, &id, at(7, 7, Some(0)), now_exact())
            .await
            .unwrap();
        let offered = offer(&black, OfferKind::Takeback, Action::Offer)
            .await
            .unwrap();
        assert!(offered.row.offers.takeback.is_some());
        assert!(matches!(
            offer(&white, OfferKind::Takeback, Action::Offer).await,
            Err(Error::Offer(OfferError::OfferPending))
        ));
        let taken = offer(&white, OfferKind::Takeback, Action::Accept)
            .await
            .unwrap();
        assert_eq!(taken.moves.len(), 0);
        assert_eq!(taken.row.offers.takeback, None);
        assert!(matches!(
            offer(&white, OfferKind::Draw, Action::Accept).await,
            Err(Error::Offer(OfferError::NoOffer))
        ));

        offer(&white, OfferKind::Draw, Action::Offer).await.unwrap();
        let drawn = offer(&black, OfferKind::Draw, Action::Accept)
            .await
            .unwrap();
        assert_eq!(drawn.row.status, GameStatus::Rules(Status::Draw));
        assert_eq!(drawn.row.end_reason, Some(EndReason::Agreement));
        match offer(&black, OfferKind::Draw, Action::Offer).await {
            Err(Error::GameOver { game: Some(game) }) => assert_eq!(game.row.id, id),
            other => panic!("expected GAME_OVER with the game, got {other:?}"),
        }

        games
            .rematch(&white, &id, Action::Offer, now_exact())
            .await
            .unwrap();
        let accepted = games
            .rematch(&black, &id, Action::Accept, now_exact())
            .await
            .unwrap();
        let next_id = accepted.row.rematch_game_id.clone().expect("a rematch");
        let next = games.load(&black, &next_id).await.unwrap();
        assert_eq!(next.seats.colour_of(&black), Some(Stone::White));
        assert_eq!(next.seats.colour_of(&white), Some(Stone::Black));
        assert_eq!(next.row.status, GameStatus::Rules(Status::Playing));
        assert!(matches!(
            games
                .rematch(&black, &next_id, Action::Offer, now_exact())
                .await,
            Err(Error::GameNotOver)
        ));
    }
}

/// Seats: joining again changes nothing, a third player finds the game full and may not delete
/// it, and a game still waiting is not played but is its creator's to delete.
#[tokio::test]
async fn seats_and_deletion() {
    for (games, _keep) in services().await {
        let (black, white, id) = online_game(&games, None).await;
        let again = games.join(&white, &id).await.unwrap();
        assert_eq!(again.row.version, 1, "joining again changes nothing");
        let third = anonymous(&games.db).await;
        assert!(matches!(
            games.join(&third, &id).await,
            Err(Error::GameFull)
        ));
        assert!(matches!(
            games.delete(&third, &id).await,
            Err(Error::NotAPlayer)
        ));

        let mut setup = settings(Mode::Online, Rule::Freestyle);
        setup.online = Some(OnlineSetup {
            seat: Stone::White,
            time_control: None,
        });
        let waiting = games.create(&black, setup).await.unwrap();
        let wid = waiting.row.id.clone();
        assert!(matches!(
            games.play(&black, &wid, at(7, 7, None), now_exact()).await,
            Err(Error::WaitingForOpponent)
        ));
        games.delete(&black, &wid).await.unwrap();
        assert!(matches!(
            games.load(&black, &wid).await,
            Err(Error::NotFound)
        ));
    }
}

/// Loads game `id` as stored, past the position cache: what a restarted server would read.
async fn reloaded(games: &Games, player: &str, id: &str) -> Arc<StoredGame> {
    games.db.positions().forget(id);
    games.load(player, id).await.unwrap()
}

/// Against the AI holding swap2's first seat, the game is created with its three stones and the
/// person to choose; the person's choice of black has the AI (now white) make its first move in
/// the same answer, and the game read back from the database has the seats and the AI's colour
/// swapped as the opening left them.
#[tokio::test]
async fn the_ai_proposes_swap2_and_moves_after_the_choice() {
    for (games, _keep) in services().await {
        let person = anonymous(&games.db).await;
        let mut setup = settings(Mode::Ai, Rule::Freestyle);
        setup.ai = Some(AiSetting {
            level: Level::Easy,
            player: Stone::Black,
        });
        setup.opening = Some(OpeningSetting {
            rule: OpeningRule::Swap2,
            ai_seat: OpeningSeat::First,
        });
        let created = games.create(&person, setup).await.unwrap();
        assert_eq!(created.moves.len(), 3, "the AI's three stones");
        assert!(created.row.in_opening());
        let opening = created.row.opening.as_ref().unwrap();
        assert_eq!(opening.phase().by(), Some(OpeningSeat::Second));
        let id = created.row.id.clone();

        assert!(matches!(
            games.play(&person, &id, at(0, 0, None), now_exact()).await,
            Err(Error::OpeningInProgress)
        ));
        let step = Step::Choose(Choice::Black);
        let done = games
            .opening_step(&person, &id, step, None, now_exact())
            .await
            .unwrap();
        assert!(!done.row.in_opening());
        assert_eq!(done.row.ai.unwrap().player, Stone::White);
        assert_eq!(done.seats.colour_of(&person), Some(Stone::Black));
        assert_eq!(done.moves.len(), 4, "the AI's first move as white");
        assert_eq!(done.game.to_move(), Some(Stone::Black));

        let read = reloaded(&games, &person, &id).await;
        assert_eq!(read.row.opening, done.row.opening);
        assert_eq!(read.row.ai, done.row.ai);
        assert_eq!(read.seats, done.seats);
        assert_eq!(read.moves, done.moves);
    }
}

/// In a timed online game no clock runs during the opening; the step that ends it starts the
/// clock of the side to move (white after swap2's three stones), and a swap moves the seats.
#[tokio::test]
async fn the_clock_starts_when_the_opening_ends() {
    for (games, _keep) in services().await {
        let (first, second) = (anonymous(&games.db).await, anonymous(&games.db).await);
        let mut setup = settings(Mode::Online, Rule::Standard);
        setup.online = Some(OnlineSetup {
            seat: Stone::White,
            time_control: Some(TimeControl {
                initial_ms: 60_000,
                increment_ms: 0,
            }),
        });
        setup.opening = Some(OpeningSetting {
            rule: OpeningRule::Swap2,
            ai_seat: OpeningSeat::Second,
        });
        let created = games.create(&first, setup).await.unwrap();
        assert_eq!(
            created.seats.colour_of(&first),
            Some(Stone::Black),
            "the creator is the first seat, black until a swap"
        );
        let id = created.row.id.clone();
        games.join(&second, &id).await.unwrap();
        for (row, col) in [(7, 7), (7, 8), (8, 8)] {
            let step = Step::Place(Point::new(row, col));
            let placed = games
                .opening_step(&first, &id, step, None, now_exact())
                .await
                .unwrap();
            assert_eq!(placed.row.clock.unwrap().deadline, None);
        }
        assert!(matches!(
            games
                .opening_step(&first, &id, Step::Choose(Choice::White), None, now_exact())
                .await,
            Err(Error::NotYourTurn)
        ));
        let arrival = now_exact();
        let done = games
            .opening_step(&second, &id, Step::Choose(Choice::Black), None, arrival)
            .await
            .unwrap();
        assert_eq!(done.seats.colour_of(&second), Some(Stone::Black));
        assert_eq!(done.seats.colour_of(&first), Some(Stone::White));
        let deadline = done
            .row
            .clock
            .unwrap()
            .deadline
            .expect("white's clock runs");
        assert!(deadline >= arrival + time::Duration::seconds(59));
        assert!(matches!(
            games
                .opening_step(&second, &id, Step::Choose(Choice::Black), None, now_exact())
                .await,
            Err(Error::OpeningOver)
        ));
        // The cache holds the seats as played and the database as they started: at the same
        // version a load still serves the committed game, not a fresh read.
        let again = games.load(&first, &id).await.unwrap();
        assert!(
            Arc::ptr_eq(&done, &again),
            "a swapped game is served from the cache"
        );
        let read = reloaded(&games, &first, &id).await;
        assert_eq!(read.seats, done.seats);
        assert_eq!(read.row.clock, done.row.clock);
        games
            .play(&first, &id, at(6, 6, None), now_exact())
            .await
            .unwrap();
    }
}
