//! `--in-process`: games between built-in bots played on the referee's own
//! threads, with no processes and no pipes.
//!
//! Each side is the protocol engine itself ([`Engine`]), called through the
//! same typed steps its line loop takes for `newgame`, `set seed`, `set
//! movetime`, `move`, `set timeleft` and `genmove`, in the order an engine
//! process receives them from [`super::process::play_game`]: the side to move
//! first gets its set-up at once, the other side when its first turn comes.
//! So the same seed plays the same games, move for move, as the process
//! mode (the bots are seeded per game by `set seed`, and a worker keeps
//! its engines from game to game as it keeps its processes). The referee
//! still checks every move on its own board, and every fault an engine
//! process can make in-process is caught the same way, with the same
//! verdicts (`judge`): a refusal, an illegal move, a reply later
//! than the deadline, and a panic (as a crash).

use super::detail_text;
use super::game::{Cancelled, GameEnd, GameSetup, Reason};
use super::judge::{Judge, Reply, Stop};
use crate::bots::BotKind;
use crate::engine::{Engine, EngineConfig};
use crate::protocol::{ProtocolError, SearchInfo, Shape};
use crate::rules::{Board, Cell, Player};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A built-in bot's engine, as a process would run it (`kinrow --bot NAME`).
pub fn engine(bot: BotKind) -> Engine {
    Engine::new(EngineConfig {
        bot,
        seed: rand::random(),
        ..EngineConfig::default()
    })
}

/// Calls the engine, a panic becoming a crash with its message.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Stop> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Stop::Fault(
            Reason::Crash,
            format!("the bot panicked: {}", detail_text(&message)),
        )
    })
}

/// A step that must succeed (`newgame`, an opening or told `move`), as the
/// process mode words its refusal (`what` names the request, said only
/// then).
fn expect_ok(
    step: impl FnOnce() -> Result<String, ProtocolError>,
    what: impl FnOnce() -> String,
) -> Result<(), Stop> {
    guarded(step)?.map(drop).map_err(|e| {
        Stop::Fault(
            Reason::Refused,
            format!("'{}' refused: {}", what(), detail_text(&e.to_string())),
        )
    })
}

/// The set-up of one side: `newgame`, `set seed`, `set movetime`, the
/// opening.
fn set_up(engine: &mut Engine, setup: &GameSetup<'_>, side: Player) -> Result<(), Stop> {
    let g = setup.geometry;
    let shape = Shape {
        rows: g.rows() as u32,
        cols: g.cols() as u32,
        k: g.k() as u32,
        rule: Some(g.rule()),
    };
    expect_ok(|| engine.new_game(Some(shape)), || "newgame".into())?;
    guarded(|| engine.set_seed(setup.seeds[side.index()]))?;
    for request in setup.sides[side.index()].requests {
        // As a process's `?` to `set` is (the settings were checked before
        // the first game).
        let _ = guarded(|| engine.respond(request.clone()))?;
    }
    for cell in setup.opening {
        let (r, c) = one_based(*cell);
        expect_ok(|| engine.play(r, c), || format!("move {cell}"))?;
    }
    Ok(())
}

fn one_based(cell: Cell) -> (u32, u32) {
    (u32::from(cell.row) + 1, u32::from(cell.col) + 1)
}

/// One turn's steps: the set-up if it is still due, the opponent's move,
/// what is left on the clock, and `genmove` (`start`: when the turn began).
/// A step's own fault (a refusal, a panic) is the outer error; a refused
/// `genmove` the inner one.
fn turn(
    engine: &mut Engine,
    setup: &GameSetup<'_>,
    side: Player,
    pending_setup: &mut bool,
    told: Option<Cell>,
    left: Option<Duration>,
    start: Instant,
) -> Result<Result<Cell, ProtocolError>, Stop> {
    if std::mem::take(pending_setup) {
        set_up(engine, setup, side)?;
    }
    if let Some(cell) = told {
        let (r, c) = one_based(cell);
        expect_ok(|| engine.play(r, c), || "move".into())?;
    }
    if let Some(l) = left {
        let ms = l.as_millis().min(u128::from(u64::MAX)) as u64;
        guarded(|| engine.set_time_left(Duration::from_millis(ms)))?;
    }
    guarded(|| engine.gen_move_from(start))
}

/// Plays one game between `engines` (X, O). Faults end it as in the process
/// mode, with the same reasons and details; a side that panicked is to be
/// replaced ([`GameEnd::replace`]), as its process would be. Ctrl-C
/// (`cancel`) abandons it between moves.
///
/// `board` is the referee's own board, kept by the caller from game to game
/// (cleared here, or made anew for another size).
pub fn play_in_process(
    engines: [&mut Engine; 2],
    board: &mut Board,
    setup: &GameSetup<'_>,
    cancel: &AtomicBool,
    on_move: &mut dyn FnMut(Player, Cell),
) -> Result<GameEnd, Cancelled> {
    if board.geometry() == setup.geometry {
        board.clear();
    } else {
        *board = Board::new(setup.geometry);
    }
    let mut judge = Judge::new(board, setup);
    let mut pending_setup = [true; 2];
    // The side to move gets its set-up before its first genmove, as the
    // process mode writes it; so does the other side, at its first turn.
    let first = judge.board().to_move();
    let mut ply_start = Instant::now();
    let mut failed = set_up(engines[first.index()], setup, first)
        .err()
        .map(|f| (first, f));
    pending_setup[first.index()] = false;
    let result = loop {
        if let Some(f) = failed.take() {
            break Err(f);
        }
        // The time a ruling takes is the referee's, not the next side's.
        let ruling_from = judge.adjudicates().then(Instant::now);
        if let Some(ending) = judge.ending() {
            break Ok(ending);
        }
        if let Some(from) = ruling_from {
            ply_start += from.elapsed();
        }
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        let side = judge.board().to_move();
        let left = judge.left(side);
        let told = judge.take_unseen(side);
        let start = ply_start;
        let pending = &mut pending_setup[side.index()];
        let reply = turn(
            engines[side.index()],
            setup,
            side,
            pending,
            told,
            left,
            start,
        );
        // One clock read a ply: this ply's end is the next one's start (the
        // referee's check of the move, a few nanoseconds, counts with the
        // next reply; a read of the clock costs more than the check).
        let now = Instant::now();
        let used = now - start;
        ply_start = now;
        let refusal;
        let verdict = match reply {
            // A step's own fault ends the game as that fault, before the
            // clock is looked at (a process's fault is known only when the
            // wait, which the clock bounds, ends).
            Err(stop) => {
                judge.charge(side, used);
                Err(stop)
            }
            // A reply after the deadline is one the process mode would not
            // have waited for.
            Ok(_) if used > setup.timeout => {
                let late = Reply::Stopped(Stop::Fault(Reason::Timeout, String::new()));
                judge.rule(side, late, used, SearchInfo::default(), on_move)
            }
            Ok(Ok(cell)) => {
                // As a process answers `search_info` (see `process`).
                let search = if setup.sides[side.index()].search_info {
                    engines[side.index()].search_info()
                } else {
                    SearchInfo::default()
                };
                judge.rule(side, Reply::Cell(cell), used, search, on_move)
            }
            Ok(Err(e)) => {
                refusal = e.to_string();
                judge.rule(
                    side,
                    Reply::Refused(&refusal),
                    used,
                    SearchInfo::default(),
                    on_move,
                )
            }
        };
        if let Err(stop) = verdict {
            // The side at fault gets a fresh engine, as a process would be
            // replaced.
            break Err((side, stop));
        }
    };
    judge.end(result)
}
