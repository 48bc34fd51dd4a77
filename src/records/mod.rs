//! Game records other programs open: SGF (FF[4], GM[4], the SGF game of
//! gomoku) and Piskvork's `.psq`, both written from one [`RecordedGame`] and
//! read back into it.
//!
//! - [`sgf`]: the writer, and a parser that checks the FF[4] grammar.
//! - [`psq`]: the writer and reader of Piskvork's format.
//!
//! Where the games come from: the referee (`--sgf-dir`, and `kinrow convert`
//! over `--games-out` records) and `kinrow play` (saving the game just
//! played).

pub mod psq;
pub mod sgf;

use crate::referee::game::Reason;
use crate::referee::games_out::GameRecord;
use crate::rules::{Board, Cell, Geometry, Player, Rule};
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

    /// A game of the referee's `--games-out` records. Records written before
    /// they carried the board take `fallback`.
    pub fn from_referee(
        record: &GameRecord,
        fallback: Option<Geometry>,
    ) -> Result<RecordedGame, RecordError> {
        let geometry = match &record.board {
            Some(b) => {
                let rule: Rule = b
                    .rule
                    .parse()
                    .map_err(|e| RecordError(format!("game {}: {e}", record.game)))?;
                Geometry::new(b.rows as u32, b.cols as u32, b.k as u32, rule)
                    .map_err(|e| RecordError(format!("game {}: {e}", record.game)))?
            }
            None => fallback.ok_or_else(|| {
                RecordError(format!(
                    "game {}: the record does not say its board (an older referee): give --board, --k and --rule",
                    record.game
                ))
            })?,
        };
        let cell = |&[r, c]: &[u32; 2]| {
            Cell::from_one_based(r, c)
                .ok_or_else(|| RecordError(format!("game {}: no cell {r} {c}", record.game)))
        };
        let mut moves = Vec::with_capacity(record.opening.len() + record.moves.len());
        for m in record.opening.iter().chain(&record.moves) {
            moves.push(cell(m)?);
        }
        let winner = record.result.winner();
        let ending = match (record.reason, winner) {
            (Reason::Win, Some(w)) => Ending::Win(w),
            (Reason::Draw, _) => Ending::Draw,
            (reason, Some(w)) if reason.is_fault() => Ending::Forfeit {
                winner: w,
                reason: reason.name().to_string(),
                detail: record.detail.clone(),
            },
            _ => Ending::Unfinished,
        };
        let game = RecordedGame {
            geometry,
            x: record.x.clone(),
            o: record.o.clone(),
            moves,
            opening: record.opening.len(),
            ending,
            title: Some(format!("game {}", record.game)),
        };
        game.replay()
            .map_err(|e| RecordError(format!("game {}: {e}", record.game)))?;
        Ok(game)
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

/// `kinrow convert`: writes every game of a referee's `--games-out` file
/// (JSON lines) into `out_dir`, one file per game named by
/// [`RecordedGame::file_stem`]; records without their board take
/// `fallback`. Returns how many files were written.
pub fn convert_games(
    games_out: &std::path::Path,
    format: Format,
    out_dir: &std::path::Path,
    fallback: Option<Geometry>,
) -> anyhow::Result<usize> {
    use anyhow::Context;
    std::fs::metadata(games_out).with_context(|| format!("cannot read {}", games_out.display()))?;
    let past = crate::referee::PastGames::read(games_out, crate::referee::files::MAX_RECORDS_FILE)?;
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create {}", out_dir.display()))?;
    let mut written = 0;
    for (line, record) in &past.records {
        let game = RecordedGame::from_referee(record, fallback)
            .with_context(|| format!("{} line {line}", games_out.display()))?;
        let name = format!(
            "{}.{}",
            RecordedGame::file_stem(record.game, &record.x, &record.o),
            format.extension()
        );
        let path = out_dir.join(name);
        std::fs::write(&path, format.write(&game))
            .with_context(|| format!("cannot write {}", path.display()))?;
        written += 1;
    }
    Ok(written)
}
