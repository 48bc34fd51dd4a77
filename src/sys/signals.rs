//! The signals that stop a program, and the one policy every front end
//! follows: the referee, `kinrow play`, `kinrow serve` and `kinrow solve`.
//!
//! - SIGINT (Ctrl-C), SIGTERM (`kill`) and SIGHUP (a closed terminal) stop
//!   the program. The first stops it in order: the [`Stop`] flag rises,
//!   the front end ends its work as it ends when done — the referee and
//!   `kinrow solve` report what they have, `kinrow play` and `kinrow serve`
//!   end their engines — and then ends as if by the signal
//!   ([`Stop::exit_code`] after a report, [`Stop::end_by_signal`] with
//!   nothing to report).
//! - A second ends it at once: every engine's process group is killed
//!   first, so none is left running, then `_exit(128 + signal)`.
//! - A signal ignored when the program started (`nohup`, a background job
//!   of a script) stays ignored, as the shell meant.
//!
//! [`SignalHandlerKind::Noop`] installs nothing, for tests: its flag rises
//! only by hand.

use super::poll::{self, Watch};
use super::reaper;
use std::fmt;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Whether a program's stop signals are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalHandlerKind {
    /// The policy of the module documentation.
    Standard,
    /// No handler: the signals keep their default actions.
    Noop,
}

/// A signal that stops a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: `kill`.
    Terminate,
    /// SIGHUP: the terminal closed.
    Hangup,
}

impl StopSignal {
    /// Every stop signal.
    pub const ALL: [StopSignal; 3] = [
        StopSignal::Interrupt,
        StopSignal::Terminate,
        StopSignal::Hangup,
    ];

    /// Its number.
    pub fn number(self) -> libc::c_int {
        match self {
            StopSignal::Interrupt => libc::SIGINT,
            StopSignal::Terminate => libc::SIGTERM,
            StopSignal::Hangup => libc::SIGHUP,
        }
    }

    fn from_number(n: libc::c_int) -> Option<StopSignal> {
        StopSignal::ALL.into_iter().find(|s| s.number() == n)
    }

    /// The exit status of a program it ended: 128 + its number (130 after
    /// Ctrl-C, 143 after `kill`).
    pub fn exit_code(self) -> u8 {
        (128 + self.number()) as u8
    }
}

impl fmt::Display for StopSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
            StopSignal::Hangup => "SIGHUP",
        })
    }
}

/// Where the handler finds the stop flag (set once, never freed).
static FLAG: AtomicPtr<AtomicBool> = AtomicPtr::new(std::ptr::null_mut());
/// The first stop signal received, or 0.
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);
/// The write end of the stop pipe, or -1.
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// What the one installation of the standard kind made: its flag and the
/// read end of its pipe.
static INSTALLED: OnceLock<(Arc<AtomicBool>, RawFd)> = OnceLock::new();

extern "C" fn on_stop_signal(signal: libc::c_int) {
    // Async-signal-safe: atomic operations, write(2), kill(2) and _exit(2)
    // only.
    if STOPPED_BY
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        reaper::kill_all_now();
        // SAFETY: _exit is async-signal-safe; nothing is flushed on purpose.
        unsafe { libc::_exit(128 + signal) };
    }
    let flag = FLAG.load(Ordering::SeqCst);
    // SAFETY: the pointer comes from Arc::into_raw and is never freed.
    if let Some(flag) = unsafe { flag.as_ref() } {
        flag.store(true, Ordering::SeqCst);
    }
    let wake = WAKE.load(Ordering::SeqCst);
    if wake >= 0 {
        // SAFETY: one byte from a static buffer to a non-blocking pipe; a
        // full pipe is already readable, which is all that matters.
        unsafe { libc::write(wake, [1u8].as_ptr().cast(), 1) };
    }
}

/// How a program learns that it is asked to stop; cheap to clone.
#[derive(Clone, Debug)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    /// Readable once a stop signal came (never read from, so every waiter
    /// sees it); -1 for none.
    wake: RawFd,
    kind: SignalHandlerKind,
}

impl Stop {
    /// Installs the handlers of `kind` (the standard ones once per process:
    /// a second call shares the first one's flag).
    pub fn install(kind: SignalHandlerKind) -> Stop {
        let (flag, wake) = match kind {
            SignalHandlerKind::Noop => (Arc::new(AtomicBool::new(false)), -1),
            SignalHandlerKind::Standard => {
                let (flag, wake) = INSTALLED.get_or_init(install_standard);
                (Arc::clone(flag), *wake)
            }
        };
        Stop { flag, wake, kind }
    }

    /// The flag that rises with the first stop signal: give it to every
    /// wait that must end then ([`crate::client::EngineProcess::set_cancel`],
    /// the solver's budget).
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.flag
    }

    /// Whether the program is asked to stop.
    pub fn requested(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The signal that asked it to stop, if one did.
    pub fn signal(&self) -> Option<StopSignal> {
        match self.kind {
            SignalHandlerKind::Noop => None,
            SignalHandlerKind::Standard => {
                StopSignal::from_number(STOPPED_BY.load(Ordering::SeqCst))
            }
        }
    }

    /// The exit status to end with after a stop signal, once what was done
    /// is reported: 128 + the signal.
    pub fn exit_code(&self) -> Option<u8> {
        self.signal().map(StopSignal::exit_code)
    }

    /// A descriptor that becomes readable when a stop signal comes (-1 for
    /// none), to wait on beside others with [`poll::poll`].
    pub fn wake_fd(&self) -> RawFd {
        self.wake
    }

    /// After a stop signal, ends the program as the signal would have had
    /// it not been caught (its default action), for a front end with
    /// nothing to report; returns at once otherwise.
    pub fn end_by_signal(&self) {
        let Some(signal) = self.signal() else {
            return;
        };
        // SAFETY: the default action back, then the signal again.
        unsafe {
            libc::signal(signal.number(), libc::SIG_DFL);
            libc::raise(signal.number());
        }
        // Only if the signal is blocked in this thread.
        std::process::exit(i32::from(signal.exit_code()));
    }

    /// `input` read so that a stop ends a wait for it: the read fails with
    /// [`stopped`] (kind `Other`).
    pub fn reader<R: Read + AsRawFd>(&self, input: R) -> StopReader<R> {
        StopReader {
            input,
            stop: self.clone(),
        }
    }
}

/// The error of a read cut short by a stop (see [`Stop::reader`]).
pub fn stopped() -> io::Error {
    io::Error::other("stopped by a signal")
}

/// See [`Stop::reader`].
pub struct StopReader<R> {
    input: R,
    stop: Stop,
}

/// How often a wait looks at the flag when no pipe says it rose.
const LOOK_EVERY: Duration = Duration::from_millis(50);

impl<R: Read + AsRawFd> Read for StopReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.stop.requested() {
                return Err(stopped());
            }
            let slice = (self.stop.wake < 0).then_some(LOOK_EVERY);
            let mut watches = [
                Watch::readable(self.input.as_raw_fd()),
                Watch::readable(self.stop.wake),
            ];
            match poll::poll(&mut watches, slice) {
                Ok(_) if watches[0].ready() && !self.stop.requested() => {
                    return self.input.read(buf)
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

/// The flag, the pipe and the handlers of the standard kind.
fn install_standard() -> (Arc<AtomicBool>, RawFd) {
    let flag = Arc::new(AtomicBool::new(false));
    FLAG.store(
        Arc::into_raw(Arc::clone(&flag)).cast_mut(),
        Ordering::SeqCst,
    );
    let mut fds = [-1 as libc::c_int; 2];
    // SAFETY: pipe2 fills the array we own; CLOEXEC keeps it out of engines.
    let piped = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } == 0;
    let [read_end, write_end] = if piped { fds } else { [-1, -1] };
    WAKE.store(write_end, Ordering::SeqCst);
    for signal in StopSignal::ALL {
        // SAFETY: reading the current disposition, then installing a
        // handler that is async-signal-safe.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal.number(), std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal.number(), &action, std::ptr::null_mut());
        }
    }
    (flag, read_end)
}

/// Ignores every signal that can be (the warden's lot: it must outlive us
/// to do its work, whatever reaches our process group or terminal).
pub(super) fn ignore_all_but_kill() {
    for signal in [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGPIPE,
        libc::SIGTSTP,
        libc::SIGTTIN,
        libc::SIGTTOU,
    ] {
        // SAFETY: setting a disposition; no handler runs.
        unsafe { libc::signal(signal, libc::SIG_IGN) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::time::Instant;

    #[test]
    fn stop_signals_name_their_exit_codes() {
        assert_eq!(StopSignal::Interrupt.exit_code(), 130);
        assert_eq!(StopSignal::Terminate.exit_code(), 143);
        assert_eq!(StopSignal::Hangup.exit_code(), 129);
        assert_eq!(
            StopSignal::from_number(libc::SIGTERM),
            Some(StopSignal::Terminate)
        );
        assert_eq!(StopSignal::from_number(libc::SIGKILL), None);
        assert_eq!(StopSignal::Hangup.to_string(), "SIGHUP");
    }

    #[test]
    fn a_raised_flag_ends_a_wait_for_input_and_data_is_read_until_then() {
        let stop = Stop::install(SignalHandlerKind::Noop);
        assert_eq!((stop.signal(), stop.exit_code()), (None, None));
        let (mut tx, rx) = UnixStream::pair().unwrap();
        let mut reader = stop.reader(rx);
        tx.write_all(b"2 2\n").unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(reader.read(&mut buf).unwrap(), 4);
        let flag = Arc::clone(stop.flag());
        let raiser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::SeqCst);
        });
        let t = Instant::now();
        let err = reader.read(&mut buf).unwrap_err();
        assert_eq!(err.to_string(), stopped().to_string());
        assert!(t.elapsed() >= Duration::from_millis(100));
        assert!(t.elapsed() < Duration::from_secs(5));
        raiser.join().unwrap();
        // Nothing stopped the no-op kind's program: ending is a no-op.
        stop.end_by_signal();
    }
}
