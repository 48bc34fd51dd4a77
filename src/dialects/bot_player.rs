//! A game and the bot that plays in it: what every dialect of the engine
//! drives (the rules and bots are the library's; this only joins them).

use crate::bots::{Bot, BotKind, Limits, SearchReport};
use crate::rules::{Board, Cell, Geometry};
use std::time::{Duration, Instant};

/// The board and the bot of an engine session. The bot is built when it is
/// first asked for a move, so that a process that is never asked (GoGui
/// starts several copies of its engine and uses some only as a ruler) starts
/// at once and cheaply.
pub struct BotPlayer {
    board: Board,
    kind: BotKind,
    seed: u64,
    bot: Option<Box<dyn Bot>>,
}

/// A move the bot chose and played, with what its search found.
#[derive(Clone, Copy, Debug)]
pub struct Chosen {
    pub cell: Cell,
    /// Depth and score, for bots that report them.
    pub report: Option<SearchReport>,
    /// How long the choice took.
    pub took: Duration,
}

impl BotPlayer {
    /// An empty board of `geometry` and a `kind` bot seeded with `seed`.
    pub fn new(geometry: Geometry, kind: BotKind, seed: u64) -> BotPlayer {
        BotPlayer {
            board: Board::new(geometry),
            kind,
            seed,
            bot: None,
        }
    }

    /// The current game.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The current game, to play or take back moves.
    pub fn board_mut(&mut self) -> &mut Board {
        &mut self.board
    }

    /// The bot's kind.
    pub fn kind(&self) -> BotKind {
        self.kind
    }

    /// A new, empty game of `geometry`.
    pub fn new_game(&mut self, geometry: Geometry) {
        self.board = Board::new(geometry);
        if let Some(bot) = self.bot.as_mut() {
            bot.new_game();
        }
    }

    /// Lets the bot choose a move for the side to move within `movetime`,
    /// and plays it. `Err` with a reason when the game is over or the bot
    /// chose an illegal move (a bug, reported rather than played).
    pub fn choose_and_play(&mut self, movetime: Duration) -> Result<Chosen, String> {
        if let Some(outcome) = self.board.outcome() {
            return Err(format!("the game is over ({outcome})"));
        }
        let start = Instant::now();
        let (kind, seed) = (self.kind, self.seed);
        let bot = self.bot.get_or_insert_with(|| kind.build(seed));
        let limits = Limits { start, movetime };
        let cell = bot.choose(&self.board, limits);
        let report = bot.report();
        match self.board.try_play(cell) {
            Ok(_) => Ok(Chosen {
                cell,
                report,
                took: start.elapsed(),
            }),
            Err(e) => Err(format!("the {kind} bot chose {cell}: {e}")),
        }
    }
}
