//! The puzzle service below HTTP.

use super::*;
