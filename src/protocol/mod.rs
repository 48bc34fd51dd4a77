//! The wire vocabularies, which the engine side ([`crate::engine`]) and the
//! client side ([`crate::client`], the referee, the front ends) both speak:
//!
//! - kinrow's own protocol, GTP framing around k-in-a-row commands: each
//!   request line parsed in one place ([`parse_line`]) into a typed
//!   [`Command`] that writes its wire form back (`Display`); answers framed
//!   by [`write_response`]; failures typed ([`ProtocolError`]);
//! - [`gomocup`]: the Gomocup brain protocol, both ways;
//! - [`gtp`]: GTP with GoGui's rules commands;
//! - the bounded line reader ([`read_line_bounded`]) every reader of lines
//!   uses, so no input holds an unbounded line in memory.

mod command;
mod error;
pub mod gomocup;
pub mod gtp;
mod names;
mod reader;
mod response;
mod search_info;

pub use command::{
    parse_line, preprocess, split_request, without_arguments, Command, Parsed, Request, Shape,
    SplitRequest,
};
pub use error::{ErrorKind, ProtocolError};
pub use names::{CommandNames, GTP_ADMIN};
pub use reader::{read_line_bounded, read_line_ending, LineRead, MAX_LINE};
pub use response::{write_response, MoveReply};
pub use search_info::{Score, SearchInfo};
