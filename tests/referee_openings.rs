//! `--openings-file`: openings from a file, in order or shuffled with the
//! seed; bad files stop the run before any game.

mod referee_common;

use referee_common::*;
use serde_json::Value;
use std::path::Path;

/// An opening as the records write it: `[[row, col], …]`.
fn opening(cells: &[(u64, u64)]) -> Value {
    cells
        .iter()
        .map(|&(r, c)| Value::from(vec![r, c]))
        .collect()
}

/// The openings of a file as the records write them (comments and blank
/// lines dropped).
fn book_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let n: Vec<u64> = l.split_whitespace().map(|w| w.parse().unwrap()).collect();
            opening(&n.chunks(2).map(|p| (p[0], p[1])).collect::<Vec<_>>())
        })
        .collect()
}

#[test]
fn rounds_take_the_lines_in_order_and_cycle() {
    let scratch = Scratch::new("book-order");
    let book = scratch.path("book.txt");
    std::fs::write(
        &book,
        "# three openings for 3x3\n\n2 2\n1 1   3 3   # opposite corners\n1 2\n",
    )
    .unwrap();
    let run = referee(
        &scratch,
        &[
            "--bots",
            "random,blocking,minimax",
            "--games",
            "8",
            "--seed",
            "1",
            "--openings-file",
            book.to_str().unwrap(),
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    assert!(
        run.stdout.contains("3 openings from"),
        "{}",
        run.stdout.lines().next().unwrap_or_default()
    );
    let lines = [
        opening(&[(2, 2)]),
        opening(&[(1, 1), (3, 3)]),
        opening(&[(1, 2)]),
    ];
    assert_eq!(run.games.len(), 24);
    // A round is one pair of games for each of the three pairings.
    for g in &run.games {
        let round = g["game"].as_u64().unwrap() as usize / 6;
        assert_eq!(g["opening"], lines[round % 3], "{g}");
    }
}

/// The line (0-based) each round played, from the records.
fn line_per_round(run: &Run, lines: &[Value]) -> Vec<usize> {
    run.games
        .iter()
        .step_by(2)
        .map(|g| lines.iter().position(|l| *l == g["opening"]).unwrap())
        .collect()
}

#[test]
fn random_order_shuffles_the_lines_with_the_seed() {
    let scratch = Scratch::new("book-random");
    let book = scratch.path("book.txt");
    std::fs::write(&book, "1 1\n1 2\n1 3\n2 1\n2 2\n").unwrap();
    let lines = book_lines(&book);
    let play = |seed: &str| {
        let run = referee(
            &scratch,
            &[
                "--bots",
                "random,blocking",
                "--games",
                "20",
                "--seed",
                seed,
                "--openings-file",
                book.to_str().unwrap(),
                "--openings-order",
                "random",
            ],
        );
        assert!(run.output.status.success(), "{}", run.stderr);
        std::fs::remove_file(scratch.path("games.jsonl")).unwrap();
        line_per_round(&run, &lines)
    };
    let order = play("1");
    // Both games of a pair share the opening.
    assert_eq!(order.len(), 10);
    // Every line once in five rounds, then the same cycle again.
    let mut cycle = order[..5].to_vec();
    cycle.sort();
    assert_eq!(cycle, [0, 1, 2, 3, 4]);
    assert_eq!(order[..5], order[5..]);
    assert_ne!(order[..5], [0, 1, 2, 3, 4], "not shuffled");
    assert_eq!(play("1"), order);
    assert_ne!(play("2"), order, "the seed does not change the order");
}

#[test]
fn bad_openings_files_stop_the_run_before_any_game() {
    let scratch = Scratch::new("book-bad");
    let book = scratch.path("book.txt");
    let cases = [
        (
            "2 2\n# fine so far\n4 1\n",
            "line 3: stone 1: 4 1 is off the 3x3 board",
        ),
        ("1 1 1 1\n", "line 1: stone 2: 1 1 is occupied by X"),
        (
            "2 2\n1 1 2 1 1 2 2 2 1 3\n",
            "line 2: stone 5 (1 3) ends the game (win X 1 1 1 2 1 3)",
        ),
        (
            "1 1 2\n",
            "line 1: 3 numbers: expected pairs of row and column",
        ),
        ("1 1\n2 x\n", "line 2: stone 1: 'x' is not a number"),
        (
            "# nothing here\n\n",
            "no openings in the file (only blank lines and comments)",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(&book, text).unwrap();
        let out = assert_cmd::Command::cargo_bin("referee")
            .unwrap()
            .args(["--bots", "random,blocking", "--openings-file"])
            .arg(&book)
            .args(record_args(&scratch))
            .output()
            .unwrap();
        let stderr = unwrapped(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{text:?}: {stderr}");
        assert!(
            stderr.contains(&format!("openings file {}: {expected}", book.display())),
            "{text:?}: expected {expected:?} in\n{stderr}"
        );
        assert!(out.stdout.is_empty());
        assert!(!scratch.path("games.jsonl").exists(), "games were played");
    }
    let out = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(["--bots", "random,blocking", "--openings-file"])
        .arg(scratch.path("no-such-file"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(unwrapped(&out.stderr).contains("cannot read the openings file"));
}

#[test]
fn opening_options_that_clash_are_usage_errors() {
    for args in [
        &["--openings", "2", "--openings-file", "book.txt"][..],
        &["--openings-order", "random"],
        &[
            "--openings-file",
            "book.txt",
            "--openings-order",
            "shuffled",
        ],
    ] {
        let out = assert_cmd::Command::cargo_bin("referee")
            .unwrap()
            .args(["--bots", "random,blocking"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn the_example_book_for_15x15_plays_line_by_line() {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/openings-15x15-k5.txt");
    let lines = book_lines(&book);
    assert_eq!(lines.len(), 8);
    for line in &lines {
        assert_eq!(line.as_array().map(Vec::len), Some(3), "{line}");
    }
    let scratch = Scratch::new("book-15x15");
    let run = referee(
        &scratch,
        &[
            "--bots",
            "random,blocking",
            "--board",
            "15x15",
            "--k",
            "5",
            "--games",
            "16",
            "--seed",
            "1",
            "--openings-file",
            book.to_str().unwrap(),
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    assert_eq!(line_per_round(&run, &lines), (0..8).collect::<Vec<_>>());
    for pair in run.games.chunks(2) {
        assert_eq!(pair[0]["opening"], pair[1]["opening"]);
    }
}
