//! Caro (the Gomocup's rule 8: exactly K wins unless the opponent closes
//! both its ends, more than K always wins) and caro-exact (rule 9: exactly
//! K, not closed at both ends): position by position, the GomocupJudge's
//! caro check, then random games checked after every move and at every
//! empty cell for both players against the reference scan of the whole
//! board in `rules_reference`, and the playout engine's games replayed
//! through the checked board. `CARO_GAMES=N` plays N games on 15x15 instead
//! of 10.

mod rules_reference;

use kinrow::rules::{Board, Cell, Geometry, Outcome, Player, Playouts, Rule};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules_reference::{has_winning_line, Grid};

fn cell(rc: &str) -> Cell {
    rc.parse().unwrap()
}

/// Plays `moves` (1-based `R C`, alternately X and O), each but the last
/// leaving the game going; the outcome of the last as `status` shows it.
fn play(geo: Geometry, moves: &str) -> (Board, String) {
    let mut board = Board::new(geo);
    let cells: Vec<&str> = moves.split_whitespace().collect();
    let mut last = None;
    for (i, rc) in cells.chunks(2).enumerate() {
        let c = cell(&format!("{} {}", rc[0], rc[1]));
        last = board.try_play(c).unwrap();
        if i + 1 < cells.len() / 2 {
            assert_eq!(last, None, "move {} ({c}) ended the game", i + 1);
        }
    }
    let shown = last.map_or("ongoing".to_string(), |o: Outcome| o.to_string());
    (board, shown)
}

fn geo(rule: Rule) -> Geometry {
    Geometry::new(15, 15, 5, rule).unwrap()
}

#[test]
fn five_closed_at_both_ends_by_the_opponent_is_no_win() {
    // X fills 8 6 … 8 10 between O on 8 5 and 8 11.
    let closed = "8 6 8 5  8 7 8 11  8 8 1 1  8 9 1 3  8 10";
    for rule in [Rule::Caro, Rule::CaroExact] {
        let (mut board, outcome) = play(geo(rule), closed);
        assert_eq!(outcome, "ongoing", "{rule}");
        // The game goes on, and the closed five never counts later.
        assert_eq!(board.try_play(cell("1 5")), Ok(None));
        assert_eq!(board.try_play(cell("15 15")), Ok(None));
    }
    // Under free and exact it wins.
    for rule in [Rule::Free, Rule::Exact] {
        let (_, outcome) = play(geo(rule), closed);
        assert_eq!(outcome, "win X 8 6 8 7 8 8 8 9 8 10", "{rule}");
    }
}

#[test]
fn five_closed_at_one_end_or_by_the_edge_wins() {
    let one_end = "8 6 8 5  8 7 1 1  8 8 1 3  8 9 1 5  8 10";
    let edge_and_o = "8 1 8 6  8 2 1 1  8 3 1 3  8 4 1 5  8 5";
    let diagonal_corner = "1 1 6 6  2 2 1 15  3 3 1 13  4 4 1 11  5 5";
    for rule in [Rule::Caro, Rule::CaroExact] {
        assert_eq!(play(geo(rule), one_end).1, "win X 8 6 8 7 8 8 8 9 8 10");
        assert_eq!(play(geo(rule), edge_and_o).1, "win X 8 1 8 2 8 3 8 4 8 5");
        assert_eq!(
            play(geo(rule), diagonal_corner).1,
            "win X 1 1 2 2 3 3 4 4 5 5"
        );
    }
}

#[test]
fn six_wins_under_caro_even_closed_and_never_under_caro_exact() {
    // Six between O stones, the last stone joining two and three.
    let six = "8 5 8 4  8 6 8 11  8 8 1 1  8 9 1 3  8 10 1 5  8 7";
    assert_eq!(
        play(geo(Rule::Caro), six).1,
        "win X 8 5 8 6 8 7 8 8 8 9 8 10"
    );
    assert_eq!(play(geo(Rule::CaroExact), six).1, "ongoing");
    // Open six: the same.
    let open_six = "8 5 1 1  8 6 1 3  8 8 1 5  8 9 1 7  8 10 1 9  8 7";
    assert_eq!(
        play(geo(Rule::Caro), open_six).1,
        "win X 8 5 8 6 8 7 8 8 8 9 8 10"
    );
    assert_eq!(play(geo(Rule::CaroExact), open_six).1, "ongoing");
    // What wins, as the rule says it.
    for p in [Player::X, Player::O] {
        assert!(Rule::Caro.wins(p, 5, 5, 1) && !Rule::Caro.wins(p, 5, 5, 2));
        assert!(Rule::Caro.wins(p, 6, 5, 2) && !Rule::CaroExact.wins(p, 6, 5, 0));
        assert!(Rule::CaroExact.wins(p, 5, 5, 0) && !Rule::CaroExact.wins(p, 5, 5, 2));
    }
}

#[test]
fn white_five_closed_by_black_is_no_win_either() {
    let moves = "8 5 9 6  8 11 9 7  1 1 9 8  1 3 9 9  9 5 1 13  9 11 9 10";
    let (board, outcome) = play(geo(Rule::Caro), moves);
    assert_eq!(outcome, "ongoing");
    assert_eq!(board.to_move(), Player::X);
}

#[test]
fn the_gomocup_judge_caro_check_position() {
    // GomocupJudge's test_zip_rules.py (rule 8): after h8 f8 g8 f9 i8 f7 j8
    // l8 (letters columns), Black's four g8-j8 sits between White's f8 and
    // l8, so k8 makes a closed five, no win, and Black must stop White's
    // three f7-f9 instead (f5, f6, f10 or f11).
    let moves = "8 8 8 6  8 7 9 6  8 9 7 6  8 10 8 12";
    let (board, _) = play(geo(Rule::Caro), moves);
    let k8 = board.square(cell("8 11"));
    assert!(!board.wins_through(k8, Player::X));
    let mut after = board.clone();
    assert_eq!(after.try_play(cell("8 11")), Ok(None));
    // Under free rules the same stone wins.
    let (board, _) = play(geo(Rule::Free), moves);
    assert!(board.wins_through(k8, Player::X));
}

#[test]
fn caro_is_any_k() {
    // Four in a row on 6x6, closed at both ends: no win; one end open: win.
    let g = Geometry::new(6, 6, 4, Rule::Caro).unwrap();
    assert_eq!(play(g, "3 2 3 1  3 3 3 6  3 4 1 1  3 5").1, "ongoing");
    assert_eq!(
        play(g, "3 2 3 1  3 3 1 6  3 4 1 1  3 5").1,
        "win X 3 2 3 3 3 4 3 5"
    );
}

/// One random game under `rule`: after every move the outcome agrees with
/// the reference, and at every position `wins_through` agrees with it on
/// every empty cell for both players. Returns (X wins, O wins, draws, moves
/// that made K or more that free rules would call a win and this rule does
/// not).
fn checked_game(geo: Geometry, rng: &mut SmallRng) -> [usize; 4] {
    let mut unlike_free = 0;
    let (k, rule) = (geo.k(), geo.rule());
    let mut board = Board::new(geo);
    while !board.is_over() {
        let grid = Grid::of(&board);
        for c in grid.empty_cells() {
            for p in [Player::X, Player::O] {
                let mut with = grid.clone();
                with.set(c, if p == Player::X { 'X' } else { 'O' });
                assert_eq!(
                    board.wins_through(board.square(c), p),
                    has_winning_line(&with, p, k, rule),
                    "{p} on {c}\n{board}"
                );
            }
        }
        let legal: Vec<Cell> = board.legal_moves().collect();
        assert_eq!(legal, grid.empty_cells());
        let c = legal[rng.random_range(0..legal.len())];
        let mover = board.to_move();
        let outcome = board.try_play(c).unwrap();
        let after = Grid::of(&board);
        let won = has_winning_line(&after, mover, k, rule);
        assert_eq!(
            outcome.and_then(|o| o.winner()),
            won.then_some(mover),
            "{mover} on {c}\n{board}"
        );
        assert!(!has_winning_line(&after, mover.other(), k, rule));
        unlike_free += usize::from(!won && has_winning_line(&after, mover, k, Rule::Free));
        if let Some(Outcome::Win { line, .. }) = outcome {
            assert!(line.contains(c) && line.len() >= k);
            assert!(line.cells().all(|l| board.stone_at(l) == Some(mover)));
        }
    }
    match board.outcome().and_then(|o| o.winner()) {
        Some(Player::X) => [1, 0, 0, unlike_free],
        Some(Player::O) => [0, 1, 0, unlike_free],
        None => [0, 0, 1, unlike_free],
    }
}

#[test]
fn random_caro_games_agree_with_the_reference() {
    let mut rng = SmallRng::seed_from_u64(8);
    for rule in [Rule::Caro, Rule::CaroExact] {
        let mut closed = 0;
        let gomoku_games = std::env::var("CARO_GAMES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(10);
        for (rows, cols, k, games) in [
            (15, 15, 5, gomoku_games),
            (7, 7, 4, 200),
            (4, 9, 3, 200),
            (1, 12, 5, 300),
        ] {
            let g = Geometry::new(rows, cols, k, rule).unwrap();
            let mut results = [0; 4];
            for _ in 0..games {
                let r = checked_game(g, &mut rng);
                (0..4).for_each(|i| results[i] += r[i]);
            }
            eprintln!("{g}: {games} random games, X/O/draws/no-win lines {results:?}");
            assert!(results[0] > 0 && results[1] > 0, "{g}");
            closed += results[3];
        }
        assert!(
            closed > 0,
            "{rule}: the games never met a line free rules call a win"
        );
    }
}

#[test]
fn playouts_play_caro_as_the_board_does() {
    let mut rng = SmallRng::seed_from_u64(9);
    for rule in [Rule::Caro, Rule::CaroExact] {
        for (rows, cols, k) in [(15, 15, 5), (6, 6, 4), (3, 3, 3), (5, 8, 4)] {
            let g = Geometry::new(rows, cols, k, rule).unwrap();
            let mut base = Board::new(g);
            let mut playouts = Playouts::new(&base);
            for round in 0..3 {
                for _ in 0..300 {
                    let winner = playouts.run(&mut rng);
                    let mut board = base.clone();
                    for c in playouts.last_moves() {
                        assert!(!board.is_over(), "{g}: the playout went on after the end");
                        board.try_play(c).unwrap();
                    }
                    assert!(board.is_over(), "{g}: the playout stopped early\n{board}");
                    assert_eq!(board.outcome().and_then(|o| o.winner()), winner, "{g}");
                }
                // A few random moves in, from there.
                for _ in 0..3 * round + 2 {
                    let legal: Vec<Cell> = base.legal_moves().collect();
                    if legal.is_empty() {
                        break;
                    }
                    base.try_play(legal[rng.random_range(0..legal.len())])
                        .unwrap();
                }
                if base.is_over() {
                    base = Board::new(g);
                }
                playouts.set_position(&base);
            }
        }
    }
}
