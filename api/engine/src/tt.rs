//! Transposition table: one slot per Zobrist hash bucket, always-replace unless the stored
//! entry is of the same position and deeper.
//!
//! Mate scores are stored relative to the node (distance from it, not from the root) so that a
//! position reached by another path at another ply reads back the right mate distance.

use crate::params::WIN_THRESHOLD;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub key: u64,
    pub score: i32,
    pub depth: i16,
    pub best: u16,
    pub bound: Bound,
}

pub const NO_MOVE: u16 = u16::MAX;

pub struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
}

impl Table {
    pub fn new(entries: usize) -> Table {
        let n = entries.next_power_of_two();
        Table {
            slots: vec![None; n],
            mask: n - 1,
        }
    }

    pub fn probe(&self, key: u64, ply: i32) -> Option<Entry> {
        let e = self.slots[key as usize & self.mask]?;
        if e.key != key {
            return None;
        }
        Some(Entry {
            score: from_tt(e.score, ply),
            ..e
        })
    }

    pub fn store(&mut self, key: u64, ply: i32, depth: i32, score: i32, bound: Bound, best: u16) {
        let slot = &mut self.slots[key as usize & self.mask];
        if let Some(old) = slot {
            if old.key == key && old.depth as i32 > depth && bound != Bound::Exact {
                return;
            }
        }
        *slot = Some(Entry {
            key,
            score: to_tt(score, ply),
            depth: depth as i16,
            best,
            bound,
        });
    }
}

fn to_tt(score: i32, ply: i32) -> i32 {
    if score > WIN_THRESHOLD {
        score + ply
    } else if score < -WIN_THRESHOLD {
        score - ply
    } else {
        score
    }
}

fn from_tt(score: i32, ply: i32) -> i32 {
    if score > WIN_THRESHOLD {
        score - ply
    } else if score < -WIN_THRESHOLD {
        score + ply
    } else {
        score
    }
}
