//! The move's phases at the root: the quickest win first (VCF, then VCT),
//! then iterative deepening with aspiration windows, then the check that
//! the choice leaves the other no VCT, and the search again with what time
//! the check left over.

use super::{late_move_reduction, ThreatSearch, Win, FOUR, THREE, VCF_DEPTH, WIN3};
use crate::bots::minimax::eval::{is_proven, win_at, INFINITY};
use crate::bots::minimax::{Caps, SearchReport};
use rand::rngs::SmallRng;
use rand::seq::{IndexedRandom, SliceRandom};
use std::cmp::Reverse;
use std::time::{Duration, Instant};

/// Aspiration windows: from this depth on, the root is searched in a
/// window of `ASPIRATION_DELTA` either side of the last depth's score,
/// widened (by half as much again, and the delta) each time the score
/// falls outside, and opened whole past `ASPIRATION_GIVE_UP`.
const ASPIRATION_DEPTH: usize = 4;
const ASPIRATION_DELTA: i32 = 40;
const ASPIRATION_GIVE_UP: i32 = 1000;

/// Late move reductions at the root: from the move at index `ROOT_LMR_FROM`
/// on (the last iteration's best first, then the move order), a move that makes no
/// three, four or win in three, in a root that faces no win in three, is
/// searched `ROOT_LMR_SCALE · ln depth · ln (i + 1) - 1` plies shallower
/// (at least a ply left), and again at full depth when it beats alpha. The
/// root had searched every move at full depth, and its fiftieth move cost
/// as much as its second. Self-play at 40,000 nodes a move, 1,200 games a
/// pair: 0.6 against none +59 ± 20 Elo (1.0 against none +30 ± 19, 0.35
/// and 1.5 worse than their neighbours; see `docs/minimax.md`).
const ROOT_LMR_FROM: usize = 3;
const ROOT_LMR_SCALE: f64 = 0.6;

/// Node budgets of the root's own VCF, VCT and of the check that the
/// chosen move leaves the other no VCT.
const ROOT_VCF_NODES: u64 = 100_000;
const ROOT_VCT_NODES: u64 = 400_000;
const DEFENCE_VCT_NODES: u64 = 200_000;

/// The main search keeps a tenth of the move back to check its choice;
/// what the check leaves over goes back to the search, less twice what the
/// check took (for checking a new choice) and a `RESUME_KEEP`th of the
/// move, and only when more than that is left. Checks mostly take well
/// under a ms (at 200 ms a move: median 0.2 ms, though one in five
/// takes 4.5 ms or more).
const RESUME_KEEP: u32 = 50;

/// Deepest VCT tried, in the attacker's threats.
const VCT_DEPTH: u32 = 12;

impl ThreatSearch<'_> {
    /// Chooses a move for the side to move of an ongoing game: what is
    /// forced or proved first, then iterative deepening up to the caps'
    /// depth. Without a cap the whole time to the hard deadline is used,
    /// shared between the phases; with one, the tactical searches run on
    /// node budgets only (with a node cap the phases share the nodes as
    /// they would the time), so that the same position gives the same move.
    pub fn choose(
        &mut self,
        rng: &mut SmallRng,
        caps: Caps,
        start: Instant,
    ) -> (usize, SearchReport) {
        let mut report = SearchReport::default();
        let me = self.field.to_move();
        let opp = me.other();
        let proved = |sq: usize, plies: u32, nodes: u64| {
            let report = SearchReport {
                depth: 0,
                score: Some(win_at(plies as usize)),
                solved: true,
                nodes,
            };
            (sq, report)
        };
        if let Some(&sq) = self.field.fives(me).choose(rng) {
            return proved(sq as usize, 1, 0);
        }
        let theirs = self.field.fives(opp);
        if let Some(&sq) = theirs.choose(rng) {
            if theirs.len() >= 2 || !self.allowed(sq as usize) {
                report.score = Some(-win_at(2));
                report.solved = true;
            }
            if self.allowed(sq as usize) {
                return (sq as usize, report);
            }
        }
        let wins3: Vec<u16> = self.field.wins3(me).to_vec();
        let wins3 = wins3.into_iter().filter(|&sq| self.allowed(sq as usize));
        if let Some(sq) = wins3.collect::<Vec<_>>().choose(rng) {
            return proved(*sq as usize, 3, 0);
        }
        let total = self.hard.saturating_duration_since(start);
        let capped = caps.any();
        let max_nodes = caps.nodes.unwrap_or(u64::MAX);
        // Attack first: a VCF, then a VCT, on an eighth of the time.
        let attack_until = if capped { self.hard } else { start + total / 8 };
        self.phase(attack_until, max_nodes / 8);
        // The quickest VCF: one more four at a time (failures are cached).
        self.budget = self.nodes + ROOT_VCF_NODES;
        self.exhausted = false;
        for fours in 1..=VCF_DEPTH {
            if let Some((sq, plies)) = self.vcf(fours) {
                return proved(sq, plies, self.nodes);
            }
            if self.exhausted {
                break;
            }
        }
        if let Some((sq, plies)) = self.vct_root(ROOT_VCT_NODES, attack_until, max_nodes / 8) {
            return proved(sq, plies, self.nodes);
        }
        self.budget = u64::MAX;

        // Then search, keeping a tenth of the time to check the choice.
        let check_reserve = if capped { Duration::ZERO } else { total / 10 };
        let phase_end = self.hard.checked_sub(check_reserve).unwrap_or(self.hard);
        self.phase(phase_end, max_nodes - max_nodes / 10);
        let mut scored = Vec::new();
        let restricted = self.generate(&mut scored, 0, None);
        if scored.is_empty() {
            // Every move loses to the other's open four: hold out anyway.
            self.generate_quiet(&mut scored, 0, None);
            report.score = Some(-win_at(4));
            report.solved = restricted;
        }
        // Moves that look alike are tried in an order the seed decides.
        scored.shuffle(rng);
        scored.sort_by_key(|&(_, s)| Reverse(s));
        let mut moves: Vec<usize> = scored.iter().map(|m| m.0).collect();
        if moves.len() == 1 {
            report.nodes = self.nodes;
            return (moves[0], report);
        }
        let empties = self.field.board.geometry().area() - self.field.board.ply();
        let limit = caps.depth.unwrap_or(empties).min(empties).max(1);
        let mut best: Option<(usize, i32)> = None;
        let next_depth = self.deepen(&mut moves, &mut best, 1..=limit, &mut report);
        let mut choice = best.map_or(moves[0], |b| b.0);
        if proves_win(best) {
            report.nodes = self.nodes;
            return (choice, report);
        }

        // The choice must not leave the other a VCT; if it does, the next
        // moves in the search's order until one is not refuted, while time
        // (or the node cap) lasts (the first eight under a depth cap alone,
        // on node budgets). A move whose check ran out of time is played
        // rather than one proved refuted (it used to be the refuted one).
        let check_start = Instant::now();
        self.phase(self.hard, max_nodes);
        let checked = if caps.nodes.is_none() && capped {
            8
        } else {
            moves.len()
        };
        // The choice is `moves[0]`: each iteration moved its best there.
        let mut refuted = Vec::new();
        for &m in moves.iter().take(checked) {
            match self.refuted_by_vct(m) {
                Some(true) => refuted.push(m),
                Some(false) | None => {
                    choice = m;
                    break;
                }
            }
        }

        // The time the check left over goes back to the search (among the
        // moves not refuted), less what checking a new choice may take:
        // twice what this check took. Not under caps: no clock then.
        let check_took = check_start.elapsed();
        let resume_until = self.hard.checked_sub(check_took * 2 + total / RESUME_KEEP);
        let worth = |until: Instant| until > Instant::now() + total / RESUME_KEEP;
        if let Some(until) = resume_until.filter(|&u| !capped && worth(u)) {
            moves.retain(|m| !refuted.contains(m));
            if moves.len() > 1 {
                if !refuted.is_empty() {
                    // The last best is gone: its score says nothing now.
                    best = None;
                }
                self.phase(until, u64::MAX);
                let mut deeper_report = report;
                self.deepen(
                    &mut moves,
                    &mut best,
                    next_depth..=limit,
                    &mut deeper_report,
                );
                let deeper = best.map_or(choice, |b| b.0);
                if deeper == choice {
                    report = deeper_report;
                } else {
                    // A new choice is played only when checked.
                    self.phase(self.hard, u64::MAX);
                    if proves_win(best) || self.refuted_by_vct(deeper) == Some(false) {
                        choice = deeper;
                        report = deeper_report;
                    }
                }
            }
        }
        report.nodes = self.nodes;
        (choice, report)
    }

    /// Iterative deepening over `depths` at the root, within the phase:
    /// `best` (a move of `moves` and its score) and the report follow each
    /// iteration that gave a result, and each moves its best to the front
    /// of `moves`. The first depth not searched to the end is returned.
    fn deepen(
        &mut self,
        moves: &mut [usize],
        best: &mut Option<(usize, i32)>,
        depths: std::ops::RangeInclusive<usize>,
        report: &mut SearchReport,
    ) -> usize {
        for depth in depths.clone() {
            // Around the last score, a window that widens on each fail.
            let mut delta = ASPIRATION_DELTA;
            let (mut lo, mut hi) = match *best {
                Some((_, s)) if depth >= ASPIRATION_DEPTH && !is_proven(s) => {
                    (s - delta, s + delta)
                }
                _ => (-INFINITY, INFINITY),
            };
            loop {
                let (result, complete) = self.search_root(moves, depth as i32, lo, hi);
                let Some((i, score)) = result else {
                    return depth;
                };
                if score <= lo && lo > -INFINITY {
                    // Every move fell below the window: their scores are
                    // bounds only, and the last best stays.
                    if !complete {
                        return depth;
                    }
                    lo = (score - delta).max(-INFINITY);
                } else {
                    // A move that beats the window is better than the
                    // last best even before its score is known.
                    *best = Some((moves[i], score));
                    moves[..=i].rotate_right(1);
                    report.score = Some(score);
                    if !complete {
                        return depth;
                    }
                    if score < hi || hi >= INFINITY {
                        break;
                    }
                    hi = (score + delta).min(INFINITY);
                }
                delta += delta / 2 + ASPIRATION_DELTA;
                if delta > ASPIRATION_GIVE_UP {
                    (lo, hi) = (-INFINITY, INFINITY);
                }
            }
            report.depth = depth;
            if proves_win(*best) {
                return depth + 1;
            }
        }
        depths.end() + 1
    }

    /// A VCT for the side to move, deepening one threat at a time, within
    /// `nodes` nodes, the time to `until` and the node count `nodes_until`;
    /// afterwards the phase runs to the hard deadline with no node count.
    pub(super) fn vct_root(&mut self, nodes: u64, until: Instant, nodes_until: u64) -> Option<Win> {
        if !self.phase(until, nodes_until) {
            return None;
        }
        self.budget = self.nodes + nodes;
        self.exhausted = false;
        let mut found = None;
        for depth in 1..=VCT_DEPTH {
            found = self.vct_attack(depth);
            if found.is_some() || self.exhausted {
                break;
            }
        }
        self.budget = u64::MAX;
        self.exhausted = false;
        self.phase(self.hard, u64::MAX);
        found
    }

    /// Whether the other side has a VCT after move `m`: `None` when the
    /// check ran out of time or nodes.
    fn refuted_by_vct(&mut self, m: usize) -> Option<bool> {
        if self.field.play(self.layout, m).is_some() {
            // The move ends the game: a win or a draw, nothing to refute.
            self.field.undo(self.layout, m);
            return Some(false);
        }
        self.budget = self.nodes + DEFENCE_VCT_NODES;
        self.exhausted = false;
        let mut refuted = false;
        for depth in 1..=VCT_DEPTH {
            if self.vct_attack(depth).is_some() {
                refuted = true;
                break;
            }
            if self.exhausted {
                break;
            }
        }
        let gave_up = self.exhausted && !refuted;
        self.field.undo(self.layout, m);
        self.budget = u64::MAX;
        self.exhausted = false;
        (!gave_up).then_some(refuted)
    }

    /// Searches every root move to `depth`: the best (index and score)
    /// among those searched completely, and whether all were; a result
    /// needs at least the first move (the previous best) searched.
    pub(super) fn search_root(
        &mut self,
        moves: &[usize],
        depth: i32,
        mut alpha: i32,
        beta: i32,
    ) -> (Option<(usize, i32)>, bool) {
        let mut best: Option<(usize, i32)> = None;
        let me = self.field.to_move();
        let defending = !self.field.wins3(me.other()).is_empty();
        for (i, &sq) in moves.iter().enumerate() {
            let forcing = defending || self.field.threat(sq, me).flags & (THREE | FOUR | WIN3) != 0;
            let reduction = if forcing { 0 } else { root_reduction(depth, i) };
            let v = self.value_of(sq, depth, alpha, beta, 0, i == 0, reduction);
            if self.stopped {
                return (best, false);
            }
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((i, v));
                alpha = alpha.max(v);
                if v >= beta {
                    break;
                }
            }
        }
        (best, true)
    }
}

/// How many plies shallower the root's `i`th move (from 0) is searched at
/// `depth`, when it is quiet (see `ROOT_LMR_FROM`).
fn root_reduction(depth: i32, i: usize) -> i32 {
    if depth < 3 || i < ROOT_LMR_FROM {
        return 0;
    }
    late_move_reduction(ROOT_LMR_SCALE, depth, i, 1.0)
}

/// Whether the root's best (a move and its score) is a proved win.
fn proves_win(best: Option<(usize, i32)>) -> bool {
    best.is_some_and(|(_, score)| is_proven(score) && score > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Root reductions start at the fourth move and at depth 3, grow with
    /// the move's place and the depth, and always leave a ply to search.
    #[test]
    fn root_reductions_spare_the_first_moves_and_leave_a_ply() {
        for depth in 1..40 {
            let mut last = 0;
            for i in 0..200 {
                let r = root_reduction(depth, i);
                if depth < 3 || i < ROOT_LMR_FROM {
                    assert_eq!(r, 0, "depth {depth}, move {i}");
                }
                assert!(
                    r >= last && (r == 0 || depth - 1 - r >= 1),
                    "depth {depth}, move {i}: {r}"
                );
                last = r;
            }
        }
        assert_eq!(root_reduction(8, 3), 1);
        assert_eq!(root_reduction(8, 30), 3);
    }
}
