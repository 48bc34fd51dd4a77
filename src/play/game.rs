//! One game: people type moves, engines are asked for theirs, and the front
//! end's own rules core keeps the board and gives the verdict.

use super::console::Console;
use super::input::{parse_entry, takes_cell_numbers, Entry};
use super::render::{cell_number_guide, paint, render};
use super::setup::Describe;
use crate::client::{EngineFault, EngineSeat};
use crate::rules::{Board, Outcome, Player};
use crate::solver::analysis_map;
use crate::solver::{Budget, SolveError, Solver};
use std::io::{self, BufRead, Write};
use std::time::Duration;

/// One of the two players of a session: a person, or an engine.
pub struct Participant {
    /// How the score and the prompts call them: `you`, `player 1`, `minimax`.
    pub name: String,
    /// The engine that plays for them; `None` for a person.
    pub engine: Option<EngineSeat>,
}

impl Participant {
    fn is_human(&self) -> bool {
        self.engine.is_none()
    }
}

/// How a game ended.
#[derive(Debug)]
pub enum GameEnd {
    /// Won or drawn, by the front end's rules.
    Over(Outcome),
    /// A person typed `q`.
    Left,
    /// The input ended.
    EndOfInput,
    /// The engine of this side died or misbehaved.
    Fault(Player, EngineFault),
}

/// Seats of a game: `[X, O]`.
pub type Seats<'a> = [&'a mut Participant; 2];

/// `X (you)`: a side and who plays it.
pub fn side_label(seats: &Seats, side: Player, style: super::render::Style) -> String {
    format!("{} ({})", paint(side, style), seats[side.index()].name)
}

/// Plays one game to its end. `pace` is a pause after each engine move when
/// no person plays (so that people can watch). `board` starts empty and is
/// left with the game as it ended (for saving it).
pub fn play_game<R: BufRead, W: Write>(
    con: &mut Console<R, W>,
    mut seats: Seats,
    board: &mut Board,
    pace: Duration,
) -> io::Result<GameEnd> {
    let geometry = board.geometry();
    *board = Board::new(geometry);
    let style = con.style;
    let anyone_human = seats.iter().any(|s| s.is_human());

    con.say(format!(
        "\nNew game on {}. {} against {}; X moves first.",
        Describe(geometry),
        side_label(&seats, Player::X, style),
        side_label(&seats, Player::O, style),
    ))?;
    for side in [Player::X, Player::O] {
        if let Some(engine) = seats[side.index()].engine.as_mut() {
            if let Err(fault) = engine.new_game(geometry) {
                return Ok(GameEnd::Fault(side, fault));
            }
        }
    }
    // What a person must see at the prompt — a refusal, the help, the
    // engine's reply — goes after the board, just above the prompt: on a
    // board taller than the window it would scroll away above it.
    let mut notices: Vec<String> = Vec::new();
    if let Some(warning) = too_wide(board, con.width) {
        notices.push(warning);
    }
    if anyone_human {
        notices.push(move_help(board));
    } else {
        for notice in notices.drain(..) {
            con.say(notice)?;
        }
    }
    // For hints, made on the first one.
    let mut solver: Option<Solver> = None;

    loop {
        if let Some(outcome) = board.outcome() {
            con.show(&render(board, style))?;
            for notice in notices.drain(..) {
                con.say(notice)?;
            }
            return Ok(GameEnd::Over(outcome));
        }
        let side = board.to_move();
        let label = side_label(&seats, side, style);
        let seat = &mut *seats[side.index()];
        match seat.engine.as_mut() {
            None => {
                con.show(&render(board, style))?;
                for notice in notices.drain(..) {
                    con.say(notice)?;
                }
                let Some(line) = con.ask(&format!("{label}, your move:"))? else {
                    return Ok(GameEnd::EndOfInput);
                };
                let typed = Typed {
                    line: &line,
                    side,
                    notices: &mut notices,
                    solver: &mut solver,
                };
                if let Some(end) = typed.take(&mut seats, board) {
                    return Ok(end);
                }
            }
            Some(engine) => {
                if !anyone_human && board.ply() == 0 {
                    con.show(&render(board, style))?;
                }
                let cell = match engine.genmove() {
                    Ok(cell) => cell,
                    Err(fault) => return Ok(GameEnd::Fault(side, fault)),
                };
                if let Err(illegal) = board.try_play(cell) {
                    let fault = EngineFault(format!("played {cell}, which is illegal: {illegal}"));
                    return Ok(GameEnd::Fault(side, fault));
                }
                let played = format!("{label} plays {cell}.");
                if anyone_human {
                    // Said after the board a person looks at next.
                    notices.push(played);
                } else {
                    con.say(played)?;
                }
                if let Err((s, fault)) = tell_engines(&mut seats, board, side.other(), cell) {
                    return Ok(GameEnd::Fault(s, fault));
                }
                if !anyone_human && !board.is_over() {
                    con.show(&render(board, style))?;
                    std::thread::sleep(pace);
                }
            }
        }
    }
}

/// What a person typed at their move, and where what it says goes.
struct Typed<'a> {
    line: &'a str,
    /// The side they play.
    side: Player,
    /// What is shown above the next prompt.
    notices: &'a mut Vec<String>,
    /// For hints, made on the first one.
    solver: &'a mut Option<Solver>,
}

impl Typed<'_> {
    /// Does what the line says: a move (told to the engines), a take-back,
    /// a hint or the help (as notices); the game's end if it ends here.
    fn take(self, seats: &mut Seats, board: &mut Board) -> Option<GameEnd> {
        let notices = self.notices;
        match parse_entry(self.line, board) {
            Err(e) => notices.push(e.to_string()),
            Ok(Entry::Help) => notices.push(move_help(board)),
            Ok(Entry::Hint) => notices.push(hint(board, self.solver)),
            Ok(Entry::Quit) => return Some(GameEnd::Left),
            Ok(Entry::Undo) => {
                let plies = plies_to_take_back(board, seats);
                if plies == 0 {
                    notices.push("Nothing to take back yet.".into());
                    return None;
                }
                for _ in 0..plies {
                    board.undo();
                }
                for s in [Player::X, Player::O] {
                    if let Some(engine) = seats[s.index()].engine.as_mut() {
                        if let Err(fault) = engine.take_back(plies, board) {
                            return Some(GameEnd::Fault(s, fault));
                        }
                    }
                }
                let what = if plies == 1 { "move" } else { "moves" };
                notices.push(format!("Took back {plies} {what}."));
            }
            Ok(Entry::Move(cell)) => {
                if let Err(e) = board.try_play(cell) {
                    // parse_entry already checked the cell; a refusal here
                    // is still reported, never acted on.
                    notices.push(format!("{e}."));
                    return None;
                }
                if let Err((s, fault)) = tell_engines(seats, board, self.side.other(), cell) {
                    return Some(GameEnd::Fault(s, fault));
                }
            }
        }
        None
    }
}

/// When the board is wider than the terminal: what to do about it.
fn too_wide(board: &Board, width: usize) -> Option<String> {
    let needed = board_width(board);
    (needed > width).then(|| {
        format!(
            "The board is {needed} columns wide and the window {width}: widen the window \
             to see the board whole."
        )
    })
}

/// The columns the board takes when drawn.
pub fn board_width(board: &Board) -> usize {
    render(&Board::new(board.geometry()), super::render::Style::Plain)
        .lines()
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// Tells the engine of `side` (if an engine plays it) about a move. A move
/// that ended the game is not sent: the verdict is ours, and the next game
/// starts with `newgame` anyway, so an engine failing then can't spoil it.
fn tell_engines(
    seats: &mut Seats,
    board: &Board,
    side: Player,
    cell: crate::rules::Cell,
) -> Result<(), (Player, EngineFault)> {
    if board.is_over() {
        return Ok(());
    }
    match seats[side.index()].engine.as_mut() {
        Some(engine) => engine.tell(cell).map_err(|f| (side, f)),
        None => Ok(()),
    }
}

/// How many plies `u` takes back: back to before the latest move made by a
/// person, so that against a bot it takes your move and the bot's reply;
/// zero when no person has moved yet.
fn plies_to_take_back(board: &Board, seats: &Seats) -> usize {
    let plies = board.ply();
    (0..plies)
        .rev()
        .find(|&i| {
            let mover = if i % 2 == 0 { Player::X } else { Player::O };
            seats[mover.index()].is_human()
        })
        .map_or(0, |i| plies - i)
}

/// How long a hint may think.
const HINT_TIME: Duration = Duration::from_secs(5);

/// The hint: the value of every move, as a map of the board, from the
/// solver (what it proves within [`HINT_TIME`]).
fn hint(board: &Board, solver: &mut Option<Solver>) -> String {
    let g = board.geometry();
    match Solver::refusal(g) {
        Some(SolveError::TooLarge(_)) => {
            return format!(
                "Hints need a board of up to {} cells; this one has {}.",
                crate::solver::MAX_CELLS,
                g.area()
            )
        }
        Some(refusal) => return format!("No hints here: {refusal}."),
        None => {}
    }
    let solver = solver.get_or_insert_with(|| Solver::new(crate::solver::DEFAULT_TABLE_MIB));
    let budget = Budget::until(std::time::Instant::now() + HINT_TIME);
    match solver.analyze(board, budget) {
        Ok(analysis) => {
            let mut text = analysis_map(board, &analysis);
            match analysis.value() {
                Some(v) => text.push_str(&format!("With best play: {v} for {}.", board.to_move())),
                None => text.push_str(&format!(
                    "Not every move was proved within {} s (?).",
                    HINT_TIME.as_secs()
                )),
            }
            text
        }
        Err(e) => format!("No hint: {e}."),
    }
}

/// How to enter a move on this board (every line within 80 columns).
fn move_help(board: &Board) -> String {
    let g = board.geometry();
    let mut text = format!(
        "Enter a move as row and column, like 2 1 (rows 1-{}, columns 1-{}).\n",
        g.rows(),
        g.cols()
    );
    if takes_cell_numbers(board) {
        text.push_str("Or a cell number:\n");
        text.push_str(&cell_number_guide());
    }
    text.push_str("u takes back your last move, a shows a hint (the value of every move),\n");
    text.push_str("q leaves the game, h shows this help.");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Response;
    use crate::client::{Deadline, Link};
    use crate::play::render::Style;
    use crate::protocol::Command;
    use crate::rules::{Cell, Geometry};

    /// An engine that always answers with the first free cell in row-major
    /// order (and keeps its own board to know which).
    struct FirstFree(Board);

    impl Link for FirstFree {
        fn request(
            &mut self,
            request: &Command,
            _d: Deadline,
        ) -> Result<Response, crate::client::EngineFault> {
            let line = request.to_string();
            let words: Vec<&str> = line.split_whitespace().collect();
            let ok = |text: String| {
                Ok(Response {
                    success: true,
                    id: None,
                    text,
                })
            };
            match words.as_slice() {
                ["newgame", r, c, k, rule] => {
                    let g = Geometry::new(
                        r.parse().unwrap(),
                        c.parse().unwrap(),
                        k.parse().unwrap(),
                        rule.parse().unwrap(),
                    )
                    .unwrap();
                    self.0 = Board::new(g);
                    ok(String::new())
                }
                ["move", r, c] => {
                    let cell: Cell = format!("{r} {c}").parse().unwrap();
                    self.0.try_play(cell).unwrap();
                    ok(String::new())
                }
                ["genmove"] => {
                    let cell = self.0.legal_moves().next().unwrap();
                    self.0.try_play(cell).unwrap();
                    ok(cell.to_string())
                }
                ["undo"] => {
                    self.0.undo();
                    ok(String::new())
                }
                _ => Ok(Response {
                    success: false,
                    id: None,
                    text: "unknown command".into(),
                }),
            }
        }
    }

    fn bot() -> Participant {
        Participant {
            name: "first-free".into(),
            engine: Some(EngineSeat::new(
                Box::new(FirstFree(Board::new(Geometry::TIC_TAC_TOE))),
                Duration::from_secs(1),
            )),
        }
    }

    fn person(name: &str) -> Participant {
        Participant {
            name: name.into(),
            engine: None,
        }
    }

    fn run(input: &str, x: &mut Participant, o: &mut Participant) -> (GameEnd, String) {
        let mut out = Vec::new();
        let mut con = Console::new(input.as_bytes(), &mut out, Style::Plain, true);
        let mut board = Board::new(Geometry::TIC_TAC_TOE);
        let end = play_game(&mut con, [x, o], &mut board, Duration::ZERO).unwrap();
        (end, String::from_utf8(out).unwrap())
    }

    #[test]
    fn person_beats_first_free_with_undo_on_the_way() {
        // The bot (O) answers 1 1, then 1 2, ... A person at X: 2 2, undo
        // (takes back 2 2 and the reply), then 2 1, 2 2, 2 3 wins.
        let (mut x, mut o) = (person("you"), bot());
        let (end, out) = run("2 2\nu\n2 1\n2 2\n2 3\n", &mut x, &mut o);
        let Some(Outcome::Win { winner, .. }) = (match end {
            GameEnd::Over(o) => Some(o),
            _ => None,
        }) else {
            panic!("{out}");
        };
        assert_eq!(winner, Player::X);
        assert!(out.contains("Took back 2 moves."), "{out}");
        assert!(out.contains(" 2  [X]|[X]|[X]"), "{out}");
    }

    #[test]
    fn undo_before_any_move_of_yours() {
        let (mut x, mut o) = (bot(), person("you"));
        let (end, out) = run("u\n", &mut x, &mut o);
        assert!(matches!(end, GameEnd::EndOfInput));
        assert!(out.contains("X (first-free) plays 1 1."), "{out}");
        assert!(out.contains("Nothing to take back yet."), "{out}");
    }

    #[test]
    fn two_engines_play_to_the_end() {
        let (mut x, mut o) = (bot(), bot());
        let (end, _) = run("", &mut x, &mut o);
        // First-free against itself: X takes 1 1, 1 3, 2 2 ... and wins on
        // the diagonal 1 3, 2 2, 3 1.
        assert!(matches!(
            end,
            GameEnd::Over(Outcome::Win {
                winner: Player::X,
                ..
            })
        ));
    }
}
