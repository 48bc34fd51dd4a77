//! Hostile and random input through the real `kinrow` binary, request by
//! request with stdin kept open: every request gets exactly one well-formed
//! reply, in time; every reply agrees with the rules core; a refused request
//! changes nothing; the bots play legal moves on any shape; a seed replays
//! a game.

#[path = "common/live.rs"]
mod live;

use kinrow::rules::{Board, Cell, Geometry, Outcome, Rule};
use live::Live;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// `status` as the engine must give it for `board`.
fn status(board: &Board) -> String {
    match board.outcome() {
        None => format!("= ongoing {}", board.to_move()),
        Some(o) => format!("= {o}"),
    }
}

/// `legal` as the engine must give it for `board`.
fn legal(board: &Board) -> String {
    let cells: Vec<String> = board.legal_moves().map(|c| c.to_string()).collect();
    if cells.is_empty() {
        "=".to_string()
    } else {
        format!("= {}", cells.join(" "))
    }
}

/// Asserts that the engine's game is `board`: status, legal moves and the
/// board drawn by `show`.
fn same_game(engine: &mut Live, board: &Board, context: &str) {
    assert_eq!(engine.ask("status"), status(board), "{context}");
    assert_eq!(engine.ask("legal"), legal(board), "{context}");
    let shown = engine.ask("show");
    let drawn = format!("=\n{board}\n");
    assert!(shown.starts_with(&drawn), "{context}: {shown:?}");
}

/// Parses a `genmove` reply, `= R C`.
fn played(reply: &str) -> Cell {
    reply
        .strip_prefix("= ")
        .and_then(|rc| rc.parse().ok())
        .unwrap_or_else(|| panic!("not a move: {reply:?}"))
}

/// Requests that must be refused with the given prefix whatever the game:
/// wrong arity for every command, malformed numbers, bad sizes and options,
/// odd characters.
const REFUSED: &[(&str, &str)] = &[
    ("newgame 3", "syntax error"),
    ("newgame 3 3", "syntax error"),
    ("newgame 3 3 3 free 1", "syntax error"),
    ("newgame 3 3 3 Exact", "syntax error"),
    ("newgame 3 3 -3", "syntax error"),
    ("newgame 0 3 3", "unacceptable size"),
    ("newgame 33 3 3", "unacceptable size"),
    ("newgame 3 33 3", "unacceptable size"),
    ("newgame 3 3 0", "unacceptable size"),
    ("newgame 2 3 4", "unacceptable size"),
    ("newgame 32 32 33", "unacceptable size"),
    ("newgame 99999999999999999999999 1 1", "unacceptable size"),
    ("move", "syntax error"),
    ("move 1", "syntax error"),
    ("move 1 1 1", "syntax error"),
    ("move a 1", "syntax error"),
    ("move 1 -1", "syntax error"),
    ("move 1.0 1", "syntax error"),
    ("move +1 1", "syntax error"),
    ("move \u{661} \u{662}", "syntax error"),
    ("move 1\u{a0}1", "syntax error"),
    ("move 0 1", "illegal move"),
    ("move 1 33", "illegal move"),
    ("move 4294967296 1", "illegal move"),
    ("genmove 1 1", "syntax error"),
    ("genmove X", "syntax error"),
    ("show all", "syntax error"),
    ("status now", "syntax error"),
    ("undo 2", "syntax error"),
    ("legal 1", "syntax error"),
    ("set", "syntax error"),
    ("set bot", "syntax error"),
    ("set bot random blocking", "syntax error"),
    ("set bot Random", "invalid option"),
    ("set movetime 0", "invalid option"),
    ("set movetime -5", "invalid option"),
    ("set movetime 86400001", "invalid option"),
    ("set movetime 1.5", "invalid option"),
    ("set seed -1", "invalid option"),
    ("set seed 18446744073709551616", "invalid option"),
    ("set colour red", "invalid option"),
    ("set depth x", "invalid option"),
    ("known_command", "syntax error"),
    ("known_command a b", "syntax error"),
    ("list_commands all", "syntax error"),
    ("protocol_version 2", "syntax error"),
    ("name me", "syntax error"),
    ("version 1", "syntax error"),
    ("quit now", "syntax error"),
    ("GENMOVE", "unknown command"),
    ("Move 1 1", "unknown command"),
    ("\u{feff}status", "unknown command"),
    ("st\u{e4}tus", "unknown command"),
    ("\u{1f3b2}", "unknown command"),
    ("= 1 1", "unknown command"),
    ("? oops", "unknown command"),
];

/// One random session: requests of every kind, each reply checked against a
/// board kept by the rules core; after every refusal, the game must be as it
/// was.
fn session(seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let bots = ["random", "blocking", "minimax"];
    let bot = bots[seed as usize % 3];
    let mut engine = Live::start(&["--bot", bot, "--seed", &seed.to_string(), "--movetime", "1"]);
    let mut board = Board::new(Geometry::TIC_TAC_TOE);
    let side = |rng: &mut SmallRng| match rng.random_range(0..5) {
        0 => 1,
        1 => 32,
        2 => rng.random_range(2..=4),
        _ => rng.random_range(1..=32),
    };
    for step in 0..250 {
        let context = format!("seed {seed}, step {step}, {}", board.geometry());
        let roll = rng.random_range(0..100);
        if roll < 30 {
            let reply = engine.ask("genmove");
            if let Some(outcome) = board.outcome() {
                assert_eq!(reply, format!("? game over: the game is over ({outcome})"));
            } else {
                let cell = played(&reply);
                board
                    .try_play(cell)
                    .unwrap_or_else(|e| panic!("{context}: {bot} played {cell}: {e}"));
            }
        } else if roll < 50 {
            // Mostly legal moves; else anywhere, on or off the board.
            let empties: Vec<Cell> = board.legal_moves().collect();
            let (r, c) = if !empties.is_empty() && rng.random_ratio(4, 5) {
                let cell = empties[rng.random_range(0..empties.len())];
                (cell.row as u32 + 1, cell.col as u32 + 1)
            } else {
                (rng.random_range(0..=34), rng.random_range(0..=34))
            };
            let reply = engine.ask(&format!("move {r} {c}"));
            let legal = Cell::from_one_based(r, c).map(|cell| board.clone().try_play(cell));
            match legal {
                Some(Ok(_)) => {
                    assert_eq!(reply, "=", "{context}");
                    board.try_play(Cell::from_one_based(r, c).unwrap()).unwrap();
                }
                Some(Err(e)) => assert_eq!(reply, format!("? illegal move: {e}"), "{context}"),
                None => {
                    assert!(reply.starts_with("? illegal move: "), "{context}: {reply}");
                    same_game(&mut engine, &board, &context);
                }
            }
        } else if roll < 62 {
            // Undo, out of finished games too, down to the empty board.
            let reply = engine.ask("undo");
            match board.undo() {
                Some(_) => assert_eq!(reply, "=", "{context}"),
                None => assert_eq!(reply, "? cannot undo: the board is empty", "{context}"),
            }
        } else if roll < 68 {
            let (rows, cols) = (side(&mut rng), side(&mut rng));
            let k = rng.random_range(1..=rows.max(cols).min(6));
            let rule = [Rule::Free, Rule::Exact][rng.random_range(0..2)];
            assert_eq!(
                engine.ask(&format!("newgame {rows} {cols} {k} {rule}")),
                "=",
                "{context}"
            );
            board = Board::new(Geometry::new(rows, cols, k, rule).unwrap());
        } else if roll < 72 {
            assert_eq!(engine.ask("newgame"), "=", "{context}");
            board = Board::new(board.geometry());
        } else if roll < 76 {
            // Options that are accepted change no game.
            let option =
                ["set seed 99", "set movetime 2", "set movetime 1"][rng.random_range(0..3)];
            assert_eq!(engine.ask(option), "=", "{context}");
        } else if roll < 92 {
            // A refused request, with or without an id (leading zeros
            // allowed, the id echoed as a number; too long, no id at all).
            let (line, prefix) = REFUSED[rng.random_range(0..REFUSED.len())];
            let (id, echo) = [
                ("", String::new()),
                ("5 ", "5".to_string()),
                ("007 ", "7".to_string()),
                ("999999999999999999 ", "999999999999999999".to_string()),
            ][rng.random_range(0..4)]
            .clone();
            let reply = engine.ask(&format!("{id}{line}"));
            assert!(
                reply.starts_with(&format!("?{echo} {prefix}")),
                "{context}: {id}{line:?} answered {reply:?}"
            );
            assert!(!reply.contains("\n\n"));
            same_game(&mut engine, &board, &format!("{context}, after {line:?}"));
        } else {
            // Lines that get no reply, then a request in the same write: the
            // next reply is that request's.
            let silent = ["", "   ", "\t", "# comment", "\r", "\x00", "\x07 # bell"];
            let line = silent[rng.random_range(0..silent.len())];
            let noisy = [
                "status",
                " status ",
                "st\x00atus",
                "\tstatus\t# hi",
                "status\r",
            ];
            let request = noisy[rng.random_range(0..noisy.len())];
            engine.send(format!("{line}\n{request}\n").as_bytes());
            assert_eq!(engine.reply(request), status(&board), "{context}");
        }
        if step % 10 == 0 {
            same_game(&mut engine, &board, &context);
        }
    }
    // A too-long id gets no id back; nothing changes.
    let reply = engine.ask("1234567890123456789 genmove");
    assert_eq!(reply, "? syntax error: id too long");
    same_game(&mut engine, &board, "after an id too long");
    engine.finish();
}

#[test]
fn random_sessions_agree_with_the_rules_and_refusals_change_nothing() {
    for seed in 0..9 {
        session(seed);
    }
}

#[test]
fn every_bot_plays_legal_moves_at_the_edges() {
    for bot in ["random", "blocking", "minimax"] {
        let mut engine = Live::start(&["--bot", bot, "--seed", "3", "--movetime", "1"]);
        // 1x1: the first move wins; undo, and the bot plays it again.
        assert_eq!(engine.ask("newgame 1 1 1 exact"), "=");
        assert_eq!(engine.ask("genmove"), "= 1 1", "{bot}");
        assert_eq!(engine.ask("status"), "= win X 1 1");
        assert!(engine.ask("genmove").starts_with("? game over"));
        assert_eq!(engine.ask("undo"), "=");
        assert_eq!(engine.ask("genmove"), "= 1 1", "{bot}");
        // Nobody can win (a line of K = the whole board): played to a draw,
        // then refused; undo reopens the game and the bot fills the cell.
        // The last two shapes have K beyond the shorter side.
        for (rows, cols, k, rule) in [
            (1, 7, 7, "exact"),
            (7, 1, 7, "free"),
            (1, 32, 32, "exact"),
            (2, 9, 9, "exact"),
            (3, 32, 30, "free"),
        ] {
            let geo = Geometry::new(rows, cols, k, rule.parse().unwrap()).unwrap();
            assert_eq!(
                engine.ask(&format!("newgame {rows} {cols} {k} {rule}")),
                "="
            );
            let mut board = Board::new(geo);
            while !board.is_over() {
                let cell = played(&engine.ask("genmove"));
                board
                    .try_play(cell)
                    .unwrap_or_else(|e| panic!("{bot} on {geo}: {cell}: {e}"));
            }
            if rows == 1 || cols == 1 {
                assert_eq!(board.outcome(), Some(Outcome::Draw), "{geo}");
            }
            assert_eq!(engine.ask("status"), status(&board));
            assert!(
                engine.ask("genmove").starts_with("? game over"),
                "{bot} {geo}"
            );
            assert_eq!(engine.ask("legal"), "=");
            assert_eq!(engine.ask("undo"), "=");
            let last = board.last_move().unwrap();
            let was_full = board.is_full();
            board.undo();
            let cell = played(&engine.ask("genmove"));
            if was_full {
                assert_eq!(cell, last, "{bot} {geo}: the only empty cell");
            }
            board.try_play(cell).unwrap();
            assert_eq!(engine.ask("status"), status(&board));
        }
        engine.finish();
    }
}

#[test]
fn a_seed_replays_the_game_on_odd_shapes() {
    // Random and blocking do not look at the clock; minimax does, so its
    // search is capped by depth (its threat phases by their node budgets)
    // and given far more time than it needs: a minute, which no move comes
    // near even on a loaded machine (5 s once did on 32x32).
    let shapes = ["1 7 3 free", "5 2 2 exact", "9 3 4 free", "32 32 5 exact"];
    for bot in ["random", "blocking", "minimax"] {
        for shape in shapes {
            let plies = if bot == "minimax" { 14 } else { 40 };
            let script = format!(
                "newgame {shape}\nset depth 2\n{}status\n",
                "genmove\n".repeat(plies)
            );
            let replay = |seed: &str| {
                let mut engine =
                    Live::start(&["--bot", bot, "--seed", seed, "--movetime", "60000"]);
                engine.send(script.as_bytes());
                let replies: Vec<String> = (0..plies + 3).map(|_| engine.reply(&script)).collect();
                engine.finish();
                replies
            };
            let a = replay("21");
            assert_eq!(a, replay("21"), "{bot} on {shape}");
            assert!(a[2..plies + 2]
                .iter()
                .all(|r| r.starts_with("= ") || r.starts_with("? game over")));
        }
    }
}
