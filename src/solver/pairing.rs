//! Pairing strategies: a cheap proof that a player cannot win.
//!
//! If every window the maker could still complete holds two empty cells
//! that are paired (the pairs disjoint), the breaker answers a stone on one
//! cell of a pair with the other: no window is ever completed. Finding the
//! pairs is a small exact-cover-like search over the maker's live windows,
//! run under a node budget (giving up proves nothing).

/// How many pair choices one search may try.
const BUDGET: u32 = 300;

/// The most windows a search takes (more: no pairing is looked for).
pub const MAX_WINDOWS: usize = 64;

/// Whether disjoint pairs of empty cells can be chosen so that each of
/// `windows` (the empty cells of the maker's live windows) holds a pair:
/// the cells of the pairs when they can. Allocates nothing.
pub fn pairs_block(windows: &[u64]) -> Option<u64> {
    if windows.len() > MAX_WINDOWS || windows.iter().any(|w| w.count_ones() < 2) {
        return None;
    }
    // A window holding all the empty cells of another is blocked with it.
    let mut sorted = [0u64; MAX_WINDOWS];
    let sorted = &mut sorted[..windows.len()];
    sorted.copy_from_slice(windows);
    sorted.sort_unstable_by_key(|w| w.count_ones());
    let mut minimal = [0u64; MAX_WINDOWS];
    let mut n = 0;
    for &w in sorted.iter() {
        if !minimal[..n].iter().any(|&m| m & !w == 0) {
            minimal[n] = w;
            n += 1;
        }
    }
    let mut budget = BUDGET;
    search(&mut minimal[..n], 0, &mut budget)
}

/// Pairs the windows in `open` (none yet holds a chosen pair) using cells
/// outside `used`; all the paired cells when it can. `open` is reordered
/// in place: the windows a pair serves are moved past the ones left open.
fn search(open: &mut [u64], used: u64, budget: &mut u32) -> Option<u64> {
    if open.is_empty() {
        return Some(used);
    }
    // The window with the fewest free cells first.
    let free = open
        .iter()
        .map(|&w| w & !used)
        .min_by_key(|f| f.count_ones())
        .expect("not empty");
    if free.count_ones() < 2 {
        return None;
    }
    // Candidate pairs inside it, those that serve the most windows first.
    let mut pairs = [(0u32, 0u64); MAX_PAIRS];
    let mut count = 0;
    let mut a_bits = free;
    while a_bits != 0 && count < MAX_PAIRS {
        let a = a_bits & a_bits.wrapping_neg();
        a_bits &= a_bits - 1;
        let mut b_bits = a_bits;
        while b_bits != 0 && count < MAX_PAIRS {
            let b = b_bits & b_bits.wrapping_neg();
            b_bits &= b_bits - 1;
            let pair = a | b;
            let served = open.iter().filter(|&&w| w & pair == pair).count() as u32;
            pairs[count] = (served, pair);
            count += 1;
        }
    }
    let pairs = &mut pairs[..count];
    pairs.sort_unstable_by_key(|&(served, _)| std::cmp::Reverse(served));
    for &(_, pair) in pairs.iter() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        // The windows the pair does not serve, to the front.
        let mut rest = 0;
        for i in 0..open.len() {
            if open[i] & pair != pair {
                open.swap(i, rest);
                rest += 1;
            }
        }
        if let Some(cells) = search(&mut open[..rest], used | pair, budget) {
            return Some(cells);
        }
    }
    None
}

/// Pairs tried inside one window at most (a window of K cells has K(K-1)/2).
const MAX_PAIRS: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    /// The empty cells of every line of an n x n board (K = n).
    fn lines(n: usize) -> Vec<u64> {
        let bit = |r: usize, c: usize| 1u64 << (r * n + c);
        let mut out = Vec::new();
        for i in 0..n {
            out.push((0..n).fold(0, |m, j| m | bit(i, j)));
            out.push((0..n).fold(0, |m, j| m | bit(j, i)));
        }
        out.push((0..n).fold(0, |m, j| m | bit(j, j)));
        out.push((0..n).fold(0, |m, j| m | bit(j, n - 1 - j)));
        out
    }

    #[test]
    fn five_by_five_pairs_but_three_by_three_does_not() {
        // 12 lines of 5x5 need 12 disjoint pairs among 25 cells: there are.
        let pairs = pairs_block(&lines(5)).unwrap();
        assert_eq!(pairs.count_ones(), 24);
        assert!(lines(5).iter().all(|w| (w & pairs).count_ones() >= 2));
        // 8 lines of 3x3 would need 16 cells of 9.
        assert_eq!(pairs_block(&lines(3)), None);
        assert_eq!(pairs_block(&[0b1, 0b110]), None);
        assert_eq!(pairs_block(&[0b110, 0b1110]), Some(0b110));
        assert_eq!(pairs_block(&[]), Some(0));
    }
}
