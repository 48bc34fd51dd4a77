//! Perfect play that also punishes mistakes (issue 10 §2).
//!
//! On a board the solver proves, the bot keeps the game's value (the
//! quickest win, or the slowest loss, among the moves that keep it) and,
//! among the moves that do, prefers the one with the highest expected score
//! against a fallible opponent: one who plays uniformly at random. That
//! expectation is computed exactly, memoised over positions, when few cells
//! are left ([`EXACT_EMPTIES`]); beyond, it is estimated one reply deep: the
//! share of the opponent's replies that would hand the bot a better value
//! (each reply scored by its proved value: a win 1, a draw ½, a loss 0).

use crate::rules::{Board, Cell, Outcome, Player};
use crate::solver::{Analysis, Budget, Solver, Value};
use std::collections::HashMap;
use std::time::Instant;

/// Up to this many empty cells, the expected score is computed exactly.
pub const EXACT_EMPTIES: usize = 10;

/// The moves that keep the proved value with its distance (the quickest
/// win, the slowest loss; every drawing move).
pub fn keepers(analysis: &Analysis) -> Option<Vec<Cell>> {
    let best = analysis.value()?;
    Some(
        analysis
            .moves
            .iter()
            .filter(|(_, v)| *v == Some(best))
            .map(|(c, _)| *c)
            .collect(),
    )
}

/// Exact expected scores already computed, by the stones of X and O and the
/// player they are for (kept for one shape: clear it when the shape changes).
pub type Memo = HashMap<(u64, u64, Player), f64>;

/// Expected scores (win 1, draw ½, loss 0) for `me` against a uniformly
/// random opponent, when `me` plays by this policy; memoised.
pub struct Expectation<'a> {
    solver: &'a mut Solver,
    me: Player,
    deadline: Option<Instant>,
    memo: &'a mut Memo,
    /// Set when the deadline passed: the results are void.
    pub stopped: bool,
}

impl<'a> Expectation<'a> {
    pub fn new(
        solver: &'a mut Solver,
        memo: &'a mut Memo,
        me: Player,
        deadline: Option<Instant>,
    ) -> Self {
        Expectation {
            solver,
            me,
            deadline,
            memo,
            stopped: false,
        }
    }

    fn score(&self, outcome: Outcome) -> f64 {
        match outcome.winner() {
            Some(p) if p == self.me => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }

    fn key(&self, board: &Board) -> (u64, u64, Player) {
        let g = board.geometry();
        let mut k = (0u64, 0u64, self.me);
        for (i, cell) in board.moves().enumerate() {
            let bit = 1u64 << (cell.row as usize * g.cols() + cell.col as usize);
            if i % 2 == 0 {
                k.0 |= bit;
            } else {
                k.1 |= bit;
            }
        }
        k
    }

    /// The exact expected score of `board` (any side to move).
    pub fn exact(&mut self, board: &mut Board) -> f64 {
        if let Some(o) = board.outcome() {
            return self.score(o);
        }
        let key = self.key(board);
        if let Some(&e) = self.memo.get(&key) {
            return e;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = true;
        }
        if self.stopped {
            return 0.0;
        }
        let e = if board.to_move() == self.me {
            let Some(moves) = self.analysis(board).as_ref().and_then(keepers) else {
                self.stopped = true;
                return 0.0;
            };
            moves
                .into_iter()
                .map(|m| self.after(board, m))
                .fold(f64::MIN, f64::max)
        } else {
            let moves: Vec<Cell> = board.legal_moves().collect();
            let n = moves.len() as f64;
            moves.into_iter().map(|m| self.after(board, m)).sum::<f64>() / n
        };
        // A result that missed the deadline somewhere below is void.
        if !self.stopped {
            self.memo.insert(key, e);
        }
        e
    }

    /// The exact expected score after playing `cell`.
    pub fn after(&mut self, board: &mut Board, cell: Cell) -> f64 {
        board.try_play(cell).expect("a legal move");
        let e = self.exact(board);
        board.undo();
        e
    }

    /// One reply deep: after `me` plays `cell`, the mean over the
    /// opponent's replies of the proved value for `me` (`None` when not
    /// proved in time).
    pub fn estimate(&mut self, board: &mut Board, cell: Cell) -> Option<f64> {
        let outcome = board.try_play(cell).expect("a legal move");
        let result = match outcome {
            Some(o) => Some(self.score(o)),
            None => self.analysis(board).and_then(|a| {
                let values: Option<Vec<Value>> = a.moves.iter().map(|m| m.1).collect();
                let values = values?;
                let n = values.len() as f64;
                // The replies' values are the opponent's: a loss for them is
                // a win for `me`.
                Some(
                    values
                        .iter()
                        .map(|v| match v.sign() {
                            1 => 0.0,
                            0 => 0.5,
                            _ => 1.0,
                        })
                        .sum::<f64>()
                        / n,
                )
            }),
        };
        board.undo();
        result
    }

    fn analysis(&mut self, board: &Board) -> Option<Analysis> {
        let a = self
            .solver
            .analyze(board, Budget::until_maybe(self.deadline))
            .ok()?;
        a.moves.iter().all(|m| m.1.is_some()).then_some(a)
    }
}
