//! Misbehaving engines: for each, a tournament against a well-behaved one
//! that completes, charges every fault to the right engine with the right
//! reason, records every game and leaves no process behind.

mod referee_common;

use referee_common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// steady (well-behaved) against `bad`, 4 games (2 pairs) on 4x4 k4, where
/// each side gets at least two genmoves before a game can end.
fn match_against(scratch: &Scratch, bad: &str, extra: &[&str]) -> Run {
    let steady = fixture("steady", "steady");
    let bad = fixture("bad", bad);
    let mut args = vec![
        "--engine", &steady, "--engine", &bad, "--games", "4", "--board", "4x4", "--k", "4",
        "--seed", "1",
    ];
    args.extend_from_slice(extra);
    if !extra.contains(&"--timeout") {
        args.extend_from_slice(&["--timeout", "3000"]);
    }
    if !extra.contains(&"--concurrency") {
        args.extend_from_slice(&["--concurrency", "2"]);
    }
    referee(scratch, &args)
}

/// Every game was charged to `bad` with `reason`, and `steady` won it.
fn assert_all_faults(run: &Run, reason: &str) {
    assert!(run.output.status.success(), "stderr: {}", run.stderr);
    let s = run.summary.as_ref().expect("summary written");
    assert_eq!(s["games"], 4);
    let p = &s["pairings"][0];
    assert_eq!(
        (p["a"].as_str(), p["b"].as_str()),
        (Some("steady"), Some("bad"))
    );
    assert_eq!(p["a_wins"], 4, "{p}");
    assert_eq!(p["faults"], json!({ reason: 4 }));
    assert_eq!(p["faults_by"], json!({ "bad": { reason: 4 } }));
    assert_game_records(run);
    for g in &run.games {
        assert_eq!(g["reason"], reason, "{g}");
        assert_eq!(g["fault_by"], "bad", "{g}");
        let steady_side = if g["x"] == "steady" { "x" } else { "o" };
        assert_eq!(g["result"], steady_side, "{g}");
    }
    assert!(
        run.stdout.contains(&format!("faults: {reason} 4 by bad")),
        "{}",
        run.stdout
    );
}

/// Games 0..4 each recorded once, colours swapped within each pair, the same
/// opening for both games of a pair.
fn assert_game_records(run: &Run) {
    let indices: Vec<u64> = run
        .games
        .iter()
        .filter_map(|g| g["game"].as_u64())
        .collect();
    assert_eq!(indices, [0, 1, 2, 3]);
    for pair in run.games.chunks(2) {
        assert_eq!(pair[0]["pair"], pair[1]["pair"]);
        assert_eq!(pair[0]["opening"], pair[1]["opening"]);
        assert_eq!(pair[0]["x"], pair[1]["o"]);
        let board = kinrow::rules::Geometry::new(4, 4, 4, kinrow::rules::Rule::Free).unwrap();
        let plies = kinrow::referee::default_opening_plies(board);
        assert_eq!(pair[0]["opening"].as_array().map(Vec::len), Some(plies));
    }
}

fn no_faults(run: &Run) -> &Value {
    assert!(run.output.status.success(), "stderr: {}", run.stderr);
    let s = run.summary.as_ref().expect("summary written");
    assert_eq!(s["games"], 4);
    let p = &s["pairings"][0];
    assert_eq!(p["faults"], json!({}), "{p}");
    assert_game_records(run);
    for g in &run.games {
        assert!(g["reason"] == "win" || g["reason"] == "draw", "{g}");
        assert_eq!(g["fault_by"], Value::Null);
    }
    p
}

#[test]
fn crash_mid_game() {
    let scratch = Scratch::new("crash");
    let run = match_against(&scratch, "crash_mid_game", &[]);
    assert_all_faults(&run, "crash");
    // Each game went as far as the crasher's second genmove.
    for g in &run.games {
        assert!(g["moves"].as_array().unwrap().len() >= 2, "{g}");
    }
    assert_no_leftovers(&scratch);
}

#[test]
fn hangs() {
    let scratch = Scratch::new("hang");
    let t = Instant::now();
    let run = match_against(&scratch, "hang", &["--timeout", "1000"]);
    assert_all_faults(&run, "timeout");
    // Four hangs of 1 s on two workers: nothing waits much longer.
    assert!(t.elapsed() < Duration::from_secs(30));
    assert_no_leftovers(&scratch);
}

#[test]
fn answers_garbage() {
    let scratch = Scratch::new("garbage");
    let run = match_against(&scratch, "garbage", &[]);
    assert_all_faults(&run, "malformed");
    assert!(run.games[0]["detail"].as_str().unwrap().contains("banana"));
    assert_no_leftovers(&scratch);
}

#[test]
fn plays_an_occupied_cell() {
    let scratch = Scratch::new("occupied");
    let run = match_against(&scratch, "occupied", &[]);
    assert_all_faults(&run, "illegal");
    // Faults count again from the records when the run is resumed.
    let resumed = match_against(&scratch, "occupied", &["--resume"]);
    assert!(resumed.stderr.contains("4 of 4 games already played"));
    assert_eq!(summary_without_time(&resumed), summary_without_time(&run));
    assert_no_leftovers(&scratch);
}

/// Past its memory limit at its second move: each game is lost for memory
/// there, the move not played. The records keep both engines' peaks. With
/// no limit given nothing is charged, though its peak passes the 350 MiB a
/// brain would be told.
#[test]
fn takes_more_memory_than_its_limit() {
    let scratch = Scratch::new("memory");
    let run = match_against(&scratch, "memory_hog", &["--each", "memory=100"]);
    assert_all_faults(&run, "memory");
    for g in &run.games {
        let detail = g["detail"].as_str().unwrap();
        assert!(
            detail.contains("over its limit of 100 MiB (memory=)"),
            "{g}"
        );
        let hog_side = if g["x"] == "bad" { "x" } else { "o" };
        let steady_side = if hog_side == "x" { "o" } else { "x" };
        let first = ["x", "o"][g["opening"].as_array().unwrap().len() % 2];
        let moves = g["moves"].as_array().unwrap().len();
        let hog_moves = (0..moves).filter(|i| (i % 2 == 0) == (hog_side == first));
        assert_eq!(hog_moves.count(), 1, "the second move is not played: {g}");
        let peak = |side: &str| g["peak_mib"][side].as_f64().unwrap();
        assert!(peak(hog_side) > 360.0, "{g}");
        assert!(peak(steady_side) < 100.0, "{g}");
    }
    assert_no_leftovers(&scratch);
    let scratch = Scratch::new("memory-default");
    let run = match_against(&scratch, "memory_hog", &[]);
    no_faults(&run);
    let hog_peaks = run.games.iter().map(|g| {
        let hog_side = if g["x"] == "bad" { "x" } else { "o" };
        g["peak_mib"][hog_side].as_f64().unwrap()
    });
    assert!(hog_peaks.fold(0.0, f64::max) > 360.0, "{:?}", run.games);
    assert_no_leftovers(&scratch);
}

#[test]
fn plays_off_any_board() {
    // `0 0` is a row and a column, off the board: illegal, not malformed.
    let scratch = Scratch::new("offboard");
    let run = match_against(&scratch, "off_board", &[]);
    assert_all_faults(&run, "illegal");
    for g in &run.games {
        assert_eq!(g["detail"], "0 0 is off the 4x4 board", "{g}");
    }
    assert_no_leftovers(&scratch);
}

#[test]
fn slow_to_start_is_not_slow_to_move() {
    // Each fresh process takes 0.6 s to start and 0.6 s for its first
    // move: a fault only if its start-up counted against that move.
    let scratch = Scratch::new("slowstart");
    let run = match_against(
        &scratch,
        "slow_start",
        &["--timeout", "1000", "--concurrency", "1"],
    );
    no_faults(&run);
    assert_no_leftovers(&scratch);
}

#[test]
fn start_up_has_its_own_deadline() {
    // The case: engines that take longer to start than a move may
    // take stopped the whole run before any game. Each fresh process of
    // `late` takes 1.5 s to start, past --timeout 1000.
    let scratch = Scratch::new("latestart");
    let run = match_against(
        &scratch,
        "late_start",
        &["--timeout", "1000", "--concurrency", "1"],
    );
    no_faults(&run);
    assert_no_leftovers(&scratch);
    // A start-up deadline that runs out says so. (Here 4 s to start
    // against 2 s allowed: a busy machine still starts the fixture's
    // interpreter well within 2 s.)
    let scratch = Scratch::new("latestart-short");
    let late = format!("{} 4", fixture("bad", "late_start"));
    let steady = fixture("steady", "steady");
    let args = [
        "--engine",
        &steady,
        "--engine",
        &late,
        "--startup-timeout",
        "2000",
    ];
    let run = referee(&scratch, &args);
    assert_eq!(run.output.status.code(), Some(1), "{}", run.stderr);
    let expected = "engine 'bad' (python3 ";
    let deadline = "did not answer protocol_version within 2000 ms, the start-up deadline \
                    (--startup-timeout)";
    assert!(
        run.stderr.contains(expected) && run.stderr.contains(deadline),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("engine 'steady'"), "{}", run.stderr);
}

#[test]
fn answers_a_genmove_twice() {
    // The detail names what happened (it read "genmove reply ''": the
    // second reply took the place of the next one, and so on), whether the
    // second reply came with the first or just before the next request's.
    for fixture_name in ["double_reply", "late_double_reply"] {
        let scratch = Scratch::new(fixture_name);
        let run = match_against(&scratch, fixture_name, &[]);
        assert_all_faults(&run, "malformed");
        for g in &run.games {
            let detail = g["detail"].as_str().unwrap();
            assert!(
                detail.starts_with("answered genmove twice: a second reply '"),
                "{fixture_name}: {g}"
            );
        }
        assert_no_leftovers(&scratch);
    }
}

#[test]
fn refuses_genmove() {
    let scratch = Scratch::new("refuse");
    let log_dir = scratch.path("logs").display().to_string();
    let run = match_against(&scratch, "refuse_genmove", &["--log-dir", &log_dir]);
    assert_all_faults(&run, "refused");
    // Its reason, 210 characters, is kept whole in the records and in
    // referee.log (it was cut at 24).
    let log = std::fs::read_to_string(scratch.path("logs/referee.log")).unwrap();
    for g in &run.games {
        let detail = g["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("genmove refused: game over: I don't want to: brain error:")
                && detail.ends_with("and then closed its output"),
            "{detail}"
        );
        assert!(log.contains(&format!("bad refused: {detail}")), "{log}");
    }
    assert_no_leftovers(&scratch);
}

#[test]
fn never_answers_at_start_up() {
    let scratch = Scratch::new("silent");
    let t = Instant::now();
    let run = match_against(&scratch, "silent_start", &["--startup-timeout", "2000"]);
    assert!(!run.output.status.success());
    assert!(
        run.stderr.contains("engine 'bad'")
            && run.stderr.contains(
                "did not answer protocol_version within 2000 ms, the start-up deadline \
                 (--startup-timeout)"
            ),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("engine 'steady'"), "{}", run.stderr);
    assert!(run.games.is_empty() && run.summary.is_none());
    assert!(t.elapsed() < Duration::from_secs(20));
    assert_no_leftovers(&scratch);
}

#[test]
fn cannot_be_started() {
    let scratch = Scratch::new("nostart");
    let steady = fixture("steady", "steady");
    let run = referee(
        &scratch,
        &[
            "--engine",
            &steady,
            "--engine",
            "ghost=/nonexistent/engine --fast",
        ],
    );
    assert_eq!(run.output.status.code(), Some(1));
    assert!(
        run.stderr
            .contains("engine 'ghost' (/nonexistent/engine --fast): cannot start"),
        "{}",
        run.stderr
    );
    assert!(run.games.is_empty());
}

#[test]
fn floods_stdout_with_junk() {
    let scratch = Scratch::new("stdout");
    let run = match_against(&scratch, "stdout_flood", &[]);
    no_faults(&run);
    // 500 junk lines per genmove were skipped, and said so.
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("stdout lines outside responses"))
        .expect("skipped lines reported");
    let count: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(count >= 4 * 500, "{line}");
    // The records keep the counts, so a resumed run reports them too.
    let recorded: u64 = run
        .games
        .iter()
        .map(|g| {
            let bad_side = if g["x"] == "bad" { "x" } else { "o" };
            g["skipped"][bad_side].as_u64().unwrap()
        })
        .sum();
    assert_eq!(recorded, count);
    let resumed = match_against(&scratch, "stdout_flood", &["--resume"]);
    assert!(resumed.stderr.contains("4 of 4 games already played"));
    assert_eq!(report_without_time(&resumed), report_without_time(&run));
    assert_no_leftovers(&scratch);
}

#[test]
fn floods_stderr() {
    let scratch = Scratch::new("stderr");
    let logs = scratch.path("logs");
    let logs_arg = logs.display().to_string();
    let run = match_against(&scratch, "stderr_flood", &["--log-dir", &logs_arg]);
    no_faults(&run);
    // Everything it wrote was drained into its logs (256 KB per genmove).
    let drained: u64 = std::fs::read_dir(&logs)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("bad."))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert!(drained >= 4 * 2 * 256 * 1000, "{drained} bytes");
    assert_no_leftovers(&scratch);
}

#[test]
fn exits_between_games() {
    let scratch = Scratch::new("exits");
    // One worker: games 1 and 3 find the process that played games 0 and 2
    // exiting at their newgame; a fresh one plays the next.
    let run = match_against(&scratch, "exit_between_games", &["--concurrency", "1"]);
    assert!(run.output.status.success(), "stderr: {}", run.stderr);
    let p = &run.summary.as_ref().unwrap()["pairings"][0];
    assert_eq!(p["faults"], json!({ "crash": 2 }), "{p}");
    assert_eq!(p["faults_by"], json!({ "bad": { "crash": 2 } }));
    assert_game_records(&run);
    for g in &run.games {
        let crashed = g["game"] == 1 || g["game"] == 3;
        assert_eq!(g["reason"] == "crash", crashed, "{g}");
        if crashed {
            assert_eq!(g["fault_by"], "bad");
            // At most the first reply of the engine that was still alive:
            // its set-up carried the game's first genmove.
            assert!(g["moves"].as_array().is_some_and(|m| m.len() <= 1), "{g}");
        }
    }
    assert_no_leftovers(&scratch);
}

#[test]
fn ignores_quit() {
    let scratch = Scratch::new("quit");
    let t = Instant::now();
    let run = match_against(&scratch, "ignore_quit", &[]);
    no_faults(&run);
    // A short grace period, then SIGKILL: no waiting on it.
    assert!(t.elapsed() < Duration::from_secs(20));
    assert_no_leftovers(&scratch);
}

#[test]
fn an_engine_stopped_with_the_referee_is_not_charged() {
    // A scheduler stops a job by signalling all of its processes: the
    // engine may die a moment before the referee hears its own stop. The
    // game cut short is no crash of the engine's: it is not recorded, and
    // a resumed run plays it again.
    let scratch = Scratch::new("stop-everyone");
    let steady = fixture("steady", "steady");
    let stopper = fixture("stopper", "stop_everyone");
    let run = referee(
        &scratch,
        &[
            "--engine",
            &steady,
            "--engine",
            &stopper,
            "--games",
            "8",
            "--board",
            "4x4",
            "--k",
            "4",
            "--seed",
            "1",
            "--concurrency",
            "1",
        ],
    );
    assert_eq!(run.output.status.code(), Some(143), "{}", run.stderr);
    assert_eq!(
        run.games.len(),
        2,
        "the two games before the stop: {:?}",
        run.games
    );
    for g in &run.games {
        assert!(matches!(g["reason"].as_str(), Some("win" | "draw")), "{g}");
    }
    let summary = run.summary.expect("a summary");
    assert_eq!(summary["interrupted"], true, "{summary}");
    assert_eq!(summary["pairings"][0]["faults"], json!({}), "{summary}");
}
