//! Transcripts of bots/random.py, the example bot in another language, run
//! through python3: it speaks the protocol, its moves are legal by our own
//! rules, it refuses bad input, and it plays whole games against `kinrow`.

use assert_cmd::Command;
use kinrow::rules::{Board, Cell, Geometry, Rule};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

const BOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/bots/random.py");

/// Runs the bot with `args` on `input` and returns its replies (without the
/// empty line that ends each). The bot must exit 0 and print nothing on stderr.
fn replies(args: &[&str], input: &str) -> Vec<String> {
    let out = Command::new("python3")
        .arg(BOT)
        .args(args)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "exit status {:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "every reply ends with an empty line: {text:?}"
    );
    text.split_terminator("\n\n").map(str::to_string).collect()
}

#[test]
fn answers_the_core_commands_with_ids() {
    let got = replies(
        &["--seed", "1"],
        "name\n\
         1 protocol_version\n\
         \n\
         # a comment line gets no answer\n\
         newgame 3 3 3\n\
         7 move 2 2\n\
         8 move 2 2\n\
         move 0 1\n\
         move 4 1\n\
         move two 2\n\
         \tmove 1\t1   # tabs, spaces and a comment\n\
         frobnicate\n\
         9 known_command genmove\n\
         known_command frobnicate\n\
         newgame 3 3 3 exact\n\
         newgame 33 3 3\n\
         newgame 3 3 4\n\
         newgame 3 3 3 sideways\n\
         newgame 15 15 5 renju\n\
         newgame 3 3 3 caro\n\
         10 quit\n\
         name\n",
    );
    let want = [
        "= random.py",
        "=1 2",
        "=",
        "=7",
        "?8 illegal move: 2 2 is occupied",
        "? illegal move: 0 1 is off the 3x3 board",
        "? illegal move: 4 1 is off the 3x3 board",
        "? syntax error: move R C",
        "=",
        "? unknown command: frobnicate",
        "=9 true",
        "= false",
        "=",
        "? unacceptable size: 33x3 k3",
        "? unacceptable size: 3x3 k4",
        "? syntax error: newgame [ROWS COLS K [free|exact|caro|caro-exact]]",
        "? unacceptable size: renju is not played by this example bot (its small rules \
         model has no forbidden cells; it plays free, exact, caro and caro-exact)",
        "=",
        "=10",
    ];
    assert_eq!(got, want, "nothing is read after quit");
}

/// Asks for `genmove` until the bot says the game is over and checks every
/// move with the rules core; returns the moves.
fn self_play(geo: Geometry, newgame: &str, seed: &str) -> Vec<Cell> {
    let input = format!("{newgame}\n{}", "genmove\n".repeat(geo.area() + 2));
    let got = replies(&["--seed", seed], &input);
    assert_eq!(got[0], "=");
    let mut board = Board::new(geo);
    let mut moves = Vec::new();
    for reply in &got[1..] {
        if board.is_over() {
            assert!(reply.starts_with("? game over"), "{reply}");
            continue;
        }
        let cell: Cell = reply
            .strip_prefix("= ")
            .and_then(|rc| rc.parse().ok())
            .unwrap_or_else(|| panic!("not a move: {reply:?}"));
        board
            .try_play(cell)
            .unwrap_or_else(|e| panic!("{geo}: {cell}: {e}"));
        moves.push(cell);
    }
    assert!(board.is_over(), "{geo}: the bot stopped before the end");
    moves
}

#[test]
fn its_genmoves_are_legal_and_distinct_until_the_end() {
    let games = [
        (Geometry::TIC_TAC_TOE, "newgame"),
        (
            Geometry::new(15, 15, 5, Rule::Free).unwrap(),
            "newgame 15 15 5",
        ),
        (
            Geometry::new(7, 7, 4, Rule::Exact).unwrap(),
            "newgame 7 7 4 exact",
        ),
        (Geometry::new(1, 6, 6, Rule::Free).unwrap(), "newgame 1 6 6"),
        // Caro: the bot's end is the rules core's (blocked fours and fives
        // are frequent on small boards).
        (
            Geometry::new(9, 9, 4, Rule::Caro).unwrap(),
            "newgame 9 9 4 caro",
        ),
        (
            Geometry::new(7, 7, 3, Rule::CaroExact).unwrap(),
            "newgame 7 7 3 caro-exact",
        ),
        (
            Geometry::new(2, 32, 2, Rule::Free).unwrap(),
            "newgame 2 32 2",
        ),
    ];
    for (geo, newgame) in games {
        for seed in ["1", "2", "3"] {
            let moves = self_play(geo, newgame, seed);
            let mut distinct = moves.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), moves.len(), "{geo}: a cell played twice");
        }
    }
}

#[test]
fn the_seed_makes_games_repeatable() {
    let geo = Geometry::new(15, 15, 5, Rule::Free).unwrap();
    let a = self_play(geo, "newgame 15 15 5", "42");
    let b = self_play(geo, "newgame 15 15 5", "42");
    let c = self_play(geo, "newgame 15 15 5", "43");
    assert_eq!(a, b);
    assert_ne!(a, c, "different seeds should give different games");
}

#[test]
fn bad_input_changes_nothing() {
    // A 1x2 board: after the refused moves, genmove must still find both cells.
    let got = replies(
        &["--seed", "5"],
        "newgame 1 2 2\nmove 1 3\nmove 1\nmove 1 1 1\nmove -1 1\nmove ² 1\nnewgame 1\n\
         genmove\ngenmove\ngenmove\n",
    );
    assert_eq!(got[0], "=");
    for reply in &got[1..7] {
        assert!(reply.starts_with("? "), "{reply}");
    }
    let mut cells = vec![got[7].clone(), got[8].clone()];
    cells.sort();
    assert_eq!(cells, ["= 1 1", "= 1 2"]);
    assert!(got[9].starts_with("? game over"), "{}", got[9]);
}

#[test]
fn stray_bytes_and_end_of_input_are_handled() {
    let out = Command::new("python3")
        .arg(BOT)
        .write_stdin(b"\xff\xfe\x01\n1 name\r\n".to_vec())
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("? unknown command"), "{text}");
    assert!(text.ends_with("=1 random.py\n\n"), "{text}");
}

/// One engine process, driven one request at a time.
struct Engine {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Engine {
    fn spawn(mut cmd: std::process::Command) -> Engine {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("engine starts");
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        Engine { child, to, from }
    }

    /// Sends a request and returns the reply without its final empty line.
    fn ask(&mut self, request: &str) -> String {
        writeln!(self.to, "{request}").unwrap();
        self.to.flush().unwrap();
        let mut reply = String::new();
        loop {
            let mut line = String::new();
            assert!(self.from.read_line(&mut line).unwrap() > 0, "engine died");
            if line == "\n" {
                return reply.trim_end().to_string();
            }
            reply.push_str(&line);
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn plays_whole_games_against_kinrow() {
    // random.py against kinrow's blocking bot, both colours, on two boards,
    // the engines kept in step by `move` as a referee does: every move is
    // legal by our rules and both engines end the game where the rules do.
    let games = [
        ("3 3 3", Geometry::TIC_TAC_TOE, true),
        ("3 3 3", Geometry::TIC_TAC_TOE, false),
        (
            "9 9 4 exact",
            Geometry::new(9, 9, 4, Rule::Exact).unwrap(),
            true,
        ),
        (
            "9 9 4 exact",
            Geometry::new(9, 9, 4, Rule::Exact).unwrap(),
            false,
        ),
    ];
    for (seed, (size, geo, bot_is_x)) in games.into_iter().enumerate() {
        let mut python = std::process::Command::new("python3");
        python.args([BOT, "--seed", &seed.to_string()]);
        let mut kinrow = std::process::Command::new(assert_cmd::cargo::cargo_bin("kinrow"));
        kinrow.args(["--bot", "blocking", "--seed", "1"]);
        let mut bot = Engine::spawn(python);
        let mut blocking = Engine::spawn(kinrow);
        assert_eq!(bot.ask(&format!("newgame {size}")), "=");
        assert_eq!(blocking.ask(&format!("newgame {size}")), "=");
        let mut board = Board::new(geo);
        let mut bot_to_move = bot_is_x;
        while !board.is_over() {
            let (mover, other) = if bot_to_move {
                (&mut bot, &mut blocking)
            } else {
                (&mut blocking, &mut bot)
            };
            let reply = mover.ask("genmove");
            let rc = reply.strip_prefix("= ").expect("a move");
            board.try_play(rc.parse().unwrap()).expect("a legal move");
            assert_eq!(other.ask(&format!("move {rc}")), "=");
            bot_to_move = !bot_to_move;
        }
        let status = blocking.ask("status");
        assert_eq!(status, format!("= {}", board.outcome().unwrap()));
        assert!(bot.ask("genmove").starts_with("? game over"));
        assert_eq!(bot.ask("quit"), "=");
    }
}

#[test]
fn huge_numbers_and_unusual_characters_are_refused_without_a_crash() {
    // Python's int() refuses strings of over 4300 digits: the bot must not
    // pass them on. Words are split on spaces only (a no-break space is part
    // of a word, as in kinrow), and DEL and C1 controls are dropped like the
    // other control characters.
    let huge = "9".repeat(5000);
    let zeros = format!("{}2", "0".repeat(6000));
    let input = format!(
        "move {huge} 1\nnewgame {huge} 3 3\nnewgame 3 {zeros} 2\nmove 1\u{a0}1\n\
         mo\x7fve 1 1\u{85}\nmove 0002 001\nmove 1 {zeros}\n"
    );
    let got = replies(&["--seed", "1"], &input);
    assert_eq!(got.len(), 7, "{got:?}");
    assert!(got[0].starts_with("? illegal move: "), "{}", got[0]);
    assert!(got[1].starts_with("? unacceptable size"), "{}", got[1]);
    assert_eq!(got[2], "=", "newgame 3 2 2 with leading zeros");
    assert_eq!(got[3], "? syntax error: move R C", "one word, not two");
    assert_eq!(
        got[4..],
        ["=", "=", "="],
        "X 1 1, O 2 1, X 1 2 on the 3x2 board"
    );
}
