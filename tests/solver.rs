//! The solver against brute force on every position of tiny games, and
//! against the known values of DESIGN.md §5 (the fast ones; the slow ones
//! are in scripts/bench-solve.sh).

mod common;

use kinrow::rules::{Board, Cell, Geometry, Outcome, Player, Rule};
use kinrow::solver::{Budget, Prover, Solver, Value};
use rand::Rng;
use std::collections::HashMap;

fn geometry(rows: u32, cols: u32, k: u32, rule: Rule) -> Geometry {
    Geometry::new(rows, cols, k, rule).unwrap()
}

/// Perfect values by plain memoised negamax over the rules, with distances:
/// the winner hurries, the loser holds out.
#[derive(Default)]
struct Oracle {
    memo: HashMap<u128, Value>,
}

impl Oracle {
    fn value(&mut self, board: &mut Board) -> Value {
        // The board in base 3 (up to 80 cells fit in a u128).
        let key = board.squares().fold(0u128, |key, s| {
            3 * key
                + match board.stone_on(s) {
                    None => 0,
                    Some(Player::X) => 1,
                    Some(Player::O) => 2,
                }
        });
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let moves: Vec<Cell> = board.legal_moves().collect();
        let best = moves
            .into_iter()
            .map(|m| self.move_value(board, m))
            .max_by_key(|v| v.rank())
            .expect("an ongoing game has moves");
        self.memo.insert(key, best);
        best
    }

    fn move_value(&mut self, board: &mut Board, cell: Cell) -> Value {
        let v = match board.try_play(cell).unwrap() {
            Some(Outcome::Win { .. }) => Value::Win(1),
            Some(Outcome::Draw) => Value::Draw,
            None => Value::before(self.value(board)),
        };
        board.undo();
        v
    }
}

#[test]
fn agrees_with_brute_force_on_every_position_of_tiny_games() {
    let shapes = [
        geometry(3, 3, 3, Rule::Free),
        geometry(3, 3, 2, Rule::Free),
        geometry(3, 4, 3, Rule::Free),
        geometry(2, 5, 3, Rule::Exact),
        geometry(1, 7, 3, Rule::Exact),
        geometry(2, 6, 3, Rule::Free),
        geometry(4, 3, 3, Rule::Exact),
        geometry(1, 1, 1, Rule::Free),
    ];
    for prover in [Prover::AlphaBeta, Prover::DfPn] {
        tiny_games_agree(&shapes, prover);
    }
}

/// Every position of each game: value, distance and best move, and on a
/// sample every move's value.
fn tiny_games_agree(shapes: &[Geometry], prover: Prover) {
    let mut solver = Solver::new(4);
    solver.set_prover(prover);
    for &geo in shapes {
        let mut oracle = Oracle::default();
        let positions = common::ongoing_positions(geo);
        for (i, pos) in positions.iter().enumerate() {
            let mut b = pos.clone();
            let want = oracle.value(&mut b);
            let report = solver.solve(pos, Budget::default()).unwrap();
            assert_eq!(report.value, Some(want), "{prover:?} {geo}\n{pos}");
            let best = report.best.expect("a best move");
            assert_eq!(
                oracle.move_value(&mut b, best),
                want,
                "{prover:?} {geo}\n{pos}\nbest {best}"
            );
            // Every move's value, on a sample (the analysis solves each child).
            if i % 7 == 0 {
                let analysis = solver.analyze(pos, Budget::default()).unwrap();
                for (cell, v) in analysis.moves {
                    assert_eq!(
                        v,
                        Some(oracle.move_value(&mut b, cell)),
                        "{prover:?} {geo}\n{pos}\n{cell}"
                    );
                }
            }
        }
    }
}

/// Random positions of `geo` with `empty` cells left (games played at
/// random from the empty board, finished ones skipped), seeded.
fn sampled_positions(geo: Geometry, empty: usize, count: usize, seed: u64) -> Vec<Board> {
    let mut rng = kinrow::bots::seeded_rng(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut board = Board::new(geo);
        while !board.is_over() && board.legal_moves().count() > empty {
            let moves: Vec<Cell> = board.legal_moves().collect();
            board
                .try_play(moves[rng.random_range(0..moves.len())])
                .unwrap();
        }
        if !board.is_over() {
            out.push(board);
        }
    }
    out
}

/// Where the tiny games are too small for relevance zones to prune much:
/// sampled positions of boards of 16 to 25 cells, against brute force.
#[test]
fn agrees_with_brute_force_on_sampled_positions_of_larger_boards() {
    let shapes = [
        (geometry(4, 4, 3, Rule::Free), 10),
        (geometry(4, 4, 4, Rule::Free), 11),
        (geometry(4, 5, 4, Rule::Free), 10),
        (geometry(5, 5, 4, Rule::Free), 10),
        (geometry(3, 7, 3, Rule::Free), 10),
        (geometry(5, 5, 5, Rule::Free), 10),
        (geometry(4, 5, 4, Rule::Exact), 9),
    ];
    let mut solvers = [Prover::AlphaBeta, Prover::DfPn].map(|prover| {
        let mut solver = Solver::new(4);
        solver.set_prover(prover);
        (prover, solver)
    });
    for (n, &(geo, empty)) in shapes.iter().enumerate() {
        let mut oracle = Oracle::default();
        for pos in sampled_positions(geo, empty, 40, n as u64) {
            let mut b = pos.clone();
            let want = oracle.value(&mut b);
            for (prover, solver) in solvers.iter_mut() {
                let report = solver.solve(&pos, Budget::default()).unwrap();
                assert_eq!(report.value, Some(want), "{prover:?} {geo}\n{pos}");
                let best = report.best.expect("a best move");
                assert_eq!(
                    oracle.move_value(&mut b, best),
                    want,
                    "{prover:?} {geo}\n{pos}\nbest {best}"
                );
            }
        }
    }
}

/// Relevance zones and the choice of search change the work, never the
/// value: on positions too big for brute force, alpha-beta without zones
/// against alpha-beta and df-pn with them, the value with its distance and
/// the best move with its value.
#[test]
fn relevance_zones_never_change_a_value() {
    let shapes = [
        (geometry(4, 4, 3, Rule::Free), 13),
        (geometry(3, 5, 3, Rule::Free), 12),
        (geometry(4, 5, 3, Rule::Free), 16),
        (geometry(3, 6, 3, Rule::Free), 15),
        (geometry(5, 5, 4, Rule::Free), 15),
        (geometry(4, 6, 4, Rule::Free), 16),
        (geometry(6, 6, 4, Rule::Free), 22),
        (geometry(4, 7, 4, Rule::Free), 18),
        (geometry(5, 5, 5, Rule::Free), 17),
        (geometry(3, 8, 3, Rule::Free), 16),
    ];
    let mut without = Solver::new(16);
    without.set_relevance_zones(false);
    without.set_prover(Prover::AlphaBeta);
    let mut solvers = [Prover::AlphaBeta, Prover::DfPn].map(|prover| {
        let mut solver = Solver::new(16);
        solver.set_prover(prover);
        (prover, solver)
    });
    for (n, &(geo, empty)) in shapes.iter().enumerate() {
        for pos in sampled_positions(geo, empty, 100, 100 + n as u64) {
            let want = without.solve(&pos, Budget::default()).unwrap().value;
            for (prover, with) in solvers.iter_mut() {
                let report = with.solve(&pos, Budget::default()).unwrap();
                assert_eq!(report.value, want, "{prover:?} {geo}\n{pos}");
                let mut child = pos.clone();
                let best = report.best.expect("a best move");
                let got = match child.try_play(best).unwrap() {
                    Some(Outcome::Win { .. }) => Some(Value::Win(1)),
                    Some(Outcome::Draw) => Some(Value::Draw),
                    None => without
                        .solve(&child, Budget::default())
                        .unwrap()
                        .value
                        .map(Value::before),
                };
                assert_eq!(got, want, "{prover:?} {geo}\n{pos}\nbest {best}");
            }
        }
    }
}

/// Known values from the literature (DESIGN.md §5): `ROWSxCOLS kK value`,
/// where value is `draw`, `win` (the first player) or `winN` (in N plies).
const KNOWN: &str = "
3x3 k3 draw
3x4 k3 win
3x5 k3 win
3x8 k3 win
4x4 k3 win
4x8 k3 win
4x4 k4 draw
4x5 k4 draw
4x6 k4 draw
5x5 k4 draw
5x6 k4 win11
6x5 k4 win11
6x6 k4 win
3x6 k4 draw
3x8 k5 draw
3x8 k6 draw
4x7 k5 draw
5x5 k5 draw
6x6 k5 draw
";

#[test]
fn proves_the_known_values_of_small_boards() {
    let mut solver = Solver::new(64);
    for line in KNOWN.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (r, c) = words[0].split_once('x').unwrap();
        let k: u32 = words[1][1..].parse().unwrap();
        let geo = geometry(r.parse().unwrap(), c.parse().unwrap(), k, Rule::Free);
        let report = solver.solve(&Board::new(geo), Budget::default()).unwrap();
        let value = report.value.unwrap_or_else(|| panic!("{line}: not proved"));
        match (words[2], value) {
            ("draw", Value::Draw) | ("win", Value::Win(_)) => {}
            (w, Value::Win(n)) if w == format!("win{n}") => {}
            _ => panic!("{line}: the solver says {value}"),
        }
    }
}

#[test]
fn a_deadline_in_the_past_proves_nothing_and_says_so() {
    let mut solver = Solver::new(4);
    let board = Board::new(geometry(7, 7, 5, Rule::Free));
    let budget = Budget::until(std::time::Instant::now());
    let report = solver.solve(&board, budget).unwrap();
    assert_eq!(report.value, None);
    assert!(report.best.is_none());
    let big = Board::new(geometry(9, 8, 5, Rule::Free));
    assert!(solver.solve(&big, Budget::default()).is_err());
}
