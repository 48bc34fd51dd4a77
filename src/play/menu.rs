//! The menu, in the spirit of the classic console games: play or quit, then
//! who plays, who is X, and the board.

use super::console::Console;
use super::setup::{presets, Setup};
use crate::bots::BotKind;
use crate::client::SeatSpec;
use crate::rules::{Geometry, Rule, MAX_SIDE};
use std::io::{self, BufRead, Write};

/// Walks a person through the menu; `None` when they quit or the input ends.
pub fn choose_setup<R: BufRead, W: Write>(con: &mut Console<R, W>) -> io::Result<Option<Setup>> {
    con.say("kinrow play: k in a row, from tic-tac-toe to gomoku.")?;
    if choose(con, "", &["play", "quit"])? != Some(0) {
        return Ok(None);
    }
    let modes = [
        "two people at one keyboard",
        "a person against a bot",
        "two bots (watch them play)",
    ];
    let Some(mode) = choose(con, "Who plays?", &modes)? else {
        return Ok(None);
    };
    let (x, o) = match mode {
        0 => (SeatSpec::Human, SeatSpec::Human),
        1 => {
            let Some(bot) = choose_bot(con, "Which bot?")? else {
                return Ok(None);
            };
            let sides = ["you", &format!("the bot ({bot})")];
            match choose(con, "Who plays X (X moves first)?", &sides)? {
                Some(0) => (SeatSpec::Human, SeatSpec::Bot(bot)),
                Some(_) => (SeatSpec::Bot(bot), SeatSpec::Human),
                None => return Ok(None),
            }
        }
        _ => {
            let Some(x) = choose_bot(con, "Which bot plays X (X moves first)?")? else {
                return Ok(None);
            };
            let Some(o) = choose_bot(con, "Which bot plays O?")? else {
                return Ok(None);
            };
            (SeatSpec::Bot(x), SeatSpec::Bot(o))
        }
    };
    let Some(geometry) = choose_board(con)? else {
        return Ok(None);
    };
    Ok(Some(Setup { geometry, x, o }))
}

/// One of the engine's bots.
fn choose_bot<R: BufRead, W: Write>(
    con: &mut Console<R, W>,
    title: &str,
) -> io::Result<Option<BotKind>> {
    let names: Vec<String> = BotKind::ALL
        .iter()
        .map(|&b| match bot_blurb(b) {
            "" => b.to_string(),
            blurb => format!("{b}: {blurb}"),
        })
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(choose(con, title, &refs)?.and_then(|i| BotKind::ALL.get(i).copied()))
}

/// What a bot does, for the menu.
fn bot_blurb(bot: BotKind) -> &'static str {
    match bot {
        BotKind::Random => "any free cell",
        BotKind::Blocking => "wins or blocks when it can",
        BotKind::Minimax => "searches ahead (perfect on small boards)",
        BotKind::Mcts => "samples random games (Monte Carlo tree search)",
        // Bots added to the engine later show up by name.
        #[allow(unreachable_patterns)]
        _ => "",
    }
}

/// A preset board or a custom one.
fn choose_board<R: BufRead, W: Write>(con: &mut Console<R, W>) -> io::Result<Option<Geometry>> {
    let presets = presets();
    let mut names: Vec<&str> = presets.iter().map(|p| p.name).collect();
    names.push("custom: rows, columns, K and rule");
    let Some(i) = choose(con, "Which board?", &names)? else {
        return Ok(None);
    };
    if let Some(p) = presets.get(i) {
        return Ok(Some(p.geometry));
    }
    let side = MAX_SIDE as u32;
    let Some(rows) = ask_number(con, &format!("Rows (1-{side}):"), side)? else {
        return Ok(None);
    };
    let Some(cols) = ask_number(con, &format!("Columns (1-{side}):"), side)? else {
        return Ok(None);
    };
    let most = rows.max(cols);
    let Some(k) = ask_number(con, &format!("Stones in a row to win, K (1-{most}):"), most)? else {
        return Ok(None);
    };
    let rules = [
        "free: K or more in a row wins",
        "exact: exactly K wins, longer lines do not",
        "renju (K = 5): X wins with exactly 5 only and has forbidden cells",
        "caro: a row of exactly K blocked at both ends does not win",
        "caro-exact: caro where longer lines do not win either",
    ];
    let Some(i) = choose(con, "Which rule?", &rules)? else {
        return Ok(None);
    };
    // The ranges asked for make every shape valid but renju's with K not 5.
    match Geometry::new(rows, cols, k, Rule::ALL[i]) {
        Ok(g) => Ok(Some(g)),
        Err(e) => {
            con.say(format!("No such game: {e}."))?;
            Ok(None)
        }
    }
}

/// Shows a numbered list and reads a choice until it is one; `None` for `q`
/// or the end of input.
fn choose<R: BufRead, W: Write>(
    con: &mut Console<R, W>,
    title: &str,
    options: &[&str],
) -> io::Result<Option<usize>> {
    if !title.is_empty() {
        con.say(format!("\n{title}"))?;
    }
    for (i, option) in options.iter().enumerate() {
        con.say(format!("  {}) {option}", i + 1))?;
    }
    let n = options.len();
    loop {
        let Some(answer) = con.ask(&format!("Choose 1-{n}:"))? else {
            return Ok(None);
        };
        let lower = answer.to_ascii_lowercase();
        if lower == "q" || lower == "quit" {
            return Ok(None);
        }
        // A number, or the first word of an option (`minimax`, `play`), or
        // a board size in it (`16x16`).
        let by_number = lower.parse::<usize>().ok().filter(|i| (1..=n).contains(i));
        let by_name: Vec<usize> = (0..n)
            .filter(|&i| !lower.is_empty() && names_of(options[i]).any(|w| w == lower))
            .collect();
        match (by_number, by_name.as_slice()) {
            (Some(i), _) => return Ok(Some(i - 1)),
            (None, [i]) => return Ok(Some(*i)),
            (None, [_, _, ..]) => con.say(format!(
                "'{}' is more than one of the choices: enter its number.",
                crate::client::quoted(&answer)
            ))?,
            (None, []) if answer.is_empty() => {
                con.say(format!("Please enter a number from 1 to {n}."))?
            }
            (None, []) => con.say(format!(
                "'{}' is not one of the choices: enter a number from 1 to {n}.",
                crate::client::quoted(&answer)
            ))?,
        }
    }
}

/// The words an option can be picked by, lower case: its first word and
/// any board size in it (`gomoku, 16x16, 5 in a row`: `gomoku`, `16x16`).
fn names_of(option: &str) -> impl Iterator<Item = String> + '_ {
    let is_size = |w: &str| {
        w.split_once('x').is_some_and(|(r, c)| {
            !r.is_empty() && !c.is_empty() && (r.to_owned() + c).bytes().all(|b| b.is_ascii_digit())
        })
    };
    option
        .split([':', ' ', ','])
        .filter(|w| !w.is_empty())
        .enumerate()
        .filter(move |&(i, w)| i == 0 || is_size(w))
        .map(|(_, w)| w.to_ascii_lowercase())
}

/// Reads a number from 1 to `max` until it is one; `None` for `q` or the end
/// of input.
fn ask_number<R: BufRead, W: Write>(
    con: &mut Console<R, W>,
    question: &str,
    max: u32,
) -> io::Result<Option<u32>> {
    loop {
        let Some(answer) = con.ask(question)? else {
            return Ok(None);
        };
        if answer.eq_ignore_ascii_case("q") {
            return Ok(None);
        }
        match answer.parse::<u32>() {
            Ok(v) if (1..=max).contains(&v) => return Ok(Some(v)),
            _ => con.say(format!("Please enter a number from 1 to {max}."))?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::render::Style;

    fn menu(input: &str) -> (Option<Setup>, String) {
        let mut out = Vec::new();
        let mut con = Console::new(input.as_bytes(), &mut out, Style::Plain, true);
        let setup = choose_setup(&mut con).unwrap();
        (setup, String::from_utf8(out).unwrap())
    }

    #[test]
    fn person_against_minimax_as_o_on_gomoku() {
        let (setup, _) = menu("1\n2\nminimax\n2\n5\n");
        let setup = setup.unwrap();
        assert_eq!(setup.x, SeatSpec::Bot(BotKind::Minimax));
        assert_eq!(setup.o, SeatSpec::Human);
        assert_eq!(setup.geometry.to_string(), "16x16 k5 free");
    }

    #[test]
    fn custom_board_with_bad_answers_on_the_way() {
        let (setup, out) = menu("play\n\nzz\n1\n8\n40\n7\n6\n9\n4\n2\n");
        let setup = setup.unwrap();
        assert_eq!(setup.x, SeatSpec::Human);
        assert_eq!(setup.geometry.to_string(), "7x6 k4 exact");
        assert!(out.contains("Please enter a number from 1 to 3."), "{out}");
        assert!(out.contains("'zz' is not one of the choices"), "{out}");
        assert!(out.contains("Please enter a number from 1 to 32."), "{out}");
        assert!(out.contains("Please enter a number from 1 to 7."), "{out}");
    }

    #[test]
    fn quit_and_end_of_input() {
        assert!(menu("2\n").0.is_none());
        assert!(menu("1\nq\n").0.is_none());
        assert!(menu("1\n3\n").0.is_none());
    }
}
