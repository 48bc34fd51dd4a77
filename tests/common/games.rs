//! Helpers for the bots' tests: positions from move lists, whole games
//! between bots, every game against every opponent, engine transcripts.

#![allow(dead_code)]

use kinrow::bots::{Bot, Limits};
use kinrow::rules::{Board, Cell, Geometry, Outcome, Player, Rule};
use std::collections::HashMap;
use std::time::Duration;

pub fn limits(ms: u64) -> Limits {
    Limits::starting_now(Duration::from_millis(ms))
}

pub fn geometry(rows: u32, cols: u32, k: u32, rule: Rule) -> Geometry {
    Geometry::new(rows, cols, k, rule).unwrap()
}

/// A board after the given moves, X first.
pub fn position(geo: Geometry, moves: &[(u8, u8)]) -> Board {
    let mut b = Board::new(geo);
    for &(r, c) in moves {
        assert!(b.try_play(Cell::new(r, c)).unwrap().is_none());
    }
    b
}

/// X's and O's stones, interleaved into a move list (X has as many or one more).
pub fn stones(x: &[(u8, u8)], o: &[(u8, u8)]) -> Vec<(u8, u8)> {
    assert!(x.len() == o.len() || x.len() == o.len() + 1);
    let mut moves = Vec::new();
    for (i, &m) in x.iter().enumerate() {
        moves.push(m);
        if let Some(&m) = o.get(i) {
            moves.push(m);
        }
    }
    moves
}

/// Perfect values by plain memoised negamax over the rules, independent of
/// the bot: for the side to move, `100 - n` is a win with the n-th ply from
/// now, `-(100 - n)` a loss in n plies, 0 a draw.
#[derive(Default)]
pub struct Oracle {
    memo: HashMap<Vec<Option<Player>>, i32>,
}

impl Oracle {
    pub fn value(&mut self, board: &mut Board) -> i32 {
        let key: Vec<Option<Player>> = board.squares().map(|s| board.stone_on(s)).collect();
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let moves: Vec<Cell> = board.legal_moves().collect();
        let best = moves
            .into_iter()
            .map(|m| self.move_value(board, m))
            .max()
            .expect("an ongoing game has moves");
        self.memo.insert(key, best);
        best
    }

    /// The value of playing `cell` for the side to move.
    pub fn move_value(&mut self, board: &mut Board, cell: Cell) -> i32 {
        let v = match board.try_play(cell).unwrap() {
            Some(Outcome::Win { .. }) => 99,
            Some(Outcome::Draw) => 0,
            None => {
                let child = self.value(board);
                -(child - child.signum())
            }
        };
        board.undo();
        v
    }
}

/// The small games every perfect player is checked on, each with its every
/// ongoing position (3x3 has 5,478 positions, 958 of them ended).
pub fn small_games() -> Vec<(Geometry, Vec<Board>)> {
    [
        (geometry(3, 3, 3, Rule::Free), Some(4520)),
        (geometry(1, 1, 1, Rule::Free), Some(1)),
        (geometry(1, 7, 3, Rule::Exact), None),
        (geometry(2, 5, 3, Rule::Exact), None),
        (geometry(2, 4, 2, Rule::Free), None),
        (geometry(5, 1, 3, Rule::Free), None),
    ]
    .into_iter()
    .map(|(geo, expected)| {
        let positions = super::ongoing_positions(geo);
        if let Some(n) = expected {
            assert_eq!(positions.len(), n, "{geo}");
        }
        (geo, positions)
    })
    .collect()
}

/// Plays every game where the bot (as `side`) meets every possible opponent;
/// counts outcomes by winner.
pub fn walk(
    board: &mut Board,
    bot: &mut dyn Bot,
    side: Player,
    tally: &mut HashMap<Option<Player>, u32>,
) {
    if let Some(outcome) = board.outcome() {
        *tally.entry(outcome.winner()).or_default() += 1;
        return;
    }
    if board.to_move() == side {
        let choice = bot.choose(board, limits(5000));
        board.try_play(choice).unwrap();
        walk(board, bot, side, tally);
        board.undo();
    } else {
        let moves: Vec<Cell> = board.legal_moves().collect();
        for m in moves {
            board.try_play(m).unwrap();
            walk(board, bot, side, tally);
            board.undo();
        }
    }
}

/// A whole game between two bots; returns the moves and the outcome.
pub fn play_out(geo: Geometry, x: &mut dyn Bot, o: &mut dyn Bot, ms: u64) -> (Vec<Cell>, Outcome) {
    let mut board = Board::new(geo);
    while board.outcome().is_none() {
        let bot: &mut dyn Bot = if board.to_move() == Player::X {
            &mut *x
        } else {
            &mut *o
        };
        let choice = bot.choose(&board, limits(ms));
        board.try_play(choice).unwrap();
    }
    (board.moves().collect(), board.outcome().unwrap())
}

/// Runs the `kinrow` binary on `input`; returns its responses.
pub fn engine_session(args: &[&str], input: &str) -> Vec<String> {
    let out = assert_cmd::cargo::cargo_bin_cmd!("kinrow")
        .args(args)
        .write_stdin(input)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("kinrow runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    text.split_terminator("\n\n").map(str::to_string).collect()
}
