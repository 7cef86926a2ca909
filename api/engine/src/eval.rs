//! Static evaluation from the incrementally kept point scores.
//!
//! Every empty point carries, per colour, the worth of the shapes a stone there would make
//! (`position.rs`); the sum over the board measures each side's potential. The side to move gets
//! a tempo weight because it realises its potential first.

use crate::params::{TEMPO_DEN, TEMPO_NUM, WIN_THRESHOLD};
use crate::position::Position;

/// The position's worth for the side to move.
pub fn evaluate(pos: &Position) -> i32 {
    let me = pos.to_move();
    let v = pos.total(me) * TEMPO_NUM / TEMPO_DEN - pos.total(1 - me);
    let cap = (WIN_THRESHOLD / 2) as i64;
    v.clamp(-cap, cap) as i32
}
