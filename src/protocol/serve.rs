//! The read-answer loop every dialect of the engine shares: request lines in
//! (bounded, so no input holds an unbounded line in memory), answers out,
//! flushed once nothing more is waiting, so pipelined requests cost one write.

use super::reader::{read_line_ending, LineRead, MAX_LINE};
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
pub fn serve_lines<R: Read, W: Write>(
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
        if !input.buffer().iter().any(|b| ends.contains(b)) {
            output.flush()?;
        }
    }
    output.flush()
}
