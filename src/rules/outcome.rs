//! The end of a game as a type: a win with its line, or a draw.

use super::types::{Cell, Player};
use std::fmt;

/// A straight run of cells: where it starts, its step and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Line {
    start: Cell,
    step: (i8, i8),
    len: u8,
}

impl Line {
    /// A run of `len` cells from `start`, moving by `step` (rows, columns).
    pub fn new(start: Cell, step: (i8, i8), len: u8) -> Line {
        Line { start, step, len }
    }

    /// Number of cells in the run.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Never true for a winning line; here for completeness.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cells of the run, in order.
    pub fn cells(&self) -> impl ExactSizeIterator<Item = Cell> {
        let Line { start, step, len } = *self;
        (0..len as i32).map(move |i| {
            Cell::new(
                (start.row as i32 + i * step.0 as i32) as u8,
                (start.col as i32 + i * step.1 as i32) as u8,
            )
        })
    }

    /// Whether `cell` is on the run.
    pub fn contains(&self, cell: Cell) -> bool {
        self.cells().any(|c| c == cell)
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `winner` made a line; `line` is the whole run through the last stone.
    Win { winner: Player, line: Line },
    /// The board filled up without a win.
    Draw,
}

impl Outcome {
    /// The winner, if any.
    pub fn winner(&self) -> Option<Player> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw => None,
        }
    }
}

impl fmt::Display for Outcome {
    /// As in the protocol's `status`: `win X 1 1 2 2 3 3` or `draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win { winner, line } => {
                write!(f, "win {winner}")?;
                for c in line.cells() {
                    write!(f, " {c}")?;
                }
                Ok(())
            }
            Outcome::Draw => f.write_str("draw"),
        }
    }
}
