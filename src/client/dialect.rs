//! The protocol an engine speaks, and [`EngineLink`]: an [`EngineProcess`]
//! driven in its own dialect behind one interface, so the referee and
//! `kinrow play` speak kinrow's protocol to every engine.
//!
//! How an engine command says its dialect: `gomocup:COMMAND` or
//! `kinrow:COMMAND`; without a prefix, a program whose file name starts
//! with `pbrain-` (the name Gomocup managers require) speaks Gomocup, any
//! other kinrow's protocol.

use super::gomocup::{BrainMessage, GomocupLink, GomocupOptions};
use super::{split_words, ClientError, EngineProcess, Response, SplitError, StderrTo};
use crate::protocol::Command;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The protocols an engine can speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// kinrow's own (GTP framing).
    #[default]
    Kinrow,
    /// The Gomocup (piskvork) brain protocol.
    Gomocup,
}

impl Dialect {
    /// The prefix that names it in an engine command.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Kinrow => "kinrow",
            Dialect::Gomocup => "gomocup",
        }
    }
}

/// An engine command: its words and the protocol it speaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    pub argv: Vec<String>,
    pub dialect: Dialect,
}

impl EngineCommand {
    /// Parses `[gomocup:|kinrow:]COMMAND` (the words split as a shell
    /// would); without a prefix the program's name decides.
    pub fn parse(text: &str) -> Result<EngineCommand, SplitError> {
        let (forced, command) = match text.trim_start().split_once(':') {
            Some(("gomocup", rest)) => (Some(Dialect::Gomocup), rest),
            Some(("kinrow", rest)) => (Some(Dialect::Kinrow), rest),
            _ => (None, text),
        };
        let argv = split_words(command)?;
        let dialect = forced.unwrap_or_else(|| {
            if crate::protocol::gomocup::is_brain_name(&argv[0]) {
                Dialect::Gomocup
            } else {
                Dialect::Kinrow
            }
        });
        Ok(EngineCommand { argv, dialect })
    }

    /// The command as it could be typed again (with its prefix when the
    /// program's name would not say it).
    pub fn shown(&self) -> String {
        let words = super::join_words(&self.argv);
        match EngineCommand::parse(&words) {
            Ok(c) if c.dialect == self.dialect => words,
            _ => format!("{}:{words}", self.dialect.name()),
        }
    }
}

/// An engine process and the protocol it is driven in. Callers speak
/// kinrow's protocol to it as [`Command`] values (`newgame`, `move`,
/// `genmove`, `set`, `name`, `protocol_version`, `undo`, `quit`): a kinrow
/// engine gets their wire form (`Display`), a Gomocup brain the values
/// translated, never our own text read back.
pub struct EngineLink {
    process: EngineProcess,
    gomocup: Option<Box<GomocupLink>>,
    /// The wire form of the requests of one write, kept between writes.
    wire: String,
}

impl EngineLink {
    /// Starts `command`; `options` matter to Gomocup brains only.
    pub fn spawn(
        command: &EngineCommand,
        stderr: StderrTo,
        options: GomocupOptions,
    ) -> Result<EngineLink, ClientError> {
        EngineLink::spawn_in(command, stderr, options, None)
    }

    /// [`EngineLink::spawn`] in working directory `dir`.
    pub fn spawn_in(
        command: &EngineCommand,
        stderr: StderrTo,
        options: GomocupOptions,
        dir: Option<&std::path::Path>,
    ) -> Result<EngineLink, ClientError> {
        let process = EngineProcess::spawn_in(&command.argv, stderr, dir)?;
        let gomocup = (command.dialect == Dialect::Gomocup)
            .then(|| Box::new(GomocupLink::new(options, &command.argv)));
        Ok(EngineLink {
            process,
            gomocup,
            wire: String::with_capacity(256),
        })
    }

    /// The protocol it speaks.
    pub fn dialect(&self) -> Dialect {
        if self.gomocup.is_some() {
            Dialect::Gomocup
        } else {
            Dialect::Kinrow
        }
    }

    /// The process underneath.
    pub fn process(&mut self) -> &mut EngineProcess {
        &mut self.process
    }

    /// See [`EngineProcess::peak_resident_bytes`].
    pub fn peak_resident_bytes(&self) -> Option<u64> {
        self.process.peak_resident_bytes()
    }

    /// Sends `requests` in a single write (see [`EngineProcess::send`]);
    /// their responses come one by one from [`EngineLink::read_response`].
    pub fn send(&mut self, requests: &[Command]) -> Result<(), ClientError> {
        match self.gomocup.as_mut() {
            None => {
                self.wire.clear();
                for request in requests {
                    let _ = writeln!(self.wire, "{request}");
                }
                self.process.send(&self.wire)
            }
            Some(g) => {
                g.queue(requests);
                Ok(())
            }
        }
    }

    /// The next response; see [`EngineProcess::read_response`].
    pub fn read_response(&mut self, deadline: Instant) -> Result<Response, ClientError> {
        match self.gomocup.as_mut() {
            None => self.process.read_response(deadline),
            Some(g) => g.answer(&mut self.process, deadline),
        }
    }

    /// A response already read that no request asked for: an engine that
    /// answered its last request twice. See [`EngineProcess::unasked_reply`];
    /// for a Gomocup brain, a move it wrote after its answer
    /// ([`GomocupLink::unasked_move`]).
    pub fn unasked_reply(&mut self) -> Option<Response> {
        match self.gomocup.as_mut() {
            None => self.process.unasked_reply(),
            Some(g) => g.unasked_move(&mut self.process),
        }
    }

    /// One request and its response.
    pub fn request(
        &mut self,
        request: Command,
        timeout: Duration,
    ) -> Result<Response, ClientError> {
        let deadline = Instant::now() + timeout;
        self.send(&[request])?;
        self.read_response(deadline)
    }

    /// The time spent since the last call waiting before writing to a brain
    /// (the write gap): not the engine's thinking time.
    pub fn take_waited(&mut self) -> Duration {
        self.gomocup
            .as_mut()
            .map_or(Duration::ZERO, |g| std::mem::take(&mut g.waited))
    }

    /// `MESSAGE`/`DEBUG` lines a brain wrote since the last call (a few
    /// kept, or all with [`EngineLink::keep_all_messages`]) and how many
    /// there were.
    pub fn take_messages(&mut self) -> (Vec<BrainMessage>, u64) {
        match self.gomocup.as_mut() {
            None => (Vec::new(), 0),
            Some(g) => g.take_messages(),
        }
    }

    /// Keeps every `MESSAGE`/`DEBUG` line of a brain between two calls of
    /// [`EngineLink::take_messages`] (up to [`super::ALL_MESSAGES_BYTES`] of them),
    /// not only the first few.
    pub fn keep_all_messages(&mut self) {
        if let Some(g) = self.gomocup.as_mut() {
            g.keep_all = true;
        }
    }

    /// See [`EngineProcess::take_skipped`].
    pub fn take_skipped(&mut self) -> (Vec<String>, u64) {
        self.process.take_skipped()
    }

    /// See [`EngineProcess::set_cancel`].
    pub fn set_cancel(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.process.set_cancel(flag);
    }

    /// See [`EngineProcess::stderr_tail`].
    pub fn stderr_tail(&self) -> String {
        self.process.stderr_tail()
    }

    /// Asks the engine to end (`quit`, or `END` for a brain) and closes its
    /// input; doesn't wait.
    pub fn request_quit(&mut self) {
        if self.gomocup.is_some() {
            let _ = self.process.send("END\n");
            self.process.close_input();
        } else {
            self.process.request_quit();
        }
    }

    /// See [`EngineProcess::wait_until`].
    pub fn wait_until(&self, deadline: Instant) -> bool {
        self.process.wait_until(deadline)
    }

    /// See [`EngineProcess::kill`].
    pub fn kill(&mut self) -> Option<std::process::ExitStatus> {
        self.process.kill()
    }

    /// Ends the engine politely, then by force; see
    /// [`EngineProcess::shutdown`].
    pub fn shutdown(mut self, grace: Duration) -> Option<std::process::ExitStatus> {
        self.request_quit();
        self.process.wait_until(Instant::now() + grace);
        self.process.kill()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_say_their_dialect() {
        let c = EngineCommand::parse("./pbrain-rapfi --x").unwrap();
        assert_eq!((c.dialect, c.argv.len()), (Dialect::Gomocup, 2));
        let c = EngineCommand::parse("gomocup:wine 'my brain.exe'").unwrap();
        assert_eq!(c.dialect, Dialect::Gomocup);
        assert_eq!(c.argv, ["wine", "my brain.exe"]);
        assert_eq!(c.shown(), "gomocup:wine 'my brain.exe'");
        let c = EngineCommand::parse("kinrow:/opt/pbrain-kinrow --bot random").unwrap();
        assert_eq!(c.dialect, Dialect::Kinrow);
        assert_eq!(c.shown(), "kinrow:/opt/pbrain-kinrow --bot random");
        let c = EngineCommand::parse("python3 bots/random.py").unwrap();
        assert_eq!(c.dialect, Dialect::Kinrow);
        assert_eq!(c.shown(), "python3 bots/random.py");
        assert!(EngineCommand::parse("gomocup:").is_err());
    }
}
