//! Reading request lines with a bound, so no input can make the engine hold
//! an unbounded line in memory.

use std::io::{self, BufRead};

/// Longest request line kept; longer lines are skipped and refused.
pub const MAX_LINE: usize = 8 * 1024;

/// What one read produced.
#[derive(Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line (without its newline) is in the buffer.
    Line,
    /// A line longer than the bound was read and dropped.
    TooLong,
    /// End of input.
    Eof,
}

/// Reads one line into `buf` (cleared first), keeping at most `max` bytes.
pub fn read_line_bounded<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    read_line_ending(reader, buf, max, b"\n")
}

/// Like [`read_line_bounded`], but a line ends at any of the bytes in `ends`
/// (the Gomocup protocol ends lines with CR LF, LF or CR alone: with
/// `b"\r\n"` a CR LF reads as a line and an empty one, which callers skip).
pub fn read_line_ending<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
    ends: &[u8],
) -> io::Result<LineRead> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (read_any, too_long) {
                (false, _) => LineRead::Eof,
                (true, true) => LineRead::TooLong,
                (true, false) => LineRead::Line,
            });
        }
        read_any = true;
        let (chunk, used, done) = match available.iter().position(|b| ends.contains(b)) {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        reader.consume(used);
        if done {
            return Ok(if too_long {
                LineRead::TooLong
            } else {
                LineRead::Line
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_long_lines_and_end() {
        let input = format!("abc\n{}\nlast", "9".repeat(100));
        let mut r = io::BufReader::with_capacity(16, input.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 10).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"abc");
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 10).unwrap(),
            LineRead::TooLong
        );
        assert!(buf.is_empty());
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 10).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"last");
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 10).unwrap(),
            LineRead::Eof
        );
    }

    #[test]
    fn any_of_several_line_ends() {
        let mut r = io::BufReader::new(&b"a\r\nb\rc\nd"[..]);
        let mut buf = Vec::new();
        let mut got = Vec::new();
        while read_line_ending(&mut r, &mut buf, 10, b"\r\n").unwrap() != LineRead::Eof {
            got.push(String::from_utf8(buf.clone()).unwrap());
        }
        assert_eq!(got, ["a", "", "b", "c", "d"]);
    }
}
