//! The kinrow engine: speaks the line protocol on stdin/stdout, or runs the
//! terminal front end with `kinrow play`.

use anyhow::Context;
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use kinrow::cli::ShapeArgs;
use kinrow::engine::EngineArgs;
use kinrow::play::PlayArgs;
use kinrow::protocol::gomocup::is_brain_name;
use kinrow::serve::ServeArgs;
use std::process::ExitCode;

const PROTOCOL_SUMMARY: &str = "\
Protocol (GTP framing; one request per line, `[id] command [args]`):
  newgame [ROWS COLS K [RULE]]   move R C   genmove   undo
  show   status   legal   forbidden   protocol_version   name   version
  known_command X   list_commands   quit
  RULE: free, exact, renju (Black, X, may not play an overline, a
    double-four or a double-three: `forbidden` lists those cells), caro
    (a five blocked at both ends does not win) or caro-exact
  solve [SECONDS]   analyze [SECONDS]   (exact solver, up to 64 cells)
  set NAME VALUE: bot, seed, movetime and timeleft (ms); depth (minimax:
    plies, 0 = no cap), nodes (a move's nodes, 0 = no cap), hash (its table,
    MiB; see docs/minimax.md); iterations, exploration, prior, memory, reuse
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
    #[command(flatten)]
    engine: EngineArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play in the terminal: people against people, bots or any engine.
    Play(PlayArgs),
    /// Prove who wins a position, in how many plies, and by which line.
    Solve(kinrow::solve_cli::SolveArgs),
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

/// Exits as clap does for a bad flag (its message, exit status 2), with the
/// usage of `subcommand` when the flag was given to one.
fn usage_error(subcommand: Option<&str>, kind: ErrorKind, message: impl std::fmt::Display) -> ! {
    let mut command = Cli::command();
    command.build();
    let command = match subcommand.and_then(|s| command.find_subcommand_mut(s)) {
        Some(sub) => sub,
        None => &mut command,
    };
    command.error(kind, message).exit()
}

fn run(cli: Cli) -> anyhow::Result<()> {
    // A bad flag combination is a usage error like any other: clap's
    // message, the usage of the command it was given to (`kinrow play`'s
    // for play's flags), and exit status 2.
    let checked = |shape: &ShapeArgs, subcommand: Option<&str>| match shape.geometry() {
        Ok(g) => g,
        Err(e) => usage_error(subcommand, ErrorKind::ValueValidation, format!("--k: {e}")),
    };
    match cli.command {
        Some(Command::Play(args)) => {
            checked(&args.shape, Some("play"));
            return kinrow::play::run(args);
        }
        Some(Command::Solve(args)) => {
            if let Err(e) = args.position() {
                usage_error(Some("solve"), ErrorKind::ValueValidation, format!("{e:#}"));
            }
            return kinrow::solve_cli::run(args);
        }
        Some(Command::Serve(args)) => {
            if let Err(e) = args.check() {
                usage_error(Some("serve"), ErrorKind::ArgumentConflict, e);
            }
            return kinrow::serve::run(args);
        }
        Some(Command::Convert(args)) => {
            let fallback = args
                .shape
                .any_given()
                .then(|| checked(&args.shape, Some("convert")));
            let done =
                kinrow::referee::convert::convert_games(&args.games, args.to, &args.out, fallback)?;
            for (line, name) in &done.renamed {
                eprintln!("kinrow convert: line {line} is a game seen before: written as {name}");
            }
            eprintln!(
                "kinrow convert: wrote {} {} files to {}",
                done.written,
                args.to.extension(),
                args.out.display()
            );
            return Ok(());
        }
        None => {}
    }
    let started_as_brain = std::env::args_os()
        .next()
        .is_some_and(|a| is_brain_name(&a.to_string_lossy()));
    let setup = match cli.engine.check(started_as_brain) {
        Ok(setup) => setup,
        Err(e) => usage_error(None, e.clap_kind(), e),
    };
    // Stdout alone is line-buffered: it would write every reply line by
    // line. The engines flush each reply (or batch of pipelined replies)
    // themselves, so a plain buffer gives one write per batch.
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    setup
        .run(std::io::stdin(), stdout)
        .context("protocol I/O failed")
}
