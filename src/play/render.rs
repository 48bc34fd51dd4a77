//! Drawing the board the way the classic console games do: cells separated by
//! `|`, rows by `---+---` lines, with row and column numbers.

use crate::rules::{Board, Cell, Outcome, Player};
use std::fmt::Write;

/// How marks are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// ANSI colour: stones coloured, the last move in reverse video, the
    /// winning line on green.
    Colour,
    /// Plain text: the last move as `(X)`, the winning line as `[X]`.
    Plain,
}

impl Style {
    /// Colour only when standard output is a terminal and `NO_COLOR` is unset
    /// (or empty), as <https://no-color.org> asks.
    pub fn detect() -> Style {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        if std::io::stdout().is_terminal() && !no_color {
            Style::Colour
        } else {
            Style::Plain
        }
    }
}

const RESET: &str = "\x1b[0m";
const REVERSE: &str = "\x1b[7m";
const ON_GREEN: &str = "\x1b[30;42m";

/// Boards with this many rows or more (two-digit row numbers) show the
/// numbers on all four sides.
const BIG_ROWS: usize = 10;

/// Each cell is three characters wide, like ` X `.
const CELL_WIDTH: usize = 3;

/// How one cell is marked.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    None,
    LastMove,
    Winning,
    /// An empty cell forbidden to the side to move (renju's Black).
    Forbidden,
}

/// The board as text, one line per row and separator line, each ending in a
/// newline, with no trailing spaces.
pub fn render(board: &Board, style: Style) -> String {
    let geo = board.geometry();
    let (rows, cols) = (geo.rows(), geo.cols());
    let label_width = digits(rows);
    let margin = " ".repeat(label_width + 3);
    let mut out = String::new();

    let header: Vec<String> = (1..=cols).map(|c| format!("{c:^CELL_WIDTH$}")).collect();
    let header = format!("{margin}{}", header.join(" ").trim_end());
    let _ = writeln!(out, "{header}");
    // A big board is taller than a classic 24-line terminal: the numbers
    // are repeated below and on the right, so a row and a column can be
    // read off near any cell while the top has scrolled away.
    let big = rows >= BIG_ROWS;
    let separator = vec!["-".repeat(CELL_WIDTH); cols].join("+");

    let winning = match board.outcome() {
        Some(Outcome::Win { line, .. }) => Some(line),
        _ => None,
    };
    let last = board.last_move();
    let forbidden = board.forbidden_cells();
    for r in 0..rows {
        if r > 0 {
            let _ = writeln!(out, "{margin}{separator}");
        }
        let mut line = format!(" {:>label_width$}  ", r + 1);
        for c in 0..cols {
            if c > 0 {
                line.push('|');
            }
            let cell = Cell::new(r as u8, c as u8);
            let mark = if winning.is_some_and(|w| w.contains(cell)) {
                Mark::Winning
            } else if last == Some(cell) {
                Mark::LastMove
            } else if forbidden.iter().any(|&(f, _)| f == cell) {
                Mark::Forbidden
            } else {
                Mark::None
            };
            push_cell(&mut line, board.stone_at(cell), mark, style);
        }
        if big {
            let _ = write!(line, "  {}", r + 1);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if big {
        let _ = writeln!(out, "{header}");
    }
    if !forbidden.is_empty() {
        let list: Vec<String> = forbidden
            .iter()
            .map(|(cell, kind)| format!("{cell} {kind}"))
            .collect();
        let legend = format!("# forbidden to {}: {}", board.to_move(), list.join(", "));
        let _ = writeln!(out, "{}", crate::cli::wrap(&legend, 78));
    }
    out
}

/// Appends one three-character cell.
fn push_cell(line: &mut String, stone: Option<Player>, mark: Mark, style: Style) {
    let letter = match (stone, mark) {
        (Some(p), _) => p.letter(),
        (None, Mark::Forbidden) => '#',
        (None, _) => ' ',
    };
    match style {
        Style::Plain => {
            let (open, close) = match mark {
                Mark::None | Mark::Forbidden => (' ', ' '),
                Mark::LastMove => ('(', ')'),
                Mark::Winning => ('[', ']'),
            };
            line.push(open);
            line.push(letter);
            line.push(close);
        }
        Style::Colour => {
            // On the green of the winning line, a coloured letter would be
            // hard to read: it is bold black there.
            let stone_colour = match (stone, mark) {
                (Some(_), Mark::Winning) => "\x1b[1m",
                (Some(Player::X), _) => "\x1b[1;31m",
                (Some(Player::O), _) => "\x1b[1;36m",
                (None, _) => "",
            };
            let background = match mark {
                Mark::None => "",
                Mark::Forbidden => "\x1b[31m",
                Mark::LastMove => REVERSE,
                Mark::Winning => ON_GREEN,
            };
            if stone.is_none() && mark == Mark::None {
                line.push_str("   ");
            } else {
                let _ = write!(
                    line,
                    "{background} {stone_colour}{letter}{RESET}{background} {RESET}"
                );
            }
        }
    }
}

/// Paints a player's letter in its colour (or leaves it plain).
pub fn paint(player: Player, style: Style) -> String {
    match (style, player) {
        (Style::Plain, _) => player.letter().to_string(),
        (Style::Colour, Player::X) => format!("\x1b[1;31mX{RESET}"),
        (Style::Colour, Player::O) => format!("\x1b[1;36mO{RESET}"),
    }
}

/// The 3x3 cell numbers, drawn like the board, for the help text.
pub fn cell_number_guide() -> String {
    let mut out = String::new();
    for r in 0..3 {
        if r > 0 {
            out.push_str("    ---+---+---\n");
        }
        let n = r * 3;
        let _ = writeln!(out, "     {} | {} | {}", n + 1, n + 2, n + 3);
    }
    out
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Geometry, Rule};

    fn play(board: &mut Board, moves: &[(u8, u8)]) {
        for &(r, c) in moves {
            board.try_play(Cell::new(r, c)).unwrap();
        }
    }

    #[test]
    fn tic_tac_toe_classic_look_with_last_move() {
        let mut b = Board::new(Geometry::TIC_TAC_TOE);
        play(&mut b, &[(1, 1), (0, 0)]);
        let text = render(&b, Style::Plain);
        assert_eq!(
            text,
            "     1   2   3\n \
             1  (O)|   |\n    \
             ---+---+---\n \
             2     | X |\n    \
             ---+---+---\n \
             3     |   |\n"
        );
    }

    #[test]
    fn winning_line_is_bracketed() {
        let mut b = Board::new(Geometry::TIC_TAC_TOE);
        play(&mut b, &[(0, 0), (1, 0), (1, 1), (2, 0), (2, 2)]);
        let text = render(&b, Style::Plain);
        assert!(text.contains(" 1  [X]|   |\n"), "{text}");
        assert!(text.contains(" 2   O |[X]|\n"), "{text}");
        assert!(text.contains(" 3   O |   |[X]\n"), "{text}");
    }

    #[test]
    fn sixteen_by_sixteen_has_two_digit_labels_and_aligned_rows() {
        let geo = Geometry::new(16, 16, 5, Rule::Free).unwrap();
        let mut b = Board::new(geo);
        play(&mut b, &[(15, 15), (0, 0)]);
        let text = render(&b, Style::Plain);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 16 + 15 + 1);
        assert!(lines[0].ends_with("15  16"), "{}", lines[0]);
        assert!(lines[1].starts_with("  1  (O)|"), "{}", lines[1]);
        assert!(lines[31].starts_with(" 16     |"), "{}", lines[31]);
        // Row numbers on the right too, and column numbers below.
        assert!(lines[1].ends_with("|     1"), "{}", lines[1]);
        assert!(lines[31].ends_with("| X   16"), "{}", lines[31]);
        assert_eq!(lines[32], lines[0]);
        // Every cell row and separator has the same width, up to the row
        // number on the right.
        assert_eq!(lines[2].len(), 5 + 16 * 4 - 1);
        assert_eq!(lines[31].len(), lines[2].len() + 4);
        assert_eq!(lines[1].len(), lines[2].len() + 3);
    }

    #[test]
    fn colour_marks_without_brackets() {
        let mut b = Board::new(Geometry::TIC_TAC_TOE);
        play(&mut b, &[(1, 1)]);
        let text = render(&b, Style::Colour);
        assert!(text.contains(REVERSE));
        assert!(!text.contains('('));
    }
}
