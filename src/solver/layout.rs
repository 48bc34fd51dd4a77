//! What the solver precomputes once per game shape: the windows of K cells as
//! bit masks over the cells (`r * cols + c`, boards of up to 64 cells), the
//! windows through each cell, the board's symmetries and Zobrist keys as
//! seen through each of them.

use crate::rules::{splitmix64, window_masks, Geometry};

/// The largest board the solver takes, in cells: one `u64` holds a board.
pub const MAX_CELLS: usize = 64;

/// A run of K cells that could become a winning line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Its cells.
    pub cells: u64,
    /// Under the exact rule, the cells just past its ends: a stone of the
    /// player's own there would make an overline, so the window is dead for
    /// that player. Zero under the free rule.
    pub ends: u64,
}

/// Per-shape tables.
pub struct Layout {
    pub geometry: Geometry,
    pub cells: usize,
    pub k: u32,
    /// Every cell of the board.
    pub full: u64,
    pub windows: Vec<Window>,
    /// Windows through each cell (by index into `windows`), as ranges of `through_ids`.
    through: Vec<(u16, u16)>,
    through_ids: Vec<u16>,
    /// Number of symmetries: 8 on square boards, 4 otherwise.
    pub symmetries: usize,
    /// `images[s][i]`: where cell `i` goes under symmetry `s`.
    images: Vec<[u8; MAX_CELLS]>,
    /// `inverses[s]` undoes `images[s]`.
    inverses: Vec<[u8; MAX_CELLS]>,
    /// `keys[i][s][p]`: the Zobrist key of a stone of player `p` on cell `i`
    /// as seen through symmetry `s`.
    keys: Vec<[[u64; 2]; 8]>,
}

impl Layout {
    /// The tables of a shape; `None` when the board has more than 64 cells.
    pub fn new(geometry: Geometry) -> Option<Layout> {
        let (rows, cols) = (geometry.rows(), geometry.cols());
        let cells = rows * cols;
        if cells > MAX_CELLS {
            return None;
        }
        let full = if cells == 64 {
            u64::MAX
        } else {
            (1u64 << cells) - 1
        };
        let mut windows: Vec<Window> = window_masks(geometry)
            .into_iter()
            .map(|(cells, ends)| Window { cells, ends })
            .collect();
        // K = 1 gives each one-cell window once per direction.
        windows.sort_by_key(|w| (w.cells.trailing_zeros(), w.cells, w.ends));
        windows.dedup();
        let mut through_lists = vec![Vec::new(); cells];
        for (id, w) in windows.iter().enumerate() {
            for (c, list) in through_lists.iter_mut().enumerate() {
                if w.cells >> c & 1 == 1 {
                    list.push(id as u16);
                }
            }
        }
        let mut through = Vec::with_capacity(cells);
        let mut through_ids = Vec::new();
        for list in &through_lists {
            let start = through_ids.len() as u16;
            through_ids.extend_from_slice(list);
            through.push((start, through_ids.len() as u16));
        }

        let maps = geometry.symmetries();
        let symmetries = maps.len();
        let images: Vec<[u8; MAX_CELLS]> = maps
            .iter()
            .map(|map| {
                let mut image = [0u8; MAX_CELLS];
                for (slot, &j) in image.iter_mut().zip(map) {
                    *slot = j as u8;
                }
                image
            })
            .collect();
        let inverses = images
            .iter()
            .map(|image| {
                let mut inverse = [0u8; MAX_CELLS];
                for i in 0..cells {
                    inverse[image[i] as usize] = i as u8;
                }
                inverse
            })
            .collect();
        let mut state = 0x736f_6c76_6572_u64; // "solver": any fixed seed will do
        let base: Vec<[u64; 2]> = (0..cells)
            .map(|_| [splitmix64(&mut state), splitmix64(&mut state)])
            .collect();
        let keys = (0..cells)
            .map(|i| {
                let mut k = [[0u64; 2]; 8];
                for (s, image) in images.iter().enumerate() {
                    k[s] = base[image[i] as usize];
                }
                k
            })
            .collect();
        Some(Layout {
            geometry,
            cells,
            k: geometry.k() as u32,
            full,
            windows,
            through,
            through_ids,
            symmetries,
            images,
            inverses,
            keys,
        })
    }

    /// The windows through a cell.
    #[inline]
    pub fn through(&self, cell: usize) -> &[u16] {
        let (a, b) = self.through[cell];
        &self.through_ids[a as usize..b as usize]
    }

    /// The Zobrist keys of a cell under each symmetry.
    #[inline]
    pub fn keys(&self, cell: usize) -> &[[u64; 2]; 8] {
        &self.keys[cell]
    }

    /// Cell `i` seen through symmetry `s`.
    #[inline]
    pub fn image(&self, s: usize, i: usize) -> usize {
        self.images[s][i] as usize
    }

    /// The cell that symmetry `s` maps onto `j` (the inverse image).
    #[inline]
    pub fn preimage(&self, s: usize, j: usize) -> usize {
        self.inverses[s][j] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn shape(r: u32, c: u32, k: u32, rule: Rule) -> Layout {
        Layout::new(Geometry::new(r, c, k, rule).unwrap()).unwrap()
    }

    #[test]
    fn windows_and_symmetries() {
        assert_eq!(shape(3, 3, 3, Rule::Free).windows.len(), 8);
        assert_eq!(shape(7, 7, 5, Rule::Free).windows.len(), 60);
        assert_eq!(shape(3, 3, 1, Rule::Free).windows.len(), 9);
        assert_eq!(shape(8, 8, 5, Rule::Free).windows.len(), 96);
        assert!(Layout::new(Geometry::new(9, 8, 4, Rule::Free).unwrap()).is_none());
        let s = shape(4, 6, 4, Rule::Exact);
        assert_eq!(s.symmetries, 4);
        for sym in 0..4 {
            for i in 0..24 {
                assert_eq!(s.preimage(sym, s.image(sym, i)), i);
            }
        }
        // On the top row, the window of columns 2-5 ends at columns 1 and 6;
        // the one of columns 3-6 only at column 2.
        let w = s.windows.iter().find(|w| w.cells == 0b1_1110).unwrap();
        assert_eq!(w.ends, 0b10_0001);
        let w = s.windows.iter().find(|w| w.cells == 0b11_1100).unwrap();
        assert_eq!(w.ends, 0b10);
    }
}
