//! The threat searcher's position: the board plus, for every empty cell and
//! both players, the shape a stone there makes along each of the four lines
//! (see `shape`), what those shapes add up to (a five, a four, a double
//! threat, …) and the cell's worth, all kept up to date move by move: a
//! stone changes the lines through it only, so a move re-reads the cells
//! within `span` of it along its four lines and nothing else.
//!
//! From those it keeps, per player, the cells where a stone wins, makes a
//! four, wins in three plies (an open four or two fours) or makes an open
//! three, as sets the search walks without scanning the board, and the sum
//! of the cells' worth, which is the evaluation.

use super::learned::{self, Code, Features, CLASSES, LINE_WEIGHT, RANKS};
use super::shape::{shape_of, LineKey, LineRead, Lines, Shape, FOUL, OFF, STONE};
use crate::bots::minimax::layout::Layout;
use crate::rules::{Board, Outcome, Player};

/// What a stone of one player on one empty cell makes, over its four lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threat {
    /// [`FIVE`], [`FOUR`], [`WIN3`] and [`THREE`] flags.
    pub flags: u8,
    /// How forcing the stone is: 6 five, 5 an open four or a double four,
    /// 4 a four with an open three, 3 two open threes, 2 a four, 1 an open
    /// three, 0 nothing forcing.
    pub rank: u8,
    /// What the cell is worth to the player (the evaluation's unit).
    pub value: i32,
}

/// The stone wins.
pub const FIVE: u8 = 1;
/// The stone makes a four (or better) on some line: the other must answer.
pub const FOUR: u8 = 2;
/// The stone wins in three plies whatever the other does (an open four, or
/// fours on two lines), unless the other wins first.
pub const WIN3: u8 = 4;
/// The stone makes an open three on some line.
pub const THREE: u8 = 8;
/// The cell is forbidden to the player (renju's Black): no move and no
/// threat, worth nothing.
pub const FORBIDDEN: u8 = 16;

/// Which of the sets a flag names, in `Field::sets`.
const SET_FLAGS: [u8; 4] = [FIVE, FOUR, WIN3, THREE];

/// A cell's worth by the shape it makes on one line.
const SHAPE_VALUE: [i32; 9] = [0, 1, 3, 8, 6, 24, 20, 200, 2000];

/// Extra worth of double threats: a four with an open three, two open
/// threes, and a win in three plies.
const FOUR_THREE_VALUE: i32 = 300;
const THREE_THREE_VALUE: i32 = 150;
const WIN3_VALUE: i32 = 500;

/// What a cell's four line reads make together depends on how many of them
/// are fives, open fours, fours (open or not), open threes and fouls: those
/// counts as base-5 digits, kept per cell by adding each read's [`TALLY`].
const TALLY: [u16; 32] = {
    let mut t = [0u16; 32];
    let mut read = 0;
    while read < 32 {
        let shape = read & 15;
        t[read] = if shape == Shape::OpenThree as usize {
            1
        } else if shape == Shape::Four as usize {
            5
        } else if shape == Shape::OpenFour as usize {
            5 + 25
        } else if shape == Shape::Five as usize {
            125
        } else {
            0
        };
        if read & FOUL as usize != 0 {
            t[read] += 625;
        }
        read += 1;
    }
    t
};

/// The number of tallies: five digits of base 5.
const TALLIES: usize = 3125;

/// What the counts make: flags, rank, and the worth of the cell (the
/// shapes' sum times `keep`, plus the extra worth of double threats).
#[derive(Clone, Copy)]
struct Kind {
    flags: u8,
    rank: u8,
    keep: i32,
    bonus: i32,
}

/// What the counts make for a player with no forbidden cells.
static KINDS: [Kind; TALLIES] = kinds(false);
/// What they make for renju's Black: a stone that makes no five but an
/// overline, two fours or two open threes is forbidden.
static KINDS_FORBIDDING: [Kind; TALLIES] = kinds(true);

const fn kinds(forbidding: bool) -> [Kind; TALLIES] {
    let mut kinds = [Kind {
        flags: 0,
        rank: 0,
        keep: 1,
        bonus: 0,
    }; TALLIES];
    let mut i = 0;
    while i < TALLIES {
        let (threes, fours, open_fours, fives) = (i % 5, i / 5 % 5, i / 25 % 5, i / 125 % 5);
        let fouls = i / 625;
        if forbidding && fives == 0 && (fouls > 0 || fours >= 2 || threes >= 2) {
            kinds[i] = Kind {
                flags: FORBIDDEN,
                rank: 0,
                keep: 0,
                bonus: 0,
            };
            i += 1;
            continue;
        }
        let win3 = open_fours > 0 || fours >= 2;
        let mut flags = 0;
        if fives > 0 {
            flags |= FIVE;
        }
        if fours > 0 {
            flags |= FOUR;
        }
        if win3 {
            flags |= WIN3;
        }
        if threes > 0 {
            flags |= THREE;
        }
        let (rank, bonus) = if fives > 0 {
            (6, 0)
        } else if win3 {
            (5, WIN3_VALUE)
        } else if fours > 0 && threes > 0 {
            (4, FOUR_THREE_VALUE)
        } else if threes >= 2 {
            (3, THREE_THREE_VALUE)
        } else if fours > 0 {
            (2, 0)
        } else if threes > 0 {
            (1, 0)
        } else {
            (0, 0)
        };
        kinds[i] = Kind {
            flags,
            rank,
            keep: 1,
            bonus,
        };
        i += 1;
    }
    kinds
}

/// Per cell and player: the counts of [`TALLY`] and the summed worth of the
/// four shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    counts: u16,
    sum: i32,
}

impl Tally {
    #[inline]
    fn of(reads: [LineRead; 4]) -> Tally {
        let mut t = Tally::default();
        for r in reads {
            t.counts += TALLY[r as usize];
            t.sum += SHAPE_VALUE[(r & 15) as usize];
        }
        t
    }

    #[inline]
    fn change(&mut self, old: LineRead, new: LineRead) {
        self.counts = self.counts + TALLY[new as usize] - TALLY[old as usize];
        self.sum += SHAPE_VALUE[(new & 15) as usize] - SHAPE_VALUE[(old & 15) as usize];
    }

    #[inline]
    fn threat(self, kinds: &[Kind; TALLIES]) -> Threat {
        let kind = kinds[self.counts as usize];
        Threat {
            flags: kind.flags,
            rank: kind.rank,
            value: self.sum * kind.keep + kind.bonus,
        }
    }
}

/// A set of squares with O(1) insert, remove and listing.
#[derive(Clone)]
struct SquareSet {
    members: Vec<u16>,
    slot: Vec<u16>,
}

const ABSENT: u16 = u16::MAX;

impl SquareSet {
    fn new(squares: usize) -> SquareSet {
        SquareSet {
            members: Vec::new(),
            slot: vec![ABSENT; squares],
        }
    }
    #[inline]
    fn insert(&mut self, sq: usize) {
        self.slot[sq] = self.members.len() as u16;
        self.members.push(sq as u16);
    }
    #[inline]
    fn remove(&mut self, sq: usize) {
        let at = self.slot[sq] as usize;
        self.slot[sq] = ABSENT;
        let last = self.members.pop().expect("removing a member");
        if last as usize != sq {
            self.members[at] = last;
            self.slot[last as usize] = at as u16;
        }
    }
}

/// What is kept of one square, per player: the read of each line (while
/// the square is empty), their counts, what they make and the code of
/// their shapes (see `learned`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellFacts {
    reads: [[LineRead; 4]; 2],
    tally: [Tally; 2],
    threat: [Threat; 2],
    code: [Code; 2],
}

impl CellFacts {
    /// The code the learned tables read for player `p` (index): a cell
    /// forbidden to the player is worth what an empty line is.
    #[inline]
    fn worth_code(&self, p: usize) -> Code {
        if self.threat[p].flags & FORBIDDEN != 0 {
            0
        } else {
            self.code[p]
        }
    }

    #[inline]
    fn worth_codes(&self) -> [Code; 2] {
        [self.worth_code(0), self.worth_code(1)]
    }
}

/// The board with its threats kept move by move; see the module docs.
pub struct Field {
    pub board: Board,
    lines: Lines,
    /// Per player: what a cell's tally makes (renju's Black has its own).
    kinds: [&'static [Kind; TALLIES]; 2],
    span: usize,
    steps: [usize; 4],
    on_board: Vec<bool>,
    /// Where the cell `i` steps back (ahead) sits in a line key.
    slot_back: Vec<u32>,
    slot_ahead: Vec<u32>,
    /// Per square and line: the line's key (see `shape::LineKey`).
    keys: Vec<[LineKey; 4]>,
    /// Per square: the shapes, what they make and the counts it comes
    /// from, side by side (one cache line is read and written).
    cells: Vec<CellFacts>,
    /// Per player: the empty squares with each of [`SET_FLAGS`].
    sets: [[SquareSet; 4]; 2],
    /// Per player: the summed worth of the empty squares.
    values: [i64; 2],
    /// Per player: the learned worth of its shapes on the empty squares,
    /// for the side to move and for the other (see `learned`).
    learned: [[i32; 2]; 2],
    /// Per player: the empty squares by the rank of its threat there.
    ranks: [[u16; RANKS]; 2],
    hashes: [u64; 8],
    /// Stones within two cells of each square.
    near: Vec<u8>,
    /// The facts each move changed, as they were before it, so that `undo`
    /// puts them back instead of reading the lines again (it was half of
    /// the search's time).
    trail: Vec<(u16, CellFacts)>,
    /// Per move played: where its entries of `trail` begin, and the sums
    /// before it.
    frames: Vec<Frame>,
}

/// The sums of the field before a move, and where its trail begins.
#[derive(Clone, Copy)]
struct Frame {
    trail: u32,
    values: [i64; 2],
    learned: [[i32; 2]; 2],
    ranks: [[u16; RANKS]; 2],
}

impl Field {
    /// Takes over a board (the one clone per move) and reads every line.
    pub fn new(board: Board, layout: &Layout, lines: Lines) -> Field {
        let n = board.square_count();
        let span = lines.span();
        let steps = board.directions();
        let mut on_board = vec![false; n];
        for &sq in &layout.squares {
            on_board[sq] = true;
        }
        let slot_back: Vec<u32> = (0..=span)
            .map(|i| if i == 0 { 0 } else { lines.slot(-(i as isize)) })
            .collect();
        let slot_ahead: Vec<u32> = (0..=span)
            .map(|i| if i == 0 { 0 } else { lines.slot(i as isize) })
            .collect();
        let mut keys = vec![[0 as LineKey; 4]; n];
        for &sq in &layout.squares {
            for (d, &step) in steps.iter().enumerate() {
                for forward in [true, false] {
                    let mut t = sq;
                    let mut off = false;
                    for i in 1..=span {
                        let slot = if forward { slot_ahead[i] } else { slot_back[i] };
                        if !off {
                            t = if forward { t + step } else { t - step };
                            off = !on_board[t];
                        }
                        if off {
                            keys[sq][d] |= OFF << slot;
                        } else if let Some(p) = board.stone_on(t) {
                            keys[sq][d] |= STONE[p.index()] << slot;
                        }
                    }
                }
            }
        }
        let kinds = [Player::X, Player::O].map(|p| {
            if lines.fouls(p) {
                &KINDS_FORBIDDING
            } else {
                &KINDS
            }
        });
        let mut field = Field {
            lines,
            kinds,
            span,
            steps,
            on_board,
            slot_back,
            slot_ahead,
            keys,
            cells: vec![CellFacts::default(); n],
            sets: std::array::from_fn(|_| std::array::from_fn(|_| SquareSet::new(n))),
            values: [0, 0],
            learned: [[0; 2]; 2],
            ranks: [[0; RANKS]; 2],
            hashes: [0; 8],
            near: vec![0; n],
            trail: Vec::with_capacity(64 * (span + 1)),
            frames: Vec::with_capacity(64),
            board,
        };
        for &sq in &layout.squares {
            match field.board.stone_on(sq) {
                None => field.read_empty(sq),
                Some(p) => {
                    for (h, keys) in field.hashes.iter_mut().zip(layout.keys(sq)) {
                        *h ^= keys[p.index()];
                    }
                    for &t in layout.near(sq) {
                        field.near[t as usize] += 1;
                    }
                }
            }
        }
        field
    }

    /// Gives back the shape classifier (it remembers patterns across moves).
    pub fn into_lines(self) -> Lines {
        self.lines
    }

    /// What a stone of `p` on the empty square `sq` makes.
    #[inline]
    pub fn threat(&self, sq: usize, p: Player) -> Threat {
        self.cells[sq].threat[p.index()]
    }

    /// Squares where `p` wins at once.
    #[inline]
    pub fn fives(&self, p: Player) -> &[u16] {
        &self.sets[p.index()][0].members
    }
    /// Squares where `p` makes a four or better.
    #[inline]
    pub fn fours(&self, p: Player) -> &[u16] {
        &self.sets[p.index()][1].members
    }
    /// Squares where `p` wins in three plies (an open four, two fours).
    #[inline]
    pub fn wins3(&self, p: Player) -> &[u16] {
        &self.sets[p.index()][2].members
    }
    /// Squares where `p` makes an open three.
    #[inline]
    pub fn threes(&self, p: Player) -> &[u16] {
        &self.sets[p.index()][3].members
    }

    /// Whether a stone on the empty square `sq` could take away every cell
    /// where `p` wins in three plies: each of them is `sq` or lies within
    /// reach of it along one of its lines (a stone changes nothing else).
    #[inline]
    pub fn may_break_wins3(&self, sq: usize, p: Player) -> bool {
        let at = self.board.cell_of(sq);
        self.wins3(p).iter().all(|&w| {
            let c = self.board.cell_of(w as usize);
            let (dr, dc) = (at.row.abs_diff(c.row), at.col.abs_diff(c.col));
            (dr == 0 || dc == 0 || dr == dc) && (dr.max(dc) as usize) <= self.span
        })
    }

    /// The side to move.
    #[inline]
    pub fn to_move(&self) -> Player {
        self.board.to_move()
    }

    /// The learned evaluation for the side to move (see `learned`).
    #[inline]
    pub fn evaluate(&self) -> i32 {
        let me = self.board.to_move().index();
        let them = 1 - me;
        self.learned[me][0]
            + self.learned[them][1]
            + learned::rank_worth(self.top_rank(me), self.top_rank(them))
    }

    /// The rank of player `p`'s most forcing cell.
    #[inline]
    fn top_rank(&self, p: usize) -> usize {
        (1..RANKS)
            .rev()
            .find(|&r| self.ranks[p][r] > 0)
            .unwrap_or(0)
    }

    /// The features the evaluation adds up (see `learned`), counted afresh.
    pub fn features(&self) -> Features {
        let me = self.board.to_move().index();
        let them = 1 - me;
        let mut counts = vec![0u16; learned::FEATURES];
        for sq in 0..self.cells.len() {
            if !self.on_board[sq] || !self.board.is_empty_square(sq) {
                continue;
            }
            let code = self.cells[sq].worth_codes();
            counts[learned::class_of(code[me])] += 1;
            counts[CLASSES + learned::class_of(code[them])] += 1;
        }
        counts[2 * CLASSES + self.top_rank(me) * RANKS + self.top_rank(them)] += 1;
        Features {
            counts: counts
                .iter()
                .enumerate()
                .filter(|c| *c.1 > 0)
                .map(|(i, &n)| (i as u16, n))
                .collect(),
        }
    }

    /// How good a quiet move of `p` on the empty square `sq` looks (the
    /// learned move order, see `learned`).
    #[inline]
    pub fn move_prior(&self, sq: usize, p: Player) -> i32 {
        let code = self.cells[sq].worth_codes();
        learned::move_prior(code[p.index()], code[p.other().index()])
    }

    /// The classes of the empty square `sq` for `p` and the other (see
    /// `learned`).
    pub fn classes(&self, sq: usize, p: Player) -> [usize; 2] {
        let code = self.cells[sq].worth_codes();
        [
            learned::class_of(code[p.index()]),
            learned::class_of(code[p.other().index()]),
        ]
    }

    /// Whether a stone lies within two cells of `sq`.
    #[inline]
    pub fn is_near_stone(&self, sq: usize) -> bool {
        self.near[sq] > 0
    }

    /// The hash of the position as it stands (no symmetry).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hashes[0]
    }

    /// The smallest of the symmetric hashes and the symmetry that gives it.
    #[inline]
    pub fn canonical(&self, symmetries: usize) -> (u64, usize) {
        crate::rules::smallest_hash(&self.hashes, symmetries)
    }

    /// Plays the side to move on an empty square; the outcome if the game
    /// ended.
    #[inline]
    pub fn play(&mut self, layout: &Layout, sq: usize) -> Option<Outcome> {
        let p = self.board.to_move();
        self.frames.push(Frame {
            trail: self.trail.len() as u32,
            values: self.values,
            learned: self.learned,
            ranks: self.ranks,
        });
        self.trail.push((sq as u16, self.cells[sq]));
        self.occupy(sq);
        self.mark(sq, p, true);
        self.touch(layout, sq, p, 1);
        self.board.play_unchecked(sq)
    }

    /// Takes back the move on `sq`, which must be the last one played: the
    /// keys lose its stone, and the facts and sums it changed are put back
    /// from the trail (the sets by the flags that differ).
    #[inline]
    pub fn undo(&mut self, layout: &Layout, sq: usize) {
        self.board.undo();
        let p = self.board.to_move();
        self.mark(sq, p, false);
        self.touch(layout, sq, p, -1);
        let frame = self.frames.pop().expect("undo after a play");
        while self.trail.len() > frame.trail as usize {
            let (t, old) = self.trail.pop().expect("the move's trail");
            self.restore(t as usize, old);
        }
        self.values = frame.values;
        self.learned = frame.learned;
        self.ranks = frame.ranks;
    }

    /// Puts back the facts of `t` as they were, and its place in the sets.
    #[inline]
    fn restore(&mut self, t: usize, old: CellFacts) {
        for p in 0..2 {
            self.resort(t, p, self.cells[t].threat[p].flags, old.threat[p].flags);
        }
        self.cells[t] = old;
    }

    /// Hashes and stone counts near `sq`, for a stone of `p` added or taken.
    #[inline]
    fn touch(&mut self, layout: &Layout, sq: usize, p: Player, delta: i8) {
        for (h, keys) in self.hashes.iter_mut().zip(layout.keys(sq)) {
            *h ^= keys[p.index()];
        }
        for &t in layout.near(sq) {
            let c = &mut self.near[t as usize];
            *c = c.wrapping_add_signed(delta);
        }
    }

    /// Puts (or takes) a stone of `p` on `sq` into the lines of the cells
    /// around it; when it puts one, re-reads those that are empty (`undo`
    /// puts their facts back from the trail).
    #[inline]
    fn mark(&mut self, sq: usize, p: Player, on: bool) {
        let span = self.span;
        for d in 0..4 {
            let step = self.steps[d];
            for forward in [true, false] {
                let mut t = sq;
                for i in 1..=span {
                    t = if forward { t + step } else { t - step };
                    if !self.on_board[t] {
                        break;
                    }
                    // From `t`, `sq` lies `i` cells back (or ahead).
                    let slot = if forward {
                        self.slot_back[i]
                    } else {
                        self.slot_ahead[i]
                    };
                    let key = &mut self.keys[t][d];
                    if on {
                        *key |= STONE[p.index()] << slot;
                        if self.board.is_empty_square(t) {
                            self.reread(t, d);
                        }
                    } else {
                        *key &= !(3 << slot);
                    }
                }
            }
        }
    }

    /// The reads of both players on line `d` of the empty square `t`, its
    /// facts kept on the trail first if they change.
    #[inline]
    fn reread(&mut self, t: usize, d: usize) {
        let reads = self.lines.pair(self.keys[t][d]);
        let cell = &self.cells[t];
        if reads[0] == cell.reads[0][d] && reads[1] == cell.reads[1][d] {
            return;
        }
        self.trail.push((t as u16, *cell));
        for (p, &read) in reads.iter().enumerate() {
            let cell = &mut self.cells[t];
            let old = cell.reads[p][d];
            if read != old {
                cell.reads[p][d] = read;
                let old_worth = cell.worth_code(p);
                let (new_shape, old_shape) = ((read & 15) as u16, (old & 15) as u16);
                cell.code[p] =
                    cell.code[p] + new_shape * LINE_WEIGHT[d] - old_shape * LINE_WEIGHT[d];
                let tally = &mut cell.tally[p];
                tally.change(old, read);
                let threat = tally.threat(self.kinds[p]);
                let worth = if threat.flags & FORBIDDEN != 0 {
                    0
                } else {
                    cell.code[p]
                };
                self.recode(p, old_worth, worth);
                self.replace(t, p, threat);
            }
        }
    }

    /// An empty square's code for player `p` changes from `old` to `new`.
    #[inline]
    fn recode(&mut self, p: usize, old: Code, new: Code) {
        let (was, is) = (learned::cell_worth(old), learned::cell_worth(new));
        for role in 0..2 {
            self.learned[p][role] += is[role] - was[role];
        }
    }

    /// Sets what a stone of player `p` on the empty square `t` makes.
    #[inline]
    fn replace(&mut self, t: usize, p: usize, new: Threat) {
        let old = self.cells[t].threat[p];
        if old.rank > 0 {
            self.ranks[p][old.rank as usize] -= 1;
        }
        if new.rank > 0 {
            self.ranks[p][new.rank as usize] += 1;
        }
        self.values[p] += (new.value - old.value) as i64;
        self.resort(t, p, old.flags, new.flags);
        self.cells[t].threat[p] = new;
    }

    /// Moves the empty square `t` between player `p`'s sets as its flags
    /// change from `old` to `new`.
    #[inline]
    fn resort(&mut self, t: usize, p: usize, old: u8, new: u8) {
        let changed = old ^ new;
        if changed != 0 {
            for (set, &flag) in self.sets[p].iter_mut().zip(&SET_FLAGS) {
                if changed & flag != 0 {
                    if new & flag != 0 {
                        set.insert(t);
                    } else {
                        set.remove(t);
                    }
                }
            }
        }
    }

    /// The square gets a stone: it leaves the sets and the sums.
    #[inline]
    fn occupy(&mut self, sq: usize) {
        for p in 0..2 {
            let worth = learned::cell_worth(self.cells[sq].worth_code(p));
            self.replace(sq, p, Threat::default());
            for (sum, w) in self.learned[p].iter_mut().zip(worth) {
                *sum -= w;
            }
        }
    }

    /// The square is read for the first time (`new`): its lines, sums and sets.
    fn read_empty(&mut self, sq: usize) {
        for d in 0..4 {
            let reads = self.lines.pair(self.keys[sq][d]);
            for (p, &read) in reads.iter().enumerate() {
                self.cells[sq].reads[p][d] = read;
            }
        }
        for p in 0..2 {
            let tally = Tally::of(self.cells[sq].reads[p]);
            self.cells[sq].tally[p] = tally;
            self.replace(sq, p, tally.threat(self.kinds[p]));
            let code = learned::code_of(self.cells[sq].reads[p].map(shape_of));
            self.cells[sq].code[p] = code;
            let worth = learned::cell_worth(self.cells[sq].worth_code(p));
            for (sum, w) in self.learned[p].iter_mut().zip(worth) {
                *sum += w;
            }
        }
    }
}

#[cfg(test)]
mod tests;
