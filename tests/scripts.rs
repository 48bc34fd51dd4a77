//! The shell scripts in scripts/ run end to end against the built `kinrow`.

use assert_cmd::Command;
use kinrow::rules::{Board, Cell, Geometry, Outcome, Rule};

fn pipe_demo(args: &[&str]) -> std::process::Output {
    Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pipe-demo.sh"))
        .args(args)
        .env("KINROW", assert_cmd::cargo::cargo_bin("kinrow"))
        .env("SEED", "11")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("bash runs")
}

#[test]
fn pipe_demo_plays_a_whole_legal_game() {
    for (args, geo) in [
        (&["random", "minimax"][..], Geometry::TIC_TAC_TOE),
        (
            &["blocking", "random", "6", "6", "4", "exact"][..],
            Geometry::new(6, 6, 4, Rule::Exact).unwrap(),
        ),
    ] {
        let out = pipe_demo(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Replay the moves it printed with the rules core.
        let mut board = Board::new(geo);
        for line in text.lines() {
            if let Some((side, cell)) = line.split_once(" plays ") {
                assert_eq!(side, board.to_move().to_string());
                let cell: Cell = cell.parse().unwrap();
                board.try_play(cell).unwrap();
            }
        }
        let outcome = board.outcome().expect("the game was played to the end");
        let result = text
            .lines()
            .find_map(|l| l.strip_prefix("result: "))
            .expect("a result line");
        match outcome {
            Outcome::Draw => assert_eq!(result, "draw"),
            Outcome::Win { winner, .. } => {
                let cells = outcome.to_string();
                let cells = cells.strip_prefix(&format!("win {winner} ")).unwrap();
                assert!(result.starts_with(&format!("{winner} (")), "{result}");
                assert!(result.ends_with(&format!("wins: {cells}")), "{result}");
            }
        }
        // And it printed the final board, one line per row.
        assert!(text.contains(&board.to_string()), "{text}");
    }
}

#[test]
fn pipe_demo_stops_on_a_refused_request() {
    let out = pipe_demo(&["random", "random", "3", "3", "9"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("? unacceptable size"), "{err}");
}
