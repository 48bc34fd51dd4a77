//! `kinrow play`: the terminal front end, a protocol client like any GUI.
//!
//! People type moves; every other side is an engine process driven through
//! the protocol ([`crate::client::EngineProcess`]): by default this very
//! binary started as `kinrow --bot NAME`, or any program given with
//! `--x-engine`/`--o-engine`. The board and the verdict come from the front
//! end's own rules core, which checks every move an engine sends.
//!
//! - [`setup`]: who plays and on which board, from flags or the [`menu`].
//! - [`game`]: one game; [`session`]: games in a row with the score.
//! - [`render`], [`input`], [`console`]: the board, the typed moves, the terminal.
//!
//! Ctrl-C (or SIGTERM, or a closed terminal) ends the session in order:
//! the engines are ended, then `kinrow play` ends by the signal, as if it
//! had not been caught (see [`crate::sys::signals`]).

pub mod console;
pub mod game;
pub mod input;
pub mod menu;
pub mod render;
pub mod score;
pub mod session;
pub mod setup;

use crate::cli::ShapeArgs;
use crate::client::{parse_seconds, EngineCommand, SeatSpec};
use crate::sys::reaper::Reaper;
use crate::sys::signals::Stop;
use anyhow::Context;
use clap::Args;
use console::Console;
use render::Style;
use setup::Setup;
use std::io::{BufReader, IsTerminal};
use std::sync::Arc;
use std::time::Duration;

/// Options of `kinrow play`. Any of the game options (board, K, rule,
/// players, engines) skips the menu; what is not given takes its default.
#[derive(Args, Debug, Clone, Default)]
#[command(after_help = KEYS_HELP)]
pub struct PlayArgs {
    /// Who plays X (moves first): human, or a bot (random, blocking, minimax,
    /// mcts).
    /// Default: human.
    #[arg(long, value_name = "PLAYER", value_parser = SeatSpec::parse_player, conflicts_with = "x_engine")]
    pub x: Option<SeatSpec>,
    /// Who plays O: human, or a bot. Default: minimax.
    #[arg(long, value_name = "PLAYER", value_parser = SeatSpec::parse_player, conflicts_with = "o_engine")]
    pub o: Option<SeatSpec>,
    /// An engine program that plays X, e.g. 'python3 bots/random.py'
    /// (split into words like a shell would, but run without one);
    /// 'gomocup:COMMAND', or a program named pbrain-*, is a Gomocup brain.
    #[arg(long, value_name = "COMMAND", value_parser = parse_engine)]
    pub x_engine: Option<EngineCommand>,
    /// An engine program that plays O.
    #[arg(long, value_name = "COMMAND", value_parser = parse_engine)]
    pub o_engine: Option<EngineCommand>,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Seed of the bots' random choices, so a game can be replayed
    /// (default: a fresh one, shown at the start).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Thinking time per move for the built-in bots, in milliseconds
    /// (also sent to other engines as `set movetime`).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// Longest wait for any answer of an engine, in seconds (on top of
    /// --movetime).
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Longest wait for a freshly started engine to answer, in seconds
    /// (default: 10, or --timeout if longer).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub startup_timeout: Option<Duration>,
    /// Pause after each move when two bots play, in milliseconds
    /// (default: 500 in a terminal, 0 otherwise).
    #[arg(long, value_name = "MS")]
    pub delay: Option<u64>,
}

fn parse_engine(s: &str) -> Result<EngineCommand, String> {
    EngineCommand::parse(s).map_err(|e| e.to_string())
}

const KEYS_HELP: &str = "\
At the move prompt: `R C` (1-based, like `2 1`), on 3x3 also a cell number 1-9;
u takes back your last move (and the bot's reply), a shows a hint (the solver's
value of every move, on boards of up to 64 cells), q leaves the game, h helps.
Examples:
  kinrow play                                    (the menu)
  kinrow play --o minimax                        (you are X against minimax)
  kinrow play --board 16x16 --k 5 --x human --o human
  kinrow play --o-engine 'python3 bots/random.py'";

impl PlayArgs {
    /// Whether the flags say enough about the game to skip the menu.
    fn skips_menu(&self) -> bool {
        self.x.is_some()
            || self.o.is_some()
            || self.x_engine.is_some()
            || self.o_engine.is_some()
            || self.shape.any_given()
    }

    /// The setup the flags describe, with defaults for what they leave out.
    fn setup(&self) -> anyhow::Result<Setup> {
        let geometry = self
            .shape
            .geometry()
            .map_err(|e| anyhow::anyhow!("--board/--k: {e}"))?;
        let seat = |flag: &str,
                    player: &Option<SeatSpec>,
                    engine: &Option<EngineCommand>,
                    default: SeatSpec| match (player, engine) {
            (Some(_), Some(_)) => Err(anyhow::anyhow!(
                "give --{flag} or --{flag}-engine, not both"
            )),
            (Some(p), None) => Ok(p.clone()),
            (None, Some(command)) => Ok(SeatSpec::Engine(command.clone())),
            (None, None) => Ok(default),
        };
        Ok(Setup {
            geometry,
            x: seat("x", &self.x, &self.x_engine, SeatSpec::Human)?,
            o: seat(
                "o",
                &self.o,
                &self.o_engine,
                SeatSpec::Bot(crate::bots::BotKind::Minimax),
            )?,
        })
    }
}

/// Runs the terminal front end: the menu (unless flags skip it), then games
/// until the person is done or the input ends.
pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    // No engine, nor anything one starts, outlives the session, however it
    // ends (see crate::sys::reaper); the warden forks, so it comes first. A
    // stop signal ends us as it would have: the shell sees Ctrl-C.
    Reaper::hold(|stop| play(args, stop))
}

fn play(args: PlayArgs, stop: &Stop) -> anyhow::Result<()> {
    let flagged = if args.skips_menu() {
        Some(args.setup()?)
    } else {
        None
    };
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    let stdout = std::io::stdout();
    let watching_pause = if stdout.is_terminal() { 500 } else { 0 };
    // A stop signal ends a wait at the prompt too.
    let input = BufReader::new(stop.reader(stdin));
    let mut con = Console::new(input, stdout.lock(), Style::detect(), echo);
    con.width = crate::sys::term::stdout_columns(crate::cli::TEXT_WIDTH);

    let setup = match flagged {
        Some(setup) => setup,
        None => match menu::choose_setup(&mut con)? {
            Some(setup) => setup,
            None => {
                con.say("Goodbye.")?;
                return Ok(());
            }
        },
    };
    let options = session::Options {
        // A short fresh seed: it is shown so that people can type it back.
        seed: args
            .seed
            .unwrap_or_else(|| rand::random_range(1..1_000_000)),
        movetime: args.movetime,
        timeout: args.timeout.unwrap_or(Duration::from_secs(30)),
        startup_timeout: args.startup_timeout.unwrap_or_else(|| {
            crate::client::default_startup_timeout(args.timeout.unwrap_or_default())
        }),
        pace: Duration::from_millis(args.delay.unwrap_or(watching_pause)),
        engine_program: std::env::current_exe()
            .context("cannot find the kinrow program to start its bots")?,
        stop: Some(Arc::clone(stop.flag())),
    };
    session::run(&mut con, &setup, &options)
}
