//! The lines a manager sends a brain, parsed in one place into a typed
//! [`Command`] (and the lines between `BOARD` and `DONE` into [`BoardLine`]).
//! Command words are read in any case, as the protocol allows.

use crate::rules::{clip, parse_coordinate, Cell, Geometry};
use std::fmt;
use std::str::FromStr;

/// A point `X,Y` of the Gomocup protocol: 0-based, the column first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Point {
    pub x: u32,
    pub y: u32,
}

impl Point {
    /// The point of a cell.
    pub fn of(cell: Cell) -> Point {
        Point {
            x: u32::from(cell.col),
            y: u32::from(cell.row),
        }
    }

    /// The cell of this point on a board of `geometry`, if it is on it.
    pub fn cell(self, geometry: Geometry) -> Option<Cell> {
        let on = (self.x as usize) < geometry.cols() && (self.y as usize) < geometry.rows();
        on.then(|| Cell::new(self.y as u8, self.x as u8))
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// A point that does not parse: the text, shortened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadPoint(pub String);

impl fmt::Display for BadPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a point X,Y", self.0)
    }
}

impl FromStr for Point {
    type Err = BadPoint;
    /// `X,Y` with whole numbers from 0 (spaces around either are allowed);
    /// numbers too large for any board saturate rather than overflow.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadPoint(clip(s.trim()));
        let (x, y) = s.split_once(',').ok_or_else(bad)?;
        let number = |t: &str| parse_coordinate(t.trim()).map_err(|_| bad());
        Ok(Point {
            x: number(x)?,
            y: number(y)?,
        })
    }
}

/// A command from the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START N`: an empty N x N board.
    Start(u32),
    /// `RECTSTART W,H`: an empty board W columns wide, H rows high.
    RectStart { width: u32, height: u32 },
    /// `RESTART`: an empty board of the same size.
    Restart,
    /// `BEGIN`: play the first move.
    Begin,
    /// `TURN X,Y`: the opponent played there; answer a move.
    Turn(Point),
    /// `BOARD`: stones follow, one a line, up to `DONE`; then answer a move.
    Board,
    /// `INFO KEY VALUE` (the key in lower case; the value may be empty).
    Info { key: String, value: String },
    /// `END`: exit at once, without a word.
    End,
    /// `ABOUT`: one line about the brain.
    About,
    /// `TAKEBACK X,Y`: take back the last move, which is at X,Y.
    Takeback(Point),
    /// `PLAY X,Y`: play this move as the brain's own and echo it.
    Play(Point),
    /// `SWAP2BOARD`: points follow up to `DONE` (the swap2 opening).
    Swap2Board,
}

/// A line that is not a command the brain can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    /// Not a command of the protocol: answered `UNKNOWN`.
    Unknown(String),
    /// A command with bad arguments: answered `ERROR`.
    Bad(String),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Unknown(m) | CommandError::Bad(m) => f.write_str(m),
        }
    }
}

impl Command {
    /// The command words, as `ABOUT` and the docs list them.
    pub const NAMES: [&'static str; 12] = [
        "START",
        "RECTSTART",
        "RESTART",
        "BEGIN",
        "TURN",
        "BOARD",
        "INFO",
        "END",
        "ABOUT",
        "TAKEBACK",
        "PLAY",
        "SWAP2BOARD",
    ];
}

impl FromStr for Command {
    type Err = CommandError;
    /// Parses one line (without its line end; surrounding blanks allowed).
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let line = line.trim();
        let (word, rest) = match line.split_once([' ', '\t']) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        let name = word.to_ascii_uppercase();
        let bad = |m: String| CommandError::Bad(format!("{name}: {m}"));
        let none = |cmd: Command| {
            if rest.is_empty() {
                Ok(cmd)
            } else {
                Err(bad(format!("takes no arguments, got '{}'", clip(rest))))
            }
        };
        let point = |make: fn(Point) -> Command| {
            rest.parse::<Point>()
                .map(make)
                .map_err(|e| bad(e.to_string()))
        };
        match name.as_str() {
            "START" => parse_coordinate(rest)
                .map(Command::Start)
                .map_err(|_| bad(format!("'{}' is not a board size", clip(rest)))),
            "RECTSTART" => rest
                .parse::<Point>()
                .map(|p| Command::RectStart {
                    width: p.x,
                    height: p.y,
                })
                .map_err(|_| bad(format!("'{}' is not a size WIDTH,HEIGHT", clip(rest)))),
            "RESTART" => none(Command::Restart),
            "BEGIN" => none(Command::Begin),
            "BOARD" => none(Command::Board),
            "END" => none(Command::End),
            "ABOUT" => none(Command::About),
            "SWAP2BOARD" => none(Command::Swap2Board),
            "TURN" => point(Command::Turn),
            "TAKEBACK" => point(Command::Takeback),
            "PLAY" => point(Command::Play),
            "INFO" => {
                let (key, value) = match rest.split_once([' ', '\t']) {
                    Some((k, v)) => (k, v.trim()),
                    None => (rest, ""),
                };
                if key.is_empty() {
                    return Err(bad("a key is missing".into()));
                }
                Ok(Command::Info {
                    key: key.to_ascii_lowercase(),
                    value: value.to_string(),
                })
            }
            _ => Err(CommandError::Unknown(format!(
                "unknown command '{}'",
                clip(word)
            ))),
        }
    }
}

/// Whose a stone of a `BOARD` list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `1`: the brain's own stone.
    Own,
    /// `2`: the opponent's.
    Opponent,
    /// `3`: part of a winning line or forbidden (continuous games only).
    Continuous,
}

/// A line between `BOARD` (or `SWAP2BOARD`) and `DONE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardLine {
    /// `X,Y,FIELD` (`SWAP2BOARD` lists give `X,Y` only: no field).
    Stone(Point, Option<Field>),
    /// `DONE`.
    Done,
}

impl FromStr for BoardLine {
    type Err = String;
    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let line = line.trim();
        if line.eq_ignore_ascii_case("DONE") {
            return Ok(BoardLine::Done);
        }
        let bad = || format!("'{}' is not a stone X,Y,FIELD", clip(line));
        let (point, field) = match line.rsplit_once(',') {
            Some((p, f)) if p.contains(',') => (p, Some(f.trim())),
            _ => (line, None),
        };
        let point: Point = point.parse().map_err(|_| bad())?;
        let field = match field {
            None => None,
            Some("1") => Some(Field::Own),
            Some("2") => Some(Field::Opponent),
            Some("3") => Some(Field::Continuous),
            Some(_) => return Err(bad()),
        };
        Ok(BoardLine::Stone(point, field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(s: &str) -> Result<Command, CommandError> {
        s.parse()
    }

    #[test]
    fn every_command_in_any_case() {
        assert_eq!(cmd("START 20"), Ok(Command::Start(20)));
        assert_eq!(
            cmd("rectstart 30,20"),
            Ok(Command::RectStart {
                width: 30,
                height: 20
            })
        );
        assert_eq!(cmd(" Restart "), Ok(Command::Restart));
        assert_eq!(cmd("BEGIN"), Ok(Command::Begin));
        assert_eq!(
            cmd("TURN 10, 11"),
            Ok(Command::Turn(Point { x: 10, y: 11 }))
        );
        assert_eq!(cmd("BOARD"), Ok(Command::Board));
        assert_eq!(
            cmd("INFO Timeout_Turn 5000"),
            Ok(Command::Info {
                key: "timeout_turn".into(),
                value: "5000".into()
            })
        );
        assert_eq!(
            cmd("INFO folder C:\\my dir"),
            Ok(Command::Info {
                key: "folder".into(),
                value: "C:\\my dir".into()
            })
        );
        assert_eq!(cmd("END"), Ok(Command::End));
        assert_eq!(cmd("ABOUT"), Ok(Command::About));
        assert_eq!(
            cmd("TAKEBACK 9,10"),
            Ok(Command::Takeback(Point { x: 9, y: 10 }))
        );
        assert_eq!(cmd("PLAY 0,0"), Ok(Command::Play(Point { x: 0, y: 0 })));
        assert_eq!(cmd("SWAP2BOARD"), Ok(Command::Swap2Board));
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        assert!(matches!(cmd("YXBOARD"), Err(CommandError::Unknown(m)) if m.contains("YXBOARD")));
        assert!(matches!(cmd(""), Err(CommandError::Unknown(_))));
        for line in [
            "START",
            "START x",
            "START -1",
            "RECTSTART 20",
            "TURN",
            "TURN 1",
            "TURN a,b",
            "TURN -1,2",
            "BEGIN now",
            "INFO",
            "TAKEBACK 1;2",
        ] {
            assert!(matches!(cmd(line), Err(CommandError::Bad(_))), "{line}");
        }
        let Err(CommandError::Bad(m)) = cmd("turn 3") else {
            panic!()
        };
        assert_eq!(m, "TURN: '3' is not a point X,Y");
        // Huge numbers saturate: off any board, never an overflow.
        assert_eq!(
            cmd(&format!("TURN {},1", "9".repeat(50))),
            Ok(Command::Turn(Point { x: u32::MAX, y: 1 }))
        );
    }

    #[test]
    fn board_lines() {
        let line = |s: &str| s.parse::<BoardLine>();
        assert_eq!(
            line("10,11,1"),
            Ok(BoardLine::Stone(Point { x: 10, y: 11 }, Some(Field::Own)))
        );
        assert_eq!(
            line(" 0,0,2 "),
            Ok(BoardLine::Stone(
                Point { x: 0, y: 0 },
                Some(Field::Opponent)
            ))
        );
        assert_eq!(
            line("3,4,3"),
            Ok(BoardLine::Stone(
                Point { x: 3, y: 4 },
                Some(Field::Continuous)
            ))
        );
        assert_eq!(
            line("7,7"),
            Ok(BoardLine::Stone(Point { x: 7, y: 7 }, None))
        );
        assert_eq!(line("done"), Ok(BoardLine::Done));
        for bad in ["1,2,4", "x", "1,2,3,4", ""] {
            assert!(line(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn points_and_cells() {
        let g = Geometry::new(10, 20, 5, crate::rules::Rule::Free).unwrap();
        assert_eq!(Point { x: 19, y: 9 }.cell(g), Some(Cell::new(9, 19)));
        assert_eq!(Point { x: 20, y: 0 }.cell(g), None);
        assert_eq!(Point::of(Cell::new(2, 7)).to_string(), "7,2");
    }
}
