//! What a running tournament tells those who watch it. A [`Watcher`] hears
//! every game start, every move and every game's end, with the standings
//! after it: the door through which a live view (a web page, a log) follows
//! a run without touching how it is played. The progress line reads the
//! same standings on its own clock.

use super::game::GameEnd;
use super::report::{EngineInfo, PairingTally, PlyTimes, RunInfo, SprtStatus};
use crate::rules::{Cell, Player};

/// A game about to be played.
#[derive(Clone, Copy, Debug)]
pub struct GameStart<'a> {
    /// Its index in the schedule.
    pub game: usize,
    pub pair: usize,
    /// The engines playing X and O.
    pub x: &'a str,
    pub o: &'a str,
    /// The opening, played before the engines choose.
    pub opening: &'a [Cell],
}

/// A move an engine chose, checked and played.
#[derive(Clone, Copy, Debug)]
pub struct MovePlayed {
    pub game: usize,
    /// Its number among the moves after the opening, from 1.
    pub ply: usize,
    pub side: Player,
    pub cell: Cell,
}

/// A finished game.
#[derive(Clone, Copy, Debug)]
pub struct GameOver<'a> {
    pub game: usize,
    pub x: &'a str,
    pub o: &'a str,
    pub end: &'a GameEnd,
}

/// The state of the run after a game: what the report would say now.
#[derive(Clone, Copy, Debug)]
pub struct Standings<'a> {
    /// Games finished and counted (with those resumed).
    pub done: u64,
    /// Games in this session's schedule (the shard's, for a shard).
    pub total: usize,
    pub engines: &'a [EngineInfo],
    pub tallies: &'a [PairingTally],
    /// Stdout lines each engine wrote outside responses.
    pub skipped_lines: &'a [u64],
    /// The SPRT's state (with `--sprt`), over complete pairs.
    pub sprt: Option<SprtStatus>,
    /// Where this session's plies' time went, once there are plies.
    pub per_ply: Option<PlyTimes>,
}

/// Hears a run's events. Called from the threads that play the games, so
/// it must be cheap and thread-safe; a watcher that needs less (only the
/// ends) leaves the other methods as they are. With `--in-process` moves
/// come by the million a second: a watcher samples what it shows.
pub trait Watcher: Sync {
    /// The games are about to start: the report's head (its counts as
    /// they stand, resumed games included) and the standings.
    fn run_started(&self, _info: &RunInfo, _standings: &Standings<'_>) {}
    /// The run is over: the head and standings of its report and summary.
    fn run_ended(&self, _info: &RunInfo, _standings: &Standings<'_>) {}
    /// A game starts.
    fn game_started(&self, _game: &GameStart<'_>) {}
    /// A move was played.
    fn move_played(&self, _event: &MovePlayed) {}
    /// A game ended and was counted (called in the order games are
    /// counted, one at a time, while the run's books are locked: copy what
    /// is needed and return; the workers wait meanwhile).
    fn game_finished(&self, _game: &GameOver<'_>, _standings: &Standings<'_>) {}
}
