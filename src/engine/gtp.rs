//! `kinrow --protocol gtp`: GTP version 2 with Go-style vertices and GoGui's
//! `gogui-rules_*` commands, so that GoGui shows and plays any square m,n,k
//! board with one binary as both player and ruler (see docs/gui.md).
//!
//! What GoGui needs, and how it is met here:
//! - the ruler never gets `boardsize`: started with `--board`, size, K and
//!   rule come from the command line, and `boardsize` accepts only that size
//!   (so a player and a ruler of one command line agree); started without
//!   it, the engine takes its board from `boardsize` (K from `--k`, else
//!   min(5, N)), as GTP controllers without a ruler expect;
//! - `gogui-rules_board` is rows of `X`/`O`/`.`, top row first, no labels;
//!   `gogui-rules_legal_moves` lists upper-case vertices, and is empty once
//!   the game is over; `gogui-rules_board_size` is a bare integer;
//! - every ruler command is a lookup on the board (microseconds): GoGui
//!   replays the whole game into the ruler after every move;
//! - duplicate `play` commands are refused (wrong colour) and change nothing;
//! - the bot is built at the first `genmove`, so a copy used only as a ruler
//!   starts at once;
//! - with a clock set in GoGui, `time_left` (sent before each `genmove` to an
//!   engine that lists it) goes to the game clock: a move then takes at most
//!   a share of what is left (of a byo-yomi period over its stones), and
//!   never more than `--movetime`.
//!
//! What match tools (`gogui-twogtp`) need: once the game is over, `genmove`
//! answers `resign` for the side that lost and `pass` otherwise (a full
//! board, or the winner asked again), `play COLOR pass` is taken, and
//! `final_score` gives the result as GTP scores it: `B+`, `W+` or `0`.

use super::kinrow::EngineConfig;
use super::lines::{answer_framed, Flow, FramedEngine};
use super::session::{BuildBot, Session};
use crate::bots::DEFAULT_MOVETIME;
use crate::protocol::gtp::{GtpCommand, GtpMove, Vertex, MAX_GTP_SIDE};
use crate::protocol::{ErrorKind, ProtocolError};
use crate::rules::{Board, Cell, Geometry, Outcome, Player, Rule};
use std::fmt::{self, Write as _};
use std::io::{self, Read, Write};
use std::time::Instant;

/// A board GTP can't play: GTP boards are square (`boardsize N`), and its
/// vertices name 25 columns at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GtpBoardError {
    NotSquare { rows: usize, cols: usize },
    TooWide { side: usize },
}

impl fmt::Display for GtpBoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GtpBoardError::NotSquare { rows, cols } => write!(
                f,
                "{rows}x{cols}: GTP boards are square (GoGui draws only squares)"
            ),
            GtpBoardError::TooWide { side } => write!(
                f,
                "{side}x{side}: GTP vertices name {MAX_GTP_SIDE} columns at most (A-Z without I)"
            ),
        }
    }
}
impl std::error::Error for GtpBoardError {}

/// Where a GTP engine's board comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardSource {
    /// `--board`: this board only; `boardsize` takes only its size.
    CommandLine,
    /// No `--board`: `boardsize N` sets an NxN board, of K `k` (`--k`), or
    /// min(5, N) without it.
    BoardSize { k: Option<u32> },
}

/// How a GTP engine starts: the engine's config (its board the one until
/// `boardsize`) and where later boards come from.
#[derive(Clone, Debug)]
pub struct GtpConfig {
    pub engine: EngineConfig,
    pub board: BoardSource,
}

/// The board before any `boardsize` when none was given: the default 3x3
/// when K fits it, else gomoku's 15x15 (or KxK for K over 15).
pub fn board_before_boardsize(k: Option<u32>) -> u32 {
    match k {
        Some(k) if k > 3 => k.max(15),
        _ => 3,
    }
}

/// Whether a board can be played over GTP.
pub fn check_board(geometry: Geometry) -> Result<(), GtpBoardError> {
    let (rows, cols) = (geometry.rows(), geometry.cols());
    if rows != cols {
        return Err(GtpBoardError::NotSquare { rows, cols });
    }
    if rows > MAX_GTP_SIDE {
        return Err(GtpBoardError::TooWide { side: rows });
    }
    Ok(())
}

/// The engine behind GTP: the core [`Session`], its bot built at the first
/// `genmove`.
pub struct GtpEngine {
    session: Session,
    board_source: BoardSource,
    /// Passes played since the game ended (a match tool's `pass`es), which
    /// `undo` takes back before any stone.
    passes: u32,
}

/// Black is kinrow's X (it moves first), white is O.
fn color_name(p: Player) -> &'static str {
    match p {
        Player::X => "black",
        Player::O => "white",
    }
}

impl GtpEngine {
    /// An engine on an empty board of the config's shape (checked with
    /// [`check_board`] by the caller).
    pub fn new(config: GtpConfig) -> GtpEngine {
        let engine = config.engine;
        let movetime = engine.movetime.unwrap_or(DEFAULT_MOVETIME);
        let (geometry, bot, seed) = (engine.geometry, engine.bot, engine.seed);
        let mut session = Session::new(geometry, bot, seed, movetime, BuildBot::AtFirstMove);
        // Checked by `EngineArgs::check`, or empty.
        let _ = session.set_bot_options(&engine.options);
        GtpEngine {
            session,
            board_source: config.board,
            passes: 0,
        }
    }

    /// A new empty game on `geometry`.
    fn new_game(&mut self, geometry: Geometry) {
        self.session.new_game(geometry);
        self.passes = 0;
    }

    /// `boardsize N`: a new game on an NxN board, if this engine takes it.
    fn board_size(&mut self, n: u32) -> Result<String, ProtocolError> {
        let g = self.board().geometry();
        let refuse = |why: String| ProtocolError::new(ErrorKind::UnacceptableSize, why);
        let geometry = match self.board_source {
            BoardSource::CommandLine if n as usize == g.rows() => g,
            BoardSource::CommandLine => {
                return Err(refuse(format!(
                    "{n}: this engine plays {}x{}, its --board (start it with --board {n}x{n}, or without --board to take the size from boardsize)",
                    g.rows(),
                    g.cols()
                )))
            }
            BoardSource::BoardSize { k } => {
                let k = k.unwrap_or_else(|| Geometry::default_k(n, n));
                let geometry = Geometry::new(n, n, k, g.rule())
                    .map_err(|e| refuse(format!("{n}: {e}")))?;
                check_board(geometry).map_err(|e| refuse(e.to_string()))?;
                geometry
            }
        };
        self.new_game(geometry);
        Ok(String::new())
    }

    /// The current game.
    pub fn board(&self) -> &Board {
        self.session.board()
    }

    /// Answers GTP requests from `input` on `output` until `quit` or the
    /// end of input.
    pub fn run<R: Read, W: Write>(&mut self, input: R, output: W) -> io::Result<()> {
        answer_framed(self, input, output)
    }

    fn illegal(message: String) -> ProtocolError {
        ProtocolError::new(ErrorKind::IllegalMove, message)
    }
    /// `play COLOR VERTEX`: only the side to move, only empty points on the
    /// board, no pass, nothing after the end; a refusal changes nothing.
    fn play(&mut self, color: Player, m: GtpMove) -> Result<(), ProtocolError> {
        let board = self.session.board_mut();
        let g = board.geometry();
        if board.is_over() && m == GtpMove::Pass {
            // A match tool passes on the other side's `pass`: nothing is
            // left to play, so either colour may.
            self.passes += 1;
            return Ok(());
        }
        if let Some(outcome) = board.outcome() {
            return Err(Self::illegal(format!(
                "the game is over ({})",
                result_text(outcome, g)
            )));
        }
        if color != board.to_move() {
            return Err(Self::illegal(format!(
                "it is {}'s turn",
                color_name(board.to_move())
            )));
        }
        let GtpMove::Vertex(v) = m else {
            return Err(Self::illegal("passing is not a move in k-in-a-row".into()));
        };
        let cell = v.cell(g).ok_or_else(|| {
            Self::illegal(format!("{v} is off the {}x{} board", g.rows(), g.cols()))
        })?;
        if board.stone_at(cell).is_some() {
            return Err(Self::illegal(format!("{v} is occupied")));
        }
        if let Some(kind) = board.forbidden(cell) {
            return Err(Self::illegal(format!("{v} is forbidden to black ({kind})")));
        }
        board
            .try_play(cell)
            .map(|_| ())
            .map_err(|e| Self::illegal(e.to_string()))
    }

    /// `genmove COLOR`: the bot's move for the side to move, played; once
    /// the game is over, `resign` for the side that lost, else `pass`.
    fn genmove(&mut self, color: Player) -> Result<String, ProtocolError> {
        let board = self.session.board();
        let g = board.geometry();
        match board.outcome() {
            Some(Outcome::Win { winner, .. }) if winner != color => return Ok("resign".into()),
            Some(_) => {
                self.passes += 1;
                return Ok("pass".into());
            }
            None => {}
        }
        if color != board.to_move() {
            return Err(Self::illegal(format!(
                "it is {}'s turn",
                color_name(board.to_move())
            )));
        }
        let cell = self
            .session
            .choose_and_play(Instant::now())
            .map_err(|e| Self::illegal(e.to_string()))?;
        Ok(Vertex::of(cell, g).to_string())
    }

    /// `final_score`: the result as GTP writes scores (`B+`, `W+`, `0`;
    /// k-in-a-row has no margin), once the game is over.
    fn final_score(&self) -> Result<String, ProtocolError> {
        match self.board().outcome() {
            Some(Outcome::Win { winner, .. }) => Ok(match winner {
                Player::X => "B+".into(),
                Player::O => "W+".into(),
            }),
            Some(Outcome::Draw) => Ok("0".into()),
            None => Err(ProtocolError::new(
                ErrorKind::CannotScore,
                format!(
                    "the game is not over ({} to move)",
                    color_name(self.board().to_move())
                ),
            )),
        }
    }

    /// `undo`: the last pass after the end, else the last stone.
    fn undo(&mut self) -> Result<String, ProtocolError> {
        if self.passes > 0 {
            self.passes -= 1;
            return Ok(String::new());
        }
        match self.session.board_mut().undo() {
            Some(_) => Ok(String::new()),
            None => Err(ProtocolError::new(
                ErrorKind::CannotUndo,
                "the board is empty",
            )),
        }
    }

    /// `gogui-rules_board`: one row a line, top row first, `X`/`O`/`.`
    /// separated by spaces and nothing else (GoGui reads every `X` and `O`
    /// as a stone, so there are no labels).
    fn rules_board(&self) -> String {
        let board = self.board();
        let g = board.geometry();
        let mut s = String::with_capacity(2 * g.area() + g.rows());
        for r in 0..g.rows() {
            if r > 0 {
                s.push('\n');
            }
            for c in 0..g.cols() {
                if c > 0 {
                    s.push(' ');
                }
                s.push(match board.stone_at(Cell::new(r as u8, c as u8)) {
                    Some(p) => p.letter(),
                    None => '.',
                });
            }
        }
        s
    }

    /// `showboard`: the board for people, with Go-style labels.
    fn show(&self) -> String {
        let board = self.board();
        let g = board.geometry();
        let letters: String = (0..g.cols())
            .map(|c| format!(" {}", Vertex::letter(c)))
            .collect();
        let mut s = format!("\n   {letters}");
        for r in 0..g.rows() {
            let n = g.rows() - r;
            let _ = write!(s, "\n{n:>2} ");
            for c in 0..g.cols() {
                let ch = board
                    .stone_at(Cell::new(r as u8, c as u8))
                    .map_or('.', |p| p.letter());
                let _ = write!(s, " {ch}");
            }
            let _ = write!(s, " {n}");
        }
        let _ = write!(s, "\n   {letters}\n{}", self.final_result());
        s
    }

    /// `gogui-rules_final_result`: the result in words.
    fn final_result(&self) -> String {
        let board = self.board();
        match board.outcome() {
            Some(outcome) => result_text(outcome, board.geometry()),
            None => format!(
                "The game is not over: {} to move.",
                color_name(board.to_move())
            ),
        }
    }
}

impl FramedEngine for GtpEngine {
    type Command = GtpCommand;

    fn parse(name: &str, args: &[&str]) -> Result<GtpCommand, ProtocolError> {
        GtpCommand::parse(name, args)
    }

    fn too_long() -> ProtocolError {
        ProtocolError::new(ErrorKind::Syntax, "line too long")
    }

    fn thinks(&self, command: &GtpCommand) -> bool {
        matches!(command, GtpCommand::GenMove(_))
    }

    fn answer(&mut self, command: GtpCommand) -> (Result<String, ProtocolError>, Flow) {
        let g = self.board().geometry();
        let result = match command {
            GtpCommand::Quit => return (Ok(String::new()), Flow::Quit),
            GtpCommand::ProtocolVersion => Ok("2".into()),
            GtpCommand::Name => Ok("kinrow".into()),
            GtpCommand::Version => Ok(env!("CARGO_PKG_VERSION").into()),
            GtpCommand::KnownCommand(name) => Ok(GtpCommand::NAMES.known(&name)),
            GtpCommand::ListCommands => Ok(GtpCommand::NAMES.list()),
            GtpCommand::BoardSize(n) => self.board_size(n),
            GtpCommand::ClearBoard => {
                self.new_game(g);
                Ok(String::new())
            }
            GtpCommand::Komi => Ok(String::new()),
            GtpCommand::Play(color, m) => self.play(color, m).map(|()| String::new()),
            GtpCommand::GenMove(color) => self.genmove(color),
            // GoGui tells the side to move just before its `genmove`.
            GtpCommand::TimeLeft { left, stones, .. } => {
                let moves = (stones > 0).then_some(stones);
                self.session.clock_mut().tell_left_for(Some(left), moves);
                Ok(String::new())
            }
            GtpCommand::Undo => self.undo(),
            GtpCommand::FinalScore => self.final_score(),
            GtpCommand::ShowBoard => Ok(self.show()),
            GtpCommand::RulesGameId => Ok(game_id(g).into()),
            GtpCommand::RulesBoard => Ok(self.rules_board()),
            GtpCommand::RulesBoardSize => Ok(g.rows().to_string()),
            GtpCommand::RulesLegalMoves => {
                let board = self.board();
                let mut s = String::with_capacity(4 * g.area());
                for cell in board.legal_moves() {
                    if !s.is_empty() {
                        s.push(' ');
                    }
                    let _ = write!(s, "{}", Vertex::of(cell, g));
                }
                Ok(s)
            }
            GtpCommand::RulesSideToMove => Ok(color_name(self.board().to_move()).into()),
            GtpCommand::RulesFinalResult => Ok(self.final_result()),
        };
        (result, Flow::Continue)
    }
}

/// `Black wins (5 in a row: H8 J9 K10 L11 M12).` or
/// `Draw (the board is full).`
fn result_text(outcome: Outcome, g: Geometry) -> String {
    match outcome {
        Outcome::Draw => "Draw (the board is full).".into(),
        Outcome::Win { winner, line } => {
            let cells: Vec<String> = line.cells().map(|c| Vertex::of(c, g).to_string()).collect();
            let who = if winner == Player::X {
                "Black"
            } else {
                "White"
            };
            format!("{who} wins ({} in a row: {}).", line.len(), cells.join(" "))
        }
    }
}

/// `gogui-rules_game_id`: the game's name as GoGui shows it.
fn game_id(g: Geometry) -> &'static str {
    match (g.rule(), g.k()) {
        (Rule::Renju, _) => "Renju",
        (Rule::Caro | Rule::CaroExact, _) => "Caro",
        (_, 5) => "Gomoku",
        _ => "Kinrow",
    }
}
