//! A Gomocup (Piskvork) protocol engine on stdin/stdout: the master level under the manager's
//! time control. Coordinates are `x,y` with x the column, both 0-based.
//!
//! Commands: START, RESTART, BEGIN, TURN, BOARD … DONE, SWAP2BOARD … DONE, TAKEBACK, INFO
//! (timeout_turn, timeout_match, time_left, max_memory, rule: 0 freestyle, 1 exactly five,
//! 4 renju), END, ABOUT.
//!
//! SWAP2BOARD gives the swap2 opening's stones so far, one `x,y` a line in move order (black,
//! white, black, then white, black), and the brain answers as swap2 asks of that player: with
//! none, its three stones `x,y x,y x,y`; with three, `SWAP` (it takes black and the manager's
//! other brain, as white, plays the 4th move), or one move `x,y` (it takes white and plays the
//! 4th), or two stones `x,y x,y` (the 4th and 5th, handing the choice of colour back); with five,
//! `SWAP` (it takes black) or one move (it takes white and plays the 6th). The AI's opening play
//! is `gomoku_engine::opening_play` over the rules' `Opening`; the board it answers with stays
//! the position for the TURN commands that follow.

use gomoku_engine::opening_play::opening_turn;
use gomoku_engine::position::{Position, BLACK, WHITE};
use gomoku_engine::{decide, Level, SearchOptions};
use gomoku_rules::opening::{Choice, Seat, Step};
use gomoku_rules::{Opening, OpeningRule, Point, Rule, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
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
        let budget = self.budget();
        self.reply_within(budget, out)
    }

    /// [`Engine::reply`] under the given budget.
    fn reply_within(&mut self, budget: Duration, out: &mut impl Write) -> io::Result<()> {
        let started = Instant::now();
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
                    "MESSAGE {} depth {} nodes {} score {}",
                    d.reason, d.depth, d.nodes, d.score
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

    /// Answers SWAP2BOARD for the stones so far (see the module comment).
    fn swap2(&mut self, stones: &[Point], out: &mut impl Write) -> io::Result<()> {
        let started = Instant::now();
        let mut opening = match Opening::new(self.size, self.rule, OpeningRule::Swap2) {
            Ok(o) => o,
            Err(e) => return writeln!(out, "ERROR {e}"),
        };
        if !matches!(stones.len(), 0 | 3 | 5) {
            return writeln!(out, "ERROR SWAP2BOARD takes 0, 3 or 5 stones");
        }
        // The stones as the steps that placed them: three by the first player, then two by the
        // second after choosing to place two.
        for (i, &p) in stones.iter().enumerate() {
            let seat = if i < 3 { Seat::First } else { Seat::Second };
            if i == 3 {
                opening
                    .apply(seat, Step::Choose(Choice::PlaceTwo))
                    .expect("the choice after three stones");
            }
            if let Err(e) = opening.apply(seat, Step::Place(p)) {
                return writeln!(out, "ERROR {e}");
            }
        }
        let budget = self.budget();
        self.seed = self.seed.wrapping_add(1);
        let opts = SearchOptions {
            // Half for the decision when taking white means playing a move after it.
            time_budget: if stones.is_empty() {
                budget
            } else {
                budget / 2
            },
            seed: self.seed,
            stop: None,
            node_limit: None,
        };
        let seat = opening.phase().by().expect("a turn after 0, 3 or 5 stones");
        let steps = opening_turn(&opening, &opts);
        for step in &steps {
            opening
                .apply(seat, step.clone())
                .expect("the AI's steps are legal");
        }
        self.pos = Some(Position::from_game(opening.game()));
        if self.timeout_match > 0 {
            self.time_left = self
                .time_left
                .saturating_sub(started.elapsed().as_millis() as u64);
        }
        match steps.first() {
            Some(Step::Choose(Choice::Black)) => {
                writeln!(out, "MESSAGE swap2: takes black")?;
                writeln!(out, "SWAP")
            }
            Some(Step::Choose(Choice::White)) => {
                writeln!(out, "MESSAGE swap2: takes white")?;
                let left = budget.saturating_sub(started.elapsed());
                self.reply_within(left.max(Duration::from_millis(20)), out)
            }
            _ => {
                let placed: Vec<String> = steps
                    .iter()
                    .filter_map(|s| match s {
                        Step::Place(p) => Some(format!("{},{}", p.col, p.row)),
                        _ => None,
                    })
                    .collect();
                writeln!(out, "{}", placed.join(" "))
            }
        }
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
            "SWAP2BOARD" => {
                // Lines "x,y" in move order until DONE.
                let mut stones: Vec<Point> = Vec::new();
                let mut bad = false;
                for l in lines.by_ref() {
                    let l = l?;
                    let l = l.trim();
                    if l.eq_ignore_ascii_case("DONE") {
                        break;
                    }
                    match engine.parse_point(l) {
                        Some(p) if l.split(',').count() == 2 => stones.push(p),
                        _ => bad = true,
                    }
                }
                if bad {
                    writeln!(out, "ERROR bad SWAP2BOARD line")?;
                } else {
                    engine.swap2(&stones, &mut out)?;
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
