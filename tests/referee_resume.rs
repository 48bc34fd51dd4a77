//! `--resume`: a run continued from its `--games-out` records ends exactly
//! as an uninterrupted run would, and records of another run are refused
//! before any game.

mod referee_common;

use referee_common::*;
use serde_json::Value;

/// A round robin of three deterministic (seeded) bots on 3x3: 30 games.
const ROUND_ROBIN: [&str; 8] = [
    "--bots",
    "random,blocking,minimax",
    "--games",
    "10",
    "--seed",
    "5",
    "--concurrency",
    "2",
];

fn with(base: &[&'static str], extra: &[&'static str]) -> Vec<&'static str> {
    base.iter().chain(extra).copied().collect()
}

/// The lines of a run's `--games-out` file, in the order written.
fn lines(scratch: &Scratch) -> Vec<String> {
    std::fs::read_to_string(scratch.path("games.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn assert_same_run(full: &Run, resumed: &Run) {
    assert!(resumed.output.status.success(), "{}", resumed.stderr);
    assert_eq!(summary_without_time(full), summary_without_time(resumed));
    assert_eq!(report_without_time(full), report_without_time(resumed));
    assert_eq!(games_without_time(full), games_without_time(resumed));
}

#[test]
fn a_resumed_run_ends_as_the_uninterrupted_run() {
    let full_dir = Scratch::new("resume-full");
    let full = referee(&full_dir, &ROUND_ROBIN);
    assert!(full.output.status.success(), "{}", full.stderr);
    let written = lines(&full_dir);
    // The run line, then the records.
    assert_eq!(written.len(), 31);
    assert!(
        written[0].starts_with(r#"{"schema":3,"run":""#),
        "{}",
        written[0]
    );
    // Every record carries the run's seed and board.
    for g in &full.games {
        assert_eq!(g["seed"], 5);
        assert_eq!(g["board"]["rows"], 3);
        assert_eq!(g["board"]["rule"], "free");
    }

    // Killed while writing the 12th record: the run line and 11 records,
    // and half a line.
    let cut = Scratch::new("resume-cut");
    let half = &written[12][..written[12].len() / 2];
    let text = format!("{}\n{half}", written[..12].join("\n"));
    std::fs::write(cut.path("games.jsonl"), text).unwrap();
    let resumed = referee(&cut, &with(&ROUND_ROBIN, &["--resume"]));
    assert_same_run(&full, &resumed);
    assert!(
        resumed
            .stderr
            .contains("ignored the unfinished last line 13"),
        "{}",
        resumed.stderr
    );
    assert!(
        resumed
            .stderr
            .contains("11 of 30 games already played, 19 to play"),
        "{}",
        resumed.stderr
    );
    let timing = timing_line(&resumed.stdout);
    assert!(
        timing.starts_with("30 of 30 games: 11 resumed, 19 played in "),
        "{timing}"
    );
    // The file now holds each game once: the 12 kept lines, then the new
    // session's run line and the rest.
    let after = lines(&cut);
    assert_eq!(after.len(), 32);
    assert_eq!(after[..12], written[..12]);
    assert_eq!(after[12], written[0]);

    // Without --seed, the seed comes from the records.
    let cut = Scratch::new("resume-seedless");
    std::fs::write(cut.path("games.jsonl"), written[..7].join("\n")).unwrap();
    let no_seed = [&ROUND_ROBIN[..4], &ROUND_ROBIN[6..], &["--resume"]].concat();
    let resumed = referee(&cut, &no_seed);
    assert_same_run(&full, &resumed);
    assert!(resumed.stdout.contains("seed 5"), "{}", resumed.stdout);

    // A finished run resumed again plays nothing and reports the same.
    let again = referee(&full_dir, &with(&ROUND_ROBIN, &["--resume"]));
    assert_same_run(&full, &again);
    assert!(again
        .stderr
        .contains("30 of 30 games already played, 0 to play"));
    assert_eq!(lines(&full_dir), written);

    // A shorter run resumed with more games per pairing is the longer run:
    // a game's index fixes its engines, colours and opening.
    let short = Scratch::new("resume-extend");
    let mut args = ROUND_ROBIN;
    args[3] = "4";
    let first = referee(&short, &args);
    assert!(first.output.status.success(), "{}", first.stderr);
    assert_eq!(first.games.len(), 12);
    let extended = referee(&short, &with(&ROUND_ROBIN, &["--resume"]));
    assert_same_run(&full, &extended);
}

/// Runs a resume that must be refused, and checks that nothing happened.
fn assert_refused(records: &str, args: &[&str], expected: &str) {
    let scratch = Scratch::new("resume-refused");
    std::fs::write(scratch.path("games.jsonl"), records).unwrap();
    // Not `referee()`: the records may be unreadable on purpose.
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(with_resume(args))
        .args(record_args(&scratch))
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = unwrapped(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(
        stderr.contains(expected),
        "{args:?}: expected {expected:?} in\n{stderr}"
    );
    assert!(out.stdout.is_empty(), "{args:?}: something was played");
    assert!(
        !scratch.path("summary.json").exists(),
        "a summary was written"
    );
    assert_eq!(
        std::fs::read_to_string(scratch.path("games.jsonl")).unwrap(),
        records,
        "the records were changed"
    );
}

fn with_resume<'a>(args: &[&'a str]) -> Vec<&'a str> {
    args.iter().copied().chain(["--resume"]).collect()
}

#[test]
fn records_of_another_run_are_refused_before_any_game() {
    const MATCH: [&str; 6] = ["--bots", "random,blocking", "--games", "6", "--seed", "5"];
    let source = Scratch::new("resume-source");
    // One game at a time, so the file lists the games in order.
    let run = referee(&source, &with(&MATCH, &["--concurrency", "1"]));
    assert!(run.output.status.success(), "{}", run.stderr);
    let written = lines(&source);
    // The run line and the first three games.
    let first4 = written[..4].join("\n") + "\n";

    let book = source.path("book.txt");
    std::fs::write(&book, "2 2\n1 1\n").unwrap();
    let book = book.display().to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            with(&MATCH[..4], &["--seed", "6"]),
            "game 0 was played with seed 5, this run's seed is 6".into(),
        ),
        (
            vec!["--bots", "blocking,random", "--games", "6", "--seed", "5"],
            "game 0 was random (X) against blocking (O); in this run it is blocking against random"
                .into(),
        ),
        (
            with(&MATCH, &["--board", "4x4", "--k", "3"]),
            "game 0 was played on 3x3 k3 free, this run is on 4x4 k3 free".into(),
        ),
        (
            with(&MATCH, &["--openings", "2"]),
            "line 2: game 0 opened with ".into(),
        ),
        (
            MATCH.iter().copied().chain(["--openings-file", &book]).collect(),
            "this run's openings give 2 2 for it".into(),
        ),
        (
            vec!["--bots", "random,blocking", "--games", "2", "--seed", "5"],
            "lies past the end of this run's schedule of 2 games".into(),
        ),
        (
            vec!["--bots", "random,blocking,minimax", "--games", "6", "--seed", "5"],
            "line 4: game 2 was random (X) against blocking (O); in this run it is random against minimax".into(),
        ),
    ];
    for (args, expected) in &cases {
        assert_refused(&first4, args, expected);
    }

    // A file that is not records, two runs in one file, a record that was
    // tampered with, and old records without a seed.
    let garbage = format!("{}\nnot a record\n{}\n", written[0], written[1]);
    assert_refused(&garbage, &MATCH, "line 2 is not a game record");
    let twice = format!("{first4}{}\n", written[1]);
    assert_refused(&twice, &MATCH, "line 5: game 0 is already on line 2");
    let mut won: Value = run
        .games
        .iter()
        .find(|g| g["reason"] == "win")
        .expect("some game was won")
        .clone();
    won["moves"].as_array_mut().unwrap().pop();
    assert_refused(
        &format!("{won}\n"),
        &MATCH,
        "does not add up: it says result",
    );
    let seedless: String = run
        .games
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g.as_object_mut().unwrap().remove("seed");
            format!("{g}\n")
        })
        .collect();
    assert_refused(&seedless, &MATCH[..4], "carry no seed");
    // Records of schema 1 (no `schema` field) were seeded another way, and
    // records of schema 2 don't say their run: neither run can be played
    // on, whatever the seed.
    let old = |schema: Option<u32>| -> String {
        run.games[..3]
            .iter()
            .map(|g| {
                let mut g = g.clone();
                assert_eq!(g["schema"], 3, "{g}");
                let fields = g.as_object_mut().unwrap();
                fields.remove("run");
                match schema {
                    Some(s) => fields.insert("schema".into(), s.into()),
                    None => fields.remove("schema"),
                };
                format!("{g}\n")
            })
            .collect()
    };
    assert_refused(
        &old(None),
        &MATCH,
        "line 1: a record of schema 1, written by an older referee, which derived the seeds \
         of games differently: this referee (schema 3) cannot continue or merge that run; \
         finish it with the referee that wrote it, or start a new --games-out file",
    );
    assert_refused(
        &old(Some(2)),
        &MATCH,
        "line 1: a record of schema 2, written by an older referee, before records named \
         their run and shard",
    );
    // With the seed given they are checked (openings, moves) and taken.
    let scratch = Scratch::new("resume-old-records");
    std::fs::write(scratch.path("games.jsonl"), &seedless).unwrap();
    let resumed = referee(&scratch, &with_resume(&MATCH));
    assert!(resumed.output.status.success(), "{}", resumed.stderr);
    assert!(resumed.stderr.contains("6 of 6 games already played"));
    assert_eq!(summary_without_time(&run), summary_without_time(&resumed));
}

#[test]
fn a_decided_sprt_match_resumes_to_the_same_verdict() {
    let args = [
        "--bots",
        "blocking,random",
        "--sprt",
        "0,100",
        "--games",
        "20000",
        "--seed",
        "3",
        "--concurrency",
        "2",
    ];
    let scratch = Scratch::new("resume-sprt");
    let run = referee(&scratch, &args);
    assert!(run.output.status.success(), "{}", run.stderr);
    let before = lines(&scratch);
    let again = referee(&scratch, &with_resume(&args));
    assert!(again.output.status.success(), "{}", again.stderr);
    assert!(
        again
            .stderr
            .contains("the SPRT is decided: nothing to play"),
        "{}",
        again.stderr
    );
    assert_eq!(summary_without_time(&run), summary_without_time(&again));
    assert_eq!(summary_without_time(&again)["sprt"]["decision"], "h1");
    assert_eq!(lines(&scratch), before);
}

#[test]
fn resume_needs_its_records_file() {
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(["--bots", "random,blocking", "--resume"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(unwrapped(&out.stderr).contains("--games-out"));
    // A records file that does not exist yet: the run starts from scratch.
    let scratch = Scratch::new("resume-fresh");
    let run = referee(
        &scratch,
        &["--bots", "random,blocking", "--games", "4", "--resume"],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    assert!(run
        .stderr
        .contains("0 of 4 games already played, 4 to play"));
    assert_eq!(run.games.len(), 4);
}
