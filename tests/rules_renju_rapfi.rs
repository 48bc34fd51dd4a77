//! Renju's forbidden cells against an outside judge: Rapfi (the Gomocup
//! champion engine), which lists the cells forbidden to Black through the
//! Yixin protocol's `YXSHOWFORBID`, on positions with Black to move from
//! random 15x15 games. Kinrow never depends on Rapfi: the test is ignored,
//! and asks for the engine by its path.
//!
//! ```text
//! RAPFI=/path/to/pbrain-rapfi cargo test --test rules_renju_rapfi -- --ignored --nocapture
//! ```
//!
//! `RAPFI_POSITIONS=N` sets how many positions (default 2,000). Rapfi's
//! answer has no kinds, so the sets of cells are compared.

use kinrow::rules::{Board, Cell, Geometry, Player, Rule};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Rapfi {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Rapfi {
    fn start(path: &str) -> Rapfi {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {path}: {e}"));
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        let mut rapfi = Rapfi { child, to, from };
        rapfi.send("START 15\nINFO rule 4\n");
        assert_eq!(rapfi.reply_starting("OK"), "OK");
        rapfi
    }

    fn send(&mut self, text: &str) {
        self.to.write_all(text.as_bytes()).unwrap();
        self.to.flush().unwrap();
    }

    /// The next line that starts with `word` (Rapfi also sends MESSAGE and
    /// DEBUG lines).
    fn reply_starting(&mut self, word: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.from.read_line(&mut line).unwrap() > 0,
                "Rapfi closed its output"
            );
            if line.starts_with(word) {
                return line.trim().to_string();
            }
        }
    }

    /// The cells Rapfi calls forbidden to Black in `board` (Black to move),
    /// the stones sent in move order as renju requires.
    fn forbidden(&mut self, board: &Board) -> Vec<Cell> {
        let mut text = String::from("YXBOARD\n");
        let to_move = board.to_move();
        for (i, cell) in board.moves().enumerate() {
            let mover = if i % 2 == 0 { Player::X } else { Player::O };
            let field = if mover == to_move { 1 } else { 2 };
            text += &format!("{},{},{field}\n", cell.col, cell.row);
        }
        text += "DONE\nYXSHOWFORBID\n";
        self.send(&text);
        let reply = self.reply_starting("FORBID");
        let digits = reply
            .trim_start_matches("FORBID")
            .trim()
            .trim_end_matches('.');
        let mut cells: Vec<Cell> = digits
            .as_bytes()
            .chunks(4)
            .map(|xy| {
                let xy = std::str::from_utf8(xy).unwrap();
                let (x, y) = (xy[..2].parse().unwrap(), xy[2..].parse().unwrap());
                Cell::new(y, x)
            })
            .collect();
        cells.sort();
        cells
    }
}

impl Drop for Rapfi {
    fn drop(&mut self) {
        let _ = self.to.write_all(b"END\n");
        let _ = self.to.flush();
        let _ = self.child.wait();
    }
}

#[test]
#[ignore = "needs Rapfi: RAPFI=/path/to/pbrain-rapfi"]
fn forbidden_cells_agree_with_rapfi_on_random_games() {
    let path = std::env::var("RAPFI")
        .expect("set RAPFI to the path of a pbrain-rapfi to compare with (this test needs it)");
    let wanted: usize = std::env::var("RAPFI_POSITIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut rapfi = Rapfi::start(&path);
    let geo = Geometry::new(15, 15, 5, Rule::Renju).unwrap();
    let mut rng = SmallRng::seed_from_u64(1);
    let (mut positions, mut with_forbidden, mut forbidden) = (0, 0, 0);
    let mut disagreements = Vec::new();
    while positions < wanted {
        let mut board = Board::new(geo);
        while !board.is_over() && positions < wanted {
            if board.to_move() == Player::X {
                let ours: Vec<Cell> = board.forbidden_cells().iter().map(|&(c, _)| c).collect();
                let theirs = rapfi.forbidden(&board);
                if ours != theirs {
                    disagreements.push(format!("kinrow {ours:?}, Rapfi {theirs:?}\n{board}"));
                }
                positions += 1;
                with_forbidden += usize::from(!ours.is_empty());
                forbidden += ours.len();
            }
            let legal: Vec<Cell> = board.legal_moves().collect();
            board
                .try_play(legal[rng.random_range(0..legal.len())])
                .unwrap();
        }
    }
    println!(
        "{positions} positions with Black to move, {with_forbidden} with forbidden cells \
         ({forbidden} cells): {} disagreements",
        disagreements.len()
    );
    for d in disagreements.iter().take(5) {
        println!("{d}");
    }
    assert!(disagreements.is_empty());
}
