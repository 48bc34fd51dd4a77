//! One move's search: UCT iterations over the tree (select, expand, play
//! out, back up), proven bounds carried up, and the final choice.

use super::prior::{self, Prior};
use super::tree::{Id, Node, Tree};
use crate::rules::{random_below, Board, Cell, Playouts};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use std::cmp::Reverse;

/// Boards of up to this many cells give a node every empty cell as a child;
/// larger ones only the cells near stones (see [`Scratch::candidates`]).
pub const FULL_WIDTH_AREA: usize = 64;

/// Offsets of the cells near a stone on large boards: its eight neighbours
/// and the cells two away along its four lines.
const NEAR: [(i8, i8); 16] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (-2, -2),
    (-2, 0),
    (-2, 2),
    (0, -2),
    (0, 2),
    (2, -2),
    (2, 0),
    (2, 2),
];

/// How many of a node's open children UCT looks at after `visits`: 2 at
/// first, about 2·visits^0.4 later (13 after 100 visits, 80 after 10,000).
fn widening(visits: u32) -> usize {
    (2.0 * f64::from(visits.max(1)).powf(0.4)).ceil() as usize
}

/// Buffers a search reuses from move to move.
#[derive(Default)]
pub struct Scratch {
    /// The nodes of the current iteration, root first.
    path: Vec<Id>,
    moves: Vec<u16>,
    /// Moves with their priors, in the order they become children.
    scored: Vec<(u16, u8)>,
    raw: Vec<u64>,
    /// Per square, the generation that last marked it (see `candidates`).
    stamp: Vec<u32>,
    generation: u32,
}

impl Scratch {
    /// Fills `moves` with the moves worth a child in `board`'s position
    /// (ongoing): every empty cell on boards of up to [`FULL_WIDTH_AREA`]
    /// cells, else the empty cells next to a stone or two away along a line
    /// (the central cells on an empty board). An immediate win or a block
    /// always lies next to a stone (for K of 2 or more), so they are all
    /// there. True when the list holds every empty cell.
    fn candidates(&mut self, board: &Board) -> bool {
        self.moves.clear();
        let geo = board.geometry();
        let empties = geo.area() - board.ply();
        if geo.area() <= FULL_WIDTH_AREA {
            self.all_empty(board);
            return true;
        }
        if board.ply() == 0 {
            let mid = |n: usize| (n - 1) / 2..=n / 2;
            for r in mid(geo.rows()) {
                for c in mid(geo.cols()) {
                    self.moves
                        .push(board.square(Cell::new(r as u8, c as u8)) as u16);
                }
            }
            return self.moves.len() == empties;
        }
        if self.stamp.len() < board.square_count() {
            self.stamp = vec![0; board.square_count()];
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 1;
        }
        let (rows, cols) = (geo.rows() as i32, geo.cols() as i32);
        for stone in board.moves() {
            for (dr, dc) in NEAR {
                let (r, c) = (
                    i32::from(stone.row) + i32::from(dr),
                    i32::from(stone.col) + i32::from(dc),
                );
                if !(0..rows).contains(&r) || !(0..cols).contains(&c) {
                    continue;
                }
                let sq = board.square(Cell::new(r as u8, c as u8));
                if board.is_empty_square(sq) && self.stamp[sq] != self.generation {
                    self.stamp[sq] = self.generation;
                    self.moves.push(sq as u16);
                }
            }
        }
        self.moves.len() == empties
    }

    /// Every legal cell (under renju, for Black, none that is forbidden).
    fn all_empty(&mut self, board: &Board) {
        self.moves.clear();
        self.moves.extend(
            board
                .squares()
                .filter(|&s| board.is_legal_square(s))
                .map(|s| s as u16),
        );
    }

    /// Drops the cells forbidden to the side to move (renju's Black); every
    /// legal cell if none near the stones is left (an ongoing game has one).
    fn drop_forbidden(&mut self, board: &Board) {
        if board.geometry().rule().forbids(board.to_move()) {
            self.moves.retain(|&s| board.is_legal_square(s as usize));
            if self.moves.is_empty() {
                self.all_empty(board);
            }
        }
    }
}

/// What one search needs, borrowed from the bot.
pub struct Search<'a> {
    pub tree: &'a mut Tree,
    /// The root position; iterations play down from it and take back.
    pub board: Board,
    pub playouts: &'a mut Playouts,
    pub rng: &'a mut SmallRng,
    pub scratch: &'a mut Scratch,
    /// The UCT constant.
    pub exploration: f64,
    /// The weight of the prior (0: plain UCT, every child in a shuffled
    /// order; else children by prior, a progressive bias and widening).
    pub prior_weight: f64,
    /// The windows' stone counts, kept in step with `board`.
    pub prior: &'a mut Prior,
    /// Playouts run (iterations that ended on a proven node run none).
    pub playouts_run: u64,
}

impl Search<'_> {
    /// How often a leaf must have been visited before it gets children: once
    /// while the arena is under half full, then more and more as it fills
    /// (2 to 512), so a long search keeps deepening its main lines instead
    /// of stopping dead at the cap.
    fn expand_after(&self) -> u32 {
        let (used, cap) = self.tree.fill();
        if used * 2 < cap {
            1
        } else {
            1 << (1 + 8 * (used * 2 - cap) / cap).min(9)
        }
    }

    /// Gives a node its children and proves what can be seen at once: a win
    /// on the spot (one child, the winning move), the opponent's two
    /// threats (lost: one child, a block), one threat (one child, the
    /// block). False when the arena has no room.
    pub fn expand(&mut self, id: Id) -> bool {
        let complete = self.scratch.candidates(&self.board);
        let board = &self.board;
        let me = board.to_move();
        let moves = &self.scratch.moves;
        let pick =
            |list: &[u16], rng: &mut SmallRng| (list[random_below(rng, list.len())], u8::MAX);
        let wins: Vec<u16> = moves
            .iter()
            .copied()
            .filter(|&s| board.wins_through(s as usize, me))
            .collect();
        if !wins.is_empty() {
            let w = pick(&wins, self.rng);
            if !self.tree.expand(id, &[w], true) {
                return false;
            }
            let child = self.tree.children(id).start;
            self.tree.set_terminal(child, -1);
            self.tree.refresh(id);
            return true;
        }
        let threats: Vec<u16> = moves
            .iter()
            .copied()
            .filter(|&s| board.wins_through(s as usize, me.other()))
            .collect();
        // Under renju a threat may sit on a cell forbidden to Black, which
        // Black cannot block: lost as surely as facing two.
        self.scratch.drop_forbidden(&self.board);
        let board = &self.board;
        let blocks: Vec<u16> = threats
            .iter()
            .copied()
            .filter(|&s| board.is_legal_square(s as usize))
            .collect();
        if !threats.is_empty() {
            // Every other move loses at once: the block alone is complete.
            let lost = threats.len() >= 2 || blocks.len() < threats.len();
            let block = match blocks.is_empty() {
                false => pick(&blocks, self.rng),
                true => pick(&self.scratch.moves, self.rng),
            };
            if !self.tree.expand(id, &[block], true) {
                return false;
            }
            if lost {
                // The opponent wins on the other cell next move.
                let child = self.tree.children(id).start;
                self.tree.set_proven(child, 1, 1);
                self.tree.refresh(id);
            }
            return true;
        }
        self.score_moves();
        self.tree.expand(id, &self.scratch.scored, complete)
    }

    /// `scratch.moves` into `scratch.scored`: in a shuffled order, then
    /// (stably) by prior.
    fn score_moves(&mut self) {
        let Scratch {
            moves, scored, raw, ..
        } = &mut *self.scratch;
        scored.clear();
        if self.prior_weight > 0.0 {
            let me = self.board.to_move();
            raw.clear();
            raw.extend(moves.iter().map(|&s| self.prior.score(s as usize, me)));
            scored.extend(moves.iter().copied().zip(prior::scale(raw)));
            scored.shuffle(self.rng);
            scored.sort_by_key(|&(_, p)| Reverse(p));
        } else {
            scored.extend(moves.iter().map(|&s| (s, 0)));
            scored.shuffle(self.rng);
        }
    }

    /// Gives an incomplete node the moves it lacks (once its children have
    /// nothing more to offer). False when there is no room.
    fn widen(&mut self, id: Id) -> bool {
        self.scratch.all_empty(&self.board);
        let tree = &self.tree;
        let have: Vec<u16> = tree.children(id).map(|c| tree.get(c).square).collect();
        self.scratch.moves.retain(|s| !have.contains(s));
        self.score_moves();
        self.tree.widen(id, &self.scratch.scored) && {
            self.tree.refresh(id);
            true
        }
    }

    /// UCT among the children that could still improve on what the node
    /// has secured (a child whose best case for us is no better is settled);
    /// an unvisited child first, in the children's order. With a prior, only
    /// the first few such children (more as the node's visits grow:
    /// progressive widening), each with a bonus for its prior that fades
    /// with its visits.
    fn select(&self, id: Id) -> Option<Id> {
        let node = self.tree.get(id);
        let ln_n = f64::from(node.visits.max(1)).ln();
        let width = if self.prior_weight > 0.0 {
            widening(node.visits)
        } else {
            usize::MAX
        };
        let bias = self.prior_weight / f64::from(u8::MAX);
        let mut best = None;
        let mut best_ucb = f64::NEG_INFINITY;
        let mut considered = 0;
        for c in self.tree.children(id) {
            let child = self.tree.get(c);
            if -child.lo <= node.lo {
                continue;
            }
            considered += 1;
            if considered > width {
                break;
            }
            if child.visits == 0 {
                return Some(c);
            }
            let n = f64::from(child.visits);
            let ucb = f64::from(child.score) / (2.0 * n)
                + self.exploration * (ln_n / n).sqrt()
                + bias * f64::from(child.prior) / (n + 1.0);
            if ucb > best_ucb {
                best_ucb = ucb;
                best = Some(c);
            }
        }
        best
    }

    /// One iteration from the root (which must be expanded and unproven).
    pub fn iterate(&mut self) {
        let root = self.tree.root();
        let mut path = std::mem::take(&mut self.scratch.path);
        path.clear();
        path.push(root);
        let mut id = root;
        // The value for the side to move at the leaf, when proven; and the
        // deepest node of the path whose bounds changed in this iteration.
        let mut proven = None;
        let mut changed = None;
        loop {
            let node = *self.tree.get(id);
            if let Some(v) = node.proven() {
                proven = Some(v);
                break;
            }
            if !node.is_expanded() {
                if node.visits < self.expand_after() || !self.expand(id) {
                    break;
                }
                if let Some(v) = self.tree.get(id).proven() {
                    proven = Some(v);
                    changed = Some(path.len() - 1);
                    break;
                }
            }
            let child = match self.select(id) {
                Some(c) => c,
                // An incomplete node (a large board) whose children are
                // settled: the other moves may still hold more.
                None if !self.tree.get(id).is_complete() && self.widen(id) => {
                    changed = Some(path.len() - 1);
                    continue;
                }
                None => break,
            };
            let square = self.tree.get(child).square as usize;
            self.prior.add(square, self.board.to_move());
            let outcome = self.board.play_unchecked(square);
            path.push(child);
            id = child;
            if let Some(o) = outcome {
                let v = if o.winner().is_some() { -1 } else { 0 };
                self.tree.set_terminal(child, v);
                proven = Some(v);
                changed = Some(path.len() - 1);
                break;
            }
        }
        // Half-points for the side to move at the leaf.
        let reward = match proven {
            Some(v) => (v + 1) as u32,
            None => {
                self.playouts.set_position(&self.board);
                self.playouts_run += 1;
                match self.playouts.run(self.rng) {
                    None => 1,
                    Some(p) if p == self.board.to_move() => 2,
                    Some(_) => 0,
                }
            }
        };
        let mut r = 2 - reward;
        for &n in path.iter().rev() {
            let node = self.tree.get_mut(n);
            node.visits += 1;
            node.score += r;
            r = 2 - r;
        }
        if let Some(at) = changed {
            for &n in path[..at].iter().rev() {
                if !self.tree.refresh(n) {
                    break;
                }
            }
        }
        for _ in 1..path.len() {
            if let Some(cell) = self.board.undo() {
                self.prior
                    .remove(self.board.square(cell), self.board.to_move());
            }
        }
        self.scratch.path = path;
    }

    /// How deep the most visited line from the root goes.
    pub fn principal_depth(&self) -> usize {
        let mut id = self.tree.root();
        let mut depth = 0;
        while let Some(c) = self
            .tree
            .children(id)
            .filter(|&c| self.tree.get(c).visits > 0)
            .max_by_key(|&c| self.tree.get(c).visits)
        {
            id = c;
            depth += 1;
        }
        depth
    }

    /// The move to play: with the root proven, a child proven at its value
    /// (the quickest win, the slowest loss, or among draws the best mean,
    /// which against a fallible opponent is the likeliest to go wrong for
    /// it); else the most visited of the children that may still beat what
    /// is secured, unless a proven draw is secured and that child scores
    /// under a half. On large boards a cell away from the stones (added
    /// only for the solver's sake) is not chosen over resisting a proven
    /// loss where the fight is.
    pub fn best_child(&mut self) -> Id {
        self.scratch.candidates(&self.board);
        let near = &self.scratch.moves;
        let tree = &self.tree;
        let root = *tree.get(tree.root());
        let kids = || tree.children(tree.root()).map(|c| (c, tree.get(c)));
        let is_near = |c: &Node| near.contains(&c.square);
        // Ties (a search cut short by the clock) go to the higher prior.
        let by_mean = |a: &(Id, &Node), b: &(Id, &Node)| {
            a.1.mean()
                .total_cmp(&b.1.mean())
                .then(a.1.visits.cmp(&b.1.visits))
                .then(a.1.prior.cmp(&b.1.prior))
        };
        let slowest = |a: &(Id, &Node), b: &(Id, &Node)| {
            a.1.dist
                .cmp(&b.1.dist)
                .then(is_near(a.1).cmp(&is_near(b.1)))
        };
        let chosen = if let Some(v) = root.proven() {
            let exact = kids().filter(|(_, c)| c.proven() == Some(-v));
            match v {
                1 => exact.min_by_key(|(_, c)| c.dist),
                -1 => exact.max_by(slowest),
                _ => exact.max_by(by_mean),
            }
        } else {
            let most_visited =
                |a: &(Id, &Node), b: &(Id, &Node)| a.1.visits.cmp(&b.1.visits).then(by_mean(a, b));
            let open = || kids().filter(|(_, c)| -c.lo > root.lo);
            let lost_near = kids()
                .filter(|(_, c)| c.proven() == Some(1) && is_near(c))
                .max_by(slowest);
            let open_any = open().max_by(most_visited);
            let open = open()
                .filter(|(_, c)| is_near(c))
                .max_by(most_visited)
                .or(if lost_near.is_some() { None } else { open_any });
            let secured = kids()
                .filter(|(_, c)| root.lo > -1 && -c.hi == root.lo)
                .max_by(by_mean);
            match (open, secured) {
                (Some(o), Some(s)) if o.1.mean() <= 0.5 && root.lo == 0 => Some(s),
                (Some(o), _) => Some(o),
                (None, Some(s)) => Some(s),
                (None, None) => lost_near.or(open_any),
            }
        };
        chosen
            .or_else(|| kids().max_by(slowest))
            .map(|(c, _)| c)
            .expect("an expanded root has children")
    }
}
