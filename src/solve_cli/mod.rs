//! `kinrow solve`: the command-line front end of the [`crate::solver`].
//!
//! Proves the value of a position (the empty board or one after `--moves`),
//! a best move and the principal line, and with `--analyze` the value of
//! every move as a map of the board. Progress goes to stderr once a proof
//! takes more than a moment; Ctrl-C (or SIGTERM, SIGHUP) or `--time-limit`
//! stops the search and reports what is proved so far — after a signal,
//! with its exit status, 128 + the signal (see [`crate::sys::signals`]).

mod output;

use crate::cli::ShapeArgs;
use crate::rules::{Board, BoardSize, Cell, Geometry};
use crate::solver::{Budget, Progress, Solver};
use crate::sys::signals::{SignalHandlerKind, Stop};
use anyhow::{bail, Context};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub use output::Findings;

/// Options of `kinrow solve`.
#[derive(Args, Debug, Clone, Default)]
#[command(after_help = SOLVE_HELP)]
pub struct SolveArgs {
    /// Board size, ROWSxCOLS (up to 64 cells), like 5x5; or give --board.
    #[arg(value_name = "ROWSxCOLS")]
    pub size: Option<BoardSize>,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Moves already played, X first: 'R C R C …' (1-based).
    #[arg(long, value_name = "'R C R C …'", default_value = "")]
    pub moves: String,
    /// Also prove the value of every legal move.
    #[arg(long)]
    pub analyze: bool,
    /// Stop after this many seconds and report what is proved so far.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Size of the transposition table in MiB.
    #[arg(long, value_name = "MIB", default_value = "64", value_parser = parse_hash)]
    pub hash: u64,
}

const SOLVE_HELP: &str = "\
Values are for the side to move: `win N` (its winning stone is the N-th ply
from now, with the winner hurrying and the loser holding out), `draw`, or
`loss N`. The map of --analyze marks each empty cell W9, D or L12 (? where
not proved in time).
Examples:
  kinrow solve 5x5 --k 4
  kinrow solve 3x3 --moves '2 2 1 1' --analyze
  kinrow solve 7x7 --k 5 --time-limit 60 --json";

/// `--hash`: 1 to 65536 MiB, and no more than the machine has available.
fn parse_hash(s: &str) -> Result<u64, String> {
    let mib = s
        .parse::<u64>()
        .ok()
        .filter(|m| (1..=65536).contains(m))
        .ok_or_else(|| {
            format!(
                "'{}' is not a number of MiB from 1 to 65536",
                crate::rules::clip(s)
            )
        })?;
    crate::sys::memory::check_mib(mib)?;
    Ok(mib)
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    crate::cli::parse_seconds(s, crate::cli::SecondsRange::LIMIT).map_err(|e| e.to_string())
}

impl SolveArgs {
    /// The checked shape: the positional size or `--board`, with `--k` and `--rule`.
    pub fn geometry(&self) -> anyhow::Result<Geometry> {
        let mut shape = self.shape;
        match (self.size, shape.board) {
            (Some(_), Some(_)) => bail!("give the board size once: ROWSxCOLS or --board"),
            (Some(size), None) => shape.board = Some(size),
            _ => {}
        }
        Ok(shape.geometry()?)
    }

    /// The position: the board after `--moves`.
    pub fn position(&self) -> anyhow::Result<Board> {
        let geometry = self.geometry()?;
        if let Some(refusal) = Solver::refusal(geometry) {
            bail!("{refusal}");
        }
        let mut board = Board::new(geometry);
        let words: Vec<&str> = self.moves.split_whitespace().collect();
        if words.len() % 2 == 1 {
            bail!("--moves: a move is a row and a column; an odd number of numbers was given");
        }
        for (i, pair) in words.chunks(2).enumerate() {
            let text = pair.join(" ");
            let cell: Cell = text
                .parse()
                .map_err(|e| anyhow::anyhow!("--moves: move {} '{text}': {e}", i + 1))?;
            board
                .try_play(cell)
                .map_err(|e| anyhow::anyhow!("--moves: move {} '{text}': {e}", i + 1))?;
        }
        Ok(board)
    }
}

/// Progress lines on stderr, at most one a second, after the first second.
struct Ticker {
    start: Instant,
    last: Duration,
    terminal: bool,
    shown: bool,
}

impl Ticker {
    fn show(&mut self, p: &Progress) {
        let now = self.start.elapsed();
        if now < Duration::from_secs(1) || now - self.last < Duration::from_secs(1) {
            return;
        }
        self.last = now;
        let rate = p.nodes as f64 / p.elapsed.as_secs_f64().max(1e-9);
        let line = format!(
            "{:>7.1} s  {:>13} nodes  {:>6.2} M/s  {}",
            now.as_secs_f64(),
            output::grouped(p.nodes),
            rate / 1e6,
            p.question
        );
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
        self.shown = true;
    }

    fn finish(&self) {
        if self.terminal && self.shown {
            eprintln!();
        }
    }
}

/// Runs `kinrow solve`.
pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    let board = args.position()?;
    if let Some(outcome) = board.outcome() {
        bail!("--moves: the game is already over ({outcome})");
    }
    // A stop signal stops the search (a second one ends us at once).
    let signals = Stop::install(SignalHandlerKind::Standard);
    let stop = &**signals.flag();
    let start = Instant::now();
    let deadline = args.time_limit.map(|t| start + t);
    let mut ticker = Ticker {
        start,
        last: Duration::ZERO,
        terminal: std::io::stderr().is_terminal(),
        shown: false,
    };
    let mut solver = Solver::new(args.hash as usize);
    let mut show = |p: &Progress| ticker.show(p);
    let budget = Budget {
        deadline,
        stop: Some(stop),
        progress: Some(&mut show),
    };
    let report = solver.solve(&board, budget).context("solving")?;
    let mut outcome = Findings::new(&board, report);
    let budget = |progress| Budget {
        deadline,
        stop: Some(stop),
        progress,
    };
    if outcome.report.value.is_some() {
        outcome.line = solver.principal_line(&board, board.geometry().area(), budget(None));
    }
    if args.analyze && !signals.requested() {
        let mut show = |p: &Progress| ticker.show(p);
        outcome.analysis = Some(solver.analyze(&board, budget(Some(&mut show)))?);
    }
    outcome.seconds = start.elapsed().as_secs_f64();
    outcome.cpu_seconds = crate::sys::cpu_seconds();
    outcome.interrupted = signals.requested();
    ticker.finish();
    let text = if args.json {
        outcome.json()
    } else {
        outcome.text()
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    if let Some(code) = signals.exit_code() {
        // Reported; now as if the signal had ended us.
        out.flush()?;
        std::process::exit(i32::from(code));
    }
    Ok(())
}
