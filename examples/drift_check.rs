//! Self-play of a bot on a board the solver can solve, checking every move
//! with the solver: does the mover ever go from a won or drawn position into
//! a worse one? Before the solver helped minimax, 5x5 k4 at 200 ms showed
//! such moves in most games; now none (see docs/solve.md).
//!
//! Usage: cargo run --release --example drift_check -- ROWS COLS K MOVETIME_MS GAMES
use kinrow::bots::{BotKind, Limits};
use kinrow::rules::{Board, Geometry, Rule};
use kinrow::solver::{Budget, Solver};
use std::time::Duration;

fn main() {
    let a: Vec<u64> = std::env::args()
        .skip(1)
        .map(|s| s.parse().unwrap())
        .collect();
    let (rows, cols, k, ms, games) = (a[0], a[1], a[2], a[3], a[4]);
    let geo = Geometry::new(rows as u32, cols as u32, k as u32, Rule::Free).unwrap();
    let mut judge = Solver::new(256);
    let mut worse = 0;
    for g in 0..games {
        let mut bots = [BotKind::Minimax.build(g), BotKind::Minimax.build(g + 1000)];
        let mut board = Board::new(geo);
        while !board.is_over() {
            let before = judge
                .solve(&board, Budget::default())
                .unwrap()
                .value
                .unwrap();
            let side = board.to_move().index();
            let cell = bots[side].choose(&board, Limits::starting_now(Duration::from_millis(ms)));
            board.try_play(cell).unwrap();
            let after = if board.is_over() {
                None
            } else {
                judge.solve(&board, Budget::default()).unwrap().value
            };
            if std::env::var("V").is_ok() {
                println!("{} {cell} {before} -> {:?}", board.ply(), after);
            }
            if let Some(after) = after {
                let kept = kinrow::solver::Value::before(after);
                if kept.sign() < before.sign() {
                    worse += 1;
                    let moves: Vec<String> = board.moves().map(|c| c.to_string()).collect();
                    println!(
                        "game {g}: {before} -> {kept} with {cell}; moves {}",
                        moves.join(" ")
                    );
                }
            }
        }
        println!("game {g}: {:?}", board.outcome().map(|o| o.to_string()));
    }
    println!("{worse} moves into a worse value");
}
