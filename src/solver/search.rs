//! The proof search on bitboards: negamax with alpha-beta over the three
//! values (loss, draw, win) for the value, and a depth-bounded AND/OR search
//! for the distance to a win.
//!
//! At every node: an immediate win ends the search; two opponent wins lose;
//! one is the only move; a player none of whose windows can still be
//! completed (every one holds a stone of the other, or needs more stones than
//! that player has moves left) cannot win, which bounds the value; a pairing
//! strategy (see `pairing`) proves the same where it exists. Only cells of
//! windows someone can still complete are candidates (under the free rule an
//! extra stone never hurts, so a cell outside them is a pass, never better
//! than a real move); threats and window counts order them.

use super::layout::Layout;
use super::pairing::pairs_block;
use super::table::{Known, Table};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Nodes a question gets from alpha-beta before df-pn takes it over (see
/// `wins`).
const ALPHA_BETA_NODES: u64 = 1 << 17;

/// Pairing strategies are looked for against at most this many live windows.
const PAIRING_WINDOWS: usize = 40;

/// A zone that holds everything: no pruning from it.
pub(super) const ALL: u64 = u64::MAX;

/// The clock and the stop flag are read once per this many nodes. A node
/// can cost tens of microseconds (a pairing search on a board with many live
/// windows), so the interval is short: reading the clock costs a few tens of
/// nanoseconds, and a bot's share of a 100 ms move must not overrun.
const CHECK_INTERVAL: u64 = 64;

/// Which search answers the value's questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prover {
    /// Alpha-beta alone.
    AlphaBeta,
    /// Df-pn alone.
    DfPn,
    /// Alpha-beta up to a node budget, then df-pn (the default).
    Both,
}

/// A position on bitboards with its symmetric hashes.
#[derive(Clone, Debug)]
pub struct Pos {
    /// Stones of X and of O.
    pub stones: [u64; 2],
    /// 0 when X is to move, 1 for O.
    pub to_move: usize,
    hashes: [u64; 8],
}

impl Pos {
    /// The empty board.
    pub fn new() -> Pos {
        Pos {
            stones: [0; 2],
            to_move: 0,
            hashes: [0; 8],
        }
    }

    /// The empty cells.
    #[inline]
    pub fn empty(&self, shape: &Layout) -> u64 {
        shape.full & !(self.stones[0] | self.stones[1])
    }

    /// Plays the side to move on an empty cell.
    #[inline]
    pub fn play(&mut self, shape: &Layout, cell: usize) {
        let p = self.to_move;
        self.stones[p] |= 1 << cell;
        for (h, k) in self.hashes.iter_mut().zip(shape.keys(cell)) {
            *h ^= k[p];
        }
        self.to_move = 1 - p;
    }

    /// Takes back the last move, on `cell`.
    #[inline]
    pub fn undo(&mut self, shape: &Layout, cell: usize) {
        let p = 1 - self.to_move;
        self.stones[p] &= !(1 << cell);
        for (h, k) in self.hashes.iter_mut().zip(shape.keys(cell)) {
            *h ^= k[p];
        }
        self.to_move = p;
    }

    /// The smallest of the symmetric hashes (the side to move follows from
    /// the stones) and the symmetry that gives it.
    #[inline]
    pub fn canonical(&self, symmetries: usize) -> (u64, usize) {
        let (hash, sym) = crate::rules::smallest_hash(&self.hashes, symmetries);
        // Zero marks nothing in the table.
        (hash | 1, sym)
    }
}

impl Default for Pos {
    fn default() -> Self {
        Pos::new()
    }
}

/// What a scan of the windows tells about a position, per player.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// Cells where the player would complete a window now.
    pub win: [u64; 2],
    /// Empty cells of the windows the player can still complete.
    pub live: [u64; 2],
    /// The fewest stones the player still needs in one such window
    /// (`u32::MAX` when there is none).
    pub need: [u32; 2],
}

/// When the search must stop, and what to tell while it runs.
pub struct SearchLimits<'a> {
    pub deadline: Option<Instant>,
    pub stop: Option<&'a AtomicBool>,
    /// Called now and then with the nodes searched so far.
    pub progress: Option<&'a mut dyn FnMut(u64)>,
}

/// A child of a node in `dfpn`: its move and what is known of it (kept
/// here, beside the buffers of them the search keeps).
#[derive(Clone, Copy, Debug)]
pub(super) struct Child {
    pub(super) cell: usize,
    /// Whether the child had no proof numbers in the table.
    pub(super) fresh: bool,
    /// From the child's mover's point of view.
    pub(super) phi: u32,
    pub(super) delta: u32,
    /// Once settled: the zone backing it, seen from this node's board.
    pub(super) zone: u64,
}

/// One search: the position, the table and the limits.
pub struct Search<'a> {
    pub shape: &'a Layout,
    pub table: &'a mut Table,
    pub pos: Pos,
    pub nodes: u64,
    /// Set once the deadline passed or the stop flag rose: every result
    /// after it is void.
    pub stopped: bool,
    /// Which search answers a question.
    pub prover: Prover,
    /// Alpha-beta's share of a question ends at this node count.
    node_limit: u64,
    /// Whether `stopped` was set by `node_limit`.
    out_of_nodes: bool,
    limits: SearchLimits<'a>,
    /// Per player and cell: how often the move caused a cutoff.
    history: [[u32; 64]; 2],
    /// Move lists per ply, kept to avoid allocating.
    pub(super) lists: Vec<Vec<(usize, i64)>>,
    /// Children per ply for `dfpn`, kept to avoid allocating.
    pub(super) children: Vec<Vec<Child>>,
    /// Their keys, per ply.
    pub(super) keys: Vec<Vec<u64>>,
    /// The best move of the root (ply 0) of the last value search.
    pub root_best: Option<usize>,
    exact_rule: bool,
    /// Whether relevance zones are used (the free rule only: under the
    /// exact rule an extra stone can hurt, by an overline).
    pub zones: bool,
    /// The zone backing the last `negamax` result (see there).
    zone: u64,
}

/// Window weights for move ordering by the stones already in a window.
const WEIGHTS: [i64; 8] = [1, 8, 64, 512, 4096, 32768, 262_144, 2_097_152];

impl<'a> Search<'a> {
    pub fn new(
        shape: &'a Layout,
        table: &'a mut Table,
        pos: Pos,
        limits: SearchLimits<'a>,
    ) -> Self {
        Search {
            shape,
            table,
            pos,
            nodes: 0,
            stopped: false,
            prover: Prover::Both,
            node_limit: u64::MAX,
            out_of_nodes: false,
            limits,
            history: [[0; 64]; 2],
            lists: vec![Vec::new(); shape.cells + 2],
            children: vec![Vec::new(); shape.cells + 2],
            keys: vec![Vec::new(); shape.cells + 2],
            root_best: None,
            exact_rule: shape.geometry.rule() == crate::rules::Rule::Exact,
            zones: shape.geometry.rule() == crate::rules::Rule::Free,
            zone: ALL,
        }
    }

    /// Counts a node and, now and then, reads the clock and the stop flag.
    #[inline]
    pub(super) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.stopped = true;
            self.out_of_nodes = true;
        }
        if self.nodes.is_multiple_of(CHECK_INTERVAL) {
            if self.limits.deadline.is_some_and(|d| Instant::now() >= d)
                || self.limits.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            {
                self.stopped = true;
            }
            if let Some(progress) = self.limits.progress.as_mut() {
                progress(self.nodes);
            }
        }
        self.stopped
    }

    /// Scans every window.
    #[inline]
    pub fn facts(&self) -> Facts {
        let st = self.pos.stones;
        let empty = self.pos.empty(self.shape);
        let mut f = Facts {
            win: [0; 2],
            live: [0; 2],
            need: [u32::MAX; 2],
        };
        for w in &self.shape.windows {
            for p in 0..2 {
                if w.cells & st[1 - p] == 0 && w.ends & st[p] == 0 {
                    let e = w.cells & empty;
                    let n = e.count_ones();
                    f.live[p] |= e;
                    f.need[p] = f.need[p].min(n);
                    if n == 1 {
                        f.win[p] |= e;
                    }
                }
            }
        }
        f
    }

    /// A pairing strategy against `p` (see `pairing`): the paired cells.
    /// Not tried while `p` has more than [`PAIRING_WINDOWS`] live windows,
    /// where it would hardly ever succeed.
    pub(super) fn pairing(&self, p: usize) -> Option<u64> {
        let st = self.pos.stones;
        let empty = self.pos.empty(self.shape);
        let mut live = [0u64; PAIRING_WINDOWS];
        let mut n = 0;
        for w in &self.shape.windows {
            if w.cells & st[1 - p] == 0 && w.ends & st[p] == 0 {
                if n == PAIRING_WINDOWS {
                    return None;
                }
                live[n] = w.cells & empty;
                n += 1;
            }
        }
        pairs_block(&live[..n])
    }

    /// Whether `p` can still complete a window with the moves left to them.
    #[inline]
    pub(super) fn can_win(&self, f: &Facts, p: usize, left: u32) -> bool {
        let moves = if self.pos.to_move == p {
            left.div_ceil(2)
        } else {
            left / 2
        };
        f.need[p] <= moves
    }

    /// The candidate moves, best-looking first (`first` before all).
    pub(super) fn generate(
        &mut self,
        list: &mut Vec<(usize, i64)>,
        f: &Facts,
        first: Option<usize>,
    ) {
        list.clear();
        let me = self.pos.to_move;
        let empty = self.pos.empty(self.shape);
        let forced = f.win[1 - me];
        let mut cand = if forced != 0 {
            forced & forced.wrapping_neg()
        } else if self.exact_rule {
            empty
        } else {
            empty & (f.live[0] | f.live[1])
        };
        if cand == 0 {
            // No one can complete a line: any move will do.
            cand = empty & empty.wrapping_neg();
        }
        let st = self.pos.stones;
        let k = self.shape.k;
        while cand != 0 {
            let c = cand.trailing_zeros() as usize;
            cand &= cand - 1;
            let score = if Some(c) == first {
                i64::MAX
            } else {
                let mut s = 0i64;
                for &w in self.shape.through(c) {
                    let w = self.shape.windows[w as usize];
                    for p in 0..2 {
                        if w.cells & st[1 - p] == 0 && w.ends & st[p] == 0 {
                            let have = (w.cells & st[p]).count_ones();
                            // A stone that makes a threat (or blocks one
                            // about to be made) weighs most.
                            let bonus = if have + 2 >= k { 4 } else { 1 };
                            s += WEIGHTS[have.min(7) as usize] * bonus;
                        }
                    }
                }
                s * 1024 + self.history[me][c].min(1023) as i64
            };
            list.push((c, score));
        }
        list.sort_unstable_by_key(|&(_, s)| std::cmp::Reverse(s));
    }

    /// The zone of a node whose moves all failed: their zones' union and,
    /// under a forced block (`threats`: the other's winning cells), the
    /// other moves lose at once, so stones outside the zone must not give
    /// the mover (`me`) a win instead.
    pub(super) fn failed_zone(&self, me: usize, threats: u64, refuted: u64) -> u64 {
        if threats != 0 {
            self.hit(me, 2, refuted | threats)
        } else {
            refuted
        }
    }

    /// Cells that hit every one of `p`'s live windows `times` times (one or
    /// two of its empty cells each), on top of `zone`.
    pub(super) fn hit(&self, p: usize, times: u32, mut zone: u64) -> u64 {
        let st = self.pos.stones;
        let empty = self.pos.empty(self.shape);
        for w in &self.shape.windows {
            if w.cells & st[1 - p] == 0 && w.ends & st[p] == 0 {
                let mut e = w.cells & empty & !zone;
                let mut have = (w.cells & empty & zone).count_ones();
                while have < times && e != 0 {
                    zone |= e & e.wrapping_neg();
                    e &= e - 1;
                    have += 1;
                }
            }
        }
        zone
    }

    /// Whether `att` wins from the current position: `None` when stopped.
    ///
    /// Alpha-beta first: with its move ordering it finds short proofs in
    /// a fraction of df-pn's nodes. Past [`ALPHA_BETA_NODES`], df-pn takes
    /// over (with what alpha-beta proved in the table): it finds the small
    /// proofs of big trees, where alpha-beta's first tries are wrong.
    pub fn wins(&mut self, att: usize) -> Option<bool> {
        let mover = self.pos.to_move == att;
        let (alpha, beta) = if mover { (0, 1) } else { (-1, 0) };
        if self.prover != Prover::DfPn {
            if self.prover == Prover::Both {
                self.node_limit = self.nodes + ALPHA_BETA_NODES;
            }
            let v = self.negamax(alpha, beta, 0);
            self.node_limit = u64::MAX;
            if !self.stopped {
                return Some(if mover { v >= 1 } else { v <= -1 });
            }
            if !std::mem::take(&mut self.out_of_nodes) {
                return None;
            }
            self.stopped = false;
        }
        self.prove(att)
    }

    /// The value of the position for the side to move (-1, 0, 1),
    /// fail-soft within `alpha`..`beta`.
    ///
    /// Relevance zones (Ko et al.'s idea, on the free rule): every result
    /// leaves in `self.zone` a set of empty cells backing the bound it
    /// proves (`value <= v` on a fail low, `value >= v` on a fail high),
    /// whatever stones the player that bound goes against (the mover on a
    /// fail low, the other on a fail high) had on the other empty cells.
    /// An extra stone never hurts its owner, so a move outside the zone of
    /// a refuted move is refuted too (as if both were played): only moves
    /// inside it are searched. This bounds the moves of whoever fails: the
    /// attacker's tries when the attacker cannot win, and the defender's
    /// replies when the attacker wins.
    ///
    /// Besides backing its bound, a zone keeps the failing player from
    /// completing a line with stones outside it (it holds an empty cell of
    /// each of their live windows), and when that player is to move, from
    /// having a win on the spot (two of those cells).
    pub fn negamax(&mut self, mut alpha: i8, mut beta: i8, ply: usize) -> i8 {
        self.zone = ALL;
        if self.tick() {
            return 0;
        }
        let me = self.pos.to_move;
        let f = self.facts();
        let zones = self.zones;
        if f.win[me] != 0 {
            if ply == 0 {
                self.root_best = Some(f.win[me].trailing_zeros() as usize);
            }
            if zones {
                let w = f.win[me] & f.win[me].wrapping_neg();
                self.zone = self.hit(1 - me, 1, w);
            }
            return 1;
        }
        let threats = f.win[1 - me];
        if threats.count_ones() >= 2 {
            if ply == 0 {
                self.root_best = Some(threats.trailing_zeros() as usize);
            }
            if zones {
                self.zone = self.hit(me, 2, threats);
            }
            return -1;
        }
        let empty = self.pos.empty(self.shape);
        let left = empty.count_ones();
        let mut hi: i8 = if self.can_win(&f, me, left) { 1 } else { 0 };
        let mut lo: i8 = if self.can_win(&f, 1 - me, left) {
            -1
        } else {
            0
        };
        // What backs hi <= 0 and lo >= 0: the cells of the windows the
        // player could still complete (stones elsewhere leave their needs
        // as they are and only take moves away).
        let static_zone = |p: usize| f.live[p];
        let mut zone_hi = if hi <= 0 { static_zone(me) } else { ALL };
        let mut zone_lo = if lo >= 0 { static_zone(1 - me) } else { ALL };
        let (key, sym) = self.pos.canonical(self.shape.symmetries);
        let mut tt_move = None;
        if let Some(k) = self.table.probe(key) {
            // The stronger bound wins; of equal ones, the smaller zone.
            if k.hi < hi || (k.hi == hi && k.zone[0].count_ones() < zone_hi.count_ones()) {
                hi = k.hi;
                zone_hi = self.map_zone(k.zone[0], sym, true);
            }
            if k.lo > lo || (k.lo == lo && k.zone[1].count_ones() < zone_lo.count_ones()) {
                lo = k.lo;
                zone_lo = self.map_zone(k.zone[1], sym, true);
            }
            tt_move = k.best.map(|b| self.shape.preimage(sym, b as usize));
        }
        // A zone is only good for this position's empty cells.
        let (zone_hi, zone_lo) = (&mut (zone_hi & empty), &mut (zone_lo & empty));
        if ply > 0 {
            if lo >= beta {
                self.zone = *zone_lo;
                return lo;
            }
            if hi <= alpha {
                self.zone = *zone_hi;
                return hi;
            }
        }
        // Pairing proofs, where they would settle the question asked:
        // against the mover only (one against the other side also holds
        // after any move, and is found there a ply later; looking for it
        // here too cost more than it saved, most of all in win proofs).
        if hi > 0 && alpha >= 0 && threats == 0 {
            if let Some(pairs) = self.pairing(me) {
                hi = 0;
                *zone_hi = pairs;
                self.store(key, sym, lo, hi, None, 0, [pairs, *zone_lo]);
                if ply > 0 {
                    self.zone = pairs;
                    return 0;
                }
            }
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        if alpha >= beta {
            // The root with its value known: look for a move that keeps it.
            alpha = beta - 1;
        }
        let (alpha_in, beta_in) = (alpha, beta);
        let nodes_in = self.nodes;

        let mut moves = std::mem::take(&mut self.lists[ply]);
        self.generate(&mut moves, &f, tt_move);
        let mut best: i8 = -2;
        let mut best_move = None;
        let mut tally = ZoneTally::NEW;
        for &(c, _) in moves.iter() {
            if tally.settled(c) {
                continue;
            }
            self.pos.play(self.shape, c);
            let v = if left == 1 {
                // A full board: no cell left to put a stone on.
                self.zone = 0;
                0
            } else {
                -self.negamax(-beta, -alpha, ply + 1)
            };
            let child_zone = self.zone;
            self.pos.undo(self.shape, c);
            if self.stopped {
                break;
            }
            if zones && v <= alpha_in {
                tally.refute(child_zone, empty);
            }
            if v > best {
                best = v;
                best_move = Some(c);
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        tally.cut_by(c, child_zone);
                        let h = &mut self.history[me][c];
                        *h = h.saturating_add(1);
                        break;
                    }
                }
            }
        }
        self.lists[ply] = moves;
        if self.stopped {
            return 0;
        }
        if best == -2 {
            // Every move was refuted through a zone.
            best = alpha_in.min(0);
        }
        if ply == 0 {
            self.root_best = best_move;
        }
        let (mut lo2, mut hi2) = (lo, hi);
        let mut new_zones = [ALL, ALL];
        if best <= alpha_in {
            hi2 = hi2.min(best);
            if zones {
                let z = self.failed_zone(me, threats, tally.refuted);
                self.zone = z;
                new_zones[0] = z;
            }
        } else if best >= beta_in {
            lo2 = lo2.max(best);
            if zones {
                self.zone = tally.cut;
                new_zones[1] = tally.cut;
            }
        } else {
            lo2 = best;
            hi2 = best;
        }
        let work = 64 - (self.nodes - nodes_in).leading_zeros();
        let canonical_move = best_move.map(|c| self.shape.image(sym, c) as u8);
        self.store(key, sym, lo2, hi2, canonical_move, work, new_zones);
        best
    }

    /// Merges what was proved into the table's entry for `key`, the zones
    /// seen through symmetry `sym` (the table's orientation).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store(
        &mut self,
        key: u64,
        sym: usize,
        lo: i8,
        hi: i8,
        best: Option<u8>,
        work: u32,
        zone: [u64; 2],
    ) {
        let mut k = self.table.probe(key).unwrap_or(Known::NOTHING);
        // A zone backs the bound stored beside it: a stronger bound comes
        // with its own zone; of equal bounds the smaller zone stays.
        if hi < k.hi || (hi == k.hi && zone[0].count_ones() < k.zone[0].count_ones()) {
            k.hi = hi;
            k.zone[0] = self.map_zone(zone[0], sym, false);
        }
        if lo > k.lo || (lo == k.lo && zone[1].count_ones() < k.zone[1].count_ones()) {
            k.lo = lo;
            k.zone[1] = self.map_zone(zone[1], sym, false);
        }
        if best.is_some() {
            k.best = best;
        }
        self.table.store(key, k, work);
    }

    /// A zone seen through symmetry `sym` (`back`: from the table's
    /// orientation to the board's).
    pub(super) fn map_zone(&self, zone: u64, sym: usize, back: bool) -> u64 {
        if zone == ALL || sym == 0 {
            return zone;
        }
        let mut out = 0u64;
        let mut z = zone;
        while z != 0 {
            let c = z.trailing_zeros() as usize;
            z &= z - 1;
            let to = if back {
                self.shape.preimage(sym, c)
            } else {
                self.shape.image(sym, c)
            };
            out |= 1 << to;
        }
        out
    }
}

/// What a node learns of its moves' zones as it searches them: the union
/// of the refuted moves' zones, the moves that lie outside one of them
/// (refuted too, without a search: a stone outside a refutation's zone
/// changes nothing), and the zone of the move that cut.
#[derive(Clone, Copy)]
struct ZoneTally {
    refuted: u64,
    outside: u64,
    cut: u64,
}

impl ZoneTally {
    const NEW: ZoneTally = ZoneTally {
        refuted: 0,
        outside: 0,
        cut: ALL,
    };

    /// Whether move `c` is refuted already, lying outside a refutation.
    #[inline]
    fn settled(&self, c: usize) -> bool {
        self.outside >> c & 1 == 1
    }

    /// A move refuted within `zone`: the `empty` cells outside it are too.
    #[inline]
    fn refute(&mut self, zone: u64, empty: u64) {
        self.refuted |= zone;
        self.outside |= empty & !zone;
    }

    /// Move `c` cut, within `zone`.
    #[inline]
    fn cut_by(&mut self, c: usize, zone: u64) {
        self.cut = zone | 1 << c;
    }
}

mod distance;
