//! The tactical suite, `tests/data/tactics.txt`: every puzzle's answers are
//! proved again (by the exact solver on boards of up to 64 cells, by the
//! rules-only checker beyond: see `kinrow::tactics`), and minimax solves
//! the quick ones. How many an engine solves, and how fast, is printed by
//! `scripts/tactics.sh`, never asserted here.

use kinrow::bots::{Bot, Limits, Minimax};
use kinrow::tactics::{parse_suite, verify, wins_slower, Effort, Puzzle, Theme};
use std::time::Duration;

fn suite() -> Vec<Puzzle> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tactics.txt"
    ))
    .unwrap();
    parse_suite(&text).unwrap()
}

/// Checks the puzzles of one kind (two tests share the work between the
/// machine's cores).
fn verify_all(on_solver: bool) {
    let puzzles: Vec<Puzzle> = suite()
        .into_iter()
        .filter(|p| p.by_solver() == on_solver)
        .collect();
    assert!(puzzles.len() >= 5, "{} puzzles", puzzles.len());
    let wrong: Vec<String> = puzzles
        .iter()
        .filter_map(|p| verify(p, Effort::default()).err())
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_answers_on_small_boards_are_the_solvers() {
    verify_all(true);
}

#[test]
fn the_answers_on_large_boards_are_the_checkers() {
    verify_all(false);
}

#[test]
fn the_suite_covers_every_theme_on_gomoku_and_smaller_boards() {
    let puzzles = suite();
    for theme in [Theme::Fours, Theme::Threes, Theme::Defence] {
        let of = |p: &&Puzzle| p.theme == theme;
        let big = puzzles
            .iter()
            .filter(of)
            .filter(|p| p.geometry.rows() == 15)
            .count();
        let small = puzzles
            .iter()
            .filter(of)
            .filter(|p| p.geometry.rows() < 15)
            .count();
        assert!(
            big >= 4 && small >= 2,
            "{theme:?}: {big} on 15x15, {small} smaller"
        );
    }
}

/// The quick puzzles: wins by fours, and the others within nine plies.
fn quick(p: &Puzzle) -> bool {
    p.theme == Theme::Fours || p.plies <= 9
}

#[test]
fn minimax_solves_the_quick_puzzles() {
    let mut missed = Vec::new();
    let mut tried = 0;
    for p in suite().iter().filter(|p| quick(p)) {
        tried += 1;
        let mut bot = Minimax::new(1);
        // Generous: the bot answers as soon as it proves the win.
        let cell = bot.choose(&p.board(), Limits::starting_now(Duration::from_secs(5)));
        if !p.solved_by(cell) && !wins_slower(p, cell, Effort::default()) {
            missed.push(format!(
                "{} (played {cell}: {:?})",
                p.name,
                bot.last_report()
            ));
        }
    }
    assert!(tried >= 10, "{tried} quick puzzles");
    assert!(
        missed.is_empty(),
        "missed {} of {tried}: {missed:?}",
        missed.len()
    );
}
