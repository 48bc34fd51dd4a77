//! Time management: how long one move may take, given a limit per move and,
//! when the whole game runs on a clock, the time left on it. The engine gives
//! the result to its bot as the move's `movetime`, whichever protocol told it
//! the limits (kinrow's `set movetime`/`set timeleft`, Gomocup's
//! `INFO timeout_turn`/`timeout_match`/`time_left`, GTP's `time_left`).

use crate::rules::Board;
use std::time::Duration;

/// The most moves ahead that the time left is shared over: the game may end
/// sooner (the board fills or someone wins), and a move now is worth more than
/// one in a position that may never come.
const HORIZON: u32 = 20;

/// Part of the time left never given to one move, so that a side whose clock
/// runs low still has something for the moves after this one.
const RESERVE_DIVISOR: u32 = 10;

/// A game clock of one side: the time left, counted down by the side itself
/// between the times it is told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchClock {
    /// The time for a whole game, if limited (a fresh game starts with it).
    pub per_game: Option<Duration>,
    /// The time left now, if limited.
    pub left: Option<Duration>,
    /// The moves the time left must last, when the controller says so
    /// (GTP's `time_left` in a byo-yomi period of so many stones); else
    /// they are guessed from the board.
    pub moves: Option<u32>,
}

impl MatchClock {
    /// A new game: the clock is full again.
    pub fn restart(&mut self) {
        self.left = self.per_game;
        self.moves = None;
    }

    /// The controller said how much is left (`None`: no limit).
    pub fn tell_left(&mut self, left: Option<Duration>) {
        self.tell_left_for(left, None);
    }

    /// The controller said how much is left, and for how many moves (GTP's
    /// byo-yomi stones; `None`: the rest of the game).
    pub fn tell_left_for(&mut self, left: Option<Duration>, moves: Option<u32>) {
        self.left = left;
        self.moves = moves;
    }

    /// The side spent `used` on a move.
    pub fn spend(&mut self, used: Duration) {
        if let Some(left) = self.left.as_mut() {
            *left = left.saturating_sub(used);
        }
    }

    /// The time to think about the next move of `board`'s side to move:
    /// [`move_time`], the time left shared over the moves it must last when
    /// they were told.
    pub fn move_time(&self, per_move: Duration, board: &Board) -> Duration {
        match self.moves {
            Some(moves) => share(per_move, self.left, moves.max(1)),
            None => move_time(per_move, self.left, board),
        }
    }
}

/// The time to think about the next move of `board`'s side to move: at most
/// `per_move`, and with a game clock at most a share of `time_left` (the time
/// left over the moves the side may still have to make, up to `HORIZON`,
/// with a tenth kept in reserve). Never more than either limit; at least a
/// millisecond (or `per_move` when that is less), so that a bot can always
/// answer.
pub fn move_time(per_move: Duration, time_left: Option<Duration>, board: &Board) -> Duration {
    let empty = board.geometry().area().saturating_sub(board.ply()) as u32;
    share(per_move, time_left, empty.div_ceil(2).clamp(1, HORIZON))
}

/// At most `per_move`, and at most a share of what `time_left` keeps out of
/// reserve over `own_moves` moves; at least a millisecond (or `per_move`).
fn share(per_move: Duration, time_left: Option<Duration>, own_moves: u32) -> Duration {
    let mut budget = per_move;
    if let Some(left) = time_left {
        let usable = left - left / RESERVE_DIVISOR;
        budget = budget.min(usable / own_moves);
    }
    budget.max(Duration::from_millis(1).min(per_move))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Cell, Geometry, Rule};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn per_move_alone_is_the_budget() {
        let b = Board::new(Geometry::new(15, 15, 5, Rule::Free).unwrap());
        assert_eq!(move_time(ms(700), None, &b), ms(700));
        assert_eq!(move_time(Duration::ZERO, None, &b), Duration::ZERO);
    }

    #[test]
    fn a_game_clock_is_shared_over_the_moves_to_come() {
        let gomoku = Board::new(Geometry::new(15, 15, 5, Rule::Free).unwrap());
        // 20 s left, 90 % usable, over the 20-move horizon: 900 ms.
        assert_eq!(move_time(ms(5000), Some(ms(20_000)), &gomoku), ms(900));
        // The per-move limit still caps it.
        assert_eq!(move_time(ms(300), Some(ms(20_000)), &gomoku), ms(300));
        // Tic-tac-toe after two moves: X has at most 4 moves left.
        let mut ttt = Board::new(Geometry::TIC_TAC_TOE);
        ttt.try_play(Cell::new(1, 1)).unwrap();
        ttt.try_play(Cell::new(0, 0)).unwrap();
        assert_eq!(move_time(ms(5000), Some(ms(4000)), &ttt), ms(900));
        // The last move may use what is left, less the reserve.
        for c in [(0, 1), (0, 2), (2, 0), (1, 0), (1, 2), (2, 1)] {
            ttt.try_play(Cell::new(c.0, c.1)).unwrap();
        }
        assert_eq!(move_time(ms(5000), Some(ms(1000)), &ttt), ms(900));
    }

    #[test]
    fn an_empty_clock_still_leaves_a_moment_to_answer() {
        let b = Board::new(Geometry::new(15, 15, 5, Rule::Free).unwrap());
        assert_eq!(move_time(ms(1000), Some(Duration::ZERO), &b), ms(1));
        assert_eq!(
            move_time(Duration::from_micros(300), Some(Duration::ZERO), &b),
            Duration::from_micros(300)
        );
    }

    #[test]
    fn the_clock_counts_down_and_restarts() {
        let mut c = MatchClock {
            per_game: Some(ms(1000)),
            ..MatchClock::default()
        };
        c.restart();
        c.spend(ms(300));
        assert_eq!(c.left, Some(ms(700)));
        c.spend(ms(900));
        assert_eq!(c.left, Some(Duration::ZERO));
        c.tell_left(Some(ms(50)));
        assert_eq!(c.left, Some(ms(50)));
        c.restart();
        assert_eq!(c.left, Some(ms(1000)));
        let mut none = MatchClock::default();
        none.spend(ms(5));
        assert_eq!(none.left, None);
    }

    #[test]
    fn a_period_of_so_many_moves_is_shared_over_them() {
        let gomoku = Board::new(Geometry::new(15, 15, 5, Rule::Free).unwrap());
        let mut c = MatchClock::default();
        c.tell_left(Some(ms(20_000)));
        assert_eq!(c.move_time(ms(5000), &gomoku), ms(900));
        // 10 s for 5 stones: 90 % usable, a fifth each.
        c.tell_left_for(Some(ms(10_000)), Some(5));
        assert_eq!(c.move_time(ms(5000), &gomoku), ms(1800));
        c.tell_left_for(Some(ms(1000)), Some(0));
        assert_eq!(c.move_time(ms(5000), &gomoku), ms(900));
        // Told again without stones, or a new game: guessed again.
        c.tell_left(Some(ms(20_000)));
        assert_eq!(c.moves, None);
        c.tell_left_for(Some(ms(3000)), Some(2));
        c.restart();
        assert_eq!((c.left, c.moves), (None, None));
        assert_eq!(c.move_time(ms(5000), &gomoku), ms(5000));
    }
}
