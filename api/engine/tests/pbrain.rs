//! Scripted Gomocup-protocol dialogues with the real `pbrain-gomoku` binary.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Brain {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Brain {
    fn start() -> Brain {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-gomoku"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the engine binary starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Brain {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// The next answer line, skipping MESSAGE and DEBUG lines (informational in the protocol).
    fn answer(&mut self) -> String {
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).expect("read") > 0,
                "engine closed its output"
            );
            let line = line.trim().to_string();
            if !line.starts_with("MESSAGE") && !line.starts_with("DEBUG") {
                return line;
            }
        }
    }

    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.answer()
    }

    /// A move answer "x,y" as (x, y).
    fn ask_move(&mut self, line: &str) -> (usize, usize) {
        let a = self.ask(line);
        parse_move(&a)
    }

    fn end(mut self) {
        self.send("END");
        let status = self.child.wait().expect("exit");
        assert!(status.success());
    }
}

fn parse_move(a: &str) -> (usize, usize) {
    let (x, y) = a
        .split_once(',')
        .unwrap_or_else(|| panic!("not a move: {a}"));
    (x.parse().expect("x"), y.parse().expect("y"))
}

/// START, INFO, BEGIN, TURN, ABOUT and END in one game: the engine opens in the centre, answers
/// a turn with a free point on the board, describes itself and exits cleanly.
#[test]
fn a_short_game_dialogue() {
    let mut b = Brain::start();
    assert_eq!(b.ask("START 15"), "OK");
    b.send("INFO timeout_turn 300");
    b.send("INFO timeout_match 100000");
    b.send("INFO time_left 100000");
    b.send("INFO max_memory 83886080");
    b.send("INFO rule 0");
    assert_eq!(b.ask_move("BEGIN"), (7, 7));
    let (x, y) = b.ask_move("TURN 8,7");
    assert!(x < 15 && y < 15 && (x, y) != (7, 7) && (x, y) != (8, 7));
    let about = b.ask("ABOUT");
    assert!(
        about.starts_with("name=\"") && about.contains("version="),
        "{about}"
    );
    assert!(b.ask("NONSENSE").starts_with("UNKNOWN"));
    b.end();
}

/// BOARD … DONE: the engine (own stones marked 1) completes its vertical four. The answer is
/// x = column, y = row, so swapping them would name a different, wrong point.
#[test]
fn board_command_and_coordinate_order() {
    let mut b = Brain::start();
    assert_eq!(b.ask("START 20"), "OK");
    b.send("INFO timeout_turn 300");
    // Own stones at column 3, rows 5..=8; the opponent's at column 10 (and one blocking above).
    b.send("BOARD");
    for (x, y, who) in [
        (3, 5, 1),
        (10, 5, 2),
        (3, 6, 1),
        (10, 6, 2),
        (3, 7, 1),
        (10, 7, 2),
        (3, 8, 1),
        (3, 4, 2),
    ] {
        b.send(&format!("{x},{y},{who}"));
    }
    assert_eq!(b.ask_move("DONE"), (3, 9));
    b.end();
}

/// The engine blocks the opponent's four given by TURN, after RESTART clears the old game.
#[test]
fn restart_then_block_a_four() {
    let mut b = Brain::start();
    assert_eq!(b.ask("START 15"), "OK");
    b.send("INFO timeout_turn 300");
    assert_eq!(b.ask_move("BEGIN"), (7, 7));
    assert_eq!(b.ask("RESTART"), "OK");
    // Opponent (black) builds a row at y = 2 while we answer; then it has four: 1..=4.
    b.send("BOARD");
    for (x, y, who) in [
        (1, 2, 2),
        (9, 9, 1),
        (2, 2, 2),
        (9, 10, 1),
        (3, 2, 2),
        (11, 12, 1),
        (4, 2, 2),
        (0, 2, 1),
    ] {
        b.send(&format!("{x},{y},{who}"));
    }
    // We hold 4 stones against the opponent's 4: we are black and to move; block at (5,2).
    assert_eq!(b.ask_move("DONE"), (5, 2));
    b.end();
}

/// Renju (INFO rule 4): as black, the engine never takes its double-four point (a win in
/// freestyle, forbidden in renju); in freestyle (rule 0) it does.
#[test]
fn renju_rule_forbids_the_double_four() {
    let position = [
        (7, 4, 1),
        (7, 3, 2),
        (7, 5, 1),
        (3, 7, 2),
        (7, 6, 1),
        (11, 9, 2),
        (4, 7, 1),
        (9, 11, 2),
        (5, 7, 1),
        (0, 14, 2),
        (6, 7, 1),
        (14, 0, 2),
    ];
    for (rule, want_double_four) in [(0, true), (4, false)] {
        let mut b = Brain::start();
        assert_eq!(b.ask("START 15"), "OK");
        b.send("INFO timeout_turn 300");
        b.send(&format!("INFO rule {rule}"));
        b.send("BOARD");
        for (x, y, who) in position {
            b.send(&format!("{x},{y},{who}"));
        }
        let m = b.ask_move("DONE");
        assert_eq!(m == (7, 7), want_double_four, "rule {rule}: played {m:?}");
        b.end();
    }
}

/// Bad input gets ERROR lines, not a crash: an unsupported size, a bad or occupied point.
#[test]
fn errors_are_reported() {
    let mut b = Brain::start();
    assert!(b.ask("START 40").starts_with("ERROR"));
    assert_eq!(b.ask("START 15"), "OK");
    b.send("INFO timeout_turn 300");
    assert!(b.ask("TURN 99,1").starts_with("ERROR"));
    let (x, y) = b.ask_move("TURN 7,7");
    assert!(b.ask(&format!("TURN {x},{y}")).starts_with("ERROR"));
    b.end();
}

/// Stones answered to SWAP2BOARD as (x, y) pairs.
fn parse_stones(a: &str) -> Vec<(usize, usize)> {
    a.split_whitespace().map(parse_move).collect()
}

/// Sends SWAP2BOARD with the given stones (x, y) and returns the answer.
fn swap2(b: &mut Brain, stones: &[(usize, usize)]) -> String {
    b.send("SWAP2BOARD");
    for (x, y) in stones {
        b.send(&format!("{x},{y}"));
    }
    b.ask("DONE")
}

/// SWAP2BOARD with no stones: the brain places swap2's three stones, on distinct free points
/// near the centre.
#[test]
fn swap2board_places_three() {
    let mut b = Brain::start();
    assert_eq!(b.ask("START 15"), "OK");
    b.send("INFO timeout_turn 400");
    let stones = parse_stones(&swap2(&mut b, &[]));
    assert_eq!(stones.len(), 3, "{stones:?}");
    assert!(stones[0] != stones[1] && stones[1] != stones[2] && stones[0] != stones[2]);
    assert!(stones
        .iter()
        .all(|&(x, y)| x.abs_diff(7) <= 3 && y.abs_diff(7) <= 3));
    b.end();
}

/// SWAP2BOARD with three and with five stones: SWAP (take black) where black is far ahead —
/// black's two stones together in the centre, white's in a corner — and a move as white where
/// white holds the centre and black the corners; after SWAP the game goes on with TURN.
#[test]
fn swap2board_takes_the_favoured_side() {
    // (x, y) = (column, row from the top) on 15×15.
    let black_ahead3 = [(7, 7), (0, 14), (8, 6)];
    let white_ahead3 = [(0, 14), (7, 7), (14, 0)];
    let black_ahead5 = [(7, 7), (0, 14), (8, 6), (14, 14), (9, 5)];
    let white_ahead5 = [(0, 14), (7, 7), (14, 0), (7, 6), (0, 0)];
    for stones in [&black_ahead3[..], &black_ahead5[..]] {
        let mut b = Brain::start();
        assert_eq!(b.ask("START 15"), "OK");
        b.send("INFO timeout_turn 400");
        assert_eq!(swap2(&mut b, stones), "SWAP");
        // The other side (white) moves; the brain answers as black.
        let (x, y) = b.ask_move("TURN 3,3");
        assert!((x, y) != (3, 3) && !stones.contains(&(x, y)));
        b.end();
    }
    for stones in [&white_ahead3[..], &white_ahead5[..]] {
        let mut b = Brain::start();
        assert_eq!(b.ask("START 15"), "OK");
        b.send("INFO timeout_turn 400");
        let answer = swap2(&mut b, stones);
        let m = parse_move(&answer);
        assert!(m.0 < 15 && m.1 < 15 && !stones.contains(&m), "{answer}");
        b.end();
    }
}

/// Wrong SWAP2BOARD input gets ERROR lines: a count other than 0, 3 or 5, a repeated point, a
/// bad line, and swap2 under renju (which plays its own opening rule).
#[test]
fn swap2board_errors() {
    let mut b = Brain::start();
    assert_eq!(b.ask("START 15"), "OK");
    b.send("INFO timeout_turn 300");
    assert!(swap2(&mut b, &[(7, 7), (8, 8)]).starts_with("ERROR"));
    assert!(swap2(&mut b, &[(7, 7), (8, 8), (7, 7)]).starts_with("ERROR"));
    b.send("SWAP2BOARD");
    b.send("7,x");
    assert!(b.ask("DONE").starts_with("ERROR"));
    b.send("INFO rule 4");
    assert!(swap2(&mut b, &[]).starts_with("ERROR"));
    b.end();
}
