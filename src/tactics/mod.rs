//! Tactical positions with proven answers ("puzzles"), the yardstick of
//! the threat searcher: a suite of them lives in `tests/data/tactics.txt`,
//! `scripts/tactics.sh` prints how many an engine solves and how fast, and
//! a test checks every answer.
//!
//! A puzzle is a position (the moves from the empty board), a theme, a
//! number of plies N and the set of moves that solve it:
//! - `fours`: the side to move wins within N plies by fours alone (VCF);
//!   the answers are every move that starts such a win (a move that wins
//!   more slowly, by threats within N + 6 plies, also solves it: see
//!   [`wins_slower`]).
//! - `threes`: it wins within N plies but not by fours alone; threes are
//!   needed (VCT); the answers are every threat (a four or a three) that
//!   starts a win within N plies.
//! - `defence`: the other side threatens a win; every move but the answers
//!   loses within N plies, and the answers do not.
//!
//! How the answers are proved: on boards of up to 64 cells by the exact
//! solver (the value of every move; the theme's "by fours alone" by the
//! checker); on larger boards by [`Checker`], a proof search on the rules
//! alone in which the attacker plays threats and the defender **every**
//! empty cell. There a win's first move must be a threat (a quiet move is
//! never an answer), and a defence holds when the checker finds no win by
//! threats against it within the plies left.
//!
//! One puzzle a line: `NAME | 15x15 k5 free | R C R C … | R C [R C …] |
//! THEME N`, cells 1-based, X's first; `#` starts a comment.

mod checker;

pub use checker::Checker;

use crate::rules::{Board, Cell, Geometry, Rule};
use crate::solver::{Budget, Solver, Value, MAX_CELLS};
use std::fmt;
use std::str::FromStr;

/// What a puzzle asks; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Fours,
    Threes,
    Defence,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::Fours => "fours",
            Theme::Threes => "threes",
            Theme::Defence => "defence",
        }
    }
}

/// A position with a proven answer; see the module documentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    pub name: String,
    pub geometry: Geometry,
    pub moves: Vec<Cell>,
    /// The moves that solve it, in row-major order.
    pub answers: Vec<Cell>,
    pub theme: Theme,
    pub plies: u32,
}

impl Puzzle {
    /// The position.
    pub fn board(&self) -> Board {
        let mut b = Board::new(self.geometry);
        for &c in &self.moves {
            b.try_play(c).expect("checked when parsed");
        }
        b
    }

    /// Whether `cell` solves it.
    pub fn solved_by(&self, cell: Cell) -> bool {
        self.answers.contains(&cell)
    }

    /// Whether the exact solver proves it (boards of up to 64 cells).
    pub fn by_solver(&self) -> bool {
        self.geometry.area() <= MAX_CELLS
    }
}

/// A line of a suite that is not a puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePuzzleError(pub String);

impl fmt::Display for ParsePuzzleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ParsePuzzleError {}

fn cells(text: &str) -> Result<Vec<Cell>, ParsePuzzleError> {
    let bad = |why: &str| ParsePuzzleError(format!("'{}': {why}", crate::rules::clip(text)));
    let numbers: Vec<u32> = text
        .split_whitespace()
        .map(|w| w.parse().map_err(|_| bad("not numbers")))
        .collect::<Result<_, _>>()?;
    if numbers.len() % 2 == 1 {
        return Err(bad("an odd count of numbers"));
    }
    numbers
        .chunks(2)
        .map(|rc| Cell::from_one_based(rc[0], rc[1]).ok_or_else(|| bad("a cell off any board")))
        .collect()
}

impl FromStr for Puzzle {
    type Err = ParsePuzzleError;
    fn from_str(line: &str) -> Result<Puzzle, ParsePuzzleError> {
        let bad = |why: String| ParsePuzzleError(why);
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let [name, shape, moves, answers, claim] = parts[..] else {
            return Err(bad(format!(
                "'{}': not NAME | SHAPE | MOVES | ANSWERS | THEME N",
                crate::rules::clip(line)
            )));
        };
        let words: Vec<&str> = shape.split_whitespace().collect();
        let geometry = match words[..] {
            [size, k, rule] => {
                let size: crate::rules::BoardSize = size.parse().map_err(bad)?;
                let k: u32 = k
                    .strip_prefix('k')
                    .and_then(|k| k.parse().ok())
                    .ok_or_else(|| bad(format!("{name}: '{k}' is not kN")))?;
                let rule: Rule = rule.parse().map_err(|e| bad(format!("{name}: {e}")))?;
                Geometry::new(size.rows, size.cols, k, rule)
                    .map_err(|e| bad(format!("{name}: {e}")))?
            }
            _ => return Err(bad(format!("{name}: '{shape}' is not 15x15 k5 free"))),
        };
        let moves = cells(moves)?;
        let mut board = Board::new(geometry);
        for &c in &moves {
            match board.try_play(c) {
                Ok(None) => {}
                Ok(Some(_)) => return Err(bad(format!("{name}: the game ends at {c}"))),
                Err(e) => return Err(bad(format!("{name}: {e}"))),
            }
        }
        let mut answers = cells(answers)?;
        if let Some(c) = answers.iter().find(|&&c| board.check(c).is_err()) {
            return Err(bad(format!("{name}: the answer {c} is not a legal move")));
        }
        answers.sort_by_key(|c| (c.row, c.col));
        let (theme, plies) = match claim.split_whitespace().collect::<Vec<_>>()[..] {
            [theme, n] => {
                let theme = match theme {
                    "fours" => Theme::Fours,
                    "threes" => Theme::Threes,
                    "defence" => Theme::Defence,
                    _ => return Err(bad(format!("{name}: no theme '{theme}'"))),
                };
                let n = n
                    .parse()
                    .map_err(|_| bad(format!("{name}: '{n}' is not a number of plies")))?;
                (theme, n)
            }
            _ => return Err(bad(format!("{name}: '{claim}' is not THEME N"))),
        };
        Ok(Puzzle {
            name: name.to_string(),
            geometry,
            moves,
            answers,
            theme,
            plies,
        })
    }
}

impl fmt::Display for Puzzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.geometry;
        let list = |cells: &[Cell]| {
            cells
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join("  ")
        };
        write!(
            f,
            "{} | {}x{} k{} {} | {} | {} | {} {}",
            self.name,
            g.rows(),
            g.cols(),
            g.k(),
            g.rule(),
            list(&self.moves),
            list(&self.answers),
            self.theme.name(),
            self.plies
        )
    }
}

/// The puzzles of a suite's text, skipping blank lines and comments.
pub fn parse_suite(text: &str) -> Result<Vec<Puzzle>, ParsePuzzleError> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i, line.split('#').next().unwrap_or("").trim()))
        .filter(|(_, line)| !line.is_empty())
        .map(|(i, line)| {
            line.parse()
                .map_err(|e: ParsePuzzleError| ParsePuzzleError(format!("line {}: {e}", i + 1)))
        })
        .collect()
}

/// How much a proof may search: nodes per question for the checker, and a
/// time limit per position for the solver.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    pub checker_nodes: u64,
    pub solver_time: std::time::Duration,
}

impl Default for Effort {
    fn default() -> Self {
        Effort {
            checker_nodes: 2_000_000,
            solver_time: std::time::Duration::from_secs(20),
        }
    }
}

/// The answers of a position for a theme and a number of plies, proved as
/// the module documentation says; `Err` when the position does not fit the
/// theme or a proof did not finish.
pub fn answers(
    board: &Board,
    theme: Theme,
    plies: u32,
    effort: Effort,
) -> Result<Vec<Cell>, String> {
    if board.is_over() || plies < 1 {
        return Err("no game to play".into());
    }
    let mut checker = Checker::new(board);
    let unfinished = || "a proof did not finish".to_string();
    let fours_only = theme == Theme::Fours;
    match theme {
        Theme::Fours => {
            if checker.wins_within(board, plies, true, effort.checker_nodes) != Some(true) {
                return Err("no win by fours alone".into());
            }
        }
        Theme::Threes => match checker.wins_within(board, plies, true, effort.checker_nodes) {
            Some(false) => {}
            Some(true) => return Err("a win by fours alone".into()),
            None => return Err(unfinished()),
        },
        Theme::Defence => {}
    }
    let mut found = Vec::new();
    if board.geometry().area() <= MAX_CELLS {
        let mut solver = Solver::new(64);
        let deadline = std::time::Instant::now() + effort.solver_time;
        let analysis = solver
            .analyze(board, Budget::until(deadline))
            .map_err(|e| e.to_string())?;
        for (cell, value) in analysis.moves {
            let value = value.ok_or_else(unfinished)?;
            let good = match (theme, value) {
                (Theme::Defence, Value::Loss(n)) => n > plies,
                (Theme::Defence, _) => true,
                (_, Value::Win(n)) => n <= plies,
                _ => false,
            };
            if good {
                found.push(cell);
            }
        }
    } else {
        let mut b = board.clone();
        let tried: Vec<Cell> = if theme == Theme::Defence {
            board.legal_moves().collect()
        } else {
            let me = b.to_move();
            let mut threats = checker::threat_moves(&mut b, me, fours_only);
            threats.sort_by_key(|m| m.0);
            threats.into_iter().map(|m| board.cell_of(m.0)).collect()
        };
        for cell in tried {
            let outcome = b.try_play(cell).expect("a legal move");
            let good = match (theme, outcome) {
                (Theme::Defence, Some(_)) => true,
                (_, Some(o)) => o.winner().is_some(),
                (Theme::Defence, None) => {
                    let lost = if plies >= 2 {
                        checker.wins_within(&b, plies - 1, false, effort.checker_nodes)
                    } else {
                        Some(false)
                    };
                    !lost.ok_or_else(unfinished)?
                }
                (_, None) => checker
                    .loses_within(&b, plies - 1, fours_only, effort.checker_nodes)
                    .ok_or_else(unfinished)?,
            };
            b.undo();
            if good {
                found.push(cell);
            }
        }
    }
    if found.is_empty() && theme != Theme::Defence {
        return Err("no move wins".into());
    }
    Ok(found)
}

/// How many plies longer than a win puzzle's bound a move's win may take
/// and still count as a solution (see [`wins_slower`]).
pub const SLOWER_BY: u32 = 6;

/// Whether `cell`, played in a `fours` or `threes` puzzle, wins all the same,
/// only more slowly: the checker proves that the other loses to threats
/// within [`SLOWER_BY`] plies more than the bound. (A searcher may find a
/// longer forced win first; it is still a win.) Never for `defence`.
pub fn wins_slower(puzzle: &Puzzle, cell: Cell, effort: Effort) -> bool {
    let board = puzzle.board();
    if puzzle.theme == Theme::Defence || board.check(cell).is_err() {
        return false;
    }
    let mut after = board.clone();
    match after.try_play(cell) {
        Ok(Some(o)) => o.winner().is_some(),
        Ok(None) => {
            // Deepening: a short win is proved in a few nodes, where one
            // search to the full bound can run out of them first.
            let mut checker = Checker::new(&after);
            (2..puzzle.plies + SLOWER_BY).step_by(2).any(|plies| {
                checker.loses_within(&after, plies, false, effort.checker_nodes) == Some(true)
            })
        }
        Err(_) => false,
    }
}

/// Checks a puzzle: its answers are what [`answers`] proves.
pub fn verify(puzzle: &Puzzle, effort: Effort) -> Result<(), String> {
    let board = puzzle.board();
    let found = answers(&board, puzzle.theme, puzzle.plies, effort)
        .map_err(|e| format!("{}: {e}", puzzle.name))?;
    if found != puzzle.answers {
        let list = |c: &[Cell]| {
            c.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(format!(
            "{}: the answers are [{}], the suite says [{}]",
            puzzle.name,
            list(&found),
            list(&puzzle.answers)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn puzzles_read_and_print_back() {
        let line = "vcf-1 | 15x15 k5 free | 8 8  7 8  8 9  7 9  8 10  7 10 | 8 7  8 11 | fours 3";
        let p: Puzzle = line.parse().unwrap();
        assert_eq!(p.moves.len(), 6);
        assert_eq!(p.answers, [Cell::new(7, 6), Cell::new(7, 10)]);
        assert_eq!((p.theme, p.plies), (Theme::Fours, 3));
        assert_eq!(p.to_string(), line);
        assert_eq!(p.to_string().parse::<Puzzle>(), Ok(p));
        for (bad, says) in [
            ("x | 15x15 k5 free | 8 8 | 7 7", "not NAME"),
            ("x | 15x15 k5 free | 8 8 8 | 7 7 | fours 3", "odd count"),
            ("x | 15x15 k5 free | 8 8 8 8 | 7 7 | fours 3", "occupied"),
            (
                "x | 15x15 k5 free | 8 8 | 8 8 | fours 3",
                "not a legal move",
            ),
            ("x | 15x15 k5 free | 8 8 | 7 7 | sixes 3", "no theme"),
            ("x | 15x15 k9 | 8 8 | 7 7 | fours 3", "is not 15x15 k5 free"),
        ] {
            let e = bad.parse::<Puzzle>().unwrap_err();
            assert!(e.to_string().contains(says), "{bad}: {e}");
        }
        let suite = parse_suite(&format!("# a comment\n\n{line}  # and one here\n")).unwrap();
        assert_eq!(suite.len(), 1);
        assert!(parse_suite("nonsense\n")
            .unwrap_err()
            .0
            .starts_with("line 1: "));
    }

    /// The checker's wins are wins: on random positions of boards the solver
    /// takes, whatever it proves within N plies the solver proves too, in
    /// no more plies; and with fours alone it proves no more than without.
    #[test]
    fn the_checker_proves_only_what_the_solver_proves() {
        let mut rng = crate::bots::seeded_rng(8);
        let mut solver = Solver::new(16);
        let mut proved = 0;
        for (rows, cols, k, rule) in [
            (7, 7, 5, Rule::Free),
            (8, 8, 5, Rule::Exact),
            (6, 7, 4, Rule::Free),
        ] {
            let g = Geometry::new(rows, cols, k, rule).unwrap();
            for _ in 0..25 {
                let mut board = Board::new(g);
                let plies = rng.random_range(8..20);
                while board.ply() < plies && !board.is_over() {
                    let moves: Vec<Cell> = board.legal_moves().collect();
                    board
                        .try_play(moves[rng.random_range(0..moves.len())])
                        .unwrap();
                }
                if board.is_over() {
                    continue;
                }
                let mut checker = Checker::new(&board);
                let n = 7;
                let by_fours = checker.wins_within(&board, n, true, 20_000);
                let by_threats = checker.wins_within(&board, n, false, 20_000);
                if by_fours == Some(true) {
                    assert_eq!(by_threats, Some(true), "{board}");
                }
                let lost = checker.loses_within(&board, n + 1, false, 20_000);
                if by_threats != Some(true) && lost != Some(true) {
                    continue;
                }
                let budget = Budget::until(
                    std::time::Instant::now() + std::time::Duration::from_millis(500),
                );
                let value = solver.solve(&board, budget).unwrap().value;
                let shown = format!("{g}, {} to move:\n{board}\n{value:?}", board.to_move());
                if by_threats == Some(true) {
                    proved += 1;
                    assert!(
                        matches!(value, Some(Value::Win(m)) if m <= n) || value.is_none(),
                        "{shown}"
                    );
                }
                if lost == Some(true) {
                    proved += 1;
                    assert!(
                        matches!(value, Some(Value::Loss(m)) if m <= n + 1) || value.is_none(),
                        "{shown}"
                    );
                }
            }
        }
        assert!(proved >= 10, "only {proved} proofs");
    }
}
