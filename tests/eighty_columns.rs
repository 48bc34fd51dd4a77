//! Every line kinrow prints for people fits in 80 columns: the --help texts,
//! `kinrow play` sessions (menus, boards up to 18 columns, help, refusals,
//! engine faults) and the referee's reports.

use assert_cmd::cargo::cargo_bin_cmd;
use std::time::Duration;

const WIDTH: usize = 80;

/// The lines of `text` wider than 80 columns (escape sequences take none).
fn too_wide(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let mut width = 0;
            let mut chars = l.chars();
            while let Some(c) = chars.next() {
                if c == '\x1b' {
                    chars.by_ref().find(|c| c.is_ascii_alphabetic());
                } else {
                    width += 1;
                }
            }
            width > WIDTH
        })
        .map(|l| format!("{} columns: {l}", l.chars().count()))
        .collect()
}

/// Runs a binary with `args` and `input`; stdout and stderr together.
fn output(bin: &str, args: &[&str], input: &str, columns: Option<&str>) -> String {
    let mut cmd = match bin {
        "referee" => cargo_bin_cmd!("referee"),
        _ => cargo_bin_cmd!("kinrow"),
    };
    cmd.args(args)
        .env_remove("COLUMNS")
        .write_stdin(input)
        .timeout(Duration::from_secs(120));
    if let Some(c) = columns {
        cmd.env("COLUMNS", c);
    }
    let out = cmd.output().expect("runs");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_fits(what: &str, text: &str) {
    let wide = too_wide(text);
    assert!(wide.is_empty(), "{what}: lines over 80 columns:\n{wide:#?}");
}

#[test]
fn help_texts_fit() {
    for (bin, args) in [
        ("kinrow", &["--help"][..]),
        ("kinrow", &["-h"]),
        ("kinrow", &["play", "--help"]),
        ("kinrow", &["play", "-h"]),
        ("kinrow", &["help", "play"]),
        ("kinrow", &["convert", "--help"]),
        ("referee", &["--help"]),
        ("referee", &["-h"]),
    ] {
        for columns in [None, Some("200")] {
            let text = output(bin, args, "", columns);
            assert!(text.contains("Usage:"), "{text}");
            assert_fits(&format!("{bin} {args:?} (COLUMNS {columns:?})"), &text);
        }
    }
}

fn fixture(file: &str) -> String {
    format!(
        "python3 {}/tests/fixtures/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn play_sessions_fit() {
    let dies = format!("{} dies", fixture("play_engine.py"));
    let escapes = format!("{} escapes", fixture("play_engine.py"));
    let sessions: Vec<(Vec<&str>, &str)> = vec![
        // The menu, to a custom board.
        (vec![], "1\n2\nminimax\n1\n8\n7\n6\n9\n4\n2\nq\nn\n"),
        // Renju from the menu: forbidden cells shown and one refused.
        (
            vec![],
            "1\n1\n6\n8 8\n1 1\n8 9\n1 3\n9 7\n15 15\n10 7\n15 13\n8 7\nq\nn\n",
        ),
        // A custom renju board with K 4: refused in words.
        (vec![], "1\n1\n8\n9\n9\n4\n3\nq\n"),
        // Tic-tac-toe: the help, every kind of refusal, an undo.
        (
            vec!["--o", "minimax", "--seed", "1"],
            "h\n\nabc\n0\n10\n1 2 3\n4 1\nu\n5\n5\n1\n3\nu\n7\n8\nq\nn\n",
        ),
        // Gomoku on 16x16 against a bot, with a refusal and the help.
        (
            vec!["--board", "16x16", "--o", "random", "--seed", "2"],
            "8 8\n99 1\nh\n8 9\nq\nn\n",
        ),
        // Two bots on the widest board that fits (18 columns).
        (
            vec!["--board", "18x18", "--x", "random", "--o", "random"],
            "n\n",
        ),
        // Engines that fail, with long messages.
        (vec!["--o-engine", &dies], "2 2\n3 3\ny\n2 2\nn\n"),
        (vec!["--o-engine", &escapes], "2 2\nn\n"),
        (
            vec![
                "--o-engine",
                "/nonexistent/engine --with a long --list of arguments",
            ],
            "",
        ),
    ];
    for (args, input) in &sessions {
        let mut all = vec!["play"];
        all.extend(args);
        let text = output("kinrow", &all, input, None);
        assert_fits(&format!("kinrow {all:?}"), &text);
    }
}

#[test]
fn referee_reports_fit() {
    let garbage = format!(
        "an-engine-with-a-name-long-enough-to-push-every-table-wide={}",
        fixture("garbage.py")
    );
    for args in [
        &["--seed", "1", "--quiet"][..],
        &[
            "--engine",
            &garbage,
            "--bots",
            "random,blocking,minimax",
            "--games",
            "2",
            "--quiet",
        ],
        &[
            "--bots",
            "blocking,random",
            "--sprt",
            "0,100",
            "--games",
            "1000",
            "--quiet",
        ],
    ] {
        let text = output("referee", args, "", None);
        assert!(text.contains("Elo"), "{text}");
        assert_fits(&format!("referee {args:?}"), &text);
    }
}
