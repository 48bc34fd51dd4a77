//! The engine: one core, [`Session`] (the game, the bot with its options
//! and seed, the time per move, the game clock), behind three protocols,
//! each a thin layer over one read-answer loop ([`lines`]):
//!
//! - [`kinrow`]: kinrow's own protocol ([`Engine`]), the default;
//! - [`gomocup`]: the Gomocup brain protocol ([`Brain`]) that Gomoku GUIs
//!   (Piskvork, Yixin Board) and managers (c-gomoku-cli, GomocupJudge)
//!   speak; `kinrow --protocol gomocup`, or any `kinrow` started as
//!   `pbrain-*`;
//! - [`gtp`]: GTP version 2 with Go-style vertices and GoGui's
//!   `gogui-rules_*` extension ([`GtpEngine`]); `kinrow --protocol gtp`.
//!
//! What they read and write is [`crate::protocol`]'s; [`config`] checks the
//! engine's command line into what starts it.

pub mod config;
pub mod gomocup;
pub mod gtp;
pub mod kinrow;
pub mod lines;
pub mod session;

pub use config::{ConfigError, EngineArgs, EngineSetup, Protocol};
pub use gomocup::{Brain, BrainConfig};
pub use gtp::{check_board, BoardSource, GtpBoardError, GtpConfig, GtpEngine};
pub use kinrow::{status_text, Engine, EngineConfig, DEFAULT_SOLVE_TIME};
pub use lines::{answer_framed, answer_lines, Flow, FramedEngine};
pub use session::{BotOption, BuildBot, ChooseError, Session};
