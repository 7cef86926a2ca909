//! A Gomocup (Piskvork) protocol engine on stdin/stdout: the master level under the manager's
//! time control. Coordinates are `x,y` with x the column, both 0-based.
//!
//! Commands: START, RESTART, BEGIN, TURN, BOARD … DONE, TAKEBACK, INFO (timeout_turn,
//! timeout_match, time_left, max_memory, rule: 0 freestyle, 1 exactly five, 4 renju), END, ABOUT.

use gomoku_engine::position::{Position, BLACK, WHITE};
use gomoku_engine::{decide, Level, SearchOptions};
use gomoku_rules::{Point, Rule, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

/// Time kept back from every move for the pipe and the manager's bookkeeping.
const MARGIN_MS: u64 = 60;
/// Moves the remaining match time is spread over.
const MOVES_TO_GO: u64 = 25;

struct Engine {
    pos: Option<Position>,
    size: usize,
    rule: Rule,
    timeout_turn: u64,
    timeout_match: u64,
    time_left: u64,
    seed: u64,
}

impl Engine {
    fn budget(&self) -> Duration {
        let mut ms = if self.timeout_turn == 0 {
            5000
        } else {
            self.timeout_turn
        };
        if self.timeout_match > 0 {
            ms = ms.min(self.time_left / MOVES_TO_GO);
        }
        Duration::from_millis(ms.saturating_sub(MARGIN_MS).max(20))
    }

    /// Thinks, plays and prints the engine's move.
    fn reply(&mut self, out: &mut impl Write) -> io::Result<()> {
        let started = Instant::now();
        let budget = self.budget();
        let Some(pos) = self.pos.as_mut() else {
            return writeln!(out, "ERROR no game started");
        };
        self.seed = self.seed.wrapping_add(1);
        let opts = SearchOptions {
            time_budget: budget,
            seed: self.seed,
            stop: None,
            node_limit: None,
        };
        match decide(pos, Level::Master, &opts) {
            Some(d) => {
                let p = pos.point(d.point);
                pos.make(d.point);
                writeln!(
                    out,
                    "MESSAGE {} depth {} nodes {}",
                    d.reason, d.depth, d.nodes
                )?;
                writeln!(out, "{},{}", p.col, p.row)?;
            }
            None => writeln!(out, "ERROR no legal move")?,
        }
        if self.timeout_match > 0 {
            self.time_left = self
                .time_left
                .saturating_sub(started.elapsed().as_millis() as u64);
        }
        Ok(())
    }

    fn parse_point(&self, text: &str) -> Option<Point> {
        let mut it = text.split(',').map(|s| s.trim().parse::<usize>());
        let (x, y) = (it.next()?.ok()?, it.next()?.ok()?);
        (x < self.size && y < self.size).then(|| Point::new(y, x))
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut engine = Engine {
        pos: None,
        size: 15,
        rule: Rule::Freestyle,
        timeout_turn: 5000,
        timeout_match: 0,
        time_left: u64::MAX,
        seed: 0,
    };
    let mut lines = stdin.lock().lines();
    while let Some(line) = lines.next() {
        let line = line?;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        match cmd.to_ascii_uppercase().as_str() {
            "START" => match rest.trim().parse::<usize>() {
                Ok(n) if (MIN_BOARD_SIZE..=MAX_BOARD_SIZE).contains(&n) => {
                    engine.size = n;
                    engine.pos = Some(Position::new(n, engine.rule));
                    writeln!(out, "OK")?;
                }
                _ => writeln!(out, "ERROR unsupported board size")?,
            },
            "RESTART" => {
                engine.pos = Some(Position::new(engine.size, engine.rule));
                writeln!(out, "OK")?;
            }
            "INFO" => {
                let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
                let v = value.trim().parse::<u64>().unwrap_or(0);
                match key {
                    "timeout_turn" => engine.timeout_turn = v,
                    "timeout_match" => engine.timeout_match = v,
                    "time_left" => engine.time_left = v,
                    "rule" => {
                        engine.rule = if v & 4 != 0 {
                            Rule::Renju
                        } else if v & 1 != 0 {
                            Rule::Standard
                        } else {
                            Rule::Freestyle
                        };
                        // The rule applies to the game being set up.
                        if engine.pos.as_ref().is_some_and(|p| p.stones() == 0) {
                            engine.pos = Some(Position::new(engine.size, engine.rule));
                        }
                    }
                    // max_memory: the largest table used (about 24 MB) fits every Gomocup limit.
                    _ => {}
                }
            }
            "BEGIN" => {
                if engine.pos.as_ref().is_some_and(|p| p.stones() == 0) {
                    engine.reply(&mut out)?;
                } else {
                    writeln!(out, "ERROR BEGIN needs an empty board after START")?;
                }
            }
            "TURN" => {
                let p = engine.parse_point(rest);
                match (p, engine.pos.as_mut()) {
                    (Some(p), Some(pos)) => {
                        let i = pos.index(p);
                        if pos.is_empty(i) {
                            pos.make(i);
                            engine.reply(&mut out)?;
                        } else {
                            writeln!(out, "ERROR occupied point")?;
                        }
                    }
                    (None, _) => writeln!(out, "ERROR bad coordinates")?,
                    (_, None) => writeln!(out, "ERROR no game started")?,
                }
            }
            "BOARD" => {
                // Lines "x,y,who" (1 own stone, 2 opponent's) until DONE.
                let mut stones: Vec<(Point, u8)> = Vec::new();
                let mut bad = false;
                for l in lines.by_ref() {
                    let l = l?;
                    let l = l.trim();
                    if l.eq_ignore_ascii_case("DONE") {
                        break;
                    }
                    let parts: Vec<&str> = l.split(',').collect();
                    match (parts.len(), engine.parse_point(l)) {
                        (3, Some(p)) => match parts[2].trim() {
                            "1" => stones.push((p, 1)),
                            "2" | "3" => stones.push((p, 2)),
                            _ => bad = true,
                        },
                        _ => bad = true,
                    }
                }
                let mut pos = Position::new(engine.size, engine.rule);
                let own = stones.iter().filter(|s| s.1 == 1).count();
                let theirs = stones.len() - own;
                // Black moves first: with as many stones as the opponent we are black.
                let me = if own == theirs { BLACK } else { WHITE };
                for &(p, who) in &stones {
                    let i = pos.index(p);
                    if !pos.is_empty(i) {
                        bad = true;
                        continue;
                    }
                    pos.place(i, if who == 1 { me } else { 1 - me });
                }
                pos.set_to_move(me);
                if bad {
                    writeln!(out, "ERROR bad BOARD line")?;
                } else {
                    engine.pos = Some(pos);
                    engine.reply(&mut out)?;
                }
            }
            "TAKEBACK" => {
                let p = engine.parse_point(rest);
                match (p, engine.pos.as_mut()) {
                    (Some(p), Some(pos)) if pos.last_move() == Some(pos.index(p)) => {
                        pos.unmake();
                        writeln!(out, "OK")?;
                    }
                    _ => writeln!(out, "ERROR can only take back the last move")?,
                }
            }
            "ABOUT" => writeln!(
                out,
                "name=\"gomoku-engine\", version=\"{}\", author=\"gomoku project\", country=\"CN\"",
                env!("CARGO_PKG_VERSION")
            )?,
            "END" => break,
            _ => writeln!(out, "UNKNOWN command {cmd}")?,
        }
        out.flush()?;
    }
    Ok(())
}
