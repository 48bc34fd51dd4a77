//! Engines as the command lines of the referee and `kinrow serve` name them
//! (`[NAME=][gomocup:|kinrow:]COMMAND`), and the deadlines every front end
//! gives them.

use super::{Dialect, EngineCommand};
use crate::bots::BotKind;
use std::str::FromStr;
use std::time::Duration;

/// An engine as given on the command line: `[NAME=][gomocup:|kinrow:]COMMAND`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The display name, if given (else the engine's `name` reply).
    pub name: Option<String>,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The protocol it speaks ([`EngineCommand`]).
    pub dialect: Dialect,
    /// The built-in bot this engine is (`--bots`), which `--in-process`
    /// plays without its process.
    pub bot: Option<BotKind>,
}

/// Whether `s` can be an engine's display name given as `NAME=`.
pub fn is_valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c))
}

impl FromStr for EngineSpec {
    type Err = String;
    /// `NAME=COMMAND` when the part before the first `=` is a plain name
    /// (letters, digits, `-_.+`), else the whole text is the command.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, command) = match s.split_once('=') {
            Some((n, c)) if is_valid_name(n) => (Some(n.to_string()), c),
            _ => (None, s),
        };
        let command = EngineCommand::parse(command)
            .map_err(|e| format!("engine command '{}': {e}", crate::rules::clip(s)))?;
        Ok(EngineSpec {
            name,
            argv: command.argv,
            dialect: command.dialect,
            bot: None,
        })
    }
}

/// The default start-up deadline: 10 s, or the move deadline if longer.
/// Starting an interpreter on a loaded machine can take seconds; a run
/// that allows long replies allows as long a start.
pub fn default_startup_timeout(timeout: Duration) -> Duration {
    timeout.max(Duration::from_secs(10))
}

/// A number of seconds from a flag (`--timeout`, `--startup-timeout`,
/// `--heartbeat`): above 0, at most a day.
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    crate::cli::parse_seconds(s, crate::cli::SecondsRange::WAIT).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs_with_and_without_names() {
        let s: EngineSpec = "fast=python3 'my bot.py' --x=1".parse().unwrap();
        assert_eq!(s.name.as_deref(), Some("fast"));
        assert_eq!(s.argv, ["python3", "my bot.py", "--x=1"]);
        let s: EngineSpec = "python3 bot.py --level=3".parse().unwrap();
        assert_eq!(s.name, None);
        assert_eq!(s.argv, ["python3", "bot.py", "--level=3"]);
        assert!("x=".parse::<EngineSpec>().is_err());
        let s: EngineSpec = "r=gomocup:wine pbrain.exe".parse().unwrap();
        assert_eq!(
            (s.name.as_deref(), s.dialect),
            (Some("r"), Dialect::Gomocup)
        );
        assert_eq!(s.argv, ["wine", "pbrain.exe"]);
        let s: EngineSpec = "./pbrain-x".parse().unwrap();
        assert_eq!(s.dialect, Dialect::Gomocup);
        assert!("'unclosed".parse::<EngineSpec>().is_err());
    }

    #[test]
    fn startup_deadlines_and_seconds() {
        let secs = Duration::from_secs;
        assert_eq!(default_startup_timeout(secs(1)), secs(10));
        assert_eq!(default_startup_timeout(secs(30)), secs(30));
        assert_eq!(parse_seconds("1.5"), Ok(Duration::from_millis(1500)));
        for bad in ["0", "-1", "86401", "nan", "x"] {
            assert!(parse_seconds(bad).is_err(), "{bad}");
        }
    }
}
