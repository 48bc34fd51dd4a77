//! One request line parsed, in one place, into a typed [`Command`], and
//! written back: each [`Command`] and [`Request`] has a `Display` that writes
//! its wire form, which parses back to the same value (as shakmaty pairs
//! `FromStr` with `Display`), so clients build requests as values.

use super::error::{ErrorKind, ProtocolError};
use super::names::{CommandNames, GTP_ADMIN};
use crate::cli::{self, BadSeconds, SecondsRange};
use crate::rules::{clip, parse_coordinate, Cell, Geometry, Rule};
use std::fmt;
use std::str::FromStr;
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

impl From<Geometry> for Shape {
    /// The whole shape of `geometry`, its rule included.
    fn from(g: Geometry) -> Shape {
        Shape {
            rows: g.rows() as u32,
            cols: g.cols() as u32,
            k: g.k() as u32,
            rule: Some(g.rule()),
        }
    }
}

/// A protocol command with its arguments.
///
/// `Display` writes the wire form (`newgame 15 15 5 free`, `move 8 8`,
/// `solve 2.5`) and [`Command::parse`] (or `FromStr`) reads it back to the
/// same value. That holds for every value the parser yields: words without
/// blanks, `#` or control characters (option names and values, a
/// `known_command` name), coordinates up to 999,999,999 (longer numbers
/// read as `u32::MAX`, too large for any board) and seconds from 0 to a
/// day. The constructors ([`Command::play`], [`Command::new_game`],
/// [`Command::set`], …) build only such values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `newgame [ROWS COLS K [RULE]]`, RULE one of [`Rule::CHOICES`]
    NewGame(Option<Shape>),
    /// `move R C`, 1-based: only syntax, so an off-board `move 99 99` is a
    /// command, refused by the engine against its board.
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
    /// `forbidden`: the cells forbidden to the side to move, with their
    /// kinds (renju's Black; none otherwise).
    Forbidden,
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
    /// `search_info`: what the search for the last `genmove` found
    /// ([`crate::protocol::SearchInfo`]; empty for a bot that does not
    /// search).
    SearchInfo,
}

impl Command {
    /// Every command name, in the order `list_commands` gives them.
    pub const NAMES: CommandNames = CommandNames::new(&[
        &[
            "newgame",
            "move",
            "genmove",
            "show",
            "status",
            "undo",
            "legal",
            "forbidden",
            "set",
        ],
        GTP_ADMIN,
        &["solve", "analyze", "search_info"],
    ]);

    /// `newgame ROWS COLS K RULE`: an empty board of `geometry`.
    pub fn new_game(geometry: Geometry) -> Command {
        Command::NewGame(Some(Shape::from(geometry)))
    }

    /// `move R C` for `cell`.
    pub fn play(cell: Cell) -> Command {
        Command::Move {
            row: u32::from(cell.row) + 1,
            col: u32::from(cell.col) + 1,
        }
    }

    /// `set NAME VALUE`; `value` is written as `Display` writes it (a word:
    /// a number, a bot's name, `on`).
    pub fn set(name: &str, value: impl fmt::Display) -> Command {
        Command::Set {
            name: name.to_string(),
            value: value.to_string(),
        }
    }

    /// `set seed SEED`.
    pub fn set_seed(seed: u64) -> Command {
        Command::set("seed", seed)
    }

    /// `set movetime MS` (whole milliseconds).
    pub fn set_movetime(movetime: Duration) -> Command {
        Command::set("movetime", movetime.as_millis())
    }

    /// `set timeleft MS` (whole milliseconds).
    pub fn set_time_left(left: Duration) -> Command {
        Command::set("timeleft", left.as_millis())
    }

    /// The command's name, the first word of its wire form.
    pub fn name(&self) -> &'static str {
        match self {
            Command::NewGame(_) => "newgame",
            Command::Move { .. } => "move",
            Command::GenMove => "genmove",
            Command::Show => "show",
            Command::Status => "status",
            Command::Undo => "undo",
            Command::Legal => "legal",
            Command::Forbidden => "forbidden",
            Command::Set { .. } => "set",
            Command::ProtocolVersion => "protocol_version",
            Command::Name => "name",
            Command::Version => "version",
            Command::KnownCommand(_) => "known_command",
            Command::ListCommands => "list_commands",
            Command::Quit => "quit",
            Command::Solve(_) => "solve",
            Command::Analyze(_) => "analyze",
            Command::SearchInfo => "search_info",
        }
    }

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
            _ => without_arguments(
                name,
                args,
                match name {
                    "genmove" => Some(Command::GenMove),
                    "show" => Some(Command::Show),
                    "status" => Some(Command::Status),
                    "undo" => Some(Command::Undo),
                    "legal" => Some(Command::Legal),
                    "forbidden" => Some(Command::Forbidden),
                    "protocol_version" => Some(Command::ProtocolVersion),
                    "name" => Some(Command::Name),
                    "version" => Some(Command::Version),
                    "list_commands" => Some(Command::ListCommands),
                    "search_info" => Some(Command::SearchInfo),
                    "quit" => Some(Command::Quit),
                    _ => None,
                },
            )?,
        };
        Ok(cmd)
    }
}

/// A command that takes no arguments, once a dialect has looked its name up
/// (`None`: a name it does not know, refused before the arguments count).
/// Shared by every GTP-framed dialect.
pub fn without_arguments<C>(
    name: &str,
    args: &[&str],
    command: Option<C>,
) -> Result<C, ProtocolError> {
    let Some(command) = command else {
        return Err(ProtocolError::new(
            ErrorKind::UnknownCommand,
            format!("'{}'", clip(name)),
        ));
    };
    if !args.is_empty() {
        return Err(ProtocolError::new(
            ErrorKind::Syntax,
            format!("usage: {name}"),
        ));
    }
    Ok(command)
}

/// A time limit in seconds (fractions allowed; 0 means none), up to a day.
fn parse_seconds(s: &str) -> Result<Duration, ProtocolError> {
    cli::parse_seconds(s, SecondsRange::REQUEST).map_err(|e| {
        let clipped = BadSeconds { text: clip(s), ..e };
        ProtocolError::new(ErrorKind::Syntax, clipped.to_string())
    })
}

fn parse_shape(args: &[&str]) -> Result<Option<Shape>, ProtocolError> {
    let syntax = |m: String| ProtocolError::new(ErrorKind::Syntax, m);
    match args.len() {
        0 => return Ok(None),
        3 | 4 => {}
        _ => {
            return Err(syntax(format!(
                "usage: newgame [ROWS COLS K [{}]]",
                Rule::CHOICES
            )))
        }
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

impl fmt::Display for Command {
    /// The wire form, without the line end.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            Command::NewGame(Some(shape)) => {
                write!(f, " {} {} {}", shape.rows, shape.cols, shape.k)?;
                match shape.rule {
                    Some(rule) => write!(f, " {rule}"),
                    None => Ok(()),
                }
            }
            Command::Move { row, col } => write!(f, " {row} {col}"),
            Command::Set { name, value } => write!(f, " {name} {value}"),
            Command::KnownCommand(name) => write!(f, " {name}"),
            Command::Solve(Some(limit)) | Command::Analyze(Some(limit)) => {
                write!(f, " {}", Seconds(*limit))
            }
            _ => Ok(()),
        }
    }
}

impl FromStr for Command {
    type Err = ProtocolError;
    /// A command without an id, cleaned as a line is (see [`preprocess`]);
    /// a blank line is a syntax error. [`Request`] reads a whole line.
    fn from_str(s: &str) -> Result<Command, ProtocolError> {
        let line = preprocess(s.as_bytes());
        let mut words = line.split(' ').filter(|w| !w.is_empty());
        let name = words.next().ok_or_else(no_command)?;
        let args: Vec<&str> = words.collect();
        Command::parse(name, &args)
    }
}

/// What a blank line is, where a command must be.
fn no_command() -> ProtocolError {
    ProtocolError::new(ErrorKind::Syntax, "missing command")
}

/// A time limit written as `parse_seconds` reads it back exactly: whole
/// seconds, then the nanoseconds without trailing zeros (`2.5`, `0`).
struct Seconds(Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (secs, nanos) = (self.0.as_secs(), self.0.subsec_nanos());
        if nanos == 0 {
            return write!(f, "{secs}");
        }
        let fraction = format!("{nanos:09}");
        write!(f, "{secs}.{}", fraction.trim_end_matches('0'))
    }
}

/// A request: an optional numeric id and a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub id: Option<u64>,
    pub command: Command,
}

impl Request {
    /// A request without an id.
    pub fn new(command: Command) -> Request {
        Request { id: None, command }
    }

    /// A request with the id `id` (answered `=id …`); the protocol reads
    /// ids of up to 18 digits.
    pub fn with_id(id: u64, command: Command) -> Request {
        Request {
            id: Some(id),
            command,
        }
    }
}

impl From<Command> for Request {
    fn from(command: Command) -> Request {
        Request::new(command)
    }
}

impl fmt::Display for Request {
    /// The request line, without its line end: `[id ]command`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(id) = self.id {
            write!(f, "{id} ")?;
        }
        write!(f, "{}", self.command)
    }
}

impl FromStr for Request {
    type Err = ProtocolError;
    /// One request line (as [`parse_line`] reads it); a blank or
    /// comment-only line, which asks nothing, is a syntax error here.
    fn from_str(s: &str) -> Result<Request, ProtocolError> {
        match parse_line(s.as_bytes()) {
            Parsed::Request(request) => Ok(request),
            Parsed::Error(_, e) => Err(e),
            Parsed::Nothing => Err(no_command()),
        }
    }
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
                let e = no_command();
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
    use rand::{Rng, SeedableRng};

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
        for rule in Rule::ALL {
            let Parsed::Request(r) = req(&format!("newgame 15 15 5 {rule}")) else {
                panic!("{rule}")
            };
            assert!(matches!(r.command, Command::NewGame(Some(s)) if s.rule == Some(rule)));
        }
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

    /// One command of every kind, in `list_commands` order, each with the
    /// values that are hard to write back: the extremes the parser yields,
    /// option words with odd characters, seconds a float can't hold.
    fn every_kind() -> Vec<Command> {
        let mut all = Vec::new();
        all.push(Command::NewGame(None));
        for (rows, cols, k) in [(3, 3, 3), (1, 32, 1), (0, u32::MAX, 999_999_999)] {
            for rule in std::iter::once(None).chain(Rule::ALL.map(Some)) {
                let shape = Shape {
                    rows,
                    cols,
                    k,
                    rule,
                };
                all.push(Command::NewGame(Some(shape)));
            }
        }
        let coordinates = [0, 1, 9, 32, 99, 999_999_999, u32::MAX];
        for row in coordinates {
            for col in coordinates {
                all.push(Command::Move { row, col });
            }
        }
        all.extend([
            Command::GenMove,
            Command::Show,
            Command::Status,
            Command::Undo,
            Command::Legal,
            Command::Forbidden,
        ]);
        let words = [
            "seed",
            "0",
            "18446744073709551615",
            "minimax",
            "0.25",
            "-1",
            "on",
            "é",
            "x=y,z",
            "1e9",
            "NaN",
            "timeleft",
        ];
        for name in words {
            for value in words {
                all.push(Command::set(name, value));
            }
        }
        all.extend([Command::ProtocolVersion, Command::Name, Command::Version]);
        all.extend(words.map(|w| Command::KnownCommand(w.to_string())));
        all.extend([Command::ListCommands, Command::Quit]);
        let limits = [
            None,
            Some(Duration::ZERO),
            Some(Duration::from_nanos(1)),
            Some(Duration::from_millis(100)),
            Some(Duration::from_millis(2500)),
            Some(Duration::from_secs_f64(0.3)),
            Some(Duration::from_secs_f64(1.0 / 3.0)),
            Some(Duration::from_nanos(86_399_999_999_999)),
            Some(Duration::from_secs(86_400)),
        ];
        all.extend(limits.map(Command::Solve));
        all.extend(limits.map(Command::Analyze));
        all.push(Command::SearchInfo);
        all
    }

    #[test]
    fn every_command_writes_its_wire_form_and_reads_back() {
        let all = every_kind();
        let mut kinds: Vec<&str> = all.iter().map(Command::name).collect();
        kinds.dedup();
        assert_eq!(kinds, Command::NAMES.iter().collect::<Vec<_>>());
        for command in all {
            let line = command.to_string();
            assert_eq!(line.parse::<Command>(), Ok(command.clone()), "{line}");
            assert!(line.starts_with(command.name()), "{line}");
            for id in [None, Some(0), Some(7), Some(999_999_999_999_999_999)] {
                let request = Request {
                    id,
                    command: command.clone(),
                };
                let line = request.to_string();
                assert_eq!(line.parse::<Request>(), Ok(request.clone()), "{line}");
                assert_eq!(req(&line), Parsed::Request(request), "{line}");
            }
        }
    }

    #[test]
    fn seconds_read_back_to_the_nanosecond() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        for _ in 0..100_000 {
            let limit = Duration::from_nanos(rng.random_range(0..=86_400_000_000_000));
            let command = Command::Analyze(Some(limit));
            assert_eq!(command.to_string().parse::<Command>(), Ok(command));
        }
        // Whatever text the parser took, the value it made writes back.
        for text in ["0.1", "1e-9", "3.000", "86399.9999999999", "0.0000000004"] {
            let Ok(command) = format!("solve {text}").parse::<Command>() else {
                panic!("{text}")
            };
            assert_eq!(command.to_string().parse::<Command>(), Ok(command));
        }
        assert_eq!(
            Command::Solve(Some(Duration::from_millis(2500))).to_string(),
            "solve 2.5"
        );
        assert_eq!(
            Command::Analyze(Some(Duration::ZERO)).to_string(),
            "analyze 0"
        );
    }

    #[test]
    fn lines_read_into_values_that_write_the_plain_form() {
        for (line, plain) in [
            ("  7\tmove  02 3 # a comment", "7 move 2 3"),
            ("newgame 15 15 5", "newgame 15 15 5"),
            ("newgame 0015 15 5 exact", "newgame 15 15 5 exact"),
            ("set   depth\t3", "set depth 3"),
            ("solve 2.50", "solve 2.5"),
            ("analyze 1e1", "analyze 10"),
            ("move 99999999999 1", "move 4294967295 1"),
            ("list_commands\r", "list_commands"),
        ] {
            let Parsed::Request(request) = req(line) else {
                panic!("{line}")
            };
            assert_eq!(request.to_string(), plain);
        }
        // Without an id, a number is no command; nor is a blank line.
        assert_eq!(
            "7 genmove".parse::<Command>().map_err(|e| e.kind),
            Err(ErrorKind::UnknownCommand)
        );
        for blank in ["", "  # nothing"] {
            assert_eq!(blank.parse::<Command>(), Err(no_command()));
            assert_eq!(blank.parse::<Request>(), Err(no_command()));
        }
        assert_eq!(
            "3 move 1".parse::<Request>().map_err(|e| e.kind),
            Err(ErrorKind::Syntax)
        );
    }

    #[test]
    fn constructors_write_what_clients_send() {
        let gomoku = Geometry::new(15, 15, 5, Rule::Free).unwrap();
        let lines = [
            Command::new_game(gomoku),
            Command::new_game(Geometry::new(4, 7, 3, Rule::Exact).unwrap()),
            Command::set_seed(u64::MAX),
            Command::set_movetime(Duration::from_micros(250_900)),
            Command::set_time_left(Duration::ZERO),
            Command::set("bot", crate::bots::BotKind::Mcts),
            Command::play(Cell::new(7, 7)),
            Command::play(Cell::new(0, 31)),
        ]
        .map(|c| c.to_string());
        assert_eq!(
            lines,
            [
                "newgame 15 15 5 free",
                "newgame 4 7 3 exact",
                "set seed 18446744073709551615",
                "set movetime 250",
                "set timeleft 0",
                "set bot mcts",
                "move 8 8",
                "move 1 32",
            ]
        );
        assert_eq!(
            Request::with_id(3, Command::GenMove).to_string(),
            "3 genmove"
        );
        assert_eq!(Request::from(Command::Quit), Request::new(Command::Quit));
    }
}
