//! Gauntlets, rounds and per-engine settings through the real `referee`
//! binary: who plays whom, what each engine is told (read back from the
//! engines' own logs), clocks with increments and a time margin, bad
//! values refused before any game, and each with `--resume`, `--shard` /
//! `merge` and `--in-process`.

mod referee_common;

use referee_common::{fixture, referee, Run, Scratch};
use serde_json::Value;
use std::collections::BTreeSet;

/// The engines of each game, as (x, o).
fn pairs(run: &Run) -> BTreeSet<(String, String)> {
    run.games
        .iter()
        .map(|g| {
            let (x, o) = (g["x"].as_str().unwrap(), g["o"].as_str().unwrap());
            if x < o {
                (x.into(), o.into())
            } else {
                (o.into(), x.into())
            }
        })
        .collect()
}

fn moves(run: &Run) -> Vec<(u64, Value)> {
    run.games
        .iter()
        .map(|g| (g["game"].as_u64().unwrap(), g["moves"].clone()))
        .collect()
}

/// A run refused with `words`, no game played (`before`: the games its
/// records held already).
fn refused_after(run: &Run, words: &str, before: usize) {
    assert!(!run.output.status.success(), "{}", run.stderr);
    assert!(
        run.stderr.contains(words),
        "wanted '{words}' in: {}",
        run.stderr
    );
    assert_eq!(run.games.len(), before, "a game was played");
}

fn refused(run: &Run, words: &str) {
    refused_after(run, words, 0);
}

fn three() -> Vec<String> {
    vec![
        "--engine".into(),
        fixture("a", "steady"),
        "--engine".into(),
        fixture("b", "steady"),
        "--engine".into(),
        fixture("c", "steady"),
    ]
}

fn args<'a>(base: &'a [String], more: &[&'a str]) -> Vec<&'a str> {
    base.iter()
        .map(String::as_str)
        .chain(more.iter().copied())
        .collect()
}

#[test]
fn a_gauntlet_plays_the_first_engine_against_each_other_in_rounds() {
    let s = Scratch::new("gauntlet");
    let base = three();
    let run = referee(
        &s,
        &args(
            &base,
            &[
                "--tournament",
                "gauntlet",
                "--games",
                "2",
                "--rounds",
                "3",
                "--seed",
                "4",
            ],
        ),
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    // a-b and a-c, 2 x 3 games each; b and c never meet.
    assert_eq!(run.games.len(), 12);
    let expected: BTreeSet<(String, String)> = [("a", "b"), ("a", "c")]
        .map(|(x, o)| (x.into(), o.into()))
        .into();
    assert_eq!(pairs(&run), expected);
    let summary = run.summary.as_ref().unwrap();
    assert_eq!(summary["tournament"], "gauntlet");
    assert_eq!(summary["pairings"].as_array().unwrap().len(), 2);
    assert_eq!(run.runs[0]["tournament"], "gauntlet");
    assert_eq!(run.runs[0]["games_per_pairing"], 6);
    assert!(
        run.stdout.contains("3 engines in a gauntlet"),
        "{}",
        run.stdout
    );
    // The crosstable leaves b against c blank.
    let cross: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Crosstable"))
        .collect();
    assert!(cross.iter().all(|l| !l.contains("0/0")), "{cross:?}");

    // A round robin is another run: its records don't resume this one.
    let rr = referee(
        &s,
        &args(
            &base,
            &["--games", "2", "--rounds", "3", "--seed", "4", "--resume"],
        ),
    );
    refused_after(&rr, "a gauntlet, not a round-robin (--tournament)", 12);
}

#[test]
fn rounds_resume_shard_and_merge_into_the_same_gauntlet() {
    let whole_dir = Scratch::new("gauntlet-whole");
    let base = three();
    let common = ["--tournament", "gauntlet", "--games", "2", "--seed", "9"];
    let whole = referee(
        &whole_dir,
        &args(&base, &[&common[..], &["--rounds", "2"]].concat()),
    );
    assert!(whole.output.status.success(), "{}", whole.stderr);

    // One round, then resumed to two.
    let grown = Scratch::new("gauntlet-grown");
    let first = referee(
        &grown,
        &args(&base, &[&common[..], &["--rounds", "1"]].concat()),
    );
    assert_eq!(first.games.len(), 4);
    let second = referee(
        &grown,
        &args(
            &base,
            &[&common[..], &["--rounds", "2", "--resume"]].concat(),
        ),
    );
    assert!(
        second
            .stderr
            .contains("4 of 8 games already played, 4 to play"),
        "{}",
        second.stderr
    );
    assert_eq!(moves(&second), moves(&whole));

    // Two shards merged.
    let mut files = Vec::new();
    let shards: Vec<Scratch> = (1..=2)
        .map(|i| Scratch::new(&format!("gauntlet-shard{i}")))
        .collect();
    for (i, dir) in shards.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        let run = referee(
            dir,
            &args(
                &base,
                &[&common[..], &["--rounds", "2", "--shard", &shard]].concat(),
            ),
        );
        assert!(run.output.status.success(), "{}", run.stderr);
        files.push(dir.path("games.jsonl").display().to_string());
    }
    let merged = whole_dir.path("merged.jsonl");
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(["merge", &files[0], &files[1], "--games-out"])
        .arg(&merged)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("3 engines in a gauntlet"), "{text}");
    let merged: Vec<(u64, Value)> = std::fs::read_to_string(&merged)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|g| g.get("game").is_some())
        .map(|g| (g["game"].as_u64().unwrap(), g["moves"].clone()))
        .collect();
    assert_eq!(merged, moves(&whole));
}

#[test]
fn a_bot_gauntlet_in_process_plays_the_processes_games() {
    let common = [
        "--bots",
        "minimax,random,blocking",
        "--tournament",
        "gauntlet",
        "--games",
        "4",
        "--rounds",
        "2",
        "--seed",
        "3",
        "--board",
        "7x7",
        "--k",
        "4",
        "--engine-settings",
        "minimax: nodes=300",
    ];
    let procs = referee(&Scratch::new("gauntlet-procs"), &common);
    assert!(procs.output.status.success(), "{}", procs.stderr);
    let mut with = common.to_vec();
    with.push("--in-process");
    let bots = referee(&Scratch::new("gauntlet-bots"), &with);
    assert!(bots.output.status.success(), "{}", bots.stderr);
    assert_eq!(bots.games.len(), 16);
    assert_eq!(moves(&bots), moves(&procs));
}

/// The lines engine NAME was sent, from the log in its directory.
fn told(s: &Scratch, name: &str) -> Vec<String> {
    std::fs::read_to_string(s.path(name).join("commands.log"))
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

fn logging(s: &Scratch, name: &str) -> [String; 2] {
    std::fs::create_dir_all(s.path(name)).unwrap();
    ["--engine".into(), fixture(name, "settings_log")]
}

fn dir_of(s: &Scratch, name: &str) -> String {
    format!("{name}: dir={}", s.path(name).display())
}

#[test]
fn each_engine_is_told_its_own_settings_in_its_own_directory() {
    let s = Scratch::new("settings-told");
    let (a, b) = (logging(&s, "a"), logging(&s, "b"));
    let (da, db) = (dir_of(&s, "a"), dir_of(&s, "b"));
    let mut all: Vec<&str> = a.iter().chain(&b).map(String::as_str).collect();
    all.extend([
        "--games",
        "2",
        "--seed",
        "1",
        "--timeout",
        "4000",
        "--engine-settings",
        &da,
        "--engine-settings",
        &db,
        "--each",
        "movetime=50 option.style=calm",
        "--engine-settings",
        "a: movetime=77 depth=4 option.style=sharp",
        "--engine-settings",
        "b: nodes=123",
    ]);
    let run = referee(&s, &all);
    assert!(run.output.status.success(), "{}", run.stderr);
    let a = told(&s, "a");
    for line in ["set movetime 77", "set depth 4", "set style sharp"] {
        // At the start-up check and at each game's set-up.
        assert_eq!(a.iter().filter(|l| *l == line).count(), 3, "{line}: {a:?}");
    }
    let b = told(&s, "b");
    for line in ["set movetime 50", "set nodes 123", "set style calm"] {
        assert_eq!(b.iter().filter(|l| *l == line).count(), 3, "{line}: {b:?}");
    }
    assert!(!b.iter().any(|l| l.starts_with("set depth")), "{b:?}");
    // The settings are in the run line and the summary (the directory too,
    // though it is the machine's own and not part of the run).
    let engines = &run.runs[0]["engines"];
    assert_eq!(engines[0]["settings"]["movetime_ms"], 77);
    assert_eq!(engines[0]["settings"]["options"]["style"], "sharp");
    assert_eq!(engines[1]["settings"]["nodes"], 123);
    assert_eq!(run.summary.as_ref().unwrap()["engines"], *engines);

    // Resumed under other settings: refused, saying whose and how.
    let mut other = all.clone();
    let at = other.iter().position(|a| *a == "b: nodes=123").unwrap();
    other[at] = "b: nodes=124";
    other.push("--resume");
    let again = referee(&s, &other);
    refused_after(
        &again,
        "b's settings movetime=50 nodes=123 option.style=calm, not movetime=50 nodes=124",
        2,
    );
}

#[test]
fn a_count_limit_alone_gets_the_move_deadline_as_its_move_time() {
    let s = Scratch::new("settings-nodes");
    let (a, b) = (logging(&s, "a"), logging(&s, "b"));
    let (da, db) = (dir_of(&s, "a"), dir_of(&s, "b"));
    let mut all: Vec<&str> = a.iter().chain(&b).map(String::as_str).collect();
    // Every log in the scratch directory.
    all.extend(["--engine-settings", &db]);
    all.extend([
        "--games",
        "2",
        "--timeout",
        "3500",
        "--engine-settings",
        &da,
    ]);
    all.extend(["--engine-settings", "a: nodes=1000"]);
    let run = referee(&s, &all);
    assert!(run.output.status.success(), "{}", run.stderr);
    let a = told(&s, "a");
    assert!(a.contains(&"set movetime 3500".to_string()), "{a:?}");
}

/// A game between a (who sleeps `sleep` ms a move, under `settings`) and
/// b: a's timeouts.
fn clocked(tag: &str, settings: &str, margin: &str) -> (Run, Vec<String>) {
    let s = Scratch::new(tag);
    let (a, b) = (logging(&s, "a"), logging(&s, "b"));
    let (da, db) = (dir_of(&s, "a"), dir_of(&s, "b"));
    let mut all: Vec<&str> = a.iter().chain(&b).map(String::as_str).collect();
    // Every log in the scratch directory.
    all.extend(["--engine-settings", &db]);
    all.extend([
        "--games",
        "2",
        "--seed",
        "2",
        "--openings",
        "0",
        "--time-margin",
        margin,
        "--engine-settings",
        &da,
        "--engine-settings",
        settings,
    ]);
    let run = referee(&s, &all);
    assert!(run.output.status.success(), "{}", run.stderr);
    let log = told(&s, "a");
    (run, log)
}

fn a_timeouts(run: &Run) -> usize {
    run.games
        .iter()
        .filter(|g| g["reason"] == "timeout" && g["fault_by"] == "a")
        .count()
}

#[test]
fn an_increment_and_a_margin_keep_a_slow_engine_on_its_clock() {
    // 0.3 s for the game, 0.2 s a move: out of time at its second move.
    let (plain, _) = clocked("clock-plain", "a: tc=0.3 option.sleep_ms=200", "0");
    assert_eq!(a_timeouts(&plain), 2, "{:?}", plain.games);
    // Half a second more after each move: never short.
    let (inc, log) = clocked("clock-inc", "a: tc=0.3+0.5 option.sleep_ms=200", "0");
    assert_eq!(a_timeouts(&inc), 0, "{:?}", inc.games);
    // What a is told grows with the increment.
    let left: Vec<u64> = log
        .iter()
        .filter_map(|l| l.strip_prefix("set timeleft ")?.parse().ok())
        .collect();
    assert_eq!(left[0], 300, "{log:?}");
    assert!(left.iter().any(|&l| l > 300), "{left:?}");
    // A margin of 2 s: late replies still count, the clock stays at 0.
    let (margin, _) = clocked("clock-margin", "a: tc=0.3 option.sleep_ms=200", "2000");
    assert_eq!(a_timeouts(&margin), 0, "{:?}", margin.games);
    assert_eq!(margin.runs[0]["time_margin_ms"], 2000);
    assert_eq!(
        margin.runs[0]["engines"][0]["settings"]["clock"]["increment_ms"],
        Value::Null
    );
    assert_eq!(
        inc.runs[0]["engines"][0]["settings"]["clock"]["increment_ms"],
        500
    );
}

#[test]
fn bad_settings_are_refused_before_any_game() {
    let base = vec![
        "--engine".to_string(),
        fixture("a", "settings_log"),
        "--engine".to_string(),
        fixture("b", "steady"),
    ];
    let cases: &[(&[&str], &str)] = &[
        (
            &["--each", "nodes=0"],
            "nodes=0: expected a number of nodes from 1 to",
        ),
        (
            &["--each", "depth=-1"],
            "depth=-1: expected a number of plies",
        ),
        (
            &["--each", "tc=fast"],
            "tc 'fast': expected seconds BASE[+INCREMENT]",
        ),
        (&["--each", "tc=0+1"], "the clock must start above 0 s"),
        (
            &["--each", "movetime=0"],
            "movetime=0: expected a number of ms",
        ),
        (&["--each", "speed=3"], "'speed' is no setting"),
        (&["--each", "option.seed=3"], "the referee sets seed itself"),
        (&["--each", "option.a;b=1"], "single words"),
        (
            &["--engine-settings", "zz: nodes=5"],
            "no engine is named so (the names: a, b)",
        ),
        (&["--engine-settings", "nodes=5"], "expected NAME:KEY=VALUE"),
        (
            &["--each", "dir=/nonexistent/kinrow"],
            "/nonexistent/kinrow is no directory",
        ),
        (
            &["--match-time", "100", "--each", "tc=1"],
            "give every engine's clock once",
        ),
        (
            &["--movetime", "100", "--each", "movetime=5"],
            "give every engine's move time once",
        ),
        (
            &["--tournament", "swiss"],
            "'swiss' is no tournament: round-robin or gauntlet",
        ),
        (&["--rounds", "0"], "--rounds"),
        (&["--time-margin", "soon"], "--time-margin"),
        (
            &["--games", "100", "--rounds", "10000000"],
            "at most 100000000 games per pairing",
        ),
        // The engine refuses it at the start-up check.
        (
            &["--engine-settings", "a: option.refuse=1"],
            "refused its setting 'set refuse 1'",
        ),
        (
            &["--bots", "random", "--in-process", "--each", "dir=/tmp"],
            "--in-process plays built-in bots only",
        ),
    ];
    for (more, words) in cases {
        let s = Scratch::new("bad-settings");
        // a's log goes into the scratch directory.
        let own = dir_of(&s, "a");
        std::fs::create_dir_all(s.path("a")).unwrap();
        let mut all = args(&base, &["--engine-settings", &own]);
        all.extend(more.iter().copied());
        let run = referee(&s, &all);
        refused(&run, words);
        assert!(run.runs.is_empty(), "{more:?}: a run line was written");
    }
    // In process: a directory has no process; a bot refuses what it lacks.
    let s = Scratch::new("bad-settings-bots");
    let bots = ["--bots", "random,minimax", "--in-process"];
    refused(
        &referee(&s, &[&bots[..], &["--each", "dir=/tmp"]].concat()),
        "--in-process starts no process",
    );
    refused(
        &referee(&s, &[&bots[..], &["--each", "option.hash=999999"]].concat()),
        "refused its setting 'set hash 999999'",
    );
}

#[test]
fn merge_refuses_shards_played_under_other_settings() {
    let base: Vec<String> = ["--bots", "minimax,random", "--in-process"]
        .map(String::from)
        .into();
    let dirs: Vec<Scratch> = (1..=2)
        .map(|i| Scratch::new(&format!("settings-shard{i}")))
        .collect();
    for (i, dir) in dirs.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        // The second shard's minimax ran under another node limit.
        let limit = format!("minimax: nodes={}", 100 + i);
        let run = referee(
            dir,
            &args(
                &base,
                &[
                    "--games",
                    "2",
                    "--seed",
                    "5",
                    "--shard",
                    &shard,
                    "--engine-settings",
                    &limit,
                ],
            ),
        );
        assert!(run.output.status.success(), "{}", run.stderr);
    }
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .arg("merge")
        .args(dirs.iter().map(|d| d.path("games.jsonl")))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = referee_common::unwrapped(&out.stderr);
    assert!(err.contains("are not of one run"), "{err}");
    assert!(
        err.contains("minimax's settings nodes=101, not nodes=100"),
        "{err}"
    );
}

#[test]
fn a_gomocup_brain_gets_its_limits_and_options_as_info() {
    let s = Scratch::new("settings-brain");
    let kinrow = env!("CARGO_BIN_EXE_kinrow");
    let brain = format!("g=gomocup:{kinrow} --protocol gomocup");
    let log = s.path("logs");
    let run = referee(
        &s,
        &[
            "--engine",
            &brain,
            "--bots",
            "blocking",
            "--board",
            "15x15",
            "--k",
            "5",
            "--games",
            "2",
            "--seed",
            "1",
            "--log-dir",
            log.to_str().unwrap(),
            "--engine-settings",
            "g: nodes=2000 option.caution_factor=2",
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    assert_eq!(run.games.len(), 2);
    assert!(
        run.games.iter().all(|g| g["reason"] == "win"),
        "{:?}",
        run.games
    );
    // The brain's own reports of its searches: within the node limit.
    let said = std::fs::read_to_string(log.join("referee.log")).unwrap();
    let nodes: Vec<u64> = said
        .lines()
        .filter_map(|l| {
            l.split(" nodes ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(!nodes.is_empty(), "{said}");
    assert!(nodes.iter().all(|&n| n <= 2000), "{nodes:?}");
    assert_eq!(
        run.runs[0]["engines"][0]["settings"]["options"]["caution_factor"],
        "2"
    );
}
