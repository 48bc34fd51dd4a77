//! Negamax with alpha-beta (principal variation search), the transposition
//! table, forced-move detection and iterative deepening under a deadline,
//! full width: minimax's search on boards of up to 36 cells (larger ones
//! have the threat searcher, `threat`).

use super::eval::{is_proven, to_table, win_at, INFINITY};
use super::layout::Layout;
use super::position::Position;
use super::table::{Bound, Entry, Table};
use super::{Caps, SearchReport};
use crate::rules::{Board, Outcome};
use rand::rngs::SmallRng;
use rand::seq::{IndexedRandom, SliceRandom};
use std::cmp::Reverse;
use std::time::Instant;

/// The clock is read once per this many nodes (a power of two).
const CLOCK_INTERVAL: u64 = 64;

/// Nodes for the first attempt to search a full-width board to the end.
const FIRST_SOLVE_BUDGET: u64 = 20_000;

/// How an iteration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Iteration {
    /// Its result is proven.
    Solved,
    /// Its result rests on the heuristic.
    Open,
    /// The deadline or node limit cut it short.
    Stopped,
}

/// One move's search: the position, the table and the clock.
pub struct Search<'a> {
    layout: &'a Layout,
    table: &'a mut Table,
    pos: Position,
    deadline: Instant,
    nodes: u64,
    /// Set when the deadline passed or the node limit was reached; every
    /// score computed after it is void.
    stopped: bool,
    timed_out: bool,
    node_limit: u64,
    /// The nodes the whole move may take (`set nodes`).
    max_nodes: u64,
    /// Set when a score rests on a heuristic (a horizon, a pruned move or a
    /// heuristic table entry): the iteration's result is then not exact.
    inexact: bool,
    /// Per square and player: how often the move caused a cutoff, by depth².
    history: Vec<[u32; 2]>,
    /// Move lists per ply, kept to avoid allocating in the search.
    lists: Vec<Vec<(usize, i64)>>,
}

impl<'a> Search<'a> {
    /// A search of `board` (owned: the one clone per move) that must stop at `deadline`.
    pub fn new(layout: &'a Layout, table: &'a mut Table, board: Board, deadline: Instant) -> Self {
        debug_assert!(layout.full_width, "larger boards have the threat searcher");
        let squares = board.square_count();
        let plies = board.geometry().area() + 2;
        Search {
            pos: Position::new(board, layout),
            layout,
            table,
            deadline,
            nodes: 0,
            stopped: false,
            timed_out: false,
            node_limit: u64::MAX,
            max_nodes: u64::MAX,
            inexact: false,
            history: vec![[0, 0]; squares],
            lists: vec![Vec::new(); plies],
        }
    }

    /// Chooses a move for the side to move of an ongoing game: iterative
    /// deepening up to the caps' depth and nodes, no new iteration after
    /// `soft`, and among moves proven equally good a choice by `rng`.
    pub fn choose(
        &mut self,
        rng: &mut SmallRng,
        caps: Caps,
        soft: Instant,
    ) -> (usize, SearchReport) {
        let layout = self.layout;
        let max_depth = caps.depth;
        self.max_nodes = caps.nodes.unwrap_or(u64::MAX);
        let me = self.pos.board.to_move();
        let mut report = SearchReport::default();

        // Forced moves: win now; else block the opponent's win (with two of
        // them the game is lost anyway, and one block is as good as any move).
        let wins = self.pos.all_win_squares(layout, me);
        if let Some(&sq) = wins.choose(rng) {
            report.score = Some(win_at(1));
            report.solved = true;
            return (sq, report);
        }
        let threats = self.pos.all_win_squares(layout, me.other());
        if let Some(&sq) = threats.choose(rng) {
            if threats.len() >= 2 {
                report.score = Some(-win_at(2));
                report.solved = true;
            }
            return (sq, report);
        }

        let (key, sym) = self.pos.canonical(layout.symmetries);
        let tt_move = self
            .table
            .probe(key)
            .and_then(|e| e.best_square(layout, sym, &self.pos.board));
        let mut scored = Vec::new();
        self.generate(&mut scored, tt_move);
        // Shuffle, then sort again (stably): moves that look alike are tried
        // in an order the seed decides.
        scored.shuffle(rng);
        scored.sort_by_key(|&(_, score)| Reverse(score));
        let mut moves: Vec<usize> = scored.into_iter().map(|(sq, _)| sq).collect();
        if moves.len() == 1 {
            return (moves[0], report);
        }

        let empties = self.empties();
        let limit = max_depth.unwrap_or(usize::MAX).min(empties).max(1);
        // On full-width boards, try to search to the end first, and again
        // after each iteration with a growing node budget: a search without
        // a horizon needs no heuristic, cuts off far more, and its results
        // stay in the table for later attempts and later moves.
        let try_to_solve = max_depth.is_none();
        let mut solve_budget = FIRST_SOLVE_BUDGET;
        let mut best: Option<(usize, i32)> = None;
        let mut solved_at = None;
        let mut depth = 1;
        loop {
            if try_to_solve && depth < limit {
                self.node_limit = self.nodes + solve_budget;
                let step = self.iterate(&mut moves, limit, &mut best, &mut report);
                self.node_limit = u64::MAX;
                if step == Iteration::Solved {
                    solved_at = Some(limit);
                    break;
                }
                if self.timed_out {
                    break;
                }
                self.stopped = false;
                solve_budget = (solve_budget * 2).max(self.nodes / 2);
            }
            match self.iterate(&mut moves, depth, &mut best, &mut report) {
                Iteration::Solved => {
                    solved_at = Some(depth);
                    break;
                }
                Iteration::Stopped => break,
                Iteration::Open => {}
            }
            if depth >= limit || Instant::now() >= soft {
                break;
            }
            depth += 1;
        }

        let mut choice = best.map_or(moves[0], |b| b.0);
        if let (Some(depth), Some((_, value))) = (solved_at, best) {
            report.solved = true;
            // Variety is worth some time, not all of it.
            self.deadline = self.deadline.min(soft);
            choice = self.pick_among_equals(&moves, depth, value, rng);
        }
        report.nodes = self.nodes;
        (choice, report)
    }

    /// With the value proven, collects the other root moves proven to be as
    /// good (as time allows) and lets `rng` pick one. `moves[0]` is the best.
    fn pick_among_equals(
        &mut self,
        moves: &[usize],
        depth: usize,
        value: i32,
        rng: &mut SmallRng,
    ) -> usize {
        let mut equals = vec![moves[0]];
        for &sq in &moves[1..] {
            self.inexact = false;
            let v = self.value_of(sq, depth, value - 1, value, 0, true);
            if self.stopped {
                break;
            }
            // A proven score cannot come from a heuristic; a draw must be exact.
            if v >= value && (is_proven(value) || !self.inexact) {
                equals.push(sq);
            }
        }
        *equals.choose(rng).unwrap_or(&moves[0])
    }

    /// One iteration to `depth`: keeps its best move (first in `moves`) and
    /// score, even from a partial iteration (see `search_root`).
    fn iterate(
        &mut self,
        moves: &mut [usize],
        depth: usize,
        best: &mut Option<(usize, i32)>,
        report: &mut SearchReport,
    ) -> Iteration {
        self.inexact = false;
        let (result, complete) = self.search_root(moves, depth);
        if let Some((i, score)) = result {
            *best = Some((moves[i], score));
            moves[..=i].rotate_right(1);
            report.score = Some(score);
        }
        if !complete {
            return Iteration::Stopped;
        }
        report.depth = depth;
        match result {
            Some((_, score)) if !self.inexact || is_proven(score) => Iteration::Solved,
            _ => Iteration::Open,
        }
    }

    /// Searches every root move to `depth`. Returns the best (index and
    /// score) among the moves searched completely, and whether all were;
    /// a result needs at least the first move (the previous best) searched.
    fn search_root(&mut self, moves: &[usize], depth: usize) -> (Option<(usize, i32)>, bool) {
        let mut alpha = -INFINITY;
        let mut best: Option<(usize, i32)> = None;
        for (i, &sq) in moves.iter().enumerate() {
            let v = self.value_of(sq, depth, alpha, INFINITY, 0, i == 0);
            if self.stopped {
                return (best, false);
            }
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((i, v));
                alpha = alpha.max(v);
            }
        }
        (best, true)
    }

    fn empties(&self) -> usize {
        self.pos.board.geometry().area() - self.pos.board.ply()
    }

    /// Counts a node, reads the clock now and then, and stops the search at
    /// the deadline or the node limit.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CLOCK_INTERVAL) && Instant::now() >= self.deadline {
            self.stopped = true;
            self.timed_out = true;
        }
        if self.nodes >= self.node_limit {
            self.stopped = true;
        }
        if self.nodes >= self.max_nodes {
            self.stopped = true;
            self.timed_out = true;
        }
        self.stopped
    }

    /// The value of playing `sq` for the side to move at `ply`, searched
    /// `depth - 1` plies below; a null window first unless `full_window`.
    fn value_of(
        &mut self,
        sq: usize,
        depth: usize,
        alpha: i32,
        beta: i32,
        ply: usize,
        full_window: bool,
    ) -> i32 {
        let outcome = self.pos.play(self.layout, sq);
        let v = match outcome {
            Some(Outcome::Win { .. }) => win_at(ply + 1),
            Some(Outcome::Draw) => 0,
            None if full_window => -self.negamax(depth - 1, -beta, -alpha, ply + 1),
            None => {
                let v = -self.negamax(depth - 1, -alpha - 1, -alpha, ply + 1);
                if v > alpha && v < beta && !self.stopped {
                    -self.negamax(depth - 1, -beta, -alpha, ply + 1)
                } else {
                    v
                }
            }
        };
        self.pos.undo(self.layout, sq);
        v
    }

    /// The value of the position for the side to move (fail-soft), searched
    /// `depth` plies (forced replies do not count).
    fn negamax(&mut self, depth: usize, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.tick() {
            return 0;
        }
        let layout = self.layout;
        let me = self.pos.board.to_move();
        if self.pos.can_win_now(layout, me) {
            return win_at(ply + 1);
        }
        let threats = self.pos.win_squares(layout, me.other());
        if threats.len() >= 2 {
            return -win_at(ply + 2);
        }
        if let Some(block) = threats.first() {
            // The only move that does not lose at once: no depth used.
            return self.value_of(block, depth + 1, alpha, beta, ply, true);
        }
        if self.pos.is_dead_draw() {
            return 0;
        }
        let empties = self.empties();
        // Searching as deep as the board has cells is searching to the end.
        let depth = depth.min(empties);
        if depth == 0 {
            self.inexact = true;
            return self.pos.evaluate();
        }

        let (key, sym) = self.pos.canonical(layout.symmetries);
        let mut tt_move = None;
        if let Some(entry) = self.table.probe(key) {
            tt_move = entry.best_square(layout, sym, &self.pos.board);
            if let Some(score) = entry.cutoff(depth as i32, alpha, beta, ply) {
                if (entry.depth as usize) < empties {
                    self.inexact = true;
                }
                return score;
            }
        }

        let mut moves = std::mem::take(&mut self.lists[ply]);
        self.generate(&mut moves, tt_move);
        let alpha_in = alpha;
        let mut best = -INFINITY;
        let mut best_sq = moves[0].0;
        for (i, &(sq, _)) in moves.iter().enumerate() {
            let v = self.value_of(sq, depth, alpha, beta, ply, i == 0);
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
                        break;
                    }
                }
            }
        }
        self.lists[ply] = moves;
        if self.stopped {
            return 0;
        }
        let bound = Bound::of(best, alpha_in, beta);
        self.table.store(
            key,
            Entry {
                score: to_table(best, ply),
                depth: depth.min(u8::MAX as usize) as u8,
                bound,
                best: Some(layout.canonical_index(best_sq, sym)),
            },
        );
        best
    }

    /// The candidate moves, best-looking first (the table's move before
    /// all): every legal cell (under renju, none forbidden to Black).
    fn generate(&mut self, moves: &mut Vec<(usize, i64)>, tt_move: Option<usize>) {
        let layout = self.layout;
        let board = &self.pos.board;
        moves.clear();
        let me = board.to_move().index();
        for &sq in &layout.squares {
            if !board.is_legal_square(sq) {
                continue;
            }
            let score = if Some(sq) == tt_move {
                i64::MAX
            } else {
                self.pos.move_score(layout, sq) * 4096 + self.history[sq][me].min(4095) as i64
            };
            moves.push((sq, score));
        }
        moves.sort_by_key(|&(_, score)| Reverse(score));
    }
}
