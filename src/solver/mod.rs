//! The exact solver: proves the value of a position (a win in N plies, a
//! draw, a loss in N) on boards of up to 64 cells, with a best move, the
//! principal line and the value of every move.
//!
//! A pure library: no I/O, no hidden clock (the caller gives a deadline, a
//! stop flag and a progress callback in a [`Budget`]). Bots call it with a
//! deadline and take what it proved in time:
//!
//! ```
//! use kinrow::rules::{Board, Geometry, Rule};
//! use kinrow::solver::{Budget, Solver, Value};
//! let mut solver = Solver::new(16);
//! let board = Board::new(Geometry::new(4, 4, 4, Rule::Free).unwrap());
//! let report = solver.solve(&board, Budget::default()).unwrap();
//! assert_eq!(report.value, Some(Value::Draw));
//! ```
//!
//! How it searches (see `search`): bitboards and window masks; negamax with
//! alpha-beta over loss/draw/win, asked first whether the side to move can
//! hold the draw and then whether it wins; a transposition table keyed by
//! the smallest hash over the board's symmetries, keeping what took the most
//! work; immediate wins, forced blocks and double threats; windows that can
//! no longer be completed pruned (a player without one cannot win, and
//! cells outside every live window are not searched); pairing strategies as
//! cheap draw proofs; then a depth-bounded AND/OR search for the distance.

mod dfpn;
mod layout;
mod map;
mod pairing;
mod search;
mod table;

use crate::rules::{Board, Cell, Geometry, Player, Rule};
use layout::Layout;
pub use search::Prover;
use search::{Pos, Search, SearchLimits};
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use table::Table;

pub use layout::MAX_CELLS;
pub use map::analysis_map;

/// The value of a position for the side to move, with perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins; its winning stone is the n-th ply from now
    /// (the winner hurrying, the loser holding out).
    Win(u32),
    /// Neither side can force a win.
    Draw,
    /// The other side wins with its stone on the n-th ply from now.
    Loss(u32),
}

impl Value {
    /// The value for the player who made a move, from the value of the
    /// position after it (for the other player).
    pub fn before(after: Value) -> Value {
        match after {
            Value::Win(n) => Value::Loss(n + 1),
            Value::Draw => Value::Draw,
            Value::Loss(n) => Value::Win(n + 1),
        }
    }

    /// 1 a win, 0 a draw, -1 a loss.
    pub fn sign(self) -> i8 {
        match self {
            Value::Win(_) => 1,
            Value::Draw => 0,
            Value::Loss(_) => -1,
        }
    }

    /// Orders values for the side to move: quicker wins above slower ones,
    /// slower losses above quicker ones.
    pub fn rank(self) -> i64 {
        match self {
            Value::Win(n) => 10_000 - n as i64,
            Value::Draw => 0,
            Value::Loss(n) => -10_000 + n as i64,
        }
    }

    /// The short form for a map of the board: `W9`, `D`, `L12`.
    pub fn short(self) -> String {
        match self {
            Value::Win(n) => format!("W{n}"),
            Value::Draw => "D".into(),
            Value::Loss(n) => format!("L{n}"),
        }
    }
}

impl fmt::Display for Value {
    /// As the protocol says it: `win 11`, `draw`, `loss 8`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win {n}"),
            Value::Draw => f.write_str("draw"),
            Value::Loss(n) => write!(f, "loss {n}"),
        }
    }
}

/// What is proved of a value for the side to move: it lies between `lo`
/// and `hi` (-1 a loss, 0 a draw, 1 a win).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lo: i8,
    pub hi: i8,
}

impl Bounds {
    /// Nothing proved.
    pub const OPEN: Bounds = Bounds { lo: -1, hi: 1 };

    /// In words, for `player` (the side to move): `X wins`, `X does not
    /// lose`, `nothing proved`, …
    pub fn describe(self, player: Player) -> String {
        let other = player.other();
        match (self.lo, self.hi) {
            (1, _) => format!("{player} wins"),
            (_, -1) => format!("{other} wins"),
            (0, 0) => "a draw".into(),
            (0, _) => format!("{player} does not lose (a draw or better)"),
            (_, 0) => format!("{player} does not win (a draw or worse)"),
            _ => "nothing proved yet".into(),
        }
    }
}

/// What a caller allows one request: a deadline, a stop flag (Ctrl-C) and
/// a progress callback (nodes so far, and what is being asked).
#[derive(Default)]
pub struct Budget<'a> {
    pub deadline: Option<Instant>,
    pub stop: Option<&'a AtomicBool>,
    pub progress: Option<&'a mut dyn FnMut(&Progress)>,
}

impl<'a> Budget<'a> {
    /// A budget ending at `deadline`.
    pub fn until(deadline: Instant) -> Budget<'a> {
        Budget::until_maybe(Some(deadline))
    }

    /// A budget ending at `deadline`, if any.
    pub fn until_maybe(deadline: Option<Instant>) -> Budget<'a> {
        Budget {
            deadline,
            ..Budget::default()
        }
    }
}

/// Where a long proof stands.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Nodes searched in this request so far.
    pub nodes: u64,
    /// Since the request began.
    pub elapsed: Duration,
    /// The question being worked on, e.g. `does X win?`.
    pub question: String,
    /// What is proved of the position so far.
    pub bounds: Bounds,
}

/// Why the solver cannot take a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The board has more than 64 cells.
    TooLarge(Geometry),
    /// The game is over: there is nothing to solve.
    GameOver,
    /// The solver knows only the free and exact rules (renju's forbidden
    /// cells and caro's blocked fives are not in its search).
    Rule(Rule),
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::TooLarge(g) => write!(
                f,
                "the solver takes boards of up to {MAX_CELLS} cells; {}x{} has {}",
                g.rows(),
                g.cols(),
                g.area()
            ),
            SolveError::GameOver => f.write_str("the game is over"),
            SolveError::Rule(rule) => {
                write!(f, "the solver knows the free and exact rules, not {rule}")
            }
        }
    }
}
impl std::error::Error for SolveError {}

/// The answer to `solve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The value, when proved in full (with its distance).
    pub value: Option<Value>,
    /// What is proved (all of it when `value` is known).
    pub bounds: Bounds,
    /// A best move: one that keeps the value (the quickest win, the slowest
    /// loss), when the value is proved.
    pub best: Option<Cell>,
    /// Nodes searched.
    pub nodes: u64,
    pub elapsed: Duration,
}

/// The answer to `analyze`: every legal move with its value for the side to
/// move (`None`: not proved in time), in row-major order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub moves: Vec<(Cell, Option<Value>)>,
    pub nodes: u64,
    pub elapsed: Duration,
}

impl Analysis {
    /// The best proved value among the moves, if every move is proved.
    pub fn value(&self) -> Option<Value> {
        let values: Option<Vec<Value>> = self.moves.iter().map(|m| m.1).collect();
        values?.into_iter().max_by_key(|v| v.rank())
    }
}

/// Default table size for a solver inside a bot or the engine, in MiB.
pub const DEFAULT_TABLE_MIB: usize = 64;

/// The solver, with its table kept between requests on the same shape.
pub struct Solver {
    shape: Option<Layout>,
    table: Table,
    table_mib: usize,
    zones: bool,
    prover: Prover,
}

impl Solver {
    /// A solver with a table of at most `table_mib` MiB.
    pub fn new(table_mib: usize) -> Solver {
        Solver {
            shape: None,
            table: Table::with_mib(table_mib),
            table_mib,
            zones: true,
            prover: Prover::Both,
        }
    }

    /// Chooses the search that answers the value's questions (by default
    /// alpha-beta up to a node budget, then df-pn). Values never depend on
    /// it, only the work does: the tests compare them.
    pub fn set_prover(&mut self, prover: Prover) {
        self.prover = prover;
    }

    /// Switches relevance zones on or off (on by default; they only apply
    /// under the free rule). Values never depend on it, only the work does:
    /// the tests compare the two.
    pub fn set_relevance_zones(&mut self, on: bool) {
        if on != self.zones {
            self.zones = on;
            self.table.clear();
        }
    }

    /// The table size asked for, in MiB.
    pub fn table_mib(&self) -> usize {
        self.table_mib
    }

    /// Whether the solver takes boards of this shape (up to 64 cells, free
    /// or exact).
    pub fn supports(geometry: Geometry) -> bool {
        Solver::refusal(geometry).is_none()
    }

    /// Why the solver does not take boards of this shape, if it does not.
    pub fn refusal(geometry: Geometry) -> Option<SolveError> {
        if geometry.area() > MAX_CELLS {
            Some(SolveError::TooLarge(geometry))
        } else if !matches!(geometry.rule(), Rule::Free | Rule::Exact) {
            Some(SolveError::Rule(geometry.rule()))
        } else {
            None
        }
    }

    /// Forgets what earlier requests proved.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The shape's tables, rebuilt (and the table cleared) on a new shape.
    fn prepare(&mut self, board: &Board) -> Result<Pos, SolveError> {
        let g = board.geometry();
        if board.is_over() {
            return Err(SolveError::GameOver);
        }
        if let Some(refusal) = Solver::refusal(g) {
            return Err(refusal);
        }
        if self.shape.as_ref().is_none_or(|s| s.geometry != g) {
            self.shape = Some(Layout::new(g).ok_or(SolveError::TooLarge(g))?);
            self.table.clear();
        }
        let shape = self.shape.as_ref().expect("just built");
        let mut pos = Pos::new();
        for cell in board.moves() {
            pos.play(shape, cell_index(g, cell));
        }
        Ok(pos)
    }

    /// Proves the value of the position for the side to move, with a best
    /// move, within the budget; when stopped, the report says what was
    /// proved so far.
    pub fn solve(&mut self, board: &Board, mut budget: Budget) -> Result<Report, SolveError> {
        let pos = self.prepare(board)?;
        let start = Instant::now();
        let g = board.geometry();
        let player = board.to_move();
        let shape = self.shape.as_ref().expect("prepared");
        let mut bounds = Bounds::OPEN;
        let mut report = Report {
            value: None,
            bounds,
            best: None,
            nodes: 0,
            elapsed: Duration::ZERO,
        };
        // The question and bounds change as the proof goes on; the
        // progress callback reads them from here.
        let state = std::cell::RefCell::new((String::new(), bounds));
        let mut on_nodes = |nodes: u64| {
            if let Some(p) = budget.progress.as_mut() {
                let (question, bounds) = state.borrow().clone();
                p(&Progress {
                    nodes,
                    elapsed: start.elapsed(),
                    question,
                    bounds,
                });
            }
        };
        let limits = SearchLimits {
            deadline: budget.deadline,
            stop: budget.stop,
            progress: Some(&mut on_nodes),
        };
        let mut search = Search::new(shape, &mut self.table, pos, limits);
        search.zones &= self.zones;
        search.prover = self.prover;

        // First: does the side to move hold the draw? Then: does it win?
        *state.borrow_mut() = (format!("does {player} lose?"), bounds);
        let loses = search.wins(1 - player.index());
        let mut best = search.root_best;
        match loses {
            Some(true) => bounds.hi = -1,
            Some(false) => bounds.lo = 0,
            None => {}
        }
        if bounds.lo == 0 && bounds.hi == 1 {
            *state.borrow_mut() = (format!("does {player} win?"), bounds);
            match search.wins(player.index()) {
                Some(true) => {
                    bounds.lo = 1;
                    best = search.root_best;
                }
                Some(false) => bounds.hi = 0,
                None => {}
            }
        }
        if !search.stopped && bounds.lo == bounds.hi {
            *state.borrow_mut() = ("how many plies?".to_string(), bounds);
            let value = match bounds.lo {
                0 => Some(Value::Draw),
                1 => search.distance(true).map(Value::Win),
                _ => search.distance(false).map(Value::Loss),
            };
            if let Some(value) = value {
                best = best_move_for(&mut search, value).or(best);
                report.value = Some(value);
                report.best = best.map(|c| cell_of(g, c));
            }
        }
        report.bounds = bounds;
        report.nodes = search.nodes;
        report.elapsed = start.elapsed();
        Ok(report)
    }

    /// The value of every legal move, within the budget.
    pub fn analyze(&mut self, board: &Board, mut budget: Budget) -> Result<Analysis, SolveError> {
        self.prepare(board)?;
        let start = Instant::now();
        let mut analysis = Analysis {
            moves: Vec::new(),
            nodes: 0,
            elapsed: Duration::ZERO,
        };
        let mut child = board.clone();
        let cells: Vec<Cell> = board.legal_moves().collect();
        let total = cells.len();
        let mut stopped = false;
        for (i, cell) in cells.into_iter().enumerate() {
            let outcome = child.try_play(cell).expect("a legal move");
            let value = if stopped {
                None
            } else if let Some(o) = outcome {
                Some(if o.winner().is_some() {
                    Value::Win(1)
                } else {
                    Value::Draw
                })
            } else {
                let mut progress = |p: &Progress| {
                    if let Some(outer) = budget.progress.as_mut() {
                        outer(&Progress {
                            nodes: analysis.nodes + p.nodes,
                            elapsed: start.elapsed(),
                            question: format!("move {}/{total} ({cell}): {}", i + 1, p.question),
                            bounds: p.bounds,
                        });
                    }
                };
                let inner = Budget {
                    deadline: budget.deadline,
                    stop: budget.stop,
                    progress: Some(&mut progress),
                };
                let r = self.solve(&child, inner)?;
                analysis.nodes += r.nodes;
                stopped = r.value.is_none();
                r.value.map(Value::before)
            };
            child.undo();
            analysis.moves.push((cell, value));
        }
        analysis.elapsed = start.elapsed();
        Ok(analysis)
    }

    /// The principal line from a position: best moves for both sides until
    /// the game ends or no one can complete a line any more (at most
    /// `max_plies`, within the budget).
    pub fn principal_line(&mut self, board: &Board, max_plies: usize, budget: Budget) -> Vec<Cell> {
        let mut line = Vec::new();
        let mut b = board.clone();
        while line.len() < max_plies && !b.is_over() {
            let Ok(pos) = self.prepare(&b) else { break };
            let shape = self.shape.as_ref().expect("prepared");
            let limits = SearchLimits {
                deadline: budget.deadline,
                stop: budget.stop,
                progress: None,
            };
            let search = Search::new(shape, &mut self.table, pos, limits);
            let f = search.facts();
            let left = search.pos.empty(shape).count_ones();
            let p = search.pos.to_move;
            let hopeless = |q: usize| f.need[q] > if q == p { left.div_ceil(2) } else { left / 2 };
            if hopeless(0) && hopeless(1) {
                break;
            }
            let inner = Budget {
                deadline: budget.deadline,
                stop: budget.stop,
                progress: None,
            };
            match self.solve(&b, inner) {
                Ok(Report {
                    best: Some(cell), ..
                }) => {
                    b.try_play(cell).expect("the solver plays legal moves");
                    line.push(cell);
                }
                _ => break,
            }
        }
        line
    }
}

/// With the value of the root proved, a move that keeps it, distance and all.
fn best_move_for(search: &mut Search, value: Value) -> Option<usize> {
    let shape = search.shape;
    let me = search.pos.to_move;
    let f = search.facts();
    let mut cand = search.pos.empty(shape);
    if f.win[me] != 0 {
        return Some(f.win[me].trailing_zeros() as usize);
    }
    while cand != 0 {
        let c = cand.trailing_zeros() as usize;
        cand &= cand - 1;
        let mut pos = search.pos.clone();
        pos.play(shape, c);
        std::mem::swap(&mut search.pos, &mut pos);
        let keeps = match value {
            Value::Win(n) => search.within(me, n - 1),
            Value::Loss(n) => n < 2 || !search.within(1 - me, n - 2),
            Value::Draw => return None,
        };
        std::mem::swap(&mut search.pos, &mut pos);
        if search.stopped {
            return None;
        }
        if keeps {
            return Some(c);
        }
    }
    None
}

/// The bit index of a cell.
fn cell_index(g: Geometry, cell: Cell) -> usize {
    cell.row as usize * g.cols() + cell.col as usize
}

/// The cell of a bit index.
fn cell_of(g: Geometry, index: usize) -> Cell {
    Cell::new((index / g.cols()) as u8, (index % g.cols()) as u8)
}
