//! Every tunable number of the engine in one place, so tuning never means hunting through the
//! search code. Scores are in "evaluation units"; a won position is worth `WIN` minus its distance.

/// Score of a won position (a five on the board) at the root; mates are `WIN - ply`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are mate scores, not evaluations.
pub const WIN_THRESHOLD: i32 = WIN - 1000;

/// Worth of a point for a colour, by the shape a stone there makes on one line
/// (indexed by `Shape as usize`: dead, one, two, open two, three, open three, four, open four,
/// five, overline).
pub const SHAPE_SCORE: [i32; 10] = [0, 2, 12, 30, 40, 160, 180, 2000, 20000, 0];
/// Extra worth of a point that makes two threats at once, by its threat level
/// (see `Threat`): a four-three, a double three, a double four.
pub const FOUR_THREE_BONUS: i32 = 1500;
pub const DOUBLE_THREE_BONUS: i32 = 600;
pub const DOUBLE_FOUR_BONUS: i32 = 2000;
/// The static evaluation (`eval.rs`): every empty point adds, for each colour, the value of the
/// shape a stone there would make on each of its four lines (`EVAL_SHAPE`, indexed by `Shape as
/// usize`: dead, one, two, open two, three, open three, four, open four, five, overline) and the
/// value of the class of the four together (`EVAL_CLASS`, indexed by `position::class_of`: what
/// the point threatens and builds at once), from the tables of that colour's role: the side to
/// move (`[0]`) or the side waiting (`[1]`; mostly negative, as the opponent's shapes count
/// against the side to move). `EVAL_TEMPO` is added for the side to move.
///
/// Fitted by logistic regression to the quiet positions of 700 games of a Gomocup engine
/// against itself (`examples/fit-eval.rs`, which says how), on the scale of a logistic of
/// eval/1000. On held-out games these weights predict the result with a log loss of 0.527;
/// shape and threat counts alone (no classes) reached 0.554, and the hand-set weights before
/// them (one table for both roles, the point scores below) 0.679, no better than a constant
/// (0.675). The side to move's shapes are worth more than the same shapes of the side waiting
/// (its open twos become open threes with tempo), and the points that threaten and build at
/// once (classes 7 and 11) far more than plain threats. Open fours and fives never occur in a
/// quiet position; their values are set by hand.
pub const EVAL_SHAPE: [[i32; 10]; 2] = [
    [0, 1, 5, 49, 64, 130, 106, 2000, 20000, 0],
    [0, 0, -6, -27, -41, -48, -96, -2000, -20000, 0],
];
pub const EVAL_CLASS: [[i32; 15]; 2] = [
    [
        0, -3, -52, -16, 30, 37, 68, 367, 925, 96, -6, 431, 4285, 5000, 20000,
    ],
    [
        0, 10, 28, -21, -15, -67, -19, -161, -14, -43, -142, -399, -1307, -2000, -20000,
    ],
];
pub const EVAL_TEMPO: i32 = -353;
/// In move ordering a point's worth to the opponent (blocking it) counts this much (per 16) of
/// its worth to the mover.
pub const DEFENCE_NUM: i32 = 14;
pub const DEFENCE_DEN: i32 = 16;

/// Widest number of candidate moves searched at a node, by remaining depth (index capped).
pub const BEAM: [usize; 8] = [5, 6, 7, 8, 9, 10, 11, 12];
/// Late move reductions: from the n-th move on, at this remaining depth or more.
pub const LMR_AFTER: usize = 3;
pub const LMR_MIN_DEPTH: i32 = 3;
/// Candidates are empty points with a stone within this Chebyshev distance.
pub const NEAR: usize = 2;

/// Node budget of the VCF run inside every search node (threat check at the horizon).
pub const VCF_NODES_IN_SEARCH: u64 = 60;
/// Node budget of the opponent's VCF looked for at quiet inner nodes (threat defence), and the
/// ordering bonus of the points on its line.
pub const VCF_DEFENCE_NODES_IN_SEARCH: u64 = 100;
pub const DEFENCE_BONUS: i32 = 1_000_000;
/// Master: plies from the root whose nodes run a VCT first, with this budget and depth.
pub const MASTER_VCT_PLIES: i32 = 2;
/// Master: moves searched at every quiet node beyond the beam (more time buys little depth
/// here, so master spends it on width: a narrow beam's errors compound with depth).
pub const MASTER_BEAM_EXTRA: usize = 4;
/// Master: plies from the root whose quiet nodes search as wide as the root.
pub const MASTER_WIDE_PLIES: i32 = 1;
pub const VCT_NODES_IN_SEARCH: u64 = 400;
pub const VCT_DEPTH_IN_SEARCH: u32 = 4;
/// Depth limit (attacker moves) of a VCF search.
pub const VCF_MAX_DEPTH: u32 = 120;
/// Node budget of the VCF search at the root, per level that uses it.
pub const VCF_ROOT_NODES: u64 = 200_000;
/// Depth limit (attacker moves) and node budget of the root VCT search.
pub const VCT_MAX_DEPTH: u32 = 10;
pub const VCT_ROOT_NODES: u64 = 400_000;

/// Root defence: node budget of the opponent's VCF (master: VCT) looked for after each root
/// candidate; candidates that allow one are dropped unless all do.
pub const DEFENCE_VCF_NODES: u64 = 3_000;
pub const DEFENCE_VCT_NODES: u64 = 3_000;
pub const DEFENCE_VCT_DEPTH: u32 = 5;
/// Root: node budgets (and VCT depth) of the look for the opponent's forcing line, whose
/// points are then searched first.
pub const DEFENCE_LINE_VCF_NODES: u64 = 20_000;
pub const DEFENCE_LINE_VCT_NODES: u64 = 20_000;
pub const DEFENCE_LINE_VCT_DEPTH: u32 = 6;
/// Master's VCT defence check covers only the best few candidates (a VCT check costs more).
pub const DEFENCE_VCT_ROOTS: usize = 24;
/// Most root candidates checked that way.
pub const DEFENCE_ROOTS: usize = 24;

/// Transposition table size (entries, a power of two).
pub const TT_ENTRIES: usize = 1 << 20;
/// Nodes between two looks at the clock and the stop flag (reading the clock costs ~25 ns,
/// a node ~3 µs; but a renju node can cost far more, so look often).
pub const CHECK_EVERY: u64 = 16;
/// Deepest iteration of iterative deepening.
pub const MAX_DEPTH: i32 = 40;
/// Fraction (per 16) of the budget after which no new iteration is started: a new iteration
/// costs several times the previous one and would be cut off anyway.
pub const NEW_ITERATION_CUTOFF: u32 = 6;
/// The same for master, which has time to let a last iteration run partly: the previous best
/// move is searched first, so a partial iteration still improves the choice.
pub const MASTER_ITERATION_CUTOFF: u32 = 14;
/// Fractions (per 16) of master's budget by which the root VCT must end, and by which the
/// root defence checks must end (counted from the start of the move).
pub const MASTER_VCT_SHARE: u32 = 3;
pub const MASTER_DEFENCE_SHARE: u32 = 4;
/// Master: the share (per 16) of its budget kept back after the search to verify its choice,
/// how many moves may be tried in turn, and the opponent's VCF and VCT budgets (and VCT depth)
/// after each.
pub const MASTER_VERIFY_SHARE: u32 = 2;
pub const VERIFY_MOVES: usize = 6;
pub const VERIFY_VCF_NODES: u64 = 20_000;
pub const VERIFY_VCT_NODES: u64 = 40_000;
pub const VERIFY_VCT_DEPTH: u32 = 8;
/// Hard's root VCF and defence checks end by these fractions (per 16) of its budget.
pub const HARD_VCF_SHARE: u32 = 4;
pub const HARD_DEFENCE_SHARE: u32 = 8;

/// Easy level: probability (per 100) of overlooking an opponent's open three, and the fraction
/// (per 100) of the best point score a casual move must still reach.
pub const EASY_MISS_PERCENT: u64 = 35;
pub const EASY_MIN_SHARE: i32 = 50;
/// Medium level: search depth cap. With the fitted evaluation a depth-4 medium was as strong as
/// hard (hard won 52.5% of 40 freestyle games); at depth 3 hard won 72.5%, at depth 2 82.5%
/// (renju 95%), and medium still beats easy in 94–98%.
pub const MEDIUM_MAX_DEPTH: i32 = 2;

/// Post-game analysis (`analysis.rs`). A search score `s` of one side maps to its win
/// probability 1/(1 + e^(−s/scale)). The scale is the most likely one over the engine's own
/// games, searched as the analysis searches (`examples/fit-win-probability.rs`: master against
/// itself at 133 ms, 40 freestyle games, 1582 scored moves: mean log loss 0.671, where the
/// 1950 before it scored 0.685). The fitted evaluation's scores are about twice as wide for the
/// same odds; at the narrower scale the evaluation of a balanced opening swung by up to 0.15–0.2
/// from one ply to the next. A tempo (a share of the side to move's score taken off before the
/// logistic) fitted with the scale gained nothing (0.0005), so there is none.
pub const WIN_PROBABILITY_SCALE: f64 = 3800.0;
/// Marks by the drop in the mover's win probability between the engine's move and the move
/// played (both judged the same way): at least this much is an inaccuracy, a mistake, a blunder
/// (a move into a forced loss the engine's move avoids is a blunder too). At the fitted scale a
/// move thrown away in a quiet opening (into the corner) costs about 0.10; the thresholds were
/// 0.10, 0.20 and 0.35 at half the scale and are four fifths of that now, so that such a move
/// stays an inaccuracy while the search's noise from one move to the next (0.05 or so) is not.
pub const ANALYSIS_INACCURACY: f64 = 0.08;
pub const ANALYSIS_MISTAKE: f64 = 0.16;
pub const ANALYSIS_BLUNDER: f64 = 0.28;
/// The analysis of one move runs this many searches of the master level (the engine's choice,
/// the position after it, the position after the move played), each with this share of the
/// budget.
pub const ANALYSIS_SEARCHES: u32 = 3;
/// "Only move": budgets of the opponent's VCF and VCT (and its depth) tried after each
/// candidate; a candidate they cannot refute counts as saving.
pub const ANALYSIS_ONLY_MOVE_VCF_NODES: u64 = 5_000;
pub const ANALYSIS_ONLY_MOVE_VCT_NODES: u64 = 5_000;
pub const ANALYSIS_ONLY_MOVE_VCT_DEPTH: u32 = 6;
/// Plies of the principal variation a decision carries (the analysis's `line`): enough for a
/// short forcing sequence or the next moves of a quiet plan, few enough that the line's end is
/// still what the search looked at.
pub const PV_PLIES: usize = 6;
