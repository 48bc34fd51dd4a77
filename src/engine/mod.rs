//! The engine: one core ([`Session`]: the game, the bot with its options
//! and seed, the time per move, the game clock) behind three protocols, each
//! a thin layer over one read-answer loop ([`lines`]).

pub mod lines;
pub mod session;

pub use lines::{answer_framed, answer_lines, Flow, FramedEngine};
pub use session::{BuildBot, ChooseError, Chosen, Session};
