//! Random playouts at full speed, for Monte Carlo searchers and benchmarks.
//!
//! A playout plays uniformly random legal moves from a position to the end
//! of the game. [`Board`] is general but carries history, outcomes and line
//! bookkeeping that a playout never reads; here a position is two bit masks,
//! and a win is a table look-up (up to 16 cells: every stone pattern is
//! classified once) or a test of the few K-cell windows through the last
//! stone (up to 64 cells), or, on larger boards, the runs of ones through
//! the last stone in per-line masks (as [`Board`] finds them, without its
//! cells, history and outcome). The caller brings the random number
//! generator, so playouts stay reproducible.

use super::lines::{line_slots_at, run_around};
use super::renju::Masks;
use super::{Board, Cell, Geometry, Player, Rule};
use rand::RngCore;

/// Runs random playouts from a base position.
///
/// ```
/// use kinrow::rules::{Board, Geometry, Playouts};
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
/// let mut playouts = Playouts::new(&Board::new(Geometry::TIC_TAC_TOE));
/// let x_wins = (0..1000).filter(|_| playouts.run(&mut rng) == Some(kinrow::rules::Player::X)).count();
/// assert!(x_wins > 500); // X wins about 58.5 % of random games
/// ```
pub struct Playouts {
    geo: Geometry,
    engine: Engine,
    /// The result of a base position that has already ended.
    ended: Option<Option<Player>>,
}

enum Engine {
    Bits(Bits),
    Lines(Lines),
}

/// Bit-mask playouts for boards of up to 64 cells; cell `r * cols + c` is bit
/// `r * cols + c`.
struct Bits {
    wins: WinTest,
    /// The base position, copied whole at the start of every playout.
    base: BitPosition,
    /// The cells of the last playout, in order (first `played` entries).
    order: [u8; 64],
    played: usize,
}

/// A position of up to 64 cells as plain data.
#[derive(Clone, Copy)]
struct BitPosition {
    /// Each player's stones.
    stones: [u64; 2],
    /// The empty cells (the first `left`).
    empty: [u8; 64],
    left: usize,
    to_move: Player,
}

enum WinTest {
    /// Up to 16 cells: bit `pattern` is set when `pattern` holds a line.
    Table(Vec<u64>),
    /// Up to 64 cells: the windows through each cell, `windows[starts[c] ..
    /// starts[c + 1]]`, each as (its cells, the cells just past its ends that
    /// must not be the player's under the exact rule).
    Windows {
        starts: Vec<u32>,
        windows: Vec<(u64, u64)>,
    },
}

/// Line-mask playouts for boards over 64 cells, and for renju and caro on
/// any board: each player's stones as one `u32` per line of the board and
/// direction (lines are at most 32 cells), so a move is four ORs and its win
/// check four runs of ones, as in [`Board`], without the cells, history and
/// outcome a playout never reads.
struct Lines {
    k: u32,
    rule: Rule,
    /// For each cell `r * cols + c`: its line index and bit in each of the
    /// four directions (across, down, down-right, down-left).
    slots: Vec<[(u16, u32); 4]>,
    /// Masks per player.
    per_player: usize,
    base_masks: Vec<u32>,
    masks: Vec<u32>,
    base_empty: Vec<u16>,
    empty: Vec<u16>,
    base_to_move: Player,
    /// The cells of the last playout, in order.
    order: Vec<u16>,
    rows: usize,
    cols: usize,
}

/// A uniform index below `n` (n > 0) by Lemire's multiply-shift with
/// rejection: exact, and cheaper than a general range sampler.
#[inline]
pub fn random_below<R: RngCore>(rng: &mut R, n: usize) -> usize {
    let n = n as u32;
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as usize
}

/// Every K-cell window of the board with the cells just past its two ends
/// (those on the board, and only where an overline does not win, where a
/// stone of the same player there makes an overline), as bit masks over
/// `r * cols + c`; boards of up to 64 cells. For free and exact: the windows
/// know neither caro's blocked ends nor renju's two colours (they describe
/// X's fives), so the playouts take renju and caro elsewhere.
pub(crate) fn windows(geo: Geometry) -> Vec<(u64, u64)> {
    let (rows, cols, k) = (geo.rows() as i32, geo.cols() as i32, geo.k() as i32);
    let bit = |r: i32, c: i32| -> u64 {
        if (0..rows).contains(&r) && (0..cols).contains(&c) {
            1u64 << (r * cols + c)
        } else {
            0
        }
    };
    let mut out = Vec::new();
    for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for r in 0..rows {
            for c in 0..cols {
                let (er, ec) = (r + (k - 1) * dr, c + (k - 1) * dc);
                if !(0..rows).contains(&er) || !(0..cols).contains(&ec) {
                    continue;
                }
                let cells = (0..k).fold(0, |m, i| m | bit(r + i * dr, c + i * dc));
                let ends = if geo.rule().overline_wins(Player::X) {
                    0
                } else {
                    bit(r - dr, c - dc) | bit(er + dr, ec + dc)
                };
                out.push((cells, ends));
            }
        }
    }
    out
}

#[inline]
fn holds(stones: u64, (cells, ends): (u64, u64)) -> bool {
    stones & cells == cells && stones & ends == 0
}

impl WinTest {
    fn new(geo: Geometry) -> WinTest {
        let all = windows(geo);
        let area = geo.area();
        if area <= 16 {
            let patterns = 1usize << area;
            let mut table = vec![0u64; patterns.div_ceil(64)];
            for p in 0..patterns {
                if all.iter().any(|&w| holds(p as u64, w)) {
                    table[p / 64] |= 1 << (p % 64);
                }
            }
            WinTest::Table(table)
        } else {
            let mut starts = Vec::with_capacity(area + 1);
            let mut through = Vec::new();
            for cell in 0..area {
                starts.push(through.len() as u32);
                through.extend(all.iter().filter(|w| w.0 >> cell & 1 == 1));
            }
            starts.push(through.len() as u32);
            WinTest::Windows {
                starts,
                windows: through,
            }
        }
    }
}

impl Playouts {
    /// Playouts from `from` (any position; an ended game plays no moves).
    pub fn new(from: &Board) -> Playouts {
        let geo = from.geometry();
        let plain = matches!(geo.rule(), Rule::Free | Rule::Exact);
        let engine = if geo.area() <= 64 && plain {
            Engine::Bits(Bits {
                wins: WinTest::new(geo),
                base: BitPosition {
                    stones: [0; 2],
                    empty: [0; 64],
                    left: 0,
                    to_move: Player::X,
                },
                order: [0; 64],
                played: 0,
            })
        } else {
            Engine::Lines(Lines::new(geo))
        };
        let mut p = Playouts {
            geo,
            engine,
            ended: None,
        };
        p.set_position(from);
        p
    }

    /// Moves the base to another position of the same shape (the tables
    /// stay).
    ///
    /// # Panics
    /// If `from` has another shape: the tables are the shape's (a caller's
    /// bug, never input).
    pub fn set_position(&mut self, from: &Board) {
        assert_eq!(from.geometry(), self.geo, "a position of another shape");
        let over = from.is_over();
        self.ended = from.outcome().map(|o| o.winner());
        match &mut self.engine {
            Engine::Bits(bits) => {
                let cols = self.geo.cols();
                let base = &mut bits.base;
                base.stones = [0; 2];
                base.left = 0;
                for sq in from.squares() {
                    let c = from.cell_of(sq);
                    let i = c.row as usize * cols + c.col as usize;
                    match from.stone_on(sq) {
                        Some(p) => base.stones[p.index()] |= 1 << i,
                        None if !over => {
                            base.empty[base.left] = i as u8;
                            base.left += 1;
                        }
                        None => {}
                    }
                }
                base.to_move = from.to_move();
                bits.played = 0;
            }
            Engine::Lines(lines) => {
                let cols = self.geo.cols();
                lines.base_masks.fill(0);
                lines.base_empty.clear();
                for sq in from.squares() {
                    let c = from.cell_of(sq);
                    let i = c.row as usize * cols + c.col as usize;
                    match from.stone_on(sq) {
                        Some(p) => {
                            let base = p.index() * lines.per_player;
                            for (line, bit) in lines.slots[i] {
                                lines.base_masks[base + line as usize] |= bit;
                            }
                        }
                        None if !over => lines.base_empty.push(i as u16),
                        None => {}
                    }
                }
                lines.base_to_move = from.to_move();
                lines.order.clear();
            }
        }
    }

    /// One random playout from the base position; the winner, or `None` for
    /// a draw (and for a base position that had already ended in one; an
    /// ended base replays its own result).
    pub fn run<R: RngCore>(&mut self, rng: &mut R) -> Option<Player> {
        if let Some(result) = self.ended {
            return result;
        }
        match &mut self.engine {
            Engine::Bits(bits) => bits.run(rng),
            Engine::Lines(lines) => lines.run(rng),
        }
    }

    /// How many moves the last playout played.
    pub fn last_len(&self) -> usize {
        match &self.engine {
            Engine::Bits(bits) => bits.played,
            Engine::Lines(lines) => lines.order.len(),
        }
    }

    /// The cells the last playout played, in order.
    pub fn last_moves(&self) -> Vec<Cell> {
        match &self.engine {
            Engine::Bits(bits) => {
                let cols = self.geo.cols();
                bits.order[..bits.played]
                    .iter()
                    .map(|&i| Cell::new((i as usize / cols) as u8, (i as usize % cols) as u8))
                    .collect()
            }
            Engine::Lines(lines) => {
                let cols = self.geo.cols();
                lines
                    .order
                    .iter()
                    .map(|&i| Cell::new((i as usize / cols) as u8, (i as usize % cols) as u8))
                    .collect()
            }
        }
    }
}

impl Bits {
    #[inline]
    fn run<R: RngCore>(&mut self, rng: &mut R) -> Option<Player> {
        // One loop per kind of win test, so the test inlines into it. A test
        // sees the mover's stones with the new one on `cell`; they held no
        // line before it (the game would have ended), so any line now goes
        // through `cell`.
        let (winner, played) = match &self.wins {
            WinTest::Table(t) => self.base.play_out(&mut self.order, rng, |stones, _| {
                t[stones as usize / 64] >> (stones % 64) & 1 == 1
            }),
            WinTest::Windows { starts, windows } => {
                self.base.play_out(&mut self.order, rng, |stones, cell| {
                    let (a, b) = (starts[cell] as usize, starts[cell + 1] as usize);
                    windows[a..b].iter().any(|&w| holds(stones, w))
                })
            }
        };
        self.played = played;
        winner
    }
}

impl BitPosition {
    /// Plays random moves on a copy of this position to the end, recording
    /// them in `order`; the winner and the number of moves.
    #[inline]
    fn play_out<R: RngCore>(
        self,
        order: &mut [u8; 64],
        rng: &mut R,
        wins: impl Fn(u64, usize) -> bool,
    ) -> (Option<Player>, usize) {
        let BitPosition {
            mut stones,
            mut empty,
            mut left,
            to_move: mut p,
        } = self;
        let mut ply = 0;
        let winner = loop {
            if left == 0 {
                break None;
            }
            let i = random_below(rng, left);
            let cell = empty[i] as usize;
            left -= 1;
            empty[i] = empty[left];
            order[ply] = cell as u8;
            ply += 1;
            let mine = &mut stones[p.index()];
            *mine |= 1 << cell;
            if wins(*mine, cell) {
                break Some(p);
            }
            p = p.other();
        };
        (winner, ply)
    }
}

impl Lines {
    fn new(geo: Geometry) -> Lines {
        let (rows, cols) = (geo.rows(), geo.cols());
        let n = rows + cols - 1;
        let slots = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .map(|cell| line_slots_at(rows, cols, cell).map(|(line, bit)| (line as u16, bit)))
            .collect();
        Lines {
            k: geo.k() as u32,
            rule: geo.rule(),
            slots,
            per_player: 4 * n,
            base_masks: vec![0; 8 * n],
            masks: vec![0; 8 * n],
            base_empty: Vec::with_capacity(geo.area()),
            empty: Vec::with_capacity(geo.area()),
            base_to_move: Player::X,
            order: Vec::with_capacity(geo.area()),
            rows,
            cols,
        }
    }

    fn run<R: RngCore>(&mut self, rng: &mut R) -> Option<Player> {
        match self.rule {
            Rule::Free | Rule::Exact => self.run_plain(rng),
            Rule::Renju | Rule::Caro | Rule::CaroExact => self.run_ruled(rng),
        }
    }

    /// Free and exact: any empty cell, and a win is a run's length.
    fn run_plain<R: RngCore>(&mut self, rng: &mut R) -> Option<Player> {
        let Lines {
            k,
            rule,
            slots,
            per_player,
            base_masks,
            masks,
            base_empty,
            empty,
            base_to_move,
            order,
            ..
        } = self;
        let exact = *rule == Rule::Exact;
        masks.copy_from_slice(base_masks);
        empty.clone_from(base_empty);
        order.clear();
        let mut p = *base_to_move;
        while !empty.is_empty() {
            let i = random_below(rng, empty.len());
            let cell = empty.swap_remove(i);
            order.push(cell);
            let mine = &mut masks[p.index() * *per_player..][..*per_player];
            let mut won = false;
            for (line, bit) in slots[cell as usize] {
                let m = &mut mine[line as usize];
                *m |= bit;
                // Measured on every move, without a branch: cheaper than
                // filtering first (tried: a popcount filter mispredicts).
                let (before, after) = run_around(*m, bit);
                let run = before + 1 + after;
                won |= if exact { run == *k } else { run >= *k };
            }
            if won {
                return Some(p);
            }
            p = p.other();
        }
        None
    }

    /// Renju and caro: Black draws among the cells not forbidden to it (and
    /// the game is drawn when there are none, as on [`Board`]), and a win
    /// asks the rule, with the opponent's stones at the run's ends.
    fn run_ruled<R: RngCore>(&mut self, rng: &mut R) -> Option<Player> {
        let (k, rule) = (self.k, self.rule);
        match rule {
            Rule::Renju => self.play_out_ruled(rng, false, |p, len, _| {
                len == k || (len > k && p == Player::O)
            }),
            _ => self.play_out_ruled(rng, true, |p, len, blocked| {
                rule.wins(p, len as usize, k as usize, blocked)
            }),
        }
    }

    /// The loop of [`Lines::run_ruled`], one copy per win test: `wins` gets
    /// the mover, the run's length and (when `ends`) how many of its ends
    /// the opponent holds.
    #[inline(always)]
    fn play_out_ruled<R: RngCore>(
        &mut self,
        rng: &mut R,
        ends: bool,
        wins: impl Fn(Player, u32, u32) -> bool,
    ) -> Option<Player> {
        self.masks.copy_from_slice(&self.base_masks);
        self.empty.clone_from(&self.base_empty);
        self.order.clear();
        let (rule, n) = (self.rule, self.per_player);
        let mut p = self.base_to_move;
        while !self.empty.is_empty() {
            let cell = if rule.forbids(p) {
                self.draw_allowed_to_x(rng)?
            } else {
                let i = random_below(rng, self.empty.len());
                self.empty.swap_remove(i)
            };
            self.order.push(cell);
            let (xs, os) = self.masks.split_at_mut(n);
            let (mine, theirs) = match p {
                Player::X => (xs, &*os),
                Player::O => (os, &*xs),
            };
            let mut won = false;
            for (line, bit) in self.slots[cell as usize] {
                let m = &mut mine[line as usize];
                *m |= bit;
                let (before, after) = run_around(*m, bit);
                let len = before + 1 + after;
                let blocked = if ends {
                    Board::ends_held(theirs[line as usize], bit, before, len)
                } else {
                    0
                };
                won |= wins(p, len, blocked);
            }
            if won {
                return Some(p);
            }
            p = p.other();
        }
        None
    }

    /// Renju: removes and returns a uniformly drawn empty cell that is not
    /// forbidden to X; `None` when every empty cell is. Forbidden cells
    /// drawn on the way move to the end of the empty list, out of the draw.
    fn draw_allowed_to_x<R: RngCore>(&mut self, rng: &mut R) -> Option<u16> {
        let masks = Masks {
            lines: &self.masks,
            rows: self.rows,
            cols: self.cols,
        };
        let mut left = self.empty.len();
        while left > 0 {
            let i = random_below(rng, left);
            let cell = self.empty[i] as usize;
            if masks
                .forbidden((cell / self.cols, cell % self.cols))
                .is_none()
            {
                return Some(self.empty.swap_remove(i));
            }
            left -= 1;
            self.empty.swap(i, left);
        }
        None
    }
}
