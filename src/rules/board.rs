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
/// fast path for search and playouts (no allocation, O(1) win check).
#[derive(Debug)]
pub struct Board {
    geo: Geometry,
    /// Padded row length: a power of two (at least cols + 1), so that a square
    /// splits into row and column with a shift and a mask.
    stride: usize,
    /// log2 of `stride`.
    shift: u32,
    /// Padded cells: row r, column c lives at `(r + 1) * stride + c + 1`; wall
    /// columns (shared by both sides) and wall rows above and below, so a
    /// step from any cell in any direction lands inside the array.
    cells: Vec<u8>,
    /// Each player's stones, line by line, for the win check: for each player
    /// and direction (across, down, down-right, down-left) one mask per line
    /// of the board, with bit i for the line's cell in column i (across) or
    /// row i (the others). See `line_slots`.
    lines: Vec<u32>,
    /// Masks per player and direction: rows + cols - 1, enough for any direction.
    lines_per_direction: usize,
    /// Squares played, oldest first.
    history: Vec<u16>,
    to_move: Player,
    outcome: Option<Outcome>,
}

impl Clone for Board {
    fn clone(&self) -> Self {
        let mut b = Board {
            cells: Vec::new(),
            lines: Vec::new(),
            history: Vec::with_capacity(self.geo.area()),
            ..*self
        };
        b.clone_from(self);
        b
    }

    /// Copies into the existing buffers: resetting a scratch board to a
    /// base position allocates nothing.
    fn clone_from(&mut self, source: &Self) {
        self.geo = source.geo;
        self.stride = source.stride;
        self.shift = source.shift;
        self.cells.clone_from(&source.cells);
        self.lines.clone_from(&source.lines);
        self.lines_per_direction = source.lines_per_direction;
        self.history.clone_from(&source.history);
        self.to_move = source.to_move;
        self.outcome = source.outcome;
    }
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
        let stride = (geo.cols() + 1).next_power_of_two();
        let len = (geo.rows() + 3) * stride;
        let lines_per_direction = geo.rows() + geo.cols() - 1;
        let mut cells = vec![WALL; len];
        for r in 0..geo.rows() {
            for c in 0..geo.cols() {
                cells[(r + 1) * stride + c + 1] = EMPTY;
            }
        }
        Board {
            geo,
            stride,
            shift: stride.trailing_zeros(),
            cells,
            lines: vec![0; 2 * 4 * lines_per_direction],
            lines_per_direction,
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
        let (r, c) = self.row_col(square);
        Cell::new(r as u8, c as u8)
    }

    /// 0-based row and column of a square.
    #[inline]
    fn row_col(&self, square: usize) -> (usize, usize) {
        let s = square - 1;
        ((s >> self.shift) - 1, s & (self.stride - 1))
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
        let slots = self.line_slots(square, p);
        let masks = slots.map(|(line, bit)| {
            let mask = self.lines[line] | bit;
            self.lines[line] = mask;
            mask
        });
        self.history.push(square as u16);
        self.to_move = p.other();
        // Nobody has K stones before ply 2K - 1: skip the check until then.
        let run = if self.history.len() + 1 >= 2 * self.geo.k() {
            self.winning_run(masks, slots.map(|(_, bit)| bit))
        } else {
            None
        };
        if let Some(run) = run {
            self.outcome = Some(Outcome::Win {
                winner: p,
                line: self.line_of(square, run),
            });
        } else if self.history.len() == self.geo.area() {
            self.outcome = Some(Outcome::Draw);
        }
        self.outcome
    }

    /// Takes back the last move; `None` on an empty board.
    #[inline]
    pub fn undo(&mut self) -> Option<Cell> {
        let sq = self.history.pop()? as usize;
        self.cells[sq] = EMPTY;
        self.to_move = self.to_move.other();
        for (line, bit) in self.line_slots(sq, self.to_move) {
            self.lines[line] &= !bit;
        }
        self.outcome = None;
        Some(self.cell_of(sq))
    }

    /// Back to the empty board of the same shape.
    pub fn clear(&mut self) {
        // Wiping the masks at once is cheaper than undoing move by move
        // (playouts and searches reset the board all the time).
        for &square in &self.history {
            self.cells[square as usize] = EMPTY;
        }
        self.history.clear();
        self.lines.fill(0);
        self.to_move = Player::X;
        self.outcome = None;
    }

    /// For each direction (across, down, down-right, down-left): the index in
    /// `lines` of `p`'s mask for the line through `square`, and the square's
    /// bit in it. Bits count columns across and rows otherwise, so that
    /// neighbours along a line are neighbouring bits.
    #[inline]
    fn line_slots(&self, square: usize, p: Player) -> [(usize, u32); 4] {
        let (r, c) = self.row_col(square);
        let n = self.lines_per_direction;
        let base = p.index() * 4 * n;
        let down_right = c + self.geo.rows() - 1 - r;
        let down_left = r + c;
        [
            (base + r, 1 << c),
            (base + n + c, 1 << r),
            (base + 2 * n + down_right, 1 << r),
            (base + 3 * n + down_left, 1 << r),
        ]
    }

    /// The stones of a mask's run through `bit` (which must be set) before
    /// and after it.
    #[inline]
    pub(super) fn run_around(mask: u32, bit: u32) -> (u32, u32) {
        let pos = bit.trailing_zeros();
        let after = (!(mask >> pos)).trailing_zeros() - 1;
        let before = (!(mask << (31 - pos))).leading_zeros() - 1;
        (before, after)
    }

    /// A winning run through a square, from the masks of the four lines
    /// through it (the square's own bit set) and its bit in each: the run's
    /// direction (0 to 3), the stones before the square and the length.
    #[inline]
    fn winning_run(&self, masks: [u32; 4], bits: [u32; 4]) -> Option<(usize, u32, u32)> {
        let runs = [0, 1, 2, 3].map(|d| {
            let (before, after) = Self::run_around(masks[d], bits[d]);
            (before, before + 1 + after)
        });
        let k = self.geo.k() as u32;
        let wins = |len: u32| match self.geo.rule() {
            Rule::Free => len >= k,
            Rule::Exact => len == k,
        };
        // Checking all four at once, without branches, is cheaper than
        // stopping early: most moves win nothing.
        if !runs.iter().fold(false, |any, &(_, len)| any | wins(len)) {
            return None;
        }
        (0..4).find_map(|d| wins(runs[d].1).then_some((d, runs[d].0, runs[d].1)))
    }

    /// Whether a stone of `p` on `square` (placed there, or imagined there)
    /// makes a winning line through it. Looks only at the four lines through
    /// that square, one bit mask each: O(1).
    #[inline]
    pub fn wins_through(&self, square: usize, p: Player) -> bool {
        let slots = self.line_slots(square, p);
        let masks = slots.map(|(line, bit)| self.lines[line] | bit);
        self.winning_run(masks, slots.map(|(_, bit)| bit)).is_some()
    }

    /// The cells of a winning run through `square` found by `winning_run`.
    fn line_of(&self, square: usize, (direction, before, len): (usize, u32, u32)) -> Line {
        const STEPS: [(i8, i8); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
        let (dr, dc) = STEPS[direction];
        let (r, c) = self.row_col(square);
        let back = before as i32;
        let start = Cell::new(
            (r as i32 - back * dr as i32) as u8,
            (c as i32 - back * dc as i32) as u8,
        );
        Line::new(start, (dr, dc), len as u8)
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
