//! The threat searcher's main search: principal variation search with
//! iterative deepening, the transposition table, killer and history move
//! ordering, and move generation that knows what is forced.

use super::field::{Field, FOUR, THREE, WIN3};
use super::shape::Lines;
use crate::bots::minimax::eval::{is_proven, to_table, win_at, INFINITY, MATE_BOUND};
use crate::bots::minimax::layout::Layout;
use crate::bots::minimax::table::{Bound, Entry, Table};
use crate::rules::{Board, Outcome};
use std::cmp::Reverse;
use std::collections::HashMap;
use std::time::Instant;

/// The clock is read once per this many nodes (a power of two).
const CLOCK_INTERVAL: u64 = 64;

/// Below the root, only this many of the best-looking quiet moves are
/// searched (forced moves and defences are never cut), and the rest too
/// when all of them lose: cutting those made false proofs of losses.
const BEAM: usize = 12;

/// The VCF tried inside the search: at nodes this many plies or more from
/// the horizon where the side to move has at least this many fours, on
/// this many nodes (also the defender's VCF inside VCT). Tried at every
/// node, with 200 nodes, it cost three plies of depth at 1 s a move and
/// lost about 130 Elo at 60 ms (96 games against main's minimax: +40 ± 71
/// against +172 ± 81 without it).
const NODE_VCF_DEPTH: i32 = 2;
const NODE_VCF_FOURS: usize = 2;
const NODE_VCF_NODES: u64 = 100;

/// Pruning below the root, measured by self-play at 40,000 nodes a move
/// (240 games each against the search without it, see `docs/minimax.md`).
/// A node at most `FUTILITY_DEPTH` plies from the horizon, off the
/// principal variation and not facing a win in three, whose evaluation
/// beats beta by `FUTILITY_MARGIN` a ply returns it (an eval of 600 is a
/// logit, so a sixth of one a ply).
const FUTILITY_DEPTH: i32 = 4;
const FUTILITY_MARGIN: i32 = 100;

/// Move count pruning: once a move that does not lose is found, moves past
/// `LMP_BASE + depth^LMP_POWER` that are neither fours nor wins in three
/// (nor, in an attack carried on, threes) are not searched (half as many
/// when the side's evaluation did not rise since its last move; a forced
/// block sets no evaluation, so across one the comparison is with an older
/// node of that ply: a heuristic, not a proof).
const LMP_BASE: f64 = 2.0;
const LMP_POWER: f64 = 1.32;

/// Late move reductions: the `i`th move (from 0) of a node `depth` plies
/// from the horizon is searched `LMR_SCALE · ln depth · ln (i + 1)` plies
/// shallower, a ply less on the principal variation or for a killer. Only
/// fours and moves that win in three are never reduced, and threes only
/// when they carry on an attack (the side's last move made a three or a
/// four): nearly every move of a middle game makes or meets a three, so
/// sparing all of those (as the first reductions did) reduced almost
/// nothing.
const LMR_SCALE: f64 = 1.5;

/// Internal iterative reduction: a node at least `IIR_DEPTH` plies from
/// the horizon with no move from the table is searched a ply shallower.
/// Without that move its order is a guess, and the node is seldom on the
/// line that matters (a position worth searching deep has been searched
/// before, and its move kept). Self-play at 40,000 nodes a move, 1,200
/// games: +23 ± 19 Elo (see `docs/minimax.md`).
const IIR_DEPTH: i32 = 4;

/// Threat sequences cost the attacker's moves only: facing a three (a win
/// in three plies to stop) with at most this many moves, the defences use
/// no depth, as the block of a four does not (fours among them do: a
/// defender's fours would chain for free). With every such node extended,
/// the search proved fewer of the wins of `docs/minimax.md`'s suite.
const FREE_DEFENCES: usize = 4;

/// Deepest VCF, in attacker's fours.
pub(super) const VCF_DEPTH: u32 = 24;

/// A proved win: the first move and the plies to the winning stone, the
/// first move counted.
pub(super) type Win = (usize, u32);

/// What a VCT search proved of a position, attacker to move: a win within
/// `won` threats (`win`: the move and the plies), none within `failed`.
#[derive(Clone, Copy, Debug)]
pub(super) struct VctKnown {
    pub(super) won: u32,
    pub(super) failed: u32,
    pub(super) win: Win,
}

/// Entries of the cache of failed VCFs (a power of two).
const VCF_CACHE: usize = 1 << 16;

/// What the search keeps from move to move: the shape classifier and what
/// the tactical searches proved (keyed by position, so valid in any later
/// position of any game under the same rule and board). Most of the other
/// side's threats read while checking one move are still there two plies
/// later, where the next check finds them again.
pub struct Memory {
    lines: Lines,
    vcf_cache: Vec<(u64, u8)>,
    vct_cache: HashMap<u64, VctKnown>,
}

/// The bytes of a VCT cache of `capacity` entries: a hash map's buckets
/// are a power of two of which it fills at most 7/8, and each holds an
/// entry and a control byte (an estimate of the standard map's layout,
/// close enough to keep a memory limit).
fn vct_cache_bytes(capacity: usize) -> usize {
    capacity.div_ceil(7) * 8 * (std::mem::size_of::<(u64, VctKnown)>() + 1)
}

impl Memory {
    /// Empty memory for the shapes of `lines`.
    pub fn new(lines: Lines) -> Memory {
        Memory {
            lines,
            vcf_cache: vec![(0, 0); VCF_CACHE],
            vct_cache: HashMap::new(),
        }
    }
}

/// One move's search: the position, the table and the clock.
pub struct ThreatSearch<'a> {
    pub(super) layout: &'a Layout,
    table: &'a mut Table,
    pub(super) field: Field,
    /// When the current phase of the search ends (at the latest `hard`).
    deadline: Instant,
    hard: Instant,
    pub(super) nodes: u64,
    /// The node count at which the current phase ends (`set nodes`).
    node_deadline: u64,
    /// Set when the phase's deadline passed: every score since is void.
    stopped: bool,
    /// The node count at which the current tactical search gives up.
    pub(super) budget: u64,
    /// Set when a tactical search gave up (its failures are not final).
    pub(super) exhausted: bool,
    /// The budget of the VCFs inside other searches.
    pub(super) vcf_nodes: u64,
    /// Scratch move lists by board ply, for the tactical searches.
    pub(super) lists: Vec<Vec<(usize, i64)>>,
    pub(super) vcf_cache: Vec<(u64, u8)>,
    pub(super) vct_cache: HashMap<u64, VctKnown>,
    /// Move lists by search ply.
    moves: Vec<Vec<(usize, i64)>>,
    /// Per square and player: how often the move caused a cutoff, by depth².
    history: Vec<[u32; 2]>,
    /// Per search ply: the last two quiet moves that caused a cutoff.
    killers: Vec<[usize; 2]>,
    /// Per search ply: the static evaluation there (for `improving`).
    evals: Vec<i32>,
    /// Per search ply: whether the move played there made a three or a four
    /// (an attack that the side's next move may carry on).
    threatened: Vec<bool>,
}

impl<'a> ThreatSearch<'a> {
    /// A search of `board` that must stop by `hard`.
    pub fn new(
        layout: &'a Layout,
        table: &'a mut Table,
        board: Board,
        memory: Memory,
        hard: Instant,
    ) -> Self {
        let squares = board.square_count();
        let plies = board.geometry().area() + 2;
        ThreatSearch {
            field: Field::new(board, layout, memory.lines),
            vcf_cache: memory.vcf_cache,
            vct_cache: memory.vct_cache,
            layout,
            table,
            deadline: hard,
            hard,
            nodes: 0,
            node_deadline: u64::MAX,
            stopped: false,
            budget: u64::MAX,
            exhausted: false,
            vcf_nodes: NODE_VCF_NODES,
            lists: vec![Vec::new(); plies],
            moves: vec![Vec::new(); plies],
            history: vec![[0, 0]; squares],
            killers: vec![[usize::MAX; 2]; plies],
            evals: vec![0; plies],
            threatened: vec![false; plies],
        }
    }

    /// Gives back what is kept between moves: the VCT cache only while it
    /// takes at most `kept_bytes` (it grows over a long match in one
    /// process; most of what it holds is of games gone by).
    pub fn into_memory(mut self, kept_bytes: usize) -> Memory {
        if vct_cache_bytes(self.vct_cache.capacity()) > kept_bytes {
            self.vct_cache = HashMap::new();
        }
        Memory {
            lines: self.field.into_lines(),
            vcf_cache: self.vcf_cache,
            vct_cache: self.vct_cache,
        }
    }

    /// Counts a node, reads the clock now and then, and ends the phase at
    /// its deadline or node count.
    #[inline]
    pub(super) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_INTERVAL) && Instant::now() >= self.deadline
            || self.nodes >= self.node_deadline
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Starts a phase that ends at `until` (never after the hard deadline)
    /// or at the node count `nodes_until`; false when there is nothing left
    /// for it.
    fn phase(&mut self, until: Instant, nodes_until: u64) -> bool {
        self.deadline = until.min(self.hard);
        self.node_deadline = nodes_until;
        self.stopped = Instant::now() >= self.deadline || self.nodes >= nodes_until;
        !self.stopped
    }

    /// The value of playing `sq` for the side to move at `ply`, searched
    /// `depth - 1 - reduction` plies below (a null window first unless
    /// `full_window`; a reduced search that beats alpha is searched again
    /// at full depth).
    #[allow(clippy::too_many_arguments)]
    fn value_of(
        &mut self,
        sq: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        full_window: bool,
        reduction: i32,
    ) -> i32 {
        let me = self.field.to_move();
        self.threatened[ply] = self.field.threat(sq, me).flags & (THREE | FOUR) != 0;
        let outcome = self.field.play(self.layout, sq);
        let v = match outcome {
            Some(Outcome::Win { .. }) => win_at(ply + 1),
            Some(Outcome::Draw) => 0,
            None if full_window => -self.negamax(depth - 1, -beta, -alpha, ply + 1),
            None => {
                let mut v = -self.negamax(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if reduction > 0 && v > alpha && !self.stopped {
                    v = -self.negamax(depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if v > alpha && v < beta && !self.stopped {
                    v = -self.negamax(depth - 1, -beta, -alpha, ply + 1);
                }
                v
            }
        };
        self.field.undo(self.layout, sq);
        v
    }

    /// The value of the position for the side to move (fail-soft).
    fn negamax(&mut self, depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.tick() {
            return 0;
        }
        let me = self.field.to_move();
        let opp = me.other();
        if !self.field.fives(me).is_empty() {
            return win_at(ply + 1);
        }
        let theirs = self.field.fives(opp);
        if theirs.len() >= 2 {
            return -win_at(ply + 2);
        }
        if let Some(&block) = theirs.first() {
            // Renju's Black cannot block on a forbidden cell: lost.
            if !self.allowed(block as usize) {
                return -win_at(ply + 2);
            }
            // The only move that does not lose at once: no depth used.
            return self.value_of(block as usize, depth + 1, alpha, beta, ply, true, 0);
        }
        if !self.field.wins3(me).is_empty() {
            return win_at(ply + 3);
        }

        let layout = self.layout;
        let (key, sym) = self.field.canonical(layout.symmetries);
        let mut tt_move = None;
        if let Some(entry) = self.table.probe(key) {
            tt_move = entry.best_square(layout, sym, &self.field.board);
            if let Some(score) = entry.cutoff(depth, alpha, beta, ply) {
                return score;
            }
        }
        if depth >= NODE_VCF_DEPTH && self.field.fours(me).len() >= NODE_VCF_FOURS {
            let budget = self.vcf_nodes;
            if let Some((sq, plies)) = self.vcf_within(budget) {
                let score = win_at(ply + plies as usize);
                self.store(key, sym, score, u8::MAX as i32, Bound::Exact, sq, ply);
                return score;
            }
            if self.stopped {
                return 0;
            }
        }
        let eval = self.field.evaluate();
        if depth <= 0 {
            return eval;
        }
        let depth = if tt_move.is_none() && depth >= IIR_DEPTH {
            depth - 1
        } else {
            depth
        };
        let pv = beta - alpha > 1;
        self.evals[ply] = eval;
        let improving = ply < 2 || eval > self.evals[ply - 2];
        if !pv
            && depth <= FUTILITY_DEPTH
            && !is_proven(beta)
            && eval - FUTILITY_MARGIN * depth >= beta
            && self.field.wins3(opp).is_empty()
        {
            return eval;
        }

        let mut moves = std::mem::take(&mut self.moves[ply]);
        let restricted = self.generate(&mut moves, ply, tt_move);
        if moves.is_empty() {
            self.moves[ply] = moves;
            return -win_at(ply + 4);
        }
        let alpha_in = alpha;
        let mut best = -INFINITY;
        let mut best_sq = moves[0].0;
        let beam = if restricted { usize::MAX } else { BEAM };
        let counted = if restricted {
            usize::MAX
        } else {
            let n = LMP_BASE + (depth as f64).powf(LMP_POWER);
            (if improving { n } else { n / 2.0 }).max(1.0) as usize
        };
        let killers = self.killers[ply];
        // An attack carried on (the side's last move made a three or a
        // four): its next threes are neither pruned nor reduced either, so
        // that a threat sequence is read as deep as the search goes.
        let attacking = ply >= 2 && self.threatened[ply - 2];
        let unpruned = if attacking {
            THREE | FOUR | WIN3
        } else {
            FOUR | WIN3
        };
        for (i, &(sq, _)) in moves.iter().enumerate() {
            // Past the beam only while every move so far loses: a node is
            // proved lost only when all its moves are (cut ones included).
            if i >= beam && !(is_proven(best) && best < 0) {
                break;
            }
            let flags = self.field.threat(sq, me).flags;
            let forcing = restricted || flags & unpruned != 0;
            // Pruned only next to a move that does not lose, for the same
            // reason: no false proofs.
            if i >= counted && best > -MATE_BOUND && !forcing {
                continue;
            }
            let reduction = if !forcing && depth >= 2 && i >= 2 + pv as usize {
                let less = pv as u8 as f64 + killers.contains(&sq) as u8 as f64;
                late_move_reduction(LMR_SCALE, depth, i, less)
            } else {
                0
            };
            let free = restricted && moves.len() <= FREE_DEFENCES && flags & FOUR == 0;
            let d = if free { depth + 1 } else { depth };
            let v = self.value_of(sq, d, alpha, beta, ply, i == 0, reduction);
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                best_sq = sq;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        let h = &mut self.history[sq][me.index()];
                        *h = h.saturating_add((depth * depth) as u32);
                        let k = &mut self.killers[ply];
                        if k[0] != sq {
                            k[1] = k[0];
                            k[0] = sq;
                        }
                        break;
                    }
                }
            }
        }
        self.moves[ply] = moves;
        if self.stopped {
            return 0;
        }
        let bound = Bound::of(best, alpha_in, beta);
        self.store(key, sym, best, depth, bound, best_sq, ply);
        best
    }

    /// Stores a result of the node at `ply` (its proven scores made
    /// relative to the node).
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        key: u64,
        sym: usize,
        score: i32,
        depth: i32,
        bound: Bound,
        sq: usize,
        ply: usize,
    ) {
        self.table.store(
            key,
            Entry {
                score: to_table(score, ply),
                depth: depth.clamp(0, u8::MAX as i32) as u8,
                bound,
                best: Some(self.layout.canonical_index(sq, sym)),
            },
        );
    }

    /// The candidate moves at `ply`, best-looking first. Facing a win in
    /// three plies (an open three made open four, a double four), only the
    /// side's own fours and the stones after which that threat is gone;
    /// then `true`, and an empty list means every move loses. Otherwise
    /// the cells near stones.
    fn generate(
        &mut self,
        moves: &mut Vec<(usize, i64)>,
        ply: usize,
        tt_move: Option<usize>,
    ) -> bool {
        let me = self.field.to_move();
        let opp = me.other();
        if self.field.wins3(opp).is_empty() {
            self.generate_quiet(moves, ply, tt_move);
            return false;
        }
        self.defences(moves);
        let mut kept = 0;
        for i in 0..moves.len() {
            let (sq, mut score) = moves[i];
            let four = self.field.threat(sq, me).flags & FOUR != 0;
            let holds = four
                || self.field.may_break_wins3(sq, opp) && {
                    self.field.play(self.layout, sq);
                    let gone = self.field.wins3(opp).is_empty();
                    self.field.undo(self.layout, sq);
                    gone
                };
            if holds {
                if Some(sq) == tt_move {
                    score = i64::MAX;
                }
                moves[kept] = (sq, score);
                kept += 1;
            }
        }
        moves.truncate(kept);
        moves.sort_by_key(|&(_, s)| Reverse(s));
        true
    }

    /// Cells near stones (the centre on an empty board), ordered by what
    /// they make for the side to move and what they take from the other
    /// (below the root, `negamax` searches only the first `BEAM` of them).
    fn generate_quiet(
        &mut self,
        moves: &mut Vec<(usize, i64)>,
        ply: usize,
        tt_move: Option<usize>,
    ) {
        let layout = self.layout;
        let board = &self.field.board;
        let me = board.to_move();
        moves.clear();
        if board.ply() == 0 {
            moves.extend(layout.centre.iter().map(|&sq| (sq, 0)));
            return;
        }
        let killers = self.killers[ply];
        for &sq in &layout.squares {
            if !self.field.is_near_stone(sq) || !board.is_legal_square(sq) {
                continue;
            }
            let score = if Some(sq) == tt_move {
                i64::MAX
            } else {
                let prior = self.field.move_prior(sq, me) as i64;
                let killer = if killers.contains(&sq) { 16 } else { 0 };
                (prior + killer) * 4096 + self.history[sq][me.index()].min(4095) as i64
            };
            moves.push((sq, score));
        }
        if moves.is_empty() {
            moves.extend(
                layout
                    .squares
                    .iter()
                    .filter(|&&sq| board.is_legal_square(sq))
                    .map(|&sq| (sq, 0)),
            );
        }
        moves.sort_by_key(|&(_, s)| Reverse(s));
    }
}

/// The late move reduction of the `i`th move (from 0) of a node `depth`
/// plies from the horizon (2 or more): `scale · ln depth · ln (i + 1) -
/// less` plies, rounded, leaving the move at least a ply. Below the root
/// and at the root, with their own scales.
pub(super) fn late_move_reduction(scale: f64, depth: i32, i: usize, less: f64) -> i32 {
    let r = scale * (depth as f64).ln() * ((i + 1) as f64).ln() - less;
    (r.round() as i32).clamp(0, depth - 2)
}

mod root;

#[cfg(test)]
mod tests;
