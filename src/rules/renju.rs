//! Renju's forbidden moves: the cells where Black (X) may not play.
//!
//! RIF's rules, as kinrow reads them (docs/rules.md draws the cases): a
//! Black stone that makes exactly five wins, whatever else it makes;
//! otherwise it is forbidden when it makes an overline (six or more), two
//! fours, or two threes. A four is four stones on a line that one more
//! stone turns into exactly five (a straight four `.XXXX.` is one four; two
//! fours on one line, as in `X.XXX.X`, count two). A three is three stones
//! that one more stone turns into a straight four, where that stone is
//! itself allowed and makes no five: whether it is allowed is this same
//! question one stone later, so the check recurses.
//!
//! The check reads the line masks that [`Board`](super::Board) and the
//! playouts keep anyway: each player's stones as one `u32` per line of the
//! board and direction. It has two steps. [`Masks::may_be_forbidden`] counts
//! Black's stones near the cell on its four lines (a few popcounts): most
//! cells cannot be forbidden at all. The rest get [`Masks::forbidden_at`]:
//! the eleven cells of each line around the cell cut out of the masks with
//! two shifts, and the stones the recursion imagines kept in a chain on the
//! call stack (no allocation, no copy of the board).

use super::lines::{line_slots_at, run_around};
use std::fmt;
use std::str::FromStr;

/// Why a cell is forbidden to Black. When a move is more than one of these
/// (an overline that is also a double-four), the first in this order names
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Forbidden {
    /// Six or more in a row.
    Overline,
    /// Two or more fours at once (on two lines, or two on one line).
    DoubleFour,
    /// Two or more threes at once.
    DoubleThree,
}

impl Forbidden {
    /// Every kind, in the order that names a move of several kinds.
    pub const ALL: [Forbidden; 3] = [
        Forbidden::Overline,
        Forbidden::DoubleFour,
        Forbidden::DoubleThree,
    ];
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Forbidden::Overline => "overline",
            Forbidden::DoubleFour => "double-four",
            Forbidden::DoubleThree => "double-three",
        })
    }
}

/// Error parsing a [`Forbidden`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseForbiddenError(pub String);

impl fmt::Display for ParseForbiddenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown kind '{}' (expected overline, double-four or double-three)",
            super::clip(&self.0)
        )
    }
}
impl std::error::Error for ParseForbiddenError {}

impl FromStr for Forbidden {
    type Err = ParseForbiddenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "overline" => Ok(Forbidden::Overline),
            "double-four" => Ok(Forbidden::DoubleFour),
            "double-three" => Ok(Forbidden::DoubleThree),
            _ => Err(ParseForbiddenError(s.to_string())),
        }
    }
}

/// Both players' line masks, laid out as [`Board`] keeps them: for X then
/// O, for each direction (across, down, down-right, down-left), one mask per
/// line (`rows + cols - 1` per direction), bit `c` of row `r` across and bit
/// `r` otherwise.
#[derive(Clone, Copy)]
pub(super) struct Masks<'a> {
    pub lines: &'a [u32],
    pub rows: usize,
    pub cols: usize,
}

/// The steps (rows, columns) of the four directions.
const STEPS: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// The centre of a [`Window`]: bit 5 of offsets -5..=5.
const CENTRE: u32 = 1 << 5;
/// Offsets -4..=4: a four through the centre has three more stones there, a
/// three two.
const NEAR: u32 = 0b011_1111_1110;
/// Offsets -4 and 4: a three's stones are within three of the centre.
const RING_OF_FOUR: u32 = 0b010_0000_0010;

impl Masks<'_> {
    /// Lines per direction.
    fn per_direction(&self) -> usize {
        self.rows + self.cols - 1
    }

    /// X's line through a cell in each direction and the cell's bit in it.
    #[inline]
    pub fn slots(&self, cell: (usize, usize)) -> [(usize, u32); 4] {
        line_slots_at(self.rows, self.cols, cell)
    }

    /// Whether a Black stone on empty `cell` could be forbidden at all: a
    /// cheap filter that never says no to a forbidden cell. A line takes part
    /// in a double-four or a double-three with another only if it holds a
    /// four through the cell (three more Black stones within four cells) or
    /// a three (two more within three cells: the straight four it becomes
    /// holds the cell); an overline or two fours on one line need four more
    /// stones within four cells.
    #[inline]
    pub fn may_be_forbidden(&self, cell: (usize, usize)) -> bool {
        let mut lines_in_play = 0;
        let mut line_with_four_more = false;
        for (line, bit) in self.slots(cell) {
            // Offsets -4..=4 at bits 0..=8 (the cell itself, bit 4, empty).
            let near =
                ((u64::from(self.lines[line]) << 4) >> bit.trailing_zeros()) as usize & 0x1FF;
            let count = POPCOUNT_9[near];
            // Two stones are within three when neither is four away.
            lines_in_play += u32::from(count >= 3 || (count == 2 && near & 0x101 == 0));
            line_with_four_more |= count >= 4;
        }
        line_with_four_more || lines_in_play >= 2
    }

    /// Whether Black may play on empty `cell`, and if not, why: the filter,
    /// then the full check.
    #[inline]
    pub fn forbidden(&self, cell: (usize, usize)) -> Option<Forbidden> {
        if !self.may_be_forbidden(cell) {
            return None;
        }
        self.forbidden_at(cell)
    }

    /// The full check of empty `cell`.
    pub fn forbidden_at(&self, cell: (usize, usize)) -> Option<Forbidden> {
        let stone = Stone {
            cell,
            slots: self.slots(cell),
            below: None,
        };
        match self.verdict(&stone) {
            Verdict::Forbidden(kind) => Some(kind),
            Verdict::Five | Verdict::Allowed => None,
        }
    }

    /// The cells on the board along line `d`'s `line` (an index among X's).
    #[inline]
    fn on_board(&self, d: usize, line: usize) -> u64 {
        let (rows, cols) = (self.rows as isize, self.cols as isize);
        let i = (line - d * self.per_direction()) as isize;
        let (low, high) = match d {
            0 => (0, cols - 1),
            1 => (0, rows - 1),
            // Down-right: c - r = i - (rows - 1); down-left: r + c = i.
            2 => {
                let shift = i - (rows - 1);
                ((-shift).max(0), (rows - 1).min(cols - 1 - shift))
            }
            _ => ((i - (cols - 1)).max(0), (rows - 1).min(i)),
        };
        (1u64 << (high + 1)) - (1u64 << low)
    }

    /// Black's stones in the window of direction `d` around the stone that
    /// `stone` judges, with the stones of the chain.
    #[inline]
    fn black_window(&self, stone: &Stone, d: usize) -> u32 {
        let (line, bit) = stone.slots[d];
        let mut black = u64::from(self.lines[line]);
        let mut s = Some(stone);
        while let Some(st) = s {
            if st.slots[d].0 == line {
                black |= u64::from(st.slots[d].1);
            }
            s = st.below;
        }
        // Bit i of the window is the line's bit `at - 5 + i`; the masks are
        // shifted up 8 so that cells before the line's start are in range.
        ((black << 8) >> (bit.trailing_zeros() + 3)) as u32 & 0x7FF
    }

    /// The cells of that window Black cannot use: White's, and those off the
    /// board.
    #[inline]
    fn blocked_window(&self, stone: &Stone, d: usize) -> u32 {
        let (line, bit) = stone.slots[d];
        let white = u64::from(self.lines[line + 4 * self.per_direction()]);
        let blocked = !(self.on_board(d, line) << 8) | (white << 8);
        (blocked >> (bit.trailing_zeros() + 3)) as u32 & 0x7FF
    }

    /// The window of direction `d` around the stone `stone` judges.
    #[cfg(test)]
    fn window(&self, stone: &Stone, d: usize) -> Window {
        Window {
            black: self.black_window(stone, d),
            blocked: self.blocked_window(stone, d),
        }
    }

    /// Judges the stone at the head of a chain.
    fn verdict(&self, stone: &Stone) -> Verdict {
        // Only lines with enough Black stones near the stone can hold a
        // five, an overline, a four or a three through it (as in the filter);
        // the others are not looked at further.
        let mut shapes = [LineShape::default(); 4];
        let (mut in_play, mut crowded) = (0, false);
        for (d, shape) in shapes.iter_mut().enumerate() {
            let black = self.black_window(stone, d);
            let near = POPCOUNT_9[(black & NEAR) as usize >> 1];
            if near >= 4 || (near == 3 && black & RING_OF_FOUR == 0) {
                let blocked = self.blocked_window(stone, d);
                *shape = Window { black, blocked }.shape();
                in_play += 1;
                crowded |= near >= 5;
            }
        }
        if in_play < 2 && !crowded {
            return Verdict::Allowed;
        }
        if shapes.iter().any(|s| s.run == 5) {
            return Verdict::Five;
        }
        if shapes.iter().any(|s| s.run > 5) {
            return Verdict::Forbidden(Forbidden::Overline);
        }
        if shapes.iter().map(|s| s.fours).sum::<u32>() >= 2 {
            return Verdict::Forbidden(Forbidden::DoubleFour);
        }
        let mut candidates = shapes.iter().filter(|s| s.three_makers != 0).count();
        if candidates < 2 {
            return Verdict::Allowed;
        }
        let mut threes = 0;
        for (d, shape) in shapes.iter().enumerate() {
            if shape.three_makers == 0 {
                continue;
            }
            if self.is_three(stone, d, shape.three_makers) {
                threes += 1;
                if threes == 2 {
                    return Verdict::Forbidden(Forbidden::DoubleThree);
                }
            }
            candidates -= 1;
            if threes + candidates < 2 {
                break;
            }
        }
        Verdict::Allowed
    }

    /// Whether a line whose straight-four makers are `makers` (window bits
    /// along direction `d`) is a three: one of them must be allowed and no
    /// five.
    fn is_three(&self, stone: &Stone, d: usize, makers: u32) -> bool {
        let (dr, dc) = STEPS[d];
        let mut rest = makers;
        while rest != 0 {
            let offset = rest.trailing_zeros() as isize - 5;
            rest &= rest - 1;
            let (r, c) = stone.cell;
            let cell = (
                r.wrapping_add_signed(offset * dr),
                c.wrapping_add_signed(offset * dc),
            );
            let next = Stone {
                cell,
                slots: self.slots(cell),
                below: Some(stone),
            };
            if self.verdict(&next) == Verdict::Allowed {
                return true;
            }
        }
        false
    }
}

/// The number of set bits of every 9-bit value (a table: the build targets
/// x86-64 without a popcount instruction).
const POPCOUNT_9: [u8; 512] = {
    let mut table = [0; 512];
    let mut i = 0;
    while i < 512 {
        table[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    table
};

/// What a Black stone makes where it is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Exactly five on some line: a win, never forbidden.
    Five,
    Forbidden(Forbidden),
    Allowed,
}

/// A Black stone the check imagines, with those imagined before it (a chain
/// through the recursion's frames).
struct Stone<'a> {
    cell: (usize, usize),
    slots: [(usize, u32); 4],
    below: Option<&'a Stone<'a>>,
}

/// One line's eleven cells around a stone (offset i - 5 at bit i): Black's
/// stones, and the cells Black cannot use (White's stones, off the board).
#[derive(Clone, Copy, Debug)]
struct Window {
    black: u32,
    blocked: u32,
}

/// What one line through the judged stone holds (all zero for a line
/// without enough stones to hold anything).
#[derive(Clone, Copy, Debug, Default)]
struct LineShape {
    /// The length of Black's run through the stone.
    run: u32,
    /// Fours through the stone on this line (0, 1 or 2).
    fours: u32,
    /// The cells (window bits) that would turn this line into a straight
    /// four through the stone: a three, if one of them is allowed.
    three_makers: u32,
}

impl Window {
    /// The cells Black could still play.
    fn empty(self) -> u32 {
        !(self.black | self.blocked) & 0x7FF
    }

    /// Classifies the line through the centre.
    fn shape(self) -> LineShape {
        let (before, after) = run_around(self.black, CENTRE);
        let run = before + 1 + after;
        let mut shape = LineShape {
            run,
            ..LineShape::default()
        };
        // A four or a three needs three or two more stones within four.
        if run >= 5 || POPCOUNT_9[(self.black & NEAR) as usize >> 1] < 3 {
            return shape;
        }
        // One more stone makes a five or a straight four through the centre
        // only next to the centre's run (the run holds it): the first cell
        // past the run on either side.
        let ends = [CENTRE >> (before + 1), CENTRE << (after + 1)];
        let mut makers = 0;
        for e in ends {
            if e & self.empty() == 0 {
                continue;
            }
            let (b, a) = run_around(self.black | e, CENTRE);
            match b + 1 + a {
                // Each cell that makes five leaves a different four, but for
                // the two ends of a straight four (the run was four).
                5 => shape.fours += 1,
                // A straight four: both ends empty, and neither extension
                // running past five.
                4 => {
                    let ends = (CENTRE >> (b + 1)) | (CENTRE << (a + 1));
                    let beyond = (CENTRE >> (b + 2)) | (CENTRE << (a + 2));
                    if ends & self.empty() == ends && beyond & self.black == 0 {
                        makers |= e;
                    }
                }
                _ => {}
            }
        }
        if run == 4 {
            shape.fours = shape.fours.min(1);
        }
        // A line with a four holds no straight-four maker as well (the
        // extensions of the straight four would be closed or too long).
        if shape.fours == 0 {
            shape.three_makers = makers;
        }
        shape
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Board, Cell, Geometry, Rule};

    /// A window from a line drawn around its centre, e.g. `"..X.[X]X..O"`
    /// without the brackets: eleven characters, `#` off the board.
    fn window(line: &str) -> Window {
        assert_eq!(line.len(), 11, "{line}");
        let mut w = Window {
            black: 0,
            blocked: 0,
        };
        for (i, ch) in line.chars().enumerate() {
            match ch {
                'X' => w.black |= 1 << i,
                'O' | '#' => w.blocked |= 1 << i,
                '.' => {}
                _ => panic!("{line}"),
            }
        }
        assert!(w.black & CENTRE != 0, "{line}: the centre holds X");
        w
    }

    #[test]
    fn shapes_of_single_lines() {
        // (line, run, fours, straight-four makers as offsets)
        let cases: &[(&str, u32, u32, &[i32])] = &[
            ("...XXXXX...", 5, 0, &[]),
            ("..XXXXXX...", 6, 0, &[]),
            ("....XXXX...", 4, 1, &[]),
            ("...X.XXX.X.", 3, 2, &[]),
            ("..XX.XX.XX.", 2, 2, &[]),
            (".XXX.X.XXX.", 1, 2, &[]),
            ("..OXXXX....", 4, 1, &[]),
            ("..OXXXXO...", 4, 0, &[]),
            ("....XXX....", 3, 0, &[-2, 2]),
            ("..O.XXX....", 3, 0, &[2]),
            ("...OXXX....", 3, 0, &[]),
            ("..O.XXX..X.", 3, 0, &[]),
            ("...X.X.....", 1, 0, &[]),
            ("....XX.X...", 2, 0, &[1]),
            ("##..XXX..##", 3, 0, &[-2, 2]),
            ("###.XXX..##", 3, 0, &[2]),
            ("####XXX....", 3, 0, &[]),
        ];
        for &(line, run, fours, makers) in cases {
            let s = window(line).shape();
            let want: u32 = makers.iter().map(|&o| 1u32 << (5 + o)).sum();
            assert_eq!(
                (s.run, s.fours, s.three_makers),
                (run, fours, want),
                "{line}"
            );
        }
    }

    /// A 15x15 renju board with X stones on `xs` (O's far away, on row 14).
    fn board_with(xs: &[(u8, u8)]) -> Board {
        let mut b = Board::new(Geometry::new(15, 15, 5, Rule::Renju).unwrap());
        for (i, &(r, c)) in xs.iter().enumerate() {
            for cell in [Cell::new(r, c), Cell::new(14, 2 * i as u8)] {
                b.play_unchecked(b.square(cell));
            }
        }
        b
    }

    #[test]
    fn the_filter_passes_every_shape_that_can_be_forbidden() {
        let filter_at = |cell, xs: &[(u8, u8)]| board_with(xs).masks().may_be_forbidden(cell);
        let filter = |xs: &[(u8, u8)]| filter_at((7, 7), xs);
        assert!(!filter(&[]));
        // Four within four on one line; three are not enough.
        assert!(filter(&[(7, 3), (7, 4), (7, 5), (7, 6)]));
        assert!(!filter(&[(7, 4), (7, 5), (7, 6)]));
        // Two within three on each of two lines.
        assert!(filter(&[(7, 5), (7, 9), (4, 4), (10, 10)]));
        assert!(filter(&[(5, 7), (9, 7), (5, 9), (9, 5)]));
        // Five cells away is too far.
        assert!(!filter(&[(7, 2), (7, 6), (5, 7), (6, 7)]));
        // Two within three on two lines, or three within four.
        assert!(filter(&[(7, 5), (7, 6), (5, 7), (6, 7)]));
        assert!(filter(&[(7, 3), (7, 5), (7, 6), (5, 7), (6, 7)]));
        assert!(!filter(&[(7, 3), (7, 6), (3, 7), (6, 7)]));
        // At the edges of the line masks.
        assert!(filter_at((0, 0), &[(0, 1), (0, 2), (1, 0), (2, 0)]));
        assert!(filter_at(
            (14, 14),
            &[(14, 13), (14, 12), (13, 13), (12, 12)]
        ));
        assert!(!filter_at(
            (14, 14),
            &[(14, 10), (14, 13), (10, 10), (13, 13)]
        ));
        assert_eq!(POPCOUNT_9[0x1FF], 9);
    }

    #[test]
    fn windows_see_the_edges_as_blocked() {
        // X on (0, 1) and (0, 2); the window across from (0, 0).
        let b = board_with(&[(0, 1), (0, 2)]);
        let masks = b.masks();
        let stone = Stone {
            cell: (0, 0),
            slots: masks.slots((0, 0)),
            below: None,
        };
        let across = masks.window(&stone, 0);
        assert_eq!(across.black, 0b111 << 5);
        assert_eq!(across.blocked, 0b11111);
        // Down from (0, 0): the five cells above are off the board.
        assert_eq!(masks.window(&stone, 1).blocked, 0b11111);
        // Down-left from (0, 0): both ends leave the board at once.
        assert_eq!(masks.window(&stone, 3).blocked, 0x7FF & !CENTRE);
        // Down-right from (14, 14): the five cells after it are off.
        let corner = Stone {
            cell: (14, 14),
            slots: masks.slots((14, 14)),
            below: None,
        };
        assert_eq!(masks.window(&corner, 2).blocked, 0b11111 << 6);
    }

    #[test]
    fn kinds_parse_and_print() {
        for kind in Forbidden::ALL {
            assert_eq!(kind.to_string().parse::<Forbidden>(), Ok(kind));
        }
        assert!("triple".parse::<Forbidden>().is_err());
    }
}
