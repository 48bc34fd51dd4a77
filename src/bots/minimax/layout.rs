//! What the searcher precomputes once per board shape: the windows of K cells
//! that could become a winning line, the board's symmetries and the Zobrist
//! keys of every stone as seen through each symmetry.

use crate::rules::{splitmix64, Board, Cell, Geometry};

/// Boards up to this many cells are searched full width (every empty cell is
/// a candidate), so the search is exact when it reaches the end. Larger boards
/// only consider cells near stones and the best few of them.
pub const FULL_WIDTH_AREA: usize = 36;

/// How far (in rows and columns) a cell may be from a stone and still be a
/// candidate on large boards.
const NEAR: usize = 2;

/// A run of K cells: the square of its first cell and the step between cells.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub start: usize,
    pub step: usize,
}

/// Per-shape tables, indexed by the board's squares (padded indices).
pub struct Layout {
    pub geometry: Geometry,
    /// Every window of K cells on the board.
    pub windows: Vec<Window>,
    /// The ids of the windows through each square, as ranges of `window_ids`.
    window_ranges: Vec<(u32, u32)>,
    window_ids: Vec<u32>,
    /// The squares of the board in row-major order.
    pub squares: Vec<usize>,
    /// The cell index (`row * cols + col`) of each square; unused for walls.
    cell_index: Vec<u16>,
    /// Number of symmetries of the board: 8 when square, 4 otherwise.
    pub symmetries: usize,
    /// `images[s][i]`: the cell index that cell index `i` maps to under symmetry `s`.
    images: Vec<Vec<u16>>,
    /// `inverses[s]` undoes `images[s]`.
    inverses: Vec<Vec<u16>>,
    /// `keys[square * symmetries + s][player]`: the Zobrist key of that stone
    /// in the image of the position under symmetry `s`.
    keys: Vec<[u64; 2]>,
    /// Squares within `NEAR` of each square, as ranges of `near_squares`.
    near_ranges: Vec<(u32, u32)>,
    near_squares: Vec<u16>,
    /// The central cells' squares: the first move on a large empty board.
    pub centre: Vec<usize>,
    /// Whether every empty cell is a candidate (see [`FULL_WIDTH_AREA`]).
    pub full_width: bool,
}

impl Layout {
    /// The tables for the shape of `board` (its stones are ignored).
    pub fn new(board: &Board) -> Layout {
        let geometry = board.geometry();
        let (rows, cols, k) = (geometry.rows(), geometry.cols(), geometry.k());
        let area = rows * cols;
        let square_count = board.square_count();

        let squares: Vec<usize> = board.squares().collect();
        let mut cell_index = vec![0u16; square_count];
        for (i, &sq) in squares.iter().enumerate() {
            cell_index[sq] = i as u16;
        }

        // Windows: across, down and both diagonals, as the board steps them.
        // With K = 1 every direction gives the same one-cell window: keep one.
        let deltas: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
        let directions = board.directions();
        let used = if k == 1 { 1 } else { 4 };
        let mut windows = Vec::new();
        for (&(dr, dc), &step) in deltas.iter().zip(directions.iter()).take(used) {
            for r in 0..rows as isize {
                for c in 0..cols as isize {
                    let (er, ec) = (r + dr * (k as isize - 1), c + dc * (k as isize - 1));
                    if er < rows as isize && ec >= 0 && ec < cols as isize {
                        let start = board.square(Cell::new(r as u8, c as u8));
                        windows.push(Window { start, step });
                    }
                }
            }
        }
        let mut through: Vec<Vec<u32>> = vec![Vec::new(); square_count];
        for (id, w) in windows.iter().enumerate() {
            for i in 0..k {
                through[w.start + i * w.step].push(id as u32);
            }
        }
        let (window_ranges, window_ids) = flatten(&through);

        let mut near: Vec<Vec<u16>> = vec![Vec::new(); square_count];
        for i in 0..area {
            let (r, c) = (i / cols, i % cols);
            for nr in r.saturating_sub(NEAR)..(r + NEAR + 1).min(rows) {
                for nc in c.saturating_sub(NEAR)..(c + NEAR + 1).min(cols) {
                    if (nr, nc) != (r, c) {
                        near[squares[i]].push(squares[nr * cols + nc] as u16);
                    }
                }
            }
        }
        let (near_ranges, near_squares) = flatten(&near);

        let maps = geometry.symmetries();
        let symmetries = maps.len();
        let mut images = Vec::with_capacity(symmetries);
        let mut inverses = Vec::with_capacity(symmetries);
        for map in &maps {
            let mut inverse = vec![0u16; area];
            for (i, &j) in map.iter().enumerate() {
                inverse[j] = i as u16;
            }
            images.push(map.iter().map(|&j| j as u16).collect::<Vec<u16>>());
            inverses.push(inverse);
        }

        let mut state = 0x6B69_6E72_6F77_u64; // "kinrow": any fixed seed will do
        let base: Vec<[u64; 2]> = (0..area)
            .map(|_| [splitmix64(&mut state), splitmix64(&mut state)])
            .collect();
        let mut keys = vec![[0u64; 2]; square_count * symmetries];
        for (i, &sq) in squares.iter().enumerate() {
            for (s, image) in images.iter().enumerate() {
                keys[sq * symmetries + s] = base[image[i] as usize];
            }
        }

        let mid = |n: usize| {
            if n % 2 == 1 {
                n / 2..n / 2 + 1
            } else {
                n / 2 - 1..n / 2 + 1
            }
        };
        let mut centre = Vec::new();
        for r in mid(rows) {
            for c in mid(cols) {
                centre.push(squares[r * cols + c]);
            }
        }

        Layout {
            geometry,
            windows,
            window_ranges,
            window_ids,
            squares,
            cell_index,
            symmetries,
            images,
            inverses,
            keys,
            near_ranges,
            near_squares,
            centre,
            full_width: area <= FULL_WIDTH_AREA,
        }
    }

    /// The ids of the windows through a square.
    #[inline]
    pub fn windows_through(&self, square: usize) -> &[u32] {
        let (a, b) = self.window_ranges[square];
        &self.window_ids[a as usize..b as usize]
    }

    /// The squares near a square (see `NEAR`).
    #[inline]
    pub fn near(&self, square: usize) -> &[u16] {
        let (a, b) = self.near_ranges[square];
        &self.near_squares[a as usize..b as usize]
    }

    /// The Zobrist keys of a square under every symmetry, per player.
    #[inline]
    pub fn keys(&self, square: usize) -> &[[u64; 2]] {
        &self.keys[square * self.symmetries..(square + 1) * self.symmetries]
    }

    /// A square as seen through symmetry `s`, as a compact cell index.
    #[inline]
    pub fn canonical_index(&self, square: usize, s: usize) -> u16 {
        self.images[s][self.cell_index[square] as usize]
    }

    /// Undoes [`Layout::canonical_index`].
    #[inline]
    pub fn square_of_canonical(&self, index: u16, s: usize) -> Option<usize> {
        let inverse = self.inverses.get(s)?;
        let i = *inverse.get(index as usize)?;
        self.squares.get(i as usize).copied()
    }
}

/// Lists of lists as (start, end) ranges into one flat list.
fn flatten<T: Copy>(lists: &[Vec<T>]) -> (Vec<(u32, u32)>, Vec<T>) {
    let mut ranges = Vec::with_capacity(lists.len());
    let mut flat = Vec::new();
    for list in lists {
        let start = flat.len() as u32;
        flat.extend_from_slice(list);
        ranges.push((start, flat.len() as u32));
    }
    (ranges, flat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn layout(rows: u32, cols: u32, k: u32) -> Layout {
        Layout::new(&Board::new(
            Geometry::new(rows, cols, k, Rule::Free).unwrap(),
        ))
    }

    #[test]
    fn window_counts() {
        // 3x3 k3: 3 rows, 3 columns, 2 diagonals.
        assert_eq!(layout(3, 3, 3).windows.len(), 8);
        // 4x4 k4: 10 lines.
        assert_eq!(layout(4, 4, 4).windows.len(), 10);
        // 1x5 k3: three horizontal windows only.
        assert_eq!(layout(1, 5, 3).windows.len(), 3);
        assert_eq!(layout(1, 1, 1).windows.len(), 1);
        // 15x15 k5: 4 directions, 15*11 each along rows and columns, 11*11 per diagonal.
        assert_eq!(layout(15, 15, 5).windows.len(), 2 * 15 * 11 + 2 * 11 * 11);
    }

    #[test]
    fn symmetries_are_permutations_and_round_trip() {
        for (r, c) in [(3, 3), (4, 3), (2, 5), (1, 1)] {
            let l = layout(r, c, 1);
            assert_eq!(l.symmetries, if r == c { 8 } else { 4 });
            for s in 0..l.symmetries {
                let mut seen = vec![false; (r * c) as usize];
                for &sq in &l.squares {
                    let i = l.canonical_index(sq, s);
                    assert!(!seen[i as usize]);
                    seen[i as usize] = true;
                    assert_eq!(l.square_of_canonical(i, s), Some(sq));
                }
            }
        }
    }
}
