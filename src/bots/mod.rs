//! The bots inside the engine. Each is driven by its own seeded random number
//! generator, so the same seed and the same moves replay the same game.

mod blocking;
mod clock;
mod mcts;
mod minimax;
mod random;
pub mod seeds;

pub use blocking::Blocking;
pub use clock::{move_time, MatchClock};
pub use mcts::{Mcts, MctsReport};
pub use minimax::{
    hash_mib_within, hash_table_mib, EvalSampler, Minimax, SearchReport, DEFAULT_HASH_MIB,
};
pub use random::RandomBot;

use crate::rules::{Board, Cell};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Default time per move for searching bots.
pub const DEFAULT_MOVETIME: Duration = Duration::from_millis(1000);

/// What a bot may spend on one move.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// When the engine received `genmove`.
    pub start: Instant,
    /// How long the bot may think.
    pub movetime: Duration,
}

impl Limits {
    /// Limits starting now.
    pub fn starting_now(movetime: Duration) -> Limits {
        Limits {
            start: Instant::now(),
            movetime,
        }
    }
    /// The moment the answer is due.
    pub fn deadline(&self) -> Instant {
        self.start + self.movetime
    }
    /// When a search must stop to answer in time: the deadline less a
    /// safety margin for setting up and answering (never before the start).
    pub fn search_deadline(&self) -> Instant {
        self.deadline()
            .checked_sub(minimax::safety_margin(self.movetime))
            .unwrap_or(self.start)
    }
}

/// A bot-specific option was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// The bot has no such option.
    Unknown(String),
    /// The value does not fit the option.
    BadValue { name: String, reason: String },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Unknown(n) => write!(f, "no option '{}'", crate::rules::clip(n)),
            OptionError::BadValue { name, reason } => write!(f, "{name}: {reason}"),
        }
    }
}

/// A move chooser.
pub trait Bot: Send {
    /// The bot's name as `set bot` takes it.
    fn kind(&self) -> BotKind;
    /// Chooses a legal move for the side to move of an ongoing game.
    fn choose(&mut self, board: &Board, limits: Limits) -> Cell;
    /// Whether choosing a move may take noticeable time (a search that uses
    /// its movetime), so that replies already written should go out first.
    fn searches(&self) -> bool {
        false
    }
    /// Restarts the bot's random number generator.
    fn reseed(&mut self, seed: u64);
    /// A new game starts (drop what belongs to the old one).
    fn new_game(&mut self) {}
    /// Sets a bot-specific option.
    fn set_option(&mut self, name: &str, _value: &str) -> Result<(), OptionError> {
        Err(OptionError::Unknown(name.to_string()))
    }
    /// What the last search found (depth, score), for bots that search;
    /// front ends show it (Gomocup `MESSAGE` lines).
    fn report(&self) -> Option<SearchReport> {
        None
    }
}

/// The bots the engine knows by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BotKind {
    /// A uniformly random legal move.
    Random,
    /// Win now, else block, else centre, else a corner, else random.
    Blocking,
    /// Negamax with alpha-beta: perfect where it can search to the end.
    Minimax,
    /// Monte Carlo tree search (UCT over random playouts, with a solver).
    Mcts,
}

impl BotKind {
    /// Every bot, in the order `list` shows them.
    pub const ALL: [BotKind; 4] = [
        BotKind::Random,
        BotKind::Blocking,
        BotKind::Minimax,
        BotKind::Mcts,
    ];

    /// A bot of this kind with its generator seeded.
    pub fn build(self, seed: u64) -> Box<dyn Bot> {
        match self {
            BotKind::Random => Box::new(RandomBot::new(seed)),
            BotKind::Blocking => Box::new(Blocking::new(seed)),
            BotKind::Minimax => Box::new(Minimax::new(seed)),
            BotKind::Mcts => Box::new(Mcts::new(seed)),
        }
    }

    /// The name used by `--bot` and `set bot`.
    pub fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Blocking => "blocking",
            BotKind::Minimax => "minimax",
            BotKind::Mcts => "mcts",
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error parsing a [`BotKind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBot(pub String);

impl fmt::Display for UnknownBot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<_> = BotKind::ALL.iter().map(|b| b.name()).collect();
        write!(
            f,
            "unknown bot '{}' (known: {})",
            crate::rules::clip(&self.0),
            names.join(", ")
        )
    }
}
impl std::error::Error for UnknownBot {}

impl FromStr for BotKind {
    type Err = UnknownBot;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BotKind::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| UnknownBot(s.to_string()))
    }
}

/// The generator every bot uses: small, fast and reproducible from a seed.
pub fn seeded_rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// A uniformly random legal square of an ongoing game (under renju, for
/// Black, none of the forbidden cells: an ongoing game has one, as the rules
/// core calls a position where Black has only forbidden cells a draw).
pub fn random_legal_square(board: &Board, rng: &mut SmallRng) -> usize {
    use rand::Rng;
    if board.geometry().rule().forbids(board.to_move()) {
        let legal: Vec<usize> = board
            .squares()
            .filter(|&s| board.is_legal_square(s))
            .collect();
        return legal[rng.random_range(0..legal.len())];
    }
    let empties = board.geometry().area() - board.ply();
    let pick = rng.random_range(0..empties);
    board
        .squares()
        .filter(|&s| board.is_empty_square(s))
        .nth(pick)
        .expect("an ongoing game has an empty square")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_stops_a_margin_before_the_deadline() {
        let ms = Duration::from_millis;
        let l = Limits::starting_now(ms(200));
        assert_eq!(l.search_deadline(), l.start + ms(180));
        let l = Limits::starting_now(ms(1));
        assert_eq!(l.search_deadline(), l.start + Duration::from_micros(500));
    }
}
