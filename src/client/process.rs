//! [`EngineProcess`]: one engine process, its pipes, a deadline on every
//! read, stderr drained all the time, and kill and reap of its whole
//! process group (see the client's module documentation); `Framer` and
//! `Inbox` turn its stdout into responses and lines.

use crate::sys::poll::{self, Watch};
use crate::sys::reaper;

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
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
/// Bytes read from stdout per system call.
const READ_CHUNK: usize = 16 * 1024;
/// Reads allowed once the deadline has passed: enough to take in a default
/// pipe's worth (64 KB) that was written before it.
const LATE_READS: u32 = 4;
/// Waits are cut into slices this long, so a raised cancel flag and an
/// engine that exited while a helper of it holds its stdout open are
/// noticed promptly; a reply that is ready returns at once.
const WAIT_SLICE: Duration = Duration::from_millis(50);

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

/// What a line of stdout means.
enum Event {
    Response(Response),
    /// A raw line, for line protocols.
    Line(String),
    /// A non-empty line outside a response that doesn't start with `=`/`?`.
    Skipped(String),
}

/// One engine process in its own process group, with its pipes and threads.
/// Dropping it kills the group and reaps the process.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<Inbox>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    /// Set by the drainer at the end of stderr.
    stderr_done: Arc<AtomicBool>,
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
        EngineProcess::spawn_in(argv, stderr, None)
    }

    /// [`EngineProcess::spawn`] in working directory `dir` (a relative
    /// program is found from there, as cutechess-cli's `dir=` has it).
    pub fn spawn_in(
        argv: &[String],
        stderr: StderrTo,
        dir: Option<&std::path::Path>,
    ) -> Result<EngineProcess, ClientError> {
        let Some((program, args)) = argv.split_first() else {
            return Err(ClientError::Spawn(io::Error::new(
                io::ErrorKind::InvalidInput,
                "empty command",
            )));
        };
        let mut command = Command::new(program);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match stderr {
                StderrTo::Inherit => Stdio::inherit(),
                _ => Stdio::piped(),
            });
        // Its own group: a terminal's Ctrl-C reaches only us (we decide how
        // engines end), and one kill ends the engine's helpers too.
        let mut child = reaper::spawn_group_leader(&mut command).map_err(ClientError::Spawn)?;

        let stdin = child.stdin.take();
        let stdout = child.stdout.take().map(Inbox::new);
        let stderr_tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        let stderr_done = Arc::new(AtomicBool::new(true));
        if let Some(err) = child.stderr.take() {
            let log = match stderr {
                StderrTo::File(f) => Some(f),
                _ => None,
            };
            let tail = Arc::clone(&stderr_tail);
            let done = Arc::clone(&stderr_done);
            done.store(false, Ordering::SeqCst);
            spawn_thread("engine-stderr", move || {
                drain_stderr(err, log, tail);
                done.store(true, Ordering::SeqCst);
            });
        }
        Ok(EngineProcess {
            child,
            stdin,
            stdout,
            stderr_tail,
            stderr_done,
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

    /// The peak resident size of the engine and what it started (see
    /// [`crate::sys::memory::peak_resident_bytes`]); `None` when it can't
    /// be read.
    pub fn peak_resident_bytes(&self) -> Option<u64> {
        crate::sys::memory::peak_resident_bytes(self.pid())
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
        if let Some(inbox) = self.stdout.as_mut() {
            inbox.awaiting_reply = true;
            inbox.sent = inbox.sent.wrapping_add(1);
        }
        stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(ClientError::Write)
    }

    /// Waits for the next response until `deadline`. Lines that are not part
    /// of a response and don't start with `=` or `?` are skipped (see
    /// [`EngineProcess::take_skipped`]); they don't extend the deadline.
    pub fn read_response(&mut self, deadline: Instant) -> Result<Response, ClientError> {
        self.wait_for(deadline, |inbox| inbox.next_event())
    }

    /// Waits for the next non-empty line of stdout until `deadline`, without
    /// any framing, for protocols that are one line a reply (Gomocup). A
    /// line ends at LF, CR LF or a CR alone; it comes without its end.
    pub fn read_line(&mut self, deadline: Instant) -> Result<String, ClientError> {
        self.wait_for(deadline, |inbox| inbox.next_line().map(Event::Line))
            .map(|line| line.text)
    }

    /// The next non-empty line of stdout if one is there now: buffered, or
    /// arrived (one read that does not wait). For lines no request asked
    /// for, looked for before the next request.
    pub fn line_now(&mut self) -> Option<String> {
        let inbox = self.stdout.as_mut()?;
        if let Some(line) = inbox.next_line() {
            return Some(line);
        }
        if inbox.eof || !inbox.fill() {
            return None;
        }
        inbox.next_line()
    }

    /// Counts a line the caller skipped (as [`EngineProcess::take_skipped`]
    /// reports them).
    pub fn skip_line(&mut self, line: String) {
        note_skipped(&mut self.skipped, &mut self.skipped_total, line);
    }

    /// The read loop: `take` finds a complete item in what is buffered;
    /// otherwise reads, waiting within the deadline.
    fn wait_for(
        &mut self,
        deadline: Instant,
        mut take: impl FnMut(&mut Inbox) -> Option<Event>,
    ) -> Result<Response, ClientError> {
        let Some(inbox) = self.stdout.as_mut() else {
            return Err(ClientError::Closed);
        };
        let mut late_reads = 0;
        loop {
            match take(inbox) {
                Some(Event::Response(r)) => return Ok(r),
                Some(Event::Line(text)) => {
                    return Ok(Response {
                        success: true,
                        id: None,
                        text,
                    })
                }
                Some(Event::Skipped(line)) => {
                    note_skipped(&mut self.skipped, &mut self.skipped_total, line);
                    continue;
                }
                None if inbox.eof => return Err(ClientError::Closed),
                None => {}
            }
            // Nothing complete buffered: take what has arrived without
            // waiting (often the reply is there already), else wait for
            // more within the deadline (in short slices when a cancel flag
            // may cut the wait). The clock and the flag are looked at before
            // every read, not only when the pipe runs dry: an engine that
            // keeps it full of junk must not hold us past the deadline.
            let now = Instant::now();
            if self
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(Ordering::Relaxed))
            {
                return Err(ClientError::Cancelled);
            }
            if now >= deadline {
                // What was in the pipe by the deadline still counts: read
                // up to a full pipe's worth more, then give up.
                if late_reads >= LATE_READS {
                    return Err(ClientError::Timeout);
                }
                late_reads += 1;
            }
            if inbox.awaiting_reply {
                if inbox.early > 0 || inbox.sent.is_multiple_of(64) {
                    let found = inbox.fill();
                    inbox.early = if found {
                        EARLY_MAX
                    } else {
                        inbox.early.saturating_sub(1)
                    };
                    if found {
                        continue;
                    }
                }
            } else if inbox.fill() {
                continue;
            }
            if now >= deadline {
                return Err(ClientError::Timeout);
            }
            if inbox.wait_readable((deadline - now).min(WAIT_SLICE)) {
                inbox.fill();
            } else if self.status.is_some() || exited(self.child.id()) {
                // Its output didn't end because a helper it left behind
                // still holds the pipe: the engine is gone all the same.
                // Take what it wrote before exiting, then end the output.
                for _ in 0..LATE_READS {
                    if !inbox.fill() {
                        break;
                    }
                }
                inbox.eof = true;
            }
        }
    }

    /// A whole response already read from the engine but not asked for
    /// (all requests answered, a reply more): looked for in what was read
    /// before, without a system call, so a caller can check for it before
    /// each request at no cost. Lines skipped on the way count as skipped.
    pub fn unasked_reply(&mut self) -> Option<Response> {
        let inbox = self.stdout.as_mut()?;
        loop {
            match inbox.next_event()? {
                Event::Response(r) => return Some(r),
                Event::Skipped(line) => {
                    note_skipped(&mut self.skipped, &mut self.skipped_total, line)
                }
                // Raw lines are not framed here.
                Event::Line(_) => {}
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

    /// The skipped stdout lines kept since the last call (at most
    /// [`MAX_SKIPPED_KEPT`]) and how many there were in all.
    pub fn take_skipped(&mut self) -> (Vec<String>, u64) {
        let total = std::mem::take(&mut self.skipped_total);
        (std::mem::take(&mut self.skipped), total)
    }

    /// The last bytes the engine wrote to stderr (when drained by us), for
    /// error messages. Once the engine has exited this waits briefly for the
    /// drainer to reach the end, so its last words are not lost to a race.
    pub fn stderr_tail(&self) -> String {
        if self.has_exited() {
            let until = Instant::now() + Duration::from_millis(200);
            while !self.stderr_done.load(Ordering::SeqCst) && Instant::now() < until {
                thread::sleep(Duration::from_millis(2));
            }
        }
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
        self.status.is_some() || exited(self.child.id())
    }

    /// Asks the engine to quit: sends `quit` and closes its stdin (end of
    /// input also means quit). Doesn't wait; see [`EngineProcess::shutdown`].
    pub fn request_quit(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.write_all(b"quit\n").and_then(|()| stdin.flush());
        }
    }

    /// Closes the engine's input (end of input) without a word.
    pub fn close_input(&mut self) {
        self.stdin = None;
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

    /// SIGKILL to the whole process group, then reaps the process, and
    /// kills and reaps the helpers it left to us (see
    /// [`crate::sys::reaper`]). Safe to call more than once; returns the
    /// exit status.
    pub fn kill(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.stdin = None;
            self.status = reaper::kill_group(&mut self.child);
        }
        self.status
    }
}

/// Whether our child `pid` has exited, without reaping it (so its process
/// group id stays reserved until [`EngineProcess::kill`]).
fn exited(pid: u32) -> bool {
    reaper::has_exited(pid)
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

/// Counts a skipped stdout line, keeping the first [`MAX_SKIPPED_KEPT`].
fn note_skipped(kept: &mut Vec<String>, total: &mut u64, line: String) {
    *total += 1;
    if kept.len() < MAX_SKIPPED_KEPT {
        kept.push(line);
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

/// Turns lines of stdout into events: a response runs from its `=`/`?`
/// line to the next empty line; other non-empty lines outside a response are
/// skipped; empty lines outside a response are ignored.
#[derive(Default)]
struct Framer {
    current: Option<Response>,
}

impl Framer {
    fn line(&mut self, line: &[u8]) -> Option<Event> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = String::from_utf8_lossy(line);
        match self.current.as_mut() {
            Some(_) if line.is_empty() => self.current.take().map(Event::Response),
            Some(resp) => {
                if resp.text.len() + text.len() < MAX_RESPONSE {
                    resp.text.push('\n');
                    resp.text.push_str(&text);
                }
                None
            }
            None if line.starts_with(b"=") || line.starts_with(b"?") => {
                self.current = Some(Response::first_line(&text));
                None
            }
            None if line.is_empty() => None,
            None => Some(Event::Skipped(text.into_owned())),
        }
    }

    /// At end of output: a last response cut off still says what it says.
    fn finish(&mut self) -> Option<Event> {
        self.current.take().map(Event::Response)
    }
}

/// The engine's stdout with what has been read of it but not yet framed.
struct Inbox {
    out: ChildStdout,
    buf: Vec<u8>,
    /// Where each read lands before it is appended to `buf`: zeroed once,
    /// not on every read (a reply is a few bytes; zeroing a whole chunk per
    /// read cost more than the copy).
    chunk: Box<[u8]>,
    /// Start of the unframed bytes in `buf`.
    pos: usize,
    /// Inside an overlong line whose kept part was already framed: drop
    /// bytes up to its end.
    skipping: bool,
    eof: bool,
    framer: Framer,
    /// A request went out and nothing has been read since.
    awaiting_reply: bool,
    /// Whether replies have been there as soon as their request was
    /// written, 0 to [`EARLY_MAX`]. On one CPU the engine runs while we
    /// write (the kernel switches to it as it wakes), so its reply is
    /// waiting when the write returns: reading at once saves a poll. On
    /// another CPU it isn't yet: polling first saves a read that finds
    /// nothing. Learned from the last requests, and tried again now and
    /// then.
    early: u8,
    /// Requests sent, to try an early read now and then.
    sent: u32,
}

/// How many early reads that find nothing it takes to stop trying them.
const EARLY_MAX: u8 = 3;

impl Inbox {
    fn new(out: ChildStdout) -> Inbox {
        // Non-blocking, so a read can look for a reply without a poll first;
        // waiting is poll's job, with its deadline.
        poll::set_nonblocking(out.as_raw_fd());
        Inbox {
            out,
            buf: Vec::with_capacity(READ_CHUNK),
            chunk: vec![0; READ_CHUNK].into_boxed_slice(),
            pos: 0,
            skipping: false,
            eof: false,
            framer: Framer::default(),
            awaiting_reply: false,
            early: EARLY_MAX,
            sent: 0,
        }
    }

    /// The next event from what is buffered, if a complete one is there.
    fn next_event(&mut self) -> Option<Event> {
        loop {
            match self.next_raw(b"\n") {
                Some((start, end)) => {
                    if let Some(e) = self.framer.line(&self.buf[start..end]) {
                        return Some(e);
                    }
                }
                None if self.eof => return self.framer.finish(),
                None => return None,
            }
        }
    }

    /// The next non-empty raw line (ended by LF or CR), if a complete one is
    /// buffered.
    fn next_line(&mut self) -> Option<String> {
        while let Some((start, end)) = self.next_raw(b"\r\n") {
            let text = String::from_utf8_lossy(&self.buf[start..end]);
            if !text.trim().is_empty() {
                return Some(text.into_owned());
            }
        }
        None
    }

    /// Where the next complete line lies in `buf` (without its end), at
    /// most [`MAX_LINE`] bytes of it: the rest of an overlong line is
    /// dropped. At end of output, an unterminated last line counts.
    fn next_raw(&mut self, ends: &[u8]) -> Option<(usize, usize)> {
        loop {
            let rest = &self.buf[self.pos..];
            match rest.iter().position(|b| ends.contains(b)) {
                Some(i) => {
                    let start = self.pos;
                    self.pos += i + 1;
                    if std::mem::take(&mut self.skipping) {
                        continue;
                    }
                    return Some((start, start + i.min(MAX_LINE)));
                }
                None if rest.len() >= MAX_LINE && !self.skipping => {
                    // Keep the head of an overlong line, drop the rest.
                    let start = self.pos;
                    self.pos = self.buf.len();
                    self.skipping = true;
                    return Some((start, start + MAX_LINE));
                }
                None => {
                    if self.skipping {
                        self.pos = self.buf.len();
                    }
                    if self.eof && self.pos < self.buf.len() && !self.skipping {
                        let start = self.pos;
                        self.pos = self.buf.len();
                        return Some((start, self.buf.len()));
                    }
                    return None;
                }
            }
        }
    }

    /// Waits up to `wait` for stdout to have data or end; true if so.
    fn wait_readable(&self, wait: Duration) -> bool {
        match poll::poll(&mut [Watch::readable(self.out.as_raw_fd())], Some(wait)) {
            Ok(n) => n > 0,
            // Cut short by a signal: look again at once.
            Err(e) => e.kind() == io::ErrorKind::Interrupted,
        }
    }

    /// Reads what is available without blocking (the pipe is non-blocking);
    /// false if nothing was there yet.
    fn fill(&mut self) -> bool {
        if self.pos > 0 && self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos > READ_CHUNK {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let read = self.out.read(&mut self.chunk);
        if let Ok(n) = read {
            self.buf.extend_from_slice(&self.chunk[..n]);
        }
        if read.is_ok() {
            self.awaiting_reply = false;
        }
        match read {
            Ok(0) => self.eof = true,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => self.eof = true,
        }
        true
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
mod tests;
