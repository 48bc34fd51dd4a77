//! Text from outside made safe to show a person: both front ends quote
//! what people type and what engines send through [`quoted`].

use crate::rules::clip;

/// Text from outside — typed at a prompt or sent by an engine — made safe to
/// show in a message: shortened, and with control characters spelt out, so
/// that an arrow key typed by mistake (`^[[A`) or an engine's escape codes
/// can't move the cursor or recolour the terminal.
pub fn quoted(text: &str) -> String {
    printable(&clip(text))
}

/// Control characters in caret notation (`^[`, `^?`), the way a terminal
/// echoes them while they are typed; C1 controls as `\u{9b}`.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{0}'..='\u{1f}' => {
                out.push('^');
                out.push(char::from(c as u8 + b'@'));
            }
            '\u{7f}' => out.push_str("^?"),
            c if c.is_control() => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_spelt_out() {
        assert_eq!(printable("\u{1b}[A\u{1b}[D"), "^[[A^[[D");
        assert_eq!(printable("a\tb\u{7f}\u{9b}c"), "a^Ib^?\\u{9b}c");
        assert_eq!(printable("1 2 é ①"), "1 2 é ①");
        assert_eq!(
            quoted(&"\u{1b}".repeat(30)),
            format!("{}...", "^[".repeat(24))
        );
    }
}
