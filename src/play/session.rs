//! Games in a row: start the engines, play, show the result and the running
//! score, and ask to play again (sides swapped on request).

use super::console::Console;
use super::game::{play_game, GameEnd, Participant};
use super::score::Tally;
use super::setup::Setup;
use crate::bots::seeds::{derive_seed, Stream};
use crate::client::{display_name, quoted, EngineSeat, Launch, SeatSpec};
use crate::records::{Ending, Format, RecordedGame};
use crate::rules::{Outcome, Player};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How engines are started and paced.
#[derive(Clone, Debug)]
pub struct Options {
    /// The session seed; each participant's bot gets a seed derived from it.
    pub seed: u64,
    /// Time per move for bots, in milliseconds (`None`: the engine's default).
    pub movetime: Option<u64>,
    /// Longest wait for any engine answer in a game.
    pub timeout: Duration,
    /// Longest wait for a freshly started engine's first answer.
    pub startup_timeout: Duration,
    /// Pause after each move when no person plays.
    pub pace: Duration,
    /// The `kinrow` program that runs the built-in bots.
    pub engine_program: PathBuf,
    /// Raised by a stop signal: every wait for an engine is cut short, and
    /// the session ends (its engines with it) without another word.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Options {
    fn stopping(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst))
    }
}

/// One participant's seat as set up, kept to restart a failed engine.
struct Entrant {
    spec: SeatSpec,
    seed: u64,
    player: Participant,
}

/// Plays games until the person stops or the input ends.
pub fn run<R: BufRead, W: Write>(
    con: &mut Console<R, W>,
    setup: &Setup,
    options: &Options,
) -> anyhow::Result<()> {
    let mut entrants = start_entrants(setup, options)?;
    if [&setup.x, &setup.o]
        .iter()
        .any(|s| matches!(s, SeatSpec::Bot(_)))
    {
        con.say(format!(
            "Bots use seed {} (add --seed {} to replay their choices).",
            options.seed, options.seed
        ))?;
    }
    let mut tally = Tally::new(&entrants[0].player.name, &entrants[1].player.name);
    // Which entrant plays X this game.
    let mut x_entrant = 0;
    let result = loop {
        if let Err(e) = restart_failed(&mut entrants, options, setup.geometry) {
            if options.stopping() {
                return Err(e);
            }
            con.say(format!("{e:#}"))?;
            break Ok(());
        }
        let [first, second] = &mut entrants;
        let seats = if x_entrant == 0 {
            [&mut first.player, &mut second.player]
        } else {
            [&mut second.player, &mut first.player]
        };
        let mut board = crate::rules::Board::new(setup.geometry);
        let end = play_game(con, seats, &mut board, options.pace)?;
        if options.stopping() {
            // The fault of an engine whose wait was cut short is no fault.
            return Err(crate::sys::signals::stopped().into());
        }
        let entrant_of = |side: Player| match side {
            Player::X => x_entrant,
            Player::O => 1 - x_entrant,
        };
        let names =
            [Player::X, Player::O].map(|side| entrants[entrant_of(side)].player.name.clone());
        let record = saved_game(&board, &end, names);
        let style = con.style;
        let label = |entrants: &[Entrant; 2], side: Player| {
            let p = &entrants[entrant_of(side)].player;
            format!("{} ({})", super::render::paint(side, style), p.name)
        };
        match end {
            GameEnd::Over(Outcome::Win { winner, line }) => {
                let cells: Vec<String> = line.cells().map(|c| c.to_string()).collect();
                con.say(format!(
                    "{} wins with {} in a row: {}.",
                    label(&entrants, winner),
                    line.len(),
                    cells.join(", ")
                ))?;
                tally.add_win(entrant_of(winner));
            }
            GameEnd::Over(Outcome::Draw) => {
                con.say("The board is full: it's a draw.")?;
                tally.add_draw();
            }
            GameEnd::Left => con.say("You left the game; it does not count.")?,
            GameEnd::EndOfInput => {
                con.say("End of input: leaving the game.")?;
                break Ok(());
            }
            GameEnd::Fault(side, fault) => {
                con.say(format!(
                    "The engine playing {} {fault}. The game ends here and does not count.",
                    label(&entrants, side)
                ))?;
                // Dropping the seat kills and reaps the process; the next
                // game starts a fresh one.
                entrants[entrant_of(side)].player.engine = None;
            }
        }
        con.say(format!("Score: {tally}"))?;
        match ask_again(con, &record)? {
            Again::Same => {}
            Again::Swap => x_entrant = 1 - x_entrant,
            Again::Stop => break Ok(()),
        }
    };
    if tally.games() > 0 {
        con.say(format!("Thanks for playing. Final score: {tally}."))?;
    } else {
        con.say("Thanks for playing.")?;
    }
    for entrant in &mut entrants {
        if let Some(engine) = entrant.player.engine.as_mut() {
            engine.quit();
        }
    }
    result
}

/// The answer to "play again?".
enum Again {
    Same,
    Swap,
    Stop,
}

fn ask_again<R: BufRead, W: Write>(
    con: &mut Console<R, W>,
    game: &RecordedGame,
) -> std::io::Result<Again> {
    loop {
        let Some(answer) = con
            .ask("Play again? y = yes, s = yes with sides swapped, n = no, w = save this game:")?
        else {
            return Ok(Again::Stop);
        };
        match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" => return Ok(Again::Same),
            "s" | "swap" => return Ok(Again::Swap),
            "n" | "no" | "q" | "quit" => return Ok(Again::Stop),
            "w" | "save" => save(con, game)?,
            _ => con.say("Please answer y, s, n or w.")?,
        }
    }
}

/// The game just played, as a record to save.
fn saved_game(board: &crate::rules::Board, end: &GameEnd, [x, o]: [String; 2]) -> RecordedGame {
    RecordedGame {
        geometry: board.geometry(),
        x,
        o,
        moves: board.moves().collect(),
        opening: 0,
        ending: match end {
            GameEnd::Over(Outcome::Win { winner, .. }) => Ending::Win(*winner),
            GameEnd::Over(Outcome::Draw) => Ending::Draw,
            _ => Ending::Unfinished,
        },
        title: Some("kinrow play".into()),
        notes: Vec::new(),
    }
}

/// Asks for a file name and writes the game there, as SGF or `.psq` by its
/// extension; an existing file is not overwritten.
fn save<R: BufRead, W: Write>(con: &mut Console<R, W>, game: &RecordedGame) -> std::io::Result<()> {
    let Some(name) = con.ask("Save as (a file name ending in .sgf or .psq):")? else {
        return Ok(());
    };
    let path = PathBuf::from(name.trim());
    let Some(format) = Format::of_path(&path) else {
        return con.say("Not saved: the name must end in .sgf or .psq.");
    };
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| f.write_all(format.write(game).as_bytes()));
    match written {
        Ok(()) => con.say(format!("Saved to {}.", path.display())),
        Err(e) => con.say(format!("Not saved: {}: {e}.", path.display())),
    }
}

/// Names the participants and starts their engines. Participant 0 plays X
/// in the first game.
fn start_entrants(setup: &Setup, options: &Options) -> anyhow::Result<[Entrant; 2]> {
    let humans = [&setup.x, &setup.o].iter().filter(|s| s.is_human()).count();
    let mut entrants = [Player::X, Player::O].map(|side| {
        let spec = setup.seat(side).clone();
        let name = match &spec {
            SeatSpec::Human if humans == 2 => format!("player {}", side.index() + 1),
            SeatSpec::Human => "you".to_string(),
            SeatSpec::Bot(bot) => bot.to_string(),
            SeatSpec::Engine(command) => quoted(&display_name(&command.argv)),
        };
        Entrant {
            spec,
            // Each seat's own stream of the session seed (not seed + seat:
            // that would give one session's O the next session's X).
            seed: derive_seed(options.seed, Stream::PlaySeat, &[side.index() as u64]),
            player: Participant { name, engine: None },
        }
    });
    for entrant in &mut entrants {
        if !entrant.spec.is_human() {
            let (engine, name) = start(entrant, options, setup.geometry)?;
            if let (SeatSpec::Engine(_), Some(name)) = (&entrant.spec, name) {
                entrant.player.name = name;
            }
            entrant.player.engine = Some(engine);
        }
    }
    if entrants[0].player.name == entrants[1].player.name {
        for (i, e) in entrants.iter_mut().enumerate() {
            e.player.name = format!("{} #{}", e.player.name, i + 1);
        }
    }
    Ok(entrants)
}

/// Starts engines that failed in the last game again.
fn restart_failed(
    entrants: &mut [Entrant; 2],
    options: &Options,
    geometry: crate::rules::Geometry,
) -> anyhow::Result<()> {
    for entrant in entrants.iter_mut() {
        if !entrant.spec.is_human() && entrant.player.engine.is_none() {
            entrant.player.engine = Some(start(entrant, options, geometry)?.0);
        }
    }
    Ok(())
}

/// Starts the engine of one entrant and asks its name, within the start-up
/// deadline: an engine that does not speak at all is a setup error, said
/// at once.
fn start(
    entrant: &Entrant,
    options: &Options,
    geometry: crate::rules::Geometry,
) -> anyhow::Result<(EngineSeat, Option<String>)> {
    let launch = Launch {
        program: &options.engine_program,
        seed: entrant.seed,
        movetime: options.movetime,
        timeout: options.timeout,
        startup_timeout: options.startup_timeout,
        geometry,
        cancel: options.stop.clone(),
    };
    launch.start(&entrant.spec)
}
