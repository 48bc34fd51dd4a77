//! Engine benchmark: random playouts per second in process (free, and renju
//! beside it on 15x15, with the cost of renju's forbidden check), and
//! protocol round trips per second through the `kinrow` binary against the
//! pipe floor measured by `pipe-limit` (DESIGN.md §6). Prints figures and
//! ratios; run it
//! through `scripts/bench-engine.sh`, which builds everything and runs the
//! pipe part pinned to one CPU and unpinned.
//!
//! ```text
//! cargo run --release --example bench-engine -- --kinrow target/release/kinrow \
//!     --pipe-limit target/pipe-limit
//! ```

use anyhow::{bail, Context, Result};
use clap::Parser;
use kinrow::rules::{random_below, Board, Cell, Geometry, Player, Playouts, Rule};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// OpenSpiel 2.0.2's C++ random-playout loop (`RandomRolloutEvaluator`,
/// driven through pyspiel), playouts per CPU-second on one core of the
/// development VM, measured last beside this benchmark, pinned:
/// `tic_tac_toe` 0.49–0.68 M, `gomoku` (15x15, five) 5.3–7.8 k
/// (docs/engine-bench.md). A fixed figure from another run: for a ratio
/// that means something, run scripts/bench-openspiel.py in the same run
/// (scripts/bench-engine.sh does, with OPENSPIEL_PYTHON).
const OPENSPIEL_3X3: f64 = 550_000.0;
const OPENSPIEL_15X15: f64 = 6_300.0;

/// CPU time used by this thread so far.
fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[derive(Parser)]
#[command(about = "kinrow engine benchmark: playouts and protocol round trips")]
struct Args {
    /// Seconds of playouts per board.
    #[arg(long, default_value_t = 2.0)]
    playout_secs: f64,
    /// Play exactly this many playouts per board instead of timing them (for
    /// profilers such as `valgrind --tool=callgrind`).
    #[arg(long)]
    playout_count: Option<u64>,
    /// Only the playouts on this board (`3x3` or `15x15`).
    #[arg(long)]
    only: Option<String>,
    /// Skip the playouts (pipes only).
    #[arg(long)]
    skip_playouts: bool,
    /// The kinrow binary for round trips (skipped when absent).
    #[arg(long)]
    kinrow: Option<PathBuf>,
    /// The compiled scripts/bench/pipe-limit.rs, for the floor.
    #[arg(long)]
    pipe_limit: Option<PathBuf>,
    /// Round trips per measurement, over all rounds.
    #[arg(long, default_value_t = 100_000)]
    round_trips: usize,
    /// Alternating rounds of pipe-limit and kinrow measurements.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// A label for the pipe figures (e.g. "pinned to cpu 0").
    #[arg(long, default_value = "")]
    label: String,
    /// Seed for the playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if !args.skip_playouts {
        println!("# random playouts in process (one thread)");
        playouts("3x3 k3", Geometry::TIC_TAC_TOE, Some(OPENSPIEL_3X3), &args)?;
        let free = playouts(
            "15x15 k5",
            Geometry::new(15, 15, 5, Rule::Free)?,
            Some(OPENSPIEL_15X15),
            &args,
        )?;
        let renju = playouts(
            "15x15 k5 renju",
            Geometry::new(15, 15, 5, Rule::Renju)?,
            None,
            &args,
        )?;
        if let (Some(free), Some(renju)) = (free, renju) {
            println!(
                "renju beside free on 15x15, same run: Board loop {:.2}x the rate, Playouts {:.2}x",
                renju[0] / free[0],
                renju[1] / free[1]
            );
        }
        if args
            .only
            .as_ref()
            .is_none_or(|o| "15x15 k5 renju".starts_with(o.as_str()))
        {
            forbidden_check_cost(&args);
        }
    }
    if let Some(kinrow) = &args.kinrow {
        round_trips(&args, kinrow)?;
    }
    Ok(())
}

/// Plays uniformly random games from the empty board to the end for about
/// `--playout-secs` seconds (or `--playout-count` times) and prints the rate
/// and the results; the rates (per CPU-second) of the `Board` loop and of
/// `Playouts`, unless `--only` leaves the board out.
fn playouts(
    name: &str,
    geo: Geometry,
    openspiel: Option<f64>,
    args: &Args,
) -> Result<Option<[f64; 2]>> {
    if args
        .only
        .as_ref()
        .is_some_and(|only| !name.starts_with(only.as_str()))
    {
        return Ok(None);
    }
    // The loop a search would write on the general Board API.
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let mut board = Board::new(geo);
    let all_squares: Vec<usize> = board.squares().collect();
    let mut empties: Vec<usize> = Vec::with_capacity(all_squares.len());
    let forbids = geo.rule().forbids(Player::X);
    let board_rate = time_playouts(&format!("{name} Board"), openspiel, args, || {
        board.clear();
        empties.clear();
        empties.extend_from_slice(&all_squares);
        let outcome = loop {
            let square = if forbids && board.to_move() == Player::X {
                // Renju's Black: draw until an allowed cell comes up,
                // forbidden ones set aside for this turn (the board ends
                // the game when none is left).
                let mut left = empties.len();
                loop {
                    let i = random_below(&mut rng, left);
                    if board.forbidden_square(empties[i]).is_none() {
                        break empties.swap_remove(i);
                    }
                    left -= 1;
                    empties.swap(i, left);
                }
            } else {
                let i = random_below(&mut rng, empties.len());
                empties.swap_remove(i)
            };
            if let Some(outcome) = board.play_unchecked(square) {
                break outcome;
            }
        };
        (outcome.winner(), board.ply())
    });
    // The library's playout engine (bit masks up to 64 cells).
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let mut fast = Playouts::new(&Board::new(geo));
    let playouts_rate = time_playouts(&format!("{name} Playouts"), openspiel, args, || {
        let winner = fast.run(&mut rng);
        (winner, fast.last_len())
    });
    Ok(Some([board_rate, playouts_rate]))
}

/// What one renju forbidden check costs: `Board::forbidden_square` on every
/// empty cell of the positions with Black to move of random games (most
/// cells stop at the four-popcount filter), on the forbidden cells alone
/// (each takes the full check), and `legal_moves` per position (what a bot
/// pays to list Black's moves).
fn forbidden_check_cost(args: &Args) {
    let geo = Geometry::new(15, 15, 5, Rule::Renju).expect("15x15 renju");
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let mut positions: Vec<Board> = Vec::new();
    while positions.len() < 4000 {
        let mut board = Board::new(geo);
        while !board.is_over() {
            if board.to_move() == Player::X {
                positions.push(board.clone());
            }
            let legal: Vec<Cell> = board.legal_moves().collect();
            let cell = legal[random_below(&mut rng, legal.len())];
            board.try_play(cell).expect("a legal move");
        }
    }
    // Each position's cells checked many times over before the next, so
    // that the board is in the cache as in a search or a playout.
    let empty: Vec<Vec<usize>> = positions
        .iter()
        .map(|b| b.squares().filter(|&s| b.is_empty_square(s)).collect())
        .collect();
    let forbidden: Vec<Vec<usize>> = positions
        .iter()
        .zip(&empty)
        .map(|(b, squares)| {
            let forbidden = squares.iter().copied();
            forbidden
                .filter(|&s| b.forbidden_square(s).is_some())
                .collect()
        })
        .collect();
    const ROUNDS: usize = 20;
    let time = |what: &str, cells: &[Vec<usize>]| {
        let cpu = thread_cpu_time();
        let (mut calls, mut found) = (0usize, 0usize);
        for (b, squares) in positions.iter().zip(cells) {
            for _ in 0..ROUNDS {
                for &s in squares {
                    found += usize::from(b.forbidden_square(s).is_some());
                }
            }
            calls += ROUNDS * squares.len();
        }
        let ns = (thread_cpu_time() - cpu).as_secs_f64() * 1e9 / calls.max(1) as f64;
        println!(
            "forbidden check {what:28} {ns:>7.1} ns/call  ({} cells, {:.2} % forbidden)",
            calls / ROUNDS,
            100.0 * found as f64 / calls.max(1) as f64
        );
    };
    println!(
        "# renju's forbidden check (CPU time), {} positions with Black to move from random 15x15 games",
        positions.len()
    );
    time("on every empty cell", &empty);
    time("on the forbidden cells", &forbidden);
    let cpu = thread_cpu_time();
    let mut moves = 0usize;
    for b in &positions {
        for _ in 0..ROUNDS {
            moves += b.legal_moves().count();
        }
    }
    let us = (thread_cpu_time() - cpu).as_secs_f64() * 1e6 / (ROUNDS * positions.len()) as f64;
    println!(
        "legal_moves for Black           {us:>7.2} us/position  ({:.0} moves on average)",
        moves as f64 / (ROUNDS * positions.len()) as f64
    );
}

/// Runs `one` (a playout returning its winner and length) for the time or
/// count asked, prints the rate against OpenSpiel's and returns it.
fn time_playouts(
    label: &str,
    openspiel: Option<f64>,
    args: &Args,
    mut one: impl FnMut() -> (Option<Player>, usize),
) -> f64 {
    // [X wins, O wins, draws]
    let mut results = [0u64; 3];
    let mut plies = 0u64;
    let budget = Duration::from_secs_f64(args.playout_secs);
    let start = Instant::now();
    let cpu_start = thread_cpu_time();
    let mut games = 0u64;
    // Check the clock once per batch so that timing costs nothing.
    while match args.playout_count {
        Some(count) => games < count,
        None => start.elapsed() < budget,
    } {
        for _ in 0..1000 {
            let (winner, len) = one();
            plies += len as u64;
            results[match winner {
                Some(Player::X) => 0,
                Some(Player::O) => 1,
                None => 2,
            }] += 1;
        }
        games += 1000;
    }
    let wall = start.elapsed().as_secs_f64();
    // Per CPU-second, as OpenSpiel's figure: on a shared machine the wall
    // clock also counts the time other processes had the CPU.
    let elapsed = (thread_cpu_time() - cpu_start).as_secs_f64();
    let rate = games as f64 / elapsed;
    let pct = |n: u64| 100.0 * n as f64 / games as f64;
    // OpenSpiel plays free gomoku only.
    let against = match openspiel {
        Some(o) => format!("x{:.1} OpenSpiel ({o:.0}/CPU-s)", rate / o),
        None => String::new(),
    };
    println!(
        "playouts {label:24} {:>12.0}/CPU-s ({:.0}/s wall)  {:>6.1} ns/playout  {:>5.1} ns/ply  \
         {against}  [X {:.1}% O {:.1}% draw {:.1}%, {:.1} plies]",
        rate,
        games as f64 / wall,
        1e9 / rate,
        1e9 * elapsed / plies as f64,
        pct(results[0]),
        pct(results[1]),
        pct(results[2]),
        plies as f64 / games as f64,
    );
    rate
}

/// A running `kinrow` with its pipes.
struct Engine {
    child: std::process::Child,
    to: std::process::ChildStdin,
    from: BufReader<std::process::ChildStdout>,
    line: String,
}

impl Engine {
    fn spawn(path: &PathBuf) -> Result<Engine> {
        let mut child = Command::new(path)
            .args(["--bot", "random", "--seed", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", path.display()))?;
        let to = child.stdin.take().context("no stdin")?;
        let from = BufReader::new(child.stdout.take().context("no stdout")?);
        Ok(Engine {
            child,
            to,
            from,
            line: String::new(),
        })
    }

    /// Sends one request and waits for its whole reply; fails on `?`.
    /// Returns whether the first line of the reply contained `needle`.
    fn request(&mut self, req: &[u8], needle: &str) -> Result<bool> {
        self.to.write_all(req)?;
        self.to.flush()?;
        self.line.clear();
        if self.from.read_line(&mut self.line)? == 0 {
            bail!("the engine closed its output");
        }
        if self.line.starts_with('?') {
            bail!(
                "the engine refused {:?}: {}",
                String::from_utf8_lossy(req),
                self.line
            );
        }
        let found = self.line.contains(needle);
        while self.line != "\n" {
            self.line.clear();
            if self.from.read_line(&mut self.line)? == 0 {
                bail!("the engine closed its output");
            }
        }
        Ok(found)
    }

    fn quit(mut self) -> Result<()> {
        self.request(b"quit\n", "")?;
        self.child.wait()?;
        Ok(())
    }
}

/// Round trips per second through `kinrow`, next to the pipe floor: in
/// alternating rounds, so that both see the same phases of a busy machine,
/// reporting the median round and the range.
fn round_trips(args: &Args, kinrow: &PathBuf) -> Result<()> {
    let rounds = args.rounds.max(1);
    let per_round = (args.round_trips / rounds).max(1);
    println!(
        "# protocol round trips, {rounds} alternating rounds of {per_round}, {}",
        args.label
    );
    let mut engine = Engine::spawn(kinrow)?;
    let mut floor = Vec::new();
    let mut measured: [(&str, Vec<f64>); 3] = [
        ("status", Vec::new()),
        ("move/undo", Vec::new()),
        ("genmove+status", Vec::new()),
    ];
    for _ in 0..rounds {
        if let Some(path) = &args.pipe_limit {
            floor.push(pipe_limit(path, per_round)?);
        }
        measured[0]
            .1
            .push(status_round_trips(&mut engine, per_round)?);
        measured[1]
            .1
            .push(move_undo_round_trips(&mut engine, per_round)?);
        measured[2]
            .1
            .push(genmove_round_trips(&mut engine, per_round)?);
    }
    engine.quit()?;

    let floor = (!floor.is_empty()).then(|| summary(&mut floor));
    if let Some((median, low, high)) = floor {
        println!(
            "pipe-limit floor       {median:>10.0} rt/s  {:>6.2} us/rt  (rounds {low:.0}..{high:.0})",
            1e6 / median
        );
    }
    for (what, rates) in &mut measured {
        let (median, low, high) = summary(rates);
        print!(
            "kinrow {what:15} {median:>10.0} rt/s  {:>6.2} us/rt  (rounds {low:.0}..{high:.0})",
            1e6 / median
        );
        match floor {
            Some((f, _, _)) => println!("  {:.2} of the floor", median / f),
            None => println!(),
        }
    }
    Ok(())
}

/// Median, lowest and highest of some rates.
fn summary(rates: &mut [f64]) -> (f64, f64, f64) {
    rates.sort_by(f64::total_cmp);
    (rates[rates.len() / 2], rates[0], rates[rates.len() - 1])
}

/// Runs the compiled pipe-limit for `n` round trips and returns its rate.
fn pipe_limit(path: &PathBuf, n: usize) -> Result<f64> {
    let out = Command::new(path)
        .arg(n.to_string())
        .output()
        .with_context(|| format!("running {}", path.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find_map(|w| w.strip_prefix("rt_per_s="))
        .and_then(|v| v.parse::<f64>().ok())
        .with_context(|| format!("no rt_per_s in pipe-limit output: {text}"))
}

/// `status` requests, one at a time.
fn status_round_trips(engine: &mut Engine, n: usize) -> Result<f64> {
    engine.request(b"newgame 3 3 3\n", "")?;
    let start = Instant::now();
    for _ in 0..n {
        engine.request(b"status\n", "")?;
    }
    Ok(n as f64 / start.elapsed().as_secs_f64())
}

/// A move and its undo: round trips that change the state.
fn move_undo_round_trips(engine: &mut Engine, n: usize) -> Result<f64> {
    engine.request(b"newgame 3 3 3\n", "")?;
    let start = Instant::now();
    for _ in 0..n / 2 {
        engine.request(b"move 2 2\n", "")?;
        engine.request(b"undo\n", "")?;
    }
    Ok((n / 2 * 2) as f64 / start.elapsed().as_secs_f64())
}

/// Whole random games on 15x15: `genmove`, then `status` to see the end.
fn genmove_round_trips(engine: &mut Engine, n: usize) -> Result<f64> {
    engine.request(b"set bot random\n", "")?;
    engine.request(b"newgame 15 15 5\n", "")?;
    let start = Instant::now();
    let mut done = 0;
    while done < n {
        engine.request(b"genmove\n", "")?;
        let ongoing = engine.request(b"status\n", "ongoing")?;
        done += 2;
        if !ongoing {
            engine.request(b"newgame\n", "")?;
            done += 1;
        }
    }
    Ok(done as f64 / start.elapsed().as_secs_f64())
}
