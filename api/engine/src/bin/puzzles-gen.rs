//! Puzzle generator: plays engine self-play games and keeps the moments when the side to move
//! has just got a forced win, proven with every defence considered (`puzzle::prove`).
//!
//! Each game starts from one of the rule's balanced openings (`openings::balanced`), picked by
//! the game's seed; each side is the easy or the medium level (the easy level's casual moves
//! are what give the opponent its chances), with a node limit instead of a clock so that a seed
//! always plays the same game. At every ply the fast threat solver looks for a win of the side
//! to move (VCF first, then VCT); a win that side did not already have at its previous turn
//! (a real puzzle moment, not the middle of a winning line; a VCF after a mere VCT counts as
//! new, since the opponent's reply let it in) goes to the full-defence prover,
//! and a proof of 3 to 11 attacker moves with at most two winning first moves becomes a puzzle,
//! unless a symmetric copy of its position is already in the set. A VCT puzzle is one without a
//! VCF. Each puzzle gets a starting rating from its figures (length, proof tree, quiet first
//! move) and a difficulty band from the rating.
//!
//! The output is append-only: the file given by `--out` is read first (its puzzles count
//! towards the targets, its positions towards the duplicates, its seeds are not replayed) and
//! each new puzzle is appended as soon as it is proven, so a stopped run resumes where it was.
//!
//! Example: `nice -n 10 puzzles-gen --rule renju --vcf 130 --vct 130 --out api/engine/data/puzzles.jsonl`

use gomoku_engine::openings;
use gomoku_engine::position::{colour_of, Position, Rng, Threat};
use gomoku_engine::puzzle::{self, notation, stone_name, Proof, Puzzle};
use gomoku_engine::threat::{self, Kind};
use gomoku_engine::{decide, Level, SearchOptions};
use gomoku_rules::{Game, Point, Rule, Stone};
use std::collections::HashSet;
use std::io::Write;
use std::time::{Duration, Instant};

/// Attacker moves of a puzzle, fewest and most.
const MIN_WIN: u32 = 3;
const MAX_WIN: u32 = 11;
/// Winning first moves a puzzle may have: one makes the best puzzle; two are often the same
/// fours in another order, and either is accepted in play.
const MAX_FIRST_MOVES: usize = 2;
/// Budgets of the fast pre-check (the AI's solver) and of the proof.
const CHECK_NODES: u64 = 20_000;
const CHECK_VCT_DEPTH: u32 = 6;
const PROOF_NODES: u64 = 300_000;
/// Node limits of the two self-play levels.
const EASY_NODES: u64 = 2_000;
const MEDIUM_NODES: u64 = 6_000;
/// A game longer than this is abandoned (most are decided far sooner).
const MAX_PLIES: usize = 150;
/// Puzzles taken from one game at most, so that the set spreads over many games.
const MAX_PER_GAME: usize = 3;

fn usage() -> ! {
    eprintln!(
        "usage: puzzles-gen --rule freestyle|standard|renju [--vcf N] [--vct N] [--size N] \
         [--seed N] [--out PATH] [--minutes N]"
    );
    std::process::exit(2)
}

struct Config {
    rule: Rule,
    size: usize,
    targets: [usize; 2],
    seed: u64,
    out: String,
    minutes: u64,
}

fn main() {
    let mut cfg = Config {
        rule: Rule::Freestyle,
        size: 15,
        targets: [100, 100],
        seed: 1,
        out: "api/engine/data/puzzles.jsonl".to_string(),
        minutes: 60,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--rule" => cfg.rule = value().parse().unwrap_or_else(|_| usage()),
            "--vcf" => cfg.targets[0] = value().parse().unwrap_or_else(|_| usage()),
            "--vct" => cfg.targets[1] = value().parse().unwrap_or_else(|_| usage()),
            "--size" => cfg.size = value().parse().unwrap_or_else(|_| usage()),
            "--seed" => cfg.seed = value().parse().unwrap_or_else(|_| usage()),
            "--out" => cfg.out = value(),
            "--minutes" => cfg.minutes = value().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    run(&cfg);
}

/// What the output file already holds for this rule.
struct Set {
    keys: HashSet<String>,
    counts: [usize; 2],
    next_id: usize,
    next_seed: u64,
}

fn load(cfg: &Config) -> Set {
    let mut set = Set {
        keys: HashSet::new(),
        counts: [0, 0],
        next_id: 1,
        next_seed: cfg.seed,
    };
    let Ok(text) = std::fs::read_to_string(&cfg.out) else {
        return set;
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let p: Puzzle = serde_json::from_str(line).expect("the output file holds puzzles");
        if p.rule != cfg.rule.as_str() || p.size != cfg.size {
            continue;
        }
        let setup = p.setup().expect("stored puzzles replay");
        set.keys
            .insert(canonical(setup.game.board(), setup.attacker));
        set.counts[usize::from(p.kind == "vct")] += 1;
        set.next_id += 1;
        set.next_seed = set.next_seed.max(p.seed + 1);
    }
    set
}

fn run(cfg: &Config) {
    let mut set = load(cfg);
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&cfg.out)
        .expect("the output file opens");
    let book = openings::balanced(cfg.rule);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(cfg.minutes * 60);
    let mut games = 0;
    let mut seed = set.next_seed;
    eprintln!(
        "{}: {} vcf, {} vct already; from seed {seed}",
        cfg.rule, set.counts[0], set.counts[1]
    );
    while (set.counts[0] < cfg.targets[0] || set.counts[1] < cfg.targets[1])
        && Instant::now() < deadline
    {
        for p in play(cfg, &book, seed, &mut set) {
            let line = serde_json::to_string(&p).expect("a puzzle serialises");
            writeln!(out, "{line}").expect("the output file takes a line");
            out.flush().expect("the output file flushes");
            eprintln!(
                "{} {} in {} (tree {}, widest {}, rating {}) seed {} ply {}",
                p.id, p.kind, p.win_in, p.tree, p.widest, p.rating, p.seed, p.ply
            );
        }
        games += 1;
        seed += 1;
    }
    eprintln!(
        "{}: {} vcf, {} vct after {games} games in {:?}",
        cfg.rule,
        set.counts[0],
        set.counts[1],
        started.elapsed()
    );
}

/// One self-play game of `seed`; returns the new puzzles found in it.
fn play(cfg: &Config, book: &[openings::Opening], seed: u64, set: &mut Set) -> Vec<Puzzle> {
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5055_5A5A);
    let opening = &book[rng.below(book.len() as u64) as usize];
    let mut game = Game::replay(cfg.size, cfg.rule, &openings::points(opening, cfg.size))
        .expect("openings are legal");
    let levels = [0, 1].map(|_| {
        if rng.below(3) == 0 {
            Level::Medium
        } else {
            Level::Easy
        }
    });
    // Per colour: the kind of win the fast check found at that side's previous turn.
    let mut had: [Option<Kind>; 2] = [None, None];
    let mut found = Vec::new();
    while !game.is_over() && game.moves().len() < MAX_PLIES && found.len() < MAX_PER_GAME {
        let mut pos = Position::from_game(&game);
        let me = pos.to_move();
        let win = fast_win(&mut pos);
        // A new moment: no win at all before for a VCT, no VCF before for a VCF (a VCT that
        // the opponent's reply turned into a VCF is a new VCF puzzle).
        let fresh = matches!(
            (win, had[me]),
            (Some(_), None) | (Some(Kind::Vcf), Some(Kind::Vct))
        );
        if let Some(kind) = win.filter(|_| fresh) {
            if !pos.has_four(1 - me) && set.counts[kind as usize] < cfg.targets[kind as usize] {
                if let Some(p) = make_puzzle(cfg, &game, &mut pos, kind, seed, set) {
                    found.push(p);
                }
            }
        }
        had[me] = win;
        let level = levels[me];
        let opts = SearchOptions {
            time_budget: Duration::from_secs(60),
            seed: seed.wrapping_mul(1_000_003) ^ game.moves().len() as u64,
            stop: None,
            node_limit: Some(if level == Level::Easy {
                EASY_NODES
            } else {
                MEDIUM_NODES
            }),
        };
        let Some(d) = decide(&mut pos, level, &opts) else {
            break;
        };
        game.play(pos.point(d.point))
            .expect("the engine plays legal moves");
    }
    found
}

/// The fast solver's verdict for the side to move: a VCF, else a VCT, else none. Not a proof.
fn fast_win(pos: &mut Position) -> Option<Kind> {
    if threat::solve(pos, Kind::Vcf, MAX_WIN, CHECK_NODES).is_some() {
        return Some(Kind::Vcf);
    }
    threat::solve(pos, Kind::Vct, CHECK_VCT_DEPTH, CHECK_NODES).map(|_| Kind::Vct)
}

/// Proves the position with every defence considered and turns it into a puzzle, if the win
/// has the wanted length, is of the kind found and is new to the set.
fn make_puzzle(
    cfg: &Config,
    game: &Game,
    pos: &mut Position,
    kind: Kind,
    seed: u64,
    set: &mut Set,
) -> Option<Puzzle> {
    let attacker = game.to_move()?;
    let key = canonical(game.board(), attacker);
    if set.keys.contains(&key) {
        return None;
    }
    // An immediate win (a five or an open four) is no puzzle.
    if pos.count_at_least(pos.to_move(), Threat::OpenFour) > 0 {
        return None;
    }
    let proof = puzzle::prove(pos, kind, MAX_WIN, PROOF_NODES).ok()??;
    if kind == Kind::Vct {
        // A VCT puzzle has no VCF: that would be the easier puzzle.
        if !matches!(
            puzzle::win_in(pos, Kind::Vcf, MAX_WIN, PROOF_NODES),
            Ok(None)
        ) {
            return None;
        }
    }
    if !(MIN_WIN..=MAX_WIN).contains(&proof.win_in) || proof.first_moves.len() > MAX_FIRST_MOVES {
        return None;
    }
    let quiet_first = quiet_first(pos, &proof);
    let rating = rating(&proof, quiet_first);
    let letter = &cfg.rule.as_str()[..1];
    let size = cfg.size;
    let names =
        |v: &[usize]| -> Vec<String> { v.iter().map(|&i| notation(pos.point(i), size)).collect() };
    let p = Puzzle {
        id: format!("{letter}{:04}", set.next_id),
        rule: cfg.rule.as_str().to_string(),
        size,
        moves: game
            .moves()
            .iter()
            .map(|m| notation(m.point, size))
            .collect(),
        to_move: stone_name(attacker).to_string(),
        kind: puzzle::kind_name(kind).to_string(),
        win_in: proof.win_in,
        first_moves: names(&proof.first_moves),
        solution: names(&proof.line),
        tree: proof.tree,
        widest: proof.widest,
        quiet_first,
        difficulty: difficulty(rating),
        rating,
        seed,
        ply: game.moves().len(),
    };
    set.keys.insert(key);
    set.counts[kind as usize] += 1;
    set.next_id += 1;
    Some(p)
}

/// The first move is not the one a player tries first: a three while a four was available, or
/// not the strongest and richest threat on the board.
fn quiet_first(pos: &Position, proof: &Proof) -> bool {
    let me = pos.to_move();
    let first = proof.first_moves[0];
    let least = match proof.kind {
        Kind::Vcf => Threat::Four,
        Kind::Vct => Threat::Three,
    };
    let best = pos
        .points_with(me, least)
        .into_iter()
        .filter(|&p| pos.is_legal(p, me))
        .max_by_key(|&p| (pos.threat(p, me), pos.score(p, me)));
    best.is_some_and(|b| pos.threat(b, me) > pos.threat(first, me) || b != first)
}

/// The starting rating of a puzzle (Glicko-2 scale): longer wins, bigger and wider proof
/// trees, a quiet first move and threes rather than fours make it harder; each extra winning
/// first move makes it easier.
fn rating(proof: &Proof, quiet_first: bool) -> u32 {
    let mut s = f64::from(proof.win_in);
    s += (proof.tree as f64).log2() * 0.8;
    s += proof.widest as f64 * 0.3;
    if quiet_first {
        s += 1.5;
    }
    if proof.kind == Kind::Vct {
        s += 1.0;
    }
    s -= (proof.first_moves.len() as f64 - 1.0) * 0.5;
    (700.0 + 80.0 * s).clamp(800.0, 2400.0).round() as u32
}

/// Rating bands of the five difficulty levels (320 points each from 800).
fn difficulty(rating: u32) -> u8 {
    (1 + (rating.saturating_sub(800) / 320)).min(5) as u8
}

/// One symmetry of the square: (row, col, size - 1) to the image's (row, col).
type Symmetry = fn(usize, usize, usize) -> (usize, usize);

/// The position up to the eight symmetries of the square: the smallest of its eight images,
/// as text, with the side to move.
fn canonical(board: &gomoku_rules::Board, to_move: Stone) -> String {
    let n = board.size();
    let mut stones: Vec<(Point, Stone)> = Vec::new();
    for r in 0..n {
        for c in 0..n {
            if let Some(s) = board.get(Point::new(r, c)) {
                stones.push((Point::new(r, c), s));
            }
        }
    }
    let m = n - 1;
    let maps: [Symmetry; 8] = [
        |r, c, _| (r, c),
        |r, c, m| (c, m - r),
        |r, c, m| (m - r, m - c),
        |r, c, m| (m - c, r),
        |r, c, m| (r, m - c),
        |r, c, m| (m - r, c),
        |r, c, _| (c, r),
        |r, c, m| (m - c, m - r),
    ];
    maps.iter()
        .map(|f| {
            let mut v: Vec<(usize, usize, usize)> = stones
                .iter()
                .map(|&(p, s)| {
                    let (r, c) = f(p.row, p.col, m);
                    (colour_of(s), r, c)
                })
                .collect();
            v.sort_unstable();
            let mut key = format!("{}:", stone_name(to_move));
            for (s, r, c) in v {
                key.push_str(&format!("{s}{r},{c};"));
            }
            key
        })
        .min()
        .expect("eight images")
}
