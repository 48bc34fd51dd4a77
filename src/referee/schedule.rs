//! The schedule of a run: which engines play each game, with which
//! colours, in which pair and round, and which games are a shard's; and
//! the set of games already played (resumed from records).

use super::shard::Shard;
use crate::rules::Player;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Who plays whom (`--tournament`, as cutechess-cli names them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tournament {
    /// Every engine against every other.
    #[default]
    RoundRobin,
    /// The first engine against each of the others, who don't meet.
    Gauntlet,
}

impl Tournament {
    /// The pairings of `engines` engines, in schedule order (`a` before `b`).
    pub fn pairings(self, engines: usize) -> Vec<(usize, usize)> {
        match self {
            Tournament::RoundRobin => (0..engines)
                .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
                .collect(),
            Tournament::Gauntlet => (1..engines).map(|b| (0, b)).collect(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tournament::RoundRobin => "round-robin",
            Tournament::Gauntlet => "gauntlet",
        }
    }

    /// Whether it is the default, which records leave out (a round robin's
    /// records read as before gauntlets came).
    pub fn is_round_robin(&self) -> bool {
        *self == Tournament::RoundRobin
    }
}

impl fmt::Display for Tournament {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Tournament {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "round-robin" => Ok(Tournament::RoundRobin),
            "gauntlet" => Ok(Tournament::Gauntlet),
            _ => Err(format!(
                "'{}' is no tournament: round-robin or gauntlet",
                crate::rules::clip(s)
            )),
        }
    }
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug)]
pub(super) struct Job {
    pub game: usize,
    /// Index into the pairings.
    pub pairing: usize,
    /// Pair id (both games of a pair share it and its opening).
    pub pair: usize,
    pub round: usize,
    /// Engine indices playing X and O.
    pub x: usize,
    pub o: usize,
    /// Whether the pairing's `a` plays X.
    pub a_is_x: bool,
}

impl Job {
    /// The side the pairing's `a` plays.
    pub fn a_side(&self) -> Player {
        if self.a_is_x {
            Player::X
        } else {
            Player::O
        }
    }
}

/// The schedule: round after round, each pairing plays its pair of games
/// (same opening, colours swapped), so a partial run stays balanced. A game's
/// index fixes its engines, colours and opening, whatever the number of
/// games per pairing. A shard plays the pairs that are its own.
pub(super) struct Schedule {
    pub pairings: Vec<(usize, usize)>,
    /// Games in the whole run.
    pub total: usize,
    pub shard: Option<Shard>,
}

impl Schedule {
    /// Every pairing of `tournament` between `engines` engines plays
    /// `games` games.
    pub fn new(
        tournament: Tournament,
        engines: usize,
        games: u32,
        shard: Option<Shard>,
    ) -> Schedule {
        let pairings = tournament.pairings(engines);
        Schedule {
            total: pairings.len() * games as usize,
            pairings,
            shard,
        }
    }

    pub fn job(&self, game: usize) -> Job {
        let p = self.pairings.len().max(1);
        let round = game / (2 * p);
        let pairing = (game / 2) % p;
        let a_is_x = game.is_multiple_of(2);
        let (a, b) = self.pairings.get(pairing).copied().unwrap_or((0, 0));
        let (x, o) = if a_is_x { (a, b) } else { (b, a) };
        Job {
            game,
            pairing,
            pair: round * p + pairing,
            round,
            x,
            o,
            a_is_x,
        }
    }

    /// Whether `game` is this session's to play: any game of an unsharded
    /// run, the shard's games of a shard.
    pub fn is_ours(&self, game: usize) -> bool {
        self.shard.is_none_or(|s| s.has_pair(game / 2))
    }

    /// The `k`-th game of this session's schedule (of the shard's, for a
    /// shard), if there is one.
    pub fn session_game(&self, k: usize) -> Option<usize> {
        let game = match self.shard {
            None => k,
            Some(s) => {
                let pair = (s.index() as usize - 1) + (k / 2) * s.count() as usize;
                2 * pair + k % 2
            }
        };
        (game < self.total).then_some(game)
    }

    /// The games this session's schedule holds.
    pub fn session_total(&self) -> usize {
        match self.shard {
            None => self.total,
            Some(s) => {
                let (n, i) = (s.count() as usize, s.index() as usize);
                (self.total / 2 + n - i) / n * 2
            }
        }
    }
}

/// A set of games of the schedule, a bit a game: the games resumed from
/// records, which a session doesn't play again (a run of 100 million games
/// keeps 12 MB here, not a list of the games left).
pub(super) struct GameSet(Vec<u64>);

impl GameSet {
    pub fn new(games: usize) -> GameSet {
        GameSet(vec![0; games.div_ceil(64)])
    }
    pub fn insert(&mut self, game: usize) {
        if let Some(word) = self.0.get_mut(game / 64) {
            *word |= 1 << (game % 64);
        }
    }
    pub fn contains(&self, game: usize) -> bool {
        self.0
            .get(game / 64)
            .is_some_and(|w| w >> (game % 64) & 1 == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_games_are_its_shards_in_order() {
        let kinds = [Tournament::RoundRobin, Tournament::Gauntlet];
        for (t, engines, games) in kinds
            .into_iter()
            .flat_map(|t| [(t, 2, 10), (t, 3, 6), (t, 4, 2), (t, 2, 2), (t, 5, 4)])
        {
            let whole = Schedule::new(t, engines, games, None);
            for count in 1..=5u32 {
                let mut seen = Vec::new();
                for index in 1..=count {
                    let shard = Some(Shard::new(index, count).unwrap());
                    let s = Schedule::new(t, engines, games, shard);
                    let mine: Vec<usize> = (0..).map_while(|k| s.session_game(k)).collect();
                    let expected: Vec<usize> = (0..s.total).filter(|&g| s.is_ours(g)).collect();
                    assert_eq!(mine, expected, "shard {index}/{count}");
                    assert_eq!(mine.len(), s.session_total(), "shard {index}/{count}");
                    seen.extend(mine);
                }
                seen.sort();
                assert_eq!(seen, (0..whole.total).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_gauntlet_pairs_the_first_engine_with_each_other_one() {
        assert_eq!(Tournament::Gauntlet.pairings(4), [(0, 1), (0, 2), (0, 3)]);
        assert_eq!(
            Tournament::RoundRobin.pairings(4),
            [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
        );
        // Two engines: the same one pairing either way.
        assert_eq!(Tournament::Gauntlet.pairings(2), [(0, 1)]);
        let s = Schedule::new(Tournament::Gauntlet, 4, 4, None);
        assert_eq!(s.total, 12);
        // Round after round: each pairing's pair, then the next round.
        let firsts: Vec<(usize, usize, usize)> = (0..12)
            .map(|g| s.job(g))
            .map(|j| (j.x, j.o, j.round))
            .collect();
        assert_eq!(
            firsts[..6],
            [
                (0, 1, 0),
                (1, 0, 0),
                (0, 2, 0),
                (2, 0, 0),
                (0, 3, 0),
                (3, 0, 0)
            ]
        );
        assert_eq!(firsts[6], (0, 1, 1));
        for name in ["gauntlet", "round-robin"] {
            assert_eq!(name.parse::<Tournament>().unwrap().to_string(), name);
        }
        assert!("swiss".parse::<Tournament>().is_err());
    }

    #[test]
    fn a_game_set_holds_what_was_put_in() {
        let mut set = GameSet::new(130);
        for g in [0, 63, 64, 129] {
            set.insert(g);
        }
        let held: Vec<usize> = (0..200).filter(|&g| set.contains(g)).collect();
        assert_eq!(held, [0, 63, 64, 129]);
    }
}
