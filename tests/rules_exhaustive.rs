//! Exhaustive walks of small m,n,k-games through the rules core (like perft
//! for chess), checked against the published counts kept as data in
//! `tests/data/mnk-counts.txt` (DESIGN.md §5).
//!
//! Positions are keyed by a base-3 code of their cells (0 empty, 1 X, 2 O in
//! row-major order); the side to move follows from the stone count, so the
//! code alone identifies a position. Along the small walks every position is
//! also checked for the rules' invariants: `legal_moves` lists exactly the
//! empty cells, `try_play` agrees with `play_unchecked`, refuses occupied cells
//! and finished games without changing anything, `undo` restores the exact
//! previous position, and every winning line is a full run of the winner's
//! stones through the last move.

use kinrow::rules::{Board, BoardSize, Cell, Geometry, IllegalMove, Outcome, Player, Rule};
use std::collections::{BTreeMap, HashMap};

const DATA: &str = include_str!("data/mnk-counts.txt");

/// The expected facts for one shape (`"3x3 k3"`), metric name to value.
fn expected(shape: &str) -> BTreeMap<String, u64> {
    let mut facts = BTreeMap::new();
    for (n, line) in DATA.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [size, k, metric, value] = fields[..] else {
            panic!("mnk-counts.txt line {}: expected 4 fields: {line}", n + 1);
        };
        if format!("{size} {k}") == shape {
            let value = value
                .parse()
                .unwrap_or_else(|e| panic!("mnk-counts.txt line {}: {e}", n + 1));
            assert!(
                facts.insert(metric.to_string(), value).is_none(),
                "{shape} {metric} given twice"
            );
        }
    }
    facts
}

/// Every shape named in the data file.
fn shapes_in_data() -> Vec<String> {
    let mut shapes: Vec<String> = DATA
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect();
    shapes.dedup();
    shapes
}

fn geometry(shape: &str) -> Geometry {
    let (size, k) = shape.split_once(' ').expect("shape is 'RxC kK'");
    let size: BoardSize = size.parse().expect("board size");
    let k: u32 = k
        .strip_prefix('k')
        .and_then(|k| k.parse().ok())
        .expect("kK");
    Geometry::new(size.rows, size.cols, k, Rule::Free).expect("a playable shape")
}

/// The board being walked, with what is needed to key its positions.
struct Walker {
    board: Board,
    /// The board's squares in row-major order.
    squares: Vec<usize>,
    /// 3^i for the i-th square in row-major order.
    pow3: Vec<u64>,
    /// Check the rules' invariants at every position (slow; for small walks).
    check: bool,
}

impl Walker {
    fn new(geo: Geometry, check: bool) -> Walker {
        let board = Board::new(geo);
        let squares: Vec<usize> = board.squares().collect();
        let pow3 = (0..squares.len() as u32).map(|i| 3u64.pow(i)).collect();
        Walker {
            board,
            squares,
            pow3,
            check,
        }
    }

    /// The key of the position after the side to move plays the i-th square.
    fn child_key(&self, key: u64, i: usize) -> u64 {
        key + self.pow3[i] * (self.board.to_move().index() as u64 + 1)
    }

    /// The key of the current position, computed from scratch.
    fn key(&self) -> u64 {
        self.squares
            .iter()
            .zip(&self.pow3)
            .map(|(&s, &p)| p * self.board.stone_on(s).map_or(0, |pl| pl.index() as u64 + 1))
            .sum()
    }
}

/// Distinct positions, the terminal ones by result.
#[derive(Default)]
struct PositionCounts {
    positions: u64,
    terminal: [u64; 3],
}

/// Results indexed as [X wins, O wins, draw].
fn result_index(outcome: &Outcome) -> usize {
    match outcome.winner() {
        Some(Player::X) => 0,
        Some(Player::O) => 1,
        None => 2,
    }
}

/// A set of position keys as a bitmap over all 3^area codes.
struct Seen(Vec<u64>);

impl Seen {
    fn new(area: usize) -> Seen {
        let codes = 3u64.pow(area as u32);
        Seen(vec![0; codes.div_ceil(64) as usize])
    }
    /// Marks `key`; true if it was marked already.
    fn test_and_set(&mut self, key: u64) -> bool {
        let (word, bit) = ((key / 64) as usize, 1u64 << (key % 64));
        let was = self.0[word] & bit != 0;
        self.0[word] |= bit;
        was
    }
}

/// Visits every reachable position once (depth first, play stops at the end).
fn count_positions(w: &mut Walker) -> PositionCounts {
    fn visit(w: &mut Walker, seen: &mut Seen, key: u64, counts: &mut PositionCounts) {
        counts.positions += 1;
        if w.check {
            assert_eq!(w.key(), key, "incremental key drifted");
            check_position(&mut w.board);
        }
        if let Some(outcome) = w.board.outcome() {
            counts.terminal[result_index(&outcome)] += 1;
            return;
        }
        for i in 0..w.squares.len() {
            let square = w.squares[i];
            if !w.board.is_empty_square(square) {
                continue;
            }
            let child = w.child_key(key, i);
            if seen.test_and_set(child) {
                continue;
            }
            w.board.play_unchecked(square);
            visit(w, seen, child, counts);
            w.board.undo();
        }
    }
    let mut seen = Seen::new(w.squares.len());
    let mut counts = PositionCounts::default();
    seen.test_and_set(0);
    visit(w, &mut seen, 0, &mut counts);
    assert_eq!(w.board.ply(), 0, "the walk must undo every move");
    counts
}

/// Complete games by result, counted with one entry per position: the number
/// of ways to finish a game from a position depends on the position only.
fn count_games_memoised(w: &mut Walker) -> [u64; 3] {
    fn games(w: &mut Walker, key: u64, memo: &mut HashMap<u64, [u64; 3]>) -> [u64; 3] {
        if let Some(outcome) = w.board.outcome() {
            let mut unit = [0; 3];
            unit[result_index(&outcome)] = 1;
            return unit;
        }
        if let Some(&known) = memo.get(&key) {
            return known;
        }
        let mut total = [0; 3];
        for i in 0..w.squares.len() {
            let square = w.squares[i];
            if !w.board.is_empty_square(square) {
                continue;
            }
            let child = w.child_key(key, i);
            w.board.play_unchecked(square);
            let sub = games(w, child, memo);
            w.board.undo();
            for (t, s) in total.iter_mut().zip(sub) {
                *t += s;
            }
        }
        memo.insert(key, total);
        total
    }
    games(w, 0, &mut HashMap::new())
}

/// Complete games by result and by length, one by one, through the checked
/// `try_play` (small boards only: 3x3 has 255,168 games).
fn count_games_one_by_one(board: &mut Board) -> ([u64; 3], BTreeMap<usize, u64>) {
    fn walk(board: &mut Board, by_result: &mut [u64; 3], by_length: &mut BTreeMap<usize, u64>) {
        if let Some(outcome) = board.outcome() {
            by_result[result_index(&outcome)] += 1;
            *by_length.entry(board.ply()).or_default() += 1;
            return;
        }
        let moves: Vec<Cell> = board.legal_moves().collect();
        for cell in moves {
            board.try_play(cell).expect("a legal move");
            walk(board, by_result, by_length);
            assert_eq!(board.undo(), Some(cell));
        }
    }
    let mut by_result = [0; 3];
    let mut by_length = BTreeMap::new();
    walk(board, &mut by_result, &mut by_length);
    (by_result, by_length)
}

/// The rules' invariants at one position; leaves the board as it found it.
fn check_position(board: &mut Board) {
    let geo = board.geometry();
    let empties: Vec<usize> = board
        .squares()
        .filter(|&s| board.is_empty_square(s))
        .collect();
    assert_eq!(empties.len(), geo.area() - board.ply());
    let legal: Vec<Cell> = board.legal_moves().collect();
    if let Some(outcome) = board.outcome() {
        assert!(legal.is_empty(), "no legal moves once the game is over");
        if let Some(&square) = empties.first() {
            let before = board.clone();
            let cell = board.cell_of(square);
            assert_eq!(board.try_play(cell), Err(IllegalMove::GameOver));
            assert_eq!(*board, before);
        }
        match outcome {
            Outcome::Draw => assert!(empties.is_empty(), "a draw only on a full board"),
            Outcome::Win { .. } => check_win(board, &outcome),
        }
        return;
    }
    let empty_cells: Vec<Cell> = empties.iter().map(|&s| board.cell_of(s)).collect();
    assert_eq!(
        legal, empty_cells,
        "legal moves are the empty cells, row-major"
    );

    // An occupied cell is refused and changes nothing.
    if let Some(occupied) = board.last_move() {
        let before = board.clone();
        assert!(matches!(
            board.try_play(occupied),
            Err(IllegalMove::Occupied { .. })
        ));
        assert_eq!(*board, before);
        assert_eq!(board.ply(), before.ply());
    }

    for cell in legal {
        let before = board.clone();
        let history: Vec<Cell> = board.moves().collect();
        let mover = board.to_move();
        let outcome = board.try_play(cell).expect("a legal move");
        assert_eq!(outcome, board.outcome());
        assert_eq!(board.stone_at(cell), Some(mover));
        assert_eq!(board.to_move(), mover.other());
        assert_eq!(board.last_move(), Some(cell));
        if let Some(outcome @ Outcome::Win { .. }) = outcome {
            check_win(board, &outcome);
        }
        assert_eq!(board.undo(), Some(cell));
        assert_eq!(*board, before, "undo restores the position");
        assert_eq!(board.outcome(), None);
        assert_eq!(board.moves().collect::<Vec<_>>(), history);
        // And the fast path does the same as the checked one.
        let square = board.square(cell);
        assert_eq!(board.play_unchecked(square), outcome);
        board.undo();
        assert_eq!(*board, before);
    }
}

/// A reported win is a straight, full run of the winner's stones through the
/// last move, K or more long (exactly K under `exact`).
fn check_win(board: &Board, outcome: &Outcome) {
    let Outcome::Win { winner, line } = outcome else {
        return;
    };
    let geo = board.geometry();
    let last = board.last_move().expect("a won game has moves");
    assert_eq!(board.stone_at(last), Some(*winner), "the last mover won");
    let cells: Vec<Cell> = line.cells().collect();
    assert_eq!(cells.len(), line.len());
    match geo.rule() {
        Rule::Free => assert!(line.len() >= geo.k(), "{line:?} is shorter than k"),
        Rule::Exact => assert_eq!(line.len(), geo.k(), "{line:?} is not exactly k"),
        rule => unreachable!("the walks play free only, not {rule}"),
    }
    assert!(line.contains(last), "{line:?} misses the last move {last}");
    for &c in &cells {
        assert_eq!(board.stone_at(c), Some(*winner), "{c} in {line:?}");
    }
    if cells.len() >= 2 {
        let step = (
            cells[1].row as i32 - cells[0].row as i32,
            cells[1].col as i32 - cells[0].col as i32,
        );
        assert!(
            matches!(step, (0, 1) | (1, 0) | (1, 1) | (1, -1)),
            "{line:?} is not a line"
        );
        for w in cells.windows(2) {
            let d = (
                w[1].row as i32 - w[0].row as i32,
                w[1].col as i32 - w[0].col as i32,
            );
            assert_eq!(d, step, "{line:?} is not straight");
        }
        // The run is whole: the cells just beyond its ends are not the winner's.
        let first = cells[0];
        let last_cell = cells[cells.len() - 1];
        for (cell, sign) in [(first, -1), (last_cell, 1)] {
            let (r, c) = (
                cell.row as i32 + sign * step.0,
                cell.col as i32 + sign * step.1,
            );
            if (0..geo.rows() as i32).contains(&r) && (0..geo.cols() as i32).contains(&c) {
                let beyond = Cell::new(r as u8, c as u8);
                assert_ne!(
                    board.stone_at(beyond),
                    Some(*winner),
                    "{line:?} stops short"
                );
            }
        }
    }
}

/// Computes every metric the data file names for `shape` and compares.
fn check_shape(shape: &str, check_invariants: bool) {
    let want = expected(shape);
    assert!(!want.is_empty(), "no data for {shape}");
    let geo = geometry(shape);
    let mut got: BTreeMap<String, u64> = BTreeMap::new();
    let wants = |prefix: &str| want.keys().any(|m| m.starts_with(prefix));

    if wants("positions") || wants("terminal") {
        let counts = count_positions(&mut Walker::new(geo, check_invariants));
        got.insert("positions".into(), counts.positions);
        got.insert("terminal".into(), counts.terminal.iter().sum());
        got.insert("terminal-x".into(), counts.terminal[0]);
        got.insert("terminal-o".into(), counts.terminal[1]);
        got.insert("terminal-draw".into(), counts.terminal[2]);
    }
    if wants("games") {
        let by_result = count_games_memoised(&mut Walker::new(geo, false));
        if wants("games-length") {
            let (one_by_one, by_length) = count_games_one_by_one(&mut Board::new(geo));
            assert_eq!(
                one_by_one, by_result,
                "memoised and one-by-one counts differ"
            );
            for (len, n) in by_length {
                got.insert(format!("games-length-{len}"), n);
            }
        }
        got.insert("games".into(), by_result.iter().sum());
        got.insert("games-x".into(), by_result[0]);
        got.insert("games-o".into(), by_result[1]);
        got.insert("games-draw".into(), by_result[2]);
    }
    for (metric, value) in &want {
        assert_eq!(got.get(metric), Some(value), "{shape} {metric}");
    }
}

#[test]
fn tic_tac_toe_counts_and_invariants() {
    check_shape("3x3 k3", true);
}

#[test]
fn three_by_four_k3_counts_and_invariants() {
    check_shape("3x4 k3", true);
}

#[test]
fn four_by_three_k3_counts() {
    check_shape("4x3 k3", false);
}

#[test]
fn four_by_four_k4_positions() {
    check_shape("4x4 k4", false);
}

#[test]
fn every_shape_in_the_data_is_checked() {
    let tested = ["3x3 k3", "3x4 k3", "4x3 k3", "4x4 k4"];
    for shape in shapes_in_data() {
        assert!(tested.contains(&shape.as_str()), "{shape} has no test");
    }
}
