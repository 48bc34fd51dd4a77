//! GTP version 2's vocabulary with GoGui's rules extension: the commands a
//! controller sends ([`GtpCommand`]) and the Go-style point ([`Vertex`],
//! `H8`). The engine that answers them is [`crate::engine::gtp`].

mod command;
mod vertex;

pub use command::GtpCommand;
pub use vertex::{BadVertex, GtpMove, Vertex, MAX_GTP_SIDE};
