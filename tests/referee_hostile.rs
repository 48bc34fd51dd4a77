//! The referee under hostile conditions beyond a single bad engine: signals
//! other than one Ctrl-C, files that can't be written, and engines that
//! ignore the end of their input when the referee must stop at once.

mod referee_common;

use referee_common::*;
use std::time::{Duration, Instant};

/// Every fixture process is dead (a zombie is dead: once the referee has
/// exited, reaping its orphans is the system's job).
fn assert_all_dead(scratch: &Scratch) {
    let pids = fixture_pids(scratch);
    assert!(!pids.is_empty(), "fixtures registered no pids");
    let start = Instant::now();
    loop {
        let running: Vec<String> = pids
            .iter()
            .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
            .filter(|stat| {
                // The state follows the command name in parentheses.
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with('Z') && !state.starts_with('X')
            })
            .collect();
        if running.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "engines left running: {running:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A long run between an engine that ignores `quit` and the end of its input
/// and a slow one, started in the background; returns once two games are in.
fn start_stubborn_run(scratch: &Scratch, extra: &[&str]) -> std::process::Child {
    let stubborn = fixture("stubborn", "ignore_quit");
    let slow = fixture("slow", "slow");
    let mut args = vec![
        "--engine",
        &stubborn,
        "--engine",
        &slow,
        "--games",
        "5000",
        "--concurrency",
        "2",
    ];
    args.extend_from_slice(extra);
    let child = start(scratch, &args);
    wait_for_records(scratch, 2);
    child
}

#[test]
fn sigterm_stops_a_run_like_ctrl_c() {
    let scratch = Scratch::new("sigterm");
    let child = start_stubborn_run(&scratch, &["--seed", "4"]);
    signal(&child, libc::SIGTERM);
    let (status, run) = finish(child, &scratch);
    // As if SIGTERM had ended it, but with the report and the records.
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{}", run.stderr);
    assert!(run.stdout.contains("INTERRUPTED"), "{}", run.stdout);
    assert!(run.stderr.contains("run the same command with --resume"));
    let s = run.summary.expect("summary written");
    assert_eq!(s["interrupted"], true);
    assert_eq!(s["games"].as_u64(), Some(run.games.len() as u64));
    // The engine that ignores quit and SIGTERM was killed and reaped.
    assert_no_leftovers(&scratch);
}

#[test]
fn a_second_signal_ends_the_run_at_once_and_kills_every_engine() {
    let scratch = Scratch::new("second");
    // A long grace period (also after the start-up check): the first signal
    // leaves the referee waiting on the stubborn engines when the second
    // comes.
    let child = start_stubborn_run(&scratch, &["--grace", "2500"]);
    signal(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, libc::SIGINT);
    let t = Instant::now();
    let (status, run) = finish(child, &scratch);
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(status.code(), Some(130), "{}", run.stderr);
    // The stubborn engines ignore the end of their input: only a kill by
    // the referee ends them.
    assert_all_dead(&scratch);
}

#[test]
fn an_unwritable_summary_stops_the_run_before_any_game() {
    let scratch = Scratch::new("json");
    std::fs::write(scratch.path("file"), "").unwrap();
    let json = scratch.path("file").join("summary.json");
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(["--bots", "random,blocking", "--games", "2", "--quiet"])
        .arg("--json")
        .arg(&json)
        .arg("--games-out")
        .arg(scratch.path("games.jsonl"))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = unwrapped(&out.stderr);
    assert!(stderr.contains(&json.display().to_string()), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!scratch.path("games.jsonl").exists(), "games were played");
}

#[test]
fn records_that_cannot_be_written_still_leave_the_report() {
    let scratch = Scratch::new("full");
    // /dev/full opens, and every write to it fails (a full disk).
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args([
            "--bots",
            "random,blocking",
            "--games",
            "6",
            "--seed",
            "2",
            "--quiet",
            "--games-out",
            "/dev/full",
        ])
        .arg("--json")
        .arg(scratch.path("summary.json"))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = unwrapped(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot write /dev/full: 6 game records are missing"),
        "{stderr}"
    );
    // The games were played and counted all the same.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("6 of 6 games"), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch.path("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["games"], 6);
}
