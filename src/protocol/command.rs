//! One request line parsed, in one place, into a typed [`Command`].

use super::error::{ErrorKind, ProtocolError};
use crate::rules::{clip, parse_coordinate, Rule};
use std::time::Duration;

/// The shape asked for by `newgame ROWS COLS K [RULE]` (checked by the engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub rows: u32,
    pub cols: u32,
    pub k: u32,
    /// `None` keeps the current rule.
    pub rule: Option<Rule>,
}

/// A protocol command with its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `newgame [ROWS COLS K [free|exact]]`
    NewGame(Option<Shape>),
    /// `move R C`, 1-based; range is checked against the board.
    Move { row: u32, col: u32 },
    /// `genmove`
    GenMove,
    /// `show`
    Show,
    /// `status`
    Status,
    /// `undo`
    Undo,
    /// `legal`
    Legal,
    /// `set NAME VALUE`
    Set { name: String, value: String },
    /// `protocol_version`
    ProtocolVersion,
    /// `name`
    Name,
    /// `version`
    Version,
    /// `known_command X`
    KnownCommand(String),
    /// `list_commands`
    ListCommands,
    /// `quit`
    Quit,
    /// `solve [SECONDS]`: the position's value and a best move (`None`: the
    /// default time; zero: no limit).
    Solve(Option<Duration>),
    /// `analyze [SECONDS]`: the value of every legal move.
    Analyze(Option<Duration>),
}

impl Command {
    /// Every command name, in the order `list_commands` gives them.
    pub const NAMES: [&'static str; 16] = [
        "newgame",
        "move",
        "genmove",
        "show",
        "status",
        "undo",
        "legal",
        "set",
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "solve",
        "analyze",
    ];

    /// Parses a command name and its arguments.
    pub fn parse(name: &str, args: &[&str]) -> Result<Command, ProtocolError> {
        let arity = |n: usize, usage: &str| {
            if args.len() == n {
                Ok(())
            } else {
                Err(ProtocolError::new(
                    ErrorKind::Syntax,
                    format!("usage: {usage}"),
                ))
            }
        };
        let cmd = match name {
            "newgame" => Command::NewGame(parse_shape(args)?),
            "move" => {
                arity(2, "move R C")?;
                let coord = |s: &str| {
                    parse_coordinate(s).map_err(|e| ProtocolError::new(ErrorKind::Syntax, e.0))
                };
                Command::Move {
                    row: coord(args[0])?,
                    col: coord(args[1])?,
                }
            }
            "set" => {
                arity(2, "set NAME VALUE")?;
                Command::Set {
                    name: args[0].to_string(),
                    value: args[1].to_string(),
                }
            }
            "known_command" => {
                arity(1, "known_command NAME")?;
                Command::KnownCommand(args[0].to_string())
            }
            "solve" | "analyze" => {
                if args.len() > 1 {
                    return Err(ProtocolError::new(
                        ErrorKind::Syntax,
                        format!("usage: {name} [SECONDS]"),
                    ));
                }
                let limit = args.first().map(|a| parse_seconds(a)).transpose()?;
                if name == "solve" {
                    Command::Solve(limit)
                } else {
                    Command::Analyze(limit)
                }
            }
            _ => {
                let cmd = match name {
                    "genmove" => Command::GenMove,
                    "show" => Command::Show,
                    "status" => Command::Status,
                    "undo" => Command::Undo,
                    "legal" => Command::Legal,
                    "protocol_version" => Command::ProtocolVersion,
                    "name" => Command::Name,
                    "version" => Command::Version,
                    "list_commands" => Command::ListCommands,
                    "quit" => Command::Quit,
                    _ => {
                        return Err(ProtocolError::new(
                            ErrorKind::UnknownCommand,
                            format!("'{}'", clip(name)),
                        ))
                    }
                };
                arity(0, name)?;
                cmd
            }
        };
        Ok(cmd)
    }
}

/// Longest time limit `solve` and `analyze` take: a day.
const MAX_SECONDS: f64 = 86_400.0;

/// A time limit in seconds (fractions allowed; 0 means none).
fn parse_seconds(s: &str) -> Result<Duration, ProtocolError> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=MAX_SECONDS).contains(&v) => Ok(Duration::from_secs_f64(v)),
        _ => Err(ProtocolError::new(
            ErrorKind::Syntax,
            format!(
                "'{}' is not a number of seconds from 0 to {MAX_SECONDS}",
                clip(s)
            ),
        )),
    }
}

fn parse_shape(args: &[&str]) -> Result<Option<Shape>, ProtocolError> {
    let syntax = |m: String| ProtocolError::new(ErrorKind::Syntax, m);
    match args.len() {
        0 => return Ok(None),
        3 | 4 => {}
        _ => return Err(syntax("usage: newgame [ROWS COLS K [free|exact]]".into())),
    }
    let num = |s: &str| parse_coordinate(s).map_err(|e| syntax(e.0));
    let rule = match args.get(3) {
        None => None,
        Some(r) => Some(r.parse::<Rule>().map_err(|e| syntax(e.to_string()))?),
    };
    Ok(Some(Shape {
        rows: num(args[0])?,
        cols: num(args[1])?,
        k: num(args[2])?,
        rule,
    }))
}

/// A request: an optional numeric id and a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub id: Option<u64>,
    pub command: Command,
}

/// What one input line amounts to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Blank or comment only: no response.
    Nothing,
    /// A well-formed request.
    Request(Request),
    /// A malformed request, answered with `?` (and the id when one was read).
    Error(Option<u64>, ProtocolError),
}

/// Cleans a raw line as GTP asks: drops control characters other than tab,
/// cuts from `#`, turns tabs into spaces. A line that needs none of it (as
/// from a program: printable ASCII) is borrowed as it is, with no copy.
pub fn preprocess(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    if raw.iter().all(|&b| (b' '..=b'~').contains(&b) && b != b'#') {
        // Printable ASCII is UTF-8.
        if let Ok(text) = std::str::from_utf8(raw) {
            return std::borrow::Cow::Borrowed(text);
        }
    }
    let text = String::from_utf8_lossy(raw);
    let text = text.split('#').next().unwrap_or("");
    text.chars()
        .filter(|&c| c == '\t' || !c.is_control())
        .map(|c| if c == '\t' { ' ' } else { c })
        .collect::<String>()
        .into()
}

/// Longest id we accept: ids fit in a u64.
const MAX_ID_DIGITS: usize = 18;

/// A request split into its id, command name and arguments.
pub type SplitRequest<'a> = (Option<u64>, &'a str, Vec<&'a str>);

/// A request line split GTP's way: `(id, command name, arguments)`; `None`
/// for a blank or comment-only line; an error (with the id when one was
/// read) for an id without a command or an id too long. Shared by every
/// GTP-framed dialect.
pub fn split_request(line: &str) -> Result<Option<SplitRequest<'_>>, (Option<u64>, ProtocolError)> {
    let mut words = line.split(' ').filter(|w| !w.is_empty());
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
        if first.len() > MAX_ID_DIGITS {
            let e = ProtocolError::new(ErrorKind::Syntax, "id too long".to_string());
            return Err((None, e));
        }
        let id = first.parse::<u64>().ok();
        match words.next() {
            Some(name) => (id, name),
            None => {
                let e = ProtocolError::new(ErrorKind::Syntax, "missing command".to_string());
                return Err((id, e));
            }
        }
    } else {
        (None, first)
    };
    Ok(Some((id, name, words.collect())))
}

/// Parses one raw input line (without its newline).
pub fn parse_line(raw: &[u8]) -> Parsed {
    let line = preprocess(raw);
    match split_request(&line) {
        Ok(None) => Parsed::Nothing,
        Err((id, e)) => Parsed::Error(id, e),
        Ok(Some((id, name, args))) => match Command::parse(name, &args) {
            Ok(command) => Parsed::Request(Request { id, command }),
            Err(e) => Parsed::Error(id, e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(line: &str) -> Parsed {
        parse_line(line.as_bytes())
    }

    #[test]
    fn ids_comments_tabs_and_control_characters() {
        assert_eq!(
            req("12\tmove 2\t 3\r # a comment"),
            Parsed::Request(Request {
                id: Some(12),
                command: Command::Move { row: 2, col: 3 }
            })
        );
        assert_eq!(req("   # only a comment"), Parsed::Nothing);
        assert_eq!(req("\r"), Parsed::Nothing);
        assert_eq!(
            req("gen\x07move"),
            Parsed::Request(Request {
                id: None,
                command: Command::GenMove
            })
        );
    }

    #[test]
    fn errors_carry_the_id_and_a_prefix() {
        let Parsed::Error(id, e) = req("7 move two 3") else {
            panic!()
        };
        assert_eq!((id, e.kind), (Some(7), ErrorKind::Syntax));
        let Parsed::Error(None, e) = req("fly") else {
            panic!()
        };
        assert_eq!(e.kind, ErrorKind::UnknownCommand);
        let Parsed::Error(Some(3), e) = req("3 genmove now") else {
            panic!()
        };
        assert_eq!(e.kind, ErrorKind::Syntax);
        let Parsed::Error(Some(4), e) = req("4") else {
            panic!()
        };
        assert_eq!(e.kind, ErrorKind::Syntax);
    }

    #[test]
    fn newgame_shapes() {
        assert_eq!(
            req("newgame 15 15 5 exact"),
            Parsed::Request(Request {
                id: None,
                command: Command::NewGame(Some(Shape {
                    rows: 15,
                    cols: 15,
                    k: 5,
                    rule: Some(Rule::Exact)
                }))
            })
        );
        assert!(matches!(req("newgame 3 3"), Parsed::Error(None, _)));
        assert!(matches!(req("newgame 3 3 3 wild"), Parsed::Error(None, _)));
    }

    #[test]
    fn solve_and_analyze_take_an_optional_time_limit() {
        let cmd = |line: &str| match req(line) {
            Parsed::Request(r) => Ok(r.command),
            Parsed::Error(_, e) => Err(e.kind),
            Parsed::Nothing => Err(ErrorKind::Syntax),
        };
        assert_eq!(cmd("solve"), Ok(Command::Solve(None)));
        assert_eq!(
            cmd("analyze 2.5"),
            Ok(Command::Analyze(Some(Duration::from_millis(2500))))
        );
        assert_eq!(cmd("solve 0"), Ok(Command::Solve(Some(Duration::ZERO))));
        for bad in [
            "solve -1",
            "solve x",
            "solve 1 2",
            "analyze 1e9",
            "solve NaN",
        ] {
            assert_eq!(cmd(bad), Err(ErrorKind::Syntax), "{bad}");
        }
    }

    #[test]
    fn huge_numbers_do_not_overflow() {
        let digits = "9".repeat(100_000);
        assert!(matches!(
            req(&format!("move {digits} 1")),
            Parsed::Request(Request {
                command: Command::Move { row: u32::MAX, .. },
                ..
            })
        ));
        assert!(matches!(req(&digits), Parsed::Error(None, _)));
    }
}
