//! The map of move values, as `kinrow solve --analyze` and `kinrow play`
//! show it.

use super::{Analysis, Value};
use crate::rules::{Board, Cell};
use std::fmt::Write;

/// The board with each legal move's value for the side to move (`W9`, `D`,
/// `L12`, `?` not proved) and the stones, with a legend line first.
pub fn analysis_map(board: &Board, analysis: &Analysis) -> String {
    let g = board.geometry();
    let me = board.to_move();
    let mut s = format!(
        "values of {me}'s moves (W: {me} wins, D: draw, L: {me} loses; N: plies to the winning stone):\n"
    );
    let width = 5;
    let _ = write!(s, "    ");
    for c in 1..=g.cols() {
        let _ = write!(s, "{c:>width$}");
    }
    s.push('\n');
    for r in 0..g.rows() {
        let _ = write!(s, "{:>4}", r + 1);
        for c in 0..g.cols() {
            let cell = Cell::new(r as u8, c as u8);
            let mark = match board.stone_at(cell) {
                Some(p) => p.letter().to_string(),
                None => analysis
                    .moves
                    .iter()
                    .find(|(m, _)| *m == cell)
                    .and_then(|(_, v)| v.map(Value::short))
                    .unwrap_or_else(|| "?".to_string()),
            };
            let _ = write!(s, "{mark:>width$}");
        }
        s.push('\n');
    }
    s
}
