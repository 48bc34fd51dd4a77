//! The openings of a run: the moves played before the engines choose, one
//! opening per round (both games of a pair, and every pairing of the round,
//! play the same one), either random plies from the run's seed or lines of
//! an openings file.

use super::files;
use super::opening_formats::{Notation, Symmetry};
use super::seeds::{derive_seed, Stream};
use crate::rules::{Board, Cell, Geometry};
use anyhow::Context;
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Where a run's openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    /// This many random plies per round, from the run's seed.
    Random { plies: usize },
    /// The lines of an openings file (see [`parse_openings`]).
    File {
        path: PathBuf,
        order: OpeningOrder,
        /// Each pass through the file plays its openings in the next of
        /// the board's symmetries (`--openings-transform`).
        transform: bool,
    },
}

/// The order in which the lines of an openings file are used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpeningOrder {
    /// Round r plays line r, cycling when the file is shorter.
    #[default]
    Sequential,
    /// The lines shuffled once with the run's seed, then cycled: every
    /// line is used once before any is used again.
    Random,
}

impl FromStr for OpeningOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "sequential" => Ok(OpeningOrder::Sequential),
            "random" => Ok(OpeningOrder::Random),
            _ => Err(format!(
                "'{}' is not an order: sequential or random",
                crate::rules::clip(s)
            )),
        }
    }
}

/// The default number of random opening plies, so that deterministic bots
/// still play varied games: one on small boards (on 3x3 a second random stone
/// can already hand a side a forced win, e.g. an edge reply to the centre,
/// while every single first stone leaves a draw), two on larger ones, none
/// where K is so small that a stone or two decides the game.
pub fn default_opening_plies(geometry: Geometry) -> usize {
    match (geometry.k(), geometry.area()) {
        (0..=2, _) | (_, 0..=3) => 0,
        (_, 4..=16) => 1,
        _ => 2,
    }
}

/// The opening of every round could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningError {
    pub plies: usize,
}

impl fmt::Display for OpeningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no opening of {} random plies leaves the game undecided on this board",
            self.plies
        )
    }
}

impl std::error::Error for OpeningError {}

/// `plies` random legal moves that leave the game undecided, from `seed`;
/// the same seed gives the same opening.
pub fn random_opening(
    geometry: Geometry,
    plies: usize,
    seed: u64,
) -> Result<Vec<Cell>, OpeningError> {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut board = Board::new(geometry);
    'attempt: for _ in 0..1000 {
        board.clear();
        for _ in 0..plies {
            let legal: Vec<Cell> = board.legal_moves().collect();
            if legal.is_empty() {
                continue 'attempt;
            }
            let cell = legal[rng.random_range(0..legal.len())];
            if board.try_play(cell).is_err() || board.is_over() {
                continue 'attempt;
            }
        }
        return Ok(board.moves().collect());
    }
    Err(OpeningError { plies })
}

/// A bad line of an openings file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// 1-based line number; `None` for the file as a whole.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for BookError {}

/// Parses an openings file: one opening a line as 1-based cells
/// `R C R C …`, X's stone first; blank lines and `#` comments (to the end of
/// the line) are skipped. Every opening is played on `geometry` with the
/// rules: each stone must be legal, and the opening must leave the game
/// undecided. At least one opening is required.
pub fn parse_openings(text: &str, geometry: Geometry) -> Result<Vec<Vec<Cell>>, BookError> {
    let mut openings = Vec::new();
    let mut board = Board::new(geometry);
    for (index, raw) in text.lines().enumerate() {
        if parse_line(raw, index + 1, &mut board)? {
            openings.push(board.moves().collect());
        }
    }
    if openings.is_empty() {
        return Err(no_openings());
    }
    Ok(openings)
}

fn no_openings() -> BookError {
    BookError {
        line: None,
        message: "no openings in the file (only blank lines and comments)".into(),
    }
}

/// Plays line `line` of an openings file on `board` (cleared first): true
/// if it holds an opening (then on the board), false for a blank line or a
/// comment.
fn parse_line(raw: &str, line: usize, board: &mut Board) -> Result<bool, BookError> {
    let geometry = board.geometry();
    let err = |message: String| BookError {
        line: Some(line),
        message,
    };
    let content = raw.split('#').next().unwrap_or("");
    if content.trim().is_empty() {
        return Ok(false);
    }
    let notation = Notation::of_line(content);
    let cells = notation
        .read(content, geometry)
        .map_err(|e| err(format!("{e} (read as {})", notation.name())))?;
    board.clear();
    for (n, &cell) in cells.iter().enumerate() {
        let stone = n + 1;
        match board.try_play(cell) {
            Err(e) => return Err(err(format!("stone {stone}: {e}"))),
            Ok(Some(outcome)) => {
                return Err(err(format!(
                    "stone {stone} ({cell}) ends the game ({outcome}); an opening must leave it undecided"
                )))
            }
            Ok(None) => {}
        }
    }
    if let Some(win) = win_in_one(board) {
        return Err(err(format!(
            "already decided: {} to move makes {} in a row at {win}; an opening must leave the game undecided",
            board.to_move(),
            geometry.k()
        )));
    }
    Ok(true)
}

/// A move that wins at once for the side to move, if there is one: an
/// opening that leaves one is decided before the engines play.
fn win_in_one(board: &Board) -> Option<Cell> {
    let me = board.to_move();
    board
        .squares()
        .find(|&s| board.is_legal_square(s) && board.wins_through(s, me))
        .map(|s| board.cell_of(s))
}

/// Openings stored one after another: a file of millions of short lines
/// takes a few bytes per opening, not an allocation each.
#[derive(Clone, Debug, Default)]
struct Book {
    cells: Vec<Cell>,
    /// Where each opening ends in `cells`.
    ends: Vec<u32>,
}

impl Book {
    fn push(&mut self, opening: impl IntoIterator<Item = Cell>) {
        self.cells.extend(opening);
        // Fits: the file is at most MAX_OPENINGS_FILE bytes.
        self.ends.push(self.cells.len() as u32);
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> Option<&[Cell]> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        Some(&self.cells[start..end])
    }

    /// Reads an openings file within [`files::MAX_OPENINGS_FILE`] bytes and
    /// [`files::MAX_LINE`] bytes a line.
    fn read(path: &Path, geometry: Geometry) -> anyhow::Result<Book> {
        let what = "openings file";
        let mut lines = files::BoundedLines::open(path, what, files::MAX_OPENINGS_FILE, false)?
            .ok_or_else(|| anyhow::anyhow!("cannot read the openings file {}", path.display()))?;
        let mut book = Book::default();
        let mut board = Board::new(geometry);
        let mut buf = Vec::new();
        let in_file = || format!("openings file {}", path.display());
        while lines.next_line(&mut buf)?.is_some() {
            let line = lines.number();
            let text = std::str::from_utf8(&buf).map_err(|e| BookError {
                line: Some(line),
                message: format!("not UTF-8 text (byte {})", e.valid_up_to() + 1),
            });
            if parse_line(text.with_context(in_file)?, line, &mut board).with_context(in_file)? {
                book.push(board.moves());
            }
        }
        if book.len() == 0 {
            return Err(no_openings()).with_context(in_file);
        }
        Ok(book)
    }
}

/// The opening of every round of a run. Random openings are made when a
/// round asks (from the run's seed and the round), so a run of any length
/// holds none of them in memory; a file's are read once.
#[derive(Clone, Debug)]
pub struct Openings {
    /// Random openings: the shape, plies and seed they come from.
    random: Option<(Geometry, usize, u64)>,
    /// A file's openings; for random ones, round 0's (checked to exist, and
    /// used should a later round find none, which is all but impossible
    /// once one exists).
    lines: Book,
    /// The cycle of line indices the rounds go through; `None`: the lines
    /// in their order.
    cycle: Option<Vec<u32>>,
    /// How the openings were made, for the report's head.
    description: String,
    /// The symmetries the passes through a file's lines take in turn
    /// (`--openings-transform`); empty: the lines as written.
    symmetries: &'static [Symmetry],
    geometry: Geometry,
}

impl Openings {
    /// The openings of a run with `seed`. Random openings
    /// that can't exist, and an unreadable or bad openings file, are errors.
    pub fn new(source: &OpeningSource, geometry: Geometry, seed: u64) -> anyhow::Result<Openings> {
        match source {
            OpeningSource::Random { plies } => {
                let first = random_opening(geometry, *plies, Self::round_seed(seed, 0))?;
                let mut lines = Book::default();
                lines.push(first);
                Ok(Openings {
                    random: Some((geometry, *plies, seed)),
                    lines,
                    cycle: None,
                    description: format!(
                        "{plies} opening {}",
                        if *plies == 1 { "ply" } else { "plies" }
                    ),
                    symmetries: &[],
                    geometry,
                })
            }
            OpeningSource::File {
                path,
                order,
                transform,
            } => {
                let lines = Book::read(path, geometry)?;
                let cycle = match order {
                    OpeningOrder::Sequential => None,
                    OpeningOrder::Random => {
                        use rand::rngs::SmallRng;
                        use rand::seq::SliceRandom;
                        use rand::SeedableRng;
                        let mut rng =
                            SmallRng::seed_from_u64(derive_seed(seed, Stream::OpeningOrder, &[]));
                        let mut cycle: Vec<u32> = (0..lines.len() as u32).collect();
                        cycle.shuffle(&mut rng);
                        Some(cycle)
                    }
                };
                let symmetries = if *transform {
                    Symmetry::of(geometry)
                } else {
                    &[]
                };
                let description = format!(
                    "{} {} from {}{}{}",
                    lines.len(),
                    if lines.len() == 1 {
                        "opening"
                    } else {
                        "openings"
                    },
                    path.display(),
                    if cycle.is_some() { " shuffled" } else { "" },
                    if *transform {
                        format!(", each in {} symmetries", symmetries.len())
                    } else {
                        String::new()
                    }
                );
                Ok(Openings {
                    random: None,
                    lines,
                    cycle,
                    description,
                    symmetries,
                    geometry,
                })
            }
        }
    }

    fn round_seed(seed: u64, round: usize) -> u64 {
        derive_seed(seed, Stream::Opening, &[round as u64])
    }

    /// The opening of round `round` (empty if there are no openings).
    pub fn round(&self, round: usize) -> Cow<'_, [Cell]> {
        if let Some((geometry, plies, seed)) = self.random {
            return match random_opening(geometry, plies, Self::round_seed(seed, round)) {
                Ok(cells) => Cow::Owned(cells),
                Err(_) => Cow::Borrowed(self.lines.get(0).unwrap_or(&[])),
            };
        }
        let count = self.lines.len().max(1);
        let line = match &self.cycle {
            Some(cycle) if !cycle.is_empty() => cycle[round % cycle.len()] as usize,
            _ => round % count,
        };
        let cells = self.lines.get(line).unwrap_or(&[]);
        // Pass p through the lines takes symmetry p (mod their number), as
        // c-gomoku-cli's -transform does.
        match self
            .symmetries
            .get((round / count) % self.symmetries.len().max(1))
        {
            Some(&s) if s != Symmetry::IDENTITY => {
                Cow::Owned(cells.iter().map(|&c| s.apply(c, self.geometry)).collect())
            }
            _ => Cow::Borrowed(cells),
        }
    }

    /// The most stones an opening of this run has.
    pub fn longest(&self) -> usize {
        match self.random {
            Some((_, plies, _)) => plies,
            None => (0..self.lines.len())
                .map(|i| self.lines.get(i).map_or(0, <[Cell]>::len))
                .max()
                .unwrap_or(0),
        }
    }

    /// How the openings were made: `1 opening ply`, `5 openings from FILE`.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// What makes these openings these, wherever they were read from: the
    /// plies of random ones (the seed gives the rest), or a digest of a
    /// file's openings in the order the rounds take them. Part of a run's
    /// identity ([`super::games_out::RunLine`]).
    pub fn fingerprint(&self) -> String {
        if let Some((_, plies, _)) = self.random {
            return format!("random {plies}");
        }
        // Runs without --openings-transform keep the fingerprint they had
        // before it existed.
        let transform = if self.symmetries.is_empty() {
            String::new()
        } else {
            format!(" transform {}", self.symmetries.len())
        };
        let order: Box<dyn Iterator<Item = u32>> = match &self.cycle {
            Some(cycle) => Box::new(cycle.iter().copied()),
            None => Box::new(0..self.lines.ends.len() as u32),
        };
        let words = order.flat_map(|line| {
            let cells = self.lines.get(line as usize).unwrap_or(&[]);
            cells
                .iter()
                .map(|c| u64::from(c.row) << 8 | u64::from(c.col))
                .chain([u64::MAX])
        });
        format!("file {:016x}{transform}", super::seeds::digest(words))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    #[test]
    fn random_openings_are_seeded_legal_and_undecided() {
        let g = Geometry::TIC_TAC_TOE;
        let a = random_opening(g, 4, 7).unwrap();
        assert_eq!(a, random_opening(g, 4, 7).unwrap());
        assert_eq!(a.len(), 4);
        let distinct: std::collections::HashSet<_> =
            (0..50).map(|s| random_opening(g, 2, s).unwrap()).collect();
        assert!(distinct.len() > 10);
        // k = 1: every move wins, so no opening exists.
        let k1 = Geometry::new(3, 3, 1, Rule::Free).unwrap();
        assert_eq!(random_opening(k1, 1, 0), Err(OpeningError { plies: 1 }));
        assert_eq!(random_opening(k1, 0, 0), Ok(vec![]));
        assert_eq!(random_opening(g, 9, 0), Err(OpeningError { plies: 9 }));
    }

    #[test]
    fn default_plies() {
        assert_eq!(default_opening_plies(Geometry::TIC_TAC_TOE), 1);
        let gomoku = Geometry::new(15, 15, 5, Rule::Free).unwrap();
        assert_eq!(default_opening_plies(gomoku), 2);
        let k2 = Geometry::new(3, 3, 2, Rule::Free).unwrap();
        assert_eq!(default_opening_plies(k2), 0);
    }

    fn cells(v: &[(u8, u8)]) -> Vec<Cell> {
        v.iter().map(|&(r, c)| Cell::new(r - 1, c - 1)).collect()
    }

    #[test]
    fn openings_files_parse_with_comments_and_blank_lines() {
        let text = "# a comment\n\n2 2\n  1 1   3 3 # corner and its opposite\n\t\n1 2 2 1 3 2\n";
        let book = parse_openings(text, Geometry::TIC_TAC_TOE).unwrap();
        assert_eq!(
            book,
            [
                cells(&[(2, 2)]),
                cells(&[(1, 1), (3, 3)]),
                cells(&[(1, 2), (2, 1), (3, 2)])
            ]
        );
    }

    #[test]
    fn bad_opening_lines_are_named() {
        let g = Geometry::TIC_TAC_TOE;
        let line_of = |text: &str| {
            let e = parse_openings(text, g).unwrap_err();
            (e.line, e.message)
        };
        let (line, msg) = line_of("2 2\n\n4 1\n");
        assert_eq!(line, Some(3));
        assert!(msg.contains("4 1 is off the 3x3 board"), "{msg}");
        let (line, msg) = line_of("1 1 1 1");
        assert_eq!(line, Some(1));
        assert!(msg.contains("stone 2: 1 1 is occupied by X"), "{msg}");
        let (line, msg) = line_of("# x wins\n1 1 2 1 1 2 2 2 1 3\n");
        assert_eq!(line, Some(2));
        assert!(msg.contains("stone 5 (1 3) ends the game (win X"), "{msg}");
        assert!(line_of("1 1 2").1.contains("3 numbers"));
        assert!(line_of("1 b").1.contains("'b' is not a number"));
        assert!(line_of("1 -2")
            .1
            .contains("offsets are written with commas"));
        // Decided before the engines play: X to move has a win in one.
        let (line, msg) = line_of("2 2\n1 1 2 1 1 2 2 2\n");
        assert_eq!(line, Some(2));
        assert!(
            msg.contains("already decided: X to move makes 3 in a row at 1 3"),
            "{msg}"
        );
        assert!(line_of("0 1").1.contains("0 1 is off the 3x3 board"));
        assert!(line_of("99999999999 1").1.contains("off the 3x3 board"));
        assert_eq!(line_of("# nothing\n\n").0, None);
        assert!(line_of("# nothing\n\n").1.contains("no openings"));
        assert!(line_of("").1.contains("no openings"));
        // Exact rule: an overline does not end the game, so it may open.
        let text = "1 1 2 1 1 2 2 4 1 4 2 7 1 3";
        let exact = Geometry::new(2, 7, 3, Rule::Exact).unwrap();
        assert_eq!(parse_openings(text, exact).map(|b| b[0].len()), Ok(7));
        let free = Geometry::new(2, 7, 3, Rule::Free).unwrap();
        assert!(parse_openings(text, free).is_err());
    }

    #[test]
    fn file_openings_cycle_in_order_or_shuffled_by_seed() {
        let dir = std::env::temp_dir().join(format!("kinrow-openings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("book.txt");
        std::fs::write(&path, "1 1\n1 2\n1 3\n2 1\n2 2\n").unwrap();
        let g = Geometry::TIC_TAC_TOE;
        let source = |order| OpeningSource::File {
            path: path.clone(),
            order,
            transform: false,
        };
        let seq = Openings::new(&source(OpeningOrder::Sequential), g, 1).unwrap();
        let first: Vec<Cell> = (0..12).map(|r| seq.round(r)[0]).collect();
        let line = |i: usize| Cell::new((i / 3) as u8, (i % 3) as u8);
        assert_eq!(first, (0..12).map(|r| line(r % 5)).collect::<Vec<_>>());
        assert!(seq.description().starts_with("5 openings from "));
        let shuffled = |seed| {
            let o = Openings::new(&source(OpeningOrder::Random), g, seed).unwrap();
            (0..10).map(|r| o.round(r)[0]).collect::<Vec<_>>()
        };
        let a = shuffled(1);
        assert_eq!(a, shuffled(1));
        // Every line once per cycle of five rounds, then the same cycle again.
        let mut cycle = a[..5].to_vec();
        cycle.sort();
        assert_eq!(cycle, (0..5).map(line).collect::<Vec<_>>());
        assert_eq!(a[..5], a[5..]);
        assert!((1..20).any(|seed| shuffled(seed) != a));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
