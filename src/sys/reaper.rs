//! No engine process, nor anything an engine starts, outlives the program
//! that drives it (the referee, `kinrow play`, `kinrow serve`) — however
//! that program ends.
//!
//! Four layers, each for a way of ending; the first two come with every
//! engine ([`spawn_group_leader`]), the last two with the [`Reaper`] guard
//! that each front end holds for its life, so none can forget one:
//!
//! - **Process groups** (`live_groups`): every engine leads a group of its
//!   own; killing it kills the group, its helpers with it. A table of
//!   atomics lets a signal handler do that too (`kill_all_now`).
//! - **Parent death** (`die_with_parent`): each engine is started with
//!   `PR_SET_PDEATHSIG` = SIGKILL, so it dies when the thread that started
//!   it ends — with the whole program after `kill -9`. (The thread that
//!   starts an engine must therefore outlive it: the referee's workers,
//!   `kinrow play`'s main thread and `kinrow serve`'s session workers do.)
//! - **Subreaper** (`adopt_orphans`, `sweep_adopted`): a helper that an
//!   engine started in a session of its own (`setsid`) escapes the group;
//!   when its engine dies it is adopted by us instead of init, and every
//!   kill of an engine, and every exit path, kills and reaps what was
//!   adopted.
//! - **Warden** (`start_warden`): after `kill -9` nothing of ours runs, so
//!   a small process started at start-up waits for our end (the end of a
//!   pipe only we hold) and then kills every process that carries this
//!   run's mark in its environment (`KINROW_RUN`, inherited by every engine
//!   and whatever it starts). A helper that clears its environment *and*
//!   leaves its session escapes this last layer only. The warden runs
//!   beside us, not under us (it is forked twice): whoever counts our
//!   children counts engines only.

use super::signals::{self, SignalHandlerKind, Stop};
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Every layer of the reaper, and the stop signals, for as long as a front
/// end lives: made first thing in `main` (the warden forks, so while the
/// program has one thread), dropped last (sweeping what engines left).
pub struct Reaper {
    stop: Stop,
}

impl Reaper {
    /// Starts the warden, adopts orphans, and installs the stop signals of
    /// `kind` (whose second signal kills every engine group at once).
    pub fn start(kind: SignalHandlerKind) -> Reaper {
        start_warden();
        adopt_orphans();
        Reaper {
            stop: Stop::install(kind),
        }
    }

    /// How the front end learns that it is asked to stop.
    pub fn stop(&self) -> &Stop {
        &self.stop
    }

    /// Runs `front_end` with every layer held (the standard stop signals
    /// among them); after a stop signal, once all it started is gone, ends
    /// the program by that signal: for a front end with nothing to report
    /// (`kinrow play`, `kinrow serve`).
    pub fn hold<T>(front_end: impl FnOnce(&Stop) -> T) -> T {
        let reaper = Reaper::start(SignalHandlerKind::Standard);
        let stop = reaper.stop.clone();
        let result = front_end(&stop);
        drop(reaper);
        stop.end_by_signal();
        result
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        sweep_adopted();
        finish_warden();
    }
}

/// The environment variable that marks every process of a run.
pub const RUN_MARK: &str = "KINROW_RUN";

/// The warden's pid (0: none): never one to sweep, should it come to us.
static WARDEN: AtomicI32 = AtomicI32::new(0);

/// Our end of the pipe the warden waits on (-1: none, or closed), and the
/// end we read to learn that the warden has ended (it holds the other).
static WARDEN_WAITS: AtomicI32 = AtomicI32::new(-1);
static WARDEN_DONE: AtomicI32 = AtomicI32::new(-1);

/// Held while an engine is being started and registered, so that a sweep
/// never takes a child that is not registered yet for an adopted orphan.
static SPAWNING: Mutex<()> = Mutex::new(());

/// The lock held around starting an engine and registering its group.
fn spawning() -> MutexGuard<'static, ()> {
    SPAWNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts `command` as the leader of a process group of its own, which
/// dies with the thread that starts it, registered for the kills of
/// `kill_all_now` and [`kill_group`].
pub fn spawn_group_leader(command: &mut Command) -> io::Result<Child> {
    command.process_group(0);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: die_with_parent makes async-signal-safe calls only.
    unsafe {
        command.pre_exec(move || die_with_parent(parent));
    }
    // Started and registered under the lock: a sweep of adopted orphans
    // never takes it for one.
    let _registering = spawning();
    let child = command.spawn()?;
    live_groups::add(child.id() as libc::pid_t);
    Ok(child)
}

/// SIGKILL to the process group `child` leads, then reaps it and what is
/// left of its group, and kills and reaps the helpers it left to us
/// (`sweep_adopted`). Its exit status.
pub fn kill_group(child: &mut Child) -> Option<ExitStatus> {
    let pgid = child.id() as libc::pid_t;
    // The leader is not reaped yet, so the group id can't have been reused:
    // this reaches only the engine and its helpers.
    // SAFETY: plain syscall; a failure (group already empty) is fine.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    // Out of the registry before the reap frees the id for reuse.
    live_groups::remove(pgid);
    let status = child.wait().ok();
    reap_group(pgid);
    // Helpers that left the group (setsid) came to us when the engine died
    // (if we adopt orphans): they go with it.
    sweep_adopted();
    status
}

/// Whether our child `pid` has exited, without reaping it (so its process
/// group id stays reserved until [`kill_group`]).
pub fn has_exited(pid: u32) -> bool {
    // SAFETY: waitid only writes into the siginfo_t we own (all zeros is a
    // valid one); WNOWAIT leaves the child to be reaped later.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let rc = libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        rc != 0 || info.si_pid() != 0
    }
}

/// Whether any process is left in process group `pgid`.
pub fn group_exists(pgid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// Runs in the child between fork and exec (async-signal-safe calls only):
/// SIGKILL when the parent thread ends, and if the parent has already gone
/// (before the setting took), end now rather than run orphaned.
fn die_with_parent(parent: libc::pid_t) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl and getppid are plain system calls.
    unsafe {
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
    }
    let _ = parent;
    Ok(())
}

/// Makes this process the reaper of orphaned descendants (Linux
/// `PR_SET_CHILD_SUBREAPER`): an engine's helper processes that outlive it
/// then come to us, and `sweep_adopted` kills and reaps them, instead of
/// being left running under init. Returns false if unsupported.
pub(crate) fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: plain prctl on our own process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// Calls `each` with the pid of every child of our main thread — where the
/// kernel puts the orphans we adopt. Async-signal-safe: `open`, `read` and
/// `close` on stack buffers, no allocation. False if the list can't be read.
fn for_each_adopted(mut each: impl FnMut(libc::pid_t)) -> bool {
    // "/proc/self/task/<our pid>/children"
    let mut path = [0u8; 64];
    let mut len = 0;
    let mut put = |bytes: &[u8]| {
        for &b in bytes {
            path[len] = b;
            len += 1;
        }
    };
    put(b"/proc/self/task/");
    // getpid(2) underneath: async-signal-safe.
    let pid = std::process::id();
    let mut digits = [0u8; 12];
    let (mut n, mut i) = (pid, digits.len());
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    put(&digits[i..]);
    put(b"/children\0");
    // SAFETY: a NUL-terminated path in a buffer we own.
    let fd = unsafe { libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return false;
    }
    let mut buf = [0u8; 256];
    let mut number: Option<u32> = None;
    loop {
        // SAFETY: reading into a buffer we own.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            break;
        }
        // A number may be split between two reads: it is carried over.
        for &b in &buf[..n as usize] {
            if b.is_ascii_digit() {
                number = Some(number.unwrap_or(0).wrapping_mul(10) + u32::from(b - b'0'));
            } else if let Some(pid) = number.take() {
                each(pid as libc::pid_t);
            }
        }
    }
    if let Some(pid) = number {
        each(pid as libc::pid_t);
    }
    // SAFETY: closing the descriptor opened above.
    unsafe { libc::close(fd) };
    true
}

/// Kills and reaps every process we adopted (see `adopt_orphans`) — the
/// helpers of engines that died — until none is left or half a second has
/// passed; live engines and the warden are left alone.
fn sweep_adopted() {
    let _no_spawn = spawning();
    let warden = WARDEN.load(Ordering::SeqCst);
    let give_up = Instant::now() + Duration::from_millis(500);
    loop {
        let mut strays = Vec::new();
        for_each_adopted(|pid| {
            if pid != warden && !live_groups::contains(pid) {
                strays.push(pid);
            }
        });
        if strays.is_empty() {
            return;
        }
        for &pid in &strays {
            // SAFETY: a signal to a child of ours (not reaped yet, so the
            // pid can't have been reused).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        // Killing a helper hands its own children to us: go round again.
        for &pid in &strays {
            loop {
                // SAFETY: waitpid on one child of ours; no pointer kept.
                let reaped = unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) };
                if reaped != 0 {
                    break;
                }
                if Instant::now() >= give_up {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// SIGKILL to the process group of every engine not yet killed, in any
/// thread, and to every process we adopted. Async-signal-safe (atomic
/// loads, `open`/`read`/`close` and `kill(2)` only): for a signal handler
/// that is about to end the process at once (a second Ctrl-C), so engines
/// that ignore the end of their input are not left running. It does not
/// reap; the caller is expected to exit (the warden sweeps after it).
pub(super) fn kill_all_now() {
    live_groups::kill_all();
    let warden = WARDEN.load(Ordering::SeqCst);
    for_each_adopted(|pid| {
        if pid != warden {
            // SAFETY: a plain syscall, async-signal-safe.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
}

/// Reaps what is left of a killed process group among our children (the
/// engine's helpers, adopted through `adopt_orphans`), waiting briefly for
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
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Starts the warden (see the module documentation): a process that, once
/// this one has ended in any way, `kill -9` included, kills every process
/// marked with this run's `KINROW_RUN`. Sets the mark in our environment,
/// so every engine started later inherits it. Must be called while this
/// process has a single thread (it forks), before `adopt_orphans` (or
/// the warden would be ours to adopt); returns false, doing nothing,
/// otherwise or when the warden can't be started.
fn start_warden() -> bool {
    if WARDEN.load(Ordering::SeqCst) != 0 || !single_threaded() {
        return false;
    }
    let me = std::process::id() as libc::pid_t;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mark = format!("{me}.{nanos}.{:016x}", rand::random::<u64>());
    let entry = format!("{RUN_MARK}={mark}\0").into_bytes();
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the array we own; CLOEXEC keeps the write end
    // out of every engine, so only our own end closes it.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return false;
    }
    let [read_end, write_end] = fds;
    // The warden's pid comes back through a second pipe, from the process
    // in the middle.
    let mut told = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the array we own.
    if unsafe { libc::pipe2(told.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        // SAFETY: closing both ends of the unused pipe.
        unsafe {
            libc::close(read_end);
            libc::close(write_end);
        }
        return false;
    }
    let [told_read, told_write] = told;
    // The warden holds the write end of a third pipe for its life: its end
    // of file tells a normal exit that the warden's round is over.
    let mut done = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the array we own.
    if unsafe { libc::pipe2(done.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        // SAFETY: closing both ends of the unused pipes.
        unsafe {
            for fd in [read_end, write_end, told_read, told_write] {
                libc::close(fd);
            }
        }
        return false;
    }
    let [done_read, done_write] = done;
    // SAFETY: we have a single thread, so the child is a whole copy of us.
    let middle = unsafe { libc::fork() };
    if middle == 0 {
        // SAFETY: in the middle process, single-threaded: our copies of
        // the ends it doesn't use closed, the warden forked, its pid told,
        // and out, so that the warden is nobody's child of ours.
        unsafe {
            libc::close(write_end);
            libc::close(told_read);
            libc::close(done_read);
            let pid = libc::fork();
            if pid == 0 {
                libc::close(told_write);
                warden(read_end, done_write, &entry)
            }
            let bytes = pid.to_ne_bytes();
            libc::write(told_write, bytes.as_ptr().cast(), bytes.len());
            libc::_exit(0)
        }
    }
    let mut bytes = [0u8; std::mem::size_of::<libc::pid_t>()];
    // SAFETY: the ends that are the warden's (and the middle's) closed
    // here; a read into a buffer we own; the middle process reaped.
    let read = unsafe {
        libc::close(read_end);
        libc::close(told_write);
        libc::close(done_write);
        let read = if middle > 0 {
            loop {
                let n = libc::read(told_read, bytes.as_mut_ptr().cast(), bytes.len());
                if n >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                    break n;
                }
            }
        } else {
            -1
        };
        libc::close(told_read);
        if middle > 0 {
            libc::waitpid(middle, std::ptr::null_mut(), 0);
        }
        read
    };
    let pid = libc::pid_t::from_ne_bytes(bytes);
    if read != bytes.len() as isize || pid <= 0 {
        // SAFETY: no warden reads the other end: closing ours.
        unsafe {
            libc::close(write_end);
            libc::close(done_read);
        }
        return false;
    }
    // The write end stays open, unused, until we end (or `finish_warden`).
    WARDEN.store(pid, Ordering::SeqCst);
    WARDEN_WAITS.store(write_end, Ordering::SeqCst);
    WARDEN_DONE.store(done_read, Ordering::SeqCst);
    // Single-threaded, as checked above: no one reads the environment
    // while it changes.
    std::env::set_var(RUN_MARK, mark);
    true
}

/// Whether this process runs a single thread.
fn single_threaded() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|tasks| tasks.count() == 1)
}

/// At a normal end (the [`Reaper`] dropped, everything swept): lets the
/// warden do its round now and waits until it has ended, so that nothing
/// of the run, the warden included, is left when the program returns.
fn finish_warden() {
    let waits = WARDEN_WAITS.swap(-1, Ordering::SeqCst);
    let done = WARDEN_DONE.swap(-1, Ordering::SeqCst);
    if waits < 0 {
        return;
    }
    // SAFETY: closing our end, then reading into a buffer we own until the
    // end of file (the warden's _exit closes its end; it gives up within
    // its 10 s), then closing that end too.
    unsafe {
        libc::close(waits);
        if done >= 0 {
            let mut byte = [0u8; 16];
            loop {
                let n = libc::read(done, byte.as_mut_ptr().cast(), byte.len());
                if n == 0
                    || (n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted)
                {
                    break;
                }
            }
            libc::close(done);
        }
    }
    // Its parent (init, or a subreaper above us) reaps it: a moment.
    let entry = format!("/proc/{}", WARDEN.load(Ordering::SeqCst));
    let give_up = Instant::now() + Duration::from_millis(200);
    while Instant::now() < give_up && std::path::Path::new(&entry).exists() {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The warden's life: out of the way of terminals and pipes, wait for the
/// end of `read_end` (our parent's end), then kill every process that
/// carries `entry` in its environment, until none is left; `done_write`
/// is held open until the warden ends.
fn warden(read_end: libc::c_int, done_write: libc::c_int, entry: &[u8]) -> ! {
    // SAFETY: plain system calls on our own process and descriptors.
    unsafe {
        // Its own group: a terminal's Ctrl-C, or a kill of the referee's
        // group, must not end it before its work.
        libc::setpgid(0, 0);
        // Named for `ps`/`top` (its command line is still its parent's).
        libc::prctl(libc::PR_SET_NAME, c"kinrow-warden".as_ptr(), 0, 0, 0);
    }
    signals::ignore_all_but_kill();
    // SAFETY: plain system calls on our own process and descriptors.
    unsafe {
        // Hold no one's pipes or terminal: output readers see their end
        // when our parent ends, not when the warden does.
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        for fd in 3..1024 {
            if fd != read_end && fd != done_write {
                libc::close(fd);
            }
        }
        let mut byte = [0u8; 16];
        loop {
            let n = libc::read(read_end, byte.as_mut_ptr().cast(), byte.len());
            if n == 0 || (n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted)
            {
                break;
            }
        }
    }
    let me = std::process::id() as libc::pid_t;
    let give_up = Instant::now() + Duration::from_secs(10);
    while Instant::now() < give_up && kill_marked(entry, me) > 0 {
        // Killed processes hand their children on: look again.
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: ending the warden without running anything of its parent's.
    unsafe { libc::_exit(0) }
}

/// SIGKILL to every process (but `me`) whose environment holds `entry`
/// (`KINROW_RUN=…\0`); how many there were.
fn kill_marked(entry: &[u8], me: libc::pid_t) -> usize {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut killed = 0;
    for proc in procs.flatten() {
        let Some(pid) = proc
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(proc.path().join("environ")) else {
            continue;
        };
        let marked = environ
            .windows(entry.len())
            .enumerate()
            .any(|(i, w)| w == entry && (i == 0 || environ[i - 1] == 0));
        if marked {
            // SAFETY: a signal to a process of this run.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed += 1;
        }
    }
    killed
}

/// The process groups of live engines, in a fixed table of atomics that a
/// signal handler can read. Best effort: when every slot is taken (more
/// than [`live_groups::SLOTS`] engines at once), a group is not registered.
pub(super) mod live_groups {
    use std::sync::atomic::{AtomicI32, Ordering};

    pub const SLOTS: usize = 4096;
    /// Each slot holds a process group id, or 0.
    static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

    pub fn add(pgid: libc::pid_t) {
        for slot in &GROUPS {
            if slot
                .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }

    pub fn remove(pgid: libc::pid_t) {
        for slot in &GROUPS {
            if slot
                .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                return;
            }
        }
    }

    /// Whether `pgid` is a registered group (an engine's pid is its group's).
    pub fn contains(pgid: libc::pid_t) -> bool {
        GROUPS
            .iter()
            .any(|slot| slot.load(Ordering::SeqCst) == pgid)
    }

    pub fn kill_all() {
        for slot in &GROUPS {
            let pgid = slot.load(Ordering::SeqCst);
            if pgid > 0 {
                // SAFETY: a plain syscall, async-signal-safe.
                unsafe {
                    libc::kill(-pgid, libc::SIGKILL);
                }
            }
        }
    }
}
