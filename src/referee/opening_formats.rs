//! The notations an openings file may use, line by line, and the board's
//! symmetries `--openings-transform` cycles them through.
//!
//! - kinrow's own `R C R C …`: 1-based rows and columns, row 1 on top;
//! - Gomocup's offsets `x,y, x,y, …` (c-gomoku-cli's `offset` type, the
//!   openings of the Gomocup tournaments): x is the column and y the row,
//!   both counted from the centre, `cols / 2` and `rows / 2` in 0-based
//!   cells (on an even board the centre is the cell right and below the
//!   middle: 7,7 on 15x15 is offset 0,0, and so is 10,10 on 20x20);
//! - the `pos` notation of c-gomoku-cli and Yixin Board, `h8i9j10`: a
//!   letter for the column (`a` is column 1) and a number for the row, 1
//!   on top (c-gomoku-cli reads `a1` as Gomocup's 0,0, the top left).
//!
//! Which one a line is written in is seen from the line itself: a letter
//! first makes it `pos`, a comma makes it offsets, and anything else is
//! kinrow's.

use crate::rules::{parse_coordinate, Cell, Geometry};
use std::fmt;

/// How a line of an openings file writes its stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// `R C R C …`, 1-based, row 1 on top.
    Kinrow,
    /// Gomocup's `x,y, x,y, …`, column and row from the centre.
    Offset,
    /// `h8i9j10`: a letter for the column, a number for the row.
    Pos,
}

impl Notation {
    /// The notation a line (without its comment) is written in.
    pub fn of_line(text: &str) -> Notation {
        if text
            .trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic())
        {
            Notation::Pos
        } else if text.contains(',') {
            Notation::Offset
        } else {
            Notation::Kinrow
        }
    }

    /// The name errors give the notation.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Kinrow => "R C pairs",
            Notation::Offset => "Gomocup offsets",
            Notation::Pos => "pos notation",
        }
    }

    /// The stones of `text` (a line without its comment) on `geometry`, in
    /// order; an error says which stone is wrong and why.
    pub fn read(self, text: &str, geometry: Geometry) -> Result<Vec<Cell>, String> {
        match self {
            Notation::Kinrow => read_kinrow(text, geometry),
            Notation::Offset => read_offsets(text, geometry),
            Notation::Pos => read_pos(text, geometry),
        }
    }
}

/// Whether `cell` is on a board of `geometry`.
fn fits(geometry: Geometry, cell: Cell) -> bool {
    usize::from(cell.row) < geometry.rows() && usize::from(cell.col) < geometry.cols()
}

fn off_board(stone: usize, what: &str, geometry: Geometry) -> String {
    format!(
        "stone {stone}: {what} is off the {}x{} board",
        geometry.rows(),
        geometry.cols()
    )
}

fn read_kinrow(text: &str, geometry: Geometry) -> Result<Vec<Cell>, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if !words.len().is_multiple_of(2) {
        return Err(format!(
            "{} numbers: expected pairs of row and column",
            words.len()
        ));
    }
    let mut cells = Vec::with_capacity(words.len() / 2);
    for (n, pair) in words.chunks(2).enumerate() {
        let stone = n + 1;
        let (r, c) = match (parse_coordinate(pair[0]), parse_coordinate(pair[1])) {
            (Ok(r), Ok(c)) => (r, c),
            (Err(e), _) | (_, Err(e)) => {
                let hint = if pair.iter().any(|w| w.starts_with('-')) {
                    " (Gomocup offsets are written with commas: 1,-2, 0,3)"
                } else {
                    ""
                };
                return Err(format!("stone {stone}: {e}{hint}"));
            }
        };
        let cell = Cell::from_one_based(r, c)
            .filter(|&cell| fits(geometry, cell))
            .ok_or_else(|| off_board(stone, &format!("{r} {c}"), geometry))?;
        cells.push(cell);
    }
    Ok(cells)
}

/// The centre offsets count from, 0-based (row, column): `rows / 2` and
/// `cols / 2`, as c-gomoku-cli takes `boardSize / 2`.
fn centre(geometry: Geometry) -> (i64, i64) {
    (geometry.rows() as i64 / 2, geometry.cols() as i64 / 2)
}

fn read_offsets(text: &str, geometry: Geometry) -> Result<Vec<Cell>, String> {
    let words: Vec<&str> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    if !words.len().is_multiple_of(2) {
        return Err(format!(
            "{} numbers: offsets come in pairs x,y (column, then row)",
            words.len()
        ));
    }
    let (r0, c0) = centre(geometry);
    let mut cells = Vec::with_capacity(words.len() / 2);
    for (n, pair) in words.chunks(2).enumerate() {
        let stone = n + 1;
        let number = |w: &str| {
            w.parse::<i64>().map_err(|_| {
                format!(
                    "stone {stone}: '{}' is not a whole number",
                    crate::rules::clip(w)
                )
            })
        };
        let (x, y) = (number(pair[0])?, number(pair[1])?);
        let (row, col) = (r0.saturating_add(y), c0.saturating_add(x));
        let on = (0..geometry.rows() as i64).contains(&row)
            && (0..geometry.cols() as i64).contains(&col);
        if !on {
            return Err(off_board(stone, &format!("offset {x},{y}"), geometry));
        }
        cells.push(Cell::new(row as u8, col as u8));
    }
    Ok(cells)
}

fn read_pos(text: &str, geometry: Geometry) -> Result<Vec<Cell>, String> {
    let mut cells = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let stone = cells.len() + 1;
        let letter = rest.chars().next().unwrap_or(' ');
        if !letter.is_ascii_alphabetic() {
            return Err(format!(
                "stone {stone}: '{}' where a column letter (a, b, …) was due",
                crate::rules::clip(rest)
            ));
        }
        let after = &rest[1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return Err(format!(
                "stone {stone}: the column letter '{letter}' has no row number after it"
            ));
        }
        let row = parse_coordinate(&after[..digits]).map_err(|e| format!("stone {stone}: {e}"))?;
        let col = u32::from(letter.to_ascii_lowercase() as u8 - b'a') + 1;
        let cell = Cell::from_one_based(row, col)
            .filter(|&cell| fits(geometry, cell))
            .ok_or_else(|| off_board(stone, &format!("{letter}{row}"), geometry))?;
        cells.push(cell);
        rest = after[digits..].trim_start();
    }
    Ok(cells)
}

/// An opening written in a notation, for a board (offsets need its
/// centre): what [`Notation::read`] reads back.
pub struct Written<'a> {
    pub notation: Notation,
    pub cells: &'a [Cell],
    pub geometry: Geometry,
}

impl fmt::Display for Written<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (r0, c0) = centre(self.geometry);
        for (i, cell) in self.cells.iter().enumerate() {
            let (row, col) = (i64::from(cell.row), i64::from(cell.col));
            match self.notation {
                Notation::Kinrow => write!(f, "{}{cell}", if i > 0 { " " } else { "" })?,
                Notation::Offset => write!(
                    f,
                    "{}{},{}",
                    if i > 0 { ", " } else { "" },
                    col - c0,
                    row - r0
                )?,
                Notation::Pos => write!(f, "{}{}", (b'a' + cell.col) as char, row + 1)?,
            }
        }
        Ok(())
    }
}

/// One of the board's symmetries, as c-gomoku-cli's `transform` numbers
/// them (x the column, y the row, s the last index): identity, rotations by
/// 90, 180 and 270 degrees, and the flips of y, of x, about the main
/// diagonal and about the other one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symmetry(u8);

impl Symmetry {
    pub const IDENTITY: Symmetry = Symmetry(0);
    const NAMES: [&'static str; 8] = [
        "identity",
        "rotate90",
        "rotate180",
        "rotate270",
        "flipX",
        "flipY",
        "flipXY",
        "flipYX",
    ];

    /// The symmetries of a board of this shape, in c-gomoku-cli's order:
    /// all eight on a square board, and on any other only the four that
    /// keep its shape (identity, rotate180, flipX, flipY).
    pub fn of(geometry: Geometry) -> &'static [Symmetry] {
        const ALL: [Symmetry; 8] = [
            Symmetry(0),
            Symmetry(1),
            Symmetry(2),
            Symmetry(3),
            Symmetry(4),
            Symmetry(5),
            Symmetry(6),
            Symmetry(7),
        ];
        const RECTANGLE: [Symmetry; 4] = [Symmetry(0), Symmetry(2), Symmetry(4), Symmetry(5)];
        if geometry.rows() == geometry.cols() {
            &ALL
        } else {
            &RECTANGLE
        }
    }

    /// The name c-gomoku-cli's README gives it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self.0 as usize]
    }

    /// Where the symmetry takes `cell` on a board of `geometry` (one it
    /// keeps the shape of).
    pub fn apply(self, cell: Cell, geometry: Geometry) -> Cell {
        let (x, y) = (cell.col, cell.row);
        let (sx, sy) = (geometry.cols() as u8 - 1, geometry.rows() as u8 - 1);
        // (x, y) -> (x', y'), as c-gomoku-cli's transformPos; the
        // rotations and diagonal flips only on square boards, sx = sy.
        let (x2, y2) = match self.0 {
            1 => (y, sx - x),
            2 => (sx - x, sy - y),
            3 => (sy - y, x),
            4 => (x, sy - y),
            5 => (sx - x, y),
            6 => (y, x),
            7 => (sy - y, sx - x),
            _ => (x, y),
        };
        Cell::new(y2, x2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn g(rows: u32, cols: u32) -> Geometry {
        Geometry::new(rows, cols, 5, Rule::Free).unwrap()
    }

    fn one_based(cells: &[Cell]) -> Vec<(u8, u8)> {
        cells.iter().map(|c| (c.row + 1, c.col + 1)).collect()
    }

    #[test]
    fn notations_are_told_apart_by_the_line() {
        assert_eq!(Notation::of_line("8 8 9 9"), Notation::Kinrow);
        assert_eq!(Notation::of_line("8,-3, 6,-4"), Notation::Offset);
        assert_eq!(Notation::of_line("h8i9j10"), Notation::Pos);
    }

    #[test]
    fn gomocup_offsets_count_from_the_centre_x_first() {
        // c-gomoku-cli's example: 20x20, centre 10,10 (0-based), so
        // 8,-3 is column 19, row 8 (1-based).
        let cells = Notation::Offset
            .read("8,-3, 6,-4, 5,-4", g(20, 20))
            .unwrap();
        assert_eq!(one_based(&cells), [(8, 19), (7, 17), (7, 16)]);
        // 15x15: 0,0 is h8, the centre; spaces work as separators too.
        let cells = Notation::Offset.read("0,0 1 -1", g(15, 15)).unwrap();
        assert_eq!(one_based(&cells), [(8, 8), (7, 9)]);
        // A rectangle: the centre is rows / 2, cols / 2.
        let cells = Notation::Offset.read("0,0", g(9, 14)).unwrap();
        assert_eq!(one_based(&cells), [(5, 8)]);
        let e = Notation::Offset.read("0,0, 8,0", g(15, 15)).unwrap_err();
        assert_eq!(e, "stone 2: offset 8,0 is off the 15x15 board");
        assert!(Notation::Offset
            .read("0,0, 7,", g(15, 15))
            .unwrap_err()
            .contains("3 numbers"));
        let e = Notation::Offset.read("0,0, 1,x", g(15, 15)).unwrap_err();
        assert_eq!(e, "stone 2: 'x' is not a whole number");
        let e = Notation::Offset
            .read("0,0, 99999999999999999999,1", g(15, 15))
            .unwrap_err();
        assert!(e.starts_with("stone 2: '9999"), "{e}");
    }

    #[test]
    fn pos_notation_is_a_column_letter_and_a_row_from_the_top() {
        let cells = Notation::Pos.read("h8i9j10", g(15, 15)).unwrap();
        assert_eq!(one_based(&cells), [(8, 8), (9, 9), (10, 10)]);
        let cells = Notation::Pos.read("a1 o15", g(15, 15)).unwrap();
        assert_eq!(one_based(&cells), [(1, 1), (15, 15)]);
        let e = Notation::Pos.read("h8p1", g(15, 15)).unwrap_err();
        assert_eq!(e, "stone 2: p1 is off the 15x15 board");
        let e = Notation::Pos.read("h8i", g(15, 15)).unwrap_err();
        assert!(
            e.contains("stone 2: the column letter 'i' has no row number"),
            "{e}"
        );
        let e = Notation::Pos.read("h8 9", g(15, 15)).unwrap_err();
        assert!(e.contains("stone 2: '9' where a column letter"), "{e}");
        assert!(Notation::Pos.read("h0", g(15, 15)).is_err());
    }

    #[test]
    fn every_notation_reads_back_what_it_writes() {
        for geometry in [g(15, 15), g(20, 20), g(9, 14)] {
            let cells = [Cell::new(0, 0), Cell::new(4, 7), Cell::new(8, 8)];
            for notation in [Notation::Kinrow, Notation::Offset, Notation::Pos] {
                let text = Written {
                    notation,
                    cells: &cells,
                    geometry,
                }
                .to_string();
                assert_eq!(Notation::of_line(&text), notation, "{text}");
                assert_eq!(notation.read(&text, geometry).unwrap(), cells, "{text}");
            }
        }
        let written = Written {
            notation: Notation::Offset,
            cells: &[Cell::new(7, 2)],
            geometry: g(15, 15),
        };
        assert_eq!(written.to_string(), "-5,0");
    }

    #[test]
    fn symmetries_are_c_gomoku_clis_and_keep_the_board() {
        // c-gomoku-cli's table on 15x15 (s = 14): (x, y) = (2, 5).
        let sq = g(15, 15);
        let cell = Cell::new(5, 2);
        let images: Vec<(u8, u8)> = Symmetry::of(sq)
            .iter()
            .map(|s| {
                let c = s.apply(cell, sq);
                (c.col, c.row)
            })
            .collect();
        assert_eq!(
            images,
            [
                (2, 5),
                (5, 12),
                (12, 9),
                (9, 2),
                (2, 9),
                (12, 5),
                (5, 2),
                (9, 12)
            ]
        );
        // Each is a bijection of the board; a rectangle keeps four.
        for geometry in [sq, g(6, 9)] {
            let syms = Symmetry::of(geometry);
            assert_eq!(
                syms.len(),
                if geometry.rows() == geometry.cols() {
                    8
                } else {
                    4
                }
            );
            for s in syms {
                let mut seen = std::collections::HashSet::new();
                for r in 0..geometry.rows() as u8 {
                    for c in 0..geometry.cols() as u8 {
                        let image = s.apply(Cell::new(r, c), geometry);
                        assert!(fits(geometry, image), "{}", s.name());
                        assert!(seen.insert(image));
                    }
                }
            }
        }
    }
}
