//! Response framing, GTP's: `=` or `?`, the id, the text, an empty line.

/// Writes one response: `=[id] result` or `?[id] message`, then an empty line.
/// A result that starts on its own line (like `show`'s board) follows the `=`
/// directly.
pub fn write_response<W: std::io::Write, E: std::fmt::Display>(
    out: &mut W,
    id: Option<u64>,
    result: &Result<String, E>,
) -> std::io::Result<()> {
    let (mark, text) = match result {
        Ok(text) => ('=', std::borrow::Cow::Borrowed(text.as_str())),
        Err(e) => ('?', std::borrow::Cow::Owned(e.to_string())),
    };
    let id = id.map(|i| i.to_string()).unwrap_or_default();
    let sep = if text.is_empty() || text.starts_with('\n') {
        ""
    } else {
        " "
    };
    write!(out, "{mark}{id}{sep}{text}\n\n")
}

/// A `genmove` reply, read once for every reader (the referee's judge, the
/// seats of `kinrow play` and `kinrow serve`, the referee's check for a
/// second answer): a cell, a row and a column that are no cell of any
/// board (`0 0`, `99999999999 1`: a move off the board, illegal), or text
/// that is no move at all (malformed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveReply {
    Cell(crate::rules::Cell),
    OffBoard,
    NotAMove,
}

impl MoveReply {
    /// Reads a reply's text (surrounding white space aside).
    pub fn read(text: &str) -> MoveReply {
        let text = text.trim();
        if let Ok(cell) = text.parse() {
            return MoveReply::Cell(cell);
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        let numbers = words.len() == 2
            && words.iter().all(|w| {
                let digits = w.strip_prefix(['-', '+']).unwrap_or(w);
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            });
        if numbers {
            MoveReply::OffBoard
        } else {
            MoveReply::NotAMove
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Cell;

    #[test]
    fn genmove_replies_are_cells_moves_off_every_board_or_no_move() {
        assert_eq!(MoveReply::read(" 2 3\n"), MoveReply::Cell(Cell::new(1, 2)));
        for text in ["0 0", "99999999999 1", " -1\t2 ", "+3 0"] {
            assert_eq!(MoveReply::read(text), MoveReply::OffBoard, "{text:?}");
        }
        for text in [
            "",
            "2",
            "2 2 2",
            "2 2 extra",
            "a b",
            "1.5 2",
            "- 2",
            "2,2",
            "resign",
        ] {
            assert_eq!(MoveReply::read(text), MoveReply::NotAMove, "{text:?}");
        }
    }
}
