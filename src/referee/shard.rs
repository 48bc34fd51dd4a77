//! `--shard I/N`: one of N disjoint slices of a run's schedule, by pair, so
//! that the two games of a pair (one opening, colours swapped) stay
//! together. Pair p belongs to shard `p mod N + 1`: every shard gets a fair
//! share of every round and pairing, and a shard cut short is as balanced
//! as a run cut short.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The most shards a run can be cut into.
pub const MAX_SHARDS: u32 = 1_000_000;

/// The I-th of N slices of a run (I from 1 to N).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// Shard `index` (1-based) of `count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 || count > MAX_SHARDS {
            return Err(ShardError(format!(
                "the number of shards must be from 1 to {MAX_SHARDS}, not {count}"
            )));
        }
        if index == 0 || index > count {
            return Err(ShardError(format!(
                "shard {index} of {count}: shards are numbered from 1 to {count}"
            )));
        }
        Ok(Shard { index, count })
    }

    /// The shard's number, from 1.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many shards the run is cut into.
    pub fn count(self) -> u32 {
        self.count
    }

    /// Whether pair `pair` of the schedule is this shard's.
    pub fn has_pair(self, pair: usize) -> bool {
        pair % self.count as usize == (self.index - 1) as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A `--shard` that is not `I/N` with 1 ≤ I ≤ N.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError(pub String);

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShardError {}

impl FromStr for Shard {
    type Err = ShardError;
    /// `I/N`, e.g. `2/8`.
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || {
            ShardError(format!(
                "'{}' is not I/N (shard I of N, e.g. 2/8)",
                crate::rules::clip(s)
            ))
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let number = |t: &str| -> Result<u32, ShardError> {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            t.parse().map_err(|_| bad())
        };
        Shard::new(number(i)?, number(n)?)
    }
}

impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_show_and_refuse_what_is_no_shard() {
        let s: Shard = "2/8".parse().unwrap();
        assert_eq!((s.index(), s.count(), s.to_string()), (2, 8, "2/8".into()));
        assert_eq!("1/1".parse::<Shard>().unwrap(), Shard::new(1, 1).unwrap());
        for bad in [
            "0/4", "5/4", "1/0", "2", "a/b", "1/", "/4", "-1/4", "+1/4", " 1/4", "1/4/2",
        ] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let e = "0/4".parse::<Shard>().unwrap_err().to_string();
        assert!(e.contains("numbered from 1 to 4"), "{e}");
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"2/8\"");
        assert_eq!(serde_json::from_str::<Shard>("\"2/8\"").unwrap(), s);
        assert!(serde_json::from_str::<Shard>("\"9/8\"").is_err());
    }

    #[test]
    fn the_shards_of_a_run_split_its_pairs_exactly() {
        for count in 1..=7u32 {
            let shards: Vec<Shard> = (1..=count).map(|i| Shard::new(i, count).unwrap()).collect();
            for pair in 0..100 {
                let owners = shards.iter().filter(|s| s.has_pair(pair)).count();
                assert_eq!(owners, 1, "pair {pair} of {count} shards");
            }
        }
    }
}
