//! The referee: tournaments between engine processes. Thin: arguments into a
//! checked [`Config`], Ctrl-C into a flag, the watch page (`--serve`) wired
//! to the run as its watcher, then `kinrow::referee::run`.

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use kinrow::bots::BotKind;
use kinrow::cli::ShapeArgs;
use kinrow::referee::merge::MergeConfig;
use kinrow::referee::stats::Sprt;
use kinrow::referee::{
    default_opening_plies, default_startup_timeout, default_timeout, files, say, Config,
    EngineSpec, OpeningOrder, OpeningSource, PastGames, RunOutcome, Shard,
};
use kinrow::serve::watch::Live;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use std::sync::Arc;
use std::time::Duration;

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
    /// An engine, [NAME=][gomocup:|kinrow:]COMMAND; COMMAND is split into
    /// words like a shell does (quotes allowed) and run directly.
    /// `gomocup:` marks a Gomocup (piskvork) brain, as does a program whose
    /// file name starts with pbrain-; `kinrow:` forces kinrow's protocol.
    /// Repeatable.
    #[arg(long = "engine", value_name = "[NAME=][gomocup:]COMMAND", value_parser = parse_engine)]
    engines: Vec<EngineSpec>,
    /// Built-in bots (comma-separated: random, blocking, minimax, mcts), played by
    /// the kinrow binary next to this one.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_bot)]
    bots: Vec<BotKind>,
    /// Games per pairing (rounded up to an even number: pairs with colours
    /// swapped).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    games: u32,
    /// Random opening plies per pair of games (default: 1 on boards of up to
    /// 16 cells, 2 on larger ones, 0 when K is 1 or 2).
    #[arg(long, value_name = "PLIES", conflicts_with = "openings_file")]
    openings: Option<usize>,
    /// Openings from a file: one a line as 1-based cells `R C R C …`
    /// (blank lines and # comments skipped); round after round takes the
    /// next line, cycling.
    #[arg(long, value_name = "FILE")]
    openings_file: Option<PathBuf>,
    /// The order of --openings-file's lines: sequential, or random (shuffled
    /// with the seed).
    #[arg(long, value_name = "ORDER", requires = "openings_file", value_parser = parse_order)]
    openings_order: Option<OpeningOrder>,
    #[command(flatten)]
    shape: ShapeArgs,
    /// Games played at once, each with its own engine processes (default:
    /// the number of CPUs).
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: Option<u32>,
    /// Time per move told to engines with `set movetime`, in ms.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    movetime: Option<u64>,
    /// A whole-game clock per side, in ms: engines are told what is left
    /// before every move (`set timeleft MS`; Gomocup: INFO timeout_match and
    /// time_left); a side whose clock runs out loses on time.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    match_time: Option<u64>,
    /// Write nothing to a Gomocup brain sooner than this many ms after its
    /// answer (some drop a command that comes right after their move); at
    /// most as long as the brain's last move took, so fast brains pay
    /// nothing, and never applied to kinrow engines.
    #[arg(long, value_name = "MS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    write_gap: u64,
    /// Write each finished game as an SGF file here (names:
    /// GAME-X-vs-O.sgf).
    #[arg(long, value_name = "DIR")]
    sgf_dir: Option<PathBuf>,
    /// Hard deadline for any reply during games, in ms (default: movetime
    /// plus a margin, else 10000).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    timeout: Option<u64>,
    /// Deadline for a fresh engine process to answer its first requests,
    /// in ms (default: 10000, or --timeout if longer).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    startup_timeout: Option<u64>,
    /// Seed for openings and engine seeds (default: random; always printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Stop a two-engine match once decided: elo0,elo1[,alpha,beta].
    #[arg(long, value_name = "ELO0,ELO1[,ALPHA,BETA]", value_parser = parse_sprt)]
    sprt: Option<Sprt>,
    /// Write the JSON summary here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Append one JSON line per finished game here.
    #[arg(long, value_name = "FILE")]
    games_out: Option<PathBuf>,
    /// Continue the run whose records are in --games-out FILE: check that
    /// they belong to this run, count them, and play only the missing games.
    #[arg(long, requires = "games_out")]
    resume: bool,
    /// Write engines' stderr and the referee's log here.
    #[arg(long, value_name = "DIR")]
    log_dir: Option<PathBuf>,
    /// Play the built-in bots (--bots) on the referee's own threads, with no
    /// processes and no pipes: the same games as with processes, every move
    /// still checked, many times faster.
    #[arg(long)]
    in_process: bool,
    /// Play only shard I of N of the run's schedule (pairs p with p mod N =
    /// I - 1); merge the shards' --games-out files with `referee merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
    /// Serve a read-only page of the run on this port (0: any free port;
    /// the address is printed): progress, tallies with Elo, the crosstable,
    /// the boards of the games in progress, move by move.
    #[arg(long, value_name = "PORT")]
    serve: Option<u16>,
    /// The address --serve listens on; the default answers this machine
    /// only, any other lets everyone who can reach it watch.
    #[arg(
        long,
        value_name = "ADDRESS",
        default_value = "127.0.0.1",
        requires = "serve"
    )]
    serve_bind: std::net::IpAddr,
    /// When stderr is not a terminal, write a progress line this often, in
    /// seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = parse_every)]
    progress_every: f64,
    /// Grace period for engines to exit after `quit`, in ms.
    #[arg(long, value_name = "MS", default_value_t = 300, hide = true)]
    grace: u64,
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

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse()
        .map_err(|e: kinrow::referee::shard::ShardError| e.to_string())
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

fn parse_bot(s: &str) -> Result<BotKind, String> {
    s.parse()
        .map_err(|e: kinrow::bots::UnknownBot| e.to_string())
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
        (Some(k), _) if k.is_file() => {
            vec![k.display().to_string(), "--bot".into(), bot.name().into()]
        }
        (_, Some(me)) => vec![
            me.display().to_string(),
            "--serve-bot".into(),
            bot.name().into(),
        ],
        _ => vec!["kinrow".into(), "--bot".into(), bot.name().into()],
    }
}

fn usage_error(msg: String) -> ! {
    Cli::command().error(ErrorKind::ValueValidation, msg).exit()
}

/// A run that cannot start (exit status 1, as for the run's own start-up
/// errors).
fn cannot_start(msg: String) -> ! {
    say(&format!("referee: {msg}"));
    std::process::exit(1)
}

fn config(cli: Cli) -> Config {
    let geometry = cli
        .shape
        .geometry()
        .unwrap_or_else(|e| usage_error(format!("--k: {e}")));
    let mut engines = cli.engines;
    let mut bots = cli.bots;
    if engines.is_empty() && bots.is_empty() {
        bots = BotKind::ALL.to_vec();
    }
    engines.extend(bots.into_iter().map(|b| EngineSpec {
        name: Some(b.name().to_string()),
        argv: bot_command(b),
        dialect: kinrow::client::Dialect::Kinrow,
        bot: Some(b),
    }));
    if engines.len() < 2 {
        usage_error("a tournament needs at least two engines (--engine, --bots)".into());
    }
    if cli.sprt.is_some() && engines.len() != 2 {
        usage_error("--sprt needs exactly two engines".into());
    }
    if cli.in_process {
        if let Some(e) = engines.iter().find(|e| e.bot.is_none()) {
            usage_error(format!(
                "--in-process plays built-in bots only (--bots); '{}' is a program: drop \
                 --in-process to run it, or name the bot in --bots",
                e.name
                    .clone()
                    .unwrap_or_else(|| kinrow::client::join_words(&e.argv))
            ));
        }
    }
    if let (Some(_), Some(_)) = (cli.sprt, cli.shard) {
        usage_error(
            "--sprt and --shard: a sequential test stops on the games of the whole match as \
             they finish, which no shard sees; play an SPRT match as one run"
                .into(),
        );
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let openings = match cli.openings_file {
        Some(path) => OpeningSource::File {
            path,
            order: cli.openings_order.unwrap_or_default(),
        },
        None => OpeningSource::Random {
            plies: cli
                .openings
                .unwrap_or_else(|| default_opening_plies(geometry)),
        },
    };
    let timeout = cli
        .timeout
        .map_or_else(|| default_timeout(cli.movetime), Duration::from_millis);
    let mut config = Config {
        engines,
        games: cli.games.saturating_add(cli.games % 2),
        openings,
        geometry,
        concurrency: cli.concurrency.map_or(cpus, |j| j as usize),
        movetime_ms: cli.movetime,
        match_time_ms: cli.match_time,
        write_gap: Duration::from_millis(cli.write_gap),
        sgf_dir: cli.sgf_dir,
        timeout,
        startup_timeout: cli
            .startup_timeout
            .map_or_else(|| default_startup_timeout(timeout), Duration::from_millis),
        grace: Duration::from_millis(cli.grace),
        seed: cli.seed.unwrap_or(0),
        sprt: cli.sprt,
        json: cli.json,
        games_out: cli.games_out,
        resume: None,
        log_dir: cli.log_dir,
        progress: !cli.quiet,
        serve: cli
            .serve
            .map(|port| std::net::SocketAddr::new(cli.serve_bind, port)),
        progress_every: Duration::from_secs_f64(cli.progress_every),
        in_process: cli.in_process,
        shard: cli.shard,
    };
    // The files first: records are read only from a file that is no other
    // file of the run.
    if let Err(e) = config.files().check() {
        cannot_start(format!("{e:#}"));
    }
    if let (Some(path), true) = (&config.games_out, cli.resume) {
        let limit = files::records_limit(config.session_games());
        let past = PastGames::read(path, limit).unwrap_or_else(|e| cannot_start(format!("{e:#}")));
        config.resume = Some(past);
    }
    // Resuming without --seed continues with the seed the records carry.
    let past_seed = config.resume.as_ref().and_then(PastGames::seed);
    if let Some(past) = config.resume.as_ref().filter(|p| !p.records.is_empty()) {
        if cli.seed.is_none() && past_seed.is_none() {
            cannot_start(format!(
                "the records in {} carry no seed (written by an older referee): give the run's --seed",
                past.path.display()
            ));
        }
    }
    config.seed = cli.seed.or(past_seed).unwrap_or_else(rand::random);
    config
}

/// Where the signal handler finds the cancel flag (set once, never freed).
static CANCEL: AtomicPtr<AtomicBool> = AtomicPtr::new(std::ptr::null_mut());
/// The first stopping signal received, or 0.
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

/// The signals that stop a run: Ctrl-C, `kill` (SIGTERM) and a closed
/// terminal (SIGHUP). The first stops it in order; a second one ends it at
/// once, killing every engine first so none is left running.
const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_stop_signal(signal: libc::c_int) {
    // Async-signal-safe: atomic operations, kill_all_now and _exit(2) only.
    if STOPPED_BY
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        kinrow::client::kill_all_now();
        // SAFETY: _exit is async-signal-safe; nothing is flushed on purpose.
        unsafe { libc::_exit(128 + signal) };
    }
    let flag = CANCEL.load(Ordering::SeqCst);
    // SAFETY: the pointer comes from Arc::into_raw and is never freed.
    if let Some(flag) = unsafe { flag.as_ref() } {
        flag.store(true, Ordering::SeqCst);
    }
}

/// A stopping signal raises the returned flag (see [`STOP_SIGNALS`]).
fn cancel_on_stop_signals() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    CANCEL.store(
        Arc::into_raw(Arc::clone(&flag)) as *mut AtomicBool,
        Ordering::SeqCst,
    );
    for signal in STOP_SIGNALS {
        // SAFETY: reading the current disposition, then installing a
        // handler that is async-signal-safe.
        unsafe {
            // A signal ignored when we started (`nohup`, a background job of
            // a script) stays ignored, as the shell meant.
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
    flag
}

fn serve(bot: BotKind) -> ExitCode {
    let config = kinrow::protocol::EngineConfig {
        bot,
        seed: rand::random(),
        ..Default::default()
    };
    // Buffered (stdout alone is line-buffered): the engine flushes when it
    // has answered everything pipelined, so one request batch is one write.
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match kinrow::protocol::Engine::new(config).run(std::io::stdin(), stdout) {
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

/// The run, watched by the page of `--serve` if asked. The page is up
/// before the engines start, so a port in use stops the run before
/// anything is played.
fn run(config: &Config, cancel: Arc<AtomicBool>) -> anyhow::Result<RunOutcome> {
    let Some(addr) = config.serve else {
        return kinrow::referee::run(config, cancel, None);
    };
    let live = Arc::new(Live::new());
    let url = kinrow::serve::watch::start(addr.ip(), addr.port(), Arc::clone(&live))?;
    say(&format!("referee: watch the run at {url}"));
    kinrow::referee::run(config, cancel, Some(&*live))
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    if let Some(Sub::Merge(args)) = cli.command.take() {
        return merge(args);
    }
    if let Some(bot) = cli.serve_bot {
        return serve(bot);
    }
    let config = config(cli);
    // No engine, nor anything one starts, outlives the run, however it
    // ends (kinrow::client's reaper); the warden forks, so it comes before
    // any thread.
    kinrow::client::start_warden();
    kinrow::client::adopt_orphans();
    let cancel = cancel_on_stop_signals();
    let result = run(&config, cancel);
    kinrow::client::sweep_adopted();
    match result {
        Ok(outcome) => {
            // A closed stdout (`referee | head`) must not panic the run.
            let _ =
                std::io::Write::write_all(&mut std::io::stdout().lock(), outcome.report.as_bytes());
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
                let signal = STOPPED_BY.load(Ordering::SeqCst);
                ExitCode::from(if signal > 0 {
                    (128 + signal) as u8
                } else {
                    130
                })
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
