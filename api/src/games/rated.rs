//! Rated games, below HTTP: what their endings set off, the abort of a game nobody moved in,
//! and what a view of one shows about its rating.
//!
//! A rated game is made by a pairing (`store::seeks::claim`) and is otherwise an online game like
//! any other. Its result is applied once (`settle`, from `games::ended`, where every
//! ending passes): the store's settlement is guarded by the game's `rated_games` row, so two
//! instances ending or sweeping the same game rate it once. Applying it does not change the game
//! itself, so the game is then touched (its version moves on, nothing else) to bring every live
//! socket, on every instance, a state with the rating changes.
//!
//! A game in which a player has not made their first move within the abort time (black from the
//! pairing, white from black's first move) is aborted by [`sweep`], which every instance runs
//! each second, like a flag timer that needs no arming: the store marks the game aborted and
//! counts the abort against that player first (once, whichever instance gets there), and then
//! the game is ended, by the version-guarded write as every ending, as the rules' `Aborted`
//! (no result: the games row, its replay and its record say "aborted"). The same sweep settles a
//! rated game that ended without its settlement (its instance stopped in between).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gomoku_rules::{Ending, Stone};
use time::OffsetDateTime;

use super::play::end_online;
use crate::matchmaking::Pool;
use crate::ratings::RATED_FROM_MOVES;
use crate::store::games::{self as stored_games, GameRow, Mode, Seats, StoredGame, Written};
use crate::store::ratings::{self, RatedState, Record, Settled};
use crate::store::{now, parse_timestamp, Db, StoreError};

/// Games whose rated state this process remembers before it forgets them all.
const REMEMBERED: usize = 50_000;

/// What a view of a rated game shows about its rating.
#[derive(Debug, Clone, PartialEq)]
pub struct RatedInfo {
    pub pool: Pool,
    pub state: RatedState,
    /// Black's record in the pool's family, its rating as before the game.
    pub black: Record,
    /// White's, likewise.
    pub white: Record,
}

impl RatedInfo {
    /// The record of `colour`'s player.
    pub fn record(&self, colour: Stone) -> &Record {
        match colour {
            Stone::Black => &self.black,
            Stone::White => &self.white,
        }
    }
}

/// Which games are rated, as this process has read them: only what only one process can know
/// is a cache, and a rated game's settlement may be made by another instance, so a game still
/// pending is read again each time (an unrated game stays unrated, a settled one settled).
pub struct RatedBook {
    db: Db,
    // A std Mutex, not tokio's: nothing awaits while it is held.
    known: Mutex<HashMap<String, Option<Arc<RatedInfo>>>>,
}

impl RatedBook {
    pub fn new(db: Db) -> RatedBook {
        RatedBook {
            db,
            known: Mutex::default(),
        }
    }

    fn known(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<Arc<RatedInfo>>>> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The rated state of the game of `row`, at which `seats` sit; None for an unrated game.
    pub async fn of(
        &self,
        row: &GameRow,
        seats: &Seats,
    ) -> Result<Option<Arc<RatedInfo>>, StoreError> {
        // A pairing makes only timed online games.
        if row.mode != Mode::Online || row.time_control.is_none() {
            return Ok(None);
        }
        let id = &row.id;
        let pending = match self.known().get(id) {
            None => None,
            Some(None) => return Ok(None),
            Some(Some(info)) if info.state != RatedState::Pending => return Ok(Some(info.clone())),
            // Only an ending settles a game (or aborts it), so while it is in play a pending
            // game stays pending: no read on each move and each push.
            Some(Some(info)) if !row.status.is_over() => return Ok(Some(info.clone())),
            Some(Some(info)) => Some(info.clone()),
        };
        let Some(rated) = ratings::rated_game(&self.db, id).await? else {
            self.remember(id, None);
            return Ok(None);
        };
        let (black, white) = match pending {
            Some(info) => (info.black.clone(), info.white.clone()),
            None => {
                let mut records = [Record::new(rated.family), Record::new(rated.family)];
                for (colour, record) in [Stone::Black, Stone::White].iter().zip(&mut records) {
                    if let Some(seat) = seats.get(*colour) {
                        *record = ratings::record(&self.db, &seat.player_id, rated.family).await?;
                    }
                }
                // The rating shown is the one the players had when paired (kept with the game),
                // whenever it is read; the counts of games are as they are now.
                if let Some(paired) = rated.paired {
                    for (record, (rating, rd)) in records.iter_mut().zip(paired) {
                        record.rating.rating = rating;
                        record.rating.rd = rd;
                    }
                }
                // A game paired before the ratings were kept, read after its result: the rating
                // before it is the change's.
                if let (None, RatedState::Rated { black, white }) = (rated.paired, &rated.state) {
                    records[0].rating.rating = black.0;
                    records[1].rating.rating = white.0;
                }
                let [black, white] = records;
                (black, white)
            }
        };
        let info = Arc::new(RatedInfo {
            pool: rated.pool,
            state: rated.state,
            black,
            white,
        });
        self.remember(id, Some(info.clone()));
        Ok(Some(info))
    }

    fn remember(&self, id: &str, info: Option<Arc<RatedInfo>>) {
        let mut known = self.known();
        if known.len() >= REMEMBERED {
            known.clear();
        }
        known.insert(id.to_string(), info);
    }
}

/// Applies the result of `game`, which just ended, if it is rated (unrated if both players had
/// not moved), and touches it so the live sockets show the changes.
pub(super) async fn settle(db: &Db, game: &StoredGame) -> Result<(), StoreError> {
    if game.row.mode != Mode::Online || game.row.time_control.is_none() {
        return Ok(());
    }
    let winner = game.game.outcome().winner();
    match ratings::settle(db, &game.row.id, winner).await? {
        Settled::Rated(_) | Settled::Unrated => touch(db, &game.row.id).await,
        Settled::Untouched => Ok(()),
    }
}

/// Moves game `id`'s version on without changing it, so every watcher hears of it.
async fn touch(db: &Db, id: &str) -> Result<(), StoreError> {
    for _ in 0..super::ATTEMPTS {
        let Some(stored) = stored_games::load(db, id).await? else {
            return Ok(());
        };
        // A touch seats nobody and reopens nothing: the cap has nothing to count.
        match stored_games::commit(db, stored.change(now()), u32::MAX).await? {
            Written::Stored(_) | Written::OverCap => return Ok(()),
            Written::Stale => continue,
        }
    }
    Ok(())
}

/// When the player to move in `game` loses the right to make their first move: `abort_after`
/// from the pairing (black) or from black's first move (white); None once both have moved.
pub fn abort_deadline(game: &StoredGame, abort_after: Duration) -> Option<OffsetDateTime> {
    if game.moves.len() >= RATED_FROM_MOVES || game.row.status.is_over() {
        return None;
    }
    let since = game
        .moves
        .last()
        .map_or(game.row.created_at.as_str(), |m| m.played_at.as_str());
    Some(parse_timestamp(since)? + abort_after)
}

/// One look at the rated games that may need a decision at `now`: aborts those whose player to
/// move let the abort time pass, and settles those that ended unsettled. How many it ended.
pub async fn sweep(
    db: &Db,
    abort_after: Duration,
    now: OffsetDateTime,
) -> Result<usize, StoreError> {
    let mut aborted = 0;
    for id in ratings::unsettled(db).await? {
        let Some(game) = stored_games::load(db, &id).await? else {
            continue;
        };
        if game.row.status.is_over() {
            settle(db, &game).await?;
            continue;
        }
        let due = abort_deadline(&game, abort_after).is_some_and(|d| d <= now);
        let marked = ratings::rated_game(db, &id)
            .await?
            .is_some_and(|r| r.state == RatedState::Aborted);
        if !due && !marked {
            continue;
        }
        let Some(late) = game.game.to_move().and_then(|c| game.seats.get(c)) else {
            continue;
        };
        // Marked first, so the abort counts against the player once, whoever ends the game.
        if (ratings::abort(db, &id, &late.player_id).await? || marked)
            && end_aborted(db, &id, now).await?
        {
            aborted += 1;
        }
    }
    Ok(aborted)
}

/// Ends game `id`, marked aborted, unless it is over already; whether this call ended it.
async fn end_aborted(db: &Db, id: &str, at: OffsetDateTime) -> Result<bool, StoreError> {
    for _ in 0..super::ATTEMPTS {
        let Some(stored) = stored_games::load(db, id).await? else {
            return Ok(false);
        };
        let Ok(change) = end_online(&stored, Ending::Aborted, at) else {
            return Ok(false);
        };
        match super::commit(db, change, u32::MAX).await? {
            Written::Stored(_) => return Ok(true),
            Written::OverCap => return Ok(false),
            Written::Stale => continue,
        }
    }
    Ok(false)
}

/// Runs [`sweep`] every `every` for as long as the server runs.
pub async fn keep_sweeping(db: Db, abort_after: Duration, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        if let Err(e) = sweep(&db, abort_after, OffsetDateTime::now_utc()).await {
            tracing::warn!(error = %e, "could not look over the rated games");
        }
    }
}

#[cfg(test)]
mod tests {
    use gomoku_rules::{EndReason, Point, Rule, Status};

    use super::*;
    use crate::ratings::Family;
    use crate::store::games::GameStatus;
    use crate::store::seeks::tests::{new_rated_game, only_pairing, paired, play};
    use crate::store::tests::each_backend;

    fn blitz() -> Pool {
        Pool::find(Rule::Freestyle, 180_000, 2_000).unwrap()
    }

    const ABORT: Duration = Duration::from_secs(30);

    /// Black's deadline runs from the pairing, white's from black's first move; none once both
    /// moved.
    #[tokio::test]
    async fn abort_deadlines() {
        for (db, _keep) in each_backend().await {
            let (game, _, _) = new_rated_game(&db, blitz()).await;
            let created = parse_timestamp(&game.row.created_at).unwrap();
            assert_eq!(abort_deadline(&game, ABORT), Some(created + ABORT));
            let game = play(&db, &game, Point::new(7, 7)).await;
            let first = parse_timestamp(&game.moves[0].played_at).unwrap();
            assert_eq!(abort_deadline(&game, ABORT), Some(first + ABORT));
            let game = play(&db, &game, Point::new(8, 8)).await;
            assert_eq!(abort_deadline(&game, ABORT), None);
        }
    }

    /// The sweep leaves a game alone before its deadline; after it, the game ends aborted once
    /// (a second sweep, as another instance's, changes nothing), unrated, counted against the
    /// player to move, and the book shows it aborted.
    #[tokio::test]
    async fn sweep_aborts_once_after_the_deadline() {
        for (db, _keep) in each_backend().await {
            let (game, _black, white) = new_rated_game(&db, blitz()).await;
            let game = play(&db, &game, Point::new(7, 7)).await;
            let first = parse_timestamp(&game.moves[0].played_at).unwrap();
            assert_eq!(sweep(&db, ABORT, first + ABORT / 2).await.unwrap(), 0);
            let after = first + ABORT + Duration::from_millis(1);
            assert_eq!(sweep(&db, ABORT, after).await.unwrap(), 1);
            assert_eq!(sweep(&db, ABORT, after).await.unwrap(), 0);
            let ended = stored_games::load(&db, &game.row.id)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(ended.row.status, GameStatus::Rules(Status::Aborted));
            assert_eq!(ended.row.end_reason, Some(EndReason::Aborted));
            let book = RatedBook::new(db.clone());
            let info = book.of(&ended.row, &ended.seats).await.unwrap().unwrap();
            assert_eq!(info.state, RatedState::Aborted);
            assert_eq!(info.pool, blitz());
            let added = crate::store::seeks::add(&db, &white, blitz())
                .await
                .unwrap();
            let crate::store::seeks::Added::Added(seek) = added else {
                panic!("white seeks anew");
            };
            assert_eq!(seek.aborts, 1, "the abort counts against white");
            assert_eq!(seek.rating, 1500.0, "no rating changed");
        }
    }

    /// A rated game that ends through the game service's commit is settled there, rated once
    /// both moved: the book shows both changes, black's up and white's down by as much.
    #[tokio::test]
    async fn endings_settle_rated_games() {
        for (db, _keep) in each_backend().await {
            let (game, _, _) = new_rated_game(&db, blitz()).await;
            let game = play(&db, &game, Point::new(7, 7)).await;
            let game = play(&db, &game, Point::new(8, 8)).await;
            let change = end_online(
                &game,
                Ending::Resigned(Stone::White),
                OffsetDateTime::now_utc(),
            )
            .unwrap();
            let Written::Stored(ended) = super::super::commit(&db, change, 10).await.unwrap()
            else {
                panic!("the resignation is written");
            };
            let book = RatedBook::new(db.clone());
            let info = book.of(&ended.row, &ended.seats).await.unwrap().unwrap();
            let RatedState::Rated { black, white } = info.state else {
                panic!("rated: {:?}", info.state);
            };
            assert_eq!(black.0, 1500.0);
            assert!(black.1 > 1500.0 && white.1 < 1500.0);
            assert!((black.1 - 1500.0 - (1500.0 - white.1)).abs() < 1e-6);
            // The touch moved the version on, so every socket hears of the changes.
            let now = stored_games::load(&db, &ended.row.id)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(now.row.version, ended.row.version + 1);
        }
    }

    /// A game shows the ratings its players had when they were paired, though one of their
    /// earlier games is rated meanwhile; once its own result is in, the same ratings show
    /// beside the changes.
    #[tokio::test]
    async fn ratings_shown_are_those_at_the_pairing() {
        for (db, _keep) in each_backend().await {
            let (first, black, white) = new_rated_game(&db, blitz()).await;
            let first = play(&db, &first, Point::new(7, 7)).await;
            let first = play(&db, &first, Point::new(8, 8)).await;
            // The same two players are paired again while the first game is still on.
            for player in [&black, &white] {
                crate::store::seeks::add(&db, player, blitz())
                    .await
                    .unwrap();
            }
            let pairing = only_pairing(&db, blitz()).await;
            let second = paired(crate::store::seeks::claim(&db, &pairing, 10).await.unwrap());
            let change = end_online(
                &first,
                Ending::Resigned(Stone::White),
                OffsetDateTime::now_utc(),
            )
            .unwrap();
            let Written::Stored(_) = super::super::commit(&db, change, 10).await.unwrap() else {
                panic!("the resignation is written");
            };
            let now = ratings::record(&db, &black, Family::Gomoku).await.unwrap();
            assert!(now.rating.rating > 1500.0 && now.rating.rd < 350.0);
            let book = RatedBook::new(db.clone());
            let info = book.of(&second.row, &second.seats).await.unwrap().unwrap();
            for colour in [Stone::Black, Stone::White] {
                let shown = &info.record(colour).rating;
                assert_eq!((shown.rating, shown.rd), (1500.0, 350.0), "{colour:?}");
            }
        }
    }
}
