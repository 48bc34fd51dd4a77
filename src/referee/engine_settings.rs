//! Per-engine settings (`--each`, `--engine-settings`): each engine's own
//! move time, game clock with increment, depth and node limits, memory
//! limit, working directory and raw options, as fastchess, cutechess-cli
//! and c-gomoku-cli give them (`tc=10+0.1`, `nodes=20000`, `memory=350`,
//! `dir=…`, `option.hash=64`), checked once
//! before any game, told to engines at each game's set-up and kept in the
//! records ([`EngineSettings`] is part of every engine's
//! [`super::report::EngineInfo`]).

use crate::protocol::Command;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The longest move time, clock or increment: a day, in ms.
const MAX_MS: u64 = 86_400_000;
/// The deepest depth limit.
const MAX_DEPTH: u32 = 1000;
/// The largest node limit.
const MAX_NODES: u64 = 1_000_000_000_000;
/// The largest memory limit, in MiB: a TiB.
const MAX_MEMORY_MIB: u64 = 1 << 20;

/// The option names the referee itself sets (with their own settings): a
/// raw option may not set them behind its back.
const RESERVED: [&str; 7] = [
    "seed",
    "movetime",
    "timeleft",
    "depth",
    "nodes",
    "bot",
    "max_memory",
];

/// A game clock: what each side starts with, and what is added after each
/// of its moves (fastchess's `tc=BASE+INC`, in seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub base_ms: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub increment_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Clock {
    pub fn base(&self) -> Duration {
        Duration::from_millis(self.base_ms)
    }
    pub fn increment(&self) -> Duration {
        Duration::from_millis(self.increment_ms)
    }
}

/// Seconds as fastchess writes them (`10`, `0.1`, `1.25`), in whole ms.
fn seconds_ms(s: &str) -> Option<u64> {
    let v: f64 = s.parse().ok()?;
    let ms = (v * 1000.0).round();
    (v.is_finite() && v >= 0.0 && ms <= MAX_MS as f64 && (ms - v * 1000.0).abs() < 1e-6)
        .then_some(ms as u64)
}

impl FromStr for Clock {
    type Err = String;
    /// `BASE[+INC]` in seconds: `10+0.1`, `60`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
        let bad = || {
            format!(
                "tc '{}': expected seconds BASE[+INCREMENT] (10+0.1), whole ms, each at most a day",
                crate::rules::clip(s)
            )
        };
        let base_ms = seconds_ms(base).ok_or_else(bad)?;
        let increment_ms = seconds_ms(inc).ok_or_else(bad)?;
        if base_ms == 0 {
            return Err(format!(
                "tc '{}': the clock must start above 0 s",
                crate::rules::clip(s)
            ));
        }
        Ok(Clock {
            base_ms,
            increment_ms,
        })
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = |ms: u64| {
            let s = format!("{}.{:03}", ms / 1000, ms % 1000);
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        write!(f, "{}", secs(self.base_ms))?;
        if self.increment_ms > 0 {
            write!(f, "+{}", secs(self.increment_ms))?;
        }
        Ok(())
    }
}

/// One engine's settings, as resolved from the flags.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineSettings {
    /// `set movetime` (Gomocup: `INFO timeout_turn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
    /// The game clock: `set timeleft` before every move (Gomocup: `INFO
    /// timeout_match` and `time_left`), the increment added after each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// `set depth` (Gomocup: `INFO max_depth`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// `set nodes` (Gomocup: `INFO max_node`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// `memory=`: the memory limit in MiB, told and held to (see
    /// [`EngineSettings::memory_told_mib`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
    /// The process's working directory (a machine's own: not part of what
    /// makes the run this run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Raw options: `set NAME VALUE` (Gomocup: `INFO NAME VALUE`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
}

impl EngineSettings {
    pub fn is_empty(&self) -> bool {
        *self == EngineSettings::default()
    }

    /// The memory a Gomocup brain is told it may take (`INFO max_memory`),
    /// in MiB: `memory=`, else the Gomocup's 350, as managers tell it.
    pub fn memory_told_mib(&self) -> u64 {
        self.memory_mib
            .unwrap_or(crate::protocol::gomocup::MEMORY_LIMIT_MIB)
    }

    /// The memory limit the referee holds the engine's processes to, in
    /// bytes: a game is lost by an engine whose peak resident size passes
    /// it. Only a limit given (`memory=`): brains count their memory in
    /// their own ways (Rapfi, told the Gomocup's 350 MiB, peaks at 363 MiB
    /// resident), so by default the peaks are only recorded.
    pub fn memory_limit(&self) -> Option<u64> {
        self.memory_mib.map(|mib| mib << 20)
    }

    /// Whether the settings bound the search by depth or nodes alone: the
    /// engine is then told the move deadline as its move time, so that its
    /// clock never decides and a game replays on any machine and load.
    pub fn counts_only(&self) -> bool {
        (self.depth.is_some() || self.nodes.is_some())
            && self.movetime_ms.is_none()
            && self.clock.is_none()
    }

    /// The `set` requests of a game's set-up after `set seed`, in this
    /// order: movetime (the one given, or with a count limit alone the
    /// move deadline `timeout`), depth, nodes, the raw options.
    pub fn requests(&self, timeout: Duration) -> Vec<Command> {
        let mut out = Vec::new();
        let movetime = match self.movetime_ms {
            Some(ms) => Some(Duration::from_millis(ms)),
            None if self.counts_only() => Some(timeout.min(Duration::from_millis(MAX_MS))),
            None => None,
        };
        out.extend(movetime.map(Command::set_movetime));
        out.extend(self.depth.map(|d| Command::set("depth", d)));
        out.extend(self.nodes.map(|n| Command::set("nodes", n)));
        out.extend(self.options.iter().map(|(k, v)| Command::set(k, v)));
        out
    }

    /// What makes these settings these, for the run's fingerprint (the
    /// working directory left out: it is the machine's).
    pub fn fingerprint_text(&self) -> String {
        let mut same = self.clone();
        same.dir = None;
        if same.is_empty() {
            String::new()
        } else {
            serde_json::to_string(&same).unwrap_or_default()
        }
    }

    /// The settings as flags would give them (`tc=10+0.1 nodes=20000`).
    pub fn text(&self) -> String {
        let mut parts = Vec::new();
        parts.extend(self.movetime_ms.map(|v| format!("movetime={v}")));
        parts.extend(self.clock.map(|c| format!("tc={c}")));
        parts.extend(self.depth.map(|v| format!("depth={v}")));
        parts.extend(self.nodes.map(|v| format!("nodes={v}")));
        parts.extend(self.memory_mib.map(|v| format!("memory={v}")));
        parts.extend(self.dir.as_ref().map(|d| format!("dir={}", d.display())));
        parts.extend(self.options.iter().map(|(k, v)| format!("option.{k}={v}")));
        parts.join(" ")
    }

    fn apply(&mut self, setting: &Setting) {
        match setting {
            Setting::Movetime(ms) => self.movetime_ms = Some(*ms),
            Setting::Clock(c) => self.clock = Some(*c),
            Setting::Depth(d) => self.depth = Some(*d),
            Setting::Nodes(n) => self.nodes = Some(*n),
            Setting::Memory(m) => self.memory_mib = Some(*m),
            Setting::Dir(d) => self.dir = Some(d.clone()),
            Setting::Option(k, v) => {
                self.options.insert(k.clone(), v.clone());
            }
        }
    }
}

/// One `KEY=VALUE` of `--each` or `--engine-settings`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    Movetime(u64),
    Clock(Clock),
    Depth(u32),
    Nodes(u64),
    /// MiB.
    Memory(u64),
    Dir(PathBuf),
    Option(String, String),
}

/// Whether `s` can be a raw option's name or value: one word of letters,
/// digits and `-_.+:/`, at most 64 characters.
fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.+:/".contains(c))
}

fn number<T: FromStr + PartialOrd + fmt::Display>(
    key: &str,
    value: &str,
    what: &str,
    lo: T,
    hi: T,
) -> Result<T, String> {
    value
        .parse::<T>()
        .ok()
        .filter(|v| *v >= lo && *v <= hi)
        .ok_or_else(|| {
            format!(
                "{key}={}: expected a number of {what} from {lo} to {hi}",
                crate::rules::clip(value)
            )
        })
}

impl FromStr for Setting {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let Some((key, value)) = s.split_once('=') else {
            return Err(format!(
                "'{}' is no setting: expected KEY=VALUE (movetime, tc, depth, nodes, memory, \
                 dir, option.NAME)",
                crate::rules::clip(s)
            ));
        };
        Ok(match key {
            "movetime" => Setting::Movetime(number(key, value, "ms", 1, MAX_MS)?),
            "tc" => Setting::Clock(value.parse()?),
            "depth" => Setting::Depth(number(key, value, "plies", 1, MAX_DEPTH)?),
            "nodes" => Setting::Nodes(number(key, value, "nodes", 1, MAX_NODES)?),
            "memory" => Setting::Memory(number(key, value, "MiB", 1, MAX_MEMORY_MIB)?),
            "dir" if !value.is_empty() => Setting::Dir(PathBuf::from(value)),
            "dir" => return Err("dir=: expected a directory".into()),
            _ => match key.strip_prefix("option.") {
                Some("max_memory") => {
                    return Err(
                        "option.max_memory: the referee sets max_memory itself; use \
                                memory=MIB instead"
                            .into(),
                    )
                }
                Some(name) if RESERVED.contains(&name) => {
                    return Err(format!(
                        "option.{name}: the referee sets {name} itself; use {name}= \
                         (or the run's seed) instead"
                    ))
                }
                Some(name) if is_word(name) && is_word(value) => {
                    Setting::Option(name.to_string(), value.to_string())
                }
                Some(_) => {
                    return Err(format!(
                        "{}: an option's name and value are single words (letters, digits, \
                         -_.+:/)",
                        crate::rules::clip(s)
                    ))
                }
                None => {
                    return Err(format!(
                        "'{}' is no setting: the keys are movetime, tc, depth, nodes, memory, dir \
                         and option.NAME",
                        crate::rules::clip(key)
                    ))
                }
            },
        })
    }
}

/// Settings as a flag gives them: `KEY=VALUE` words, split at whitespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings(pub Vec<Setting>);

impl FromStr for Settings {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let settings = s
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<Vec<Setting>, String>>()?;
        if settings.is_empty() {
            return Err("no settings: expected KEY=VALUE …".into());
        }
        Ok(Settings(settings))
    }
}

/// `--engine-settings NAME:SETTINGS`: the settings of the engine(s) named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedSettings {
    pub name: String,
    pub settings: Settings,
}

impl FromStr for NamedSettings {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, rest) = s
            .split_once(':')
            .filter(|(n, _)| super::is_valid_name(n.trim()))
            .ok_or_else(|| {
                format!(
                    "'{}': expected NAME:KEY=VALUE … (the NAME of an --engine NAME=COMMAND or \
                     a --bots bot)",
                    crate::rules::clip(s)
                )
            })?;
        Ok(NamedSettings {
            name: name.trim().to_string(),
            settings: rest.parse()?,
        })
    }
}

/// The flags that make every engine's settings.
pub struct SettingsFlags<'a> {
    pub movetime: Option<u64>,
    pub match_time: Option<u64>,
    pub each: &'a [Settings],
    pub named: &'a [NamedSettings],
}

impl SettingsFlags<'_> {
    /// Each engine's settings (`names`: the names given on the command
    /// line, `None` for an engine given none): `--movetime` and
    /// `--match-time` first, then `--each`, then the engine's own, later
    /// ones winning. A name no engine has is an error.
    pub fn resolve(&self, names: &[Option<&str>]) -> Result<Vec<EngineSettings>, String> {
        if let Some(n) = self
            .named
            .iter()
            .find(|n| !names.contains(&Some(n.name.as_str())))
        {
            let given: Vec<&str> = names.iter().flatten().copied().collect();
            return Err(format!(
                "--engine-settings {}: no engine is named so ({}); name an engine with --engine \
                 NAME=COMMAND",
                n.name,
                if given.is_empty() {
                    "none has a name".to_string()
                } else {
                    format!("the names: {}", given.join(", "))
                }
            ));
        }
        let mut base = EngineSettings {
            movetime_ms: self.movetime,
            clock: self.match_time.map(|base_ms| Clock {
                base_ms,
                increment_ms: 0,
            }),
            ..EngineSettings::default()
        };
        for s in self.each.iter().flat_map(|s| &s.0) {
            base.apply(s);
        }
        Ok(names
            .iter()
            .map(|name| {
                let mut mine = base.clone();
                for s in self
                    .named
                    .iter()
                    .filter(|n| Some(n.name.as_str()) == *name)
                    .flat_map(|n| &n.settings.0)
                {
                    mine.apply(s);
                }
                mine
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_read_and_show_as_fastchess_writes_them() {
        let c: Clock = "10+0.1".parse().unwrap();
        assert_eq!((c.base_ms, c.increment_ms), (10_000, 100));
        assert_eq!(c.to_string(), "10+0.1");
        let c: Clock = "0.5".parse().unwrap();
        assert_eq!(
            (c.base_ms, c.increment_ms, c.to_string()),
            (500, 0, "0.5".into())
        );
        for bad in [
            "", "0", "0+1", "x", "10+", "-1", "1e9", "0.0001", "nan", "10+0.1+1",
        ] {
            assert!(bad.parse::<Clock>().is_err(), "{bad}");
        }
    }

    #[test]
    fn settings_read_with_a_clear_error_for_each_bad_one() {
        let s: Settings =
            "tc=10+0.1 nodes=20000 depth=4 movetime=50 memory=64 dir=/tmp option.hash=64"
                .parse()
                .unwrap();
        assert_eq!(s.0.len(), 7);
        assert_eq!(s.0[4], Setting::Memory(64));
        let err = |t: &str| t.parse::<Settings>().unwrap_err();
        assert!(err("nodes=0").contains("from 1 to"), "{}", err("nodes=0"));
        assert!(err("depth=x").starts_with("depth=x: expected"));
        assert!(err("movetime=0").starts_with("movetime=0"));
        assert!(err("speed=3").contains("is no setting"));
        assert!(err("tc").contains("KEY=VALUE"));
        assert!(err("option.seed=3").contains("sets seed itself"));
        assert!(err("memory=0").contains("MiB from 1 to 1048576"));
        assert!(err("option.max_memory=9").contains("use memory=MIB instead"));
        assert!(err("option.a;b=1").contains("single words"));
        assert!(err("").contains("no settings"));
        let n: NamedSettings = "fast: tc=1+0.01".parse().unwrap();
        assert_eq!(n.name, "fast");
        assert!("tc=1".parse::<NamedSettings>().is_err());
    }

    #[test]
    fn later_flags_win_and_each_engine_gets_its_own() {
        let each = ["tc=10+0.1".parse().unwrap()];
        let named = ["b: nodes=5 option.hash=64".parse().unwrap()];
        let flags = SettingsFlags {
            movetime: Some(100),
            match_time: Some(5000),
            each: &each,
            named: &named,
        };
        let got = flags.resolve(&[Some("a"), Some("b"), None]).unwrap();
        assert_eq!(got[0].text(), "movetime=100 tc=10+0.1");
        assert_eq!(
            got[1].text(),
            "movetime=100 tc=10+0.1 nodes=5 option.hash=64"
        );
        assert_eq!(got[2], got[0]);
        let e = flags.resolve(&[Some("a"), None]).unwrap_err();
        assert!(e.contains("no engine is named so (the names: a)"), "{e}");
    }

    #[test]
    fn count_limits_alone_get_the_deadline_as_move_time() {
        let s = EngineSettings {
            nodes: Some(100),
            ..Default::default()
        };
        let words: Vec<String> = s
            .requests(Duration::from_millis(7000))
            .iter()
            .map(|c| c.to_string())
            .collect();
        assert_eq!(words, ["set movetime 7000", "set nodes 100"]);
        assert!(EngineSettings::default()
            .requests(Duration::ZERO)
            .is_empty());
    }
}
