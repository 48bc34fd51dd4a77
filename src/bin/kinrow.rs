//! The kinrow engine: speaks the line protocol on stdin/stdout, or runs the
//! terminal front end with `kinrow play`.

use anyhow::Context;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use kinrow::bots::BotKind;
use kinrow::cli::ShapeArgs;
use kinrow::play::PlayArgs;
use kinrow::protocol::{Engine, EngineConfig};
use std::process::ExitCode;

const PROTOCOL_SUMMARY: &str = "\
Protocol (GTP framing; one request per line, `[id] command [args]`):
  newgame [ROWS COLS K [free|exact]]   move R C   genmove   undo
  show   status   legal   set NAME VALUE (bot, seed, movetime; per bot: see README)
  protocol_version   name   version   known_command X   list_commands   quit
Replies: `=[id] result` or `?[id] message`, each ending with an empty line.
Cells are `R C`, 1-based, row 1 at the top. Example: printf 'genmove\\nshow\\n' | kinrow";

/// A k-in-a-row engine that speaks a GTP-style line protocol on stdin/stdout.
#[derive(Parser, Debug)]
#[command(name = "kinrow", version, after_help = PROTOCOL_SUMMARY)]
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
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play in the terminal: people against people, bots or any engine.
    Play(PlayArgs),
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
            eprintln!("kinrow: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    // A bad flag combination is a usage error like any other: clap's
    // message and exit status 2.
    let checked = |shape: &ShapeArgs| match shape.geometry() {
        Ok(g) => g,
        Err(e) => Cli::command()
            .error(ErrorKind::ValueValidation, format!("--k: {e}"))
            .exit(),
    };
    if let Some(Command::Play(args)) = cli.command {
        checked(&args.shape);
        return kinrow::play::run(args);
    }
    let geometry = checked(&cli.shape);
    let config = EngineConfig {
        geometry,
        bot: cli.bot,
        seed: cli.seed.unwrap_or_else(rand::random),
        movetime: cli.movetime.map(std::time::Duration::from_millis),
    };
    let stdin = std::io::stdin();
    // Stdout alone is line-buffered: it would write every reply line by
    // line. The engine flushes each reply (or batch of pipelined replies)
    // itself, so a plain buffer gives one write per batch.
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    Engine::new(config)
        .run(stdin, stdout)
        .context("protocol I/O failed")
}
