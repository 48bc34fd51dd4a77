//! The solver's transposition table: buckets of four entries keyed by the
//! symmetry-canonical Zobrist hash. An entry holds what is proved of its
//! position — bounds on the game's value for the side to move, and bounds on
//! the distance to a win — so results of one question serve every later one.
//! Replacement keeps the entries that cost the most work to find.

/// What is known of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// The value for the side to move is at least `lo` and at most `hi`
    /// (-1 a loss, 0 a draw, 1 a win).
    pub lo: i8,
    pub hi: i8,
    /// The best move found, as a cell in the canonical orientation.
    pub best: Option<u8>,
    /// Distances to a win: `dist[0]` for the side to move, `dist[1]` for
    /// the other. `(fail, win)`: that side cannot win within `fail` plies
    /// (its winning stone placed by then) and can within `win` (255: not
    /// known).
    pub dist: [(u8, u8); 2],
    /// Relevance zones (see `search`): `zone[0]` backs `hi <= 0` (the side
    /// to move cannot win), `zone[1]` backs `lo >= 0` (the other cannot):
    /// the proof holds whatever stones that player had on cells outside it.
    /// `u64::MAX`: not known.
    pub zone: [u64; 2],
    /// Zones backing `dist[dist_side]`: `[0]` its `fail`, `[1]` its `win`
    /// (one side's only: an entry serves one attacker at a time).
    dist_zone: [u64; 2],
    dist_side: usize,
}

impl Known {
    /// Nothing known yet.
    pub const NOTHING: Known = Known {
        lo: -1,
        hi: 1,
        best: None,
        dist: [(0, u8::MAX); 2],
        zone: [u64::MAX; 2],
        dist_zone: [u64::MAX; 2],
        dist_side: 0,
    };

    /// The zones backing `dist[side]` (`u64::MAX` where not known).
    pub fn dist_zone(&self, side: usize) -> [u64; 2] {
        if side == self.dist_side {
            self.dist_zone
        } else {
            [u64::MAX; 2]
        }
    }

    /// Sets the zones backing `dist[side]`, forgetting the other side's.
    pub fn set_dist_zone(&mut self, side: usize, zone: [u64; 2]) {
        self.dist_side = side;
        self.dist_zone = zone;
    }
}

/// A table of `2^bits` entries.
pub struct Table {
    /// Buckets of [`BUCKET`] words from `base`.
    words: Vec<u64>,
    base: usize,
    mask: usize,
    /// Proof and disproof numbers of nodes not proved yet (see `dfpn`),
    /// half as many entries, buckets of [`PN_BUCKET`] words from `pn_base`.
    pn_words: Vec<u64>,
    pn_base: usize,
    pn_mask: usize,
    /// Whether anything was stored since the last clear (a fresh table's
    /// pages are not touched until used).
    dirty: bool,
}

const NO_MOVE: u64 = 0x7F;

fn pack(k: Known, work: u32) -> u64 {
    let best = k.best.map_or(NO_MOVE, u64::from);
    (k.lo + 1) as u64
        | ((k.hi + 1) as u64) << 2
        | best << 4
        | u64::from(k.dist[0].0) << 11
        | u64::from(k.dist[0].1) << 19
        | u64::from(k.dist[1].0) << 27
        | u64::from(k.dist[1].1) << 35
        | u64::from(work.min(63)) << 43
        | 1 << 49
        | (k.dist_side as u64) << 50
}

fn unpack(d: u64) -> Known {
    let best = (d >> 4) & 0x7F;
    Known {
        lo: (d & 3) as i8 - 1,
        hi: ((d >> 2) & 3) as i8 - 1,
        best: (best != NO_MOVE).then_some(best as u8),
        dist: [
            ((d >> 11) as u8, (d >> 19) as u8),
            ((d >> 27) as u8, (d >> 35) as u8),
        ],
        zone: [u64::MAX; 2],
        dist_zone: [u64::MAX; 2],
        dist_side: ((d >> 50) & 1) as usize,
    }
}

fn work_of(d: u64) -> u32 {
    ((d >> 43) & 63) as u32
}

/// Bytes per entry (with its share of the proof numbers' entries).
pub const ENTRY_BYTES: usize = 56;

/// Words of a bucket of four entries: keys, data, then four zones each
/// (two for the bounds, two for the distances); 192 bytes, aligned, so a
/// probe reads one cache line and a hit two.
const BUCKET: usize = 24;

/// Words of a bucket of four proof-number entries: keys, then data; one
/// cache line.
const PN_BUCKET: usize = 8;

/// Zeroed words in which index `base` is aligned to 64 bytes (zeroed
/// allocations are only touched as they are used); `None` when the
/// allocator can't give them.
fn aligned_words(words: usize) -> Option<(Vec<u64>, usize)> {
    let v = crate::sys::memory::zeroed_words(words.checked_add(8)?)?;
    let base = (64 - (v.as_ptr() as usize) % 64) % 64 / 8;
    Some((v, base))
}

impl Table {
    /// A table of `2^bits` entries (at least one bucket), or a smaller one
    /// by halves when the allocator can't give that much: a table too big
    /// for the machine costs speed, never the process.
    pub fn new(bits: u32) -> Table {
        let mut bits = bits.clamp(2, usize::BITS - 8);
        loop {
            match Table::allocate(bits) {
                Some(t) => return t,
                None if bits > 2 => bits -= 1,
                None => panic!("no memory for the smallest table (a few hundred bytes)"),
            }
        }
    }

    fn allocate(bits: u32) -> Option<Table> {
        let buckets = (1usize << bits) >> 2;
        let pn_buckets = (buckets >> 1).max(1);
        let (words, base) = aligned_words(buckets.checked_mul(BUCKET)?)?;
        let (pn_words, pn_base) = aligned_words(pn_buckets * PN_BUCKET)?;
        Some(Table {
            words,
            base,
            mask: buckets - 1,
            pn_words,
            pn_base,
            pn_mask: pn_buckets - 1,
            dirty: false,
        })
    }

    /// A table of at most `mib` MiB.
    pub fn with_mib(mib: usize) -> Table {
        let entries = (mib.max(1) << 20) / ENTRY_BYTES;
        Table::new(usize::BITS - 1 - entries.leading_zeros())
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        if self.dirty {
            self.words.fill(0);
            self.pn_words.fill(0);
            self.dirty = false;
        }
    }

    /// The bucket of a key.
    #[inline]
    fn bucket(&self, key: u64) -> &[u64] {
        let b = self.base + ((key as usize) & self.mask) * BUCKET;
        &self.words[b..b + BUCKET]
    }

    /// What is known of the position with this key.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Known> {
        let b = self.bucket(key);
        (0..4)
            .find(|&i| b[i] == key && b[4 + i] != 0)
            .map(|i| Known {
                zone: [b[8 + 4 * i], b[9 + 4 * i]],
                dist_zone: [b[10 + 4 * i], b[11 + 4 * i]],
                ..unpack(b[4 + i])
            })
    }

    /// Stores what is known, `work` being log2 of the nodes it took: an
    /// entry of the same key is replaced (keeping the larger work), else
    /// the one of least work.
    pub fn store(&mut self, key: u64, known: Known, mut work: u32) {
        let start = self.base + ((key as usize) & self.mask) * BUCKET;
        let b = &mut self.words[start..start + BUCKET];
        let mut slot = 0;
        let mut least = u32::MAX;
        for i in 0..4 {
            if b[i] == key && b[4 + i] != 0 {
                work = work.max(work_of(b[4 + i]));
                slot = i;
                break;
            }
            if b[4 + i] == 0 {
                slot = i;
                break;
            }
            let w = work_of(b[4 + i]);
            if w < least {
                least = w;
                slot = i;
            }
        }
        b[slot] = key;
        b[4 + slot] = pack(known, work);
        b[8 + 4 * slot] = known.zone[0];
        b[9 + 4 * slot] = known.zone[1];
        b[10 + 4 * slot] = known.dist_zone[0];
        b[11 + 4 * slot] = known.dist_zone[1];
        self.dirty = true;
    }
}

/// The largest proof or disproof number kept: infinity.
pub const PN_INF: u32 = (1 << 28) - 1;

impl Table {
    /// The proof and disproof numbers stored for `key`, if any.
    #[inline]
    pub fn probe_pn(&self, key: u64) -> Option<(u32, u32)> {
        let start = self.pn_base + ((key as usize) & self.pn_mask) * PN_BUCKET;
        let b = &self.pn_words[start..start + PN_BUCKET];
        (0..4).find(|&i| b[i] == key && b[4 + i] != 0).map(|i| {
            let d = b[4 + i];
            ((d & 0xFFF_FFFF) as u32, ((d >> 28) & 0xFFF_FFFF) as u32)
        })
    }

    /// Reads the first word of `key`'s bucket: a hint to bring it into the
    /// cache before `probe_pn` needs it.
    #[inline]
    pub fn touch_pn(&self, key: u64) -> u64 {
        self.pn_words[self.pn_base + ((key as usize) & self.pn_mask) * PN_BUCKET]
    }

    /// Stores proof and disproof numbers, `work` being log2 of the nodes
    /// they took; replacement as in `store`.
    pub fn store_pn(&mut self, key: u64, phi: u32, delta: u32, work: u32) {
        let start = self.pn_base + ((key as usize) & self.pn_mask) * PN_BUCKET;
        let b = &mut self.pn_words[start..start + PN_BUCKET];
        let mut slot = 0;
        let mut least = u32::MAX;
        for i in 0..4 {
            let d = b[4 + i];
            if d == 0 || b[i] == key {
                slot = i;
                break;
            }
            let w = (d >> 56) as u32 & 63;
            if w < least {
                least = w;
                slot = i;
            }
        }
        b[slot] = key;
        b[4 + slot] = u64::from(phi.min(PN_INF))
            | u64::from(delta.min(PN_INF)) << 28
            | u64::from(work.min(63)) << 56
            | 1 << 62;
        self.dirty = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_the_machine_cannot_give_shrinks() {
        // 2^56 entries: exabytes, past any machine; a smaller table comes back.
        let t = Table::new(56);
        assert!(t.mask + 1 < (1 << 54), "{}", t.mask);
        assert!(t.mask >= 1);
        assert!(t.probe(12345).is_none());
    }

    #[test]
    fn round_trip_and_replacement() {
        let mut t = Table::new(4);
        let mut k = Known {
            lo: 0,
            hi: 1,
            best: Some(63),
            dist: [(7, 200), (0, 9)],
            zone: [5, u64::MAX],
            ..Known::NOTHING
        };
        k.set_dist_zone(1, [3, 12]);
        t.store(5, k, 1);
        assert_eq!(t.probe(5), Some(k));
        assert_eq!(k.dist_zone(1), [3, 12]);
        assert_eq!(k.dist_zone(0), [u64::MAX; 2]);
        assert_eq!(t.probe(9), None);
        let n = Known::NOTHING;
        t.store(5, n, 0);
        assert_eq!(t.probe(5), Some(n));
        // Four buckets: keys 1, 5, 9, 13, 17 share bucket 1; the least work goes.
        for (key, work) in [(1, 5), (9, 2), (13, 8), (17, 3)] {
            t.store(key, k, work);
        }
        assert_eq!(t.probe(5), None, "work 1 was the least");
        t.store(21, k, 4);
        assert_eq!(t.probe(9), None, "then work 2");
        assert!(t.probe(13).is_some() && t.probe(21).is_some());
        t.clear();
        assert_eq!(t.probe(13), None);
    }
}
