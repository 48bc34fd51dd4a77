//! `referee ratings FILE…` through the real binary: one list from runs,
//! shards and resumed sessions alike, each game counted once, and bad
//! input refused with a clear error and nothing written.

mod referee_common;

use referee_common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A run of `bots` on 3x3 into `out`, with `extra` flags.
fn play(bots: &str, games: &str, out: &Path, extra: &[&str]) {
    let out = text(out);
    let mut args = vec![
        "--bots",
        bots,
        "--games",
        games,
        "--seed",
        "3",
        "--quiet",
        "--games-out",
        &out,
    ];
    args.extend(extra);
    let output = referee_cmd(&args);
    assert!(output.status.success(), "{}", unwrapped(&output.stderr));
}

/// `referee ratings FILES --json J`: the output and the list.
fn ratings(files: &[PathBuf], extra: &[&str], json: &Path) -> (Output, Option<Value>) {
    let _ = std::fs::remove_file(json);
    let mut args: Vec<String> = vec!["ratings".into()];
    args.extend(files.iter().map(|f| text(f)));
    args.extend(["--json".into(), text(json)]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = referee_cmd(&args);
    let list = std::fs::read_to_string(json)
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    (output, list)
}

#[test]
fn runs_shards_and_sessions_make_one_list() {
    let s = Scratch::new("ratings-runs");
    // Run one: three bots in one file. Run two: two of them and mcts, in
    // two shards played in process, and merged.
    let one = s.path("one.jsonl");
    play("random,blocking,minimax", "20", &one, &[]);
    let shards: Vec<PathBuf> = ["1/2", "2/2"]
        .iter()
        .enumerate()
        .map(|(i, shard)| {
            let path = s.path(&format!("shard{i}.jsonl"));
            play(
                "blocking,minimax,mcts",
                "10",
                &path,
                &["--shard", shard, "--in-process"],
            );
            path
        })
        .collect();
    let merged = s.path("merged.jsonl");
    let mut merge_args = vec!["merge".to_string()];
    merge_args.extend(shards.iter().map(|p| text(p)));
    merge_args.extend(["--games-out".into(), text(&merged)]);
    let merge_args: Vec<&str> = merge_args.iter().map(String::as_str).collect();
    assert!(referee_cmd(&merge_args).status.success());

    let json = s.path("list.json");
    let all = [vec![one.clone()], shards.clone()].concat();
    let (output, by_shards) = ratings(&all, &[], &json);
    assert!(output.status.success(), "{}", unwrapped(&output.stderr));
    let by_shards = by_shards.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("Ratings of 90 games from 3 files"),
        "{stdout}"
    );
    for name in ["random", "blocking", "minimax", "mcts"] {
        assert!(stdout.contains(name), "{stdout}");
    }
    assert_eq!(by_shards["games"], 90);
    let engines = by_shards["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 4);
    let mean: f64 = engines
        .iter()
        .map(|e| e["rating"].as_f64().unwrap())
        .sum::<f64>()
        / 4.0;
    assert!(mean.abs() < 1e-6, "{by_shards}");
    let last = engines.last().unwrap();
    assert_eq!(last["name"], "random", "{by_shards}");
    assert!(last["los_next"].is_null());
    let (output, by_merged) = ratings(&[one.clone(), merged.clone()], &[], &json);
    assert!(output.status.success());
    assert_eq!(by_merged.unwrap()["engines"], by_shards["engines"]);

    // A merged file beside its shards counts its games twice: refused.
    let (output, list) = ratings(
        &[one.clone(), merged.clone(), shards[0].clone()],
        &[],
        &json,
    );
    let err = unwrapped(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("a merged file beside its shards"), "{err}");
    assert!(list.is_none(), "nothing written");

    // A run grown by --resume: two sessions in one file, every game once.
    let grown = s.path("grown.jsonl");
    play("random,blocking,minimax", "10", &grown, &[]);
    play("random,blocking,minimax", "20", &grown, &["--resume"]);
    let (output, list) = ratings(&[grown], &["--anchor", "random=1000"], &json);
    assert!(output.status.success(), "{}", unwrapped(&output.stderr));
    let list = list.unwrap();
    assert_eq!(list["games"], 60);
    let random = list["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "random");
    assert_eq!(random.unwrap()["rating"], 1000.0);
    assert_eq!(random.unwrap()["error"], 0.0);
}

#[test]
fn bad_input_is_refused_and_nothing_written() {
    let s = Scratch::new("ratings-bad");
    let one = s.path("one.jsonl");
    play("random,blocking,minimax", "20", &one, &[]);
    let json = s.path("list.json");
    let cases: [(&[&str], i32, &str); 3] = [
        (&["--anchor", "=5"], 2, "needs an engine's name"),
        (&["--anchor", "random=x"], 2, "not a rating"),
        (
            &["--anchor", "nobody"],
            1,
            "the anchor 'nobody' is not an engine",
        ),
    ];
    for (extra, code, says) in cases {
        let (output, list) = ratings(std::slice::from_ref(&one), extra, &json);
        let err = unwrapped(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
        assert!(list.is_none());
    }
    let notes = s.path("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    for (file, says) in [
        (s.path("missing.jsonl"), "cannot read"),
        (notes, "line 1 is not a game record"),
    ] {
        let (output, list) = ratings(&[file], &[], &json);
        let err = unwrapped(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(list.is_none());
    }
    // The JSON may not overwrite an input.
    let output = referee_cmd(&["ratings", &text(&one), "--json", &text(&one)]);
    assert_eq!(output.status.code(), Some(1));
    assert!(std::fs::read_to_string(&one).unwrap().contains("\"game\""));
    let output = referee_cmd(&["ratings"]);
    assert_eq!(output.status.code(), Some(2));
}
