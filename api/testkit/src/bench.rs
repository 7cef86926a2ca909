//! The move-playing clients of the HTTP benches (`http_moves`, `backends`): each a player of its
//! own playing moves in its own local-mode game, every move timed from request to parsed
//! response. A client may send its requests to several instances in turn, as a load balancer
//! without sticky sessions would.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::client::Player;
use crate::lines::brick_fill;

/// The board the clients play on.
pub const BOARD: i64 = 15;

/// One HTTP client: a player (as seen through each instance), its current game and how far into
/// its moves it is. Every game fills the 15×15 board in the order of [`brick_fill`], so neither
/// side makes five; a game may still end early in a draw (no five possible), and the client then
/// starts another.
pub struct MoveClient {
    /// The same player through each instance; request `k` goes to `through[k % len]`.
    through: Vec<Player>,
    sent: usize,
    game: Option<String>,
    next: usize,
}

impl MoveClient {
    /// A client playing as `player`, sending its requests to each of `instances` in turn (the
    /// player's own server when empty).
    pub fn new(player: Player, instances: &[&crate::Server]) -> MoveClient {
        let through = if instances.is_empty() {
            vec![player]
        } else {
            instances.iter().map(|s| player.on(s)).collect()
        };
        MoveClient {
            through,
            sent: 0,
            game: None,
            next: 0,
        }
    }

    /// Where the next request goes.
    fn player(&mut self) -> &Player {
        let player = &self.through[self.sent % self.through.len()];
        self.sent += 1;
        player
    }

    /// Plays `count` moves; each move's latency.
    async fn play(
        mut self,
        count: usize,
        moves: Arc<Vec<(i64, i64)>>,
    ) -> (MoveClient, Vec<Duration>) {
        let mut latencies = Vec::with_capacity(count);
        while latencies.len() < count {
            let game = match &self.game {
                Some(game) if self.next < moves.len() => game.clone(),
                _ => {
                    let state = self.player().create(json!({"mode": "local"})).await;
                    self.next = 0;
                    let id = state["id"].as_str().expect("game id").to_string();
                    self.game = Some(id.clone());
                    id
                }
            };
            let (row, col) = moves[self.next];
            self.next += 1;
            let started = Instant::now();
            let reply = self.player().try_move(&game, row, col).await;
            latencies.push(started.elapsed());
            let state = reply.ok(200, &format!("move ({row},{col})"));
            if state["status"] != "playing" {
                self.game = None;
            }
        }
        (self, latencies)
    }
}

/// The moves every client plays, in order.
pub fn bench_moves() -> Arc<Vec<(i64, i64)>> {
    Arc::new(brick_fill(BOARD))
}

/// All clients play `per_client` moves at once, each starting new games (so every round has the
/// same mix of early and late moves: a late move costs more, its state carrying the whole
/// history); the clients, the elapsed time and every latency.
pub async fn play_round(
    clients: Vec<MoveClient>,
    per_client: usize,
    moves: &Arc<Vec<(i64, i64)>>,
) -> (Vec<MoveClient>, Duration, Vec<Duration>) {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for mut client in clients {
        client.game = None;
        tasks.push(tokio::spawn(client.play(per_client, moves.clone())));
    }
    let mut clients = Vec::new();
    let mut latencies = Vec::new();
    for task in tasks {
        let (client, l) = task.await.expect("client");
        clients.push(client);
        latencies.extend(l);
    }
    (clients, started.elapsed(), latencies)
}

/// Moves/s, and p50, p99 and max in milliseconds, of a run's latencies (sorted here).
pub fn summary(latencies: &mut [Duration], elapsed: Duration) -> (f64, f64, f64, f64) {
    latencies.sort_unstable();
    let ms = |q| crate::percentile(latencies, q).as_secs_f64() * 1000.0;
    (
        latencies.len() as f64 / elapsed.as_secs_f64(),
        ms(0.50),
        ms(0.99),
        ms(1.0),
    )
}
