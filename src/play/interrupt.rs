//! Ctrl-C (and a closed terminal) must not leave engines behind.
//!
//! Engines run in process groups of their own, so a terminal's Ctrl-C
//! reaches only `kinrow play`; left to the default action it would die and
//! leave a thinking engine running (one that never reads its stdin again
//! would run forever). So while engines are up, SIGINT, SIGTERM and SIGHUP
//! kill their process groups first and then end `kinrow play` by the same
//! signal, as if it had not been caught.

use super::engine::Link;
use crate::client::{EngineProcess, Response};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Once;
use std::time::Duration;

/// Process groups of the engines now running (0: a free slot). `kinrow play`
/// runs two engines at most; a few spare slots cost nothing.
static GROUPS: [AtomicI32; 4] = [const { AtomicI32::new(0) }; 4];

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(signal: libc::c_int) {
    // Async-signal-safe only: atomics, kill, signal, raise.
    for slot in &GROUPS {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: plain syscall. The group's leader is not reaped while
            // it is registered, so the id can't belong to anyone else.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
    // SAFETY: back to the default action and the same signal again: the
    // shell sees `kinrow play` ended by Ctrl-C, as usual.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        for signal in SIGNALS {
            // SAFETY: the handler only does async-signal-safe calls.
            unsafe {
                // A signal ignored when we started (nohup, a background job
                // of a script) stays ignored, as the convention goes.
                let mut old: libc::sigaction = std::mem::zeroed();
                libc::sigaction(signal, std::ptr::null(), &mut old);
                if old.sa_sigaction == libc::SIG_IGN {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
}

/// An engine process that a signal to `kinrow play` kills too. Registered
/// from start until just before the process is killed and reaped.
pub struct Guarded {
    process: EngineProcess,
    group: i32,
}

impl Guarded {
    /// Registers a freshly started engine.
    pub fn new(process: EngineProcess) -> Guarded {
        install();
        let group = process.pid() as i32;
        // With every slot taken the engine is still killed on every normal
        // exit; only a signal could miss it.
        let _ = GROUPS.iter().find(|slot| {
            slot.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        });
        Guarded { process, group }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // Unregister before the field's own drop kills and reaps the
        // process, after which its id may be reused.
        for slot in &GROUPS {
            let _ = slot.compare_exchange(self.group, 0, Ordering::SeqCst, Ordering::SeqCst);
        }
    }
}

impl Link for Guarded {
    fn request(&mut self, line: &str, timeout: Duration) -> Result<Response, String> {
        Link::request(&mut self.process, line, timeout)
    }

    fn quit(&mut self) {
        Link::quit(&mut self.process);
    }
}
