//! The random bot.

use super::{random_legal_square, seeded_rng, Bot, BotKind, Limits};
use crate::rules::{Board, Cell};
use rand::rngs::SmallRng;

/// Plays a uniformly random legal move.
pub struct RandomBot {
    rng: SmallRng,
}

impl RandomBot {
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: seeded_rng(seed),
        }
    }
}

impl Bot for RandomBot {
    fn kind(&self) -> BotKind {
        BotKind::Random
    }
    fn choose(&mut self, board: &Board, _limits: Limits) -> Cell {
        board.cell_of(random_legal_square(board, &mut self.rng))
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = seeded_rng(seed);
    }
}
