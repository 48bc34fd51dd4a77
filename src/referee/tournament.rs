//! Running a tournament: start-up checks, the schedule, worker threads that
//! each own their engine processes, and the collector that records every
//! finished game, keeps the tallies, shows progress and stops on SPRT or
//! Ctrl-C.

use super::game::{play_game, GameEnd, GameSetup, Reason};
use super::report::{self, EngineInfo, PairingTally, RunInfo, SprtStatus};
use super::{derive_seed, random_opening, Config};
use crate::client::{ClientError, EngineProcess, StderrTo};
use crate::rules::{Cell, Player};
use anyhow::{bail, Context};
use serde::Serialize;
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
    /// Games finished and counted.
    pub games: u64,
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug)]
struct Job {
    game: usize,
    /// Index into the pairings.
    pairing: usize,
    /// Pair id (both games of a pair share it and its opening).
    pair: usize,
    round: usize,
    /// Engine indices playing X and O.
    x: usize,
    o: usize,
    /// Whether the pairing's `a` plays X.
    a_is_x: bool,
}

/// The schedule: round after round, each pairing plays its pair of games
/// (same opening, colours swapped), so a partial run stays balanced.
struct Schedule {
    pairings: Vec<(usize, usize)>,
    total: usize,
}

impl Schedule {
    fn job(&self, game: usize) -> Job {
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
}

/// One line of `--games-out` (schema 1).
#[derive(Serialize)]
struct GameRecord<'a> {
    game: usize,
    pair: usize,
    x: &'a str,
    o: &'a str,
    opening: Vec<[u32; 2]>,
    moves: Vec<[u32; 2]>,
    result: &'static str,
    reason: Reason,
    fault_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    time_ms: TimeUsed,
}

#[derive(Serialize)]
struct TimeUsed {
    x: f64,
    o: f64,
}

fn one_based(cells: &[Cell]) -> Vec<[u32; 2]> {
    cells
        .iter()
        .map(|c| [u32::from(c.row) + 1, u32::from(c.col) + 1])
        .collect()
}

/// Shared state of the workers.
struct Shared<'a> {
    config: &'a Config,
    engines: &'a [EngineInfo],
    schedule: &'a Schedule,
    openings: &'a [Vec<Cell>],
    next: AtomicUsize,
    /// No new games (SPRT decided, or Ctrl-C).
    stop: AtomicBool,
    /// Ctrl-C: abandon games in progress too.
    cancel: Arc<AtomicBool>,
    /// Numbers engine processes for their stderr log names.
    spawned: AtomicUsize,
}

impl Shared<'_> {
    fn spawn(&self, engine: usize) -> Result<EngineProcess, ClientError> {
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
        let mut p = EngineProcess::spawn(&info.command, stderr)?;
        p.set_cancel(Arc::clone(&self.cancel));
        Ok(p)
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
    let mut procs: Vec<Option<EngineProcess>> = (0..shared.engines.len()).map(|_| None).collect();
    loop {
        if shared.stop.load(Ordering::Relaxed) || shared.cancel.load(Ordering::Relaxed) {
            break;
        }
        let game = shared.next.fetch_add(1, Ordering::Relaxed);
        if game >= shared.schedule.total {
            break;
        }
        let job = shared.schedule.job(game);
        let opening = shared.openings.get(job.round).map_or(&[][..], |o| &o[..]);
        let mut end = None;
        for (side, idx) in [(Player::X, job.x), (Player::O, job.o)] {
            if procs[idx].is_none() {
                match shared.spawn(idx) {
                    Ok(p) => procs[idx] = Some(p),
                    Err(e) => {
                        end = Some(GameEnd::forfeit(side, Reason::Crash, e.to_string()));
                        break;
                    }
                }
            }
        }
        let Some((x_slot, o_slot)) = two_mut(&mut procs, job.x, job.o) else {
            break;
        };
        let end = match (end, x_slot.as_mut(), o_slot.as_mut()) {
            (Some(end), _, _) => end,
            (None, Some(x), Some(o)) => {
                let setup = GameSetup {
                    geometry: config.geometry,
                    opening,
                    seeds: [
                        derive_seed(config.seed, &[game as u64, 0]),
                        derive_seed(config.seed, &[game as u64, 1]),
                    ],
                    movetime_ms: config.movetime_ms,
                    timeout: config.timeout,
                };
                match play_game([x, o], &setup) {
                    Ok(end) => end,
                    Err(_cancelled) => break,
                }
            }
            _ => break,
        };
        let skipped = [x_slot, o_slot]
            .map(|slot| slot.as_mut().map(|p| p.take_skipped()).unwrap_or_default());
        for (replace, idx) in end.replace.into_iter().zip([job.x, job.o]) {
            // Killed with its group and reaped; a fresh one plays next time.
            if replace {
                if let Some(mut p) = procs[idx].take() {
                    p.kill();
                }
            }
        }
        if results.send(Finished { job, end, skipped }).is_err() {
            break;
        }
    }
    shutdown_all(procs.into_iter().flatten().collect(), config.grace);
}

/// `quit` to every engine, one shared grace period, then SIGKILL; all reaped.
fn shutdown_all(mut procs: Vec<EngineProcess>, grace: Duration) {
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
        let mut p =
            EngineProcess::spawn(&spec.argv, StderrTo::Discard).map_err(|e| e.to_string())?;
        p.set_cancel(Arc::clone(cancel));
        let deadline = Instant::now() + config.timeout;
        let ms = config.timeout.as_millis();
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
                    ClientError::Timeout => format!("did not answer {what} within {ms} ms"),
                    ClientError::Closed => format!("exited before answering {what}"),
                    e => format!("{e} (waiting for {what})"),
                })?;
                match what {
                    "protocol_version" if !r.success => {
                        return Err(format!(
                            "refused protocol_version: {}",
                            crate::rules::clip(&r.text)
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
                            crate::rules::clip(&r.text)
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
                    crate::rules::clip(tail.lines().last().unwrap_or(""))
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
                crate::client::join_words(&spec.argv)
            ));
        }
        engines.push(EngineInfo {
            name,
            command: spec.argv.clone(),
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
}

impl Progress {
    fn show(&mut self, done: u64, total: usize, tallies: &[PairingTally], force: bool) {
        if !self.enabled || (!force && self.last.elapsed() < Duration::from_millis(200)) {
            return;
        }
        self.last = Instant::now();
        let secs = self.start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
        let left = total.saturating_sub(done as usize) as f64;
        let eta = if rate > 0.0 { left / rate } else { 0.0 };
        let wdl = if let [t] = tallies {
            format!("W {} D {} L {}", t.wdl.wins, t.wdl.draws, t.wdl.losses)
        } else {
            let draws: u64 = tallies.iter().map(|t| t.wdl.draws).sum();
            format!("decisive {} drawn {draws}", done - draws)
        };
        eprint!(
            "\r\x1b[K{done}/{total} games  {wdl}  {rate:.0} games/s  ETA {}:{:02}",
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

/// Runs the tournament of `config`; `cancel` is raised by Ctrl-C. Start-up
/// failures are errors (before any game); faults during games are results.
pub fn run(config: &Config, cancel: Arc<AtomicBool>) -> anyhow::Result<RunOutcome> {
    if config.engines.len() < 2 {
        bail!("a tournament needs at least two engines");
    }
    if config.sprt.is_some() && config.engines.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    if let Some(dir) = &config.log_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let rounds = (config.games / 2) as usize;
    let openings = (0..rounds)
        .map(|r| {
            random_opening(
                config.geometry,
                config.opening_plies,
                derive_seed(config.seed, &[u64::MAX, r as u64]),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let open_append = |p: &Path| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .with_context(|| format!("cannot open {}", p.display()))
    };
    let mut games_out = config.games_out.as_deref().map(open_append).transpose()?;
    let mut log = match &config.log_dir {
        Some(dir) => Some(open_append(&dir.join("referee.log"))?),
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
    let shared = Shared {
        config,
        engines: &engines,
        schedule: &schedule,
        openings: &openings,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        cancel: Arc::clone(&cancel),
        spawned: AtomicUsize::new(0),
    };
    let start = Instant::now();
    let mut progress = Progress {
        enabled: config.progress && std::io::stderr().is_terminal(),
        start,
        last: start,
    };
    let mut sprt_status: Option<SprtStatus> = None;
    let mut skipped_lines = vec![0u64; n];
    let mut done = 0u64;
    let mut write_error: Option<anyhow::Error> = None;

    std::thread::scope(|s| {
        let (tx, rx) = channel::<Finished>();
        let workers = config.concurrency.clamp(1, schedule.total.max(1));
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
                    game: job.game,
                    pair: job.pair,
                    x: xn,
                    o: on,
                    opening: one_based(openings.get(job.round).map_or(&[][..], |o| &o[..])),
                    moves: one_based(&f.end.moves),
                    result: match f.end.winner {
                        Some(Player::X) => "x",
                        Some(Player::O) => "o",
                        None => "draw",
                    },
                    reason: f.end.reason,
                    fault_by,
                    detail: f.end.detail.as_deref(),
                    time_ms: TimeUsed {
                        x: (f.end.time[0].as_secs_f64() * 1e6).round() / 1e3,
                        o: (f.end.time[1].as_secs_f64() * 1e6).round() / 1e3,
                    },
                };
                let written = serde_json::to_string(&record)
                    .map_err(anyhow::Error::from)
                    .and_then(|line| Ok(writeln!(out, "{line}").and_then(|()| out.flush())?));
                if let Err(e) = written {
                    write_error.get_or_insert(e.context("cannot write --games-out"));
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
                for (who, (lines, count)) in [xn, on].iter().zip(&f.skipped) {
                    if *count > 0 {
                        let _ = writeln!(
                            log,
                            "game {}: {who} wrote {count} stdout lines outside responses (skipped), first: {:?}",
                            job.game,
                            lines.first().map(|l| crate::rules::clip(l))
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
                let llr = test.llr(&tally.penta);
                let decision = test.decide(llr);
                sprt_status = Some(SprtStatus {
                    test,
                    llr,
                    lower_bound: test.lower_bound(),
                    upper_bound: test.upper_bound(),
                    decision,
                });
                if decision != super::stats::SprtDecision::Continue {
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
            progress.show(done, schedule.total, &tallies, false);
        }
    });
    progress.clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    if let (Some(test), None) = (config.sprt, sprt_status) {
        let llr = test.llr(&tallies[0].penta);
        sprt_status = Some(SprtStatus {
            test,
            llr,
            lower_bound: test.lower_bound(),
            upper_bound: test.upper_bound(),
            decision: test.decide(llr),
        });
    }
    let interrupted = cancel.load(Ordering::Relaxed) && (done as usize) < schedule.total;
    let info = RunInfo {
        seed: config.seed,
        geometry: config.geometry,
        games_per_pairing: config.games,
        opening_plies: config.opening_plies,
        concurrency: config.concurrency,
        total_games: schedule.total,
        interrupted,
        seconds: start.elapsed().as_secs_f64(),
        skipped_lines,
    };
    if let Some(path) = &config.json {
        let summary = report::summary(&info, &engines, &tallies, sprt_status);
        let text = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(RunOutcome {
        report: report::text(&info, &engines, &tallies, sprt_status.as_ref()),
        interrupted,
        games: done,
    })
}
