//! `--resume`: the games already in `--games-out`, checked against this run
//! and turned back into results to count, so only the missing games are
//! played.
//!
//! A record is taken only if it is the game this run would play at its
//! index: the same seed and board, the same engines by name in the same
//! places, the same pair, the opening this run's openings give for that
//! index (a strong check that the schedule is the same), and moves that are
//! legal and end the game the way the record says.

use super::game::{GameEnd, Reason};
use super::openings::Openings;
use super::records::{one_based, schema_refusal, GameRecord, PastGames, RECORD_SCHEMA};
use super::report::{BoardInfo, EngineInfo};
use super::tournament::{Job, Schedule};
use super::Config;
use crate::rules::{Board, Cell, Outcome, Player};
use std::collections::HashMap;
use std::time::Duration;

/// A game of an earlier session, ready to count.
pub(super) struct PastGame {
    pub job: Job,
    pub end: GameEnd,
    /// Stdout lines X and O wrote outside responses.
    pub skipped: [u64; 2],
}

/// Checks every record of `past` against this run; the first mismatch is
/// an error naming the file, the line and what differs.
pub(super) fn check(
    past: &PastGames,
    config: &Config,
    schedule: &Schedule,
    openings: &Openings,
    engines: &[EngineInfo],
) -> anyhow::Result<Vec<PastGame>> {
    let board = BoardInfo::from(config.geometry);
    let mut line_of_game: HashMap<usize, usize> = HashMap::new();
    let mut games = Vec::with_capacity(past.records.len());
    for (line, record) in &past.records {
        let checked = match line_of_game.insert(record.game, *line) {
            Some(first) => Err(format!(
                "game {} is already on line {first} (did two runs write to this file?)",
                record.game
            )),
            None => check_record(record, config, &board, schedule, openings, engines),
        };
        match checked {
            Ok(game) => games.push(game),
            Err(why) => anyhow::bail!(
                "cannot resume from {}: line {line}: {why}",
                past.path.display()
            ),
        }
    }
    Ok(games)
}

fn cells_text(cells: &[[u32; 2]]) -> String {
    if cells.is_empty() {
        return "no stones".into();
    }
    let cells: Vec<String> = cells.iter().map(|[r, c]| format!("{r} {c}")).collect();
    cells.join(", ")
}

fn check_record(
    record: &GameRecord,
    config: &Config,
    board: &BoardInfo,
    schedule: &Schedule,
    openings: &Openings,
    engines: &[EngineInfo],
) -> Result<PastGame, String> {
    let g = record.game;
    if record.schema != RECORD_SCHEMA {
        return Err(schema_refusal(record.schema));
    }
    if let Some(seed) = record.seed.filter(|&s| s != config.seed) {
        return Err(format!(
            "game {g} was played with seed {seed}, this run's seed is {}",
            config.seed
        ));
    }
    if let Some(theirs) = record.board.as_ref().filter(|&b| b != board) {
        return Err(format!(
            "game {g} was played on {theirs}, this run is on {board}"
        ));
    }
    if g >= schedule.total {
        return Err(format!(
            "game {g} lies past the end of this run's schedule of {} games ({} per pairing)",
            schedule.total, config.games
        ));
    }
    let job = schedule.job(g);
    let name = |i: usize| engines.get(i).map_or("?", |e| e.name.as_str());
    let (x, o) = (name(job.x), name(job.o));
    if record.x != x || record.o != o {
        return Err(format!(
            "game {g} was {} (X) against {} (O); in this run it is {x} against {o}",
            record.x, record.o
        ));
    }
    if record.pair != job.pair {
        return Err(format!(
            "game {g} belongs to pair {}, in this run to pair {}",
            record.pair, job.pair
        ));
    }
    let opening = openings.round(job.round);
    let expected = one_based(&opening);
    if record.opening != expected {
        return Err(format!(
            "game {g} opened with {}, this run's openings give {} for it",
            cells_text(&record.opening),
            cells_text(&expected)
        ));
    }
    let mut position = Board::new(config.geometry);
    for &cell in opening.iter() {
        // This run's own opening: legal by construction.
        let _ = position.try_play(cell);
    }
    let mut moves = Vec::with_capacity(record.moves.len());
    for (n, &[r, c]) in record.moves.iter().enumerate() {
        let cell = Cell::from_one_based(r, c)
            .ok_or_else(|| format!("game {g}: move {} ({r} {c}) is off the board", n + 1))?;
        position
            .try_play(cell)
            .map_err(|e| format!("game {g}: move {} is not legal: {e}", n + 1))?;
        moves.push(cell);
    }
    let winner = record.result.winner();
    let fault_by = match record.fault_by.as_deref() {
        None => None,
        Some(n) if n == x => Some(Player::X),
        Some(n) if n == o => Some(Player::O),
        Some(n) => return Err(format!("game {g}: fault_by '{n}' is neither player")),
    };
    let outcome = position.outcome();
    let adds_up = match record.reason {
        Reason::Win => {
            fault_by.is_none() && winner.is_some() && outcome.and_then(|o| o.winner()) == winner
        }
        Reason::Draw => fault_by.is_none() && winner.is_none() && outcome == Some(Outcome::Draw),
        _ => fault_by.is_some() && winner == fault_by.map(Player::other) && outcome.is_none(),
    };
    if !adds_up {
        let after = match outcome.map(|o| o.winner()) {
            None => "undecided".to_string(),
            Some(None) => "a draw".to_string(),
            Some(Some(p)) => format!("won by {p}"),
        };
        return Err(format!(
            "game {g} does not add up: it says result {}, reason {}, but its moves leave the game {after}",
            record.result.name(),
            record.reason.name()
        ));
    }
    Ok(PastGame {
        job,
        end: GameEnd {
            winner,
            reason: record.reason,
            fault_by,
            detail: record.detail.clone(),
            moves,
            // Only the results are counted; times stay in the records.
            time: [Duration::ZERO; 2],
            replace: [false; 2],
        },
        skipped: [record.skipped.x, record.skipped.o],
    })
}
