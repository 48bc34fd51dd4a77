//! The bots under renju (and caro, at the end), through the real `kinrow` binary: no bot ever
//! chooses a cell forbidden to Black (whole games, each `genmove` checked
//! against the `forbidden` list asked just before it), and minimax keeps
//! off a forbidden cell where its threat search would want one.

use assert_cmd::cargo::cargo_bin_cmd;

/// Runs `kinrow ARGS` with `input`; the responses, asserting exit 0.
fn responses(args: &[&str], input: &str) -> Vec<String> {
    let out = cargo_bin_cmd!("kinrow")
        .args(args)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .expect("kinrow runs");
    assert!(out.status.success(), "{:?}", out.status);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    text.split_terminator("\n\n").map(str::to_string).collect()
}

fn moves(cells: &[(u32, u32)]) -> String {
    cells
        .iter()
        .map(|(r, c)| format!("move {r} {c}\n"))
        .collect()
}

/// Self-play under renju on 15x15, `forbidden` before every `genmove`;
/// how many of Black's moves had forbidden cells to avoid.
fn self_play_keeps_off_forbidden_cells(bot: &str, games: u32, extra: &[&str]) -> usize {
    let mut input = String::new();
    for seed in 0..games {
        input.push_str(&format!("newgame 15 15 5 renju\nset seed {seed}\n"));
        input.push_str(&"forbidden\ngenmove\n".repeat(225));
    }
    let mut args = vec!["--bot", bot];
    args.extend_from_slice(extra);
    let r = responses(&args, &input);
    let mut checked = 0;
    let mut forbidden: Vec<String> = Vec::new();
    let mut finished = 0;
    for reply in &r {
        if reply == "=" {
            continue; // newgame, set seed; an empty forbidden list
        }
        if let Some(list) = reply
            .strip_prefix("= ")
            .filter(|l| l.contains("double") || l.contains("overline"))
        {
            forbidden = list
                .lines()
                .map(|l| l.rsplit_once(' ').unwrap().0.to_string())
                .collect();
            continue;
        }
        if reply.starts_with("? game over") {
            finished += 1;
            forbidden.clear();
            continue;
        }
        let cell = reply
            .strip_prefix("= ")
            .unwrap_or_else(|| panic!("{bot}: genmove answered {reply:?}"));
        assert!(
            !forbidden.contains(&cell.to_string()),
            "{bot} chose forbidden {cell}"
        );
        if !forbidden.is_empty() {
            checked += 1;
        }
        forbidden.clear();
    }
    assert!(
        finished >= games as usize,
        "{bot}: every game ended ({finished})"
    );
    checked
}

#[test]
fn random_and_blocking_never_choose_a_forbidden_cell() {
    for bot in ["random", "blocking"] {
        let checked = self_play_keeps_off_forbidden_cells(bot, 12, &[]);
        assert!(
            checked >= 10,
            "{bot}: only {checked} moves had forbidden cells near"
        );
    }
}

#[test]
fn searching_bots_never_choose_a_forbidden_cell() {
    for bot in ["minimax", "mcts"] {
        let checked = self_play_keeps_off_forbidden_cells(bot, 2, &["--movetime", "20"]);
        println!("{bot}: {checked} of Black's moves had forbidden cells");
    }
}

/// Black X.XXX.X on row 5: 5 5 makes two fours, a win under the free rule
/// and a double-four, forbidden, under renju.
const DOUBLE_FOUR: [(u32, u32); 8] = [
    (5, 1),
    (12, 1),
    (5, 3),
    (12, 3),
    (5, 4),
    (12, 5),
    (5, 7),
    (12, 7),
];

#[test]
fn minimax_wants_the_double_four_under_free_and_keeps_off_it_under_renju() {
    for (rule, wanted) in [("free", true), ("renju", false)] {
        for seed in 0..3 {
            let input = format!(
                "newgame 15 15 5 {rule}\nset seed {seed}\n{}genmove\n",
                moves(&DOUBLE_FOUR)
            );
            let r = responses(&["--bot", "minimax", "--movetime", "300"], &input);
            let reply = r.last().unwrap();
            assert!(reply.starts_with("= "), "{rule}: {reply}");
            assert_eq!(reply == "= 5 5", wanted, "{rule} seed {seed}: {reply}");
        }
    }
}

/// White's four on the diagonal 4 3 … 7 6 (3 2 blocked by Black) wins at
/// 8 7, a double-three for Black: Black cannot block and has lost, but
/// every bot still answers a legal move.
const FORCED_ONTO_FORBIDDEN: [(u32, u32); 10] = [
    (8, 8),
    (4, 3),
    (8, 9),
    (5, 4),
    (9, 7),
    (6, 5),
    (10, 7),
    (7, 6),
    (3, 2),
    (15, 15),
];

#[test]
fn a_black_that_must_block_on_a_forbidden_cell_still_plays_a_legal_move() {
    for bot in ["random", "blocking", "minimax", "mcts"] {
        let input = format!(
            "newgame 15 15 5 renju\n{}forbidden\ngenmove\ngenmove\nstatus\n",
            moves(&FORCED_ONTO_FORBIDDEN)
        );
        let r = responses(&["--bot", bot, "--movetime", "200"], &input);
        assert_eq!(r[11], "= 8 7 double-three", "{bot}");
        assert!(
            r[12].starts_with("= ") && r[12] != "= 8 7",
            "{bot}: {}",
            r[12]
        );
        if bot != "random" {
            assert_eq!(r[13], "= 8 7", "{bot}: White takes its five");
            assert_eq!(r[14], "= win O 4 3 5 4 6 5 7 6 8 7", "{bot}");
        }
    }
}

/// White to move: the four 4 3 … 7 6 (3 2 blocked by Black) leaves Black
/// one block, 8 7, a double-three: White forces Black onto a forbidden cell
/// and wins. The searching bots find it.
#[test]
fn white_forces_black_onto_a_forbidden_cell() {
    let white_to_move = [
        (8, 8),
        (4, 3),
        (8, 9),
        (5, 4),
        (9, 7),
        (6, 5),
        (10, 7),
        (15, 15),
        (3, 2),
    ];
    for bot in ["minimax", "mcts"] {
        for seed in 0..2 {
            let input = format!(
                "newgame 15 15 5 renju\nset seed {seed}\n{}genmove\n",
                moves(&white_to_move)
            );
            let r = responses(&["--bot", bot, "--movetime", "300"], &input);
            assert_eq!(r.last().unwrap(), "= 7 6", "{bot} seed {seed}");
        }
    }
}

/// Caro: Black's 8 8 would close `O X X X X . O` into a five blocked at
/// both ends, which does not win, while White threatens five at 3 7.
/// Under the free rule 8 8 wins; under caro the bots block.
#[test]
fn under_caro_a_five_closed_at_both_ends_is_no_win_for_the_bots() {
    let position = [
        (8, 4),
        (8, 3),
        (8, 5),
        (8, 9),
        (8, 6),
        (3, 3),
        (8, 7),
        (3, 4),
        (3, 2),
        (3, 5),
        (12, 12),
        (3, 6),
    ];
    for bot in ["minimax", "mcts", "blocking"] {
        for (rule, want) in [
            ("free", "= 8 8"),
            ("caro", "= 3 7"),
            ("caro-exact", "= 3 7"),
        ] {
            let input = format!("newgame 15 15 5 {rule}\n{}genmove\n", moves(&position));
            let r = responses(&["--bot", bot, "--movetime", "200"], &input);
            assert_eq!(r.last().unwrap(), want, "{bot} {rule}");
        }
    }
}
