//! The engine's command line checked once, in the library, into what starts
//! it (hyperfine's shape): [`EngineArgs::check`] gives an [`EngineSetup`] or
//! a [`ConfigError`], which the binary shows as clap does (exit status 2).

use super::gomocup::{Brain, BrainConfig};
use super::gtp::{
    board_before_boardsize, check_board, BoardSource, GtpBoardError, GtpConfig, GtpEngine,
};
use super::kinrow::{Engine, EngineConfig};
use super::session::{BotOption, BuildBot, Session};
use crate::bots::{BotKind, OptionError};
use crate::cli::ShapeArgs;
use crate::protocol::gtp::MAX_GTP_SIDE;
use crate::rules::{BoardSize, SizeError, MAX_SIDE};
use std::fmt;
use std::io::{self, Read, Write};
use std::time::Duration;

/// The engine's flags, as given.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// The bot that answers genmove: random, blocking, minimax or mcts.
    #[arg(long, default_value = "minimax", value_parser = parse_bot)]
    pub bot: BotKind,
    /// Seed for the bot's random choices (default: a fresh random seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Time per move for searching bots, in milliseconds.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// A bot option, as the protocol's `set NAME VALUE` gives it: nodes,
    /// depth and hash (minimax), iterations, exploration, … (mcts); for
    /// GUIs and match tools that cannot send `set`, such as GoGui's
    /// twogtp. Repeatable; checked before the engine starts.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub options: Vec<BotOption>,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// The protocol on stdin/stdout: kinrow (default), gomocup (a Gomocup
    /// brain: the manager sets the board with START; K is 5 unless --k says
    /// otherwise; the default when started as pbrain-*), gtp (GTP version 2
    /// with GoGui's rules commands; square boards up to 25x25).
    #[arg(long, value_enum)]
    pub protocol: Option<Protocol>,
}

fn parse_bot(s: &str) -> Result<BotKind, String> {
    s.parse()
        .map_err(|e: crate::bots::UnknownBot| e.to_string())
}

/// The protocols the engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    Kinrow,
    Gomocup,
    Gtp,
}

/// An engine ready to start: the protocol, and its engine's config.
#[derive(Clone, Debug)]
pub enum EngineSetup {
    Kinrow(EngineConfig),
    Gomocup(BrainConfig),
    Gtp(GtpConfig),
}

/// Flags that make no engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The shape flags make no board.
    Shape(SizeError),
    /// `--board` for a Gomocup brain, whose manager sets the board.
    BrainBoard,
    /// `--k` for a brain, outside 1 to the largest side.
    BrainK(u32),
    /// A board GTP can't play.
    GtpBoard(GtpBoardError),
    /// `--k` for GTP without `--board`, over the largest GTP board.
    GtpK(u32),
    /// A `--set` option no bot has, or a value its bot refuses.
    BotOption(BotOption, OptionError),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Shape(e) => write!(f, "--k: {e}"),
            ConfigError::BrainBoard => {
                f.write_str("--board: a Gomocup manager sets the board (START, RECTSTART)")
            }
            ConfigError::BrainK(k) => write!(f, "--k {k}: must be from 1 to {MAX_SIDE}"),
            ConfigError::GtpBoard(e) => write!(f, "--board: {e}"),
            ConfigError::GtpK(k) => write!(
                f,
                "--k {k}: must be from 1 to {MAX_GTP_SIDE} (GTP boards are {MAX_GTP_SIDE}x{MAX_GTP_SIDE} at most)"
            ),
            ConfigError::BotOption(option, e) => write!(f, "--set {option}: {e}"),
        }
    }
}
impl std::error::Error for ConfigError {}

impl ConfigError {
    /// The kind of usage error clap reports it as: a value no board takes,
    /// or flags that don't go together.
    pub fn clap_kind(&self) -> clap::error::ErrorKind {
        match self {
            ConfigError::Shape(_) | ConfigError::GtpK(_) | ConfigError::BotOption(..) => {
                clap::error::ErrorKind::ValueValidation
            }
            _ => clap::error::ErrorKind::ArgumentConflict,
        }
    }
}

impl EngineArgs {
    /// The engine these flags start, for a program `started_as_brain` (its
    /// name marks it a Gomocup brain: that is then the default protocol).
    /// Without `--seed`, a fresh random seed.
    pub fn check(&self, started_as_brain: bool) -> Result<EngineSetup, ConfigError> {
        let seed = self.seed.unwrap_or_else(rand::random);
        let movetime = self.movetime.map(Duration::from_millis);
        self.check_options()?;
        let default = if started_as_brain {
            Protocol::Gomocup
        } else {
            Protocol::Kinrow
        };
        let config = |shape: &ShapeArgs| {
            Ok(EngineConfig {
                geometry: shape.geometry().map_err(ConfigError::Shape)?,
                bot: self.bot,
                seed,
                movetime,
                options: self.options.clone(),
            })
        };
        match self.protocol.unwrap_or(default) {
            Protocol::Kinrow => config(&self.shape).map(EngineSetup::Kinrow),
            Protocol::Gomocup => {
                if self.shape.board.is_some() {
                    return Err(ConfigError::BrainBoard);
                }
                let k = self.shape.k.unwrap_or(5);
                if !(1..=MAX_SIDE as u32).contains(&k) {
                    return Err(ConfigError::BrainK(k));
                }
                Ok(EngineSetup::Gomocup(BrainConfig {
                    k,
                    rule: self.shape.rule.unwrap_or_default(),
                    bot: self.bot,
                    seed,
                    movetime_cap: movetime,
                    options: self.options.clone(),
                }))
            }
            Protocol::Gtp => {
                // Without --board, `boardsize` sets the board: K is checked
                // against the largest GTP board, not the first one.
                let (shape, board) = match self.shape.board {
                    Some(_) => (self.shape, BoardSource::CommandLine),
                    None => {
                        if let Some(k) = self.shape.k.filter(|&k| k as usize > MAX_GTP_SIDE) {
                            return Err(ConfigError::GtpK(k));
                        }
                        let side = board_before_boardsize(self.shape.k);
                        let first = ShapeArgs {
                            board: Some(BoardSize {
                                rows: side,
                                cols: side,
                            }),
                            ..self.shape
                        };
                        (first, BoardSource::BoardSize { k: self.shape.k })
                    }
                };
                let engine = config(&shape)?;
                check_board(engine.geometry).map_err(ConfigError::GtpBoard)?;
                Ok(EngineSetup::Gtp(GtpConfig { engine, board }))
            }
        }
    }
}

impl EngineArgs {
    /// Each `--set` option as a session would take it: one that no bot has,
    /// or a bad value, is refused before the engine starts.
    fn check_options(&self) -> Result<(), ConfigError> {
        let mut session = Session::new(
            crate::rules::Geometry::TIC_TAC_TOE,
            self.bot,
            0,
            Duration::from_millis(1),
            BuildBot::AtFirstMove,
        );
        for option in &self.options {
            session
                .set_bot_option(&option.name, &option.value)
                .map_err(|e| ConfigError::BotOption(option.clone(), e))?;
        }
        Ok(())
    }
}

impl EngineSetup {
    /// Answers requests from `input` on `output` until the protocol's quit
    /// or the end of input.
    pub fn run<R: Read, W: Write>(self, input: R, output: W) -> io::Result<()> {
        match self {
            EngineSetup::Kinrow(config) => Engine::new(config).run(input, output),
            EngineSetup::Gomocup(config) => Brain::new(config).run(input, output),
            EngineSetup::Gtp(config) => GtpEngine::new(config).run(input, output),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardSize, Geometry, Rule};

    fn args(protocol: Option<Protocol>, board: Option<(u32, u32)>, k: Option<u32>) -> EngineArgs {
        EngineArgs {
            bot: BotKind::Random,
            seed: Some(7),
            movetime: Some(250),
            options: vec!["iterations=50".parse().unwrap()],
            shape: ShapeArgs {
                board: board.map(|(rows, cols)| BoardSize { rows, cols }),
                k,
                rule: None,
            },
            protocol,
        }
    }

    #[test]
    fn each_protocol_gets_its_checked_config() {
        let Ok(EngineSetup::Kinrow(c)) = args(None, None, None).check(false) else {
            panic!("kinrow by default")
        };
        assert_eq!((c.geometry, c.seed), (Geometry::TIC_TAC_TOE, 7));
        assert_eq!(c.movetime, Some(Duration::from_millis(250)));
        assert_eq!(c.options, args(None, None, None).options);
        let Ok(EngineSetup::Gomocup(b)) = args(None, None, Some(6)).check(true) else {
            panic!("a brain when started as one")
        };
        assert_eq!((b.k, b.rule, b.seed), (6, Rule::Free, 7));
        let kinrow = args(Some(Protocol::Kinrow), Some((9, 9)), None).check(true);
        assert!(matches!(kinrow, Ok(EngineSetup::Kinrow(c)) if c.geometry.k() == 5));
        let gtp = args(Some(Protocol::Gtp), Some((15, 15)), None).check(false);
        assert!(
            matches!(gtp, Ok(EngineSetup::Gtp(c)) if c.engine.geometry.rows() == 15
            && c.board == BoardSource::CommandLine)
        );
        // Without --board, K is not held to the 3x3 default.
        let gtp = args(Some(Protocol::Gtp), None, Some(5)).check(false);
        assert!(
            matches!(gtp, Ok(EngineSetup::Gtp(c)) if c.engine.geometry.rows() == 15
            && c.engine.geometry.k() == 5
            && c.board == BoardSource::BoardSize { k: Some(5) })
        );
    }

    #[test]
    fn flags_that_make_no_engine_say_which() {
        let refused = |a: EngineArgs, brain: bool| a.check(brain).unwrap_err().to_string();
        assert_eq!(
            refused(args(Some(Protocol::Gomocup), Some((15, 15)), None), false),
            "--board: a Gomocup manager sets the board (START, RECTSTART)"
        );
        assert_eq!(
            refused(args(None, None, Some(33)), true),
            "--k 33: must be from 1 to 32"
        );
        assert!(refused(args(None, None, Some(4)), false).starts_with("--k: "));
        assert_eq!(
            refused(args(Some(Protocol::Gtp), Some((10, 12)), Some(5)), false),
            "--board: 10x12: GTP boards are square (GoGui draws only squares)"
        );
        assert_eq!(
            refused(args(Some(Protocol::Gtp), None, Some(26)), false),
            "--k 26: must be from 1 to 25 (GTP boards are 25x25 at most)"
        );
        let e = args(Some(Protocol::Gtp), Some((26, 26)), Some(5)).check(false);
        assert_eq!(
            e.map(|_| ()),
            Err(ConfigError::GtpBoard(GtpBoardError::TooWide { side: 26 }))
        );
        assert_eq!(
            ConfigError::Shape(SizeError::K { k: 4, max: 3 }).clap_kind(),
            clap::error::ErrorKind::ValueValidation
        );
        assert_eq!(
            ConfigError::BrainBoard.clap_kind(),
            clap::error::ErrorKind::ArgumentConflict
        );
    }
}
