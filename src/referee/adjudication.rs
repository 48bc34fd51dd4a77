//! Ending a game before the board does: `--draw-after PLIES` (a draw once
//! that many stones are on the board, as c-gomoku-cli's `drawafter`), and
//! `--exact-adjudication`, which ends a game only on a proof: the exact
//! solver's value of the position (boards of up to 64 cells under the free
//! and exact rules, once few cells are empty), or a forced win by fours
//! for the side to move, found by the referee's own search ([`vcf`]),
//! which accounts for every reply of the defender.
//!
//! Beside them, as cutechess-cli and fastchess do, on the engines' own
//! scores (`search_info`, or what a brain's `MESSAGE` lines say; see
//! [`ScoreWatch`]): `--resign-after COUNT SCORE` ends a game as a loss for a
//! side whose score stayed SCORE or more below zero for COUNT of its moves
//! in a row, and `--draw-by-score PLY COUNT SCORE` as a draw once, with at
//! least PLY stones on the board, both sides' scores stayed within SCORE of
//! zero for COUNT moves each. These trust the engines' word, not a proof.
//!
//! An adjudicated game is no engine's fault: its reason is `adjudicated`,
//! its detail says which kind (`draw-after: …`, `proof: …`, `resign: …`,
//! `draw-by-score: …`) and, for a proof, the line that proves it; for a
//! score, the scores.

use crate::protocol::Score;
use crate::rules::{Board, Cell, Player};
use crate::solver::{Budget, Solver, Value};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;

/// How a run ends games early (all off by default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// A draw once this many stones (the opening's included) are on the
    /// board.
    pub draw_after: Option<usize>,
    /// End games on proofs: the solver's, once at most this many cells are
    /// empty (on boards it takes), and forced wins by fours.
    pub exact: Option<ExactAdjudication>,
    /// `--resign-after COUNT SCORE`.
    pub resign: Option<ScoreRule>,
    /// `--draw-by-score PLY COUNT SCORE`.
    pub score_draw: Option<ScoreDraw>,
}

/// A run of one side's scores: `moves` of its moves in a row, each scored
/// `score` or more below zero (`--resign-after`), or within `score` of zero
/// (`--draw-by-score`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreRule {
    pub moves: usize,
    pub score: i64,
}

/// `--draw-by-score`: the run both sides need, once at least `from_ply`
/// stones are on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreDraw {
    pub from_ply: usize,
    pub rule: ScoreRule,
}

/// What `--exact-adjudication` searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactAdjudication {
    /// The solver is asked once at most this many cells are empty.
    pub solver_empties: usize,
}

/// Asked of the solver by default: few enough empty cells that a proof
/// takes milliseconds on any board it takes.
pub const DEFAULT_SOLVER_EMPTIES: usize = 24;

/// Fours the search for a forced win plays at most (the attacker's moves).
const VCF_DEPTH: usize = 10;
/// Positions the search for a forced win visits at most per ply: the same
/// bound on every machine, so the same games end the same way.
const VCF_NODES: u64 = 1_000;
/// The plies of a solver's proof written into the record.
const SOLVER_LINE: usize = 16;

impl Adjudication {
    /// The settings as the run line records them (`None`: off), e.g.
    /// `draw-after 60, exact (solver at 24 empty cells)`.
    pub fn description(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(n) = self.draw_after {
            parts.push(format!("draw-after {n}"));
        }
        if let Some(e) = self.exact {
            parts.push(format!(
                "exact (solver at {} empty cells, fours)",
                e.solver_empties
            ));
        }
        if let Some(r) = self.resign {
            parts.push(format!("resign-after {} {}", r.moves, r.score));
        }
        if let Some(d) = self.score_draw {
            parts.push(format!(
                "draw-by-score {} {} {}",
                d.from_ply, d.rule.moves, d.rule.score
            ));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// Refuses a `--draw-after` that an opening already reaches: its games
    /// would end before a move was played.
    pub fn check_openings(&self, openings: &super::openings::Openings) -> anyhow::Result<()> {
        match self.draw_after {
            Some(n) if openings.longest() >= n => anyhow::bail!(
                "--draw-after {n}: an opening of this run has {} stones already, so its games \
                 would end before any move; give more plies than the longest opening",
                openings.longest()
            ),
            _ => Ok(()),
        }
    }

    /// Whether anything is to be adjudicated at all.
    pub fn is_on(&self) -> bool {
        self.draw_after.is_some() || self.exact.is_some() || self.on_scores()
    }

    /// Whether games may end on the engines' scores (which must then be
    /// asked for).
    pub fn on_scores(&self) -> bool {
        self.resign.is_some() || self.score_draw.is_some()
    }

    /// The ruling on the position `board` (undecided on the board), if
    /// the game is to end here. A raised `stop` (Ctrl-C) ends a proof
    /// unfinished: no ruling.
    pub fn rule(&self, board: &Board, stop: Option<&AtomicBool>) -> Option<Ruling> {
        if let Some(n) = self.draw_after {
            if board.ply() >= n {
                return Some(Ruling {
                    winner: None,
                    detail: format!(
                        "draw-after: {} stones on the board (--draw-after {n})",
                        board.ply()
                    ),
                });
            }
        }
        let exact = self.exact?;
        let empties = board.geometry().area() - board.ply();
        if empties <= exact.solver_empties && Solver::supports(board.geometry()) {
            if let Some(ruling) = solver_ruling(board, stop) {
                return Some(ruling);
            }
        }
        let line = vcf(board)?;
        let me = board.to_move();
        Some(Ruling {
            winner: Some(me),
            detail: format!("proof: {me} to move wins by fours: {}", cells_text(&line)),
        })
    }
}

/// The kinds of adjudication, as records and reports name them.
pub const KINDS: [&str; 4] = ["draw-after", "proof", "resign", "draw-by-score"];

/// The kind of an adjudicated game, from its detail (`KIND: …`), as an
/// index into [`KINDS`].
pub fn kind_index(detail: Option<&str>) -> usize {
    let kind = detail.and_then(|d| d.split(':').next()).unwrap_or("");
    KINDS.iter().position(|&k| k == kind).unwrap_or(1)
}

/// Each side's latest scores, for the rulings on them: a move with no
/// score breaks the side's run.
#[derive(Clone, Debug, Default)]
pub struct ScoreWatch {
    recent: [Vec<Score>; 2],
}

impl ScoreWatch {
    /// Hears `side`'s score for the move just played on `board`; the
    /// ruling, if its scores (and for a draw, the other side's) end the
    /// game.
    pub fn heard(
        &mut self,
        rules: &Adjudication,
        side: Player,
        score: Option<Score>,
        board: &Board,
    ) -> Option<Ruling> {
        let keep = [rules.resign, rules.score_draw.map(|d| d.rule)]
            .into_iter()
            .flatten()
            .map(|r| r.moves)
            .max()?;
        let recent = &mut self.recent[side.index()];
        match score {
            None => recent.clear(),
            Some(s) => {
                if recent.len() == keep {
                    recent.remove(0);
                }
                recent.push(s);
            }
        }
        let last = |p: Player, n: usize| {
            let r = &self.recent[p.index()];
            (r.len() >= n).then(|| &r[r.len() - n..])
        };
        if let Some(rule) = rules.resign {
            if let Some(run) = last(side, rule.moves) {
                if run.iter().all(|s| s.value() <= -rule.score) {
                    return Some(Ruling {
                        winner: Some(side.other()),
                        detail: format!(
                            "resign: {side}'s own score was -{} or lower for {} moves in a \
                             row ({}) (--resign-after)",
                            rule.score,
                            rule.moves,
                            scores_text(run)
                        ),
                    });
                }
            }
        }
        let draw = rules.score_draw.filter(|d| board.ply() >= d.from_ply)?;
        let near = |p: Player| {
            last(p, draw.rule.moves)
                .filter(|run| run.iter().all(|s| s.value().abs() <= draw.rule.score))
        };
        let (x, o) = (near(Player::X)?, near(Player::O)?);
        Some(Ruling {
            winner: None,
            detail: format!(
                "draw-by-score: both scores stayed within {} of zero for {} moves each (X {}; \
                 O {}) (--draw-by-score)",
                draw.rule.score,
                draw.rule.moves,
                scores_text(x),
                scores_text(o)
            ),
        })
    }
}

fn scores_text(scores: &[Score]) -> String {
    let words: Vec<String> = scores.iter().map(Score::to_string).collect();
    words.join(", ")
}

/// A game ended by adjudication: who won (`None`: a draw) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    pub winner: Option<Player>,
    /// `KIND: what`, the record's detail.
    pub detail: String,
}

fn cells_text(cells: &[Cell]) -> String {
    let mut text = String::new();
    for (i, c) in cells.iter().enumerate() {
        let _ = write!(text, "{}{c}", if i > 0 { ", " } else { "" });
    }
    text
}

thread_local! {
    /// A worker's solver, kept from game to game (its table is cleared
    /// before every proof, so a proof never depends on the games before).
    static SOLVER: RefCell<Option<Solver>> = const { RefCell::new(None) };
}

/// The solver's value of `board`, as a ruling with its principal line.
fn solver_ruling(board: &Board, stop: Option<&AtomicBool>) -> Option<Ruling> {
    SOLVER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let solver = slot.get_or_insert_with(|| Solver::new(16));
        solver.clear();
        let budget = || Budget {
            stop,
            ..Budget::default()
        };
        let report = solver.solve(board, budget()).ok()?;
        let value = report.value?;
        let me = board.to_move();
        let line = solver.principal_line(board, SOLVER_LINE, budget());
        let (winner, what) = match value {
            Value::Win(n) => (Some(me), format!("{me} to move wins in {n} plies")),
            Value::Loss(n) => (Some(me.other()), format!("{me} to move loses in {n} plies")),
            Value::Draw => (None, format!("a draw with best play ({me} to move)")),
        };
        Some(Ruling {
            winner,
            detail: format!("proof: the solver: {what}; best line {}", cells_text(&line)),
        })
    })
}

/// A forced win by fours for the side to move, as its line (the
/// attacker's fours and the defender's forced replies, ending with the
/// winning stone), if the search finds one within its bounds.
///
/// A proof: every attacking move is a four or makes K in a row; after each
/// four, every legal reply of the defender is looked at — one that wins for
/// the defender refutes it; one after which the attacker has no win at
/// once must be beaten by the rest of the line — so counter-fours, blocks
/// that make fours, and rules that change what a line is (exact, renju,
/// caro) are all taken into account by the rules core itself.
pub fn vcf(board: &Board) -> Option<Vec<Cell>> {
    if board.is_over() {
        return None;
    }
    let mut scratch = board.clone();
    let mut search = Vcf {
        nodes: 0,
        line: Vec::new(),
    };
    search
        .attack(&mut scratch, VCF_DEPTH)
        .then_some(search.line)
}

struct Vcf {
    nodes: u64,
    /// The proof's line, built as the search returns.
    line: Vec<Cell>,
}

/// The empty squares of every line of K cells that holds no stone of
/// `p`'s opponent and at least `need` of `p`'s: a superset of the squares
/// where a stone of `p`'s makes K in a row (`need` = K - 1) or a new threat
/// of it (`need` = K - 2), under every rule, since a winning run of K or
/// more holds such a line through the square. In row-major order.
fn squares_in_lines(board: &Board, p: Player, need: usize) -> Vec<usize> {
    let g = board.geometry();
    let (rows, cols, k) = (g.rows() as i32, g.cols() as i32, g.k() as i32);
    let mut marked = vec![false; rows as usize * cols as usize];
    let at = |r: i32, c: i32| board.stone_at(Cell::new(r as u8, c as u8));
    for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for r in 0..rows {
            for c in 0..cols {
                let (er, ec) = (r + dr * (k - 1), c + dc * (k - 1));
                if !(0..rows).contains(&er) || !(0..cols).contains(&ec) {
                    continue;
                }
                let mut mine = 0;
                let mut clear = true;
                for i in 0..k {
                    match at(r + dr * i, c + dc * i) {
                        Some(q) if q == p => mine += 1,
                        Some(_) => {
                            clear = false;
                            break;
                        }
                        None => {}
                    }
                }
                if clear && mine >= need {
                    for i in 0..k {
                        let (rr, cc) = (r + dr * i, c + dc * i);
                        if at(rr, cc).is_none() {
                            marked[(rr * cols + cc) as usize] = true;
                        }
                    }
                }
            }
        }
    }
    (0..marked.len())
        .filter(|&i| marked[i])
        .map(|i| {
            board.square(Cell::new(
                (i / cols as usize) as u8,
                (i % cols as usize) as u8,
            ))
        })
        .collect()
}

/// The legal squares where the side to move would make K in a row at once.
fn winning_squares(board: &Board) -> Vec<usize> {
    let me = board.to_move();
    let need = board.geometry().k().saturating_sub(1);
    squares_in_lines(board, me, need)
        .into_iter()
        .filter(|&s| board.is_legal_square(s) && board.wins_through(s, me))
        .collect()
}

/// The squares where the defender (not to move) would make K in a row, on
/// the defender's own legality (renju's forbidden cells are Black's).
fn defender_wins(board: &Board) -> Vec<usize> {
    let them = board.to_move().other();
    let guarded = board.geometry().rule().forbids(them);
    let need = board.geometry().k().saturating_sub(1);
    squares_in_lines(board, them, need)
        .into_iter()
        .filter(|&s| {
            board.wins_through(s, them) && !(guarded && board.forbidden_square(s).is_some())
        })
        .collect()
}

/// The empty squares on the four lines through `square`, at most K - 1
/// away, where `p` would make K in a row: after `p`'s stone on `square`,
/// the only places a new K in a row can be.
fn threats_through(board: &Board, square: usize, p: Player) -> Vec<usize> {
    let g = board.geometry();
    let (rows, cols) = (g.rows() as i32, g.cols() as i32);
    let at = board.cell_of(square);
    let reach = g.k() as i32 - 1;
    let mut found = Vec::new();
    for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
        for step in (-reach..=reach).filter(|&s| s != 0) {
            let (r, c) = (i32::from(at.row) + dr * step, i32::from(at.col) + dc * step);
            if !(0..rows).contains(&r) || !(0..cols).contains(&c) {
                continue;
            }
            let t = board.square(Cell::new(r as u8, c as u8));
            if board.stone_on(t).is_none() && board.wins_through(t, p) {
                found.push(t);
            }
        }
    }
    found
}

impl Vcf {
    /// Whether the side to move on `board` wins by fours within `depth` of
    /// its moves; on success `line` holds the proof, front first.
    fn attack(&mut self, board: &mut Board, depth: usize) -> bool {
        if let Some(&s) = winning_squares(board).first() {
            self.line.push(board.cell_of(s));
            return true;
        }
        if depth == 0 || self.nodes >= VCF_NODES {
            return false;
        }
        let me = board.to_move();
        // The defender's fours must be met at once: with two, nothing
        // meets them; with one, only a four there keeps the attack.
        let theirs = defender_wins(board);
        let candidates: Vec<usize> = match theirs.len() {
            0 => board
                .squares()
                .filter(|&s| board.is_legal_square(s))
                .collect(),
            1 => theirs
                .into_iter()
                .filter(|&s| board.is_legal_square(s))
                .collect(),
            _ => return false,
        };
        for s in candidates {
            if self.nodes >= VCF_NODES {
                return false;
            }
            if board.play_unchecked(s).is_some() {
                // Not a win (that was looked for first): a draw.
                board.undo();
                continue;
            }
            let threats = threats_through(board, s, me);
            let proved = !threats.is_empty() && {
                self.nodes += 1;
                self.defend(board, &threats, depth)
            };
            board.undo();
            if proved {
                self.line.insert(0, board.cell_of(s));
                return true;
            }
        }
        false
    }

    /// The defender to move, after the attacker's four (`threats`: where
    /// it would make K in a row): whether every legal reply loses.
    fn defend(&mut self, board: &mut Board, threats: &[usize], depth: usize) -> bool {
        // A defender that makes K in a row wins first.
        if !winning_squares(board).is_empty() {
            return false;
        }
        let replies: Vec<usize> = board
            .squares()
            .filter(|&r| board.is_legal_square(r))
            .collect();
        // The reply the line shows: one on a threat that holds out longest.
        let mut shown: Option<(usize, Vec<Cell>)> = None;
        for r in replies {
            if board.play_unchecked(r).is_some() {
                // A draw (a win was ruled out above): the attack fails.
                board.undo();
                return false;
            }
            // Most replies leave a threat standing: a win at once. (Only
            // a fast path: a reply that leaves none is searched in full.)
            let standing = threats
                .iter()
                .copied()
                .find(|&t| board.is_legal_square(t) && board.wins_through(t, board.to_move()));
            let mut sub = Vcf {
                nodes: self.nodes,
                line: Vec::new(),
            };
            let won = match standing {
                Some(t) => {
                    sub.line.push(board.cell_of(t));
                    true
                }
                None => sub.attack(board, depth - 1),
            };
            self.nodes = sub.nodes;
            board.undo();
            if !won {
                return false;
            }
            // Shown: a reply on a threat before any other, the longest.
            let rank = |r: usize, line: &[Cell]| (threats.contains(&r), line.len());
            if shown
                .as_ref()
                .is_none_or(|(s, l)| rank(r, &sub.line) > rank(*s, l))
            {
                shown = Some((r, sub.line));
            }
        }
        match shown {
            Some((r, rest)) => {
                self.line.push(board.cell_of(r));
                self.line.extend(rest);
                true
            }
            // No legal reply: the board says how that ends, not the search.
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Geometry, Rule};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// A position of `plies` random moves, undecided, or `None`.
    fn random_position(geometry: Geometry, plies: usize, rng: &mut SmallRng) -> Option<Board> {
        let mut board = Board::new(geometry);
        for _ in 0..plies {
            let legal: Vec<Cell> = board.legal_moves().collect();
            if legal.is_empty() {
                return None;
            }
            if board
                .try_play(legal[rng.random_range(0..legal.len())])
                .ok()?
                .is_some()
            {
                return None;
            }
        }
        Some(board)
    }

    /// Plays the proof out against every defence: the attacker takes the
    /// first move of a fresh proof at each turn, the defender tries every
    /// legal reply; every game must end in the attacker's K in a row.
    /// Returns the games played out.
    fn play_out(board: &mut Board, attacker: Player) -> usize {
        assert_eq!(board.to_move(), attacker);
        let line = vcf(board).expect("a proof holds at every turn of its line");
        let outcome = board.try_play(line[0]).expect("a legal attacking move");
        let games = match outcome {
            Some(o) => {
                assert_eq!(o.winner(), Some(attacker), "{board}");
                1
            }
            None => {
                let replies: Vec<Cell> = board.legal_moves().collect();
                assert!(!replies.is_empty());
                let mut games = 0;
                for r in replies {
                    let o = board.try_play(r).unwrap();
                    assert!(
                        o.is_none(),
                        "the defender ended the game with {r}:\n{board}"
                    );
                    games += play_out(board, attacker);
                    board.undo();
                }
                games
            }
        };
        board.undo();
        games
    }

    #[test]
    fn every_forced_win_by_fours_is_one_the_solver_proves() {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut solver = Solver::new(16);
        let mut proofs = 0;
        for (rows, cols, k, rule) in [
            (6, 6, 4, Rule::Free),
            (7, 7, 5, Rule::Free),
            (8, 8, 5, Rule::Exact),
            (6, 9, 4, Rule::Exact),
        ] {
            let g = Geometry::new(rows, cols, k, rule).unwrap();
            for _ in 0..150 {
                let plies = rng.random_range(6..(rows * cols) as usize - 8);
                let Some(board) = random_position(g, plies, &mut rng) else {
                    continue;
                };
                let Some(line) = vcf(&board) else { continue };
                proofs += 1;
                let me = board.to_move();
                let report = solver.solve(&board, Budget::default()).unwrap();
                assert!(
                    matches!(report.value, Some(Value::Win(_))),
                    "{me} to move, fours {line:?}, solver {:?}:\n{board}",
                    report.value
                );
                // The line is legal and ends in the attacker's K in a row.
                let mut b = board.clone();
                for (i, &c) in line.iter().enumerate() {
                    let o = b.try_play(c).unwrap();
                    assert_eq!(o.is_some(), i + 1 == line.len(), "{line:?}\n{board}");
                }
                assert_eq!(b.outcome().and_then(|o| o.winner()), Some(me));
            }
        }
        assert!(proofs > 40, "only {proofs} proofs found");
    }

    #[test]
    fn a_proof_wins_against_every_defence_under_every_rule() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut proved = [0; 5];
        for (i, rule) in Rule::ALL.into_iter().enumerate() {
            let g = Geometry::new(9, 9, 5, rule).unwrap();
            let mut tries = 0;
            while proved[i] < 4 && tries < 400 {
                tries += 1;
                let Some(mut board) = random_position(g, rng.random_range(12..40), &mut rng) else {
                    continue;
                };
                if vcf(&board).is_none() {
                    continue;
                }
                let me = board.to_move();
                assert!(play_out(&mut board, me) >= 1);
                proved[i] += 1;
            }
        }
        assert!(proved.iter().all(|&n| n >= 2), "{proved:?}");
    }

    #[test]
    fn counter_fours_and_double_fours_are_taken_into_account() {
        let g = Geometry::new(9, 9, 5, Rule::Free).unwrap();
        let play = |cells: &[(u8, u8)]| {
            let mut b = Board::new(g);
            for &(r, c) in cells {
                assert!(b.try_play(Cell::new(r - 1, c - 1)).unwrap().is_none());
            }
            b
        };
        // X to move with a four to make, but O already has four in a row
        // open at one end: X must block at once, and the block is no four.
        let b = play(&[
            (5, 1),
            (1, 1),
            (5, 2),
            (1, 2),
            (5, 3),
            (1, 3),
            (9, 9),
            (1, 4),
        ]);
        assert_eq!(vcf(&b), None);
        // Without O's four X wins by fours: an open three on row 5 becomes
        // an open four.
        let b = play(&[(5, 2), (1, 1), (5, 3), (1, 3), (5, 4), (9, 9)]);
        let line = vcf(&b).expect("an open four");
        assert_eq!(line.len(), 3, "{line:?}");
    }

    #[test]
    fn the_solver_rules_once_few_cells_are_empty() {
        let a = Adjudication {
            draw_after: None,
            exact: Some(ExactAdjudication { solver_empties: 9 }),
            ..Adjudication::default()
        };
        let board = Board::new(Geometry::TIC_TAC_TOE);
        let ruling = a.rule(&board, None).unwrap();
        assert_eq!(ruling.winner, None);
        assert!(
            ruling
                .detail
                .starts_with("proof: the solver: a draw with best play"),
            "{}",
            ruling.detail
        );
        // An edge reply to the centre loses for O (3x3: a known result).
        let mut b = Board::new(Geometry::TIC_TAC_TOE);
        b.try_play(Cell::new(1, 1)).unwrap();
        b.try_play(Cell::new(0, 1)).unwrap();
        let ruling = a.rule(&b, None).unwrap();
        assert_eq!(ruling.winner, Some(Player::X), "{}", ruling.detail);
        // Under renju the solver is not asked; no fours: nothing ruled.
        let renju = Geometry::new(15, 15, 5, Rule::Renju).unwrap();
        assert_eq!(a.rule(&Board::new(renju), None), None);
        assert_eq!(kind_index(Some(&ruling.detail)), 1);
        assert_eq!(kind_index(Some("draw-after: 9 stones")), 0);
    }
}
