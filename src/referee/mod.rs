//! The referee: tournaments between engine processes (DESIGN §4).
//!
//! - [`convert`]: the referee's games as SGF and PSQ files (`--sgf-dir`,
//!   `kinrow convert`).
//! - [`files`]: input files read within bounds; outputs that must differ.
//! - [`game`]: a refereed game: its set-up, why it ended, its end.
//! - `judge`: the verdict on every reply and the clocks, for both ways of
//!   playing a game.
//! - [`process`]: one game between two processes, every move checked.
//! - [`in_process`]: one game between built-in bots on the referee's own
//!   thread (`--in-process`), every move checked the same way.
//! - [`merge`]: `referee merge`, the shards of a run into one report.
//! - [`openings`]: random openings and openings files.
//! - [`games_out`]: the game records of `--games-out`, written and read back
//!   (for `--resume`).
//! - [`tournament`]: start-up checks, scheduling over worker threads,
//!   records, progress and Ctrl-C.
//! - [`report`]: per-pairing tallies, the text report and the JSON summary.
//! - [`seeds`]: the seeds of engines and openings, derived from the run's.
//! - [`shard`]: `--shard I/N`, a slice of a run's schedule.
//! - [`stats`]: the statistics as pure functions.
//! - [`watch`]: the events of a running tournament, for those who watch.

mod books;
pub mod convert;
mod engines;
pub mod files;
pub mod game;
pub mod games_out;
pub mod in_process;
mod judge;
pub mod merge;
pub mod openings;
mod players;
pub mod process;
mod progress;
pub mod report;
mod resume;
mod schedule;
pub mod seeds;
pub mod shard;
pub mod stats;
pub mod tournament;
pub mod watch;

pub use games_out::PastGames;
pub use openings::{
    default_opening_plies, parse_openings, random_opening, OpeningError, OpeningOrder,
    OpeningSource,
};
pub use seeds::{derive_seed, Stream};
pub use shard::Shard;
pub use tournament::{run, RunOutcome};

use crate::bots::BotKind;
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
    /// The built-in bot this engine is (`--bots`), which `--in-process`
    /// plays without its process.
    pub bot: Option<BotKind>,
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
            bot: None,
        })
    }
}

/// The longest fault detail kept in records and `referee.log`, in
/// characters: a whole reason (an engine's message, its reply), bounded.
pub const MAX_DETAIL: usize = 300;

/// Text from an engine (a reply, a message) as it goes into a fault's
/// detail: whole up to [`MAX_DETAIL`] characters (then cut, with `...`),
/// control characters spelt out so that a detail stays one line of
/// `referee.log`.
pub fn detail_text(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_DETAIL)
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    if text.chars().count() > MAX_DETAIL {
        out.push_str("...");
    }
    out
}

/// A note for people on stderr, within 80 columns.
pub fn say(text: &str) {
    eprintln!("{}", crate::cli::wrap_message(text));
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
    /// The hard deadline for every reply during games.
    pub timeout: Duration,
    /// The deadline for a fresh engine process's first answers (see
    /// [`default_startup_timeout`]).
    pub startup_timeout: Duration,
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
    /// Show progress: refreshed in place when stderr is a terminal, else a
    /// line every [`Config::progress_every`].
    pub progress: bool,
    /// Serve a read-only page of the run here (`--serve`).
    pub serve: Option<std::net::SocketAddr>,
    /// How often a progress line is written when stderr is no terminal.
    pub progress_every: Duration,
    /// Play the built-in bots on the referee's threads, without processes.
    pub in_process: bool,
    /// Play only this slice of the schedule.
    pub shard: Option<Shard>,
}

impl Config {
    /// The run's files, to check before any game (see [`files`]).
    pub fn files(&self) -> files::RunFiles<'_> {
        files::RunFiles {
            json: self.json.as_deref(),
            games_out: self.games_out.as_deref(),
            log_dir: self.log_dir.as_deref(),
            sgf_dir: self.sgf_dir.as_deref(),
            openings_file: match &self.openings {
                OpeningSource::File { path, .. } => Some(path),
                OpeningSource::Random { .. } => None,
            },
        }
    }

    /// The games in the run's schedule: every pairing of two engines plays
    /// `games`.
    pub fn total_games(&self) -> u64 {
        let n = self.engines.len() as u64;
        n * n.saturating_sub(1) / 2 * u64::from(self.games)
    }

    /// The games this session's schedule holds: the run's, or its shard's
    /// (a bound for reading records; at most one pair more than an even
    /// share).
    pub fn session_games(&self) -> u64 {
        match self.shard {
            Some(s) => self.total_games().div_ceil(2 * u64::from(s.count())) * 2,
            None => self.total_games(),
        }
    }
}

/// The default deadline: the move time plus a margin, else 10 s.
pub fn default_timeout(movetime_ms: Option<u64>) -> Duration {
    match movetime_ms {
        Some(ms) => Duration::from_millis(ms.saturating_add(1000.max(ms / 2))),
        None => Duration::from_secs(10),
    }
}

/// The default start-up deadline: 10 s, or the move deadline if longer.
/// Starting an interpreter on a loaded machine can take seconds; a run
/// that allows long replies allows as long a start.
pub fn default_startup_timeout(timeout: Duration) -> Duration {
    timeout.max(Duration::from_secs(10))
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
    fn details_are_whole_up_to_their_bound_and_one_line() {
        let reason = "brain error: the brain answered TURN 7,7 with 'ERROR out of memory'";
        assert_eq!(detail_text(reason), reason);
        let long = "x".repeat(MAX_DETAIL + 50);
        assert_eq!(detail_text(&long), format!("{}...", "x".repeat(MAX_DETAIL)));
        assert_eq!(detail_text("a\nb\tc\u{1b}[2J"), "a\\nb\\tc\\u{1b}[2J");
    }

    #[test]
    fn defaults() {
        assert_eq!(default_timeout(None), Duration::from_secs(10));
        assert_eq!(default_timeout(Some(100)), Duration::from_millis(1100));
        assert_eq!(default_timeout(Some(4000)), Duration::from_millis(6000));
        let secs = Duration::from_secs;
        assert_eq!(default_startup_timeout(secs(1)), secs(10));
        assert_eq!(default_startup_timeout(secs(30)), secs(30));
    }
}
