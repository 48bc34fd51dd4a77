//! kinrow as a Gomocup brain (`kinrow --protocol gomocup`, or started as
//! `pbrain-*`), for Gomocup GUIs and managers: the commands of
//! [`crate::protocol::gomocup::Command`] answered over any reader and
//! writer by the engine core.
//!
//! - Board size comes from `START`/`RECTSTART`; K from the command line
//!   (five by default: Gomocup has no K); the rule from `INFO rule` (0 free,
//!   1 exactly K), else the command line. Renju (4), caro (8) and continuous
//!   games (2) are refused: `INFO` gets no answer, so the refusal comes as
//!   `ERROR` to the next `BEGIN`/`TURN`/`BOARD`, as the protocol asks.
//! - Search limits: `INFO max_node N` and `INFO max_depth N` (Yixin's and
//!   Rapfi's; 0 or -1 for none) are the bot's `nodes` and `depth` options.
//! - Memory: `INFO max_memory BYTES` (0: no limit) sizes the minimax
//!   table to at most a quarter of it, never past its `hash` option; the
//!   caches of threat sequences kept between moves take at most as much as
//!   the table (emptied past it), and the rest of the brain a few MiB.
//! - Time: each move gets at most `INFO timeout_turn` (capped by
//!   `--movetime`), and with a match clock (`timeout_match`, `time_left`) at
//!   most a share of the time left ([`crate::bots::move_time`]). Between
//!   `time_left` reports the brain counts its own time down.
//! - A bad line gets `ERROR …` (a known command it can't carry out) or
//!   `UNKNOWN …` and changes nothing. Lines may end in CR LF, LF or CR;
//!   answers end in LF.
//! - Before a move, `MESSAGE depth … score …` when the bot searched.
//! - What input can make it hold is bounded: a `BOARD` list longer than the
//!   board's points is refused at once and the rest skipped unstored; at
//!   most `MAX_NOTES` notes wait for the next answer, then a count.

use super::lines::{answer_lines, Flow};
use super::session::{BotOption, BuildBot, Session};
use crate::bots::{hash_mib_within, hash_table_mib, BotKind, DEFAULT_HASH_MIB, DEFAULT_MOVETIME};
use crate::protocol::gomocup::{rule_of_code, BoardLine, Command, CommandError, Field, Point};
use crate::rules::{clip, Board, Geometry, IllegalMove, Rule, SizeError, MAX_SIDE};
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// `INFO time_left` this large means "no limit".
const UNLIMITED_MS: i64 = 2_147_483_647;

/// Notes (`MESSAGE` lines) kept for the next answer; past this, only how
/// many more were dropped is said (a manager that floods bad `INFO` lines
/// must not grow the brain's memory or its next answer).
const MAX_NOTES: usize = 8;

/// How a brain starts: what the command line says.
#[derive(Clone, Debug)]
pub struct BrainConfig {
    /// Stones in a row that win (Gomocup: five).
    pub k: u32,
    /// The rule until `INFO rule` says otherwise.
    pub rule: Rule,
    pub bot: BotKind,
    pub seed: u64,
    /// `--movetime`: no move takes longer, whatever the manager allows.
    pub movetime_cap: Option<Duration>,
    /// Bot options (`--set NAME=VALUE`), applied in order as `set` would.
    pub options: Vec<BotOption>,
}

impl Default for BrainConfig {
    fn default() -> Self {
        BrainConfig {
            k: 5,
            rule: Rule::Free,
            bot: BotKind::Minimax,
            seed: 0,
            movetime_cap: None,
            options: Vec::new(),
        }
    }
}

/// Which list is being read, up to its `DONE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListKind {
    Board,
    Swap2,
}

/// A `BOARD` (or `SWAP2BOARD`) list being read.
struct List {
    kind: ListKind,
    stones: Vec<(Point, Option<Field>)>,
    /// The first bad line, answered at `DONE`.
    error: Option<String>,
    /// Whether the list outgrew the board: already refused, the rest up
    /// to `DONE` is skipped unstored.
    overflowed: bool,
}

/// The brain: the core [`Session`] (its bot built at the first move), the
/// manager's limits.
pub struct Brain {
    config: BrainConfig,
    session: Session,
    /// Whether `START` has come: until then there is no board.
    started: bool,
    rule: Rule,
    /// Why move requests are refused: an `INFO rule` kinrow cannot play.
    unsupported: Option<String>,
    /// `MESSAGE` lines for just before the next answer (INFO values that
    /// were ignored: INFO itself is never answered).
    notes: Vec<String>,
    /// Notes dropped past [`MAX_NOTES`] since the last answer.
    notes_dropped: u64,
    list: Option<List>,
}

impl Brain {
    /// A brain waiting for `START`.
    pub fn new(config: BrainConfig) -> Brain {
        // The board waits for `START`; until then it is only a placeholder.
        let mut session = Session::new(
            Geometry::TIC_TAC_TOE,
            config.bot,
            config.seed,
            per_move(None, config.movetime_cap),
            BuildBot::AtFirstMove,
        );
        // Checked by `EngineArgs::check`, or empty.
        let _ = session.set_bot_options(&config.options);
        Brain {
            rule: config.rule,
            config,
            session,
            started: false,
            unsupported: None,
            notes: Vec::new(),
            notes_dropped: 0,
            list: None,
        }
    }

    /// The current game, once started.
    pub fn board(&self) -> Option<&Board> {
        self.started.then(|| self.session.board())
    }

    /// Answers the manager on `output` until `END` or the end of `input`.
    pub fn run<R: Read, W: Write>(&mut self, input: R, output: W) -> io::Result<()> {
        answer_lines(input, output, b"\r\n", |line, out| match line {
            None => {
                self.answer(out, Err("ERROR line too long".to_string()))?;
                Ok(Flow::Continue)
            }
            Some(raw) => self.line(raw, out),
        })
    }

    /// Handles one line.
    fn line<W: Write>(&mut self, raw: &[u8], out: &mut W) -> io::Result<Flow> {
        let text: String = String::from_utf8_lossy(raw)
            .chars()
            .filter(|&c| c == '\t' || !c.is_control())
            .collect();
        let text = text.trim();
        if text.is_empty() || (self.list.is_some() && self.list_line(text, out)?) {
            return Ok(Flow::Continue);
        }
        match text.parse::<Command>() {
            Ok(command) => self.command(command, out),
            Err(CommandError::Unknown(m)) => {
                self.answer(out, Err(format!("UNKNOWN {m}")))?;
                Ok(Flow::Continue)
            }
            Err(CommandError::Bad(m)) => {
                self.answer(out, Err(format!("ERROR {m}")))?;
                Ok(Flow::Continue)
            }
        }
    }

    /// A line while a `BOARD` (or `SWAP2BOARD`) list is open: a stone, its
    /// `DONE`, or a bad line (kept for `DONE`), all taken (`true`); or a
    /// command where a stone should be, which ends the list unfinished
    /// (refused) and is left to be handled (`false`). A list with more
    /// stones than the board has points is refused at once, and what
    /// follows up to `DONE` is skipped without being stored.
    fn list_line<W: Write>(&mut self, text: &str, out: &mut W) -> io::Result<bool> {
        let most = self.most_stones();
        let list = self.list.as_mut().expect("a list is open");
        let what = if list.kind == ListKind::Board {
            "BOARD"
        } else {
            "SWAP2BOARD"
        };
        match text.parse::<BoardLine>() {
            Ok(BoardLine::Done) if list.overflowed => self.list = None,
            Ok(BoardLine::Done) => {
                let list = self.list.take().expect("a list is open");
                self.finish_list(list, out)?;
            }
            Ok(BoardLine::Stone(..)) | Err(_) if list.overflowed => {
                if text.parse::<Command>().is_ok() {
                    // Already refused: the command is handled as itself.
                    self.list = None;
                    return Ok(false);
                }
            }
            Ok(BoardLine::Stone(..)) if list.stones.len() >= most => {
                list.stones = Vec::new();
                list.overflowed = true;
                let refusal = format!(
                    "ERROR {what}: more than {most} stones, the points of the board (the rest up to DONE is skipped)"
                );
                self.answer(out, Err(refusal))?;
            }
            Ok(BoardLine::Stone(p, field)) => list.stones.push((p, field)),
            Err(e) if text.parse::<Command>().is_err() => {
                list.error.get_or_insert(e);
            }
            Err(_) => {
                self.list = None;
                let word = text.split_whitespace().next().unwrap_or("");
                let refusal = format!("ERROR {what}: {} came before DONE", clip(word));
                self.answer(out, Err(refusal))?;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The most stones a list can hold: the points of the board, or of the
    /// largest board before `START`.
    fn most_stones(&self) -> usize {
        if self.started {
            self.session.board().geometry().area()
        } else {
            MAX_SIDE * MAX_SIDE
        }
    }

    /// Answers one command.
    fn command<W: Write>(&mut self, command: Command, out: &mut W) -> io::Result<Flow> {
        match command {
            Command::End => return Ok(Flow::Quit),
            Command::Info { key, value } => self.info(&key, &value),
            Command::Board | Command::Swap2Board => {
                self.list = Some(List {
                    kind: if command == Command::Board {
                        ListKind::Board
                    } else {
                        ListKind::Swap2
                    },
                    stones: Vec::new(),
                    error: None,
                    overflowed: false,
                });
            }
            Command::Start(n) => {
                let answer = self.start(n, n);
                self.answer(out, answer)?;
            }
            Command::RectStart { width, height } => {
                let answer = self.start(width, height);
                self.answer(out, answer)?;
            }
            Command::Restart => {
                let answer = self.restart();
                self.answer(out, answer)?;
            }
            Command::About => {
                let about = format!(
                    "name=\"kinrow-{}\", version=\"{}\", author=\"the kinrow authors\", country=\"-\"",
                    self.config.bot,
                    env!("CARGO_PKG_VERSION")
                );
                self.answer(out, Ok(about))?;
            }
            Command::Begin => {
                let ready = self.ready("BEGIN").and_then(|session| {
                    if session.board().ply() > 0 {
                        Err("ERROR BEGIN: the board has stones (RESTART first)".to_string())
                    } else {
                        Ok(())
                    }
                });
                self.move_after(ready, out)?;
            }
            Command::Turn(p) => {
                let ready = self.turn(p);
                self.move_after(ready, out)?;
            }
            Command::Takeback(p) => {
                let answer = self.takeback(p);
                self.answer(out, answer)?;
            }
            Command::Play(p) => {
                let answer = self.play(p);
                self.answer(out, answer)?;
            }
        }
        Ok(Flow::Continue)
    }

    /// `RESTART`: an empty board of the same size, a full clock.
    fn restart(&mut self) -> Result<String, String> {
        if !self.started {
            return Err("ERROR RESTART: no board yet (START first)".to_string());
        }
        let g = self.session.board().geometry();
        self.session.new_game(g);
        Ok("OK".to_string())
    }

    /// `TURN X,Y`: the opponent's move played, for the brain to answer.
    fn turn(&mut self, p: Point) -> Result<(), String> {
        let board = self.ready("TURN")?.board_mut();
        let cell = p
            .cell(board.geometry())
            .ok_or_else(|| off_board("TURN", p, board))?;
        board.try_play(cell).map_err(|e| refused("TURN", p, e))?;
        match board.outcome() {
            // The opponent's move stands, but there is nothing left to
            // answer with.
            Some(outcome) => Err(format!("ERROR TURN {p}: the game is over ({outcome})")),
            None => Ok(()),
        }
    }

    /// `TAKEBACK X,Y`: the last move, if it is there, taken back.
    fn takeback(&mut self, p: Point) -> Result<String, String> {
        let board = self.ready("TAKEBACK")?.board_mut();
        match board.last_move() {
            Some(last) if Point::of(last) == p => {
                board.undo();
                Ok("OK".to_string())
            }
            Some(last) => Err(format!(
                "ERROR TAKEBACK {p}: the last move is {}",
                Point::of(last)
            )),
            None => Err(format!("ERROR TAKEBACK {p}: the board is empty")),
        }
    }

    /// `PLAY X,Y`: the brain's own move as the manager places it, echoed.
    fn play(&mut self, p: Point) -> Result<String, String> {
        let board = self.ready("PLAY")?.board_mut();
        let cell = p
            .cell(board.geometry())
            .ok_or_else(|| off_board("PLAY", p, board))?;
        board
            .try_play(cell)
            .map(|_| p.to_string())
            .map_err(|e| refused("PLAY", p, e))
    }

    /// Writes the notes gathered since the last answer, then `answer`
    /// (an `Err` holds the whole `ERROR`/`UNKNOWN` line).
    fn answer<W: Write>(&mut self, out: &mut W, answer: Result<String, String>) -> io::Result<()> {
        for note in self.notes.drain(..) {
            writeln!(out, "MESSAGE {note}")?;
        }
        if self.notes_dropped > 0 {
            let n = std::mem::take(&mut self.notes_dropped);
            writeln!(
                out,
                "MESSAGE {n} more notes dropped (only the first {MAX_NOTES} are kept)"
            )?;
        }
        match answer {
            Ok(line) | Err(line) => writeln!(out, "{line}"),
        }
    }

    /// `START`/`RECTSTART`: a fresh board, a full clock.
    fn start(&mut self, width: u32, height: u32) -> Result<String, String> {
        // Said in the protocol's own terms (width x height), the size once.
        let geometry =
            Geometry::new(height, width, self.config.k, self.rule).map_err(|e| match e {
                SizeError::Side { .. } => format!(
                    "ERROR unsupported size {width}x{height}: \
                     width and height must be from 1 to {MAX_SIDE}"
                ),
                _ => format!("ERROR unsupported size {width}x{height}: {e}"),
            })?;
        self.session.new_game(geometry);
        self.started = true;
        Ok("OK".to_string())
    }

    /// The session, ready for a move request: started, on a rule it plays
    /// (the board follows a change of `INFO rule`).
    fn ready(&mut self, what: &str) -> Result<&mut Session, String> {
        if let Some(why) = &self.unsupported {
            return Err(format!("ERROR {what}: {why}"));
        }
        if !self.started {
            return Err(format!("ERROR {what}: no board yet (START first)"));
        }
        let rule = self.rule;
        let session = &mut self.session;
        let g = session.board().geometry();
        if g.rule() != rule {
            let moves: Vec<_> = session.board().moves().collect();
            let geometry = Geometry::new(g.rows() as u32, g.cols() as u32, g.k() as u32, rule)
                .map_err(|e| format!("ERROR {what}: {e}"))?;
            let board = replay(geometry, moves.into_iter())
                .map_err(|e| format!("ERROR {what}: under the {rule} rule, {e}"))?;
            *session.board_mut() = board;
        }
        Ok(session)
    }

    /// Answers a move request whose preparation gave `ready`.
    fn move_after<W: Write>(&mut self, ready: Result<(), String>, out: &mut W) -> io::Result<()> {
        let answer = ready.and_then(|()| self.think());
        self.answer(out, answer)
    }

    /// Chooses and plays the brain's move: the point, after a `MESSAGE`
    /// with what the search found.
    fn think(&mut self) -> Result<String, String> {
        let start = Instant::now();
        let cell = self
            .session
            .choose_and_play(start)
            .map_err(|e| format!("ERROR {e}"))?;
        if let Some(report) = self.session.report().filter(|r| r.nodes > Some(0)) {
            let took = start.elapsed().as_millis();
            self.note(format!("{report} time {took}ms"));
        }
        Ok(Point::of(cell).to_string())
    }

    /// `INFO KEY VALUE`: never answered; what is ignored is said in a
    /// `MESSAGE` before the next answer.
    fn info(&mut self, key: &str, value: &str) {
        let number = value.parse::<i64>();
        let ms = |n: i64| Duration::from_millis(n.max(0) as u64);
        match (key, number) {
            ("timeout_turn", Ok(n)) if n >= 0 => {
                let movetime = per_move(Some(ms(n)), self.config.movetime_cap);
                self.session.set_movetime(movetime);
            }
            ("timeout_match", Ok(n)) if n >= 0 => {
                let clock = self.session.clock_mut();
                clock.per_game = (n > 0).then(|| ms(n));
                clock.restart();
            }
            ("time_left", Ok(n)) => {
                let left = (n < UNLIMITED_MS).then(|| ms(n));
                self.session.clock_mut().tell_left(left);
            }
            ("rule", Ok(n)) if (0..=15).contains(&n) => match rule_of_code(n as u32) {
                Ok(rule) => {
                    self.unsupported = None;
                    self.rule = rule;
                }
                Err(why) => self.unsupported = Some(why),
            },
            // Yixin's and Rapfi's search limits (0: none): the bot's `nodes`
            // and `depth`, so a node-limited game replays exactly.
            ("max_node" | "max_depth", Ok(n)) if n >= 0 => {
                let option = if key == "max_node" { "nodes" } else { "depth" };
                if let Err(e) = self.session.set_bot_option(option, &n.to_string()) {
                    self.note(format!("ignored INFO {key} '{}': {e}", clip(value)));
                }
            }
            // Yixin's -1: no limit.
            ("max_node" | "max_depth", Ok(-1)) => {
                let option = if key == "max_node" { "nodes" } else { "depth" };
                let _ = self.session.set_bot_option(option, "0");
            }
            ("max_memory", Ok(n)) if n >= 0 => self.fit_memory(n as u64),
            ("game_type" | "folder" | "evaluate", _) => {}
            (
                "timeout_turn" | "timeout_match" | "time_left" | "rule" | "max_node" | "max_depth"
                | "max_memory",
                _,
            ) => self.note(format!(
                "ignored INFO {key} '{}': not a value it takes",
                clip(value)
            )),
            // Unknown keys are ignored, as the protocol asks.
            _ => {}
        }
    }

    /// `INFO max_memory`: the `hash` setting sizes the part of the brain
    /// that grows (the table, and the threat caches kept between moves, as
    /// much again); it gets [`hash_mib_within`] the limit (a quarter, the
    /// table the largest power of two that fits, 1 MiB at least), never more
    /// than the `hash` the brain was started with or the default; 0 gives
    /// that back. Said when it shrinks.
    fn fit_memory(&mut self, bytes: u64) {
        let ceiling = self
            .config
            .options
            .iter()
            .rev()
            .find(|o| o.name == "hash")
            .and_then(|o| o.value.parse().ok())
            .unwrap_or(DEFAULT_HASH_MIB);
        let within = hash_mib_within(bytes);
        let mib = if bytes == 0 {
            ceiling
        } else {
            ceiling.min(within)
        };
        // Only the last limit told is said.
        self.notes.retain(|n| !n.starts_with("hash "));
        // The other bots keep no table: nothing to fit.
        if self.config.bot != BotKind::Minimax {
            return;
        }
        let shrunk = hash_table_mib(mib);
        if self
            .session
            .set_bot_option("hash", &mib.to_string())
            .is_ok()
            && shrunk < hash_table_mib(ceiling)
        {
            self.note(format!("hash {shrunk} MiB within INFO max_memory {bytes}"));
        }
    }

    /// Keeps a note for the next answer, or counts it as dropped once
    /// [`MAX_NOTES`] are waiting.
    fn note(&mut self, text: String) {
        if self.notes.len() < MAX_NOTES {
            self.notes.push(text);
        } else {
            self.notes_dropped += 1;
        }
    }

    /// `DONE` of a `BOARD` or `SWAP2BOARD` list.
    fn finish_list<W: Write>(&mut self, list: List, out: &mut W) -> io::Result<()> {
        if list.kind == ListKind::Swap2 {
            return self.answer(
                out,
                Err("ERROR SWAP2BOARD: kinrow does not play the swap2 opening".to_string()),
            );
        }
        let ready = match list.error {
            Some(e) => Err(format!("ERROR BOARD: {e}")),
            None => self.set_board(&list.stones),
        };
        self.move_after(ready, out)
    }

    /// Sets up the position of a `BOARD` list: the brain's stones (1) and
    /// the opponent's (2), each in the order given, the brain to move.
    fn set_board(&mut self, stones: &[(Point, Option<Field>)]) -> Result<(), String> {
        let session = self.ready("BOARD")?;
        let geometry = session.board().geometry();
        let mut own = Vec::new();
        let mut theirs = Vec::new();
        for &(p, field) in stones {
            let cell = p
                .cell(geometry)
                .ok_or_else(|| off_board("BOARD", p, session.board()))?;
            match field {
                Some(Field::Own) => own.push(cell),
                Some(Field::Opponent) => theirs.push(cell),
                Some(Field::Continuous) => {
                    return Err(format!(
                        "ERROR BOARD: {p},3 is for continuous games, which kinrow does not play"
                    ))
                }
                None => return Err(format!("ERROR BOARD: {p} has no field (1 or 2)")),
            }
        }
        // The side to move is the brain: X when both have as many stones,
        // O when the opponent has one more.
        let (x, o) = if own.len() == theirs.len() {
            (own, theirs)
        } else if theirs.len() == own.len() + 1 {
            (theirs, own)
        } else {
            return Err(format!(
                "ERROR BOARD: {} stones of the brain and {} of the opponent: the brain can't be to move",
                own.len(),
                theirs.len()
            ));
        };
        let mut order = Vec::with_capacity(x.len() + o.len());
        for (i, &stone) in x.iter().enumerate() {
            order.push(stone);
            order.extend(o.get(i));
        }
        let board = replay(geometry, order.into_iter()).map_err(|e| format!("ERROR BOARD: {e}"))?;
        if let Some(outcome) = board.outcome() {
            return Err(format!("ERROR BOARD: the game is over ({outcome})"));
        }
        session.set_position(board);
        Ok(())
    }
}

/// The longest a move may take: `INFO timeout_turn` when told, no longer
/// than `--movetime` (`cap`).
fn per_move(timeout_turn: Option<Duration>, cap: Option<Duration>) -> Duration {
    match timeout_turn {
        Some(t) => cap.map_or(t, |c| t.min(c)),
        None => cap.unwrap_or(DEFAULT_MOVETIME),
    }
}

/// A board of `geometry` with `moves` played in order; a move that is
/// illegal, or that comes after the game ended, is an error.
fn replay(
    geometry: Geometry,
    moves: impl Iterator<Item = crate::rules::Cell>,
) -> Result<Board, String> {
    let mut board = Board::new(geometry);
    for cell in moves {
        if let Some(outcome) = board.outcome() {
            return Err(format!(
                "the stones make a finished game ({outcome}) before {}",
                Point::of(cell)
            ));
        }
        board
            .try_play(cell)
            .map_err(|e| refused("", Point::of(cell), e).replacen("ERROR  ", "", 1))?;
    }
    Ok(board)
}

/// The `ERROR` for a move the rules refuse, in the protocol's terms.
fn refused(what: &str, p: Point, e: IllegalMove) -> String {
    match e {
        IllegalMove::Occupied { .. } => format!("ERROR {what} {p}: the point is taken"),
        IllegalMove::GameOver => format!("ERROR {what} {p}: the game is over"),
        IllegalMove::Forbidden { kind, .. } => {
            format!("ERROR {what} {p}: forbidden to black ({kind})")
        }
        IllegalMove::OffBoard { cols, rows, .. } => {
            format!("ERROR {what} {p}: off the {cols}x{rows} board")
        }
    }
}

/// The `ERROR` for a point off the board.
fn off_board(what: &str, p: Point, board: &Board) -> String {
    let g = board.geometry();
    format!(
        "ERROR {what} {p}: off the {}x{} board (X 0-{}, Y 0-{})",
        g.cols(),
        g.rows(),
        g.cols() - 1,
        g.rows() - 1
    )
}
