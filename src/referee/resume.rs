//! `--resume` (and `referee merge`): the games already in `--games-out`,
//! checked against this run and turned back into results to count, so only
//! the missing games are played.
//!
//! A record is taken only if it is the game this run would play at its
//! index: the same seed and board, the same engines by name in the same
//! places, the same pair, the opening this run's openings give for that
//! index (a strong check that the schedule is the same), the run's
//! fingerprint and shard, and moves that are legal and end the game the
//! way the record says.

use super::game::{GameEnd, Reason};
use super::games_out::{one_based, schema_refusal, GameRecord, PastGames, RunLine, RECORD_SCHEMA};
use super::openings::Openings;
use super::report::{BoardInfo, EngineInfo, PairingTally};
use super::schedule::{Job, Schedule};
use super::shard::Shard;
use crate::rules::{Board, Cell, Geometry, Outcome, Player};
use std::collections::HashMap;
use std::time::Duration;

/// A game of an earlier session, ready to count.
pub(super) struct PastGame {
    pub job: Job,
    pub end: GameEnd,
    /// Stdout lines X and O wrote outside responses.
    pub skipped: [u64; 2],
}

/// What records are checked against.
pub(super) struct RunContext<'a> {
    pub geometry: Geometry,
    pub schedule: &'a Schedule,
    /// The run's openings; `None` when they can't be made here (`merge` of
    /// a run from an openings file): then the games of each round must
    /// agree on theirs.
    pub openings: Option<&'a Openings>,
    pub engines: &'a [EngineInfo],
    pub run: &'a RunLine,
}

/// Checks every record of `past` against this run; the first mismatch is
/// an error naming the file, the line and what differs.
pub(super) fn check(past: &PastGames, context: &RunContext<'_>) -> anyhow::Result<Vec<PastGame>> {
    let mut line_of_game: HashMap<usize, usize> = HashMap::new();
    let mut round_openings: HashMap<usize, Vec<[u32; 2]>> = HashMap::new();
    let mut games = Vec::with_capacity(past.records.len());
    // Another tournament pairs other engines at every index: said first,
    // as the records' checks would only find the engines different.
    for (line, run) in &past.runs {
        if run.tournament != context.run.tournament {
            anyhow::bail!(
                "cannot resume from {}: line {line}: the records are of another run: {}",
                past.path.display(),
                run_difference(run, context.run).unwrap_or_default()
            );
        }
    }
    for (line, record) in &past.records {
        let checked = match line_of_game.insert(record.game, *line) {
            Some(first) => Err(format!(
                "game {} is already on line {first} (did two runs write to this file?)",
                record.game
            )),
            None => check_record(record, context, &mut round_openings),
        };
        match checked {
            Ok(game) => games.push(game),
            Err(why) => anyhow::bail!(
                "cannot resume from {}: line {line}: {why}",
                past.path.display()
            ),
        }
    }
    // After the records' games, whose checks say more precisely what
    // differs: the run lines, then whose each record is.
    for (line, run) in &past.runs {
        if let Err(why) = check_run_line(run, context) {
            anyhow::bail!(
                "cannot resume from {}: line {line}: {why}",
                past.path.display()
            );
        }
    }
    for (line, record) in &past.records {
        if let Err(why) = check_belonging(record, context) {
            anyhow::bail!(
                "cannot resume from {}: line {line}: {why}",
                past.path.display()
            );
        }
    }
    Ok(games)
}

/// Counts games of earlier sessions into a run's tallies and each engine's
/// skipped lines, as if played now.
pub(super) fn count<'g>(
    games: impl IntoIterator<Item = &'g PastGame>,
    tallies: &mut [PairingTally],
    skipped_lines: &mut [u64],
) {
    for g in games {
        tallies[g.job.pairing].add(g.job.pair, g.job.a_side(), &g.end);
        skipped_lines[g.job.x] += g.skipped[0];
        skipped_lines[g.job.o] += g.skipped[1];
    }
}

fn cells_text(cells: &[[u32; 2]]) -> String {
    if cells.is_empty() {
        return "no stones".into();
    }
    let cells: Vec<String> = cells.iter().map(|[r, c]| format!("{r} {c}")).collect();
    cells.join(", ")
}

/// Whether a record (whose game checked) names this run and shard: last, as
/// what differs is said more precisely by the other checks.
fn check_belonging(record: &GameRecord, context: &RunContext<'_>) -> Result<(), String> {
    let (g, run) = (record.game, context.run);
    if record.run.as_deref() != Some(run.run.as_str()) {
        return Err(format!(
            "game {g} belongs to run {}, this run is {}",
            record.run.as_deref().unwrap_or("(none)"),
            run.run
        ));
    }
    if record.shard != run.shard {
        return Err(format!(
            "game {g} was played by {}, this is {}",
            shard_text(record.shard),
            shard_text(run.shard)
        ));
    }
    if !context.schedule.is_ours(g) {
        return Err(format!(
            "game {g} (pair {}) is not one of {}'s games",
            g / 2,
            shard_text(run.shard)
        ));
    }
    Ok(())
}

/// `shard 2/4` or `the whole run`.
fn shard_text(shard: Option<Shard>) -> String {
    match shard {
        Some(s) => format!("shard {s}"),
        None => "the whole run (no --shard)".into(),
    }
}

/// A run line of the file: the same run, the same shard.
fn check_run_line(line: &RunLine, context: &RunContext<'_>) -> Result<(), String> {
    let ours = context.run;
    if line.schema != RECORD_SCHEMA {
        return Err(schema_refusal(line.schema));
    }
    if let Some(why) = run_difference(line, ours) {
        return Err(format!("the records are of another run: {why}"));
    }
    if line.shard != ours.shard {
        return Err(format!(
            "the records are of {}, this is {}",
            shard_text(line.shard),
            shard_text(ours.shard)
        ));
    }
    Ok(())
}

/// What makes run line `theirs` another run than `ours`, said for people;
/// `None` for the same run (the games per pairing may differ: a run may
/// grow).
pub(super) fn run_difference(theirs: &RunLine, ours: &RunLine) -> Option<String> {
    let names = |r: &RunLine| {
        r.engines
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if theirs.seed != ours.seed {
        Some(format!("seed {}, not {}", theirs.seed, ours.seed))
    } else if theirs.board != ours.board {
        Some(format!("played on {}, not {}", theirs.board, ours.board))
    } else if names(theirs) != names(ours) {
        Some(format!("engines {}, not {}", names(theirs), names(ours)))
    } else if theirs.tournament != ours.tournament {
        Some(format!(
            "a {}, not a {} (--tournament)",
            theirs.tournament, ours.tournament
        ))
    } else if let Some(why) = settings_difference(theirs, ours) {
        Some(why)
    } else if theirs.time_margin_ms != ours.time_margin_ms {
        Some(format!(
            "--time-margin {}, not {}",
            theirs.time_margin_ms, ours.time_margin_ms
        ))
    } else if theirs.openings_fingerprint != ours.openings_fingerprint {
        Some(format!(
            "openings '{}' ({}), not '{}' ({})",
            theirs.openings, theirs.openings_fingerprint, ours.openings, ours.openings_fingerprint
        ))
    } else if theirs.adjudication != ours.adjudication {
        let said = |a: &Option<String>| a.clone().unwrap_or_else(|| "no adjudication".into());
        Some(format!(
            "games ended by {}, not {}",
            said(&theirs.adjudication),
            said(&ours.adjudication)
        ))
    } else if theirs.run != ours.run {
        Some(format!("run {}, not {}", theirs.run, ours.run))
    } else {
        None
    }
}

/// The first engine whose settings differ between the run lines, said
/// with both (working directories aside: they are each machine's own).
fn settings_difference(theirs: &RunLine, ours: &RunLine) -> Option<String> {
    let text = |s: &super::engine_settings::EngineSettings| {
        let mut s = s.clone();
        s.dir = None;
        match s.text() {
            t if t.is_empty() => "none".to_string(),
            t => t,
        }
    };
    theirs
        .engines
        .iter()
        .zip(&ours.engines)
        .find(|(a, b)| text(&a.settings) != text(&b.settings))
        .map(|(a, b)| {
            format!(
                "{}'s settings {}, not {}",
                a.name,
                text(&a.settings),
                text(&b.settings)
            )
        })
}

/// A record checked against the game this run plays at its index, and
/// turned back into a result to count.
fn check_record(
    record: &GameRecord,
    context: &RunContext<'_>,
    round_openings: &mut HashMap<usize, Vec<[u32; 2]>>,
) -> Result<PastGame, String> {
    let job = check_place(record, context)?;
    check_opening(record, context, &job, round_openings)?;
    let (position, moves) = replay(record, context.geometry)?;
    let (x, o) = (context.name(job.x), context.name(job.o));
    let g = record.game;
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
        // Ended by the referee while the board was still open.
        Reason::Adjudicated => fault_by.is_none() && outcome.is_none(),
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
            move_data: Vec::new(),
            time: [Duration::ZERO; 2],
            peak_memory: [None; 2],
            replace: [false; 2],
        },
        skipped: [record.skipped.x, record.skipped.o],
    })
}

impl RunContext<'_> {
    /// The name of engine `i` in this run.
    fn name(&self, i: usize) -> &str {
        self.engines.get(i).map_or("?", |e| e.name.as_str())
    }
}

/// The record's place in this run: its schema, seed and board, and at its
/// index the same engines in the same places and the same pair.
fn check_place(record: &GameRecord, context: &RunContext<'_>) -> Result<Job, String> {
    let RunContext { schedule, run, .. } = *context;
    let board = &BoardInfo::from(context.geometry);
    let g = record.game;
    if record.schema != RECORD_SCHEMA {
        return Err(schema_refusal(record.schema));
    }
    if let Some(seed) = record.seed.filter(|&s| s != run.seed) {
        return Err(format!(
            "game {g} was played with seed {seed}, this run's seed is {}",
            run.seed
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
            schedule.total, run.games_per_pairing
        ));
    }
    let job = schedule.job(g);
    let (x, o) = (context.name(job.x), context.name(job.o));
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
    Ok(job)
}

/// The record's opening: the one this run's openings give its round, or
/// (when they can't be made here) the one of the round's other games.
fn check_opening(
    record: &GameRecord,
    context: &RunContext<'_>,
    job: &Job,
    round_openings: &mut HashMap<usize, Vec<[u32; 2]>>,
) -> Result<(), String> {
    let g = record.game;
    let expected = match context.openings {
        Some(openings) => one_based(&openings.round(job.round)).collect(),
        None => round_openings
            .entry(job.round)
            .or_insert_with(|| record.opening.clone())
            .clone(),
    };
    if record.opening == expected {
        return Ok(());
    }
    Err(match context.openings {
        Some(_) => format!(
            "game {g} opened with {}, this run's openings give {} for it",
            cells_text(&record.opening),
            cells_text(&expected)
        ),
        None => format!(
            "game {g} opened with {}, another game of its round {} with {}",
            cells_text(&record.opening),
            job.round,
            cells_text(&expected)
        ),
    })
}

/// The record's opening and moves played on a board, each legal: the
/// position they leave and the moves after the opening.
fn replay(record: &GameRecord, geometry: Geometry) -> Result<(Board, Vec<Cell>), String> {
    let g = record.game;
    let mut position = Board::new(geometry);
    for (n, &[r, c]) in record.opening.iter().enumerate() {
        let cell = Cell::from_one_based(r, c).ok_or_else(|| {
            format!(
                "game {g}: opening stone {} ({r} {c}) is off the board",
                n + 1
            )
        })?;
        position
            .try_play(cell)
            .map_err(|e| format!("game {g}: opening stone {} is not legal: {e}", n + 1))?;
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
    Ok((position, moves))
}
