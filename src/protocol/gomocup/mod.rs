//! The Gomocup (piskvork) brain protocol's vocabulary, both ways:
//!
//! - [`Command`], [`BoardLine`]: what managers send, parsed (kinrow as a
//!   brain, [`crate::engine::gomocup`], reads them);
//! - [`Reply`]: what brains send, parsed (the referee's and `kinrow play`'s
//!   side, [`crate::client`]).
//!
//! Coordinates are `X,Y`: 0-based, the column first ([`Point`]).

mod command;
mod reply;

pub use command::{BadPoint, BoardLine, Command, CommandError, Field, Point};
pub use reply::{about_field, Reply};

/// Whether a program's file name marks it as a Gomocup brain: managers load
/// brains named `pbrain-*` (and kinrow speaks the protocol when started so).
pub fn is_brain_name(program: &str) -> bool {
    std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.to_ascii_lowercase().starts_with("pbrain-"))
}
