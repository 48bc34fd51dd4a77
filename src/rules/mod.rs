//! The rules of m,n,k-games: a pure library with no I/O, no clock and no
//! hidden randomness.
//!
//! ```
//! use kinrow::rules::{Board, Cell, Geometry, Outcome, Player};
//! let mut b = Board::new(Geometry::TIC_TAC_TOE);
//! for (r, c) in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)] {
//!     b.try_play(Cell::new(r, c)).unwrap();
//! }
//! assert_eq!(b.outcome().and_then(|o| o.winner()), Some(Player::X));
//! assert!(b.try_play(Cell::new(2, 2)).is_err());
//! ```

mod board;
mod geometry;
mod lines;
mod outcome;
mod playout;
mod renju;
mod types;

pub use board::{Board, IllegalMove};
pub use geometry::{smallest_hash, splitmix64, BoardSize, Geometry, SizeError, MAX_SIDE};
pub use outcome::{Line, Outcome};
pub(crate) use playout::windows as window_masks;
pub use playout::{random_below, Playouts};
pub use renju::{Forbidden, ParseForbiddenError};
pub use types::{
    clip, parse_coordinate, Cell, ParseCellError, ParsePlayerError, ParseRuleError, Player, Rule,
};
