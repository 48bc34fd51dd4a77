//! The operating system, in one place: every foreign call to it that the
//! upper floors need, behind safe functions.
//!
//! - [`signals`]: the one stop policy — a first SIGINT, SIGTERM or SIGHUP
//!   stops a front end in order, a second kills every engine at once.
//! - [`reaper`]: no engine, nor anything one starts, outlives the program:
//!   process groups, death with the parent, orphans adopted, and the
//!   warden, all held by the [`reaper::Reaper`] guard.
//! - [`poll`]: waiting on descriptors with deadlines.
//! - [`term`]: the terminal's width.
//! - [`memory`]: what memory the machine can give, allocations that fail
//!   softly, and an engine's peak resident size.
//!
//! [`cpu_seconds`]: the processor time this process has used.

pub mod memory;
pub mod poll;
pub mod reaper;
pub mod signals;
pub mod term;

/// User and system CPU time of this process so far, in seconds.
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given (all zeros is a valid
    // one to start from).
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}
