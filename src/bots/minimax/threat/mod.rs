//! The threat searcher: minimax's search on boards too large to search to
//! the end (beyond 36 cells, and after the solver on boards of up to 64).
//!
//! - `shape`: what a stone makes along one line (five, open four, four,
//!   open three, three, open two, two), for any K and both rules.
//! - `field`: the board with those shapes kept move by move for every empty
//!   cell and both players, the cells that win, make fours, win in three
//!   plies or make open threes, and the evaluation (the cells' worth).
//! - `learned`, `weights`: the evaluation, tables of cell classes fitted
//!   to game results; `sampler`: positions and features for the tuner.
//! - `vcf`: VCF and VCT, threat-space searches whose wins are proofs
//!   (methods of the search, which owns their caches and budgets).
//! - `search`: PVS with iterative deepening, the transposition table,
//!   killers and history; forced moves and defences generated exactly; a
//!   VCF tried at every node; at the root a VCF and a VCT first and, at the
//!   end, a check that the chosen move leaves the other no VCT.

mod field;
mod learned;
mod sampler;
mod search;
mod shape;
mod vcf;
mod weights;

pub use sampler::EvalSampler;
pub use search::{Memory, ThreatSearch};
pub use shape::Lines;
