//! Post-game analysis, one move at a time, so that a caller can analyse a game move by move off
//! the request path, report progress and keep each result as it comes.
//!
//! For a move it answers: how good the position is after it (black's win probability), what the
//! engine would have played instead and how good that is, and a mark for the move. Both
//! positions (after the move played and after the engine's move) are scored the same way — the
//! opponent to move, searched by the master level — so the two probabilities are comparable.
//! The mark comes from the drop in the mover's win probability between the two, with two
//! tactical marks on top: a forced win given away (`WinningThreatMissed`: the mover had a five
//! or a VCF and the move played keeps no forced win), and the only move that does not lose
//! (`OnlyMove`). Every threshold is in `params.rs`.

use crate::movegen::{self, Situation};
use crate::params::{
    ANALYSIS_BLUNDER, ANALYSIS_INACCURACY, ANALYSIS_MISTAKE, ANALYSIS_ONLY_MOVE_VCF_NODES,
    ANALYSIS_ONLY_MOVE_VCT_DEPTH, ANALYSIS_ONLY_MOVE_VCT_NODES, ANALYSIS_SEARCHES, VCF_MAX_DEPTH,
    VCF_ROOT_NODES, WIN, WIN_PROBABILITY_SCALE, WIN_THRESHOLD,
};
use crate::position::{Position, Threat, BLACK};
use crate::threat::{opponent_threat, Kind, Solver};
use crate::{decide, Level, SearchOptions};
use gomoku_rules::{Game, PlayError, Point};
use std::str::FromStr;
use std::time::Instant;

/// What a move is marked as in a game's review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// The mover's win probability dropped by at least `ANALYSIS_INACCURACY`.
    Inaccuracy,
    /// … by at least `ANALYSIS_MISTAKE`.
    Mistake,
    /// … by at least `ANALYSIS_BLUNDER`, or the move loses by force where the engine's move
    /// does not.
    Blunder,
    /// Every other move loses by force; this one does not.
    OnlyMove,
    /// The mover had a forced win (a five, or a VCF the engine finds) and the move gives it up.
    WinningThreatMissed,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
            Mark::OnlyMove => "only_move",
            Mark::WinningThreatMissed => "winning_threat_missed",
        }
    }
}

/// The name is not one of the marks' `as_str` forms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMark;

impl std::fmt::Display for UnknownMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unknown move mark")
    }
}
impl std::error::Error for UnknownMark {}

impl FromStr for Mark {
    type Err = UnknownMark;
    fn from_str(s: &str) -> Result<Mark, UnknownMark> {
        [
            Mark::Inaccuracy,
            Mark::Mistake,
            Mark::Blunder,
            Mark::OnlyMove,
            Mark::WinningThreatMissed,
        ]
        .into_iter()
        .find(|m| m.as_str() == s)
        .ok_or(UnknownMark)
    }
}

impl std::fmt::Display for Mark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The analysis of one move.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveAnalysis {
    /// Black's win probability (0–1) in the position after the move played.
    pub eval: f64,
    /// The engine's move for the mover in the position before.
    pub best: Point,
    /// Black's win probability after the engine's move.
    pub best_eval: f64,
    pub mark: Option<Mark>,
    /// The engine's line from the position before: `best`, then the moves it expects, up to
    /// `PV_PLIES` plies (a forced win's whole sequence when it fits).
    pub line: Vec<Point>,
}

/// The win probability of the side whose search score this is: a logistic of the score,
/// 1/(1 + e^(−score/`WIN_PROBABILITY_SCALE`)), and exactly 1 or 0 for a proven win or loss (a
/// mate score). The scale is fitted to the engine's own games (see `WIN_PROBABILITY_SCALE`).
pub fn win_probability(score: i32) -> f64 {
    if score >= WIN_THRESHOLD {
        1.0
    } else if score <= -WIN_THRESHOLD {
        0.0
    } else {
        1.0 / (1.0 + (-f64::from(score) / WIN_PROBABILITY_SCALE).exp())
    }
}

/// Analyses the move `played` from the position `before` (whose side to move plays it) within
/// `options`: the budget covers the whole analysis (the engine's own choice and the scoring of
/// both positions share it), the stop flag and node limit apply to each search. Fails as the
/// rules would refuse the move (game over, off the board, occupied, forbidden).
pub fn analyse_move(
    before: &Game,
    played: Point,
    options: &SearchOptions,
) -> Result<MoveAnalysis, PlayError> {
    before.check(played)?;
    let start = Instant::now();
    let mut pos = Position::from_game(before);
    let me = pos.to_move();
    let share = SearchOptions {
        time_budget: options.time_budget / ANALYSIS_SEARCHES,
        ..options.clone()
    };
    let played_i = pos.index(played);
    // A legal move exists (the one played), so the engine has one too.
    let decision = decide(&mut pos, Level::Master, &share);
    let best_i = decision.map_or(played_i, |d| d.point);
    let line = decision.map_or(vec![played], |d| {
        d.line.moves().map(|m| pos.point(m)).collect()
    });
    let played_score = score_after(&mut pos, played_i, &share);
    let best_score = if best_i == played_i {
        played_score
    } else {
        score_after(&mut pos, best_i, &share)
    };
    let (p_played, p_best) = (win_probability(played_score), win_probability(best_score));

    let deadline = start + options.time_budget;
    let cap = |n: u64| options.node_limit.map_or(n, |l| l.min(n));
    let had_win = !pos.five_points(me).is_empty() || {
        let mut vcf = Solver::new(Kind::Vcf, me, cap(VCF_ROOT_NODES))
            .with_deadline(deadline)
            .with_stop(options.stop.clone());
        vcf.run(&mut pos, VCF_MAX_DEPTH).is_some()
    };
    let drop = p_best - p_played;
    // A move into a forced loss that the engine's move avoids is a blunder however bad the
    // position already was.
    let walks_into_loss = played_score <= -WIN_THRESHOLD && best_score > -WIN_THRESHOLD;
    let mark = if had_win && played_score < WIN_THRESHOLD {
        Some(Mark::WinningThreatMissed)
    } else if drop >= ANALYSIS_BLUNDER || walks_into_loss {
        Some(Mark::Blunder)
    } else if drop >= ANALYSIS_MISTAKE {
        Some(Mark::Mistake)
    } else if drop >= ANALYSIS_INACCURACY {
        Some(Mark::Inaccuracy)
    } else if !had_win
        && played_score > -WIN_THRESHOLD
        && is_only_move(&mut pos, played_i, options, deadline)
    {
        Some(Mark::OnlyMove)
    } else {
        None
    };
    let for_black = |p: f64| if me == BLACK { p } else { 1.0 - p };
    Ok(MoveAnalysis {
        eval: for_black(p_played),
        best: pos.point(best_i),
        best_eval: for_black(p_best),
        mark,
        line,
    })
}

/// The mover's score after it plays `m` in `pos` (returned unchanged): a win for a five, a draw
/// for a full board, otherwise minus the opponent's score with the opponent to move.
fn score_after(pos: &mut Position, m: usize, options: &SearchOptions) -> i32 {
    if pos.threat(m, pos.to_move()) == Threat::Five {
        return WIN;
    }
    pos.make(m);
    let v = if pos.is_full() {
        0
    } else {
        -score_to_move(pos, options)
    };
    pos.unmake();
    v
}

/// The score of the side to move in `pos` (returned unchanged). Forced positions are settled
/// here, a forced block by playing it (the engine answers those at once, without a score);
/// the others by the master level's search.
fn score_to_move(pos: &mut Position, options: &SearchOptions) -> i32 {
    match movegen::situation(pos, false) {
        Situation::Five(_) => WIN - 1,
        Situation::Lost => -(WIN - 2),
        Situation::OpenFour(_) => WIN - 3,
        Situation::Block(p) => score_after(pos, p, options),
        Situation::Defend(_) | Situation::Quiet(_) => {
            decide(pos, Level::Master, options).map_or(0, |d| d.score)
        }
    }
}

/// Whether `played` is the only move in `pos` after which the opponent has no forced win: the
/// one block of a four, or the one defence against an open three or a threat sequence. Each
/// candidate is tested with the threat solvers; a candidate they cannot refute within their
/// budget counts as not losing, so in doubt the answer is no.
fn is_only_move(
    pos: &mut Position,
    played: usize,
    options: &SearchOptions,
    deadline: Instant,
) -> bool {
    let candidates: Vec<usize> = match movegen::situation(pos, true) {
        Situation::Block(p) => return p == played,
        Situation::Defend(moves) => moves.into_iter().map(|m| m.0).collect(),
        Situation::Quiet(moves) => {
            // Only a position where the opponent, were it to move, wins by threats has few
            // saving moves; otherwise most moves hold and there is nothing to test.
            let cap = |n: u64| options.node_limit.map_or(n, |l| l.min(n));
            let (line, _) = opponent_threat(pos, Kind::Vcf, VCF_MAX_DEPTH, cap(VCF_ROOT_NODES));
            let line = line.or_else(|| {
                opponent_threat(
                    pos,
                    Kind::Vct,
                    ANALYSIS_ONLY_MOVE_VCT_DEPTH,
                    cap(ANALYSIS_ONLY_MOVE_VCT_NODES),
                )
                .0
            });
            if line.is_none() {
                return false;
            }
            moves.into_iter().map(|m| m.0).collect()
        }
        Situation::Five(_) | Situation::Lost | Situation::OpenFour(_) => return false,
    };
    if !candidates.contains(&played) {
        return false;
    }
    let you = 1 - pos.to_move();
    let cap = |n: u64| options.node_limit.map_or(n, |l| l.min(n));
    let mut holding = 0;
    for m in candidates {
        pos.make(m);
        let mut vcf = Solver::new(Kind::Vcf, you, cap(ANALYSIS_ONLY_MOVE_VCF_NODES))
            .with_deadline(deadline)
            .with_stop(options.stop.clone());
        let mut lost = vcf.run(pos, VCF_MAX_DEPTH).is_some();
        if !lost {
            let mut vct = Solver::new(Kind::Vct, you, cap(ANALYSIS_ONLY_MOVE_VCT_NODES))
                .with_deadline(deadline)
                .with_stop(options.stop.clone());
            lost = vct.run(pos, ANALYSIS_ONLY_MOVE_VCT_DEPTH).is_some();
        }
        pos.unmake();
        if !lost {
            holding += 1;
            if m != played || holding > 1 {
                return false;
            }
        }
    }
    holding == 1
}
