//! The referee's command line for a run, as clap parses it: the flags one
//! by one, each with its own range. [`crate::referee::Config::from_args`]
//! turns them into a checked run, with every rule between flags.

// The flags' doc comments are their help text, brackets and all
// (`[NAME=]`), which rustdoc would take for links.
#![allow(rustdoc::broken_intra_doc_links)]

use super::engine_settings::{NamedSettings, Settings};
use super::openings::OpeningOrder;
use super::samples::SampleFormat;
use super::schedule::Tournament;
use super::shard::{Shard, ShardError};
use super::stats::Sprt;
use super::EngineSpec;
use crate::bots::{BotKind, UnknownBot};
use crate::cli::ShapeArgs;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// The flags of a run (`referee [OPTIONS]`).
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// An engine, [NAME=][gomocup:|kinrow:]COMMAND; COMMAND is split into
    /// words like a shell does (quotes allowed) and run directly.
    /// `gomocup:` marks a Gomocup (piskvork) brain, as does a program whose
    /// file name starts with pbrain-; `kinrow:` forces kinrow's protocol.
    /// Repeatable.
    #[arg(long = "engine", value_name = "[NAME=][gomocup:]COMMAND", value_parser = parse_engine)]
    pub engines: Vec<EngineSpec>,
    /// Built-in bots (comma-separated: random, blocking, minimax, mcts), played by
    /// the kinrow binary next to this one.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_bot)]
    pub bots: Vec<BotKind>,
    /// Games per pairing (rounded up to an even number: pairs with colours
    /// swapped).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    pub games: u32,
    /// Random opening plies per pair of games (default: 1 on boards of up to
    /// 16 cells, 2 on larger ones, 0 when K is 1 or 2).
    #[arg(long, value_name = "PLIES", conflicts_with = "openings_file")]
    pub openings: Option<usize>,
    /// Openings from a file: one a line as 1-based cells `R C R C …`
    /// (blank lines and # comments skipped); round after round takes the
    /// next line, cycling.
    #[arg(long, value_name = "FILE")]
    pub openings_file: Option<PathBuf>,
    /// The order of --openings-file's lines: sequential, or random (shuffled
    /// with the seed).
    #[arg(long, value_name = "ORDER", requires = "openings_file", value_parser = parse_order)]
    pub openings_order: Option<OpeningOrder>,
    // Openings in other notations and games ended early: one block, kept
    // together (see adjudication.rs and opening_formats.rs).
    /// Play --openings-file's lines in the board's symmetries: each pass
    /// through the file in the next one (8 on a square board, 4 otherwise),
    /// as c-gomoku-cli's -transform.
    #[arg(long, requires = "openings_file")]
    pub openings_transform: bool,
    /// Adjudicate a game as a draw once this many stones (the opening's
    /// included) are on the board, as c-gomoku-cli's -drawafter.
    #[arg(long, value_name = "PLIES", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub draw_after: Option<u32>,
    /// End a game when its result is proved: by the exact solver once at
    /// most --solver-empties cells are empty (boards of up to 64 cells,
    /// free and exact rules), or by a forced win by fours for the side to
    /// move, found by the referee's own search. Never on less than a proof.
    #[arg(long)]
    pub exact_adjudication: bool,
    /// With --exact-adjudication: ask the solver once at most this many
    /// cells are empty (default 24).
    #[arg(long, value_name = "N", requires = "exact_adjudication", value_parser = clap::value_parser!(u32).range(0..=64))]
    pub solver_empties: Option<u32>,
    /// Adjudicate a game as lost by a side whose own score (search_info, or
    /// its MESSAGE lines) was SCORE or more below zero for COUNT of its
    /// moves in a row, as cutechess-cli's -resign.
    #[arg(long, num_args = 2, value_names = ["COUNT", "SCORE"], value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    pub resign_after: Option<Vec<u64>>,
    /// Adjudicate a game as a draw once at least PLY stones are on the
    /// board and both sides' scores stayed within SCORE of zero for COUNT
    /// of their moves each, as cutechess-cli's -draw.
    #[arg(long, num_args = 3, value_names = ["PLY", "COUNT", "SCORE"], value_parser = clap::value_parser!(u64).range(0..=1_000_000_000_000))]
    pub draw_by_score: Option<Vec<u64>>,
    /// Record each engine move's time, and the depth, score and nodes the
    /// engine gives for it (kinrow engines: search_info; Gomocup brains:
    /// their MESSAGE lines), in --games-out, --sgf-dir and --log-dir.
    #[arg(long)]
    pub move_info: bool,
    /// Write every MESSAGE line of Gomocup brains here, game by game, as
    /// c-gomoku-cli's -msg does.
    #[arg(long, value_name = "FILE")]
    pub messages: Option<PathBuf>,
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Games played at once, each with its own engine processes (default:
    /// the number of CPUs).
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: Option<u32>,
    /// Time per move told to engines with `set movetime`, in ms.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// A whole-game clock per side, in ms: engines are told what is left
    /// before every move (`set timeleft MS`; Gomocup: INFO timeout_match and
    /// time_left); a side whose clock runs out loses on time.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub match_time: Option<u64>,
    /// Write nothing to a Gomocup brain sooner than this many ms after its
    /// answer (some drop a command that comes right after their move); at
    /// most as long as the brain's last move took, so fast brains pay
    /// nothing, and never applied to kinrow engines.
    #[arg(long, value_name = "MS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub write_gap: u64,
    /// Write each finished game as an SGF file here (names:
    /// GAME-X-vs-O.sgf).
    #[arg(long, value_name = "DIR")]
    pub sgf_dir: Option<PathBuf>,
    /// Hard deadline for any reply during games, in ms (default: movetime
    /// plus a margin, else 10000).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub timeout: Option<u64>,
    /// Deadline for a fresh engine process to answer its first requests,
    /// in ms (default: 10000, or --timeout if longer).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub startup_timeout: Option<u64>,
    /// Seed for openings and engine seeds (default: random; always printed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop a two-engine match once decided: elo0,elo1[,alpha,beta].
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]", value_parser = parse_sprt)]
    pub sprt: Option<Sprt>,
    /// Write the JSON summary here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Append one JSON line per finished game here.
    #[arg(long, value_name = "FILE")]
    pub games_out: Option<PathBuf>,
    /// Continue the run whose records are in --games-out FILE: check that
    /// they belong to this run, count them, and play only the missing games.
    #[arg(long, requires = "games_out")]
    pub resume: bool,
    /// Write training samples of each finished game here, in
    /// c-gomoku-cli's layouts (gomoku only): the samples `referee samples`
    /// makes of the run's records, appended.
    #[arg(long, value_name = "FILE")]
    pub samples: Option<PathBuf>,
    /// With --samples: the chance that an engine's move is taken, in
    /// (0, 1] (default 1).
    #[arg(long, value_name = "P", requires = "samples", value_parser = parse_rate)]
    pub sample_rate: Option<f64>,
    /// With --samples: csv, bin or bin-lz4 (default: from the file's
    /// extension, .csv, .bin or .lz4; else csv).
    #[arg(long, value_name = "FORMAT", requires = "samples")]
    pub sample_format: Option<SampleFormat>,
    /// Write engines' stderr and the referee's log here.
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// Play the built-in bots (--bots) on the referee's own threads, with no
    /// processes and no pipes: the same games as with processes, every move
    /// still checked, many times faster.
    #[arg(long)]
    pub in_process: bool,
    /// Play only shard I of N of the run's schedule (pairs p with p mod N =
    /// I - 1); merge the shards' --games-out files with `referee merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
    /// Serve a read-only page of the run on this port (0: any free port;
    /// the address is printed): progress, tallies with Elo, the crosstable,
    /// the boards of the games in progress, move by move.
    #[arg(long, value_name = "PORT")]
    pub serve: Option<u16>,
    /// The address --serve listens on; the default answers this machine
    /// only, any other lets everyone who can reach it watch.
    #[arg(
        long,
        value_name = "ADDRESS",
        default_value = "127.0.0.1",
        requires = "serve"
    )]
    pub serve_bind: IpAddr,
    /// A name the page may be opened by besides the address (repeatable);
    /// requests for any other name are refused, so that another web site
    /// can't point a name of its own at the page (DNS rebinding).
    #[arg(long = "serve-host", value_name = "NAME", requires = "serve", value_parser = crate::cli::parse_host_name)]
    pub serve_hosts: Vec<String>,
    /// When stderr is not a terminal, write a progress line this often, in
    /// seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = parse_every)]
    pub progress_every: f64,
    /// Grace period for engines to exit after `quit`, in ms.
    #[arg(long, value_name = "MS", default_value_t = 300, hide = true)]
    pub grace: u64,

    // Tournaments, rounds and per-engine settings (src/referee/engine_settings.rs).
    /// Who plays whom: round-robin (every engine against every other) or
    /// gauntlet (the first engine against each of the others).
    #[arg(long, value_name = "KIND", default_value = "round-robin", value_parser = parse_tournament)]
    pub tournament: Tournament,
    /// Play the schedule this many times: each pairing plays ROUNDS x
    /// --games games.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    pub rounds: u32,
    /// Settings for every engine, KEY=VALUE words: movetime=MS,
    /// tc=SECS[+INC] (a game clock with increment), depth=N, nodes=N,
    /// dir=DIR (working directory), option.NAME=VALUE (`set NAME VALUE`;
    /// Gomocup: INFO NAME VALUE). Repeatable; later ones win.
    #[arg(long, value_name = "SETTINGS", value_parser = parse_settings)]
    pub each: Vec<Settings>,
    /// Settings for the engine(s) named NAME (by --engine NAME=… or
    /// --bots), as for --each, over --each. Repeatable.
    #[arg(long, value_name = "NAME:SETTINGS", value_parser = parse_named_settings)]
    pub engine_settings: Vec<NamedSettings>,
    /// A reply this many ms past a side's clock still counts (not a loss
    /// on time); the clock then stands at 0.
    #[arg(long, value_name = "MS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub time_margin: u64,
}

fn parse_tournament(s: &str) -> Result<Tournament, String> {
    s.parse()
}

fn parse_settings(s: &str) -> Result<Settings, String> {
    s.parse()
}

fn parse_named_settings(s: &str) -> Result<NamedSettings, String> {
    s.parse()
}

/// Where the watch page listens, and the names it answers to besides its
/// address (`--serve`, `--serve-bind`, `--serve-host`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchAddress {
    pub addr: SocketAddr,
    pub hosts: Vec<String>,
}

impl RunArgs {
    /// Where the watch page listens, if asked.
    pub fn watch_address(&self) -> Option<WatchAddress> {
        self.serve.map(|port| WatchAddress {
            addr: SocketAddr::new(self.serve_bind, port),
            hosts: self.serve_hosts.clone(),
        })
    }
}

/// The rate of samples when none is given: every engine move.
pub const DEFAULT_SAMPLE_RATE: f64 = 1.0;

/// A chance in (0, 1] (`--sample-rate`, `referee samples --rate`).
pub fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 1.0 => Ok(p),
        _ => Err(format!("'{text}' is not a chance in (0, 1]")),
    }
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse().map_err(|e: ShardError| e.to_string())
}

fn parse_every(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.1..=86_400.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{s}' is not a number of seconds from 0.1 to 86400"
        )),
    }
}

fn parse_engine(s: &str) -> Result<EngineSpec, String> {
    s.parse()
}

/// A built-in bot's name (`--bots`, and the bin's `--serve-bot`).
pub fn parse_bot(s: &str) -> Result<BotKind, String> {
    s.parse().map_err(|e: UnknownBot| e.to_string())
}

fn parse_order(s: &str) -> Result<OpeningOrder, String> {
    s.parse()
}

fn parse_sprt(s: &str) -> Result<Sprt, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .map_err(|_| format!("'{p}' is not a number"))
        })
        .collect::<Result<_, _>>()?;
    match v[..] {
        [e0, e1] => Sprt::new(e0, e1, 0.05, 0.05),
        [e0, e1, a, b] => Sprt::new(e0, e1, a, b),
        _ => Err("expected elo0,elo1 or elo0,elo1,alpha,beta".into()),
    }
}
