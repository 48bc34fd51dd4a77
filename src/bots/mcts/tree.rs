//! The search tree: nodes in one arena with a cap, each node's children side
//! by side, and what is proven about each node (score bounds, as in
//! Cazenave and Saffidine's score-bounded MCTS: a win, a draw and a loss are
//! three values, so draws are proven as well as wins and losses).

use std::ops::Range;

/// Node index in the arena.
pub type Id = u32;

/// The flag bits of a node.
const EXPANDED: u8 = 1;
/// Its children are every move that matters: `hi` comes from them.
const COMPLETE: u8 = 2;

/// One position of the tree, reached by `square` from its parent.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub first_child: Id,
    pub visits: u32,
    /// Half-points scored in this node's iterations by the player who moved
    /// into it (a win 2, a draw 1, a loss 0): exact and replayable.
    pub score: u32,
    pub children: u16,
    /// The move that leads here: a square of [`crate::rules::Board`].
    pub square: u16,
    /// Once proven: plies to the end of the game along the proof.
    pub dist: u16,
    /// The game's value for the side to move here (-1 a loss, 0 a draw, 1 a
    /// win) lies in `lo..=hi`; proven once they meet.
    pub lo: i8,
    pub hi: i8,
    /// The prior of the move into it, 0 to 255 (see `prior`).
    pub prior: u8,
    flags: u8,
}

impl Node {
    fn leaf((square, prior): (u16, u8)) -> Node {
        Node {
            prior,
            first_child: 0,
            visits: 0,
            score: 0,
            children: 0,
            square,
            dist: 0,
            lo: -1,
            hi: 1,
            flags: 0,
        }
    }

    pub fn is_expanded(&self) -> bool {
        self.flags & EXPANDED != 0
    }
    pub fn is_complete(&self) -> bool {
        self.flags & COMPLETE != 0
    }
    /// The proven value for the side to move here, if any.
    pub fn proven(&self) -> Option<i8> {
        (self.lo == self.hi).then_some(self.lo)
    }
    /// The mean score of the player who moved into this node, from 0 to 1.
    pub fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.5
        } else {
            f64::from(self.score) / (2.0 * f64::from(self.visits))
        }
    }
    fn children(&self) -> Range<usize> {
        let first = self.first_child as usize;
        first..first + self.children as usize
    }
}

/// The arena. The root is `root`; nodes cut off by a move stay as garbage
/// until the arena is compacted.
pub struct Tree {
    nodes: Vec<Node>,
    cap: usize,
    root: Id,
}

impl Tree {
    /// An empty tree (a root alone) that never holds more than `cap` nodes.
    pub fn new(cap: usize) -> Tree {
        let mut t = Tree {
            nodes: Vec::new(),
            cap: cap.max(2),
            root: 0,
        };
        t.clear();
        t
    }

    /// Back to a root alone (allocations kept).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::leaf((0, 0)));
        self.root = 0;
    }

    /// A new cap; a tree over it is cleared.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap.max(2);
        if self.nodes.len() > self.cap {
            self.clear();
            self.nodes.shrink_to(self.cap);
        }
    }

    pub fn root(&self) -> Id {
        self.root
    }
    /// Nodes in the arena (garbage included) and the cap.
    pub fn fill(&self) -> (usize, usize) {
        (self.nodes.len(), self.cap)
    }
    pub fn get(&self, id: Id) -> &Node {
        &self.nodes[id as usize]
    }
    pub fn get_mut(&mut self, id: Id) -> &mut Node {
        &mut self.nodes[id as usize]
    }
    /// The ids of a node's children.
    pub fn children(&self, id: Id) -> Range<Id> {
        let r = self.get(id).children();
        r.start as Id..r.end as Id
    }
    /// The child reached by `square`, if the node has one.
    pub fn child_by_square(&self, id: Id, square: u16) -> Option<Id> {
        self.children(id).find(|&c| self.get(c).square == square)
    }

    /// Gives an unexpanded node its children, one per square with its prior,
    /// in this order; `complete` when they are all the moves that matter.
    /// False (and nothing changes) when the arena has no room for them.
    pub fn expand(&mut self, id: Id, squares: &[(u16, u8)], complete: bool) -> bool {
        debug_assert!(!self.get(id).is_expanded() && !squares.is_empty());
        if self.nodes.len() + squares.len() > self.cap || !self.make_room(squares.len()) {
            return false;
        }
        let first = self.nodes.len() as Id;
        self.nodes.extend(squares.iter().map(|&sq| Node::leaf(sq)));
        let n = self.get_mut(id);
        n.first_child = first;
        n.children = squares.len() as u16;
        n.flags |= EXPANDED | if complete { COMPLETE } else { 0 };
        true
    }

    /// Adds `extra` squares to an expanded node's children and marks them
    /// complete: the children move to a new block (their subtrees stay
    /// where they are; the old block is garbage). False when there is no
    /// room.
    pub fn widen(&mut self, id: Id, extra: &[(u16, u8)]) -> bool {
        let old = self.get(id).children();
        if self.nodes.len() + old.len() + extra.len() > self.cap
            || !self.make_room(old.len() + extra.len())
        {
            return false;
        }
        let first = self.nodes.len() as Id;
        self.nodes.extend_from_within(old);
        self.nodes.extend(extra.iter().map(|&sq| Node::leaf(sq)));
        let count = (self.nodes.len() - first as usize) as u16;
        let n = self.get_mut(id);
        n.first_child = first;
        n.children = count;
        n.flags |= COMPLETE;
        true
    }

    /// Room for `n` more nodes (the caller checked the cap): the arena
    /// doubles, but never past the cap.
    /// False when the allocator can't give room for `n` more nodes: the cap
    /// comes down to what the arena holds (a cap beyond what the machine
    /// gives then stops the tree's growth, as a full arena does, instead of
    /// aborting the process).
    fn make_room(&mut self, n: usize) -> bool {
        let len = self.nodes.len();
        if self.nodes.capacity() >= len + n {
            return true;
        }
        let want = (2 * len).clamp(len + n, self.cap.max(len + n));
        if self.nodes.try_reserve_exact(want - len).is_ok()
            || self.nodes.try_reserve_exact(n).is_ok()
        {
            return true;
        }
        self.cap = len;
        false
    }

    /// Marks a node as a finished game: `value` for the side to move there
    /// (-1: the move into it won; 0: a draw).
    pub fn set_terminal(&mut self, id: Id, value: i8) {
        let n = self.get_mut(id);
        n.lo = value;
        n.hi = value;
        n.dist = 0;
        n.flags |= EXPANDED | COMPLETE;
        n.children = 0;
    }

    /// Proves a node directly: `value` for the side to move, `dist` plies
    /// from the end.
    pub fn set_proven(&mut self, id: Id, value: i8, dist: u16) {
        let n = self.get_mut(id);
        n.lo = value;
        n.hi = value;
        n.dist = dist;
    }

    /// Recomputes an expanded node's bounds from its children (negamax over
    /// the children's bounds; `hi` only from a complete set of children);
    /// true when they changed.
    pub fn refresh(&mut self, id: Id) -> bool {
        let node = *self.get(id);
        if !node.is_expanded() || node.children == 0 {
            return false;
        }
        let kids = &self.nodes[node.children()];
        let lo = kids.iter().map(|c| -c.hi).max().unwrap_or(-1);
        let hi = if node.is_complete() {
            kids.iter().map(|c| -c.lo).max().unwrap_or(-1)
        } else {
            1
        };
        let dist = if lo == hi {
            // The quickest proven win, the slowest loss, the longest draw.
            let at = |v: i8| {
                kids.iter()
                    .filter(move |c| c.proven() == Some(-v))
                    .map(|c| c.dist)
            };
            1 + match lo {
                1 => at(1).min().unwrap_or(0),
                v => at(v).max().unwrap_or(0),
            }
        } else {
            0
        };
        let n = self.get_mut(id);
        let changed = (n.lo, n.hi) != (lo, hi);
        (n.lo, n.hi, n.dist) = (lo, hi, dist);
        changed
    }

    /// Makes `id` (a descendant of the root) the root. When the arena is
    /// over half full the new root's subtree is copied into a fresh arena
    /// and the old one freed (so the arena stays under its cap, and only
    /// a copy in progress holds more); `keep_going` is asked now and then
    /// during the copy, and when it says no the tree is cleared instead.
    pub fn reroot(&mut self, id: Id, mut keep_going: impl FnMut() -> bool) {
        self.root = id;
        if self.nodes.len() * 2 <= self.cap {
            return;
        }
        let mut to = Vec::new();
        to.push(self.nodes[id as usize]);
        // Breadth first: each copied node's children are copied together,
        // so they stay side by side.
        let mut next = 0;
        while next < to.len() {
            if next % 4096 == 4095 && !keep_going() {
                self.clear();
                return;
            }
            let kids = to[next].children();
            to[next].first_child = to.len() as Id;
            to.extend_from_slice(&self.nodes[kids]);
            next += 1;
        }
        self.nodes = to;
        self.root = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_small() {
        assert!(std::mem::size_of::<Node>() <= 24);
    }

    #[test]
    fn bounds_follow_the_children() {
        let mut t = Tree::new(100);
        let r = t.root();
        assert!(t.expand(r, &[(1, 0), (2, 0), (3, 0)], true));
        let kids: Vec<Id> = t.children(r).collect();
        assert!(!t.refresh(r), "nothing known yet");
        // One child lost for its mover's opponent... a draw there: the root
        // is at least a draw.
        t.set_terminal(kids[0], 0);
        assert!(t.refresh(r));
        assert_eq!((t.get(r).lo, t.get(r).hi), (0, 1));
        // The others won by the opponent: the root is a draw.
        t.set_proven(kids[1], 1, 1);
        t.set_proven(kids[2], 1, 3);
        t.refresh(r);
        assert_eq!(t.get(r).proven(), Some(0));
        // A child lost by its side to move: the root wins, at once.
        t.set_terminal(kids[1], -1);
        t.refresh(r);
        assert_eq!((t.get(r).proven(), t.get(r).dist), (Some(1), 1));
    }

    #[test]
    fn an_incomplete_node_proves_wins_only() {
        let mut t = Tree::new(100);
        let r = t.root();
        t.expand(r, &[(1, 0), (2, 0)], false);
        for c in t.children(r).collect::<Vec<_>>() {
            t.set_proven(c, 1, 1);
        }
        t.refresh(r);
        assert_eq!((t.get(r).lo, t.get(r).hi), (-1, 1), "other moves may hold");
        assert!(t.widen(r, &[(3, 0)]));
        assert_eq!(t.children(r).len(), 3);
        let last = t.children(r).last().unwrap();
        assert_eq!(t.get(last).square, 3);
        t.set_proven(last, 1, 5);
        t.refresh(r);
        assert_eq!((t.get(r).proven(), t.get(r).dist), (Some(-1), 6));
    }

    #[test]
    fn the_cap_holds_and_a_reroot_keeps_the_subtree() {
        let mut t = Tree::new(8);
        let r = t.root();
        assert!(t.expand(r, &[(1, 0), (2, 0), (3, 0)], true));
        let a = t.children(r).start;
        assert!(t.expand(a, &[(4, 0), (5, 0)], true));
        let b = t.children(r).start + 1;
        assert!(
            !t.expand(b, &[(6, 0), (7, 0), (8, 0)], true),
            "over the cap"
        );
        t.get_mut(a).visits = 7;
        // Six nodes of eight: the copy runs.
        t.reroot(a, || true);
        assert_eq!(t.fill().0, 3);
        let root = t.get(t.root());
        assert_eq!((root.square, root.visits), (1, 7));
        let sq: Vec<u16> = t.children(t.root()).map(|c| t.get(c).square).collect();
        assert_eq!(sq, [4, 5]);
    }
}
