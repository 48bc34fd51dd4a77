//! The referee: tournaments between engine processes (DESIGN §4).
//!
//! A run, from its flags to its report:
//! - [`args`], `config` ([`Config`]): the flags, and the run they ask for,
//!   checked once (every rule between flags, the records to resume from).
//! - [`tournament`]: the run ([`run`]): prepared (files, engines, resumed
//!   games), played on worker threads, reported; it hears nothing of how it
//!   is watched but its [`watch::Watcher`].
//! - `engines`: the start-up check of every engine, the bots of
//!   `--in-process`, the processes a worker starts for its games.
//! - [`engine_settings`]: each engine's own time, limits, directory and
//!   options (`--each`, `--engine-settings`).
//! - `schedule`: who plays whom (round robin, gauntlet); which engines play each game, with which colours, in which
//!   pair and round; a shard's games.
//! - `players`: what a worker plays its games with (processes or bots).
//! - `books`: a finished game's record, log lines and SGF file, and the
//!   counts every game is entered into.
//! - `progress`: the progress line on stderr.
//!
//! One game:
//! - [`game`]: a refereed game: its set-up, why it ended, its end.
//! - [`process`]: one game between two processes, every move checked.
//! - [`in_process`]: one game between built-in bots on the referee's own
//!   thread (`--in-process`), every move checked the same way.
//! - `judge`: the clocks and the verdict on every reply, for both.
//! - [`adjudication`]: games ended early (`--draw-after`), and on proofs only
//!   (`--exact-adjudication`).
//!
//! Records, reports and what they rest on:
//! - [`games_out`]: the game records of `--games-out`, written and read back
//!   (for `--resume`).
//! - `resume`: records checked against a run and counted again.
//! - [`merge`]: `referee merge`, the shards of a run into one report.
//! - [`ratings`]: `referee ratings`, one rating list (a maximum-likelihood
//!   fit) from any records.
//! - [`samples`]: `referee samples`, training samples from records in
//!   c-gomoku-cli's layouts.
//! - [`run_samples`]: a run's `--samples`, each finished game's samples
//!   drawn as `referee samples` draws them, appended as the run goes.
//! - [`convert`]: the referee's games as SGF and PSQ files (`--sgf-dir`,
//!   `kinrow convert`).
//! - [`report`]: per-pairing tallies, the text report and the JSON summary.
//! - [`stats`]: the statistics as pure functions.
//! - [`openings`]: random openings and openings files.
//! - [`opening_formats`]: the notations of openings files (kinrow's, Gomocup's
//!   offsets, `pos`) and the board's symmetries (`--openings-transform`).
//! - [`shard`]: `--shard I/N`, a slice of a run's schedule.
//! - [`files`]: input files read within bounds; outputs that must differ.
//! - [`watch`]: the events of a running tournament, for those who watch.

pub mod adjudication;
pub mod args;
mod books;
mod config;
pub mod convert;
pub mod engine_settings;
mod engines;
pub mod files;
pub mod game;
pub mod games_out;
pub mod in_process;
mod judge;
pub mod merge;
pub mod opening_formats;
pub mod openings;
mod players;
pub mod process;
mod progress;
pub mod ratings;
pub mod report;
mod resume;
pub mod run_samples;
pub mod samples;
mod schedule;
pub mod shard;
pub mod stats;
pub mod tournament;
pub mod watch;

pub use config::{Config, ConfigError};
pub use games_out::PastGames;
pub use openings::{
    default_opening_plies, parse_openings, random_opening, OpeningError, OpeningOrder,
    OpeningSource,
};
// The seeds live beside the bots' random number generator (`kinrow play`
// derives its bots' seeds too).
pub use crate::bots::seeds::{self, derive_seed, Stream};
pub use schedule::Tournament;
pub use shard::Shard;
pub use tournament::{run, RunOutcome};
// The engine specs live with the client, which every front end shares.
pub use crate::client::{default_startup_timeout, is_valid_name, EngineSpec};

use std::time::Duration;

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

/// The default deadline: the move time plus a margin, else 10 s.
pub fn default_timeout(movetime_ms: Option<u64>) -> Duration {
    match movetime_ms {
        Some(ms) => Duration::from_millis(ms.saturating_add(1000.max(ms / 2))),
        None => Duration::from_secs(10),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
