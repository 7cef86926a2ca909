//! The live hub: one `tokio::sync::broadcast` channel per watched game, fed by the store's commit
//! hooks (so in commit order), and the presence of each game's players — how many live
//! connections each seat has here, and how many spectators.
//!
//! A channel exists only while someone watches its game: a commit to an unwatched game costs a
//! map lookup. Each socket's task holds a [`Subscription`] (its receiver, and its place in the
//! presence count, given back on drop). A change goes out as a small [`Event`] naming the new
//! version; the game itself is kept once per watched game, as its latest [`Update`], which each
//! connection takes from [`Hub::latest`]: the channel's slots never hold old states (they would
//! add up to many times a game's size per watched game). Every message is a whole state, so a
//! connection that wakes after two quick commits sends the newer one and is right again. A state
//! is rendered for each kind of viewer (black, white, neither) by the first connection that
//! needs it ([`Update::rendered`]), never one viewer's state for another. A receiver that falls
//! more than [`CHANNEL`] events behind lags: its connection is dropped, and the client
//! reconnects to a fresh state, rather than holding up the others.
//!
//! Also the limit of live connections per token ([`Ticket`]), and the signal that closes every
//! socket when the server shuts down.
//!
//! Only one process can know any of this: the sockets open here. With several instances, each
//! instance's hub must also be fed the other instances' commits (PostgreSQL `LISTEN/NOTIFY`),
//! presence is per instance unless shared through the database, and the per-token limit counts
//! per instance.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use gomoku_rules::Stone;
use tokio::sync::{broadcast, watch};

use crate::store::games::StoredGame;
use crate::store::Watch;

/// Events a game's channel keeps for a receiver that has not read them yet; one that falls
/// further behind is dropped.
pub const CHANNEL: usize = 16;

/// Who of a game is connected: whether each seat's player has a live connection, and how many
/// connections are spectators'.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Presence {
    pub black: bool,
    pub white: bool,
    pub spectators: u32,
}

impl Presence {
    /// Whether `colour`'s player has a live connection.
    pub fn of(self, colour: Stone) -> bool {
        match colour {
            Stone::Black => self.black,
            Stone::White => self.white,
        }
    }
}

/// A committed state of a game, as every connection watching it receives it.
pub struct Update {
    pub game: Arc<StoredGame>,
    /// The presence when it was committed.
    pub presence: Presence,
    /// The message for each kind of viewer (neither colour, black, white), made once.
    rendered: [OnceLock<Arc<str>>; 3],
}

impl Update {
    pub fn new(game: Arc<StoredGame>, presence: Presence) -> Update {
        Update {
            game,
            presence,
            rendered: Default::default(),
        }
    }

    /// The message for viewers playing `you` (None: a spectator, or a local game's owner),
    /// made by `render` for the first of them and shared by the rest.
    pub fn rendered(&self, you: Option<Stone>, render: impl FnOnce() -> String) -> Arc<str> {
        let slot = you.map_or(0, |c| usize::from(c.as_u8()));
        self.rendered[slot]
            .get_or_init(|| Arc::from(render()))
            .clone()
    }
}

/// What a watched game's channel carries.
#[derive(Clone)]
pub enum Event {
    /// The game changed (a move, a join, an offer, a flag fall, a resignation…) to this version;
    /// the state is [`Hub::latest`].
    State(i64),
    /// Who is connected changed.
    Presence(Presence),
    /// The game was deleted.
    Gone,
}

/// A watched game: its channel, who watches it here, and who sits at it.
struct Watched {
    sender: broadcast::Sender<Event>,
    /// Live connections by player id.
    viewers: HashMap<String, u32>,
    black: Option<String>,
    white: Option<String>,
    /// The version of the game the seats were read from.
    version: i64,
    presence: Presence,
    /// The game as last committed while watched.
    latest: Option<Arc<Update>>,
}

impl Watched {
    fn new(game: &StoredGame) -> Watched {
        let mut watched = Watched {
            sender: broadcast::channel(CHANNEL).0,
            viewers: HashMap::new(),
            black: None,
            white: None,
            version: i64::MIN,
            presence: Presence::default(),
            latest: None,
        };
        watched.seat(game);
        watched
    }

    /// Takes the seats of `game`, unless older ones than those known.
    fn seat(&mut self, game: &StoredGame) {
        if game.row.version < self.version {
            return;
        }
        self.version = game.row.version;
        let player =
            |seat: &Option<crate::store::games::Seat>| seat.as_ref().map(|s| s.player_id.clone());
        self.black = player(&game.seats.black);
        self.white = player(&game.seats.white);
    }

    /// Works out the presence again; the new one if it changed.
    fn refresh(&mut self) -> Option<Presence> {
        let connected =
            |seat: &Option<String>| seat.as_ref().is_some_and(|p| self.viewers.contains_key(p));
        let seated = |player: &str| {
            self.black.as_deref() == Some(player) || self.white.as_deref() == Some(player)
        };
        let presence = Presence {
            black: connected(&self.black),
            white: connected(&self.white),
            spectators: self
                .viewers
                .iter()
                .filter(|(player, _)| !seated(player))
                .map(|(_, &n)| n)
                .sum(),
        };
        (presence != self.presence).then(|| {
            self.presence = presence;
            presence
        })
    }
}

/// The hub of one server process.
pub struct Hub {
    // std Mutexes, not tokio's: nothing awaits while one is held (the commit hooks that take
    // `games` run in the writer task and must not wait).
    games: Mutex<HashMap<String, Watched>>,
    /// Live connections by token hash.
    tokens: Mutex<HashMap<[u8; 32], usize>>,
    per_token: usize,
    closing: watch::Sender<bool>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain counts behind, still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Hub {
    /// A hub allowing `per_token` live connections per token.
    pub fn new(per_token: usize) -> Hub {
        Hub {
            games: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            per_token,
            closing: watch::channel(false).0,
        }
    }

    /// The most live connections a token may hold.
    pub fn per_token(&self) -> usize {
        self.per_token
    }

    /// Game `id` as last committed while someone watched it.
    pub fn latest(&self, id: &str) -> Option<Arc<Update>> {
        lock(&self.games).get(id)?.latest.clone()
    }

    /// Who of game `id` is connected here now.
    pub fn presence(&self, id: &str) -> Presence {
        lock(&self.games)
            .get(id)
            .map(|w| w.presence)
            .unwrap_or_default()
    }

    /// A place for one more live connection of `token`; None when it holds as many as allowed.
    pub fn ticket(self: &Arc<Self>, token: [u8; 32]) -> Option<Ticket> {
        let mut tokens = lock(&self.tokens);
        let held = tokens.entry(token).or_default();
        if *held >= self.per_token {
            return None;
        }
        *held += 1;
        Some(Ticket {
            hub: self.clone(),
            token,
        })
    }

    /// Starts watching `game` for `viewer` (a player id): the receiver of its news from now on,
    /// and the presence with this connection counted. Everyone already watching hears of the
    /// presence if it changed.
    pub fn subscribe(self: &Arc<Self>, game: &StoredGame, viewer: &str) -> Subscription {
        let mut games = lock(&self.games);
        let watched = games
            .entry(game.row.id.clone())
            .or_insert_with(|| Watched::new(game));
        let receiver = watched.sender.subscribe();
        *watched.viewers.entry(viewer.to_string()).or_default() += 1;
        if let Some(presence) = watched.refresh() {
            let _ = watched.sender.send(Event::Presence(presence));
        }
        Subscription {
            hub: self.clone(),
            game_id: game.row.id.clone(),
            viewer: viewer.to_string(),
            receiver,
        }
    }

    /// Brings the seats known for a watched game up to `game` as just read (a seat may have
    /// been taken between a connection's first read and its subscription); everyone hears of
    /// the presence if it changed.
    pub fn seen(&self, game: &StoredGame) {
        let mut games = lock(&self.games);
        if let Some(watched) = games.get_mut(&game.row.id) {
            watched.seat(game);
            if let Some(presence) = watched.refresh() {
                let _ = watched.sender.send(Event::Presence(presence));
            }
        }
    }

    /// One connection of `viewer` to game `id` is gone.
    fn leave(&self, id: &str, viewer: &str) {
        let mut games = lock(&self.games);
        let Some(watched) = games.get_mut(id) else {
            return;
        };
        if let Some(n) = watched.viewers.get_mut(viewer) {
            *n -= 1;
            if *n == 0 {
                watched.viewers.remove(viewer);
            }
        }
        if watched.viewers.is_empty() {
            games.remove(id);
        } else if let Some(presence) = watched.refresh() {
            let _ = watched.sender.send(Event::Presence(presence));
        }
    }

    /// Fires once the server starts shutting down: every connection then closes.
    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Tells every connection to close (the server is going away).
    pub fn close_all(&self) {
        self.closing.send_replace(true);
    }

    /// Live connections open now (those that hold a ticket, closing ones included).
    pub fn connections(&self) -> usize {
        lock(&self.tokens).values().sum()
    }

    /// Games watched here, and the connections watching them.
    pub fn counts(&self) -> (usize, usize) {
        let games = lock(&self.games);
        let connections = games
            .values()
            .map(|w| w.viewers.values().map(|&n| n as usize).sum::<usize>())
            .sum();
        (games.len(), connections)
    }
}

impl Watch for Hub {
    fn changed(&self, game: &Arc<StoredGame>) {
        let mut games = lock(&self.games);
        let Some(watched) = games.get_mut(&game.row.id) else {
            return;
        };
        watched.seat(game);
        let presence_changed = watched.refresh();
        watched.latest = Some(Arc::new(Update::new(game.clone(), watched.presence)));
        // No receiver left is no error: the last one is leaving.
        let _ = watched.sender.send(Event::State(game.row.version));
        if let Some(presence) = presence_changed {
            let _ = watched.sender.send(Event::Presence(presence));
        }
    }

    fn deleted(&self, id: &str) {
        if let Some(watched) = lock(&self.games).get(id) {
            let _ = watched.sender.send(Event::Gone);
        }
    }
}

/// A place for one live connection of a token, given back on drop.
pub struct Ticket {
    hub: Arc<Hub>,
    token: [u8; 32],
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut tokens = lock(&self.hub.tokens);
        if let Some(held) = tokens.get_mut(&self.token) {
            *held -= 1;
            if *held == 0 {
                tokens.remove(&self.token);
            }
        }
    }
}

/// One connection watching one game: its receiver, and its place in the presence count, given
/// back on drop.
pub struct Subscription {
    hub: Arc<Hub>,
    game_id: String,
    viewer: String,
    pub receiver: broadcast::Receiver<Event>,
}

impl Subscription {
    pub fn viewer(&self) -> &str {
        &self.viewer
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.hub.leave(&self.game_id, &self.viewer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::games::{GameRow, GameStatus, Mode, Offers, Seat, Seats, StoredGame};
    use gomoku_rules::{Game, Rule, Status};

    fn online_game(black: &str, white: Option<&str>) -> Arc<StoredGame> {
        let seat = |p: &str| Seat {
            player_id: p.to_string(),
            name: p.to_string(),
        };
        Arc::new(StoredGame {
            row: GameRow {
                id: "g".into(),
                player_id: black.into(),
                mode: Mode::Online,
                rule: Rule::Freestyle,
                board_size: 9,
                ai: None,
                status: if white.is_some() {
                    GameStatus::Rules(Status::Playing)
                } else {
                    GameStatus::Waiting
                },
                end_reason: None,
                move_count: 0,
                version: 0,
                created_at: String::new(),
                updated_at: String::new(),
                finished_at: None,
                time_control: None,
                clock: None,
                offers: Offers::default(),
            },
            seats: Seats {
                black: Some(seat(black)),
                white: white.map(seat),
            },
            moves: vec![],
            game: Game::new(9, Rule::Freestyle).unwrap(),
        })
    }

    fn next(sub: &mut Subscription) -> Option<Event> {
        sub.receiver.try_recv().ok()
    }

    /// Presence counts each seat's connections and the spectators', is pushed when it changes,
    /// follows a spectator who takes a seat, and the watched game goes when its last viewer does.
    #[test]
    fn presence_follows_connections_and_seats() {
        let hub = Arc::new(Hub::new(8));
        let waiting = online_game("alice", None);
        let mut alice = hub.subscribe(&waiting, "alice");
        assert!(matches!(next(&mut alice), Some(Event::Presence(p)) if p.black && !p.white));
        let bob = hub.subscribe(&waiting, "bob");
        assert!(matches!(next(&mut alice), Some(Event::Presence(p)) if p.spectators == 1));

        hub.changed(&online_game("alice", Some("bob")));
        assert!(matches!(next(&mut alice), Some(Event::State(0))));
        assert!(hub.latest("g").is_some_and(|u| u.presence.white));
        assert!(matches!(
            next(&mut alice),
            Some(Event::Presence(Presence {
                black: true,
                white: true,
                spectators: 0
            }))
        ));
        let again = hub.subscribe(&waiting, "alice");
        assert!(
            next(&mut alice).is_none(),
            "a second connection of a seat changes nothing"
        );
        drop(again);
        drop(bob);
        assert!(matches!(next(&mut alice), Some(Event::Presence(p)) if !p.white));
        drop(alice);
        assert_eq!(hub.counts(), (0, 0));
        assert_eq!(hub.presence("g"), Presence::default());
    }

    /// A token holds at most its number of tickets; a dropped one is given back.
    #[test]
    fn tickets_per_token() {
        let hub = Arc::new(Hub::new(2));
        let (a, _b) = (hub.ticket([1; 32]).unwrap(), hub.ticket([1; 32]).unwrap());
        assert!(hub.ticket([1; 32]).is_none());
        assert!(hub.ticket([2; 32]).is_some(), "another token has its own");
        drop(a);
        assert!(hub.ticket([1; 32]).is_some());
    }

    /// A receiver that falls behind by more than the channel holds lags.
    #[test]
    fn a_slow_receiver_lags() {
        let hub = Arc::new(Hub::new(8));
        let game = online_game("alice", Some("bob"));
        let mut slow = hub.subscribe(&game, "carol");
        for _ in 0..CHANNEL + 1 {
            hub.changed(&game);
        }
        assert!(matches!(
            slow.receiver.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
