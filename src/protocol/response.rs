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
