//! What one attacker move of an attempt comes to: the engine's verdict and the defence's reply.
//! CPU-bound (a proof search on each side), so the service runs [`judge`] in the AI queue, off
//! the async threads.
//!
//! The attacker's move is checked with [`check_attack`] within the attacker moves left (the
//! puzzle's N less the moves already made): a five solves; a move that keeps a forced win is
//! answered by [`defend`], the most stubborn reply; a move after which no forced win is left
//! fails the attempt, and the reply that refutes it is played to show why.
//!
//! The stored solution is the proof's principal line (the attacker's shortest win against the
//! most stubborn defence at every turn), so while the attempt follows it nothing is searched:
//! its reply is played. The stored first moves are proven to win within N, so after one of them
//! only the defence is searched.
//!
//! Every search has a node limit ([`NODE_LIMIT`]). When the check runs out of nodes the move is
//! given the benefit of the doubt: it counts as keeping the win, and the attempt goes on. That
//! is safe both ways: a player is never failed by a search that did not finish, and a move that
//! in truth loses the win cannot turn into a solve, because the attempt must still end in a five
//! within the moves left, against a defence that gets cheaper to search with every move (the
//! last moves' checks are nearly free). When the defence's search runs out, it plays the
//! nearest block (the defence searched one move deep).

use gomoku_engine::position::Position;
use gomoku_engine::puzzle::{check_attack, defend, Exhausted};
use gomoku_rules::{Game, Outcome, PlayError, Point};

use super::catalog::Entry;

/// Positions one search of a puzzle move may visit: most moves off the stored line need far
/// fewer; the widest VCT positions of the set would need more, and give the benefit of the doubt
/// instead (a second or so of searching, on a loaded 2-core machine, at most).
pub const NODE_LIMIT: u64 = 100_000;

/// What the attacker's move came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The move made five (or, renju white, a four black may not block).
    Solved,
    /// The move keeps a forced win: the defence's reply, and the attacker moves left after it.
    Goes { reply: Point, left: u32 },
    /// The move loses the win: the reply that refutes it, when the search found one.
    Failed { refutation: Option<Point> },
}

/// The position of an attempt: the puzzle's start with the attempt's `moves` played. The moves
/// come from the store, which only ever holds moves this module accepted.
pub fn position(entry: &Entry, moves: &[Point]) -> Result<Game, PlayError> {
    let mut game = entry.start.clone();
    for &m in moves {
        game.play(m)?;
    }
    Ok(game)
}

/// The attacker moves left after `moves` (both sides' moves of the attempt so far).
pub fn moves_left(entry: &Entry, moves: &[Point]) -> u32 {
    let made = moves.len().div_ceil(2) as u32;
    entry.puzzle.win_in.saturating_sub(made)
}

/// Whether `point` is a legal move in `game`: the rules' refusal if not (out of bounds,
/// occupied, forbidden). Cheap: the service asks it before queueing for a search.
pub fn check(game: &Game, point: Point) -> Result<(), PlayError> {
    game.check(point)
}

/// The verdict on the attacker playing `point` after the attempt's `moves` (the attacker to
/// move; `point` legal, as [`check`] says), with every search limited to `node_limit`.
pub fn judge(entry: &Entry, moves: &[Point], point: Point, node_limit: u64) -> Verdict {
    let Ok(before) = position(entry, moves) else {
        return Verdict::Failed { refutation: None };
    };
    let left = moves_left(entry, moves);
    if left == 0 {
        return Verdict::Failed { refutation: None };
    }
    let mut after = before.clone();
    match after.play(point) {
        Ok(Outcome::Win { winner, .. }) if *winner == entry.attacker => return Verdict::Solved,
        Ok(_) => {}
        Err(_) => return Verdict::Failed { refutation: None },
    }
    // The stored line is the proof's principal line: its attacker moves win, and its replies
    // are the most stubborn defence, so on it nothing needs searching.
    let on_line = moves.len() + 1 < entry.solution.len()
        && entry.solution[..moves.len()] == *moves
        && entry.solution[moves.len()] == point;
    if on_line {
        let reply = entry.solution[moves.len() + 1];
        return match after.play(reply) {
            Ok(_) => Verdict::Goes {
                reply,
                left: left - 1,
            },
            Err(_) => Verdict::Failed { refutation: None },
        };
    }
    // Every stored first move wins within N (proven when the set was made).
    let proven = moves.is_empty() && entry.first_moves.contains(&point);
    let keeps = proven || {
        let mut pos = Position::from_game(&before);
        let index = pos.index(point);
        match check_attack(&mut pos, entry.kind, index, left, node_limit) {
            Ok(Some(_)) => true,
            Ok(None) => false,
            Err(Exhausted) => true,
        }
    };
    let mut pos = Position::from_game(&after);
    if !keeps {
        let refutation = match defend(&mut pos, entry.kind, left.saturating_sub(1), node_limit) {
            Ok(Some(r)) => Some(pos.point(r.point)),
            _ => None,
        };
        return Verdict::Failed { refutation };
    }
    let reply = match defend(&mut pos, entry.kind, left - 1, node_limit) {
        Ok(reply) => reply.map(|r| pos.point(r.point)),
        Err(Exhausted) => defend(&mut pos, entry.kind, 1, node_limit)
            .ok()
            .flatten()
            .map(|r| pos.point(r.point)),
    };
    // No legal reply cannot happen on a board with a few dozen stones; were it to, the attempt
    // could not go on, and it ends.
    let Some(reply) = reply else {
        return Verdict::Failed { refutation: None };
    };
    match after.play(reply) {
        // The defence's five (possible only after a move given the benefit of the doubt) ends
        // the attempt.
        Ok(Outcome::Win { winner, .. }) if *winner != entry.attacker => Verdict::Failed {
            refutation: Some(reply),
        },
        Ok(_) => Verdict::Goes {
            reply,
            left: left - 1,
        },
        Err(_) => Verdict::Failed { refutation: None },
    }
}
