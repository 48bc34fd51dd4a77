//! The engine protocol: GTP framing around k-in-a-row commands.
//!
//! Requests are parsed in one place ([`parse_line`]) into a typed [`Command`];
//! the [`Engine`] answers them over any reader and writer, so transcripts can
//! be tested in process.

mod command;
mod engine;
mod error;
mod names;
mod reader;

pub use command::{
    parse_line, preprocess, split_request, Command, Parsed, Request, Shape, SplitRequest,
};
pub use engine::{Engine, EngineConfig};
pub use error::{ErrorKind, ProtocolError};
pub use names::{CommandNames, GTP_ADMIN};
pub use reader::{read_line_bounded, read_line_ending, LineRead, MAX_LINE};

/// Writes one response: `=[id] result` or `?[id] message`, then an empty line.
/// A result that starts on its own line (like `show`'s board) follows the `=`
/// directly.
pub fn write_response<W: std::io::Write, E: std::fmt::Display>(
    out: &mut W,
    id: Option<u64>,
    result: &Result<String, E>,
) -> std::io::Result<()> {
    let (mark, text) = match result {
        Ok(text) => ('=', std::borrow::Cow::Borrowed(text.as_str())),
        Err(e) => ('?', std::borrow::Cow::Owned(e.to_string())),
    };
    let id = id.map(|i| i.to_string()).unwrap_or_default();
    let sep = if text.is_empty() || text.starts_with('\n') {
        ""
    } else {
        " "
    };
    write!(out, "{mark}{id}{sep}{text}\n\n")
}
