//! The read-answer loop every protocol of the engine shares: request lines
//! in (bounded, so no input holds an unbounded line in memory), answers out,
//! flushed once nothing more is waiting, so pipelined requests cost one
//! write. [`answer_framed`] is the loop for the GTP-framed protocols
//! (kinrow's and GTP): `[id] name args` in, `=`/`?` answers out.

use crate::protocol::{
    preprocess, read_line_ending, split_request, write_response, LineRead, ProtocolError, MAX_LINE,
};
use std::io::{self, BufReader, Read, Write};

/// What handling a line asks of the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// Feeds each line of `input` (ending at any byte of `ends`) to `on_line`
/// until it says [`Flow::Quit`] or the input ends. `on_line` gets `None` for
/// a line longer than [`MAX_LINE`] (read and dropped). `output` is flushed
/// whenever no complete line waits in the input, and at the end; a handler
/// about to think for a while flushes it itself first.
pub fn answer_lines<R: Read, W: Write>(
    input: R,
    mut output: W,
    ends: &[u8],
    mut on_line: impl FnMut(Option<&[u8]>, &mut W) -> io::Result<Flow>,
) -> io::Result<()> {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::with_capacity(256);
    loop {
        let flow = match read_line_ending(&mut input, &mut line, MAX_LINE, ends)? {
            LineRead::Eof => break,
            LineRead::TooLong => on_line(None, &mut output)?,
            LineRead::Line => on_line(Some(&line), &mut output)?,
        };
        if flow == Flow::Quit {
            break;
        }
        let waiting = match ends {
            [end] => input.buffer().contains(end),
            _ => input.buffer().iter().any(|b| ends.contains(b)),
        };
        if !waiting {
            output.flush()?;
        }
    }
    output.flush()
}

/// An engine behind a GTP-framed protocol: what [`answer_framed`] needs.
pub trait FramedEngine {
    /// A request's command, as the protocol types it.
    type Command;
    /// Reads a command name and its arguments.
    fn parse(name: &str, args: &[&str]) -> Result<Self::Command, ProtocolError>;
    /// The refusal of a line longer than [`MAX_LINE`].
    fn too_long() -> ProtocolError;
    /// Whether answering `command` may take a while, so that answers
    /// already written go out first.
    fn thinks(&self, command: &Self::Command) -> bool;
    /// Answers one command; [`Flow::Quit`] after its answer ends the loop.
    fn answer(&mut self, command: Self::Command) -> (Result<String, ProtocolError>, Flow);
}

/// Answers `engine`'s requests from `input` on `output` until `quit` or the
/// end of input: each line cleaned and split GTP's way, a malformed one
/// refused with `?` (and its id when one was read), a blank one skipped.
pub fn answer_framed<E: FramedEngine, R: Read, W: Write>(
    engine: &mut E,
    input: R,
    output: W,
) -> io::Result<()> {
    answer_lines(input, output, b"\n", |raw, out| {
        let Some(raw) = raw else {
            write_response(out, None, &Err(E::too_long()))?;
            return Ok(Flow::Continue);
        };
        let line = preprocess(raw);
        let (id, result, flow) = match split_request(&line) {
            // No reply, but earlier replies may still wait for the loop's
            // flush: a blank line or comment is no reason to skip it.
            Ok(None) => return Ok(Flow::Continue),
            Err((id, e)) => (id, Err(e), Flow::Continue),
            Ok(Some((id, name, args))) => match E::parse(name, &args) {
                Err(e) => (id, Err(e), Flow::Continue),
                Ok(command) => {
                    if engine.thinks(&command) {
                        out.flush()?;
                    }
                    let (result, flow) = engine.answer(command);
                    (id, result, flow)
                }
            },
        };
        write_response(out, id, &result)?;
        Ok(flow)
    })
}
