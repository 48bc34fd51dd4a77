//! One browser tab's game, answering kinrow's line protocol.
//!
//! To the page the session is an engine like any other: `newgame`, `move`,
//! `genmove`, `undo`, `status`, `show`, `legal` mean what they mean to
//! `kinrow`, with the same replies and the same errors, because an
//! in-process [`Engine`] (the arbiter) answers them over the session's one
//! board. Two commands of its own say who plays: `seat X|O …` and `players`.
//!
//! `genmove` asks the engine process that plays the side to move — a
//! built-in bot (`kinrow --bot NAME`) or an engine the server's command line
//! named — through the same [`EngineSeat`] that `kinrow play` uses. Before
//! each `genmove` the engine is brought to the board's position (new game,
//! moves, undos: whatever changed since it last looked), and the move it
//! answers is played on the arbiter, which refuses it if it is illegal. An
//! engine that fails is killed; the next `genmove` starts it again and
//! replays the game, so the game goes on.

use crate::bots::BotKind;
use crate::client::{EngineCommand, EngineFault, EngineSeat, Launch, SeatSpec};
use crate::engine::{Engine, EngineConfig};
use crate::protocol::{
    parse_line, preprocess, write_response, Command, ErrorKind, Parsed, ProtocolError,
};
use crate::rules::{clip, Board, Player};
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What the server's command line lets the page start.
#[derive(Clone, Debug)]
pub struct Catalog {
    /// The `kinrow` program that runs the built-in bots.
    pub program: PathBuf,
    /// Engines by name, each with its command (and the protocol it speaks).
    pub engines: Vec<(String, EngineCommand)>,
    /// Longest wait for an engine answer, on top of its movetime.
    pub timeout: Duration,
    /// Longest wait for the first answer of a fresh engine process.
    pub startup_timeout: Duration,
}

/// Longest time per move a page may ask for, in milliseconds.
pub const MAX_MOVETIME_MS: u64 = 60_000;

/// The commands a session answers, in `list_commands` order.
pub const COMMANDS: [&str; 16] = [
    "newgame",
    "move",
    "genmove",
    "undo",
    "status",
    "show",
    "legal",
    "forbidden",
    "seat",
    "players",
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
];

/// Who plays a side.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Who {
    Person,
    Bot(BotKind),
    /// An engine of the catalog, by name.
    Engine(String),
}

/// A side's player as the page chose it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Choice {
    who: Who,
    /// Milliseconds per move (bots and engines).
    movetime: Option<u64>,
}

impl Choice {
    const PERSON: Choice = Choice {
        who: Who::Person,
        movetime: None,
    };

    /// How messages name it.
    fn label(&self) -> String {
        match &self.who {
            Who::Person => "a person".to_string(),
            Who::Bot(bot) => bot.to_string(),
            Who::Engine(name) => name.clone(),
        }
    }
}

/// How the waits for a session's engines are cut short: the tab is gone,
/// or the page interrupted a search (a `# interrupt` line, as GoGui sends:
/// a comment to anything that doesn't know it).
#[derive(Debug, Default)]
pub struct Stop {
    /// The engines' cancel flag: raised, the current wait ends.
    cancel: Arc<AtomicBool>,
    /// The tab is gone: every wait from now on ends at once.
    closing: AtomicBool,
    /// An engine is being asked for a move (the only wait worth cutting).
    searching: AtomicBool,
}

impl Stop {
    /// The tab is gone.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// Cuts the search in progress short, if there is one; true if so.
    pub fn interrupt(&self) -> bool {
        let searching = self.searching.load(Ordering::SeqCst);
        if searching {
            self.cancel.store(true, Ordering::SeqCst);
        }
        searching
    }

    /// A new request: an interrupt meant for an earlier one is forgotten.
    fn begin(&self) {
        if !self.closing.load(Ordering::SeqCst) {
            self.cancel.store(false, Ordering::SeqCst);
        }
    }

    fn interrupted(&self) -> bool {
        self.cancel.load(Ordering::SeqCst) && !self.closing.load(Ordering::SeqCst)
    }
}

/// A failed request: a protocol failure, or one of the session's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// With the protocol's prefixes (`illegal move`, `syntax error`, …).
    Protocol(ProtocolError),
    /// `engine error: …`: the engine of a seat failed; it has been stopped
    /// and the next `genmove` starts it again.
    Engine(String),
    /// `no engine: …`: `genmove` when a person is to move.
    NoEngine(String),
    /// `interrupted: …`: `genmove` cut short by `# interrupt`.
    Interrupted(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Protocol(e) => e.fmt(f),
            Failure::Engine(text) => write!(f, "engine error: {text}"),
            Failure::NoEngine(text) => write!(f, "no engine: {text}"),
            Failure::Interrupted(text) => write!(f, "interrupted: {text}"),
        }
    }
}

impl From<ProtocolError> for Failure {
    fn from(e: ProtocolError) -> Failure {
        Failure::Protocol(e)
    }
}

/// What handling one line produced.
#[derive(Debug, PartialEq, Eq)]
pub struct Reply {
    /// The framed response (`=…` or `?…`, with its empty line); `None` for
    /// a blank line or a comment.
    pub text: Option<String>,
    /// `quit`: close after the reply.
    pub close: bool,
}

impl Reply {
    /// A failure reply without an id saying `text`.
    pub fn failure(text: &str) -> Reply {
        Reply {
            text: Some(format!("? {text}\n\n")),
            close: false,
        }
    }
}

/// An engine process and the game it has been told of.
struct Follower {
    seat: EngineSeat,
    /// Its board as far as we know; `None` before its first `newgame`.
    game: Option<Board>,
}

impl Follower {
    /// Brings the engine to `target`: a new game, or undos back to where
    /// the games part and the moves since.
    fn sync(&mut self, target: &Board) -> Result<(), EngineFault> {
        let same_shape = self
            .game
            .as_ref()
            .filter(|g| g.geometry() == target.geometry());
        let Some(game) = same_shape else {
            self.game = None;
            self.seat.replay(target)?;
            self.game = Some(target.clone());
            return Ok(());
        };
        let common = game
            .moves()
            .zip(target.moves())
            .take_while(|(a, b)| a == b)
            .count();
        let back = game.ply() - common;
        self.game = None;
        if back > 0 {
            let mut prefix = target.clone();
            while prefix.ply() > common {
                prefix.undo();
            }
            self.seat.take_back(back, &prefix)?;
        }
        for cell in target.moves().skip(common) {
            self.seat.tell(cell)?;
        }
        self.game = Some(target.clone());
        Ok(())
    }
}

/// One side: who plays it and, for an engine, its process once started.
struct Seat {
    choice: Choice,
    engine: Option<Follower>,
}

/// A browser tab's game: the arbiter's board and the two seats.
pub struct Session {
    arbiter: Engine,
    seats: [Seat; 2],
    catalog: Arc<Catalog>,
    stop: Arc<Stop>,
    seeds: [u64; 2],
}

impl Session {
    /// A session on an empty 3x3 board with a person on each side; `stop`
    /// cuts its waits for engines short.
    pub fn new(catalog: Arc<Catalog>, stop: Arc<Stop>) -> Session {
        let seed: u64 = rand::random_range(1..1_000_000_000);
        Session {
            arbiter: Engine::new(EngineConfig {
                // Never asked to move: genmove goes to the seats.
                bot: BotKind::Random,
                ..EngineConfig::default()
            }),
            seats: [Player::X, Player::O].map(|_| Seat {
                choice: Choice::PERSON,
                engine: None,
            }),
            catalog,
            stop,
            seeds: [seed, seed + 1],
        }
    }

    /// The game as the session has it.
    pub fn board(&self) -> &Board {
        self.arbiter.board()
    }

    /// Answers one request line.
    pub fn handle(&mut self, line: &str) -> Reply {
        self.stop.begin();
        let (id, result, close) = match parse_line(line.as_bytes()) {
            Parsed::Nothing => {
                return Reply {
                    text: None,
                    close: false,
                }
            }
            Parsed::Error(id, e) if e.kind == ErrorKind::UnknownCommand => {
                (id, self.own_command(line, e), false)
            }
            Parsed::Error(id, e) => (id, Err(Failure::Protocol(e)), false),
            Parsed::Request(request) => {
                let close = request.command == Command::Quit;
                (request.id, self.answer(request.command), close)
            }
        };
        let mut text = Vec::new();
        // Writing to a Vec can't fail.
        let _ = write_response(&mut text, id, &result);
        Reply {
            text: Some(String::from_utf8_lossy(&text).into_owned()),
            close,
        }
    }

    /// A protocol command, answered by the arbiter or the seats.
    fn answer(&mut self, command: Command) -> Result<String, Failure> {
        match command {
            Command::GenMove => self.genmove(),
            Command::Quit => Ok(String::new()),
            Command::ListCommands => Ok(COMMANDS.join("\n")),
            Command::KnownCommand(name) => Ok(COMMANDS.contains(&name.as_str()).to_string()),
            Command::Set { .. } => Err(Failure::Protocol(ProtocolError::new(
                ErrorKind::InvalidOption,
                "a page's session has no options; say who plays with `seat`",
            ))),
            command @ (Command::NewGame(_)
            | Command::Move { .. }
            | Command::Undo
            | Command::Status
            | Command::Show
            | Command::Legal
            | Command::Forbidden
            | Command::ProtocolVersion
            | Command::Name
            | Command::Version) => self.arbiter.respond(command).map_err(Failure::Protocol),
            // Anything the engine protocol gains later is not the page's to
            // run on the server until the session says so.
            #[allow(unreachable_patterns)]
            _ => Err(Failure::Protocol(ProtocolError::new(
                ErrorKind::UnknownCommand,
                "not available in a page's session",
            ))),
        }
    }

    /// `seat` and `players`, which only a session knows.
    fn own_command(&mut self, line: &str, unknown: ProtocolError) -> Result<String, Failure> {
        let clean = preprocess(line.as_bytes());
        let mut words = clean.split(' ').filter(|w| !w.is_empty()).peekable();
        if words
            .peek()
            .is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()))
        {
            words.next();
        }
        let name = words.next().unwrap_or("");
        let args: Vec<&str> = words.collect();
        let syntax = |m: &str| Failure::Protocol(ProtocolError::new(ErrorKind::Syntax, m));
        match name {
            "seat" => self.seat(&args),
            "players" if args.is_empty() => Ok(self.players()),
            "players" => Err(syntax("usage: players")),
            _ => Err(Failure::Protocol(unknown)),
        }
    }

    /// `players`: every choice of `seat`, one per line.
    fn players(&self) -> String {
        let mut lines = vec!["human".to_string()];
        lines.extend(BotKind::ALL.iter().map(|b| format!("bot {b}")));
        lines.extend(
            self.catalog
                .engines
                .iter()
                .map(|(n, _)| format!("engine {n}")),
        );
        lines.join("\n")
    }

    /// `seat X|O human`, `seat X|O bot NAME [MS]`, `seat X|O engine NAME [MS]`.
    fn seat(&mut self, args: &[&str]) -> Result<String, Failure> {
        const USAGE: &str = "usage: seat X|O human | bot NAME [MOVETIME] | engine NAME [MOVETIME]";
        let syntax = || Failure::Protocol(ProtocolError::new(ErrorKind::Syntax, USAGE));
        let option = |m: String| Failure::Protocol(ProtocolError::new(ErrorKind::InvalidOption, m));
        let (side, kind, rest) = match args {
            [side, kind, rest @ ..] => (side, *kind, rest),
            _ => return Err(syntax()),
        };
        let side: Player = side.parse().map_err(|_| syntax())?;
        let (who, movetime) = match (kind, rest) {
            ("human", []) => (Who::Person, None),
            ("bot" | "engine", [name, more @ ..]) if more.len() <= 1 => {
                let who = if kind == "bot" {
                    Who::Bot(
                        name.parse()
                            .map_err(|e: crate::bots::UnknownBot| option(e.to_string()))?,
                    )
                } else if self.catalog.engines.iter().any(|(n, _)| n == name) {
                    Who::Engine(name.to_string())
                } else {
                    let names: Vec<&str> = self
                        .catalog
                        .engines
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect();
                    return Err(option(if names.is_empty() {
                        format!(
                            "no engine named '{}': this server offers none (start it with \
                             --engine NAME=COMMAND)",
                            clip(name)
                        )
                    } else {
                        format!(
                            "no engine named '{}' (this server offers: {})",
                            clip(name),
                            names.join(", ")
                        )
                    }));
                };
                let movetime = match more.first() {
                    None => None,
                    Some(ms) => Some(
                        ms.parse::<u64>()
                            .ok()
                            .filter(|ms| (1..=MAX_MOVETIME_MS).contains(ms))
                            .ok_or_else(|| {
                                option(format!(
                                    "movetime '{}' is not a number of milliseconds from 1 to \
                                     {MAX_MOVETIME_MS}",
                                    clip(ms)
                                ))
                            })?,
                    ),
                };
                (who, movetime)
            }
            _ => return Err(syntax()),
        };
        let choice = Choice { who, movetime };
        let seat = &mut self.seats[side.index()];
        if seat.choice == choice {
            return Ok(String::new());
        }
        seat.choice = choice;
        // The old engine goes (killed on drop); the new one starts now, so
        // that a program that can't start says so at once.
        seat.engine = None;
        if self.seats[side.index()].choice.who != Who::Person {
            self.start_engine(side)?;
        }
        Ok(String::new())
    }

    /// Starts the engine of `side` if it is not running.
    fn start_engine(&mut self, side: Player) -> Result<&mut Follower, Failure> {
        let i = side.index();
        if self.seats[i].engine.is_none() {
            let choice = &self.seats[i].choice;
            let spec = match &choice.who {
                Who::Person => {
                    return Err(Failure::NoEngine(format!(
                        "{side} is played by a person; send their move with `move R C`"
                    )))
                }
                Who::Bot(bot) => SeatSpec::Bot(*bot),
                Who::Engine(name) => {
                    let Some((_, command)) = self.catalog.engines.iter().find(|(n, _)| n == name)
                    else {
                        return Err(Failure::NoEngine(format!(
                            "no engine named '{}'",
                            clip(name)
                        )));
                    };
                    SeatSpec::Engine(command.clone())
                }
            };
            let launch = Launch {
                program: &self.catalog.program,
                seed: self.seeds[i],
                movetime: choice.movetime,
                timeout: self.catalog.timeout,
                startup_timeout: self.catalog.startup_timeout,
                geometry: self.arbiter.board().geometry(),
                cancel: Some(Arc::clone(&self.stop.cancel)),
            };
            let (seat, _name) = launch.start(&spec).map_err(|e| {
                eprintln!("kinrow serve: {e:#}");
                Failure::Engine(format!(
                    "the engine playing {side} ({}) could not be started: {}",
                    choice.label(),
                    e.root_cause()
                ))
            })?;
            self.seats[i].engine = Some(Follower { seat, game: None });
        }
        Ok(self.seats[i].engine.as_mut().expect("started above"))
    }

    /// `genmove`: the engine of the side to move chooses; the arbiter checks
    /// and plays its move.
    fn genmove(&mut self) -> Result<String, Failure> {
        let board = self.arbiter.board().clone();
        if let Some(outcome) = board.outcome() {
            return Err(Failure::Protocol(ProtocolError::new(
                ErrorKind::GameOver,
                format!("the game is over ({outcome})"),
            )));
        }
        let side = board.to_move();
        let label = self.seats[side.index()].choice.label();
        let stop = Arc::clone(&self.stop);
        let follower = self.start_engine(side)?;
        stop.searching.store(true, Ordering::SeqCst);
        let chosen = follower.sync(&board).and_then(|()| follower.seat.genmove());
        stop.searching.store(false, Ordering::SeqCst);
        let fault = match chosen {
            Ok(cell) => match self.arbiter.respond(Command::Move {
                row: cell.row as u32 + 1,
                col: cell.col as u32 + 1,
            }) {
                Ok(_) => {
                    let engine = self.seats[side.index()].engine.as_mut();
                    if let Some(game) = engine.and_then(|f| f.game.as_mut()) {
                        // The engine played it on its own board.
                        let _ = game.try_play(cell);
                    }
                    return Ok(cell.to_string());
                }
                Err(e) => format!("played {cell}, which is illegal: {}", e.detail),
            },
            Err(fault) => fault.to_string(),
        };
        // Killed on drop; the next genmove starts it afresh.
        self.seats[side.index()].engine = None;
        if self.stop.interrupted() {
            return Err(Failure::Interrupted(format!(
                "the engine playing {side} ({label}) was stopped before it answered"
            )));
        }
        Err(Failure::Engine(format!(
            "the engine playing {side} ({label}) {fault}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Response;
    use crate::client::{Deadline, Link};
    use crate::protocol::Command;
    use crate::rules::{Cell, Geometry, Rule};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// An engine that records what it is told and refuses `undo` when asked.
    struct Recorder {
        log: Rc<RefCell<Vec<String>>>,
        knows_undo: bool,
    }

    impl Link for Recorder {
        fn request(
            &mut self,
            request: &Command,
            _: Deadline,
        ) -> Result<Response, crate::client::EngineFault> {
            let line = request.to_string();
            self.log.borrow_mut().push(line.clone());
            let success = self.knows_undo || line != "undo";
            Ok(Response {
                success,
                id: None,
                text: String::new(),
            })
        }
    }

    fn follower(knows_undo: bool) -> (Follower, Rc<RefCell<Vec<String>>>) {
        let log = Rc::new(RefCell::new(Vec::new()));
        let link = Recorder {
            log: Rc::clone(&log),
            knows_undo,
        };
        let seat = EngineSeat::new(Box::new(link), Duration::from_secs(1));
        (Follower { seat, game: None }, log)
    }

    fn board(geometry: Geometry, moves: &[(u8, u8)]) -> Board {
        let mut b = Board::new(geometry);
        for &(r, c) in moves {
            b.try_play(Cell::new(r - 1, c - 1)).unwrap();
        }
        b
    }

    fn drain(log: &Rc<RefCell<Vec<String>>>) -> Vec<String> {
        std::mem::take(&mut *log.borrow_mut())
    }

    #[test]
    fn an_engine_is_told_only_what_changed() {
        let ttt = Geometry::TIC_TAC_TOE;
        let (mut f, log) = follower(true);
        f.sync(&board(ttt, &[(2, 2), (1, 1)])).unwrap();
        assert_eq!(drain(&log), ["newgame 3 3 3 free", "move 2 2", "move 1 1"]);
        f.sync(&board(ttt, &[(2, 2), (1, 1), (3, 3)])).unwrap();
        assert_eq!(drain(&log), ["move 3 3"]);
        f.sync(&board(ttt, &[(2, 2), (1, 1), (3, 3)])).unwrap();
        assert!(drain(&log).is_empty());
        // Two moves taken back and another played.
        f.sync(&board(ttt, &[(2, 2), (1, 2)])).unwrap();
        assert_eq!(drain(&log), ["undo", "undo", "move 1 2"]);
        // A new game on another board.
        let gomoku = Geometry::new(15, 15, 5, Rule::Exact).unwrap();
        f.sync(&board(gomoku, &[(8, 8)])).unwrap();
        assert_eq!(drain(&log), ["newgame 15 15 5 exact", "move 8 8"]);
        // The same shape, a new game: undos back to the empty board.
        f.sync(&board(gomoku, &[])).unwrap();
        assert_eq!(drain(&log), ["undo"]);
    }

    #[test]
    fn an_engine_without_undo_is_given_the_game_again() {
        let ttt = Geometry::TIC_TAC_TOE;
        let (mut f, log) = follower(false);
        f.sync(&board(ttt, &[(2, 2), (1, 1), (3, 3)])).unwrap();
        drain(&log);
        f.sync(&board(ttt, &[(2, 2), (1, 3)])).unwrap();
        assert_eq!(
            drain(&log),
            ["undo", "newgame 3 3 3 free", "move 2 2", "move 1 3"]
        );
    }

    fn session(engines: &[(&str, &[&str])]) -> Session {
        let catalog = Catalog {
            program: PathBuf::from("/nonexistent/kinrow"),
            engines: engines
                .iter()
                .map(|(n, argv)| {
                    let command = EngineCommand {
                        argv: argv.iter().map(|a| a.to_string()).collect(),
                        dialect: crate::client::Dialect::Kinrow,
                    };
                    (n.to_string(), command)
                })
                .collect(),
            timeout: Duration::from_secs(1),
            startup_timeout: Duration::from_secs(10),
        };
        Session::new(Arc::new(catalog), Arc::new(Stop::default()))
    }

    fn ask(s: &mut Session, line: &str) -> String {
        s.handle(line).text.unwrap_or_default()
    }

    #[test]
    fn two_people_need_no_process() {
        let mut s = session(&[]);
        assert_eq!(ask(&mut s, "newgame 3 3 3"), "=\n\n");
        for m in ["1 1", "2 1", "1 2", "2 2", "1 3"] {
            assert_eq!(ask(&mut s, &format!("move {m}")), "=\n\n");
        }
        assert_eq!(ask(&mut s, "7 status"), "=7 win X 1 1 1 2 1 3\n\n");
        assert_eq!(
            ask(&mut s, "move 3 3"),
            "? illegal move: the game is over\n\n"
        );
        assert_eq!(
            ask(&mut s, "genmove"),
            "? game over: the game is over (win X 1 1 1 2 1 3)\n\n"
        );
        assert_eq!(
            s.handle("# nothing"),
            Reply {
                text: None,
                close: false
            }
        );
        assert_eq!(
            s.handle("quit"),
            Reply {
                text: Some("=\n\n".into()),
                close: true
            }
        );
        assert_eq!(s.board().ply(), 5);
    }

    #[test]
    fn a_program_that_cannot_start_is_reported_and_kept_for_a_retry() {
        let mut s = session(&[("ghost", &["/nonexistent/engine"])]);
        let reply = ask(&mut s, "seat O engine ghost 50");
        assert!(
            reply
                .starts_with("? engine error: the engine playing O (ghost) could not be started: "),
            "{reply}"
        );
        assert_eq!(ask(&mut s, "move 2 2"), "=\n\n");
        // The seat is still the engine's: genmove tries to start it again.
        assert!(ask(&mut s, "genmove").contains("(ghost) could not be started"));
        assert_eq!(ask(&mut s, "status"), "= ongoing O\n\n");
        assert_eq!(ask(&mut s, "seat O human"), "=\n\n");
        assert!(ask(&mut s, "genmove").starts_with("? no engine: O is played by a person"));
    }
}
