//! `kinrow solve` and the protocol's `solve`/`analyze` through the real binary.

use assert_cmd::cargo::cargo_bin_cmd;
use std::time::Duration;

/// Runs `kinrow ARGS` with `input`; (exit code, stdout, stderr).
fn kinrow(args: &[&str], input: &str) -> (i32, String, String) {
    let out = cargo_bin_cmd!("kinrow")
        .args(args)
        .write_stdin(input)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("kinrow runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn solves_a_position_with_its_line_and_map() {
    let (code, out, _) = kinrow(&["solve", "3x3", "--moves", "1 1 1 2", "--analyze"], "");
    assert_eq!(code, 0);
    assert!(
        out.starts_with("3x3 k3 free, X to move, after 1 1, 1 2\n"),
        "{out}"
    );
    assert!(
        out.contains("value: win 5 (X wins, the winning stone on ply 5 from here)\n"),
        "{out}"
    );
    assert!(out.contains("\nbest move: "), "{out}");
    assert!(out.contains("\nline: "), "{out}");
    assert!(out.contains("   2   W5   W5    D\n"), "{out}");
}

#[test]
fn json_for_programs() {
    let (code, out, _) = kinrow(&["solve", "--board", "5x6", "--k", "4", "--json"], "");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"], "win");
    assert_eq!(v["plies"], 11);
    assert_eq!(v["board"], "5x6");
    assert_eq!(v["line"].as_array().unwrap().len(), 11);
    assert_eq!(v["analysis"], serde_json::Value::Null);
    let (_, out, _) = kinrow(
        &[
            "solve",
            "4x4",
            "--k",
            "3",
            "--rule",
            "exact",
            "--json",
            "--analyze",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rule"], "exact");
    assert_eq!(v["analysis"].as_array().unwrap().len(), 16);
}

#[test]
fn a_time_limit_reports_what_is_proved_so_far() {
    let (code, out, _) = kinrow(
        &["solve", "7x7", "--k", "5", "--time-limit", "0.3", "--json"],
        "",
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"], "unknown");
    assert_eq!(v["at_most"], "win");
    assert_eq!(v["best"], serde_json::Value::Null);
}

#[test]
fn bad_input_is_refused_clearly() {
    for (args, says) in [
        (&["solve", "9x9"][..], "up to 64 cells"),
        (
            &["solve", "3x3", "--board", "3x3"][..],
            "give the board size once",
        ),
        (&["solve", "3x3", "--k", "4"][..], "k 4"),
        (&["solve", "3x3", "--moves", "1 1 1"][..], "odd number"),
        (&["solve", "3x3", "--moves", "1 1 1 1"][..], "occupied"),
        (
            &["solve", "3x3", "--moves", "1 1 2 1 1 2 2 2 1 3"][..],
            "already over",
        ),
        (&["solve", "3x3", "--time-limit", "0"][..], "seconds"),
    ] {
        let (code, out, err) = kinrow(args, "");
        assert_ne!(code, 0, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn protocol_solve_and_analyze_leave_the_position_unchanged() {
    let input = "newgame 3 3 3\nmove 1 1\nmove 1 2\n1 solve\nanalyze 5\nshow\n\
                 newgame 4 4 4\n2 solve 0\nnewgame 9 9 5\nsolve\nnewgame 3 3 3\n\
                 move 1 1\nmove 2 1\nmove 1 2\nmove 2 2\nmove 1 3\nsolve\nsolve x\nanalyze 1 2\n";
    let (code, out, _) = kinrow(&[], input);
    assert_eq!(code, 0);
    let r: Vec<&str> = out.split_terminator("\n\n").collect();
    assert_eq!(&r[..3], ["=", "=", "="]);
    let solved = r[3]
        .strip_prefix("=1 win 5 ")
        .unwrap_or_else(|| panic!("{}", r[3]));
    assert!(["2 1", "2 2", "3 1"].contains(&solved), "{solved}");
    assert_eq!(
        r[4],
        "= 1 3 draw\n2 1 win 5\n2 2 win 5\n2 3 draw\n3 1 win 5\n3 2 draw\n3 3 draw"
    );
    assert_eq!(r[5], "=\n  1 2 3\n1 X O .\n2 . . .\n3 . . .\nX to move");
    assert!(r[7].starts_with("=2 draw "), "{}", r[7]);
    assert_eq!(
        r[9],
        "? unacceptable size: the solver takes boards of up to 64 cells; 9x9 has 81"
    );
    assert!(r[16].starts_with("? game over"), "{}", r[16]);
    assert!(r[17].starts_with("? syntax error"), "{}", r[17]);
    assert_eq!(r[18], "? syntax error: usage: analyze [SECONDS]");
}

/// `kinrow solve 7x7 --k 5`, stopped by `signal` after a while of search:
/// its output and exit status.
fn solve_stopped_by(signal: libc::c_int) -> (String, Option<i32>) {
    use std::process::{Command, Stdio};
    let child = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args(["solve", "7x7", "--k", "5"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kinrow starts");
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: a signal to our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, signal);
    }
    let out = child.wait_with_output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), out.status.code())
}

#[test]
fn ctrl_c_reports_what_is_proved_so_far() {
    let (stdout, code) = solve_stopped_by(libc::SIGINT);
    assert!(
        stdout.contains("value: unknown (interrupted); proved so far: "),
        "{stdout}"
    );
    // As if Ctrl-C had ended it, as the referee does.
    assert_eq!(code, Some(130), "{stdout}");
}

#[test]
fn sigterm_reports_what_is_proved_so_far_too() {
    let (stdout, code) = solve_stopped_by(libc::SIGTERM);
    assert!(
        stdout.contains("value: unknown (interrupted); proved so far: "),
        "{stdout}"
    );
    assert_eq!(code, Some(128 + libc::SIGTERM), "{stdout}");
}

#[test]
fn memory_the_machine_cannot_give_is_refused() {
    // 64 GiB: inside --hash's range, more than this machine (or CI's) has.
    let (code, out, err) = kinrow(&["solve", "3x3", "--hash", "65536"], "");
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("invalid value '65536' for '--hash <MIB>': 65536 MiB is more memory than this machine has available ("),
        "{err}"
    );
    assert!(!err.contains("memory allocation"), "{err}");
    // The same for mcts's arena, and the option is left as it was.
    let (code, out, _) = kinrow(
        &["--bot", "mcts"],
        "set memory 65536\nset memory 8\nset iterations 200\ngenmove\n",
    );
    assert_eq!(code, 0);
    let replies: Vec<&str> = out.split("\n\n").collect();
    assert!(
        replies[0].starts_with(
            "? invalid option: memory: 65536 MiB is more memory than this machine has available ("
        ),
        "{out}"
    );
    assert_eq!(&replies[1..3], ["=", "="], "{out}");
    assert!(replies[3].starts_with("= "), "{out}");
}

#[test]
fn a_bad_flag_gets_the_usage_of_kinrow_solve() {
    for args in [
        &["solve", "3x3", "--k", "4"][..],
        &["solve", "3x3", "--moves", "1 1 1"][..],
        &["solve", "9x9"][..],
    ] {
        let (code, out, err) = kinrow(args, "");
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains("Usage: kinrow solve "), "{args:?}: {err}");
    }
}

#[test]
fn the_help_of_kinrow_solve_reads_whole() {
    let (code, out, _) = kinrow(&["solve", "--help"], "");
    assert_eq!(code, 0);
    let first = out.lines().next().unwrap();
    assert_eq!(
        first,
        "Prove who wins a position, in how many plies, and by which line"
    );
    // The after-help is wrapped by its author, not by clap at 80 columns:
    // every line of it stays as written (no word left alone on a line).
    let after = &out[out
        .find("Values are for the side to move")
        .expect("after-help")..];
    for line in after.lines() {
        assert!(line.len() <= 80, "{line:?}");
        assert!(
            line.contains(' ') || line.ends_with(':') || line.is_empty(),
            "a cut line: {line:?}"
        );
    }
    assert!(after.contains("`win N` (its winning stone is the N-th ply\nfrom now,"));
}
