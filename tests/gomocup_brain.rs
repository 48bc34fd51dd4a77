//! kinrow as a Gomocup brain (`kinrow --protocol gomocup`, or started as
//! `pbrain-*`): transcripts through the real binary for every command of the
//! protocol, bad input, the rules it refuses, and its time management.

use assert_cmd::Command;
use kinrow::protocol::gomocup::{Point, Reply};
use kinrow::rules::{Board, Cell, Geometry, Rule};
use std::time::Duration;

/// Runs `kinrow ARGS` on `input`; its answer lines (each must end in LF).
fn brain(args: &[&str], input: &str) -> Vec<String> {
    let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args(args)
        .write_stdin(input)
        .timeout(Duration::from_secs(30))
        .output()
        .expect("kinrow runs");
    assert!(out.status.success(), "{:?}", out);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.is_empty() || text.ends_with('\n'), "{text:?}");
    text.lines().map(str::to_string).collect()
}

/// The cell of a move answer.
fn cell(line: &str) -> Cell {
    match Reply::parse(line) {
        Reply::Move(Point { x, y }) => Cell::new(y as u8, x as u8),
        other => panic!("not a move: {line:?} ({other:?})"),
    }
}

fn gomoku(rule: Rule) -> Board {
    Board::new(Geometry::new(15, 15, 5, rule).unwrap())
}

#[test]
fn every_command_in_one_session() {
    // CR LF line ends, as managers send them; a lower-case word too.
    let input = [
        "ABOUT",
        "INFO timeout_turn 1000",
        "INFO timeout_match 0",
        "INFO max_memory 83886080",
        "INFO game_type 1",
        "INFO rule 0",
        "INFO folder /tmp/nowhere",
        "INFO evaluate 3,3",
        "INFO time_left 2147483647",
        "START 15",
        "BEGIN",
        "TURN 0,0",
        "takeback 0,0",
        "RESTART",
        "PLAY 7,7",
        "TURN 8,8",
        "RESTART",
        "BOARD",
        "7,7,2",
        "8,8,1",
        "9,9,2",
        "DONE",
        "SWAP2BOARD",
        "7,7",
        "DONE",
        "RECTSTART 20,10",
        "BEGIN",
        "END",
        "BEGIN",
    ]
    .join("\r\n")
        + "\r\n";
    let got = brain(
        &["--protocol", "gomocup", "--bot", "random", "--seed", "5"],
        &input,
    );
    assert_eq!(got.len(), 13, "nothing after END: {got:?}");
    assert_eq!(
        got[0],
        format!(
            "name=\"kinrow-random\", version=\"{}\", author=\"the kinrow authors\", country=\"-\"",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert_eq!(got[1], "OK");
    let play = |board: &mut Board, c: Cell| {
        board.try_play(c).unwrap_or_else(|e| panic!("{c}: {e}"));
    };
    let mut board = gomoku(Rule::Free);
    play(&mut board, cell(&got[2])); // BEGIN
    play(&mut board, Cell::new(0, 0)); // TURN 0,0
    let reply = cell(&got[3]);
    play(&mut board, reply);
    // Only the last move can be taken back; refused, nothing changes.
    assert_eq!(
        got[4],
        format!(
            "ERROR TAKEBACK 0,0: the last move is {},{}",
            reply.col, reply.row
        )
    );
    assert_eq!(got[5], "OK"); // RESTART
                              // PLAY imposes the brain's move, echoed; TURN then goes on from it.
    assert_eq!(got[6], "7,7");
    let mut board = gomoku(Rule::Free);
    play(&mut board, Cell::new(7, 7));
    play(&mut board, Cell::new(8, 8));
    play(&mut board, cell(&got[7]));
    assert_eq!(got[8], "OK"); // RESTART
                              // BOARD: the brain has one stone, the opponent two: the brain is O.
    let mut board = gomoku(Rule::Free);
    for c in [Cell::new(7, 7), Cell::new(8, 8), Cell::new(9, 9)] {
        play(&mut board, c);
    }
    play(&mut board, cell(&got[9]));
    assert_eq!(
        got[10],
        "ERROR SWAP2BOARD: kinrow does not play the swap2 opening"
    );
    assert_eq!(got[11], "OK"); // RECTSTART 20,10: 20 wide, 10 high
    let mut wide = Board::new(Geometry::new(10, 20, 5, Rule::Free).unwrap());
    play(&mut wide, cell(&got[12]));
}

#[test]
fn takeback_of_the_last_move() {
    let got = brain(
        &["--protocol", "gomocup", "--bot", "random", "--seed", "1"],
        "START 10\nBEGIN\nEND\n",
    );
    let first = cell(&got[1]);
    let input = format!(
        "START 10\nBEGIN\nTAKEBACK {},{}\nTAKEBACK {},{}\nBEGIN\n",
        first.col, first.row, first.col, first.row
    );
    let got = brain(
        &["--protocol", "gomocup", "--bot", "random", "--seed", "1"],
        &input,
    );
    assert_eq!(
        got[..3],
        ["OK".to_string(), got[1].clone(), "OK".to_string()]
    );
    assert_eq!(
        got[3],
        format!(
            "ERROR TAKEBACK {},{}: the board is empty",
            first.col, first.row
        )
    );
    // The board is empty again: BEGIN is accepted (and the same seed's
    // generator has moved on, so any move will do).
    cell(&got[4]);
}

/// A size refused names the size once, as the protocol gives it: width
/// first.
#[test]
fn a_refused_size_is_named_once_width_first() {
    let got = brain(
        &["--protocol", "gomocup", "--bot", "random"],
        "RECTSTART 40,3\nRECTSTART 3,4\nRECTSTART 20,15\n",
    );
    assert_eq!(
        got,
        [
            "ERROR unsupported size 40x3: width and height must be from 1 to 32",
            "ERROR unsupported size 3x4: k 5: must be from 1 to 4",
            "OK",
        ]
    );
}

#[test]
fn bad_lines_get_error_or_unknown_and_change_nothing() {
    let input = "BEGIN\nTURN 1,1\nRESTART\nSTART\nSTART 3\nSTART 40\nSTART 15\nHELLO there\n\
                 YXBOARD\nTURN\nTURN 1\nTURN x,y\nTURN 15,0\nTURN 3,3\nTURN 3,3\nBEGIN\n\
                 BOARD\n1,1,1\n2,2,2\n3,3,1\nDONE\nBOARD\n1,1,1\nnonsense\nDONE\n\
                 BOARD\n1,1,3\nDONE\nBOARD\n1,1,1\nTURN 4,4\nTAKEBACK 9,9\nPLAY 3,3\n";
    let got = brain(
        &["--protocol", "gomocup", "--bot", "random", "--seed", "2"],
        input,
    );
    let want_prefix = [
        "ERROR BEGIN: no board yet (START first)",
        "ERROR TURN: no board yet (START first)",
        "ERROR RESTART: no board yet (START first)",
        "ERROR START: '' is not a board size",
        "ERROR unsupported size 3x3: k 5: must be from 1 to 3",
        "ERROR unsupported size 40x40: width and height must be from 1 to 32",
        "OK",
        "UNKNOWN unknown command 'HELLO'",
        "UNKNOWN unknown command 'YXBOARD'",
        "ERROR TURN: '' is not a point X,Y",
        "ERROR TURN: '1' is not a point X,Y",
        "ERROR TURN: 'x,y' is not a point X,Y",
        "ERROR TURN 15,0: off the 15x15 board (X 0-14, Y 0-14)",
    ];
    assert_eq!(got[..want_prefix.len()], want_prefix, "{got:?}");
    let mut board = gomoku(Rule::Free);
    board.try_play(Cell::new(3, 3)).unwrap();
    board.try_play(cell(&got[13])).unwrap();
    assert_eq!(got[14], "ERROR TURN 3,3: the point is taken");
    assert_eq!(got[15], "ERROR BEGIN: the board has stones (RESTART first)");
    assert_eq!(
        got[16],
        "ERROR BOARD: 2 stones of the brain and 1 of the opponent: the brain can't be to move"
    );
    assert_eq!(got[17], "ERROR BOARD: 'nonsense' is not a stone X,Y,FIELD");
    assert_eq!(
        got[18],
        "ERROR BOARD: 1,1,3 is for continuous games, which kinrow does not play"
    );
    // A command before DONE ends the list (refused), then is handled: the
    // refused BOARDs left the game of TURN 3,3 as it was.
    assert_eq!(got[19], "ERROR BOARD: TURN came before DONE");
    board.try_play(Cell::new(4, 4)).unwrap();
    let reply = cell(&got[20]);
    board.try_play(reply).unwrap();
    assert_eq!(
        got[21],
        format!(
            "ERROR TAKEBACK 9,9: the last move is {},{}",
            reply.col, reply.row
        )
    );
    assert_eq!(got[22], "ERROR PLAY 3,3: the point is taken");
    assert_eq!(got.len(), 23);
}

#[test]
fn a_rule_it_cannot_play_is_refused_at_the_next_move_request() {
    let input = "START 15\nINFO rule 12\nBEGIN\nINFO rule 6\nTURN 7,7\nINFO rule 14\n\
                 BOARD\n7,7,2\nDONE\nINFO rule 1\nRESTART\nBEGIN\n";
    let got = brain(&["--protocol", "gomocup", "--bot", "random"], input);
    assert_eq!(got[0], "OK");
    assert_eq!(
        got[1],
        "ERROR BEGIN: INFO rule 12: renju (2 or 4) and caro (8) at once is no rule"
    );
    // 6 is renju (2 as Yixin Board sends it, 4 as the protocol says).
    cell(&got[2]);
    assert_eq!(
        got[3],
        "ERROR BOARD: INFO rule 14: renju (2 or 4) and caro (8) at once is no rule"
    );
    // Exactly five is played, and the refusal changed nothing.
    assert_eq!(got[4], "OK");
    cell(&got[5]);
    assert_eq!(got.len(), 6);
}

/// `BOARD` lines, in move order, for stones given as `(x, y)`: the brain's
/// own (field 1) and the opponent's (2), the brain's first.
fn board_lines(own: &[(u32, u32)], theirs: &[(u32, u32)]) -> String {
    let mut board = String::from("BOARD\n");
    for (i, (x, y)) in own.iter().enumerate() {
        board.push_str(&format!("{x},{y},1\n"));
        if let Some((x, y)) = theirs.get(i) {
            board.push_str(&format!("{x},{y},2\n"));
        }
    }
    board + "DONE\n"
}

#[test]
fn renju_keeps_black_off_a_double_four_that_wins_under_rule_0() {
    // The brain is Black (it moved first) with X.XXX.X on row 4: 4,4 makes
    // two fours, a win under rule 0 and forbidden under renju (4, and 2).
    let board = board_lines(
        &[(0, 4), (2, 4), (3, 4), (6, 4)],
        &[(0, 11), (2, 11), (4, 11), (6, 11)],
    );
    for (rule, wanted) in [(0, true), (4, false), (2, false)] {
        let input = format!("INFO timeout_turn 300\nSTART 15\nINFO rule {rule}\n{board}");
        let got = brain(&["--protocol", "gomocup", "--bot", "minimax"], &input);
        assert_eq!(got[0], "OK");
        let answer = got.iter().find(|l| !l.starts_with("MESSAGE")).unwrap();
        let answer = got
            .iter()
            .skip(1)
            .find(|l| !l.starts_with("MESSAGE"))
            .unwrap_or(answer);
        assert_eq!(
            cell(answer) == Cell::new(4, 4),
            wanted,
            "rule {rule}: {answer}"
        );
    }
    // Renju is five in a row: with --k 4 the brain says why it cannot play.
    let input = "START 15\nINFO rule 4\nBEGIN\n";
    let got = brain(&["--protocol", "gomocup", "--k", "4"], input);
    assert!(got[1].starts_with("ERROR BEGIN: "), "{}", got[1]);
}

#[test]
fn caro_blocked_five_does_not_win_under_rules_8_and_9() {
    // The brain has 1..=4 of row 5 with the opponent at 0 and 6: 5,5 makes
    // a five closed at both ends. It wins under rule 0 and the blocking bot
    // takes it; under caro it does not, and the bot takes the centre.
    let board = board_lines(
        &[(1, 5), (2, 5), (3, 5), (4, 5)],
        &[(0, 5), (6, 5), (0, 12), (14, 12)],
    );
    for (rule, want) in [
        (0, Cell::new(5, 5)),
        (8, Cell::new(7, 7)),
        (9, Cell::new(7, 7)),
    ] {
        let input = format!("START 15\nINFO rule {rule}\n{board}");
        let got = brain(&["--protocol", "gomocup", "--bot", "blocking"], &input);
        assert_eq!(got[0], "OK");
        assert_eq!(cell(&got[1]), want, "rule {rule}");
    }
}

#[test]
fn exactly_five_and_k_from_the_command_line() {
    // The brain (X, to move) has 0..=3 and 5 of the top row: 4,0 makes six
    // in a row. Under rule 0 that wins and the blocking bot takes it; under
    // rule 1 (exactly five) it does not, and the bot takes the centre.
    let mut board = String::from("BOARD\n");
    for (x, o) in [(0, 0), (1, 2), (2, 4), (3, 6), (5, 8)] {
        board.push_str(&format!("{x},0,1\n{o},10,2\n"));
    }
    board.push_str("DONE\n");
    for (rule, want) in [(0, Cell::new(0, 4)), (1, Cell::new(7, 7))] {
        let input = format!("START 15\nINFO rule {rule}\n{board}");
        let got = brain(&["--protocol", "gomocup", "--bot", "blocking"], &input);
        assert_eq!(got[0], "OK");
        assert_eq!(cell(&got[1]), want, "rule {rule}");
    }
    // K from the command line: four in a row wins.
    let got = brain(
        &["--protocol", "gomocup", "--k", "4", "--bot", "blocking"],
        "START 9\nBOARD\n0,0,1\n5,5,2\n1,0,1\n5,6,2\n2,0,1\n7,7,2\nDONE\n",
    );
    assert_eq!(cell(&got[1]), Cell::new(0, 3));
}

#[test]
fn started_as_pbrain_it_speaks_gomocup() {
    let dir = std::env::temp_dir().join(format!("kinrow-pbrain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("pbrain-kinrow");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin!("kinrow"), &link).unwrap();
    let out = Command::new(&link)
        .args(["--bot", "random"])
        .write_stdin("START 20\r\nBEGIN\r\nEND\r\n")
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "OK");
    cell(lines[1]);
    // And --board is refused: the manager sets the board.
    let out = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
        .args(["--protocol", "gomocup", "--board", "15x15"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a Gomocup manager sets the board"));
}

/// The `time` of a `MESSAGE depth … time Nms` line.
fn message_time(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("MESSAGE depth ")?;
    let ms = rest.split(" time ").nth(1)?.strip_suffix("ms")?;
    ms.parse().ok()
}

#[test]
fn minimax_reports_its_search_and_keeps_to_the_clock() {
    // 15x15, a generous turn limit but 2 s left on the match clock: each
    // move may take about a twentieth of what is left (less a reserve),
    // never the turn limit; the brain says so in its MESSAGE lines.
    let mut input = String::from("START 15\nINFO timeout_turn 30000\nINFO timeout_match 2000\n");
    input.push_str("INFO time_left 2000\nTURN 7,7\nINFO time_left 1700\nTURN 0,0\n");
    let got = brain(&["--protocol", "gomocup"], &input);
    assert_eq!(got[0], "OK");
    let mut board = gomoku(Rule::Free);
    let mut times = Vec::new();
    let mut moves = 0;
    for line in &got[1..] {
        if line.starts_with("MESSAGE") {
            assert!(line.contains(" score "), "{line}");
            times.extend(message_time(line));
        } else {
            moves += 1;
            let opp = if moves == 1 {
                Cell::new(7, 7)
            } else {
                Cell::new(0, 0)
            };
            board.try_play(opp).unwrap();
            board.try_play(cell(line)).unwrap();
        }
    }
    assert_eq!(moves, 2, "{got:?}");
    assert!(!times.is_empty(), "no MESSAGE with the search: {got:?}");
    for t in times {
        // 2000 * 0.9 / 20 = 90 ms budget; its own clock can't show more
        // than the budget by much, and never anything near the clock.
        assert!(t <= 250, "a move took {t} ms of a 2 s clock: {got:?}");
    }
}

/// A brain kept running between requests, so that what it holds can be read
/// from `/proc` while it is alive.
struct LiveBrain {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl LiveBrain {
    fn start() -> LiveBrain {
        use std::process::Stdio;
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
            .args(["--protocol", "gomocup", "--bot", "random", "--seed", "3"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kinrow starts");
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
        LiveBrain {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends `lines`, `count` times over, in large writes.
    fn send(&mut self, lines: &str, count: usize) {
        use std::io::Write;
        let chunk = lines.repeat(4096);
        let stdin = self.stdin.as_mut().expect("open");
        for _ in 0..count / 4096 {
            stdin.write_all(chunk.as_bytes()).expect("written");
        }
        stdin
            .write_all(lines.repeat(count % 4096).as_bytes())
            .expect("written");
        stdin.flush().expect("flushed");
    }

    fn line(&mut self) -> String {
        use std::io::BufRead;
        let mut s = String::new();
        self.stdout.read_line(&mut s).expect("read");
        assert!(s.ends_with('\n'), "the brain ended early: {s:?}");
        s.trim_end().to_string()
    }

    /// The most memory the brain has held, in kB (`VmHWM`).
    fn peak_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc readable");
        let line = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .expect("VmHWM");
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// Closes its input; everything it wrote after what was read.
    fn finish(mut self) -> String {
        use std::io::Read;
        drop(self.stdin.take());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).expect("read");
        assert!(self.child.wait().expect("exits").success());
        rest
    }
}

#[test]
fn a_board_list_longer_than_the_board_is_refused_at_once_and_not_stored() {
    let mut brain = LiveBrain::start();
    brain.send("START 15\n", 1);
    assert_eq!(brain.line(), "OK");
    let before = brain.peak_kb();
    // 225 points on 15x15: the 226th stone line is refused before DONE comes.
    brain.send("BOARD\n", 1);
    brain.send("7,7,1\n", 226);
    assert_eq!(
        brain.line(),
        "ERROR BOARD: more than 225 stones, the points of the board (the rest up to DONE is skipped)"
    );
    // Four million more lines (a list never ended) take no memory and get
    // no answer; DONE ends the skipping silently, and the brain plays on.
    brain.send("7,7,1\n", 4_000_000);
    brain.send("not a stone\nDONE\nBEGIN\n", 1);
    cell(&brain.line());
    let grown = brain.peak_kb().saturating_sub(before);
    assert!(grown < 4_096, "the brain grew {grown} kB reading the list");
    // Skipping also ends at a command, handled as itself.
    brain.send("RESTART\nBOARD\n", 1);
    assert_eq!(brain.line(), "OK");
    brain.send("1,1,2\n", 300);
    assert!(brain.line().starts_with("ERROR BOARD: more than 225"));
    brain.send("ABOUT\n", 1);
    assert!(brain.line().starts_with("name=\"kinrow-random\""));
    assert_eq!(brain.finish(), "");
}

#[test]
fn ignored_info_lines_leave_a_bounded_note() {
    let mut brain = LiveBrain::start();
    brain.send("START 15\n", 1);
    assert_eq!(brain.line(), "OK");
    let before = brain.peak_kb();
    brain.send("INFO rule x\n", 1_000_000);
    brain.send("BEGIN\n", 1);
    let mut notes = Vec::new();
    let reply = loop {
        let line = brain.line();
        if !line.starts_with("MESSAGE ") {
            break line;
        }
        notes.push(line);
    };
    cell(&reply);
    assert_eq!(notes.len(), 9, "{notes:?}");
    assert!(notes[..8]
        .iter()
        .all(|n| n == "MESSAGE ignored INFO rule 'x': not a value it takes"));
    assert_eq!(
        notes[8],
        "MESSAGE 999992 more notes dropped (only the first 8 are kept)"
    );
    let grown = brain.peak_kb().saturating_sub(before);
    assert!(grown < 4_096, "the brain grew {grown} kB keeping notes");
    // Once said, the notes are gone: the next answer has none.
    brain.send("TURN 0,0\n", 1);
    cell(&brain.line());
    assert_eq!(brain.finish(), "");
}

/// The `nodes` and `depth` of a `MESSAGE depth D score S nodes N …` line.
fn message_search(line: &str) -> Option<(u64, u64)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = |key: &str| {
        let i = words.iter().position(|w| *w == key)?;
        words.get(i + 1)?.parse().ok()
    };
    Some((at("depth")?, at("nodes")?))
}

#[test]
fn info_max_node_and_max_depth_bound_the_search_as_yixin_and_rapfi_have_them() {
    // A generous turn: only the limits stop the search.
    let search_with = |input: &str| {
        let got = brain(&["--protocol", "gomocup"], input);
        let line = got.iter().find(|l| l.starts_with("MESSAGE depth")).cloned();
        message_search(&line.unwrap_or_else(|| panic!("no search MESSAGE: {got:?}"))).unwrap()
    };
    let search = |limits: &str| {
        let input = format!("START 15\nINFO timeout_turn 20000\n{limits}TURN 7,7\n");
        search_with(&input)
    };
    let (_, nodes) = search("INFO max_node 3000\n");
    // Within the budget (the search starts no iteration it can't finish
    // in it), not stopped by the clock.
    assert!((1..=3000).contains(&nodes), "{nodes} nodes");
    // The same budget replays: the same search.
    assert_eq!(search("INFO max_node 3000\n").1, nodes);
    let (depth, _) = search("INFO max_depth 2\n");
    assert_eq!(depth, 2);
    // 0 and -1 are no limit; a bad value is said, and changes nothing.
    let (_, free) = search_with(
        "START 15\nINFO max_node 3000\nINFO max_node 0\nINFO timeout_turn 400\nTURN 7,7\n",
    );
    assert!(free > 4000, "{free} nodes with no node limit");
    let got = brain(
        &["--protocol", "gomocup"],
        "START 15\nINFO max_node lots\nINFO max_depth -1\nINFO max_node -1\nBEGIN\n",
    );
    assert!(
        got.iter()
            .any(|l| l == "MESSAGE ignored INFO max_node 'lots': not a value it takes"),
        "{got:?}"
    );
}

#[test]
fn info_max_memory_shrinks_the_table_to_a_quarter_of_the_limit_and_says_so() {
    let messages = |args: &[&str], input: &str| -> Vec<String> {
        brain(args, input)
            .into_iter()
            .filter(|l| l.starts_with("MESSAGE hash") || l.starts_with("MESSAGE ignored"))
            .collect()
    };
    let gomocup = ["--protocol", "gomocup"];
    // 20 MB: a quarter is 4.8 MiB, the table 4 MiB.
    assert_eq!(
        messages(&gomocup, "START 15\nINFO max_memory 20000000\nBEGIN\n"),
        ["MESSAGE hash 4 MiB within INFO max_memory 20000000"]
    );
    // Gomocup's 350 MB holds the default table; 0 is no limit; only the
    // last limit told before an answer is said.
    assert!(messages(&gomocup, "START 15\nINFO max_memory 350000000\nBEGIN\n").is_empty());
    assert!(messages(
        &gomocup,
        "START 15\nINFO max_memory 3000000\nINFO max_memory 0\nBEGIN\n"
    )
    .is_empty());
    // Never past the hash it was started with; a tiny limit still leaves 1 MiB.
    let small = ["--protocol", "gomocup", "--set", "hash=4"];
    assert!(messages(&small, "START 15\nINFO max_memory 350000000\nBEGIN\n").is_empty());
    assert_eq!(
        messages(&small, "START 15\nINFO max_memory 1000\nBEGIN\n"),
        ["MESSAGE hash 1 MiB within INFO max_memory 1000"]
    );
    // 20 MiB is a 16 MiB table, which 17 MB of the limit's quarter still holds.
    let odd = ["--protocol", "gomocup", "--set", "hash=20"];
    assert!(messages(&odd, "START 15\nINFO max_memory 68000000\nBEGIN\n").is_empty());
    // A bad value is said and changes nothing; a bot without a table says nothing.
    assert_eq!(
        messages(&gomocup, "START 15\nINFO max_memory lots\nBEGIN\n"),
        ["MESSAGE ignored INFO max_memory 'lots': not a value it takes"]
    );
    let mcts = ["--protocol", "gomocup", "--bot", "mcts"];
    assert!(messages(&mcts, "START 15\nINFO max_memory 1000\nBEGIN\n").is_empty());
}
