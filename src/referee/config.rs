//! A run's configuration, checked once: [`Config::from_args`] builds it
//! from the parsed flags ([`RunArgs`]), with every rule between flags and
//! the records `--resume` reads, and says what is wrong as a
//! [`ConfigError`]; [`Config::check`] holds the rules between flags, for a
//! configuration built otherwise too.

use super::adjudication::{
    Adjudication, ExactAdjudication, ScoreDraw, ScoreRule, DEFAULT_SOLVER_EMPTIES,
};
use super::args::{RunArgs, DEFAULT_SAMPLE_RATE};
use super::engine_settings::{EngineSettings, Setting, SettingsFlags};
use super::files;
use super::games_out::{self, PastGames, RunLine, RECORD_SCHEMA};
use super::openings::Openings;
use super::openings::{default_opening_plies, OpeningSource};
use super::report::{BoardInfo, EngineInfo};
use super::run_samples::RunSamples;
use super::samples::{SampleFormat, Sampler};
use super::schedule::Tournament;
use super::shard::Shard;
use super::stats::Sprt;
use super::{default_startup_timeout, default_timeout, EngineSpec};
use crate::bots::BotKind;
use crate::client::{join_words, Dialect};
use crate::rules::Geometry;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Why a run cannot be configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// Flags that don't go together, or a value the flag's own range
    /// allows but the run doesn't: a usage error.
    Usage(String),
    /// A run that cannot start as asked: its files, or the records to
    /// resume from.
    CannotStart(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Usage(m) | ConfigError::CannotStart(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ConfigError {}

/// A checked configuration for a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Two or more engines.
    pub engines: Vec<EngineSpec>,
    /// Games per pairing (even).
    pub games: u32,
    /// Where the openings come from.
    pub openings: OpeningSource,
    pub geometry: Geometry,
    /// Games played at once (at least 1).
    pub concurrency: usize,
    /// No write to a Gomocup brain sooner than this after its answer.
    pub write_gap: Duration,
    /// One SGF file per finished game.
    pub sgf_dir: Option<PathBuf>,
    /// The hard deadline for every reply during games.
    pub timeout: Duration,
    /// The deadline for a fresh engine process's first answers (see
    /// [`super::default_startup_timeout`]).
    pub startup_timeout: Duration,
    /// How long engines get to exit after `quit` before SIGKILL.
    pub grace: Duration,
    pub seed: u64,
    /// Stop a two-engine match once decided.
    pub sprt: Option<Sprt>,
    /// The JSON summary.
    pub json: Option<PathBuf>,
    /// One JSON line per finished game, appended.
    pub games_out: Option<PathBuf>,
    /// Training samples of each finished game (`--samples`).
    pub samples: Option<RunSamples>,
    /// The games already in `games_out`, read for `--resume`: checked
    /// against this run, counted, and not played again.
    pub resume: Option<PastGames>,
    /// Engine stderr logs and the referee's own log.
    pub log_dir: Option<PathBuf>,
    /// Show progress: refreshed in place when stderr is a terminal, else a
    /// line every [`Config::progress_every`].
    pub progress: bool,
    /// How often a progress line is written when stderr is no terminal.
    pub progress_every: Duration,
    /// Play the built-in bots on the referee's threads, without processes.
    pub in_process: bool,
    /// Play only this slice of the schedule.
    pub shard: Option<Shard>,

    // Tournaments, rounds and per-engine settings.
    /// Who plays whom.
    pub tournament: Tournament,
    /// How many times the schedule is played (`games` counts them all).
    pub rounds: u32,
    /// Each engine's settings, in the order of `engines` (`--movetime` and
    /// `--match-time` are in them too): its move time, game clock, limits,
    /// directory and raw options.
    pub settings: Vec<EngineSettings>,
    /// A reply this much past a side's clock still counts.
    pub time_margin: Duration,
    /// How games end early (`--draw-after`, `--exact-adjudication`,
    /// `--resign-after`, `--draw-by-score`).
    pub adjudication: Adjudication,
    /// Record each move's time and search (`--move-info`).
    pub move_info: bool,
    /// Every brain message, game by game (`--messages`).
    pub messages: Option<PathBuf>,
}

impl Config {
    /// The run's files, to check before any game (see [`super::files`]).
    pub fn files(&self) -> files::RunFiles<'_> {
        files::RunFiles {
            json: self.json.as_deref(),
            games_out: self.games_out.as_deref(),
            samples: self.samples.as_ref().map(|s| s.path.as_path()),
            log_dir: self.log_dir.as_deref(),
            sgf_dir: self.sgf_dir.as_deref(),
            messages: self.messages.as_deref(),
            openings_file: match &self.openings {
                OpeningSource::File { path, .. } => Some(path),
                OpeningSource::Random { .. } => None,
            },
        }
    }

    /// The games in the run's schedule: every pairing of two engines plays
    /// `games`.
    pub fn total_games(&self) -> u64 {
        let n = self.engines.len() as u64;
        let pairings = match self.tournament {
            Tournament::RoundRobin => n * n.saturating_sub(1) / 2,
            Tournament::Gauntlet => n.saturating_sub(1),
        };
        pairings * u64::from(self.games)
    }

    /// Engine `i`'s settings (none for an engine a configuration built
    /// otherwise left without).
    pub fn settings_of(&self, i: usize) -> &EngineSettings {
        static NONE: std::sync::OnceLock<EngineSettings> = std::sync::OnceLock::new();
        self.settings
            .get(i)
            .unwrap_or_else(|| NONE.get_or_init(EngineSettings::default))
    }

    /// The games this session's schedule holds: the run's, or its shard's
    /// (a bound for reading records; at most one pair more than an even
    /// share).
    pub fn session_games(&self) -> u64 {
        match self.shard {
            Some(s) => self.total_games().div_ceil(2 * u64::from(s.count())) * 2,
            None => self.total_games(),
        }
    }

    /// The rules between flags: at least two engines; an SPRT for exactly
    /// two, played as one run; `--in-process` for built-in bots only;
    /// records to resume from only with `--games-out`; samples of gomoku
    /// only, at a rate that is a chance.
    pub fn check(&self) -> Result<(), ConfigError> {
        let usage = |m: String| Err(ConfigError::Usage(m));
        if self.engines.len() < 2 {
            return usage("a tournament needs at least two engines (--engine, --bots)".into());
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            return usage("--sprt needs exactly two engines".into());
        }
        if self.in_process {
            if let Some(e) = self.engines.iter().find(|e| e.bot.is_none()) {
                return usage(format!(
                    "--in-process plays built-in bots only (--bots); '{}' is a program: drop \
                     --in-process to run it, or name the bot in --bots",
                    e.name.clone().unwrap_or_else(|| join_words(&e.argv))
                ));
            }
        }
        if self.sprt.is_some() && self.shard.is_some() {
            return usage(
                "--sprt and --shard: a sequential test stops on the games of the whole match as \
                 they finish, which no shard sees; play an SPRT match as one run"
                    .into(),
            );
        }
        if self.resume.is_some() && self.games_out.is_none() {
            return usage("--resume needs --games-out: the records to resume from".into());
        }
        if self
            .adjudication
            .score_draw
            .is_some_and(|d| d.rule.moves == 0)
        {
            return usage(
                "--draw-by-score: COUNT must be at least 1 (the moves each side's score stays \
                 near zero)"
                    .into(),
            );
        }
        if let Some(samples) = &self.samples {
            samples.check(self.geometry).map_err(ConfigError::Usage)?;
        }
        self.check_settings()
    }

    /// The rules of per-engine settings: a working directory that is one,
    /// for a process (an `--in-process` run starts none).
    fn check_settings(&self) -> Result<(), ConfigError> {
        for (i, spec) in self.engines.iter().enumerate() {
            let Some(dir) = &self.settings_of(i).dir else {
                continue;
            };
            let name = spec.name.clone().unwrap_or_else(|| join_words(&spec.argv));
            if self.in_process {
                return Err(ConfigError::Usage(format!(
                    "dir= for '{name}': --in-process starts no process to run in a directory"
                )));
            }
            if !dir.is_dir() {
                return Err(ConfigError::CannotStart(format!(
                    "dir= for '{name}': {} is no directory",
                    dir.display()
                )));
            }
        }
        Ok(())
    }

    /// The run the flags ask for, checked: the rules between flags
    /// ([`Config::check`]), the run's files ([`Config::files`]), and with
    /// `--resume` the records read back (a run resumed without `--seed`
    /// takes the seed they carry; without either the seed is random).
    /// `bot_command` is the command that plays a built-in bot as a
    /// process.
    pub fn from_args(
        args: RunArgs,
        bot_command: impl Fn(BotKind) -> Vec<String>,
    ) -> Result<Config, ConfigError> {
        let geometry = args
            .shape
            .geometry()
            .map_err(|e| ConfigError::Usage(format!("--k: {e}")))?;
        let mut engines = args.engines;
        let mut bots = args.bots;
        if engines.is_empty() && bots.is_empty() {
            bots = BotKind::ALL.to_vec();
        }
        engines.extend(bots.into_iter().map(|b| EngineSpec {
            name: Some(b.name().to_string()),
            argv: bot_command(b),
            dialect: Dialect::Kinrow,
            bot: Some(b),
        }));
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let openings = match args.openings_file {
            Some(path) => OpeningSource::File {
                path,
                order: args.openings_order.unwrap_or_default(),
                transform: args.openings_transform,
            },
            None => OpeningSource::Random {
                plies: args
                    .openings
                    .unwrap_or_else(|| default_opening_plies(geometry)),
            },
        };
        if args.match_time.is_some()
            && args
                .each
                .iter()
                .flat_map(|s| &s.0)
                .any(|s| matches!(s, Setting::Clock(_)))
        {
            return Err(ConfigError::Usage(
                "--match-time and --each tc=: give every engine's clock once".into(),
            ));
        }
        if args.movetime.is_some()
            && args
                .each
                .iter()
                .flat_map(|s| &s.0)
                .any(|s| matches!(s, Setting::Movetime(_)))
        {
            return Err(ConfigError::Usage(
                "--movetime and --each movetime=: give every engine's move time once".into(),
            ));
        }
        let names: Vec<Option<&str>> = engines.iter().map(|e| e.name.as_deref()).collect();
        let settings = SettingsFlags {
            movetime: args.movetime,
            match_time: args.match_time,
            each: &args.each,
            named: &args.engine_settings,
        }
        .resolve(&names)
        .map_err(ConfigError::Usage)?;
        // The deadline allows the longest move time of any engine.
        let longest = settings.iter().filter_map(|s| s.movetime_ms).max();
        let timeout = args
            .timeout
            .map_or_else(|| default_timeout(longest), Duration::from_millis);
        let games = u64::from(args.games.saturating_add(args.games % 2)) * u64::from(args.rounds);
        let games = u32::try_from(games)
            .ok()
            .filter(|&g| g <= 100_000_000)
            .ok_or_else(|| {
                ConfigError::Usage(format!(
                    "--games {} --rounds {}: at most 100000000 games per pairing",
                    args.games, args.rounds
                ))
            })?;
        let mut config = Config {
            engines,
            games,
            openings,
            geometry,
            concurrency: args.concurrency.map_or(cpus, |j| j as usize),
            write_gap: Duration::from_millis(args.write_gap),
            sgf_dir: args.sgf_dir,
            timeout,
            startup_timeout: args
                .startup_timeout
                .map_or_else(|| default_startup_timeout(timeout), Duration::from_millis),
            grace: Duration::from_millis(args.grace),
            seed: args.seed.unwrap_or(0),
            sprt: args.sprt,
            json: args.json,
            games_out: args.games_out,
            samples: args.samples.map(|path| RunSamples {
                sampler: Sampler {
                    format: args
                        .sample_format
                        .unwrap_or_else(|| SampleFormat::of_path(&path)),
                    rate: args.sample_rate.unwrap_or(DEFAULT_SAMPLE_RATE),
                    // `referee samples`'s default --seed: the same samples.
                    seed: 0,
                },
                path,
            }),
            resume: None,
            log_dir: args.log_dir,
            progress: !args.quiet,
            progress_every: Duration::from_secs_f64(args.progress_every),
            in_process: args.in_process,
            shard: args.shard,
            tournament: args.tournament,
            rounds: args.rounds,
            settings,
            time_margin: Duration::from_millis(args.time_margin),
            adjudication: Adjudication {
                draw_after: args.draw_after.map(|n| n as usize),
                exact: args.exact_adjudication.then(|| ExactAdjudication {
                    solver_empties: args
                        .solver_empties
                        .map_or(DEFAULT_SOLVER_EMPTIES, |n| n as usize),
                }),
                resign: args.resign_after.as_deref().map(score_rule),
                score_draw: args.draw_by_score.as_deref().map(|v| ScoreDraw {
                    from_ply: v[0] as usize,
                    rule: score_rule(&v[1..]),
                }),
            },
            move_info: args.move_info,
            messages: args.messages,
        };
        config.check()?;
        let cannot_start = |e: anyhow::Error| ConfigError::CannotStart(format!("{e:#}"));
        // The files first: records are read only from a file that is no other
        // file of the run.
        config.files().check().map_err(cannot_start)?;
        if let (Some(path), true) = (&config.games_out, args.resume) {
            let limit = files::records_limit(config.session_games());
            config.resume = Some(PastGames::read(path, limit).map_err(cannot_start)?);
        }
        // Resuming without --seed continues with the seed the records carry.
        let past_seed = config.resume.as_ref().and_then(PastGames::seed);
        if let Some(past) = config.resume.as_ref().filter(|p| !p.records.is_empty()) {
            if args.seed.is_none() && past_seed.is_none() {
                return Err(ConfigError::CannotStart(format!(
                    "the records in {} carry no seed (written by an older referee): give the run's --seed",
                    past.path.display()
                )));
            }
        }
        config.seed = args.seed.or(past_seed).unwrap_or_else(rand::random);
        Ok(config)
    }
}

impl Config {
    /// The run line of this run (or shard), with these
    /// engines and openings and `total_games` in its whole schedule.
    pub fn run_line(
        &self,
        engines: &[EngineInfo],
        openings: &Openings,
        total_games: usize,
    ) -> RunLine {
        let board = BoardInfo::from(self.geometry);
        let fingerprint = openings.fingerprint();
        RunLine {
            schema: RECORD_SCHEMA,
            run: games_out::run_fingerprint(
                self.seed,
                &board,
                engines,
                &fingerprint,
                self.tournament,
            ),
            shard: self.shard,
            seed: self.seed,
            board,
            games_per_pairing: self.games,
            total_games,
            engines: engines.to_vec(),
            openings: openings.description().to_string(),
            openings_fingerprint: fingerprint,
            sprt: self.sprt,
            adjudication: self.adjudication.description(),
            referee: env!("CARGO_PKG_VERSION").to_string(),
            tournament: self.tournament,
            time_margin_ms: self.time_margin.as_millis() as u64,
        }
    }
}

/// `COUNT SCORE` of `--resign-after` and `--draw-by-score` (clap took two
/// numbers in range).
fn score_rule(v: &[u64]) -> ScoreRule {
    ScoreRule {
        moves: v[0] as usize,
        score: v[1] as i64,
    }
}

impl Config {
    /// Whether engines are asked what their searches found: to record it,
    /// or to adjudicate on it.
    pub fn wants_search_info(&self) -> bool {
        self.move_info || self.adjudication.on_scores()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn config(args: &[&str]) -> Result<Config, ConfigError> {
        let cli = Cli::try_parse_from(std::iter::once("referee").chain(args.iter().copied()))
            .expect("flags that parse");
        Config::from_args(cli.run, |b| vec!["kinrow".into(), b.name().into()])
    }

    fn usage(args: &[&str]) -> String {
        match config(args) {
            Err(ConfigError::Usage(m)) => m,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn the_flags_make_a_checked_run() {
        let c = config(&["--bots", "random,blocking", "--games", "3", "--seed", "5"]).unwrap();
        assert_eq!((c.games, c.seed), (4, 5));
        let argv: Vec<_> = c.engines.iter().map(|e| e.argv.join(" ")).collect();
        assert_eq!(argv, ["kinrow random", "kinrow blocking"]);
        assert_eq!(c.check(), Ok(()));
        // No engines: the four built-in bots.
        assert_eq!(config(&[]).unwrap().engines.len(), BotKind::ALL.len());
    }

    #[test]
    fn every_rule_between_flags_is_a_usage_error_said_once() {
        assert_eq!(
            usage(&["--bots", "random"]),
            "a tournament needs at least two engines (--engine, --bots)"
        );
        assert_eq!(
            usage(&["--bots", "random,blocking,minimax", "--sprt", "0,10"]),
            "--sprt needs exactly two engines"
        );
        let program = usage(&["--bots", "random", "--engine", "x=./bot", "--in-process"]);
        assert!(
            program.starts_with("--in-process plays built-in bots only (--bots); 'x' is a program"),
            "{program}"
        );
        let sharded = usage(&[
            "--bots",
            "random,blocking",
            "--sprt",
            "0,10",
            "--shard",
            "1/2",
        ]);
        assert!(
            sharded.starts_with("--sprt and --shard: a sequential test"),
            "{sharded}"
        );
        assert!(usage(&["--k", "9"]).starts_with("--k: "));
    }

    #[test]
    fn a_run_whose_files_cannot_be_is_refused_before_it_starts() {
        let dir = std::env::temp_dir();
        let dir = dir.to_str().unwrap();
        match config(&["--bots", "random,blocking", "--json", dir]) {
            Err(ConfigError::CannotStart(m)) => assert!(m.contains("--json"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_config_built_otherwise_is_held_to_the_same_rules() {
        let mut c = config(&["--bots", "random,blocking"]).unwrap();
        c.engines.truncate(1);
        let e = crate::referee::run(&c, Default::default(), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a tournament needs at least two engines (--engine, --bots)"
        );
    }
}
