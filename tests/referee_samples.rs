//! `referee samples`: training samples from a real run's records, in
//! c-gomoku-cli's CSV, binary and LZ4 layouts; records of other games
//! refused.

mod referee_common;
mod skip;

use kinrow::referee::samples::read_lz4_frames;
use referee_common::*;
use std::path::Path;

#[test]
fn a_gomoku_run_gives_every_engine_move_once_in_both_layouts() {
    let s = Scratch::new("samples");
    let games = s.path("games.jsonl");
    let out = referee_cmd(&[
        "--bots",
        "random,blocking",
        "--board",
        "15x15",
        "--k",
        "5",
        "--games",
        "4",
        "--seed",
        "9",
        "--in-process",
        "--quiet",
        "--games-out",
        &text(&games),
    ]);
    assert!(out.status.success(), "{}", unwrapped(&out.stderr));
    let records: Vec<serde_json::Value> = std::fs::read_to_string(&games)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(is_game)
        .collect();
    let moves: usize = records
        .iter()
        .map(|r| r["moves"].as_array().unwrap().len())
        .sum();
    let csv = s.path("samples.csv");
    let out = referee_cmd(&["samples", &text(&games), "--out", &text(&csv)]);
    let err = unwrapped(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("{moves} samples from 4 games")),
        "{err}"
    );
    let lines: Vec<String> = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), moves);
    // The first game's first sample: its opening, its first engine move.
    let first = &records.iter().find(|r| r["game"] == 0).unwrap();
    let cell = |v: &serde_json::Value| {
        let (row, col) = (v[0].as_u64().unwrap(), v[1].as_u64().unwrap());
        format!("{}{row}", char::from(b'a' + col as u8 - 1))
    };
    let opening: String = first["opening"]
        .as_array()
        .unwrap()
        .iter()
        .map(cell)
        .collect();
    let played = cell(&first["moves"][0]);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("{opening},{played},"))),
        "{opening},{played} in {lines:?}"
    );
    for line in &lines {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert!(["0", "1", "2"].contains(&fields[2]), "{line}");
    }
    let bin = s.path("samples.bin");
    let out = referee_cmd(&[
        "samples",
        &text(&games),
        "--out",
        &text(&bin),
        "--format",
        "bin",
    ]);
    assert!(out.status.success());
    // Each sample: 4 bytes of head, 2 per stone before the move.
    let bytes = std::fs::read(&bin).unwrap();
    let mut at = 0;
    let mut count = 0;
    while at < bytes.len() {
        let head = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        assert_eq!(head >> 11, 15, "board size at byte {at}");
        at += 4 + 2 * usize::from((head >> 2) & 0x1ff);
        count += 1;
    }
    assert_eq!((at, count), (bytes.len(), moves));
    // Half the rate, about half the samples, the same on every run.
    let half = s.path("half.csv");
    let args = [
        "samples",
        &text(&games),
        "--out",
        &text(&half),
        "--rate",
        "0.5",
        "--seed",
        "4",
    ];
    assert!(referee_cmd(&args).status.success());
    let once = std::fs::read_to_string(&half).unwrap();
    assert!(referee_cmd(&args).status.success());
    assert_eq!(std::fs::read_to_string(&half).unwrap(), once);
    let n = once.lines().count();
    assert!(n > moves / 4 && n < moves * 3 / 4, "{n} of {moves}");
}

#[test]
fn records_of_other_games_and_bad_values_are_refused() {
    let s = Scratch::new("samples-bad");
    let games = s.path("games.jsonl");
    let out = referee_cmd(&[
        "--bots",
        "random,blocking",
        "--games",
        "2",
        "--quiet",
        "--games-out",
        &text(&games),
    ]);
    assert!(out.status.success());
    let csv = s.path("samples.csv");
    let out = referee_cmd(&["samples", &text(&games), "--out", &text(&csv)]);
    let err = unwrapped(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is of 3x3, 3 in a row, rule free"), "{err}");
    assert!(!csv.exists(), "nothing written");
    for (flag, value) in [("--rate", "0"), ("--rate", "1.5"), ("--format", "npz")] {
        let out = referee_cmd(&["samples", &text(&games), "--out", &text(&csv), flag, value]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        assert!(!csv.exists());
    }
}

/// `--format bin-lz4` (or c-gomoku-cli's `bin_lz4`): the binary layout's
/// bytes in one LZ4 frame, as lz4_flex and the `lz4` tool read them; two
/// such files one after the other read as both.
#[test]
fn the_lz4_layout_is_the_binary_bytes_in_an_lz4_frame() {
    let s = Scratch::new("samples-lz4");
    let games = s.path("games.jsonl");
    let out = referee_cmd(&[
        "--bots",
        "random,blocking",
        "--board",
        "15x15",
        "--k",
        "5",
        "--games",
        "4",
        "--seed",
        "2",
        "--in-process",
        "--quiet",
        "--games-out",
        &text(&games),
    ]);
    assert!(out.status.success(), "{}", unwrapped(&out.stderr));
    let write = |name: &str, format: &str| {
        let path = s.path(name);
        let out = referee_cmd(&[
            "samples",
            &text(&games),
            "--out",
            &text(&path),
            "--format",
            format,
        ]);
        assert!(out.status.success(), "{}", unwrapped(&out.stderr));
        std::fs::read(path).unwrap()
    };
    let bin = write("samples.bin", "bin");
    let lz4 = write("samples.lz4", "bin-lz4");
    assert!(write("samples2.lz4", "bin_lz4") == lz4);
    // One frame: its magic number, smaller than what it holds.
    assert_eq!(&lz4[..4], &[0x04, 0x22, 0x4d, 0x18]);
    assert!(lz4.len() < bin.len() / 2, "{} of {}", lz4.len(), bin.len());
    let mut inflated = Vec::new();
    std::io::Read::read_to_end(
        &mut lz4_flex::frame::FrameDecoder::new(&lz4[..]),
        &mut inflated,
    )
    .unwrap();
    assert!(inflated == bin, "lz4_flex reads the binary bytes back");
    let twice = s.path("twice.lz4");
    std::fs::write(&twice, [&lz4[..], &lz4[..]].concat()).unwrap();
    assert!(
        read_lz4_frames(&std::fs::read(&twice).unwrap()).unwrap() == [&bin[..], &bin[..]].concat()
    );
    let lz4_d = |path: &Path| {
        std::process::Command::new("lz4")
            .args(["-d", "-c"])
            .arg(path)
            .output()
    };
    match lz4_d(&s.path("samples.lz4")) {
        Ok(one) => {
            assert!(one.status.success());
            assert!(one.stdout == bin, "lz4 -d reads the binary bytes back");
            let two = lz4_d(&twice).unwrap();
            assert!(
                two.stdout == [&bin[..], &bin[..]].concat(),
                "and concatenated frames"
            );
        }
        Err(e) => skip::skip_loudly(
            "lz4 -d of referee samples --format bin-lz4",
            &format!("cannot run lz4: {e}"),
            "apt-get install lz4",
        ),
    }
}
