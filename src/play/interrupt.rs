//! Ctrl-C (and a closed terminal) must not leave engines behind.
//!
//! Engines run in process groups of their own, so a terminal's Ctrl-C
//! reaches only `kinrow play`; left to the default action it would die and
//! leave a thinking engine running (one that never reads its stdin again
//! would run forever). So while engines are up, SIGINT, SIGTERM and SIGHUP
//! kill their process groups first and then end `kinrow play` by the same
//! signal, as if it had not been caught.

use std::sync::Once;

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(signal: libc::c_int) {
    // Async-signal-safe only: the client's table of live engine groups is
    // atomics and kill(2); then signal and raise.
    crate::client::kill_all_now();
    // SAFETY: back to the default action and the same signal again: the
    // shell sees `kinrow play` ended by Ctrl-C, as usual.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs the handler (once): call before the first engine starts.
pub fn install() {
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
