//! Scores: exact results (wins by distance, draws) and the heuristic scale
//! below them.

/// A win on the very next ply; a win `n` plies from the root scores `WIN - n`,
/// so quicker wins score higher and slower losses score less badly.
pub const WIN: i32 = 1_000_000_000;

/// Larger than any score: the open bounds of a search window.
pub const INFINITY: i32 = WIN + 1;

/// Scores beyond this (in absolute value) are proven wins or losses. Games
/// last at most 32 * 32 plies, well inside the margin.
pub const MATE_BOUND: i32 = WIN - 4096;

/// Heuristic evaluations are clamped to this, far below any proven result.
pub const EVAL_CAP: i32 = WIN / 2;

/// Whether a score is a proven win or loss.
#[inline]
pub fn is_proven(score: i32) -> bool {
    score.abs() > MATE_BOUND
}

/// The score of winning with the stone placed `ply` plies below the root
/// (the root's own move is ply 1).
#[inline]
pub fn win_at(ply: usize) -> i32 {
    WIN - ply as i32
}

/// What a window with `stones` of one player's stones and none of the other's
/// is worth to that player: each stone multiplies it by 8.
#[inline]
pub fn window_weight(stones: u8) -> i64 {
    if stones == 0 {
        0
    } else {
        1i64 << (3 * (stones as u32 - 1).min(9))
    }
}

/// A proven score made relative to the node where it is stored (the table
/// outlives the root), and back.
#[inline]
pub fn to_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Undoes [`to_table`] for a node `ply` plies below the root.
#[inline]
pub fn from_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_grow_and_stay_bounded() {
        assert_eq!(window_weight(0), 0);
        assert!(window_weight(2) > window_weight(1));
        assert_eq!(window_weight(31), window_weight(10));
    }

    #[test]
    fn table_round_trip() {
        for s in [0, 17, -17, win_at(5), -win_at(8)] {
            assert_eq!(from_table(to_table(s, 7), 7), s);
        }
        assert_eq!(from_table(to_table(win_at(9), 4), 2), win_at(7));
    }
}
