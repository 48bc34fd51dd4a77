//! Running a tournament: start-up checks, the schedule, worker threads that
//! each own their engine processes, and the collector that records every
//! finished game, keeps the tallies, shows progress and stops on SPRT or
//! Ctrl-C.

use super::game::{play_game, GameEnd, GameSetup, Reason};
use super::live::{Counts, Live, LiveGame, RunHead};
use super::openings::Openings;
use super::records::{
    one_based, write_record, GameRecord, GameResult, SkippedLines, TimeUsed, RECORD_SCHEMA,
};
use super::report::{self, EngineInfo, PairingTally, RunInfo, SprtStatus};
use super::seeds::{derive_seed, Stream};
use super::stats::SprtDecision;
use super::{resume, Config};
use crate::client::{ClientError, EngineCommand, EngineLink, GomocupOptions, StderrTo};
use crate::rules::Player;
use anyhow::{bail, Context};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
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
    /// Games in the schedule.
    pub total: usize,
    /// Records or the summary that could not be written (a full disk, a
    /// removed directory). The games were still played and the report is
    /// complete, but what is named here is missing or incomplete.
    pub write_errors: Vec<String>,
}

/// Fails unless `path` can be opened for writing, without changing it: a
/// file that didn't exist is removed again. So an unwritable `--json` stops
/// the run before any game rather than after the last one.
fn check_writable(path: &Path) -> anyhow::Result<()> {
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
fn say(text: &str) {
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
/// games per pairing.
pub(super) struct Schedule {
    pub pairings: Vec<(usize, usize)>,
    pub total: usize,
}

impl Schedule {
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
}

/// A finished game on its way from a worker to the collector.
struct Finished {
    job: Job,
    end: GameEnd,
    /// Skipped stdout lines of X and O during this game: examples, count.
    skipped: [(Vec<String>, u64); 2],
    /// `MESSAGE`/`DEBUG` lines of Gomocup brains (X, O): examples, count.
    messages: [(Vec<String>, u64); 2],
}

/// Shared state of the workers.
struct Shared<'a> {
    config: &'a Config,
    engines: &'a [EngineInfo],
    schedule: &'a Schedule,
    openings: &'a Openings,
    /// The games to play (the schedule less the games resumed), in order.
    todo: &'a [usize],
    /// The next index into `todo`.
    next: AtomicUsize,
    /// No new games (SPRT decided, or Ctrl-C).
    stop: AtomicBool,
    /// Ctrl-C: abandon games in progress too.
    cancel: Arc<AtomicBool>,
    /// Numbers engine processes for their stderr log names.
    spawned: AtomicUsize,
    /// The page of `--serve`.
    live: Option<&'a Live>,
}

impl Shared<'_> {
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
}

/// Writes a finished game into `--sgf-dir`.
fn write_sgf(
    dir: &Path,
    f: &Finished,
    x: &str,
    o: &str,
    openings: &Openings,
    config: &Config,
) -> anyhow::Result<()> {
    use crate::records::{Ending, RecordedGame};
    let opening = openings.round(f.job.round);
    let mut moves = opening.to_vec();
    moves.extend(&f.end.moves);
    let ending = match (f.end.reason, f.end.winner) {
        (Reason::Win, Some(w)) => Ending::Win(w),
        (Reason::Draw, _) => Ending::Draw,
        (reason, Some(w)) => Ending::Forfeit {
            winner: w,
            reason: reason.name().to_string(),
            detail: f.end.detail.clone(),
        },
        _ => Ending::Unfinished,
    };
    let game = RecordedGame {
        geometry: config.geometry,
        x: x.to_string(),
        o: o.to_string(),
        moves,
        opening: opening.len(),
        ending,
        title: Some(format!("game {} (seed {})", f.job.game, config.seed)),
    };
    let path = dir.join(format!("{}.sgf", RecordedGame::file_stem(f.job.game, x, o)));
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

/// A worker: takes games off the schedule and plays them with its own
/// engine processes, replacing any process that faulted.
fn worker(shared: &Shared<'_>, results: Sender<Finished>) {
    let config = shared.config;
    let mut procs: Vec<Option<EngineLink>> = (0..shared.engines.len()).map(|_| None).collect();
    loop {
        if shared.stop.load(Ordering::Relaxed) || shared.cancel.load(Ordering::Relaxed) {
            break;
        }
        let next = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(&game) = shared.todo.get(next) else {
            break;
        };
        let job = shared.schedule.job(game);
        let opening = shared.openings.round(job.round);
        if let Some(live) = shared.live {
            live.begin(game, job.x, job.o, &opening);
        }
        let mut end = None;
        for (side, idx) in [(Player::X, job.x), (Player::O, job.o)] {
            if procs[idx].is_none() {
                match shared
                    .spawn(idx)
                    .and_then(|p| ready(p, config.startup_timeout))
                {
                    Ok(p) => procs[idx] = Some(p),
                    Err(ClientError::Cancelled) => break,
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
        if shared.cancel.load(Ordering::Relaxed) {
            break;
        }
        let Some((x_slot, o_slot)) = two_mut(&mut procs, job.x, job.o) else {
            break;
        };
        let end = match (end, x_slot.as_mut(), o_slot.as_mut()) {
            (Some(end), _, _) => end,
            (None, Some(x), Some(o)) => {
                let setup = GameSetup {
                    geometry: config.geometry,
                    opening: &opening,
                    seeds: [
                        derive_seed(config.seed, Stream::Engine, &[game as u64, 0]),
                        derive_seed(config.seed, Stream::Engine, &[game as u64, 1]),
                    ],
                    movetime_ms: config.movetime_ms,
                    timeout: config.timeout,
                    match_time: config.match_time_ms.map(Duration::from_millis),
                    live: shared.live.map(|live| LiveGame { live, game }),
                };
                match play_game([x, o], &setup) {
                    Ok(end) => end,
                    Err(_cancelled) => break,
                }
            }
            _ => break,
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
        if results
            .send(Finished {
                job,
                end,
                skipped,
                messages,
            })
            .is_err()
        {
            break;
        }
    }
    shutdown_all(procs.into_iter().flatten().collect(), config.grace);
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
            protocol: spec.dialect.name(),
        });
    }
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    Ok(engines)
}

/// The live progress line.
struct Progress {
    enabled: bool,
    start: Instant,
    last: Instant,
    /// Games resumed from records (not played in this session's time).
    resumed: u64,
}

impl Progress {
    fn show(&mut self, done: u64, total: usize, tallies: &[PairingTally], force: bool) {
        if !self.enabled || (!force && self.last.elapsed() < Duration::from_millis(200)) {
            return;
        }
        self.last = Instant::now();
        let secs = self.start.elapsed().as_secs_f64();
        let played = done.saturating_sub(self.resumed);
        let rate = if secs > 0.0 {
            played as f64 / secs
        } else {
            0.0
        };
        let rate_text = report::rate_text(played, secs);
        let left = total.saturating_sub(done as usize) as f64;
        let eta = if rate > 0.0 { left / rate } else { 0.0 };
        let wdl = if let [t] = tallies {
            format!("W {} D {} L {}", t.wdl.wins, t.wdl.draws, t.wdl.losses)
        } else {
            let draws: u64 = tallies.iter().map(|t| t.wdl.draws).sum();
            format!("decisive {} drawn {draws}", done - draws)
        };
        eprint!(
            "\r\x1b[K{done}/{total} games  {wdl}  {rate_text}  ETA {}:{:02}",
            (eta as u64) / 60,
            (eta as u64) % 60
        );
    }

    fn clear(&self) {
        if self.enabled {
            eprint!("\r\x1b[K");
        }
    }
}

/// The SPRT's state over a pairing's pairs.
fn sprt_status(test: super::stats::Sprt, tally: &PairingTally) -> SprtStatus {
    let llr = test.llr(&tally.penta);
    SprtStatus {
        test,
        llr,
        lower_bound: test.lower_bound(),
        upper_bound: test.upper_bound(),
        decision: test.decide(llr),
    }
}

/// Runs the tournament of `config`; `cancel` is raised by Ctrl-C. Start-up
/// failures (and records that don't belong to this run, for `--resume`) are
/// errors before any game; faults during games are results.
pub fn run(config: &Config, cancel: Arc<AtomicBool>) -> anyhow::Result<RunOutcome> {
    if config.engines.len() < 2 {
        bail!("a tournament needs at least two engines");
    }
    if config.sprt.is_some() && config.engines.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    if config.resume.is_some() && config.games_out.is_none() {
        bail!("--resume needs --games-out: the records to resume from");
    }
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
    let mut games_out = config.games_out.as_deref().map(open_append).transpose()?;
    let mut log = match &config.log_dir {
        Some(dir) => Some(open_append(&dir.join(super::files::REFEREE_LOG))?),
        None => None,
    };

    // The watch page is up before the engines start, so a port in use
    // stops the run before anything is played.
    let live = match config.serve {
        Some(addr) => {
            let live = Arc::new(Live::new());
            let url = crate::serve::watch::start(addr.ip(), addr.port(), Arc::clone(&live))?;
            say(&format!("referee: watch the run at {url}"));
            Some(live)
        }
        None => None,
    };
    let engines = check_engines(config, &cancel)?;
    let n = engines.len();
    let pairings: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect();
    let schedule = Schedule {
        total: pairings.len() * config.games as usize,
        pairings,
    };
    let mut tallies: Vec<PairingTally> = schedule
        .pairings
        .iter()
        .map(|&(a, b)| PairingTally::new(a, b))
        .collect();
    let mut skipped_lines = vec![0u64; n];
    let mut done = 0u64;
    let mut played = vec![false; schedule.total];
    if let Some(past) = &config.resume {
        let past_games = resume::check(past, config, &schedule, &openings, &engines)?;
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
            played[g.job.game] = true;
        }
        done = past_games.len() as u64;
    }
    let todo: Vec<usize> = (0..schedule.total).filter(|&g| !played[g]).collect();
    let resumed = done;
    // A resumed SPRT match may be decided already.
    let decided = config
        .sprt
        .is_some_and(|test| sprt_status(test, &tallies[0]).decision != SprtDecision::Continue);
    if let Some(past) = &config.resume {
        say(&format!(
            "referee: resuming from {}: {resumed} of {} games already played, {}",
            past.path.display(),
            schedule.total,
            if decided {
                "and the SPRT is decided: nothing to play".to_string()
            } else {
                format!("{} to play", todo.len())
            }
        ));
    }
    if let Some(live) = &live {
        live.start(
            RunHead {
                seed: config.seed,
                geometry: config.geometry,
                games_per_pairing: config.games,
                openings: openings.description().to_string(),
                concurrency: config.concurrency,
                total_games: schedule.total,
                resumed,
                engines: engines.clone(),
            },
            Counts {
                tallies: &tallies,
                sprt: config.sprt.map(|test| sprt_status(test, &tallies[0])),
                skipped_lines: &skipped_lines,
                done,
            },
        );
    }
    let shared = Shared {
        live: live.as_deref(),
        config,
        engines: &engines,
        schedule: &schedule,
        openings: &openings,
        todo: &todo,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(decided),
        cancel: Arc::clone(&cancel),
        spawned: AtomicUsize::new(0),
    };
    let start = Instant::now();
    let mut progress = Progress {
        enabled: config.progress && std::io::stderr().is_terminal(),
        start,
        last: start,
        resumed,
    };
    let mut write_errors: Vec<String> = Vec::new();

    std::thread::scope(|s| {
        let (tx, rx) = channel::<Finished>();
        let workers = config.concurrency.clamp(1, todo.len().max(1));
        for _ in 0..workers {
            let tx = tx.clone();
            let shared = &shared;
            std::thread::Builder::new()
                .name("referee-worker".into())
                .spawn_scoped(s, move || worker(shared, tx))
                .ok();
        }
        drop(tx);
        loop {
            if cancel.load(Ordering::Relaxed) {
                shared.stop.store(true, Ordering::Relaxed);
            }
            let f = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(f) => f,
                Err(RecvTimeoutError::Timeout) => {
                    progress.show(done, schedule.total, &tallies, false);
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            done += 1;
            let job = f.job;
            let (xn, on) = (engines[job.x].name.as_str(), engines[job.o].name.as_str());
            let fault_by = f.end.fault_by.map(|p| if p == Player::X { xn } else { on });
            if let Some(out) = games_out.as_mut() {
                let record = GameRecord {
                    schema: RECORD_SCHEMA,
                    game: job.game,
                    pair: job.pair,
                    x: xn.to_string(),
                    o: on.to_string(),
                    opening: one_based(&openings.round(job.round)),
                    moves: one_based(&f.end.moves),
                    result: GameResult::of(f.end.winner),
                    reason: f.end.reason,
                    fault_by: fault_by.map(str::to_string),
                    detail: f.end.detail.clone(),
                    time_ms: TimeUsed {
                        x: (f.end.time[0].as_secs_f64() * 1e6).round() / 1e3,
                        o: (f.end.time[1].as_secs_f64() * 1e6).round() / 1e3,
                    },
                    skipped: SkippedLines {
                        x: f.skipped[0].1,
                        o: f.skipped[1].1,
                    },
                    seed: Some(config.seed),
                    board: Some(config.geometry.into()),
                };
                if let Err(e) = write_record(out, &record) {
                    // Said at once (the run goes on: the report still comes)
                    // and again at the end; later failures are counted.
                    if write_errors.is_empty() {
                        progress.clear();
                        say(&format!(
                            "referee: cannot write a record to --games-out: {e:#}"
                        ));
                    }
                    write_errors.push(format!("game {}: {e:#}", job.game));
                }
            }
            if let Some(dir) = &config.sgf_dir {
                if let Err(e) = write_sgf(dir, &f, xn, on, &openings, config) {
                    if write_errors.is_empty() {
                        progress.clear();
                        say(&format!(
                            "referee: cannot write an SGF record to --sgf-dir: {e:#}"
                        ));
                    }
                    write_errors.push(format!("game {}: {e:#}", job.game));
                }
            }
            if let Some(log) = log.as_mut() {
                if let (Some(who), Some(detail)) = (fault_by, f.end.detail.as_deref()) {
                    let _ = writeln!(
                        log,
                        "game {}: {who} {}: {detail}",
                        job.game,
                        f.end.reason.name()
                    );
                }
                for (who, (lines, count)) in [xn, on].iter().zip(&f.messages) {
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
                for (who, (lines, count)) in [xn, on].iter().zip(&f.skipped) {
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
            skipped_lines[job.x] += f.skipped[0].1;
            skipped_lines[job.o] += f.skipped[1].1;
            let tally = &mut tallies[job.pairing];
            let a_side = if job.a_is_x { Player::X } else { Player::O };
            let pair_done = tally.add(job.pair, a_side, &f.end);
            if let (Some(test), true) = (config.sprt, pair_done) {
                if sprt_status(test, tally).decision != SprtDecision::Continue {
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
            if let Some(live) = shared.live {
                let counts = Counts {
                    tallies: &tallies,
                    sprt: config.sprt.map(|test| sprt_status(test, &tallies[0])),
                    skipped_lines: &skipped_lines,
                    done,
                };
                live.finish(job.game, &f.end, counts);
            }
            progress.show(done, schedule.total, &tallies, false);
        }
    });
    progress.clear();
    if let (Some(first), Some(path)) = (write_errors.first(), &config.games_out) {
        let lost = write_errors.len();
        write_errors = vec![format!(
            "cannot write {}: {lost} game record{} missing ({first})",
            path.display(),
            if lost == 1 { " is" } else { "s are" }
        )];
    }
    // Over complete pairs only, so the same as when the last pair finished.
    let sprt = config.sprt.map(|test| sprt_status(test, &tallies[0]));
    let interrupted = cancel.load(Ordering::Relaxed) && (done as usize) < schedule.total;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(live) = &live {
        // Watchers get the final tallies before the referee ends.
        live.close(interrupted, seconds, Duration::from_secs(2));
    }
    let info = RunInfo {
        seed: config.seed,
        geometry: config.geometry,
        games_per_pairing: config.games,
        openings: openings.description().to_string(),
        concurrency: config.concurrency,
        total_games: schedule.total,
        interrupted,
        resumed,
        seconds,
        skipped_lines,
    };
    if let Some(path) = &config.json {
        let summary = report::summary(&info, &engines, &tallies, sprt);
        let text = serde_json::to_string_pretty(&summary)?;
        if let Err(e) = std::fs::write(path, text + "\n") {
            write_errors.push(format!("cannot write {}: {e}", path.display()));
        }
    }
    Ok(RunOutcome {
        report: report::text(&info, &engines, &tallies, sprt.as_ref()),
        interrupted,
        games: done,
        total: schedule.total,
        write_errors,
    })
}
