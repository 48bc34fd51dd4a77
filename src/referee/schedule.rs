//! The schedule of a run: which engines play each game, with which
//! colours, in which pair and round, and which games are a shard's; and
//! the set of games already played (resumed from records).

use super::shard::Shard;
use crate::rules::Player;

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
    /// Every pairing of `engines` engines plays `games` games.
    pub fn new(engines: usize, games: u32, shard: Option<Shard>) -> Schedule {
        let pairings: Vec<(usize, usize)> = (0..engines)
            .flat_map(|a| (a + 1..engines).map(move |b| (a, b)))
            .collect();
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
        for (engines, games) in [(2, 10), (3, 6), (4, 2), (2, 2)] {
            let whole = Schedule::new(engines, games, None);
            for count in 1..=5u32 {
                let mut seen = Vec::new();
                for index in 1..=count {
                    let s = Schedule::new(engines, games, Some(Shard::new(index, count).unwrap()));
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
    fn a_game_set_holds_what_was_put_in() {
        let mut set = GameSet::new(130);
        for g in [0, 63, 64, 129] {
            set.insert(g);
        }
        let held: Vec<usize> = (0..200).filter(|&g| set.contains(g)).collect();
        assert_eq!(held, [0, 63, 64, 129]);
    }
}
