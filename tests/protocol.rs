//! Protocol transcripts through the real `kinrow` binary.

#[path = "common/live.rs"]
mod live;

use assert_cmd::cargo::cargo_bin_cmd;
use rand::{Rng, SeedableRng};

/// Runs `kinrow ARGS` with `input` on stdin; returns stdout, asserting exit 0.
fn session(args: &[&str], input: &str) -> String {
    session_bytes(args, input.as_bytes())
}

fn session_bytes(args: &[&str], input: &[u8]) -> String {
    let out = cargo_bin_cmd!("kinrow")
        .args(args)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("kinrow runs");
    assert!(
        out.status.success(),
        "exit status {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("responses are UTF-8")
}

/// Splits output into responses (each ends with an empty line).
fn responses(out: &str) -> Vec<&str> {
    assert!(
        out.is_empty() || out.ends_with("\n\n"),
        "unterminated: {out:?}"
    );
    out.split_terminator("\n\n").collect()
}

#[test]
fn the_design_session() {
    let out = session(
        &["--bot", "random", "--seed", "7"],
        "newgame 3 3 3\n1 move 2 2\ngenmove\nstatus\nmove 9 9\n",
    );
    let r = responses(&out);
    assert_eq!(r.len(), 5);
    assert_eq!(r[0], "=");
    assert_eq!(r[1], "=1");
    let reply = r[2].strip_prefix("= ").expect("genmove answers a cell");
    let cell: Vec<u32> = reply.split(' ').map(|n| n.parse().unwrap()).collect();
    assert_eq!(cell.len(), 2);
    assert!(cell.iter().all(|&v| (1..=3).contains(&v)) && cell != [2, 2]);
    assert_eq!(r[3], "= ongoing X");
    assert_eq!(r[4], "? illegal move: 9 9 is off the 3x3 board");
}

#[test]
fn a_whole_game_with_status_show_legal_and_undo() {
    let out = session(
        &[],
        "move 1 1\nmove 2 1\nmove 1 2\nlegal\nmove 2 2\nmove 1 3\nstatus\nshow\nlegal\n\
         move 3 3\ngenmove\nundo\nstatus\nshow\nundo\nundo\nundo\nundo\nundo\nstatus\nundo\n",
    );
    let expected = "=\n\n=\n\n=\n\n= 1 3 2 2 2 3 3 1 3 2 3 3\n\n=\n\n=\n\n\
        = win X 1 1 1 2 1 3\n\n\
        =\n  1 2 3\n1 X X X\n2 O O .\n3 . . .\nX wins: 1 1 1 2 1 3\n\n\
        =\n\n\
        ? illegal move: the game is over\n\n\
        ? game over: the game is over (win X 1 1 1 2 1 3)\n\n\
        =\n\n= ongoing X\n\n\
        =\n  1 2 3\n1 X X .\n2 O O .\n3 . . .\nX to move\n\n\
        =\n\n=\n\n=\n\n=\n\n? cannot undo: the board is empty\n\n= ongoing X\n\n\
        ? cannot undo: the board is empty\n\n";
    assert_eq!(out, expected);
}

#[test]
fn a_draw_is_reported() {
    let out = session(
        &[],
        "move 1 1\nmove 2 2\nmove 3 3\nmove 1 2\nmove 3 2\nmove 3 1\nmove 1 3\nmove 2 3\nmove 2 1\nstatus\nlegal\n",
    );
    assert!(out.ends_with("= draw\n\n=\n\n"), "{out}");
}

#[test]
fn every_error_prefix_and_the_board_stays_untouched() {
    let out = session(
        &[],
        "fly away\nmove 1\nmove a b\nmove 1 1\nmove 1 1\nmove 0 2\nnewgame 40 3 3\nnewgame 3 3 4\n\
         set colour red\nset movetime 0\nset bot clever\nset seed -1\nundo\nundo\nundo\nstatus\n",
    );
    assert_eq!(
        responses(&out),
        vec![
            "? unknown command: 'fly'",
            "? syntax error: usage: move R C",
            "? syntax error: 'a' is not a number",
            "=",
            "? illegal move: 1 1 is occupied by X",
            "? illegal move: 0 2 is off the 3x3 board",
            "? unacceptable size: 40x3: rows and columns must be from 1 to 32",
            "? unacceptable size: k 4: must be from 1 to 3",
            "? invalid option: no option 'colour'",
            "? invalid option: movetime: '0' is not a number of milliseconds from 1 to 86400000",
            "? invalid option: unknown bot 'clever' (known: random, blocking, minimax, mcts)",
            "? invalid option: seed: '-1' is not a whole number",
            "=",
            "? cannot undo: the board is empty",
            "? cannot undo: the board is empty",
            "= ongoing X",
        ]
    );
}

#[test]
fn ids_comments_cr_tabs_blank_lines() {
    let input = "# a comment line\n\n   \n7 name\r\n\t8\tprotocol_version # trailing\n\
                 9 move 2 2\r\n10 move 2 2\n11\tstatus\n12 bogus\n13\n";
    assert_eq!(
        session(&[], input),
        "=7 kinrow\n\n=8 2\n\n=9\n\n?10 illegal move: 2 2 is occupied by X\n\n\
         =11 ongoing O\n\n?12 unknown command: 'bogus'\n\n?13 syntax error: missing command\n\n"
    );
}

#[test]
fn info_commands() {
    let out = session(
        &[],
        "version\nknown_command genmove\nknown_command fly\nknown_command\nlist_commands\n",
    );
    let r = responses(&out);
    assert_eq!(r[0], format!("= {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(r[1], "= true");
    assert_eq!(r[2], "= false");
    assert_eq!(r[3], "? syntax error: usage: known_command NAME");
    let listed: Vec<&str> = r[4].strip_prefix("= ").unwrap().lines().collect();
    assert_eq!(listed.len(), 18);
    for name in &listed {
        // Every listed command is known, and answers something other than
        // "unknown command".
        assert!(!session(&[], &format!("{name}\n")).starts_with("? unknown command"));
    }
}

#[test]
fn newgame_sizes_rules_and_set_options() {
    let out = session(
        &[],
        "newgame 15 15 5 exact\nmove 8 8\nshow\nnewgame 2 5 2\nmove 1 5\nmove 2 5\nmove 1 4\n\
         status\nnewgame\nstatus\nset bot random\nset seed 42\nset movetime 50\ngenmove\n",
    );
    let r = responses(&out);
    assert_eq!(r[0], "=");
    assert!(
        r[2].contains("\n 8  .  .  .  .  .  .  .  X  .  .  .  .  .  .  .\n"),
        "{}",
        r[2]
    );
    assert!(r[2].starts_with("=\n    1  2  3"), "{}", r[2]);
    assert_eq!(r[7], "= win X 1 4 1 5");
    assert_eq!(
        r[9], "= ongoing X",
        "newgame keeps the 2x5 shape and clears it"
    );
    assert_eq!(&r[10..13], ["=", "=", "="]);
    assert!(r[13].starts_with("= "));
}

#[test]
fn same_seed_replays_the_same_game() {
    let script = "genmove\n".repeat(9) + "status\n";
    for bot in ["random", "blocking", "minimax"] {
        let a = session(&["--bot", bot, "--seed", "11", "--board", "3x3"], &script);
        let b = session(&["--bot", bot, "--seed", "11", "--board", "3x3"], &script);
        assert_eq!(a, b, "{bot}");
        for r in responses(&a) {
            assert!(
                r.starts_with("= ") || r.starts_with("? game over"),
                "{bot}: {r}"
            );
        }
        let c = session(&["--bot", "random", "--seed", "12"], &script);
        if bot == "random" {
            assert_ne!(a, c, "another seed, another game");
        }
    }
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let mut input = String::new();
    for i in 0..300 {
        input.push_str(&format!("{i} status\n"));
    }
    let out = session(&[], &input);
    let r = responses(&out);
    assert_eq!(r.len(), 300);
    for (i, resp) in r.iter().enumerate() {
        assert_eq!(*resp, format!("={i} ongoing X"));
    }
}

#[test]
fn quit_answers_then_exits_and_end_of_input_is_quiet() {
    assert_eq!(session(&[], "quit\nstatus\n"), "=\n\n");
    assert_eq!(session(&[], "5 quit\n"), "=5\n\n");
    assert_eq!(session(&[], ""), "");
    assert_eq!(
        session(&[], "move 1 1"),
        "=\n\n",
        "a last line without newline counts"
    );
}

#[test]
fn huge_lines_get_a_reply_and_change_nothing() {
    let digits = "9".repeat(100_000);
    let thirty = "9".repeat(30);
    let out = session(
        &[],
        &format!(
            "{digits}\n{thirty} status\nmove {thirty} 1\nmove 1 1\nstatus\n{}\nstatus\n",
            "x".repeat(20_000)
        ),
    );
    assert_eq!(
        responses(&out),
        vec![
            "? syntax error: line too long (over 8192 bytes)",
            "? syntax error: id too long",
            "? illegal move: 4294967295 1 is off the 3x3 board",
            "=",
            "= ongoing O",
            "? syntax error: line too long (over 8192 bytes)",
            "= ongoing O",
        ]
    );
    // Text quoted back in an error is clipped, whichever part it came from.
    let long = "n".repeat(8000);
    let out = session(
        &[],
        &format!(
            "set {long} 1
set bot {long}
set seed {long}
move {long} 1
{long}
"
        ),
    );
    for reply in responses(&out) {
        assert!(reply.starts_with("? ") && reply.len() < 120, "{reply}");
    }
}

#[test]
fn random_bytes_never_break_the_engine() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(2026);
    for round in 0..20 {
        let mut input = Vec::new();
        let mut requests = 0;
        for _ in 0..200 {
            let len = rng.random_range(0..40);
            let mut line: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            line.retain(|&b| b != b'\n');
            // The library's own preprocessing decides what is blank; it has
            // unit tests of its own.
            if !kinrow::protocol::preprocess(&line).trim().is_empty() {
                requests += 1;
            }
            input.extend_from_slice(&line);
            input.push(b'\n');
            if rng.random_ratio(1, 5) {
                // Real commands too, so the game state moves around.
                let cmd = ["genmove\n", "undo\n", "newgame 4 4 3\n", "move 1 1\n"]
                    [rng.random_range(0..4)];
                input.extend_from_slice(cmd.as_bytes());
                requests += 1;
            }
        }
        input.extend_from_slice(b"status\n");
        requests += 1;
        let out = session_bytes(&["--bot", "random", "--seed", "1"], &input);
        let r = responses(&out);
        assert_eq!(r.len(), requests, "round {round}: one response per request");
        for resp in &r {
            assert!(resp.starts_with('=') || resp.starts_with('?'), "{resp:?}");
        }
        let last = r.last().unwrap();
        assert!(
            last.starts_with("= ongoing") || last.starts_with("= win") || last == &"= draw",
            "{last}"
        );
    }
}

#[test]
fn bad_flags_get_clap_messages_and_status_2() {
    for args in [
        &["--bot", "clever"][..],
        &["--board", "3y3"],
        &["--board", "40x40"],
        &["--board", "3x3", "--k", "4"],
        &["--rule", "wild"],
        &["--movetime", "0"],
        &["--seed", "-3"],
        &["--set", "nodes"],
        &["--set", "colour=red"],
        &["--set", "nodes=many"],
        &["--protocol", "gomocup", "--set", "depth=-1"],
        &["--frobnicate"],
    ] {
        let out = cargo_bin_cmd!("kinrow").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error:"), "{args:?}: {err}");
    }
}

#[test]
fn set_flags_are_bot_options_for_the_whole_session() {
    // `--set nodes=N` is `set nodes N` before the first request: the same
    // moves, whichever way it is given, and whatever the clock allows.
    let moves = "newgame 9 9 5\ngenmove\ngenmove\ngenmove\ngenmove\nshow\n";
    let by_flag = session(
        &["--bot", "minimax", "--seed", "3", "--set", "nodes=400"],
        moves,
    );
    let by_request = session(
        &["--bot", "minimax", "--seed", "3"],
        &format!("set nodes 400\n{moves}"),
    );
    assert_eq!(responses(&by_flag), responses(&by_request)[1..]);
    // The error names the flag and the option's own reason.
    let out = cargo_bin_cmd!("kinrow")
        .args(["--set", "nodes=many"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: --set nodes=many: nodes: 'many' is not a number"),
        "{err}"
    );
}

#[test]
fn board_flag_defaults_k_to_at_most_five() {
    let out = session(&["--board", "15x15", "--bot", "random"], "move 1 1\nmove 2 1\nmove 1 2\nmove 2 2\nmove 1 3\nmove 2 3\nmove 1 4\nmove 2 4\nstatus\nmove 1 5\nstatus\n");
    let r = responses(&out);
    assert_eq!(r[8], "= ongoing X");
    assert_eq!(r[10], "= win X 1 1 1 2 1 3 1 4 1 5");
    let out = session(
        &["--board", "4x6"],
        "move 1 1\nmove 2 1\nmove 1 2\nmove 2 2\nmove 1 3\nmove 2 3\nmove 1 4\nstatus\n",
    );
    assert_eq!(responses(&out)[7], "= win X 1 1 1 2 1 3 1 4");
}

#[test]
fn help_summarises_the_protocol() {
    let out = cargo_bin_cmd!("kinrow").arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for word in [
        "newgame",
        "genmove",
        "--bot",
        "--movetime",
        "--board",
        "--rule",
    ] {
        assert!(text.contains(word), "{word}");
    }
}

#[test]
fn replies_are_flushed_when_a_blank_or_comment_line_follows() {
    // The engine flushes before it waits for input; a request followed, in
    // the same write, by a line that gets no reply must not keep its reply
    // in the buffer while the engine waits.
    let mut engine = live::Live::start(&["--bot", "random", "--seed", "1"]);
    for (i, tail) in ["\n", "# a comment\n", "   \t\n", "\r\n", "\n\n# x\n\n"]
        .iter()
        .enumerate()
    {
        let request = format!("{i} status\n{tail}");
        engine.send(request.as_bytes());
        assert_eq!(engine.reply(&request), format!("={i} ongoing X"));
    }
    // Pipelined requests with blank lines between them: all answered.
    engine.send(b"move 2 2\n\nstatus\n\n");
    assert_eq!(engine.reply("move 2 2"), "=");
    assert_eq!(engine.reply("status"), "= ongoing O");
    assert_eq!(engine.ask("7 quit"), "=7");
    engine.finish();
}

#[test]
fn a_searching_bot_lets_earlier_replies_out_before_it_thinks() {
    // `move` and `genmove` in one write to minimax with three seconds to
    // think: the `=` for the move must not wait for the search.
    let mut engine = live::Live::start(&["--board", "15x15", "--movetime", "3000", "--seed", "1"]);
    engine.send(b"move 8 8\ngenmove\n");
    assert_eq!(engine.reply("move 8 8"), "=");
    assert_eq!(
        engine.reply_within(std::time::Duration::from_millis(300)),
        None,
        "the move's reply came only with the search's"
    );
    assert!(engine.reply("genmove").starts_with("= "));
    engine.finish();
}

#[test]
fn a_controller_that_stops_reading_ends_the_engine_quietly() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(b"name\n").unwrap();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "= kinrow\n");
    drop(stdout);
    // Replies now go nowhere: the engine must stop without a word.
    let _ = stdin.write_all("list_commands\n".repeat(5000).as_bytes());
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn bot_options_do_not_depend_on_the_order_they_come_in() {
    // minimax capped at a depth plays a fixed game on a board it can't
    // solve; the cap must hold whether it comes before or after `set bot`,
    // and across a change of bot.
    let game = format!("newgame 8 8 5\n{}", "genmove\n".repeat(12));
    let play = |options: &str| {
        let out = session(
            &["--bot", "random", "--seed", "4"],
            &format!("{options}{game}"),
        );
        responses(&out)
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
    };
    let after = play("set bot minimax\nset depth 1\n");
    let before = play("set depth 1\nset bot minimax\n");
    let switched = play("set depth 1\nset bot minimax\nset bot random\nset bot minimax\n");
    assert!(after.iter().all(|r| r.starts_with('=')), "{after:?}");
    assert_eq!(before[2..], after[2..]);
    assert_eq!(switched[4..], after[2..]);
    // The cap is what made the game: depth 2 plays another one.
    let deeper = play("set depth 2\nset bot minimax\n");
    assert_ne!(deeper[2..], after[2..]);
    // An option no bot has is refused; a bad value by the bot that has it,
    // whichever bot plays now.
    let out = session(
        &["--bot", "random"],
        "set colour red\nset depth x\nset depth 0\n",
    );
    assert_eq!(
        responses(&out),
        [
            "? invalid option: no option 'colour'",
            "? invalid option: depth: 'x' is not a number of plies (0 for no limit)",
            "="
        ]
    );
}
