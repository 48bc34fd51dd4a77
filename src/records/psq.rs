//! Piskvork's `.psq` records:
//!
//! ```text
//! Piskvorky 15x15, 0:0, 0
//! 8,8,0
//! 9,9,0
//! minimax
//! random
//! 0
//! ```
//!
//! The header gives the width and height (columns, rows); then one move a
//! line, `X,Y,MS` with 1-based column and row (from the top left) and the
//! time it took (kinrow records don't keep it: 0); then the names of the
//! first and second player; then a code: 0 for a game that ended on the
//! board, 1 for one that ended otherwise (a fault, or unfinished). The
//! format has no K or rule: Piskvork's reader takes the header's sizes,
//! levels and first player, the moves and two names, and nothing else (the
//! rule is a setting of its tournaments, written only in their result
//! text), so kinrow writes no line of its own for it; reading takes K and
//! the rule from the caller, and a game's rule stays in the referee's
//! JSONL record and in SGF.

use super::{Ending, RecordError, RecordedGame};
use crate::rules::{Cell, Geometry, Rule};
use std::fmt::Write as _;

/// The game as `.psq` text.
pub fn write(game: &RecordedGame) -> String {
    let g = game.geometry;
    let mut s = format!("Piskvorky {}x{}, 0:0, 0\n", g.cols(), g.rows());
    for (i, cell) in game.moves.iter().enumerate() {
        // Piskvork's third field: the move's time in ms (0: unknown).
        let note = i.checked_sub(game.opening).and_then(|k| game.notes.get(k));
        let ms = note
            .and_then(|n| n.time_us)
            .map_or(0, |us| (us + 500) / 1000);
        let _ = writeln!(s, "{},{},{ms}", cell.col as u32 + 1, cell.row as u32 + 1);
    }
    let code = match game.ending {
        Ending::Win(_) | Ending::Draw => 0,
        _ => 1,
    };
    let name = |n: &str| n.replace(['\n', '\r'], " ");
    let _ = write!(s, "{}\n{}\n{code}\n", name(&game.x), name(&game.o));
    s
}

/// Reads a `.psq` record, the game played under `k` and `rule`: the moves
/// (checked by replaying them) and the names; the ending is what the final
/// position shows (a win, a full board) or unfinished.
pub fn read(text: &str, k: u32, rule: Rule) -> Result<RecordedGame, RecordError> {
    let mut lines = text.lines().map(str::trim);
    let header = lines.next().unwrap_or("");
    let bad_header = || {
        RecordError(format!(
            "'{}' is not a Piskvorky header",
            crate::rules::clip(header)
        ))
    };
    let size = header
        .strip_prefix("Piskvorky ")
        .and_then(|rest| rest.split(',').next())
        .ok_or_else(bad_header)?;
    let (w, h) = size.split_once('x').ok_or_else(bad_header)?;
    let (cols, rows): (u32, u32) = (
        w.trim().parse().map_err(|_| bad_header())?,
        h.trim().parse().map_err(|_| bad_header())?,
    );
    let geometry = Geometry::new(rows, cols, k, rule).map_err(|e| RecordError(e.to_string()))?;
    let mut moves = Vec::new();
    // After the moves: the players' names and the end code, or nothing.
    let mut trailer: Vec<&str> = Vec::new();
    for (n, line) in lines.enumerate() {
        let number = n + 2;
        let starts_a_move = line.contains(',')
            && line
                .split(',')
                .next()
                .is_some_and(|f| f.trim().parse::<i64>().is_ok());
        if trailer.is_empty() && starts_a_move {
            moves.push(move_at(line, number)?);
        } else if !line.is_empty() && trailer.len() <= 3 {
            trailer.push(line);
        }
    }
    let (x, o) = match trailer.as_slice() {
        [] => ("", ""),
        [code] if is_code(code) => ("", ""),
        [x, o, code] if is_code(code) => (*x, *o),
        _ => {
            return Err(RecordError(format!(
                "after the moves a record has the two players' names and an end code, \
                 not '{}'",
                crate::rules::clip(&trailer.join(" | "))
            )))
        }
    };
    let mut game = RecordedGame {
        geometry,
        x: x.to_string(),
        o: o.to_string(),
        moves,
        opening: 0,
        ending: Ending::Unfinished,
        title: None,
        notes: Vec::new(),
    };
    let board = game.replay()?;
    game.ending = match board.outcome() {
        Some(crate::rules::Outcome::Draw) => Ending::Draw,
        Some(crate::rules::Outcome::Win { winner, .. }) => Ending::Win(winner),
        None => Ending::Unfinished,
    };
    Ok(game)
}

/// Line `number`, which starts like a move: `X,Y` or `X,Y,MS`, 1-based.
fn move_at(line: &str, number: usize) -> Result<Cell, RecordError> {
    let bad = |why: &str| {
        RecordError(format!(
            "line {number}: '{}' {why}",
            crate::rules::clip(line)
        ))
    };
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let numbers: Option<Vec<u32>> = fields.iter().map(|f| f.parse().ok()).collect();
    match numbers.as_deref() {
        Some([x, y] | [x, y, _]) => {
            Cell::from_one_based(*y, *x).ok_or_else(|| bad("is not a point of the board"))
        }
        _ => Err(bad("is not a move (X,Y,MS: numbers from 1)")),
    }
}

/// The code that ends a record: 0 or 1 as kinrow writes it (Piskvork writes
/// other numbers too, -1 among them).
fn is_code(line: &str) -> bool {
    line.parse::<i64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Player;

    #[test]
    fn writes_and_reads_back() {
        let geometry = Geometry::new(10, 20, 5, Rule::Free).unwrap();
        let moves: Vec<Cell> = (0..5)
            .flat_map(|i| [Cell::new(0, i), Cell::new(9, 19 - i)])
            .take(9)
            .collect();
        let game = RecordedGame {
            geometry,
            x: "a".into(),
            o: "b".into(),
            moves: moves.clone(),
            opening: 0,
            ending: Ending::Win(Player::X),
            title: None,
            notes: Vec::new(),
        };
        let text = write(&game);
        assert!(
            text.starts_with("Piskvorky 20x10, 0:0, 0\n1,1,0\n20,10,0\n2,1,0\n"),
            "{text}"
        );
        assert!(text.ends_with("5,1,0\na\nb\n0\n"), "{text}");
        let back = read(&text, 5, Rule::Free).unwrap();
        assert_eq!(back, game);
    }

    #[test]
    fn bad_records_are_refused() {
        assert!(read("Gomoku 15x15\n", 5, Rule::Free).is_err());
        assert!(read("Piskvorky 15x15, 0:0, 0\n1,1,0\n1,1,0\n", 5, Rule::Free).is_err());
        assert!(read("Piskvorky 3x3, 0:0, 0\n", 5, Rule::Free).is_err());
        let g = read("Piskvorky 15x15, 11:11, 0\n8,8,120\n", 5, Rule::Free).unwrap();
        assert_eq!(g.moves, [Cell::new(7, 7)]);
        assert_eq!(g.ending, Ending::Unfinished);
    }

    #[test]
    fn what_follows_the_moves_is_checked() {
        let ok = |text: &str| read(text, 5, Rule::Free);
        let head = "Piskvorky 15x15, 11:11, 0\n";
        // Piskvork's own trailers: the brains' names and a code (-1 too).
        let g = ok(&format!(
            "{head}8,8,0\n9,9,0\npbrain-a.zip\npbrain-b.zip\n-1\n"
        ))
        .unwrap();
        assert_eq!(
            (g.x.as_str(), g.o.as_str(), g.moves.len()),
            ("pbrain-a.zip", "pbrain-b.zip", 2)
        );
        assert_eq!(ok(&format!("{head}8,8,0\n1\n")).unwrap().moves.len(), 1);
        assert_eq!(ok(&format!("{head}\n\n")).unwrap().moves.len(), 0);
        // A broken move is named by its line, not taken as the end of the moves.
        let e = ok(&format!("{head}8,8,0\n9,x,0\n10,10,0\na\nb\n0\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: '9,x,0' is not a move (X,Y,MS: numbers from 1)"
        );
        let e = ok(&format!("{head}8,8,0\n0,3,0\n")).unwrap_err();
        assert_eq!(e.to_string(), "line 3: '0,3,0' is not a point of the board");
        let e = ok(&format!("{head}8,8,0\n20,3,0\n")).unwrap_err();
        assert!(e.to_string().starts_with("move 2: "), "{e}");
        // Garbage is not an empty game.
        for garbage in [
            "%PDF-1.4\nstream\nxyz\nendstream\n",
            "a\nb\n",
            "a\nb\nc\n",
            "x\n",
        ] {
            let e = ok(&format!("{head}{garbage}")).unwrap_err();
            assert!(
                e.to_string().starts_with("after the moves"),
                "{garbage:?}: {e}"
            );
        }
        // Moves after the names are not moves of the game.
        assert!(ok(&format!("{head}8,8,0\na\nb\n0\n9,9,0\n")).is_err());
    }
}
