//! The minimax bot: negamax with alpha-beta pruning and a transposition
//! table, kinrow's strongest searcher on every board.
//!
//! - **Exact where it can be.** Boards of up to 36 cells are searched full
//!   width; iterative deepening stops as soon as an iteration's result rests
//!   on no heuristic, so small games (tic-tac-toe, 4x4 k4, …) are solved and
//!   played perfectly. Wins score by distance: the quickest win and the
//!   slowest loss are preferred.
//! - **Fast where it matters.** Zobrist hashes under all symmetries of the
//!   board (8 on squares, 4 on rectangles) are kept move by move, and the
//!   table is keyed by the smallest, so symmetric positions are searched once.
//!   An immediate win ends the search; an opponent's immediate win leaves one
//!   candidate (the block, searched without using depth); two of them lose.
//!   A position where neither player can complete a line is a draw.
//! - **Threats on large boards.** Beyond 36 cells the threat searcher
//!   plays (`threat`): line shapes kept move by move, forced moves and
//!   defences generated exactly, VCF and VCT, principal variation search;
//!   it uses the whole `movetime` and always answers before it runs out
//!   (see `docs/minimax.md`).
//! - **Solved where the solver finishes.** On boards of up to 64 cells the
//!   exact [`crate::solver`] gets the first half of the move's time (a
//!   quarter beyond 36 cells): when it
//!   proves the position, the bot never leaves the proved value (the
//!   quickest win, the slowest loss) and, among the moves that keep it,
//!   prefers the one that gives a fallible opponent the most chances to go
//!   wrong (see `punish`). When it does not finish, the search above plays.
//! - **Seeded.** Among root moves proven equally good, and among moves that
//!   look alike, the seeded generator decides.
//!
//! Options (`set NAME VALUE`): `depth N` caps the search at N plies, `nodes
//! N` at N nodes a move (0: no cap). Either cap asks for the search alone,
//! without the solver, so that a seed replays a game whatever the clock.
//! `hash MIB` sizes the transposition table (16 MiB unless set; up to 1024;
//! the largest power of two that fits), and the threat caches kept between
//! moves may take as much again.

mod eval;
mod layout;
mod position;
mod punish;
mod search;
mod table;
mod threat;

use super::{seeded_rng, Bot, BotKind, Limits, OptionError};
use crate::rules::{Board, Cell, Geometry};
use crate::solver::{Budget, Solver, Value};
use layout::{Layout, FULL_WIDTH_AREA};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use search::Search;
use std::time::Duration;
use std::time::Instant;
use table::Table;
pub use threat::EvalSampler;
use threat::ThreatSearch;

/// The transposition table's size unless `set hash` says otherwise, in MiB.
pub const DEFAULT_HASH_MIB: u64 = table::mib_of_bits(table::DEFAULT_BITS);

/// The MiB of the table `set hash MIB` makes: the largest power of two
/// within `mib`.
pub fn hash_table_mib(mib: u64) -> u64 {
    table::mib_of_bits(table::bits_for_mib(mib))
}

/// The `hash` (MiB, 1 at least) under which the table and the threat
/// caches kept between moves, which may take as much again, fill at most
/// half of a memory limit of `bytes`: the other half is the rest of the
/// bot's.
pub fn hash_mib_within(bytes: u64) -> u64 {
    ((bytes / 4) >> 20).max(1)
}

/// Time kept back from `movetime` for setting up and answering: a tenth,
/// at least 2 ms (but no more than half) and at most 50 ms.
pub(super) fn safety_margin(movetime: Duration) -> Duration {
    (movetime / 10)
        .max((movetime / 2).min(Duration::from_millis(2)))
        .min(Duration::from_millis(50))
}

/// What caps a search besides the clock (`set depth`, `set nodes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caps {
    /// The deepest iteration, in plies.
    pub depth: Option<usize>,
    /// The nodes of the whole move, every phase counted.
    pub nodes: Option<u64>,
}

impl Caps {
    /// Whether a cap is set: the clock must then decide nothing that a
    /// cap can decide instead.
    pub fn any(self) -> bool {
        self.depth.is_some() || self.nodes.is_some()
    }
}

/// What the last search found, for diagnostics and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchReport {
    /// The deepest iteration completed (0 when the move was forced or the
    /// clock ran out first).
    pub depth: usize,
    /// The chosen move's score for the side that moved, when searched:
    /// 0 a draw (when solved), `1_000_000_000 - n` a win with the n-th ply
    /// from now, its negation a loss; anything else is heuristic.
    pub score: Option<i32>,
    /// Whether the score is proven (the game's value with perfect play, or a
    /// forced win or loss).
    pub solved: bool,
    /// Nodes searched.
    pub nodes: u64,
}

impl SearchReport {
    /// The proven outcome for the side that moved: `Some(1)` a win,
    /// `Some(0)` a draw, `Some(-1)` a loss; `None` when not proven.
    pub fn proven_result(&self) -> Option<i32> {
        match self.score {
            Some(s) if self.solved => Some(s.signum()),
            _ => None,
        }
    }

    /// For a proven win or loss, the plies to the winning stone (1: the
    /// move itself): positive a win, negative a loss.
    pub fn win_plies(&self) -> Option<i32> {
        self.score
            .filter(|&s| eval::is_proven(s))
            .map(|s| s.signum() * (eval::win_at(0) - s.abs()).max(1))
    }
}

/// Negamax searcher; see the module documentation.
pub struct Minimax {
    rng: SmallRng,
    /// Tables for the shape of the current game.
    layout: Option<Layout>,
    table: Table,
    caps: Caps,
    report: SearchReport,
    /// The exact solver, made on the first board it takes.
    solver: Option<Solver>,
    /// Exact expected scores against a random opponent, for the shape of
    /// `memo_shape`.
    memo: punish::Memo,
    memo_shape: Option<Geometry>,
    /// What the threat searcher keeps between moves (large boards).
    threat_memory: Option<threat::Memory>,
}

/// Table size of the bot's solver for a board, in MiB: small boards need
/// little (and a new game wipes the table).
fn solver_mib(g: Geometry) -> usize {
    match g.area() {
        0..=16 => 1,
        17..=30 => 8,
        _ => 32,
    }
}

impl Minimax {
    /// A searcher with its generator seeded.
    pub fn new(seed: u64) -> Minimax {
        Minimax {
            rng: seeded_rng(seed),
            layout: None,
            table: Table::new(table::DEFAULT_BITS),
            caps: Caps::default(),
            report: SearchReport::default(),
            solver: None,
            memo: punish::Memo::new(),
            memo_shape: None,
            threat_memory: None,
        }
    }

    /// The move when the solver proves the position by `until`.
    fn solved_choice(&mut self, board: &Board, until: Instant) -> Option<Cell> {
        let choices = self.proven_choices(board, Some(until))?;
        choices.choose(&mut self.rng).copied()
    }

    /// When the solver proves the position (by `until`, if given): the
    /// moves the bot chooses among, uniformly. They keep the proved value
    /// (the quickest win, the slowest loss) and, among those that do, give
    /// a uniformly random opponent the most chances to go wrong (the
    /// highest expected score; exact when few cells are left, else
    /// estimated one reply deep). Only the solver's best move when the
    /// analysis of every move does not finish in time. `None` when the
    /// position is not proved (or the board is too large).
    pub fn proven_choices(&mut self, board: &Board, until: Option<Instant>) -> Option<Vec<Cell>> {
        let mib = solver_mib(board.geometry());
        if self.solver.as_ref().is_none_or(|s| s.table_mib() != mib) {
            self.solver = Some(Solver::new(mib));
        }
        let solver = self.solver.as_mut().expect("just made");
        let report = solver.solve(board, Budget::until_maybe(until)).ok()?;
        let (value, best) = (report.value?, report.best?);
        self.report = SearchReport {
            depth: 0,
            score: Some(match value {
                Value::Win(n) => eval::WIN - n as i32,
                Value::Draw => 0,
                Value::Loss(n) => -(eval::WIN - n as i32),
            }),
            solved: true,
            nodes: report.nodes,
        };
        let analysis = solver.analyze(board, Budget::until_maybe(until)).ok();
        let Some(keep) = analysis.as_ref().and_then(punish::keepers) else {
            return Some(vec![best]);
        };
        if keep.len() == 1 || matches!(value, Value::Win(_)) {
            return Some(keep);
        }
        // Among moves that keep a draw (or hold out longest), the ones a
        // random opponent most likely goes wrong against.
        let mut b = board.clone();
        let exact = board.geometry().area() - board.ply() <= punish::EXACT_EMPTIES;
        if self.memo_shape != Some(board.geometry()) {
            self.memo.clear();
            self.memo_shape = Some(board.geometry());
        }
        let mut expect = punish::Expectation::new(solver, &mut self.memo, board.to_move(), until);
        let mut scored = Vec::with_capacity(keep.len());
        for &cell in &keep {
            let e = if exact {
                Some(expect.after(&mut b, cell))
            } else {
                expect.estimate(&mut b, cell)
            };
            match e {
                Some(e) if !expect.stopped => scored.push((cell, e)),
                _ => return Some(keep),
            }
        }
        let top = scored.iter().map(|s| s.1).fold(f64::MIN, f64::max);
        Some(
            scored
                .into_iter()
                .filter(|s| s.1 >= top - 1e-12)
                .map(|s| s.0)
                .collect(),
        )
    }

    /// What the last `choose` found.
    pub fn last_report(&self) -> SearchReport {
        self.report
    }

    /// The tables for `geometry`, rebuilt (and the transposition table
    /// cleared) when the shape changes.
    fn layout_for(&mut self, board: &Board) -> &Layout {
        let geometry: Geometry = board.geometry();
        if self.layout.as_ref().is_none_or(|l| l.geometry != geometry) {
            self.table.clear();
            self.layout = Some(Layout::new(board));
            self.threat_memory = None;
        }
        self.layout.as_ref().expect("just built")
    }
}

impl Minimax {
    /// What the solver or the searches choose for the side to move.
    fn search_choice(&mut self, board: &Board, limits: Limits) -> Cell {
        let Some(any) = board.legal_moves().next() else {
            // Not an ongoing game: nothing sensible to choose.
            return Cell::new(0, 0);
        };
        let deadline = limits.search_deadline();
        let mut start = limits.start.min(deadline);
        let caps = self.caps;
        // A cap asks for the search alone (and replays that the clock plays
        // no part in).
        if !caps.any() && Solver::supports(board.geometry()) {
            // Half the time where the search below is full width (it tries
            // to solve such boards too), a quarter on larger boards, where
            // the proof rarely finishes and the search needs the time.
            let share = if board.geometry().area() <= FULL_WIDTH_AREA {
                2
            } else {
                4
            };
            if let Some(cell) = self.solved_choice(board, start + (deadline - start) / share) {
                return cell;
            }
            start = Instant::now().min(deadline);
        }
        self.layout_for(board);
        let (Some(layout), table, rng) = (&self.layout, &mut self.table, &mut self.rng) else {
            return any;
        };
        table.next_age();
        if !layout.full_width {
            let g = board.geometry();
            let memory = self
                .threat_memory
                .take()
                .unwrap_or_else(|| threat::Memory::new(threat::Lines::new(g.k(), g.rule())));
            // The caches kept between moves may take as much as the table
            // (`hash_mib_within` counts on it).
            let kept_bytes = table.bytes();
            let mut search = ThreatSearch::new(layout, table, board.clone(), memory, deadline);
            let (square, report) = search.choose(rng, caps, start);
            self.threat_memory = Some(search.into_memory(kept_bytes));
            self.report = report;
            return board.cell_of(square);
        }
        // No new iteration once half the time is gone: the next one would
        // most likely not finish.
        let soft = start + (deadline - start) / 2;
        let mut search = Search::new(layout, table, board.clone(), deadline);
        let (square, report) = search.choose(rng, caps, soft);
        self.report = report;
        board.cell_of(square)
    }
}

impl Bot for Minimax {
    fn kind(&self) -> BotKind {
        BotKind::Minimax
    }

    fn searches(&self) -> bool {
        true
    }

    fn choose(&mut self, board: &Board, limits: Limits) -> Cell {
        let cell = self.search_choice(board, limits);
        if board.is_over() || board.check(cell).is_ok() {
            return cell;
        }
        // The searches know renju's forbidden cells where they try moves,
        // not in every shortcut (a forced block may be forbidden to Black):
        // such a choice is never played; the blocking bot's is, which wins
        // or blocks where it can among the legal cells.
        use rand::Rng;
        super::blocking::Blocking::new(self.rng.random()).choose(board, limits)
    }

    fn reseed(&mut self, seed: u64) {
        self.rng = seeded_rng(seed);
    }

    fn report(&self) -> Option<SearchReport> {
        Some(self.report)
    }

    fn new_game(&mut self) {
        self.table.clear();
        // Timing decides what the solver proves in a move, so its table goes
        // with the game; the expected scores are exact and stay.
        if let Some(solver) = self.solver.as_mut() {
            solver.clear();
        }
        self.report = SearchReport::default();
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        match name {
            "depth" => {
                let depth = whole_number(name, value, "plies (0 for no limit)")?;
                self.caps.depth = (depth > 0).then_some(depth as usize);
                Ok(())
            }
            "nodes" => {
                let nodes = whole_number(name, value, "nodes (0 for no limit)")?;
                self.caps.nodes = (nodes > 0).then_some(nodes);
                Ok(())
            }
            "hash" => {
                let mib = whole_number(name, value, "MiB")?;
                if !(1..=table::MAX_MIB).contains(&mib) {
                    return Err(OptionError::BadValue {
                        name: name.to_string(),
                        reason: format!("{mib} MiB is not from 1 to {}", table::MAX_MIB),
                    });
                }
                let bits = table::bits_for_mib(mib);
                if bits != self.table.bits() {
                    // Allocated now, outside any move's time.
                    self.table = Table::new(bits);
                }
                Ok(())
            }
            _ => Err(OptionError::Unknown(name.to_string())),
        }
    }
}

/// An option's value as a whole number of `what`.
fn whole_number(name: &str, value: &str, what: &str) -> Result<u64, OptionError> {
    value.parse().map_err(|_| OptionError::BadValue {
        name: name.to_string(),
        reason: format!("'{}' is not a number of {what}", crate::rules::clip(value)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    /// Self-play to the end (or `plies`), capped by depth so that the clock
    /// plays no part; the moves.
    fn self_play(bot: &mut Minimax, geo: Geometry, plies: usize) -> Vec<Cell> {
        let mut board = Board::new(geo);
        while !board.is_over() && board.ply() < plies {
            let cell = bot.choose(&board, Limits::starting_now(Duration::from_secs(60)));
            board.try_play(cell).unwrap();
        }
        board.moves().collect()
    }

    #[test]
    fn after_new_game_the_bot_plays_as_a_new_one() {
        // The table is wiped, not freed, on a new game: nothing of the old
        // game may remain to change the next.
        for (geo, depth) in [
            (Geometry::new(5, 5, 4, Rule::Free).unwrap(), "3"),
            (Geometry::new(15, 15, 5, Rule::Exact).unwrap(), "2"),
        ] {
            let mut fresh = Minimax::new(9);
            fresh.set_option("depth", depth).unwrap();
            let want = self_play(&mut fresh, geo, 30);
            let mut reused = Minimax::new(1);
            reused.set_option("depth", depth).unwrap();
            self_play(&mut reused, geo, 30);
            reused.new_game();
            reused.reseed(9);
            assert_eq!(self_play(&mut reused, geo, 30), want, "{geo}");
        }
    }

    #[test]
    fn margins() {
        let ms = Duration::from_millis;
        assert_eq!(safety_margin(ms(1)), Duration::from_micros(500));
        assert_eq!(safety_margin(ms(10)), ms(2));
        assert_eq!(safety_margin(ms(200)), ms(20));
        assert_eq!(safety_margin(ms(5000)), ms(50));
    }
}
