//! The `mcts` bot's speed: random playouts per second inside its search
//! (tree walk, expansion, solver and back-up included) next to the bare
//! `rules::Playouts` loop in the same run, and how fast it proves small
//! games. Prints figures; asserts nothing. Run it through
//! `scripts/bench-mcts.sh`.
//!
//! ```text
//! cargo run --release --example bench-mcts -- --movetime 200 --moves 20
//! ```

use anyhow::Result;
use clap::Parser;
use kinrow::bots::{Bot, Limits, Mcts};
use kinrow::rules::{Board, Geometry, Playouts, Rule};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "kinrow mcts benchmark: playouts per second inside the search")]
struct Args {
    /// Milliseconds per move of the searches.
    #[arg(long, default_value_t = 200)]
    movetime: u64,
    /// Moves of self-play measured per board (games restart when they end).
    #[arg(long, default_value_t = 20)]
    moves: usize,
    /// Seconds of bare playouts per board.
    #[arg(long, default_value_t = 1.0)]
    playout_secs: f64,
    /// Boards as ROWSxCOLS:K (default: 3x3:3, 5x5:4, 7x7:5, 15x15:5).
    #[arg(long, value_delimiter = ',')]
    boards: Vec<String>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn parse_board(s: &str) -> Result<Geometry> {
    let (size, k) = s.split_once(':').unwrap_or((s, "5"));
    let (r, c) = size.split_once('x').unwrap_or((size, size));
    Ok(Geometry::new(
        r.parse()?,
        c.parse()?,
        k.parse()?,
        Rule::Free,
    )?)
}

/// Bare playouts per second from the empty board.
fn bare_rate(geo: Geometry, secs: f64, seed: u64) -> f64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut p = Playouts::new(&Board::new(geo));
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed().as_secs_f64() < secs {
        for _ in 0..1000 {
            std::hint::black_box(p.run(&mut rng));
        }
        n += 1000;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn main() -> Result<()> {
    let args = Args::parse();
    let boards = if args.boards.is_empty() {
        vec![
            "3x3:3".into(),
            "5x5:4".into(),
            "7x7:5".into(),
            "15x15:5".into(),
        ]
    } else {
        args.boards.clone()
    };
    println!(
        "# mcts: {} ms a move, {} moves of self-play per board; bare playouts {} s",
        args.movetime, args.moves, args.playout_secs
    );
    println!(
        "{:<10} {:>13} {:>13} {:>7} {:>12} {:>10} {:>9} {:>12}",
        "board",
        "bare/s",
        "in mcts/s",
        "ratio",
        "iterations/s",
        "proven",
        "max nodes",
        "longest move"
    );
    for b in &boards {
        let geo = parse_board(b)?;
        let bare = bare_rate(geo, args.playout_secs, args.seed);
        let mut bot = Mcts::new(args.seed);
        let mut board = Board::new(geo);
        let (mut playouts, mut iterations, mut proven, mut nodes) = (0u64, 0u64, 0usize, 0usize);
        let mut busy = Duration::ZERO;
        let mut longest = Duration::ZERO;
        for _ in 0..args.moves {
            if board.is_over() {
                board = Board::new(geo);
                bot.new_game();
            }
            let cell = bot.choose(
                &board,
                Limits::starting_now(Duration::from_millis(args.movetime)),
            );
            let r = bot.last_report();
            playouts += r.playouts;
            iterations += r.iterations;
            busy += r.elapsed;
            longest = longest.max(r.elapsed);
            proven += usize::from(r.proven.is_some());
            nodes = nodes.max(r.nodes);
            board.try_play(cell)?;
        }
        let secs = busy.as_secs_f64().max(1e-9);
        let inside = playouts as f64 / secs;
        println!(
            "{:<10} {:>13.0} {:>13.0} {:>7.2} {:>12.0} {:>6}/{:<3} {:>9} {:>9.1} ms",
            format!("{}x{} k{}", geo.rows(), geo.cols(), geo.k()),
            bare,
            inside,
            inside / bare,
            iterations as f64 / secs,
            proven,
            args.moves,
            nodes,
            longest.as_secs_f64() * 1e3
        );
    }
    // Proving the empty tic-tac-toe (a draw) and 3x4 k3 (a win) boards.
    for (name, geo) in [
        ("3x3 k3", Geometry::TIC_TAC_TOE),
        ("3x4 k3", Geometry::new(3, 4, 3, Rule::Free)?),
    ] {
        let mut bot = Mcts::new(args.seed);
        bot.choose(
            &Board::new(geo),
            Limits::starting_now(Duration::from_secs(60)),
        );
        let r = bot.last_report();
        println!(
            "proving the empty {name}: {:?} after {} iterations, {:.1} ms, {} nodes",
            r.proven,
            r.iterations,
            r.elapsed.as_secs_f64() * 1e3,
            r.nodes
        );
    }
    Ok(())
}
