//! Records other programs open: `kinrow convert` over a real referee run's
//! `--games-out`, `kinrow play` saving the game just played; every SGF file
//! checked against the FF[4] grammar and every file read back and replayed
//! move by move against the JSON record.

mod referee_common;

use assert_cmd::Command;
use kinrow::records::{psq, sgf, Ending, RecordedGame};
use kinrow::rules::{Cell, Player, Rule};
use referee_common::{record_moves, referee, Scratch};
use serde_json::Value;
use std::path::Path;

fn kinrow() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
}

/// Checks the games of a run's records against the files in `dir`.
pub fn check_records_against(games: &[Value], dir: &Path, rule: Rule, k: u32) {
    for game in games {
        let index = game["game"].as_u64().unwrap() as usize;
        let (x, o) = (game["x"].as_str().unwrap(), game["o"].as_str().unwrap());
        let stem = RecordedGame::file_stem(index, x, o);
        let want = record_moves(game);
        let sgf_text = std::fs::read_to_string(dir.join(format!("{stem}.sgf"))).unwrap();
        sgf::parse(&sgf_text).unwrap_or_else(|e| panic!("{stem}: {e}\n{sgf_text}"));
        let from_sgf = sgf::read(&sgf_text).unwrap();
        assert_eq!(from_sgf.moves, want, "{stem}");
        assert_eq!((from_sgf.x.as_str(), from_sgf.o.as_str()), (x, o));
        assert_eq!(from_sgf.geometry.rule(), rule);
        let ending = match (
            game["result"].as_str().unwrap(),
            game["reason"].as_str().unwrap(),
        ) {
            ("x", "win") => Ending::Win(Player::X),
            ("o", "win") => Ending::Win(Player::O),
            (_, "draw") => Ending::Draw,
            (r, reason) => panic!("a fault in a clean run: {r} {reason}"),
        };
        assert_eq!(from_sgf.ending, ending, "{stem}");
        let psq_text = std::fs::read_to_string(dir.join(format!("{stem}.psq"))).unwrap();
        let from_psq = psq::read(&psq_text, k, rule).unwrap();
        assert_eq!(from_psq.moves, want, "{stem}");
        assert_eq!(from_psq.ending, ending, "{stem}");
    }
}

#[test]
fn convert_turns_a_runs_records_into_sgf_and_psq() {
    let scratch = Scratch::new("records-convert");
    let run = referee(
        &scratch,
        &[
            "--bots",
            "random,blocking",
            "--board",
            "9x12",
            "--k",
            "4",
            "--rule",
            "exact",
            "--games",
            "6",
            "--seed",
            "5",
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    let games_out = scratch.path("games.jsonl");
    let dir = scratch.path("records");
    for to in ["sgf", "psq"] {
        let out = kinrow()
            .args(["convert", games_out.to_str().unwrap(), "--to", to, "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(&format!("wrote 6 {to} files")), "{said}");
    }
    assert_eq!(run.games.len(), 6);
    check_records_against(&run.games, &dir, Rule::Exact, 4);
    let one = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text =
        std::fs::read_to_string(dir.join(one.with_extension("sgf").file_name().unwrap())).unwrap();
    assert!(text.contains("SZ[12:9]RU[k4 exact]"), "{text}");

    // Bad input: a missing file, a bad format.
    let out = kinrow()
        .args(["convert", "/nonexistent.jsonl", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let out = kinrow()
        .args([
            "convert",
            games_out.to_str().unwrap(),
            "--to",
            "pgn",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn play_saves_the_game_just_played() {
    let scratch = Scratch::new("records-play");
    let sgf_path = scratch.path("won.sgf");
    let psq_path = scratch.path("won.psq");
    // X (a person) takes the top row against O (a person) on 3x3, then
    // saves the game twice, refuses a bad name and an existing file.
    let input = format!(
        "1 1\n2 1\n1 2\n2 2\n1 3\nw\n{}\nw\n{}\nw\ngame.txt\nw\n{}\nn\n",
        sgf_path.display(),
        psq_path.display(),
        sgf_path.display()
    );
    let out = kinrow()
        .args(["play", "--x", "human", "--o", "human"])
        .write_stdin(input)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!("Saved to {}.", sgf_path.display())),
        "{text}"
    );
    assert!(
        text.contains("Not saved: the name must end in .sgf or .psq."),
        "{text}"
    );
    assert!(
        text.contains("Not saved: ") && text.contains("exists"),
        "{text}"
    );
    let want: Vec<Cell> = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]
        .iter()
        .map(|&(r, c)| Cell::new(r, c))
        .collect();
    let game = sgf::read(&std::fs::read_to_string(&sgf_path).unwrap()).unwrap();
    assert_eq!(game.moves, want);
    assert_eq!(game.ending, Ending::Win(Player::X));
    assert_eq!((game.x.as_str(), game.o.as_str()), ("player 1", "player 2"));
    let game = psq::read(&std::fs::read_to_string(&psq_path).unwrap(), 3, Rule::Free).unwrap();
    assert_eq!(game.moves, want);
    assert_eq!(game.ending, Ending::Win(Player::X));
}

#[test]
fn convert_refuses_a_result_the_moves_contradict_and_keeps_every_game() {
    let scratch = Scratch::new("records-convert-lies");
    let run = referee(
        &scratch,
        &["--bots", "random,blocking", "--games", "4", "--seed", "3"],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    let text = std::fs::read_to_string(scratch.path("games.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let first_game = lines
        .iter()
        .position(|l| serde_json::from_str::<Value>(l).unwrap()["game"].is_u64())
        .expect("a game record");
    let convert = |file: &Path, dir: &Path| {
        kinrow()
            .args(["convert", file.to_str().unwrap(), "--out"])
            .arg(dir)
            .output()
            .unwrap()
    };

    // One game's record twice (a file put together by hand, two runs
    // concatenated): two files, neither overwriting the other.
    let twice = scratch.path("twice.jsonl");
    let mut with_copy = lines.clone();
    with_copy.push(lines[first_game]);
    std::fs::write(&twice, with_copy.join("\n") + "\n").unwrap();
    let dir = scratch.path("twice");
    let out = convert(&twice, &dir);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("wrote 5 sgf files"), "{said}");
    let game: Value = serde_json::from_str(lines[first_game]).unwrap();
    let stem = RecordedGame::file_stem(
        game["game"].as_u64().unwrap() as usize,
        game["x"].as_str().unwrap(),
        game["o"].as_str().unwrap(),
    );
    assert!(said.contains(&format!("written as {stem}-2.sgf")), "{said}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 5);
    assert_eq!(
        std::fs::read(dir.join(format!("{stem}.sgf"))).unwrap(),
        std::fs::read(dir.join(format!("{stem}-2.sgf"))).unwrap()
    );

    // A win given to the other side, and a draw claimed for a win: refused
    // with the line, and nothing written.
    let won = lines
        .iter()
        .position(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["reason"] == "win"
        })
        .expect("a won game in four");
    let mut record: Value = serde_json::from_str(lines[won]).unwrap();
    let winner = record["result"].as_str().unwrap().to_string();
    let (says, other) = if winner == "x" {
        ("O", "o")
    } else {
        ("X", "x")
    };
    for (result, reason, message) in [
        (
            other,
            "win",
            format!(
                "the record says a win for {says}, but its moves make a win for {}",
                winner.to_uppercase()
            ),
        ),
        (
            "draw",
            "draw",
            format!(
                "the record says a draw, but its moves make a win for {}",
                winner.to_uppercase()
            ),
        ),
    ] {
        record["result"] = result.into();
        record["reason"] = reason.into();
        let mut lying = lines.clone();
        let line = serde_json::to_string(&record).unwrap();
        lying[won] = &line;
        let file = scratch.path("lying.jsonl");
        std::fs::write(&file, lying.join("\n") + "\n").unwrap();
        let dir = scratch.path("lying");
        let out = convert(&file, &dir);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{said}");
        assert!(said.contains(&message), "{said}");
        assert!(said.contains(&format!("line {}", won + 1)), "{said}");
        assert!(!dir.exists(), "nothing is written");
    }
}
