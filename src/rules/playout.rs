//! Random playouts at full speed, for Monte Carlo searchers and benchmarks.
//!
//! A playout plays uniformly random legal moves from a position to the end
//! of the game. [`Board`] is general but carries history, outcomes and line
//! bookkeeping that a playout never reads; here a position is two bit masks,
//! and a win is a table look-up (up to 16 cells: every stone pattern is
//! classified once) or a test of the few K-cell windows through the last
//! stone (up to 64 cells). Larger boards play on a [`Board`]. The caller
//! brings the random number generator, so playouts stay reproducible.

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
    Board(BoardPlayouts),
}

/// Bit-mask playouts for boards of up to 64 cells; cell `r * cols + c` is bit
/// `r * cols + c`.
struct Bits {
    wins: WinTest,
    /// The base position: each player's stones, the empty cells, the side
    /// to move.
    base: [u64; 2],
    base_empty: Vec<u8>,
    base_to_move: Player,
    /// The cells of the last playout, in order (first `played` entries).
    order: [u8; 64],
    played: usize,
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

/// Playouts on a [`Board`], for boards over 64 cells.
struct BoardPlayouts {
    base: Board,
    scratch: Board,
    base_empty: Vec<usize>,
    empty: Vec<usize>,
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
/// (those on the board), as bit masks over `r * cols + c`.
fn windows(geo: Geometry) -> Vec<(u64, u64)> {
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
                let ends = match geo.rule() {
                    Rule::Free => 0,
                    Rule::Exact => bit(r - dr, c - dc) | bit(er + dr, ec + dc),
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

    /// Whether `stones` (which include a new stone on `cell`, and held no
    /// line before it) hold a line now.
    #[inline]
    fn wins(&self, stones: u64, cell: usize) -> bool {
        match self {
            WinTest::Table(t) => t[stones as usize / 64] >> (stones % 64) & 1 == 1,
            WinTest::Windows { starts, windows } => {
                let (a, b) = (starts[cell] as usize, starts[cell + 1] as usize);
                windows[a..b].iter().any(|&w| holds(stones, w))
            }
        }
    }
}

impl Playouts {
    /// Playouts from `from` (any position; an ended game plays no moves).
    pub fn new(from: &Board) -> Playouts {
        let geo = from.geometry();
        let engine = if geo.area() <= 64 {
            Engine::Bits(Bits {
                wins: WinTest::new(geo),
                base: [0; 2],
                base_empty: Vec::with_capacity(geo.area()),
                base_to_move: Player::X,
                order: [0; 64],
                played: 0,
            })
        } else {
            Engine::Board(BoardPlayouts {
                base: from.clone(),
                scratch: from.clone(),
                base_empty: Vec::with_capacity(geo.area()),
                empty: Vec::with_capacity(geo.area()),
            })
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
    pub fn set_position(&mut self, from: &Board) {
        assert_eq!(from.geometry(), self.geo, "a position of another shape");
        let over = from.is_over();
        self.ended = from.outcome().map(|o| o.winner());
        match &mut self.engine {
            Engine::Bits(bits) => {
                let cols = self.geo.cols();
                bits.base = [0; 2];
                bits.base_empty.clear();
                for sq in from.squares() {
                    let c = from.cell_of(sq);
                    let i = c.row as usize * cols + c.col as usize;
                    match from.stone_on(sq) {
                        Some(p) => bits.base[p.index()] |= 1 << i,
                        None if !over => bits.base_empty.push(i as u8),
                        None => {}
                    }
                }
                bits.base_to_move = from.to_move();
                bits.played = 0;
            }
            Engine::Board(b) => {
                b.base = from.clone();
                b.scratch = from.clone();
                b.base_empty.clear();
                if !over {
                    b.base_empty
                        .extend(from.squares().filter(|&s| from.is_empty_square(s)));
                }
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
            Engine::Board(b) => b.run(rng),
        }
    }

    /// How many moves the last playout played.
    pub fn last_len(&self) -> usize {
        match &self.engine {
            Engine::Bits(bits) => bits.played,
            Engine::Board(b) => b.scratch.ply() - b.base.ply(),
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
            Engine::Board(b) => b.scratch.moves().skip(b.base.ply()).collect(),
        }
    }
}

impl Bits {
    #[inline]
    fn run<R: RngCore>(&mut self, rng: &mut R) -> Option<Player> {
        let mut stones = self.base;
        let mut empty = [0u8; 64];
        let mut left = self.base_empty.len();
        empty[..left].copy_from_slice(&self.base_empty);
        let mut p = self.base_to_move;
        let mut ply = 0;
        let winner = loop {
            if left == 0 {
                break None;
            }
            let i = random_below(rng, left);
            let cell = empty[i] as usize;
            left -= 1;
            empty[i] = empty[left];
            self.order[ply] = cell as u8;
            ply += 1;
            let mine = &mut stones[p.index()];
            *mine |= 1 << cell;
            if self.wins.wins(*mine, cell) {
                break Some(p);
            }
            p = p.other();
        };
        self.played = ply;
        winner
    }
}

impl BoardPlayouts {
    fn run<R: RngCore>(&mut self, rng: &mut R) -> Option<Player> {
        let BoardPlayouts {
            base,
            scratch,
            base_empty,
            empty,
        } = self;
        if base.ply() == 0 {
            scratch.clear();
        } else {
            scratch.clone_from(base);
        }
        empty.clone_from(base_empty);
        loop {
            let i = random_below(rng, empty.len());
            let square = empty.swap_remove(i);
            if let Some(outcome) = scratch.play_unchecked(square) {
                return outcome.winner();
            }
        }
    }
}
