//! GTP vertices: a column letter (`A` … `Z` without `I`) and a row number
//! counted from 1 at the bottom, as in Go: on 15x15 the centre is `H8`.

use crate::rules::{clip, Cell, Geometry};
use std::fmt;

/// The column letters: `I` is skipped (it looks like `J` and `1`).
const LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// The widest board GTP vertices can name with one letter.
pub const MAX_GTP_SIDE: usize = LETTERS.len();

/// A point of the board in GTP terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vertex {
    /// 0-based column (`A` is 0, `J` is 8).
    pub col: u32,
    /// Row number from 1 at the bottom.
    pub row: u32,
}

/// What `play` and `genmove` deal in: a vertex or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GtpMove {
    Vertex(Vertex),
    Pass,
}

impl Vertex {
    /// The vertex of a cell on a board of `geometry` (rows counted from the
    /// top inside kinrow, from the bottom in GTP).
    pub fn of(cell: Cell, geometry: Geometry) -> Vertex {
        Vertex {
            col: u32::from(cell.col),
            row: (geometry.rows() - cell.row as usize) as u32,
        }
    }

    /// The cell of this vertex on a board of `geometry`, if it is on it.
    pub fn cell(self, geometry: Geometry) -> Option<Cell> {
        let (rows, cols) = (geometry.rows() as u32, geometry.cols() as u32);
        (self.col < cols && (1..=rows).contains(&self.row))
            .then(|| Cell::new((rows - self.row) as u8, self.col as u8))
    }

    /// The column's letter.
    pub fn letter(col: usize) -> char {
        LETTERS.get(col).map_or('?', |&b| b as char)
    }
}

impl fmt::Display for Vertex {
    /// Upper case, as GoGui matches it: `H8`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", Vertex::letter(self.col as usize), self.row)
    }
}

impl fmt::Display for GtpMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtpMove::Vertex(v) => v.fmt(f),
            GtpMove::Pass => f.write_str("pass"),
        }
    }
}

/// A vertex that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadVertex(pub String);

impl fmt::Display for BadVertex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a vertex like H8 or pass", self.0)
    }
}

impl std::str::FromStr for GtpMove {
    type Err = BadVertex;
    /// `H8`, `h8`, `pass` (any case); a row too large for any board
    /// saturates rather than overflows.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadVertex(clip(s));
        if s.eq_ignore_ascii_case("pass") {
            return Ok(GtpMove::Pass);
        }
        let mut chars = s.chars();
        let letter = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
        let col = LETTERS
            .iter()
            .position(|&b| b as char == letter)
            .ok_or_else(bad)?;
        let digits = chars.as_str();
        let row = crate::rules::parse_coordinate(digits).map_err(|_| bad())?;
        if row == 0 {
            return Err(bad());
        }
        Ok(GtpMove::Vertex(Vertex {
            col: col as u32,
            row,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn gomoku() -> Geometry {
        Geometry::new(15, 15, 5, Rule::Free).unwrap()
    }

    #[test]
    fn go_style_vertices_on_15x15() {
        let g = gomoku();
        // The centre, the corners; I is skipped: the 9th column is J.
        assert_eq!(Vertex::of(Cell::new(7, 7), g).to_string(), "H8");
        assert_eq!(Vertex::of(Cell::new(14, 0), g).to_string(), "A1");
        assert_eq!(Vertex::of(Cell::new(0, 14), g).to_string(), "P15");
        assert_eq!(Vertex::of(Cell::new(0, 8), g).to_string(), "J15");
        for r in 0..15 {
            for c in 0..15 {
                let cell = Cell::new(r, c);
                let text = Vertex::of(cell, g).to_string();
                let GtpMove::Vertex(v) = text.to_lowercase().parse().unwrap() else {
                    panic!("{text}")
                };
                assert_eq!(v.cell(g), Some(cell), "{text}");
            }
        }
    }

    #[test]
    fn bad_and_off_board_vertices() {
        let g = gomoku();
        assert_eq!("PASS".parse(), Ok(GtpMove::Pass));
        for bad in ["", "I5", "H", "H0", "8H", "HH8", "H-1", "H8.5", "é3"] {
            assert!(bad.parse::<GtpMove>().is_err(), "{bad}");
        }
        let off = |s: &str| match s.parse::<GtpMove>() {
            Ok(GtpMove::Vertex(v)) => v.cell(g),
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(off("Q1"), None);
        assert_eq!(off("A16"), None);
        assert_eq!(off(&format!("A{}", "9".repeat(40))), None);
    }
}
