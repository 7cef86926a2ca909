//! Fits the evaluation's weights (`params::EVAL_SHAPE`, `EVAL_CLASS`, `EVAL_TEMPO`) to game
//! records by logistic regression ("Texel tuning"): every quiet position of every game (no five
//! to make or block, no open three to answer: the positions the search evaluates) gives the
//! counts, over the empty points, of the shapes a stone would make on each line and of the
//! points' classes (`position::class_of`), for the side to move and for the side waiting, and
//! the game's result for the side to move. The fitted model predicts the result
//! as 1/(1 + e^(−eval/1000)), so the weights come out in evaluation units on that scale.
//! Every fifth game is held out; the log loss on those games is printed for the fitted weights
//! and for the engine's current evaluation (at its best scale).
//!
//! Records are the lines `scripts/gomocup_match.py --record` writes (`game N pbrain black win
//! (…): h8 i9 …`). The weights in `params.rs` were fitted to 700 games of a Gomocup engine
//! against itself from random openings (two runs of 400 and 300 games, with other seeds):
//! `scripts/gomocup_match.py --engine ENGINE --opponent ENGINE --openings random --seed 1
//! --games 400 --ms 200 --record games.txt`, then
//! `cargo run --release -p gomoku-engine --example fit-eval -- games.txt`. With
//! `FIT_EVAL_DUMP=samples.csv` the samples are also written out (the features, the result for the
//! side to move, the current evaluation, 1 if held out), to try other models on them.

use gomoku_engine::eval::evaluate;
use gomoku_engine::movegen::{situation, Situation};
use gomoku_engine::position::{class_of, Position, CLASSES};
use gomoku_rules::{Coord, Game, Point, Rule, Stone};

/// Shapes `One..=OpenFour` and classes 1..=13 are counted (the others never occur in a quiet
/// position or carry no information).
const SHAPES: std::ops::RangeInclusive<usize> = 1..=7;
const NS: usize = 7;
const NC: usize = CLASSES - 2;
const PER_SIDE: usize = NS + NC;
const NF: usize = 2 * PER_SIDE;
const SCALE: f64 = 1000.0;
const L2: f64 = 1e-3;
const STEPS: usize = 3000;
const RATE: f64 = 0.5;

struct Sample {
    x: Vec<f64>,
    y: f64,
    eval: f64,
    held_out: bool,
}

/// Counts for the side to move (first half) and the side waiting (second half).
fn features(pos: &Position) -> Vec<f64> {
    let me = pos.to_move();
    let mut f = vec![0.0; NF];
    for &p in pos.points().iter().filter(|&&p| pos.is_empty(p)) {
        for (side, c) in [(0, me), (1, 1 - me)] {
            let base = side * PER_SIDE;
            for s in pos.shapes(p, c) {
                if SHAPES.contains(&(s as usize)) {
                    f[base + s as usize - 1] += 1.0;
                }
            }
            let k = class_of(pos.shapes(p, c));
            if (1..=NC).contains(&k) {
                f[base + NS + k - 1] += 1.0;
            }
        }
    }
    f
}

/// The winner of a record line and its moves.
fn parse(line: &str) -> Option<(Option<Stone>, Vec<Point>)> {
    let (head, moves) = line.split_once("): ")?;
    let black = head.contains("pbrain black");
    let winner = if head.contains(" win ") == black && !head.contains(" draw ") {
        Some(Stone::Black)
    } else if head.contains(" draw ") {
        None
    } else {
        Some(Stone::White)
    };
    let points = moves
        .split_whitespace()
        .map(|m| m.parse::<Coord>().ok()?.to_point(15))
        .collect::<Option<Vec<_>>>()?;
    Some((winner, points))
}

fn main() {
    let mut samples = Vec::new();
    let mut games = 0;
    for file in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&file).expect("a record file");
        for (winner, points) in text.lines().filter_map(parse) {
            games += 1;
            let mut game = Game::new(15, Rule::Freestyle).expect("size");
            for &m in &points {
                if game.is_over() || game.play(m).is_err() {
                    break;
                }
                if game.is_over() || game.moves().len() <= 4 {
                    continue;
                }
                let pos = Position::from_game(&game);
                if !matches!(situation(&pos, false), Situation::Quiet(_)) {
                    continue;
                }
                let mover = game.to_move().expect("game on");
                samples.push(Sample {
                    x: features(&pos),
                    y: match winner {
                        Some(w) if w == mover => 1.0,
                        Some(_) => 0.0,
                        None => 0.5,
                    },
                    eval: f64::from(evaluate(&pos)),
                    held_out: games % 5 == 0,
                });
            }
        }
    }
    // The samples as CSV (features, result, current evaluation, held out), for trying other
    // models on the same positions.
    if let Ok(path) = std::env::var("FIT_EVAL_DUMP") {
        let mut csv = String::new();
        for s in &samples {
            for x in &s.x {
                csv.push_str(&format!("{x},"));
            }
            csv.push_str(&format!("{},{},{}\n", s.y, s.eval, u8::from(s.held_out)));
        }
        std::fs::write(&path, csv).expect("the dump file");
    }
    let n = samples.len() as f64;
    // Standardised features keep plain gradient descent well conditioned.
    let mut mean = [0.0; NF];
    let mut sd = [0.0; NF];
    for s in &samples {
        for (m, x) in mean.iter_mut().zip(&s.x) {
            *m += x / n;
        }
    }
    for s in &samples {
        for ((v, x), m) in sd.iter_mut().zip(&s.x).zip(&mean) {
            *v += (x - m).powi(2) / n;
        }
    }
    let sd = sd.map(|v| v.sqrt().max(1e-9));
    let z = |s: &Sample, j: usize| (s.x[j] - mean[j]) / sd[j];
    let sigmoid = |v: f64| 1.0 / (1.0 + (-v).exp());
    let loss = |p: f64, y: f64| {
        let p = p.clamp(1e-9, 1.0 - 1e-9);
        -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
    };
    let (mut w, mut b) = ([0.0; NF], 0.0);
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
    let test: Vec<&Sample> = samples.iter().filter(|s| s.held_out).collect();
    let predict =
        |w: &[f64; NF], b: f64, s: &Sample| b + (0..NF).map(|j| w[j] * z(s, j)).sum::<f64>();
    for _ in 0..STEPS {
        let (mut gw, mut gb) = ([0.0; NF], 0.0);
        for s in &train {
            let e = sigmoid(predict(&w, b, s)) - s.y;
            for (j, g) in gw.iter_mut().enumerate() {
                *g += e * z(s, j);
            }
            gb += e;
        }
        let m = train.len() as f64;
        for (wj, g) in w.iter_mut().zip(gw) {
            *wj -= RATE * (g / m + L2 * *wj);
        }
        b -= RATE * gb / m;
    }
    let mean_loss = |set: &[&Sample], f: &dyn Fn(&Sample) -> f64| {
        set.iter().map(|s| loss(f(s), s.y)).sum::<f64>() / set.len().max(1) as f64
    };
    let fitted = mean_loss(&test, &|s| sigmoid(predict(&w, b, s)));
    let (current, scale) = (1..200)
        .map(|k| f64::from(k) * 50.0)
        .map(|scale| (mean_loss(&test, &|s| sigmoid(s.eval / scale)), scale))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("scales");
    let base = test.iter().map(|s| s.y).sum::<f64>() / test.len().max(1) as f64;
    println!(
        "{} quiet positions from {games} games; held-out log loss: fitted {fitted:.4}, \
         current evaluation {current:.4} (at scale {scale}), a constant {:.4}",
        samples.len(),
        mean_loss(&test, &|_| base)
    );
    // Back to raw counts: weight per count in evaluation units.
    let unit = |j: usize| (SCALE * w[j] / sd[j]).round() as i32;
    let tempo = SCALE * (b - (0..NF).map(|j| w[j] * mean[j] / sd[j]).sum::<f64>());
    let shape_row = |side: usize| {
        let mut row = [0; 10];
        for k in SHAPES {
            row[k] = unit(side * PER_SIDE + k - 1);
        }
        row
    };
    let class_row = |side: usize| {
        let mut row = [0; CLASSES];
        for (k, v) in row.iter_mut().enumerate().take(NC + 1).skip(1) {
            *v = unit(side * PER_SIDE + NS + k - 1);
        }
        row
    };
    println!("EVAL_SHAPE = [{:?}, {:?}]", shape_row(0), shape_row(1));
    println!("EVAL_CLASS = [{:?}, {:?}]", class_row(0), class_row(1));
    println!("(open fours and fives never occur in a quiet position: set those by hand)");
    println!("EVAL_TEMPO = {}", tempo.round());
}
