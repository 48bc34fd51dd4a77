//! A Gomocup brain behind kinrow's protocol: [`GomocupLink`] takes the
//! requests the referee and `kinrow play` write (`newgame`, `move`,
//! `genmove`, `set movetime`/`timeleft`, `name`, …), keeps the game, and
//! drives the brain with `START`/`RECTSTART`/`RESTART`, `INFO`, `BEGIN`,
//! `TURN`, `BOARD`, `ABOUT` and `END`, answering each request as a kinrow
//! engine would. Faults keep their kind: an `ERROR`/`UNKNOWN` to a move
//! request is a refusal (`?`), a move that is not a point is malformed, an
//! occupied or off-board point is passed on for the caller's rules to
//! refuse, silence is a timeout.
//!
//! Quirks of real brains, met here:
//! - `MESSAGE`/`DEBUG` lines are kept for the log and never taken for an
//!   answer; other junk (a line without a comma) is skipped and counted; a
//!   brain that talks before it is asked is fine;
//! - the brain is started (`START`) when first asked `protocol_version`, so
//!   a slow start is over before its first move is timed;
//! - nothing is written to a brain sooner than the write gap after its last
//!   answer: a strong brain may drop a command that comes right after its
//!   move. The gap adapts: it is at most as long as the brain's last move
//!   took, so a brain that answers in microseconds (never busy after its
//!   answer) costs nothing, and one that thinks gets the whole gap;
//! - a `TURN` or `START` dropped all the same (answered "ERROR Unknown
//!   command: X,Y" or "…: 15") is sent again, at most [`RESENDS`] times.

use super::{ClientError, EngineProcess, Response};
use crate::protocol::gomocup::{about_field, rule_code, Point, Reply, MEMORY_LIMIT_MIB};
use crate::protocol::{Command, SearchInfo, Shape};
use crate::rules::{clip, Board, Cell, Geometry, Rule};
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The default write gap.
pub const DEFAULT_WRITE_GAP: Duration = Duration::from_millis(5);

/// How many times a command the brain dropped is sent again (see
/// `resend_dropped`).
const RESENDS: usize = 3;

/// Shorter write-gap waits are skipped (see `write`).
const MIN_WAIT: Duration = Duration::from_micros(200);

/// `MESSAGE`/`DEBUG` lines kept between two calls of `take_messages`, by
/// default (for the log)…
const MESSAGES_KEPT: usize = 16;
/// …and the bytes of them kept when every one is wanted (`--messages`):
/// a brain that talks without end costs bounded memory.
pub const ALL_MESSAGES_BYTES: usize = 1 << 20;

/// A `MESSAGE`/`DEBUG` line of a brain, and the move it came with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrainMessage {
    /// The move the brain was asked for or had just played (1-based, the
    /// opening's stones counted) when it wrote the line.
    pub ply: usize,
    pub text: String,
}

/// How a brain is driven.
#[derive(Clone, Copy, Debug)]
pub struct GomocupOptions {
    /// The board it is started on before the first game (`START`), so a
    /// slow start is waited for at the start-up check.
    pub board: Geometry,
    /// No write sooner than this after its last answer (see the module).
    pub write_gap: Duration,
    /// `INFO timeout_turn` until `set movetime` says otherwise.
    pub timeout_turn: Duration,
    /// `INFO timeout_match` (the game clock per side), if any.
    pub match_time: Option<Duration>,
    /// `INFO max_memory`, in bytes (a raw `set max_memory` replaces it).
    pub max_memory: u64,
}

impl Default for GomocupOptions {
    fn default() -> Self {
        GomocupOptions {
            board: Geometry::new(15, 15, 5, Rule::Free).expect("15x15 is a board"),
            write_gap: DEFAULT_WRITE_GAP,
            timeout_turn: crate::bots::DEFAULT_MOVETIME,
            match_time: None,
            max_memory: MEMORY_LIMIT_MIB << 20,
        }
    }
}

/// A kinrow request waiting for its answer.
#[derive(Clone, Debug)]
enum Pending {
    /// Answered without the brain (a syntax error, an option).
    Ready(Result<String, String>),
    ProtocolVersion,
    Name,
    NewGame(Option<Shape>),
    Move(u32, u32),
    GenMove,
    /// `search_info`: what its `MESSAGE` lines said during the last move.
    SearchInfo,
    Undo,
    Quit,
}

/// The translation state of one brain; see the module.
pub struct GomocupLink {
    options: GomocupOptions,
    program: String,
    pending: VecDeque<(Option<u64>, Pending)>,
    /// The board size the brain was started with (rows, columns).
    started: Option<(usize, usize)>,
    /// The game as the caller plays it.
    board: Board,
    /// How many of the game's moves the brain has seen (always the first
    /// ones: the moves only grow between its answers); `None` when unknown,
    /// after an `undo` or a failed exchange (it then gets the position with
    /// `RESTART` and `BOARD`).
    known: Option<usize>,
    /// The game's `INFO` lines are still to be sent.
    infos_due: bool,
    /// INFO lines of `set` (search limits, raw options), sent at the start
    /// of every game. Kept from game to game: a `set` is carried out when
    /// it is queued, before the `newgame` queued ahead of it is.
    infos: Vec<(String, String)>,
    timeout_turn: Duration,
    /// `set timeleft`: sent as `INFO time_left` with the next move request.
    time_left: Option<u64>,
    last_answer: Option<Instant>,
    /// How long the brain took over its last move: the write gap's cap.
    last_think: Duration,
    about: Option<String>,
    /// Time spent waiting out write gaps since the caller last asked.
    pub(super) waited: Duration,
    pub(super) messages: Vec<BrainMessage>,
    pub(super) message_count: u64,
    /// Every message is kept (up to [`ALL_MESSAGES_BYTES`]), not only the
    /// first few.
    pub(super) keep_all: bool,
    message_bytes: usize,
    /// What its `MESSAGE` lines said of the search for its last move.
    search: SearchInfo,
    /// A move request is out: its messages belong to the move to come.
    asking: bool,
    /// A move the brain wrote with nothing asked (found before a write), for
    /// [`GomocupLink::unasked_move`] or the next `genmove` to charge.
    stale: Option<Point>,
}

/// The kinrow requests a brain is driven by, as `known_command` answers.
const TRANSLATED: [&str; 11] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "newgame",
    "move",
    "genmove",
    "search_info",
    "set",
    "undo",
    "quit",
];

/// Whether `s` can go into an `INFO` line as a key or a value: one word
/// of printable ASCII.
fn is_info_word(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_graphic())
}

/// What a command to the brain is answered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asked {
    /// `OK` (`START`, `RESTART`).
    Ok,
    /// `ABOUT`'s line.
    About,
    /// A move (`BEGIN`, `TURN`, `BOARD`, `PLAY`).
    Move,
}

/// What an exchange with the brain came to: a kinrow answer, or the pipe
/// failed.
type Answer = Result<Result<String, String>, ClientError>;

impl GomocupLink {
    /// A link for the brain started as `argv`.
    pub fn new(options: GomocupOptions, argv: &[String]) -> GomocupLink {
        GomocupLink {
            options,
            // The brain's name when its ABOUT gives none.
            program: super::display_name(argv),
            pending: VecDeque::new(),
            started: None,
            board: Board::new(options.board),
            known: None,
            infos_due: true,
            infos: Vec::new(),
            timeout_turn: options.timeout_turn,
            time_left: None,
            last_answer: None,
            last_think: Duration::ZERO,
            about: None,
            waited: Duration::ZERO,
            messages: Vec::new(),
            message_count: 0,
            keep_all: false,
            message_bytes: 0,
            search: SearchInfo::default(),
            asking: false,
            stale: None,
        }
    }

    /// Takes kinrow requests; they are answered one by one by
    /// [`GomocupLink::answer`].
    pub fn queue(&mut self, requests: &[Command]) {
        for request in requests {
            let pending = self.pending_for(request);
            self.pending.push_back((None, pending));
        }
    }

    fn pending_for(&mut self, command: &Command) -> Pending {
        match *command {
            Command::ProtocolVersion => Pending::ProtocolVersion,
            Command::Name => Pending::Name,
            Command::NewGame(shape) => Pending::NewGame(shape),
            Command::Move { row, col } => Pending::Move(row, col),
            Command::GenMove => Pending::GenMove,
            Command::SearchInfo => Pending::SearchInfo,
            Command::KnownCommand(ref name) => {
                Pending::Ready(Ok(TRANSLATED.contains(&name.as_str()).to_string()))
            }
            Command::Undo => Pending::Undo,
            Command::Quit => Pending::Quit,
            Command::Set {
                ref name,
                ref value,
            } => Pending::Ready(self.set(name, value)),
            Command::Version => Pending::Ready(Ok(String::new())),
            ref other => Pending::Ready(Err(format!(
                "unknown command: '{other}' is not translated for a Gomocup brain"
            ))),
        }
    }

    /// `set NAME VALUE`: `movetime` and `timeleft` become `INFO`; `seed` is
    /// accepted (brains have none in the protocol).
    fn set(&mut self, name: &str, value: &str) -> Result<String, String> {
        let ms = value
            .parse::<u64>()
            .map_err(|_| format!("invalid option: {name}: '{}' is not a number", clip(value)));
        match name {
            "seed" => Ok(String::new()),
            "movetime" => {
                self.timeout_turn = Duration::from_millis(ms?);
                self.infos_due = true;
                Ok(String::new())
            }
            "timeleft" => {
                self.time_left = Some(ms?);
                Ok(String::new())
            }
            // Search limits as Yixin and Rapfi take them.
            "nodes" | "depth" => {
                let key = if name == "nodes" {
                    "max_node"
                } else {
                    "max_depth"
                };
                self.set_info(key, &ms?.to_string());
                Ok(String::new())
            }
            // A raw option: INFO is Gomocup's way to set one (a brain ignores
            // keys it doesn't know).
            _ if is_info_word(name) && is_info_word(value) => {
                self.set_info(name, value);
                Ok(String::new())
            }
            _ => Err(format!(
                "invalid option: {name}: not an INFO key and value a Gomocup brain can be sent"
            )),
        }
    }

    /// Keeps `INFO key value` for the INFO lines of every game, replacing
    /// an earlier value of the key.
    fn set_info(&mut self, key: &str, value: &str) {
        self.infos.retain(|(k, _)| k != key);
        self.infos.push((key.to_string(), value.to_string()));
        self.infos_due = true;
    }

    /// Answers the oldest request, talking to the brain as needed within
    /// `deadline`.
    pub fn answer(
        &mut self,
        process: &mut EngineProcess,
        deadline: Instant,
    ) -> Result<Response, ClientError> {
        let Some((id, pending)) = self.pending.pop_front() else {
            return Err(ClientError::Timeout);
        };
        let result = match pending {
            Pending::Ready(r) => r,
            Pending::ProtocolVersion => {
                self.ensure_started(process, deadline)?.map(|()| "2".into())
            }
            Pending::Name => self.name(process, deadline)?,
            Pending::NewGame(shape) => self.new_game(process, shape, deadline)?,
            Pending::Move(row, col) => {
                let cell = Cell::from_one_based(row, col);
                match cell.map(|c| self.board.try_play(c)) {
                    Some(Ok(_)) => Ok(String::new()),
                    Some(Err(e)) => Err(format!("illegal move: {e}")),
                    None => Err(format!("illegal move: {row} {col} is off the board")),
                }
            }
            Pending::GenMove => self.genmove(process, deadline)?,
            Pending::SearchInfo => Ok(self.search.to_string()),
            Pending::Undo => match self.board.undo() {
                Some(_) => {
                    self.known = None;
                    Ok(String::new())
                }
                None => Err("cannot undo: the board is empty".into()),
            },
            Pending::Quit => {
                let _ = process.send("END\n");
                Ok(String::new())
            }
        };
        Ok(match result {
            Ok(text) => Response {
                success: true,
                id,
                text,
            },
            Err(text) => Response {
                success: false,
                id,
                text,
            },
        })
    }

    /// A move the brain wrote when nothing was asked of it: it answered its
    /// last move request twice. Looked for in what it wrote since, without
    /// waiting; `MESSAGE`/`DEBUG` lines on the way are kept, other lines
    /// skipped (and counted), so none is taken for the answer to the next
    /// request. The move comes as a kinrow engine would answer `genmove`.
    pub fn unasked_move(&mut self, process: &mut EngineProcess) -> Option<Response> {
        if !self.pending.is_empty() {
            return None;
        }
        if let Some(p) = self.stale.take() {
            return Some(move_response(p));
        }
        while let Some(line) = process.line_now() {
            match Reply::parse(&line) {
                Reply::Message(m) => self.keep_message(m),
                Reply::Debug(m) => self.keep_message(format!("DEBUG {m}")),
                Reply::Move(p) => return Some(move_response(p)),
                _ => process.skip_line(line),
            }
        }
        None
    }

    /// What the brain wrote with nothing asked, cleared: messages kept, a
    /// first move kept in `stale`, the rest skipped.
    fn clear_unasked(&mut self, process: &mut EngineProcess) {
        while let Some(line) = process.line_now() {
            match Reply::parse(&line) {
                Reply::Message(m) => self.keep_message(m),
                Reply::Debug(m) => self.keep_message(format!("DEBUG {m}")),
                Reply::Move(p) if self.stale.is_none() => self.stale = Some(p),
                _ => process.skip_line(line),
            }
        }
    }

    fn keep_message(&mut self, text: String) {
        self.message_count += 1;
        self.search.update(SearchInfo::read(&text));
        let room = if self.keep_all {
            self.message_bytes + text.len() <= ALL_MESSAGES_BYTES
        } else {
            self.messages.len() < MESSAGES_KEPT
        };
        if room {
            self.message_bytes += text.len();
            let ply = self.board.ply() + usize::from(self.asking);
            self.messages.push(BrainMessage { ply, text });
        }
    }

    /// The messages kept since the last call, and how many there were.
    pub(super) fn take_messages(&mut self) -> (Vec<BrainMessage>, u64) {
        self.message_bytes = 0;
        (
            std::mem::take(&mut self.messages),
            std::mem::take(&mut self.message_count),
        )
    }

    /// Writes to the brain, no sooner than the write gap after its last
    /// answer (see the module). What it wrote since its last answer is
    /// cleared first (see [`GomocupLink::unasked_move`]; a move found is
    /// kept for the caller, who asks next), so no stale line is ever read
    /// as the answer to this write.
    fn write(
        &mut self,
        process: &mut EngineProcess,
        text: &str,
        deadline: Instant,
    ) -> Result<(), ClientError> {
        self.clear_unasked(process);
        if let Some(at) = self.last_answer {
            let gap = self.options.write_gap.min(self.last_think);
            let wait = gap
                .saturating_sub(at.elapsed())
                .min(deadline.saturating_duration_since(Instant::now()));
            // A sleep this short costs more than it waits (timer slack), and
            // a brain that answered this fast is not busy after answering.
            if wait >= MIN_WAIT {
                std::thread::sleep(wait);
                self.waited += wait;
            }
        }
        process.send(text)
    }

    /// The brain's next answer: `MESSAGE`/`DEBUG` lines are kept for the
    /// log, lines without a comma skipped (for `ABOUT`, whose answer is
    /// `key="value", …` or free text, any line with a comma or `=`); a move answers only a move request.
    fn read_answer(
        &mut self,
        process: &mut EngineProcess,
        deadline: Instant,
        asked: Asked,
    ) -> Result<Reply, ClientError> {
        loop {
            let line = process.read_line(deadline)?;
            match Reply::parse(&line) {
                Reply::Message(m) => self.keep_message(m),
                Reply::Debug(m) => self.keep_message(format!("DEBUG {m}")),
                // Nothing but a move request is answered with a move: this
                // one is a late second answer to the last (skipped and
                // counted, never taken for `OK`).
                Reply::Move(_) if asked != Asked::Move => process.skip_line(line),
                Reply::Other(l)
                    if !(l.contains(',') || asked == Asked::About && l.contains('=')) =>
                {
                    process.skip_line(l)
                }
                reply => {
                    self.last_answer = Some(Instant::now());
                    return Ok(reply);
                }
            }
        }
    }

    /// `START`/`RECTSTART` for `rows` x `cols`; `Ok(Err)` with the brain's
    /// words when it refuses.
    fn start(
        &mut self,
        process: &mut EngineProcess,
        rows: usize,
        cols: usize,
        deadline: Instant,
    ) -> Answer {
        let command = if rows == cols {
            format!("START {rows}")
        } else {
            format!("RECTSTART {cols},{rows}")
        };
        self.write(process, &format!("{command}\n"), deadline)?;
        let reply = self.read_answer(process, deadline, Asked::Ok);
        match self.resend_dropped(process, &command, reply, Asked::Ok, deadline)? {
            Reply::Ok => {
                self.started = Some((rows, cols));
                self.known = Some(0);
                Ok(Ok(String::new()))
            }
            other => {
                self.started = None;
                Ok(Err(format!(
                    "the brain answered {command} with {}",
                    shown(&other)
                )))
            }
        }
    }

    /// Starts the brain on the options' board if it isn't yet.
    fn ensure_started(
        &mut self,
        process: &mut EngineProcess,
        deadline: Instant,
    ) -> Result<Result<(), String>, ClientError> {
        let g = self.options.board;
        // Not on a board it cannot play: `newgame` says why in words (a
        // brain's refusal of START 3 would say only that it refused).
        if self.started.is_some() || g.k() != 5 {
            return Ok(Ok(()));
        }
        Ok(self
            .start(process, g.rows(), g.cols(), deadline)?
            .map(|_| ()))
    }

    /// An empty board in the brain: nothing when it has one of this size
    /// already, else `RESTART` (or `START` again when it refuses that), or
    /// `START` for a new size.
    fn clear_brain(
        &mut self,
        process: &mut EngineProcess,
        rows: usize,
        cols: usize,
        deadline: Instant,
    ) -> Answer {
        if self.started == Some((rows, cols)) {
            if self.known == Some(0) {
                return Ok(Ok(String::new()));
            }
            self.write(process, "RESTART\n", deadline)?;
            if self.read_answer(process, deadline, Asked::Ok)? == Reply::Ok {
                self.known = Some(0);
                return Ok(Ok(String::new()));
            }
        }
        self.start(process, rows, cols, deadline)
    }

    fn new_game(
        &mut self,
        process: &mut EngineProcess,
        shape: Option<Shape>,
        deadline: Instant,
    ) -> Answer {
        let current = self.board.geometry();
        let geometry = match shape {
            None => current,
            Some(s) => match Geometry::new(s.rows, s.cols, s.k, s.rule.unwrap_or(current.rule())) {
                Ok(g) => g,
                Err(e) => return Ok(Err(format!("unacceptable size: {e}"))),
            },
        };
        if geometry.k() != 5 {
            return Ok(Err(format!(
                "unacceptable size: Gomocup brains play five in a row, not {} (the protocol has no K)",
                geometry.k()
            )));
        }
        if let Err(why) = self.clear_brain(process, geometry.rows(), geometry.cols(), deadline)? {
            return Ok(Err(format!("unacceptable size: {why}")));
        }
        // A move written after the last game's end belongs to no game here.
        self.stale = None;
        self.board = Board::new(geometry);
        self.infos_due = true;
        self.time_left = None;
        Ok(Ok(String::new()))
    }

    /// `name`: the brain's `ABOUT` name (asked once), else its file name.
    fn name(&mut self, process: &mut EngineProcess, deadline: Instant) -> Answer {
        if self.about.is_none() {
            self.write(process, "ABOUT\n", deadline)?;
            let about = match self.read_answer(process, deadline, Asked::About)? {
                Reply::Other(line) => about_field(&line, "name"),
                _ => None,
            };
            self.about = Some(about.unwrap_or_else(|| self.program.clone()));
        }
        Ok(Ok(self.about.clone().unwrap_or_default()))
    }

    /// `genmove`: `INFO` as due, then `TURN` when the brain has seen all
    /// but the last move, `BEGIN` on an empty board, else the whole
    /// position with `BOARD`; the answer checked for form only (the
    /// caller's rules judge the move).
    fn genmove(&mut self, process: &mut EngineProcess, deadline: Instant) -> Answer {
        if let Some(outcome) = self.board.outcome() {
            return Ok(Err(format!("game over: the game is over ({outcome})")));
        }
        // A move it wrote since its last answer answers nothing: charged
        // here, before this request could be answered by it.
        self.clear_unasked(process);
        if let Some(p) = self.stale.take() {
            self.known = None;
            return Ok(Err(format!(
                "answered twice: a second move '{p}' came after its last answer, with no request"
            )));
        }
        let g = self.board.geometry();
        let ply = self.board.ply();
        let follows = self.known.is_some_and(|k| k + 1 == ply);
        let fresh = self.known == Some(0);
        if !follows && !fresh {
            if let Err(why) = self.clear_brain(process, g.rows(), g.cols(), deadline)? {
                return Ok(Err(format!("brain error: {why}")));
            }
        }
        let mut text = String::with_capacity(64);
        if self.infos_due {
            let _ = writeln!(text, "INFO timeout_turn {}", self.timeout_turn.as_millis());
            let matched = self.options.match_time.map_or(0, |m| m.as_millis());
            let _ = writeln!(text, "INFO timeout_match {matched}");
            let _ = writeln!(text, "INFO game_type 1");
            let _ = writeln!(text, "INFO rule {}", rule_code(g.rule()));
            if !self.infos.iter().any(|(key, _)| key == "max_memory") {
                let _ = writeln!(text, "INFO max_memory {}", self.options.max_memory);
            }
            for (key, value) in &self.infos {
                let _ = writeln!(text, "INFO {key} {value}");
            }
            self.infos_due = false;
        }
        if let Some(left) = self.time_left.take() {
            let _ = writeln!(text, "INFO time_left {left}");
        }
        let request = match self.board.last_move() {
            Some(last) if follows => format!("TURN {}", Point::of(last)),
            None => "BEGIN".to_string(),
            Some(_) => "BOARD".to_string(),
        };
        let _ = writeln!(text, "{request}");
        if request == "BOARD" {
            let mover = ply % 2;
            for (i, cell) in self.board.moves().enumerate() {
                let field = if i % 2 == mover { 1 } else { 2 };
                let _ = writeln!(text, "{},{field}", Point::of(cell));
            }
            text.push_str("DONE\n");
        }
        self.known = None;
        self.write(process, &text, deadline)?;
        let asked = Instant::now();
        self.search = SearchInfo::default();
        self.asking = true;
        let reply = self.read_move(process, deadline);
        let reply = self.resend_dropped(process, &request, reply, Asked::Move, deadline);
        self.asking = false;
        let reply = reply?;
        self.last_think = asked.elapsed();
        Ok(match reply {
            Reply::Move(p) => {
                let cell = p.cell(g);
                if let Some(c) = cell.filter(|&c| self.board.stone_at(c).is_none()) {
                    let _ = self.board.try_play(c);
                    self.known = Some(self.board.ply());
                }
                // 1-based row and column; off the board stays off it.
                Ok(format!("{} {}", u64::from(p.y) + 1, u64::from(p.x) + 1))
            }
            Reply::Error(_) | Reply::Unknown(_) => Err(format!(
                "brain error: it answered {request} with {}",
                shown(&reply)
            )),
            other => Ok(format!("not a move: {}", shown(&other))),
        })
    }
}

impl GomocupLink {
    /// A brain that read a command while it still counted itself busy with
    /// its last move drops the word and takes the rest for a command (Rapfi
    /// does, when the scheduler keeps its search thread from finishing up,
    /// most on a CPU shared with its opponent; a `START` right after a game
    /// ends is dropped as a `TURN` is). Nothing changed for it: `request`
    /// is sent again, after the whole gap, then twice and four times it,
    /// and said in its messages; the answer at last.
    fn resend_dropped(
        &mut self,
        process: &mut EngineProcess,
        request: &str,
        mut reply: Result<Reply, ClientError>,
        asked: Asked,
        deadline: Instant,
    ) -> Result<Reply, ClientError> {
        let mut wait = self.options.write_gap;
        for _ in 0..RESENDS {
            let dropped = match &reply {
                Ok(r @ (Reply::Error(m) | Reply::Unknown(m))) if lost_command_word(m, request) => {
                    shown(r)
                }
                _ => break,
            };
            self.keep_message(format!(
                "referee: the brain dropped '{request}' (it answered '{dropped}'), sent again"
            ));
            let wait_now = wait.min(deadline.saturating_duration_since(Instant::now()));
            std::thread::sleep(wait_now);
            self.waited += wait_now;
            wait *= 2;
            // Waited already: `write` adds no gap of its own.
            self.last_think = Duration::ZERO;
            self.write(process, &format!("{request}\n"), deadline)?;
            reply = if asked == Asked::Move {
                self.read_move(process, deadline)
            } else {
                self.read_answer(process, deadline, asked)
            };
        }
        reply
    }

    /// The answer to a move request (a `SUGGEST` played as the manager
    /// does: `PLAY` what it suggests).
    fn read_move(
        &mut self,
        process: &mut EngineProcess,
        deadline: Instant,
    ) -> Result<Reply, ClientError> {
        let reply = self.read_answer(process, deadline, Asked::Move)?;
        let Reply::Suggest(p) = reply else {
            return Ok(reply);
        };
        self.write(process, &format!("PLAY {p}\n"), deadline)?;
        self.read_answer(process, deadline, Asked::Move)
    }
}

/// A brain's move as kinrow's `genmove` answers: 1-based row and column
/// (off the board stays off it).
fn move_response(p: Point) -> Response {
    Response {
        success: true,
        id: None,
        text: format!("{} {}", u64::from(p.y) + 1, u64::from(p.x) + 1),
    }
}

/// Whether a brain's `ERROR`/`UNKNOWN` words `m` to `request` (`TURN X,Y`,
/// `START 15`) show that it lost the command word and read the rest as a
/// command: they end with the rest, as "Unknown command: X,Y" does, and do
/// not name the word.
fn lost_command_word(m: &str, request: &str) -> bool {
    let Some((word, args)) = request.split_once(' ') else {
        return false;
    };
    let m = m.trim_end();
    m.ends_with(args) && !m.to_ascii_uppercase().contains(word)
}

/// A brain's answer as the log shows it.
fn shown(reply: &Reply) -> String {
    let text = match reply {
        Reply::Move(p) => p.to_string(),
        Reply::Ok => "OK".into(),
        Reply::Error(m) => format!("ERROR {m}"),
        Reply::Unknown(m) => format!("UNKNOWN {m}"),
        Reply::Message(m) => format!("MESSAGE {m}"),
        Reply::Debug(m) => format!("DEBUG {m}"),
        Reply::Suggest(p) => format!("SUGGEST {p}"),
        Reply::Other(l) => l.clone(),
    };
    format!("'{}'", clip(text.trim()))
}
