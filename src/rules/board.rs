//! The board: a padded mailbox so that line scans need no bounds checks, a move
//! stack for undo, and win detection through the last stone only.

use super::geometry::Geometry;
use super::outcome::{Line, Outcome};
use super::types::{Cell, Player, Rule};
use std::fmt;

const EMPTY: u8 = 0;
const WALL: u8 = 3;

#[inline]
const fn stone(p: Player) -> u8 {
    p as u8 + 1
}

/// Why a move was refused. The board is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The cell is not on this board.
    OffBoard {
        cell: Cell,
        rows: usize,
        cols: usize,
    },
    /// The cell already holds a stone.
    Occupied { cell: Cell, by: Player },
    /// The game has ended.
    GameOver,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::OffBoard { cell, rows, cols } => {
                write!(f, "{cell} is off the {rows}x{cols} board")
            }
            IllegalMove::Occupied { cell, by } => write!(f, "{cell} is occupied by {by}"),
            IllegalMove::GameOver => f.write_str("the game is over"),
        }
    }
}
impl std::error::Error for IllegalMove {}

/// A position with its history. `try_play` checks input; `play_unchecked` is the
/// fast path for search and playouts (no allocation, O(K) win check).
#[derive(Clone, Debug)]
pub struct Board {
    geo: Geometry,
    stride: usize,
    /// Padded cells: row r, column c lives at `(r + 1) * stride + c + 1`; one
    /// wall column (shared by both sides) and wall rows above and below, so a
    /// scan from any cell in any direction meets a wall before leaving the array.
    cells: Vec<u8>,
    /// Squares played, oldest first.
    history: Vec<u16>,
    to_move: Player,
    outcome: Option<Outcome>,
}

impl PartialEq for Board {
    /// Two boards are equal when their positions are (history aside).
    fn eq(&self, other: &Self) -> bool {
        self.geo == other.geo && self.cells == other.cells && self.to_move == other.to_move
    }
}
impl Eq for Board {}

impl Board {
    /// An empty board of the given shape.
    pub fn new(geo: Geometry) -> Board {
        let stride = geo.cols() + 1;
        let len = (geo.rows() + 3) * stride;
        let mut cells = vec![WALL; len];
        for r in 0..geo.rows() {
            for c in 0..geo.cols() {
                cells[(r + 1) * stride + c + 1] = EMPTY;
            }
        }
        Board {
            geo,
            stride,
            cells,
            history: Vec::with_capacity(geo.area()),
            to_move: Player::X,
            outcome: None,
        }
    }

    /// The shape of the game.
    pub fn geometry(&self) -> Geometry {
        self.geo
    }
    /// Whose turn it is (after the end: who would have moved).
    pub fn to_move(&self) -> Player {
        self.to_move
    }
    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    /// True once the game is won or drawn.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }
    /// Number of stones on the board.
    pub fn ply(&self) -> usize {
        self.history.len()
    }
    /// Cells played so far, oldest first.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = Cell> + '_ {
        self.history.iter().map(|&s| self.cell_of(s as usize))
    }
    /// The last cell played.
    pub fn last_move(&self) -> Option<Cell> {
        self.history.last().map(|&s| self.cell_of(s as usize))
    }

    /// Whether `cell` lies on this board.
    pub fn contains(&self, cell: Cell) -> bool {
        (cell.row as usize) < self.geo.rows() && (cell.col as usize) < self.geo.cols()
    }

    /// The stone on a cell of this board (`None` when empty or off the board).
    pub fn stone_at(&self, cell: Cell) -> Option<Player> {
        if !self.contains(cell) {
            return None;
        }
        match self.cells[self.square(cell)] {
            1 => Some(Player::X),
            2 => Some(Player::O),
            _ => None,
        }
    }

    /// The square (padded index) of a cell on this board.
    #[inline]
    pub fn square(&self, cell: Cell) -> usize {
        (cell.row as usize + 1) * self.stride + cell.col as usize + 1
    }

    /// The cell of a square.
    #[inline]
    pub fn cell_of(&self, square: usize) -> Cell {
        let s = square - 1;
        Cell::new((s / self.stride - 1) as u8, (s % self.stride) as u8)
    }

    /// Every square of the board, empty or not, in row-major order.
    pub fn squares(&self) -> impl Iterator<Item = usize> + '_ {
        let (rows, cols, stride) = (self.geo.rows(), self.geo.cols(), self.stride);
        (0..rows).flat_map(move |r| (0..cols).map(move |c| (r + 1) * stride + c + 1))
    }

    /// Whether a square is empty.
    #[inline]
    pub fn is_empty_square(&self, square: usize) -> bool {
        self.cells[square] == EMPTY
    }

    /// The stone on a square.
    #[inline]
    pub fn stone_on(&self, square: usize) -> Option<Player> {
        match self.cells[square] {
            1 => Some(Player::X),
            2 => Some(Player::O),
            _ => None,
        }
    }

    /// The steps between neighbouring squares: across, down, and both diagonals.
    #[inline]
    pub fn directions(&self) -> [usize; 4] {
        [1, self.stride, self.stride + 1, self.stride - 1]
    }

    /// Number of squares in the padded array (an upper bound for square indices).
    pub fn square_count(&self) -> usize {
        self.cells.len()
    }

    /// Legal moves in row-major order (none once the game is over).
    pub fn legal_moves(&self) -> impl Iterator<Item = Cell> + '_ {
        let over = self.is_over();
        self.squares()
            .filter(move |&s| !over && self.cells[s] == EMPTY)
            .map(|s| self.cell_of(s))
    }

    /// Checks a move without playing it.
    pub fn check(&self, cell: Cell) -> Result<usize, IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        if !self.contains(cell) {
            return Err(IllegalMove::OffBoard {
                cell,
                rows: self.geo.rows(),
                cols: self.geo.cols(),
            });
        }
        let sq = self.square(cell);
        match self.stone_on(sq) {
            Some(by) => Err(IllegalMove::Occupied { cell, by }),
            None => Ok(sq),
        }
    }

    /// Plays a move for the side to move, after checking it. On error the board
    /// is unchanged.
    pub fn try_play(&mut self, cell: Cell) -> Result<Option<Outcome>, IllegalMove> {
        let sq = self.check(cell)?;
        Ok(self.play_unchecked(sq))
    }

    /// Plays the side to move on an empty square of an ongoing game and returns
    /// the outcome if this move ended it. The caller guarantees legality.
    #[inline]
    pub fn play_unchecked(&mut self, square: usize) -> Option<Outcome> {
        debug_assert!(self.cells[square] == EMPTY && self.outcome.is_none());
        let p = self.to_move;
        self.cells[square] = stone(p);
        self.history.push(square as u16);
        self.to_move = p.other();
        if self.wins_through(square, p) {
            self.outcome = Some(Outcome::Win {
                winner: p,
                line: self.winning_line(square, p),
            });
        } else if self.history.len() == self.geo.area() {
            self.outcome = Some(Outcome::Draw);
        }
        self.outcome
    }

    /// Takes back the last move; `None` on an empty board.
    pub fn undo(&mut self) -> Option<Cell> {
        let sq = self.history.pop()? as usize;
        self.cells[sq] = EMPTY;
        self.to_move = self.to_move.other();
        self.outcome = None;
        Some(self.cell_of(sq))
    }

    /// Back to the empty board of the same shape.
    pub fn clear(&mut self) {
        while self.undo().is_some() {}
    }

    /// Counts `p`'s stones from `square` (exclusive) stepping by `+step`, at most `cap`.
    #[inline]
    fn count_forward(&self, square: usize, step: usize, s: u8, cap: usize) -> usize {
        let mut n = 0;
        let mut i = square + step;
        while n < cap && self.cells[i] == s {
            n += 1;
            i += step;
        }
        n
    }

    #[inline]
    fn count_backward(&self, square: usize, step: usize, s: u8, cap: usize) -> usize {
        let mut n = 0;
        let mut i = square - step;
        while n < cap && self.cells[i] == s {
            n += 1;
            i -= step;
        }
        n
    }

    /// Whether a stone of `p` on `square` (placed there, or imagined there)
    /// makes a winning line through it. Looks only along the four lines
    /// through that square: O(K).
    #[inline]
    pub fn wins_through(&self, square: usize, p: Player) -> bool {
        let s = stone(p);
        let k = self.geo.k();
        // Free: K-1 more on the two sides together suffice. Exact: one past K
        // is enough to see an overline.
        let (cap, exact) = match self.geo.rule() {
            Rule::Free => (k - 1, false),
            Rule::Exact => (k, true),
        };
        for step in self.directions() {
            let n = 1
                + self.count_forward(square, step, s, cap)
                + self.count_backward(square, step, s, cap);
            if if exact { n == k } else { n >= k } {
                return true;
            }
        }
        false
    }

    /// The whole winning run through `square` (called once, when a game is won).
    fn winning_line(&self, square: usize, p: Player) -> Line {
        let s = stone(p);
        let k = self.geo.k();
        let area = self.geo.area();
        let deltas: [(i8, i8); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
        for (step, (dr, dc)) in self.directions().into_iter().zip(deltas) {
            let back = self.count_backward(square, step, s, area);
            let fwd = self.count_forward(square, step, s, area);
            let n = 1 + back + fwd;
            let wins = match self.geo.rule() {
                Rule::Free => n >= k,
                Rule::Exact => n == k,
            };
            if wins {
                let start = self.cell_of(square - back * step);
                return Line::new(start, (dr, dc), n as u8);
            }
        }
        unreachable!("winning_line called without a win")
    }

    /// Whether every cell holds a stone.
    pub fn is_full(&self) -> bool {
        self.history.len() == self.geo.area()
    }
}

impl fmt::Display for Board {
    /// The board for people: column numbers on top, row numbers on the left,
    /// `X`, `O` and `.` cells.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (rows, cols) = (self.geo.rows(), self.geo.cols());
        let w = if cols >= 10 { 3 } else { 2 };
        let lw = if rows >= 10 { 2 } else { 1 };
        write!(f, "{:lw$}", "")?;
        for c in 1..=cols {
            write!(f, "{c:>w$}")?;
        }
        for r in 0..rows {
            write!(f, "\n{:>lw$}", r + 1)?;
            for c in 0..cols {
                let ch = match self.stone_at(Cell::new(r as u8, c as u8)) {
                    Some(p) => p.letter(),
                    None => '.',
                };
                write!(f, "{ch:>w$}")?;
            }
        }
        Ok(())
    }
}
