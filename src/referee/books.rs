//! The books of a run: a finished game's bookkeeping (its `--games-out`
//! record, its `--samples`, its lines of `referee.log`, its SGF file), done
//! by the worker that played it into a [`Batch`], and the [`Books`] every
//! batch is entered into under one lock: the records in one write, the
//! samples, the counts, the SPRT's decision, the watcher and the progress
//! display.

use super::config::Config;
use super::convert;
use super::game::{GameEnd, Reason};
use super::games_out::{
    one_based, push_record, GameRecord, GameResult, MoveInfo, PeakMemory, SkippedLines, TimeUsed,
    RECORD_SCHEMA,
};
use super::progress::Progress;
use super::report::{sprt_status, EngineInfo, PairingTally, PlyTimes};
use super::run_samples::SamplesOut;
use super::samples::{SampleBoard, Sampler};
use super::say;
use super::schedule::Job;
use super::stats::{Sprt, SprtDecision};
use super::watch::{GameOver, Standings, Watcher};
use crate::client::BrainMessage;
use crate::records::RecordedGame;
use crate::rules::Cell;
use anyhow::Context;
use std::fmt::Write as _;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// What a worker's players made of one game.
pub(super) struct Played {
    pub end: GameEnd,
    /// Skipped stdout lines of X and O during this game: examples, count.
    pub skipped: [(Vec<String>, u64); 2],
    /// `MESSAGE`/`DEBUG` lines of Gomocup brains (X, O): those kept (a
    /// few, or all with `--messages`), and how many there were.
    pub messages: [(Vec<BrainMessage>, u64); 2],
    /// Time spent starting fresh engine processes for it (the engines'
    /// cost, not the referee's).
    pub start_up: Duration,
}

/// A finished game on its way from a worker into the books, its
/// bookkeeping done by the worker.
pub(super) struct Finished {
    pub job: Job,
    pub end: GameEnd,
    /// Stdout lines X and O wrote outside responses.
    pub skipped: [u64; 2],
    /// Why its SGF file could not be written.
    pub sgf_error: Option<String>,
    /// The referee's own time for it: all but the engines' replies and
    /// start-ups.
    pub referee: Duration,
}

/// A worker's finished games not yet in the books, with their record lines
/// and log lines, each kind to be written in one go.
#[derive(Default)]
pub(super) struct Batch {
    pub games: Vec<Finished>,
    /// The games' `--games-out` lines.
    pub records: Vec<u8>,
    /// The record each game's line is written from (see
    /// [`Bookkeeper::finished`]).
    pub record: Option<GameRecord>,
    /// The games' `--samples`, laid out but not yet encoded, and how many.
    pub samples: Vec<u8>,
    pub sampled: u64,
    /// Their lines of `referee.log`.
    pub log: String,
    /// Their blocks of `--messages`.
    pub messages: String,
    /// When the first of them started.
    pub oldest: Option<Instant>,
}

/// A worker hands its games in when it has this many…
pub(super) const BATCH_GAMES: usize = 512;
/// …or when its oldest game has waited this long (so progress, a watcher
/// and a run killed with SIGKILL lose no more than this).
pub(super) const BATCH_TIME: Duration = Duration::from_millis(20);

/// What the run has counted: what the report says.
pub(super) struct Counts<'a> {
    pub engines: &'a [EngineInfo],
    /// Games in this session's schedule.
    pub total: usize,
    pub tallies: Vec<PairingTally>,
    pub skipped_lines: Vec<u64>,
    /// Games counted, with those resumed.
    pub done: u64,
    /// Moves the engines chose in this session's games, and the time the
    /// engines and the referee took for them.
    pub plies: u64,
    pub engine_time: Duration,
    pub referee_time: Duration,
    pub sprt: Option<Sprt>,
}

impl Counts<'_> {
    pub fn standings(&self) -> Standings<'_> {
        Standings {
            done: self.done,
            total: self.total,
            engines: self.engines,
            tallies: &self.tallies,
            skipped_lines: &self.skipped_lines,
            sprt: self.sprt.map(|test| sprt_status(test, &self.tallies[0])),
            per_ply: PlyTimes::of(self.plies, self.referee_time, self.engine_time),
        }
    }
}

/// What every game of the run is entered into: the counts, the records
/// file, the log, the progress display. One lock; a worker takes it once
/// per batch.
pub(super) struct Books<'a> {
    pub counts: Counts<'a>,
    pub games_out: Option<File>,
    /// The run line, written before this session's first record.
    pub run_line: Option<String>,
    pub log: Option<File>,
    /// `--messages`.
    pub messages: Option<File>,
    pub samples: Option<SamplesOut>,
    pub write_errors: Vec<String>,
    pub progress: Progress,
}

impl Books<'_> {
    /// Says a write failure at once (the run goes on: the report still
    /// comes) and again at the end; later failures are counted.
    fn write_failed(&mut self, what: &str, games: &[Finished], e: &dyn std::fmt::Display) {
        if self.write_errors.is_empty() {
            self.progress.clear();
            say(&format!("referee: cannot write {what}: {e}"));
        }
        for f in games {
            self.write_errors.push(format!("game {}: {e}", f.job.game));
        }
    }

    /// At the end of a session that entered no game (a shard with no
    /// pairs, a run stopped before its first game): the run line all the
    /// same when the file has none, so that every records file says which
    /// run it belongs to (`referee merge` and `--resume` read it).
    pub fn close(&mut self, file_has_run_line: bool) {
        let (Some(out), Some(line)) = (self.games_out.as_mut(), self.run_line.take()) else {
            return;
        };
        if file_has_run_line {
            return;
        }
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
            self.progress.clear();
            say(&format!(
                "referee: cannot write the run line to --games-out: {e}"
            ));
            self.write_errors.push(format!("the run line: {e}"));
        }
    }

    /// Enters a worker's batch of finished games: records in one write,
    /// then the counts. Returns true when the SPRT has decided.
    pub fn enter(&mut self, batch: &Batch, watcher: Option<&dyn Watcher>) -> bool {
        if let Some(out) = self.games_out.as_mut() {
            let run_line = self.run_line.take().unwrap_or_default();
            let written = out
                .write_all(run_line.as_bytes())
                .and_then(|()| out.write_all(&batch.records))
                .and_then(|()| out.flush());
            if let Err(e) = written {
                self.write_failed("a record to --games-out", &batch.games, &e);
            }
        }
        // After the records: the samples file holds only games that are in
        // them, so a resumed run samples no game twice.
        if let Some(out) = self.samples.as_mut() {
            let games = batch.games.len() as u64;
            if let Some(failure) = out.write(&batch.samples, games, batch.sampled) {
                self.progress.clear();
                say(&failure);
            }
        }
        if let Some(log) = self.log.as_mut() {
            let _ = log.write_all(batch.log.as_bytes());
        }
        if let Some(out) = self.messages.as_mut() {
            if let Err(e) = out.write_all(batch.messages.as_bytes()) {
                self.write_failed("engine messages to --messages", &batch.games, &e);
            }
        }
        let batch = &batch.games;
        for f in batch.iter().filter(|f| f.sgf_error.is_some()) {
            let e = f.sgf_error.clone().unwrap_or_default();
            self.write_failed("an SGF record to --sgf-dir", std::slice::from_ref(f), &e);
        }
        let mut decided = false;
        let c = &mut self.counts;
        for f in batch {
            let job = f.job;
            c.done += 1;
            c.plies += f.end.moves.len() as u64;
            c.engine_time += f.end.time[0] + f.end.time[1];
            c.referee_time += f.referee;
            c.skipped_lines[job.x] += f.skipped[0];
            c.skipped_lines[job.o] += f.skipped[1];
            let tally = &mut c.tallies[job.pairing];
            let pair_done = tally.add(job.pair, job.a_side(), &f.end);
            if let (Some(test), true) = (c.sprt, pair_done) {
                decided |= sprt_status(test, tally).decision != SprtDecision::Continue;
            }
            if let Some(w) = watcher {
                let name = |i: usize| c.engines[i].name.as_str();
                let over = GameOver {
                    game: job.game,
                    x: name(job.x),
                    o: name(job.o),
                    end: &f.end,
                };
                w.game_finished(&over, &c.standings());
            }
        }
        decided
    }

    /// Shows progress if it is time to.
    pub fn tick(&mut self) {
        self.progress.tick(&self.counts.standings());
    }
}

impl Batch {
    /// Empties the batch once its games are in the books, keeping its
    /// buffers.
    pub fn clear(&mut self) {
        self.games.clear();
        self.records.clear();
        self.samples.clear();
        self.sampled = 0;
        self.log.clear();
        self.messages.clear();
        self.oldest = None;
    }
}

/// What a finished game's bookkeeping needs of the run.
#[derive(Clone, Copy)]
pub(super) struct Bookkeeper<'a> {
    pub config: &'a Config,
    pub engines: &'a [EngineInfo],
    /// The run's fingerprint, in every record.
    pub run_id: &'a str,
    /// How `--samples` are drawn, on the run's board.
    pub samples: Option<(Sampler, SampleBoard)>,
}

impl Bookkeeper<'_> {
    /// A game's bookkeeping, done by the worker that played it: its record
    /// line and log lines into `batch`, its SGF file, and the game. `started`:
    /// when the worker took the game; returns the time now.
    pub fn finished(
        &self,
        batch: &mut Batch,
        job: Job,
        played: Played,
        opening: &[Cell],
        started: Instant,
    ) -> Instant {
        let config = self.config;
        let Played {
            end,
            skipped,
            messages,
            start_up,
        } = played;
        let names = [
            self.engines[job.x].name.as_str(),
            self.engines[job.o].name.as_str(),
        ];
        let skipped_counts = [skipped[0].1, skipped[1].1];
        if config.games_out.is_some() || self.samples.is_some() {
            self.record(batch, &job, &end, names, opening, skipped_counts);
        }
        if config.log_dir.is_some() {
            log_lines(&mut batch.log, job.game, &end, names, &messages, &skipped);
        }
        if config.messages.is_some() {
            message_lines(&mut batch.messages, job.game, names, &messages);
        }
        let sgf_error = config.sgf_dir.as_deref().and_then(|dir| {
            write_sgf(dir, &job, &end, names, opening, config)
                .err()
                .map(|e| format!("{e:#}"))
        });
        let waited = end.time[0] + end.time[1] + start_up;
        let now = Instant::now();
        batch.games.push(Finished {
            job,
            skipped: skipped_counts,
            sgf_error,
            referee: (now - started).saturating_sub(waited),
            end,
        });
        batch.oldest.get_or_insert(started);
        now
    }

    /// The game's `--games-out` line and its samples, pushed onto the
    /// batch's.
    fn record(
        &self,
        batch: &mut Batch,
        job: &Job,
        end: &GameEnd,
        [xn, on]: [&str; 2],
        opening: &[Cell],
        skipped: [u64; 2],
    ) {
        let config = self.config;
        // One record kept by the batch and filled in anew for each game:
        // its strings and lists keep their buffers, so writing a record
        // allocates nothing.
        let line = batch.record.get_or_insert_with(|| GameRecord {
            schema: RECORD_SCHEMA,
            game: 0,
            pair: 0,
            x: String::new(),
            o: String::new(),
            opening: Vec::new(),
            moves: Vec::new(),
            result: GameResult::Draw,
            reason: Reason::Draw,
            fault_by: None,
            detail: None,
            time_ms: TimeUsed::default(),
            peak_mib: PeakMemory::default(),
            skipped: SkippedLines::default(),
            seed: Some(config.seed),
            board: Some(config.geometry.into()),
            run: Some(self.run_id.to_string()),
            shard: config.shard,
            move_info: Vec::new(),
        });
        let ms = |d: Duration| (d.as_secs_f64() * 1e6).round() / 1e3;
        line.game = job.game;
        line.pair = job.pair;
        line.x.clear();
        line.x.push_str(xn);
        line.o.clear();
        line.o.push_str(on);
        line.opening.clear();
        line.opening.extend(one_based(opening));
        line.moves.clear();
        line.moves.extend(one_based(&end.moves));
        line.result = GameResult::of(end.winner);
        line.reason = end.reason;
        line.fault_by = end.fault_by.map(|p| [xn, on][p.index()].to_string());
        line.detail.clone_from(&end.detail);
        line.time_ms = TimeUsed {
            x: ms(end.time[0]),
            o: ms(end.time[1]),
        };
        line.peak_mib = PeakMemory::of(end.peak_memory);
        line.skipped = SkippedLines {
            x: skipped[0],
            o: skipped[1],
        };
        line.move_info.clear();
        if config.move_info {
            line.move_info
                .extend(end.move_data.iter().map(MoveInfo::of));
        }
        if config.games_out.is_some() {
            push_record(&mut batch.records, line);
        }
        if let Some((sampler, board)) = &self.samples {
            batch.sampled += sampler.push(line, *board, &mut batch.samples) as u64;
        }
    }
}

/// A brain's messages in `referee.log`, at most, per game (all of them go
/// to `--messages`).
const LOG_MESSAGES: usize = 16;

/// The game's lines of `referee.log`: the fault, the brains' messages,
/// the stdout lines skipped.
fn log_lines(
    log: &mut String,
    game: usize,
    end: &GameEnd,
    names: [&str; 2],
    messages: &[(Vec<BrainMessage>, u64); 2],
    skipped: &[(Vec<String>, u64); 2],
) {
    let fault_by = end.fault_by.map(|p| names[p.index()]);
    if let (Some(who), Some(detail)) = (fault_by, end.detail.as_deref()) {
        let _ = writeln!(log, "game {game}: {who} {}: {detail}", end.reason.name());
    }
    for (who, (lines, count)) in names.iter().zip(messages) {
        for line in lines.iter().take(LOG_MESSAGES) {
            let _ = writeln!(log, "game {game}: {who} says: {}", line.text);
        }
        let lines = &lines[..lines.len().min(LOG_MESSAGES)];
        if *count > lines.len() as u64 {
            let more = *count - lines.len() as u64;
            let _ = writeln!(log, "game {game}: {who}: {more} more MESSAGE/DEBUG lines");
        }
    }
    for (who, (lines, count)) in names.iter().zip(skipped) {
        if *count > 0 {
            let _ = writeln!(
                log,
                "game {game}: {who} wrote {count} stdout lines outside responses (skipped), first: {:?}",
                lines.first().map(|l| super::detail_text(l))
            );
        }
    }
}

/// The game's block of `--messages`, as c-gomoku-cli's `-msg` writes it:
/// a rule, `Game ID: N` (from 1), `Engines: X x O`, then each message as
/// `PLY) NAME: TEXT`.
fn message_lines(
    out: &mut String,
    game: usize,
    names: [&str; 2],
    messages: &[(Vec<BrainMessage>, u64); 2],
) {
    let _ = writeln!(out, "------------------------------");
    let _ = writeln!(out, "Game ID: {}", game + 1);
    let _ = writeln!(out, "Engines: {} x {}", names[0], names[1]);
    let mut all: Vec<(usize, &str, &str)> = Vec::new();
    for (who, (lines, _)) in names.iter().zip(messages) {
        all.extend(lines.iter().map(|m| (m.ply, *who, m.text.as_str())));
    }
    // Stable: each engine's lines keep their order within a ply.
    all.sort_by_key(|&(ply, ..)| ply);
    for (ply, who, text) in all {
        let _ = writeln!(out, "{ply}) {who}: {text}");
    }
    for (who, (lines, count)) in names.iter().zip(messages) {
        if *count > lines.len() as u64 {
            let more = *count - lines.len() as u64;
            let kept = crate::client::ALL_MESSAGES_BYTES >> 10;
            let _ = writeln!(out, "({who}: {more} more lines, past the {kept} KiB kept)");
        }
    }
}

/// Writes a finished game into `--sgf-dir`.
fn write_sgf(
    dir: &Path,
    job: &Job,
    end: &GameEnd,
    [x, o]: [&str; 2],
    opening: &[Cell],
    config: &Config,
) -> anyhow::Result<()> {
    let mut moves = opening.to_vec();
    moves.extend(&end.moves);
    let game = RecordedGame {
        geometry: config.geometry,
        x: x.to_string(),
        o: o.to_string(),
        moves,
        opening: opening.len(),
        ending: convert::ending(end.reason, end.winner, end.detail.as_deref()),
        title: Some(format!("game {} (seed {})", job.game, config.seed)),
        notes: if config.move_info {
            end.move_data
                .iter()
                .map(|d| MoveInfo::of(d).note())
                .collect()
        } else {
            Vec::new()
        },
    };
    let path = dir.join(format!("{}.sgf", RecordedGame::file_stem(job.game, x, o)));
    std::fs::write(&path, crate::records::sgf::write(&game))
        .with_context(|| format!("cannot write {}", path.display()))
}
