//! The layout of the line masks every rules check reads (the board's
//! win check, the playouts, renju's forbidden cells): where a cell sits in
//! each of its four lines, and the run of stones through a bit of a line.

/// The lines through cell `(r, c)` of a `rows` x `cols` board and its bit in
/// each, for the first player's masks (the second's follow them): across
/// (row `r`, bit `c`), down (column `c`, bit `r`), down-right and down-left
/// (bit `r`), `rows + cols - 1` lines each, so that neighbours along a line
/// are neighbouring bits.
#[inline]
pub(super) fn line_slots_at(rows: usize, cols: usize, (r, c): (usize, usize)) -> [(usize, u32); 4] {
    let n = rows + cols - 1;
    [
        (r, 1 << c),
        (n + c, 1 << r),
        (2 * n + c + rows - 1 - r, 1 << r),
        (3 * n + r + c, 1 << r),
    ]
}

/// The stones of a mask's run through `bit` (which must be set) before
/// and after it.
#[inline]
pub(super) fn run_around(mask: u32, bit: u32) -> (u32, u32) {
    let pos = bit.trailing_zeros();
    let after = (!(mask >> pos)).trailing_zeros() - 1;
    let before = (!(mask << (31 - pos))).leading_zeros() - 1;
    (before, after)
}
