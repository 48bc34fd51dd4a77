//! The engine in the ecosystem's other protocols, beside its own
//! ([`crate::protocol`]): the same rules core and bots behind another
//! dialect on stdin/stdout.
//!
//! - [`gomocup`]: the Gomocup (piskvork) brain protocol that Gomoku GUIs
//!   (Piskvork, Yixin Board) and managers (c-gomoku-cli, GomocupJudge) speak;
//!   `kinrow --protocol gomocup`, or any `kinrow` started as `pbrain-*`.
//!   The manager side, for the referee, is there too ([`gomocup::Reply`]).
//! - [`gtp`]: GTP version 2 with Go-style vertices and GoGui's
//!   `gogui-rules_*` extension; `kinrow --protocol gtp`.

pub mod gomocup;
pub mod gtp;
