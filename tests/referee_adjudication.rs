//! Openings in Gomocup's offsets and the `pos` notation, `--openings-transform`,
//! and games ended early (`--draw-after`, `--exact-adjudication`), through the
//! real referee and engines: bad values stop the run before any game, and
//! adjudicated games are recorded, resumed, sharded and merged like any other.

mod referee_common;

use kinrow::rules::{Board, Cell, Geometry, Player, Rule};
use referee_common::*;
use serde_json::Value;

fn openings_of(run: &Run) -> Vec<Value> {
    run.games.iter().map(|g| g["opening"].clone()).collect()
}

fn book(scratch: &Scratch, name: &str, text: &str) -> String {
    let path = scratch.path(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn gomoku(extra: &[&str]) -> Vec<String> {
    on_board("15x15", "5", extra)
}

fn on_board(board: &str, k: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["--bots", "random,blocking", "--board", board, "--k", k]
        .map(String::from)
        .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// A run in `scratch` with its records written afresh.
fn fresh(scratch: &Scratch, args: &[&str]) -> Run {
    let _ = std::fs::remove_file(scratch.path("games.jsonl"));
    let _ = std::fs::remove_file(scratch.path("summary.json"));
    referee(scratch, args)
}

fn as_str(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn run(scratch: &Scratch, args: &[String]) -> Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    fresh(scratch, &args)
}

/// A usage error: exit 2, clap's message naming `words`, no game played.
fn refused(scratch: &Scratch, args: &[String], code: i32, words: &str) {
    let r = run(scratch, args);
    assert_eq!(r.output.status.code(), Some(code), "{args:?}: {}", r.stderr);
    assert!(r.stderr.contains(words), "{args:?}: {}", r.stderr);
    assert!(r.games.is_empty(), "{args:?} played games");
}

#[test]
fn gomocup_offsets_and_pos_lines_are_the_same_openings_as_r_c_lines() {
    let scratch = Scratch::new("adj-notations");
    // c-gomoku-cli's example line, and h8i9j10, on 20x20 and 15x15.
    let offsets = book(&scratch, "offsets.txt", "8,-3, 6,-4, 5,-4\n");
    let rc = book(&scratch, "rc.txt", "8 19 7 17 7 16\n");
    let on_20 = |file: &str| {
        let args = [
            "--bots",
            "random,blocking",
            "--board",
            "20x20",
            "--k",
            "5",
            "--games",
            "2",
            "--seed",
            "4",
            "--openings-file",
            file,
        ];
        fresh(&scratch, &args)
    };
    let a = on_20(&offsets);
    assert!(a.output.status.success(), "{}", a.stderr);
    let b = on_20(&rc);
    assert_eq!(games_without_time(&a), games_without_time(&b));
    assert_eq!(
        a.games[0]["opening"],
        serde_json::json!([[8, 19], [7, 17], [7, 16]])
    );
    let pos = book(&scratch, "pos.txt", "h8i9j10\n");
    let r = run(
        &scratch,
        &gomoku(&["--games", "2", "--openings-file", &pos]),
    );
    assert!(r.output.status.success(), "{}", r.stderr);
    assert_eq!(
        r.games[0]["opening"],
        serde_json::json!([[8, 8], [9, 9], [10, 10]])
    );
}

#[test]
fn bad_or_decided_opening_lines_are_named_and_nothing_is_played() {
    let scratch = Scratch::new("adj-bad-lines");
    let cases = [
        (
            "0,0, 1,1\n0,0, 9,0\n",
            "line 2: stone 2: offset 9,0 is off the 15x15 board (read as Gomocup offsets)",
        ),
        (
            "h8\nh8z1\n",
            "line 2: stone 2: z1 is off the 15x15 board (read as pos notation)",
        ),
        ("h8h8\n", "line 1: stone 2: 8 8 is occupied by X"),
        ("8 8 -1 2\n", "offsets are written with commas"),
        (
            "0,0, 0,-5, 1,0, 1,-5, 2,0, 2,-5, 3,0, 3,-5\n",
            "line 1: already decided: X to move makes 5 in a row at 8 7",
        ),
    ];
    for (text, words) in cases {
        let file = book(&scratch, "bad.txt", text);
        refused(&scratch, &gomoku(&["--openings-file", &file]), 1, words);
    }
    // Renju: Black's forbidden cell in an opening is refused by line.
    let file = book(&scratch, "renju.txt", "h8 a1 i8 a2 h9 a3 i10\n");
    let mut args = gomoku(&["--openings-file", &file, "--rule", "renju"]);
    args.extend(["--games".into(), "2".into()]);
    let r = run(&scratch, &args);
    assert!(
        r.output.status.success(),
        "a legal renju opening: {}",
        r.stderr
    );
    let file = book(&scratch, "renju.txt", "h8 a1 i8 a2 j9 a3 j10 o15 j8\n");
    let args = gomoku(&["--openings-file", &file, "--rule", "renju"]);
    refused(
        &scratch,
        &args,
        1,
        "line 1: stone 9: 8 10 is forbidden to X",
    );
}

#[test]
fn transform_plays_each_pass_through_the_file_in_the_next_symmetry() {
    let scratch = Scratch::new("adj-transform");
    let file = book(&scratch, "two.txt", "1 1 1 2\n2 4 5 5\n");
    // Two lines, eight symmetries: 16 rounds, then the cycle again.
    let square = run(
        &scratch,
        &on_board(
            "7x7",
            "5",
            &[
                "--games",
                "36",
                "--seed",
                "2",
                "--openings-file",
                &file,
                "--openings-transform",
            ],
        ),
    );
    assert!(square.output.status.success(), "{}", square.stderr);
    assert!(
        square.stdout.contains("2 openings from"),
        "{}",
        square.stdout
    );
    assert!(
        square.stdout.contains("each in 8 symmetries"),
        "{}",
        square.stdout
    );
    let rounds: Vec<Value> = openings_of(&square).into_iter().step_by(2).collect();
    // c-gomoku-cli's order on 7x7 (s = 6), stone (row 1, col 1): x 0, y 0.
    let first = |i: usize| rounds[i][0].clone();
    let expected = [
        [1, 1],
        [7, 1],
        [7, 7],
        [1, 7],
        [7, 1],
        [1, 7],
        [1, 1],
        [7, 7],
    ];
    for (pass, rc) in expected.iter().enumerate() {
        assert_eq!(first(2 * pass), serde_json::json!(rc), "pass {pass}");
    }
    assert_eq!(rounds[16], rounds[0]);
    assert_eq!(rounds[17], rounds[1]);
    assert_eq!(rounds[1], serde_json::json!([[2, 4], [5, 5]]));
    // rotate90: (x, y) -> (y, s - x).
    assert_eq!(rounds[3], serde_json::json!([[4, 2], [3, 5]]));
    // A rectangle keeps four: identity, rotate180, flipX, flipY.
    let wide = run(
        &scratch,
        &on_board(
            "5x8",
            "4",
            &[
                "--games",
                "16",
                "--openings-file",
                &file,
                "--openings-transform",
            ],
        ),
    );
    assert!(
        wide.stdout.contains("each in 4 symmetries"),
        "{}",
        wide.stdout
    );
    let rounds: Vec<Value> = openings_of(&wide).into_iter().step_by(2).collect();
    let firsts: Vec<Value> = (0..4).map(|p| rounds[2 * p][0].clone()).collect();
    assert_eq!(
        firsts,
        serde_json::json!([[1, 1], [5, 8], [5, 1], [1, 8]])
            .as_array()
            .unwrap()
            .clone()
    );
    // Without a file there is nothing to transform.
    refused(
        &scratch,
        &gomoku(&["--openings-transform"]),
        2,
        "--openings-file",
    );
}

#[test]
fn bad_adjudication_values_are_refused_before_any_game() {
    let scratch = Scratch::new("adj-bad-values");
    refused(&scratch, &gomoku(&["--draw-after", "0"]), 2, "--draw-after");
    refused(
        &scratch,
        &gomoku(&["--draw-after", "ten"]),
        2,
        "--draw-after",
    );
    refused(
        &scratch,
        &gomoku(&["--draw-after", "1025"]),
        2,
        "--draw-after",
    );
    refused(
        &scratch,
        &gomoku(&["--solver-empties", "10"]),
        2,
        "--exact-adjudication",
    );
    let args = gomoku(&["--exact-adjudication", "--solver-empties", "65"]);
    refused(&scratch, &args, 2, "--solver-empties");
    refused(
        &scratch,
        &gomoku(&["--draw-after", "2"]),
        1,
        "--draw-after 2: an opening of this run has 2 stones already",
    );
}

/// The board after a record's opening and moves.
fn board_of(game: &Value, geometry: Geometry) -> Board {
    let mut board = Board::new(geometry);
    let stones = game["opening"]
        .as_array()
        .unwrap()
        .iter()
        .chain(game["moves"].as_array().unwrap());
    for rc in stones {
        let (r, c) = (rc[0].as_u64().unwrap() as u8, rc[1].as_u64().unwrap() as u8);
        board.try_play(Cell::new(r - 1, c - 1)).unwrap();
    }
    board
}

/// `R C, R C, …` after the last `: ` of a detail.
fn proof_line(detail: &str) -> Vec<Cell> {
    let tail = detail.rsplit(": ").next().unwrap();
    let tail = tail.rsplit("best line ").next().unwrap();
    tail.split(", ")
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<Cell>().unwrap())
        .collect()
}

#[test]
fn draw_after_ends_games_at_that_many_stones_as_adjudicated_draws() {
    let scratch = Scratch::new("adj-draw-after");
    let r = run(
        &scratch,
        &gomoku(&["--games", "6", "--seed", "5", "--draw-after", "12"]),
    );
    assert!(r.output.status.success(), "{}", r.stderr);
    let g = Geometry::new(15, 15, 5, Rule::Free).unwrap();
    let mut ruled = 0;
    for game in &r.games {
        let stones =
            game["opening"].as_array().unwrap().len() + game["moves"].as_array().unwrap().len();
        if game["reason"] == "adjudicated" {
            ruled += 1;
            assert_eq!(stones, 12);
            assert_eq!(game["result"], "draw");
            assert_eq!(game["fault_by"], Value::Null);
            assert_eq!(
                game["detail"],
                "draw-after: 12 stones on the board (--draw-after 12)"
            );
            assert!(!board_of(game, g).is_over());
        } else {
            assert!(stones <= 12);
        }
    }
    assert!(ruled >= 4, "{ruled}");
    let pairing = &r.summary.as_ref().unwrap()["pairings"][0];
    assert_eq!(pairing["adjudicated"]["draw-after"], ruled);
    assert_eq!(pairing["faults"], serde_json::json!({}));
    assert!(
        r.stdout
            .contains(&format!("adjudicated: draw-after {ruled}")),
        "{}",
        r.stdout
    );
    assert_eq!(r.runs[0]["adjudication"], "draw-after 12");
}

#[test]
fn proofs_end_games_with_the_proved_result_and_its_line() {
    let scratch = Scratch::new("adj-proofs");
    let args = gomoku(&["--games", "8", "--seed", "9", "--exact-adjudication"]);
    let processes = run(&scratch, &args);
    assert!(processes.output.status.success(), "{}", processes.stderr);
    let g = Geometry::new(15, 15, 5, Rule::Free).unwrap();
    let mut proofs = 0;
    for game in &processes.games {
        if game["reason"] != "adjudicated" {
            continue;
        }
        proofs += 1;
        let detail = game["detail"].as_str().unwrap();
        assert!(detail.starts_with("proof: "), "{detail}");
        assert_eq!(game["fault_by"], Value::Null);
        // The line, played on the final board, ends in the winner's five.
        let mut board = board_of(game, g);
        let winner = match game["result"].as_str().unwrap() {
            "x" => Player::X,
            _ => Player::O,
        };
        assert!(
            detail.contains(&format!("{winner} to move wins by fours")),
            "{detail}"
        );
        for cell in proof_line(detail) {
            board.try_play(cell).unwrap();
        }
        assert_eq!(
            board.outcome().and_then(|o| o.winner()),
            Some(winner),
            "{detail}"
        );
    }
    assert!(proofs >= 4, "{proofs} proofs");
    // The same games, move for move, in process.
    let mut in_process = args.clone();
    in_process.push("--in-process".into());
    let bots = run(&scratch, &in_process);
    assert_eq!(games_without_time(&bots), games_without_time(&processes));
}

#[test]
fn the_solvers_verdict_is_what_perfect_players_reach_by_playing_out() {
    // 3x3 and 4x4 k3 (a first-player win): minimax plays perfectly there.
    for (board, k) in [("3x3", "3"), ("4x4", "3")] {
        let scratch = Scratch::new("adj-solver");
        let base = [
            "--engine",
            "a=kinrow --bot minimax",
            "--engine",
            "b=kinrow --bot minimax",
            "--board",
            board,
            "--k",
            k,
            "--games",
            "8",
            "--seed",
            "3",
        ];
        let kinrow = assert_cmd::cargo::cargo_bin("kinrow").display().to_string();
        let base: Vec<String> = base
            .iter()
            .map(|s| s.replace("kinrow ", &format!("{kinrow} ")))
            .collect();
        let played = run(&scratch, &base);
        assert!(played.output.status.success(), "{}", played.stderr);
        let mut adjudicated = base.clone();
        adjudicated.push("--exact-adjudication".into());
        let ruled = run(&scratch, &adjudicated);
        assert!(ruled.output.status.success(), "{}", ruled.stderr);
        for (p, r) in played.games.iter().zip(&ruled.games) {
            assert_eq!(r["reason"], "adjudicated", "{r}");
            assert!(
                r["detail"]
                    .as_str()
                    .unwrap()
                    .starts_with("proof: the solver: "),
                "{r}"
            );
            assert_eq!(p["result"], r["result"], "{board}: played {p}, ruled {r}");
            assert!(r["moves"].as_array().unwrap().len() <= p["moves"].as_array().unwrap().len());
        }
    }
}

#[test]
fn adjudicated_runs_resume_shard_and_merge_like_any_other() {
    let whole_dir = Scratch::new("adj-whole");
    let args = gomoku(&[
        "--games",
        "8",
        "--seed",
        "6",
        "--exact-adjudication",
        "--draw-after",
        "30",
        "--in-process",
    ]);
    let whole = run(&whole_dir, &args);
    assert!(whole.output.status.success(), "{}", whole.stderr);
    assert!(whole.games.iter().any(|g| g["reason"] == "adjudicated"));
    // Resumed from half the records: the same games.
    let half_dir = Scratch::new("adj-half");
    let mut half = args.clone();
    let at = half.iter().position(|a| a == "8").unwrap();
    half[at] = "4".into();
    assert!(run(&half_dir, &half).output.status.success());
    let mut resumed = args.clone();
    resumed.push("--resume".into());
    let r = referee(&half_dir, &as_str(&resumed));
    assert!(r.output.status.success(), "{}", r.stderr);
    assert_eq!(games_without_time(&r), games_without_time(&whole));
    // Resuming with other adjudication is another run: refused.
    let mut other = resumed.clone();
    other.retain(|a| a != "--exact-adjudication");
    let refusal = referee(&half_dir, &as_str(&other));
    assert_eq!(refusal.output.status.code(), Some(1), "{}", refusal.stderr);
    assert!(
        refusal.stderr.contains("games ended by"),
        "{}",
        refusal.stderr
    );
    // Two shards merged: the one run.
    let mut files = Vec::new();
    let mut shard_dirs = Vec::new();
    for i in 1..=2 {
        let dir = Scratch::new(&format!("adj-shard-{i}"));
        let mut shard = args.clone();
        shard.extend(["--shard".into(), format!("{i}/2")]);
        assert!(run(&dir, &shard).output.status.success());
        files.push(dir.path("games.jsonl"));
        shard_dirs.push(dir);
    }
    let out = Scratch::new("adj-merged");
    let output = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .arg("merge")
        .args(&files)
        .args(["--json"])
        .arg(out.path("summary.json"))
        .args(["--games-out"])
        .arg(out.path("games.jsonl"))
        .output()
        .unwrap();
    let merged = records(&out, output);
    assert!(merged.output.status.success(), "{}", merged.stderr);
    assert_eq!(games_without_time(&merged), games_without_time(&whole));
    assert_eq!(
        merged.summary.as_ref().unwrap()["pairings"],
        whole.summary.as_ref().unwrap()["pairings"]
    );
}
