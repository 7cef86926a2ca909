//! Puzzles as stored, on each backend the tests can reach (SQLite always, PostgreSQL when a
//! cluster is named): steps guarded by the moves read, a rated end applied with the player's
//! new Glicko-2 rating at once, practice changing no rating, retries.

use super::*;
use crate::puzzles::opponent;
use crate::ratings::{self, Score};
use crate::store::players::tests::anonymous;
use crate::store::tests::each_backend;

fn c(s: &str) -> Coord {
    s.parse().unwrap()
}

fn step(player: &str, puzzle: &str, expected: Option<&[&str]>, moves: &[&str]) -> Step {
    Step {
        player_id: player.to_string(),
        puzzle_id: puzzle.to_string(),
        expected: expected.map(|m| m.iter().map(|s| c(s)).collect()),
        moves: moves.iter().map(|s| c(s)).collect(),
        status: AttemptStatus::Playing,
        puzzle_rating: opponent(1300.0),
    }
}

fn done(advanced: Advanced) -> Attempt {
    match advanced {
        Advanced::Done(a) => a,
        Advanced::Stale => panic!("stale"),
    }
}

/// A first move makes the rated attempt; a later step applies only on the moves it read (a
/// stale one writes nothing); the solving step rates the player by Glicko-2 against the
/// puzzle (rating, RD 80) and stores the change with the attempt.
#[tokio::test]
async fn steps_are_guarded_and_a_rated_end_rates_once() {
    for (db, _keep) in each_backend().await {
        let player = anonymous(&db).await;
        assert_eq!(
            puzzle_rating(&db, &player).await.unwrap(),
            PuzzleRecord::default()
        );
        assert_eq!(attempt(&db, &player, "f0001").await.unwrap(), None);

        let first = done(
            advance(&db, step(&player, "f0001", None, &["e8", "d9"]))
                .await
                .unwrap(),
        );
        assert_eq!(first.moves, vec![c("e8"), c("d9")]);
        assert!(first.rated && first.status == AttemptStatus::Playing && first.tries == 1);
        // A second first move (the same request again) finds the attempt made.
        assert_eq!(
            advance(&db, step(&player, "f0001", None, &["e8", "d9"]))
                .await
                .unwrap(),
            Advanced::Stale
        );
        // A step on moves that are no longer the stored ones.
        assert_eq!(
            advance(&db, step(&player, "f0001", Some(&[]), &["f9", "i12"]))
                .await
                .unwrap(),
            Advanced::Stale
        );
        assert_eq!(attempt(&db, &player, "f0001").await.unwrap(), Some(first));

        let mut last = step(&player, "f0001", Some(&["e8", "d9"]), &["e8", "d9", "f9"]);
        last.status = AttemptStatus::Solved;
        let solved = done(advance(&db, last.clone()).await.unwrap());
        let (expected, _) = ratings::rate(Rating::INITIAL, opponent(1300.0), Score::Win);
        let (before, after) = solved.change.expect("a rated change");
        assert_eq!(before, 1500.0);
        assert!(
            (after - expected.rating).abs() < 1e-6,
            "{after} {expected:?}"
        );
        assert!(solved.ended_at.is_some());
        let record = puzzle_rating(&db, &player).await.unwrap();
        assert!((record.rating.rd - expected.rd).abs() < 1e-6);
        assert_eq!((record.solved, record.failed), (1, 0));
        // The same end again is stale: rated once.
        assert_eq!(advance(&db, last).await.unwrap(), Advanced::Stale);
        assert_eq!(puzzle_rating(&db, &player).await.unwrap(), record);
    }
}

/// A retry makes the attempt practice: its end moves no rating; a rated attempt given up by a
/// retry counts as failed; a retry before any move, or of a fresh practice attempt, changes
/// nothing; tried lists every puzzle started, least recently started first.
#[tokio::test]
async fn retries_are_practice_and_giving_up_fails() {
    for (db, _keep) in each_backend().await {
        let player = anonymous(&db).await;
        assert_eq!(
            retry(&db, &player, "f0002", opponent(1100.0))
                .await
                .unwrap(),
            None
        );
        done(
            advance(&db, step(&player, "f0002", None, &["e8", "d9"]))
                .await
                .unwrap(),
        );
        done(
            advance(&db, step(&player, "s0001", None, &["h8", "h9"]))
                .await
                .unwrap(),
        );
        let fresh = retry(&db, &player, "f0002", opponent(1100.0))
            .await
            .unwrap()
            .expect("an attempt");
        assert!(!fresh.rated && fresh.moves.is_empty() && fresh.tries == 2);
        let (given_up, _) = ratings::rate(Rating::INITIAL, opponent(1100.0), Score::Loss);
        let record = puzzle_rating(&db, &player).await.unwrap();
        assert_eq!((record.solved, record.failed), (0, 1));
        assert!((record.rating.rating - given_up.rating).abs() < 1e-6);
        assert_eq!(
            retry(&db, &player, "f0002", opponent(1100.0))
                .await
                .unwrap(),
            Some(fresh),
            "a fresh practice attempt is left as it is"
        );

        let mut failed = step(&player, "f0002", Some(&[]), &["a1"]);
        failed.status = AttemptStatus::Failed;
        let practice = done(advance(&db, failed).await.unwrap());
        assert_eq!(practice.status, AttemptStatus::Failed);
        assert_eq!(practice.change, None);
        assert_eq!(puzzle_rating(&db, &player).await.unwrap(), record);

        let tried = tried(&db, &player).await.unwrap();
        let ids: Vec<&str> = tried.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["s0001", "f0002"], "the retry started f0002 again");
    }
}
