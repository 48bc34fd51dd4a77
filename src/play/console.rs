//! The person's side of the terminal: prompts, lines typed, text shown.

use super::render::Style;
use crate::cli::{wrap, TEXT_WIDTH};
use crate::client::printable;
use crate::protocol::{read_line_bounded, LineRead};
use std::fmt::Display;
use std::io::{self, BufRead, Write};

/// Longest line kept from the keyboard; longer ones are refused whole.
const MAX_ENTRY: usize = 1024;

/// Lines in, text out, and how to draw.
pub struct Console<R, W> {
    input: R,
    output: W,
    /// Colour or plain marks.
    pub style: Style,
    /// The terminal's width in columns (80 unless told otherwise, see
    /// [`crate::sys::term::stdout_columns`]): text is wrapped to it, at
    /// most [`TEXT_WIDTH`].
    pub width: usize,
    /// Write each line read back after its prompt, so that a transcript of
    /// piped input reads like a session at the keyboard.
    echo: bool,
}

impl<R: BufRead, W: Write> Console<R, W> {
    /// A console over any reader and writer, 80 columns wide.
    pub fn new(input: R, output: W, style: Style, echo: bool) -> Self {
        Console {
            input,
            output,
            style,
            width: TEXT_WIDTH,
            echo,
        }
    }

    /// Shows text, each line wrapped at word boundaries to the width.
    pub fn say(&mut self, text: impl Display) -> io::Result<()> {
        let text = wrap(&text.to_string(), self.width.clamp(20, TEXT_WIDTH));
        writeln!(self.output, "{text}")?;
        self.output.flush()
    }

    /// Shows text as it is (for boards, which end in a newline).
    pub fn show(&mut self, text: &str) -> io::Result<()> {
        self.output.write_all(text.as_bytes())?;
        self.output.flush()
    }

    /// Shows `question` and reads one line; `None` at end of input. A line
    /// too long to be an answer is refused here and asked again.
    pub fn ask(&mut self, question: &str) -> io::Result<Option<String>> {
        let mut buf = Vec::new();
        let question = wrap(question, self.width.clamp(20, TEXT_WIDTH));
        loop {
            write!(self.output, "{question} ")?;
            self.output.flush()?;
            match read_line_bounded(&mut self.input, &mut buf, MAX_ENTRY)? {
                LineRead::Eof => {
                    // End the prompt's line so whatever follows starts clean.
                    writeln!(self.output)?;
                    return Ok(None);
                }
                LineRead::TooLong => {
                    if self.echo {
                        writeln!(self.output)?;
                    }
                    writeln!(self.output, "That line is too long. Please try again.")?;
                }
                LineRead::Line => {
                    let line = String::from_utf8_lossy(&buf).trim().to_string();
                    if self.echo {
                        writeln!(self.output, "{}", printable(&line))?;
                    }
                    return Ok(Some(line));
                }
            }
        }
    }
}
