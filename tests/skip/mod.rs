//! A test that cannot run here (a tool it needs is missing) says so the
//! same way everywhere, loudly: a banner on stderr that the test harness
//! does not capture, naming what was not tested, why, and how to install
//! the tool (`.ci/run` installs every one, so CI never skips).

use std::io::Write;

/// Says that `what` was not tested because `why`; `install` is how to get
/// the tool.
pub fn skip_loudly(what: &str, why: &str, install: &str) {
    let banner = "!".repeat(78);
    let text = format!(
        "\n{banner}\n!! SKIPPED: {what}: {why}\n!! Install: {install} (.ci/run does)\n{banner}\n"
    );
    // Straight to the file descriptor: the harness captures eprintln!.
    let _ = std::io::stderr().write_all(text.as_bytes());
}
