//! Gomocup brains driven natively by the referee and `kinrow play`: games
//! between two `pbrain-kinrow` brains and between a kinrow bot and a brain,
//! with their records replayed move by move; the fault matrix with a
//! misbehaving fixture brain; the quirks of real brains (one that drops a
//! command sent too soon, one that talks before it is asked, one that starts
//! slowly, one without RESTART); the match clock.

mod referee_common;

use assert_cmd::Command;
use kinrow::records::{sgf, Ending};
use kinrow::rules::Player;
use referee_common::{assert_no_leftovers, fixture_brain, record_moves, referee, Scratch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// `NAME=gomocup:BRAIN ARGS` for `--engine`, the fixture brain.
fn brain(name: &str, args: &str) -> String {
    format!("{name}=gomocup:{} {args}", fixture_brain().display())
}

/// A `pbrain-kinrow` link to the kinrow binary in `scratch`.
fn pbrain_kinrow(scratch: &Scratch) -> PathBuf {
    let link = scratch.path("pbrain-kinrow");
    if !link.exists() {
        std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin!("kinrow"), &link).unwrap();
    }
    link
}

/// Every game's SGF file in `dir` replays to the game's moves and result.
fn check_sgf(games: &[Value], dir: &Path) {
    assert!(!games.is_empty());
    for game in games {
        let stem = kinrow::records::RecordedGame::file_stem(
            game["game"].as_u64().unwrap() as usize,
            game["x"].as_str().unwrap(),
            game["o"].as_str().unwrap(),
        );
        let text = std::fs::read_to_string(dir.join(format!("{stem}.sgf"))).unwrap();
        sgf::parse(&text).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let back = sgf::read(&text).unwrap();
        assert_eq!(back.moves, record_moves(game), "{stem}");
        let board = back.replay().unwrap();
        match game["reason"].as_str().unwrap() {
            "win" => {
                let w = if game["result"] == "x" {
                    Player::X
                } else {
                    Player::O
                };
                assert_eq!(back.ending, Ending::Win(w));
                assert_eq!(board.outcome().and_then(|o| o.winner()), Some(w));
            }
            "draw" => assert!(board.is_over() && back.ending == Ending::Draw),
            _ => assert!(matches!(back.ending, Ending::Forfeit { .. })),
        }
    }
}

fn clean(run: &referee_common::Run) {
    assert!(run.output.status.success(), "{}", run.stderr);
    let summary = run.summary.as_ref().expect("a summary");
    assert_eq!(summary["pairings"][0]["faults"], json!({}), "{summary}");
    for game in &run.games {
        assert!(
            ["win", "draw"].contains(&game["reason"].as_str().unwrap()),
            "{game}"
        );
    }
}

#[test]
fn two_pbrain_kinrow_brains_under_the_referee() {
    let scratch = Scratch::new("gomocup-pbrains");
    let link = pbrain_kinrow(&scratch);
    let sgf_dir = scratch.path("sgf");
    let (a, b) = (
        format!("a={} --bot random", link.display()),
        format!("b={} --bot blocking", link.display()),
    );
    let run = referee(
        &scratch,
        &[
            "--engine",
            &a,
            "--engine",
            &b,
            "--board",
            "15x15",
            "--games",
            "4",
            "--seed",
            "2",
            "--sgf-dir",
            sgf_dir.to_str().unwrap(),
        ],
    );
    clean(&run);
    let summary = run.summary.as_ref().unwrap();
    assert_eq!(summary["engines"][0]["protocol"], "gomocup");
    assert_eq!(run.games.len(), 4);
    check_sgf(&run.games, &sgf_dir);
}

#[test]
fn a_run_with_a_brain_resumes() {
    // Two games of four, then --resume plays the other two.
    let scratch = Scratch::new("gomocup-resume");
    let engine = brain("gomo", "--seed 1");
    let args = |games: &'static str| {
        vec![
            "--engine", &engine, "--bots", "random", "--board", "10x10", "--seed", "12", "--games",
            games,
        ]
    };
    let run = referee(&scratch, &args("2"));
    clean(&run);
    let mut again = args("4");
    again.push("--resume");
    let run = referee(&scratch, &again);
    clean(&run);
    assert!(
        run.stderr
            .contains("2 of 4 games already played, 2 to play"),
        "{}",
        run.stderr
    );
    assert_eq!(run.games.len(), 4);
    assert_eq!(run.summary.unwrap()["pairings"][0]["games"], 4);
}

#[test]
fn a_kinrow_bot_against_a_brain_that_talks_first() {
    let scratch = Scratch::new("gomocup-vs-bot");
    let sgf_dir = scratch.path("sgf");
    let log_dir = scratch.path("logs");
    let engine = brain("gomo", "--early-talk --seed 3");
    let run = referee(
        &scratch,
        &[
            "--engine",
            &engine,
            "--bots",
            "blocking",
            "--board",
            "12x15",
            "--rule",
            "exact",
            "--games",
            "4",
            "--seed",
            "4",
            "--movetime",
            "300",
            "--sgf-dir",
            sgf_dir.to_str().unwrap(),
            "--log-dir",
            log_dir.to_str().unwrap(),
        ],
    );
    clean(&run);
    check_sgf(&run.games, &sgf_dir);
    let log = std::fs::read_to_string(log_dir.join("referee.log")).unwrap();
    assert!(log.contains("gomo says: thinking about move"), "{log}");
    assert!(
        log.contains("outside responses (skipped), first: Some(\"some junk without"),
        "skipped lines are logged: {log}"
    );
    assert_no_leftovers(&scratch);
}

#[test]
fn every_fault_of_a_brain_is_charged_to_it() {
    for (mode, reason) in [
        ("occupied", "illegal"),
        ("offboard", "illegal"),
        ("garbage", "malformed"),
        ("error", "refused"),
        ("unknown", "refused"),
        ("die", "crash"),
        ("hang", "timeout"),
    ] {
        let scratch = Scratch::new("gomocup-faults");
        let engine = brain("gomo", &format!("--mode {mode}"));
        let run = referee(
            &scratch,
            &[
                "--engine",
                &engine,
                "--bots",
                "random",
                "--board",
                "15x15",
                "--games",
                "2",
                "--seed",
                "3",
                "--timeout",
                "1500",
            ],
        );
        assert!(run.output.status.success(), "{mode}: {}", run.stderr);
        let summary = run.summary.expect("a summary");
        assert_eq!(
            summary["pairings"][0]["faults_by"],
            json!({"gomo": {reason: 2}}),
            "{mode}: {summary}"
        );
        assert_no_leftovers(&scratch);
    }
}

#[test]
fn quirks_of_real_brains_are_not_charged() {
    // A brain that loses a command sent within 3 ms of its move (it thinks
    // 30 ms a move): the default write gap (5 ms) keeps every game clean,
    // always (the brain's clock starts before its move leaves). Without a
    // gap it refuses moves it never saw: shown with a window of 500 ms, so
    // that the next command falls in it however busy the machine is (with
    // 3 ms, the other engine's turn sometimes took longer under load).
    for (gap, window, faults) in [
        (None, "3", json!({})),
        (Some("0"), "500", json!({"refused": 2})),
    ] {
        let scratch = Scratch::new("gomocup-drop");
        let engine = brain("gomo", &format!("--think 30 --drop-within {window}"));
        let mut args = vec![
            "--engine", &engine, "--bots", "random", "--board", "10x10", "--games", "2", "--seed",
            "6",
        ];
        if let Some(gap) = gap {
            args.extend(["--write-gap", gap]);
        }
        let run = referee(&scratch, &args);
        assert!(run.output.status.success(), "{}", run.stderr);
        let summary = run.summary.expect("a summary");
        assert_eq!(
            summary["pairings"][0]["faults"], faults,
            "gap {gap:?}: {summary}"
        );
    }
    // One that loses commands for 12 ms after its move, beyond the 5 ms
    // gap, answering "ERROR Unknown command: X,Y": each TURN it dropped is
    // sent again (after 5, 10 and 20 ms more), no game is charged, and the
    // brain's messages say so.
    let scratch = Scratch::new("gomocup-resend");
    let engine = brain("gomo", "--think 30 --drop-within 12");
    let messages = scratch.path("messages.txt");
    let run = referee(
        &scratch,
        &[
            "--engine",
            &engine,
            "--bots",
            "random",
            "--board",
            "10x10",
            "--games",
            "2",
            "--seed",
            "6",
            "--messages",
            messages.to_str().unwrap(),
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    let summary = run.summary.expect("a summary");
    assert_eq!(summary["pairings"][0]["faults"], json!({}), "{summary}");
    let said = std::fs::read_to_string(&messages).unwrap();
    let resent = said
        .lines()
        .filter(|l| l.contains("referee: the brain dropped 'TURN ") && l.ends_with("sent again"))
        .count();
    let plies: usize = run
        .games
        .iter()
        .map(|g| g["moves"].as_array().unwrap().len())
        .sum();
    // Every TURN but a game's first request (BEGIN) or one after the
    // brain's own opening move is dropped once at least.
    assert!(
        resent >= plies / 2 - 4,
        "{resent} resent, {plies} plies:\n{said}"
    );
    // A brain that takes 1.5 s to start, against moves of 100 ms (a 1.1 s
    // deadline): its start is waited for, not charged. One without RESTART
    // is started again for each game.
    for quirk in ["--slow-start 1.5", "--mode norestart"] {
        let scratch = Scratch::new("gomocup-quirk");
        let engine = brain("gomo", quirk);
        let run = referee(
            &scratch,
            &[
                "--engine",
                &engine,
                "--bots",
                "random",
                "--board",
                "10x10",
                "--games",
                "2",
                "--seed",
                "7",
                "--movetime",
                "100",
                "--concurrency",
                "1",
            ],
        );
        clean(&run);
    }
}

#[test]
fn a_match_clock_for_brains_and_kinrow_engines() {
    // A brain that takes 60 ms a move with 250 ms on its clock loses on
    // time within a few moves.
    let scratch = Scratch::new("gomocup-clock");
    let engine = brain("slow", "--think 60");
    let run = referee(
        &scratch,
        &[
            "--engine",
            &engine,
            "--bots",
            "random",
            "--board",
            "15x15",
            "--games",
            "2",
            "--seed",
            "8",
            "--match-time",
            "250",
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    for game in &run.games {
        assert_eq!(game["reason"], "timeout", "{game}");
        assert_eq!(game["fault_by"], "slow", "{game}");
        assert!(
            game["detail"].as_str().unwrap().starts_with("lost on time"),
            "{game}"
        );
    }
    // Minimax engines (kinrow's protocol, told `set timeleft`) and a
    // pbrain-kinrow (told INFO time_left) share a 3 s clock and keep to it.
    let scratch = Scratch::new("kinrow-clock");
    let link = pbrain_kinrow(&scratch);
    let brainy = format!("brain={}", link.display());
    let run = referee(
        &scratch,
        &[
            "--engine",
            &brainy,
            "--bots",
            "minimax",
            "--board",
            "9x9",
            "--games",
            "2",
            "--seed",
            "9",
            "--match-time",
            "3000",
        ],
    );
    clean(&run);
}

#[test]
fn kinrow_play_against_a_brain() {
    let scratch = Scratch::new("gomocup-play");
    let engine = format!(
        "gomocup:{} --seed 1 --early-talk",
        fixture_brain().display()
    );
    let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args([
            "play",
            "--board",
            "10x10",
            "--x",
            "random",
            "--o-engine",
            &engine,
            "--seed",
            "3",
        ])
        .args(["--delay", "0"])
        .write_stdin("n\n")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    drop(scratch);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("O (fixture-brain) plays"), "{text}");
    assert!(
        text.contains("wins with 5 in a row") || text.contains("it's a draw"),
        "{text}"
    );
}

#[test]
fn a_brain_is_refused_before_any_game_on_a_k_other_than_five() {
    let scratch = Scratch::new("gomocup-k4");
    let engine = brain("gomo", "");
    let run = referee(
        &scratch,
        &[
            "--engine", &engine, "--bots", "random", "--board", "15x15", "--k", "4",
        ],
    );
    assert_eq!(run.output.status.code(), Some(1), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("engine 'gomo' ({})", fixture_brain().display()))
            && run
                .stderr
                .contains("refused the board (15x15 k4 free): unacceptable size: Gomoc"),
        "{}",
        run.stderr
    );
    assert!(run.games.is_empty());
}

#[test]
fn a_brain_that_answers_a_move_twice_is_charged_where_it_does() {
    // The brain answers its third move request with two points, then would
    // play on correctly. The game it does it in is its loss, a double
    // answer, at its next turn (before, every later reply of the game came
    // one request late, the game was recorded as an ordinary result, and
    // the next game was charged). Each game has a fresh brain (a faulty
    // process is replaced), which does it again.
    let scratch = Scratch::new("gomocup-twice");
    let engine = brain("gomo", "--twice-at 3");
    let args = [
        "--engine", &engine, "--bots", "random", "--board", "10x10", "--games", "2", "--seed", "3",
    ];
    let run = referee(&scratch, &args);
    assert!(run.output.status.success(), "{}", run.stderr);
    assert_eq!(run.games.len(), 2);
    for game in &run.games {
        assert_eq!(game["reason"], "malformed", "{game}");
        assert_eq!(game["fault_by"], "gomo", "{game}");
        let detail = game["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("answered genmove twice: a second reply '= "),
            "{game}"
        );
        // Two opening stones, the brain's three moves and the other side's
        // three or four: charged at the brain's fourth turn, not later.
        assert!(record_moves(game).len() <= 9, "{game}");
    }
    assert_no_leftovers(&scratch);
}

#[test]
fn a_brain_on_a_board_without_five_is_refused_in_words() {
    // 3x3 was refused as "refused protocol_version" (the brain had answered
    // START 3 with ERROR); it now gets the words 5x5 k4 got.
    for (board, k) in [("3x3", "3"), ("5x5", "4")] {
        let scratch = Scratch::new("gomocup-no-five");
        let engine = brain("gomo", "");
        let run = referee(
            &scratch,
            &[
                "--engine", &engine, "--bots", "random", "--board", board, "--k", k,
            ],
        );
        assert_eq!(run.output.status.code(), Some(1), "{}", run.stderr);
        let said = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            said.contains(&format!(
                "refused the board ({board} k{k} free): unacceptable size: Gomocup brains play \
                 five in a row, not {k} (the protocol has no K)"
            )),
            "{said}"
        );
        assert_no_leftovers(&scratch);
    }
}

#[test]
fn renju_and_caro_between_brains_with_the_rule_told_as_the_protocol_says() {
    // Two pbrain-kinrow brains play renju: no faults, no forbidden move,
    // and the SGF files replay under the rule they name.
    let scratch = Scratch::new("gomocup-renju");
    let link = pbrain_kinrow(&scratch);
    let sgf_dir = scratch.path("sgf");
    let (a, b) = (
        format!("a={} --bot random", link.display()),
        format!("b={} --bot blocking", link.display()),
    );
    let run = referee(
        &scratch,
        &[
            "--engine",
            &a,
            "--engine",
            &b,
            "--board",
            "15x15",
            "--rule",
            "renju",
            "--games",
            "4",
            "--seed",
            "3",
            "--sgf-dir",
            sgf_dir.to_str().unwrap(),
        ],
    );
    clean(&run);
    check_sgf(&run.games, &sgf_dir);
    for game in &run.games {
        let stem = kinrow::records::RecordedGame::file_stem(
            game["game"].as_u64().unwrap() as usize,
            game["x"].as_str().unwrap(),
            game["o"].as_str().unwrap(),
        );
        let text = std::fs::read_to_string(sgf_dir.join(format!("{stem}.sgf"))).unwrap();
        let back = sgf::read(&text).unwrap();
        assert_eq!(back.geometry.rule(), kinrow::rules::Rule::Renju, "{text}");
    }
    // The rule the manager sends: exactly 4, 8 and 9 (the fixture brain logs
    // what it is told).
    for (rule, code) in [("renju", 4), ("caro", 8), ("caro-exact", 9), ("exact", 1)] {
        let scratch = Scratch::new("gomocup-rule-code");
        let log = scratch.path("brain.log");
        let engine = brain("gomo", &format!("--seed 1 --log {}", log.display()));
        let run = referee(
            &scratch,
            &[
                "--engine", &engine, "--bots", "random", "--board", "15x15", "--rule", rule,
                "--games", "2", "--seed", "5",
            ],
        );
        assert!(run.output.status.success(), "{}", run.stderr);
        let told = std::fs::read_to_string(&log).unwrap();
        let rules: Vec<&str> = told
            .lines()
            .filter(|l| l.starts_with("INFO rule"))
            .collect();
        assert!(!rules.is_empty(), "{told}");
        assert!(
            rules.iter().all(|l| *l == format!("INFO rule {code}")),
            "{rule}: {rules:?}"
        );
    }
}

/// A brain is told the Gomocup's 350 MiB (`INFO max_memory 367001600`, as
/// Piskvork and c-gomoku-cli tell it), or its own `memory=` limit, before
/// every game; the records keep its peak resident size.
#[test]
fn a_brain_is_told_its_memory_limit() {
    for (settings, bytes) in [(None, 367_001_600u64), (Some("gomo:memory=64"), 64 << 20)] {
        let scratch = Scratch::new("gomocup-max-memory");
        let log = scratch.path("brain.log");
        let engine = brain("gomo", &format!("--seed 1 --log {}", log.display()));
        let mut args = vec![
            "--engine", &engine, "--bots", "random", "--board", "15x15", "--games", "2", "--seed",
            "5",
        ];
        args.extend(settings.iter().flat_map(|s| ["--engine-settings", s]));
        let run = referee(&scratch, &args);
        assert!(run.output.status.success(), "{}", run.stderr);
        let told = std::fs::read_to_string(&log).unwrap();
        let limits: Vec<&str> = told
            .lines()
            .filter(|l| l.starts_with("INFO max_memory"))
            .collect();
        let want = format!("INFO max_memory {bytes}");
        assert_eq!(limits, [want.as_str(); 2], "{told}");
        for game in &run.games {
            let side = if game["x"] == "gomo" { "x" } else { "o" };
            let peak = game["peak_mib"][side].as_f64().unwrap_or(0.0);
            assert!(peak > 0.1 && peak < 64.0, "{game}");
        }
    }
}

#[test]
fn a_forbidden_move_loses_as_an_illegal_move_with_its_kind_in_the_record() {
    // The fixture brain plays any empty cell: as Black under renju it
    // sometimes takes a forbidden one, and loses the game there.
    let scratch = Scratch::new("gomocup-forbidden");
    let engine = brain("gomo", "--seed 1");
    let sgf_dir = scratch.path("sgf");
    let run = referee(
        &scratch,
        &[
            "--engine",
            &engine,
            "--bots",
            "random",
            "--board",
            "15x15",
            "--rule",
            "renju",
            "--games",
            "20",
            "--seed",
            "3",
            "--sgf-dir",
            sgf_dir.to_str().unwrap(),
        ],
    );
    assert!(run.output.status.success(), "{}", run.stderr);
    let geometry = kinrow::rules::Geometry::new(15, 15, 5, kinrow::rules::Rule::Renju).unwrap();
    let mut forfeits = 0;
    for game in &run.games {
        if game["reason"] != "illegal" {
            continue;
        }
        forfeits += 1;
        assert_eq!(game["fault_by"], "gomo", "{game}");
        assert_eq!(
            game["result"], "o",
            "only Black has forbidden cells: {game}"
        );
        let detail = game["detail"].as_str().unwrap();
        let (cell, why) = detail.split_once(": ").unwrap();
        let kind = why
            .strip_prefix(&format!("{cell} is forbidden to X ("))
            .and_then(|k| k.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{detail}"));
        // The cell was forbidden where it was played, of that kind.
        let mut board = kinrow::rules::Board::new(geometry);
        for m in record_moves(game) {
            board.try_play(m).unwrap();
        }
        let cell: kinrow::rules::Cell = cell.parse().unwrap();
        assert_eq!(
            board.forbidden(cell).map(|k| k.to_string()),
            Some(kind.to_string())
        );
    }
    assert!(
        forfeits > 0,
        "no forbidden move in 20 games: pick another seed"
    );
    check_sgf(&run.games, &sgf_dir);
}
