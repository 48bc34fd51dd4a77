//! kinrow: a toolkit for k-in-a-row games (m,n,k-games), from tic-tac-toe to
//! gomoku.
//!
//! - [`rules`]: the pure rules core (boards up to 32x32, `free` and `exact` rules).
//! - [`bots`]: the move choosers inside the engine.
//! - [`protocol`]: the wire vocabularies (kinrow's GTP-framed line protocol,
//!   the Gomocup brain protocol, GTP), which engine and clients both speak.
//! - [`engine`]: the engine core behind kinrow's protocol, the Gomocup brain
//!   protocol and GTP with GoGui's rules commands.
//! - [`client`]: one engine process driven over its pipes, with deadlines.
//! - [`solver`]: proves the value of positions on boards of up to 64 cells.
//! - [`records`]: SGF and Piskvork `.psq` game records.
//! - [`tactics`]: tactical positions with proven answers, the threat
//!   searcher's yardstick, and the proof search that checks them.
//! - [`referee`]: tournaments between engine processes, with statistics.
//! - [`serve`]: `kinrow serve`, the page to play in a browser, a protocol client.
//! - [`sys`]: the operating system in one place: signals, the reaper, `poll`,
//!   memory, the terminal.

pub mod bots;
pub mod cli;
pub mod client;
pub mod engine;
pub mod play;
pub mod protocol;
pub mod records;
pub mod referee;
pub mod rules;
pub mod serve;
pub mod solve;
pub mod solver;
pub mod sys;
pub mod tactics;
