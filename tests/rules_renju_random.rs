//! Renju's forbidden cells and wins on random games, checked against the
//! slow reference in `rules_reference` at every empty cell of every
//! position: random games where Black draws among the cells it may play,
//! on 15x15 and on other boards; the playout engine's games replayed through
//! the checked board; and (ignored, for the figures in docs/rules.md) how
//! often checkers that stop the three's recursion early go wrong.
//!
//! `RENJU_GAMES=N` plays N games on 15x15 instead of the default.

mod rules_reference;

use kinrow::rules::{Board, Cell, Forbidden, Geometry, IllegalMove, Player, Playouts, Rule};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rules_reference::{has_winning_line, renju_verdict, Grid, Verdict};

fn renju(rows: u32, cols: u32) -> Geometry {
    Geometry::new(rows, cols, 5, Rule::Renju).unwrap()
}

fn games_from_env(default: usize) -> usize {
    std::env::var("RENJU_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The board with the moves so far, for failure messages.
fn shown(board: &Board) -> String {
    let moves: Vec<String> = board.moves().map(|c| format!("({c})")).collect();
    format!("{board}\nmoves: {}", moves.join(" "))
}

/// What the checks counted over some games.
#[derive(Default, Debug)]
struct Tally {
    positions: usize,
    cells: usize,
    forbidden: [usize; 3],
    black_wins: usize,
    white_wins: usize,
    draws: usize,
    black_stuck: usize,
}

/// Checks every empty cell of the position against the reference, and the
/// side-to-move API (legal moves, the forbidden list, refused moves) with it.
fn check_position(board: &mut Board, tally: &mut Tally) {
    let grid = Grid::of(board);
    let mut allowed = Vec::new();
    let mut forbidden = Vec::new();
    for cell in grid.empty_cells() {
        let want = renju_verdict(&grid, cell, None);
        let got = board.forbidden_square(board.square(cell));
        assert_eq!(got, want.forbidden(), "X on {cell}\n{}", shown(board));
        tally.cells += 1;
        match want.forbidden() {
            Some(kind) => {
                tally.forbidden[kind as usize] += 1;
                forbidden.push((cell, kind));
            }
            None => allowed.push(cell),
        }
    }
    tally.positions += 1;
    if board.is_over() || board.to_move() == Player::O {
        assert!(board.forbidden_cells().is_empty());
        for &(cell, _) in &forbidden {
            assert_eq!(board.forbidden(cell), None);
        }
        return;
    }
    let legal: Vec<Cell> = board.legal_moves().collect();
    assert_eq!(legal, allowed, "legal moves\n{}", shown(board));
    assert_eq!(board.forbidden_cells(), forbidden, "{}", shown(board));
    for &(cell, kind) in &forbidden {
        assert_eq!(board.forbidden(cell), Some(kind));
        assert!(!board.is_legal_square(board.square(cell)));
    }
    // A refused move leaves everything as it was.
    if let Some(&(cell, kind)) = forbidden.first() {
        let before = (board.clone(), board.ply(), board.outcome());
        assert_eq!(
            board.try_play(cell),
            Err(IllegalMove::Forbidden { cell, kind })
        );
        assert_eq!((board.clone(), board.ply(), board.outcome()), before);
    }
}

/// Plays one random game (Black among its allowed cells), checking every
/// position and every move's outcome against the reference.
fn checked_game(geo: Geometry, rng: &mut SmallRng, tally: &mut Tally) {
    let mut board = Board::new(geo);
    loop {
        check_position(&mut board, tally);
        if board.is_over() {
            break;
        }
        let legal: Vec<Cell> = board.legal_moves().collect();
        let cell = legal[rng.random_range(0..legal.len())];
        let mover = board.to_move();
        let outcome = board.try_play(cell).unwrap();
        let grid = Grid::of(&board);
        let won = has_winning_line(&grid, mover, 5, Rule::Renju);
        assert_eq!(
            outcome.and_then(|o| o.winner()),
            won.then_some(mover),
            "{mover} on {cell}\n{}",
            shown(&board)
        );
        if let Some(kinrow::rules::Outcome::Win { line, .. }) = outcome {
            assert!(line.contains(cell));
            assert!(line.cells().all(|c| board.stone_at(c) == Some(mover)));
            match mover {
                Player::X => assert_eq!(line.len(), 5),
                Player::O => assert!(line.len() >= 5),
            }
        }
        if !won {
            // Drawn when full, or when Black is left only forbidden cells.
            let stuck = board.to_move() == Player::X
                && grid
                    .empty_cells()
                    .iter()
                    .all(|&c| renju_verdict(&grid, c, None).forbidden().is_some());
            assert_eq!(
                board.is_over(),
                grid.empty_cells().is_empty() || stuck,
                "{}",
                shown(&board)
            );
            tally.black_stuck += usize::from(stuck && !grid.empty_cells().is_empty());
        }
    }
    match board.outcome().and_then(|o| o.winner()) {
        Some(Player::X) => tally.black_wins += 1,
        Some(Player::O) => tally.white_wins += 1,
        None => tally.draws += 1,
    }
}

#[test]
fn every_cell_of_random_gomoku_board_games_agrees_with_the_reference() {
    let games = games_from_env(60);
    let mut rng = SmallRng::seed_from_u64(15);
    let mut tally = Tally::default();
    for _ in 0..games {
        checked_game(renju(15, 15), &mut rng, &mut tally);
    }
    eprintln!("15x15 renju, {games} random games: {tally:?}");
    // The games reached every kind and both winners.
    assert!(tally.forbidden.iter().all(|&n| n > 0), "{tally:?}");
    assert!(tally.black_wins > 0 && tally.white_wins > 0, "{tally:?}");
}

#[test]
fn every_cell_of_random_games_on_other_boards_agrees_with_the_reference() {
    let mut rng = SmallRng::seed_from_u64(7);
    for (rows, cols, games) in [
        (5, 5, 200),
        (6, 9, 100),
        (7, 7, 100),
        (9, 13, 30),
        (1, 20, 200),
        (20, 5, 30),
    ] {
        let mut tally = Tally::default();
        for _ in 0..games {
            checked_game(renju(rows, cols), &mut rng, &mut tally);
        }
        eprintln!("{rows}x{cols} renju, {games} random games: {tally:?}");
    }
}

/// Renju playouts: every game the playout engine plays, replayed through the
/// checked board, is legal move by move and ends as the playout said; and
/// Black's stones never land on a forbidden cell.
#[test]
fn playouts_play_renju_as_the_board_does() {
    let mut rng = SmallRng::seed_from_u64(3);
    for (rows, cols) in [(15, 15), (7, 7), (8, 8), (6, 11)] {
        let geo = renju(rows, cols);
        // From the empty board and from positions some random moves in.
        let mut bases = vec![Board::new(geo)];
        for plies in [6, 20, 40] {
            let mut b = Board::new(geo);
            for _ in 0..plies {
                let legal: Vec<Cell> = b.legal_moves().collect();
                if b.is_over() || legal.is_empty() {
                    break;
                }
                b.try_play(legal[rng.random_range(0..legal.len())]).unwrap();
            }
            if !b.is_over() {
                bases.push(b);
            }
        }
        for base in &bases {
            let mut playouts = Playouts::new(base);
            for _ in 0..200 {
                let winner = playouts.run(&mut rng);
                let mut board = base.clone();
                for cell in playouts.last_moves() {
                    assert!(!board.is_over(), "the playout went on after the end");
                    board
                        .try_play(cell)
                        .unwrap_or_else(|e| panic!("playout move {cell}: {e}\n{}", shown(&board)));
                }
                assert!(
                    board.is_over(),
                    "the playout stopped early\n{}",
                    shown(&board)
                );
                assert_eq!(board.outcome().and_then(|o| o.winner()), winner);
            }
        }
    }
}

/// How often checkers that stop judging threes early disagree with the
/// rules, on random 15x15 games: for each depth, the games in which, at
/// some position with Black to move, some empty cell is judged otherwise;
/// the games in which a move Black played is judged otherwise; and the
/// positions and the cells. Run with `cargo test --test rules_renju_random
/// -- --ignored --nocapture shortcut`; `RENJU_GAMES=N` sets the number of
/// games.
#[test]
#[ignore = "a measurement: prints figures, takes minutes"]
fn shortcut_checkers_against_the_rules() {
    const DEPTHS: [u32; 4] = [0, 1, 2, 3];
    let games = games_from_env(20_000);
    let mut rng = SmallRng::seed_from_u64(2024);
    // Per depth: games with a wrong cell, games with a wrong move played,
    // positions with a wrong cell, wrong cells.
    let mut wrong = [[0usize; 4]; 4];
    let (mut positions, mut cells, mut plies) = (0usize, 0usize, 0usize);
    let mut examples: Vec<Option<String>> = vec![None; 4];
    for _ in 0..games {
        let mut board = Board::new(renju(15, 15));
        let (mut game_cell, mut game_move) = ([false; 4], [false; 4]);
        while !board.is_over() {
            let legal: Vec<Cell> = board.legal_moves().collect();
            let chosen = legal[rng.random_range(0..legal.len())];
            if board.to_move() == Player::X {
                positions += 1;
                let grid = Grid::of(&board);
                let mut position = [false; 4];
                for cell in grid.empty_cells() {
                    cells += 1;
                    // Depths only change the verdict on cells that a
                    // checker without recursion calls a double-three.
                    if !two_crowded_lines(&grid, cell)
                        || renju_verdict(&grid, cell, Some(0))
                            != Verdict::Forbidden(Forbidden::DoubleThree)
                    {
                        continue;
                    }
                    let full = board.forbidden(cell);
                    for (i, &d) in DEPTHS.iter().enumerate() {
                        if renju_verdict(&grid, cell, Some(d)).forbidden() != full {
                            wrong[3][i] += 1;
                            position[i] = true;
                            game_move[i] |= cell == chosen;
                            if examples[i].is_none() {
                                examples[i] = Some(format!(
                                    "X on {cell} (rules: {full:?})\n{}",
                                    shown(&board)
                                ));
                            }
                        }
                    }
                }
                for i in 0..4 {
                    wrong[2][i] += usize::from(position[i]);
                    game_cell[i] |= position[i];
                }
            }
            board.try_play(chosen).unwrap();
            plies += 1;
        }
        for i in 0..4 {
            wrong[0][i] += usize::from(game_cell[i]);
            wrong[1][i] += usize::from(game_move[i]);
        }
    }
    println!(
        "{games} random 15x15 renju games, {:.1} plies each; {positions} positions with \
         Black to move, {cells} empty cells in them",
        plies as f64 / games as f64
    );
    let per = |n: usize, of: usize| match n {
        0 => "never".to_string(),
        _ => format!("1 in {:.0}", of as f64 / n as f64),
    };
    for (i, d) in DEPTHS.iter().enumerate() {
        println!(
            "threes judged to depth {d}: games with a wrong cell {} ({}), with a wrong move \
             played {} ({}); positions {} ({}); cells {} ({})",
            wrong[0][i],
            per(wrong[0][i], games),
            wrong[1][i],
            per(wrong[1][i], games),
            wrong[2][i],
            per(wrong[2][i], positions),
            wrong[3][i],
            per(wrong[3][i], cells),
        );
    }
    for (d, example) in DEPTHS.iter().zip(&examples) {
        if let Some(e) = example {
            println!("the first cell that depth {d} gets wrong: {e}");
        }
    }
}

/// Whether at least two lines through `cell` hold two X within three cells
/// of it: a stone there can make no two threes otherwise (a straight four
/// through it spans three cells either side).
fn two_crowded_lines(grid: &Grid, cell: Cell) -> bool {
    let (r, c) = (cell.row as i32, cell.col as i32);
    rules_reference::DIRECTIONS
        .iter()
        .filter(|&&(dr, dc)| {
            (-3..=3)
                .filter(|&i| i != 0 && grid.get(r + i * dr, c + i * dc) == Some('X'))
                .count()
                >= 2
        })
        .count()
        >= 2
}
