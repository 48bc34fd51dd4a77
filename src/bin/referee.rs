//! The referee: tournaments between engine processes. Thin: arguments into a
//! checked [`Config`] (built and checked by the library), Ctrl-C into a
//! flag (`kinrow::sys`), the watch page (`--serve`) wired to the run as its
//! watcher, then
//! `kinrow::referee::run`.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use kinrow::bots::BotKind;
use kinrow::referee::args::{parse_bot, parse_rate, RunArgs, WatchAddress, DEFAULT_SAMPLE_RATE};
use kinrow::referee::merge::MergeConfig;
use kinrow::referee::ratings::{Anchor, RatingsConfig};
use kinrow::referee::samples::{SampleFormat, Sampler, SamplesConfig};
use kinrow::referee::{say, Config, ConfigError, RunOutcome};
use kinrow::serve::watch::Live;
use kinrow::sys::reaper::Reaper;
use kinrow::sys::signals::{SignalHandlerKind, Stop};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Plays tournaments between k-in-a-row engines (kinrow's bots or any program
/// that speaks the protocol) and reports who is stronger and by how much.
/// Without engines: a round robin of random, blocking, minimax and mcts on 3x3.
#[derive(Parser, Debug)]
#[command(
    name = "referee",
    version,
    max_term_width = 80,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    #[command(flatten)]
    run: RunArgs,
    /// Serve as a protocol engine with this built-in bot (used when no
    /// kinrow binary sits next to the referee).
    #[arg(long, value_name = "BOT", hide = true, value_parser = parse_bot)]
    serve_bot: Option<BotKind>,
}

/// `referee merge`.
#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Merge the --games-out files of a run's shards (or sessions) into the
    /// report, summary and records of the one run they make up.
    Merge(MergeArgs),
    /// One rating list from any --games-out files (runs, shards,
    /// tournaments): the maximum-likelihood fit of every game, with 95 %
    /// errors and the likelihood of superiority between neighbours.
    Ratings(RatingsArgs),
    /// Training samples from --games-out files in c-gomoku-cli's layouts
    /// (its -sample): positions, the move played and the game's result.
    Samples(SamplesArgs),
}

#[derive(clap::Args, Debug)]
struct SamplesArgs {
    /// The --games-out files, in any order.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Write the samples here.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// c-gomoku-cli's layout: csv, bin or bin-lz4 (also spelt bin_lz4:
    /// the binary layout in LZ4's frame format).
    #[arg(long, value_name = "FORMAT", default_value = "csv")]
    format: SampleFormat,
    /// The chance that an engine's move is taken, in (0, 1].
    #[arg(long, value_name = "P", default_value_t = DEFAULT_SAMPLE_RATE, value_parser = parse_rate)]
    rate: f64,
    /// Seed of the draws that pick the moves taken.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

#[derive(clap::Args, Debug)]
struct RatingsArgs {
    /// The --games-out files, in any order.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Fix the list's level: this engine at ELO (default 0); without it
    /// the ratings average 0.
    #[arg(long, value_name = "NAME[=ELO]")]
    anchor: Option<Anchor>,
    /// Take X's side to be worth nothing (by default the X side's
    /// advantage is fitted with the ratings).
    #[arg(long)]
    no_x_advantage: bool,
    /// Write the list as JSON here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct MergeArgs {
    /// The --games-out files, in any order.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Write the JSON summary here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the merged records here (the run line, then every game in
    /// order).
    #[arg(long, value_name = "FILE")]
    games_out: Option<PathBuf>,
    /// Report the games found even when some are missing.
    #[arg(long)]
    allow_missing: bool,
}

/// The command for a built-in bot: the kinrow binary next to this one, or
/// this binary serving as an engine when there is none (as after
/// `cargo run --bin referee`, which builds only the referee).
fn bot_command(bot: BotKind) -> Vec<String> {
    let me = std::env::current_exe().ok();
    let sibling = me
        .as_ref()
        .and_then(|p| p.parent())
        .map(|d| d.join(format!("kinrow{}", std::env::consts::EXE_SUFFIX)));
    match (sibling, me) {
        (Some(kinrow), _) if kinrow.is_file() => kinrow::client::bot_command(&kinrow, bot),
        (_, Some(me)) => vec![
            me.display().to_string(),
            "--serve-bot".into(),
            bot.name().into(),
        ],
        _ => kinrow::client::bot_command(std::path::Path::new("kinrow"), bot),
    }
}

/// The run's checked configuration; what is wrong ends the referee: a
/// usage error as clap ends it (exit status 2), a run that cannot start
/// with exit status 1, as for the run's own start-up errors.
fn checked(config: Result<Config, ConfigError>) -> Config {
    match config {
        Ok(config) => config,
        Err(ConfigError::Usage(msg)) => {
            Cli::command().error(ErrorKind::ValueValidation, msg).exit()
        }
        Err(ConfigError::CannotStart(msg)) => {
            say(&format!("referee: {msg}"));
            std::process::exit(1)
        }
    }
}

fn serve(bot: BotKind) -> ExitCode {
    let config = kinrow::engine::EngineConfig {
        bot,
        seed: rand::random(),
        ..Default::default()
    };
    // Buffered (stdout alone is line-buffered): the engine flushes when it
    // has answered everything pipelined, so one request batch is one write.
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match kinrow::engine::Engine::new(config).run(std::io::stdin(), stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("referee --serve-bot: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `referee merge`: the report on stdout; what is missing (with
/// `--allow-missing`) on stderr.
fn merge(args: MergeArgs) -> ExitCode {
    let config = MergeConfig {
        files: args.files,
        json: args.json,
        games_out: args.games_out,
        allow_missing: args.allow_missing,
    };
    match kinrow::referee::merge::merge(&config) {
        Ok(outcome) => {
            let _ =
                std::io::Write::write_all(&mut std::io::stdout().lock(), outcome.report.as_bytes());
            for m in &outcome.missing {
                say(&format!("referee merge: {m}"));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            say(&format!("referee merge: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

/// `referee ratings`: the list on stdout.
fn ratings(args: RatingsArgs) -> ExitCode {
    let config = RatingsConfig {
        files: args.files,
        anchor: args.anchor.unwrap_or(Anchor::Mean),
        x_advantage: !args.no_x_advantage,
        json: args.json,
    };
    match kinrow::referee::ratings::ratings(&config) {
        Ok(text) => {
            let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            say(&format!("referee ratings: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

/// `referee samples`: what was written, on stderr.
fn samples(args: SamplesArgs) -> ExitCode {
    let config = SamplesConfig {
        files: args.files,
        out: args.out,
        sampler: Sampler {
            format: args.format,
            rate: args.rate,
            seed: args.seed,
        },
    };
    match kinrow::referee::samples::samples(&config) {
        Ok(outcome) => {
            say(&format!(
                "referee samples: {} samples from {} games into {}",
                outcome.samples,
                outcome.games,
                config.out.display()
            ));
            ExitCode::SUCCESS
        }
        Err(e) => {
            say(&format!("referee samples: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

/// The run, watched by the page of `--serve` if asked (at `watch`). The
/// page is up before the engines start, so a port in use stops the run
/// before anything is played.
fn run(
    config: &Config,
    watch: Option<WatchAddress>,
    cancel: Arc<AtomicBool>,
) -> anyhow::Result<RunOutcome> {
    let Some(watch) = watch else {
        return kinrow::referee::run(config, cancel, None);
    };
    let live = Arc::new(Live::new());
    let url = kinrow::serve::watch::start(watch.addr, &watch.hosts, Arc::clone(&live))?;
    say(&format!("referee: watch the run at {url}"));
    kinrow::referee::run(config, cancel, Some(&*live))
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    match cli.command.take() {
        Some(Sub::Merge(args)) => return merge(args),
        Some(Sub::Ratings(args)) => return ratings(args),
        Some(Sub::Samples(args)) => return samples(args),
        None => {}
    }
    if let Some(bot) = cli.serve_bot {
        return serve(bot);
    }
    let watch = cli.run.watch_address();
    let config = checked(Config::from_args(cli.run, bot_command));
    // No engine, nor anything one starts, outlives the run, however it
    // ends, and a first stop signal stops it in order, a second at once
    // (kinrow::sys); the warden forks, so the guard comes before any thread.
    let reaper = Reaper::start(SignalHandlerKind::Standard);
    let stop = reaper.stop().clone();
    let result = run(&config, watch, Arc::clone(stop.flag()));
    drop(reaper);
    finish(&config, &stop, result)
}

/// The report on stdout, what went wrong on stderr, and the exit status.
fn finish(config: &Config, stop: &Stop, result: anyhow::Result<RunOutcome>) -> ExitCode {
    match result {
        Ok(outcome) => {
            // A closed stdout (`referee | head`) must not panic the run.
            let _ =
                std::io::Write::write_all(&mut std::io::stdout().lock(), outcome.report.as_bytes());
            if let Some(s) = &outcome.samples {
                say(&format!(
                    "referee: {} samples from {} games into {}",
                    s.samples, s.games, s.file
                ));
            }
            for e in &outcome.write_errors {
                say(&format!("referee: {e}"));
            }
            if outcome.interrupted {
                let how = match &config.games_out {
                    Some(path) => format!(
                        "the finished games are in {}; to play the rest, run the same command with --resume",
                        path.display()
                    ),
                    None => "without --games-out records it can't be resumed (give --games-out FILE to make a run resumable)".into(),
                };
                say(&format!(
                    "referee: interrupted after {} of {} games; {how}",
                    outcome.games, outcome.total
                ));
            }
            if !outcome.write_errors.is_empty() {
                ExitCode::FAILURE
            } else if outcome.interrupted {
                // 130 after Ctrl-C, 143 after SIGTERM: as if the signal had
                // ended the process.
                ExitCode::from(stop.exit_code().unwrap_or(130))
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            say(&format!("referee: {e:#}"));
            ExitCode::FAILURE
        }
    }
}
