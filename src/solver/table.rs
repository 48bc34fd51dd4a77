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
}

impl Known {
    /// Nothing known yet.
    pub const NOTHING: Known = Known {
        lo: -1,
        hi: 1,
        best: None,
        dist: [(0, u8::MAX); 2],
        zone: [u64::MAX; 2],
    };
}

/// A table of `2^bits` entries.
pub struct Table {
    keys: Vec<u64>,
    data: Vec<u64>,
    zones: Vec<[u64; 2]>,
    mask: usize,
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
    }
}

fn work_of(d: u64) -> u32 {
    ((d >> 43) & 63) as u32
}

/// Bytes per entry.
pub const ENTRY_BYTES: usize = 32;

impl Table {
    /// A table of `2^bits` entries (at least one bucket).
    pub fn new(bits: u32) -> Table {
        let n = 1usize << bits.max(2);
        Table {
            keys: vec![0; n],
            data: vec![0; n],
            zones: vec![[0; 2]; n],
            mask: (n >> 2) - 1,
            dirty: false,
        }
    }

    /// A table of at most `mib` MiB.
    pub fn with_mib(mib: usize) -> Table {
        let entries = (mib.max(1) << 20) / ENTRY_BYTES;
        Table::new(usize::BITS - 1 - entries.leading_zeros())
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        if self.dirty {
            self.keys.fill(0);
            self.data.fill(0);
            self.dirty = false;
        }
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        ((key as usize) & self.mask) << 2
    }

    /// What is known of the position with this key.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Known> {
        let b = self.bucket(key);
        (b..b + 4)
            .find(|&i| self.keys[i] == key && self.data[i] != 0)
            .map(|i| Known {
                zone: self.zones[i],
                ..unpack(self.data[i])
            })
    }

    /// Stores what is known, `work` being log2 of the nodes it took: an
    /// entry of the same key is replaced (keeping the larger work), else
    /// the one of least work.
    pub fn store(&mut self, key: u64, known: Known, mut work: u32) {
        let b = self.bucket(key);
        let mut slot = b;
        let mut least = u32::MAX;
        for i in b..b + 4 {
            if self.keys[i] == key && self.data[i] != 0 {
                work = work.max(work_of(self.data[i]));
                slot = i;
                break;
            }
            if self.data[i] == 0 {
                slot = i;
                break;
            }
            let w = work_of(self.data[i]);
            if w < least {
                least = w;
                slot = i;
            }
        }
        self.keys[slot] = key;
        self.data[slot] = pack(known, work);
        self.zones[slot] = known.zone;
        self.dirty = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_replacement() {
        let mut t = Table::new(4);
        let k = Known {
            lo: 0,
            hi: 1,
            best: Some(63),
            dist: [(7, 200), (0, 9)],
            zone: [5, u64::MAX],
        };
        t.store(5, k, 1);
        assert_eq!(t.probe(5), Some(k));
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
