//! Line patterns: what one stone placed on an empty point makes along one direction.
//!
//! A point's neighbourhood along a line is the five cells on each side, each of which is empty,
//! ours, or blocked (an opponent stone or the board edge: both stop a line the same way). That is
//! ten base-3 digits, so every neighbourhood is one of 3^10 = 59 049 keys, and the shape a stone
//! makes there is precomputed once into a table ([`shape`]). The position keeps each key up to
//! date incrementally (see `position.rs`), so classifying a point costs four table look-ups.
//!
//! The table is built by retrograde classification: a neighbourhood with more of our stones is
//! classified before one with fewer, so "what does one more stone here make" is a look-up too.

use std::sync::OnceLock;

/// Number of cells read on each side of the point.
pub const REACH: usize = 5;
/// Number of distinct neighbourhoods: 3^(2 × REACH).
pub const KEYS: usize = 59_049;

/// What a stone placed on the point makes along one line, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Shape {
    /// No five can ever run through this point on this line.
    Dead = 0,
    /// A five is still possible, but no two-stone shape.
    One,
    /// Can become a (closed) three with one more stone.
    Two,
    /// Can become an open three with one more stone.
    OpenTwo,
    /// Can become a four with one more stone, but not an open four.
    Three,
    /// Can become an open four (or two fours on this line) with one more stone.
    OpenThree,
    /// Exactly one empty point on this line completes a five.
    Four,
    /// Two or more empty points complete a five: a straight four or two fours on one line.
    OpenFour,
    /// A five (exactly five under the exact rule).
    Five,
    /// Six or more in a row under the exact rule: no win (and forbidden for black in renju).
    Overline,
}

impl Shape {
    const ALL: [Shape; 10] = [
        Shape::Dead,
        Shape::One,
        Shape::Two,
        Shape::OpenTwo,
        Shape::Three,
        Shape::OpenThree,
        Shape::Four,
        Shape::OpenFour,
        Shape::Five,
        Shape::Overline,
    ];
    pub fn from_u8(v: u8) -> Shape {
        Shape::ALL[v as usize]
    }
}

/// Digit of an empty cell, of our stone, of a blocked cell.
pub const EMPTY: u32 = 0;
pub const OWN: u32 = 1;
pub const BLOCKED: u32 = 2;

/// Place value of the digit at offset `j` (−5..=−1, 1..=5) from the point.
pub const fn place(j: isize) -> u32 {
    let pos = if j < 0 {
        j + REACH as isize
    } else {
        j + REACH as isize - 1
    };
    POW3[pos as usize]
}

const POW3: [u32; 10] = [1, 3, 9, 27, 81, 243, 729, 2187, 6561, 19683];

/// The shape for `key` when fives must be exactly five stones (`exact`) or five or more.
pub fn shape(key: u32, exact: bool) -> Shape {
    Shape::from_u8(table(exact)[key as usize])
}

/// The whole table of [`shape`] as `Shape as u8` values indexed by key, for callers that look
/// up many keys (the position keeps a reference instead of going through the lazy init).
pub fn table(exact: bool) -> &'static [u8] {
    let tables = tables();
    if exact {
        &tables.exact
    } else {
        &tables.long
    }
}

struct Tables {
    long: Vec<u8>,
    exact: Vec<u8>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables {
        long: build(false),
        exact: build(true),
    })
}

/// Cells of a neighbourhood as an 11-cell line with the point itself (ours) in the middle.
fn decode(key: usize) -> [u32; 11] {
    let mut line = [OWN; 11];
    let mut k = key;
    for (pos, cell) in (0..11).filter(|&i| i != REACH).enumerate() {
        let _ = pos;
        line[cell] = (k % 3) as u32;
        k /= 3;
    }
    line
}

fn encode(line: &[u32; 11]) -> usize {
    let mut key = 0usize;
    for cell in (0..11).rev().filter(|&i| i != REACH) {
        key = key * 3 + line[cell] as usize;
    }
    key
}

/// Length of the run of our stones through the middle cell.
fn run_through_middle(line: &[u32; 11]) -> usize {
    let mut lo = REACH;
    while lo > 0 && line[lo - 1] == OWN {
        lo -= 1;
    }
    let mut hi = REACH;
    while hi < 10 && line[hi + 1] == OWN {
        hi += 1;
    }
    hi - lo + 1
}

fn build(exact: bool) -> Vec<u8> {
    let mut table = vec![0u8; KEYS];
    // Retrograde order: more own stones first, so every "one more stone" key is already known.
    let mut order: Vec<usize> = (0..KEYS).collect();
    let own_count = |key: usize| decode(key).iter().filter(|&&c| c == OWN).count();
    order.sort_by_key(|&k| std::cmp::Reverse(own_count(k)));
    for key in order {
        let line = decode(key);
        let run = run_through_middle(&line);
        let shape = if run >= 5 && (!exact || run == 5) {
            Shape::Five
        } else if run > 5 {
            Shape::Overline
        } else {
            // What one more stone on each empty cell within four of the point makes: a five
            // through the point never reaches further than four cells from it.
            let mut fives = 0;
            let mut best = Shape::Dead;
            for cell in REACH - 4..=REACH + 4 {
                if line[cell] != EMPTY {
                    continue;
                }
                let mut next = line;
                next[cell] = OWN;
                let s = Shape::from_u8(table[encode(&next)]);
                if s == Shape::Five {
                    fives += 1;
                } else if s != Shape::Overline && s > best {
                    best = s;
                }
            }
            if fives >= 2 {
                Shape::OpenFour
            } else if fives == 1 {
                Shape::Four
            } else {
                match best {
                    Shape::OpenFour => Shape::OpenThree,
                    Shape::Four => Shape::Three,
                    Shape::OpenThree => Shape::OpenTwo,
                    Shape::Three => Shape::Two,
                    Shape::Two | Shape::OpenTwo => Shape::One,
                    _ => Shape::Dead,
                }
            }
        };
        table[key] = shape as u8;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Key of a line drawn as 11 characters, the middle one being the point itself
    /// (`X` ours, `.` empty, `O` blocked; the middle character is ignored).
    fn key_of(drawing: &str) -> u32 {
        let mut line = [EMPTY; 11];
        for (i, ch) in drawing.chars().enumerate() {
            line[i] = match ch {
                'X' | '*' => OWN,
                'O' | '|' => BLOCKED,
                _ => EMPTY,
            };
        }
        line[REACH] = OWN;
        encode(&line) as u32
    }

    /// The table names the textbook shapes correctly (the point is the `*` in the middle).
    #[test]
    fn classic_shapes() {
        let cases = [
            ("...XX*XX...", false, Shape::Five),
            ("..XXX*XX...", false, Shape::Five),
            ("..XXX*XX...", true, Shape::Overline),
            ("...XX*XXX..", true, Shape::Overline),
            ("....X*XX...", false, Shape::OpenFour),
            ("...OX*XX...", false, Shape::Four),
            ("..X.X*X....", false, Shape::Four),
            ("..X.X*X.X..", false, Shape::OpenFour), // two fours on one line
            (".....*XX...", false, Shape::OpenThree),
            ("....O*XX...", false, Shape::Three),
            ("....X*.X...", false, Shape::OpenThree),
            ("....O*XX.O.", false, Shape::Dead),
            (".....*X....", false, Shape::OpenTwo),
            ("....O*X....", false, Shape::Two),
            (".....*.....", false, Shape::One),
            ("...O.*..O..", false, Shape::Dead),
        ];
        for (drawing, exact, want) in cases {
            assert_eq!(
                shape(key_of(drawing), exact),
                want,
                "{drawing} exact={exact}"
            );
        }
    }

    /// Under the exact rule a completion that makes six does not count as a five.
    #[test]
    fn exact_rule_rejects_overline_completion() {
        // Filling the gap at index 1 makes six; filling index 6 makes exactly five.
        assert_eq!(shape(key_of("X.XXX*.O..."), false), Shape::OpenFour);
        assert_eq!(shape(key_of("X.XXX*.O..."), true), Shape::Four);
        // Here the only completion makes six.
        assert_eq!(shape(key_of("X.XXX*O...."), true), Shape::Dead);
    }
}
