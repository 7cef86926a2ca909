//! Candidate moves and their order.
//!
//! Only empty points near stones are candidates (far points never matter tactically and rarely
//! strategically). When the opponent threatens, the list narrows to the moves that answer the
//! threat: against a four only its five point; against an open three the points that stop it and
//! our own fours. Each candidate carries an ordering score: its worth to us plus most of its worth
//! to the opponent (a point the opponent wants is a point worth taking away).

use crate::params::{DEFENCE_DEN, DEFENCE_NUM};
use crate::position::{Position, Threat};

/// What the side to move faces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Situation {
    /// We complete a five on this point.
    Five(usize),
    /// The opponent has a four that must be blocked here.
    Block(usize),
    /// The opponent has two five points, or its only one is forbidden to us: lost.
    Lost,
    /// A legal open four (or double four) here wins in three moves.
    OpenFour(usize),
    /// The opponent has an open three: only these moves answer it.
    Defend(Vec<(usize, i32)>),
    /// No threat: these are the candidates.
    Quiet(Vec<(usize, i32)>),
}

/// Ordering score of a point for the side to move.
pub fn order_score(pos: &Position, p: usize) -> i32 {
    let me = pos.to_move();
    pos.score(p, me) + pos.score(p, 1 - me) * DEFENCE_NUM / DEFENCE_DEN
}

/// Classifies the position and lists the moves worth searching. With `quiet_list` false a
/// quiet position comes back with an empty list (the search's horizon evaluates it instead of
/// expanding it, so building the list there would be wasted).
pub fn situation(pos: &Position, quiet_list: bool) -> Situation {
    let me = pos.to_move();
    let you = 1 - me;
    if let Some(&p) = pos.five_points(me).first() {
        return Situation::Five(p);
    }
    if pos.has_four(you) {
        let fives = pos.five_points(you);
        if fives.len() > 1 || !pos.is_legal(fives[0], me) {
            return Situation::Lost;
        }
        return Situation::Block(fives[0]);
    }
    for p in pos.points_with(me, Threat::OpenFour) {
        if pos.threat(p, me) == Threat::OpenFour && pos.is_legal(p, me) {
            return Situation::OpenFour(p);
        }
    }
    if pos.threatens_open_four(you) {
        let mut moves: Vec<(usize, i32)> = pos
            .points()
            .iter()
            .copied()
            .filter(|&p| {
                pos.is_empty(p)
                    && (pos.threat(p, me) >= Threat::Four || pos.threat(p, you) >= Threat::Four)
            })
            .filter(|&p| pos.is_legal(p, me))
            .map(|p| (p, order_score(pos, p)))
            .collect();
        sort(&mut moves);
        return Situation::Defend(moves);
    }
    Situation::Quiet(if quiet_list {
        quiet_moves(pos)
    } else {
        Vec::new()
    })
}

/// Every legal empty point near a stone, best first.
pub fn quiet_moves(pos: &Position) -> Vec<(usize, i32)> {
    let me = pos.to_move();
    let mut moves: Vec<(usize, i32)> = pos
        .points()
        .iter()
        .copied()
        .filter(|&p| pos.is_empty(p) && pos.is_near(p))
        .filter(|&p| pos.is_legal(p, me))
        .map(|p| (p, order_score(pos, p)))
        .collect();
    sort(&mut moves);
    moves
}

/// Best first; ties by point index so that the order is deterministic.
pub fn sort(moves: &mut [(usize, i32)]) {
    moves.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
}
