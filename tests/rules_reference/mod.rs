//! A slow, plain second reading of renju's forbidden moves and caro's wins,
//! to check the rules core against: positions as grids of characters,
//! lines as the whole row, column or diagonal of the board, and every
//! definition tried by brute force over every stretch and every empty cell
//! of the line (the core reads eleven-cell bit windows, the first cells past
//! a run and an imagined-stone chain). The recursion clones the grid.
//!
//! The definitions, from the RIF rules: a five is an unbroken row of
//! exactly five Black stones; an overline, of six or more. A four is four
//! Black stones on a line to which one more stone makes five; a straight
//! four, an unbroken four to which two different stones make five. A three
//! is three stones to which one more stone makes a straight four, that
//! stone being one Black may play (not forbidden) and making no five at the
//! same time. A double-four (double-three) puts a stone that makes two
//! fours (threes) through it at once. A stone that makes a five wins.

#![allow(dead_code)]

use kinrow::rules::{Board, Cell, Forbidden, Player, Rule};

/// A position as characters: `X`, `O` and `.`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    pub rows: usize,
    pub cols: usize,
    cells: Vec<Vec<char>>,
}

/// The four directions of a line: across, down, down-right, down-left.
pub const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

impl Grid {
    /// The stones of a board.
    pub fn of(board: &Board) -> Grid {
        let g = board.geometry();
        let cells = (0..g.rows())
            .map(|r| {
                (0..g.cols())
                    .map(|c| match board.stone_at(Cell::new(r as u8, c as u8)) {
                        Some(Player::X) => 'X',
                        Some(Player::O) => 'O',
                        None => '.',
                    })
                    .collect()
            })
            .collect();
        Grid {
            rows: g.rows(),
            cols: g.cols(),
            cells,
        }
    }

    pub fn get(&self, r: i32, c: i32) -> Option<char> {
        let on = (0..self.rows as i32).contains(&r) && (0..self.cols as i32).contains(&c);
        on.then(|| self.cells[r as usize][c as usize])
    }

    pub fn set(&mut self, cell: Cell, ch: char) {
        self.cells[cell.row as usize][cell.col as usize] = ch;
    }

    pub fn empty_cells(&self) -> Vec<Cell> {
        let mut out = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                if self.cells[r][c] == '.' {
                    out.push(Cell::new(r as u8, c as u8));
                }
            }
        }
        out
    }

    /// The whole line of the board through `cell` along `(dr, dc)`: its
    /// cells in order, and where `cell` is among them.
    pub fn line(&self, cell: Cell, (dr, dc): (i32, i32)) -> (Vec<char>, Vec<Cell>, usize) {
        let (mut r, mut c) = (cell.row as i32, cell.col as i32);
        while self.get(r - dr, c - dc).is_some() {
            r -= dr;
            c -= dc;
        }
        let (mut chars, mut cells, mut at) = (Vec::new(), Vec::new(), 0);
        while let Some(ch) = self.get(r, c) {
            if (r, c) == (cell.row as i32, cell.col as i32) {
                at = chars.len();
            }
            chars.push(ch);
            cells.push(Cell::new(r as u8, c as u8));
            r += dr;
            c += dc;
        }
        (chars, cells, at)
    }
}

/// The length of the unbroken row of `ch` through `line[at]`.
pub fn run_through(line: &[char], at: usize, ch: char) -> usize {
    if line[at] != ch {
        return 0;
    }
    let before = line[..at].iter().rev().take_while(|&&x| x == ch).count();
    let after = line[at + 1..].iter().take_while(|&&x| x == ch).count();
    before + 1 + after
}

/// What a Black stone on an empty cell makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Five,
    Forbidden(Forbidden),
    Allowed,
}

impl Verdict {
    pub fn forbidden(self) -> Option<Forbidden> {
        match self {
            Verdict::Forbidden(kind) => Some(kind),
            _ => None,
        }
    }
}

/// How deep threes are judged: `None` as the rules say (a three's
/// straight-four stone must itself be allowed, judged the same way);
/// `Some(0)`: any straight-four stone counts; `Some(n)`: the stone is judged
/// with `Some(n - 1)`.
pub type Depth = Option<u32>;

/// The fours through `line[at]`: the four-stone sets (as positions on the
/// line) of every five-cell stretch holding `at` with four X and one empty
/// cell, no X just outside it (so that filling it makes exactly five).
fn fours(line: &[char], at: usize) -> usize {
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for start in at.saturating_sub(4)..=at {
        if start + 5 > line.len() {
            break;
        }
        let stretch = &line[start..start + 5];
        let xs = stretch.iter().filter(|&&c| c == 'X').count();
        let empties = stretch.iter().filter(|&&c| c == '.').count();
        let outside_ok = (start == 0 || line[start - 1] != 'X')
            && (start + 5 == line.len() || line[start + 5] != 'X');
        if xs == 4 && empties == 1 && outside_ok {
            let set: Vec<usize> = (start..start + 5).filter(|&i| line[i] == 'X').collect();
            if !sets.contains(&set) {
                sets.push(set);
            }
        }
    }
    sets.len()
}

/// Whether an X on empty `line[j]` makes a straight four holding `at` and
/// `j`: four X in an unbroken row, an empty cell at each end, and each end
/// making exactly five.
fn makes_straight_four(line: &[char], at: usize, j: usize) -> bool {
    let mut m = line.to_vec();
    m[j] = 'X';
    let not_x = |i: isize| i < 0 || i as usize >= m.len() || m[i as usize] != 'X';
    let empty = |i: isize| i >= 0 && (i as usize) < m.len() && m[i as usize] == '.';
    (0..m.len().saturating_sub(3)).any(|start| {
        let end = start + 3;
        let (s, e) = (start as isize, end as isize);
        (start..=end).contains(&at)
            && (start..=end).contains(&j)
            && m[start..=end].iter().all(|&c| c == 'X')
            && empty(s - 1)
            && empty(e + 1)
            && not_x(s - 2)
            && not_x(e + 2)
    })
}

/// Renju: what a Black stone on empty `cell` of `grid` makes, threes judged
/// to `depth`.
pub fn renju_verdict(grid: &Grid, cell: Cell, depth: Depth) -> Verdict {
    let mut g = grid.clone();
    g.set(cell, 'X');
    let lines: Vec<(Vec<char>, Vec<Cell>, usize)> =
        DIRECTIONS.iter().map(|&d| g.line(cell, d)).collect();
    if lines.iter().any(|(l, _, at)| run_through(l, *at, 'X') == 5) {
        return Verdict::Five;
    }
    if lines.iter().any(|(l, _, at)| run_through(l, *at, 'X') >= 6) {
        return Verdict::Forbidden(Forbidden::Overline);
    }
    let four_count: usize = lines.iter().map(|(l, _, at)| fours(l, *at)).sum();
    if four_count >= 2 {
        return Verdict::Forbidden(Forbidden::DoubleFour);
    }
    let threes = lines
        .iter()
        .filter(|(l, cells, at)| {
            (0..l.len()).any(|j| {
                l[j] == '.'
                    && makes_straight_four(l, *at, j)
                    && match depth {
                        Some(0) => true,
                        _ => renju_verdict(&g, cells[j], depth.map(|d| d - 1)) == Verdict::Allowed,
                    }
            })
        })
        .count();
    if threes >= 2 {
        return Verdict::Forbidden(Forbidden::DoubleThree);
    }
    Verdict::Allowed
}

/// Whether `p` has a winning line on `grid` under `rule` (K = `k`): some
/// unbroken row of `p`'s stones, looked at whole with the cells just past
/// its ends.
pub fn has_winning_line(grid: &Grid, p: Player, k: usize, rule: Rule) -> bool {
    let (mine, theirs) = match p {
        Player::X => ('X', 'O'),
        Player::O => ('O', 'X'),
    };
    for r in 0..grid.rows as i32 {
        for c in 0..grid.cols as i32 {
            for (dr, dc) in DIRECTIONS {
                // Only from the first stone of a row.
                if grid.get(r, c) != Some(mine) || grid.get(r - dr, c - dc) == Some(mine) {
                    continue;
                }
                let mut len = 0;
                while grid.get(r + len * dr, c + len * dc) == Some(mine) {
                    len += 1;
                }
                let before = grid.get(r - dr, c - dc);
                let after = grid.get(r + len * dr, c + len * dc);
                let closed = before == Some(theirs) && after == Some(theirs);
                let len = len as usize;
                let wins = match rule {
                    Rule::Free => len >= k,
                    Rule::Exact => len == k,
                    Rule::Renju => len == k || (len > k && p == Player::O),
                    Rule::Caro => (len == k && !closed) || len > k,
                    Rule::CaroExact => len == k && !closed,
                };
                if wins {
                    return true;
                }
            }
        }
    }
    false
}
