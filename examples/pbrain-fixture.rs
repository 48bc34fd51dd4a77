//! A Gomocup (piskvork protocol) brain that misbehaves on request, for
//! testing managers: kinrow's tests drive the referee, `kinrow play` and
//! `bots/gomocup.py` against it, and it can check any other manager the same
//! way. Well behaved, it plays a random empty cell (seeded).
//!
//! It answers START/RECTSTART (ERROR below 5 or above 32), RESTART, INFO
//! (silently), BEGIN, TURN x,y, BOARD … DONE, ABOUT and END, and says
//! MESSAGE/DEBUG lines now and then, which a manager must skip. It checks
//! what it is told: a TURN on an occupied cell or a BOARD line it cannot
//! place gets an ERROR line. Lines end in CR LF, as brains written for
//! Windows do.
//!
//! ```text
//! pbrain-fixture [--seed N] [--log FILE] [--mode MODE] [quirks]
//!   --log FILE  append every command line received to FILE (without CR LF)
//!   --mode      misbehave when asked for a move: occupied (a taken cell),
//!               offboard, garbage (not x,y), error (an ERROR line), unknown
//!               (an UNKNOWN line), die (exit), hang (never answer);
//!               norestart answers RESTART with UNKNOWN
//! Quirks of real brains:
//!   --think MS        take MS to answer a move
//!   --drop-within MS  every command that arrives within MS (fractions
//!                     allowed) of the brain's last move is lost: answered
//!                     "ERROR Unknown command: ARGS", as a strong public
//!                     engine does
//!   --early-talk      say MESSAGE lines before being asked anything
//!   --slow-start S    sleep S seconds before reading anything
//!   --twice-at N      answer the Nth move request with two empty points
//!                     (the first one played), then play on correctly
//! ```
//!
//! If the environment names a directory in `KINROW_FIXTURE_PIDS`, the brain
//! writes an empty file named after its pid there, so a test can check that
//! no brain outlives its manager.
//!
//! `cargo build --example pbrain-fixture` (`cargo test` builds it too).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Good,
    Occupied,
    Offboard,
    Garbage,
    Error,
    Unknown,
    Die,
    Hang,
    NoRestart,
}

struct Options {
    seed: u64,
    log: Option<File>,
    mode: Mode,
    think: Duration,
    drop_within: Duration,
    early_talk: bool,
    slow_start: Duration,
    twice_at: u64,
}

fn usage(why: &str) -> ! {
    eprintln!("pbrain-fixture: {why}");
    eprintln!(
        "usage: pbrain-fixture [--seed N] [--log FILE] [--mode MODE] [--think MS] \
         [--drop-within MS] [--early-talk] [--slow-start S] [--twice-at N]"
    );
    std::process::exit(2)
}

fn options() -> Options {
    let mut o = Options {
        seed: 1,
        log: None,
        mode: Mode::Good,
        think: Duration::ZERO,
        drop_within: Duration::ZERO,
        early_talk: false,
        slow_start: Duration::ZERO,
        twice_at: 0,
    };
    let mut args = std::env::args().skip(1);
    let seconds = |v: Option<String>, scale: f64| -> Duration {
        v.and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| Duration::from_secs_f64(v * scale))
            .unwrap_or_else(|| usage("expected a number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seed" => {
                o.seed = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage("--seed N"))
            }
            "--log" => {
                let path = args.next().unwrap_or_else(|| usage("--log FILE"));
                o.log = Some(
                    File::options()
                        .create(true)
                        .append(true)
                        .open(&path)
                        .unwrap_or_else(|e| usage(&format!("{path}: {e}"))),
                );
            }
            "--mode" => {
                o.mode = match args.next().as_deref() {
                    Some("good") => Mode::Good,
                    Some("occupied") => Mode::Occupied,
                    Some("offboard") => Mode::Offboard,
                    Some("garbage") => Mode::Garbage,
                    Some("error") => Mode::Error,
                    Some("unknown") => Mode::Unknown,
                    Some("die") => Mode::Die,
                    Some("hang") => Mode::Hang,
                    Some("norestart") => Mode::NoRestart,
                    _ => usage("unknown --mode"),
                }
            }
            "--think" => o.think = seconds(args.next(), 1e-3),
            "--drop-within" => o.drop_within = seconds(args.next(), 1e-3),
            "--early-talk" => o.early_talk = true,
            "--slow-start" => o.slow_start = seconds(args.next(), 1.0),
            "--twice-at" => {
                o.twice_at = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| usage("--twice-at N"))
            }
            other => usage(&format!("unknown argument {other}")),
        }
    }
    o
}

/// SplitMix64: a seeded sequence, no crate needed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Stdin read by hand, so that the brain knows when each line arrived.
struct Input {
    pending: Vec<u8>,
}

impl Input {
    /// Whether a line arrives (or is already waiting) before `deadline`.
    fn arrives_within(&self, deadline: Instant) -> bool {
        // Seen before the deadline, a line surely came before it; seen
        // after, it may have come any time (the brain may have been off the
        // CPU), so it is taken as late: a busy machine never makes this
        // brain drop a command that came in time.
        let seen = self.pending.contains(&b'\n') || {
            let mut fd = libc::pollfd {
                fd: io::stdin().as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = deadline
                .saturating_duration_since(Instant::now())
                .as_secs_f64()
                * 1e3;
            // poll(2) counts whole milliseconds: round up; the check of the
            // clock below keeps the window exact.
            // SAFETY: one valid pollfd.
            unsafe { libc::poll(&mut fd, 1, ms.ceil() as libc::c_int) > 0 }
        };
        seen && Instant::now() < deadline
    }

    /// The next line without its line end, `None` at the end of input.
    fn line(&mut self) -> Option<String> {
        loop {
            if let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=at).collect();
                return Some(String::from_utf8_lossy(&line).trim().to_string());
            }
            let mut chunk = [0u8; 65536];
            match io::stdin().lock().read(&mut chunk) {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
            }
        }
    }
}

struct Brain {
    o: Options,
    rng: Rng,
    width: i64,
    height: i64,
    /// (x, y) → 1 mine, 2 the opponent's, 3 a winning-line stone.
    board: HashMap<(i64, i64), u8>,
    asked: u64,
    /// When the last move was answered (for --drop-within).
    answered_at: Option<Instant>,
}

impl Brain {
    fn say(&self, text: &str) {
        // One write of the whole text (stdout's line buffering would write
        // each line of it on its own).
        let mut out = io::stdout().lock();
        let _ = out.write_all(format!("{text}\r\n").as_bytes());
        let _ = out.flush();
    }

    fn answer_move(&mut self) {
        self.asked += 1;
        if self.asked % 2 == 1 {
            self.say(&format!("MESSAGE thinking about move {}", self.asked));
        }
        if self.asked.is_multiple_of(3) {
            self.say("DEBUG nothing to see");
        }
        std::thread::sleep(self.o.think);
        let empty: Vec<(i64, i64)> = (0..self.height)
            .flat_map(|y| (0..self.width).map(move |x| (x, y)))
            .filter(|c| !self.board.contains_key(c))
            .collect();
        match self.o.mode {
            Mode::Occupied if !self.board.is_empty() => {
                let (x, y) = *self.board.keys().min().unwrap_or(&(0, 0));
                self.say(&format!("{x},{y}"));
            }
            Mode::Offboard => self.say(&format!("{},{}", self.width, self.height)),
            Mode::Garbage => self.say("I resign, sort of"),
            Mode::Error => self.say("ERROR too tired to think"),
            Mode::Unknown => self.say("UNKNOWN what is a move"),
            Mode::Die => std::process::exit(3),
            Mode::Hang => std::thread::sleep(Duration::from_secs(3600)),
            _ if empty.is_empty() => self.say("ERROR the board is full"),
            _ => {
                let (x, y) = empty[self.rng.below(empty.len())];
                self.board.insert((x, y), 1);
                // The clock starts as the move leaves: read after the
                // write, a brain put off the CPU in between would see the
                // next command as early however late it came.
                self.answered_at = Some(Instant::now());
                let mut answer = format!("{x},{y}");
                if self.asked == self.o.twice_at {
                    // Both in one write: the second is there before the
                    // manager's next request, whatever the scheduler does.
                    if let Some(&(x, y)) = empty.iter().find(|&&c| c != (x, y)) {
                        answer = format!("{answer}\r\n{x},{y}");
                    }
                }
                self.say(&answer);
            }
        }
    }

    /// `(x, y)` from `x,y` when it is an empty cell of the board.
    fn empty_cell(&self, text: &str) -> Option<(i64, i64)> {
        let (x, y) = text.split_once(',')?;
        let (x, y) = (x.trim().parse().ok()?, y.trim().parse().ok()?);
        let on = (0..self.width).contains(&x) && (0..self.height).contains(&y);
        (on && !self.board.contains_key(&(x, y))).then_some((x, y))
    }

    fn run(&mut self) {
        let mut input = Input {
            pending: Vec::new(),
        };
        let mut reading_board = false;
        loop {
            // Every command within the window is lost, as a brain still
            // busy with its move loses them, not only the first.
            let soon = match self.answered_at {
                Some(at) if !self.o.drop_within.is_zero() => {
                    let soon = input.arrives_within(at + self.o.drop_within);
                    if !soon {
                        self.answered_at = None;
                    }
                    soon
                }
                _ => false,
            };
            let Some(line) = input.line() else {
                return;
            };
            if soon && !line.is_empty() {
                // Lost in the brain's reply: only what follows the word
                // survives.
                let args = line.split_once(' ').map_or("", |(_, a)| a);
                self.say(&format!("ERROR Unknown command: {args}"));
                continue;
            }
            if let Some(log) = self.o.log.as_mut() {
                // One write per line: brains of concurrent games append to
                // one log, and `writeln!` writes the text and its newline
                // apart ("INFO rule 4TURN 12,6" once failed a test).
                let _ = log.write_all(format!("{line}\n").as_bytes());
            }
            if line.is_empty() {
                continue;
            }
            if reading_board {
                if line.eq_ignore_ascii_case("DONE") {
                    reading_board = false;
                    self.answer_move();
                    continue;
                }
                let placed = line.rsplit_once(',').and_then(|(cell, who)| {
                    let who: u8 = who.trim().parse().ok().filter(|w| (1..=3).contains(w))?;
                    Some((self.empty_cell(cell)?, who))
                });
                match placed {
                    Some((cell, who)) => {
                        self.board.insert(cell, who);
                    }
                    None => self.say(&format!("ERROR bad BOARD line {line}")),
                }
                continue;
            }
            let (word, arg) = line.split_once(' ').unwrap_or((&line, ""));
            match word.to_ascii_uppercase().as_str() {
                w @ ("START" | "RECTSTART") => {
                    let size = if w == "RECTSTART" {
                        arg.split_once(',')
                            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
                    } else {
                        arg.trim().parse().ok().map(|n| (n, n))
                    };
                    match size {
                        None => self.say("ERROR bad size"),
                        Some((w, h)) if !(5..=32).contains(&w) || !(5..=32).contains(&h) => {
                            self.say(&format!("ERROR unsupported size {w}x{h}"))
                        }
                        Some((w, h)) => {
                            (self.width, self.height) = (w, h);
                            self.board.clear();
                            self.say("OK");
                        }
                    }
                }
                "RESTART" if self.o.mode == Mode::NoRestart => self.say("UNKNOWN RESTART"),
                "RESTART" => {
                    self.board.clear();
                    self.say("OK");
                }
                "INFO" => {}
                "BEGIN" if !self.board.is_empty() => self.say("ERROR BEGIN on a board with stones"),
                "BEGIN" => self.answer_move(),
                "TURN" => match self.empty_cell(arg) {
                    Some(cell) => {
                        self.board.insert(cell, 2);
                        self.answer_move();
                    }
                    None => self.say(&format!("ERROR bad TURN {arg}")),
                },
                "BOARD" => {
                    self.board.clear();
                    reading_board = true;
                }
                "ABOUT" => self.say(
                    "name=\"fixture-brain\", version=\"1.0\", author=\"kinrow tests\", country=\"none\"",
                ),
                "END" => return,
                other => self.say(&format!("UNKNOWN {other}")),
            }
        }
    }
}

fn main() {
    let o = options();
    if o.early_talk {
        let mut out = io::stdout().lock();
        let _ = write!(
            out,
            "MESSAGE hello, I am a brain that talks first\r\nsome junk without a comma\r\n"
        );
        let _ = out.flush();
    }
    std::thread::sleep(o.slow_start);
    if let Some(dir) = std::env::var_os("KINROW_FIXTURE_PIDS") {
        let _ = File::create(std::path::Path::new(&dir).join(std::process::id().to_string()));
    }
    let mut brain = Brain {
        rng: Rng(o.seed),
        o,
        width: 0,
        height: 0,
        board: HashMap::new(),
        asked: 0,
        answered_at: None,
    };
    brain.run();
}
