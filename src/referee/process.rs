//! One game between two engine processes, refereed by our own board.
//!
//! Per ply the side to move gets `move R C` (the opponent's last move) and
//! `genmove` in a single write, so a ply costs one pipe round trip. Every
//! reply has a deadline; anything wrong ends the game as a loss for the
//! engine at fault, with the reason (`judge` gives the verdicts).

use super::detail_text;
use super::game::{Cancelled, GameEnd, GameSetup, Reason};
use super::judge::{Judge, Reply, Stop};
use crate::client::{ClientError, EngineLink, Response};
use crate::protocol::{Command, MoveReply, SearchInfo};
use crate::rules::{Board, Cell, Player};
use std::fmt::Display;
use std::time::{Duration, Instant};

/// The least wait for the answer to `search_info` after the move's.
const SEARCH_INFO_WAIT: Duration = Duration::from_millis(500);

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

/// Reads the reply to `request`, which must be a success (`newgame`, `set`,
/// `move`); `what` names it in a fault. A success that is a move (other
/// than the echo of the move told) is a reply out of step: a second answer
/// to the engine's last `genmove`, which every later reply would follow
/// one place late.
fn expect_ok(
    engine: &mut EngineLink,
    deadline: Instant,
    request: &Command,
    what: &dyn Display,
) -> Result<(), Stop> {
    let r = engine.read_response(deadline)?;
    let text = r.text.trim();
    let reply = MoveReply::read(text);
    let echo = matches!(reply, MoveReply::Cell(cell) if *request == Command::play(cell));
    if r.success && matches!(reply, MoveReply::Cell(_)) && !echo {
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

/// The requests of one side's set-up: `newgame`, `set seed`, its own
/// settings (`set movetime`, …), the opening's moves.
fn setup_requests(setup: &GameSetup<'_>, side: Player) -> Vec<Command> {
    let own = setup.sides[side.index()].requests;
    let mut requests = Vec::with_capacity(3 + own.len() + setup.opening.len());
    requests.push(Command::new_game(setup.geometry));
    requests.push(Command::set_seed(setup.seeds[side.index()]));
    requests.extend(own.iter().cloned());
    requests.extend(setup.opening.iter().map(|&cell| Command::play(cell)));
    requests
}

/// The requests of a turn, after what `requests` holds: the opponent's
/// move (`told`), what is left on the clock (`left`), `genmove`, and
/// `search_info` when `side` is asked it (in the same write: its answer
/// follows the move's at once, no round trip more).
fn push_turn(
    requests: &mut Vec<Command>,
    setup: &GameSetup<'_>,
    side: Player,
    told: Option<Cell>,
    left: Option<Duration>,
) {
    if let Some(cell) = told {
        requests.push(Command::play(cell));
    }
    if let Some(left) = left {
        requests.push(Command::set_time_left(left));
    }
    requests.push(Command::GenMove);
    if setup.sides[side.index()].search_info {
        requests.push(Command::SearchInfo);
    }
}

/// The answer to the `search_info` sent after a `genmove` that was
/// answered: what the engine says of its search (nothing if it refuses).
fn read_search_info(engine: &mut EngineLink, deadline: Instant) -> Result<SearchInfo, Stop> {
    let r = engine.read_response(deadline)?;
    Ok(if r.success {
        SearchInfo::read(&r.text)
    } else {
        SearchInfo::default()
    })
}

/// Why `engine` is past its memory limit of `limit` bytes, if it is: its
/// processes' peak resident size (see [`EngineLink::peak_resident_bytes`]).
fn over_memory(engine: &EngineLink, limit: u64) -> Option<String> {
    let peak = engine.peak_resident_bytes()?;
    (peak > limit).then(|| {
        format!(
            "out of memory: its processes peaked at {} MiB resident, over its limit of {} MiB \
             (memory=)",
            peak >> 20,
            limit >> 20
        )
    })
}

/// Reads the replies to `side`'s set-up (`newgame`, `set seed`, its own
/// settings, the opening moves) that was written earlier.
fn read_setup(
    engine: &mut EngineLink,
    setup: &GameSetup<'_>,
    side: Player,
    deadline: Instant,
) -> Result<(), Stop> {
    expect_ok(
        engine,
        deadline,
        &Command::new_game(setup.geometry),
        &"newgame",
    )?;
    for _ in 0..1 + setup.sides[side.index()].requests.len() {
        // `set` may be refused (the engine has no such option).
        engine.read_response(deadline)?;
    }
    for &cell in setup.opening {
        let request = Command::play(cell);
        expect_ok(engine, deadline, &request, &request)?;
    }
    Ok(())
}

/// Each side's set-up, sent at the start or held for its first turn.
///
/// The second mover's set-up waits for its first turn and goes out in the
/// same write as that turn's `move` and `genmove`: one wake-up of that
/// engine fewer per game (on a single CPU each wake-up is a context
/// switch).
struct Setups {
    /// Set-up replies still to read.
    pending: [bool; 2],
    /// When each set-up was sent.
    sent_at: [Instant; 2],
    /// The second mover's set-up, until its first turn.
    held: [Option<Vec<Command>>; 2],
    /// The first side that could not be sent its set-up, and why.
    failed: Option<(Player, Stop)>,
}

impl Setups {
    /// Sends the side to move its set-up with its first `genmove` (unless
    /// the opening ended the game), and holds the other's.
    /// `over`: the game ends before its first move (its opening ended
    /// it, or a ruling did), so no `genmove` goes out.
    fn send(
        engines: &mut [&mut EngineLink; 2],
        setup: &GameSetup<'_>,
        board: &Board,
        over: bool,
    ) -> Setups {
        let first = board.to_move();
        let mut setups = Setups {
            pending: [true; 2],
            sent_at: [Instant::now(); 2],
            held: [None, None],
            failed: None,
        };
        for side in [first, first.other()] {
            let i = side.index();
            let mut requests = setup_requests(setup, side);
            if side != first {
                setups.held[i] = Some(requests);
                continue;
            }
            if !over {
                let left = setup.sides[i].clock.map(|c| c.base());
                push_turn(&mut requests, setup, side, None, left);
            }
            if let Some(stop) = unasked(engines[i]) {
                setups.pending[i] = false;
                setups.failed.get_or_insert((side, stop));
                continue;
            }
            setups.sent_at[i] = Instant::now();
            if let Err(e) = engines[i].send(&requests) {
                setups.pending[i] = false;
                setups.failed.get_or_insert((side, Stop::from(e)));
            }
        }
        setups
    }

    /// A side whose set-up replies were never read (the game ended before
    /// its first turn) is read now, so it starts the next game in step; if
    /// that fails too, its process is replaced (not charged: the game is
    /// over).
    fn settle(
        &self,
        engines: &mut [&mut EngineLink; 2],
        setup: &GameSetup<'_>,
        end: &mut GameEnd,
    ) -> Result<(), Cancelled> {
        for side in [Player::X, Player::O] {
            let i = side.index();
            let sent = self.held[i].is_none();
            if sent && self.pending[i] && !end.replace[i] {
                let deadline = self.sent_at[i] + setup.timeout;
                match read_setup(engines[i], setup, side, deadline) {
                    Ok(()) => {}
                    Err(Stop::Cancelled) => return Err(Cancelled),
                    Err(Stop::Fault(..)) => end.replace[i] = true,
                }
            }
        }
        Ok(())
    }
}

/// What a turn's exchange reads before the reply to `genmove`.
struct Turn<'t> {
    side: Player,
    /// The turn's requests, to be written (`None`: they went out with the
    /// set-up).
    write: Option<&'t [Command]>,
    /// The set-up's replies are still to be read.
    settle: bool,
    /// The move told.
    told: Option<Cell>,
    /// A `set timeleft` was sent.
    timeleft: bool,
}

/// A turn's write and its replies, the last one the reply to `genmove`.
fn exchange(
    engine: &mut EngineLink,
    setup: &GameSetup<'_>,
    turn: &Turn<'_>,
    deadline: Instant,
) -> Result<Response, Stop> {
    if let Some(requests) = turn.write {
        if let Some(stop) = unasked(engine) {
            return Err(stop);
        }
        engine.send(requests)?;
    }
    if turn.settle {
        read_setup(engine, setup, turn.side, deadline)?;
    }
    if let Some(cell) = turn.told {
        expect_ok(engine, deadline, &Command::play(cell), &"move")?;
    }
    if turn.timeleft {
        // `set timeleft` may be refused: the engine plays on.
        engine.read_response(deadline)?;
    }
    Ok(engine.read_response(deadline)?)
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
    mut engines: [&mut EngineLink; 2],
    setup: &GameSetup<'_>,
    on_move: &mut dyn FnMut(Player, Cell),
) -> Result<GameEnd, Cancelled> {
    let mut board = Board::new(setup.geometry);
    let mut judge = Judge::new(&mut board, setup);
    // Asked once a move (and before the first): the game's end, on the
    // board or by a ruling.
    let mut ending = judge.ending();
    let mut setups = Setups::send(&mut engines, setup, judge.board(), ending.is_some());
    let mut buf: Vec<Command> = Vec::with_capacity(8);
    let mut ply = 0usize;
    let result = loop {
        if let Some(f) = setups.failed.take() {
            break Err(f);
        }
        if let Some(ending) = ending.take() {
            break Ok(ending);
        }
        let side = judge.board().to_move();
        let engine = &mut *engines[side.index()];
        let told = judge.take_unseen(side);
        let left = judge.left(side);
        let start = if ply == 0 {
            // Its genmove went out with the set-up.
            setups.sent_at[side.index()]
        } else {
            buf.clear();
            if let Some(held) = setups.held[side.index()].take() {
                buf.extend(held);
            }
            push_turn(&mut buf, setup, side, told, left);
            Instant::now()
        };
        ply += 1;
        let turn = Turn {
            side,
            write: (ply > 1).then_some(buf.as_slice()),
            settle: std::mem::take(&mut setups.pending[side.index()]),
            told,
            timeleft: left.is_some(),
        };
        let deadline = judge.deadline(side, start);
        let reply = exchange(engine, setup, &turn, deadline);
        // Waiting out a Gomocup brain's write gap is the referee's time.
        let used = start.elapsed().saturating_sub(engine.take_waited());
        let asked = setup.sides[side.index()].search_info;
        let mut search = SearchInfo::default();
        let response;
        let reply = match reply {
            Ok(r) => {
                response = r;
                if !response.success {
                    Reply::Refused(&response.text)
                } else if asked {
                    // Its move is in; the answer to `search_info` is due at
                    // once (the move's deadline, at least a moment more).
                    let due = deadline.max(Instant::now() + SEARCH_INFO_WAIT);
                    match read_search_info(engine, due) {
                        Ok(info) => {
                            search = info;
                            Reply::Text(&response.text)
                        }
                        Err(Stop::Fault(reason, why)) => {
                            judge.charge(side, used);
                            let why = format!("answered genmove, then not search_info: {why}");
                            break Err((side, Stop::Fault(reason, why)));
                        }
                        Err(Stop::Cancelled) => break Err((side, Stop::Cancelled)),
                    }
                } else {
                    Reply::Text(&response.text)
                }
            }
            Err(stop) => Reply::Stopped(stop),
        };
        // A move that comes with the engine past its memory limit is not
        // played: the game is lost for memory.
        let over = setup.sides[side.index()]
            .memory_limit
            .and_then(|limit| over_memory(engine, limit));
        let reply = match (reply, over) {
            (Reply::Text(_) | Reply::Refused(_), Some(why)) => {
                Reply::Stopped(Stop::Fault(Reason::Memory, why))
            }
            (reply, _) => reply,
        };
        if let Err(stop) = judge.rule(side, reply, used, search, on_move) {
            break Err((side, stop));
        }
        ending = judge.ending();
    };
    let mut end = judge.end(result)?;
    end.peak_memory = [0, 1].map(|i| engines[i].peak_resident_bytes());
    setups.settle(&mut engines, setup, &mut end)?;
    Ok(end)
}
