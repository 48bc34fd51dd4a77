//! What `kinrow solve` prints: text for people, one JSON object for
//! programs, and the map of move values (also shown by `kinrow play`).

use crate::rules::{Board, Cell};
use crate::solver::{analysis_map, Analysis, Report, Value};
use serde_json::json;
use std::fmt::Write;

/// Everything found about one position.
pub struct Findings {
    pub board: Board,
    pub report: Report,
    /// The principal line from the position (when the value is proved).
    pub line: Vec<Cell>,
    pub analysis: Option<Analysis>,
    /// Wall time of the whole run, in seconds.
    pub seconds: f64,
    /// CPU time of the process (user and system), in seconds: on a shared
    /// machine the fairer figure.
    pub cpu_seconds: f64,
    /// Whether Ctrl-C stopped the run.
    pub interrupted: bool,
}

impl Findings {
    pub fn new(board: &Board, report: Report) -> Findings {
        Findings {
            board: board.clone(),
            report,
            line: Vec::new(),
            analysis: None,
            seconds: 0.0,
            cpu_seconds: 0.0,
            interrupted: false,
        }
    }

    fn position_words(&self) -> String {
        let g = self.board.geometry();
        let moves: Vec<String> = self.board.moves().map(|c| c.to_string()).collect();
        let after = if moves.is_empty() {
            "the empty board".to_string()
        } else {
            format!("after {}", moves.join(", "))
        };
        format!(
            "{}x{} k{} {}, {} to move, {after}",
            g.rows(),
            g.cols(),
            g.k(),
            g.rule(),
            self.board.to_move()
        )
    }

    /// The report for people.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let me = self.board.to_move();
        let _ = writeln!(s, "{}", self.position_words());
        let r = &self.report;
        match r.value {
            Some(v) => {
                let words = match v {
                    Value::Win(n) => format!("{me} wins, the winning stone on ply {n} from here"),
                    Value::Draw => "a draw".to_string(),
                    Value::Loss(n) => format!(
                        "{} wins, the winning stone on ply {n} from here",
                        me.other()
                    ),
                };
                let _ = writeln!(s, "value: {v} ({words})");
                if let Some(best) = r.best {
                    let _ = writeln!(s, "best move: {best}");
                }
                if !self.line.is_empty() {
                    let line: Vec<String> = self.line.iter().map(|c| c.to_string()).collect();
                    let _ = writeln!(s, "line: {}", line.join(", "));
                }
            }
            None => {
                let why = if self.interrupted {
                    "interrupted"
                } else {
                    "out of time"
                };
                let _ = writeln!(
                    s,
                    "value: unknown ({why}); proved so far: {}",
                    r.bounds.describe(me)
                );
            }
        }
        if let Some(a) = &self.analysis {
            let _ = write!(s, "{}", analysis_map(&self.board, a));
        }
        let _ = write!(
            s,
            "proof: {} nodes in {:.3} s; all told {:.3} s ({:.3} s of CPU)",
            grouped(r.nodes),
            r.elapsed.as_secs_f64(),
            self.seconds,
            self.cpu_seconds
        );
        s
    }

    /// The report as one JSON object (schema in docs/solve.md).
    pub fn json(&self) -> String {
        let g = self.board.geometry();
        let r = &self.report;
        let (value, plies) = split(r.value);
        let cells = |v: &[Cell]| v.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        let moves: Vec<Cell> = self.board.moves().collect();
        let analysis = self.analysis.as_ref().map(|a| {
            a.moves
                .iter()
                .map(|(c, v)| {
                    let (value, plies) = split(*v);
                    json!({"move": c.to_string(), "value": value, "plies": plies})
                })
                .collect::<Vec<_>>()
        });
        let bound = |b: i8| match b {
            1 => "win",
            0 => "draw",
            _ => "loss",
        };
        json!({
            "board": format!("{}x{}", g.rows(), g.cols()),
            "k": g.k(),
            "rule": g.rule().to_string(),
            "moves": cells(&moves),
            "to_move": self.board.to_move().to_string(),
            "value": value,
            "plies": plies,
            "at_least": bound(r.bounds.lo),
            "at_most": bound(r.bounds.hi),
            "best": r.best.map(|c| c.to_string()),
            "line": cells(&self.line),
            "analysis": analysis,
            "nodes": r.nodes + self.analysis.as_ref().map_or(0, |a| a.nodes),
            "solve_seconds": round3(r.elapsed.as_secs_f64()),
            "seconds": round3(self.seconds),
            "cpu_seconds": round3(self.cpu_seconds),
            "interrupted": self.interrupted,
        })
        .to_string()
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A value as (`"win"`/`"draw"`/`"loss"`/`"unknown"`, plies).
fn split(v: Option<Value>) -> (&'static str, Option<u32>) {
    match v {
        Some(Value::Win(n)) => ("win", Some(n)),
        Some(Value::Draw) => ("draw", None),
        Some(Value::Loss(n)) => ("loss", Some(n)),
        None => ("unknown", None),
    }
}

/// `1234567` as `1 234 567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_digits() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_234_567), "1 234 567");
    }
}
