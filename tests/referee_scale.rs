//! Tournaments at scale: `--in-process` plays the games the processes play,
//! `--shard I/N` slices a run, and `referee merge` puts the slices back
//! into the report, summary and records of the one run.

mod referee_common;
mod skip;

use referee_common::*;
use serde_json::Value;

/// A round robin of three seeded bots on 3x3: 60 games.
const ROUND_ROBIN: [&str; 6] = [
    "--bots",
    "random,blocking,minimax",
    "--games",
    "20",
    "--seed",
    "9",
];

fn args<'a>(parts: &[&[&'a str]]) -> Vec<&'a str> {
    parts.concat()
}

fn report_core(run: &Run) -> Vec<String> {
    referee_common::report_core(&run.stdout)
}

/// Every line of a `--games-out` file, the records without their times.
fn file_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("time_ms");
            v.as_object_mut().unwrap().remove("peak_mib");
            v
        })
        .collect()
}

#[test]
fn in_process_games_are_the_process_games() {
    for concurrency in ["1", "2"] {
        let procs = Scratch::new("scale-procs");
        let by_procs = referee(
            &procs,
            &args(&[&ROUND_ROBIN, &["--concurrency", concurrency]]),
        );
        assert!(by_procs.output.status.success(), "{}", by_procs.stderr);
        let bots = Scratch::new("scale-bots");
        let in_process = referee(
            &bots,
            &args(&[
                &ROUND_ROBIN,
                &["--concurrency", concurrency, "--in-process"],
            ]),
        );
        assert!(in_process.output.status.success(), "{}", in_process.stderr);
        assert_eq!(in_process.games.len(), 60);
        // Game for game: moves, results, openings, names, the run.
        assert_eq!(
            games_without_time(&by_procs),
            games_without_time(&in_process)
        );
        assert_eq!(by_procs.runs, in_process.runs);
        assert_eq!(
            summary_without_time(&by_procs),
            summary_without_time(&in_process)
        );
        assert_eq!(report_core(&by_procs), report_core(&in_process));
        assert!(
            in_process
                .stdout
                .contains(&format!("concurrency {concurrency}, in process, seed 9")),
            "{}",
            in_process.stdout
        );
        // Both say where a ply's time went.
        for run in [&by_procs, &in_process] {
            let per_ply = &run.summary.as_ref().unwrap()["per_ply_us"];
            assert!(per_ply["referee"].as_f64().unwrap() > 0.0, "{per_ply}");
            assert!(
                run.stdout.contains("time per ply: referee "),
                "{}",
                run.stdout
            );
        }
    }
}

#[test]
fn in_process_keeps_the_clock_sprt_and_faults_of_process_mode() {
    // A clock per side and an SPRT: the same stop, the same games.
    let sprt = [
        "--bots",
        "blocking,random",
        "--sprt",
        "0,100",
        "--games",
        "2000",
        "--seed",
        "4",
        "--concurrency",
        "1",
        "--match-time",
        "60000",
    ];
    let procs = Scratch::new("scale-sprt-procs");
    let by_procs = referee(&procs, &sprt);
    let bots = Scratch::new("scale-sprt-bots");
    let in_process = referee(&bots, &args(&[&sprt, &["--in-process"]]));
    assert!(in_process.output.status.success(), "{}", in_process.stderr);
    assert_eq!(summary_without_time(&in_process)["sprt"]["decision"], "h1");
    assert!(in_process.games.len() < 2000);
    assert_eq!(
        games_without_time(&by_procs),
        games_without_time(&in_process)
    );
    assert_eq!(
        summary_without_time(&by_procs),
        summary_without_time(&in_process)
    );

    // A deadline no move can meet: every game a timeout of X, as with
    // processes (minimax on 7x7 thinks for its movetime, 1 s, far past it).
    let late = Scratch::new("scale-late");
    let run = referee(
        &late,
        &[
            "--bots",
            "minimax,random",
            "--in-process",
            "--games",
            "2",
            "--board",
            "7x7",
            "--k",
            "5",
            "--timeout",
            "1",
            "--movetime",
            "50",
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    let minimax_x = &run.games[0];
    assert_eq!(minimax_x["reason"], "timeout", "{minimax_x}");
    assert_eq!(minimax_x["fault_by"], "minimax");
    assert_eq!(
        minimax_x["detail"],
        "no reply within 1 ms, the move deadline (--timeout)"
    );
}

#[test]
fn in_process_refuses_programs_and_bad_shards_are_refused() {
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args([
            "--in-process",
            "--bots",
            "random",
            "--engine",
            "mine=python3 bot.py",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = unwrapped(&out.stderr);
    assert!(
        err.contains("--in-process plays built-in bots only (--bots); 'mine' is a program"),
        "{err}"
    );
    for (shard, expected) in [
        ("0/4", "shards are numbered from 1 to 4"),
        ("5/4", "shards are numbered from 1 to 4"),
        ("two/4", "is not I/N"),
    ] {
        let out = assert_cmd::Command::cargo_bin("referee")
            .unwrap()
            .args(["--bots", "random,random", "--shard", shard])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{shard}");
        assert!(unwrapped(&out.stderr).contains(expected), "{shard}");
    }
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args([
            "--bots",
            "random,random",
            "--shard",
            "1/2",
            "--sprt",
            "0,10",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Plays shard `i` of `n` of `base` into its own scratch directory.
fn shard(base: &[&str], i: u32, n: u32) -> (Scratch, Run) {
    let scratch = Scratch::new("scale-shard");
    let which = format!("{i}/{n}");
    let run = referee(&scratch, &args(&[base, &["--shard", &which]]));
    assert!(run.output.status.success(), "{}", run.stderr);
    (scratch, run)
}

/// `referee merge FILES --json … --games-out …` into `out`.
fn merge(
    out: &Scratch,
    files: &[std::path::PathBuf],
    extra: &[&str],
) -> (std::process::Output, Run) {
    let output = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .arg("merge")
        .args(files)
        .args(["--json"])
        .arg(out.path("summary.json"))
        .args(["--games-out"])
        .arg(out.path("games.jsonl"))
        .args(extra)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    (output.clone(), records(out, output))
}

#[test]
fn four_shards_merged_are_the_one_run() {
    // The one run with processes, one game at a time (its records in game
    // order); the shards in process.
    let whole_dir = Scratch::new("scale-whole");
    let whole = referee(&whole_dir, &args(&[&ROUND_ROBIN, &["--concurrency", "1"]]));
    assert!(whole.output.status.success(), "{}", whole.stderr);
    let base = args(&[&ROUND_ROBIN, &["--in-process", "--concurrency", "2"]]);
    let shards: Vec<(Scratch, Run)> = (1..=4).map(|i| shard(&base, i, 4)).collect();
    let mut counts = Vec::new();
    for (i, (_, run)) in shards.iter().enumerate() {
        counts.push(run.games.len());
        let which = format!("{}/4", i + 1);
        assert!(run.games.iter().all(|g| g["shard"] == which.as_str()));
        assert!(run
            .games
            .iter()
            .all(|g| g["pair"].as_u64().unwrap() % 4 == i as u64));
        assert_eq!(run.runs[0]["shard"], which.as_str());
        assert!(
            run.stdout.contains(&format!(
                "shard {which}: {} of the run's 60 games",
                run.games.len()
            )),
            "{}",
            run.stdout
        );
    }
    assert_eq!(counts, [16, 16, 14, 14]);
    // In any order.
    let files: Vec<_> = shards
        .iter()
        .rev()
        .map(|(s, _)| s.path("games.jsonl"))
        .collect();
    let out = Scratch::new("scale-merged");
    let (output, merged) = merge(&out, &files, &[]);
    assert!(output.status.success(), "{}", merged.stderr);
    assert_eq!(report_core(&whole), report_core(&merged));
    assert!(
        merged.stdout.contains("merged from 4 files, seed 9"),
        "{}",
        merged.stdout
    );
    let mut summary = summary_without_time(&whole);
    let merged_summary = summary_without_time(&merged);
    assert_eq!(merged.summary.as_ref().unwrap()["seconds"], Value::Null);
    summary.as_object_mut().unwrap().remove("per_ply_us");
    assert_eq!(summary, merged_summary);
    // The merged records are the one run's, line for line (times aside).
    assert_eq!(
        file_lines(&whole_dir.path("games.jsonl")),
        file_lines(&out.path("games.jsonl"))
    );
    // A merge of the one run's own file gives the same again.
    let again = Scratch::new("scale-merged-again");
    let (output, remerged) = merge(&again, &[whole_dir.path("games.jsonl")], &[]);
    assert!(output.status.success(), "{}", remerged.stderr);
    assert_eq!(
        file_lines(&out.path("games.jsonl")),
        file_lines(&again.path("games.jsonl"))
    );
}

#[test]
fn shards_without_games_still_merge() {
    // The documented loop with more shards than pairs (random against
    // blocking, four games: two pairs, one for each of shards 1 and 2):
    // shard 3 of 3 plays nothing. Its file still has the run line (it was 0 bytes, and
    // the merge refused the whole run for it).
    let base = ["--bots", "random,blocking", "--games", "4", "--seed", "8"];
    let shards: Vec<(Scratch, Run)> = (1..=3).map(|i| shard(&base, i, 3)).collect();
    let played: Vec<usize> = shards.iter().map(|(_, r)| r.games.len()).collect();
    assert_eq!(played, [2, 2, 0]);
    let (_, empty) = &shards[2];
    assert_eq!(empty.runs.len(), 1, "{}", empty.stderr);
    assert_eq!(empty.runs[0]["shard"], "3/3");
    let files: Vec<_> = shards.iter().map(|(s, _)| s.path("games.jsonl")).collect();
    let out = Scratch::new("scale-merged-empty");
    let (output, merged) = merge(&out, &files, &[]);
    assert!(output.status.success(), "{}", merged.stderr);
    assert_eq!(merged.games.len(), 4);
    // The same run whole.
    let whole_dir = Scratch::new("scale-whole-small");
    let whole = referee(&whole_dir, &base);
    assert_eq!(report_core(&whole), report_core(&merged));
}

#[test]
fn a_merge_names_what_is_missing_twice_or_of_another_run() {
    let base = args(&[
        &ROUND_ROBIN[..2],
        &ROUND_ROBIN[4..],
        &["--in-process", "--games", "8"],
    ]);
    let shards: Vec<(Scratch, Run)> = (1..=3).map(|i| shard(&base, i, 3)).collect();
    let file = |i: usize| shards[i].0.path("games.jsonl");
    let refused = |files: &[std::path::PathBuf], expected: &str| {
        let out = Scratch::new("scale-refused");
        let (output, run) = merge(&out, files, &[]);
        assert_eq!(output.status.code(), Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains(expected),
            "expected {expected:?} in {}",
            run.stderr
        );
        assert!(!out.path("games.jsonl").exists() && !out.path("summary.json").exists());
    };
    refused(
        &[file(0), file(2)],
        "8 of the run's 24 games are missing: 2-3, 8-9, 14-15, 20-21; shard 2/3: no file given (8 games)",
    );
    refused(&[file(0), file(1), file(2), file(1)], "a file given twice");
    // A shard of another seed.
    let other = Scratch::new("scale-other");
    let mut other_seed = base.clone();
    other_seed[3] = "10";
    let run = referee(&other, &args(&[&other_seed, &["--shard", "2/3"]]));
    assert!(run.output.status.success());
    refused(
        &[file(0), other.path("games.jsonl"), file(2)],
        "has seed 10, not 9",
    );
    // Records of an older referee (no run line).
    let old = Scratch::new("scale-old");
    let text: String = shards[1].1.games.iter().map(|g| format!("{g}\n")).collect();
    std::fs::write(old.path("games.jsonl"), text).unwrap();
    refused(
        &[file(0), old.path("games.jsonl"), file(2)],
        "has no run line",
    );
    // A shard cut short: its missing games are named; --allow-missing
    // reports the rest.
    let cut = Scratch::new("scale-cut");
    let lines: Vec<String> = std::fs::read_to_string(file(1))
        .unwrap()
        .lines()
        .take(5)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(cut.path("games.jsonl"), lines.concat()).unwrap();
    let files = [file(0), cut.path("games.jsonl"), file(2)];
    refused(
        &files,
        "shard 2/3: 4 games missing (resume it to play them)",
    );
    let out = Scratch::new("scale-partial");
    let (output, partial) = merge(&out, &files, &["--allow-missing"]);
    assert!(output.status.success(), "{}", partial.stderr);
    assert!(
        partial.stdout.contains("20 of 24 games — INCOMPLETE"),
        "{}",
        partial.stdout
    );
    assert_eq!(partial.summary.as_ref().unwrap()["interrupted"], true);
    assert_eq!(partial.games.len(), 20);

    // The shard resumed plays the rest, and then the merge is whole.
    let resumed = referee(&cut, &args(&[&base, &["--shard", "2/3", "--resume"]]));
    assert!(resumed.output.status.success(), "{}", resumed.stderr);
    assert!(
        resumed
            .stderr
            .contains("4 of 8 games already played, 4 to play"),
        "{}",
        resumed.stderr
    );
    assert_eq!(
        games_without_time(&resumed),
        games_without_time(&shards[1].1)
    );
    // Resumed as another shard, it is refused.
    let wrong = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(args(&[
            &base,
            &["--shard", "3/3", "--resume", "--quiet", "--games-out"],
        ]))
        .arg(cut.path("games.jsonl"))
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        unwrapped(&wrong.stderr).contains("the records are of shard 2/3, this is shard 3/3"),
        "{}",
        unwrapped(&wrong.stderr)
    );
    let out = Scratch::new("scale-whole-again");
    let (output, _) = merge(&out, &files, &[]);
    assert!(output.status.success());
}

#[test]
fn progress_is_a_line_every_few_seconds_in_a_log() {
    let scratch = Scratch::new("scale-progress");
    // mcts thinks 20 ms a move on 7x7: the run lasts well past 0.1 s.
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args([
            "--bots",
            "mcts,random",
            "--in-process",
            "--board",
            "7x7",
            "--k",
            "5",
            "--movetime",
            "20",
            "--games",
            "8",
            "--concurrency",
            "1",
            "--progress-every",
            "0.1",
            "--games-out",
        ])
        .arg(scratch.path("games.jsonl"))
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = unwrapped(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("referee: ") && l.contains("/8 games"))
        .unwrap_or_else(|| panic!("no progress line in {err}"));
    assert!(
        line.contains("ETA") && line.contains("mcts vs random  +"),
        "{line}"
    );
    assert!(!err.contains('\x1b'), "escape codes in a log: {err:?}");
}

#[test]
fn progress_is_redrawn_in_place_on_a_terminal() {
    // `script` gives the referee a terminal for its stderr.
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        skip::skip_loudly(
            "the progress line redrawn on a terminal",
            "no `script` (util-linux)",
            "apt-get install -y bsdutils",
        );
        return;
    }
    let referee = assert_cmd::cargo::cargo_bin("referee");
    let command = format!(
        "{} --bots mcts,random --in-process --movetime 20 --board 7x7 --k 5 --games 8 \
         --concurrency 1 >/dev/null",
        referee.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    // Drawn, then erased and drawn again in place.
    assert!(text.contains("/8 games"), "{text:?}");
    assert!(
        text.contains("\r\x1b[J") || text.contains("\x1b[1A\r\x1b[J"),
        "{text:?}"
    );
    assert!(text.contains("  mcts vs random  +"), "{text:?}");
}

#[test]
fn ctrl_c_stops_an_in_process_run_with_its_records_whole() {
    let scratch = Scratch::new("scale-ctrl-c");
    // Far more games than finish before the signal.
    let child = start(
        &scratch,
        &[
            "--bots",
            "random,blocking",
            "--in-process",
            "--games",
            "50000000",
            "--seed",
            "3",
        ],
    );
    wait_for_records(&scratch, 1000);
    signal(&child, libc::SIGINT);
    let (status, run) = finish(child, &scratch);
    assert_eq!(status.code(), Some(130), "{}", run.stderr);
    assert!(run.stdout.contains("INTERRUPTED"), "{}", run.stdout);
    let summary = run.summary.as_ref().unwrap();
    assert_eq!(summary["interrupted"], true);
    // Every finished game is in the records, each line whole.
    assert_eq!(summary["games"].as_u64().unwrap(), run.games.len() as u64);
    assert!(run
        .stderr
        .contains("to play the rest, run the same command with --resume"));
}
