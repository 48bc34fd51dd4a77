//! A cheap prior for a node's moves: how much a stone on a cell adds to the
//! mover's open lines and takes from the opponent's, counted over the
//! K-cell windows through the cell (as minimax's evaluation counts them on
//! the whole board). It orders the children, and UCT adds it as a
//! progressive bias that fades with visits.

use crate::rules::{Board, Cell, Geometry, Player};

/// What a window with `stones` of one player (after the move) and none of
/// the other's is worth: each stone multiplies it by 8.
fn weight(stones: usize) -> u64 {
    if stones == 0 {
        0
    } else {
        1 << (3 * (stones - 1).min(20))
    }
}

/// The K-cell windows of a board shape and, kept move by move as a search
/// plays and takes back, how many stones each player has in each.
pub struct Prior {
    geometry: Geometry,
    /// The ids of the windows through each square: `ids[ranges[sq]]`.
    ranges: Vec<(u32, u32)>,
    ids: Vec<u32>,
    /// Stones of X and of O in each window.
    counts: Vec<[u8; 2]>,
}

impl Prior {
    /// The windows of `board`'s shape, with its stones counted.
    pub fn new(board: &Board) -> Prior {
        let geo = board.geometry();
        let (rows, cols, k) = (geo.rows() as isize, geo.cols() as isize, geo.k() as isize);
        let mut through: Vec<Vec<u32>> = vec![Vec::new(); board.square_count()];
        let mut id = 0;
        // With K = 1 the four directions give the same window: keep one.
        let directions = if k == 1 { 1 } else { 4 };
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)]
            .into_iter()
            .take(directions)
        {
            for r in 0..rows {
                for c in 0..cols {
                    let (er, ec) = (r + dr * (k - 1), c + dc * (k - 1));
                    if er >= rows || !(0..cols).contains(&ec) {
                        continue;
                    }
                    for i in 0..k {
                        let cell = Cell::new((r + i * dr) as u8, (c + i * dc) as u8);
                        through[board.square(cell)].push(id);
                    }
                    id += 1;
                }
            }
        }
        let mut ranges = Vec::with_capacity(through.len());
        let mut ids = Vec::new();
        for list in &through {
            ranges.push((ids.len() as u32, (ids.len() + list.len()) as u32));
            ids.extend_from_slice(list);
        }
        let mut prior = Prior {
            geometry: geo,
            ranges,
            ids,
            counts: vec![[0; 2]; id as usize],
        };
        prior.set_position(board);
        prior
    }

    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    fn windows(&self, square: usize) -> &[u32] {
        let (a, b) = self.ranges[square];
        &self.ids[a as usize..b as usize]
    }

    /// Counts the stones of `board` (of this shape) afresh.
    pub fn set_position(&mut self, board: &Board) {
        self.counts.fill([0; 2]);
        for cell in board.moves() {
            let sq = board.square(cell);
            if let Some(p) = board.stone_on(sq) {
                self.add(sq, p);
            }
        }
    }

    /// A stone of `p` on `square`.
    #[inline]
    pub fn add(&mut self, square: usize, p: Player) {
        let (a, b) = self.ranges[square];
        for &w in &self.ids[a as usize..b as usize] {
            self.counts[w as usize][p.index()] += 1;
        }
    }

    /// The stone of `p` on `square` taken back.
    #[inline]
    pub fn remove(&mut self, square: usize, p: Player) {
        let (a, b) = self.ranges[square];
        for &w in &self.ids[a as usize..b as usize] {
            self.counts[w as usize][p.index()] -= 1;
        }
    }

    /// The raw score of `me` playing the empty `square`: each window through
    /// it that holds only one player's stones scores by the stones it would
    /// then hold — the mover's (a line it extends) and the opponent's (a
    /// line it blocks, counted as if the opponent played there).
    #[inline]
    pub fn score(&self, square: usize, me: Player) -> u64 {
        let (mine, theirs) = (me.index(), me.other().index());
        self.windows(square)
            .iter()
            .map(|&w| {
                let c = self.counts[w as usize];
                match (c[mine], c[theirs]) {
                    (m, 0) => weight(usize::from(m) + 1) + if m == 0 { weight(1) } else { 0 },
                    (0, t) => weight(usize::from(t) + 1),
                    _ => 0,
                }
            })
            .sum()
    }
}

/// Scores scaled to 0..=255 against the best, by the square root of the
/// ratio: a move that makes or stops a four stands far above one that
/// adds a stone to an empty area, and those still differ (a linear scale
/// flattens everything below the best, a logarithmic one flattens the top;
/// both played worse in self-play on 15x15).
pub fn scale(scores: &[u64]) -> impl Iterator<Item = u8> + '_ {
    let best = scores.iter().copied().max().unwrap_or(0).max(1) as f64;
    scores
        .iter()
        .map(move |&s| ((s as f64 / best).sqrt() * 255.0).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Cell, Geometry, Rule};

    #[test]
    fn extending_and_blocking_lines_score_higher() {
        let geo = Geometry::new(15, 15, 5, Rule::Free).unwrap();
        let mut b = Board::new(geo);
        for (r, c) in [(7, 5), (0, 0), (7, 6), (0, 14), (7, 7)] {
            b.try_play(Cell::new(r, c)).unwrap();
        }
        // O to move: X's three is at 7 5 .. 7 7.
        let prior = Prior::new(&b);
        let at = |r, c| prior.score(b.square(Cell::new(r, c)), Player::O);
        assert!(at(7, 8) > at(9, 9), "blocking beats nothing");
        assert!(at(7, 8) > at(8, 8));
        assert!(at(7, 4) > at(12, 12));
        // A corner sees fewer windows than the centre of an empty area.
        assert!(at(14, 14) < at(11, 11));
        let s = [0, 1, 8, 64];
        let scaled: Vec<u8> = scale(&s).collect();
        assert_eq!(scaled[3], 255);
        assert!(scaled.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn k_larger_than_the_room_scores_nothing() {
        let geo = Geometry::new(2, 7, 4, Rule::Free).unwrap();
        let mut b = Board::new(geo);
        let mut prior = Prior::new(&b);
        // Columns only have 2 cells: only rows count.
        let at = |prior: &Prior, b: &Board, r, c| prior.score(b.square(Cell::new(r, c)), Player::X);
        assert_eq!(at(&prior, &b, 0, 0), 2);
        assert_eq!(at(&prior, &b, 0, 3), 8);
        // Kept move by move, and back.
        let sq = b.square(Cell::new(0, 1));
        b.play_unchecked(sq);
        prior.add(sq, Player::X);
        // Two windows through 1 4 hold the X: 8 each, the others 2.
        assert_eq!(at(&prior, &b, 0, 3), 8 + 8 + 2 + 2);
        // For O the corner blocks that X: 8.
        assert_eq!(prior.score(b.square(Cell::new(0, 0)), Player::O), 8);
        b.undo();
        prior.remove(sq, Player::X);
        assert_eq!(at(&prior, &b, 0, 3), 8);
    }
}
