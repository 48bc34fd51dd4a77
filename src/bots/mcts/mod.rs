//! The `mcts` bot: Monte Carlo tree search (UCT) over random playouts
//! ([`crate::rules::Playouts`]).
//!
//! - **UCT with a solver.** Each node keeps proven bounds on its value (a
//!   win, a draw or a loss for the side to move, as in score-bounded MCTS):
//!   a finished game, an immediate win or two threats of the opponent found
//!   when a node gets its children, and from there up the tree by negamax
//!   over the children's bounds. A child that can no longer improve on what
//!   its parent has secured is not sampled again; once the root is proven,
//!   the search stops. So small games (tic-tac-toe, 4x4) are solved and
//!   played perfectly, and a forced win is played as the quickest one found.
//! - **Forced moves at expansion.** Facing one threat a node's only child is
//!   the block; with a win on the spot, the win.
//! - **Large boards.** Beyond 64 cells a node's children are the cells near
//!   stones (next to one, or two away along a line); a node whose children
//!   are all settled gets the other cells too, so proofs stay sound.
//! - **Tree reuse.** The tree is kept between moves: the next search starts
//!   from the subtree of the moves played since (its own and the
//!   opponent's), found from the board; a new game, a new seed, or a
//!   position off the tree's line starts afresh.
//! - **Bounded memory.** Nodes live in one arena with a cap (`set memory`);
//!   as it fills, leaves need more visits before they get children, and a
//!   reused subtree is copied out of a crowded arena, leaving the rest.
//! - **Time and seeds.** It searches until `movetime` (less a safety
//!   margin), the root is proven, or `set iterations N` is reached. All its
//!   randomness comes from the seeded generator, so with a fixed
//!   `iterations` budget (and a movetime that never cuts it short) a seed
//!   replays the same choices.
//!
//! Options (`set NAME VALUE`): `iterations N` (stop once the position's
//! tree has N visits, counting those kept from earlier moves; 0: no limit),
//! `exploration C` (the UCT constant, default 0.5), `prior W` (the weight
//! of the prior; 0: plain UCT, default 2), `memory MB` (the arena,
//! default 64), `reuse on|off` (keep the tree between moves, default on).

mod prior;
mod search;
mod tree;

use super::{seeded_rng, Bot, BotKind, Limits, OptionError, SearchReport};
use crate::rules::{Board, Cell, Geometry, Playouts};
use prior::Prior;
use rand::rngs::SmallRng;
use search::{Scratch, Search};
use std::time::{Duration, Instant};
use tree::Tree;

/// Bytes per node of the arena (its size, rounded up).
const NODE_BYTES: usize = 24;
/// Default size of the arena in MiB.
pub const DEFAULT_MEMORY_MB: usize = 64;
/// Largest `memory` accepted, in MiB.
const MAX_MEMORY_MB: usize = 65_536;
/// Default UCT exploration constant.
pub const DEFAULT_EXPLORATION: f64 = 0.5;
/// Default weight of the prior.
pub const DEFAULT_PRIOR: f64 = 2.0;
/// The clock is read once per this many iterations.
const CLOCK_INTERVAL: u64 = 16;
/// Visits at most in one tree (the scores are 32-bit half-points).
const MAX_VISITS: u32 = 1 << 30;

/// What the last search did, for diagnostics, tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MctsReport {
    /// Iterations run for this move.
    pub iterations: u64,
    /// Random playouts among them (the others ended on a proven node).
    pub playouts: u64,
    /// Visits of the root before the search: what the reused tree brought.
    pub reused_visits: u32,
    /// Visits of the root after it.
    pub root_visits: u32,
    /// Nodes in the arena after it (garbage included).
    pub nodes: usize,
    /// The proven value for the side that moved (1 a win, 0 a draw, -1 a
    /// loss), if the root was proven.
    pub proven: Option<i8>,
    /// Plies to the end along the proof, the chosen move included, when
    /// proven.
    pub proven_plies: usize,
    /// The chosen move's mean score for the side that moved, 0 to 1.
    pub mean: f64,
    /// How deep the most visited line of the tree goes.
    pub depth: usize,
    /// Time spent searching (from the start of `choose`).
    pub elapsed: Duration,
}

/// Monte Carlo tree search; see the module documentation.
pub struct Mcts {
    rng: SmallRng,
    tree: Tree,
    /// The shape and the squares played from the empty board to the tree's
    /// root; `None` when the tree belongs to no position.
    root_line: Option<(Geometry, Vec<u16>)>,
    /// Playouts for the shape they were built for.
    playouts: Option<(Geometry, Playouts)>,
    /// The windows of the current shape.
    prior_windows: Option<Prior>,
    scratch: Scratch,
    exploration: f64,
    prior: f64,
    iterations: Option<u32>,
    reuse: bool,
    report: MctsReport,
}

fn cap_for(memory_mb: usize) -> usize {
    memory_mb * (1 << 20) / NODE_BYTES
}

impl Mcts {
    /// A searcher with its generator seeded and the default options.
    pub fn new(seed: u64) -> Mcts {
        Mcts {
            rng: seeded_rng(seed),
            tree: Tree::new(cap_for(DEFAULT_MEMORY_MB)),
            root_line: None,
            playouts: None,
            prior_windows: None,
            scratch: Scratch::default(),
            exploration: DEFAULT_EXPLORATION,
            prior: DEFAULT_PRIOR,
            iterations: None,
            reuse: true,
            report: MctsReport::default(),
        }
    }

    /// What the last `choose` did.
    pub fn last_report(&self) -> MctsReport {
        self.report
    }

    /// Drops the tree.
    fn forget(&mut self) {
        self.tree.clear();
        self.root_line = None;
    }

    /// Points the tree's root at `board`'s position: the subtree of the
    /// moves played since the last search when there is one, else a fresh
    /// root.
    fn find_root(&mut self, board: &Board, deadline: Instant) {
        let geo = board.geometry();
        let line: Vec<u16> = board.moves().map(|c| board.square(c) as u16).collect();
        let found = match &self.root_line {
            Some((g, old)) if self.reuse && *g == geo && line.starts_with(old) => line[old.len()..]
                .iter()
                .try_fold(self.tree.root(), |id, &sq| {
                    self.tree.child_by_square(id, sq)
                }),
            _ => None,
        };
        match found {
            // Copying a big subtree may take a while: not past a quarter of
            // the move's time (then start afresh).
            Some(id) => {
                let now = Instant::now();
                let until = now + deadline.saturating_duration_since(now) / 4;
                self.tree.reroot(id, || Instant::now() < until);
            }
            None => self.tree.clear(),
        }
        self.root_line = Some((geo, line));
    }
}

impl Bot for Mcts {
    fn kind(&self) -> BotKind {
        BotKind::Mcts
    }

    fn searches(&self) -> bool {
        true
    }

    fn choose(&mut self, board: &Board, limits: Limits) -> Cell {
        let Some(any) = board.legal_moves().next() else {
            // Not an ongoing game: nothing sensible to choose.
            return Cell::new(0, 0);
        };
        let deadline = limits.search_deadline();
        self.find_root(board, deadline);
        let geo = board.geometry();
        let (_, playouts) = match &mut self.playouts {
            Some(p) if p.0 == geo => p,
            slot => slot.insert((geo, Playouts::new(board))),
        };
        let prior = match &mut self.prior_windows {
            Some(p) if p.geometry() == geo => {
                p.set_position(board);
                p
            }
            slot => slot.insert(Prior::new(board)),
        };
        let mut search = Search {
            tree: &mut self.tree,
            board: board.clone(),
            playouts,
            rng: &mut self.rng,
            scratch: &mut self.scratch,
            exploration: self.exploration,
            prior_weight: self.prior,
            prior,
            playouts_run: 0,
        };
        let root = search.tree.root();
        if !search.tree.get(root).is_expanded() && !search.expand(root) {
            // No room even after the copy: start over in an empty arena.
            search.tree.clear();
            if !search.expand(search.tree.root()) {
                return any;
            }
        }
        let reused_visits = search.tree.get(search.tree.root()).visits;
        let budget = self.iterations.unwrap_or(MAX_VISITS).min(MAX_VISITS);
        let mut iterations = 0u64;
        loop {
            let node = search.tree.get(search.tree.root());
            // A proven root, a forced move or the budget: nothing to add.
            if node.proven().is_some() || node.children == 1 || node.visits >= budget {
                break;
            }
            if iterations.is_multiple_of(CLOCK_INTERVAL) && Instant::now() >= deadline {
                break;
            }
            search.iterate();
            iterations += 1;
        }
        let best = search.best_child();
        let depth = search.principal_depth();
        let tree = &search.tree;
        let root = tree.get(tree.root());
        let chosen = tree.get(best);
        self.report = MctsReport {
            iterations,
            playouts: search.playouts_run,
            reused_visits,
            root_visits: root.visits,
            nodes: tree.fill().0,
            proven: root.proven(),
            proven_plies: usize::from(chosen.dist) + 1,
            mean: chosen.mean(),
            depth,
            elapsed: limits.start.elapsed(),
        };
        board.cell_of(chosen.square as usize)
    }

    fn report(&self) -> Option<SearchReport> {
        let r = &self.report;
        // On minimax's scale (see `SearchReport`): a proven result by its
        // distance, else the mean as a score from -1000 to 1000.
        let score = match r.proven {
            Some(v) => i32::from(v) * (1_000_000_000 - r.proven_plies as i32),
            None => ((r.mean - 0.5) * 2000.0).round() as i32,
        };
        Some(SearchReport {
            depth: r.depth,
            score: (r.iterations > 0 || r.proven.is_some()).then_some(score),
            solved: r.proven.is_some(),
            nodes: r.iterations,
        })
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = seeded_rng(seed);
        // The tree grew from the old generator's draws: a seed must replay
        // on its own.
        self.forget();
    }

    fn new_game(&mut self) {
        self.forget();
        self.report = MctsReport::default();
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let bad = |reason: String| OptionError::BadValue {
            name: name.to_string(),
            reason,
        };
        let clipped = crate::rules::clip(value);
        match name {
            // `nodes`, as the referee's node limits name it for every bot: an
            // iteration adds one node to the tree.
            "iterations" | "nodes" => {
                let n: u32 = value
                    .parse()
                    .ok()
                    .filter(|&n| n <= MAX_VISITS)
                    .ok_or_else(|| {
                        bad(format!(
                            "'{clipped}' is not a number of iterations from 0 (no limit) to {MAX_VISITS}"
                        ))
                    })?;
                self.iterations = (n > 0).then_some(n);
            }
            "exploration" => {
                let c: f64 = value
                    .parse()
                    .ok()
                    .filter(|c: &f64| (0.0..=100.0).contains(c))
                    .ok_or_else(|| bad(format!("'{clipped}' is not a number from 0 to 100")))?;
                self.exploration = c;
            }
            "prior" => {
                let w: f64 = value
                    .parse()
                    .ok()
                    .filter(|w: &f64| (0.0..=100.0).contains(w))
                    .ok_or_else(|| bad(format!("'{clipped}' is not a number from 0 to 100")))?;
                self.prior = w;
                // The children's order came from the old setting.
                self.forget();
            }
            "memory" => {
                let mb: usize = value
                    .parse()
                    .ok()
                    .filter(|mb| (1..=MAX_MEMORY_MB).contains(mb))
                    .ok_or_else(|| {
                        bad(format!(
                            "'{clipped}' is not a number of MiB from 1 to {MAX_MEMORY_MB}"
                        ))
                    })?;
                crate::sys::memory::check_mib(mb as u64).map_err(bad)?;
                self.tree.set_cap(cap_for(mb));
                self.forget();
            }
            "reuse" => {
                self.reuse = match value {
                    "on" | "true" | "1" => true,
                    "off" | "false" | "0" => false,
                    _ => return Err(bad(format!("'{clipped}' is not on or off"))),
                };
            }
            _ => return Err(OptionError::Unknown(name.to_string())),
        }
        Ok(())
    }
}
