//! The blocking bot: win now, else block, else centre, else a corner, else random.

use super::{random_legal_square, seeded_rng, Bot, BotKind, Limits};
use crate::rules::{Board, Cell};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

/// Takes an immediate win, else blocks the opponent's immediate win, else takes
/// the centre (one of the central cells on an even side), else a corner, else a
/// random cell. Ties are broken by its seeded generator.
pub struct Blocking {
    rng: SmallRng,
}

impl Blocking {
    pub fn new(seed: u64) -> Blocking {
        Blocking {
            rng: seeded_rng(seed),
        }
    }
}

/// The central cells: one on odd sides, two or four on even ones.
fn centre_cells(rows: usize, cols: usize) -> Vec<Cell> {
    let mid = |n: usize| {
        if n % 2 == 1 {
            vec![n / 2]
        } else {
            vec![n / 2 - 1, n / 2]
        }
    };
    let mut out = Vec::new();
    for r in mid(rows) {
        for c in mid(cols) {
            out.push(Cell::new(r as u8, c as u8));
        }
    }
    out
}

fn corner_cells(rows: usize, cols: usize) -> Vec<Cell> {
    let (r, c) = ((rows - 1) as u8, (cols - 1) as u8);
    let mut out = vec![
        Cell::new(0, 0),
        Cell::new(0, c),
        Cell::new(r, 0),
        Cell::new(r, c),
    ];
    out.dedup();
    out.sort();
    out.dedup();
    out
}

impl Bot for Blocking {
    fn kind(&self) -> BotKind {
        BotKind::Blocking
    }

    fn choose(&mut self, board: &Board, _limits: Limits) -> Cell {
        let me = board.to_move();
        let empties: Vec<usize> = board
            .squares()
            .filter(|&s| board.is_legal_square(s))
            .collect();
        for p in [me, me.other()] {
            let hits: Vec<usize> = empties
                .iter()
                .copied()
                .filter(|&s| board.wins_through(s, p))
                .collect();
            if let Some(&s) = hits.choose(&mut self.rng) {
                return board.cell_of(s);
            }
        }
        let g = board.geometry();
        for group in [
            centre_cells(g.rows(), g.cols()),
            corner_cells(g.rows(), g.cols()),
        ] {
            let free: Vec<Cell> = group
                .into_iter()
                .filter(|&c| board.check(c).is_ok())
                .collect();
            if let Some(&c) = free.choose(&mut self.rng) {
                return c;
            }
        }
        board.cell_of(random_legal_square(board, &mut self.rng))
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = seeded_rng(seed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centre_and_corners() {
        assert_eq!(centre_cells(3, 3), vec![Cell::new(1, 1)]);
        assert_eq!(centre_cells(4, 3).len(), 2);
        assert_eq!(centre_cells(4, 4).len(), 4);
        assert_eq!(corner_cells(1, 1), vec![Cell::new(0, 0)]);
        assert_eq!(corner_cells(3, 3).len(), 4);
    }
}
