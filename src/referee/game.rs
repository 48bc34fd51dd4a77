//! A refereed game, whichever way it is played ([`super::process`]: two
//! engine processes; [`super::in_process`]: two built-in bots on the
//! referee's thread): what it needs besides its engines, why it ended and
//! how.

use super::adjudication::{Adjudication, Ruling};
use super::engine_settings::Clock;
use crate::protocol::{Command, SearchInfo};
use crate::rules::{Cell, Geometry, Player};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Why a game ended: `win` and `draw` on the board, or the fault of one
/// engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    Win,
    Draw,
    /// The engine's output ended (it exited or crashed), or it could not be
    /// written to or started.
    Crash,
    /// No reply before the deadline.
    Timeout,
    /// Its processes took more memory than its limit (`memory=`).
    Memory,
    /// A reply that does not parse as a move.
    Malformed,
    /// A move the rules don't allow (occupied, off the board).
    Illegal,
    /// `?` to `genmove`, or to a legal `newgame`/`move`.
    Refused,
    /// Ended by the referee before the board ended it, no engine's fault:
    /// `--draw-after`, or a proof of the result (`--exact-adjudication`);
    /// the detail says which (see [`super::adjudication`]).
    Adjudicated,
}

impl Reason {
    /// The faults, in report order.
    pub const FAULTS: [Reason; 6] = [
        Reason::Crash,
        Reason::Timeout,
        Reason::Memory,
        Reason::Malformed,
        Reason::Illegal,
        Reason::Refused,
    ];

    /// The name used in reports and records.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Win => "win",
            Reason::Draw => "draw",
            Reason::Crash => "crash",
            Reason::Timeout => "timeout",
            Reason::Memory => "memory",
            Reason::Malformed => "malformed",
            Reason::Illegal => "illegal",
            Reason::Refused => "refused",
            Reason::Adjudicated => "adjudicated",
        }
    }

    /// Whether an engine was at fault.
    pub fn is_fault(self) -> bool {
        !matches!(self, Reason::Win | Reason::Draw | Reason::Adjudicated)
    }
}

/// What a game needs besides its two engines.
#[derive(Clone, Debug)]
pub struct GameSetup<'a> {
    pub geometry: Geometry,
    /// Moves played before the engines choose (sent as `move` to both).
    pub opening: &'a [Cell],
    /// `set seed` for X and O (a `?` reply is fine).
    pub seeds: [u64; 2],
    /// The hard deadline for each reply.
    pub timeout: Duration,
    /// Each side's (X, O) own settings.
    pub sides: [SideSetup<'a>; 2],
    /// A reply this much past a side's clock still counts.
    pub time_margin: Duration,
    /// How games end early, if they do (`--draw-after`,
    /// `--exact-adjudication`).
    pub adjudication: &'a Adjudication,
    /// Keep each move's time and search for the record (`--move-info`).
    pub move_data: bool,
    /// Ctrl-C: a proof of `--exact-adjudication` stops unfinished.
    pub cancel: Option<&'a AtomicBool>,
}

/// One side's own part of a game's set-up.
#[derive(Clone, Copy, Debug, Default)]
pub struct SideSetup<'a> {
    /// The `set` requests after `set seed` (`set movetime`, `set depth`,
    /// `set nodes`, raw options; a `?` reply is fine: the start-up check
    /// made sure they take).
    pub requests: &'a [Command],
    /// A game clock: told before every `genmove` as `set timeleft MS` (a
    /// `?` reply is fine), its increment added after each move; running
    /// out loses on time.
    pub clock: Option<Clock>,
    /// Ask `search_info` after every `genmove` (the engine knows it, and
    /// the run records or adjudicates on what it says).
    pub search_info: bool,
    /// The most its processes may take, in bytes: a move answered past it
    /// (their peak resident size) loses the game (`None`: not checked).
    pub memory_limit: Option<u64>,
}

/// One engine move as the judge saw it: how long its reply took, and what
/// the engine said of its search (nothing unless the run asked).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveData {
    pub time: Duration,
    pub search: SearchInfo,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameEnd {
    /// `None` for a draw.
    pub winner: Option<Player>,
    pub reason: Reason,
    /// The side at fault, for fault reasons.
    pub fault_by: Option<Player>,
    /// What exactly went wrong (for faults), for logs and records.
    pub detail: Option<String>,
    /// Moves after the opening, in order.
    pub moves: Vec<Cell>,
    /// Each of those moves' time and search, in the same order.
    pub move_data: Vec<MoveData>,
    /// Time each side (X, O) spent answering `genmove`.
    pub time: [Duration; 2],
    /// Each side's (X, O) peak resident size by the game's end, in bytes,
    /// where it was measured (engine processes on Linux).
    pub peak_memory: [Option<u64>; 2],
    /// Whose process (X, O) must be replaced before its next game: the side
    /// at fault, and any side left out of step.
    pub replace: [bool; 2],
}

impl GameEnd {
    /// A game played to its end on the board: a win for `winner`, or a
    /// draw (`None`).
    pub fn played_out(winner: Option<Player>, moves: Vec<Cell>, time: [Duration; 2]) -> GameEnd {
        GameEnd {
            winner,
            reason: if winner.is_some() {
                Reason::Win
            } else {
                Reason::Draw
            },
            fault_by: None,
            detail: None,
            moves,
            move_data: Vec::new(),
            time,
            peak_memory: [None; 2],
            replace: [false; 2],
        }
    }

    /// A game ended by the referee's ruling, no one's fault.
    pub fn adjudicated(ruling: Ruling, moves: Vec<Cell>, time: [Duration; 2]) -> GameEnd {
        GameEnd {
            winner: ruling.winner,
            reason: Reason::Adjudicated,
            fault_by: None,
            detail: Some(ruling.detail),
            moves,
            move_data: Vec::new(),
            time,
            peak_memory: [None; 2],
            replace: [false; 2],
        }
    }

    /// A game lost by `side` before or during play, for `reason`.
    pub fn forfeit(side: Player, reason: Reason, detail: String) -> GameEnd {
        GameEnd {
            winner: Some(side.other()),
            reason,
            fault_by: Some(side),
            detail: Some(detail),
            moves: Vec::new(),
            move_data: Vec::new(),
            time: [Duration::ZERO; 2],
            peak_memory: [None; 2],
            replace: [side == Player::X, side == Player::O],
        }
    }

    /// X's score: 1, ½ or 0.
    pub fn x_score(&self) -> f64 {
        match self.winner {
            Some(Player::X) => 1.0,
            Some(Player::O) => 0.0,
            None => 0.5,
        }
    }
}

/// The game was abandoned because the cancel flag was raised (Ctrl-C).
#[derive(Debug, PartialEq, Eq)]
pub struct Cancelled;
