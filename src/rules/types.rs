//! Small `Copy` types of the rules: players, cells, the rule variant.

use std::fmt;
use std::str::FromStr;

/// One of the two players. X moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    X,
    O,
}

impl Player {
    /// The other player.
    #[inline]
    pub const fn other(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// The letter used on boards and in the protocol.
    pub const fn letter(self) -> char {
        match self {
            Player::X => 'X',
            Player::O => 'O',
        }
    }

    /// 0 for X, 1 for O: for indexing per-player tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// Error parsing a [`Player`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePlayerError;

impl fmt::Display for ParsePlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a player is X or O")
    }
}
impl std::error::Error for ParsePlayerError {}

impl FromStr for Player {
    type Err = ParsePlayerError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "X" | "x" => Ok(Player::X),
            "O" | "o" => Ok(Player::O),
            _ => Err(ParsePlayerError),
        }
    }
}

/// Which lines win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rule {
    /// K or more in a row wins (freestyle).
    #[default]
    Free,
    /// Exactly K in a row wins; an overline does not (standard gomoku).
    Exact,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::Free => "free",
            Rule::Exact => "exact",
        })
    }
}

/// Error parsing a [`Rule`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseRuleError(pub String);

impl fmt::Display for ParseRuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown rule '{}' (expected free or exact)", self.0)
    }
}
impl std::error::Error for ParseRuleError {}

impl FromStr for Rule {
    type Err = ParseRuleError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "free" => Ok(Rule::Free),
            "exact" => Ok(Rule::Exact),
            _ => Err(ParseRuleError(s.to_string())),
        }
    }
}

/// A cell of the board, 0-based inside; shown and parsed 1-based as `R C`
/// (row 1 at the top, column 1 at the left).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// 0-based row.
    pub row: u8,
    /// 0-based column.
    pub col: u8,
}

impl Cell {
    /// A cell from 0-based coordinates.
    pub const fn new(row: u8, col: u8) -> Cell {
        Cell { row, col }
    }

    /// A cell from 1-based coordinates as people and the protocol write them;
    /// `None` for 0 or anything past 32.
    pub fn from_one_based(row: u32, col: u32) -> Option<Cell> {
        let ok = |v: u32| (1..=crate::rules::MAX_SIDE as u32).contains(&v);
        (ok(row) && ok(col)).then(|| Cell::new((row - 1) as u8, (col - 1) as u8))
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.row as u32 + 1, self.col as u32 + 1)
    }
}

/// Error parsing a [`Cell`] from `R C`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCellError(pub String);

impl fmt::Display for ParseCellError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
impl std::error::Error for ParseCellError {}

/// Parses one 1-based coordinate; numbers too large to be a coordinate are
/// reported as such rather than overflowing.
pub fn parse_coordinate(s: &str) -> Result<u32, ParseCellError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseCellError(format!("'{}' is not a number", clip(s))));
    }
    let digits = s.trim_start_matches('0');
    if digits.len() > 9 {
        return Ok(u32::MAX);
    }
    Ok(digits.parse().unwrap_or(0))
}

/// Shortens user text quoted back in an error so a 100 KB line stays a short reply.
pub fn clip(s: &str) -> String {
    const MAX: usize = 24;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}...")
    }
}

impl FromStr for Cell {
    type Err = ParseCellError;
    /// Parses `R C` (1-based, separated by white space). Range against a
    /// particular board is the board's business.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut it = s.split_whitespace();
        let (Some(r), Some(c), None) = (it.next(), it.next(), it.next()) else {
            return Err(ParseCellError("expected a row and a column".into()));
        };
        let (r, c) = (parse_coordinate(r)?, parse_coordinate(c)?);
        Cell::from_one_based(r, c)
            .ok_or_else(|| ParseCellError(format!("{r} {c} is outside any board")))
    }
}
