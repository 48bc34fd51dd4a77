//! The board: a padded mailbox so that line scans need no bounds checks, a move
//! stack for undo, and win detection through the last stone only.

use super::geometry::Geometry;
use super::lines::{line_slots_at, run_around};
use super::outcome::{Line, Outcome};
use super::renju::{Forbidden, Masks};
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
    /// The rule forbids the cell to the side to move (renju's Black).
    Forbidden { cell: Cell, kind: Forbidden },
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
            IllegalMove::Forbidden { cell, kind } => {
                write!(f, "{cell} is forbidden to {} ({kind})", Player::X)
            }
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
    /// Renju: an empty square too far from X's stones to be forbidden when
    /// last looked at, looked at first when X is to move next (see
    /// `x_can_move`).
    x_may_play: usize,
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
        self.x_may_play = source.x_may_play;
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
            x_may_play: stride + 1,
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

    /// Legal moves in row-major order (none once the game is over; under
    /// renju, none of the cells forbidden to Black when Black is to move).
    pub fn legal_moves(&self) -> impl Iterator<Item = Cell> + '_ {
        let over = self.is_over();
        let guarded = self.geo.rule().forbids(self.to_move);
        self.squares()
            .filter(move |&s| {
                !over && self.cells[s] == EMPTY && !(guarded && self.forbidden_square(s).is_some())
            })
            .map(|s| self.cell_of(s))
    }

    /// Whether the side to move may play on a square: the game goes on, the
    /// square is empty and not forbidden to the side to move.
    #[inline]
    pub fn is_legal_square(&self, square: usize) -> bool {
        !self.is_over()
            && self.cells[square] == EMPTY
            && !(self.geo.rule().forbids(self.to_move) && self.forbidden_square(square).is_some())
    }

    /// Whether the cell is forbidden to the side to move, and why: `None`
    /// for a cell that is off the board or taken, in a finished game, for
    /// White and under every rule but renju.
    pub fn forbidden(&self, cell: Cell) -> Option<Forbidden> {
        if self.is_over() || !self.contains(cell) || !self.geo.rule().forbids(self.to_move) {
            return None;
        }
        let square = self.square(cell);
        if self.cells[square] != EMPTY {
            return None;
        }
        self.forbidden_square(square)
    }

    /// The cells forbidden to the side to move with their kinds, in
    /// row-major order (for a GUI: empty unless renju's Black is to move).
    pub fn forbidden_cells(&self) -> Vec<(Cell, Forbidden)> {
        if self.is_over() || !self.geo.rule().forbids(self.to_move) {
            return Vec::new();
        }
        self.squares()
            .filter(|&s| self.cells[s] == EMPTY)
            .filter_map(|s| Some((self.cell_of(s), self.forbidden_square(s)?)))
            .collect()
    }

    /// Whether X (renju's Black) may not play on an empty square, whoever is
    /// to move, and why; `None` under the other rules. Cheap where X has few
    /// stones near the square (a few popcounts); otherwise the full check,
    /// which recurses through the threes.
    #[inline]
    pub fn forbidden_square(&self, square: usize) -> Option<Forbidden> {
        if !self.geo.rule().forbids(Player::X) {
            return None;
        }
        debug_assert!(self.cells[square] == EMPTY);
        self.masks().forbidden(self.row_col(square))
    }

    /// The line masks as renju's check reads them.
    #[inline]
    pub(super) fn masks(&self) -> Masks<'_> {
        Masks {
            lines: &self.lines,
            rows: self.geo.rows(),
            cols: self.geo.cols(),
        }
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
        if let Some(by) = self.stone_on(sq) {
            return Err(IllegalMove::Occupied { cell, by });
        }
        if self.geo.rule().forbids(self.to_move) {
            if let Some(kind) = self.forbidden_square(sq) {
                return Err(IllegalMove::Forbidden { cell, kind });
            }
        }
        Ok(sq)
    }

    /// Plays a move for the side to move, after checking it. On error the board
    /// is unchanged.
    pub fn try_play(&mut self, cell: Cell) -> Result<Option<Outcome>, IllegalMove> {
        let sq = self.check(cell)?;
        Ok(self.play_unchecked(sq))
    }

    /// Plays the side to move on an empty square of an ongoing game and returns
    /// the outcome if this move ended it. The caller guarantees legality
    /// (under renju: not a cell forbidden to Black, which is not checked
    /// here).
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
            self.winning_run(p, slots, masks)
        } else {
            None
        };
        if let Some(run) = run {
            self.outcome = Some(Outcome::Win {
                winner: p,
                line: self.line_of(square, run),
            });
        } else if self.history.len() == self.geo.area()
            || (self.geo.rule().forbids(self.to_move) && !self.x_can_move())
        {
            self.outcome = Some(Outcome::Draw);
        }
        self.outcome
    }

    /// Renju, X to move: whether any empty cell is allowed to X. (RIF lets
    /// a player pass; kinrow has no pass, so a Black player left with only
    /// forbidden cells ends the game in a draw.) Nearly always some empty
    /// cell has too few Black stones near it to be forbidden (the filter's
    /// popcounts): the one found last time is looked at first.
    fn x_can_move(&mut self) -> bool {
        let masks = self.masks();
        let clear = |s: usize| self.cells[s] == EMPTY && !masks.may_be_forbidden(self.row_col(s));
        if clear(self.x_may_play) {
            return true;
        }
        // On from the last answer, round the board: the cells before it were
        // no answer then either, mostly.
        let (rows, cols) = (self.geo.rows(), self.geo.cols());
        let (r0, c0) = self.row_col(self.x_may_play);
        let start = r0 * cols + c0;
        let found = (start..rows * cols)
            .chain(0..start)
            .map(|i| (i / cols + 1) * self.stride + i % cols + 1)
            .find(|&s| clear(s));
        if let Some(square) = found {
            self.x_may_play = square;
            return true;
        }
        let masks = self.masks();
        self.squares()
            .any(|s| self.cells[s] == EMPTY && masks.forbidden_at(self.row_col(s)).is_none())
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
        let base = p.index() * 4 * self.lines_per_direction;
        let slots = line_slots_at(self.geo.rows(), self.geo.cols(), self.row_col(square));
        slots.map(|(line, bit)| (base + line, bit))
    }

    /// A winning run of `p`'s through a square, from the four lines through
    /// it (`slots`, as `line_slots` gives them for `p`) and `p`'s masks of
    /// them with the square's bit set: the run's direction (0 to 3), the
    /// stones before the square and the length.
    #[inline]
    fn winning_run(
        &self,
        p: Player,
        slots: [(usize, u32); 4],
        masks: [u32; 4],
    ) -> Option<(usize, u32, u32)> {
        let runs = [0, 1, 2, 3].map(|d| {
            let (before, after) = run_around(masks[d], slots[d].1);
            (before, before + 1 + after)
        });
        let k = self.geo.k() as u32;
        let rule = self.geo.rule();
        let wins = |d: usize, (before, len): (u32, u32)| match rule {
            Rule::Free => len >= k,
            Rule::Exact => len == k,
            Rule::Renju => len == k || (len > k && p == Player::O),
            Rule::Caro | Rule::CaroExact => rule.wins(
                p,
                len as usize,
                k as usize,
                self.blocked_ends(p, slots[d], before, len),
            ),
        };
        // Checking all four at once, without branches, is cheaper than
        // stopping early: most moves win nothing.
        if !(0..4).fold(false, |any, d| any | wins(d, runs[d])) {
            return None;
        }
        (0..4).find_map(|d| wins(d, runs[d]).then_some((d, runs[d].0, runs[d].1)))
    }

    /// How many of the two cells just past a run of `p`'s (`before` stones
    /// before the square of `slot`, `len` long) hold the opponent's stones.
    #[inline]
    fn blocked_ends(&self, p: Player, (line, bit): (usize, u32), before: u32, len: u32) -> u32 {
        let n = 4 * self.lines_per_direction;
        let theirs = match p {
            Player::X => self.lines[line + n],
            Player::O => self.lines[line - n],
        };
        Self::ends_held(theirs, bit, before, len)
    }

    /// How many of the two cells just past a run (`before` stones before
    /// `bit`, `len` long) are set in `theirs`, a line mask of the opponent's;
    /// the edge of the board holds none.
    #[inline]
    pub(super) fn ends_held(theirs: u32, bit: u32, before: u32, len: u32) -> u32 {
        // Shifted up one so that the cell before bit 0 is bit 0.
        let theirs = u64::from(theirs) << 1;
        let first = bit.trailing_zeros() - before;
        (theirs >> first & 1) as u32 + (theirs >> (first + len + 1) & 1) as u32
    }

    /// Whether a stone of `p` on `square` (placed there, or imagined there)
    /// makes a winning line through it. Looks only at the four lines through
    /// that square, one bit mask each: O(1).
    #[inline]
    pub fn wins_through(&self, square: usize, p: Player) -> bool {
        let slots = self.line_slots(square, p);
        let masks = slots.map(|(line, bit)| self.lines[line] | bit);
        self.winning_run(p, slots, masks).is_some()
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
    /// `X`, `O` and `.` cells, and `#` on the cells forbidden to the side to
    /// move (renju's Black), as Yixin Board marks them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (rows, cols) = (self.geo.rows(), self.geo.cols());
        let forbidden = self.forbidden_cells();
        let w = if cols >= 10 { 3 } else { 2 };
        let lw = if rows >= 10 { 2 } else { 1 };
        write!(f, "{:lw$}", "")?;
        for c in 1..=cols {
            write!(f, "{c:>w$}")?;
        }
        for r in 0..rows {
            write!(f, "\n{:>lw$}", r + 1)?;
            for c in 0..cols {
                let cell = Cell::new(r as u8, c as u8);
                let ch = match self.stone_at(cell) {
                    Some(p) => p.letter(),
                    None if forbidden.iter().any(|&(f, _)| f == cell) => '#',
                    None => '.',
                };
                write!(f, "{ch:>w$}")?;
            }
        }
        Ok(())
    }
}
