//! kinrow's protocol over the engine core: each [`Command`] turned into a
//! call of the [`Session`] (or of the solver) and its answer.

use super::lines::{answer_framed, Flow, FramedEngine};
use super::session::{BotOption, BuildBot, ChooseError, Session};
use crate::bots::{BotKind, DEFAULT_MOVETIME};
use crate::protocol::{Command, ErrorKind, ProtocolError, SearchInfo, Shape, MAX_LINE};
use crate::rules::{clip, Board, Cell, Forbidden, Geometry, IllegalMove, Outcome};
use crate::solver::{self, Budget, Solver};
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// `solve` and `analyze` without a time limit stop after this long.
pub const DEFAULT_SOLVE_TIME: Duration = Duration::from_secs(10);

/// Longest `movetime` accepted: one day.
const MAX_MOVETIME_MS: u64 = 86_400_000;

/// How an engine starts.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub geometry: Geometry,
    pub bot: BotKind,
    pub seed: u64,
    /// `None`: the default time per move.
    pub movetime: Option<Duration>,
    /// Bot options (`--set NAME=VALUE`), applied in order as `set` would.
    pub options: Vec<BotOption>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            geometry: Geometry::TIC_TAC_TOE,
            bot: BotKind::Minimax,
            seed: 0,
            movetime: None,
            options: Vec::new(),
        }
    }
}

/// The engine behind kinrow's protocol: the core [`Session`], and the
/// solver for `solve` and `analyze`.
pub struct Engine {
    session: Session,
    /// For `solve` and `analyze`, made on first use.
    solver: Option<Solver>,
}

impl Engine {
    /// An engine with an empty board.
    pub fn new(config: EngineConfig) -> Engine {
        let mut session = Session::new(
            config.geometry,
            config.bot,
            config.seed,
            config.movetime.unwrap_or(DEFAULT_MOVETIME),
            BuildBot::AtOnce,
        );
        // Checked by `EngineArgs::check`, or empty.
        let _ = session.set_bot_options(&config.options);
        Engine {
            session,
            solver: None,
        }
    }

    /// The current game.
    pub fn board(&self) -> &Board {
        self.session.board()
    }

    /// Answers requests from `input` on `output` until `quit` or end of input.
    /// Each response is flushed before the engine waits for more input or
    /// starts a search, so pipelined requests cost one write, not one each.
    pub fn run<R: Read, W: Write>(&mut self, input: R, output: W) -> io::Result<()> {
        answer_framed(self, input, output)
    }

    /// Answers one command as the loop would (a front end that keeps an
    /// engine in process as its arbiter: `kinrow serve`). `quit` only
    /// answers; ending is the caller's business.
    pub fn respond(&mut self, command: Command) -> Result<String, ProtocolError> {
        self.answer(command).0
    }

    /// `newgame`: an empty board (of `shape`, else of the current size).
    pub fn new_game(&mut self, shape: Option<Shape>) -> Result<String, ProtocolError> {
        let current = self.board().geometry();
        let geometry = match shape {
            None => current,
            Some(Shape {
                rows,
                cols,
                k,
                rule,
            }) => Geometry::new(rows, cols, k, rule.unwrap_or(current.rule()))
                .map_err(|e| ProtocolError::new(ErrorKind::UnacceptableSize, e.to_string()))?,
        };
        self.session.new_game(geometry);
        Ok(String::new())
    }

    /// `move R C`, 1-based.
    pub fn play(&mut self, row: u32, col: u32) -> Result<String, ProtocolError> {
        let illegal = |e: IllegalMove| ProtocolError::new(ErrorKind::IllegalMove, e.to_string());
        let board = self.session.board_mut();
        let g = board.geometry();
        let Some(cell) = Cell::from_one_based(row, col) else {
            if board.is_over() {
                return Err(illegal(IllegalMove::GameOver));
            }
            return Err(ProtocolError::new(
                ErrorKind::IllegalMove,
                format!("{row} {col} is off the {}x{} board", g.rows(), g.cols()),
            ));
        };
        board.try_play(cell).map_err(illegal)?;
        Ok(String::new())
    }

    /// What the bot's search for the last `genmove` found (`search_info`).
    pub fn search_info(&self) -> SearchInfo {
        self.session.report().unwrap_or_default()
    }

    /// `genmove` as a front end that keeps the engine in process calls it
    /// (the referee's `--in-process`): the same steps as the line, the
    /// chosen cell played and returned.
    pub fn gen_move(&mut self) -> Result<Cell, ProtocolError> {
        self.gen_move_from(Instant::now())
    }

    /// [`Engine::gen_move`] for a request that arrived at `start` (a caller
    /// that has just read the clock saves reading it again).
    pub fn gen_move_from(&mut self, start: Instant) -> Result<Cell, ProtocolError> {
        match self.session.choose_and_play(start) {
            Ok(cell) => Ok(cell),
            Err(e @ ChooseError::GameOver(_)) => {
                Err(ProtocolError::new(ErrorKind::GameOver, e.to_string()))
            }
            Err(e @ ChooseError::Illegal { .. }) => {
                Err(ProtocolError::new(ErrorKind::IllegalMove, e.to_string()))
            }
        }
    }

    /// Checks that the position can be solved; the deadline of the request.
    fn solve_deadline(&self, limit: Option<Duration>) -> Result<Option<Instant>, ProtocolError> {
        if let Some(outcome) = self.board().outcome() {
            return Err(ProtocolError::new(
                ErrorKind::GameOver,
                format!("the game is over ({outcome})"),
            ));
        }
        if let Some(e) = Solver::refusal(self.board().geometry()) {
            return Err(ProtocolError::new(
                ErrorKind::UnacceptableSize,
                e.to_string(),
            ));
        }
        let limit = limit.unwrap_or(DEFAULT_SOLVE_TIME);
        Ok((!limit.is_zero()).then(|| Instant::now() + limit))
    }

    /// The solver, made on first use.
    fn solver(&mut self) -> &mut Solver {
        self.solver
            .get_or_insert_with(|| Solver::new(solver::DEFAULT_TABLE_MIB))
    }

    /// `solve`: `win N R C`, `draw R C`, `loss N R C` or `unknown`.
    fn solve(&mut self, limit: Option<Duration>) -> Result<String, ProtocolError> {
        let deadline = self.solve_deadline(limit)?;
        let board = self.board().clone();
        let report = self
            .solver()
            .solve(&board, Budget::until_maybe(deadline))
            .map_err(|e| ProtocolError::new(ErrorKind::UnacceptableSize, e.to_string()))?;
        Ok(match (report.value, report.best) {
            (Some(v), Some(cell)) => format!("{v} {cell}"),
            _ => "unknown".to_string(),
        })
    }

    /// `analyze`: one line per legal move, `R C win N`, `R C draw`, `R C
    /// loss N` or `R C unknown`, in row-major order.
    fn analyze(&mut self, limit: Option<Duration>) -> Result<String, ProtocolError> {
        let deadline = self.solve_deadline(limit)?;
        let board = self.board().clone();
        let analysis = self
            .solver()
            .analyze(&board, Budget::until_maybe(deadline))
            .map_err(|e| ProtocolError::new(ErrorKind::UnacceptableSize, e.to_string()))?;
        let lines: Vec<String> = analysis
            .moves
            .iter()
            .map(|(cell, v)| match v {
                Some(v) => format!("{cell} {v}"),
                None => format!("{cell} unknown"),
            })
            .collect();
        Ok(lines.join("\n"))
    }

    fn set(&mut self, name: &str, value: &str) -> Result<(), ProtocolError> {
        let bad = |reason: String| {
            ProtocolError::new(ErrorKind::InvalidOption, format!("{name}: {reason}"))
        };
        match name {
            "bot" => {
                let kind: BotKind = value.parse().map_err(|e: crate::bots::UnknownBot| {
                    ProtocolError::new(ErrorKind::InvalidOption, e.to_string())
                })?;
                self.session.set_bot(kind);
            }
            "seed" => {
                let seed: u64 = value
                    .parse()
                    .map_err(|_| bad(format!("'{}' is not a whole number", clip(value))))?;
                self.set_seed(seed);
            }
            "movetime" => {
                let ms: u64 = value
                    .parse()
                    .ok()
                    .filter(|ms| (1..=MAX_MOVETIME_MS).contains(ms))
                    .ok_or_else(|| {
                        bad(format!(
                            "'{}' is not a number of milliseconds from 1 to {MAX_MOVETIME_MS}",
                            clip(value)
                        ))
                    })?;
                self.set_movetime(Duration::from_millis(ms));
            }
            "timeleft" => {
                let ms: u64 = value
                    .parse()
                    .ok()
                    .filter(|ms| *ms <= MAX_MOVETIME_MS)
                    .ok_or_else(|| {
                        bad(format!(
                            "'{}' is not a number of milliseconds from 0 to {MAX_MOVETIME_MS}",
                            clip(value)
                        ))
                    })?;
                self.set_time_left(Duration::from_millis(ms));
            }
            _ => {
                self.session
                    .set_bot_option(name, value)
                    .map_err(|e| ProtocolError::new(ErrorKind::InvalidOption, e.to_string()))?;
            }
        }
        Ok(())
    }

    /// `set seed`: the bot's generator restarts from `seed`.
    pub fn set_seed(&mut self, seed: u64) {
        self.session.set_seed(seed);
    }

    /// `set movetime` (checked by the caller: 1 ms to a day).
    pub fn set_movetime(&mut self, movetime: Duration) {
        self.session.set_movetime(movetime);
    }

    /// `set timeleft`: what is left on this side's game clock (until the
    /// next `newgame`), counted down by each move's time until told again;
    /// moves then get a share of it.
    pub fn set_time_left(&mut self, left: Duration) {
        self.session.clock_mut().tell_left(Some(left));
    }

    fn show(&self) -> String {
        let board = self.board();
        let status = match board.outcome() {
            None => format!("{} to move", board.to_move()),
            Some(Outcome::Draw) => "draw".to_string(),
            Some(Outcome::Win { winner, line }) => {
                format!("{winner} wins: {}", join_cells(line.cells()))
            }
        };
        let forbidden = board.forbidden_cells();
        if forbidden.is_empty() {
            return format!("\n{board}\n{status}");
        }
        format!(
            "\n{board}\n{status}; # forbidden to {}: {}",
            board.to_move(),
            forbidden_list(&forbidden).join(", ")
        )
    }
}

impl FramedEngine for Engine {
    type Command = Command;

    fn parse(name: &str, args: &[&str]) -> Result<Command, ProtocolError> {
        Command::parse(name, args)
    }

    fn too_long() -> ProtocolError {
        ProtocolError::new(
            ErrorKind::Syntax,
            format!("line too long (over {MAX_LINE} bytes)"),
        )
    }

    fn thinks(&self, command: &Command) -> bool {
        match command {
            Command::GenMove => self.session.searches(),
            Command::Solve(_) | Command::Analyze(_) => true,
            _ => false,
        }
    }

    fn answer(&mut self, command: Command) -> (Result<String, ProtocolError>, Flow) {
        let result = match command {
            Command::Quit => return (Ok(String::new()), Flow::Quit),
            Command::NewGame(shape) => self.new_game(shape),
            Command::Move { row, col } => self.play(row, col),
            Command::GenMove => self.gen_move().map(|cell| cell.to_string()),
            Command::Show => Ok(self.show()),
            Command::Status => Ok(status_text(self.board())),
            Command::Undo => match self.session.board_mut().undo() {
                Some(_) => Ok(String::new()),
                None => Err(ProtocolError::new(
                    ErrorKind::CannotUndo,
                    "the board is empty",
                )),
            },
            Command::Legal => Ok(join_cells(self.board().legal_moves())),
            Command::Forbidden => Ok(forbidden_text(self.board())),
            Command::Set { name, value } => self.set(&name, &value).map(|()| String::new()),
            Command::ProtocolVersion => Ok("2".into()),
            Command::Name => Ok("kinrow".into()),
            Command::Version => Ok(env!("CARGO_PKG_VERSION").into()),
            Command::KnownCommand(name) => Ok(Command::NAMES.known(&name)),
            Command::ListCommands => Ok(Command::NAMES.list()),
            Command::Solve(limit) => self.solve(limit),
            Command::Analyze(limit) => self.analyze(limit),
            Command::SearchInfo => Ok(self.search_info().to_string()),
        };
        (result, Flow::Continue)
    }
}

/// `status`: `ongoing X`, `win O R C …` or `draw`.
pub fn status_text(board: &Board) -> String {
    match board.outcome() {
        None => format!("ongoing {}", board.to_move()),
        Some(outcome) => outcome.to_string(),
    }
}

/// `forbidden`: one line `R C KIND` for each cell forbidden to the side to
/// move, in row-major order (nothing unless renju's Black is to move).
pub fn forbidden_text(board: &Board) -> String {
    forbidden_list(&board.forbidden_cells()).join("\n")
}

/// Each forbidden cell as `R C KIND`.
fn forbidden_list(cells: &[(Cell, Forbidden)]) -> Vec<String> {
    cells
        .iter()
        .map(|(cell, kind)| format!("{cell} {kind}"))
        .collect()
}

fn join_cells(cells: impl Iterator<Item = Cell>) -> String {
    let mut s = String::new();
    for c in cells {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&c.to_string());
    }
    s
}
