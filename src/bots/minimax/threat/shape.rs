//! Line shapes: what a stone on an empty cell makes along one line, for any
//! K and both rules.
//!
//! A shape is read from the cells around the candidate cell along one line,
//! `span` cells each side (K-1 under the free rule; K under the exact rule,
//! whose windows also look at the cells just past their ends). It counts
//! only windows of K cells through the candidate cell that are *live* for
//! the player: none of the other's stones or the board's edge in them and,
//! under the exact rule, none of the player's own stones just past their
//! ends (filling such a window would make an overline, which does not win),
//! as in `rules::window_masks`.
//!
//! - `Five`: a live window is full: the stone wins.
//! - `OpenFour`: two or more empty cells would each complete a live window
//!   (`.XXXX.`, and `X.XXX.X`, two fours in one line): no single stone
//!   blocks them.
//! - `Four`: exactly one such cell (`XXXX.`, `XX.XX`).
//! - `OpenThree`: one more stone somewhere makes an `OpenFour` (`.XXX.`,
//!   the split three `.XX.X.`).
//! - `Three`: one more stone makes a `Four` but none an `OpenFour`.
//! - `OpenTwo`, `Two`: one more stone makes an `OpenThree`, a `Three`.
//! - `One`: a live window, nothing more; `None`: no live window at all.
//!
//! A line is given as a [`LineKey`]: two bits per cell around the candidate
//! (empty, X, O, off the board), kept up to date move by move by the caller.
//! The shapes of both players are computed once per key and remembered (a
//! dense table where the keys are few, a map beyond), so that keeping them
//! costs one lookup per cell touched.

use std::collections::HashMap;

use crate::rules::{Player, Rule};

/// What a stone makes along one line; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Shape {
    #[default]
    None,
    One,
    Two,
    OpenTwo,
    Three,
    OpenThree,
    Four,
    OpenFour,
    Five,
}

impl Shape {
    const ALL: [Shape; 9] = [
        Shape::None,
        Shape::One,
        Shape::Two,
        Shape::OpenTwo,
        Shape::Three,
        Shape::OpenThree,
        Shape::Four,
        Shape::OpenFour,
        Shape::Five,
    ];

    /// The shape of a number, in the order of the variants.
    pub fn from_index(i: usize) -> Shape {
        Shape::ALL[i]
    }

    /// The shape one stone short of this one (what a line is when one more
    /// stone can make `self`).
    fn one_short(self) -> Shape {
        match self {
            Shape::Five | Shape::OpenFour => Shape::OpenThree,
            Shape::Four => Shape::Three,
            Shape::OpenThree => Shape::OpenTwo,
            Shape::Three => Shape::Two,
            _ => Shape::One,
        }
    }
}

/// A line around a candidate cell: cell `i` of the `2 * span` cells around
/// it (the nearest first on each side: see [`Lines::slot`]) in bits `2i`
/// and `2i + 1`: 0 when empty, else [`STONE`]`[player]` or [`OFF`].
pub type LineKey = u128;

/// The two-bit codes of a stone and of an off-board cell in a [`LineKey`].
pub const STONE: [u128; 2] = [1, 2];
pub const OFF: u128 = 3;

/// What a stone makes along one line: a [`Shape`] in the low four bits,
/// and [`FOUL`] when the line alone makes the cell forbidden to renju's
/// Black (an overline, or two fours on the line: `X.X*X.X`).
pub type LineRead = u8;

/// The flag of a [`LineRead`] that makes the cell forbidden unless the
/// stone makes a five on another line.
pub const FOUL: LineRead = 16;

/// The shape of a [`LineRead`].
#[inline]
pub fn shape_of(read: LineRead) -> Shape {
    Shape::ALL[(read & 15) as usize]
}

/// Which windows of K count for one player, from the game's rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Windows {
    /// Only exactly K wins: a window with the player's own stone just past
    /// an end would make an overline.
    pub exact: bool,
    /// Caro: a window with the other's stones just past both ends (the
    /// edge is no block) does not win.
    pub caro: bool,
    /// Renju's Black: fours are counted as the rule counts them (a
    /// straight four `.XXXX.` is one four, `X.X*X.X` two) and overlines
    /// and two fours on one line are marked [`FOUL`].
    pub fouls: bool,
}

impl Windows {
    /// The windows that count for `p` under `rule`.
    pub fn of(rule: Rule, p: Player) -> Windows {
        Windows {
            exact: !rule.overline_wins(p),
            caro: rule.blocked_ends_count(),
            fouls: rule.forbids(p),
        }
    }

    /// Whether a window's verdict needs the cells just past its ends.
    fn looks_past_ends(self) -> bool {
        self.exact || self.caro
    }
}

/// Dense tables are kept for up to this many patterns (one byte each for
/// one player's patterns, by base-3 digits; two bytes for both players'
/// shapes, by line key); beyond, maps remember the patterns met.
const DENSE_LIMIT: usize = 1 << 20;

/// Marks a dense entry not yet computed.
const UNKNOWN: u8 = u8::MAX;
const UNKNOWN_PAIR: u16 = u16::MAX;

/// The classifier of one game shape (K and rule), for both players: reads
/// a [`LineKey`] into both players' [`LineRead`]s, remembered by key.
pub struct Lines {
    span: u32,
    players: [Classifier; 2],
    /// Both players' reads (X's in the low byte) by line key, computed on
    /// demand; a map where the keys are too many for a table.
    pairs: Vec<u16>,
    sparse_pairs: HashMap<LineKey, u16>,
}

/// One player's classifier: reads patterns given as bit masks over the
/// `2 * span + 1` cells of a line centred on the candidate cell (bit `span`
/// is the cell itself and is ignored).
struct Classifier {
    k: u32,
    span: u32,
    windows: Windows,
    /// `ternary[mask]`: the mask's bits as base-3 digits, the centre skipped.
    ternary: Vec<u32>,
    /// Reads by `ternary[own] + 2 * ternary[blocked]`, computed on demand
    /// (not under caro, where the other's stones and the edge differ).
    dense: Vec<u8>,
    /// Reads by (own, other's stones, off the board) where there is no
    /// dense table.
    sparse: HashMap<(u64, u64, u64), u8>,
}

impl Lines {
    /// The classifier for K in a row under `rule`.
    pub fn new(k: usize, rule: Rule) -> Lines {
        let k = k.max(1) as u32;
        let windows = [Player::X, Player::O].map(|p| Windows::of(rule, p));
        let span = if windows.iter().any(|w| w.looks_past_ends()) {
            k
        } else {
            k - 1
        };
        let pairs = if 4 * span < 21 {
            vec![UNKNOWN_PAIR; 1 << (4 * span)]
        } else {
            Vec::new()
        };
        Lines {
            span,
            players: windows.map(|w| Classifier::new(k, span, w)),
            pairs,
            sparse_pairs: HashMap::new(),
        }
    }

    /// Where the cell `offset` steps along the line (never 0) sits in a
    /// [`LineKey`]: the shift of its two bits.
    #[inline]
    pub fn slot(&self, offset: isize) -> u32 {
        let span = self.span as isize;
        debug_assert!(offset != 0 && offset.abs() <= span);
        let i = if offset < 0 {
            -offset - 1
        } else {
            span + offset - 1
        };
        2 * i as u32
    }

    /// Both players' reads (X's, O's) for a stone on the centre of `key`.
    #[inline]
    pub fn pair(&mut self, key: LineKey) -> [LineRead; 2] {
        let v = if !self.pairs.is_empty() {
            let v = self.pairs[key as usize];
            if v != UNKNOWN_PAIR {
                v
            } else {
                let v = self.compute_pair(key);
                self.pairs[key as usize] = v;
                v
            }
        } else if let Some(&v) = self.sparse_pairs.get(&key) {
            v
        } else {
            let v = self.compute_pair(key);
            self.sparse_pairs.insert(key, v);
            v
        };
        [(v & 0xFF) as u8, (v >> 8) as u8]
    }

    #[cold]
    fn compute_pair(&mut self, key: LineKey) -> u16 {
        let span = self.span as isize;
        let mut masks = [0u64; 4];
        for offset in (-span..=span).filter(|&o| o != 0) {
            let code = (key >> self.slot(offset)) & 3;
            masks[code as usize] |= 1 << (offset + span);
        }
        let [_, x, o, off] = masks;
        let sx = self.players[0].read(x, o, off);
        let so = self.players[1].read(o, x, off);
        sx as u16 | (so as u16) << 8
    }

    /// Cells read each side of the candidate cell.
    pub fn span(&self) -> usize {
        self.span as usize
    }

    /// Whether some cells may be forbidden to `p` (reads may carry
    /// [`FOUL`]).
    pub fn fouls(&self, p: Player) -> bool {
        self.players[p.index()].windows.fouls
    }

    /// The shape a stone of `p` on the centre makes, given its stones
    /// (`own`), the other's (`other`) and the cells off the board (`off`)
    /// around it.
    #[cfg(test)]
    fn shape(&mut self, p: Player, own: u64, other: u64, off: u64) -> Shape {
        shape_of(self.players[p.index()].read(own, other, off))
    }
}

impl Classifier {
    fn new(k: u32, span: u32, windows: Windows) -> Classifier {
        let cells = 2 * span as usize;
        let patterns = 3usize
            .checked_pow(cells as u32)
            .filter(|&n| n <= DENSE_LIMIT && !windows.caro);
        let (ternary, dense) = match patterns {
            Some(n) => {
                let mut ternary = vec![0u32; 1 << (cells + 1)];
                for (mask, t) in ternary.iter_mut().enumerate() {
                    let mut digit = 1;
                    for bit in 0..=cells {
                        if bit == span as usize {
                            continue;
                        }
                        if mask >> bit & 1 == 1 {
                            *t += digit;
                        }
                        digit *= 3;
                    }
                }
                (ternary, vec![UNKNOWN; n])
            }
            None => (Vec::new(), Vec::new()),
        };
        Classifier {
            k,
            span,
            windows,
            ternary,
            dense,
            sparse: HashMap::new(),
        }
    }

    /// What a stone on the centre makes, given the player's stones (`own`),
    /// the other's (`other`) and the off-board cells (`off`) around it.
    #[inline]
    fn read(&mut self, own: u64, other: u64, off: u64) -> LineRead {
        let centre = 1u64 << self.span;
        let (own, other, off) = (own & !centre, other & !centre, off & !centre);
        if !self.dense.is_empty() {
            let i = self.ternary[own as usize] as usize
                + 2 * self.ternary[(other | off) as usize] as usize;
            let s = self.dense[i];
            if s != UNKNOWN {
                return s;
            }
            let s = self.compute(own, other, off);
            self.dense[i] = s;
            s
        } else {
            if let Some(&s) = self.sparse.get(&(own, other, off)) {
                return s;
            }
            let s = self.compute(own, other, off);
            self.sparse.insert((own, other, off), s);
            s
        }
    }

    /// The read by its definition (one stone short of the best shape one
    /// more stone makes), remembering the patterns it passes through.
    #[cold]
    fn compute(&mut self, own: u64, other: u64, off: u64) -> LineRead {
        let (k, span, rules) = (self.k, self.span, self.windows);
        let blocked = other | off;
        let centre = 1u64 << span;
        let mine = own | centre;
        let window = if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
        let last = 2 * span;
        let mut live_cells = 0u64;
        let mut points = 0u64;
        let mut most = 0;
        for start in span + 1 - k..=span {
            let w = window << start;
            if w & blocked != 0 {
                continue;
            }
            let before = if start > 0 { 1u64 << (start - 1) } else { 0 };
            let after = if start + k <= last {
                1u64 << (start + k)
            } else {
                0
            };
            if rules.exact && mine & (before | after) != 0 {
                continue;
            }
            // Caro: closed at both ends by the other's stones. (With the
            // player's own stone past an end the row is longer than K and
            // wins anyway, unless exact, which the test above drops.)
            if rules.caro && before != 0 && after != 0 && other & (before | after) == before | after
            {
                continue;
            }
            let empty = w & !mine;
            match empty.count_ones() {
                0 => return Shape::Five as u8,
                1 => points |= empty,
                _ => {}
            }
            live_cells |= empty;
            most = most.max(k - empty.count_ones());
        }
        let foul = if rules.fouls && run_through(mine, span) > k {
            FOUL
        } else {
            0
        };
        match points.count_ones() {
            0 => {}
            1 => return Shape::Four as u8 | foul,
            // Renju counts fours as sets of four stones: two points make
            // one four only as the two ends of a straight four.
            2 if rules.fouls && points.trailing_zeros() + k + 1 != 64 - points.leading_zeros() => {
                return Shape::Four as u8 | FOUL
            }
            n if rules.fouls && n > 2 => return Shape::Four as u8 | FOUL,
            _ => return Shape::OpenFour as u8 | foul,
        }
        if live_cells == 0 {
            return Shape::None as u8 | foul;
        }
        // Two stones or more short of a four: nothing one stone can make
        // counts beyond a one.
        if most + 3 < k {
            return Shape::One as u8 | foul;
        }
        let mut best = Shape::One;
        let mut cells = live_cells;
        while cells != 0 {
            let e = cells & cells.wrapping_neg();
            cells &= cells - 1;
            best = best.max(shape_of(self.read(own | e, other, off)).one_short());
            if best == Shape::OpenThree {
                break;
            }
        }
        best as u8 | foul
    }
}

/// The length of the run of `mine`'s bits through bit `at` (which is set).
fn run_through(mine: u64, at: u32) -> u32 {
    let above = (!(mine >> at)).trailing_zeros();
    let below = if at == 0 {
        0
    } else {
        (!(mine << (64 - at))).leading_zeros()
    };
    above + below
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of the cell marked `*` in a line written with `X` (the
    /// player), `O` or `|` (closed) and `.` (empty); cells beyond the
    /// written ones are empty.
    fn shape_in(lines: &mut Lines, line: &str) -> Shape {
        read_in(lines, line).0
    }

    /// The shape and whether the line is a foul, for X.
    fn read_in(lines: &mut Lines, line: &str) -> (Shape, bool) {
        let at = line.find('*').expect("a * in the line");
        let span = lines.span() as isize;
        let (mut own, mut other, mut off) = (0u64, 0u64, 0u64);
        for (i, ch) in line.chars().enumerate() {
            let offset = i as isize - at as isize;
            if offset.abs() > span {
                continue;
            }
            let bit = 1u64 << (offset + span);
            match ch {
                'X' => own |= bit,
                'O' => other |= bit,
                '|' => off |= bit,
                _ => {}
            }
        }
        let read = lines.players[0].read(own, other, off);
        (shape_of(read), read & FOUL != 0)
    }

    #[test]
    fn gomoku_shapes_under_the_free_rule() {
        let mut l = Lines::new(5, Rule::Free);
        let cases = [
            ("XX*XX", Shape::Five),
            ("XXXX*X", Shape::Five),
            (".XXX*.", Shape::OpenFour),
            ("X.X*X.X", Shape::OpenFour),
            ("OXXX*.", Shape::Four),
            ("XX.X*", Shape::Four),
            ("|XX*X.", Shape::Four),
            ("..XX*..", Shape::OpenThree),
            ("..X.X*..", Shape::OpenThree),
            ("..X*.X..", Shape::OpenThree),
            ("OXX*..", Shape::Three),
            ("..X.*.X..", Shape::Three),
            ("..X*...", Shape::OpenTwo),
            ("..X.*...", Shape::OpenTwo),
            ("OX*...", Shape::Two),
            ("...*...", Shape::One),
            ("O...*O", Shape::None),
            ("OXXX*O", Shape::None),
        ];
        for (line, want) in cases {
            assert_eq!(shape_in(&mut l, line), want, "{line}");
        }
    }

    #[test]
    fn line_keys_give_both_players_shapes() {
        for (k, rule) in [(5, Rule::Free), (5, Rule::Exact), (7, Rule::Exact)] {
            let mut lines = Lines::new(k, rule);
            let span = lines.span() as isize;
            // X X * X . . O: X makes an open four (K 5) or a two (K 7);
            // O nothing much.
            let mut key: LineKey = 0;
            for (offset, code) in [(-2, STONE[0]), (-1, STONE[0]), (1, STONE[0]), (3, STONE[1])] {
                key |= code << lines.slot(offset);
            }
            key |= OFF << lines.slot(-span);
            let [x, o] = lines.pair(key).map(shape_of);
            if k == 5 {
                assert_eq!(x, Shape::OpenFour, "k {k}");
            } else {
                assert!((Shape::Two..=Shape::OpenTwo).contains(&x), "k {k}: {x:?}");
            }
            assert!(o <= Shape::One, "k {k}: {o:?}");
            assert_eq!(lines.pair(key).map(shape_of), [x, o]);
        }
    }

    #[test]
    fn overlines_do_not_win_under_the_exact_rule() {
        let mut exact = Lines::new(5, Rule::Exact);
        let mut free = Lines::new(5, Rule::Free);
        let cases = [
            ("XXXX*X", Shape::Five, Shape::None),
            ("XX*XX", Shape::Five, Shape::Five),
            (".XX*XX.", Shape::Five, Shape::Five),
            ("XX*XX.X", Shape::Five, Shape::Five),
            // The gap would make six: only the far end makes five.
            ("X.XXX*.", Shape::OpenFour, Shape::Four),
            // A four whose completion makes six is no four.
            ("X.XXX*O", Shape::Four, Shape::None),
            // Under the exact rule the first X makes the gap a six.
            ("XX.XX*.", Shape::Four, Shape::Three),
        ];
        for (line, free_want, exact_want) in cases {
            assert_eq!(shape_in(&mut free, line), free_want, "free {line}");
            assert_eq!(shape_in(&mut exact, line), exact_want, "exact {line}");
        }
    }

    #[test]
    fn any_k_and_the_sparse_table_agree_with_the_dense_one() {
        // K = 4 free reads 3 cells each side; K = 8 exact, 8: the map.
        let mut four = Lines::new(4, Rule::Free);
        assert_eq!(shape_in(&mut four, ".XX*."), Shape::OpenFour);
        assert_eq!(shape_in(&mut four, "OXX*."), Shape::Four);
        assert_eq!(shape_in(&mut four, ".X*.."), Shape::OpenThree);
        let mut eight = Lines::new(8, Rule::Exact);
        assert!(eight.players[0].dense.is_empty());
        assert_eq!(shape_in(&mut eight, ".XXXXXX*."), Shape::OpenFour);
        assert_eq!(shape_in(&mut eight, "XXXXXX*XX"), Shape::None);
        assert_eq!(shape_in(&mut eight, "OXXXXXX*X"), Shape::Five);
        let mut one = Lines::new(1, Rule::Free);
        assert_eq!(shape_in(&mut one, "X*X"), Shape::Five);
        let mut one = Lines::new(1, Rule::Exact);
        assert_eq!(shape_in(&mut one, "X*."), Shape::None);
        assert_eq!(shape_in(&mut one, "O*."), Shape::Five);
        // The same patterns through a map and through the dense table.
        let mut dense = Lines::new(5, Rule::Free);
        let mut sparse = Lines::new(5, Rule::Free);
        sparse.players[0].dense.clear();
        for own in 0..512u64 {
            for blocked in [0u64, 1, 0b1_0000_0000, 0b1_0010_0001] {
                let own = own & !blocked;
                assert_eq!(
                    dense.shape(Player::X, own, blocked, 0),
                    sparse.shape(Player::X, own, blocked, 0)
                );
            }
        }
    }
    #[test]
    fn renju_black_counts_fours_as_the_rule_does_and_marks_fouls() {
        let mut l = Lines::new(5, Rule::Renju);
        let cases = [
            // A straight four is one four; two fours on one line a foul.
            (".XXX*.", Shape::OpenFour, false),
            ("X.X*X.X", Shape::Four, true),
            ("XX.*X.XX", Shape::Four, true),
            ("XXX.*.XXX", Shape::Four, true),
            // One new four: the other was there before the stone.
            ("*.XXX.X", Shape::Four, false),
            // Overlines: no five, a foul; exactly five wins.
            ("XXX*XX", Shape::None, true),
            ("XX*XX.X", Shape::Five, false),
            ("XX*XX", Shape::Five, false),
            // The gap would make six: one four, not a straight one.
            ("X.XXX*.", Shape::Four, false),
            // A three whose straight four would be six is no open three.
            ("O.XX*..X", Shape::Three, false),
            ("..XX*..", Shape::OpenThree, false),
        ];
        for (line, shape, foul) in cases {
            assert_eq!(read_in(&mut l, line), (shape, foul), "{line}");
        }
        // White: five or more, no fouls.
        assert_eq!(l.shape(Player::O, 0b1101_1110, 0, 0), Shape::Five);
        assert!(l.fouls(Player::X) && !l.fouls(Player::O));
    }

    #[test]
    fn caro_fives_closed_at_both_ends_are_no_fives() {
        let mut caro = Lines::new(5, Rule::Caro);
        let mut exact = Lines::new(5, Rule::CaroExact);
        let cases = [
            ("OXXXX*O", Shape::None, Shape::None),
            ("|XXXX*O", Shape::Five, Shape::Five),
            ("OXXXX*.O", Shape::Five, Shape::Five),
            ("OXXXX*XO", Shape::Five, Shape::None),
            // The four's one cell would be closed at both ends.
            ("OXXX*.O", Shape::None, Shape::None),
            ("OXXX*..", Shape::Four, Shape::Four),
            ("OXXX*.|", Shape::Four, Shape::Four),
            (".XXX*.O", Shape::OpenFour, Shape::OpenFour),
            ("..XXX*..", Shape::OpenFour, Shape::OpenFour),
        ];
        for (line, caro_want, exact_want) in cases {
            assert_eq!(shape_in(&mut caro, line), caro_want, "caro {line}");
            assert_eq!(shape_in(&mut exact, line), exact_want, "caro-exact {line}");
        }
    }
}
