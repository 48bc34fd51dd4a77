//! The search's position: the board plus what the search keeps up to date
//! move by move — stones per window, the evaluation, the windows one stone
//! from a win and the symmetric hashes.

use super::eval::{window_weight, EVAL_CAP};
use super::layout::Layout;
use crate::rules::{Board, Outcome, Player};

/// A set of window ids with O(1) insert, remove and iteration.
#[derive(Clone)]
struct WindowSet {
    members: Vec<u32>,
    /// Position of each window in `members`, or `ABSENT`.
    slot: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl WindowSet {
    fn new(windows: usize) -> WindowSet {
        WindowSet {
            members: Vec::new(),
            slot: vec![ABSENT; windows],
        }
    }
    #[inline]
    fn insert(&mut self, w: u32) {
        self.slot[w as usize] = self.members.len() as u32;
        self.members.push(w);
    }
    #[inline]
    fn remove(&mut self, w: u32) {
        let at = self.slot[w as usize] as usize;
        self.slot[w as usize] = ABSENT;
        let last = self.members.pop().expect("removing a member");
        if last != w {
            self.members[at] = last;
            self.slot[last as usize] = at as u32;
        }
    }
}

/// Squares where a player would win at once; at most two are ever needed.
#[derive(Clone, Copy, Debug, Default)]
pub struct WinSquares {
    squares: [usize; 2],
    len: usize,
}

impl WinSquares {
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn first(&self) -> Option<usize> {
        (self.len > 0).then_some(self.squares[0])
    }
    fn add(&mut self, sq: usize) {
        if self.squares[..self.len].contains(&sq) || self.len == 2 {
            return;
        }
        self.squares[self.len] = sq;
        self.len += 1;
    }
}

/// The board with incrementally kept search facts.
pub struct Position {
    pub board: Board,
    k: u8,
    /// Whether a full window may not win (an exact-rule overline, renju's
    /// Black, caro's row closed at both ends): such wins are asked of the
    /// board.
    verify_wins: bool,
    /// Stones of X and of O in each window.
    counts: Vec<[u8; 2]>,
    /// Per player: the summed weights of the windows free of the other's stones.
    sums: [i64; 2],
    /// Per player and number of their stones: the windows free of the other's
    /// stones (lines the player could still complete).
    open: [Vec<u32>; 2],
    /// Per player: the windows holding K-1 of their stones and none of the other's.
    threats: [WindowSet; 2],
    /// The position's Zobrist hash under each symmetry.
    hashes: [u64; 8],
}

impl Position {
    /// Takes over a board (the one clone per move) and computes the facts.
    pub fn new(board: Board, layout: &Layout) -> Position {
        let g = board.geometry();
        let windows = layout.windows.len();
        let mut pos = Position {
            k: g.k() as u8,
            // Renju's Black and caro-exact: only exactly K wins; caro: not
            // when closed at both ends.
            verify_wins: !g.rule().overline_wins(Player::X) || g.rule().blocked_ends_count(),
            counts: vec![[0, 0]; windows],
            sums: [0, 0],
            open: [vec![0; g.k() + 1], vec![0; g.k() + 1]],
            threats: [WindowSet::new(windows), WindowSet::new(windows)],
            hashes: [0; 8],
            board,
        };
        for w in 0..windows as u32 {
            pos.enter(w);
        }
        let stones: Vec<(usize, Player)> = layout
            .squares
            .iter()
            .filter_map(|&sq| pos.board.stone_on(sq).map(|p| (sq, p)))
            .collect();
        for (sq, p) in stones {
            pos.add_stone(layout, sq, p, 1);
        }
        pos
    }

    /// Counts window `w` into the sums, open counts and threat sets.
    #[inline]
    fn enter(&mut self, w: u32) {
        let [x, o] = self.counts[w as usize];
        if o == 0 {
            self.sums[0] += window_weight(x);
            self.open[0][x as usize] += 1;
            if x + 1 == self.k {
                self.threats[0].insert(w);
            }
        }
        if x == 0 {
            self.sums[1] += window_weight(o);
            self.open[1][o as usize] += 1;
            if o + 1 == self.k {
                self.threats[1].insert(w);
            }
        }
    }

    /// Undoes [`Position::enter`] for window `w` with its current counts.
    #[inline]
    fn leave(&mut self, w: u32) {
        let [x, o] = self.counts[w as usize];
        if o == 0 {
            self.sums[0] -= window_weight(x);
            self.open[0][x as usize] -= 1;
            if x + 1 == self.k {
                self.threats[0].remove(w);
            }
        }
        if x == 0 {
            self.sums[1] -= window_weight(o);
            self.open[1][o as usize] -= 1;
            if o + 1 == self.k {
                self.threats[1].remove(w);
            }
        }
    }

    /// Adds (`delta` = 1) or removes (`delta` = -1, as u8 wrapping) a stone
    /// in the kept facts; the board itself is changed by the caller.
    #[inline]
    fn add_stone(&mut self, layout: &Layout, sq: usize, p: Player, delta: i8) {
        let i = p.index();
        for &w in layout.windows_through(sq) {
            self.leave(w);
            let c = &mut self.counts[w as usize][i];
            *c = c.wrapping_add_signed(delta);
            self.enter(w);
        }
        for (h, keys) in self.hashes.iter_mut().zip(layout.keys(sq)) {
            *h ^= keys[i];
        }
    }

    /// Plays the side to move on an empty square; returns the outcome if the
    /// game ended.
    #[inline]
    pub fn play(&mut self, layout: &Layout, sq: usize) -> Option<Outcome> {
        let p = self.board.to_move();
        self.add_stone(layout, sq, p, 1);
        self.board.play_unchecked(sq)
    }

    /// Takes back the move on `sq`, which must be the last one played.
    #[inline]
    pub fn undo(&mut self, layout: &Layout, sq: usize) {
        let p = self.board.to_move().other();
        self.board.undo();
        self.add_stone(layout, sq, p, -1);
    }

    /// Squares where `p` would win at once (up to two distinct ones).
    pub fn win_squares(&self, layout: &Layout, p: Player) -> WinSquares {
        let mut found = WinSquares::default();
        for &w in &self.threats[p.index()].members {
            let window = layout.windows[w as usize];
            let empty = (0..self.k as usize)
                .map(|i| window.start + i * window.step)
                .find(|&sq| self.board.is_empty_square(sq));
            if let Some(sq) = empty {
                // An exact-rule overline does not win, nor caro's closed row.
                if !self.verify_wins || self.board.wins_through(sq, p) {
                    found.add(sq);
                    if found.len() == 2 {
                        break;
                    }
                }
            }
        }
        found
    }

    /// Every square where `p` would win at once (for the root's choice).
    pub fn all_win_squares(&self, layout: &Layout, p: Player) -> Vec<usize> {
        layout
            .squares
            .iter()
            .copied()
            .filter(|&sq| self.board.is_empty_square(sq) && self.board.wins_through(sq, p))
            .collect()
    }

    /// Whether `p` has a move that wins at once.
    #[inline]
    pub fn can_win_now(&self, layout: &Layout, p: Player) -> bool {
        let threats = &self.threats[p.index()].members;
        if self.verify_wins {
            !threats.is_empty() && !self.win_squares(layout, p).is_empty()
        } else {
            !threats.is_empty()
        }
    }

    /// Whether `p` can still complete a line with the moves left to them:
    /// some window free of the other's stones lacks no more stones than that.
    #[inline]
    fn can_still_win(&self, p: Player) -> bool {
        let empties = self.board.geometry().area() - self.board.ply();
        let moves_left = if self.board.to_move() == p {
            empties.div_ceil(2)
        } else {
            empties / 2
        };
        let open = &self.open[p.index()];
        match open.iter().rposition(|&n| n > 0) {
            Some(most) => self.k as usize - most <= moves_left,
            None => false,
        }
    }

    /// Whether neither player can complete a line any more: a draw.
    #[inline]
    pub fn is_dead_draw(&self) -> bool {
        !self.can_still_win(Player::X) && !self.can_still_win(Player::O)
    }

    /// The heuristic value for the side to move: its open windows' weights
    /// minus the opponent's.
    #[inline]
    pub fn evaluate(&self) -> i32 {
        let me = self.board.to_move().index();
        let diff = self.sums[me] - self.sums[1 - me];
        diff.clamp(-EVAL_CAP as i64, EVAL_CAP as i64) as i32
    }

    /// How promising a move looks before searching it: what it adds to the
    /// mover's windows plus what the opponent would add there.
    #[inline]
    pub fn move_score(&self, layout: &Layout, sq: usize) -> i64 {
        let me = self.board.to_move().index();
        let mut score = 0;
        for &w in layout.windows_through(sq) {
            let c = self.counts[w as usize];
            let (mine, theirs) = (c[me], c[1 - me]);
            if theirs == 0 {
                score += window_weight(mine + 1) - window_weight(mine);
            }
            if mine == 0 {
                score += window_weight(theirs + 1) - window_weight(theirs);
            }
        }
        score
    }

    /// The smallest of the symmetric hashes (the same for all symmetric
    /// positions) and the symmetry that gives it.
    #[inline]
    pub fn canonical(&self, symmetries: usize) -> (u64, usize) {
        crate::rules::smallest_hash(&self.hashes, symmetries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Cell, Geometry, Rule};

    fn board(rows: u32, cols: u32, k: u32, rule: Rule, moves: &[(u8, u8)]) -> Board {
        let mut b = Board::new(Geometry::new(rows, cols, k, rule).unwrap());
        for &(r, c) in moves {
            b.try_play(Cell::new(r, c)).unwrap();
        }
        b
    }

    #[test]
    fn incremental_facts_match_a_fresh_computation() {
        let b = board(5, 5, 4, Rule::Free, &[]);
        let layout = Layout::new(&b);
        let mut pos = Position::new(b.clone(), &layout);
        let moves = [(2, 2), (1, 1), (2, 3), (0, 0), (2, 1), (3, 3)];
        let mut played = Vec::new();
        for (r, c) in moves {
            let sq = pos.board.square(Cell::new(r, c));
            pos.play(&layout, sq);
            played.push(sq);
            let fresh = Position::new(pos.board.clone(), &layout);
            assert_eq!(pos.sums, fresh.sums);
            assert_eq!(pos.open, fresh.open);
            assert_eq!(pos.hashes, fresh.hashes);
            assert_eq!(pos.counts, fresh.counts);
        }
        for sq in played.into_iter().rev() {
            pos.undo(&layout, sq);
        }
        let empty = Position::new(b, &layout);
        assert_eq!(
            (pos.sums, pos.open, pos.hashes),
            (empty.sums, empty.open, empty.hashes)
        );
        assert!(pos.threats.iter().all(|t| t.members.is_empty()));
    }

    #[test]
    fn finds_win_squares_and_respects_the_exact_rule() {
        // 2x6 k4, X on the first three cells of the top row: X wins at (0, 3) only.
        let moves = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 4)];
        let b = board(2, 6, 4, Rule::Free, &moves);
        let layout = Layout::new(&b);
        let pos = Position::new(b, &layout);
        assert_eq!(pos.win_squares(&layout, Player::X).len(), 1);
        assert!(pos.can_win_now(&layout, Player::X));
        // With another X at (0, 4), (0, 3) makes five: no win under the exact rule.
        let moves = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 5), (0, 4)];
        let b = board(2, 6, 4, Rule::Exact, &moves);
        let layout = Layout::new(&b);
        let pos = Position::new(b.clone(), &layout);
        assert!(!pos.can_win_now(&layout, Player::X));
        let b = board(2, 6, 4, Rule::Free, &moves);
        let pos = Position::new(b, &layout);
        assert!(pos.can_win_now(&layout, Player::X));
        // Caro: O X X X . O, X's four at (0, 4) would be closed at both ends.
        let moves = [(0, 1), (0, 0), (0, 2), (0, 5), (0, 3), (1, 5)];
        for (rule, wins) in [
            (Rule::Free, true),
            (Rule::Caro, false),
            (Rule::CaroExact, false),
        ] {
            let b = board(2, 6, 4, rule, &moves);
            let layout = Layout::new(&b);
            let pos = Position::new(b, &layout);
            assert_eq!(pos.can_win_now(&layout, Player::X), wins, "{rule}");
            assert_eq!(
                pos.win_squares(&layout, Player::X).is_empty(),
                !wins,
                "{rule}"
            );
        }
    }

    #[test]
    fn symmetric_positions_share_the_canonical_hash() {
        let a = board(4, 4, 4, Rule::Free, &[(0, 1), (2, 2)]);
        let b = board(4, 4, 4, Rule::Free, &[(1, 0), (2, 2)]); // transposed
        let c = board(4, 4, 4, Rule::Free, &[(0, 2), (2, 1)]); // mirrored
        let d = board(4, 4, 4, Rule::Free, &[(0, 1), (2, 1)]);
        let layout = Layout::new(&a);
        let key = |b: Board| Position::new(b, &layout).canonical(layout.symmetries).0;
        let ka = key(a);
        assert_eq!(ka, key(b));
        assert_eq!(ka, key(c));
        assert_ne!(ka, key(d));
    }
}
