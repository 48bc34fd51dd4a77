//! Renju and caro through the real `kinrow` binary: `newgame … renju`,
//! forbidden cells refused with their kind and the board unchanged, left
//! out of `legal`, marked by `show`, listed by `forbidden`; caro's blocked
//! fives.

use assert_cmd::cargo::cargo_bin_cmd;

/// Runs `kinrow ARGS` with `input` on stdin; the responses (each ends with
/// an empty line), asserting exit 0.
fn responses(args: &[&str], input: &str) -> Vec<String> {
    let out = cargo_bin_cmd!("kinrow")
        .args(args)
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("kinrow runs");
    assert!(out.status.success(), "{:?}", out.status);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.ends_with("\n\n"), "unterminated: {text:?}");
    text.split_terminator("\n\n").map(str::to_string).collect()
}

/// `move R C` lines for cells given as `(row, col)`, X first.
fn moves(cells: &[(u32, u32)]) -> String {
    cells
        .iter()
        .map(|(r, c)| format!("move {r} {c}\n"))
        .collect()
}

/// Black's open two across (8 8, 8 9) and down (9 7, 10 7): 8 7 makes two
/// open threes at once. White's stones are far away.
const DOUBLE_THREE: [(u32, u32); 8] = [
    (8, 8),
    (1, 1),
    (8, 9),
    (1, 3),
    (9, 7),
    (15, 15),
    (10, 7),
    (15, 13),
];

#[test]
fn a_double_three_is_refused_with_its_kind_and_the_board_unchanged() {
    let input = format!(
        "newgame 15 15 5 renju\n{}forbidden\nshow\nmove 8 7\nshow\nstatus\nlegal\n",
        moves(&DOUBLE_THREE)
    );
    let r = responses(&[], &input);
    assert!(r[..9].iter().all(|a| a == "="), "{r:?}");
    assert_eq!(r[9], "= 8 7 double-three");
    let show = &r[10];
    assert!(
        show.contains("\n 8  .  .  .  .  .  .  #  X  X  .  .  .  .  .  .\n"),
        "{show}"
    );
    assert!(
        show.ends_with("\nX to move; # forbidden to X: 8 7 double-three"),
        "{show}"
    );
    assert_eq!(
        r[11],
        "? illegal move: 8 7 is forbidden to X (double-three)"
    );
    assert_eq!(r[12], r[10], "the refused move changed nothing");
    assert_eq!(r[13], "= ongoing X");
    let legal = r[14].strip_prefix("= ").unwrap();
    let cells: Vec<&str> = legal.split(' ').collect();
    let pairs: Vec<String> = cells.chunks(2).map(|p| p.join(" ")).collect();
    assert_eq!(pairs.len(), 225 - 8 - 1, "every empty cell but 8 7");
    assert!(!pairs.contains(&"8 7".to_string()));
    assert!(pairs.contains(&"8 10".to_string()));
}

#[test]
fn white_may_take_black_s_forbidden_cell() {
    let input = format!(
        "newgame 15 15 5 renju\n{}move 2 8\nforbidden\nshow\nmove 8 7\nstatus\n",
        moves(&DOUBLE_THREE)
    );
    let r = responses(&[], &input);
    assert_eq!(r[9], "=");
    assert_eq!(r[10], "=", "nothing is forbidden to White");
    assert!(!r[11].contains('#'), "{}", r[11]);
    assert!(r[11].ends_with("\nO to move"), "{}", r[11]);
    assert_eq!(r[12], "=");
    assert_eq!(r[13], "= ongoing X");
}

#[test]
fn overline_and_double_four_are_forbidden_and_exact_five_wins() {
    // Black 8 1 8 2 8 3 . 8 5 8 6: 8 4 makes six, an overline.
    let black = [(8, 1), (8, 2), (8, 3), (8, 5), (8, 6)];
    let white = [(1, 1), (1, 3), (1, 5), (1, 7), (1, 9)];
    let mut cells = Vec::new();
    for (b, w) in black.iter().zip(white.iter()) {
        cells.push(*b);
        cells.push(*w);
    }
    let input = format!(
        "newgame 15 15 5 renju\n{}forbidden\nmove 8 4\nmove 12 12\nstatus\n",
        moves(&cells)
    );
    let r = responses(&[], &input);
    assert_eq!(r[11], "= 8 4 overline");
    assert_eq!(r[12], "? illegal move: 8 4 is forbidden to X (overline)");
    assert_eq!(r[13], "=");
    assert_eq!(r[14], "= ongoing O");

    // X.XXX.X on one line: two fours, the middle cell is a double-four.
    let black = [(5, 1), (5, 3), (5, 4), (5, 7)];
    let white = [(1, 1), (1, 3), (1, 5), (1, 7)];
    let mut cells = Vec::new();
    for (b, w) in black.iter().zip(white.iter()) {
        cells.push(*b);
        cells.push(*w);
    }
    let input = format!(
        "newgame 15 15 5 renju\n{}forbidden\nmove 5 5\n",
        moves(&cells)
    );
    let r = responses(&[], &input);
    assert!(
        r[9].lines()
            .any(|l| l.trim_start_matches("= ") == "5 5 double-four"),
        "{}",
        r[9]
    );
    assert_eq!(r[10], "? illegal move: 5 5 is forbidden to X (double-four)");

    // Exactly five wins for Black; White wins with six.
    let input = "newgame 15 15 5 renju\nmove 8 1\nmove 9 1\nmove 8 2\nmove 9 2\nmove 8 3\n\
                 move 9 3\nmove 8 4\nmove 9 4\nmove 8 5\nstatus\n";
    let r = responses(&[], input);
    assert_eq!(r[10], "= win X 8 1 8 2 8 3 8 4 8 5");
}

#[test]
fn the_rule_comes_from_the_flag_too_and_the_solver_says_it_does_not_know_it() {
    let input = format!("{}forbidden\nnewgame 5 5 5\nsolve\n", moves(&DOUBLE_THREE));
    let r = responses(&["--board", "15x15", "--rule", "renju"], &input);
    assert_eq!(r[8], "= 8 7 double-three");
    assert_eq!(r[9], "=");
    assert_eq!(
        r[10],
        "? unacceptable size: the solver knows the free and exact rules, not renju"
    );
    let r = responses(&[], "newgame 15 15 4 renju\nnewgame 15 15 5 gomoku\n");
    assert!(r[0].starts_with("? unacceptable size: "), "{}", r[0]);
    assert_eq!(
        r[1],
        "? syntax error: unknown rule 'gomoku' (expected free, exact, renju, caro or caro-exact)"
    );
    let r = responses(&[], "known_command forbidden\nnewgame 3 3\n");
    assert_eq!(r[0], "= true");
    assert_eq!(
        r[1],
        "? syntax error: usage: newgame [ROWS COLS K [free|exact|renju|caro|caro-exact]]"
    );
}

#[test]
fn caro_five_blocked_at_both_ends_does_not_win_and_the_edge_blocks_nothing() {
    // O 8 1, X 8 2..8 6, O 8 7: a five closed at both ends by O.
    let cells = [
        (8, 2),
        (8, 1),
        (8, 3),
        (1, 1),
        (8, 4),
        (1, 3),
        (8, 5),
        (8, 7),
        (8, 6),
    ];
    let input = format!("newgame 15 15 5 caro\n{}status\nforbidden\n", moves(&cells));
    let r = responses(&[], &input);
    assert!(r[..10].iter().all(|a| a == "="), "{r:?}");
    assert_eq!(r[10], "= ongoing O", "the blocked five does not win");
    assert_eq!(r[11], "=", "caro forbids nothing");

    // A five along the top edge with O at its only open end wins.
    let cells = [
        (1, 1),
        (1, 6),
        (1, 2),
        (3, 1),
        (1, 3),
        (3, 3),
        (1, 4),
        (3, 5),
        (1, 5),
    ];
    for rule in ["caro", "caro-exact"] {
        let input = format!("newgame 15 15 5 {rule}\n{}status\n", moves(&cells));
        let r = responses(&[], &input);
        assert_eq!(r[10], "= win X 1 1 1 2 1 3 1 4 1 5", "{rule}");
    }

    // Six in a row wins under caro, not under caro-exact.
    let cells = [
        (8, 1),
        (1, 1),
        (8, 2),
        (1, 3),
        (8, 3),
        (1, 5),
        (8, 5),
        (1, 7),
        (8, 6),
        (1, 9),
        (8, 4),
    ];
    let input = format!("newgame 15 15 5 caro\n{}status\n", moves(&cells));
    assert_eq!(
        responses(&[], &input)[12],
        "= win X 8 1 8 2 8 3 8 4 8 5 8 6"
    );
    let input = format!("newgame 15 15 5 caro-exact\n{}status\n", moves(&cells));
    assert_eq!(responses(&[], &input)[12], "= ongoing O");
}
