//! The referee end to end: the main job, reproducibility by seed, the JSON
//! records, SPRT, Ctrl-C, bad arguments, and the built-in bot fallback.

mod referee_common;

use referee_common::*;
use serde_json::Value;
use std::time::Duration;

#[test]
fn the_main_job_is_a_round_robin_of_the_built_in_bots() {
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "4 engines, 3x3 k3 free, 100 games per pairing, 1 opening ply",
        "600 of 600 games",
        "random vs blocking: 100 games",
        "random vs minimax: 100 games",
        "random vs mcts: 100 games",
        "blocking vs minimax: 100 games",
        "blocking vs mcts: 100 games",
        "minimax vs mcts: 100 games",
        "Ranking",
        "Crosstable",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // One random opening stone leaves tic-tac-toe a draw: minimax and mcts,
    // perfect there, never lose a game.
    for (opponent, bot) in [
        ("random", "minimax"),
        ("blocking", "minimax"),
        ("random", "mcts"),
        ("blocking", "mcts"),
        ("minimax", "mcts"),
    ] {
        let section = text
            .split(&format!("{opponent} vs {bot}: 100 games\n"))
            .nth(1)
            .unwrap_or_default();
        assert!(
            section.starts_with(&format!("  {opponent}: +0 ")),
            "{bot} lost to {opponent}:\n{text}"
        );
        if opponent == "minimax" {
            assert!(section.contains(" -0 "), "minimax lost to mcts:\n{text}");
        }
    }
    let seed = text
        .split("seed ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next());
    assert!(seed.is_some_and(|s| s.parse::<u64>().is_ok()), "{text}");
}

#[test]
fn a_seed_replays_a_run_exactly_at_any_concurrency() {
    let steady_a = fixture("a", "steady");
    let steady_b = fixture("b", "steady");
    let play = |seed: &str, j: &str| {
        let scratch = Scratch::new("seed");
        let run = referee(
            &scratch,
            &[
                "--engine",
                &steady_a,
                "--engine",
                &steady_b,
                "--bots",
                "random",
                "--games",
                "6",
                "--board",
                "4x4",
                "--k",
                "3",
                "--openings",
                "3",
                "--seed",
                seed,
                "--concurrency",
                j,
            ],
        );
        assert!(run.output.status.success(), "{}", run.stderr);
        run
    };
    let first = play("12345", "1");
    let again = play("12345", "3");
    let other = play("54321", "2");
    assert_eq!(first.games.len(), 18);
    assert_eq!(games_without_time(&first), games_without_time(&again));
    assert_ne!(games_without_time(&first), games_without_time(&other));
    let (s1, s2) = (first.summary.unwrap(), again.summary.unwrap());
    assert_eq!(s1["seed"], 12345);
    assert_eq!(s1["pairings"], s2["pairings"]);
    // Openings are 3 plies, the same for both games of a pair.
    for pair in first.games.chunks(2) {
        assert_eq!(pair[0]["opening"].as_array().map(Vec::len), Some(3));
        assert_eq!(pair[0]["opening"], pair[1]["opening"]);
    }
}

#[test]
fn records_follow_their_schema() {
    let scratch = Scratch::new("schema");
    let run = referee(
        &scratch,
        &[
            "--bots",
            "random,blocking",
            "--games",
            "5",
            "--seed",
            "7",
            "--concurrency",
            "2",
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    let s = run.summary.unwrap();
    assert_eq!(s["schema"], 1);
    assert_eq!(s["seed"], 7);
    // 5 games per pairing round up to 3 pairs.
    assert_eq!(s["games"], 6);
    assert_eq!(s["engines"][0]["name"], "random");
    assert_eq!(s["engines"][1]["name"], "blocking");
    assert!(s["engines"][0]["command"].as_array().unwrap().len() >= 3);
    let p = &s["pairings"][0];
    let games = p["games"].as_u64().unwrap();
    let sum = p["a_wins"].as_u64().unwrap()
        + p["draws"].as_u64().unwrap()
        + p["b_wins"].as_u64().unwrap();
    assert_eq!((games, sum), (6, 6));
    for key in ["elo", "elo_error", "los"] {
        assert!(p[key].as_f64().is_some_and(f64::is_finite), "{key}: {p}");
    }
    assert!((0.0..=1.0).contains(&p["los"].as_f64().unwrap()));
    let penta: u64 = p["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .sum();
    assert_eq!(penta, 3);
    assert!(p["faults"].as_object().unwrap().is_empty());
    assert_eq!(run.games.len(), 6);
    for g in &run.games {
        for key in [
            "game", "pair", "x", "o", "opening", "moves", "result", "reason", "fault_by",
            "time_ms", "seed", "board",
        ] {
            assert!(g.get(key).is_some(), "{key} missing in {g}");
        }
        assert!(g["time_ms"]["x"].as_f64().is_some() && g["time_ms"]["o"].as_f64().is_some());
        assert_eq!((&g["seed"], &g["board"]), (&s["seed"], &s["board"]));
        // Left out when the engines wrote nothing outside responses.
        assert!(g.get("skipped").is_none(), "{g}");
        let cells = g["opening"]
            .as_array()
            .unwrap()
            .iter()
            .chain(g["moves"].as_array().unwrap());
        for c in cells {
            let (r, c) = (c[0].as_u64().unwrap(), c[1].as_u64().unwrap());
            assert!((1..=3).contains(&r) && (1..=3).contains(&c));
        }
        let result = g["result"].as_str().unwrap();
        assert_eq!(result == "draw", g["reason"] == "draw", "{g}");
    }
}

#[test]
fn sprt_stops_a_decided_match() {
    let scratch = Scratch::new("sprt");
    let run = referee(
        &scratch,
        &[
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
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    let s = run.summary.unwrap();
    assert_eq!(s["sprt"]["decision"], "h1", "{s}");
    assert!(s["sprt"]["llr"].as_f64().unwrap() >= s["sprt"]["upper_bound"].as_f64().unwrap());
    let games = s["games"].as_u64().unwrap();
    assert!(games < 1000, "{games}");
    assert_eq!(run.games.len() as u64, games);
    assert!(run.stdout.contains("H1 accepted"), "{}", run.stdout);
}

#[test]
fn ctrl_c_stops_reports_what_finished_and_leaves_nothing_behind() {
    let scratch = Scratch::new("ctrlc");
    let slow = fixture("slow", "slow");
    let steady = fixture("steady", "steady");
    let child = start(
        &scratch,
        &[
            "--engine",
            &slow,
            "--engine",
            &steady,
            "--games",
            "5000",
            "--concurrency",
            "2",
            "--seed",
            "9",
        ],
    );
    wait_for_records(&scratch, 4);
    signal(&child, libc::SIGINT);
    let (status, run) = finish(child, &scratch);
    assert_eq!(status.code(), Some(130));
    assert!(run.stdout.contains("INTERRUPTED"), "{}", run.stdout);
    // It says how to play the rest.
    assert!(
        run.stderr
            .contains("of 5000 games; the finished games are in ")
            && run.stderr.contains("run the same command with --resume"),
        "{}",
        run.stderr
    );
    let s = run.summary.as_ref().expect("summary written on Ctrl-C");
    assert_eq!(s["interrupted"], true);
    let games = s["games"].as_u64().unwrap();
    assert!((4..5000).contains(&games), "{games}");
    // Every finished game is recorded once, and only those.
    assert_eq!(run.games.len() as u64, games);
    assert!(
        run.stdout.contains(&format!("{games} of 5000 games")),
        "{}",
        run.stdout
    );
    assert_no_leftovers(&scratch);
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        vec!["--engine", "a='unclosed"],
        vec!["--bots", "random"],
        vec!["--bots", "random,blocking,minimax", "--sprt", "0,10"],
        vec!["--bots", "random,blocking", "--sprt", "10,0"],
        vec!["--bots", "random,genius"],
        vec!["--board", "3x3", "--k", "4"],
        vec!["--games", "0"],
    ] {
        let out = assert_cmd::Command::cargo_bin("referee")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
    // Openings that always decide the game are refused before any game.
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(["--bots", "random,blocking", "--k", "1", "--openings", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(unwrapped(&out.stderr).contains("no opening of 1 random plies"));
}

#[test]
fn the_referee_can_serve_a_built_in_bot_itself() {
    // Used for --bots when no kinrow binary sits next to the referee.
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(["--serve-bot", "blocking"])
        .write_stdin("protocol_version\nnewgame 3 3 3\nmove 1 1\nmove 2 2\nmove 1 2\ngenmove\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "= 2\n\n=\n\n=\n\n=\n\n=\n\n= 1 3\n\n"
    );
}

#[test]
fn a_slow_run_gives_a_rate_that_means_something() {
    // Each fresh process of `late` takes 2 s to start, within the games'
    // time: 2 games take over 2 s, a rate that "0 games/s" or "1 games/s"
    // rounded away.
    let scratch = Scratch::new("slow-rate");
    let late = format!("{} 2", fixture("late", "late_start"));
    let steady = fixture("steady", "steady");
    let args = ["--engine", &steady, "--engine", &late, "--games", "2"];
    let run = referee(&scratch, &[&args[..], &["--concurrency", "1"]].concat());
    assert!(run.output.status.success(), "{}", run.stderr);
    let timing = timing_line(&run.stdout);
    assert!(
        timing.starts_with("2 of 2 games in ") && timing.ends_with(" games/min)"),
        "{timing}"
    );
}
