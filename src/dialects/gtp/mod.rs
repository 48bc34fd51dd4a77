//! GTP version 2 with GoGui's rules extension: [`GtpEngine`] answers GoGui
//! as player and as ruler; [`Vertex`] is the Go-style point (`H8`).

mod engine;
mod vertex;

pub use engine::{check_board, GtpCommand, GtpEngine};
pub use vertex::{BadVertex, GtpMove, Vertex, MAX_GTP_SIDE};
