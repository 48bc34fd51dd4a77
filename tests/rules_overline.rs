//! The `free` and `exact` rules on gomoku (15x15 k5) and on edge shapes,
//! position by position, then random games checked against a naive
//! reference that scans the whole board for runs, and random walks of moves
//! and undos on random shapes (1x1 to 32x32, any K) against a naive model.

use kinrow::rules::{Board, Cell, Geometry, Outcome, Player, Rule};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn gomoku(rule: Rule) -> Geometry {
    Geometry::new(15, 15, 5, rule).unwrap()
}

fn cell(rc: &str) -> Cell {
    rc.parse().unwrap()
}

/// O's moves for the scripted games: far from X's and never two in a line.
const O_FILLER: [&str; 12] = [
    "15 1", "15 3", "15 5", "15 7", "15 9", "15 11", "15 13", "15 15", "13 1", "13 4", "13 7",
    "13 10",
];

/// Plays X's moves (the last one last) with O answering from the filler, and
/// returns the board and the outcome of X's last move. Every earlier move
/// must leave the game going.
fn x_plays(geo: Geometry, x_moves: &[&str]) -> (Board, Option<Outcome>) {
    x_plays_against(geo, x_moves, &O_FILLER)
}

/// As [`x_plays`], with O's moves given.
fn x_plays_against(geo: Geometry, x_moves: &[&str], o_moves: &[&str]) -> (Board, Option<Outcome>) {
    let mut board = Board::new(geo);
    let (last, earlier) = x_moves.split_last().unwrap();
    assert!(o_moves.len() >= earlier.len(), "not enough O moves");
    for (x, o) in earlier.iter().zip(o_moves) {
        assert_eq!(board.try_play(cell(x)), Ok(None), "X {x}");
        assert_eq!(board.try_play(cell(o)), Ok(None), "O {o}");
    }
    let outcome = board.try_play(cell(last)).unwrap();
    (board, outcome)
}

/// The outcome as `status` shows it (`win X 8 2 8 3 …`), or `ongoing`.
fn shown(outcome: Option<Outcome>) -> String {
    outcome.map_or_else(|| "ongoing".to_string(), |o| o.to_string())
}

#[test]
fn exactly_five_wins_under_both_rules() {
    for rule in [Rule::Free, Rule::Exact] {
        let (_, outcome) = x_plays(gomoku(rule), &["8 2", "8 3", "8 5", "8 6", "8 4"]);
        assert_eq!(shown(outcome), "win X 8 2 8 3 8 4 8 5 8 6", "{rule}");
    }
}

#[test]
fn six_in_a_row_wins_under_free_only() {
    let six = ["8 2", "8 3", "8 4", "8 6", "8 7", "8 5"];
    let (_, free) = x_plays(gomoku(Rule::Free), &six);
    assert_eq!(shown(free), "win X 8 2 8 3 8 4 8 5 8 6 8 7");

    let (mut board, exact) = x_plays(gomoku(Rule::Exact), &six);
    assert_eq!(shown(exact), "ongoing");
    // The game goes on: O moves, and X's overline still is no win later.
    assert_eq!(board.to_move(), Player::O);
    assert_eq!(board.try_play(cell("1 1")), Ok(None));
    assert_eq!(
        board.try_play(cell("8 8")),
        Ok(None),
        "seven is no win either"
    );
    assert_eq!(board.try_play(cell("1 3")), Ok(None));
    assert_eq!(board.try_play(cell("8 1")), Ok(None), "nor eight");
}

#[test]
fn overline_one_way_and_exact_five_another_wins_under_exact() {
    // 8 5 makes six across (8 2 … 8 7) and exactly five down (4 5 … 8 5).
    let moves = [
        "8 2", "8 3", "8 4", "8 6", "8 7", "4 5", "5 5", "6 5", "7 5", "8 5",
    ];
    let (_, exact) = x_plays(gomoku(Rule::Exact), &moves);
    assert_eq!(shown(exact), "win X 4 5 5 5 6 5 7 5 8 5");

    let (board, free) = x_plays(gomoku(Rule::Free), &moves);
    let across = "win X 8 2 8 3 8 4 8 5 8 6 8 7";
    let down = "win X 4 5 5 5 6 5 7 5 8 5";
    assert!(
        [across, down].contains(&shown(free).as_str()),
        "{}",
        shown(free)
    );
    assert_eq!(board.last_move(), Some(cell("8 5")));
}

#[test]
fn free_reports_the_whole_run_through_the_last_stone() {
    // Joining three and four makes a run of eight, on a diagonal.
    let moves = ["1 1", "2 2", "3 3", "5 5", "6 6", "7 7", "8 8", "4 4"];
    let (_, outcome) = x_plays(gomoku(Rule::Free), &moves);
    assert_eq!(shown(outcome), "win X 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8");
    // The same on the other diagonal, towards the lower left edge.
    let moves = ["1 15", "2 14", "4 12", "5 11", "6 10", "3 13"];
    let (_, outcome) = x_plays(gomoku(Rule::Free), &moves);
    assert_eq!(shown(outcome), "win X 1 15 2 14 3 13 4 12 5 11 6 10");
}

#[test]
fn exact_five_made_by_joining_two_runs() {
    let moves = ["10 1", "10 2", "10 4", "10 5", "10 3"];
    for rule in [Rule::Free, Rule::Exact] {
        let (_, outcome) = x_plays(gomoku(rule), &moves);
        assert_eq!(shown(outcome), "win X 10 1 10 2 10 3 10 4 10 5", "{rule}");
    }
    // One more stone beyond the far end turns it into an overline.
    let moves = ["10 1", "10 2", "10 4", "10 5", "10 6", "10 3"];
    let (_, outcome) = x_plays(gomoku(Rule::Exact), &moves);
    assert_eq!(shown(outcome), "ongoing");
}

#[test]
fn one_by_one_k1_first_move_wins() {
    for rule in [Rule::Free, Rule::Exact] {
        let mut board = Board::new(Geometry::new(1, 1, 1, rule).unwrap());
        assert_eq!(board.legal_moves().collect::<Vec<_>>(), vec![cell("1 1")]);
        let outcome = board.try_play(cell("1 1")).unwrap();
        assert_eq!(shown(outcome), "win X 1 1", "{rule}");
        assert_eq!(board.legal_moves().count(), 0);
        assert_eq!(board.undo(), Some(cell("1 1")));
        assert_eq!(board, Board::new(board.geometry()));
    }
}

#[test]
fn one_by_five_and_five_by_one_k5_are_always_drawn() {
    // Neither side can own all five cells: every game is a draw, 5! of them.
    for (rows, cols) in [(1, 5), (5, 1)] {
        for rule in [Rule::Free, Rule::Exact] {
            let geo = Geometry::new(rows, cols, 5, rule).unwrap();
            let (mut games, mut draws) = (0, 0);
            walk_games(&mut Board::new(geo), &mut |b| {
                games += 1;
                draws += (b.outcome() == Some(Outcome::Draw)) as u32;
                assert_eq!(b.ply(), 5);
            });
            assert_eq!((games, draws), (120, 120), "{rows}x{cols} {rule}");
        }
    }
}

#[test]
fn thin_boards_win_along_their_only_line() {
    let geo = Geometry::new(1, 5, 2, Rule::Free).unwrap();
    let (_, outcome) = x_plays_against(geo, &["1 2", "1 3"], &["1 5"]);
    assert_eq!(shown(outcome), "win X 1 2 1 3");
    let geo = Geometry::new(5, 1, 2, Rule::Exact).unwrap();
    let (_, outcome) = x_plays_against(geo, &["4 1", "5 1"], &["1 1"]);
    assert_eq!(shown(outcome), "win X 4 1 5 1");
    // On a line, joining two stones into three is a win under free and an
    // overline, no win, under exact.
    for (rule, want) in [(Rule::Free, "win X 1 1 1 2 1 3"), (Rule::Exact, "ongoing")] {
        let geo = Geometry::new(1, 7, 2, rule).unwrap();
        let (_, outcome) = x_plays_against(geo, &["1 1", "1 3", "1 2"], &["1 7", "1 5"]);
        assert_eq!(shown(outcome), want, "{rule}");
    }
}

/// Calls `at_end` on every finished game reachable from `board`.
fn walk_games(board: &mut Board, at_end: &mut dyn FnMut(&Board)) {
    if board.is_over() {
        at_end(board);
        return;
    }
    let moves: Vec<Cell> = board.legal_moves().collect();
    for m in moves {
        board.try_play(m).unwrap();
        walk_games(board, at_end);
        board.undo();
    }
}

#[test]
fn k_longer_than_a_side_wins_only_across() {
    // 3 rows, 5 columns, k 4: columns and diagonals are too short.
    let geo = Geometry::new(3, 5, 4, Rule::Free).unwrap();
    let (_, outcome) = x_plays_against(geo, &["2 1", "2 2", "2 3", "2 4"], &["1 1", "3 5", "1 5"]);
    assert_eq!(shown(outcome), "win X 2 1 2 2 2 3 2 4");

    // A full column and a full diagonal of X are no win.
    let mut board = Board::new(geo);
    for rc in ["1 1", "1 2", "2 1", "1 3", "3 1", "3 3", "2 2", "2 3"] {
        assert_eq!(board.try_play(cell(rc)), Ok(None), "{rc}");
    }
    assert_eq!(board.stone_at(cell("1 1")), Some(Player::X));
    assert_eq!(board.stone_at(cell("3 1")), Some(Player::X));
    assert_eq!(board.stone_at(cell("3 3")), Some(Player::O));

    // Over random games, every win is a row.
    let mut rng = SmallRng::seed_from_u64(4);
    let mut wins = 0;
    for _ in 0..2000 {
        let board = random_game(geo, &mut rng, &mut |_| {});
        if let Some(Outcome::Win { line, .. }) = board.outcome() {
            wins += 1;
            let rows: Vec<u8> = line.cells().map(|c| c.row).collect();
            assert!(rows.iter().all(|&r| r == rows[0]), "{line:?}");
        }
    }
    assert!(
        wins > 100,
        "random play on 3x5 k4 should win often ({wins})"
    );
}

/// All maximal runs of `p`'s stones (length, cells), in every direction.
fn runs(board: &Board, p: Player) -> Vec<Vec<Cell>> {
    let geo = board.geometry();
    let (rows, cols) = (geo.rows() as i32, geo.cols() as i32);
    let is_p = |r: i32, c: i32| {
        (0..rows).contains(&r)
            && (0..cols).contains(&c)
            && board.stone_at(Cell::new(r as u8, c as u8)) == Some(p)
    };
    let mut found = Vec::new();
    for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for r in 0..rows {
            for c in 0..cols {
                // Start only where the run starts.
                if !is_p(r, c) || is_p(r - dr, c - dc) {
                    continue;
                }
                let mut run = Vec::new();
                let (mut rr, mut cc) = (r, c);
                while is_p(rr, cc) {
                    run.push(Cell::new(rr as u8, cc as u8));
                    rr += dr;
                    cc += dc;
                }
                found.push(run);
            }
        }
    }
    found
}

/// The longest run of `p`'s stones through `cell` if `p` had a stone there.
fn longest_run_through(board: &Board, cell: Cell, p: Player) -> usize {
    let geo = board.geometry();
    let is_p = |r: i32, c: i32| {
        (0..geo.rows() as i32).contains(&r)
            && (0..geo.cols() as i32).contains(&c)
            && board.stone_at(Cell::new(r as u8, c as u8)) == Some(p)
    };
    let (r0, c0) = (cell.row as i32, cell.col as i32);
    [(0, 1), (1, 0), (1, 1), (1, -1)]
        .into_iter()
        .map(|(dr, dc)| {
            let mut len = 1;
            for sign in [1, -1] {
                let (mut r, mut c) = (r0 + sign * dr, c0 + sign * dc);
                while is_p(r, c) {
                    len += 1;
                    r += sign * dr;
                    c += sign * dc;
                }
            }
            len
        })
        .max()
        .unwrap_or(1)
}

/// Whether a run of this length wins under the shape's rule.
fn wins(geo: Geometry, len: usize) -> bool {
    match geo.rule() {
        Rule::Free => len >= geo.k(),
        Rule::Exact => len == geo.k(),
        rule => unreachable!("these checks play free and exact only, not {rule}"),
    }
}

/// Plays one uniformly random game, checking after every move that the
/// outcome agrees with the reference scan; `probe` sees every position first.
fn random_game(geo: Geometry, rng: &mut SmallRng, probe: &mut dyn FnMut(&Board)) -> Board {
    let mut board = Board::new(geo);
    while !board.is_over() {
        probe(&board);
        let moves: Vec<Cell> = board.legal_moves().collect();
        let m = moves[rng.random_range(0..moves.len())];
        let mover = board.to_move();
        let outcome = board.try_play(m).unwrap();
        let winning_runs: Vec<Vec<Cell>> = runs(&board, mover)
            .into_iter()
            .filter(|run| wins(geo, run.len()))
            .collect();
        match outcome {
            None => {
                assert!(winning_runs.is_empty(), "{geo}: missed a win\n{board}");
                assert!(!board.is_full());
            }
            Some(Outcome::Draw) => {
                assert!(winning_runs.is_empty(), "{geo}: missed a win\n{board}");
                assert!(board.is_full());
            }
            Some(Outcome::Win { winner, line }) => {
                assert_eq!(winner, mover);
                let cells: Vec<Cell> = line.cells().collect();
                assert!(
                    winning_runs.contains(&cells),
                    "{geo}: {line:?} is not a winning run\n{board}"
                );
                assert!(cells.contains(&m));
            }
        }
    }
    board
}

#[test]
fn random_games_agree_with_a_whole_board_scan() {
    let mut rng = SmallRng::seed_from_u64(2024);
    let shapes = [
        (15, 15, 5, 60),
        (7, 7, 4, 300),
        (6, 6, 3, 300),
        (5, 8, 3, 300),
        (4, 9, 2, 300),
        (2, 7, 4, 300),
        (9, 1, 3, 300),
        // The largest sides: lines of 32 cells.
        (32, 32, 5, 20),
        (3, 32, 4, 100),
        (32, 2, 3, 100),
    ];
    for (rows, cols, k, games) in shapes {
        for rule in [Rule::Free, Rule::Exact] {
            let geo = Geometry::new(rows, cols, k, rule).unwrap();
            // `wins_through` on an empty square must predict what playing it
            // does (probed on the smaller boards: it is every empty square of
            // every position).
            let probe_squares = geo.area() <= 64;
            let mut overline_blocks = 0;
            for _ in 0..games {
                random_game(geo, &mut rng, &mut |b| {
                    if !probe_squares {
                        return;
                    }
                    let p = b.to_move();
                    let mut after = b.clone();
                    for s in b.squares().filter(|&s| b.is_empty_square(s)) {
                        let predicted = b.wins_through(s, p);
                        let outcome = after.play_unchecked(s);
                        assert_eq!(predicted, outcome.and_then(|o| o.winner()) == Some(p));
                        after.undo();
                        if !predicted && longest_run_through(b, b.cell_of(s), p) > geo.k() {
                            overline_blocks += 1;
                        }
                    }
                });
            }
            if probe_squares && rule == Rule::Exact && k > 1 && rows.max(cols) > k {
                assert!(
                    overline_blocks > 0,
                    "{geo}: no overline seen, the test exercises nothing"
                );
            }
        }
    }
}

#[test]
fn a_cleared_board_plays_like_a_new_one() {
    let mut rng = SmallRng::seed_from_u64(7);
    for rule in [Rule::Free, Rule::Exact] {
        let geo = Geometry::new(9, 9, 4, rule).unwrap();
        let mut reused = Board::new(geo);
        for _ in 0..200 {
            reused.clear();
            assert_eq!(reused, Board::new(geo));
            assert_eq!((reused.ply(), reused.outcome()), (0, None));
            let mut fresh = Board::new(geo);
            while !fresh.is_over() {
                let moves: Vec<Cell> = fresh.legal_moves().collect();
                let m = moves[rng.random_range(0..moves.len())];
                assert_eq!(reused.try_play(m), fresh.try_play(m));
            }
        }
    }
}

/// A deliberately naive model of the rules, independent of `Board`'s
/// storage: a grid of its own, the moves, and a whole-board scan for runs.
struct Naive {
    rows: usize,
    cols: usize,
    k: usize,
    rule: Rule,
    grid: Vec<Option<Player>>,
    moves: Vec<Cell>,
}

impl Naive {
    fn new(geo: Geometry) -> Naive {
        Naive {
            rows: geo.rows(),
            cols: geo.cols(),
            k: geo.k(),
            rule: geo.rule(),
            grid: vec![None; geo.area()],
            moves: Vec::new(),
        }
    }

    fn at(&self, r: i32, c: i32) -> Option<Player> {
        let inside = (0..self.rows as i32).contains(&r) && (0..self.cols as i32).contains(&c);
        inside
            .then(|| self.grid[r as usize * self.cols + c as usize])
            .flatten()
    }

    fn to_move(&self) -> Player {
        [Player::X, Player::O][self.moves.len() % 2]
    }

    fn empties(&self) -> Vec<Cell> {
        (0..self.rows * self.cols)
            .filter(|&i| self.grid[i].is_none())
            .map(|i| Cell::new((i / self.cols) as u8, (i % self.cols) as u8))
            .collect()
    }

    fn play(&mut self, cell: Cell) {
        let i = cell.row as usize * self.cols + cell.col as usize;
        assert!(self.grid[i].is_none());
        self.grid[i] = Some(self.to_move());
        self.moves.push(cell);
    }

    fn undo(&mut self) -> Option<Cell> {
        let cell = self.moves.pop()?;
        self.grid[cell.row as usize * self.cols + cell.col as usize] = None;
        Some(cell)
    }

    /// Every maximal run of `p` that wins under the rule, cells in order
    /// along the direction (right, down, down-right, down-left).
    fn winning_runs(&self, p: Player) -> Vec<Vec<Cell>> {
        let mut found = Vec::new();
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
            for r in 0..self.rows as i32 {
                for c in 0..self.cols as i32 {
                    if self.at(r, c) != Some(p) || self.at(r - dr, c - dc) == Some(p) {
                        continue;
                    }
                    let mut run = Vec::new();
                    let (mut rr, mut cc) = (r, c);
                    while self.at(rr, cc) == Some(p) {
                        run.push(Cell::new(rr as u8, cc as u8));
                        rr += dr;
                        cc += dc;
                    }
                    let wins = match self.rule {
                        Rule::Free => run.len() >= self.k,
                        Rule::Exact => run.len() == self.k,
                        rule => unreachable!("the model plays free and exact only, not {rule}"),
                    };
                    if wins {
                        found.push(run);
                    }
                }
            }
        }
        found
    }

    /// The game's state: `None` while it goes on, else `Some(winning runs)`
    /// (empty for a draw). Play stops at a win, so only the last mover can
    /// have one, through the last stone.
    fn state(&self) -> Option<Vec<Vec<Cell>>> {
        let last = *self.moves.last()?;
        let mover = self.to_move().other();
        assert!(self.winning_runs(self.to_move()).is_empty());
        let runs = self.winning_runs(mover);
        assert!(runs.iter().all(|run| run.contains(&last)));
        if !runs.is_empty() || self.moves.len() == self.rows * self.cols {
            Some(runs)
        } else {
            None
        }
    }

    /// Whether a stone of `p` on the empty `cell` would make a winning run.
    fn would_win(&mut self, cell: Cell, p: Player) -> bool {
        let i = cell.row as usize * self.cols + cell.col as usize;
        self.grid[i] = Some(p);
        let wins = self.winning_runs(p).iter().any(|run| run.contains(&cell));
        self.grid[i] = None;
        wins
    }
}

/// Checks everything the board says against the naive model.
fn agree(board: &Board, naive: &mut Naive, rng: &mut SmallRng) {
    let geo = board.geometry();
    assert_eq!(board.ply(), naive.moves.len(), "{geo}");
    assert_eq!(board.moves().collect::<Vec<_>>(), naive.moves, "{geo}");
    assert_eq!(board.to_move(), naive.to_move(), "{geo}");
    let state = naive.state();
    match (board.outcome(), &state) {
        (None, None) => {
            assert_eq!(board.legal_moves().collect::<Vec<_>>(), naive.empties());
        }
        (Some(Outcome::Draw), Some(runs)) if runs.is_empty() => {
            assert!(board.is_full() && board.legal_moves().next().is_none());
        }
        (Some(Outcome::Win { winner, line }), Some(runs)) => {
            assert_eq!(winner, naive.to_move().other(), "{geo}");
            let cells: Vec<Cell> = line.cells().collect();
            assert!(
                runs.contains(&cells),
                "{geo}: {line:?} not in {runs:?}\n{board}"
            );
            assert_eq!(board.legal_moves().count(), 0);
        }
        (got, want) => panic!("{geo}: board says {got:?}, the scan {want:?}\n{board}"),
    }
    // Stones cell by cell, and what a stone on a few empty cells would do.
    for (i, &stone) in naive.grid.iter().enumerate() {
        let cell = Cell::new((i / naive.cols) as u8, (i % naive.cols) as u8);
        assert_eq!(board.stone_at(cell), stone, "{geo} {cell}");
    }
    if state.is_none() {
        let empties = naive.empties();
        for _ in 0..4 {
            let cell = empties[rng.random_range(0..empties.len())];
            let p = [Player::X, Player::O][rng.random_range(0..2)];
            let square = board.square(cell);
            assert_eq!(
                board.wins_through(square, p),
                naive.would_win(cell, p),
                "{geo}: {p} on {cell}\n{board}"
            );
        }
    }
}

#[test]
fn random_shapes_with_undo_agree_with_a_naive_model() {
    // Shapes from 1x1 to 32x32, K from 1 to the longer side (so K beyond
    // the shorter side too), both rules; moves and runs of undos at random,
    // including undos out of finished games and back to the empty board.
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    let side = |rng: &mut SmallRng| match rng.random_range(0..6) {
        0 => 1,
        1 => 32,
        2 => rng.random_range(2..=5),
        _ => rng.random_range(1..=32),
    };
    let mut fixed = vec![
        (1, 1, 1),
        (32, 32, 5),
        (32, 32, 32),
        (1, 32, 32),
        (32, 1, 2),
        (3, 9, 9),
    ];
    let mut stats = [0usize; 3]; // wins, draws, undos out of a finished game
    for round in 0..220 {
        let (rows, cols, k) = fixed.pop().unwrap_or_else(|| {
            let (rows, cols) = (side(&mut rng), side(&mut rng));
            let max = rows.max(cols);
            let k = if rng.random_bool(0.5) {
                rng.random_range(1..=max.min(6))
            } else {
                rng.random_range(1..=max)
            };
            (rows, cols, k)
        });
        let rule = [Rule::Free, Rule::Exact][round % 2];
        let geo = Geometry::new(rows, cols, k, rule).unwrap();
        let mut board = Board::new(geo);
        let mut naive = Naive::new(geo);
        // Long enough to fill small boards several times over.
        let steps = (3 * geo.area()).clamp(10, 700);
        for _ in 0..steps {
            let undo = board.is_over() || (board.ply() > 0 && rng.random_ratio(1, 4));
            if undo {
                if board.is_over() {
                    stats[2] += 1;
                }
                for _ in 0..rng.random_range(1..=3) {
                    assert_eq!(board.undo(), naive.undo(), "{geo}");
                }
            } else {
                let empties = naive.empties();
                let cell = empties[rng.random_range(0..empties.len())];
                let outcome = board
                    .try_play(cell)
                    .expect("an empty cell of a game going on");
                assert_eq!(outcome, board.outcome());
                naive.play(cell);
                match outcome {
                    Some(Outcome::Win { .. }) => stats[0] += 1,
                    Some(Outcome::Draw) => stats[1] += 1,
                    None => {}
                }
            }
            agree(&board, &mut naive, &mut rng);
            // The same moves on a fresh board give the same position.
            if rng.random_ratio(1, 16) {
                let mut fresh = Board::new(geo);
                for &m in &naive.moves {
                    fresh.try_play(m).unwrap();
                }
                assert_eq!(fresh, board, "{geo}");
                assert_eq!(fresh.outcome(), board.outcome(), "{geo}");
            }
        }
    }
    // The walk must have reached what it is meant to test.
    assert!(
        stats.iter().all(|&n| n > 50),
        "wins, draws, undos: {stats:?}"
    );
}
