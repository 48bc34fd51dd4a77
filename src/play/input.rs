//! What a person types at the move prompt, parsed against the board.

use crate::client::quoted;
use crate::rules::{parse_coordinate, Board, Cell, Forbidden};
use std::fmt;

/// A valid entry at the move prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A legal move.
    Move(Cell),
    /// Take back the last move (and the bot's reply).
    Undo,
    /// Leave the game.
    Quit,
    /// Show how to enter moves.
    Help,
    /// Show the solver's value of every move.
    Hint,
}

/// Why an entry was refused; the board is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryError {
    /// Nothing but blanks.
    Empty,
    /// A word that is neither a number nor a command.
    NotANumber(String),
    /// One number where a row and a column are needed.
    OneNumber,
    /// More than two numbers.
    TooMany,
    /// A 3x3 cell number outside 1-9.
    CellNumber(String),
    /// A row or column outside the board.
    OffBoard {
        what: &'static str,
        value: String,
        max: usize,
    },
    /// The cell already holds a stone.
    Occupied(Cell, char),
    /// Renju: the cell is forbidden to Black, the side to move.
    Forbidden(Cell, Forbidden),
}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryError::Empty => f.write_str("Please enter a move: a row and a column, like 2 1."),
            EntryError::NotANumber(w) => write!(
                f,
                "'{w}' is not a number. Enter a row and a column, like 2 1 (h for help)."
            ),
            EntryError::OneNumber => {
                f.write_str("Enter both a row and a column, separated by a space, like 2 1.")
            }
            EntryError::TooMany => {
                f.write_str("Too many numbers: enter a row and a column, like 2 1.")
            }
            EntryError::CellNumber(v) => write!(
                f,
                "There is no cell {v}: cells are numbered 1 to 9 (or enter a row and a column)."
            ),
            EntryError::OffBoard { what, value, max } => {
                write!(f, "There is no {what} {value}: {what}s go from 1 to {max}.")
            }
            EntryError::Occupied(cell, by) => {
                write!(f, "{cell} is already taken by {by}. Choose an empty cell.")
            }
            EntryError::Forbidden(cell, kind) => {
                let what = match kind {
                    Forbidden::Overline => "six or more in a row (an overline)",
                    Forbidden::DoubleFour => "two fours at once (a double-four)",
                    Forbidden::DoubleThree => "two open threes at once (a double-three)",
                };
                write!(
                    f,
                    "{cell} is forbidden to X under renju: it would make {what}. \
                     Choose a cell not marked #."
                )
            }
        }
    }
}

/// Whether a board takes single cell numbers 1-9 (the classic 3x3 input).
pub fn takes_cell_numbers(board: &Board) -> bool {
    let g = board.geometry();
    g.rows() == 3 && g.cols() == 3
}

/// Parses one line typed at the move prompt. Commas count as blanks, so
/// `2,1` works too; command words are case-insensitive.
pub fn parse_entry(line: &str, board: &Board) -> Result<Entry, EntryError> {
    let spaced = line.replace(',', " ");
    let words: Vec<&str> = spaced.split_whitespace().collect();
    if let [word] = words.as_slice() {
        match word.to_ascii_lowercase().as_str() {
            "u" | "undo" => return Ok(Entry::Undo),
            "q" | "quit" | "exit" => return Ok(Entry::Quit),
            "h" | "help" | "?" => return Ok(Entry::Help),
            "a" | "hint" | "analyze" => return Ok(Entry::Hint),
            _ => {}
        }
    }
    let cell = match words.as_slice() {
        [] => return Err(EntryError::Empty),
        [n] => {
            let value = number(n)?;
            if !takes_cell_numbers(board) {
                return Err(EntryError::OneNumber);
            }
            if !(1..=9).contains(&value) {
                return Err(EntryError::CellNumber(quoted(n)));
            }
            let i = (value - 1) as u8;
            Cell::new(i / 3, i % 3)
        }
        [r, c] => {
            let geo = board.geometry();
            let row = coordinate(r, "row", geo.rows())?;
            let col = coordinate(c, "column", geo.cols())?;
            Cell::new(row, col)
        }
        _ => return Err(EntryError::TooMany),
    };
    if let Some(by) = board.stone_at(cell) {
        return Err(EntryError::Occupied(cell, by.letter()));
    }
    match board.forbidden(cell) {
        Some(kind) => Err(EntryError::Forbidden(cell, kind)),
        None => Ok(Entry::Move(cell)),
    }
}

/// A whole number as typed (a sign is allowed so `-1` is called out of
/// range rather than not a number); very large values saturate.
fn number(word: &str) -> Result<i64, EntryError> {
    let digits = word.strip_prefix(['-', '+']).unwrap_or(word);
    let magnitude =
        parse_coordinate(digits).map_err(|_| EntryError::NotANumber(quoted(word)))? as i64;
    Ok(if word.starts_with('-') {
        -magnitude
    } else {
        magnitude
    })
}

/// A 1-based coordinate checked against the board side, made 0-based.
fn coordinate(word: &str, what: &'static str, max: usize) -> Result<u8, EntryError> {
    let value = number(word)?;
    if (1..=max as i64).contains(&value) {
        Ok((value - 1) as u8)
    } else {
        Err(EntryError::OffBoard {
            what,
            value: quoted(word),
            max,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Geometry, Rule};

    fn ttt() -> Board {
        Board::new(Geometry::TIC_TAC_TOE)
    }

    #[test]
    fn moves_commands_and_cell_numbers() {
        let b = ttt();
        assert_eq!(parse_entry(" 2 1 ", &b), Ok(Entry::Move(Cell::new(1, 0))));
        assert_eq!(parse_entry("2,1", &b), Ok(Entry::Move(Cell::new(1, 0))));
        assert_eq!(parse_entry("1", &b), Ok(Entry::Move(Cell::new(0, 0))));
        assert_eq!(parse_entry("6", &b), Ok(Entry::Move(Cell::new(1, 2))));
        assert_eq!(parse_entry("9", &b), Ok(Entry::Move(Cell::new(2, 2))));
        assert_eq!(parse_entry("U", &b), Ok(Entry::Undo));
        assert_eq!(parse_entry("q", &b), Ok(Entry::Quit));
        assert_eq!(parse_entry("help", &b), Ok(Entry::Help));
        assert_eq!(parse_entry("A", &b), Ok(Entry::Hint));
        assert_eq!(parse_entry("hint", &b), Ok(Entry::Hint));
    }

    #[test]
    fn every_kind_of_bad_entry() {
        let mut b = ttt();
        b.try_play(Cell::new(1, 1)).unwrap();
        assert_eq!(parse_entry("   ", &b), Err(EntryError::Empty));
        assert_eq!(
            parse_entry("a b", &b),
            Err(EntryError::NotANumber("a".into()))
        );
        assert_eq!(
            parse_entry("x", &b),
            Err(EntryError::NotANumber("x".into()))
        );
        assert_eq!(parse_entry("1 2 3", &b), Err(EntryError::TooMany));
        assert_eq!(
            parse_entry("0", &b),
            Err(EntryError::CellNumber("0".into()))
        );
        assert_eq!(
            parse_entry("10", &b),
            Err(EntryError::CellNumber("10".into()))
        );
        assert!(matches!(
            parse_entry("4 1", &b),
            Err(EntryError::OffBoard { what: "row", .. })
        ));
        assert!(matches!(
            parse_entry("1 -1", &b),
            Err(EntryError::OffBoard { what: "column", .. })
        ));
        assert!(matches!(
            parse_entry("1 99999999999999999999", &b),
            Err(EntryError::OffBoard { .. })
        ));
        assert_eq!(
            parse_entry("2 2", &b),
            Err(EntryError::Occupied(Cell::new(1, 1), 'X'))
        );
        assert_eq!(
            parse_entry("5", &b),
            Err(EntryError::Occupied(Cell::new(1, 1), 'X'))
        );
    }

    #[test]
    fn single_numbers_only_on_three_by_three() {
        let b = Board::new(Geometry::new(4, 4, 4, Rule::Free).unwrap());
        assert_eq!(parse_entry("5", &b), Err(EntryError::OneNumber));
        assert_eq!(parse_entry("4 4", &b), Ok(Entry::Move(Cell::new(3, 3))));
    }
}
