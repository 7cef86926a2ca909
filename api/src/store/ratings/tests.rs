//! Ratings as stored, on each backend the tests can reach (SQLite always, PostgreSQL when a
//! cluster is named): results applied whole and once, aborted games changing nothing, the
//! leaderboard and the profile.

use super::*;
use crate::matchmaking::Pool;
use crate::store::seeks::tests::{new_rated_game, play};
use crate::store::tests::each_backend;
use crate::store::{players, seeks};
use gomoku_rules::{Point, Rule};

fn blitz() -> Pool {
    Pool::find(Rule::Freestyle, 180_000, 2_000).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.01
}

/// A rated result between two new players matches the hand-computed Glicko-2 values (black
/// wins: 1662.31 / 290.32, white 1337.69 / 290.32, see `ratings::tests`), lands in both
/// records, the change rows and the game's state at once, and is applied once: a second
/// settlement (a flag fall seen twice, another instance) changes nothing.
#[tokio::test]
async fn a_result_is_rated_once_with_glicko_2() {
    for (db, _keep) in each_backend().await {
        let (game, black, white) = new_rated_game(&db, blitz()).await;
        let game = play(&db, &game, Point::new(7, 7)).await;
        play(&db, &game, Point::new(7, 8)).await;
        let Settled::Rated(rated) = settle(&db, &game.row.id, Some(Stone::Black)).await.unwrap()
        else {
            panic!("not rated");
        };
        assert!(close(rated.black.after.rating, 1662.31), "{rated:?}");
        assert!(close(rated.black.after.rd, 290.32), "{rated:?}");
        assert!(close(rated.white.after.rating, 1337.69), "{rated:?}");
        assert_eq!(
            (rated.black.shown(), rated.white.shown()),
            ("+162".into(), "\u{2212}162".into())
        );
        assert_eq!(
            settle(&db, &game.row.id, Some(Stone::White)).await.unwrap(),
            Settled::Untouched
        );

        let state = rated_game_state(&db, &game.row.id).await;
        let RatedState::Rated { black: b, white: w } = state else {
            panic!("{state:?}");
        };
        assert!(close(b.0, 1500.0) && close(b.1, 1662.31) && close(w.1, 1337.69));

        let winner = profile(&db, &black, RECENT_RESULTS).await.unwrap().unwrap();
        let record = winner.record(Family::Gomoku);
        assert_eq!(
            (record.games, record.wins, record.losses, record.draws),
            (1, 1, 0, 0)
        );
        assert!(close(record.rating.rating, 1662.31) && record.rating.provisional());
        assert_eq!(winner.record(Family::Renju), Record::new(Family::Renju));
        assert_eq!(winner.recent.len(), 1);
        let result = &winner.recent[0];
        assert_eq!(
            (result.score, result.colour, result.delta()),
            (Score::Win, Stone::Black, 162)
        );
        assert_eq!(result.opponent_id, white);
        let name = players::name(&db, &white).await.unwrap().unwrap();
        assert_eq!(result.opponent_name, name);

        let loser = profile(&db, &white, RECENT_RESULTS).await.unwrap().unwrap();
        let record = loser.record(Family::Gomoku);
        assert_eq!((record.games, record.wins, record.losses), (1, 0, 1));
        assert_eq!(loser.recent[0].delta(), -162);
    }
}

async fn rated_game_state(db: &Db, id: &str) -> RatedState {
    rated_game(db, id).await.unwrap().unwrap().state
}

/// Aborted games change nothing: a game aborted for want of a first move keeps every rating
/// and record as it was (no row at all for new players), counts one abort against the player
/// who did not move (their next seek carries it), and cannot be settled afterwards; a game that
/// ends before both players moved is settled unrated, with the same nothing changed.
#[tokio::test]
async fn aborted_games_change_nothing() {
    for (db, _keep) in each_backend().await {
        let (game, black, white) = new_rated_game(&db, blitz()).await;
        assert!(abort(&db, &game.row.id, &black).await.unwrap());
        assert!(
            !abort(&db, &game.row.id, &black).await.unwrap(),
            "aborted once"
        );
        assert_eq!(
            settle(&db, &game.row.id, Some(Stone::White)).await.unwrap(),
            Settled::Untouched
        );
        assert_eq!(
            rated_game_state(&db, &game.row.id).await,
            RatedState::Aborted
        );
        for player in [&black, &white] {
            let profile = profile(&db, player, RECENT_RESULTS).await.unwrap().unwrap();
            assert!(
                profile.records.is_empty() && profile.recent.is_empty(),
                "{profile:?}"
            );
        }
        let seeks::Added::Added(seek) = seeks::add(&db, &black, blitz()).await.unwrap() else {
            panic!("no seek");
        };
        assert_eq!(seek.aborts, 1);
        seeks::remove(&db, &black).await.unwrap();

        // One move only (white never moved), then black resigns... or wins on time: unrated.
        let (game, black, _) = new_rated_game(&db, blitz()).await;
        play(&db, &game, Point::new(7, 7)).await;
        assert_eq!(
            settle(&db, &game.row.id, Some(Stone::Black)).await.unwrap(),
            Settled::Unrated
        );
        assert_eq!(
            rated_game_state(&db, &game.row.id).await,
            RatedState::Aborted
        );
        let profile = profile(&db, &black, RECENT_RESULTS).await.unwrap().unwrap();
        assert!(profile.records.is_empty());
        // An unrated game is none of this module's business.
        assert_eq!(
            settle(&db, "no-such-game", None).await.unwrap(),
            Settled::Untouched
        );
        assert_eq!(rated_game(&db, "no-such-game").await.unwrap(), None);
        assert_eq!(profile_of_nobody(&db).await, None);
    }
}

async fn profile_of_nobody(db: &Db) -> Option<Profile> {
    profile(db, "nobody", RECENT_RESULTS).await.unwrap()
}

/// The leaderboard lists a family's players whose rating is no longer provisional, highest
/// first, with their names and games, at most `limit` of them.
#[tokio::test]
async fn leaderboard_of_settled_players() {
    for (db, _keep) in each_backend().await {
        let mut ids = Vec::new();
        for (rating, rd) in [
            (1700.0, 60.0),
            (1900.0, 200.0),
            (1600.0, 109.0),
            (1800.0, 90.0),
        ] {
            let id = players::tests::anonymous(&db).await;
            db.execute_raw(&[&format!(
                "insert into ratings (player_id, family, rating, rd, volatility, games, wins, \
                 losses, draws, updated_at) values ('{id}', 'gomoku', {rating}, {rd}, 0.06, 30, \
                 20, 8, 2, '{}')",
                crate::store::now()
            )])
            .await;
            ids.push(id);
        }
        let board = leaderboard(&db, Family::Gomoku, LEADERBOARD).await.unwrap();
        let order: Vec<&str> = board.iter().map(|l| l.player_id.as_str()).collect();
        assert_eq!(
            order,
            [&ids[3], &ids[0], &ids[2]],
            "1800, 1700, 1600; 1900? is provisional"
        );
        let top = &board[0];
        assert_eq!(
            (top.record.games, top.record.wins, top.record.draws),
            (30, 20, 2)
        );
        assert_eq!(
            top.name,
            players::name(&db, &ids[3]).await.unwrap().unwrap()
        );
        assert_eq!(leaderboard(&db, Family::Gomoku, 2).await.unwrap().len(), 2);
        assert!(leaderboard(&db, Family::Renju, LEADERBOARD)
            .await
            .unwrap()
            .is_empty());
    }
}

/// Two instances settling the same game at once rate it once (PostgreSQL: the game's row is
/// locked, and the second finds it settled); two games of one player settling at once both
/// count, one after the other.
#[tokio::test]
#[ignore = "needs PostgreSQL: set GOMOKU_TEST_DATABASE"]
async fn concurrent_settlements_on_two_instances() {
    let (a, b, _database) = crate::store::tests::two_stores_on_postgres().await;
    let (game, black, _) = new_rated_game(&a, blitz()).await;
    let game = play(&a, &game, Point::new(7, 7)).await;
    play(&a, &game, Point::new(7, 8)).await;
    let (x, y) = tokio::join!(
        settle(&a, &game.row.id, Some(Stone::Black)),
        settle(&b, &game.row.id, Some(Stone::Black))
    );
    let rated = [x.unwrap(), y.unwrap()]
        .iter()
        .filter(|s| matches!(s, Settled::Rated(_)))
        .count();
    assert_eq!(rated, 1);
    let record = profile(&b, &black, 10)
        .await
        .unwrap()
        .unwrap()
        .record(Family::Gomoku);
    assert_eq!(record.games, 1);
    a.close().await;
    b.close().await;
}
