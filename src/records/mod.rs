//! Game records other programs open: SGF (`FF[4]`, `GM[4]`, the SGF game of
//! gomoku) and Piskvork's `.psq`, both written from one [`RecordedGame`] and
//! read back into it.
//!
//! - [`sgf`]: the writer, and a parser that checks the `FF[4]` grammar.
//! - [`psq`]: the writer and reader of Piskvork's format.
//!
//! Where the games come from: the referee (`--sgf-dir`, and `kinrow convert`
//! over `--games-out` records, both in `crate::referee::convert`) and
//! `kinrow play` (saving the game just played). A format knows the rules
//! and nothing else.

pub mod psq;
pub mod sgf;

use crate::rules::{Board, Cell, Geometry, Player};
use std::fmt;

/// How a recorded game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Won on the board (K in a row).
    Win(Player),
    /// The board filled up.
    Draw,
    /// Lost by the other side's fault (`reason` as the referee names it:
    /// `timeout`, `crash`, `illegal`, …), with what happened.
    Forfeit {
        winner: Player,
        reason: String,
        detail: Option<String>,
    },
    /// Not finished (left, or the record does not say).
    Unfinished,
}

/// A game as the record formats need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedGame {
    pub geometry: Geometry,
    /// Who played X (black, first) and O (white).
    pub x: String,
    pub o: String,
    /// Every move from the empty board, the opening first.
    pub moves: Vec<Cell>,
    /// How many of the first moves were a given opening.
    pub opening: usize,
    pub ending: Ending,
    /// A title (the referee's game number).
    pub title: Option<String>,
    /// What is known of each move after the opening, in order (empty when
    /// nothing is): written as SGF comments and `.psq` move times.
    pub notes: Vec<MoveNote>,
}

/// What a record says of one move besides its cell: how long its engine
/// took, and what the engine said of its search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveNote {
    /// Microseconds.
    pub time_us: Option<u64>,
    /// `depth 6 score 120 nodes 5210`.
    pub search: Option<String>,
}

impl MoveNote {
    /// The note as an SGF comment: `12.3 ms, depth 6 score 120 nodes 5210`.
    pub fn comment(&self) -> Option<String> {
        let time = self.time_us.map(|us| format!("{} ms", us as f64 / 1e3));
        let parts: Vec<String> = time.into_iter().chain(self.search.clone()).collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// A record that can't be turned into a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError(pub String);

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for RecordError {}

impl RecordedGame {
    /// The final position, replayed (and so checked) from the moves.
    pub fn replay(&self) -> Result<Board, RecordError> {
        let mut board = Board::new(self.geometry);
        for (i, &cell) in self.moves.iter().enumerate() {
            board
                .try_play(cell)
                .map_err(|e| RecordError(format!("move {}: {e}", i + 1)))?;
        }
        Ok(board)
    }

    /// The file name stem the referee and `kinrow convert` give a game:
    /// `000012-minimax-vs-random` (engine names are plain words).
    pub fn file_stem(game: usize, x: &str, o: &str) -> String {
        let plain = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "-_.+".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        format!("{game:06}-{}-vs-{}", plain(x), plain(o))
    }
}

/// The record formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Sgf,
    Psq,
}

impl Format {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Sgf => "sgf",
            Format::Psq => "psq",
        }
    }

    /// The format a file name asks for, by its extension.
    pub fn of_path(path: &std::path::Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "sgf" => Some(Format::Sgf),
            "psq" => Some(Format::Psq),
            _ => None,
        }
    }

    /// The game written in this format.
    pub fn write(self, game: &RecordedGame) -> String {
        match self {
            Format::Sgf => sgf::write(game),
            Format::Psq => psq::write(game),
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sgf" => Ok(Format::Sgf),
            "psq" => Ok(Format::Psq),
            _ => Err(format!("'{s}' is not a record format (sgf, psq)")),
        }
    }
}
