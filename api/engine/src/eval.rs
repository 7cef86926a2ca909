//! Static evaluation from incrementally kept sums.
//!
//! Every empty point carries, per colour, the shapes a stone there would make on its four lines
//! and the threat they make together (`position.rs`). The evaluation is a weighted count of
//! those over the board, with one set of weights for the side to move and another for the side
//! waiting (`params::EVAL_SHAPE`, `EVAL_CLASS`), fitted to game results by logistic
//! regression (`examples/fit-eval.rs`). The split by role is the tempo, learned rather than set
//! by hand (an earlier hand-set tempo, ×1.25 on the side to move's potential, made odd and even
//! depths disagree); the fitted weights are what made the master level competitive with
//! tournament engines (see README).

use crate::params::{EVAL_TEMPO, WIN_THRESHOLD};
use crate::position::Position;

/// The position's worth for the side to move.
pub fn evaluate(pos: &Position) -> i32 {
    let me = pos.to_move();
    let v = pos.eval_total(me, 0) + pos.eval_total(1 - me, 1) + i64::from(EVAL_TEMPO);
    let cap = (WIN_THRESHOLD / 2) as i64;
    v.clamp(-cap, cap) as i32
}
