//! `kinrow --protocol gtp` through the real binary, following what GoGui 1.6
//! was measured to send (docs/gui.md) step by step: what it sends a player
//! and a ruler, the full replay after every move, duplicate `play`, the
//! empty `gogui-rules_legal_moves` at the end, and bad input; and two
//! engines driven as `gogui-twogtp` drives them.

use assert_cmd::Command;
use kinrow::protocol::gtp::{GtpMove, Vertex};
use kinrow::rules::{Board, Cell, Geometry, Outcome, Player, Rule};
use std::time::Duration;

/// Runs `kinrow --protocol gtp ARGS` on `requests` (one a line); the
/// responses, each without its final empty line.
fn gtp(args: &[&str], requests: &[String]) -> Vec<String> {
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args(["--protocol", "gtp"])
        .args(args)
        .write_stdin(input)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("kinrow runs");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.ends_with("\n\n"), "{text:?}");
    text.split_terminator("\n\n").map(str::to_string).collect()
}

fn lines(requests: &[&str]) -> Vec<String> {
    requests.iter().map(|s| s.to_string()).collect()
}

const GOMOKU: [&str; 8] = [
    "--board", "15x15", "--k", "5", "--bot", "random", "--seed", "4",
];

const RULER_COMMANDS: [&str; 6] = [
    "gogui-rules_game_id",
    "gogui-rules_board",
    "gogui-rules_board_size",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_final_result",
];

/// The cells of a `gogui-rules_board` answer, checked for shape: rows of
/// `X`/`O`/`.` separated by single spaces, nothing else.
fn board_rows(answer: &str, side: usize) -> Vec<Vec<char>> {
    let body = answer.strip_prefix("= ").expect("a success");
    let rows: Vec<Vec<char>> = body
        .lines()
        .map(|l| {
            let cells: Vec<char> = l.split(' ').map(|c| c.chars().next().unwrap()).collect();
            assert!(
                l.split(' ').all(|c| c.len() == 1 && "XO.".contains(c)),
                "{l:?}"
            );
            cells
        })
        .collect();
    assert_eq!(rows.len(), side, "{answer}");
    assert!(rows.iter().all(|r| r.len() == side), "{answer}");
    rows
}

/// The vertices of a `gogui-rules_legal_moves` answer.
fn vertices(answer: &str) -> Vec<String> {
    let body = answer.strip_prefix('=').expect("a success").trim();
    body.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_player_startup_of_gogui() {
    // What GoGui sends the player (docs/gui.md), in its order; komi is listed, so it comes too.
    let got = gtp(
        &GOMOKU,
        &lines(&[
            "name",
            "protocol_version",
            "version",
            "list_commands",
            "gogui-rules_game_id",
            "boardsize 15",
            "clear_board",
            "komi 6.5",
            "gogui-rules_game_id",
            "gogui-rules_board_size",
            "gogui-rules_game_id",
            "name",
            "protocol_version",
            "gogui-rules_board_size",
            "boardsize 15",
            "clear_board",
            "gogui-rules_board_size",
            "gogui-rules_game_id",
            "quit",
            "name",
        ]),
    );
    assert_eq!(got[0], "= kinrow");
    assert_eq!(got[1], "= 2");
    assert_eq!(got[2], format!("= {}", env!("CARGO_PKG_VERSION")));
    let listed: Vec<&str> = got[3].trim_start_matches("= ").lines().collect();
    // Every command GoGui needs listed.
    for needed in [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "play",
        "genmove",
        "undo",
    ]
    .iter()
    .chain(RULER_COMMANDS.iter())
    {
        assert!(listed.contains(needed), "{needed} missing: {listed:?}");
    }
    assert_eq!(got[4], "= Gomoku");
    assert_eq!(got[5..8], ["=", "=", "="]);
    assert_eq!(got[9], "= 15", "a bare integer");
    assert_eq!(got[17], "= Gomoku");
    assert_eq!(got[18], "=", "quit answers first");
    assert_eq!(got.len(), 19, "nothing is read after quit");
}

#[test]
fn the_ruler_startup_of_gogui() {
    // docs/gui.md: the ruler never gets boardsize; its size comes from the
    // command line.
    let mut requests = lines(&[
        "list_commands",
        "gogui-rules_game_id",
        "gogui-rules_board_size",
    ]);
    for _ in 0..3 {
        requests.extend(lines(&[
            "clear_board",
            "gogui-rules_board",
            "gogui-rules_board_size",
            "gogui-rules_side_to_move",
        ]));
    }
    requests.extend(lines(&[
        "gogui-rules_legal_moves",
        "name",
        "protocol_version",
        "list_commands",
        "version",
    ]));
    let got = gtp(&GOMOKU, &requests);
    assert_eq!(got[1], "= Gomoku");
    assert_eq!(got[2], "= 15");
    for round in 0..3 {
        let at = 3 + 4 * round;
        assert_eq!(got[at], "=");
        let rows = board_rows(&got[at + 1], 15);
        assert!(rows.iter().flatten().all(|&c| c == '.'));
        assert_eq!(got[at + 2], "= 15");
        assert_eq!(got[at + 3], "= black");
    }
    let legal = vertices(&got[15]);
    assert_eq!(legal.len(), 225);
    assert!(legal.contains(&"H8".to_string()) && legal.contains(&"P15".to_string()));
    assert!(!legal
        .iter()
        .any(|v| v.starts_with('I') || v != &v.to_uppercase()));
    assert_eq!(got[16], "= kinrow");
}

/// GoGui's ruler traffic after each move (docs/gui.md): clear_board, the
/// whole game as `play`, then the queries, the side to move once per move.
fn resync(game: &[String]) -> Vec<String> {
    let mut r = vec!["clear_board".to_string()];
    r.extend(game.iter().cloned());
    r.extend(lines(&["gogui-rules_board", "gogui-rules_board_size"]));
    r.extend((0..game.len().max(1)).map(|_| "gogui-rules_side_to_move".to_string()));
    r.extend(lines(&[
        "gogui-rules_legal_moves",
        "gogui-rules_legal_moves",
    ]));
    r
}

#[test]
fn a_whole_game_with_gogui_replaying_it_into_the_ruler() {
    // A player (random, so the game runs to its end) and a ruler: GoGui asks
    // the player for every move of both colours (computer-both), then
    // replays the game into the ruler with the duplicate `play`s it sends
    // (twice after a genmove), until legal_moves comes back empty.
    let geo = Geometry::new(15, 15, 5, Rule::Free).unwrap();
    let mut game: Vec<String> = Vec::new();
    let mut board = Board::new(geo);
    let mut player_requests = lines(&["boardsize 15", "clear_board"]);
    // The player is asked for moves one process run at a time: play the
    // whole game in one run by sending genmoves of alternating colour.
    for i in 0..225 {
        player_requests.push(format!("genmove {}", if i % 2 == 0 { "b" } else { "w" }));
    }
    let answers = gtp(&GOMOKU, &player_requests);
    assert_eq!(answers[..2], ["=", "="]);
    for (i, answer) in answers[2..].iter().enumerate() {
        if let Some(outcome) = board.outcome() {
            // Asked on after the end, as match tools do: the side that lost
            // resigns, anyone else passes.
            let color = if i % 2 == 0 { Player::X } else { Player::O };
            let lost = matches!(outcome, Outcome::Win { winner, .. } if winner != color);
            assert_eq!(answer, if lost { "= resign" } else { "= pass" });
            continue;
        }
        let text = answer.strip_prefix("= ").expect("a move");
        let Ok(GtpMove::Vertex(v)) = text.parse::<GtpMove>() else {
            panic!("{text}")
        };
        assert_eq!(text, text.to_uppercase(), "upper-case vertices");
        let cell = v.cell(geo).expect("on the board");
        board
            .try_play(cell)
            .expect("GoGui does not check: the engine must be legal");
        game.push(format!(
            "play {} {text}",
            if i % 2 == 0 { 'B' } else { 'W' }
        ));
    }
    assert!(board.is_over());

    // The ruler: a resync after every move, duplicates after each move.
    let mut ruler = Vec::new();
    for n in 1..=game.len() {
        ruler.extend(resync(&game[..n]));
        ruler.push(game[n - 1].clone());
        ruler.push(game[n - 1].clone());
    }
    ruler.push("gogui-rules_final_result".into());
    let got = gtp(&GOMOKU, &ruler);
    let mut at = 0;
    let mut replay = Board::new(geo);
    for n in 1..=game.len() {
        replay.try_play(board.moves().nth(n - 1).unwrap()).unwrap();
        assert_eq!(got[at], "=", "clear_board");
        at += 1;
        for _ in 0..n {
            assert_eq!(got[at], "=", "play");
            at += 1;
        }
        let rows = board_rows(&got[at], 15);
        for (r, row) in rows.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                let want = replay
                    .stone_at(Cell::new(r as u8, c as u8))
                    .map_or('.', |p| p.letter());
                assert_eq!(ch, want, "after {n} moves, row {r} col {c}");
            }
        }
        assert_eq!(got[at + 1], "= 15");
        at += 2;
        let side = if n % 2 == 0 { "= black" } else { "= white" };
        for _ in 0..n {
            assert_eq!(got[at], side);
            at += 1;
        }
        for _ in 0..2 {
            let legal = vertices(&got[at]);
            if replay.is_over() {
                assert!(legal.is_empty(), "the end is an empty list: {}", got[at]);
            } else {
                assert_eq!(legal.len(), 225 - n);
            }
            at += 1;
        }
        // The duplicates are refused; the next resync repairs nothing
        // because nothing was broken.
        for _ in 0..2 {
            assert!(got[at].starts_with("? illegal move: "), "{}", got[at]);
            at += 1;
        }
    }
    let result = got[at].strip_prefix("= ").unwrap();
    match board.outcome().unwrap() {
        Outcome::Win { winner, line } => {
            let who = if winner.letter() == 'X' {
                "Black"
            } else {
                "White"
            };
            let cells: Vec<String> = line
                .cells()
                .map(|c| Vertex::of(c, geo).to_string())
                .collect();
            assert_eq!(
                result,
                format!("{who} wins ({} in a row: {}).", line.len(), cells.join(" "))
            );
        }
        Outcome::Draw => assert_eq!(result, "Draw (the board is full)."),
    }
    assert_eq!(at + 1, got.len());
}

#[test]
fn a_human_click_back_and_new_game() {
    // docs/gui.md: a click is checked with legal_moves and
    // side_to_move; Back is `undo`; New Game is boardsize + clear_board.
    let got = gtp(
        &["--board", "3x3", "--k", "3", "--bot", "minimax"],
        &lines(&[
            "gogui-rules_legal_moves",
            "gogui-rules_side_to_move",
            "play B B2",
            "genmove w",
            "undo",
            "undo",
            "undo",
            "gogui-rules_game_id",
            "boardsize 3",
            "clear_board",
            "showboard",
        ]),
    );
    assert_eq!(
        vertices(&got[0]),
        ["A3", "B3", "C3", "A2", "B2", "C2", "A1", "B1", "C1"]
    );
    assert_eq!(got[1], "= black");
    assert_eq!(got[2], "=");
    // Minimax answers the centre with a corner.
    assert!(
        ["= A1", "= A3", "= C1", "= C3"].contains(&got[3].as_str()),
        "{}",
        got[3]
    );
    assert_eq!(got[4..6], ["=", "="]);
    assert_eq!(got[6], "? cannot undo: the board is empty");
    assert_eq!(got[7], "= Kinrow", "not five in a row: not Gomoku");
    assert_eq!(
        got[10],
        "=\n    A B C\n 3  . . . 3\n 2  . . . 2\n 1  . . . 1\n    A B C\nThe game is not over: black to move."
    );
}

#[test]
fn bad_input_gets_a_clear_error_and_changes_nothing() {
    let got = gtp(
        &GOMOKU,
        &lines(&[
            "7 frobnicate",
            "play",
            "play B",
            "play X H8",
            "play B I8",
            "play B H0",
            "play B Q1",
            "play B pass",
            "play W H8",
            "12 play B H8",
            "play W h8",
            "genmove b",
            "genmove purple",
            "boardsize 19",
            "boardsize x",
            "komi lots",
            "known_command play",
            "known_command frobnicate",
            "3 gogui-rules_board extra",
            "gogui-rules_side_to_move",
        ]),
    );
    let want = [
        "?7 unknown command: 'frobnicate'",
        "? syntax error: usage: play COLOR VERTEX",
        "? syntax error: usage: play COLOR VERTEX",
        "? syntax error: 'X' is not a color (b, w)",
        "? syntax error: 'I8' is not a vertex like H8 or pass",
        "? syntax error: 'H0' is not a vertex like H8 or pass",
        "? illegal move: Q1 is off the 15x15 board",
        "? illegal move: passing is not a move in k-in-a-row",
        "? illegal move: it is black's turn",
        "=12",
        "? illegal move: H8 is occupied",
        "? illegal move: it is white's turn",
        "? syntax error: 'purple' is not a color (b, w)",
        "? unacceptable size: 19: this engine plays 15x15, its --board (start it with --board 19x19, or without --board to take the size from boardsize)",
        "? syntax error: 'x' is not a board size",
        "? syntax error: 'lots' is not a number",
        "= true",
        "= false",
        "?3 syntax error: usage: gogui-rules_board",
        "= white",
    ];
    assert_eq!(got, want);
}

#[test]
fn a_gogui_clock_reaches_the_game_clock() {
    // GoGui sends time_left before genmove to an engine that lists it
    // (GtpUtil.sendTimeLeft). A searching bot allowed a minute a move gets
    // a share of what is left (2 s over 20 moves: 90 ms; a 5 s period over
    // 3 stones: 1.5 s) and answers long before its minute.
    let started = std::time::Instant::now();
    let got = gtp(
        &[
            "--board",
            "15x15",
            "--bot",
            "minimax",
            "--movetime",
            "20000",
        ],
        &lines(&[
            "known_command time_left",
            "time_left b 2 0",
            "genmove b",
            "time_left w 5 3",
            "genmove w",
            "time_left w -3 0",
            "time_left b 10",
            "time_left b x 0",
            "time_left b 10 -1",
            "time_left red 10 0",
            "gogui-rules_side_to_move",
        ]),
    );
    assert!(started.elapsed() < Duration::from_secs(30), "{got:?}");
    assert_eq!(got[..2], ["= true", "="]);
    assert!(
        got[2].starts_with("= ") && got[4].starts_with("= "),
        "{got:?}"
    );
    assert_eq!(got[3], "=");
    assert_eq!(
        got[5..],
        [
            "=",
            "? syntax error: usage: time_left COLOR SECONDS STONES",
            "? syntax error: 'x' is not a number of seconds",
            "? syntax error: '-1' is not a number of stones",
            "? syntax error: 'red' is not a color (b, w)",
            "= black",
        ]
    );
}

#[test]
fn boards_gtp_cannot_name_are_refused_at_start() {
    for (board, why) in [
        ("15x10", "GTP boards are square"),
        ("26x26", "GTP vertices name 25 columns at most"),
    ] {
        let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
            .args(["--protocol", "gtp", "--board", board])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{board}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{board}: {err}");
    }
    // 25x25 is the largest: its last column is Z.
    let got = gtp(
        &["--board", "25x25", "--k", "5"],
        &lines(&["play B Z25", "gogui-rules_board_size"]),
    );
    assert_eq!(got, ["=", "= 25"]);
}

#[test]
fn an_unused_copy_starts_and_ends_quietly() {
    // GoGui starts copies it never asks anything: end of input at once must
    // be a quiet exit, with nothing written anywhere.
    let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args(["--protocol", "gtp", "--board", "15x15"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

#[test]
fn without_board_the_board_comes_from_boardsize() {
    // K is not held to the 3x3 default: --k 5 alone starts, on 15x15 until
    // boardsize says otherwise; K stays 5, so a board under 5 is refused.
    let got = gtp(
        &["--k", "5", "--bot", "random", "--seed", "1"],
        &lines(&[
            "gogui-rules_board_size",
            "gogui-rules_game_id",
            "boardsize 19",
            "gogui-rules_board_size",
            "play B T19",
            "boardsize 4",
            "gogui-rules_board_size",
            "boardsize 26",
            "boardsize 9",
            "gogui-rules_legal_moves",
        ]),
    );
    assert_eq!(got[..5], ["= 15", "= Gomoku", "=", "= 19", "="]);
    assert!(
        got[5].starts_with("? unacceptable size: 4: ") && got[5].contains('5'),
        "{}",
        got[5]
    );
    assert_eq!(got[6], "= 19", "a refused size changes nothing");
    assert_eq!(
        got[7],
        "? unacceptable size: 26x26: GTP vertices name 25 columns at most (A-Z without I)"
    );
    assert_eq!(got[8], "=");
    assert_eq!(vertices(&got[9]).len(), 81, "a new, empty 9x9 board");
    // Without --k either, K is min(5, N): tic-tac-toe first, then gomoku.
    let got = gtp(
        &[],
        &lines(&[
            "gogui-rules_board_size",
            "boardsize 15",
            "gogui-rules_game_id",
            "boardsize 3",
            "gogui-rules_game_id",
        ]),
    );
    assert_eq!(got, ["= 3", "=", "= Gomoku", "=", "= Kinrow"]);
    // K over the largest GTP board is refused at start, as clap would.
    let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args(["--protocol", "gtp", "--k", "26"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--k 26: must be from 1 to 25"));
}

/// A GTP engine kept running, asked one request at a time (as a match tool
/// asks, each answer read before the next request).
struct Program {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Program {
    fn start(args: &[&str]) -> Program {
        use std::process::Stdio;
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
            .args(["--protocol", "gtp"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("kinrow starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        Program {
            child,
            stdin,
            stdout,
        }
    }

    /// The answer to `request`, without its empty line; a failure panics.
    fn send(&mut self, request: &str) -> String {
        use std::io::{BufRead, Write};
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "{request}");
            if line == "\n" {
                break;
            }
            answer.push_str(&line);
        }
        let answer = answer.trim_end();
        match answer.strip_prefix('=') {
            Some(body) => body.trim_start().to_string(),
            None => panic!("{request}: {answer}"),
        }
    }

    fn quit(mut self) {
        assert_eq!(self.send("quit"), "");
        assert!(self.child.wait().unwrap().success());
    }
}

/// One game driven as gogui-twogtp drives it (TwoGtp.autoPlay): boardsize
/// and clear_board to both, then genmove to the side to move and its move
/// played on the other, until a resign or two passes in a row; then
/// final_score from both. The result and the game, checked by the rules.
fn twogtp_game(programs: &mut [Program; 2], size: u32, k: u32) -> (String, Board) {
    for p in programs.iter_mut() {
        assert_eq!(p.send(&format!("boardsize {size}")), "");
        assert_eq!(p.send("clear_board"), "");
    }
    let geo = Geometry::new(size, size, k, Rule::Free).unwrap();
    let mut board = Board::new(geo);
    let mut passes = 0;
    for turn in 0.. {
        let (color, mover, other) = if turn % 2 == 0 {
            ("b", 0, 1)
        } else {
            ("w", 1, 0)
        };
        let answer = programs[mover].send(&format!("genmove {color}"));
        assert!(turn <= geo.area() + 2, "the game never ends");
        match answer.as_str() {
            "resign" => {
                // Only the side that lost resigns.
                let Some(Outcome::Win { winner, .. }) = board.outcome() else {
                    panic!("resigned in {board:?}")
                };
                assert_ne!(
                    winner.letter(),
                    color.to_uppercase().chars().next().unwrap()
                );
                break;
            }
            "pass" => {
                assert!(board.is_over(), "passed in {board:?}");
                passes += 1;
            }
            vertex => {
                assert!(!board.is_over(), "{vertex} after the end");
                let Ok(GtpMove::Vertex(v)) = vertex.parse::<GtpMove>() else {
                    panic!("{vertex}")
                };
                board.try_play(v.cell(geo).expect("on the board")).unwrap();
                passes = 0;
            }
        }
        assert_eq!(programs[other].send(&format!("play {color} {answer}")), "");
        if passes == 2 {
            break;
        }
    }
    let scores: Vec<String> = programs.iter_mut().map(|p| p.send("final_score")).collect();
    assert_eq!(scores[0], scores[1], "both engines score the game alike");
    (scores[0].clone(), board)
}

#[test]
fn gogui_twogtp_plays_kinrow_against_itself_to_a_result() {
    // Started as a user would start them for twogtp: no --board (twogtp
    // sends boardsize), K from the command line. A node cap, not the
    // clock, ends each search, so the games are the same on any machine
    // under any load (with 20 ms a move, a loaded machine once drew).
    let args = [
        "--k",
        "5",
        "--bot",
        "minimax",
        "--set",
        "nodes=3000",
        "--movetime",
        "10000",
        "--seed",
    ];
    let mut programs = [
        Program::start(&[&args[..], &["1"]].concat()),
        Program::start(&[&args[..], &["2"]].concat()),
    ];
    // Gomoku to a win: the loser resigns, and final_score names the
    // winner, as the moves say.
    let (score, board) = twogtp_game(&mut programs, 15, 5);
    let Some(Outcome::Win { winner, .. }) = board.outcome() else {
        panic!("{board:?}")
    };
    assert_eq!(score, if winner == Player::X { "B+" } else { "W+" });
    // The same two processes, the next game on 5x5 with five in a row,
    // played out by minimax: a full board, two passes, a draw ("0").
    let (score, board) = twogtp_game(&mut programs, 5, 5);
    assert_eq!(board.outcome(), Some(Outcome::Draw), "{board:?}");
    assert_eq!(score, "0");
    let [a, b] = programs;
    a.quit();
    b.quit();
}

#[test]
fn passes_and_scores_after_the_end() {
    let got = gtp(
        &["--board", "3x3", "--k", "3"],
        &lines(&[
            "final_score",
            "play b B2",
            "play w A1",
            "play b B1",
            "play w A2",
            "play b B3",
            "final_score",
            "play w pass",
            "play b pass",
            "play b C3",
            "undo",
            "undo",
            "undo",
            "gogui-rules_side_to_move",
            "final_score",
        ]),
    );
    assert_eq!(
        got,
        [
            "? cannot score: the game is not over (black to move)",
            "=",
            "=",
            "=",
            "=",
            "=",
            "= B+",
            "=",
            "=",
            "? illegal move: the game is over (Black wins (3 in a row: B3 B2 B1).)",
            "=",
            "=",
            "=",
            "= black",
            "? cannot score: the game is not over (black to move)",
        ]
    );
}

#[test]
fn renju_and_caro_rulers_name_their_game_and_keep_forbidden_cells_out() {
    // Black's open twos H8 J8 and G7 G6: G8 is a double-three.
    let position = [
        "play B H8",
        "play W A15",
        "play B J8",
        "play W C15",
        "play B G7",
        "play W P1",
        "play B G6",
        "play W N1",
    ];
    let mut requests = vec!["gogui-rules_game_id"];
    requests.extend(position);
    requests.extend([
        "play B G8",
        "gogui-rules_legal_moves",
        "gogui-rules_board",
        "play B H7",
        "play W G8",
        "gogui-rules_side_to_move",
    ]);
    let args = ["--board", "15x15", "--rule", "renju", "--bot", "random"];
    let got = gtp(&args, &lines(&requests));
    assert_eq!(got[0], "= Renju");
    assert!(got[1..9].iter().all(|a| a == "="), "{got:?}");
    assert_eq!(
        got[9],
        "? illegal move: G8 is forbidden to black (double-three)"
    );
    let legal = vertices(&got[10]);
    assert_eq!(legal.len(), 225 - 8 - 1);
    assert!(!legal.contains(&"G8".to_string()) && legal.contains(&"H7".to_string()));
    let rows = board_rows(&got[11], 15);
    assert_eq!(rows[7][6], '.', "the refused move left no stone");
    // White may take the cell forbidden to Black.
    assert_eq!(got[12..], ["=", "=", "= black"]);
    for rule in ["caro", "caro-exact"] {
        let got = gtp(
            &["--board", "15x15", "--rule", rule],
            &lines(&["gogui-rules_game_id"]),
        );
        assert_eq!(got, ["= Caro"], "{rule}");
    }
}
