//! A cheap prior for a node's moves: how much a stone on a cell adds to the
//! mover's open lines and takes from the opponent's, counted over the
//! K-cell windows through the cell (as minimax's evaluation counts them on
//! the whole board). It orders the children, and UCT adds it as a
//! progressive bias that fades with visits.

use crate::rules::{Board, Player};

/// What a window with `stones` of one player (after the move) and none of
/// the other's is worth: each stone multiplies it by 8.
fn weight(stones: usize) -> u64 {
    if stones == 0 {
        0
    } else {
        1 << (3 * (stones - 1).min(20))
    }
}

/// Per cell along a line: the mover's stone, the opponent's, empty, or off
/// the board.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Spot {
    Mine,
    Theirs,
    Empty,
}

/// The raw score of `me` playing the empty `square`: over each of the four
/// lines through it, each K-cell window that holds it and only one player's
/// stones scores by the stones it would then hold — the mover's (the line
/// it extends) and the opponent's (the line it blocks, counted as if the
/// opponent played there).
pub fn score(board: &Board, square: usize, me: Player) -> u64 {
    let k = board.geometry().k();
    let spot = |sq: usize| match board.stone_on(sq) {
        Some(p) if p == me => Some(Spot::Mine),
        Some(_) => Some(Spot::Theirs),
        None if board.is_empty_square(sq) => Some(Spot::Empty),
        None => None,
    };
    let mut total = 0;
    // The line through the square, at most K - 1 cells each way; a wall
    // (off the board) ends it, so every step stays inside the padded array.
    let mut line = [Spot::Empty; 64];
    for step in board.directions() {
        let mut back = 0;
        while back + 1 < k {
            match square.checked_sub((back + 1) * step).and_then(spot) {
                Some(s) => {
                    back += 1;
                    line[k - 1 - back] = s;
                }
                None => break,
            }
        }
        let mut ahead = 0;
        while ahead + 1 < k {
            match spot(square + (ahead + 1) * step) {
                Some(s) => {
                    ahead += 1;
                    line[k - 1 + ahead] = s;
                }
                None => break,
            }
        }
        // Cells line[k - 1 - back ..= k - 1 + ahead], the square at k - 1.
        let (first, last) = (k - 1 - back, k - 1 + ahead);
        if last + 1 - first < k {
            continue;
        }
        let (mut mine, mut theirs) = (0, 0);
        for (i, &s) in line[first..=last].iter().enumerate() {
            mine += usize::from(s == Spot::Mine);
            theirs += usize::from(s == Spot::Theirs);
            if i + 1 >= k {
                // The window ending here: line[first + i + 1 - k ..= first + i].
                if theirs == 0 {
                    total += weight(mine + 1);
                }
                if mine == 0 {
                    total += weight(theirs + 1);
                }
                let out = line[first + i + 1 - k];
                mine -= usize::from(out == Spot::Mine);
                theirs -= usize::from(out == Spot::Theirs);
            }
        }
    }
    total
}

/// Scores scaled to 0..=255 against the best, by the square root of the
/// ratio: a move that makes or stops a four stands far above one that
/// adds a stone to an empty area, and those still differ (a linear scale
/// flattens everything below the best, a logarithmic one flattens the top;
/// both played worse in self-play on 15x15).
pub fn scale(scores: &[u64]) -> impl Iterator<Item = u8> + '_ {
    let best = scores.iter().copied().max().unwrap_or(0).max(1) as f64;
    scores
        .iter()
        .map(move |&s| ((s as f64 / best).sqrt() * 255.0).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Cell, Geometry, Rule};

    #[test]
    fn extending_and_blocking_lines_score_higher() {
        let geo = Geometry::new(15, 15, 5, Rule::Free).unwrap();
        let mut b = Board::new(geo);
        for (r, c) in [(7, 5), (0, 0), (7, 6), (0, 14), (7, 7)] {
            b.try_play(Cell::new(r, c)).unwrap();
        }
        // O to move: X's three is at 7 5 .. 7 7.
        let at = |r, c| score(&b, b.square(Cell::new(r, c)), Player::O);
        assert!(at(7, 8) > at(9, 9), "blocking beats nothing");
        assert!(at(7, 8) > at(8, 8));
        assert!(at(7, 4) > at(12, 12));
        // A corner sees fewer windows than the centre of an empty area.
        assert!(at(14, 14) < at(11, 11));
        let s = [0, 1, 8, 64];
        let scaled: Vec<u8> = scale(&s).collect();
        assert_eq!(scaled[3], 255);
        assert!(scaled.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn k_larger_than_the_room_scores_nothing() {
        let geo = Geometry::new(2, 7, 4, Rule::Free).unwrap();
        let b = Board::new(geo);
        // Columns only have 2 cells: only rows count.
        let corner = score(&b, b.square(Cell::new(0, 0)), Player::X);
        let mid = score(&b, b.square(Cell::new(0, 3)), Player::X);
        assert_eq!(corner, 2);
        assert_eq!(mid, 8);
    }
}
