//! The transposition table: a fixed number of two-slot buckets keyed by the
//! canonical Zobrist hash, allocated with the bot and wiped (not freed) on
//! a new game.

use super::eval::from_table;
use super::layout::Layout;
use crate::rules::Board;

/// How a stored score relates to the true value of its position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value is at least the score (the search failed high).
    Lower,
    /// The value is at most the score (the search failed low).
    Upper,
    /// The score is the value (to the stored depth).
    Exact,
}

/// One stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Score relative to the stored node (see `eval::to_table`).
    pub score: i32,
    /// Plies searched below the node (capped at 255).
    pub depth: u8,
    pub bound: Bound,
    /// The best move found, as a cell index in the canonical orientation.
    pub best: Option<u16>,
}

const NO_MOVE: u64 = 0xFFFF;

/// Default size: 2^20 slots of 16 bytes (16 MiB).
pub const DEFAULT_BITS: u32 = 20;

/// The largest table `set hash` takes, in MiB.
pub const MAX_MIB: u64 = 1024;

/// The MiB a table of 2^`bits` slots takes (from 2^16 slots, 1 MiB).
pub const fn mib_of_bits(bits: u32) -> u64 {
    (16u64 << bits) >> 20
}

/// The slots (as a power of two) of the largest table within `mib` MiB
/// (at least two slots: one bucket).
pub fn bits_for_mib(mib: u64) -> u32 {
    let slots = (mib.max(1) << 20) / 16;
    (u64::BITS - 1 - slots.leading_zeros()).max(1)
}

pub struct Table {
    /// Pairs of (key, packed entry); a zero entry is an empty slot.
    slots: Vec<[u64; 2]>,
    bits: u32,
    /// Searches are numbered so that entries from older moves are replaced first.
    age: u64,
    /// The buckets stored to since the last clear, while they are few
    /// (small games store a few thousand entries); `None` once there were
    /// too many to list, and the next clear wipes the whole table.
    written: Option<Vec<u32>>,
}

/// The most buckets `Table::written` lists, as a fraction of the table:
/// beyond it, wiping everything is about as quick.
const WRITTEN_FRACTION: usize = 16;

impl Bound {
    /// What a search's `best` score says of its node, searched in the
    /// window (`alpha`, `beta`).
    pub fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

impl Entry {
    /// The score when the stored bound settles a node to be searched
    /// `depth` plies deep in the window (`alpha`, `beta`), `ply` plies
    /// below the root; `None` when it must be searched.
    pub fn cutoff(&self, depth: i32, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
        if (self.depth as i32) < depth {
            return None;
        }
        let score = from_table(self.score, ply);
        let settled = match self.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        settled.then_some(score)
    }

    /// The stored best move as a square of `board`, seen through symmetry
    /// `sym`, if that square is still empty.
    pub fn best_square(&self, layout: &Layout, sym: usize, board: &Board) -> Option<usize> {
        self.best
            .and_then(|m| layout.square_of_canonical(m, sym))
            .filter(|&sq| board.is_empty_square(sq))
    }

    fn pack(self, age: u64) -> u64 {
        let bound = match self.bound {
            Bound::Lower => 1,
            Bound::Upper => 2,
            Bound::Exact => 3,
        };
        (self.score as u32 as u64)
            | (self.best.map_or(NO_MOVE, |m| m as u64) << 32)
            | ((self.depth as u64) << 48)
            | (bound << 56)
            | ((age & 0x3F) << 58)
    }

    fn unpack(data: u64) -> Option<Entry> {
        let bound = match (data >> 56) & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            3 => Bound::Exact,
            _ => return None,
        };
        let best = (data >> 32) & 0xFFFF;
        Some(Entry {
            score: data as u32 as i32,
            depth: (data >> 48) as u8,
            bound,
            best: (best != NO_MOVE).then_some(best as u16),
        })
    }
}

impl Table {
    /// An empty table of 2^`bits` slots.
    ///
    /// Allocated now, not at the first store: that store comes inside a
    /// search, where zeroing 16 MiB (as calloc does with memory the process
    /// freed before, say an earlier bot's table) would eat milliseconds of
    /// the move time.
    pub fn new(bits: u32) -> Table {
        Table {
            slots: vec![[0u64; 2]; 1usize << bits],
            bits,
            age: 0,
            written: Some(Vec::new()),
        }
    }

    /// The table has 2^bits slots.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The bytes of its slots.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<[u64; 2]>()
    }

    /// Forgets everything: afterwards the table is as a new one.
    ///
    /// The memory is kept and wiped, only the buckets written when they are
    /// few. Freeing it would not return it to the system (the allocator
    /// keeps it), and the next search would then pay for zeroing all 16 MiB
    /// inside its move time: milliseconds, at every new game.
    pub fn clear(&mut self) {
        match &mut self.written {
            Some(buckets) => {
                for &b in buckets.iter() {
                    let b = b as usize;
                    self.slots[b..b + 2].fill([0, 0]);
                }
                buckets.clear();
            }
            None => {
                self.slots.fill([0, 0]);
                self.written = Some(Vec::new());
            }
        }
        self.age = 0;
    }

    /// A new search starts: older entries become the first to be replaced.
    pub fn next_age(&mut self) {
        self.age = (self.age + 1) & 0x3F;
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key as usize) & ((1usize << self.bits) - 2)
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        self.slots[b..b + 2]
            .iter()
            .find(|slot| slot[0] == key && slot[1] != 0)
            .and_then(|slot| Entry::unpack(slot[1]))
    }

    /// Stores an entry: over the same key, else over an empty slot, else over
    /// the less valuable one (older, then shallower).
    #[inline]
    pub fn store(&mut self, key: u64, entry: Entry) {
        let b = self.bucket(key);
        let age = self.age;
        let worth = |slot: &[u64; 2]| -> i64 {
            if slot[1] == 0 {
                return -1;
            }
            let current = (slot[1] >> 58) & 0x3F == age;
            ((slot[1] >> 48) & 0xFF) as i64 + if current { 256 } else { 0 }
        };
        let victim = if self.slots[b][0] == key {
            b
        } else if self.slots[b + 1][0] == key {
            b + 1
        } else if worth(&self.slots[b]) <= worth(&self.slots[b + 1]) {
            b
        } else {
            b + 1
        };
        self.slots[victim] = [key, entry.pack(age)];
        if let Some(buckets) = &mut self.written {
            if buckets.len() < self.slots.len() / WRITTEN_FRACTION {
                buckets.push(b as u32);
            } else {
                self.written = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_entries() {
        let mut t = Table::new(4);
        assert_eq!(t.probe(42), None);
        let e = Entry {
            score: -123_456,
            depth: 7,
            bound: Bound::Upper,
            best: Some(5),
        };
        t.store(42, e);
        assert_eq!(t.probe(42), Some(e));
        assert_eq!(t.probe(42 + 16), None);
        let f = Entry {
            best: None,
            bound: Bound::Exact,
            ..e
        };
        t.store(42, f);
        assert_eq!(t.probe(42), Some(f));
        t.clear();
        assert_eq!(t.probe(42), None);
    }

    #[test]
    fn a_cleared_table_is_as_a_new_one() {
        let entry = |depth| Entry {
            score: 1,
            depth,
            bound: Bound::Lower,
            best: Some(3),
        };
        // A few stores (the buckets listed), then so many that the list
        // gives up (the whole table wiped), then a few again.
        let mut t = Table::new(10);
        for stores in [5u64, 3000, 7] {
            t.next_age();
            let keys: Vec<u64> = (1..=stores)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect();
            for (i, &k) in keys.iter().enumerate() {
                t.store(k, entry(i as u8));
            }
            assert!(keys.iter().any(|&k| t.probe(k).is_some()));
            assert_eq!(t.written.is_none(), stores > 1024 / 16);
            t.clear();
            assert!(t.slots.iter().all(|s| *s == [0, 0]), "{stores} stores");
            assert!(keys.iter().all(|&k| t.probe(k).is_none()));
            assert_eq!((t.age, t.written.as_deref()), (0, Some(&[][..])));
        }
    }

    #[test]
    fn sizes_fit_in_the_memory_given() {
        assert_eq!(bits_for_mib(16), DEFAULT_BITS);
        assert_eq!(bits_for_mib(1), 16);
        assert_eq!(bits_for_mib(100), 22, "64 MiB of the 100");
        assert_eq!(bits_for_mib(0), 16);
        assert_eq!(Table::new(bits_for_mib(3)).slots.len() * 16, 2 << 20);
    }

    #[test]
    fn a_full_bucket_keeps_the_deeper_entry() {
        let mut t = Table::new(4);
        let at = |depth| Entry {
            score: 0,
            depth,
            bound: Bound::Exact,
            best: None,
        };
        // Keys 2, 18 and 34 share bucket 2.
        t.store(2, at(9));
        t.store(18, at(1));
        t.store(34, at(3));
        assert_eq!(t.probe(2), Some(at(9)));
        assert_eq!(t.probe(18), None);
        assert_eq!(t.probe(34), Some(at(3)));
    }
}
