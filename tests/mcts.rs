//! The `mcts` bot: its proofs checked against exact values on every
//! tic-tac-toe position (and other small games), forced moves on big boards,
//! play against every opponent and against random, seeded replays, tree
//! reuse against a fresh tree, its memory cap and its clock.

mod common;

use common::games::{
    engine_session, geometry, limits, play_out, position, small_games, stones, walk, Oracle,
};

use kinrow::bots::{Bot, BotKind, Mcts};
use kinrow::rules::{Board, Cell, Geometry, Player, Rule};
use std::collections::HashMap;
use std::time::{Duration, Instant};

fn mcts(seed: u64, iterations: u32) -> Mcts {
    let mut bot = Mcts::new(seed);
    bot.set_option("iterations", &iterations.to_string())
        .unwrap();
    bot
}

#[test]
fn proves_every_position_of_small_games_and_plays_its_value() {
    for (geo, positions) in small_games() {
        let mut oracle = Oracle::default();
        let mut bot = mcts(7, 1_000_000);
        for pos in &positions {
            let mut b = pos.clone();
            let best = oracle.value(&mut b).signum() as i8;
            bot.new_game();
            let choice = bot.choose(pos, limits(60_000));
            assert!(b.check(choice).is_ok(), "{geo}\n{pos}\nillegal {choice}");
            let report = bot.last_report();
            // A forced move (the one empty cell, or the one block) is played
            // at once, unproven.
            let blocks = pos
                .legal_moves()
                .filter(|&c| pos.wins_through(pos.square(c), pos.to_move().other()))
                .count();
            let forced = blocks == 1 || pos.legal_moves().count() == 1;
            if !(forced && report.proven.is_none()) {
                assert_eq!(report.proven, Some(best), "{geo}\n{pos}\n{report:?}");
            }
            assert_eq!(
                oracle.move_value(&mut b, choice).signum() as i8,
                best,
                "{geo}\n{pos}\nplayed {choice}"
            );
        }
    }
}

#[test]
fn a_small_budget_still_takes_wins_and_blocks() {
    // One iteration: what the root's expansion sees alone.
    let positions = common::ongoing_positions(Geometry::TIC_TAC_TOE);
    let mut bot = mcts(3, 1);
    for pos in &positions {
        let me = pos.to_move();
        let legal: Vec<Cell> = pos.legal_moves().collect();
        let wins = |c: Cell, p: Player| pos.wins_through(pos.square(c), p);
        let choice = bot.choose(pos, limits(1000));
        if legal.iter().any(|&c| wins(c, me)) {
            assert!(wins(choice, me), "missed a win:\n{pos}\nplayed {choice}");
        } else if legal.iter().any(|&c| wins(c, me.other())) {
            assert!(
                wins(choice, me.other()),
                "missed a block:\n{pos}\nplayed {choice}"
            );
        }
    }
}

#[test]
fn on_big_boards_it_wins_blocks_and_proves_an_open_three() {
    let far_o = [(0, 0), (0, 14), (14, 0), (14, 14), (0, 7)];
    for rule in [Rule::Free, Rule::Exact] {
        let gomoku = geometry(15, 15, 5, rule);
        let mut bot = mcts(1, 200);
        // Four in a row, open at both ends: a win on the spot.
        let b = position(
            gomoku,
            &stones(&[(7, 3), (7, 4), (7, 5), (7, 6)], &far_o[..4]),
        );
        let c = bot.choose(&b, limits(5000));
        assert!(b.wins_through(b.square(c), Player::X), "played {c}");
        assert_eq!(bot.last_report().proven, Some(1));
        // O's four, X to move: the one open end.
        let b = position(
            gomoku,
            &stones(
                &[(7, 2), (0, 0), (0, 7), (14, 14)],
                &[(7, 3), (7, 4), (7, 5), (7, 6)],
            ),
        );
        assert_eq!(bot.choose(&b, limits(5000)), Cell::new(7, 7));
        // An open three to move: the open four next wins, proven through
        // the two threats the defender meets.
        let b = position(gomoku, &stones(&[(7, 5), (7, 6), (7, 7)], &far_o[..3]));
        let mut bot = mcts(1, 20_000);
        let c = bot.choose(&b, limits(5000));
        let report = bot.last_report();
        assert_eq!(report.proven, Some(1), "{rule}: played {c}, {report:?}");
        assert!([4, 8].contains(&c.col) && c.row == 7, "{rule}: played {c}");
    }
    // The exact rule: six in a row is no win, exactly five is.
    let x = [(7, 3), (7, 4), (7, 5), (7, 6), (7, 8)];
    let o = [(0, 0), (0, 2), (0, 4), (0, 6), (0, 8)];
    let b = position(geometry(15, 15, 5, Rule::Exact), &stones(&x, &o));
    assert_eq!(mcts(2, 50).choose(&b, limits(5000)), Cell::new(7, 2));
}

#[test]
fn never_loses_tic_tac_toe_against_any_opponent() {
    for seed in 0..3 {
        for side in [Player::X, Player::O] {
            let mut bot = mcts(seed, 100_000);
            let mut tally = HashMap::new();
            walk(
                &mut Board::new(Geometry::TIC_TAC_TOE),
                &mut bot,
                side,
                &mut tally,
            );
            assert!(tally.values().sum::<u32>() > 20, "{tally:?}");
            assert_eq!(
                tally.get(&Some(side.other())),
                None,
                "seed {seed} as {side}"
            );
        }
    }
}

#[test]
fn at_a_modest_budget_it_never_loses_tic_tac_toe_to_random() {
    // 300 iterations: far from enough to prove the empty board (about 4,000),
    // enough with the forced moves and the reused tree.
    let mut score = [0u32; 2];
    for seed in 0..150 {
        for side in [Player::X, Player::O] {
            let mut bot = mcts(seed, 300);
            let mut random = BotKind::Random.build(seed + 1000);
            let (moves, outcome) = match side {
                Player::X => play_out(Geometry::TIC_TAC_TOE, &mut bot, random.as_mut(), 5000),
                Player::O => play_out(Geometry::TIC_TAC_TOE, random.as_mut(), &mut bot, 5000),
            };
            assert_ne!(
                outcome.winner(),
                Some(side.other()),
                "seed {seed}: {moves:?}"
            );
            score[side.index()] += u32::from(outcome.winner() == Some(side));
        }
    }
    // It does not drift into draws: most games against random are won.
    assert!(
        score[0] > 140 && score[1] > 125,
        "wins as X, as O: {score:?}"
    );
}

#[test]
fn a_seed_and_a_budget_replay_the_game_and_seeds_vary_it() {
    let geo = geometry(7, 7, 5, Rule::Free);
    let game = |seed: u64| {
        let (mut x, mut o) = (mcts(seed, 3000), mcts(seed + 1, 2000));
        let mut board = Board::new(geo);
        while board.ply() < 12 && !board.is_over() {
            let bot = if board.to_move() == Player::X {
                &mut x
            } else {
                &mut o
            };
            let c = bot.choose(&board, limits(60_000));
            board.try_play(c).unwrap();
        }
        board.moves().collect::<Vec<_>>()
    };
    assert_eq!(game(4), game(4));
    assert_ne!(game(4), game(5));
    // A new seed mid-game drops the tree: the same position and seed give
    // the same choice whatever came before.
    let board = position(geo, &[(3, 3), (2, 4)]);
    let mut fresh = mcts(8, 2000);
    let want = fresh.choose(&board, limits(60_000));
    let mut used = mcts(1, 2000);
    used.choose(&position(geo, &[(3, 3)]), limits(60_000));
    used.reseed(8);
    assert_eq!(used.choose(&board, limits(60_000)), want);
}

/// The root's mean score after a search, its reused visits and the choice.
fn search(bot: &mut Mcts, board: &Board) -> (f64, u32, Cell) {
    let c = bot.choose(board, limits(60_000));
    let r = bot.last_report();
    (r.mean, r.reused_visits, c)
}

#[test]
fn a_reused_tree_gives_what_a_fresh_one_gives_on_average() {
    // With the budget counted in visits of the position's tree, a subtree
    // kept from the previous move is a head start, not a bias: over many
    // seeds, the chosen move's mean and the choices match a fresh tree's.
    // The bot plays both sides: O's search leaves a subtree under O's
    // move, a fixed one (so that nothing selects the subtrees it keeps).
    let geo = geometry(5, 5, 4, Rule::Free);
    let before = position(geo, &[(2, 2)]);
    let after = position(geo, &[(2, 2), (1, 1)]);
    let seeds = 120;
    let budget = 3000;
    let (mut fresh, mut reused) = (Vec::new(), Vec::new());
    let mut kept = 0;
    for seed in 0..seeds {
        let mut bot = mcts(seed, budget);
        fresh.push(search(&mut bot, &after));
        let mut bot = mcts(seed + 10_000, budget);
        search(&mut bot, &before);
        let r = search(&mut bot, &after);
        kept += u64::from(r.1);
        reused.push(r);
    }
    assert!(
        kept / seeds > 50,
        "the subtree is reused: {} visits on average",
        kept / seeds
    );
    assert!(fresh.iter().all(|r| r.1 == 0));
    let stats = |v: &[(f64, u32, Cell)]| {
        let n = v.len() as f64;
        let mean = v.iter().map(|r| r.0).sum::<f64>() / n;
        let var = v.iter().map(|r| (r.0 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var / n)
    };
    let ((m1, v1), (m2, v2)) = (stats(&fresh), stats(&reused));
    let z = (m1 - m2) / (v1 + v2).sqrt().max(1e-9);
    eprintln!("kept {} means {m1:.4} {m2:.4} z {z:.2}", kept / seeds);
    assert!(z.abs() < 4.0, "means {m1:.4} and {m2:.4}: z {z:.2}");
    // The choices: total variation distance between the two histograms.
    let hist = |v: &[(f64, u32, Cell)]| {
        let mut h: HashMap<Cell, f64> = HashMap::new();
        for r in v {
            *h.entry(r.2).or_default() += 1.0 / v.len() as f64;
        }
        h
    };
    let (h1, h2) = (hist(&fresh), hist(&reused));
    let tv: f64 = h1
        .keys()
        .chain(h2.keys())
        .collect::<std::collections::HashSet<_>>()
        .into_iter()
        .map(|c| (h1.get(c).unwrap_or(&0.0) - h2.get(c).unwrap_or(&0.0)).abs())
        .sum::<f64>()
        / 2.0;
    assert!(tv < 0.3, "choices differ by {tv:.2}: {h1:?} / {h2:?}");
}

#[test]
fn the_arena_stays_under_its_cap_and_the_clock_is_kept() {
    let gomoku = geometry(15, 15, 5, Rule::Free);
    let mut bot = Mcts::new(4);
    bot.set_option("memory", "1").unwrap();
    let cap = (1 << 20) / 24;
    let mut board = position(gomoku, &[(7, 7), (7, 8)]);
    for ms in [300, 30, 1] {
        let start = Instant::now();
        let c = bot.choose(&board, limits(ms));
        let took = start.elapsed();
        let r = bot.last_report();
        assert!(r.nodes <= cap, "{} nodes over the cap {cap}", r.nodes);
        // Loose: the machine is shared. The search stops before movetime.
        assert!(
            took < Duration::from_millis(ms + 250),
            "{ms} ms a move took {took:?}"
        );
        assert!(r.iterations > 0 || ms == 1, "{r:?}");
        board.try_play(c).unwrap();
        let reply = board.legal_moves().next().unwrap();
        board.try_play(reply).unwrap();
    }
    // The largest board at the smallest movetime.
    let mut board = Board::new(geometry(32, 32, 5, Rule::Exact));
    for _ in 0..6 {
        let start = Instant::now();
        let c = bot.choose(&board, limits(1));
        assert!(start.elapsed() < Duration::from_millis(500));
        board.try_play(c).unwrap();
    }
}

#[test]
fn options_are_checked() {
    let mut bot = Mcts::new(1);
    for (name, value) in [
        ("iterations", "-1"),
        ("iterations", "x"),
        ("exploration", "nan"),
        ("exploration", "-0.5"),
        ("memory", "0"),
        ("reuse", "maybe"),
        ("depth", "3"),
    ] {
        assert!(bot.set_option(name, value).is_err(), "{name} {value}");
    }
    for (name, value) in [
        ("iterations", "0"),
        ("exploration", "0.7"),
        ("memory", "16"),
        ("reuse", "off"),
    ] {
        bot.set_option(name, value).unwrap();
    }
}

#[test]
fn through_the_engine_it_takes_options_and_replays_a_seed() {
    let r = engine_session(
        &["--bot", "mcts", "--seed", "1"],
        "set iterations x\nset reuse off\nset iterations 50\nnewgame 3 3 3\nmove 1 1\nmove 2 2\nmove 1 2\ngenmove\nstatus\n",
    );
    assert!(r[0].starts_with("? invalid option: iterations"), "{r:?}");
    assert_eq!(
        r[1..],
        ["=", "=", "=", "=", "=", "=", "= 1 3", "= ongoing X"]
    );

    let game = format!(
        "set bot mcts\nset iterations 500\nnewgame 7 7 5\n{}show\n",
        "genmove\n".repeat(20)
    );
    let a = engine_session(&["--seed", "5"], &game);
    assert_eq!(a, engine_session(&["--seed", "5"], &game));
    let input = format!("newgame 3 3 3\n{}status\n", "genmove\n".repeat(9));
    let r = engine_session(&["--bot", "mcts", "--movetime", "2000"], &input);
    assert_eq!(r.last().map(String::as_str), Some("= draw"), "{r:?}");
}
