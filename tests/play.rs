//! `kinrow play` sessions through the real binary: whole games typed on
//! stdin, bots and engines started as child processes.

use assert_cmd::cargo::cargo_bin_cmd;
use std::process::Output;
use std::time::Duration;

/// Runs `kinrow play ARGS` with `input` on stdin (then end of input).
fn run(args: &[&str], input: &str) -> Output {
    cargo_bin_cmd!("kinrow")
        .arg("play")
        .args(args)
        .env_remove("NO_COLOR")
        .write_stdin(input)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("kinrow play runs")
}

/// Like [`run`], asserting exit status 0; returns stdout.
fn play(args: &[&str], input: &str) -> String {
    let out = run(args, input);
    let stdout = String::from_utf8(out.stdout).expect("output is UTF-8");
    assert!(
        out.status.success(),
        "exit status {:?}\nstderr: {}\nstdout: {stdout}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // Output that is not a terminal never gets colour.
    assert!(!stdout.contains('\x1b'), "escape codes in {stdout}");
    stdout
}

/// The output with every line break a space: messages are wrapped at 80
/// columns, wherever their words fall.
fn flat(out: &str) -> String {
    out.replace('\n', " ")
}

/// Moves typed one per line.
fn lines(moves: &[&str]) -> String {
    moves.iter().map(|m| format!("{m}\n")).collect()
}

/// The fixture engine in one of its modes, as an `--o-engine`/`--x-engine` value.
fn fixture(mode: &str) -> String {
    format!(
        "python3 {}/tests/fixtures/play_engine.py {mode}",
        env!("CARGO_MANIFEST_DIR")
    )
}

const HOT_SEAT: [&str; 4] = ["--x", "human", "--o", "human"];

/// X takes the top row: X 1 1, O 2 1, X 1 2, O 2 2, X 1 3.
const X_TOP_ROW: [&str; 5] = ["1 1", "2 1", "1 2", "2 2", "1 3"];

/// A drawn game, typed in both notations (cell numbers and `R C`).
const DRAW: [&str; 9] = ["5", "1 1", "2", "3 2", "3 1", "3", "2 3", "4", "3 3"];

#[test]
fn hot_seat_game_to_a_win() {
    let out = play(&HOT_SEAT, &lines(&[&X_TOP_ROW[..], &["n"]].concat()));
    assert!(out.contains("X (player 1) against O (player 2)"), "{out}");
    assert!(
        out.contains("X (player 1) wins with 3 in a row: 1 1, 1 2, 1 3."),
        "{out}"
    );
    // The classic board with the winning line marked.
    assert!(
        out.contains(
            "     1   2   3\n \
             1  [X]|[X]|[X]\n    \
             ---+---+---\n \
             2   O | O |\n    \
             ---+---+---\n \
             3     |   |\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("Score: player 1: 1, player 2: 0, draws: 0"),
        "{out}"
    );
    assert!(out.ends_with("Thanks for playing. Final score: player 1: 1, player 2: 0, draws: 0.\n"));
}

#[test]
fn hot_seat_game_to_a_draw() {
    let out = play(&HOT_SEAT, &lines(&[&DRAW[..], &["n"]].concat()));
    assert!(out.contains("The board is full: it's a draw."), "{out}");
    assert!(!out.contains("wins"), "{out}");
    // The last move is marked; nine stones are on the board.
    assert!(out.contains(" 3   X | O |(X)\n"), "{out}");
    assert!(
        out.contains("Score: player 1: 0, player 2: 0, draws: 1"),
        "{out}"
    );
}

#[test]
fn against_minimax_the_forced_line() {
    // X plays the first free cell each time (cell numbers, so `3` is refused
    // once O holds it). Perfect O must answer the corner with the centre,
    // block 1 3, and then win at once on the diagonal: each of its moves is
    // the only one that does not lose or the only quickest win.
    let args = ["--o", "minimax", "--seed", "11", "--movetime", "500"];
    let out = play(&args, "1\n2\n3\n4\nn\n");
    assert!(out.contains("O (minimax) plays 2 2."), "{out}");
    assert!(out.contains("O (minimax) plays 1 3."), "{out}");
    assert!(out.contains("1 3 is already taken by O."), "{out}");
    assert!(
        out.contains("O (minimax) wins with 3 in a row: 1 3, 2 2, 3 1."),
        "{out}"
    );
    assert!(out.contains("Score: you: 0, minimax: 1, draws: 0"), "{out}");
}

#[test]
fn every_kind_of_bad_entry_gets_a_message_and_changes_nothing() {
    let bad_for_x = [
        "",
        "abc",
        "2 x",
        "4 1",
        "1 4",
        "0 0",
        "-1 2",
        "99999999999999999999 1",
        "1 2 3",
        "0",
        "10",
    ];
    let bad_for_o = ["1 1", "1"];
    let input = lines(
        &[
            &bad_for_x[..],
            &X_TOP_ROW[..1],
            &bad_for_o[..],
            &X_TOP_ROW[1..],
            &["n"],
        ]
        .concat(),
    );
    let out = play(&HOT_SEAT, &input);
    for message in [
        "Please enter a move: a row and a column, like 2 1.",
        "'abc' is not a number.",
        "'x' is not a number.",
        "There is no row 4: rows go from 1 to 3.",
        "There is no column 4: columns go from 1 to 3.",
        "There is no row 0: rows go from 1 to 3.",
        "There is no row -1: rows go from 1 to 3.",
        "There is no row 99999999999999999999: rows go from 1 to 3.",
        "Too many numbers: enter a row and a column, like 2 1.",
        "There is no cell 0: cells are numbered 1 to 9",
        "There is no cell 10: cells are numbered 1 to 9",
    ] {
        assert!(out.contains(message), "missing {message:?} in {out}");
    }
    assert_eq!(
        out.matches("1 1 is already taken by X.").count(),
        2,
        "{out}"
    );
    // Each bad entry was followed by the same prompt again, and the game
    // went on exactly as the good moves say.
    assert_eq!(
        out.matches("X (player 1), your move:").count(),
        bad_for_x.len() + 3,
        "{out}"
    );
    assert_eq!(out.matches("O (player 2), your move:").count(), 2 + 2);
    assert!(
        out.contains("X (player 1) wins with 3 in a row: 1 1, 1 2, 1 3."),
        "{out}"
    );
}

#[test]
fn a_single_number_is_not_a_move_on_bigger_boards() {
    let out = play(
        &["--board", "4x4", "--x", "human", "--o", "human"],
        "5\n4 4\n",
    );
    assert!(
        out.contains("Enter both a row and a column, separated by a space, like 2 1."),
        "{out}"
    );
    assert!(out.contains(" 4     |   |   |(X)\n"), "{out}");
}

#[test]
fn undo_in_hot_seat_takes_back_one_move() {
    let out = play(&HOT_SEAT, "u\n1 1\nh\n2 2\nu\n2 1\n");
    assert!(out.contains("Nothing to take back yet."), "{out}");
    // `h` repeats the help shown at the start.
    assert_eq!(
        out.matches("u takes back your last move").count(),
        2,
        "{out}"
    );
    assert!(out.contains("Took back 1 move."), "{out}");
    // After the undo it is O's turn again, and O's new move stands.
    assert!(out.contains(" 2  (O)|   |\n"), "{out}");
    assert!(out.ends_with("End of input: leaving the game.\nThanks for playing.\n"));
}

#[test]
fn undo_against_an_engine_without_undo_replays_the_game() {
    // The fixture knows only newgame/move/genmove and answers the first free
    // cell: after the undo it must have been brought back to 2 2 alone, or
    // its next move would not be 1 2.
    let engine = fixture("good");
    let out = play(&["--o-engine", &engine], "2 2\n1 2\nu\n3 3\nq\nn\n");
    assert!(out.contains("X (you) against O (play_engine.py)"), "{out}");
    assert!(out.contains("O (play_engine.py) plays 1 3."), "{out}");
    assert!(out.contains("Took back 2 moves."), "{out}");
    let after_undo = &out[out.find("Took back").unwrap()..];
    assert!(
        after_undo.contains("O (play_engine.py) plays 1 2."),
        "{after_undo}"
    );
    assert!(
        out.contains("You left the game; it does not count."),
        "{out}"
    );
}

#[test]
fn undo_against_a_builtin_bot_uses_the_protocol() {
    // Blocking takes the centre when it is free: after taking back X's
    // centre and its reply, X's corner must be answered with the centre.
    let out = play(&["--o", "blocking", "--seed", "3"], "2 2\nu\n1 1\n");
    assert!(out.contains("Took back 2 moves."), "{out}");
    let after_undo = &out[out.find("Took back").unwrap()..];
    assert!(
        after_undo.contains("O (blocking) plays 2 2."),
        "{after_undo}"
    );
}

#[test]
fn play_again_with_swapped_sides_keeps_the_score_per_player() {
    // Game 1: player 1 (X) wins. Swap. Game 2: player 2 is X and wins the
    // same way. Game 3, same sides: a draw.
    let input = lines(
        &[
            &X_TOP_ROW[..],
            &["maybe", "s"],
            &X_TOP_ROW[..],
            &["y"],
            &DRAW[..],
            &["n"],
        ]
        .concat(),
    );
    let out = play(&HOT_SEAT, &input);
    assert!(out.contains("Please answer y, s, n or w."), "{out}");
    assert!(out.contains("X (player 2) against O (player 1)"), "{out}");
    assert!(out.contains("X (player 2) wins with 3 in a row"), "{out}");
    let scores: Vec<&str> = out.lines().filter(|l| l.starts_with("Score:")).collect();
    assert_eq!(
        scores,
        [
            "Score: player 1: 1, player 2: 0, draws: 0",
            "Score: player 1: 1, player 2: 1, draws: 0",
            "Score: player 1: 1, player 2: 1, draws: 1",
        ]
    );
    assert!(out.ends_with("Final score: player 1: 1, player 2: 1, draws: 1.\n"));
}

#[test]
fn gomoku_sixteen_by_sixteen_five_in_a_row() {
    let moves = [
        "8 4", "1 1", "8 5", "1 2", "8 6", "16 16", "8 7", "1 16", "8 8", "n",
    ];
    let args = [
        "--board", "16x16", "--k", "5", "--x", "human", "--o", "human",
    ];
    let out = play(&args, &lines(&moves));
    assert!(out.contains("New game on 16x16, 5 in a row."), "{out}");
    assert!(
        out.contains("X (player 1) wins with 5 in a row: 8 4, 8 5, 8 6, 8 7, 8 8."),
        "{out}"
    );
    // Two-digit labels line up with the one-digit ones.
    assert!(
        out.contains("  8     |   |   |[X]|[X]|[X]|[X]|[X]|"),
        "{out}"
    );
    assert!(out.contains("\n 16     |"), "{out}");
    // O in the last column (1 16, 16 16), then the row number on the right.
    assert!(out.contains("|   | O   1\n"), "{out}");
    assert!(out.contains("|   | O   16\n"), "{out}");
    assert!(out.contains("  14  15  16\n"), "{out}");
    // The column numbers again below the board, so they are on screen in a
    // 24-line terminal while the top of the 32-line board has scrolled away.
    assert!(
        out.contains(
            "|   | O   16\n      1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16\n"
        ),
        "{out}"
    );
}

#[test]
fn exact_rule_overline_does_not_win() {
    // X makes six in a row on row 8 (8 4 last); under `exact` that is no
    // win, and the game goes on.
    let moves = [
        "8 1", "1 1", "8 2", "1 2", "8 3", "1 3", "8 5", "3 3", "8 6", "3 4", "8 4",
    ];
    let args = [
        "--board", "15x15", "--k", "5", "--rule", "exact", "--o", "human",
    ];
    let out = play(&args, &lines(&moves));
    assert!(out.contains("5 in a row (exactly"), "{out}");
    assert!(!out.contains("wins"), "{out}");
    assert!(out.contains("  8   X | X | X |(X)| X | X |"), "{out}");
    assert!(out.ends_with("End of input: leaving the game.\nThanks for playing.\n"));
}

#[test]
fn an_engine_that_dies_ends_the_game_in_plain_words() {
    let engine = fixture("dies");
    let out = play(&["--o-engine", &engine], "2 2\n3 3\ny\n2 2\nn\n");
    assert!(
        flat(&out).contains(
            "The engine playing O (play_engine.py) stopped: its output closed \
             (it exited or crashed); its last message was: play_engine: out of ideas, exiting. \
             The game ends here and does not count."
        ),
        "{out}"
    );
    // Playing again starts a fresh engine, which plays its first move again.
    assert_eq!(
        out.matches("O (play_engine.py) plays 1 1.").count(),
        2,
        "{out}"
    );
    assert!(
        out.contains("Score: you: 0, play_engine.py: 0, draws: 0"),
        "{out}"
    );
}

#[test]
fn an_engine_that_plays_an_illegal_move_is_caught_by_our_rules() {
    let out = play(&["--o-engine", &fixture("illegal")], "2 2\n3 3\nn\n");
    assert!(
        flat(&out).contains(
            "The engine playing O (play_engine.py) played 1 1, which is illegal: \
             1 1 is occupied by O."
        ),
        "{out}"
    );
}

#[test]
fn an_engine_that_answers_nonsense_or_nothing() {
    let out = play(&["--o-engine", &fixture("garbage")], "2 2\nn\n");
    assert!(
        flat(&out).contains("answered 'resign' to genmove, which is not a move."),
        "{out}"
    );
    let args = ["--timeout", "2", "--o-engine", &fixture("silent")];
    let out = play(&args, "2 2\nn\n");
    assert!(
        flat(&out).contains("did not answer `genmove` within 2 s (--timeout)."),
        "{out}"
    );
}

#[test]
fn starting_an_engine_has_its_own_deadline() {
    // An engine that takes 1.5 s to start plays under a 1 s move deadline.
    let late = format!(
        "python3 {}/tests/fixtures/late_start.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = play(&["--timeout", "1", "--o-engine", &late], "2 2\nn\n");
    assert!(out.contains("O (fixture) plays"), "{out}");
    // And the start-up deadline, when it runs out, is named.
    let slower = format!("{late} 4");
    let args = ["--startup-timeout", "2", "--o-engine", &slower];
    let out = run(&args, "2 2\nn\n");
    let err = flat(&String::from_utf8_lossy(&out.stderr)).replace("   ", " ");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("did not answer `name` within 2 s (--startup-timeout)"),
        "{err}"
    );
}

#[test]
fn an_engine_that_exits_at_once_or_cannot_start() {
    let out = run(&["--x-engine", "false", "--o", "human"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = flat(&String::from_utf8_lossy(&out.stderr)).replace("   ", " ");
    assert!(
        err.contains("the engine `false` stopped: its output closed"),
        "{err}"
    );
    let out = run(&["--o-engine", "/nonexistent/engine --flag"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = flat(&String::from_utf8_lossy(&out.stderr)).replace("   ", " ");
    assert!(
        err.contains("cannot start the engine `/nonexistent/engine --flag`: No such file"),
        "{err}"
    );
    // Said once, not "cannot start the engine …: cannot start: …".
    assert_eq!(err.matches("cannot start").count(), 1, "{err}");
}

#[test]
fn end_of_input_mid_game_exits_cleanly() {
    let out = play(&["--o", "random", "--seed", "5"], "2 2\n");
    assert!(out.contains("O (random) plays"), "{out}");
    assert!(out.ends_with("End of input: leaving the game.\nThanks for playing.\n"));
    // And at the menu.
    assert!(play(&[], "").ends_with("Goodbye.\n"));
}

#[test]
fn the_menu_sets_up_a_hot_seat_game() {
    let input = lines(&[&["1", "1", "9", "1"][..], &X_TOP_ROW[..], &["n"]].concat());
    let out = play(&[], &input);
    assert!(out.contains("  1) play\n  2) quit\n"), "{out}");
    assert!(out.contains("  1) two people at one keyboard\n"), "{out}");
    assert!(out.contains("  5) gomoku, 16x16, 5 in a row\n"), "{out}");
    assert!(
        out.contains("  6) renju, 15x15: X has forbidden cells\n"),
        "{out}"
    );
    assert!(
        out.contains("'9' is not one of the choices: enter a number from 1 to 8."),
        "{out}"
    );
    assert!(out.contains("X (player 1) wins"), "{out}");
    assert!(play(&[], "2\n").ends_with("Goodbye.\n"));
}

#[test]
fn the_menu_sets_up_a_bot_as_x_on_a_custom_board() {
    // A person against random, the bot playing X, on 4 rows x 5 columns, K 3.
    let input = "1\n2\nrandom\n2\n8\n4\n5\n3\n1\nq\nn\n";
    let out = play(&["--seed", "9"], input);
    assert!(out.contains("New game on 4x5, 3 in a row."), "{out}");
    assert!(out.contains("X (random) against O (you)"), "{out}");
    assert!(out.contains("X (random) plays"), "{out}");
    assert!(out.contains("O (you), your move: q"), "{out}");
}

#[test]
fn two_bots_play_on_their_own_and_repeat_with_the_same_seed() {
    let args = [
        "--x", "random", "--o", "blocking", "--board", "4x4", "--seed", "21",
    ];
    let first = play(&args, "");
    assert!(first.contains("X (random) against O (blocking)"), "{first}");
    assert!(
        first.contains("wins with") || first.contains("it's a draw"),
        "{first}"
    );
    assert!(first.contains("Bots use seed 21"), "{first}");
    assert_eq!(first, play(&args, ""));
    // The same bot on both sides gets told apart.
    let out = play(&["--x", "random", "--o", "random", "--seed", "1"], "n\n");
    assert!(out.contains("X (random #1) against O (random #2)"), "{out}");
}

#[test]
fn bad_flags_are_refused_before_anything_starts() {
    // Every bad flag is a usage error: clap's message, exit status 2.
    let out = run(&["--x", "human", "--x-engine", "python3 x.py"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));

    let out = run(&["--k", "7"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("k 7: must be from 1 to 3"));
    // With the usage of `kinrow play`, whose flag it is, not the engine's.
    let out = run(&["--board", "3x3", "--k", "4"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = flat(&String::from_utf8_lossy(&out.stderr)).replace("   ", " ");
    assert!(err.contains("k 4: must be from 1 to 3"), "{err}");
    assert!(err.contains("Usage: kinrow play [OPTIONS]"), "{err}");

    let out = run(&["--o", "stockfish"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown bot 'stockfish'"));

    // Zero seconds is not a wait; the message must not offer it.
    let out = run(&["--timeout", "0"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = flat(&String::from_utf8_lossy(&out.stderr)).replace("   ", " ");
    assert!(err.contains("above 0 and at most 86400"), "{err}");

    let out = run(&["--o-engine", "python3 'unclosed"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unclosed ' quote"));
}

#[test]
fn control_characters_are_shown_never_sent_to_the_terminal() {
    // Arrow keys typed at the prompt arrive as escape sequences; quoted back
    // raw they would move the cursor over the prompt. `play` checks that no
    // escape byte reaches the output.
    let out = play(&HOT_SEAT, "\x1b[A\x1b[D\n2 \x1b[B\n1 1\n");
    assert!(out.contains("your move: ^[[A^[[D\n"), "{out}");
    assert!(out.contains("'^[[A^[[D' is not a number."), "{out}");
    assert!(out.contains("'^[[B' is not a number."), "{out}");
    assert!(out.contains(" 1  (X)|   |\n"), "{out}");
    // Nor can an engine's name or answers recolour or clear the screen.
    let out = play(&["--o-engine", &fixture("escapes")], "2 2\nn\n");
    assert!(out.contains("X (you) against O (^[[31mred^[[0m)"), "{out}");
    assert!(
        flat(&out).contains("answered '^[[2Jresign' to genmove, which is not a move."),
        "{out}"
    );
}

/// Pids of the live (not zombie) children of `parent`, from /proc, but
/// for its warden (which kills what is left once `parent` is gone).
fn live_children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            // `pid (comm) state ppid …`; comm may hold spaces, so split
            // after its closing parenthesis.
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((_, rest)) = stat.rsplit_once(") ") else {
                return false;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            fields.first() != Some(&"Z")
                && fields.get(1) == Some(&parent.to_string().as_str())
                && comm.trim() != "kinrow-warden"
        })
        .collect()
}

/// Whether a process is gone (or only a zombie waiting to be reaped).
fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => true,
    }
}

#[test]
fn ctrl_c_while_an_engine_thinks_leaves_no_engine_running() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    // The silent engine sleeps a minute on genmove: on its own it would
    // outlive `kinrow play` by that long.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kinrow"))
        .args(["play", "--o-engine", &fixture("silent")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kinrow play starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdin.write_all(b"2 2\n").expect("move sent");
    // The echo of the move comes just before the engine is told and asked.
    let mut line = String::new();
    while !line.contains("your move: 2 2") {
        line.clear();
        assert!(stdout.read_line(&mut line).expect("output") > 0, "no echo");
    }
    let engines = live_children(child.id());
    assert_eq!(engines.len(), 1, "{engines:?}");
    std::thread::sleep(Duration::from_millis(300));

    // SAFETY: a signal to the child we started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = child.wait().expect("kinrow play ends");
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    let until = Instant::now() + Duration::from_secs(5);
    while !is_dead(engines[0]) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(is_dead(engines[0]), "engine {} left running", engines[0]);
}

#[test]
fn sigterm_at_the_prompt_ends_kinrow_play_by_it_and_its_engine_with_it() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    // A person to move, the bot's engine up and waiting, nothing typed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kinrow"))
        .args(["play", "--o", "random"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("kinrow play starts");
    let _stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("your move:") {
        let n = stdout.read(&mut buf).expect("output");
        assert!(n > 0, "no prompt: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    let engines = live_children(child.id());
    assert_eq!(engines.len(), 1, "{engines:?}");

    // SAFETY: a signal to the child we started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let status = child.wait().expect("kinrow play ends");
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    let until = Instant::now() + Duration::from_secs(5);
    while !is_dead(engines[0]) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(is_dead(engines[0]), "engine {} left running", engines[0]);
}

#[test]
fn the_menu_takes_a_board_by_its_size_and_refuses_an_ambiguous_word() {
    // `gomoku` names two boards: asked again, never a silent pick. `two`
    // names two modes.
    let out = play(&[], "play\ntwo\n1\ngomoku\n16X16\nq\nn\n");
    assert!(
        out.contains("'two' is more than one of the choices: enter its number."),
        "{out}"
    );
    assert!(
        out.contains("'gomoku' is more than one of the choices: enter its number."),
        "{out}"
    );
    assert!(out.contains("New game on 16x16, 5 in a row."), "{out}");
    let out = play(&[], "1\n1\n4x4\nq\nn\n");
    assert!(out.contains("New game on 4x4, 4 in a row."), "{out}");
}

/// Runs `kinrow play ARGS` with `COLUMNS` set (or unset), the output not a
/// terminal; returns stdout.
fn play_in_columns(columns: Option<&str>, args: &[&str], input: &str) -> String {
    let mut cmd = cargo_bin_cmd!("kinrow");
    cmd.arg("play").args(args).env_remove("COLUMNS");
    if let Some(c) = columns {
        cmd.env("COLUMNS", c);
    }
    let out = cmd
        .write_stdin(input)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("kinrow play runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn a_refusal_stays_in_view_above_the_prompt_on_a_tall_board() {
    // 16x16 draws 35 lines: in an 80x24 window a message printed before
    // the board scrolled away. It now comes after the board, above the
    // prompt; so do the help and the bot's reply.
    let args = ["--board", "16x16", "--o", "random", "--seed", "3"];
    let out = play_in_columns(Some("80"), &args, "8 8\n99 1\nh\nq\nn\n");
    let lines: Vec<&str> = out.lines().collect();
    let prompts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("X (you), your move:"))
        .collect();
    assert_eq!(prompts.len(), 4, "{out}");
    // What is said between two prompts comes after the board's last line,
    // within the 23 lines above the prompt that a 24-line window shows.
    let said_after_board = |prompt: usize, text: &str| {
        let before = &lines[prompts[prompt - 1] + 1..prompts[prompt]];
        let board_end = before.iter().rposition(|l| l.contains("15  16"));
        let said = before.iter().position(|l| l.contains(text));
        matches!((board_end, said), (Some(b), Some(s)) if s > b && before.len() - s <= 23)
    };
    assert!(said_after_board(1, "O (random) plays"), "{out}");
    assert!(said_after_board(2, "There is no row 99"), "{out}");
    assert!(
        said_after_board(3, "Enter a move as row and column"),
        "{out}"
    );
}

#[test]
fn a_board_wider_than_the_window_asks_to_widen_it() {
    fn hot_seat_on(board: &str) -> [&str; 6] {
        ["--board", board, "--x", "human", "--o", "human"]
    }
    // 16x16 takes 72 columns: too wide for 60, fine for 80.
    let out = play_in_columns(Some("60"), &hot_seat_on("16x16"), "q\nn\n");
    assert!(
        flat(&out).contains("The board is 72 columns wide and the window 60: widen the window"),
        "{out}"
    );
    let out = play_in_columns(Some("80"), &hot_seat_on("16x16"), "q\nn\n");
    assert!(!out.contains("widen"), "{out}");
    // Width unknown (not a terminal, no COLUMNS): 80 is assumed, and 20x20
    // (88 columns) does not fit.
    let out = play_in_columns(None, &hot_seat_on("20x20"), "q\nn\n");
    assert!(
        flat(&out).contains("88 columns wide and the window 80"),
        "{out}"
    );
    // Messages wrap to a narrow window too.
    let out = play_in_columns(Some("40"), &hot_seat_on("3x3"), "q\nn\n");
    assert!(
        out.lines()
            .all(|l| l.chars().count() <= 40 || l.contains('|')),
        "{out}"
    );
}

#[test]
fn the_hint_key_shows_the_value_of_every_move() {
    // Hot seat on 3x3: after X 1 1 and O 1 2 (a losing reply), the hint
    // shows X's winning moves with their distance; on a board over 64 cells
    // it says why there is none.
    let input = lines(&["1 1", "1 2", "a", "q", "n"]);
    let out = play(&HOT_SEAT, &input);
    assert!(out.contains("values of X's moves"), "{out}");
    assert!(out.contains("With best play: win 5 for X."), "{out}");
    assert!(
        out.contains("   1    X    O    D\n   2   W5   W5    D\n   3   W5    D    D\n"),
        "{out}"
    );
    let out = play(
        &["--board", "9x9", "--k", "5", "--x", "human", "--o", "human"],
        &lines(&["hint", "q", "n"]),
    );
    assert!(
        out.contains("Hints need a board of up to 64 cells; this one has 81."),
        "{out}"
    );
}

#[test]
fn renju_from_the_menu_marks_and_refuses_black_s_forbidden_cells() {
    // Black's open twos 8 8 8 9 and 9 7 10 7: 8 7 is a double-three.
    let moves = [
        "8 8", "1 1", "8 9", "1 3", "9 7", "15 15", "10 7", "15 13", "8 7", "8 10", "q", "n",
    ];
    let input = lines(&[&["1", "1", "6"][..], &moves[..]].concat());
    let out = play(&[], &input);
    assert!(
        out.contains("15x15, 5 in a row (renju: cells forbidden to X marked #)"),
        "{out}"
    );
    assert!(
        out.contains("  8     |   |   |   |   |   | # | X | X |"),
        "{out}"
    );
    assert!(out.contains("# forbidden to X: 8 7 double-three"), "{out}");
    assert!(
        flat(&out).contains(
            "8 7 is forbidden to X under renju: it would make two open threes at once \
             (a double-three). Choose a cell not marked #."
        ),
        "{out}"
    );
    // The refusal changed nothing: 8 10 is X's move, and O is to move.
    assert!(
        out.contains("  8     |   |   |   |   |   |   | X | X |(X)|"),
        "{out}"
    );
    // Caro from the menu, and a renju K that is not five, in words.
    let out = play(&[], "1\n1\n7\nq\nn\n");
    assert!(
        out.contains("(caro: a five blocked at both ends does not win)"),
        "{out}"
    );
    let out = play(&[], "1\n1\n8\n9\n9\n4\n3\nq\n");
    assert!(out.contains("No such game: "), "{out}");
}
