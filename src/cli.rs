//! Command-line pieces shared by `kinrow`, `kinrow play` and `referee`: the
//! game-shape flags, numbers of seconds, the names a web page answers to,
//! and text for people kept within 80 columns.

use crate::rules::{BoardSize, Geometry, Rule, SizeError};
use clap::Args;
use std::fmt;
use std::net::Ipv6Addr;
use std::time::Duration;

/// The game-shape flags: `--board ROWSxCOLS --k K --rule RULE`.
#[derive(Args, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShapeArgs {
    /// Board size, ROWSxCOLS (1 to 32 each). Default: 3x3.
    #[arg(long, value_name = "ROWSxCOLS")]
    pub board: Option<BoardSize>,
    /// Stones in a row that win. Default: min(5, rows, cols).
    #[arg(long)]
    pub k: Option<u32>,
    /// free: K or more in a row wins; exact: exactly K (overlines don't win);
    /// renju: K = 5, Black (X) may not make an overline, a double-four or a
    /// double-three and wins only with exactly five; caro: a row of exactly K
    /// blocked at both ends by the opponent does not win; caro-exact: caro
    /// where overlines don't win. Default: free.
    #[arg(long)]
    pub rule: Option<Rule>,
}

impl ShapeArgs {
    /// Whether any of the flags was given.
    pub fn any_given(&self) -> bool {
        self.board.is_some() || self.k.is_some() || self.rule.is_some()
    }

    /// The checked shape, with defaults for what was left out.
    pub fn geometry(&self) -> Result<Geometry, SizeError> {
        let BoardSize { rows, cols } = self.board.unwrap_or(BoardSize { rows: 3, cols: 3 });
        let k = self.k.unwrap_or_else(|| Geometry::default_k(rows, cols));
        Geometry::new(rows, cols, k, self.rule.unwrap_or_default())
    }
}

/// The span of seconds a flag or a request takes, and how a refusal names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SecondsRange {
    /// The least: taken itself (`from`), or only what is above it.
    least: f64,
    least_taken: bool,
    most: f64,
    /// Whether a refusal names the most (one that only keeps the number a
    /// time need not be named).
    most_named: bool,
}

impl SecondsRange {
    /// A time limit in a request (`solve 2.5`): 0 (no limit) to a day.
    pub const REQUEST: SecondsRange = SecondsRange {
        least: 0.0,
        least_taken: true,
        most: 86_400.0,
        most_named: true,
    };
    /// A wait for an engine (`--timeout`): above 0, at most a day.
    pub const WAIT: SecondsRange = SecondsRange {
        least: 0.0,
        least_taken: false,
        most: 86_400.0,
        most_named: true,
    };
    /// A time limit for a proof (`kinrow solve --time-limit`): above 0 (the
    /// most, 10^7 s, only keeps it a time).
    pub const LIMIT: SecondsRange = SecondsRange {
        least: 0.0,
        least_taken: false,
        most: 1e7,
        most_named: false,
    };

    fn contains(self, v: f64) -> bool {
        let above_least = if self.least_taken {
            v >= self.least
        } else {
            v > self.least
        };
        above_least && v <= self.most
    }
}

/// A number of seconds refused: the text as given, and the range.
#[derive(Clone, Debug, PartialEq)]
pub struct BadSeconds {
    pub text: String,
    pub range: SecondsRange,
}

impl fmt::Display for BadSeconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let SecondsRange {
            least,
            least_taken,
            most,
            most_named,
        } = self.range;
        write!(f, "'{}' is not a number of seconds ", self.text)?;
        match (least_taken, most_named) {
            (true, _) => write!(f, "from {least} to {most}"),
            (false, true) => write!(f, "above {least} and at most {most}"),
            (false, false) => write!(f, "above {least}"),
        }
    }
}
impl std::error::Error for BadSeconds {}

/// A number of seconds (fractions allowed) within `range`.
pub fn parse_seconds(text: &str, range: SecondsRange) -> Result<Duration, BadSeconds> {
    match text.parse::<f64>() {
        Ok(v) if range.contains(v) => Ok(Duration::from_secs_f64(v)),
        _ => Err(BadSeconds {
            text: text.to_string(),
            range,
        }),
    }
}

/// The widest line of text shown to people: the classic terminal's width.
/// Text is wrapped to it (or to a narrower terminal).
pub const TEXT_WIDTH: usize = 80;

/// Columns `text` takes on a terminal: characters, not counting ANSI
/// escape sequences (`ESC [ … letter`), which take none.
pub fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters, then a final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            width += 1;
        }
    }
    width
}

/// Each line of `text` broken at spaces into lines of at most `width`
/// visible columns; a word longer than that stands on a line of its own.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if visible_width(line) <= width {
            out.push_str(line);
            continue;
        }
        // Leading blanks (an indented line) stay; the rest is refilled.
        let indent = line.len() - line.trim_start_matches(' ').len();
        let mut column = 0;
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            let w = visible_width(word);
            if column == 0 {
                out.push_str(&line[..indent]);
                column = indent;
            } else if column + 1 + w > width {
                out.push('\n');
                out.push_str(&line[..indent]);
                column = indent;
            } else {
                out.push(' ');
                column += 1;
            }
            out.push_str(word);
            column += w;
        }
    }
    out
}

/// Text for people (a report, an error, a note on stderr) wrapped to
/// [`TEXT_WIDTH`], each continuation line indented two spaces more than
/// its line, so that it reads as part of the line above.
pub fn wrap_message(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            if visible_width(line) <= TEXT_WIDTH {
                return line.to_string();
            }
            let indent = line.len() - line.trim_start_matches(' ').len();
            let first = wrap(line, TEXT_WIDTH);
            let (head, rest) = first.split_once('\n').unwrap_or((&first, ""));
            let rest = rest.split('\n').map(str::trim_start).collect::<Vec<_>>();
            let rest = format!("{}{}", " ".repeat(indent + 2), rest.join(" "));
            format!("{head}\n{}", wrap(&rest, TEXT_WIDTH))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A name for `--host` (`kinrow serve`) and `--serve-host` (`referee`): a
/// DNS name or an IP address, without a port; in
/// lower case (an IPv6 address in brackets, as a `Host` header has it).
pub fn parse_host_name(s: &str) -> Result<String, String> {
    let bare = s.strip_prefix('[').and_then(|r| r.strip_suffix(']'));
    if let Ok(ip) = bare.unwrap_or(s).parse::<Ipv6Addr>() {
        return Ok(format!("[{ip}]"));
    }
    let ok = !s.is_empty()
        && s.len() <= 253
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_');
    if ok {
        Ok(s.to_ascii_lowercase())
    } else {
        Err(
            "a host name or IP address as the browser's address bar has it, \
             without a port (e.g. kinrow.example or 192.168.1.20)"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wraps_at_spaces_within_the_width_escape_codes_taking_none() {
        let text = "The engine playing \u{1b}[1;36mO\u{1b}[0m (random.py) stopped: its output \
                    closed (it exited or crashed); its last message was: ValueError: bad board.";
        let wrapped = wrap(text, 40);
        assert!(wrapped.lines().all(|l| visible_width(l) <= 40), "{wrapped}");
        assert_eq!(wrapped.replace('\n', " "), text);
        assert_eq!(visible_width("\u{1b}[1;31mX\u{1b}[0m (you)"), 7);
        assert_eq!(
            wrap("short\n  an indented line to wrap", 12),
            "short\n  an\n  indented\n  line to\n  wrap"
        );
        assert_eq!(wrap(&"x".repeat(30), 10), "x".repeat(30));
    }

    #[test]
    fn messages_wrap_with_their_continuation_indented() {
        let text = format!("referee: {}and more", "word ".repeat(30));
        let wrapped = wrap_message(&text);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(
            lines.len() > 1 && lines.iter().all(|l| l.len() <= TEXT_WIDTH),
            "{wrapped}"
        );
        assert!(lines[1..].iter().all(|l| l.starts_with("  ")), "{wrapped}");
        assert_eq!(wrapped.replace("\n  ", " "), text);
        assert_eq!(wrap_message("short\nlines"), "short\nlines");
    }

    #[test]
    fn seconds_in_each_range_and_the_refusals_that_name_it() {
        let ok = |text: &str, range| parse_seconds(text, range).ok();
        assert_eq!(ok("0", SecondsRange::REQUEST), Some(Duration::ZERO));
        assert_eq!(ok("0", SecondsRange::WAIT), None);
        assert_eq!(
            ok("2.5", SecondsRange::WAIT),
            Some(Duration::from_millis(2500))
        );
        assert_eq!(
            ok("86400", SecondsRange::WAIT),
            Some(Duration::from_secs(86_400))
        );
        assert_eq!(ok("86400.001", SecondsRange::REQUEST), None);
        assert_eq!(
            ok("1e7", SecondsRange::LIMIT),
            Some(Duration::from_secs(10_000_000))
        );
        for bad in ["-1", "x", "NaN", "inf", "", "1e8"] {
            assert_eq!(ok(bad, SecondsRange::LIMIT), None, "{bad}");
        }
        let refusal = |text: &str, range| parse_seconds(text, range).unwrap_err().to_string();
        assert_eq!(
            refusal("-1", SecondsRange::REQUEST),
            "'-1' is not a number of seconds from 0 to 86400"
        );
        assert_eq!(
            refusal("0", SecondsRange::WAIT),
            "'0' is not a number of seconds above 0 and at most 86400"
        );
        assert_eq!(
            refusal("abc", SecondsRange::LIMIT),
            "'abc' is not a number of seconds above 0"
        );
    }

    #[test]
    fn defaults_and_checks() {
        assert_eq!(ShapeArgs::default().geometry(), Ok(Geometry::TIC_TAC_TOE));
        let big = ShapeArgs {
            board: Some(BoardSize { rows: 15, cols: 15 }),
            ..ShapeArgs::default()
        };
        assert_eq!(big.geometry().map(|g| g.k()), Ok(5));
        let bad = ShapeArgs {
            k: Some(4),
            ..ShapeArgs::default()
        };
        assert!(bad.geometry().is_err());
        assert!(bad.any_given() && !ShapeArgs::default().any_given());
    }
}
