//! Ending a game before the board does: `--draw-after PLIES` (a draw once
//! that many stones are on the board, as c-gomoku-cli's `drawafter`), and
//! `--exact-adjudication`, which ends a game only on a proof: the exact
//! solver's value of the position (boards of up to 64 cells under the free
//! and exact rules, once few cells are empty), or a forced win by fours
//! for the side to move, found by the referee's own search ([`vcf`]),
//! which accounts for every reply of the defender.
//!
//! An adjudicated game is no engine's fault: its reason is `adjudicated`,
//! its detail says which kind (`draw-after: …`, `proof: …`) and, for a
//! proof, the line that proves it.

use crate::rules::{Board, Cell, Player};
use crate::solver::{Budget, Solver, Value};
use std::cell::RefCell;
use std::fmt::Write as _;

/// How a run ends games early (all off by default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// A draw once this many stones (the opening's included) are on the
    /// board.
    pub draw_after: Option<usize>,
    /// End games on proofs: the solver's, once at most this many cells are
    /// empty (on boards it takes), and forced wins by fours.
    pub exact: Option<ExactAdjudication>,
}

/// What `--exact-adjudication` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactAdjudication {
    /// The solver is asked once at most this many cells are empty.
    pub solver_empties: usize,
}

/// Asked of the solver by default: few enough empty cells that a proof
/// takes milliseconds on any board it takes.
pub const DEFAULT_SOLVER_EMPTIES: usize = 24;

/// Fours the search for a forced win plays at most (the attacker's moves).
const VCF_DEPTH: usize = 10;
/// Positions the search for a forced win visits at most per ply: the same
/// bound on every machine, so the same games end the same way.
const VCF_NODES: u64 = 5_000;
/// The plies of a solver's proof written into the record.
const SOLVER_LINE: usize = 16;

impl Adjudication {
    /// The settings as the run line records them (`None`: off), e.g.
    /// `draw-after 60, exact (solver at 24 empty cells)`.
    pub fn description(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(n) = self.draw_after {
            parts.push(format!("draw-after {n}"));
        }
        if let Some(e) = self.exact {
            parts.push(format!(
                "exact (solver at {} empty cells, fours)",
                e.solver_empties
            ));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// Refuses a `--draw-after` that an opening already reaches: its games
    /// would end before a move was played.
    pub fn check_openings(&self, openings: &super::openings::Openings) -> anyhow::Result<()> {
        match self.draw_after {
            Some(n) if openings.longest() >= n => anyhow::bail!(
                "--draw-after {n}: an opening of this run has {} stones already, so its games \
                 would end before any move; give more plies than the longest opening",
                openings.longest()
            ),
            _ => Ok(()),
        }
    }

    /// Whether anything is to be adjudicated at all.
    pub fn is_on(&self) -> bool {
        self.draw_after.is_some() || self.exact.is_some()
    }

    /// The ruling on the position `board` (undecided on the board), if
    /// the game is to end here.
    pub fn rule(&self, board: &Board) -> Option<Ruling> {
        if let Some(n) = self.draw_after {
            if board.ply() >= n {
                return Some(Ruling {
                    winner: None,
                    detail: format!(
                        "draw-after: {} stones on the board (--draw-after {n})",
                        board.ply()
                    ),
                });
            }
        }
        let exact = self.exact?;
        let empties = board.geometry().area() - board.ply();
        if empties <= exact.solver_empties && Solver::supports(board.geometry()) {
            if let Some(ruling) = solver_ruling(board) {
                return Some(ruling);
            }
        }
        let line = vcf(board)?;
        let me = board.to_move();
        Some(Ruling {
            winner: Some(me),
            detail: format!("proof: {me} to move wins by fours: {}", cells_text(&line)),
        })
    }
}

/// The kinds of adjudication, as records and reports name them.
pub const KINDS: [&str; 2] = ["draw-after", "proof"];

/// The kind of an adjudicated game, from its detail (`KIND: …`), as an
/// index into [`KINDS`].
pub fn kind_index(detail: Option<&str>) -> usize {
    let kind = detail.and_then(|d| d.split(':').next()).unwrap_or("");
    KINDS.iter().position(|&k| k == kind).unwrap_or(1)
}

/// A game ended by adjudication: who won (`None`: a draw) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    pub winner: Option<Player>,
    /// `KIND: what`, the record's detail.
    pub detail: String,
}

fn cells_text(cells: &[Cell]) -> String {
    let mut text = String::new();
    for (i, c) in cells.iter().enumerate() {
        let _ = write!(text, "{}{c}", if i > 0 { ", " } else { "" });
    }
    text
}

thread_local! {
    /// A worker's solver, kept from game to game (its table is cleared
    /// before every proof, so a proof never depends on the games before).
    static SOLVER: RefCell<Option<Solver>> = const { RefCell::new(None) };
}

/// The solver's value of `board`, as a ruling with its principal line.
fn solver_ruling(board: &Board) -> Option<Ruling> {
    SOLVER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let solver = slot.get_or_insert_with(|| Solver::new(16));
        solver.clear();
        let report = solver.solve(board, Budget::default()).ok()?;
        let value = report.value?;
        let me = board.to_move();
        let line = solver.principal_line(board, SOLVER_LINE, Budget::default());
        let (winner, what) = match value {
            Value::Win(n) => (Some(me), format!("{me} to move wins in {n} plies")),
            Value::Loss(n) => (Some(me.other()), format!("{me} to move loses in {n} plies")),
            Value::Draw => (None, format!("a draw with best play ({me} to move)")),
        };
        Some(Ruling {
            winner,
            detail: format!("proof: the solver: {what}; best line {}", cells_text(&line)),
        })
    })
}

/// A forced win by fours for the side to move, as its line (the
/// attacker's fours and the defender's forced replies, ending with the
/// winning stone), if the search finds one within its bounds.
///
/// A proof: every attacking move is a four or makes K in a row; after each
/// four, every legal reply of the defender is looked at — one that wins for
/// the defender refutes it; one after which the attacker has no win at
/// once must be beaten by the rest of the line — so counter-fours, blocks
/// that make fours, and rules that change what a line is (exact, renju,
/// caro) are all taken into account by the rules core itself.
pub fn vcf(board: &Board) -> Option<Vec<Cell>> {
    if board.is_over() {
        return None;
    }
    let mut scratch = board.clone();
    let mut search = Vcf {
        nodes: 0,
        line: Vec::new(),
    };
    search
        .attack(&mut scratch, VCF_DEPTH)
        .then_some(search.line)
}

struct Vcf {
    nodes: u64,
    /// The proof's line, built as the search returns.
    line: Vec<Cell>,
}

/// The legal squares where the side to move would make K in a row at once.
fn winning_squares(board: &Board) -> Vec<usize> {
    let me = board.to_move();
    board
        .squares()
        .filter(|&s| board.is_legal_square(s) && board.wins_through(s, me))
        .collect()
}

/// The squares where the defender (not to move) would make K in a row, on
/// the defender's own legality (renju's forbidden cells are Black's).
fn defender_wins(board: &Board) -> Vec<usize> {
    let them = board.to_move().other();
    let guarded = board.geometry().rule().forbids(them);
    board
        .squares()
        .filter(|&s| {
            board.stone_on(s).is_none()
                && board.wins_through(s, them)
                && !(guarded && board.forbidden_square(s).is_some())
        })
        .collect()
}

/// The empty squares on the four lines through `square`, at most K - 1
/// away, where `p` would make K in a row: after `p`'s stone on `square`,
/// the only places a new K in a row can be.
fn threats_through(board: &Board, square: usize, p: Player) -> Vec<usize> {
    let g = board.geometry();
    let (rows, cols) = (g.rows() as i32, g.cols() as i32);
    let at = board.cell_of(square);
    let reach = g.k() as i32 - 1;
    let mut found = Vec::new();
    for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for step in (-reach..=reach).filter(|&s| s != 0) {
            let (r, c) = (i32::from(at.row) + dr * step, i32::from(at.col) + dc * step);
            if !(0..rows).contains(&r) || !(0..cols).contains(&c) {
                continue;
            }
            let t = board.square(Cell::new(r as u8, c as u8));
            if board.stone_on(t).is_none() && board.wins_through(t, p) {
                found.push(t);
            }
        }
    }
    found
}

impl Vcf {
    /// Whether the side to move on `board` wins by fours within `depth` of
    /// its moves; on success `line` holds the proof, front first.
    fn attack(&mut self, board: &mut Board, depth: usize) -> bool {
        if let Some(&s) = winning_squares(board).first() {
            self.line.push(board.cell_of(s));
            return true;
        }
        if depth == 0 || self.nodes >= VCF_NODES {
            return false;
        }
        let me = board.to_move();
        // The defender's fours must be met at once: with two, nothing
        // meets them; with one, only a four there keeps the attack.
        let theirs = defender_wins(board);
        let candidates: Vec<usize> = match theirs.len() {
            0 => board
                .squares()
                .filter(|&s| board.is_legal_square(s))
                .collect(),
            1 => theirs
                .into_iter()
                .filter(|&s| board.is_legal_square(s))
                .collect(),
            _ => return false,
        };
        for s in candidates {
            if self.nodes >= VCF_NODES {
                return false;
            }
            if board.play_unchecked(s).is_some() {
                // Not a win (that was looked for first): a draw.
                board.undo();
                continue;
            }
            let threats = threats_through(board, s, me);
            let proved = !threats.is_empty() && {
                self.nodes += 1;
                self.defend(board, &threats, depth)
            };
            board.undo();
            if proved {
                self.line.insert(0, board.cell_of(s));
                return true;
            }
        }
        false
    }

    /// The defender to move, after the attacker's four (`threats`: where
    /// it would make K in a row): whether every legal reply loses.
    fn defend(&mut self, board: &mut Board, threats: &[usize], depth: usize) -> bool {
        // A defender that makes K in a row wins first.
        if !winning_squares(board).is_empty() {
            return false;
        }
        let replies: Vec<usize> = board
            .squares()
            .filter(|&r| board.is_legal_square(r))
            .collect();
        // The reply the line shows: one on a threat that holds out longest.
        let mut shown: Option<(usize, Vec<Cell>)> = None;
        for r in replies {
            if board.play_unchecked(r).is_some() {
                // A draw (a win was ruled out above): the attack fails.
                board.undo();
                return false;
            }
            // Most replies leave a threat standing: a win at once. (Only
            // a fast path: a reply that leaves none is searched in full.)
            let standing = threats
                .iter()
                .copied()
                .find(|&t| board.is_legal_square(t) && board.wins_through(t, board.to_move()));
            let mut sub = Vcf {
                nodes: self.nodes,
                line: Vec::new(),
            };
            let won = match standing {
                Some(t) => {
                    sub.line.push(board.cell_of(t));
                    true
                }
                None => sub.attack(board, depth - 1),
            };
            self.nodes = sub.nodes;
            board.undo();
            if !won {
                return false;
            }
            // Shown: a reply on a threat before any other, the longest.
            let rank = |r: usize, line: &[Cell]| (threats.contains(&r), line.len());
            if shown
                .as_ref()
                .is_none_or(|(s, l)| rank(r, &sub.line) > rank(*s, l))
            {
                shown = Some((r, sub.line));
            }
        }
        match shown {
            Some((r, rest)) => {
                self.line.push(board.cell_of(r));
                self.line.extend(rest);
                true
            }
            // No legal reply: the board says how that ends, not the search.
            None => false,
        }
    }
}
