//! Who plays a seat and how its engine is started: the same for `kinrow
//! play` and the browser sessions of `kinrow serve`. A built-in bot is the
//! `kinrow` program itself started as `kinrow --bot NAME` ([`bot_command`],
//! which the referee's `--bots` use too).

use super::seat::EngineSeat;
use super::{
    join_words, printable, ClientError, Dialect, EngineCommand, EngineLink, GomocupOptions,
    StderrTo,
};
use crate::bots::BotKind;
use crate::rules::Geometry;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Who plays one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatSpec {
    /// A person at the keyboard.
    Human,
    /// A bot of the `kinrow` engine (this very binary, started as a child).
    Bot(BotKind),
    /// Any engine program, as an argument vector (never run through a
    /// shell), in the protocol it speaks.
    Engine(EngineCommand),
}

impl SeatSpec {
    /// Whether a person plays this side.
    pub fn is_human(&self) -> bool {
        matches!(self, SeatSpec::Human)
    }

    /// Parses `--x`/`--o`: `human` or the name of a bot.
    pub fn parse_player(s: &str) -> Result<SeatSpec, String> {
        match s {
            "human" | "person" => Ok(SeatSpec::Human),
            _ => s
                .parse::<BotKind>()
                .map(SeatSpec::Bot)
                .map_err(|e| format!("{e}, or human")),
        }
    }
}

/// `PROGRAM --bot NAME`: the `kinrow` program that runs the built-in bot
/// `bot` as an engine.
pub fn bot_command(program: &Path, bot: BotKind) -> Vec<String> {
    vec![
        program.to_string_lossy().into_owned(),
        "--bot".to_string(),
        bot.name().to_string(),
    ]
}

/// How a seat's engine is started.
pub struct Launch<'a> {
    /// The `kinrow` program that runs the built-in bots.
    pub program: &'a Path,
    /// Seed of a built-in bot.
    pub seed: u64,
    /// Time per move in milliseconds: a bot's `--movetime`, told to other
    /// engines with `set movetime` (`None`: the engine's default).
    pub movetime: Option<u64>,
    /// Longest wait for any answer, on top of the movetime.
    pub timeout: Duration,
    /// Longest wait for the first answer of the fresh process.
    pub startup_timeout: Duration,
    /// The board a Gomocup brain is started on (kinrow engines are told it
    /// with `newgame`).
    pub geometry: Geometry,
    /// A flag that, once raised, cuts every wait for this engine short.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Launch<'_> {
    /// The command that plays `spec` (`None` for a person). A built-in bot
    /// is [`bot_command`] with its seed and movetime.
    pub fn command(&self, spec: &SeatSpec) -> Option<EngineCommand> {
        match spec {
            SeatSpec::Human => None,
            SeatSpec::Bot(bot) => {
                let mut argv = bot_command(self.program, *bot);
                argv.extend(["--seed".to_string(), self.seed.to_string()]);
                if let Some(ms) = self.movetime {
                    argv.extend(["--movetime".to_string(), ms.to_string()]);
                }
                Some(EngineCommand {
                    argv,
                    dialect: Dialect::Kinrow,
                })
            }
            SeatSpec::Engine(command) => Some(command.clone()),
        }
    }

    /// Starts the engine that plays `spec` and asks its name (within the
    /// start-up deadline), which it gives back if it has one.
    pub fn start(&self, spec: &SeatSpec) -> anyhow::Result<(EngineSeat, Option<String>)> {
        let Some(command) = self.command(spec) else {
            anyhow::bail!("a person has no engine");
        };
        let argv = &command.argv;
        let brain = GomocupOptions {
            board: self.geometry,
            timeout_turn: self
                .movetime
                .map_or(crate::bots::DEFAULT_MOVETIME, Duration::from_millis),
            ..GomocupOptions::default()
        };
        let mut link = match EngineLink::spawn(&command, StderrTo::Discard, brain) {
            Ok(link) => link,
            // The client's own wording already begins "cannot start".
            Err(ClientError::Spawn(e)) => {
                anyhow::bail!("cannot start the engine `{}`: {e}", shown_command(argv))
            }
            Err(e) => anyhow::bail!("cannot start the engine `{}`: {e}", shown_command(argv)),
        };
        if let Some(flag) = &self.cancel {
            link.process().set_cancel(flag.clone());
        }
        // The wait covers the thinking time asked for, on top of the timeout.
        let timeout = self.timeout + Duration::from_millis(self.movetime.unwrap_or(0));
        let mut seat = EngineSeat::new(Box::new(link), timeout);
        let name = match seat.first_contact(self.startup_timeout) {
            Ok(name) => name,
            Err(fault) => anyhow::bail!("the engine `{}` {fault}", shown_command(argv)),
        };
        if let (SeatSpec::Engine(_), Some(ms)) = (spec, self.movetime) {
            // Not every engine has this option; one that refuses it plays at
            // its own pace.
            let _ = seat.set_option("movetime", ms);
        }
        Ok((seat, name))
    }
}

/// An engine command line as it could be typed again, safe to print.
fn shown_command(argv: &[String]) -> String {
    printable(&join_words(argv))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_names() {
        assert_eq!(SeatSpec::parse_player("human"), Ok(SeatSpec::Human));
        assert_eq!(
            SeatSpec::parse_player("minimax"),
            Ok(SeatSpec::Bot(BotKind::Minimax))
        );
        let err = SeatSpec::parse_player("stockfish").unwrap_err();
        assert!(err.contains("random, blocking, minimax, mcts"), "{err}");
    }

    #[test]
    fn a_bot_is_the_kinrow_program_with_its_seed_and_movetime() {
        let mut launch = Launch {
            program: Path::new("/opt/kinrow"),
            seed: 7,
            movetime: Some(50),
            timeout: Duration::from_secs(1),
            startup_timeout: Duration::from_secs(1),
            geometry: Geometry::TIC_TAC_TOE,
            cancel: None,
        };
        let bot = SeatSpec::Bot(BotKind::Mcts);
        let command = launch.command(&bot).unwrap();
        assert_eq!(
            command.argv,
            [
                "/opt/kinrow",
                "--bot",
                "mcts",
                "--seed",
                "7",
                "--movetime",
                "50"
            ]
        );
        assert_eq!(command.dialect, Dialect::Kinrow);
        launch.movetime = None;
        assert_eq!(launch.command(&bot).unwrap().argv.len(), 5);
        assert_eq!(launch.command(&SeatSpec::Human), None);
        let engine = EngineCommand::parse("./pbrain-x").unwrap();
        assert_eq!(
            launch.command(&SeatSpec::Engine(engine.clone())),
            Some(engine)
        );
    }
}
