//! The referee never destroys a file nor exhausts memory on one: inputs are
//! read within bounds, two outputs that are one file are refused before any
//! game, `--resume` cuts off only what a killed run left, and a directory
//! given as a file (or a file as a directory) is said so.

mod referee_common;

use referee_common::*;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the referee with `args` on two fast bots and no other flags, its
/// address space capped at 2 GiB: an input read without bounds fails the
/// test (the referee dies) instead of taking the machine's memory.
fn referee_capped(args: &[&str]) -> (Output, String) {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("referee"));
    command
        .args(["--bots", "random,blocking", "--games", "2", "--quiet"])
        .args(args)
        .stdin(Stdio::null());
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: 2 << 30,
                rlim_max: 2 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &cap);
            Ok(())
        });
    }
    let start = Instant::now();
    let output = command.output().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{args:?} took long"
    );
    let stderr = unwrapped(&output.stderr);
    (output, stderr)
}

/// The run was refused before any game (exit status 1, nothing on stdout)
/// with `expected` in its message.
fn assert_refused(args: &[&str], expected: &str) {
    let (out, stderr) = referee_capped(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(
        stderr.contains(expected),
        "{args:?}: expected {expected:?} in\n{stderr}"
    );
    assert!(out.stdout.is_empty(), "{args:?}: games were played");
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn endless_input_files_are_refused_at_the_limit() {
    assert_refused(
        &["--openings-file", "/dev/zero"],
        "openings file /dev/zero: line 1 is longer than 128 KiB, the longest line the referee reads",
    );
    assert_refused(
        &["--games-out", "/dev/zero", "--resume"],
        "--games-out file /dev/zero: line 1 is longer than 128 KiB",
    );
    // Short lines without end: the total is bounded too, by the size the
    // run's own records can have (2 games: 18 lines of at most 128 KiB).
    let scratch = Scratch::new("files-big");
    let records = scratch.path("games.jsonl");
    std::fs::write(&records, "\n".repeat(2_400_000)).unwrap();
    let records = records.display().to_string();
    assert_refused(
        &["--games-out", &records, "--resume"],
        &format!(
            "--games-out file {records} is larger than 2 MiB, the most the referee reads there"
        ),
    );
    assert_eq!(
        text(Path::new(&records)).len(),
        2_400_000,
        "the file changed"
    );
    let book = scratch.path("book.txt");
    std::fs::write(&book, format!("2 2 # {}\n", "x".repeat(140_000))).unwrap();
    let book = book.display().to_string();
    assert_refused(
        &["--openings-file", &book],
        &format!("openings file {book}: line 1 is longer than 128 KiB"),
    );
}

#[test]
fn two_outputs_that_are_one_file_are_refused_before_any_game() {
    let scratch = Scratch::new("files-same");
    let dir = scratch.0.display().to_string();
    let path = |name: &str| scratch.path(name).display().to_string();
    std::fs::write(scratch.path("keep.jsonl"), "precious\n").unwrap();
    std::fs::hard_link(scratch.path("keep.jsonl"), scratch.path("link.jsonl")).unwrap();
    std::os::unix::fs::symlink(&scratch.0, scratch.path("here")).unwrap();
    std::fs::write(scratch.path("book.txt"), "2 2\n").unwrap();
    let (keep, link, book) = (path("keep.jsonl"), path("link.jsonl"), path("book.txt"));
    let (same, via_link) = (path("same.jsonl"), format!("{dir}/here/same.jsonl"));
    let logs = path("logs");
    let in_logs = |name: &str| format!("{logs}/{name}");
    let (log, stderr_log) = (in_logs("referee.log"), in_logs("blocking.0.stderr.log"));
    let sgf = in_logs("0-random-vs-blocking.sgf");
    let cases: Vec<(Vec<&str>, String)> = vec![
        // The case: the summary would overwrite every record.
        (
            vec!["--json", &same, "--games-out", &same],
            format!("--json {same} and --games-out {same} are the same file"),
        ),
        (
            vec!["--json", &via_link, "--games-out", &same],
            "are the same file: give each its own file (nothing was written)".into(),
        ),
        (
            vec!["--json", &keep, "--games-out", &link],
            format!("--json {keep} and --games-out {link} are the same file"),
        ),
        (
            vec!["--games-out", &book, "--openings-file", &book],
            format!("--games-out {book} and --openings-file {book} are the same file"),
        ),
        (
            vec!["--json", &book, "--openings-file", &book],
            format!("--json {book} and --openings-file {book} are the same file"),
        ),
        (
            vec!["--json", &log, "--log-dir", &logs],
            format!("--json {log} and --log-dir's referee.log {log} are the same file"),
        ),
        (
            vec!["--games-out", &stderr_log, "--log-dir", &logs],
            format!("--games-out {stderr_log} is a file the referee writes in --log-dir {logs}"),
        ),
        (
            vec!["--json", &sgf, "--sgf-dir", &logs],
            format!("--json {sgf} is a file the referee writes in --sgf-dir {logs}"),
        ),
    ];
    for (args, expected) in &cases {
        assert_refused(args, expected);
        assert_eq!(text(&scratch.path("keep.jsonl")), "precious\n");
        assert_eq!(text(&scratch.path("book.txt")), "2 2\n");
        assert!(!scratch.path("same.jsonl").exists(), "{args:?}");
        assert!(!scratch.path("logs").exists(), "{args:?}");
    }
    // A device may take two outputs: nothing is destroyed there.
    let (out, stderr) = referee_capped(&["--json", "/dev/null", "--games-out", "/dev/null"]);
    assert!(out.status.success(), "{stderr}");
}

#[test]
fn directories_and_files_given_for_each_other_are_named() {
    let scratch = Scratch::new("files-kinds");
    let dir = scratch.0.display().to_string();
    let file = scratch.path("file.txt");
    std::fs::write(&file, "notes\n").unwrap();
    let file = file.display().to_string();
    let below = format!("{file}/logs");
    for (args, expected) in [
        (
            vec!["--games-out", &dir],
            format!("--games-out {dir} is a directory, not a file"),
        ),
        (
            vec!["--json", &dir],
            format!("--json {dir} is a directory, not a file"),
        ),
        (
            vec!["--openings-file", &dir],
            format!("--openings-file {dir} is a directory, not a file"),
        ),
        (
            vec!["--log-dir", &file],
            format!("--log-dir {file} is a file, not a directory"),
        ),
        (
            vec!["--log-dir", &below],
            format!("--log-dir {below}: {file} is a file, not a directory"),
        ),
        (
            vec!["--sgf-dir", &file],
            format!("--sgf-dir {file} is a file, not a directory"),
        ),
    ] {
        assert_refused(&args, &expected);
        assert_eq!(text(Path::new(&file)), "notes\n");
    }
}

#[test]
fn resume_cuts_only_a_line_a_killed_run_left() {
    let scratch = Scratch::new("files-resume");
    let records = scratch.path("games.jsonl");
    let path = records.display().to_string();
    let resume = ["--seed", "3", "--games-out", &path, "--resume"];
    // The case: a file of notes, no newline at all.
    for notes in ["my notes", "{\"schema\":3,\"game\":0", "{"] {
        std::fs::write(&records, notes).unwrap();
        assert_refused(
            &resume,
            &format!("{path} holds no game record, only a line without a newline"),
        );
        assert_eq!(text(&records), notes, "the file changed");
    }
    // Whole records of this run, then a last line that is no record's
    // start: refused, nothing changed.
    std::fs::remove_file(&records).unwrap();
    let (out, stderr) = referee_capped(&["--seed", "3", "--games-out", &path]);
    assert!(out.status.success(), "{stderr}");
    let whole = text(&records);
    // The run line and two records.
    assert_eq!(whole.lines().count(), 3);
    let first = whole.lines().take(2).collect::<Vec<_>>().join("\n");
    std::fs::write(&records, format!("{first}\nmy notes")).unwrap();
    assert_refused(
        &resume,
        &format!(
            "{path} line 3 is not a game record nor the start of one: \
             a line without a newline ('my notes', 8 bytes) (nothing was changed)"
        ),
    );
    assert_eq!(text(&records), format!("{first}\nmy notes"));
    // A record cut off while being written is cut off, and the run goes on.
    let second = whole.lines().nth(2).unwrap();
    std::fs::write(&records, format!("{first}\n{}", &second[..30])).unwrap();
    let (out, stderr) = referee_capped(&resume);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("ignored the unfinished last line 3"),
        "{stderr}"
    );
    // The run line, the record kept, and the new session's run line and
    // record.
    assert_eq!(text(&records).lines().count(), 4);
}
