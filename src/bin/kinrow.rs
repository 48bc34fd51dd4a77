//! The kinrow engine: speaks the line protocol on stdin/stdout, or runs the
//! terminal front end with `kinrow play`.

use anyhow::Context;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use kinrow::bots::BotKind;
use kinrow::cli::ShapeArgs;
use kinrow::dialects::gomocup::{is_brain_name, Brain, BrainConfig};
use kinrow::play::PlayArgs;
use kinrow::protocol::{Engine, EngineConfig};
use kinrow::serve::ServeArgs;
use std::process::ExitCode;

const PROTOCOL_SUMMARY: &str = "\
Protocol (GTP framing; one request per line, `[id] command [args]`):
  newgame [ROWS COLS K [free|exact]]   move R C   genmove   undo
  show   status   legal   protocol_version   name   version
  known_command X   list_commands   quit
  solve [SECONDS]   analyze [SECONDS]   (exact solver, up to 64 cells)
  set NAME VALUE: bot, seed, movetime and timeleft (ms); depth (minimax:
    plies, 0 = no cap); iterations, exploration, prior, memory, reuse
    (mcts: see docs/mcts.md). A bot option is kept for the session and
    applies to every bot that has it, set before or after `set bot`; an
    option no bot has is refused.
Replies: `=[id] result` or `?[id] message`, each ending with an empty line.
Cells are `R C`, 1-based, row 1 at the top.
Example: printf 'genmove\\nshow\\n' | kinrow
Other protocols: --protocol gomocup (the Gomocup brain protocol; also when this
program is started under a name beginning with pbrain-, e.g. a symlink
pbrain-kinrow) and --protocol gtp (GTP with GoGui's gogui-rules_* commands).";

/// A k-in-a-row engine that speaks a GTP-style line protocol on stdin/stdout.
#[derive(Parser, Debug)]
#[command(name = "kinrow", version, after_help = PROTOCOL_SUMMARY, max_term_width = 80)]
struct Cli {
    /// The bot that answers genmove: random, blocking, minimax or mcts.
    #[arg(long, default_value = "minimax", value_parser = parse_bot)]
    bot: BotKind,
    /// Seed for the bot's random choices (default: a fresh random seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Time per move for searching bots, in milliseconds.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    movetime: Option<u64>,
    #[command(flatten)]
    shape: ShapeArgs,
    /// The protocol on stdin/stdout: kinrow (default), gomocup (a Gomocup
    /// brain: the manager sets the board with START; K is 5 unless --k says
    /// otherwise; the default when started as pbrain-*), gtp (GTP version 2
    /// with GoGui's rules commands; square boards up to 25x25).
    #[arg(long, value_enum)]
    protocol: Option<Protocol>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// The protocols the engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Protocol {
    Kinrow,
    Gomocup,
    Gtp,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play in the terminal: people against people, bots or any engine.
    Play(PlayArgs),
    /// Prove the value of a position: who wins, in how many plies, and how.
    Solve(kinrow::solve::SolveArgs),
    /// Play in the browser: a local web page, served by this program.
    Serve(ServeArgs),
    /// Turn a referee's --games-out records (JSON lines) into SGF or
    /// Piskvork .psq files, one per game.
    Convert(ConvertArgs),
}

/// Options of `kinrow convert`.
#[derive(clap::Args, Debug)]
struct ConvertArgs {
    /// The --games-out file of a referee run.
    #[arg(value_name = "GAMES.jsonl")]
    games: std::path::PathBuf,
    /// The record format: sgf or psq.
    #[arg(long, value_name = "FORMAT", default_value = "sgf")]
    to: kinrow::records::Format,
    /// The directory for the files (created if missing).
    #[arg(long, value_name = "DIR")]
    out: std::path::PathBuf,
    /// The board of records written before they carried it (--board, --k,
    /// --rule as the run had them).
    #[command(flatten)]
    shape: ShapeArgs,
}

fn parse_bot(s: &str) -> Result<BotKind, String> {
    s.parse()
        .map_err(|e: kinrow::bots::UnknownBot| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Whoever read our output has gone (a controller that quit, `| head`):
        // nothing is left to say, and no one to say it to.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}", kinrow::cli::wrap_message(&format!("kinrow: {e:#}")));
            ExitCode::FAILURE
        }
    }
}

/// A bad flag combination: clap's message and exit status 2.
fn usage(message: String) -> ! {
    Cli::command()
        .error(ErrorKind::ArgumentConflict, message)
        .exit()
}

fn run(cli: Cli) -> anyhow::Result<()> {
    // A bad flag combination is a usage error like any other: clap's
    // message, the usage of the command it was given to (`kinrow play`'s
    // for play's flags), and exit status 2.
    let checked = |shape: &ShapeArgs, subcommand: Option<&str>| match shape.geometry() {
        Ok(g) => g,
        Err(e) => {
            let mut command = Cli::command();
            command.build();
            let command = match subcommand.and_then(|s| command.find_subcommand_mut(s)) {
                Some(sub) => sub,
                None => &mut command,
            };
            command
                .error(ErrorKind::ValueValidation, format!("--k: {e}"))
                .exit()
        }
    };
    match cli.command {
        Some(Command::Play(args)) => {
            checked(&args.shape, Some("play"));
            return kinrow::play::run(args);
        }
        Some(Command::Solve(args)) => {
            if let Err(e) = args.geometry() {
                Cli::command()
                    .error(ErrorKind::ValueValidation, format!("{e:#}"))
                    .exit();
            }
            return kinrow::solve::run(args);
        }
        Some(Command::Serve(args)) => {
            if let Err(e) = args.check() {
                Cli::command().error(ErrorKind::ArgumentConflict, e).exit();
            }
            return kinrow::serve::run(args);
        }
        Some(Command::Convert(args)) => {
            let fallback = args
                .shape
                .any_given()
                .then(|| checked(&args.shape, Some("convert")));
            let n =
                kinrow::referee::convert::convert_games(&args.games, args.to, &args.out, fallback)?;
            eprintln!(
                "kinrow convert: wrote {n} {} files to {}",
                args.to.extension(),
                args.out.display()
            );
            return Ok(());
        }
        None => {}
    }
    let seed = cli.seed.unwrap_or_else(rand::random);
    let movetime = cli.movetime.map(std::time::Duration::from_millis);
    let started_as_brain = std::env::args_os()
        .next()
        .is_some_and(|a| is_brain_name(&a.to_string_lossy()));
    let protocol = cli.protocol.unwrap_or(if started_as_brain {
        Protocol::Gomocup
    } else {
        Protocol::Kinrow
    });
    // Stdout alone is line-buffered: it would write every reply line by
    // line. The engines flush each reply (or batch of pipelined replies)
    // themselves, so a plain buffer gives one write per batch.
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match protocol {
        Protocol::Kinrow => {}
        Protocol::Gomocup => {
            if cli.shape.board.is_some() {
                usage("--board: a Gomocup manager sets the board (START, RECTSTART)".into());
            }
            let k = cli.shape.k.unwrap_or(5);
            if !(1..=kinrow::rules::MAX_SIDE as u32).contains(&k) {
                usage(format!(
                    "--k {k}: must be from 1 to {}",
                    kinrow::rules::MAX_SIDE
                ));
            }
            let config = BrainConfig {
                k,
                rule: cli.shape.rule.unwrap_or_default(),
                bot: cli.bot,
                seed,
                movetime_cap: movetime,
            };
            return Brain::new(config)
                .run(std::io::stdin(), stdout)
                .context("protocol I/O failed");
        }
        Protocol::Gtp => {
            let geometry = checked(&cli.shape, None);
            if let Err(e) = kinrow::dialects::gtp::check_board(geometry) {
                usage(format!("--board: {e}"));
            }
            return kinrow::dialects::gtp::GtpEngine::new(geometry, cli.bot, seed, movetime)
                .run(std::io::stdin(), stdout)
                .context("protocol I/O failed");
        }
    }
    let geometry = checked(&cli.shape, None);
    let config = EngineConfig {
        geometry,
        bot: cli.bot,
        seed,
        movetime,
    };
    let stdin = std::io::stdin();
    Engine::new(config)
        .run(stdin, stdout)
        .context("protocol I/O failed")
}
