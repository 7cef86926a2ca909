//! The live hub: one `tokio::sync::broadcast` channel per watched game, fed by the store's commit
//! hooks (so in commit order), and the presence of each game's players — how many live
//! connections each seat has, and how many spectators.
//!
//! A channel exists only while someone watches its game here: a commit to an unwatched game costs
//! a map lookup. Each socket's task holds a [`Subscription`] (its receiver, and its place in the
//! presence count, given back on drop). A change goes out as a small [`Event`] naming the new
//! version; the game itself is kept once per watched game, as its latest [`Update`], which each
//! connection takes from [`Hub::latest`]: the channel's slots never hold old states (they would
//! add up to many times a game's size per watched game). Every message is a whole state, so a
//! connection that wakes after two quick commits sends the newer one and is right again; and
//! versions only go up, so a state heard twice, or late, changes nothing. A state is rendered for
//! each kind of viewer (black, white, neither) by the first connection that needs it
//! ([`Update::rendered`]), never one viewer's state for another. Presence likewise: an event only
//! says that it changed, and the connection reads the presence of now, which the latest state
//! carries too, so a connection's presence never steps back to one older than it told (events
//! queued before its first message once replayed old presences after it). A receiver that falls
//! more than [`CHANNEL`] events behind lags: its connection is dropped, and the client reconnects
//! to a fresh state, rather than holding up the others.
//!
//! Also the limit of live connections per token ([`Ticket`]), and the signal that closes every
//! socket when the server shuts down.
//!
//! What only this process can know: the sockets open here, and so the per-token limit, which
//! counts per instance. With several instances on PostgreSQL the store brings the other
//! instances' news: their commits ([`Watch::heard`]: the game is read and pushed, if watched
//! here), and their sockets' presence ([`Watch::presence_heard`]). This hub publishes its own view
//! of each watched game (the `local` presence) through the store, keeps every other instance's
//! view of every game (`remote`), and a game's presence is the union of all: `players.*.online`
//! is right whichever instance holds a player's socket. On SQLite nothing is shared, and the local
//! view is the whole truth.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use gomoku_rules::Stone;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::store::games::{self, StoredGame};
pub use crate::store::Presence;
use crate::store::{presence, Db, GameNews, PresenceNews, Watch};

/// Events a game's channel keeps for a receiver that has not read them yet; one that falls
/// further behind is dropped.
pub const CHANNEL: usize = 16;

/// How long a new connection waits for its presence to be published before it goes on anyway.
const PUBLISH_WAIT: Duration = Duration::from_secs(2);

/// A committed state of a game, as every connection watching it receives it.
pub struct Update {
    pub game: Arc<StoredGame>,
    /// Who is connected: as at its commit, then as each later change of it.
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
    /// The game as read afresh after news may have been missed: every connection sends it, even
    /// at the version it last sent.
    Fresh,
    /// Who is connected changed: the presence is [`Hub::presence`], read when the event is (an
    /// event read late must not bring back a presence older than one already told).
    Presence,
    /// The game was deleted.
    Gone,
}

/// A watched game: its channel, who watches it here, and who sits at it.
struct Watched {
    sender: broadcast::Sender<Event>,
    /// Live connections here, by player id.
    viewers: HashMap<String, u32>,
    black: Option<String>,
    white: Option<String>,
    /// The version of the game the seats were read from.
    version: i64,
    /// Who is connected here.
    local: Presence,
    /// Who is connected anywhere, as last told to the connections.
    presence: Presence,
    /// The game as last committed while watched, with `presence` (kept so: a state sent from
    /// now on must not say less than a connection may already have told).
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
            local: Presence::default(),
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

    /// The newest version known here.
    fn newest(&self) -> i64 {
        self.latest
            .as_ref()
            .map_or(self.version, |u| u.game.row.version.max(self.version))
    }

    /// Works out who is connected here again; whether that changed.
    fn count_local(&mut self) -> bool {
        let connected =
            |seat: &Option<String>| seat.as_ref().is_some_and(|p| self.viewers.contains_key(p));
        let seated = |player: &str| {
            self.black.as_deref() == Some(player) || self.white.as_deref() == Some(player)
        };
        let local = Presence {
            black: connected(&self.black),
            white: connected(&self.white),
            spectators: self
                .viewers
                .iter()
                .filter(|(player, _)| !seated(player))
                .map(|(_, &n)| n)
                .sum(),
        };
        let changed = local != self.local;
        self.local = local;
        changed
    }

    /// Sets who is connected anywhere, `elsewhere` being the other instances' part; tells the
    /// connections if it changed.
    fn tell(&mut self, elsewhere: Presence) {
        let presence = self.local.with(elsewhere);
        if presence != self.presence {
            tracing::debug!(?presence, ?elsewhere, "presence changed");
            self.presence = presence;
            if let Some(latest) = self.latest.as_mut().filter(|u| u.presence != presence) {
                *latest = Arc::new(Update::new(latest.game.clone(), presence));
            }
            // No receiver left is no error: the last one is leaving.
            let _ = self.sender.send(Event::Presence);
        }
    }
}

/// Another instance's view of a game.
#[derive(Debug, Clone, Copy)]
struct Remote {
    seq: i64,
    presence: Presence,
    /// When this process learned it.
    heard_at: Instant,
}

/// What the hub's lock guards.
#[derive(Default)]
struct Games {
    watched: HashMap<String, Watched>,
    /// Every other instance's view of every game it holds connections to: game → instance →
    /// view (PostgreSQL only).
    remote: HashMap<String, HashMap<String, Remote>>,
    /// When the read of `remote` taken last began: one that began earlier is older news.
    read_at: Option<Instant>,
}

impl Games {
    /// The other instances' part of a game's presence.
    fn elsewhere(&self, id: &str) -> Presence {
        self.remote.get(id).map_or(Presence::default(), |views| {
            views
                .values()
                .fold(Presence::default(), |all, r| all.with(r.presence))
        })
    }

    /// Recounts who is connected to watched game `id` here and anywhere, telling its
    /// connections; whether this instance's own view changed (and is to be published).
    fn recount(&mut self, id: &str) -> bool {
        let elsewhere = self.elsewhere(id);
        let Some(watched) = self.watched.get_mut(id) else {
            return false;
        };
        let local_changed = watched.count_local();
        watched.tell(elsewhere);
        local_changed
    }

    /// Takes another instance's newer view of a game; whether it was newer.
    fn hear(&mut self, news: &PresenceNews, heard_at: Instant) -> bool {
        let views = self.remote.entry(news.game_id.clone()).or_default();
        if views
            .get(&news.instance)
            .is_some_and(|known| known.seq >= news.seq)
        {
            return false;
        }
        views.insert(
            news.instance.clone(),
            Remote {
                seq: news.seq,
                presence: news.presence,
                heard_at,
            },
        );
        true
    }
}

/// A request to publish this instance's view of a game, and whom to tell when it is done.
type Publish = (String, Option<oneshot::Sender<()>>);

/// The hub of one server process.
pub struct Hub {
    /// Itself, for the tasks it starts.
    me: Weak<Hub>,
    db: Db,
    // std Mutexes, not tokio's: nothing awaits while one is held (the commit hooks that take
    // `games` run in the writer task and must not wait).
    games: Mutex<Games>,
    /// Live connections by token hash.
    tokens: Mutex<HashMap<[u8; 32], usize>>,
    per_token: usize,
    closing: watch::Sender<bool>,
    /// Where this instance's views go to be published; None when nothing is shared (SQLite).
    publish: Option<mpsc::UnboundedSender<Publish>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain counts behind, still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Hub {
    /// A hub allowing `per_token` live connections per token, sharing presence through `db` when
    /// other instances may use it too.
    pub fn new(per_token: usize, db: Db) -> Arc<Hub> {
        let publish = presence::is_shared(&db).then(mpsc::unbounded_channel);
        let (sender, receiver) = match publish {
            Some((sender, receiver)) => (Some(sender), Some(receiver)),
            None => (None, None),
        };
        let hub = Arc::new_cyclic(|me| Hub {
            me: me.clone(),
            db,
            games: Mutex::new(Games::default()),
            tokens: Mutex::new(HashMap::new()),
            per_token,
            closing: watch::channel(false).0,
            publish: sender,
        });
        if let Some(receiver) = receiver {
            tokio::spawn(publisher(hub.me.clone(), hub.db.clone(), receiver));
        }
        hub
    }

    /// The most live connections a token may hold.
    pub fn per_token(&self) -> usize {
        self.per_token
    }

    /// Game `id` as last committed while someone watched it.
    pub fn latest(&self, id: &str) -> Option<Arc<Update>> {
        lock(&self.games).watched.get(id)?.latest.clone()
    }

    /// Who of game `id` is connected now, here or on any other instance.
    pub fn presence(&self, id: &str) -> Presence {
        let games = lock(&self.games);
        match games.watched.get(id) {
            Some(watched) => watched.presence,
            None => games.elsewhere(id),
        }
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

    /// Queues this instance's view of game `id` for publishing (when shared).
    fn publish(&self, id: &str, done: Option<oneshot::Sender<()>>) {
        if let Some(publish) = &self.publish {
            let _ = publish.send((id.to_string(), done));
        }
    }

    /// Starts watching `game` for `viewer` (a player id): the receiver of its news from now on,
    /// and the presence with this connection counted. Everyone already watching hears of the
    /// presence if it changed.
    pub fn subscribe(self: &Arc<Self>, game: &StoredGame, viewer: &str) -> Subscription {
        let id = &game.row.id;
        let mut games = lock(&self.games);
        let watched = games
            .watched
            .entry(id.clone())
            .or_insert_with(|| Watched::new(game));
        let receiver = watched.sender.subscribe();
        *watched.viewers.entry(viewer.to_string()).or_default() += 1;
        if games.recount(id) {
            self.publish(id, None);
        }
        Subscription {
            hub: self.clone(),
            game_id: id.clone(),
            viewer: viewer.to_string(),
            receiver,
        }
    }

    /// Waits (a little at most) until this instance's view of game `id` is published, so that
    /// once a connection has its first state, a read through any instance sees it connected.
    /// At once when nothing is shared.
    pub async fn shared(&self, id: &str) {
        if self.publish.is_none() {
            return;
        }
        let (done, published) = oneshot::channel();
        self.publish(id, Some(done));
        let _ = tokio::time::timeout(PUBLISH_WAIT, published).await;
    }

    /// Takes `game` as a connection just read it, like a commit: if it is newer than the state
    /// known here, every connection gets it (a seat may have been taken, or a move made, between
    /// a connection's first read and this one), and the presence is counted again. Not merely
    /// noted: news of that version arriving later would then count as known, and the other
    /// connections would never get it.
    pub fn seen(&self, game: &Arc<StoredGame>) {
        self.take(game);
    }

    /// One connection of `viewer` to game `id` is gone.
    fn leave(&self, id: &str, viewer: &str) {
        let mut games = lock(&self.games);
        let Some(watched) = games.watched.get_mut(id) else {
            return;
        };
        if let Some(n) = watched.viewers.get_mut(viewer) {
            *n -= 1;
            if *n == 0 {
                watched.viewers.remove(viewer);
            }
        }
        if watched.viewers.is_empty() {
            let had_someone = !watched.local.is_empty();
            games.watched.remove(id);
            if had_someone {
                self.publish(id, None);
            }
        } else if games.recount(id) {
            self.publish(id, None);
        }
    }

    /// This instance's view of game `id` (nobody, if not watched here).
    fn local(&self, id: &str) -> Presence {
        lock(&self.games)
            .watched
            .get(id)
            .map_or(Presence::default(), |w| w.local)
    }

    /// Replaces what is known of the other instances' views by `views`, read from the database
    /// starting at `read_at`; a view heard since then stays if newer. Watched games' connections
    /// hear of any change.
    fn reread(&self, views: Vec<PresenceNews>, read_at: Instant) {
        let mut games = lock(&self.games);
        // Two reads may overlap (a heartbeat's, a reconnection's): the older one is answered
        // later at times, and must not undo the newer.
        if games.read_at.is_some_and(|newer| newer > read_at) {
            return;
        }
        games.read_at = Some(read_at);
        let old = std::mem::take(&mut games.remote);
        for news in &views {
            games.hear(news, read_at);
        }
        for (game_id, instances) in old {
            for (instance, view) in instances {
                if view.heard_at > read_at {
                    let news = PresenceNews {
                        instance,
                        game_id: game_id.clone(),
                        presence: view.presence,
                        seq: view.seq,
                    };
                    games.hear(&news, view.heard_at);
                }
            }
        }
        let watched: Vec<String> = games.watched.keys().cloned().collect();
        for id in watched {
            games.recount(&id);
        }
    }

    /// Reads the other instances' views again (in a task of its own).
    fn spawn_reread(&self) {
        let Some(hub) = self.me.upgrade() else {
            return;
        };
        tokio::spawn(async move {
            let read = || async {
                let read_at = Instant::now();
                presence::elsewhere(&hub.db)
                    .await
                    .map(|views| (views, read_at))
            };
            if let Some((views, read_at)) =
                super::patiently("read the other instances' presence", read).await
            {
                hub.reread(views, read_at);
            }
        });
    }

    /// Takes game `id` at its newest version, read afresh, to every connection watching it;
    /// `fresh`: even to those that sent that version already. A read that fails is tried again
    /// (the database may be coming back).
    async fn reload(&self, id: &str, fresh: bool) {
        let read = || games::load(&self.db, id);
        match super::patiently("read a changed game", read).await {
            Some(Some(game)) => {
                self.take(&game);
                if fresh {
                    if let Some(watched) = lock(&self.games).watched.get(id) {
                        let _ = watched.sender.send(Event::Fresh);
                    }
                }
                tracing::debug!(game = %id, version = game.row.version, fresh, "game read again");
            }
            Some(None) => self.deleted(id),
            None => {}
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
            .watched
            .values()
            .map(|w| w.viewers.values().map(|&n| n as usize).sum::<usize>())
            .sum();
        (games.watched.len(), connections)
    }

    /// Takes `game` as the newest state of its watched game, unless an as new or newer one is
    /// known; its connections hear of it.
    fn take(&self, game: &Arc<StoredGame>) {
        let id = &game.row.id;
        let mut games = lock(&self.games);
        let elsewhere = games.elsewhere(id);
        let Some(watched) = games.watched.get_mut(id) else {
            return;
        };
        if watched
            .latest
            .as_ref()
            .is_some_and(|u| u.game.row.version >= game.row.version)
        {
            return;
        }
        watched.seat(game);
        let local_changed = watched.count_local();
        let presence = watched.local.with(elsewhere);
        watched.latest = Some(Arc::new(Update::new(game.clone(), presence)));
        // No receiver left is no error: the last one is leaving.
        let _ = watched.sender.send(Event::State(game.row.version));
        watched.tell(elsewhere);
        if local_changed {
            self.publish(id, None);
        }
    }
}

/// Publishes this instance's views, one after another (so the last one written is the newest),
/// each as it is when its turn comes.
async fn publisher(hub: Weak<Hub>, db: Db, mut queue: mpsc::UnboundedReceiver<Publish>) {
    while let Some((id, done)) = queue.recv().await {
        let Some(local) = hub.upgrade().map(|hub| hub.local(&id)) else {
            return;
        };
        match presence::publish(&db, &id, local).await {
            Ok(()) => tracing::debug!(game = %id, ?local, "presence published"),
            Err(e) => {
                tracing::warn!(game = %id, error = %e, "could not publish this instance's presence")
            }
        }
        if let Some(done) = done {
            let _ = done.send(());
        }
    }
}

impl Watch for Hub {
    fn changed(&self, game: &Arc<StoredGame>) {
        self.take(game);
    }

    fn deleted(&self, id: &str) {
        if let Some(watched) = lock(&self.games).watched.get(id) {
            let _ = watched.sender.send(Event::Gone);
        }
    }

    fn heard(&self, news: &GameNews) {
        let newest = lock(&self.games).watched.get(&news.id).map(Watched::newest);
        tracing::debug!(?news, ?newest, "game news heard");
        let newer = newest.is_some_and(|newest| newest < news.version);
        if !newer {
            return;
        }
        if let Some(hub) = self.me.upgrade() {
            let id = news.id.clone();
            tokio::spawn(async move { hub.reload(&id, false).await });
        }
    }

    fn presence_heard(&self, news: &PresenceNews) {
        tracing::debug!(?news, "presence heard");
        let mut games = lock(&self.games);
        if games.hear(news, Instant::now()) {
            games.recount(&news.game_id);
        }
    }

    fn missed(&self) {
        self.spawn_reread();
        let Some(hub) = self.me.upgrade() else {
            return;
        };
        let watched: Vec<String> = lock(&self.games).watched.keys().cloned().collect();
        tokio::spawn(async move {
            for id in watched {
                hub.reload(&id, true).await;
            }
        });
    }

    fn recheck_presence(&self) {
        self.spawn_reread();
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
                rematch_game_id: None,
                opening: None,
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

    /// The presence a connection would send for its next event, if that is a presence event.
    fn told(hub: &Hub, sub: &mut Subscription) -> Option<Presence> {
        matches!(next(sub), Some(Event::Presence)).then(|| hub.presence("g"))
    }

    /// A hub on a SQLite database of its own (nothing shared).
    async fn hub(per_token: usize) -> (Arc<Hub>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::store::tests::db_in(&dir).await;
        (Hub::new(per_token, db), dir)
    }

    /// Presence counts each seat's connections and the spectators', is pushed when it changes,
    /// follows a spectator who takes a seat, and the watched game goes when its last viewer does.
    #[tokio::test]
    async fn presence_follows_connections_and_seats() {
        let (hub, _dir) = hub(8).await;
        let waiting = online_game("alice", None);
        let mut alice = hub.subscribe(&waiting, "alice");
        assert!(told(&hub, &mut alice).is_some_and(|p| p.black && !p.white));
        let bob = hub.subscribe(&waiting, "bob");
        assert!(told(&hub, &mut alice).is_some_and(|p| p.spectators == 1));

        hub.changed(&online_game("alice", Some("bob")));
        assert!(matches!(next(&mut alice), Some(Event::State(0))));
        assert!(hub.latest("g").is_some_and(|u| u.presence.white));
        assert_eq!(
            told(&hub, &mut alice),
            Some(Presence {
                black: true,
                white: true,
                spectators: 0
            })
        );
        let again = hub.subscribe(&waiting, "alice");
        assert!(
            next(&mut alice).is_none(),
            "a second connection of a seat changes nothing"
        );
        drop(again);
        drop(bob);
        assert!(told(&hub, &mut alice).is_some_and(|p| !p.white));
        assert!(
            hub.latest("g").is_some_and(|u| !u.presence.white),
            "the latest state says who is connected now, not at its commit"
        );
        drop(alice);
        assert_eq!(hub.counts(), (0, 0));
        assert_eq!(hub.presence("g"), Presence::default());
    }

    fn view(instance: &str, black: bool, spectators: u32, seq: i64) -> PresenceNews {
        PresenceNews {
            instance: instance.into(),
            game_id: "g".into(),
            presence: Presence {
                black,
                white: false,
                spectators,
            },
            seq,
        }
    }

    /// Other instances' views add to this one's: a newer view replaces an older one (never the
    /// other way round), a re-read of the database keeps what was heard after it began and drops
    /// what it no longer holds (an instance gone), a re-read older than the last one taken
    /// changes nothing, and an unwatched game's presence is theirs.
    #[tokio::test]
    async fn presence_elsewhere_adds_up() {
        let (hub, _dir) = hub(8).await;
        let game = online_game("alice", Some("bob"));
        let mut bob = hub.subscribe(&game, "bob");
        assert!(told(&hub, &mut bob).is_some_and(|p| p.white && !p.black));

        hub.presence_heard(&view("i1", true, 1, 2));
        assert!(told(&hub, &mut bob).is_some_and(|p| p.black && p.white && p.spectators == 1));
        hub.presence_heard(&view("i1", false, 0, 1));
        assert!(next(&mut bob).is_none(), "an older view changes nothing");
        assert_eq!(hub.presence("g").spectators, 1);

        let read_at = Instant::now();
        hub.presence_heard(&view("i2", false, 2, 1));
        assert_eq!(hub.presence("g").spectators, 3);
        // Read before i2's view was heard, and after i1 was gone.
        hub.reread(vec![], read_at);
        let presence = hub.presence("g");
        assert!(!presence.black && presence.white && presence.spectators == 2);
        // A read that began before the one taken, answered after it: older news, ignored.
        hub.reread(
            vec![view("i1", true, 1, 2)],
            read_at - Duration::from_millis(1),
        );
        assert_eq!(hub.presence("g"), presence);

        drop(bob);
        assert_eq!(hub.presence("g").spectators, 2, "no longer watched here");
    }

    /// A connection's own read of a newer version than the hub knows goes to every connection,
    /// like a commit (news of that version arriving later then rightly counts as known).
    #[tokio::test]
    async fn a_newer_read_reaches_every_connection() {
        let (hub, _dir) = hub(8).await;
        let game = online_game("alice", Some("bob"));
        let mut carol = hub.subscribe(&game, "carol");
        while next(&mut carol).is_some() {}
        let mut newer = StoredGame::clone(&game);
        newer.row.version = 1;
        hub.seen(&Arc::new(newer));
        assert!(matches!(next(&mut carol), Some(Event::State(1))));
        assert_eq!(hub.latest("g").map(|u| u.game.row.version), Some(1));
    }

    /// A token holds at most its number of tickets; a dropped one is given back.
    #[tokio::test]
    async fn tickets_per_token() {
        let (hub, _dir) = hub(2).await;
        let (a, _b) = (hub.ticket([1; 32]).unwrap(), hub.ticket([1; 32]).unwrap());
        assert!(hub.ticket([1; 32]).is_none());
        assert!(hub.ticket([2; 32]).is_some(), "another token has its own");
        drop(a);
        assert!(hub.ticket([1; 32]).is_some());
    }

    /// A receiver that falls behind by more than the channel holds lags.
    #[tokio::test]
    async fn a_slow_receiver_lags() {
        let (hub, _dir) = hub(8).await;
        let game = online_game("alice", Some("bob"));
        let mut slow = hub.subscribe(&game, "carol");
        for version in 1..=CHANNEL as i64 + 1 {
            let mut next = StoredGame::clone(&game);
            next.row.version = version;
            hub.changed(&Arc::new(next));
        }
        assert!(matches!(
            slow.receiver.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
