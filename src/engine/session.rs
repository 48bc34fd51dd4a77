//! The engine core every protocol drives: one game, one bot with its options
//! and seed, the time per move and the game clock. Kinrow's protocol, the
//! Gomocup brain and GTP are thin layers that turn their lines into these
//! calls and the results into their answers.

use crate::bots::{Bot, BotKind, Limits, MatchClock, OptionError, SearchReport};
use crate::protocol::{Score, SearchInfo};
use crate::rules::{Board, Cell, Geometry, IllegalMove, Outcome};
use std::fmt;
use std::time::{Duration, Instant};

/// When a session builds its bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildBot {
    /// At once, and again at each change of bot, so that no move's time
    /// pays for it (a bot's tables take milliseconds to wipe): kinrow's own
    /// engine, which a referee times from the first move.
    AtOnce,
    /// When first asked for a move, so that a process that is never asked
    /// starts at once and cheaply (GoGui starts several copies of its engine
    /// and uses some only as a ruler).
    AtFirstMove,
}

/// One engine's game, bot, options and clock; see the module.
pub struct Session {
    board: Board,
    kind: BotKind,
    seed: u64,
    build: BuildBot,
    bot: Option<Box<dyn Bot>>,
    /// Bot options set so far (`set depth 3`), in order, each kept for the
    /// whole session: applied to the bot now playing if it has the option,
    /// and to every bot chosen later that has it. So `set depth 3` works
    /// before `set bot minimax` as well as after.
    bot_options: Vec<BotOption>,
    /// The longest a move may take (a game clock may allow less).
    movetime: Duration,
    /// This side's game clock: what is left, counted down by each move's
    /// time until the controller tells it again.
    clock: MatchClock,
}

/// A bot option as `set NAME VALUE` gives it, written `NAME=VALUE` on a
/// command line (`kinrow --set nodes=20000`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotOption {
    pub name: String,
    pub value: String,
}

impl std::str::FromStr for BotOption {
    type Err = String;
    fn from_str(s: &str) -> Result<BotOption, String> {
        match s.split_once('=') {
            Some((name, value)) if !name.is_empty() && !value.is_empty() => Ok(BotOption {
                name: name.to_string(),
                value: value.to_string(),
            }),
            _ => Err(format!(
                "'{}' is not NAME=VALUE (say nodes=20000)",
                crate::rules::clip(s)
            )),
        }
    }
}

impl fmt::Display for BotOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

/// Why no move was played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChooseError {
    /// The game is over: there is nothing to choose.
    GameOver(Outcome),
    /// The bot chose a move the rules refuse: a bug, reported rather than
    /// played, and the engine plays on.
    Illegal {
        kind: BotKind,
        cell: Cell,
        error: IllegalMove,
    },
}

impl fmt::Display for ChooseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChooseError::GameOver(outcome) => write!(f, "the game is over ({outcome})"),
            ChooseError::Illegal { kind, cell, error } => {
                write!(f, "the {kind} bot chose {cell}: {error}")
            }
        }
    }
}

impl Session {
    /// An empty board of `geometry`, a `kind` bot seeded with `seed` (built
    /// as `build` says) and at most `movetime` a move, with no game clock.
    pub fn new(
        geometry: Geometry,
        kind: BotKind,
        seed: u64,
        movetime: Duration,
        build: BuildBot,
    ) -> Session {
        let mut session = Session {
            board: Board::new(geometry),
            kind,
            seed,
            build,
            bot: None,
            bot_options: Vec::new(),
            movetime,
            clock: MatchClock::default(),
        };
        if build == BuildBot::AtOnce {
            session.build_bot();
        }
        session
    }

    /// The current game.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The current game, to play or take back moves.
    pub fn board_mut(&mut self) -> &mut Board {
        &mut self.board
    }

    /// The kind of bot that plays.
    pub fn kind(&self) -> BotKind {
        self.kind
    }

    /// The longest a move may take.
    pub fn movetime(&self) -> Duration {
        self.movetime
    }

    /// The game clock.
    pub fn clock(&self) -> &MatchClock {
        &self.clock
    }

    /// The game clock, for a controller that tells it (`set timeleft`,
    /// Gomocup's `INFO timeout_match` and `time_left`).
    pub fn clock_mut(&mut self) -> &mut MatchClock {
        &mut self.clock
    }

    /// A new, empty game of `geometry`: the bot drops what belonged to the
    /// old one, and the game clock is full again.
    pub fn new_game(&mut self, geometry: Geometry) {
        if geometry == self.board.geometry() {
            // The same empty board, without allocating one.
            self.board.clear();
        } else {
            self.board = Board::new(geometry);
        }
        if let Some(bot) = self.bot.as_mut() {
            bot.new_game();
        }
        self.clock.restart();
    }

    /// A position set up in the middle of a game (Gomocup's `BOARD`): the
    /// bot starts over on it; the game clock runs on.
    pub fn set_position(&mut self, board: Board) {
        self.board = board;
        if let Some(bot) = self.bot.as_mut() {
            bot.new_game();
        }
    }

    /// Another bot from now on, with the options set so far.
    pub fn set_bot(&mut self, kind: BotKind) {
        self.kind = kind;
        self.bot = None;
        if self.build == BuildBot::AtOnce {
            self.build_bot();
        }
    }

    /// The bot's generator restarts from `seed` (and any bot chosen later
    /// starts from it).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        if let Some(bot) = self.bot.as_mut() {
            bot.reseed(seed);
        }
    }

    /// The longest a move may take from now on.
    pub fn set_movetime(&mut self, movetime: Duration) {
        self.movetime = movetime;
    }

    /// Sets a bot option for the whole session, whichever bot plays now or
    /// later (see `bot_options`). An option no bot has, or a value the bot
    /// that has it refuses, is an error and changes nothing.
    pub fn set_bot_option(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        self.check_bot_option(name, value)?;
        self.bot_options.retain(|o| o.name != name);
        self.bot_options.push(BotOption {
            name: name.to_string(),
            value: value.to_string(),
        });
        Ok(())
    }

    /// Sets `options` in order, as many `set NAME VALUE`; the first one
    /// refused stops there, with its error (the ones before it stay set).
    pub fn set_bot_options(&mut self, options: &[BotOption]) -> Result<(), OptionError> {
        options
            .iter()
            .try_for_each(|o| self.set_bot_option(&o.name, &o.value))
    }

    /// Sets the option on the bot now playing if it has it, else checks it
    /// on the bots that have it.
    fn check_bot_option(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let built = self
            .bot
            .as_mut()
            .map(|bot| (bot.kind(), bot.set_option(name, value)));
        let current = match built {
            Some((_, Err(OptionError::Unknown(_)))) | None => built.map(|(kind, _)| kind),
            Some((_, done)) => return done,
        };
        for kind in BotKind::ALL.into_iter().filter(|&k| Some(k) != current) {
            match kind.build(self.seed).set_option(name, value) {
                Err(OptionError::Unknown(_)) => {}
                checked => return checked,
            }
        }
        Err(OptionError::Unknown(name.to_string()))
    }

    /// Whether the bot's choice may take noticeable time (a search that uses
    /// its movetime); a bot not yet built is assumed to.
    pub fn searches(&self) -> bool {
        self.bot.as_ref().is_none_or(|bot| bot.searches())
    }

    /// What the bot's last search found, for bots that search, in the
    /// protocol's words (`search_info`, Gomocup `MESSAGE`).
    pub fn report(&self) -> Option<SearchInfo> {
        // A bot that has not searched yet has nothing to say.
        self.bot
            .as_ref()
            .and_then(|bot| bot.report())
            .filter(|r| r.nodes > 0 || r.score.is_some())
            .map(SearchInfo::from)
    }

    /// The bot, built with the session's seed and options if it is not yet.
    fn build_bot(&mut self) -> &mut dyn Bot {
        built(&mut self.bot, self.kind, self.seed, &self.bot_options)
    }

    /// Lets the bot choose a move for the side to move, for a request that
    /// arrived at `start`, and plays it. The move gets at most the movetime,
    /// and with a game clock at most a share of the time left
    /// ([`MatchClock::move_time`]); the clock then counts down by the time
    /// it took.
    pub fn choose_and_play(&mut self, start: Instant) -> Result<Cell, ChooseError> {
        if let Some(outcome) = self.board.outcome() {
            return Err(ChooseError::GameOver(outcome));
        }
        let limits = Limits {
            start,
            movetime: self.clock.move_time(self.movetime, &self.board),
        };
        let kind = self.kind;
        // The bot's slot alone is borrowed, so the board can be lent beside it.
        let bot = built(&mut self.bot, kind, self.seed, &self.bot_options);
        let cell = bot.choose(&self.board, limits);
        // The time is read only for a clock: a read costs as much as the
        // random bot's whole move.
        if self.clock.left.is_some() {
            self.clock.spend(start.elapsed());
        }
        match self.board.try_play(cell) {
            Ok(_) => Ok(cell),
            Err(error) => Err(ChooseError::Illegal { kind, cell, error }),
        }
    }
}

/// The bot in `slot`, built first if the slot is empty: a `kind` bot seeded
/// with `seed`, with `options` applied in order.
fn built<'a>(
    slot: &'a mut Option<Box<dyn Bot>>,
    kind: BotKind,
    seed: u64,
    options: &[BotOption],
) -> &'a mut dyn Bot {
    slot.get_or_insert_with(|| {
        let mut bot = kind.build(seed);
        for o in options {
            // Checked when set; a bot without the option ignores it.
            let _ = bot.set_option(&o.name, &o.value);
        }
        bot
    })
    .as_mut()
}

impl From<SearchReport> for SearchInfo {
    /// A search's report in the protocol's words: a proven score as
    /// `win in 7` (plies), `loss in 4` or `draw`.
    fn from(r: SearchReport) -> SearchInfo {
        let score = r.score.map(|s| match r.win_plies() {
            Some(n) if n > 0 => Score::Win(n as u32),
            Some(n) => Score::Loss(n.unsigned_abs()),
            None if s == 0 && r.solved => Score::Draw,
            None => Score::Eval(i64::from(s)),
        });
        SearchInfo {
            depth: Some(r.depth as u32),
            score,
            nodes: Some(r.nodes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// The moves of a game the session's bot plays against itself, with a
    /// reseed half-way.
    fn game(session: &mut Session) -> Vec<Cell> {
        let mut moves = Vec::new();
        while let Ok(cell) = session.choose_and_play(Instant::now()) {
            moves.push(cell);
            if moves.len() == 5 {
                session.set_seed(99);
            }
        }
        moves
    }

    #[test]
    fn a_bot_built_late_plays_as_one_built_at_once() {
        // Small enough for minimax to prove every move long before its
        // movetime: no clock decides the game.
        let g = Geometry::new(4, 4, 4, Rule::Free).unwrap();
        for kind in [BotKind::Random, BotKind::Blocking, BotKind::Minimax] {
            let games: Vec<Vec<Cell>> = [BuildBot::AtOnce, BuildBot::AtFirstMove]
                .into_iter()
                .map(|build| {
                    let mut s = Session::new(g, BotKind::Random, 3, ms(10_000), build);
                    // Options and seed before the bot, then the bot.
                    s.set_bot_option("depth", "1").unwrap();
                    s.set_seed(5);
                    s.set_bot(kind);
                    game(&mut s)
                })
                .collect();
            assert_eq!(games[0], games[1], "{kind}");
            assert!(games[0].len() >= 7, "{kind}: {:?}", games[0]);
        }
    }

    #[test]
    fn options_are_checked_by_the_bot_that_has_them_and_kept() {
        for build in [BuildBot::AtOnce, BuildBot::AtFirstMove] {
            let mut s = Session::new(Geometry::TIC_TAC_TOE, BotKind::Random, 0, ms(10), build);
            assert_eq!(
                s.set_bot_option("colour", "red"),
                Err(OptionError::Unknown("colour".into()))
            );
            assert!(matches!(
                s.set_bot_option("depth", "x"),
                Err(OptionError::BadValue { .. })
            ));
            assert_eq!(s.set_bot_option("iterations", "50"), Ok(()));
            assert_eq!(s.bot_options, ["iterations=50".parse().unwrap()]);
        }
    }

    #[test]
    fn the_clock_counts_down_and_only_a_new_game_fills_it() {
        let g = Geometry::new(9, 9, 5, Rule::Free).unwrap();
        let mut s = Session::new(g, BotKind::Random, 1, ms(100), BuildBot::AtFirstMove);
        s.clock_mut().per_game = Some(ms(10_000));
        s.new_game(g);
        // A request that came 30 ms ago has spent those 30 ms.
        s.choose_and_play(Instant::now() - ms(30)).unwrap();
        let left = s.clock().left.unwrap();
        assert!(left <= ms(9_970), "{left:?}");
        let mut board = Board::new(g);
        board.try_play(Cell::new(4, 4)).unwrap();
        s.set_position(board.clone());
        assert_eq!((s.board(), s.clock().left), (&board, Some(left)));
        s.new_game(g);
        assert_eq!(s.clock().left, Some(ms(10_000)));
        assert_eq!(s.board().ply(), 0);
    }

    #[test]
    fn a_finished_game_has_no_move_to_choose() {
        let mut s = Session::new(
            Geometry::TIC_TAC_TOE,
            BotKind::Blocking,
            2,
            ms(10),
            BuildBot::AtOnce,
        );
        let moves = game(&mut s);
        let outcome = s.board().outcome().expect("the game ended");
        assert!(moves.len() >= 5);
        let e = s.choose_and_play(Instant::now()).unwrap_err();
        assert_eq!(e, ChooseError::GameOver(outcome));
        assert_eq!(e.to_string(), format!("the game is over ({outcome})"));
        assert_eq!(s.board().ply(), moves.len());
    }
}
