//! Negamax with alpha-beta (placeholder until the full searcher lands).

use super::{random_empty_square, seeded_rng, Bot, BotKind, Limits};
use crate::rules::{Board, Cell};
use rand::rngs::SmallRng;

/// Negamax searcher.
pub struct Minimax {
    rng: SmallRng,
}

impl Minimax {
    pub fn new(seed: u64) -> Minimax {
        Minimax {
            rng: seeded_rng(seed),
        }
    }
}

impl Bot for Minimax {
    fn kind(&self) -> BotKind {
        BotKind::Minimax
    }
    fn choose(&mut self, board: &Board, _limits: Limits) -> Cell {
        board.cell_of(random_empty_square(board, &mut self.rng))
    }
    fn reseed(&mut self, seed: u64) {
        self.rng = seeded_rng(seed);
    }
}
