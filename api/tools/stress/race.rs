//! `race`: rounds of three races of 32 concurrent requests on one game — different cells for one
//! ply (one lands, 31 PLY_MISMATCH), one cell without a ply (one lands, 31 CELL_OCCUPIED), and
//! 32 copies of one move with its ply (all 200, applied once) — each followed by a check of the
//! served game and of what is stored.

use std::sync::Arc;

use clap::Args;
use gomoku_testkit::state::{check_state, id_of, open_cells};
use gomoku_testkit::stored::Stored;
use gomoku_testkit::{race, Reply, ServerBinary, Stats};
use rand::rngs::StdRng;
use rand::Rng;
use serde_json::json;

#[derive(Args, Clone)]
pub struct RaceArgs {
    /// Rounds; each makes three races of 32 requests.
    #[arg(long, default_value_t = 50)]
    rounds: usize,
}

/// How many of `answers` are 200, and how many are the clean refusal `status` `code`.
fn tally(answers: &[Reply], status: u16, code: &str) -> (usize, usize) {
    let ok = answers.iter().filter(|a| a.status == 200).count();
    let clean = answers.iter().filter(|a| a.is(status, code)).count();
    (ok, clean)
}

pub async fn run(bin: &ServerBinary, args: &RaceArgs, rng: &mut StdRng) -> (Arc<Stats>, String) {
    let (server, api) = crate::start(bin, &[]);
    let stats = api.stats().clone();
    let mut stored = Stored::open(server.database()).await;
    let player = api.new_player().await;
    let mut races = 0;
    for round in 0..args.rounds {
        let mut state = player
            .create(json!({"mode": "local", "boardSize": 19}))
            .await;
        let id = id_of(&state);
        // A few setup moves on the top row, so the races happen at varied plies.
        for ply in 0..rng.gen_range(0..6) {
            state = player.try_move_at(&id, 0, 2 * ply, ply).await.body;
        }
        let ply = state["moveCount"].as_i64().unwrap();
        let mut cells = open_cells(&state);
        cells.retain(|&(r, _)| r > 1);
        let mut picks = Vec::new();
        while picks.len() < 32 {
            let cell = cells.swap_remove(rng.gen_range(0..cells.len()));
            picks.push(cell);
        }
        // Different cells, one ply: one 200, 31 PLY_MISMATCH.
        let bodies = picks
            .iter()
            .map(|&(r, c)| json!({"row": r, "col": c, "ply": ply}))
            .collect();
        let (ok, clean) = tally(&race(&player, &id, bodies).await, 409, "PLY_MISMATCH");
        if ok != 1 || clean != 31 {
            stats.violation(format!(
                "round {round}: different cells at ply {ply}: {ok} landed, {clean} clean 409s"
            ));
        }
        // One cell, no ply: one 200, 31 CELL_OCCUPIED.
        let (r, c) = cells.swap_remove(rng.gen_range(0..cells.len()));
        let bodies = vec![json!({"row": r, "col": c}); 32];
        let (ok, clean) = tally(&race(&player, &id, bodies).await, 409, "CELL_OCCUPIED");
        if ok != 1 || clean != 31 {
            stats.violation(format!(
                "round {round}: one cell without ply: {ok} landed, {clean} clean 409s"
            ));
        }
        // One cell, one ply: retries, all 200, applied once.
        let (r, c) = cells.swap_remove(rng.gen_range(0..cells.len()));
        let bodies = vec![json!({"row": r, "col": c, "ply": ply + 2}); 32];
        let (ok, _) = tally(&race(&player, &id, bodies).await, 200, "");
        if ok != 32 {
            stats.violation(format!(
                "round {round}: retries of one move: {ok} of 32 answered 200"
            ));
        }
        races += 3;
        let state = player.get(&format!("/api/v1/games/{id}")).await.body;
        if state["moveCount"].as_i64() != Some(ply + 3) {
            stats.violation(format!(
                "round {round}: {} moves stored after three races from ply {ply}",
                state["moveCount"]
            ));
        }
        for check in [check_state(&state), stored.check_game(&state).await] {
            if let Err(e) = check {
                stats.violation(format!("round {round}: {e}"));
            }
        }
    }
    (
        stats,
        format!("race: {races} races of 32 concurrent requests"),
    )
}
