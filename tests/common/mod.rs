//! Helpers shared by integration tests.

pub mod games;

use kinrow::rules::{Board, Cell, Geometry, Player};
use std::collections::HashSet;

/// Every ongoing position reachable from the empty board of `geo`, each once.
pub fn ongoing_positions(geo: Geometry) -> Vec<Board> {
    fn walk(board: &mut Board, seen: &mut HashSet<Vec<Option<Player>>>, out: &mut Vec<Board>) {
        let key: Vec<Option<Player>> = board.squares().map(|s| board.stone_on(s)).collect();
        if board.is_over() || !seen.insert(key) {
            return;
        }
        out.push(board.clone());
        let moves: Vec<Cell> = board.legal_moves().collect();
        for m in moves {
            board.try_play(m).expect("a legal move");
            walk(board, seen, out);
            board.undo();
        }
    }
    let mut out = Vec::new();
    walk(&mut Board::new(geo), &mut HashSet::new(), &mut out);
    out
}
