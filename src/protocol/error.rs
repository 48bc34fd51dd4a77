//! Failure replies: a fixed prefix programs can match, then free text.

use std::fmt;

/// The canonical failure prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    UnknownCommand,
    Syntax,
    IllegalMove,
    UnacceptableSize,
    CannotUndo,
    GameOver,
    CannotScore,
    InvalidOption,
}

impl ErrorKind {
    /// The prefix that starts the failure message.
    pub fn prefix(self) -> &'static str {
        match self {
            ErrorKind::UnknownCommand => "unknown command",
            ErrorKind::Syntax => "syntax error",
            ErrorKind::IllegalMove => "illegal move",
            ErrorKind::UnacceptableSize => "unacceptable size",
            ErrorKind::CannotUndo => "cannot undo",
            ErrorKind::GameOver => "game over",
            ErrorKind::CannotScore => "cannot score",
            ErrorKind::InvalidOption => "invalid option",
        }
    }
}

/// A failed request: its kind and what exactly was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    pub kind: ErrorKind,
    pub detail: String,
}

impl ProtocolError {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> ProtocolError {
        ProtocolError {
            kind,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.detail.is_empty() {
            f.write_str(self.kind.prefix())
        } else {
            write!(f, "{}: {}", self.kind.prefix(), self.detail)
        }
    }
}
impl std::error::Error for ProtocolError {}
