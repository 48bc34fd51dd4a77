//! The referee: tournaments between engine processes (DESIGN §4).
//!
//! - [`words`]: engine commands split into words as a shell would.
//! - [`game`]: one game between two processes, every move checked.
//! - [`tournament`]: start-up checks, scheduling over worker threads,
//!   records, progress and Ctrl-C.
//! - [`report`]: per-pairing tallies, the text report and the JSON summary.
//! - [`stats`]: the statistics as pure functions.

pub mod game;
pub mod report;
pub mod stats;
pub mod tournament;

pub use tournament::{run, RunOutcome};

use crate::rules::{Cell, Geometry};
use stats::Sprt;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// An engine as given on the command line: `[NAME=]COMMAND`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The display name, if given (else the engine's `name` reply).
    pub name: Option<String>,
    /// The program and its arguments.
    pub argv: Vec<String>,
}

/// Whether `s` can be an engine's display name given as `NAME=`.
pub fn is_valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
}

impl FromStr for EngineSpec {
    type Err = String;
    /// `NAME=COMMAND` when the part before the first `=` is a plain name
    /// (letters, digits, `-_.+`), else the whole text is the command.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, command) = match s.split_once('=') {
            Some((n, c)) if is_valid_name(n) => (Some(n.to_string()), c),
            _ => (None, s),
        };
        let argv = crate::client::split_words(command)
            .map_err(|e| format!("engine command '{}': {e}", crate::rules::clip(s)))?;
        Ok(EngineSpec { name, argv })
    }
}

/// A checked configuration for a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Two or more engines.
    pub engines: Vec<EngineSpec>,
    /// Games per pairing (even).
    pub games: u32,
    /// Random opening plies per pair.
    pub opening_plies: usize,
    pub geometry: Geometry,
    /// Games played at once (at least 1).
    pub concurrency: usize,
    /// Told to engines with `set movetime`.
    pub movetime_ms: Option<u64>,
    /// The hard deadline for every reply.
    pub timeout: Duration,
    /// How long engines get to exit after `quit` before SIGKILL.
    pub grace: Duration,
    pub seed: u64,
    /// Stop a two-engine match once decided.
    pub sprt: Option<Sprt>,
    /// The JSON summary.
    pub json: Option<PathBuf>,
    /// One JSON line per finished game, appended.
    pub games_out: Option<PathBuf>,
    /// Engine stderr logs and the referee's own log.
    pub log_dir: Option<PathBuf>,
    /// Show the live progress line (when stderr is a terminal).
    pub progress: bool,
}

/// The default deadline: the move time plus a margin, else 10 s.
pub fn default_timeout(movetime_ms: Option<u64>) -> Duration {
    match movetime_ms {
        Some(ms) => Duration::from_millis(ms.saturating_add(1000.max(ms / 2))),
        None => Duration::from_secs(10),
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

/// A well-mixed 64-bit value from a seed and a few coordinates (SplitMix64
/// steps), so per-game seeds and openings are independent but replayable.
pub fn derive_seed(seed: u64, parts: &[u64]) -> u64 {
    let mut z = seed;
    for &p in parts.iter().chain(std::iter::once(&0x5eed)) {
        z = z.wrapping_add(p).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
    }
    z
}

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
    let mut board = crate::rules::Board::new(geometry);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    #[test]
    fn engine_specs_with_and_without_names() {
        let s: EngineSpec = "fast=python3 'my bot.py' --x=1".parse().unwrap();
        assert_eq!(s.name.as_deref(), Some("fast"));
        assert_eq!(s.argv, ["python3", "my bot.py", "--x=1"]);
        let s: EngineSpec = "python3 bot.py --level=3".parse().unwrap();
        assert_eq!(s.name, None);
        assert_eq!(s.argv, ["python3", "bot.py", "--level=3"]);
        assert!("x=".parse::<EngineSpec>().is_err());
        assert!("'unclosed".parse::<EngineSpec>().is_err());
    }

    #[test]
    fn openings_are_seeded_legal_and_undecided() {
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
    fn derived_seeds_differ_by_part() {
        let s = derive_seed(1, &[2, 0]);
        assert_eq!(s, derive_seed(1, &[2, 0]));
        assert_ne!(s, derive_seed(1, &[2, 1]));
        assert_ne!(s, derive_seed(2, &[2, 0]));
        assert_ne!(derive_seed(0, &[1, 0]), derive_seed(0, &[0, 1]));
    }

    #[test]
    fn defaults() {
        assert_eq!(default_timeout(None), Duration::from_secs(10));
        assert_eq!(default_timeout(Some(100)), Duration::from_millis(1100));
        assert_eq!(default_timeout(Some(4000)), Duration::from_millis(6000));
        assert_eq!(default_opening_plies(Geometry::TIC_TAC_TOE), 1);
        let gomoku = Geometry::new(15, 15, 5, crate::rules::Rule::Free).unwrap();
        assert_eq!(default_opening_plies(gomoku), 2);
        let k2 = Geometry::new(3, 3, 2, crate::rules::Rule::Free).unwrap();
        assert_eq!(default_opening_plies(k2), 0);
    }
}
