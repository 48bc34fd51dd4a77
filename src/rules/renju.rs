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
//! The check has two steps. [`may_be_forbidden`] looks at Black's stones
//! near the cell in the line masks that [`Board`](super::Board) and the
//! playouts keep anyway (four popcounts): most cells cannot be forbidden at
//! all. The rest get [`forbidden_at`]: the eleven cells of each line around
//! the cell, read from the padded mailbox, with the stones the recursion
//! imagines kept on the call stack (no allocation, no copy of the board).

use super::board::Board;
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

/// Whether a Black stone on an empty cell could be forbidden at all, from
/// Black's stones on the four lines through it (`black[d]`, one mask per
/// line as [`Board`] keeps them) and the cell's bit in each (`bits[d]`).
///
/// A cheap filter that never says no to a forbidden cell: an overline or
/// two fours on one line need four other Black stones within four cells on
/// that line; fours or threes on two lines need two on each of them (a four
/// has three more stones within four cells, a three that becomes a straight
/// four has two within three).
#[inline]
pub(super) fn may_be_forbidden(black: [u32; 4], bits: [u32; 4]) -> bool {
    let mut lines_with_two = 0;
    let mut line_with_four = false;
    for d in 0..4 {
        let near = (black[d] & within_four(bits[d])).count_ones();
        lines_with_two += u32::from(near >= 2);
        line_with_four |= near >= 4;
    }
    line_with_four || lines_with_two >= 2
}

/// The bits within four places of `bit` (itself included).
#[inline]
fn within_four(bit: u32) -> u32 {
    ((0x1FFu64 << bit.trailing_zeros()) >> 4) as u32
}

/// Whether Black may play on empty `square` of a padded mailbox (cells
/// `0` empty, `1` Black, `2` White, `3` off the board, laid out as
/// [`Board`]'s, with `steps` its four directions), and if not, why.
pub(super) fn forbidden_at(cells: &[u8], steps: [usize; 4], square: usize) -> Option<Forbidden> {
    let view = View {
        cells,
        steps,
        placed: square,
        below: None,
    };
    match view.verdict() {
        Verdict::Forbidden(kind) => Some(kind),
        Verdict::Five | Verdict::Allowed => None,
    }
}

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WALL: u8 = 3;

/// The centre of a [`Window`]: bit 5 of offsets -5..=5.
const CENTRE: u32 = 1 << 5;
/// Offsets -4..=4: where a five through the centre can be completed.
const NEAR: u32 = 0b011_1111_1110;

/// What a Black stone makes where it is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Exactly five on some line: a win, never forbidden.
    Five,
    Forbidden(Forbidden),
    Allowed,
}

/// The mailbox with Black stones imagined on some empty squares: `placed`,
/// then those of the views below (a chain through the recursion's frames).
struct View<'a> {
    cells: &'a [u8],
    steps: [usize; 4],
    /// The stone this level of the recursion judges.
    placed: usize,
    below: Option<&'a View<'a>>,
}

/// One line's eleven cells around a stone (offset i - 5 at bit i): Black's
/// stones, and the cells Black cannot use (White's stones, off the board).
#[derive(Clone, Copy, Debug)]
struct Window {
    black: u32,
    blocked: u32,
}

/// What one line through the judged stone holds.
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

impl View<'_> {
    /// The cell on a square, with the imagined stones.
    fn at(&self, square: usize) -> u8 {
        let mut view = Some(self);
        while let Some(v) = view {
            if v.placed == square {
                return BLACK;
            }
            view = v.below;
        }
        self.cells[square]
    }

    /// The window of the line through `placed` along `step`.
    fn window(&self, step: usize) -> Window {
        let mut w = Window {
            black: CENTRE,
            blocked: 0,
        };
        for (dir, shift) in [(1isize, 1i32), (-1, -1)] {
            let mut square = self.placed;
            for i in 1..=5 {
                // Stepping stops at the first wall: past it the array holds
                // other lines (or ends).
                square = square.wrapping_add_signed(dir * step as isize);
                let bit = 1u32 << (5 + shift * i);
                match self.at(square) {
                    EMPTY => {}
                    BLACK => w.black |= bit,
                    WALL => {
                        w.blocked |= if shift > 0 {
                            0x7FF & !(bit - 1)
                        } else {
                            (bit << 1) - 1
                        };
                        break;
                    }
                    _ => w.blocked |= bit,
                }
            }
        }
        w
    }

    /// Judges the stone `placed`.
    fn verdict(&self) -> Verdict {
        let shapes = self.steps.map(|step| self.window(step).shape());
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
            if self.is_three(self.steps[d], shape.three_makers) {
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
    /// along `step`) is a three: one of them must be allowed and no five.
    fn is_three(&self, step: usize, makers: u32) -> bool {
        let mut rest = makers;
        while rest != 0 {
            let offset = rest.trailing_zeros() as isize - 5;
            rest &= rest - 1;
            let square = self.placed.wrapping_add_signed(offset * step as isize);
            let next = View {
                cells: self.cells,
                steps: self.steps,
                placed: square,
                below: Some(self),
            };
            if next.verdict() == Verdict::Allowed {
                return true;
            }
        }
        false
    }
}

impl Window {
    /// The cells Black could still play.
    fn empty(self) -> u32 {
        !(self.black | self.blocked) & 0x7FF
    }

    /// Classifies the line through the centre.
    fn shape(self) -> LineShape {
        let (before, after) = Board::run_around(self.black, CENTRE);
        let run = before + 1 + after;
        let mut shape = LineShape {
            run,
            ..LineShape::default()
        };
        if run >= 5 {
            return shape;
        }
        // Fours: the empty cells that make exactly five with the centre.
        // Each gives a different four (the stones of its five but itself),
        // except the two ends of a straight four: when the run is four
        // already, any cell that makes five is one of its ends.
        let mut empties = self.empty() & NEAR;
        while empties != 0 {
            let e = empties & empties.wrapping_neg();
            empties &= empties - 1;
            let (b, a) = Board::run_around(self.black | e, CENTRE);
            shape.fours += u32::from(b + 1 + a == 5);
        }
        if run == 4 {
            shape.fours = shape.fours.min(1);
        }
        if shape.fours > 0 {
            return shape;
        }
        // Straight fours: the first cell past the run on either side (the
        // four must hold the centre, so no other cell can make one).
        let low = CENTRE >> (before + 1);
        let high = CENTRE << (after + 1);
        for e in [low, high] {
            if e & self.empty() == 0 {
                continue;
            }
            let (b, a) = Board::run_around(self.black | e, CENTRE);
            if b + 1 + a != 4 {
                continue;
            }
            // Both ends empty, and neither extension runs past five.
            let ends = (CENTRE >> (b + 1)) | (CENTRE << (a + 1));
            let beyond = (CENTRE >> (b + 2)) | (CENTRE << (a + 2));
            if ends & self.empty() == ends && beyond & self.black == 0 {
                shape.three_makers |= e;
            }
        }
        shape
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_filter_passes_every_shape_that_can_be_forbidden() {
        // Within four of the cell: four on one line, or two on two lines.
        let bit = 1 << 10;
        let none = [0; 4];
        assert!(!may_be_forbidden(none, [bit; 4]));
        let one_line = [0b1111 << 6, 0, 0, 0];
        assert!(may_be_forbidden(one_line, [bit; 4]));
        let three_near = [0b111 << 7, 0, 0, 0];
        assert!(!may_be_forbidden(three_near, [bit; 4]));
        let two_lines = [0b11 << 8, 0b101 << 11, 0, 0];
        assert!(may_be_forbidden(two_lines, [bit; 4]));
        // Five cells away is too far.
        let far = [(1 << 5) | (1 << 15), 0b11 << 11, 0, 0];
        assert!(!may_be_forbidden(far, [bit; 4]));
        assert_eq!(within_four(1), 0b11111);
        assert_eq!(within_four(1 << 31), 0b11111 << 27);
    }

    #[test]
    fn kinds_parse_and_print() {
        for kind in Forbidden::ALL {
            assert_eq!(kind.to_string().parse::<Forbidden>(), Ok(kind));
        }
        assert!("triple".parse::<Forbidden>().is_err());
    }
}
