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

/// Which lines win, and which cells a player may not take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rule {
    /// K or more in a row wins (freestyle).
    #[default]
    Free,
    /// Exactly K in a row wins; an overline does not (standard gomoku).
    Exact,
    /// Renju (RIF rules, K = 5): X (Black) wins only with exactly five and
    /// may not make an overline, a double-four or a double-three; O (White)
    /// wins with five or more and may play anywhere.
    Renju,
    /// Caro (the Gomocup's rule 8): exactly K in a row wins unless the
    /// opponent's stones close both its ends (the board's edge closes
    /// nothing); K + 1 or more always wins.
    Caro,
    /// Caro with exactly K (the Gomocup's rule 9, 8 + 1): exactly K in a row
    /// not closed at both ends by the opponent wins; an overline does not.
    CaroExact,
}

impl Rule {
    /// Every rule, in the order of their Gomocup codes (0, 1, 4, 8, 9).
    pub const ALL: [Rule; 5] = [
        Rule::Free,
        Rule::Exact,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ];

    /// Every rule's name, as usage lines write the choice (checked against
    /// [`Rule::ALL`] by a test).
    pub const CHOICES: &'static str = "free|exact|renju|caro|caro-exact";

    /// Whether a run of more than K of `p`'s stones wins for `p`.
    #[inline]
    pub const fn overline_wins(self, p: Player) -> bool {
        match self {
            Rule::Free | Rule::Caro => true,
            Rule::Exact | Rule::CaroExact => false,
            Rule::Renju => matches!(p, Player::O),
        }
    }

    /// Whether a run of exactly K loses its win when the opponent's stones
    /// close both its ends (caro).
    #[inline]
    pub const fn blocked_ends_count(self) -> bool {
        matches!(self, Rule::Caro | Rule::CaroExact)
    }

    /// Whether some empty cells may be forbidden to `p` (renju's Black).
    #[inline]
    pub const fn forbids(self, p: Player) -> bool {
        matches!((self, p), (Rule::Renju, Player::X))
    }

    /// Whether a run of `len` of `p`'s stones (K = `k`) wins for `p`, with
    /// `blocked_ends` (0 to 2) of the two cells just past its ends holding the
    /// opponent's stones (the edge of the board is no block).
    #[inline]
    pub const fn wins(self, p: Player, len: usize, k: usize, blocked_ends: u32) -> bool {
        if len > k {
            self.overline_wins(p)
        } else {
            len == k && !(self.blocked_ends_count() && blocked_ends == 2)
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::Free => "free",
            Rule::Exact => "exact",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroExact => "caro-exact",
        })
    }
}

/// Error parsing a [`Rule`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseRuleError(pub String);

impl fmt::Display for ParseRuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown rule '{}' (expected free, exact, renju, caro or caro-exact)",
            self.0
        )
    }
}
impl std::error::Error for ParseRuleError {}

impl FromStr for Rule {
    type Err = ParseRuleError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "free" => Ok(Rule::Free),
            "exact" => Ok(Rule::Exact),
            "renju" => Ok(Rule::Renju),
            "caro" => Ok(Rule::Caro),
            "caro-exact" => Ok(Rule::CaroExact),
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
