//! Nothing of a run outlives the referee, `kinrow play` or `kinrow serve`,
//! even after `kill -9`: engines that ignore `quit` and the end of their input,
//! engines that hang in a `genmove`, and helpers an engine started in a
//! session of their own (`setsid`), out of its process group.
//!
//! Every process of a test carries a mark of its own in its environment
//! (inherited from the program that started them), so the test finds them
//! all — also the ones re-parented to init — by reading `/proc`.

mod referee_common;
mod serve_common;

use referee_common::*;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const MARK: &str = "KINROW_TEST_MARK";

/// A mark no other test or run carries.
fn fresh_mark(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{tag}-{}-{nanos}", std::process::id())
}

/// Live (not zombie) processes whose environment holds `MARK=mark`, with
/// their command lines.
fn marked(mark: &str) -> Vec<(u32, String)> {
    let entry = format!("{MARK}={mark}");
    let mut found = Vec::new();
    for proc in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = proc
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(proc.path().join("environ")) else {
            continue;
        };
        if !environ.split(|&b| b == 0).any(|e| e == entry.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(proc.path().join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim_start();
        if state.starts_with('Z') || state.starts_with('X') {
            continue;
        }
        let cmdline = std::fs::read(proc.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        found.push((pid, cmdline));
    }
    found
}

/// Waits (at most 30 s) until the marked processes include one whose
/// command line contains each of `wanted`.
fn wait_for(mark: &str, wanted: &[&str]) {
    let start = Instant::now();
    loop {
        let procs = marked(mark);
        if wanted
            .iter()
            .all(|w| procs.iter().any(|(_, cmd)| cmd.contains(w)))
        {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "never saw all of {wanted:?}: {procs:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Asserts that no marked process is left, polling for up to 10 s (the
/// kernel and the warden need a moment).
fn assert_nothing_left(mark: &str) {
    let start = Instant::now();
    loop {
        let procs = marked(mark);
        if procs.is_empty() {
            return;
        }
        if start.elapsed() > Duration::from_secs(10) {
            for (pid, _) in &procs {
                // SAFETY: clean up after the failed test.
                unsafe { libc::kill(*pid as libc::pid_t, libc::SIGKILL) };
            }
            panic!("processes of the run left behind: {procs:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn fixture_path(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{file}.py"))
        .display()
        .to_string()
}

fn kill_9(child: &mut Child) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
    child.wait().unwrap();
}

/// A referee with an engine that ignores quit, one that starts a setsid
/// helper and one that hangs in genmove (for a minute), started in the
/// background with `mark`.
fn start_referee(scratch: &Scratch, mark: &str, games: &str) -> Child {
    let (stubborn, helper, hang) = (
        fixture("stubborn", "ignore_quit"),
        fixture("helper", "setsid_helper"),
        fixture("hang", "hang"),
    );
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("referee"));
    command
        .args([
            "--engine", &stubborn, "--engine", &helper, "--engine", &hang,
        ])
        .args(["--games", games, "--concurrency", "2", "--timeout", "60000"])
        .args(record_args(scratch))
        .env(MARK, mark)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command.spawn().unwrap()
}

#[test]
fn kill_9_of_the_referee_leaves_nothing_running() {
    let scratch = Scratch::new("kill9");
    let mark = fresh_mark("referee");
    let mut referee = start_referee(&scratch, &mark, "100");
    // The first pair (stubborn against helper) done, the hanging engine
    // thinking, the helper's sleeper running.
    wait_for_records(&scratch, 2);
    wait_for(
        &mark,
        &[
            "ignore_quit.py",
            "setsid_helper.py",
            "hang.py",
            "sleep 3600",
        ],
    );
    kill_9(&mut referee);
    assert_nothing_left(&mark);
}

#[test]
fn a_finished_run_leaves_nothing_running() {
    let scratch = Scratch::new("finished");
    let mark = fresh_mark("finished");
    let helper = fixture("helper", "setsid_helper");
    let status = Command::new(assert_cmd::cargo::cargo_bin("referee"))
        .args(["--engine", &helper, "--bots", "random", "--games", "4"])
        .args(record_args(&scratch))
        .env(MARK, &mark)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_nothing_left(&mark);
}

/// `kinrow play` between an engine that hangs in genmove (X) and one with
/// a setsid helper (O), stdin left open.
fn start_play(mark: &str) -> Child {
    let engine = |file: &str| format!("python3 {}", fixture_path(file));
    Command::new(assert_cmd::cargo::cargo_bin("kinrow"))
        .args(["play", "--x-engine", &engine("hang")])
        .args(["--o-engine", &engine("setsid_helper"), "--timeout", "600"])
        .env(MARK, mark)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn kill_9_of_kinrow_play_leaves_nothing_running() {
    let mark = fresh_mark("play");
    let mut play = start_play(&mark);
    wait_for(&mark, &["hang.py", "setsid_helper.py", "sleep 3600"]);
    // Let X's genmove arrive (the game has begun once both answered).
    std::thread::sleep(Duration::from_millis(300));
    kill_9(&mut play);
    assert_nothing_left(&mark);
}

#[test]
fn a_finished_play_session_leaves_nothing_running() {
    let mark = fresh_mark("play-end");
    let engine = format!("python3 {}", fixture_path("setsid_helper"));
    let mut play = Command::new(assert_cmd::cargo::cargo_bin("kinrow"))
        .args(["play", "--o-engine", &engine])
        .env(MARK, &mark)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&mark, &["setsid_helper.py", "sleep 3600"]);
    // A move, then the end of input: the person leaves.
    play.stdin.take().unwrap().write_all(b"2 2\n").unwrap();
    assert!(play.wait().unwrap().success());
    assert_nothing_left(&mark);
}

/// `kinrow serve` with the setsid helper as an engine, playing X in a
/// session (its sleeper running), with `mark`.
fn start_serve(mark: &str) -> (serve_common::Served, serve_common::Client) {
    let engine = format!("helper=python3 {}", fixture_path("setsid_helper"));
    let served = serve_common::Served::start_with_env(&["--engine", &engine], &[(MARK, mark)]);
    let mut tab = served.connect();
    assert_eq!(tab.ask("seat X engine helper"), "=");
    assert!(tab.ask("genmove").starts_with("= "));
    wait_for(mark, &["setsid_helper.py", "sleep 3600"]);
    (served, tab)
}

#[test]
fn kill_9_of_kinrow_serve_leaves_nothing_running() {
    let mark = fresh_mark("serve");
    let (served, _tab) = start_serve(&mark);
    // SAFETY: a signal to the server we started (reaped when dropped).
    unsafe { libc::kill(served.pid() as libc::pid_t, libc::SIGKILL) };
    assert_nothing_left(&mark);
}

#[test]
fn a_stopped_server_leaves_nothing_running() {
    let mark = fresh_mark("serve-end");
    let (served, mut tab) = start_serve(&mark);
    // SAFETY: a signal to the server we started.
    unsafe { libc::kill(served.pid() as libc::pid_t, libc::SIGINT) };
    assert_eq!(tab.closed().0, 1001);
    assert_nothing_left(&mark);
}

#[test]
fn kill_9_of_kinrow_serve_spares_the_browser_it_opened() {
    // A desktop opener that leaves a "browser" running and says its pid.
    let dir = std::env::temp_dir().join(fresh_mark("browser"));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("browser.pid");
    let script = format!(
        "#!/bin/sh\nsleep 3600 &\necho $! > '{}'\n",
        pid_file.display()
    );
    std::fs::write(dir.join("xdg-open"), script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let executable = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(dir.join("xdg-open"), executable).unwrap();
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap());
    let served = serve_common::Served::start_with_env(&["--open"], &[("PATH", &path)]);
    let started = Instant::now();
    let browser = loop {
        let told = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if let Ok(pid) = told.trim().parse::<u32>() {
            break pid;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no browser");
        std::thread::sleep(Duration::from_millis(20));
    };
    // SAFETY: a signal to the server we started (reaped when dropped).
    unsafe { libc::kill(served.pid() as libc::pid_t, libc::SIGKILL) };
    // The warden's round is over well within this.
    std::thread::sleep(Duration::from_secs(2));
    let alive = serve_common::is_alive(browser);
    // SAFETY: clean up the stand-in browser.
    unsafe { libc::kill(browser as libc::pid_t, libc::SIGKILL) };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        alive,
        "the warden took the browser {browser} for an engine's"
    );
}

#[test]
fn the_warden_is_gone_when_a_finished_referee_returns() {
    // Looked at once, right after the referee returns (as a script that
    // lists processes does): its warden, which carries the test's mark
    // as a fork of the referee, has ended too.
    for round in 0..10 {
        let scratch = Scratch::new(&format!("warden-{round}"));
        let mark = fresh_mark("warden");
        let status = Command::new(assert_cmd::cargo::cargo_bin("referee"))
            .args(["--bots", "random,blocking", "--games", "2"])
            .args(record_args(&scratch))
            .env(MARK, &mark)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let left = marked(&mark);
        assert!(left.is_empty(), "round {round}: {left:?}");
    }
}
