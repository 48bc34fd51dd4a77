//! A protocol client: one type, [`EngineProcess`], that owns an engine
//! process — its pipes, a deadline on every read, stderr drained all the
//! time, and kill and reap of its whole process group. The referee and
//! `kinrow play` both drive engines through it; it knows the GTP framing of
//! responses (DESIGN §2) but nothing about games.
//!
//! How it never blocks without a deadline: a reader thread per engine turns
//! stdout into [`Response`]s on a bounded channel, and [`EngineProcess::read_response`]
//! waits on that channel with `recv_timeout`. A second thread drains stderr so
//! a chatty engine can't fill its pipe and stall.
//!
//! ```no_run
//! use kinrow::client::{EngineProcess, StderrTo};
//! use std::time::{Duration, Instant};
//! let argv = vec!["kinrow".to_string(), "--bot".into(), "random".into()];
//! let mut engine = EngineProcess::spawn(&argv, StderrTo::Discard)?;
//! engine.send("newgame 3 3 3\ngenmove\n")?;
//! let deadline = Instant::now() + Duration::from_secs(5);
//! assert!(engine.read_response(deadline)?.success);
//! let reply = engine.read_response(deadline)?;
//! println!("engine plays {}", reply.text);
//! engine.shutdown(Duration::from_millis(200));
//! # Ok::<(), kinrow::client::ClientError>(())
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Longest stdout line kept; the rest of a longer line is read and dropped,
/// so an engine can't make the client buffer without bound.
pub const MAX_LINE: usize = 64 * 1024;
/// Longest response text kept (multi-line responses such as `show`).
pub const MAX_RESPONSE: usize = 1024 * 1024;
/// How much of the end of stderr is kept in memory for error messages.
pub const STDERR_TAIL: usize = 2048;
/// How many skipped stdout lines are kept for the caller to log (the count
/// is always exact).
pub const MAX_SKIPPED_KEPT: usize = 64;
/// Messages the stdout reader may queue ahead of the caller: enough to never
/// stall a well-behaved engine, small enough that a flood applies
/// back-pressure instead of eating memory.
const CHANNEL_DEPTH: usize = 256;
/// While a cancel flag is set up, waits are cut into slices this long so
/// cancelling is noticed promptly; a reply that is ready returns at once.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// One framed response: `=[id] text` or `?[id] text`, up to its empty line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// `true` for `=`, `false` for `?`.
    pub success: bool,
    /// The id echoed right after `=`/`?`, if any.
    pub id: Option<u64>,
    /// The result (or message) without the prefix and id; lines of a
    /// multi-line response are joined with `\n`.
    pub text: String,
}

impl Response {
    /// Parses the first line of a response (it starts with `=` or `?`).
    fn first_line(line: &str) -> Response {
        let success = line.starts_with('=');
        let rest = line.get(1..).unwrap_or("");
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let id = if digits > 0 {
            rest[..digits].parse().ok()
        } else {
            None
        };
        Response {
            success,
            id,
            text: rest[digits..].trim_start_matches(' ').to_string(),
        }
    }
}

/// Where an engine's stderr goes.
#[derive(Debug)]
pub enum StderrTo {
    /// Drained and dropped (only a short tail is kept for error messages).
    Discard,
    /// Drained into this file (and the tail kept).
    File(File),
    /// Shared with this process's stderr (not drained by us).
    Inherit,
}

/// What went wrong talking to an engine.
#[derive(Debug)]
pub enum ClientError {
    /// The program could not be started.
    Spawn(io::Error),
    /// The engine's output ended (it exited, crashed or closed stdout).
    Closed,
    /// Writing to the engine failed (usually: it is gone).
    Write(io::Error),
    /// No response before the deadline.
    Timeout,
    /// The cancel flag was raised while waiting.
    Cancelled,
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Spawn(e) => write!(f, "cannot start: {e}"),
            ClientError::Closed => f.write_str("output closed (the engine exited or crashed)"),
            ClientError::Write(e) => write!(f, "cannot write to the engine: {e}"),
            ClientError::Timeout => f.write_str("no response before the deadline"),
            ClientError::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl std::error::Error for ClientError {}

/// What the stdout reader thread tells the owner.
enum Event {
    Response(Response),
    /// A non-empty line outside a response that doesn't start with `=`/`?`.
    Skipped(String),
}

/// One engine process in its own process group, with its pipes and threads.
/// Dropping it kills the group and reaps the process.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    cancel: Option<Arc<AtomicBool>>,
    skipped: Vec<String>,
    skipped_total: u64,
    status: Option<ExitStatus>,
}

impl EngineProcess {
    /// Starts `argv[0]` with the remaining words as arguments — directly,
    /// never through a shell — in a new process group, with piped stdin and
    /// stdout.
    pub fn spawn(argv: &[String], stderr: StderrTo) -> Result<EngineProcess, ClientError> {
        let Some((program, args)) = argv.split_first() else {
            return Err(ClientError::Spawn(io::Error::new(
                io::ErrorKind::InvalidInput,
                "empty command",
            )));
        };
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match stderr {
                StderrTo::Inherit => Stdio::inherit(),
                _ => Stdio::piped(),
            })
            // Its own group: a terminal's Ctrl-C reaches only us (we decide
            // how engines end), and one kill ends the engine's helpers too.
            .process_group(0);
        let mut child = command.spawn().map_err(ClientError::Spawn)?;

        let stdin = child.stdin.take();
        let (tx, events) = sync_channel(CHANNEL_DEPTH);
        if let Some(out) = child.stdout.take() {
            spawn_thread("engine-stdout", move || read_stdout(out, tx));
        }
        let stderr_tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        if let Some(err) = child.stderr.take() {
            let log = match stderr {
                StderrTo::File(f) => Some(f),
                _ => None,
            };
            let tail = Arc::clone(&stderr_tail);
            spawn_thread("engine-stderr", move || drain_stderr(err, log, tail));
        }
        Ok(EngineProcess {
            child,
            stdin,
            events,
            stderr_tail,
            cancel: None,
            skipped: Vec::new(),
            skipped_total: 0,
            status: None,
        })
    }

    /// The operating system's id of the engine process (also its process
    /// group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Makes every later wait give up with [`ClientError::Cancelled`] soon
    /// after `flag` becomes true (for Ctrl-C).
    pub fn set_cancel(&mut self, flag: Arc<AtomicBool>) {
        self.cancel = Some(flag);
    }

    /// Writes `text` (one or more complete lines) in a single write and
    /// flushes: pipelined requests cost one wake-up of the engine.
    pub fn send(&mut self, text: &str) -> Result<(), ClientError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(ClientError::Write(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "stdin already closed",
            )));
        };
        stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(ClientError::Write)
    }

    /// Waits for the next response until `deadline`. Lines that are not part
    /// of a response and don't start with `=` or `?` are skipped (see
    /// [`EngineProcess::take_skipped`]); they don't extend the deadline.
    pub fn read_response(&mut self, deadline: Instant) -> Result<Response, ClientError> {
        loop {
            // A response already waiting counts even at the deadline.
            let wait = deadline.saturating_duration_since(Instant::now());
            let wait = match &self.cancel {
                Some(_) => wait.min(CANCEL_POLL),
                None => wait,
            };
            match self.events.recv_timeout(wait) {
                Ok(Event::Response(r)) => return Ok(r),
                Ok(Event::Skipped(line)) => self.note_skipped(line),
                Err(RecvTimeoutError::Disconnected) => return Err(ClientError::Closed),
                Err(RecvTimeoutError::Timeout) => {
                    if self
                        .cancel
                        .as_ref()
                        .is_some_and(|c| c.load(Ordering::Relaxed))
                    {
                        return Err(ClientError::Cancelled);
                    }
                    if Instant::now() >= deadline {
                        return Err(ClientError::Timeout);
                    }
                }
            }
        }
    }

    /// Sends one request line and waits for its response (a convenience for
    /// callers that don't pipeline).
    pub fn request(&mut self, line: &str, timeout: Duration) -> Result<Response, ClientError> {
        let deadline = Instant::now() + timeout;
        let mut text = String::with_capacity(line.len() + 1);
        text.push_str(line);
        text.push('\n');
        self.send(&text)?;
        self.read_response(deadline)
    }

    fn note_skipped(&mut self, line: String) {
        self.skipped_total += 1;
        if self.skipped.len() < MAX_SKIPPED_KEPT {
            self.skipped.push(line);
        }
    }

    /// The skipped stdout lines kept since the last call (at most
    /// [`MAX_SKIPPED_KEPT`]) and how many there were in all.
    pub fn take_skipped(&mut self) -> (Vec<String>, u64) {
        let total = std::mem::take(&mut self.skipped_total);
        (std::mem::take(&mut self.skipped), total)
    }

    /// The last bytes the engine wrote to stderr (when drained by us), for
    /// error messages.
    pub fn stderr_tail(&self) -> String {
        let tail = match self.stderr_tail.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Whether the process has exited (without reaping it, so its process
    /// group id stays reserved until [`EngineProcess::kill`]).
    pub fn has_exited(&self) -> bool {
        if self.status.is_some() {
            return true;
        }
        // SAFETY: waitid only writes into the siginfo_t we own; WNOWAIT
        // leaves the child to be reaped by `Child::wait` later.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let rc = libc::waitid(
                libc::P_PID,
                self.child.id() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            );
            rc != 0 || info.si_pid() != 0
        }
    }

    /// Asks the engine to quit: sends `quit` and closes its stdin (end of
    /// input also means quit). Doesn't wait; see [`EngineProcess::shutdown`].
    pub fn request_quit(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"quit\n").and_then(|()| stdin.flush());
        }
    }

    /// Ends the engine politely: `quit`, then up to `grace` for it to exit,
    /// then SIGKILL to its process group; always reaps. Returns how it ended.
    pub fn shutdown(mut self, grace: Duration) -> Option<ExitStatus> {
        self.request_quit();
        self.wait_until(Instant::now() + grace);
        self.kill()
    }

    /// Waits (without reaping) until the process has exited or `deadline`
    /// has passed; true if it exited. Lets a caller give many engines one
    /// shared grace period.
    pub fn wait_until(&self, deadline: Instant) -> bool {
        let mut pause = Duration::from_micros(200);
        loop {
            if self.has_exited() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// SIGKILL to the whole process group, then reaps the process. Safe to
    /// call more than once; returns the exit status.
    pub fn kill(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            // The leader is not reaped yet, so the group id can't have been
            // reused: this reaches only the engine and its helpers.
            // SAFETY: plain syscall; a failure (group already empty) is fine.
            unsafe {
                libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL);
            }
            self.stdin = None;
            self.status = self.child.wait().ok();
            reap_group(self.child.id() as libc::pid_t);
        }
        self.status
    }
}

/// Makes this process the reaper of orphaned descendants (Linux
/// `PR_SET_CHILD_SUBREAPER`): an engine's helper processes that outlive it
/// then come to us, and [`EngineProcess::kill`] reaps them, instead of being
/// left to an init that may never reap them. Returns false if unsupported.
pub fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: plain prctl on our own process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// Reaps what is left of a killed process group among our children (the
/// engine's helpers, adopted through [`adopt_orphans`]), waiting briefly for
/// SIGKILL to land; members we can't reap (not ours) end the wait at once.
fn reap_group(pgid: libc::pid_t) {
    let give_up = Instant::now() + Duration::from_millis(200);
    loop {
        // SAFETY: waitpid on a process group we own; no pointers kept.
        let reaped = unsafe { libc::waitpid(-pgid, std::ptr::null_mut(), libc::WNOHANG) };
        if reaped > 0 {
            continue;
        }
        // -1 (ECHILD): no child of ours left in the group.
        if reaped < 0 || Instant::now() >= give_up {
            return;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

impl fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EngineProcess")
            .field("pid", &self.child.id())
            .field("status", &self.status)
            .finish()
    }
}

fn spawn_thread(name: &str, f: impl FnOnce() + Send + 'static) {
    // If a thread can't be started the pipe is simply not read: reads then
    // time out, which the caller handles like any silent engine.
    let _ = thread::Builder::new()
        .name(name.into())
        .stack_size(64 * 1024)
        .spawn(f);
}

/// Reads one line into `line` (without its `\n`), keeping at most
/// [`MAX_LINE`] bytes of it. Returns false at end of output.
fn read_line_capped(r: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut any = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(any);
        }
        any = true;
        let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        let room = MAX_LINE.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        r.consume(used);
        if done {
            return Ok(true);
        }
    }
}

/// The stdout reader thread: frames responses and hands them over; ends
/// (dropping the sender, which the owner sees as "closed") at end of output
/// or when the owner is gone.
fn read_stdout(out: impl Read, tx: SyncSender<Event>) {
    let mut r = BufReader::with_capacity(16 * 1024, out);
    let mut line = Vec::with_capacity(64);
    let mut current: Option<Response> = None;
    while let Ok(true) = read_line_capped(&mut r, &mut line) {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let text = String::from_utf8_lossy(&line);
        let event = match current.as_mut() {
            Some(_) if line.is_empty() => current.take().map(Event::Response),
            Some(resp) => {
                if resp.text.len() + text.len() < MAX_RESPONSE {
                    resp.text.push('\n');
                    resp.text.push_str(&text);
                }
                None
            }
            None if line.starts_with(b"=") || line.starts_with(b"?") => {
                current = Some(Response::first_line(&text));
                None
            }
            None if line.is_empty() => None,
            None => Some(Event::Skipped(text.into_owned())),
        };
        if let Some(event) = event {
            if tx.send(event).is_err() {
                return;
            }
        }
    }
    // A last response cut off by end of output still says what it says.
    if let Some(resp) = current {
        let _ = tx.send(Event::Response(resp));
    }
}

/// The stderr drainer thread: reads until end of output, copying to the log
/// (if any) and keeping the last [`STDERR_TAIL`] bytes.
fn drain_stderr(mut err: impl Read, mut log: Option<File>, tail: Arc<Mutex<VecDeque<u8>>>) {
    let mut buf = [0u8; 8192];
    loop {
        let n = match err.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        let chunk = &buf[..n];
        if let Some(f) = log.as_mut() {
            if f.write_all(chunk).is_err() {
                log = None; // a full disk must not stop the draining
            }
        }
        let mut t = match tail.lock() {
            Ok(t) => t,
            Err(poisoned) => poisoned.into_inner(),
        };
        let keep = &chunk[chunk.len().saturating_sub(STDERR_TAIL)..];
        let overflow = (t.len() + keep.len()).saturating_sub(STDERR_TAIL);
        let len = t.len();
        t.drain(..overflow.min(len));
        t.extend(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(input: &str) -> Vec<String> {
        let (tx, rx) = sync_channel(1000);
        read_stdout(input.as_bytes(), tx);
        rx.try_iter()
            .map(|e| match e {
                Event::Response(r) => {
                    format!("{}{:?}|{}", if r.success { '=' } else { '?' }, r.id, r.text)
                }
                Event::Skipped(l) => format!("skip|{l}"),
            })
            .collect()
    }

    #[test]
    fn frames_responses_ids_and_multiline() {
        assert_eq!(
            events("=\n\n= 2 2\n\n?7 illegal move: x\n\n=3 a\nb\n\n"),
            [
                "=None|",
                "=None|2 2",
                "?Some(7)|illegal move: x",
                "=Some(3)|a\nb"
            ]
        );
    }

    #[test]
    fn skips_junk_and_blank_lines_outside_responses() {
        assert_eq!(
            events("info depth 3\n\n\r\n= 1 1\r\n\r\nbye\n"),
            ["skip|info depth 3", "=None|1 1", "skip|bye"]
        );
    }

    #[test]
    fn a_response_cut_off_by_end_of_output_is_delivered() {
        assert_eq!(events("= 3 3\n"), ["=None|3 3"]);
    }

    #[test]
    fn overlong_lines_are_capped() {
        let long = "x".repeat(MAX_LINE * 3);
        let got = events(&format!("{long}\n= 1 2\n\n"));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].len(), "skip|".len() + MAX_LINE);
        assert_eq!(got[1], "=None|1 2");
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn talks_to_a_process_and_reaps_it() {
        let mut e = EngineProcess::spawn(
            &sh("read a; echo \"= got $a\"; echo; read b; echo >&2 oops; exit 0"),
            StderrTo::Discard,
        )
        .unwrap();
        let r = e.request("hello", Duration::from_secs(5)).unwrap();
        assert_eq!(r.text, "got hello");
        e.send("bye\n").unwrap();
        assert!(matches!(
            e.read_response(Instant::now() + Duration::from_secs(5)),
            Err(ClientError::Closed)
        ));
        assert!(e.wait_until(Instant::now() + Duration::from_secs(5)));
        assert!(e.stderr_tail().contains("oops"));
        assert!(e.kill().is_some_and(|s| s.success()));
    }

    #[test]
    fn a_silent_engine_times_out_and_is_killed_with_its_group() {
        assert!(adopt_orphans());
        let mut e = EngineProcess::spawn(&sh("sleep 30 & sleep 30"), StderrTo::Discard).unwrap();
        let t = Instant::now();
        let r = e.request("genmove", Duration::from_millis(100));
        assert!(matches!(r, Err(ClientError::Timeout)));
        assert!(t.elapsed() < Duration::from_secs(5));
        let pgid = e.pid() as libc::pid_t;
        let status = e.shutdown(Duration::from_millis(50)).unwrap();
        assert!(!status.success());
        // Nothing is left in the group (the background sleep died too).
        thread::sleep(Duration::from_millis(50));
        // SAFETY: signal 0 only checks for existence.
        let alive = unsafe { libc::kill(-pgid, 0) } == 0;
        assert!(!alive);
    }

    #[test]
    fn cancelling_cuts_a_wait_short() {
        let mut e = EngineProcess::spawn(&sh("sleep 30"), StderrTo::Discard).unwrap();
        let flag = Arc::new(AtomicBool::new(true));
        e.set_cancel(flag);
        let r = e.read_response(Instant::now() + Duration::from_secs(30));
        assert!(matches!(r, Err(ClientError::Cancelled)));
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let r = EngineProcess::spawn(&["/nonexistent/engine".into()], StderrTo::Discard);
        assert!(matches!(r, Err(ClientError::Spawn(_))));
        assert!(matches!(
            EngineProcess::spawn(&[], StderrTo::Discard),
            Err(ClientError::Spawn(_))
        ));
    }
}
