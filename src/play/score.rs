//! The running score across games. It follows the two participants, not the
//! colours, so it stays right when sides are swapped.

use std::fmt;

/// Wins of each participant and draws, over the games finished so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    names: [String; 2],
    wins: [u32; 2],
    draws: u32,
}

impl Tally {
    /// A tally of no games between two named participants.
    pub fn new(first: &str, second: &str) -> Tally {
        Tally {
            names: [first.to_string(), second.to_string()],
            wins: [0, 0],
            draws: 0,
        }
    }

    /// Counts a win of participant 0 or 1.
    pub fn add_win(&mut self, participant: usize) {
        if let Some(w) = self.wins.get_mut(participant) {
            *w += 1;
        }
    }

    /// Counts a draw.
    pub fn add_draw(&mut self) {
        self.draws += 1;
    }

    /// Number of games counted.
    pub fn games(&self) -> u32 {
        self.wins[0] + self.wins[1] + self.draws
    }
}

impl fmt::Display for Tally {
    /// `you: 2, minimax: 0, draws: 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}, {}: {}, draws: {}",
            self.names[0], self.wins[0], self.names[1], self.wins[1], self.draws
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_wins_per_participant_and_draws() {
        let mut t = Tally::new("you", "minimax");
        t.add_win(1);
        t.add_draw();
        t.add_draw();
        t.add_win(0);
        t.add_win(1);
        t.add_win(7); // not a participant: ignored
        assert_eq!(t.games(), 5);
        assert_eq!(t.to_string(), "you: 1, minimax: 2, draws: 2");
    }
}
