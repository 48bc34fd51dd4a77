//! Threat-space search: VCF (victory by continuous fours) and VCT (victory
//! by continuous threats, threes and fours), both proofs: a line they find
//! wins against every defence.
//!
//! **VCF.** The attacker plays fours only; each leaves the defender one
//! move, the block (the defender has no five of its own, or the attacker
//! would have had to block it first). When a block makes a four for the
//! defender, the attacker must block it in turn, and goes on only if that
//! block is itself a four. The attacker wins on a five or on an open four
//! (two fives to block).
//!
//! **VCT.** The attacker also plays open threes: moves after which it has a
//! win in three plies (an open four or a double four). The defender then
//! has only two kinds of moves that do not lose at once: a four of its own,
//! or a stone after which the attacker has no such win left; every one of
//! them is searched (and a defender who has a VCF of its own, or a win in
//! three, refutes the threat outright). Fours leave one block, as in VCF.

use super::field::FOUR;
use super::search::{ThreatSearch, VctKnown, Win, VCF_DEPTH};

/// Salts for the VCF and VCT caches: which side attacks, and which search.
const SALT: [u64; 4] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0x27D4_EB2F_1656_67C5,
];

/// An attacker's node before any threat is tried.
enum AttackNode {
    /// Decided already: a five or a win in three plies to make, two fives
    /// of the defender to face, or out of time or nodes (`None`).
    Settled(Option<Win>),
    /// The defender has one five to make: the attacker must block it here.
    Block(usize),
    /// Nothing forced: threats are to be tried.
    Open,
}

impl ThreatSearch<'_> {
    /// What the attacker (the side to move) faces, in the order that
    /// decides it: time, its own five, the defender's fives, its own win in
    /// three plies.
    fn attack_node(&mut self) -> AttackNode {
        if self.tick() || self.nodes >= self.budget {
            self.exhausted = true;
            return AttackNode::Settled(None);
        }
        let a = self.field.to_move();
        if let Some(&w) = self.field.fives(a).first() {
            return AttackNode::Settled(Some((w as usize, 1)));
        }
        let theirs = self.field.fives(a.other());
        if theirs.len() >= 2 {
            return AttackNode::Settled(None);
        }
        if let Some(&b) = theirs.first() {
            // Under renju the block may be forbidden to Black: lost.
            if !self.allowed(b as usize) {
                return AttackNode::Settled(None);
            }
            return AttackNode::Block(b as usize);
        }
        let wins3 = self.field.wins3(a);
        if let Some(&w) = wins3.iter().find(|&&w| self.allowed(w as usize)) {
            return AttackNode::Settled(Some((w as usize, 3)));
        }
        AttackNode::Open
    }

    /// Whether the side to move may play on empty square `sq` (under renju,
    /// Black not on a forbidden cell). The threat tables know the cells a
    /// line-by-line reading forbids; this asks the rules (with the
    /// recursion) where a move is tried.
    #[inline]
    pub(super) fn allowed(&self, sq: usize) -> bool {
        !self
            .field
            .board
            .geometry()
            .rule()
            .forbids(self.field.to_move())
            || self.field.board.forbidden_square(sq).is_none()
    }

    /// Whether the side to move wins by continuous fours within `depth`
    /// fours (and `self.budget` nodes); the first move.
    pub(super) fn vcf(&mut self, depth: u32) -> Option<Win> {
        let a = self.field.to_move();
        match self.attack_node() {
            AttackNode::Settled(r) => return r,
            AttackNode::Block(b) => {
                if depth == 0 || self.field.threat(b, a).flags & FOUR == 0 {
                    return None;
                }
                return self.vcf_four(b, depth).map(|n| (b, n));
            }
            AttackNode::Open => {}
        }
        if depth == 0 || self.field.fours(a).is_empty() {
            return None;
        }
        let key = self.field.hash() ^ SALT[a.index()];
        if self.vcf_failed(key, depth) {
            return None;
        }
        let ply = self.field.board.ply();
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        moves.extend(self.field.fours(a).iter().map(|&sq| {
            let t = self.field.threat(sq as usize, a);
            (sq as usize, (t.rank as i64) << 32 | t.value as i64)
        }));
        moves.sort_unstable_by_key(|m| std::cmp::Reverse(m.1));
        let mut found = None;
        for &(c, _) in moves.iter() {
            if !self.allowed(c) {
                continue;
            }
            if let Some(n) = self.vcf_four(c, depth) {
                found = Some((c, n));
                break;
            }
            if self.exhausted {
                break;
            }
        }
        self.lists[ply] = moves;
        if found.is_none() && !self.exhausted {
            self.remember_vcf_failure(key, depth);
        }
        found
    }

    /// The attacker plays the four `c`, the defender blocks, the attacker
    /// goes on; the plies to the win from `c`, if it wins.
    fn vcf_four(&mut self, c: usize, depth: u32) -> Option<u32> {
        let a = self.field.to_move();
        if let Some(o) = self.field.play(self.layout, c) {
            self.field.undo(self.layout, c);
            return (o.winner() == Some(a)).then_some(1);
        }
        let fives = self.field.fives(a);
        let result = match fives.len() {
            0 => None,
            // Under renju White may force Black onto a forbidden cell.
            1 if !self.allowed(fives[0] as usize) => Some(3),
            1 => {
                let b = fives[0] as usize;
                let r = match self.field.play(self.layout, b) {
                    Some(_) => None,
                    None => self.vcf(depth - 1).map(|(_, n)| n + 2),
                };
                self.field.undo(self.layout, b);
                r
            }
            _ => Some(3),
        };
        self.field.undo(self.layout, c);
        result
    }

    fn vcf_failed(&self, key: u64, depth: u32) -> bool {
        let slot = self.vcf_cache[key as usize & (self.vcf_cache.len() - 1)];
        slot.0 == key && slot.1 as u32 >= depth
    }

    fn remember_vcf_failure(&mut self, key: u64, depth: u32) {
        let i = key as usize & (self.vcf_cache.len() - 1);
        self.vcf_cache[i] = (key, depth.min(255) as u8);
    }

    /// A VCF for the side to move within `nodes` more nodes.
    pub(super) fn vcf_within(&mut self, nodes: u64) -> Option<Win> {
        let saved = (self.budget, self.exhausted);
        self.budget = self.nodes.saturating_add(nodes).min(saved.0);
        self.exhausted = false;
        let r = self.vcf(VCF_DEPTH);
        (self.budget, self.exhausted) = saved;
        r
    }

    /// Whether the side to move (the attacker) wins by threats within
    /// `depth` more threats of its own; the first move, and the plies the
    /// proof takes at most.
    pub(super) fn vct_attack(&mut self, depth: u32) -> Option<Win> {
        match self.attack_node() {
            AttackNode::Settled(r) => return r,
            AttackNode::Block(b) => {
                // Forced to block: the threats already made must carry on.
                let r = match self.field.play(self.layout, b) {
                    Some(_) => None,
                    None => self.vct_defend(depth),
                };
                self.field.undo(self.layout, b);
                return r.map(|n| (b, n + 1));
            }
            AttackNode::Open => {}
        }
        let a = self.field.to_move();
        let d = a.other();
        if let Some(w) = self.vcf_within(self.vcf_nodes) {
            return Some(w);
        }
        if depth == 0 {
            return None;
        }
        let key = self.field.hash() ^ SALT[2 + a.index()];
        let known = self.vct_cache.get(&key).copied();
        match known {
            Some(k) if k.won <= depth => return Some(k.win),
            Some(k) if k.failed >= depth => return None,
            _ => {}
        }
        let ply = self.field.board.ply();
        let mut moves = std::mem::take(&mut self.lists[ply]);
        moves.clear();
        let fours = self.field.fours(a).iter();
        for &sq in fours.chain(self.field.threes(a)) {
            let sq = sq as usize;
            if moves.iter().any(|m| m.0 == sq) {
                continue;
            }
            let t = self.field.threat(sq, a);
            let block = self.field.threat(sq, d).value as i64;
            moves.push((sq, (t.rank as i64) << 40 | (t.value as i64 * 4 + block)));
        }
        moves.sort_unstable_by_key(|m| std::cmp::Reverse(m.1));
        let mut found = None;
        for &(c, _) in moves.iter() {
            if !self.allowed(c) {
                continue;
            }
            let r = match self.field.play(self.layout, c) {
                Some(o) => (o.winner() == Some(a)).then_some(0),
                None => self.vct_defend(depth - 1),
            };
            self.field.undo(self.layout, c);
            if let Some(n) = r {
                found = Some((c, n + 1));
                break;
            }
            if self.exhausted {
                break;
            }
        }
        self.lists[ply] = moves;
        if !self.exhausted {
            let mut k = known.unwrap_or(VctKnown {
                won: u32::MAX,
                failed: 0,
                win: (0, 0),
            });
            match found {
                Some(win) => (k.won, k.win) = (depth, win),
                None => k.failed = depth,
            }
            self.vct_cache.insert(key, k);
        }
        found
    }

    /// After a threat of the attacker (not to move): whether every defence
    /// loses to threats within `depth` more of them; if so, the plies the
    /// longest of them takes.
    fn vct_defend(&mut self, depth: u32) -> Option<u32> {
        if self.tick() || self.nodes >= self.budget {
            self.exhausted = true;
            return None;
        }
        let d = self.field.to_move();
        let a = d.other();
        if !self.field.fives(d).is_empty() {
            return None;
        }
        let fives = self.field.fives(a);
        if fives.len() >= 2 {
            return Some(2);
        }
        if let Some(&b) = fives.first() {
            let b = b as usize;
            if !self.allowed(b) {
                // Renju's Black cannot block on a forbidden cell.
                return Some(2);
            }
            let r = match self.field.play(self.layout, b) {
                Some(_) => None,
                None => self.vct_attack(depth).map(|w| w.1 + 1),
            };
            self.field.undo(self.layout, b);
            return r;
        }
        if !self.field.wins3(d).is_empty() || self.field.wins3(a).is_empty() {
            // The defender wins first, or nothing is threatened.
            return None;
        }
        if self.vcf_within(self.vcf_nodes).is_some() {
            return None;
        }
        let ply = self.field.board.ply();
        let mut moves = std::mem::take(&mut self.lists[ply]);
        self.defences(&mut moves);
        // With no defence, the threat wins in three more plies.
        let mut longest = Some(4);
        for &(c, _) in moves.iter() {
            if !self.allowed(c) {
                continue;
            }
            let four = self.field.threat(c, d).flags & FOUR != 0;
            let r = if !four && !self.field.may_break_wins3(c, a) {
                Some(3)
            } else {
                let r = match self.field.play(self.layout, c) {
                    Some(_) => None,
                    None if !four && !self.field.wins3(a).is_empty() => Some(3),
                    None => self.vct_attack(depth).map(|w| w.1),
                };
                self.field.undo(self.layout, c);
                r
            };
            match r {
                Some(n) if !self.exhausted => longest = longest.max(Some(n + 1)),
                _ => {
                    longest = None;
                    break;
                }
            }
        }
        self.lists[ply] = moves;
        longest
    }

    /// The side to move faces a win in three plies (the other's open four
    /// or double four to make): the moves that might not lose, best first.
    /// Its own fours, and the cells where the other would make a four (a
    /// stone anywhere else leaves each of those wins as it is); the caller
    /// drops those after which the threat still stands.
    pub(super) fn defences(&self, moves: &mut Vec<(usize, i64)>) {
        let me = self.field.to_move();
        let other = me.other();
        moves.clear();
        for &sq in self.field.fours(me).iter().chain(self.field.fours(other)) {
            let sq = sq as usize;
            if moves.iter().any(|m| m.0 == sq) {
                continue;
            }
            let mine = self.field.threat(sq, me);
            let theirs = self.field.threat(sq, other);
            let score = (theirs.rank as i64) << 40 | (mine.rank as i64) << 32;
            moves.push((sq, score | (theirs.value + mine.value) as i64));
        }
        moves.sort_unstable_by_key(|m| std::cmp::Reverse(m.1));
    }
}
