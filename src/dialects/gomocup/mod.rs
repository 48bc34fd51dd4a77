//! The Gomocup (piskvork) brain protocol: both sides of it.
//!
//! - [`Brain`]: kinrow as a brain (`kinrow --protocol gomocup`, or started
//!   as `pbrain-*`), for Gomocup GUIs and managers.
//! - [`Command`], [`BoardLine`]: what managers send, parsed.
//! - [`Reply`]: what brains send, parsed (the referee's side).
//!
//! Coordinates are `X,Y`: 0-based, the column first ([`Point`]).

mod brain;
mod command;
mod reply;

pub use brain::{Brain, BrainConfig};
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
