//! The matchmaking lobby: seeking a rated game, the pairing rounds that make the games, and each
//! player's own live channel (`GET /api/v1/live`) that tells them they were paired.
//!
//! A seek is a row in the store ([`store::seeks`]); who pairs with whom is
//! [`matchmaking::pair`]'s decision; whether a pairing happens is the database's
//! ([`seeks::claim`]: a seek claimed by one instance is gone for every other). Every instance runs
//! rounds: one when a seek arrives here and one a second while seeks wait (the windows widen with
//! the wait). A pairing is news for both players ([`seeks::tell`]): the store brings it to
//! every instance, and each hands it to its own connections of that player.
//!
//! What only one process can know: which players hold live channels here. A seek dies with its
//! player's last live channel on the instance that sees it close, and a seek made without any
//! channel here gets [`Lobby::grace`] for one to arrive. A whole instance that dies takes its
//! seeks with it through the store (a seek names its instance, and counts only while that
//! instance beats).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use gomoku_rules::Stone;
use time::OffsetDateTime;
use tokio::sync::{broadcast, Notify};

use crate::matchmaking::{pair, Pool, Seek};
use crate::store::games::StoredGame;
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

    /// Puts `player_id` in `pool` (see [`Sought`]); a seek in another pool is refused.
    pub async fn seek(&self, player_id: &str, pool: Pool) -> Result<Sought, SeekError> {
        match seeks::add(&self.db, player_id, pool).await? {
            Added::Added(seek) => {
                self.wake.notify_one();
                if !self.connected(player_id) {
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

    /// Drops `seek` if its player holds no live channel here within the grace.
    fn expect(&self, seek: Seek) {
        let Some(lobby) = self.me.upgrade() else {
            return;
        };
        tokio::spawn(async move {
            tokio::time::sleep(lobby.grace).await;
            if lobby.connected(&seek.player_id) {
                return;
            }
            let still = matches!(
                lobby.current(&seek.player_id).await,
                Ok(Some(now)) if now.id == seek.id
            );
            if still {
                if let Err(e) = lobby.end(&seek.player_id, SeekEnd::Gone).await {
                    tracing::warn!(error = %e, "could not drop a seek without a live channel");
                }
            }
        });
    }

    /// Opens a live channel of `player_id`.
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
        if let Some(local) = self.players().get(news.player_id()) {
            // No receiver left is a channel closing right now: nothing to tell.
            let _ = local.news.send(news.clone());
        }
    }
}
