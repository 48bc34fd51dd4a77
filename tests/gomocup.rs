//! bots/gomocup.py, the adapter for Gomocup (piskvork protocol) brains, with
//! the fixture brain (examples/pbrain-fixture.rs) as the brain: the kinrow side of a
//! transcript, the Gomocup traffic it causes (logged by the brain), whole
//! games through the real referee, and misbehaving brains charged as faults
//! of the adapter's engine.

mod referee_common;

use assert_cmd::Command;
use kinrow::rules::{Board, Cell, Geometry, Rule};
use referee_common::{assert_no_leftovers, fixture_brain, referee, Scratch};
use serde_json::{json, Value};
use std::time::Duration;

const ADAPTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/bots/gomocup.py");

/// Runs the adapter around the fixture brain (with `brain_args`) on `input`;
/// returns its replies without the empty line that ends each. It must exit 0.
fn replies(adapter_args: &[&str], brain_args: &[&str], input: &str) -> Vec<String> {
    let out = Command::new("python3")
        .arg(ADAPTER)
        .args(adapter_args)
        .arg("--")
        .arg(fixture_brain())
        .args(brain_args)
        .write_stdin(input)
        .timeout(Duration::from_secs(20))
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("Traceback"), "{stderr}");
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert!(text.is_empty() || text.ends_with("\n\n"), "{text:?}");
    text.split_terminator("\n\n").map(str::to_string).collect()
}

/// The cell of a `= R C` reply (with or without an id).
fn cell_of(reply: &str) -> Cell {
    reply
        .split_once(' ')
        .filter(|(head, _)| head.starts_with('='))
        .and_then(|(_, rc)| rc.parse().ok())
        .unwrap_or_else(|| panic!("not a move: {reply:?}"))
}

/// `x,y` in Gomocup terms: 0-based, column first.
fn xy(cell: Cell) -> String {
    format!("{},{}", cell.col, cell.row)
}

const INFOS_FREE: [&str; 4] = [
    "INFO timeout_turn 5000",
    "INFO timeout_match 0",
    "INFO game_type 1",
    "INFO rule 0",
];

#[test]
fn a_transcript_and_the_gomocup_traffic_behind_it() {
    let scratch = Scratch::new("gomocup-transcript");
    let log = scratch.path("brain.log").display().to_string();
    let got = replies(
        &[],
        &["--seed", "1", "--log", &log],
        "name\n\
         1 protocol_version\n\
         newgame 15 15 5\n\
         2 move 8 8\n\
         3 genmove\n\
         move 8 8\n\
         move 16 1\n\
         move 1 1\n\
         genmove\n\
         undo\n\
         undo\n\
         genmove\n\
         newgame 15 15 4\n\
         newgame 4 5 5\n\
         genmove\n\
         set movetime 250\n\
         set seed 3\n\
         set bot minimax\n\
         frobnicate\n\
         newgame 10 12 5 exact\n\
         genmove\n\
         4 quit\n\
         name\n",
    );
    assert_eq!(got.len(), 22, "{got:?}");
    assert_eq!(got[..3], ["= fixture-brain", "=1 2", "="]);
    assert_eq!(got[3], "=2");
    assert_eq!(got[5], "? illegal move: 8 8 is occupied");
    assert_eq!(got[6], "? illegal move: 16 1 is off the 15x15 board");
    assert_eq!(got[7], "=");
    assert_eq!(got[9..11], ["=", "="]);
    assert_eq!(
        got[12],
        "? unacceptable size: gomocup brains play five in a row"
    );
    assert_eq!(
        got[13],
        "? unacceptable size: the brain answered RECTSTART 5,4 with \
         'ERROR unsupported size 5x4'"
    );
    assert_eq!(got[15..17], ["=", "="]);
    assert_eq!(got[17], "? invalid option: bot minimax");
    assert_eq!(got[18], "? unknown command: frobnicate");
    assert_eq!(got[19], "=");
    assert_eq!(got[21], "=4", "nothing is read after quit");

    // Every move is legal on our own board: the refused newgames left the
    // 15x15 game as it was, and the last game is on a fresh 10x12 board.
    let mut board = Board::new(Geometry::new(15, 15, 5, Rule::Free).unwrap());
    let play = |board: &mut Board, cell: Cell| {
        board
            .try_play(cell)
            .unwrap_or_else(|e| panic!("{cell}: {e}"));
    };
    let (x1, o1) = ("8 8".parse().unwrap(), cell_of(&got[4]));
    play(&mut board, x1);
    play(&mut board, o1);
    play(&mut board, "1 1".parse().unwrap());
    play(&mut board, cell_of(&got[8]));
    board.undo();
    board.undo();
    let x2 = cell_of(&got[11]);
    play(&mut board, x2);
    play(&mut board, cell_of(&got[14]));
    let mut rect = Board::new(Geometry::new(10, 12, 5, Rule::Exact).unwrap());
    let first = cell_of(&got[20]);
    play(&mut rect, first);

    // What the brain was told, process after process: TURN while it is in
    // step, RESTART + BOARD (its own stones 1) after the undos, a new process
    // for a new shape, BOARD again for a fresh brain in the middle of a game.
    let lines = std::fs::read_to_string(&log).unwrap();
    let mut want = vec!["ABOUT".to_string(), "START 15".to_string()];
    want.extend(INFOS_FREE.map(String::from));
    want.extend(["TURN 7,7".into(), "TURN 0,0".into(), "RESTART".into()]);
    want.extend(INFOS_FREE.map(String::from));
    want.extend([
        "BOARD".into(),
        format!("{},1", xy(x1)),
        format!("{},2", xy(o1)),
        "DONE".into(),
        "END".into(),
        "RECTSTART 5,4".into(),
        "END".into(),
        "START 15".into(),
    ]);
    want.extend(INFOS_FREE.map(String::from));
    want.extend([
        "BOARD".into(),
        format!("{},2", xy(x1)),
        format!("{},1", xy(o1)),
        format!("{},2", xy(x2)),
        "DONE".into(),
        "INFO timeout_turn 250".into(),
        "END".into(),
        "RECTSTART 12,10".into(),
        "INFO timeout_turn 250".into(),
        "INFO timeout_match 0".into(),
        "INFO game_type 1".into(),
        "INFO rule 1".into(),
        "BEGIN".into(),
        "END".into(),
    ]);
    assert_eq!(lines.lines().collect::<Vec<_>>(), want);
}

#[test]
fn self_play_fills_the_game_to_its_end() {
    // The adapter plays both sides: every reply a legal, new cell until the
    // game ends, then `? game over`; the brain sees a TURN for every move.
    let geo = Geometry::new(5, 7, 5, Rule::Free).unwrap();
    let input = format!("newgame 5 7 5\n{}", "genmove\n".repeat(geo.area() + 2));
    let got = replies(&[], &["--seed", "7"], &input);
    assert_eq!(got[0], "=");
    let mut board = Board::new(geo);
    for reply in &got[1..] {
        if board.is_over() {
            assert!(reply.starts_with("? game over"), "{reply}");
        } else {
            board.try_play(cell_of(reply)).unwrap();
        }
    }
    assert!(board.is_over(), "the adapter stopped before the end");
}

#[test]
fn a_brain_without_restart_is_started_again() {
    let scratch = Scratch::new("gomocup-norestart");
    let log = scratch.path("brain.log").display().to_string();
    let got = replies(
        &["--timeout-turn", "900"],
        &["--mode", "norestart", "--log", &log],
        "newgame 15 15 5\nnewgame\ngenmove\nquit\n",
    );
    assert_eq!(got[..2], ["=", "="]);
    cell_of(&got[2]);
    let lines = std::fs::read_to_string(&log).unwrap();
    let starts = lines.lines().filter(|l| *l == "START 15").count();
    assert_eq!(starts, 2, "{lines}");
    assert!(lines.contains("RESTART\nEND\nSTART 15\n"), "{lines}");
    assert!(lines.contains("INFO timeout_turn 900\n"), "{lines}");
}

#[test]
fn a_misbehaving_brain_gets_a_clear_refusal_never_a_crash() {
    let cases = [
        (
            "occupied",
            "the brain played 7,7: illegal move: 8 8 is occupied",
        ),
        (
            "offboard",
            "the brain played 15,15: illegal move: 16 16 is off the 15x15 board",
        ),
        (
            "garbage",
            "the brain answered TURN 7,7 with 'I resign, sort of', not a move x,y",
        ),
        (
            "error",
            "the brain answered TURN 7,7 with 'ERROR too tired to think'",
        ),
        ("die", "the brain exited instead of answering TURN 7,7"),
        ("hang", "the brain did not answer TURN 7,7 in time"),
    ];
    for (mode, message) in cases {
        let got = replies(
            &["--timeout-turn", "100", "--grace", "1500"],
            &["--mode", mode],
            "newgame 15 15 5\nmove 8 8\ngenmove\nmove 1 1\nlegal\nquit\n",
        );
        assert_eq!(got.len(), 6, "{mode}: {got:?}");
        assert_eq!(got[..2], ["=", "="], "{mode}");
        assert_eq!(got[2], format!("? brain error: {message}"), "{mode}");
        // The refusal changed nothing: O is still to move.
        assert_eq!(got[3], "=", "{mode}");
        let legal: Vec<&str> = got[4].trim_start_matches("= ").split(' ').collect();
        let cells: Vec<String> = legal.chunks(2).map(|rc| rc.join(" ")).collect();
        assert_eq!(cells.len(), 15 * 15 - 2, "{mode}: {}", got[4]);
        assert!(!cells.iter().any(|c| c == "8 8" || c == "1 1"), "{mode}");
        assert_eq!(got[5], "=", "{mode}");
    }
}

/// The adapter around the fixture brain, for `--engine`.
fn gomo_engine(brain_args: &str) -> String {
    format!(
        "gomo=python3 {ADAPTER} --timeout-turn 300 --grace 3000 -- {} {brain_args}",
        fixture_brain().display()
    )
}

#[test]
fn whole_games_against_kinrow_through_the_referee() {
    for (board, rule) in [("15x15", "free"), ("9x12", "exact")] {
        let scratch = Scratch::new("gomocup-games");
        let engine = gomo_engine("");
        let run = referee(
            &scratch,
            &[
                "--engine",
                &engine,
                "--bots",
                "random",
                "--board",
                board,
                "--k",
                "5",
                "--rule",
                rule,
                "--games",
                "4",
                "--movetime",
                "200",
                // Two Python processes a move: a loaded machine needs more
                // than the default deadline of movetime + 1 s.
                "--timeout",
                "10000",
                "--seed",
                "11",
            ],
        );
        assert!(run.output.status.success(), "{}", run.stderr);
        let summary = run.summary.expect("a summary");
        assert_eq!(summary["pairings"][0]["games"], 4, "{summary}");
        assert_eq!(summary["pairings"][0]["faults"], json!({}), "{summary}");
        assert_eq!(run.games.len(), 4);
        for game in &run.games {
            assert!(
                ["win", "draw"].contains(&game["reason"].as_str().unwrap()),
                "{game}"
            );
            assert_eq!(game["fault_by"], Value::Null, "{game}");
        }
        assert_no_leftovers(&scratch);
    }
}

#[test]
fn brain_faults_are_charged_to_the_adapters_engine() {
    for mode in ["occupied", "garbage", "die", "hang"] {
        let scratch = Scratch::new("gomocup-faults");
        let engine = gomo_engine(&format!("--mode {mode}"));
        let run = referee(
            &scratch,
            &[
                "--engine", &engine, "--bots", "random", "--board", "15x15", "--k", "5", "--games",
                "2", "--seed", "3",
            ],
        );
        assert!(run.output.status.success(), "{mode}: {}", run.stderr);
        let summary = run.summary.expect("a summary");
        assert_eq!(
            summary["pairings"][0]["faults_by"],
            json!({"gomo": {"refused": 2}}),
            "{mode}: {summary}"
        );
        for game in &run.games {
            assert_eq!(game["fault_by"], "gomo", "{mode}: {game}");
        }
        assert_no_leftovers(&scratch);
    }
}

#[test]
fn the_referee_refuses_to_start_on_a_k_other_than_five() {
    let scratch = Scratch::new("gomocup-k4");
    let engine = gomo_engine("");
    let run = referee(
        &scratch,
        &[
            "--engine", &engine, "--bots", "random", "--board", "15x15", "--k", "4",
        ],
    );
    assert_eq!(run.output.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("refused the board (15x15 k4 free): unacceptable size: gomoc"),
        "{}",
        run.stderr
    );
    assert!(run.games.is_empty());
}
