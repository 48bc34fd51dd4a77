//! The judge of a refereed game, one for both modes (engine processes,
//! [`super::process`], and built-in bots in process, [`super::in_process`]),
//! so that they stay move for move the same: each side's time and game
//! clock, the verdict on every reply to `genmove` (a move checked and
//! played on the referee's board, or the fault that ends the game, in the
//! same words), and the game's end.
//!
//! A mode brings the reply and how long it took; how it got it (a pipe
//! with a deadline, a call on the referee's own thread) is the mode's.

use super::adjudication::{Adjudication, Ruling, ScoreWatch};
use super::detail_text;
use super::game::{Cancelled, GameEnd, GameSetup, MoveData, Reason};
use crate::protocol::{MoveReply, SearchInfo};
use crate::rules::{Board, Cell, Player};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Why talking to one engine stopped: a fault of that engine, or Ctrl-C.
pub(super) enum Stop {
    Fault(Reason, String),
    Cancelled,
}

/// What a side gave for its move.
pub(super) enum Reply<'a> {
    /// A success, as the engine wrote it (to be read as a cell).
    Text(&'a str),
    /// A cell, chosen by a built-in bot.
    Cell(Cell),
    /// A refusal (`?`), with its text.
    Refused(&'a str),
    /// No reply: why the wait for it stopped (`Reason::Timeout`: the
    /// deadline passed).
    Stopped(Stop),
}

/// How a game ended without a fault.
pub(super) enum Ending {
    /// On the board: the winner, `None` for a draw.
    Board(Option<Player>),
    /// By the referee's ruling.
    Ruled(Ruling),
}

/// A game as the judge keeps it: the referee's board, the moves after the
/// opening, each side's time and what is left on its clock, and the move
/// each side has yet to be told.
pub(super) struct Judge<'b> {
    board: &'b mut Board,
    /// The hard deadline for each reply (`--timeout`).
    timeout: Duration,
    moves: Vec<Cell>,
    /// Each move's time and what the engine said of its search, when
    /// `keep_move_data`.
    move_data: Vec<MoveData>,
    keep_move_data: bool,
    /// Time each side (X, O) spent answering `genmove`.
    time: [Duration; 2],
    /// What is left on each side's game clock.
    clock: [Option<Duration>; 2],
    /// What each side's clock gains after each of its moves.
    increment: [Duration; 2],
    /// A reply this much past the clock still counts.
    margin: Duration,
    /// The opponent's last move, for each side, not yet told to it.
    unseen: [Option<Cell>; 2],
    /// How the game may end early; `None` when it may not.
    adjudication: Option<&'b Adjudication>,
    /// The sides' scores, when games may end on them.
    scores: Option<ScoreWatch>,
    /// A ruling on the scores of the last move.
    score_ruling: Option<Ruling>,
    /// Ctrl-C, which cuts a proof short.
    cancel: Option<&'b AtomicBool>,
}

impl<'b> Judge<'b> {
    /// A game of `setup` on `board` (empty), its opening played.
    pub fn new(board: &'b mut Board, setup: &GameSetup<'b>) -> Judge<'b> {
        for &cell in setup.opening {
            // Openings are made legal by the scheduler; a bad one is a bug there.
            if board.try_play(cell).is_err() {
                break;
            }
        }
        Judge {
            board,
            timeout: setup.timeout,
            moves: Vec::with_capacity(setup.geometry.area()),
            // Kept only when recorded: nothing more a ply otherwise.
            move_data: Vec::with_capacity(if setup.move_data {
                setup.geometry.area()
            } else {
                0
            }),
            keep_move_data: setup.move_data,
            time: [Duration::ZERO; 2],
            clock: setup.sides.map(|s| s.clock.map(|c| c.base())),
            increment: setup
                .sides
                .map(|s| s.clock.map_or(Duration::ZERO, |c| c.increment())),
            margin: setup.time_margin,
            unseen: [None, None],
            adjudication: Some(setup.adjudication).filter(|a| a.is_on()),
            scores: setup.adjudication.on_scores().then(ScoreWatch::default),
            score_ruling: None,
            cancel: setup.cancel,
        }
    }

    /// Whether games may end by a ruling (which takes time no side is to
    /// be charged for).
    pub fn adjudicates(&self) -> bool {
        self.adjudication.is_some()
    }

    /// Whether the game has ended, on the board or by a ruling (asked
    /// after every move, and before the first).
    pub fn ending(&self) -> Option<Ending> {
        if let Some(outcome) = self.board.outcome() {
            return Some(Ending::Board(outcome.winner()));
        }
        let adjudication = self.adjudication?;
        adjudication
            .rule(self.board, self.cancel)
            .or_else(|| self.score_ruling.clone())
            .map(Ending::Ruled)
    }

    pub fn board(&self) -> &Board {
        self.board
    }

    /// What is left on `side`'s clock, if the game has clocks.
    pub fn left(&self, side: Player) -> Option<Duration> {
        self.clock[side.index()]
    }

    /// When the wait for `side`'s reply to a request sent at `start` ends:
    /// the move deadline, or its clock (and the margin) when that is
    /// sooner.
    pub fn deadline(&self, side: Player, start: Instant) -> Instant {
        start
            + self
                .left(side)
                .map_or(self.timeout, |l| (l + self.margin).min(self.timeout))
    }

    /// The opponent's last move, to be told to `side` with its next turn.
    pub fn take_unseen(&mut self, side: Player) -> Option<Cell> {
        self.unseen[side.index()].take()
    }

    /// Charges `used` to `side`'s time and clock.
    pub fn charge(&mut self, side: Player, used: Duration) {
        let i = side.index();
        self.time[i] += used;
        if let Some(l) = self.clock[i] {
            self.clock[i] = Some(l.saturating_sub(used));
        }
    }

    /// The verdict on `side`'s reply, which took `used` (and what it said
    /// of its search): the move, checked and played (and told to
    /// `on_move`), or the fault that ends the game. A side past its clock
    /// has lost on time, whatever it answered.
    pub fn rule(
        &mut self,
        side: Player,
        reply: Reply<'_>,
        used: Duration,
        search: SearchInfo,
        on_move: &mut dyn FnMut(Player, Cell),
    ) -> Result<(), Stop> {
        let left = self.left(side);
        self.charge(side, used);
        let timed_out = matches!(reply, Reply::Stopped(Stop::Fault(Reason::Timeout, _)));
        if let Some(l) = left {
            // Past its clock, or silent until the clock (not the referee's
            // timeout) ended the wait.
            let allowed = l + self.margin;
            if used > allowed || (allowed < self.timeout && timed_out) {
                return Err(Stop::Fault(
                    Reason::Timeout,
                    format!(
                        "lost on time: {:.1} ms used, {:.1} ms were left on its clock",
                        used.as_secs_f64() * 1e3,
                        l.as_secs_f64() * 1e3
                    ),
                ));
            }
        }
        let cell = match reply {
            Reply::Cell(cell) => cell,
            Reply::Text(text) => self.read_cell(text)?,
            Reply::Refused(text) => {
                return Err(Stop::Fault(
                    Reason::Refused,
                    format!("genmove refused: {}", detail_text(text)),
                ))
            }
            // The referee's deadline ran out (not the engine's own clock).
            Reply::Stopped(Stop::Fault(Reason::Timeout, _)) => {
                return Err(Stop::Fault(
                    Reason::Timeout,
                    format!(
                        "no reply within {} ms, the move deadline (--timeout)",
                        self.timeout.as_millis()
                    ),
                ))
            }
            Reply::Stopped(stop) => return Err(stop),
        };
        match self.board.try_play(cell) {
            Err(e) => Err(Stop::Fault(Reason::Illegal, format!("{cell}: {e}"))),
            Ok(_) => {
                self.moves.push(cell);
                if self.keep_move_data {
                    self.move_data.push(MoveData { time: used, search });
                }
                if let (Some(watch), Some(rules)) = (self.scores.as_mut(), self.adjudication) {
                    self.score_ruling = watch.heard(rules, side, search.score, self.board);
                }
                let i = side.index();
                if let Some(l) = self.clock[i] {
                    self.clock[i] = Some(l + self.increment[i]);
                }
                self.unseen[side.other().index()] = Some(cell);
                on_move(side, cell);
                Ok(())
            }
        }
    }

    /// A reply's text as a cell: a row and a column off the board are an
    /// illegal move, anything else that is no cell is malformed.
    fn read_cell(&self, text: &str) -> Result<Cell, Stop> {
        let g = self.board.geometry();
        match MoveReply::read(text) {
            MoveReply::Cell(cell) => Ok(cell),
            MoveReply::OffBoard => Err(Stop::Fault(
                Reason::Illegal,
                format!(
                    "{} is off the {}x{} board",
                    detail_text(text.trim()),
                    g.rows(),
                    g.cols()
                ),
            )),
            MoveReply::NotAMove => Err(Stop::Fault(
                Reason::Malformed,
                format!("genmove reply '{}'", detail_text(text)),
            )),
        }
    }

    /// The game's end: played out (`Ok(winner)`, `None` for a draw), or
    /// lost by the side that stopped with a fault; Ctrl-C abandons it.
    pub fn end(self, result: Result<Ending, (Player, Stop)>) -> Result<GameEnd, Cancelled> {
        let mut end = match result {
            Ok(Ending::Board(winner)) => GameEnd::played_out(winner, self.moves, self.time),
            Ok(Ending::Ruled(ruling)) => GameEnd::adjudicated(ruling, self.moves, self.time),
            Err((_, Stop::Cancelled)) => return Err(Cancelled),
            Err((side, Stop::Fault(reason, detail))) => {
                let mut end = GameEnd::forfeit(side, reason, detail);
                end.moves = self.moves;
                end.time = self.time;
                end
            }
        };
        end.move_data = self.move_data;
        Ok(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::engine_settings::Clock;
    use crate::referee::game::SideSetup;
    use crate::rules::Geometry;

    static NO_ADJUDICATION: Adjudication = Adjudication {
        draw_after: None,
        exact: None,
        resign: None,
        score_draw: None,
    };

    fn setup(match_time: Option<Duration>) -> GameSetup<'static> {
        let clock = match_time.map(|t| Clock {
            base_ms: t.as_millis() as u64,
            increment_ms: 0,
        });
        GameSetup {
            geometry: Geometry::TIC_TAC_TOE,
            opening: &[],
            seeds: [0, 0],
            timeout: Duration::from_millis(1000),
            sides: [SideSetup {
                requests: &[],
                clock,
                search_info: false,
                memory_limit: None,
            }; 2],
            time_margin: Duration::ZERO,
            adjudication: &NO_ADJUDICATION,
            move_data: false,
            cancel: None,
        }
    }

    fn fault(r: Result<(), Stop>) -> (Reason, String) {
        match r {
            Err(Stop::Fault(reason, detail)) => (reason, detail),
            Err(Stop::Cancelled) => panic!("cancelled"),
            Ok(()) => panic!("no fault"),
        }
    }

    #[test]
    fn every_reply_gets_its_verdict_in_the_same_words() {
        let ms = Duration::from_millis;
        let mut board = Board::new(Geometry::TIC_TAC_TOE);
        let setup = setup(None);
        let mut judge = Judge::new(&mut board, &setup);
        let mut heard = Vec::new();
        let mut on_move = |side, cell| heard.push((side, cell));
        let x = Player::X;
        judge
            .rule(
                x,
                Reply::Text(" 2 2\n"),
                ms(5),
                SearchInfo::default(),
                &mut on_move,
            )
            .ok();
        let o = Player::O;
        let cases = [
            (Reply::Text("2 2"), Reason::Illegal, "2 2: "),
            (Reply::Text("4 1"), Reason::Illegal, "4 1: "),
            (
                Reply::Text("0 1"),
                Reason::Illegal,
                "0 1 is off the 3x3 board",
            ),
            (
                Reply::Text("pass"),
                Reason::Malformed,
                "genmove reply 'pass'",
            ),
            (Reply::Refused("no"), Reason::Refused, "genmove refused: no"),
            (
                Reply::Stopped(Stop::Fault(Reason::Timeout, String::new())),
                Reason::Timeout,
                "no reply within 1000 ms, the move deadline (--timeout)",
            ),
            (
                Reply::Stopped(Stop::Fault(Reason::Crash, "output closed".into())),
                Reason::Crash,
                "output closed",
            ),
        ];
        for (reply, reason, words) in cases {
            let (r, detail) =
                fault(judge.rule(o, reply, ms(1), SearchInfo::default(), &mut on_move));
            assert_eq!(r, reason);
            assert!(detail.starts_with(words), "{detail}");
        }
        judge
            .rule(
                o,
                Reply::Cell(Cell::new(0, 0)),
                ms(1),
                SearchInfo::default(),
                &mut on_move,
            )
            .ok();
        let end = judge.end(Err((x, Stop::Fault(Reason::Crash, "gone".into()))));
        let end = end.unwrap();
        assert_eq!(end.moves, [Cell::new(1, 1), Cell::new(0, 0)]);
        // Every reply is charged, the faulty ones too.
        assert_eq!(end.time, [ms(5), ms(8)]);
        assert_eq!((end.winner, end.reason), (Some(o), Reason::Crash));
        assert_eq!(heard.len(), 2);
    }

    #[test]
    fn a_side_past_its_clock_has_lost_on_time_whatever_it_answered() {
        let ms = Duration::from_millis;
        let mut board = Board::new(Geometry::TIC_TAC_TOE);
        let setup = setup(Some(ms(100)));
        let mut judge = Judge::new(&mut board, &setup);
        let x = Player::X;
        // The wait ends at the clock when it is sooner than the deadline.
        let start = Instant::now();
        assert_eq!(judge.deadline(x, start), start + ms(100));
        judge
            .rule(
                x,
                Reply::Text("1 1"),
                ms(60),
                SearchInfo::default(),
                &mut |_, _| {},
            )
            .ok();
        assert_eq!(judge.left(x), Some(ms(40)));
        judge
            .rule(
                Player::O,
                Reply::Text("2 2"),
                ms(1),
                SearchInfo::default(),
                &mut |_, _| {},
            )
            .ok();
        let (reason, detail) = fault(judge.rule(
            x,
            Reply::Text("3 3"),
            ms(41),
            SearchInfo::default(),
            &mut |_, _| {},
        ));
        assert_eq!(reason, Reason::Timeout);
        assert_eq!(
            detail,
            "lost on time: 41.0 ms used, 40.0 ms were left on its clock"
        );
        // Silent until its clock (sooner than the deadline) ended the wait.
        let o = Player::O;
        let silent = Reply::Stopped(Stop::Fault(Reason::Timeout, String::new()));
        let (_, detail) =
            fault(judge.rule(o, silent, ms(99), SearchInfo::default(), &mut |_, _| {}));
        assert!(detail.starts_with("lost on time"), "{detail}");
    }

    #[test]
    fn an_increment_comes_after_each_move_and_a_margin_forgives_a_late_one() {
        let ms = Duration::from_millis;
        let mut board = Board::new(Geometry::TIC_TAC_TOE);
        let mut setup = setup(None);
        setup.sides[0].clock = Some(Clock {
            base_ms: 100,
            increment_ms: 30,
        });
        setup.time_margin = ms(20);
        let mut judge = Judge::new(&mut board, &setup);
        let (x, o) = (Player::X, Player::O);
        let start = Instant::now();
        // The wait allows the margin.
        assert_eq!(judge.deadline(x, start), start + ms(120));
        judge
            .rule(
                x,
                Reply::Text("1 1"),
                ms(60),
                SearchInfo::default(),
                &mut |_, _| {},
            )
            .ok();
        assert_eq!(judge.left(x), Some(ms(70)));
        assert_eq!(judge.left(o), None);
        judge
            .rule(
                o,
                Reply::Text("2 2"),
                ms(1),
                SearchInfo::default(),
                &mut |_, _| {},
            )
            .ok();
        // 15 ms past its clock: within the margin, so it counts; the clock
        // stands at 0, then gains the increment.
        judge
            .rule(
                x,
                Reply::Text("1 2"),
                ms(85),
                SearchInfo::default(),
                &mut |_, _| {},
            )
            .unwrap_or_else(|_| panic!("late within the margin"));
        assert_eq!(judge.left(x), Some(ms(30)));
        judge
            .rule(
                o,
                Reply::Text("3 3"),
                ms(1),
                SearchInfo::default(),
                &mut |_, _| {},
            )
            .ok();
        let (reason, detail) = fault(judge.rule(
            x,
            Reply::Text("1 3"),
            ms(51),
            SearchInfo::default(),
            &mut |_, _| {},
        ));
        assert_eq!(reason, Reason::Timeout);
        assert_eq!(
            detail,
            "lost on time: 51.0 ms used, 30.0 ms were left on its clock"
        );
    }
}
