//! Online games set up between real players: one creates the game in a seat, another joins it.

use serde_json::{json, Value};

use crate::client::Player;
use crate::state::id_of;

/// An online game between `black` (who created it) and `white` (who joined), with `settings`
/// added to the creation (`rule`, `boardSize`, `timeControl`…); its id and the state after the
/// join.
pub async fn start(black: &Player, white: &Player, settings: Value) -> (String, Value) {
    let mut body = settings;
    body["seat"] = json!("black");
    let created = black.create_online(body).await;
    assert_eq!(created["status"], "waiting", "a new online game waits");
    let id = id_of(&created);
    let joined = white.join(&id).await.ok(200, "join");
    assert_eq!(joined["status"], "playing", "the game starts once joined");
    (id, joined)
}

/// Plays `moves` in order, each by the player whose turn it is (black first), with its `ply`;
/// the last state.
pub async fn play_alternately(
    black: &Player,
    white: &Player,
    id: &str,
    first_ply: usize,
    moves: &[(i64, i64)],
) -> Value {
    let mut state = Value::Null;
    for (i, &(row, col)) in moves.iter().enumerate() {
        let ply = first_ply + i;
        let mover = if ply.is_multiple_of(2) { black } else { white };
        state = mover.play_at(id, row, col, ply as i64).await;
    }
    state
}
