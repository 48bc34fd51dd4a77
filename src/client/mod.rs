//! The client layer every front end stands on (the referee, `kinrow play`,
//! `kinrow serve`): engines named, started, seated and spoken to.
//!
//! - [`EngineProcess`] (`process.rs`): owns an engine process — its pipes,
//!   a deadline on every read, stderr drained all the time, and kill and
//!   reap of its whole process group. It knows the GTP framing of responses
//!   (DESIGN §2) but nothing about games.
//! - [`EngineLink`] (`dialect.rs`, `gomocup.rs`): the process driven in its
//!   own dialect, kinrow's protocol or a Gomocup brain's, behind one
//!   interface.
//! - [`EngineSpec`], [`EngineCommand`] (`spec.rs`, `words.rs`): engines as
//!   command lines name them, with [`display_name`] and the start-up
//!   deadline.
//! - [`EngineSeat`] (`seat.rs`): a side played by an engine, as a GUI
//!   speaks to it; [`SeatSpec`] and [`Launch`] (`launch.rs`): who plays a
//!   seat and how its engine is started.
//! - [`quoted`] (`printable.rs`): text from engines and people made safe to
//!   show.
//!
//! How it never blocks without a deadline: [`EngineProcess::read_response`]
//! reads stdout itself, waiting with `poll(2)` bounded by the deadline, and
//! frames lines into [`Response`]s. Reading in the caller's thread (rather
//! than a reader thread feeding a channel) keeps a request and its reply at
//! one pipe round trip: no extra thread wake-up per reply. A thread drains
//! stderr all the time so a chatty engine can't fill that pipe and stall.
//!
//! ```no_run
//! use kinrow::client::{EngineProcess, StderrTo};
//! use std::time::{Duration, Instant};
//! let argv = vec!["kinrow".to_string(), "--bot".into(), "random".into()];
//! let mut engine = EngineProcess::spawn(&argv, StderrTo::Discard)?;
//! engine.send("newgame 3 3 3\ngenmove\n")?;
//! let deadline = Instant::now() + Duration::from_secs(5);
//! assert!(engine.read_response(deadline)?.success);
//! let reply = engine.read_response(deadline)?;
//! println!("engine plays {}", reply.text);
//! engine.shutdown(Duration::from_millis(200));
//! # Ok::<(), kinrow::client::ClientError>(())
//! ```

mod dialect;
mod gomocup;
mod launch;
mod printable;
mod process;
mod seat;
mod spec;
mod words;

pub use dialect::{Dialect, EngineCommand, EngineLink};
pub use gomocup::{
    BrainMessage, GomocupLink, GomocupOptions, ALL_MESSAGES_BYTES, DEFAULT_WRITE_GAP,
};
pub use launch::{bot_command, Launch, SeatSpec};
pub use printable::{printable, quoted};
pub use process::{
    ClientError, EngineProcess, Response, StderrTo, MAX_LINE, MAX_RESPONSE, MAX_SKIPPED_KEPT,
    STDERR_TAIL,
};
pub use seat::{Deadline, EngineFault, EngineSeat, Link};
pub use spec::{default_startup_timeout, is_valid_name, parse_seconds, EngineSpec};
pub use words::{display_name, join_words, split_words, SplitError};
