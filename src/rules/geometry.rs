//! The shape of a game: board size, K and the rule, checked once.

use super::types::Rule;
use std::fmt;
use std::str::FromStr;

/// Largest number of rows or columns.
pub const MAX_SIDE: usize = 32;

/// A checked game shape: `rows` x `cols` cells, `k` in a row wins under `rule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    rows: u8,
    cols: u8,
    k: u8,
    rule: Rule,
}

/// Why a shape is not playable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// Rows or columns outside 1..=32.
    Side { rows: u32, cols: u32 },
    /// K outside 1..=max(rows, cols).
    K { k: u32, max: u32 },
    /// Renju with a K other than 5: its forbidden moves are defined for five.
    RenjuK { k: u32 },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::Side { rows, cols } => write!(
                f,
                "{rows}x{cols}: rows and columns must be from 1 to {MAX_SIDE}"
            ),
            SizeError::K { k, max } => write!(f, "k {k}: must be from 1 to {max}"),
            SizeError::RenjuK { k } => write!(f, "k {k}: renju is played with k 5"),
        }
    }
}
impl std::error::Error for SizeError {}

impl Geometry {
    /// Tic-tac-toe: 3x3, three in a row.
    pub const TIC_TAC_TOE: Geometry = Geometry {
        rows: 3,
        cols: 3,
        k: 3,
        rule: Rule::Free,
    };

    /// Checks a shape (renju needs K = 5; any board that holds five will
    /// do).
    pub fn new(rows: u32, cols: u32, k: u32, rule: Rule) -> Result<Geometry, SizeError> {
        let side_ok = |v: u32| (1..=MAX_SIDE as u32).contains(&v);
        if !side_ok(rows) || !side_ok(cols) {
            return Err(SizeError::Side { rows, cols });
        }
        let max = rows.max(cols);
        if !(1..=max).contains(&k) {
            return Err(SizeError::K { k, max });
        }
        if rule == Rule::Renju && k != 5 {
            return Err(SizeError::RenjuK { k });
        }
        Ok(Geometry {
            rows: rows as u8,
            cols: cols as u8,
            k: k as u8,
            rule,
        })
    }

    /// The default K for a board when none is given: min(5, rows, cols).
    pub fn default_k(rows: u32, cols: u32) -> u32 {
        5.min(rows).min(cols).max(1)
    }

    pub fn rows(&self) -> usize {
        self.rows as usize
    }
    pub fn cols(&self) -> usize {
        self.cols as usize
    }
    pub fn k(&self) -> usize {
        self.k as usize
    }
    pub fn rule(&self) -> Rule {
        self.rule
    }
    /// Number of cells.
    pub fn area(&self) -> usize {
        self.rows() * self.cols()
    }

    /// The board's symmetries (8 on a square board, 4 otherwise; the first
    /// is the identity), each as the image of every cell index `r * cols +
    /// c`: `symmetries()[s][i]` is where cell `i` goes under symmetry `s`.
    pub fn symmetries(&self) -> Vec<Vec<usize>> {
        // Maps of (row, col) given the last row and column; the last four
        // swap rows and columns, so only square boards have them.
        type CellMap = fn(usize, usize, usize, usize) -> (usize, usize);
        let maps: [CellMap; 8] = [
            |r, c, _, _| (r, c),
            |r, c, lr, _| (lr - r, c),
            |r, c, _, lc| (r, lc - c),
            |r, c, lr, lc| (lr - r, lc - c),
            |r, c, _, _| (c, r),
            |r, c, lr, lc| (lc - c, lr - r),
            |r, c, lr, _| (c, lr - r),
            |r, c, _, lc| (lc - c, r),
        ];
        let (rows, cols) = (self.rows(), self.cols());
        let count = if rows == cols { 8 } else { 4 };
        maps[..count]
            .iter()
            .map(|map| {
                (0..self.area())
                    .map(|i| {
                        let (r, c) = map(i / cols, i % cols, rows - 1, cols - 1);
                        r * cols + c
                    })
                    .collect()
            })
            .collect()
    }
}

/// SplitMix64: a fixed, well-mixed sequence, for Zobrist keys.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The smallest of a position's Zobrist hashes under the first
/// `symmetries` of the board's symmetries (the same for every symmetric
/// position: a table key) and the symmetry that gives it.
#[inline]
pub fn smallest_hash(hashes: &[u64], symmetries: usize) -> (u64, usize) {
    let mut best = (hashes[0], 0);
    for (s, &h) in hashes.iter().enumerate().take(symmetries).skip(1) {
        if h < best.0 {
            best = (h, s);
        }
    }
    best
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry::TIC_TAC_TOE
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{} k{} {}", self.rows, self.cols, self.k, self.rule)
    }
}

/// A board size written `ROWSxCOLS` (as on the command line), unchecked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardSize {
    pub rows: u32,
    pub cols: u32,
}

impl FromStr for BoardSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("'{s}' is not a board size like 3x3 or 15x15");
        let (r, c) = s.split_once(['x', 'X']).ok_or_else(bad)?;
        let rows: u32 = r.parse().map_err(|_| bad())?;
        let cols: u32 = c.parse().map_err(|_| bad())?;
        let side_ok = |v: u32| (1..=MAX_SIDE as u32).contains(&v);
        if !side_ok(rows) || !side_ok(cols) {
            return Err(format!(
                "'{s}': rows and columns must be from 1 to {MAX_SIDE}"
            ));
        }
        Ok(BoardSize { rows, cols })
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}
