//! The referee: tournaments between engine processes (DESIGN §4).
//!
//! - [`words`]: engine commands split into words as a shell would.
//! - [`game`]: one game between two processes, every move checked.
//! - [`openings`]: random openings and openings files.
//! - [`records`]: the game records of `--games-out`, written and read back
//!   (for `--resume`).
//! - [`tournament`]: start-up checks, scheduling over worker threads,
//!   records, progress and Ctrl-C.
//! - [`report`]: per-pairing tallies, the text report and the JSON summary.
//! - [`stats`]: the statistics as pure functions.

pub mod game;
pub mod openings;
pub mod records;
pub mod report;
mod resume;
pub mod stats;
pub mod tournament;

pub use openings::{
    default_opening_plies, parse_openings, random_opening, OpeningError, OpeningOrder,
    OpeningSource,
};
pub use records::PastGames;
pub use tournament::{run, RunOutcome};

use crate::client::Dialect;
use crate::rules::Geometry;
use stats::Sprt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// An engine as given on the command line: `[NAME=][gomocup:|kinrow:]COMMAND`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The display name, if given (else the engine's `name` reply).
    pub name: Option<String>,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The protocol it speaks ([`crate::client::EngineCommand`]).
    pub dialect: Dialect,
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
        let command = crate::client::EngineCommand::parse(command)
            .map_err(|e| format!("engine command '{}': {e}", crate::rules::clip(s)))?;
        Ok(EngineSpec {
            name,
            argv: command.argv,
            dialect: command.dialect,
        })
    }
}

/// A checked configuration for a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Two or more engines.
    pub engines: Vec<EngineSpec>,
    /// Games per pairing (even).
    pub games: u32,
    /// Where the openings come from.
    pub openings: OpeningSource,
    pub geometry: Geometry,
    /// Games played at once (at least 1).
    pub concurrency: usize,
    /// Told to engines with `set movetime` (Gomocup: `INFO timeout_turn`).
    pub movetime_ms: Option<u64>,
    /// A whole-game clock per side: engines are told what is left before
    /// every move (`set timeleft`, Gomocup `INFO time_left`), and a side
    /// whose clock runs out loses on time.
    pub match_time_ms: Option<u64>,
    /// No write to a Gomocup brain sooner than this after its answer.
    pub write_gap: Duration,
    /// One SGF file per finished game.
    pub sgf_dir: Option<PathBuf>,
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
    /// The games already in `games_out`, read for `--resume`: checked
    /// against this run, counted, and not played again.
    pub resume: Option<PastGames>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs_with_and_without_names() {
        let s: EngineSpec = "fast=python3 'my bot.py' --x=1".parse().unwrap();
        assert_eq!(s.name.as_deref(), Some("fast"));
        assert_eq!(s.argv, ["python3", "my bot.py", "--x=1"]);
        let s: EngineSpec = "python3 bot.py --level=3".parse().unwrap();
        assert_eq!(s.name, None);
        assert_eq!(s.argv, ["python3", "bot.py", "--level=3"]);
        assert!("x=".parse::<EngineSpec>().is_err());
        let s: EngineSpec = "r=gomocup:wine pbrain.exe".parse().unwrap();
        assert_eq!(
            (s.name.as_deref(), s.dialect),
            (Some("r"), Dialect::Gomocup)
        );
        assert_eq!(s.argv, ["wine", "pbrain.exe"]);
        let s: EngineSpec = "./pbrain-x".parse().unwrap();
        assert_eq!(s.dialect, Dialect::Gomocup);
        assert!("'unclosed".parse::<EngineSpec>().is_err());
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
    }
}
