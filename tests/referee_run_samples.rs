//! `referee --samples`: training samples written during a run are those
//! `referee samples` makes of the run's records, in every layout, at any
//! concurrency, with or without processes; across `--resume` (a killed
//! session's open LZ4 frame closed, a half line cut) and `--shard` (files
//! that concatenate); a board the layouts can't hold refused before any
//! game.

mod referee_common;
mod skip;

use kinrow::referee::samples::read_lz4_frames;
use referee_common::*;
use std::path::Path;

/// A small gomoku match of built-in bots.
const GOMOKU: [&str; 9] = [
    "--bots",
    "random,blocking",
    "--board",
    "15x15",
    "--k",
    "5",
    "--games",
    "6",
    "--quiet",
];

/// Runs the referee; fails the test unless it succeeds.
fn run_ok(args: &[&str]) -> String {
    let out = referee_cmd(args);
    let err = unwrapped(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    err
}

/// What `referee samples FILES --format FORMAT` writes (with its defaults
/// otherwise, or `rate`), read back.
fn samples_of(records: &[&Path], format: &str, rate: &str, scratch: &Scratch) -> Vec<u8> {
    let out = scratch.path(&format!("made-{format}-{rate}"));
    let mut args = vec!["samples".to_string()];
    args.extend(records.iter().map(|p| text(p)));
    args.extend(["--out".into(), text(&out), "--format".into(), format.into()]);
    args.extend(["--rate".into(), rate.into()]);
    run_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    std::fs::read(out).unwrap()
}

/// The samples of a binary file, one by one (4-byte head, 2 bytes a
/// stone).
fn bin_records(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let head = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let end = at + 4 + 2 * usize::from((head >> 2) & 0x1ff);
        out.push(bytes[at..end].to_vec());
        at = end;
    }
    assert_eq!(at, bytes.len());
    out
}

/// `lz4 -d` of a file, or `None` (said loudly) without the tool.
fn lz4_cli(path: &Path, what: &str) -> Option<Vec<u8>> {
    match std::process::Command::new("lz4")
        .args(["-d", "-c"])
        .arg(path)
        .output()
    {
        Ok(out) => {
            assert!(out.status.success(), "lz4 -d {}", unwrapped(&out.stderr));
            Some(out.stdout)
        }
        Err(e) => {
            skip::skip_loudly(what, &format!("cannot run lz4: {e}"), "apt-get install lz4");
            None
        }
    }
}

#[test]
fn a_run_writes_the_samples_referee_samples_makes_of_its_records() {
    let s = Scratch::new("run-samples");
    let games = s.path("games.jsonl");
    let (csv, bin, lz4) = (s.path("s.csv"), s.path("s.bin"), s.path("s.lz4"));
    let json = s.path("summary.json");
    for (file, seed) in [(&csv, "3"), (&bin, "3"), (&lz4, "3")] {
        let _ = std::fs::remove_file(&games);
        let mut args = GOMOKU.to_vec();
        let (games, file, json) = (text(&games), text(file), text(&json));
        args.extend(["--seed", seed, "--concurrency", "1", "--in-process"]);
        args.extend(["--games-out", &games, "--json", &json]);
        args.extend(["--samples", &file, "--sample-rate", "0.5"]);
        let err = run_ok(&args);
        assert!(err.contains(" samples from 6 games into "), "{err}");
    }
    let made = |format| samples_of(&[&games], format, "0.5", &s);
    // The format from the extension; byte for byte at concurrency 1.
    assert!(std::fs::read(&csv).unwrap() == made("csv"));
    let bin_bytes = made("bin");
    assert!(std::fs::read(&bin).unwrap() == bin_bytes);
    assert!(!bin_bytes.is_empty());
    let lz4_bytes = std::fs::read(&lz4).unwrap();
    assert_eq!(&lz4_bytes[..4], &[0x04, 0x22, 0x4d, 0x18], "an LZ4 frame");
    assert!(read_lz4_frames(&lz4_bytes).unwrap() == bin_bytes);
    if let Some(d) = lz4_cli(&lz4, "lz4 -d of a run's --samples") {
        assert!(d == bin_bytes);
    }
    // The summary says where they went and how many (the last run's).
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let n = bin_records(&bin_bytes).len();
    assert_eq!(
        summary["samples"],
        serde_json::json!({"file": text(&lz4), "format": "bin-lz4", "rate": 0.5,
            "games": 6, "samples": n})
    );
}

#[test]
fn at_concurrency_2_with_processes_the_samples_are_the_same_multiset() {
    let s = Scratch::new("run-samples-procs");
    let games = s.path("games.jsonl");
    let (csv, bin) = (s.path("s.csv"), s.path("s.data"));
    for (file, format) in [(&csv, None), (&bin, Some("bin"))] {
        let _ = std::fs::remove_file(&games);
        let mut args = GOMOKU.to_vec();
        let (games, file) = (text(&games), text(file));
        args.extend(["--seed", "4", "--concurrency", "2", "--games-out", &games]);
        args.extend(["--samples", &file]);
        if let Some(f) = format {
            args.extend(["--sample-format", f]);
        }
        run_ok(&args);
    }
    let sorted = |mut v: Vec<Vec<u8>>| {
        v.sort();
        v
    };
    let lines = |b: &[u8]| sorted(b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect());
    let written = std::fs::read(&csv).unwrap();
    assert!(!written.is_empty());
    assert_eq!(
        lines(&written),
        lines(&samples_of(&[&games], "csv", "1", &s))
    );
    let written = bin_records(&std::fs::read(&bin).unwrap());
    let made = bin_records(&samples_of(&[&games], "bin", "1", &s));
    assert_eq!(sorted(written), sorted(made));
}

#[test]
fn a_resumed_run_closes_the_open_frame_and_appends_each_game_once() {
    let s = Scratch::new("run-samples-resume");
    let full = s.path("full.jsonl");
    let base = [
        &GOMOKU[..],
        &["--seed", "6", "--concurrency", "1", "--in-process"],
    ]
    .concat();
    for (samples, format) in [("full.csv", "csv"), ("full.lz4", "bin-lz4")] {
        let _ = std::fs::remove_file(&full);
        let (full, samples) = (text(&full), text(&s.path(samples)));
        let args = [&base[..], &["--games-out", &full, "--samples", &samples]].concat();
        run_ok(&args);
        // Killed after its third game: the run line and three records,
        // and the samples of those three as that session left them.
        let cut = s.path(&format!("cut-{format}.jsonl"));
        let records = std::fs::read_to_string(&full).unwrap();
        let kept: Vec<&str> = records.lines().take(4).collect();
        std::fs::write(&cut, kept.join("\n") + "\n").unwrap();
        let mut left = samples_of(&[&cut], format, "1", &s);
        match format {
            // A killed session's frame: whole blocks, no end mark.
            "bin-lz4" => left.truncate(left.len() - 4),
            // A write cut short: half a line.
            _ => left.extend_from_slice(b"h8i9h"),
        }
        let cut_samples = s.path(&format!("cut.{}", &samples[samples.len() - 3..]));
        std::fs::write(&cut_samples, &left).unwrap();
        let (cut_text, cut_samples_text) = (text(&cut), text(&cut_samples));
        let args = [
            &base[..],
            &["--games-out", &cut_text, "--samples", &cut_samples_text],
            &["--resume"],
        ]
        .concat();
        let err = run_ok(&args);
        assert!(err.contains("3 of 6 games already played"), "{err}");
        assert!(err.contains(" from 3 games into "), "{err}");
        let after = std::fs::read(&cut_samples).unwrap();
        let whole = std::fs::read(&samples).unwrap();
        if format == "bin-lz4" {
            assert!(
                err.contains("ended the LZ4 frame the stopped run left open"),
                "{err}"
            );
            // Two frames now, reading as the uninterrupted run's one.
            assert!(read_lz4_frames(&after).unwrap() == read_lz4_frames(&whole).unwrap());
            if let Some(d) = lz4_cli(&cut_samples, "lz4 -d of a resumed run's --samples") {
                assert!(d == read_lz4_frames(&whole).unwrap());
            }
        } else {
            assert!(err.contains("removed an unfinished last sample"), "{err}");
            assert!(after == whole);
        }
    }
}

#[test]
fn shards_files_concatenate_into_the_runs_samples() {
    let s = Scratch::new("run-samples-shards");
    let base = [
        &GOMOKU[..],
        &["--seed", "8", "--concurrency", "1", "--in-process"],
    ]
    .concat();
    let mut frames = Vec::new();
    let mut records = Vec::new();
    for shard in ["1/2", "2/2"] {
        let i = &shard[..1];
        let (games, samples) = (s.path(&format!("g{i}.jsonl")), s.path(&format!("s{i}.lz4")));
        let (g, f) = (text(&games), text(&samples));
        run_ok(
            &[
                &base[..],
                &["--shard", shard, "--games-out", &g, "--samples", &f],
            ]
            .concat(),
        );
        frames.extend(std::fs::read(&samples).unwrap());
        records.push(games);
    }
    let all = s.path("all.lz4");
    std::fs::write(&all, &frames).unwrap();
    let records: Vec<&Path> = records.iter().map(|p| p.as_path()).collect();
    let made = samples_of(&records, "bin", "1", &s);
    assert!(!made.is_empty());
    assert!(read_lz4_frames(&frames).unwrap() == made);
    if let Some(d) = lz4_cli(&all, "lz4 -d of shards' --samples concatenated") {
        assert!(d == made);
    }
}

#[test]
fn samples_of_a_board_the_layouts_cannot_hold_are_refused_before_any_game() {
    let s = Scratch::new("run-samples-refused");
    let (games, samples) = (s.path("games.jsonl"), s.path("s.csv"));
    let (g, f) = (text(&games), text(&samples));
    let refused = |args: &[&str], expected: &str| {
        let out = referee_cmd(args);
        let err = unwrapped(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{err}");
        assert!(!games.exists() && !samples.exists(), "nothing played");
    };
    let tic_tac_toe = [
        "--bots",
        "random,blocking",
        "--games-out",
        &g,
        "--samples",
        &f,
    ];
    refused(
        &tic_tac_toe,
        "--samples: the run's board is of 3x3, 3 in a row, rule free: c-gomoku-cli's samples \
         are of gomoku (square boards of 5 to 22 lines, five in a row, rule free, exact or renju)",
    );
    let caro = [
        &GOMOKU[..],
        &["--rule", "caro", "--games-out", &g, "--samples", &f],
    ]
    .concat();
    refused(&caro, "rule caro: c-gomoku-cli's samples are of gomoku");
    let wide = [
        "--bots",
        "random,blocking",
        "--board",
        "15x16",
        "--k",
        "5",
        "--samples",
        &f,
    ];
    refused(&wide, "is of 15x16");
    let gomoku = [&GOMOKU[..], &["--games-out", &g, "--samples", &f]].concat();
    for (flag, value, expected) in [
        ("--sample-rate", "0", "'0' is not a chance in (0, 1]"),
        ("--sample-format", "npz", "'npz' is not a sample format"),
    ] {
        refused(&[&gomoku[..], &[flag, value]].concat(), expected);
        let without = ["--bots", "random,blocking", flag, value];
        let out = referee_cmd(&without);
        assert_eq!(out.status.code(), Some(2), "{flag} without --samples");
    }
}

/// /dev/full opens, and every write to it fails (a full disk): said at
/// once, the games still played and reported, the missing samples counted
/// at the end, exit status 1.
#[test]
fn samples_that_cannot_be_written_are_said_and_counted_and_the_run_goes_on() {
    for format in ["csv", "bin-lz4"] {
        let args = [
            &GOMOKU[..],
            &["--seed", "2", "--in-process", "--samples", "/dev/full"],
        ];
        let out = referee_cmd(&[&args.concat()[..], &["--sample-format", format]].concat());
        let err = unwrapped(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{format}: {err}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("6 of 6 games"));
        assert!(
            err.contains("referee: cannot write samples to /dev/full: No space left on device"),
            "{err}"
        );
        assert!(
            err.contains("cannot write /dev/full: the samples of 6 games are missing"),
            "{err}"
        );
    }
}
