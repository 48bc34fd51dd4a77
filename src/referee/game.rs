//! One game between two engine processes, refereed by our own board.
//!
//! Per ply the side to move gets `move R C` (the opponent's last move) and
//! `genmove` in a single write, so a ply costs one pipe round trip. Every
//! reply has a deadline; anything wrong ends the game as a loss for the
//! engine at fault, with the reason.

use super::detail_text;
use crate::client::{ClientError, EngineLink, Response};
use crate::rules::{Board, Cell, Geometry, Player};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Why a game ended: `win` and `draw` on the board, or the fault of one
/// engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    Win,
    Draw,
    /// The engine's output ended (it exited or crashed), or it could not be
    /// written to or started.
    Crash,
    /// No reply before the deadline.
    Timeout,
    /// A reply that does not parse as a move.
    Malformed,
    /// A move the rules don't allow (occupied, off the board).
    Illegal,
    /// `?` to `genmove`, or to a legal `newgame`/`move`.
    Refused,
}

impl Reason {
    /// The faults, in report order.
    pub const FAULTS: [Reason; 5] = [
        Reason::Crash,
        Reason::Timeout,
        Reason::Malformed,
        Reason::Illegal,
        Reason::Refused,
    ];

    /// The name used in reports and records.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Win => "win",
            Reason::Draw => "draw",
            Reason::Crash => "crash",
            Reason::Timeout => "timeout",
            Reason::Malformed => "malformed",
            Reason::Illegal => "illegal",
            Reason::Refused => "refused",
        }
    }

    /// Whether an engine was at fault.
    pub fn is_fault(self) -> bool {
        !matches!(self, Reason::Win | Reason::Draw)
    }
}

/// What a game needs besides its two engines.
#[derive(Clone, Debug)]
pub struct GameSetup<'a> {
    pub geometry: Geometry,
    /// Moves played before the engines choose (sent as `move` to both).
    pub opening: &'a [Cell],
    /// `set seed` for X and O (a `?` reply is fine).
    pub seeds: [u64; 2],
    /// `set movetime` in ms, if any (a `?` reply is fine).
    pub movetime_ms: Option<u64>,
    /// The hard deadline for each reply.
    pub timeout: Duration,
    /// A whole-game clock per side: told before every `genmove` as
    /// `set timeleft MS` (a `?` reply is fine); running out loses on time.
    pub match_time: Option<Duration>,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct GameEnd {
    /// `None` for a draw.
    pub winner: Option<Player>,
    pub reason: Reason,
    /// The side at fault, for fault reasons.
    pub fault_by: Option<Player>,
    /// What exactly went wrong (for faults), for logs and records.
    pub detail: Option<String>,
    /// Moves after the opening, in order.
    pub moves: Vec<Cell>,
    /// Time each side (X, O) spent answering `genmove`.
    pub time: [Duration; 2],
    /// Whose process (X, O) must be replaced before its next game: the side
    /// at fault, and any side left out of step.
    pub replace: [bool; 2],
}

impl GameEnd {
    /// A game played to its end on the board: a win for `winner`, or a
    /// draw (`None`).
    pub fn played_out(winner: Option<Player>, moves: Vec<Cell>, time: [Duration; 2]) -> GameEnd {
        GameEnd {
            winner,
            reason: if winner.is_some() {
                Reason::Win
            } else {
                Reason::Draw
            },
            fault_by: None,
            detail: None,
            moves,
            time,
            replace: [false; 2],
        }
    }

    /// A game lost by `side` before or during play, for `reason`.
    pub fn forfeit(side: Player, reason: Reason, detail: String) -> GameEnd {
        GameEnd {
            winner: Some(side.other()),
            reason,
            fault_by: Some(side),
            detail: Some(detail),
            moves: Vec::new(),
            time: [Duration::ZERO; 2],
            replace: [side == Player::X, side == Player::O],
        }
    }

    /// X's score: 1, ½ or 0.
    pub fn x_score(&self) -> f64 {
        match self.winner {
            Some(Player::X) => 1.0,
            Some(Player::O) => 0.0,
            None => 0.5,
        }
    }
}

/// The game was abandoned because the cancel flag was raised (Ctrl-C).
#[derive(Debug, PartialEq, Eq)]
pub struct Cancelled;

/// Why talking to one engine stopped: a fault of that engine, or Ctrl-C.
enum Stop {
    Fault(Reason, String),
    Cancelled,
}

impl From<ClientError> for Stop {
    fn from(e: ClientError) -> Stop {
        match e {
            ClientError::Cancelled => Stop::Cancelled,
            ClientError::Timeout => Stop::Fault(Reason::Timeout, "no reply in time".into()),
            ClientError::Closed => Stop::Fault(Reason::Crash, "output closed".into()),
            ClientError::Write(e) => Stop::Fault(Reason::Crash, format!("cannot write: {e}")),
            ClientError::Spawn(e) => Stop::Fault(Reason::Crash, format!("cannot start: {e}")),
        }
    }
}

impl Stop {
    /// The game's end when `side` stopped.
    fn end(self, side: Player) -> Result<GameEnd, Cancelled> {
        match self {
            Stop::Cancelled => Err(Cancelled),
            Stop::Fault(reason, detail) => Ok(GameEnd::forfeit(side, reason, detail)),
        }
    }
}

/// Whether a `genmove` reply that is not a cell is still a row and a column
/// — two whole numbers, such as `0 0` or `99999999999 1` — and so a move off
/// the board (illegal) rather than a reply that isn't a move (malformed).
fn is_row_and_column(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.len() == 2
        && words.iter().all(|w| {
            let digits = w.strip_prefix(['-', '+']).unwrap_or(w);
            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
        })
}

/// Reads one reply that must be a success (for `newgame`, `set` and
/// `move`). A success that is a move (other than the echo of the move
/// told) is a reply out of step: a second answer to the engine's last
/// `genmove`, which every later reply would follow one place late.
fn expect_ok(engine: &mut EngineLink, deadline: Instant, what: &str) -> Result<(), Stop> {
    let r = engine.read_response(deadline)?;
    let text = r.text.trim();
    let echo = what.strip_prefix("move ") == Some(text);
    if r.success && text.parse::<Cell>().is_ok() && !echo {
        return Err(Stop::Fault(
            Reason::Malformed,
            format!(
                "answered genmove twice: a second reply '{}' came where the reply to '{what}' \
                 was due",
                detail_text(text)
            ),
        ));
    }
    if r.success {
        Ok(())
    } else {
        Err(Stop::Fault(
            Reason::Refused,
            format!("'{what}' refused: {}", detail_text(&r.text)),
        ))
    }
}

/// A reply already read that answers no request: after its last `genmove`
/// was answered, the engine sent another reply.
fn unasked(engine: &mut EngineLink) -> Option<Stop> {
    let extra = engine.unasked_reply()?;
    let mark = if extra.success { '=' } else { '?' };
    Some(Stop::Fault(
        Reason::Malformed,
        format!(
            "answered genmove twice: a second reply '{mark} {}' came with no request",
            detail_text(&extra.text)
        ),
    ))
}

/// Reads the replies to a set-up (`newgame`, `set seed`, `set movetime`,
/// the opening moves) that was written earlier.
fn read_setup(
    engine: &mut EngineLink,
    setup: &GameSetup<'_>,
    deadline: Instant,
) -> Result<(), Stop> {
    expect_ok(engine, deadline, "newgame")?;
    for _ in 0..1 + usize::from(setup.movetime_ms.is_some()) {
        // `set` may be refused (the engine has no such option).
        engine.read_response(deadline)?;
    }
    for cell in setup.opening {
        expect_ok(engine, deadline, &format!("move {cell}"))?;
    }
    Ok(())
}

/// Plays one game; `engines` are X and O. On a fault the game ends at once
/// and [`GameEnd::replace`] says whose process should be replaced.
///
/// Round trips: each engine gets its set-up in one write at the start, the
/// side to move with its first `genmove` appended; the other side's set-up
/// replies are read when its first turn comes (they are long there by
/// then). After that every ply is one write (`move R C` + `genmove`) and one
/// wait.
///
/// `on_move` hears every move the engines chose, once it is checked and
/// played.
pub fn play_game(
    engines: [&mut EngineLink; 2],
    setup: &GameSetup<'_>,
    on_move: &mut dyn FnMut(Player, Cell),
) -> Result<GameEnd, Cancelled> {
    let mut board = Board::new(setup.geometry);
    for &cell in setup.opening {
        // Openings are made legal by the scheduler; a bad one is a bug there.
        if board.try_play(cell).is_err() {
            break;
        }
    }
    let geo = setup.geometry;
    let first = board.to_move();
    let mut buf = String::with_capacity(256);
    // Set-up replies still to read, and when each set-up was sent.
    let mut pending_setup = [true; 2];
    let mut sent_at = [Instant::now(); 2];
    // The second mover's set-up waits for its first turn and goes out in the
    // same write as that turn's `move` and `genmove`: one wake-up of that
    // engine fewer per game (on a single CPU each wake-up is a context
    // switch).
    let mut held_setup: [Option<String>; 2] = [None, None];
    let mut failed: Option<(Player, Stop)> = None;
    for side in [first, first.other()] {
        let mut text = String::with_capacity(128);
        let _ = writeln!(
            text,
            "newgame {} {} {} {}",
            geo.rows(),
            geo.cols(),
            geo.k(),
            geo.rule()
        );
        let _ = writeln!(text, "set seed {}", setup.seeds[side.index()]);
        if let Some(ms) = setup.movetime_ms {
            let _ = writeln!(text, "set movetime {ms}");
        }
        for cell in setup.opening {
            let _ = writeln!(text, "move {cell}");
        }
        if side != first {
            held_setup[side.index()] = Some(text);
            continue;
        }
        if !board.is_over() {
            if let Some(m) = setup.match_time {
                let _ = writeln!(text, "set timeleft {}", m.as_millis());
            }
            text.push_str("genmove\n");
        }
        if let Some(stop) = unasked(engines[side.index()]) {
            pending_setup[side.index()] = false;
            failed.get_or_insert((side, stop));
            continue;
        }
        sent_at[side.index()] = Instant::now();
        if let Err(e) = engines[side.index()].send(&text) {
            pending_setup[side.index()] = false;
            failed.get_or_insert((side, Stop::from(e)));
        }
    }

    let mut moves = Vec::with_capacity(geo.area());
    let mut time = [Duration::ZERO; 2];
    // What is left on each side's game clock.
    let mut clock = [setup.match_time; 2];
    let mut unseen: [Option<Cell>; 2] = [None, None];
    let mut ply = 0usize;
    let result = loop {
        if let Some(f) = failed.take() {
            break Err(f);
        }
        if let Some(outcome) = board.outcome() {
            break Ok(outcome.winner());
        }
        let side = board.to_move();
        let engine = &mut *engines[side.index()];
        let told = unseen[side.index()].take();
        let start = if ply == 0 {
            // Its genmove went out with the set-up.
            sent_at[side.index()]
        } else {
            buf.clear();
            if let Some(held) = held_setup[side.index()].take() {
                buf.push_str(&held);
            }
            if let Some(cell) = told {
                let _ = writeln!(buf, "move {cell}");
            }
            if let Some(left) = clock[side.index()] {
                let _ = writeln!(buf, "set timeleft {}", left.as_millis());
            }
            buf.push_str("genmove\n");
            Instant::now()
        };
        ply += 1;
        let left = clock[side.index()];
        let deadline = start + left.map_or(setup.timeout, |l| l.min(setup.timeout));
        let settle = std::mem::take(&mut pending_setup[side.index()]);
        let mut exchange = || -> Result<Response, Stop> {
            if ply > 1 {
                if let Some(stop) = unasked(engine) {
                    return Err(stop);
                }
                engine.send(&buf)?;
            }
            if settle {
                read_setup(engine, setup, deadline)?;
            }
            if told.is_some() {
                expect_ok(engine, deadline, "move")?;
            }
            if left.is_some() {
                // `set timeleft` may be refused: the engine plays on.
                engine.read_response(deadline)?;
            }
            Ok(engine.read_response(deadline)?)
        };
        let reply = exchange();
        // Waiting out a Gomocup brain's write gap is the referee's time.
        let used = start.elapsed().saturating_sub(engine.take_waited());
        time[side.index()] += used;
        let late = match left {
            Some(l) => {
                clock[side.index()] = Some(l.saturating_sub(used));
                // Past its clock, or silent until the clock (not the
                // referee's timeout) ended the wait.
                used > l
                    || (l < setup.timeout && matches!(reply, Err(Stop::Fault(Reason::Timeout, _))))
            }
            None => false,
        };
        let reply = match (late, left) {
            (true, Some(l)) => Err(Stop::Fault(
                Reason::Timeout,
                format!(
                    "lost on time: {:.1} ms used, {:.1} ms were left on its clock",
                    used.as_secs_f64() * 1e3,
                    l.as_secs_f64() * 1e3
                ),
            )),
            _ => reply,
        };
        let stop = match reply {
            Ok(r) if !r.success => Stop::Fault(
                Reason::Refused,
                format!("genmove refused: {}", detail_text(&r.text)),
            ),
            Ok(r) => match r.text.trim().parse::<Cell>() {
                Err(_) if is_row_and_column(&r.text) => Stop::Fault(
                    Reason::Illegal,
                    format!(
                        "{} is off the {}x{} board",
                        detail_text(r.text.trim()),
                        geo.rows(),
                        geo.cols()
                    ),
                ),
                Err(_) => Stop::Fault(
                    Reason::Malformed,
                    format!("genmove reply '{}'", detail_text(&r.text)),
                ),
                Ok(cell) => match board.try_play(cell) {
                    Err(e) => Stop::Fault(Reason::Illegal, format!("{cell}: {e}")),
                    Ok(_) => {
                        moves.push(cell);
                        unseen[side.other().index()] = Some(cell);
                        on_move(side, cell);
                        continue;
                    }
                },
            },
            // The referee's deadline ran out (not the engine's own clock).
            Err(Stop::Fault(Reason::Timeout, _)) if !late => Stop::Fault(
                Reason::Timeout,
                format!(
                    "no reply within {} ms, the move deadline (--timeout)",
                    setup.timeout.as_millis()
                ),
            ),
            Err(stop) => stop,
        };
        break Err((side, stop));
    };

    let mut end = match result {
        Ok(winner) => GameEnd::played_out(winner, moves, time),
        Err((side, stop)) => {
            let mut end = stop.end(side)?;
            end.moves = moves;
            end.time = time;
            end
        }
    };
    // A side whose set-up replies were never read (the game ended before
    // its first turn) is read now, so it starts the next game in step; if
    // that fails too, its process is replaced (not charged: the game is over).
    for side in [Player::X, Player::O] {
        let sent = held_setup[side.index()].is_none();
        if sent && pending_setup[side.index()] && !end.replace[side.index()] {
            let deadline = sent_at[side.index()] + setup.timeout;
            match read_setup(engines[side.index()], setup, deadline) {
                Ok(()) => {}
                Err(Stop::Cancelled) => return Err(Cancelled),
                Err(Stop::Fault(..)) => end.replace[side.index()] = true,
            }
        }
    }
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::is_row_and_column;

    #[test]
    fn numbers_off_any_board_are_still_a_row_and_a_column() {
        for text in ["0 0", "99999999999 1", " -1\t2 ", "+3 0"] {
            assert!(is_row_and_column(text), "{text:?}");
        }
        for text in ["", "2", "2 2 2", "2 2 extra", "a b", "1.5 2", "- 2", "2,2"] {
            assert!(!is_row_and_column(text), "{text:?}");
        }
    }
}
