//! Running a tournament: start-up checks, the schedule, worker threads that
//! each own their players (engine processes, or with `--in-process` the
//! built-in bots themselves), and the books where every finished game is
//! recorded and counted.
//!
//! Where things happen, for those who follow a run ([`Watcher`]):
//! - a game starts in [`worker`], which takes it off the schedule;
//! - its moves are played by [`play_game`] or [`play_in_process`], each
//!   checked on the referee's board and then told to the watcher;
//! - a finished game's bookkeeping (its record line, log lines, SGF file)
//!   is done by the worker that played it ([`Shared::finished`]); the
//!   worker hands its games in, in batches, to the [`Books`], which write
//!   the records in one write per batch, count the results, decide the SPRT
//!   and tell the watcher. No thread is woken per game: the main thread
//!   only looks in every 100 ms (Ctrl-C, progress).

use super::convert;
use super::game::{play_game, Cancelled, GameEnd, GameSetup, Reason};
use super::games_out::{
    one_based, push_record, GameRecord, GameResult, RunLine, SkippedLines, TimeUsed, RECORD_SCHEMA,
};
use super::in_process::{self, play_in_process};
use super::openings::Openings;
use super::progress::Progress;
use super::report::{self, EngineInfo, PairingTally, PlyTimes, RunInfo, SprtStatus};
use super::seeds::{derive_seed, Stream};
use super::shard::Shard;
use super::stats::SprtDecision;
use super::watch::{GameOver, GameStart, MovePlayed, Standings, Watcher};
use super::{resume, Config};
use crate::bots::BotKind;
use crate::client::{ClientError, EngineCommand, EngineLink, GomocupOptions, StderrTo};
use crate::protocol::Engine;
use crate::records::RecordedGame;
use crate::rules::{Cell, Player};
use anyhow::{bail, Context};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Debug)]
pub struct RunOutcome {
    /// The text report.
    pub report: String,
    /// Ctrl-C stopped it before the schedule was done.
    pub interrupted: bool,
    /// Games finished and counted (with those resumed).
    pub games: u64,
    /// Games in the schedule (the shard's, for a shard).
    pub total: usize,
    /// Records or the summary that could not be written (a full disk, a
    /// removed directory). The games were still played and the report is
    /// complete, but what is named here is missing or incomplete.
    pub write_errors: Vec<String>,
}

/// Fails unless `path` can be opened for writing, without changing it: a
/// file that didn't exist is removed again. So an unwritable `--json` stops
/// the run before any game rather than after the last one.
pub(super) fn check_writable(path: &Path) -> anyhow::Result<()> {
    let existed = std::fs::symlink_metadata(path).is_ok();
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// A note for people on stderr, within 80 columns.
pub(super) fn say(text: &str) {
    eprintln!("{}", crate::cli::wrap_message(text));
}

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
struct GameSet(Vec<u64>);

impl GameSet {
    fn new(games: usize) -> GameSet {
        GameSet(vec![0; games.div_ceil(64)])
    }
    fn insert(&mut self, game: usize) {
        if let Some(word) = self.0.get_mut(game / 64) {
            *word |= 1 << (game % 64);
        }
    }
    fn contains(&self, game: usize) -> bool {
        self.0
            .get(game / 64)
            .is_some_and(|w| w >> (game % 64) & 1 == 1)
    }
}

/// What a worker's players made of one game.
struct Played {
    end: GameEnd,
    /// Skipped stdout lines of X and O during this game: examples, count.
    skipped: [(Vec<String>, u64); 2],
    /// `MESSAGE`/`DEBUG` lines of Gomocup brains (X, O): examples, count.
    messages: [(Vec<String>, u64); 2],
    /// Time spent starting fresh engine processes for it (the engines'
    /// cost, not the referee's).
    start_up: Duration,
}

/// A finished game on its way from a worker into the books, its
/// bookkeeping done by the worker.
struct Finished {
    job: Job,
    end: GameEnd,
    /// Stdout lines X and O wrote outside responses.
    skipped: [u64; 2],
    /// Why its SGF file could not be written.
    sgf_error: Option<String>,
    /// The referee's own time for it: all but the engines' replies and
    /// start-ups.
    referee: Duration,
}

/// A worker's finished games not yet in the books, with their record lines
/// and log lines, each kind to be written in one go.
#[derive(Default)]
struct Batch {
    games: Vec<Finished>,
    /// The games' `--games-out` lines.
    records: Vec<u8>,
    /// The record each game's line is written from (see
    /// [`Shared::finished`]).
    record: Option<GameRecord>,
    /// Their lines of `referee.log`.
    log: String,
    /// When the first of them started.
    oldest: Option<Instant>,
}

/// A worker hands its games in when it has this many…
const BATCH_GAMES: usize = 512;
/// …or when its oldest game has waited this long (so progress, a watcher
/// and a run killed with SIGKILL lose no more than this).
const BATCH_TIME: Duration = Duration::from_millis(20);

/// What the run has counted: what the report says.
struct Counts<'a> {
    engines: &'a [EngineInfo],
    /// Games in this session's schedule.
    total: usize,
    tallies: Vec<PairingTally>,
    skipped_lines: Vec<u64>,
    /// Games counted, with those resumed.
    done: u64,
    /// Moves the engines chose in this session's games, and the time the
    /// engines and the referee took for them.
    plies: u64,
    engine_time: Duration,
    referee_time: Duration,
    sprt: Option<super::stats::Sprt>,
}

impl Counts<'_> {
    fn standings(&self) -> Standings<'_> {
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
struct Books<'a> {
    counts: Counts<'a>,
    games_out: Option<File>,
    /// The run line, written before this session's first record.
    run_line: Option<String>,
    log: Option<File>,
    write_errors: Vec<String>,
    progress: Progress,
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

    /// Enters a worker's batch of finished games: records in one write,
    /// then the counts. Returns true when the SPRT has decided.
    fn enter(&mut self, batch: &Batch, watcher: Option<&dyn Watcher>) -> bool {
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
        if let Some(log) = self.log.as_mut() {
            let _ = log.write_all(batch.log.as_bytes());
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
            let a_side = if job.a_is_x { Player::X } else { Player::O };
            let pair_done = tally.add(job.pair, a_side, &f.end);
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
    fn tick(&mut self) {
        self.progress.tick(&self.counts.standings());
    }
}

/// Shared state of the workers.
struct Shared<'a> {
    config: &'a Config,
    engines: &'a [EngineInfo],
    schedule: &'a Schedule,
    openings: &'a Openings,
    /// The games resumed: not played again.
    resumed: &'a GameSet,
    /// The next game to look at, as an index into this session's schedule
    /// ([`Schedule::session_game`]).
    next: AtomicUsize,
    /// No new games (SPRT decided, or Ctrl-C).
    stop: AtomicBool,
    /// Ctrl-C: abandon games in progress too.
    cancel: Arc<AtomicBool>,
    /// Numbers engine processes for their stderr log names.
    spawned: AtomicUsize,
    /// The run's fingerprint, in every record.
    run_id: &'a str,
    books: Mutex<Books<'a>>,
    watcher: Option<&'a dyn Watcher>,
}

impl<'a> Shared<'a> {
    fn books(&self) -> MutexGuard<'_, Books<'a>> {
        // A worker that panicked holding the lock left the books whole
        // (every step in them is one counter or one write).
        self.books.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the next game to play off the schedule.
    fn next_game(&self) -> Option<usize> {
        loop {
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            let game = self.schedule.session_game(k)?;
            if !self.resumed.contains(game) {
                return Some(game);
            }
        }
    }

    fn spawn(&self, engine: usize) -> Result<EngineLink, ClientError> {
        let info = &self.engines[engine];
        let stderr = match &self.config.log_dir {
            Some(dir) => {
                let n = self.spawned.fetch_add(1, Ordering::Relaxed);
                let path = dir.join(format!("{}.{n}.stderr.log", info.name));
                match File::create(&path) {
                    Ok(f) => StderrTo::File(f),
                    Err(_) => StderrTo::Discard,
                }
            }
            None => StderrTo::Discard,
        };
        let command = EngineCommand {
            argv: info.command.clone(),
            dialect: self.config.engines[engine].dialect,
        };
        let mut p = EngineLink::spawn(&command, stderr, gomocup_options(self.config))?;
        p.set_cancel(Arc::clone(&self.cancel));
        Ok(p)
    }

    /// A game's bookkeeping, done by the worker that played it: its record
    /// line and log lines into `batch`, its SGF file, and the game. `started`:
    /// when the worker took the game; returns the time now.
    fn finished(
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
        let (xn, on) = (
            self.engines[job.x].name.as_str(),
            self.engines[job.o].name.as_str(),
        );
        let fault_by = end.fault_by.map(|p| if p == Player::X { xn } else { on });
        if config.games_out.is_some() {
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
                skipped: SkippedLines::default(),
                seed: Some(config.seed),
                board: Some(config.geometry.into()),
                run: Some(self.run_id.to_string()),
                shard: config.shard,
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
            line.fault_by = fault_by.map(str::to_string);
            line.detail.clone_from(&end.detail);
            line.time_ms = TimeUsed {
                x: ms(end.time[0]),
                o: ms(end.time[1]),
            };
            line.skipped = SkippedLines {
                x: skipped[0].1,
                o: skipped[1].1,
            };
            push_record(&mut batch.records, line);
        }
        let log = &mut batch.log;
        if config.log_dir.is_some() {
            if let (Some(who), Some(detail)) = (fault_by, end.detail.as_deref()) {
                let _ = writeln!(
                    log,
                    "game {}: {who} {}: {detail}",
                    job.game,
                    end.reason.name()
                );
            }
            for (who, (lines, count)) in [xn, on].iter().zip(&messages) {
                for line in lines {
                    let _ = writeln!(log, "game {}: {who} says: {line}", job.game);
                }
                if *count > lines.len() as u64 {
                    let more = *count - lines.len() as u64;
                    let _ = writeln!(
                        log,
                        "game {}: {who}: {more} more MESSAGE/DEBUG lines",
                        job.game
                    );
                }
            }
            for (who, (lines, count)) in [xn, on].iter().zip(&skipped) {
                if *count > 0 {
                    let _ = writeln!(
                        log,
                        "game {}: {who} wrote {count} stdout lines outside responses (skipped), first: {:?}",
                        job.game,
                        lines.first().map(|l| super::detail_text(l))
                    );
                }
            }
        }
        let sgf_error = config.sgf_dir.as_deref().and_then(|dir| {
            write_sgf(dir, &job, &end, [xn, on], opening, config)
                .err()
                .map(|e| format!("{e:#}"))
        });
        let waited = end.time[0] + end.time[1] + start_up;
        let now = Instant::now();
        batch.games.push(Finished {
            job,
            skipped: [skipped[0].1, skipped[1].1],
            sgf_error,
            referee: (now - started).saturating_sub(waited),
            end,
        });
        batch.oldest.get_or_insert(started);
        now
    }

    /// Enters a worker's finished games into the books (its time counts
    /// with the worker's next game).
    fn hand_in(&self, batch: &mut Batch) {
        if batch.games.is_empty() {
            return;
        }
        let mut books = self.books();
        if books.enter(batch, self.watcher) {
            self.stop.store(true, Ordering::Relaxed);
        }
        drop(books);
        batch.games.clear();
        batch.records.clear();
        batch.log.clear();
        batch.oldest = None;
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
    };
    let path = dir.join(format!("{}.sgf", RecordedGame::file_stem(job.game, x, o)));
    std::fs::write(&path, crate::records::sgf::write(&game))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// How Gomocup brains are driven in this run.
fn gomocup_options(config: &Config) -> GomocupOptions {
    GomocupOptions {
        board: config.geometry,
        write_gap: config.write_gap,
        timeout_turn: config
            .movetime_ms
            .map_or(crate::bots::DEFAULT_MOVETIME, Duration::from_millis),
        match_time: config.match_time_ms.map(Duration::from_millis),
    }
}

/// Two distinct mutable slots of a vector.
fn two_mut<T>(v: &mut [T], i: usize, j: usize) -> Option<(&mut T, &mut T)> {
    if i == j || i >= v.len() || j >= v.len() {
        return None;
    }
    if i < j {
        let (lo, hi) = v.split_at_mut(j);
        Some((&mut lo[i], &mut hi[0]))
    } else {
        let (lo, hi) = v.split_at_mut(i);
        Some((&mut hi[0], &mut lo[j]))
    }
}

/// What a worker plays its games with.
trait Players {
    /// Plays `job`; `None` when Ctrl-C abandoned it.
    fn play(
        &mut self,
        job: &Job,
        setup: &GameSetup<'_>,
        on_move: &mut dyn FnMut(Player, Cell),
    ) -> Option<Played>;
    /// The end of the worker: every engine let go.
    fn close(self);
}

/// A worker's engine processes, one per engine at most, each started by
/// the worker's own thread (see `src/client/reaper.rs`) and replaced when it
/// faulted.
struct Processes<'s, 'a> {
    shared: &'s Shared<'a>,
    procs: Vec<Option<EngineLink>>,
}

impl Players for Processes<'_, '_> {
    fn play(
        &mut self,
        job: &Job,
        setup: &GameSetup<'_>,
        on_move: &mut dyn FnMut(Player, Cell),
    ) -> Option<Played> {
        let config = self.shared.config;
        let procs = &mut self.procs;
        let started = Instant::now();
        let mut end = None;
        for (side, idx) in [(Player::X, job.x), (Player::O, job.o)] {
            if procs[idx].is_none() {
                match self
                    .shared
                    .spawn(idx)
                    .and_then(|p| ready(p, config.startup_timeout))
                {
                    Ok(p) => procs[idx] = Some(p),
                    Err(ClientError::Cancelled) => return None,
                    Err(e) => {
                        let (reason, what) = match e {
                            ClientError::Timeout => (
                                Reason::Timeout,
                                format!(
                                    "did not answer protocol_version within {} ms, the start-up \
                                     deadline (--startup-timeout)",
                                    config.startup_timeout.as_millis()
                                ),
                            ),
                            e => (Reason::Crash, e.to_string()),
                        };
                        end = Some(GameEnd::forfeit(
                            side,
                            reason,
                            format!("a fresh process, before its first game: {what}"),
                        ));
                        break;
                    }
                }
            }
        }
        let start_up = started.elapsed();
        if self.shared.cancel.load(Ordering::Relaxed) {
            return None;
        }
        let (x_slot, o_slot) = two_mut(procs, job.x, job.o)?;
        let end = match (end, x_slot.as_mut(), o_slot.as_mut()) {
            (Some(end), _, _) => end,
            (None, Some(x), Some(o)) => play_game([x, o], setup, on_move).ok()?,
            _ => return None,
        };
        let skipped = [&mut *x_slot, &mut *o_slot]
            .map(|slot| slot.as_mut().map(|p| p.take_skipped()).unwrap_or_default());
        let messages = [x_slot, o_slot]
            .map(|slot| slot.as_mut().map(|p| p.take_messages()).unwrap_or_default());
        for (replace, idx) in end.replace.into_iter().zip([job.x, job.o]) {
            // Killed with its group and reaped; a fresh one plays next time.
            if replace {
                if let Some(mut p) = procs[idx].take() {
                    p.kill();
                }
            }
        }
        Some(Played {
            end,
            skipped,
            messages,
            start_up,
        })
    }

    fn close(self) {
        shutdown_all(
            self.procs.into_iter().flatten().collect(),
            self.shared.config.grace,
        );
    }
}

/// A worker's built-in bots, played in process: one engine per engine of
/// the run, kept from game to game as a process is, and made afresh after
/// a fault as a process is restarted.
struct Bots<'s> {
    kinds: Vec<BotKind>,
    engines: Vec<Option<Engine>>,
    /// The referee's board, kept from game to game.
    board: crate::rules::Board,
    cancel: &'s AtomicBool,
}

impl Players for Bots<'_> {
    fn play(
        &mut self,
        job: &Job,
        setup: &GameSetup<'_>,
        on_move: &mut dyn FnMut(Player, Cell),
    ) -> Option<Played> {
        for idx in [job.x, job.o] {
            if self.engines[idx].is_none() {
                self.engines[idx] = Some(in_process::engine(self.kinds[idx]));
            }
        }
        let (x, o) = two_mut(&mut self.engines, job.x, job.o)?;
        let end = match (x.as_mut(), o.as_mut()) {
            (Some(x), Some(o)) => {
                match play_in_process([x, o], &mut self.board, setup, self.cancel, on_move) {
                    Ok(end) => end,
                    Err(Cancelled) => return None,
                }
            }
            _ => return None,
        };
        for (replace, idx) in end.replace.into_iter().zip([job.x, job.o]) {
            if replace {
                self.engines[idx] = None;
            }
        }
        Some(Played {
            end,
            skipped: Default::default(),
            messages: Default::default(),
            start_up: Duration::ZERO,
        })
    }

    fn close(self) {}
}

/// A worker: takes games off the schedule, plays them with its players,
/// does their bookkeeping and hands them in to the books in batches.
fn worker(shared: &Shared<'_>, mut players: impl Players) {
    let config = shared.config;
    let watcher = shared.watcher;
    let mut batch = Batch::default();
    // Each game starts when the last one's bookkeeping ended: one clock
    // read a game.
    let mut started = Instant::now();
    // Both games of a pair (and every pairing of a round) have one opening.
    let mut opening_of: (usize, Cow<'_, [Cell]>) = (usize::MAX, Cow::Borrowed(&[]));
    loop {
        if shared.stop.load(Ordering::Relaxed) || shared.cancel.load(Ordering::Relaxed) {
            break;
        }
        let Some(game) = shared.next_game() else {
            break;
        };
        let job = shared.schedule.job(game);
        if opening_of.0 != job.round {
            opening_of = (job.round, shared.openings.round(job.round));
        }
        let opening = &*opening_of.1;
        let setup = GameSetup {
            geometry: config.geometry,
            opening,
            seeds: [
                derive_seed(config.seed, Stream::Engine, &[game as u64, 0]),
                derive_seed(config.seed, Stream::Engine, &[game as u64, 1]),
            ],
            movetime_ms: config.movetime_ms,
            timeout: config.timeout,
            match_time: config.match_time_ms.map(Duration::from_millis),
        };
        let played = match watcher {
            Some(w) => {
                w.game_started(&GameStart {
                    game,
                    pair: job.pair,
                    x: &shared.engines[job.x].name,
                    o: &shared.engines[job.o].name,
                    opening,
                });
                let mut ply = 0;
                players.play(&job, &setup, &mut |side, cell| {
                    ply += 1;
                    w.move_played(&MovePlayed {
                        game,
                        ply,
                        side,
                        cell,
                    });
                })
            }
            None => players.play(&job, &setup, &mut |_, _| {}),
        };
        let Some(played) = played else {
            break;
        };
        let now = shared.finished(&mut batch, job, played, opening, started);
        let since = batch.oldest.unwrap_or(started);
        started = now;
        // With an SPRT every game goes in at once: the test stops the run
        // as soon as it decides.
        if config.sprt.is_some() || batch.games.len() >= BATCH_GAMES || now - since >= BATCH_TIME {
            shared.hand_in(&mut batch);
        }
    }
    shared.hand_in(&mut batch);
    players.close();
}

/// Waits for a fresh process to answer `protocol_version` within the
/// start-up deadline (as at the start-up check), so that starting the
/// program — an interpreter loading, a brain reading its files — is not
/// counted against its first move.
fn ready(mut p: EngineLink, timeout: Duration) -> Result<EngineLink, ClientError> {
    p.request("protocol_version", timeout)?;
    Ok(p)
}

/// `quit` to every engine, one shared grace period, then SIGKILL; all reaped.
fn shutdown_all(mut procs: Vec<EngineLink>, grace: Duration) {
    for p in &mut procs {
        p.request_quit();
    }
    let deadline = Instant::now() + grace;
    for mut p in procs {
        p.wait_until(deadline);
        p.kill();
    }
}

/// Starts every engine once, checks `protocol_version`, `name` and
/// `newgame` for the board within the timeout, and settles the names.
fn check_engines(config: &Config, cancel: &Arc<AtomicBool>) -> anyhow::Result<Vec<EngineInfo>> {
    let g = config.geometry;
    let probe = |spec: &super::EngineSpec| -> Result<Option<String>, String> {
        let command = EngineCommand {
            argv: spec.argv.clone(),
            dialect: spec.dialect,
        };
        let mut p = EngineLink::spawn(&command, StderrTo::Discard, gomocup_options(config))
            .map_err(|e| e.to_string())?;
        p.set_cancel(Arc::clone(cancel));
        // Starting is not moving: its own, more generous deadline (for a
        // Gomocup brain too, whose first request is `START`).
        let deadline = Instant::now() + config.startup_timeout;
        let ms = config.startup_timeout.as_millis();
        let result = (|| {
            p.send(&format!(
                "protocol_version\nname\nnewgame {} {} {} {}\n",
                g.rows(),
                g.cols(),
                g.k(),
                g.rule()
            ))
            .map_err(|e| e.to_string())?;
            let mut name = None;
            for what in ["protocol_version", "name", "newgame"] {
                let r = p.read_response(deadline).map_err(|e| match e {
                    ClientError::Timeout => format!(
                        "did not answer {what} within {ms} ms, the start-up deadline \
                         (--startup-timeout)"
                    ),
                    ClientError::Closed => format!("exited before answering {what}"),
                    e => format!("{e} (waiting for {what})"),
                })?;
                match what {
                    "protocol_version" if !r.success => {
                        return Err(format!(
                            "refused protocol_version: {}",
                            super::detail_text(&r.text)
                        ))
                    }
                    "name" if r.success => name = Some(r.text.clone()),
                    "newgame" if !r.success => {
                        return Err(format!(
                            "refused the board ({}x{} k{} {}): {}",
                            g.rows(),
                            g.cols(),
                            g.k(),
                            g.rule(),
                            super::detail_text(&r.text)
                        ))
                    }
                    _ => {}
                }
            }
            Ok(name)
        })();
        let result = result.map_err(|e| {
            let tail = p.stderr_tail();
            let tail = tail.trim();
            if tail.is_empty() {
                e
            } else {
                format!(
                    "{e}; its stderr ends: {}",
                    super::detail_text(tail.lines().last().unwrap_or(""))
                )
            }
        });
        p.shutdown(config.grace);
        result
    };
    let answers: Vec<Result<Option<String>, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = config
            .engines
            .iter()
            .map(|spec| s.spawn(|| probe(spec)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("start-up check failed".into()))
            })
            .collect()
    });
    let mut errors = Vec::new();
    let mut engines: Vec<EngineInfo> = Vec::new();
    for (spec, answer) in config.engines.iter().zip(answers) {
        let fallback = || {
            Path::new(spec.argv.first().map_or("engine", |s| s.as_str()))
                .file_name()
                .map_or("engine".into(), |f| f.to_string_lossy().into_owned())
        };
        let base = match (&spec.name, &answer) {
            (Some(n), _) => n.clone(),
            (None, Ok(Some(reply))) => {
                let cleaned: String = reply
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join("-")
                    .chars()
                    .filter(|c| super::is_valid_name(&c.to_string()))
                    .take(40)
                    .collect();
                if cleaned.is_empty() {
                    fallback()
                } else {
                    cleaned
                }
            }
            _ => fallback(),
        };
        let mut name = base.clone();
        let mut n = 2;
        while engines.iter().any(|e| e.name == name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        if let Err(e) = answer {
            errors.push(format!(
                "engine '{name}' ({}): {e}",
                EngineCommand {
                    argv: spec.argv.clone(),
                    dialect: spec.dialect
                }
                .shown()
            ));
        }
        engines.push(EngineInfo {
            name,
            command: spec.argv.clone(),
            protocol: spec.dialect.name().to_string(),
        });
    }
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    Ok(engines)
}

/// The SPRT's state over a pairing's pairs.
pub(super) fn sprt_status(test: super::stats::Sprt, tally: &PairingTally) -> SprtStatus {
    let llr = test.llr(&tally.penta);
    SprtStatus {
        test,
        llr,
        lower_bound: test.lower_bound(),
        upper_bound: test.upper_bound(),
        decision: test.decide(llr),
    }
}

/// The engines of an `--in-process` run: the built-in bots by name, with
/// the command a process of each would run. Nothing to start, so nothing
/// to check.
fn bot_engines(config: &Config) -> anyhow::Result<(Vec<EngineInfo>, Vec<BotKind>)> {
    if let Some(e) = config.engines.iter().find(|e| e.bot.is_none()) {
        bail!(
            "--in-process plays built-in bots only, and '{}' is a program",
            crate::client::join_words(&e.argv)
        );
    }
    let mut engines: Vec<EngineInfo> = Vec::new();
    let mut kinds = Vec::new();
    for spec in &config.engines {
        let base = spec.name.clone().unwrap_or_default();
        let mut name = base.clone();
        let mut n = 2;
        while engines.iter().any(|e| e.name == name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        engines.push(EngineInfo {
            name,
            command: spec.argv.clone(),
            protocol: spec.dialect.name().to_string(),
        });
        kinds.extend(spec.bot);
    }
    Ok((engines, kinds))
}

/// Runs the tournament of `config`, telling `watcher` (if any) every game's
/// start, moves and end; `cancel` is raised by Ctrl-C. Start-up failures
/// (and records that don't belong to this run, for `--resume`) are errors
/// before any game; faults during games are results.
pub fn run(
    config: &Config,
    cancel: Arc<AtomicBool>,
    watcher: Option<&dyn Watcher>,
) -> anyhow::Result<RunOutcome> {
    if config.engines.len() < 2 {
        bail!("a tournament needs at least two engines");
    }
    if config.sprt.is_some() && config.engines.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    if config.sprt.is_some() && config.shard.is_some() {
        bail!("--sprt and --shard: an SPRT match is played as one run");
    }
    if config.resume.is_some() && config.games_out.is_none() {
        bail!("--resume needs --games-out: the records to resume from");
    }
    let bots = if config.in_process {
        Some(bot_engines(config)?)
    } else {
        None
    };
    // No file of the run may be another, nor a directory where a file is
    // due (or the other way round): checked before anything is written.
    config.files().check()?;
    for dir in [&config.log_dir, &config.sgf_dir].into_iter().flatten() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let openings = Openings::new(&config.openings, config.geometry, config.seed)?;
    if let Some(path) = &config.json {
        check_writable(path)?;
    }
    let open_append = |p: &Path| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .with_context(|| format!("cannot open {}", p.display()))
    };
    if let (Some(path), None) = (&config.games_out, &config.resume) {
        if std::fs::metadata(path).is_ok_and(|m| m.len() > 0) {
            say(&format!(
                "referee: {} already holds records; appending (to continue that run instead, use --resume)",
                path.display()
            ));
        }
    }
    // Opened for appending: after `tidy` cuts an unfinished line off, the
    // next record still lands at the new end.
    let games_out = config.games_out.as_deref().map(open_append).transpose()?;
    let log = match &config.log_dir {
        Some(dir) => Some(open_append(&dir.join(super::files::REFEREE_LOG))?),
        None => None,
    };

    let (engines, kinds) = match bots {
        Some((engines, kinds)) => (engines, kinds),
        None => (check_engines(config, &cancel)?, Vec::new()),
    };
    let n = engines.len();
    let schedule = Schedule::new(n, config.games, config.shard);
    let run_line = RunLine::of(config, &engines, &openings, schedule.total);
    let mut tallies: Vec<PairingTally> = schedule
        .pairings
        .iter()
        .map(|&(a, b)| PairingTally::new(a, b))
        .collect();
    let mut skipped_lines = vec![0u64; n];
    let mut done = 0u64;
    let mut played = GameSet::new(schedule.total);
    if let Some(past) = &config.resume {
        let context = resume::RunContext {
            geometry: config.geometry,
            schedule: &schedule,
            openings: Some(&openings),
            engines: &engines,
            run: &run_line,
        };
        let past_games = resume::check(past, &context)?;
        past.tidy()?;
        if let Some((line, bytes)) = past.unfinished {
            say(&format!(
                "referee: {}: ignored the unfinished last line {line} ({bytes} bytes, cut off when the run stopped) and removed it",
                past.path.display()
            ));
        }
        for g in &past_games {
            let a_side = if g.job.a_is_x { Player::X } else { Player::O };
            tallies[g.job.pairing].add(g.job.pair, a_side, &g.end);
            skipped_lines[g.job.x] += g.skipped[0];
            skipped_lines[g.job.o] += g.skipped[1];
            played.insert(g.job.game);
        }
        done = past_games.len() as u64;
    }
    let session_total = schedule.session_total();
    // Every resumed game is this session's (checked).
    let to_play = session_total.saturating_sub(done as usize);
    let resumed = done;
    // A resumed SPRT match may be decided already.
    let decided = config
        .sprt
        .is_some_and(|test| sprt_status(test, &tallies[0]).decision != SprtDecision::Continue);
    if let Some(past) = &config.resume {
        say(&format!(
            "referee: resuming from {}: {resumed} of {session_total} games already played, {}",
            past.path.display(),
            if decided {
                "and the SPRT is decided: nothing to play".to_string()
            } else {
                format!("{to_play} to play")
            }
        ));
    }
    let counts = Counts {
        engines: &engines,
        total: session_total,
        tallies,
        skipped_lines,
        done,
        plies: 0,
        engine_time: Duration::ZERO,
        referee_time: Duration::ZERO,
        sprt: config.sprt,
    };
    // The report's head; its counts are filled in as they stand.
    let info_now = |counts: &Counts<'_>, seconds: f64, interrupted: bool| RunInfo {
        seed: config.seed,
        geometry: config.geometry,
        games_per_pairing: config.games,
        openings: openings.description().to_string(),
        session: report::Session::Played {
            concurrency: config.concurrency,
            in_process: config.in_process,
            resumed,
            seconds,
            per_ply: PlyTimes::of(counts.plies, counts.referee_time, counts.engine_time),
        },
        shard: config.shard,
        run_games: schedule.total,
        total_games: session_total,
        interrupted,
        skipped_lines: counts.skipped_lines.clone(),
    };
    if let Some(w) = watcher {
        w.run_started(&info_now(&counts, 0.0, false), &counts.standings());
    }
    let books = Books {
        counts,
        games_out,
        run_line: Some(run_line.line()),
        log,
        write_errors: Vec::new(),
        progress: Progress::new(
            config.progress,
            std::io::stderr().is_terminal(),
            config.progress_every,
            resumed,
        ),
    };
    let shared = Shared {
        config,
        engines: &engines,
        schedule: &schedule,
        openings: &openings,
        resumed: &played,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(decided),
        cancel: Arc::clone(&cancel),
        spawned: AtomicUsize::new(0),
        run_id: &run_line.run,
        books: Mutex::new(books),
        watcher,
    };
    let start = Instant::now();

    std::thread::scope(|s| {
        // Each worker holds a sender: when the last is gone, all are done.
        let (done_tx, done_rx) = channel::<()>();
        let workers = config.concurrency.clamp(1, to_play.max(1));
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let shared = &shared;
            let kinds = &kinds;
            let cancel = &*cancel;
            std::thread::Builder::new()
                .name("referee-worker".into())
                .spawn_scoped(s, move || {
                    let _done = done_tx;
                    if config.in_process {
                        let bots = Bots {
                            kinds: kinds.clone(),
                            engines: (0..kinds.len()).map(|_| None).collect(),
                            board: crate::rules::Board::new(config.geometry),
                            cancel,
                        };
                        worker(shared, bots);
                    } else {
                        let procs = Processes {
                            shared,
                            procs: (0..shared.engines.len()).map(|_| None).collect(),
                        };
                        worker(shared, procs);
                    }
                })
                .ok();
        }
        drop(done_tx);
        loop {
            match done_rx.recv_timeout(Duration::from_millis(100)) {
                Err(RecvTimeoutError::Disconnected) => break,
                Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            }
            if cancel.load(Ordering::Relaxed) {
                shared.stop.store(true, Ordering::Relaxed);
            }
            shared.books().tick();
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    let Books {
        counts,
        mut write_errors,
        mut progress,
        ..
    } = shared.books.into_inner().unwrap_or_else(|e| e.into_inner());
    let done = counts.done;
    progress.clear();
    if let (Some(first), Some(path)) = (write_errors.first(), &config.games_out) {
        let lost = write_errors.len();
        write_errors = vec![format!(
            "cannot write {}: {lost} game record{} missing ({first})",
            path.display(),
            if lost == 1 { " is" } else { "s are" }
        )];
    }
    let interrupted = cancel.load(Ordering::Relaxed) && (done as usize) < session_total;
    let info = info_now(&counts, seconds, interrupted);
    let standings = counts.standings();
    // Over complete pairs only, so the same as when the last pair finished.
    let sprt = standings.sprt;
    let tallies = standings.tallies;
    if let Some(w) = watcher {
        w.run_ended(&info, &standings);
    }
    if let Some(path) = &config.json {
        let summary = report::summary(&info, &engines, tallies, sprt);
        let text = serde_json::to_string_pretty(&summary)?;
        if let Err(e) = std::fs::write(path, text + "\n") {
            write_errors.push(format!("cannot write {}: {e}", path.display()));
        }
    }
    Ok(RunOutcome {
        report: report::text(&info, &engines, tallies, sprt.as_ref()),
        interrupted,
        games: done,
        total: session_total,
        write_errors,
    })
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
