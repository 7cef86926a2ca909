//! The matchmaking lobby: seeking a rated game, the pairing rounds that make the games, and each
//! player's own live channel (`GET /api/v1/live`) that tells them they were paired.
//!
//! A seek is a row in the store ([`seeks`]); who pairs with whom is
//! [`pair`]'s decision; whether a pairing happens is the database's
//! ([`seeks::claim`]: a seek claimed by one instance is gone for every other). Every instance runs
//! rounds: one when a seek arrives here and one a second while seeks wait (the windows widen with
//! the wait). A pairing is news for both players ([`seeks::tell`]): the store brings it to
//! every instance, and each hands it to its own connections of that player.
//!
//! What only one process can know: which players hold live channels here. A seek dies with its
//! player's last live channel on the instance that sees it close. An instance holding a channel
//! takes its player's seek over (`seeks::hold`: on PostgreSQL the seek then names it), when the
//! channel opens and when it hears the player sought through another instance; a seek that no
//! instance with a channel took over within the grace is dropped by the instance that took it. A
//! whole instance that dies takes its seeks with it through the store (a seek counts only while
//! the instance it names beats).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use gomoku_rules::Stone;
use time::OffsetDateTime;
use tokio::sync::{broadcast, Notify};

use crate::matchmaking::{pair, Pool, Seek};
use crate::store::games::{self as stored_games, StatusFilter, StoredGame};
use crate::store::seeks::{self, Added, Claimed, PlayerNews, SeekEnd};
use crate::store::{Db, StoreError, Watch};

/// How often a pairing round runs while nothing wakes it.
pub const ROUND: Duration = Duration::from_secs(1);
/// News a player's channel may fall behind by before it is dropped (there is little of it).
const BACKLOG: usize = 16;

/// What seeking came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Sought {
    /// The player now waits in the pool.
    New(Seek),
    /// The player already waited in this pool: their seek, unchanged.
    Same(Seek),
}

/// Why a seek was refused.
#[derive(Debug, thiserror::Error)]
pub enum SeekError {
    /// The player waits in another pool (this seek of theirs).
    #[error("already seeking in {}", .0.pool)]
    Elsewhere(Seek),
    /// The player already has this many unfinished games, the most allowed.
    #[error("too many unfinished games (at most {0})")]
    TooManyGames(u32),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One player's live channels here.
struct Local {
    connections: usize,
    news: broadcast::Sender<PlayerNews>,
}

/// This process's lobby: its players' live channels, and its pairing rounds.
pub struct Lobby {
    me: Weak<Lobby>,
    db: Db,
    /// The cap on a player's unfinished games, which a pairing respects.
    cap: u32,
    /// How long a seek waits for its player's first live channel.
    grace: Duration,
    // A std Mutex, not tokio's: nothing awaits while it is held.
    players: Mutex<HashMap<String, Local>>,
    /// Wakes the pairing rounds (a seek arrived).
    wake: Notify,
}

/// A live channel held open: its news, and its place among its player's channels (given back
/// when dropped: the last one to go takes the player's seek with it).
pub struct Listening {
    lobby: Arc<Lobby>,
    player_id: String,
    pub news: broadcast::Receiver<PlayerNews>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.lobby.hang_up(&self.player_id);
    }
}

impl Lobby {
    pub fn new(db: Db, cap: u32, grace: Duration) -> Arc<Lobby> {
        Arc::new_cyclic(|me| Lobby {
            me: me.clone(),
            db,
            cap,
            grace,
            players: Mutex::default(),
            wake: Notify::new(),
        })
    }

    fn players(&self) -> std::sync::MutexGuard<'_, HashMap<String, Local>> {
        self.players.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `player_id` holds a live channel here.
    pub fn connected(&self, player_id: &str) -> bool {
        self.players().contains_key(player_id)
    }

    /// Puts `player_id` in `pool` (see [`Sought`]); a seek in another pool is refused, and so is
    /// one by a player at their cap of unfinished games (the pairing checks the cap again, in
    /// its transaction).
    pub async fn seek(&self, player_id: &str, pool: Pool) -> Result<Sought, SeekError> {
        let cap = usize::try_from(self.cap).unwrap_or(usize::MAX);
        let unfinished = stored_games::list(&self.db, player_id, StatusFilter::Playing, cap, None)
            .await?
            .len();
        if unfinished >= cap {
            return Err(SeekError::TooManyGames(self.cap));
        }
        match seeks::add(&self.db, player_id, pool).await? {
            Added::Added(seek) => {
                self.wake.notify_one();
                if !self.connected(player_id) {
                    // A channel of theirs on another instance takes the seek over.
                    let news = PlayerNews::Sought {
                        player_id: player_id.to_string(),
                    };
                    seeks::tell(&self.db, &news).await?;
                    self.expect(seek.clone());
                }
                Ok(Sought::New(seek))
            }
            Added::Seeking(seek) if seek.pool == pool => Ok(Sought::Same(seek)),
            Added::Seeking(seek) => Err(SeekError::Elsewhere(seek)),
        }
    }

    /// `player_id`'s seek, if they wait in a pool.
    pub async fn current(&self, player_id: &str) -> Result<Option<Seek>, StoreError> {
        seeks::of_player(&self.db, player_id).await
    }

    /// Takes `player_id` out of the pool, telling their channels; nothing if they were not in it.
    pub async fn cancel(&self, player_id: &str) -> Result<(), StoreError> {
        self.end(player_id, SeekEnd::Cancelled).await
    }

    /// Removes `player_id`'s seek and, if there was one, tells them why.
    async fn end(&self, player_id: &str, reason: SeekEnd) -> Result<(), StoreError> {
        if seeks::remove(&self.db, player_id).await? {
            let news = PlayerNews::SeekEnded {
                player_id: player_id.to_string(),
                reason,
            };
            seeks::tell(&self.db, &news).await?;
        }
        Ok(())
    }

    /// Drops `seek` if its player opens no live channel within the grace: none here, and no
    /// other instance took the seek over for a channel of theirs there.
    fn expect(&self, seek: Seek) {
        let Some(lobby) = self.me.upgrade() else {
            return;
        };
        tokio::spawn(async move {
            tokio::time::sleep(lobby.grace).await;
            if lobby.connected(&seek.player_id) {
                return;
            }
            let dropped = async {
                if seeks::drop_unheld(&lobby.db, &seek.id).await? {
                    let news = PlayerNews::SeekEnded {
                        player_id: seek.player_id.clone(),
                        reason: SeekEnd::Gone,
                    };
                    seeks::tell(&lobby.db, &news).await?;
                }
                Ok::<_, StoreError>(())
            };
            if let Err(e) = dropped.await {
                tracing::warn!(error = %e, "could not drop a seek without a live channel");
            }
        });
    }

    /// Opens a live channel of `player_id`: its news from now on, and the player's seek, which
    /// this instance now holds (it lives and dies with this channel and its siblings).
    pub async fn open(
        self: &Arc<Self>,
        player_id: &str,
    ) -> Result<(Listening, Option<Seek>), StoreError> {
        // Listening before the seek is read: a pairing in between is not missed.
        let listening = self.listen(player_id);
        seeks::hold(&self.db, player_id).await?;
        let seek = self.current(player_id).await?;
        Ok((listening, seek))
    }

    /// A live channel of `player_id`, its news from now on.
    pub fn listen(self: &Arc<Self>, player_id: &str) -> Listening {
        let mut players = self.players();
        let local = players
            .entry(player_id.to_string())
            .or_insert_with(|| Local {
                connections: 0,
                news: broadcast::channel(BACKLOG).0,
            });
        local.connections += 1;
        Listening {
            lobby: self.clone(),
            player_id: player_id.to_string(),
            news: local.news.subscribe(),
        }
    }

    /// A live channel of `player_id` closed; the last one takes their seek with it (unless a new
    /// channel opened meanwhile).
    fn hang_up(&self, player_id: &str) {
        {
            let mut players = self.players();
            let Some(local) = players.get_mut(player_id) else {
                return;
            };
            local.connections -= 1;
            if local.connections > 0 {
                return;
            }
            players.remove(player_id);
        }
        let (Some(lobby), player_id) = (self.me.upgrade(), player_id.to_string()) else {
            return;
        };
        tokio::spawn(async move {
            if lobby.connected(&player_id) {
                return;
            }
            if let Err(e) = lobby.end(&player_id, SeekEnd::Gone).await {
                tracing::warn!(error = %e, "could not drop the seek of a player who left");
            }
        });
    }

    /// Runs pairing rounds for as long as the server runs: when woken, and every [`ROUND`].
    pub async fn run(self: Arc<Self>) {
        loop {
            tokio::select! {
                () = self.wake.notified() => {}
                () = tokio::time::sleep(ROUND) => {}
            }
            self.round(OffsetDateTime::now_utc()).await;
        }
    }

    /// One pairing round over every pool at `now`: pairs what may meet and claims each pairing;
    /// how many games it made.
    pub async fn round(&self, now: OffsetDateTime) -> usize {
        let mut made = 0;
        for pool in Pool::ALL {
            let waiting = match seeks::waiting(&self.db, pool).await {
                Ok(waiting) => waiting,
                Err(e) => {
                    tracing::warn!(error = %e, %pool, "could not read a pool");
                    continue;
                }
            };
            if waiting.len() < 2 {
                continue;
            }
            for pairing in pair(&waiting, now) {
                match seeks::claim(&self.db, &pairing, self.cap).await {
                    Ok(Claimed::Paired(game)) => {
                        made += 1;
                        self.announce(&game, pool).await;
                    }
                    Ok(Claimed::Gone) => {}
                    Ok(Claimed::OverCap(player)) => {
                        if let Err(e) = self.end(&player, SeekEnd::TooManyGames).await {
                            tracing::warn!(error = %e, "could not drop a seek over the cap");
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, %pool, "could not claim a pairing"),
                }
            }
        }
        made
    }

    /// Tells both players of a paired game.
    async fn announce(&self, game: &StoredGame, pool: Pool) {
        for you in [Stone::Black, Stone::White] {
            let Some(seat) = game.seats.get(you) else {
                continue;
            };
            let news = PlayerNews::Paired {
                player_id: seat.player_id.clone(),
                game_id: game.row.id.clone(),
                pool,
                you,
            };
            if let Err(e) = seeks::tell(&self.db, &news).await {
                tracing::warn!(error = %e, game = %game.row.id, "could not tell a pairing");
            }
        }
    }
}

impl Watch for Lobby {
    fn changed(&self, _game: &Arc<StoredGame>) {}
    fn deleted(&self, _id: &str) {}

    fn player_heard(&self, news: &PlayerNews) {
        if !self.connected(news.player_id()) {
            return;
        }
        if let PlayerNews::Sought { player_id } = news {
            let (db, player_id) = (self.db.clone(), player_id.clone());
            tokio::spawn(async move {
                if let Err(e) = seeks::hold(&db, &player_id).await {
                    tracing::warn!(error = %e, "could not take over a seek");
                }
            });
            return;
        }
        if let Some(local) = self.players().get(news.player_id()) {
            // No receiver left is a channel closing right now: nothing to tell.
            let _ = local.news.send(news.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use gomoku_rules::Rule;

    use super::*;
    use crate::store::players::tests::anonymous;
    use crate::store::tests::each_backend;

    fn blitz() -> Pool {
        Pool::find(Rule::Freestyle, 180_000, 2_000).unwrap()
    }

    /// A lobby on `db` whose store tells it the players' news, as the server's does.
    fn lobby(db: &Db) -> Arc<Lobby> {
        let lobby = Lobby::new(db.clone(), 10, Duration::from_secs(60));
        assert!(db.watch(vec![lobby.clone()]));
        lobby
    }

    /// A round pairs two seekers once and each of their channels hears of its game; a seek in
    /// another pool is refused, one in the same pool answers with the seek.
    #[tokio::test]
    async fn a_round_pairs_and_tells() {
        for (db, _keep) in each_backend().await {
            let lobby = lobby(&db);
            let (a, b) = (anonymous(&db).await, anonymous(&db).await);
            let (mut a_hears, mut b_hears) = (lobby.listen(&a), lobby.listen(&b));
            let Sought::New(first) = lobby.seek(&a, blitz()).await.unwrap() else {
                panic!("a new seek");
            };
            assert_eq!(
                lobby.seek(&a, blitz()).await.unwrap(),
                Sought::Same(first.clone())
            );
            let renju = Pool::find(Rule::Renju, 600_000, 5_000).unwrap();
            assert!(matches!(
                lobby.seek(&a, renju).await,
                Err(SeekError::Elsewhere(seek)) if seek == first
            ));
            lobby.seek(&b, blitz()).await.unwrap();
            let now = OffsetDateTime::now_utc();
            assert_eq!(lobby.round(now).await, 1);
            assert_eq!(lobby.round(now).await, 0, "nobody is paired twice");
            let (
                PlayerNews::Paired {
                    game_id: x, you: p, ..
                },
                PlayerNews::Paired {
                    game_id: y, you: q, ..
                },
            ) = (
                a_hears.news.recv().await.unwrap(),
                b_hears.news.recv().await.unwrap(),
            )
            else {
                panic!("both told of a pairing");
            };
            assert_eq!(x, y);
            assert_ne!(p, q);
        }
    }

    /// The last channel of a player to close takes their seek with it; one left keeps it.
    #[tokio::test]
    async fn the_last_channel_takes_the_seek() {
        for (db, _keep) in each_backend().await {
            let lobby = lobby(&db);
            let a = anonymous(&db).await;
            let (first, second) = (lobby.listen(&a), lobby.listen(&a));
            lobby.seek(&a, blitz()).await.unwrap();
            drop(first);
            assert!(lobby.connected(&a));
            assert!(lobby.current(&a).await.unwrap().is_some());
            drop(second);
            let start = std::time::Instant::now();
            while lobby.current(&a).await.unwrap().is_some() {
                assert!(start.elapsed() < Duration::from_secs(10), "the seek stays");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}
