//! Puzzles as stored, on each backend the tests can reach.

use super::*;
