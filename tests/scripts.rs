//! The scripts in scripts/ run end to end: the shell ones against the built
//! `kinrow`, the gauntlet's table and the losing moves' suite on records
//! made for the purpose.

use assert_cmd::Command;
use kinrow::rules::{Board, Cell, Geometry, Outcome, Rule};
use std::ffi::OsStr;

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

/// Runs `python3 scripts/SCRIPT ARGS...` and gives its standard output;
/// the test fails with its standard error if it fails.
fn run_script(script: &str, args: &[&OsStr]) -> String {
    let out = Command::new("python3")
        .arg(format!("{}/scripts/{script}", env!("CARGO_MANIFEST_DIR")))
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The gauntlet's table: a run of minimax against an opponent, and the
/// opponent against itself as the reference that says how even the openings
/// are in play. By hand: minimax scores 1.5 of 4 (Elo -400 log10(1/0.375 - 1)
/// = -89), one loss on time, a peak of 40.1 MiB; X scores 3 of 4 in the reference, so minimax's
/// 1 of 2 as X is elo(0.5) - elo(0.75) = -191 and its 0.5 of 2 as O is +0.
/// By opening (games 0 and 1 share one, 2 and 3 another): the deviations
/// from 0.375 sum to +0.25 and -0.25, so the mean's variance is
/// 2 * 0.0625 / 16 and its standard deviation 0.0884; the score's 95 %
/// interval 0.2017..0.5483 is Elo -239.0..+33.7, a half-width of 136.
#[test]
fn gauntlet_table_reads_each_colour_against_the_reference() {
    let dir = std::env::temp_dir().join(format!("kinrow-gauntlet-table-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let game = |n: u32, x: &str, o: &str, result: &str, reason: &str, fault: &str| {
        format!(
            r#"{{"game":{n},"x":"{x}","o":"{o}","opening":[[{row},1]],"result":"{result}","reason":"{reason}","fault_by":{fault}}}"#,
            row = n / 2 + 1
        )
    };
    // Peaks: minimax's largest is 40.1 (as X in game 3), rapfi's 120.
    let peaks = |record: String, x: f64, o: f64| {
        record.replace('}', &format!(r#","peak_mib":{{"x":{x},"o":{o}}}}}"#))
    };
    let run = [
        r#"{"schema":3,"run":"r"}"#.to_string(),
        game(0, "rapfi", "minimax", "x", "win", "null"),
        peaks(game(1, "minimax", "rapfi", "x", "win", "null"), 35.3, 120.0),
        game(2, "rapfi", "minimax", "draw", "full", "null"),
        peaks(
            game(3, "minimax", "rapfi", "o", "time", r#""minimax""#),
            40.1,
            99.0,
        ),
    ];
    let reference = [
        game(0, "rapfiA", "rapfiB", "x", "win", "null"),
        game(1, "rapfiB", "rapfiA", "x", "win", "null"),
        game(2, "rapfiA", "rapfiB", "x", "win", "null"),
        game(3, "rapfiB", "rapfiA", "o", "win", "null"),
    ];
    let run_path = dir.join("rapfi-200.jsonl");
    let reference_path = dir.join("rapfi-200-self.jsonl");
    std::fs::write(&run_path, run.join("\n") + "\n").unwrap();
    std::fs::write(&reference_path, reference.join("\n") + "\n").unwrap();
    let out = run_script(
        "gauntlet-table.py",
        &[reference_path.as_os_str(), run_path.as_os_str()],
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        out,
        "| opponent | run | games | +W =D -L | score | Elo (95 %) | ± by opening | as X | as O | lost on time | illegal | peak MiB |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n\
         | rapfi | rapfi-200 | 4 | +1 =1 -2 | 37.5 % | -89 ± 1111 | ± 136 (2) | 1 of 2 | 0.5 of 2 | 1 | 0 | 40.1 |\n\
         \n\
         | reference | games | X scores | minimax as X, Elo against it | as O |\n\
         |---|---|---|---|---|\n\
         | rapfi-200-self (rapfiA against rapfiB) | 4 | 75.0 % | -191 | +0 |\n"
    );
}

/// The losing moves read from the opponent's claims. In game 0 (minimax is
/// X after an opening of two stones) rapfi's score turns into a win in 9
/// right after minimax's second move, the game's fifth stone: the position
/// before that move is kept. In game 1 rapfi's first claim, a win in 5, is
/// shorter than --min-plies, so the game gives nothing (its later claim is
/// not its first). In game 2 minimax is O and rapfi claims a win in 11
/// right after minimax's first move.
#[test]
fn blunder_suite_extracts_the_moves_after_which_a_win_was_claimed() {
    let dir = std::env::temp_dir().join(format!("kinrow-blunder-suite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = [
        r#"{"schema":3,"run":"r"}"#,
        r#"{"game":0,"x":"minimax","o":"rapfi","opening":[[8,8],[8,9]],"moves":[[7,7],[9,9],[6,6],[5,5],[4,4]],"move_info":[{"score":10},{"score":20},{"score":30},{"score":"win in 9"},null]}"#,
        r#"{"game":1,"x":"minimax","o":"rapfi","opening":[[8,8],[8,9]],"moves":[[7,7],[9,9],[6,6],[5,5]],"move_info":[{"score":10},{"score":"win in 5"},{"score":30},{"score":"win in 9"}]}"#,
        r#"{"game":2,"x":"rapfi","o":"minimax","opening":[[8,8]],"moves":[[7,7],[9,9],[6,6]],"move_info":[{"score":0},{"score":"win in 11"},{"score":0}]}"#,
    ];
    let path = dir.join("games.jsonl");
    std::fs::write(&path, records.join("\n") + "\n").unwrap();
    let args = ["extract", "--claims", "--min-plies", "7"].map(OsStr::new);
    let out = run_script(
        "blunder-suite.py",
        &[&args[..], &[path.as_os_str()]].concat(),
    );
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        out,
        "8 8 8 9 7 7 9 9 | 6 6 | games.jsonl game 0 ply 5, win in 9 claimed\n\
         8 8 | 7 7 | games.jsonl game 2 ply 2, win in 11 claimed\n"
    );
}
