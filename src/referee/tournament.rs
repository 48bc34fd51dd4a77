//! Running a tournament: the checks and files before any game, worker
//! threads that each own their players (`players`: engine
//! processes, or with `--in-process` the built-in bots themselves), and the
//! report at the end.
//!
//! Where things happen, for those who follow a run ([`Watcher`]):
//! - a game starts in `worker`, which takes it off the schedule
//!   (`schedule`);
//! - its moves are played by [`super::process::play_game`] or
//!   [`super::in_process::play_in_process`], each checked on the referee's
//!   board and then told to the watcher;
//! - a finished game's bookkeeping (its record line, log lines, SGF file)
//!   is done by the worker that played it; the worker hands its games in,
//!   in batches, to the books (`books`), which write the records
//!   in one write per batch, count the results, decide the SPRT and tell
//!   the watcher. No thread is woken per game: the main thread only looks
//!   in every 100 ms (Ctrl-C, progress).

use super::books::{Batch, Bookkeeper, Books, Counts, BATCH_GAMES, BATCH_TIME};
use super::config::Config;
use super::engines::{bot_engines, check_bot_settings, check_engines, Launcher};
use super::files::check_writable;
use super::game::{GameSetup, SideSetup};
use super::games_out::RunLine;
use super::openings::Openings;
use super::players::{Bots, Players, Processes};
use super::progress::Progress;
use super::report::{self, sprt_status, EngineInfo, PairingTally, PlyTimes, RunInfo};
use super::run_samples::{SamplesOut, SamplesSummary};
use super::samples::{SampleBoard, Sampler};
use super::schedule::{GameSet, Schedule};
use super::seeds::{derive_seed, Stream};
use super::stats::SprtDecision;
use super::watch::{GameStart, MovePlayed, Watcher};
use super::{resume, say};
use crate::bots::BotKind;
use crate::protocol::Command;
use crate::rules::Cell;
use anyhow::Context;
use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::IsTerminal;
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
    /// What went into `--samples` this session.
    pub samples: Option<SamplesSummary>,
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
    /// Starts the engine processes of the games.
    launcher: Launcher<'a>,
    /// The run's fingerprint, in every record.
    run_id: &'a str,
    /// Each engine's settings as the `set` requests of its set-up.
    requests: &'a [Vec<Command>],
    /// Whether each engine is asked `search_info` after `genmove`.
    search_info: &'a [bool],
    /// How `--samples` are drawn.
    samples: Option<(Sampler, SampleBoard)>,
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
        batch.clear();
    }

    /// What a finished game's bookkeeping needs of the run.
    fn bookkeeper(&self) -> Bookkeeper<'a> {
        Bookkeeper {
            config: self.config,
            engines: self.engines,
            run_id: self.run_id,
            samples: self.samples,
        }
    }
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
            timeout: config.timeout,
            sides: [job.x, job.o].map(|e| SideSetup {
                requests: &shared.requests[e],
                clock: config.settings_of(e).clock,
                search_info: shared.search_info[e],
                memory_limit: config.settings_of(e).memory_limit(),
            }),
            time_margin: config.time_margin,
            adjudication: &config.adjudication,
            move_data: config.move_info,
            cancel: Some(&shared.cancel),
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
        let now = shared
            .bookkeeper()
            .finished(&mut batch, job, played, opening, started);
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

/// Runs the tournament of `config`, telling `watcher` (if any) every game's
/// start, moves and end; `cancel` is raised by Ctrl-C. Start-up failures
/// (and records that don't belong to this run, for `--resume`) are errors
/// before any game; faults during games are results.
pub fn run(
    config: &Config,
    cancel: Arc<AtomicBool>,
    watcher: Option<&dyn Watcher>,
) -> anyhow::Result<RunOutcome> {
    // A configuration built otherwise than from the flags is checked too.
    config.check()?;
    let Prepared {
        plan,
        resumed,
        decided,
        files,
    } = prepare(config, &cancel)?;
    let head = Head {
        config,
        plan: &plan,
        resumed: resumed.games,
    };
    let counts = Counts {
        engines: &plan.engines,
        total: plan.schedule.session_total(),
        tallies: resumed.tallies,
        skipped_lines: resumed.skipped_lines,
        done: resumed.games,
        plies: 0,
        engine_time: Duration::ZERO,
        referee_time: Duration::ZERO,
        sprt: config.sprt,
    };
    if let Some(w) = watcher {
        w.run_started(&head.info(&counts, 0.0, false), &counts.standings());
    }
    let books = Books {
        counts,
        games_out: files.games_out,
        run_line: Some(plan.run_line.line()),
        log: files.log,
        messages: files.messages,
        samples: files.samples,
        write_errors: Vec::new(),
        progress: Progress::new(
            config.progress,
            std::io::stderr().is_terminal(),
            config.progress_every,
            resumed.games,
        ),
    };
    let start = Instant::now();
    let books = play(
        config,
        &plan,
        &resumed.played,
        books,
        decided,
        &cancel,
        watcher,
    );
    let seconds = start.elapsed().as_secs_f64();
    report(&head, books, seconds, &cancel, watcher)
}

/// A run ready to play: checked, its files open, its engines checked and
/// named, and the games of earlier sessions counted.
struct Prepared {
    plan: Plan,
    resumed: Resumed,
    /// A resumed SPRT match may be decided already: nothing to play.
    decided: bool,
    files: OpenFiles,
}

/// The run's files open for appending.
struct OpenFiles {
    games_out: Option<File>,
    log: Option<File>,
    messages: Option<File>,
    samples: Option<SamplesOut>,
}

/// What every game of the run reads.
struct Plan {
    engines: Vec<EngineInfo>,
    /// The built-in bots of an `--in-process` run (none otherwise).
    kinds: Vec<BotKind>,
    openings: Openings,
    schedule: Schedule,
    run_line: RunLine,
    /// Each engine's settings as the `set` requests of its set-up.
    requests: Vec<Vec<Command>>,
    /// Whether each engine is asked `search_info` after `genmove`.
    search_info: Vec<bool>,
}

/// The counts as the games of earlier sessions (`--resume`) leave them.
struct Resumed {
    tallies: Vec<PairingTally>,
    skipped_lines: Vec<u64>,
    /// Games resumed, all of them this session's (checked).
    games: u64,
    /// Which they are: not played again.
    played: GameSet,
}

/// Checks and opens the run's files, checks its engines (an
/// `--in-process` run's are its bots: nothing to start) and counts the
/// games of earlier sessions.
fn prepare(config: &Config, cancel: &Arc<AtomicBool>) -> anyhow::Result<Prepared> {
    let bots = config.in_process.then(|| bot_engines(config));
    let (openings, mut files) = open_files(config)?;
    let (engines, kinds, search_info) = match bots {
        // The built-in bots answer it.
        Some((engines, kinds)) => {
            let asked = vec![config.wants_search_info(); engines.len()];
            (engines, kinds, asked)
        }
        None => {
            let (engines, asked) = check_engines(config, cancel)?;
            (engines, Vec::new(), asked)
        }
    };
    if config.in_process {
        check_bot_settings(config, &kinds)?;
    }
    let schedule = Schedule::new(config.tournament, engines.len(), config.games, config.shard);
    let run_line = config.run_line(&engines, &openings, schedule.total);
    let requests = (0..engines.len())
        .map(|i| config.settings_of(i).requests(config.timeout))
        .collect();
    let plan = Plan {
        engines,
        kinds,
        openings,
        schedule,
        run_line,
        requests,
        search_info,
    };
    let resumed = resume_past(config, &plan)?;
    if let Some(out) = files.samples.as_mut() {
        out.tidy()?;
    }
    let decided = config.sprt.is_some_and(|test| {
        sprt_status(test, &resumed.tallies[0]).decision != SprtDecision::Continue
    });
    if let Some(past) = &config.resume {
        let session_total = plan.schedule.session_total();
        let to_play = session_total.saturating_sub(resumed.games as usize);
        say(&format!(
            "referee: resuming from {}: {} of {session_total} games already played, {}",
            past.path.display(),
            resumed.games,
            if decided {
                "and the SPRT is decided: nothing to play".to_string()
            } else {
                format!("{to_play} to play")
            }
        ));
    }
    Ok(Prepared {
        plan,
        resumed,
        decided,
        files,
    })
}

/// The run's files, before anything is written: none may be another, nor a
/// directory where a file is due (or the other way round); the output
/// directories made; the openings read; `--json` writable; the records,
/// the log, `--messages` and the samples opened for appending.
fn open_files(config: &Config) -> anyhow::Result<(Openings, OpenFiles)> {
    config.files().check()?;
    for dir in [&config.log_dir, &config.sgf_dir].into_iter().flatten() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let openings = Openings::new(&config.openings, config.geometry, config.seed)?;
    config.adjudication.check_openings(&openings)?;
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
    let messages = config.messages.as_deref().map(open_append).transpose()?;
    let samples = match &config.samples {
        Some(samples) => {
            let board = samples.check(config.geometry).map_err(anyhow::Error::msg)?;
            let resume = config.resume.is_some();
            Some(SamplesOut::open(samples, board, resume)?)
        }
        None => None,
    };
    let files = OpenFiles {
        games_out,
        log,
        messages,
        samples,
    };
    Ok((openings, files))
}

/// The games of `--resume`'s records, checked against this run and
/// counted; the unfinished last line they may end with cut off.
fn resume_past(config: &Config, plan: &Plan) -> anyhow::Result<Resumed> {
    let schedule = &plan.schedule;
    let mut resumed = Resumed {
        tallies: PairingTally::for_pairings(&schedule.pairings),
        skipped_lines: vec![0u64; plan.engines.len()],
        games: 0,
        played: GameSet::new(schedule.total),
    };
    let Some(past) = &config.resume else {
        return Ok(resumed);
    };
    let context = resume::RunContext {
        geometry: config.geometry,
        schedule,
        openings: Some(&plan.openings),
        engines: &plan.engines,
        run: &plan.run_line,
    };
    let past_games = resume::check(past, &context)?;
    past.tidy()?;
    if let Some((line, bytes)) = past.unfinished {
        say(&format!(
            "referee: {}: ignored the unfinished last line {line} ({bytes} bytes, cut off when the run stopped) and removed it",
            past.path.display()
        ));
    }
    resume::count(
        &past_games,
        &mut resumed.tallies,
        &mut resumed.skipped_lines,
    );
    for g in &past_games {
        resumed.played.insert(g.job.game);
    }
    resumed.games = past_games.len() as u64;
    Ok(resumed)
}

/// The report's head, its counts filled in as they stand.
struct Head<'a> {
    config: &'a Config,
    plan: &'a Plan,
    /// Games resumed from records.
    resumed: u64,
}

impl Head<'_> {
    fn info(&self, counts: &Counts<'_>, seconds: f64, interrupted: bool) -> RunInfo {
        let config = self.config;
        RunInfo {
            seed: config.seed,
            geometry: config.geometry,
            games_per_pairing: config.games,
            openings: self.plan.openings.description().to_string(),
            session: report::Session::Played {
                concurrency: config.concurrency,
                in_process: config.in_process,
                resumed: self.resumed,
                seconds,
                per_ply: PlyTimes::of(counts.plies, counts.referee_time, counts.engine_time),
            },
            shard: config.shard,
            run_games: self.plan.schedule.total,
            total_games: counts.total,
            interrupted,
            skipped_lines: counts.skipped_lines.clone(),
            tournament: config.tournament,
        }
    }
}

/// Plays the games left on worker threads (none when `decided`), the main
/// thread looking in every 100 ms for Ctrl-C and progress; returns the
/// books they were entered into.
fn play<'a>(
    config: &'a Config,
    plan: &'a Plan,
    resumed: &'a GameSet,
    books: Books<'a>,
    decided: bool,
    cancel: &Arc<AtomicBool>,
    watcher: Option<&'a dyn Watcher>,
) -> Books<'a> {
    let to_play = (books.counts.total).saturating_sub(books.counts.done as usize);
    let shared = Shared {
        config,
        engines: &plan.engines,
        schedule: &plan.schedule,
        openings: &plan.openings,
        resumed,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(decided),
        cancel: Arc::clone(cancel),
        launcher: Launcher {
            config,
            engines: &plan.engines,
            cancel: Arc::clone(cancel),
            spawned: AtomicUsize::new(0),
        },
        run_id: &plan.run_line.run,
        requests: &plan.requests,
        search_info: &plan.search_info,
        samples: books.samples.as_ref().map(SamplesOut::drawn),
        books: Mutex::new(books),
        watcher,
    };
    std::thread::scope(|s| {
        // Each worker holds a sender: when the last is gone, all are done.
        let (done_tx, done_rx) = channel::<()>();
        let workers = config.concurrency.clamp(1, to_play.max(1));
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let shared = &shared;
            let kinds = &plan.kinds;
            let cancel = &**cancel;
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
                            launcher: &shared.launcher,
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
    shared.books.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The end of the run: the watcher told, the summary written, the report.
fn report(
    head: &Head<'_>,
    books: Books<'_>,
    seconds: f64,
    cancel: &AtomicBool,
    watcher: Option<&dyn Watcher>,
) -> anyhow::Result<RunOutcome> {
    let config = head.config;
    let engines = &head.plan.engines;
    let mut books = books;
    books.close(config.resume.as_ref().is_some_and(|p| !p.runs.is_empty()));
    let Books {
        counts,
        mut write_errors,
        mut progress,
        samples,
        ..
    } = books;
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
    let samples = samples.map(|out| {
        let (summary, error) = out.finish();
        write_errors.extend(error);
        summary
    });
    let interrupted = cancel.load(Ordering::Relaxed) && (done as usize) < counts.total;
    let info = head.info(&counts, seconds, interrupted);
    let standings = counts.standings();
    // Over complete pairs only, so the same as when the last pair finished.
    let sprt = standings.sprt;
    let tallies = standings.tallies;
    if let Some(w) = watcher {
        w.run_ended(&info, &standings);
    }
    if let Some(path) = &config.json {
        let mut summary = report::summary(&info, engines, tallies, sprt);
        summary.samples = samples.clone();
        let text = serde_json::to_string_pretty(&summary)?;
        if let Err(e) = std::fs::write(path, text + "\n") {
            write_errors.push(format!("cannot write {}: {e}", path.display()));
        }
    }
    Ok(RunOutcome {
        report: report::text(&info, engines, tallies, sprt.as_ref()),
        interrupted,
        games: done,
        total: counts.total,
        write_errors,
        samples,
    })
}
