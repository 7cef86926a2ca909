//! Times `Game::forbidden_points` (and `renju::forbidden_kind` per point) on busy mid-game
//! 15×15 renju positions. Not a test: run it optimised to get figures worth quoting.
//!
//!     cargo run --release -p gomoku-rules --example forbidden_timing [positions] [stones]

use gomoku_rules::renju::forbidden_kind;
use gomoku_rules::{Game, Point, Rule};
use std::hint::black_box;
use std::time::Instant;

/// A small deterministic generator (xorshift64*), so every run times the same positions.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// An ongoing renju game with `stones` stones, black to move, played at random in the central
/// 9×9 area so that the stones crowd together and make many threes and fours.
fn busy_position(rng: &mut Rng, stones: usize) -> Game {
    'retry: loop {
        let mut game = Game::new(15, Rule::Renju).expect("15 is a valid size");
        while game.moves().len() < stones {
            let legal: Vec<Point> = (3..12)
                .flat_map(|r| (3..12).map(move |c| Point::new(r, c)))
                .filter(|&p| game.check(p).is_ok())
                .collect();
            if legal.is_empty() {
                continue 'retry;
            }
            let p = legal[rng.below(legal.len())];
            if game.play(p).expect("checked").clone() != gomoku_rules::Outcome::Ongoing {
                continue 'retry;
            }
        }
        return game;
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let positions: usize = args.next().map_or(20, |a| a.parse().expect("positions"));
    let stones: usize = args.next().map_or(50, |a| a.parse().expect("stones"));
    let stones = stones & !1; // an even count leaves black to move
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let games: Vec<Game> = (0..positions)
        .map(|_| busy_position(&mut rng, stones))
        .collect();

    let forbidden: usize = games.iter().map(|g| g.forbidden_points().len()).sum();
    let rounds = 50;
    let start = Instant::now();
    for _ in 0..rounds {
        for game in &games {
            black_box(game.forbidden_points());
        }
    }
    let per_call = start.elapsed() / (rounds * games.len()) as u32;

    let empties: Vec<(usize, Point)> = games
        .iter()
        .enumerate()
        .flat_map(|(i, g)| {
            g.board()
                .points()
                .filter(|&p| g.board().get(p).is_none())
                .map(move |p| (i, p))
        })
        .collect();
    let start = Instant::now();
    for _ in 0..rounds {
        for &(i, p) in &empties {
            black_box(forbidden_kind(games[i].board(), p));
        }
    }
    let per_point = start.elapsed() / (rounds * empties.len()) as u32;

    println!(
        "{positions} positions of {stones} stones (black to move), {forbidden} forbidden points in all"
    );
    println!("Game::forbidden_points: {per_call:?} per position");
    println!("renju::forbidden_kind:  {per_point:?} per empty point");
    println!("sample position:\n{}", games[0].board().to_ascii());
}
