//! The running tournament as watchers see it (`referee --serve`): the games
//! in progress move by move, the last results, and the tallies, kept by the
//! referee's threads and read by the watch page's (see
//! [`crate::serve::watch`]).
//!
//! The referee only ever takes the lock for a few pointer moves (a cell
//! pushed, a game added or removed, the tallies copied after a game): it
//! never waits for a watcher. Watchers take a [`Snapshot`] under the lock
//! and build their JSON after releasing it, so a slow or stalled watcher
//! costs the run nothing.

use super::game::GameEnd;
use super::records::{one_based, GameResult};
use super::report::{self, EngineInfo, PairingTally, RunInfo, SprtStatus};
use crate::rules::{Cell, Geometry};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Finished games shown on the page.
pub const RECENT_GAMES: usize = 12;

/// What the referee has counted, as its report does.
#[derive(Clone, Copy, Debug)]
pub struct Counts<'a> {
    pub tallies: &'a [PairingTally],
    pub sprt: Option<SprtStatus>,
    /// Stdout lines each engine wrote outside responses.
    pub skipped_lines: &'a [u64],
    /// Games finished, with those resumed.
    pub done: u64,
}

/// The run's fixed facts, known once the engines have answered.
#[derive(Clone, Debug)]
pub struct RunHead {
    pub seed: u64,
    pub geometry: Geometry,
    pub games_per_pairing: u32,
    pub openings: String,
    pub concurrency: usize,
    pub total_games: usize,
    /// Games counted from records (`--resume`).
    pub resumed: u64,
    pub engines: Vec<EngineInfo>,
}

/// A game being played.
#[derive(Clone, Debug)]
struct Playing {
    x: usize,
    o: usize,
    opening: Vec<Cell>,
    moves: Vec<Cell>,
}

/// A game just finished.
#[derive(Clone, Debug, Serialize)]
pub struct Finished {
    pub game: usize,
    pub x: String,
    pub o: String,
    pub result: GameResult,
    pub reason: &'static str,
    /// The engine at fault, for faults.
    pub fault_by: Option<String>,
    /// Plies played after the opening.
    pub plies: usize,
}

/// How far the run has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// The engines are being started and checked.
    Starting,
    Running,
    Finished,
    /// Stopped by a signal before the schedule was done.
    Interrupted,
}

impl RunState {
    /// Whether the run has ended (nothing will change any more).
    pub fn is_over(self) -> bool {
        matches!(self, RunState::Finished | RunState::Interrupted)
    }
}

#[derive(Debug)]
struct State {
    /// Raised by every change, so watchers know whether to send.
    version: u64,
    run: RunState,
    head: Option<RunHead>,
    started: Instant,
    /// Seconds the games took, fixed when the run ends.
    seconds: Option<f64>,
    done: u64,
    playing: BTreeMap<usize, Playing>,
    recent: VecDeque<Finished>,
    tallies: Vec<PairingTally>,
    sprt: Option<SprtStatus>,
    /// Stdout lines each engine wrote outside responses.
    skipped_lines: Vec<u64>,
    /// Watchers connected now, and those that have been sent the run's end.
    watchers: usize,
    told_end: usize,
}

/// The live state of one run, shared between the referee and its watchers.
#[derive(Debug)]
pub struct Live {
    state: Mutex<State>,
    changed: Condvar,
}

impl Default for Live {
    fn default() -> Self {
        Live::new()
    }
}

impl Live {
    /// A run that has not started its games yet.
    pub fn new() -> Live {
        Live {
            state: Mutex::new(State {
                version: 1,
                run: RunState::Starting,
                head: None,
                started: Instant::now(),
                seconds: None,
                done: 0,
                playing: BTreeMap::new(),
                recent: VecDeque::new(),
                tallies: Vec::new(),
                sprt: None,
                skipped_lines: Vec::new(),
                watchers: 0,
                told_end: 0,
            }),
            changed: Condvar::new(),
        }
    }

    /// The lock; a panic elsewhere while it was held leaves data that is
    /// still fine to show.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn change(&self, f: impl FnOnce(&mut State)) {
        let mut s = self.lock();
        f(&mut s);
        s.version += 1;
        drop(s);
        self.changed.notify_all();
    }

    /// The games begin: the run's facts and the counts so far (resumed).
    pub fn start(&self, head: RunHead, counts: Counts<'_>) {
        self.change(|s| {
            s.done = counts.done;
            s.head = Some(head);
            s.tallies = counts.tallies.to_vec();
            s.skipped_lines = counts.skipped_lines.to_vec();
            s.sprt = counts.sprt;
            s.run = RunState::Running;
            s.started = Instant::now();
        });
    }

    /// Game `game` starts between engines `x` and `o` after `opening`.
    pub fn begin(&self, game: usize, x: usize, o: usize, opening: &[Cell]) {
        self.change(|s| {
            s.playing.insert(
                game,
                Playing {
                    x,
                    o,
                    opening: opening.to_vec(),
                    moves: Vec::new(),
                },
            );
        });
    }

    /// A move of game `game`, checked by the referee.
    pub fn moved(&self, game: usize, cell: Cell) {
        self.change(|s| {
            if let Some(p) = s.playing.get_mut(&game) {
                p.moves.push(cell);
            }
        });
    }

    /// Game `game` is over (or was never played: a process that failed to
    /// start); the tallies and the other counts include it.
    pub fn finish(&self, game: usize, end: &GameEnd, counts: Counts<'_>) {
        self.change(|s| {
            let playing = s.playing.remove(&game);
            if let (Some(head), Some(p)) = (&s.head, playing) {
                let name = |i: usize| head.engines.get(i).map_or("?", |e| &e.name).to_string();
                let fault_by = end.fault_by.map(|side| {
                    name(if side == crate::rules::Player::X {
                        p.x
                    } else {
                        p.o
                    })
                });
                let finished = Finished {
                    game,
                    x: name(p.x),
                    o: name(p.o),
                    result: GameResult::of(end.winner),
                    reason: end.reason.name(),
                    fault_by,
                    plies: end.moves.len(),
                };
                if s.recent.len() == RECENT_GAMES {
                    s.recent.pop_back();
                }
                s.recent.push_front(finished);
            }
            s.tallies.clear();
            s.tallies.extend_from_slice(counts.tallies);
            s.skipped_lines.clear();
            s.skipped_lines.extend_from_slice(counts.skipped_lines);
            s.sprt = counts.sprt;
            s.done = counts.done;
        });
    }

    /// The run is over; waits up to `linger` for every watcher to be sent
    /// the end, so that the page shows the final tallies.
    pub fn close(&self, interrupted: bool, seconds: f64, linger: Duration) {
        self.change(|s| {
            s.run = if interrupted {
                RunState::Interrupted
            } else {
                RunState::Finished
            };
            s.seconds = Some(seconds);
            s.playing.clear();
        });
        let deadline = Instant::now() + linger;
        let mut s = self.lock();
        while s.told_end < s.watchers {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            s = match self.changed.wait_timeout(s, left) {
                Ok((s, _)) => s,
                Err(e) => e.into_inner().0,
            };
        }
    }

    /// A watcher connects: counted until the returned guard is dropped.
    pub fn watch(&self) -> Watcher<'_> {
        self.change(|s| s.watchers += 1);
        Watcher {
            live: self,
            told_end: false,
        }
    }

    /// Waits until the state is newer than `version` or `timeout` passes;
    /// returns the version now.
    pub fn wait_newer(&self, version: u64, timeout: Duration) -> u64 {
        let s = self.lock();
        let (s, _) = self
            .changed
            .wait_timeout_while(s, timeout, |s| s.version <= version)
            .unwrap_or_else(|e| e.into_inner());
        s.version
    }

    /// A copy of what the page shows, taken under the lock.
    pub fn snapshot(&self) -> Snapshot {
        let s = self.lock();
        Snapshot {
            version: s.version,
            run: s.run,
            head: s.head.clone(),
            seconds: s
                .seconds
                .unwrap_or_else(|| s.started.elapsed().as_secs_f64()),
            done: s.done,
            playing: s.playing.iter().map(|(g, p)| (*g, p.clone())).collect(),
            recent: s.recent.iter().cloned().collect(),
            tallies: s.tallies.clone(),
            sprt: s.sprt,
            skipped_lines: s.skipped_lines.clone(),
        }
    }
}

/// One game of the run, for [`play_game`](super::game::play_game) to
/// report its moves to.
#[derive(Clone, Copy, Debug)]
pub struct LiveGame<'a> {
    pub live: &'a Live,
    pub game: usize,
}

impl LiveGame<'_> {
    /// A move, checked by the referee.
    pub fn moved(&self, cell: Cell) {
        self.live.moved(self.game, cell);
    }
}

/// One connected watcher (see [`Live::watch`]).
pub struct Watcher<'a> {
    live: &'a Live,
    told_end: bool,
}

impl Watcher<'_> {
    /// Notes that this watcher was sent `snapshot`: once it holds the run's
    /// end, [`Live::close`] need not wait for this watcher any more.
    pub fn sent(&mut self, snapshot: &Snapshot) {
        if !self.told_end && snapshot.run.is_over() {
            self.told_end = true;
            self.live.change(|s| s.told_end += 1);
        }
    }
}

impl Drop for Watcher<'_> {
    fn drop(&mut self) {
        let told = self.told_end;
        self.live.change(|s| {
            s.watchers -= 1;
            if told {
                s.told_end -= 1;
            }
        });
    }
}

/// What a watcher is sent, copied out of [`Live`].
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub version: u64,
    pub run: RunState,
    head: Option<RunHead>,
    seconds: f64,
    done: u64,
    playing: Vec<(usize, Playing)>,
    recent: Vec<Finished>,
    tallies: Vec<PairingTally>,
    sprt: Option<SprtStatus>,
    skipped_lines: Vec<u64>,
}

/// A game in progress as the page gets it.
#[derive(Serialize)]
struct PlayingView<'a> {
    game: usize,
    x: &'a str,
    o: &'a str,
    opening: Vec<[u32; 2]>,
    moves: Vec<[u32; 2]>,
}

/// The page's view of the run (documented in docs/referee.md).
#[derive(Serialize)]
struct View<'a> {
    version: u64,
    state: RunState,
    done: u64,
    total: usize,
    resumed: u64,
    seconds: f64,
    /// `37 games/s`, `2.5 games/min`, as in the progress line.
    rate: String,
    /// Seconds left at this session's rate, when it has one.
    eta_seconds: Option<f64>,
    /// The JSON summary of `--json`, as it stands.
    summary: Option<report::Summary<'a>>,
    /// The text report, as it stands.
    report: Option<String>,
    playing: Vec<PlayingView<'a>>,
    recent: &'a [Finished],
}

impl Snapshot {
    /// The page's JSON.
    pub fn to_json(&self) -> String {
        let played = self
            .done
            .saturating_sub(self.head.as_ref().map_or(0, |h| h.resumed));
        let total = self.head.as_ref().map_or(0, |h| h.total_games);
        let left = total.saturating_sub(self.done as usize) as f64;
        let eta_seconds = (played > 0 && self.seconds > 0.0 && self.run == RunState::Running)
            .then(|| left * self.seconds / played as f64);
        let info = self.head.as_ref().map(|h| RunInfo {
            seed: h.seed,
            geometry: h.geometry,
            games_per_pairing: h.games_per_pairing,
            openings: h.openings.clone(),
            concurrency: h.concurrency,
            total_games: h.total_games,
            interrupted: self.run == RunState::Interrupted,
            resumed: h.resumed,
            seconds: self.seconds,
            skipped_lines: self.skipped_lines.clone(),
        });
        let engines: &[EngineInfo] = self.head.as_ref().map_or(&[], |h| &h.engines);
        let name = |i: usize| engines.get(i).map_or("?", |e| e.name.as_str());
        let view = View {
            version: self.version,
            state: self.run,
            done: self.done,
            total,
            resumed: self.head.as_ref().map_or(0, |h| h.resumed),
            seconds: self.seconds,
            rate: report::rate_text(played, self.seconds),
            eta_seconds,
            summary: info
                .as_ref()
                .map(|i| report::summary(i, engines, &self.tallies, self.sprt)),
            report: info
                .as_ref()
                .map(|i| report::text(i, engines, &self.tallies, self.sprt.as_ref())),
            playing: self
                .playing
                .iter()
                .map(|(game, p)| PlayingView {
                    game: *game,
                    x: name(p.x),
                    o: name(p.o),
                    opening: one_based(&p.opening),
                    moves: one_based(&p.moves),
                })
                .collect(),
            recent: &self.recent,
        };
        serde_json::to_string(&view).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::game::Reason;
    use crate::rules::{Player, Rule};
    use std::sync::Arc;

    fn head() -> RunHead {
        RunHead {
            seed: 7,
            geometry: Geometry::new(3, 3, 3, Rule::Free).unwrap(),
            games_per_pairing: 2,
            openings: "no openings".into(),
            concurrency: 1,
            total_games: 2,
            resumed: 0,
            engines: ["a", "b"]
                .map(|n| EngineInfo {
                    name: n.into(),
                    command: vec![n.into()],
                    protocol: "kinrow",
                })
                .to_vec(),
        }
    }

    fn counts(tallies: &[PairingTally], done: u64) -> Counts<'_> {
        Counts {
            tallies,
            sprt: None,
            skipped_lines: &[0, 0],
            done,
        }
    }

    fn win_for_x(moves: Vec<Cell>) -> GameEnd {
        GameEnd {
            winner: Some(Player::X),
            reason: Reason::Win,
            fault_by: None,
            detail: None,
            moves,
            time: [Duration::ZERO; 2],
            replace: [false; 2],
        }
    }

    #[test]
    fn games_show_move_by_move_and_leave_with_their_result() {
        let live = Live::new();
        let mut tallies = vec![PairingTally::new(0, 1)];
        live.start(head(), counts(&tallies, 0));
        live.begin(0, 0, 1, &[Cell::new(1, 1)]);
        live.moved(0, Cell::new(0, 0));
        let json: serde_json::Value = serde_json::from_str(&live.snapshot().to_json()).unwrap();
        assert_eq!(json["state"], "running");
        assert_eq!(json["playing"][0]["x"], "a");
        assert_eq!(json["playing"][0]["opening"], serde_json::json!([[2, 2]]));
        assert_eq!(json["playing"][0]["moves"], serde_json::json!([[1, 1]]));
        assert_eq!(json["done"], 0);

        let end = win_for_x(vec![Cell::new(0, 0)]);
        tallies[0].add(0, Player::X, &end);
        live.finish(0, &end, counts(&tallies, 1));
        let json: serde_json::Value = serde_json::from_str(&live.snapshot().to_json()).unwrap();
        assert_eq!(json["playing"], serde_json::json!([]));
        assert_eq!(json["recent"][0]["result"], "x");
        assert_eq!(json["recent"][0]["plies"], 1);
        assert_eq!(json["summary"]["pairings"][0]["a_wins"], 1);
        assert!(json["report"].as_str().unwrap().contains("a vs b"));
        assert!(json["eta_seconds"].as_f64().is_some());
    }

    #[test]
    fn only_the_last_games_are_kept() {
        let live = Live::new();
        let tallies = vec![PairingTally::new(0, 1)];
        live.start(head(), counts(&tallies, 0));
        for g in 0..RECENT_GAMES + 5 {
            live.begin(g, 0, 1, &[]);
            live.finish(g, &win_for_x(vec![]), counts(&tallies, g as u64 + 1));
        }
        let json: serde_json::Value = serde_json::from_str(&live.snapshot().to_json()).unwrap();
        let recent = json["recent"].as_array().unwrap();
        assert_eq!(recent.len(), RECENT_GAMES);
        assert_eq!(recent[0]["game"], RECENT_GAMES + 4);
    }

    #[test]
    fn watchers_wake_on_changes_and_the_end_waits_for_them() {
        let live = Arc::new(Live::new());
        let v0 = live.snapshot().version;
        // Nothing new: the wait times out with the same version.
        assert_eq!(live.wait_newer(v0, Duration::from_millis(10)), v0);
        let watcher = {
            let live = Arc::clone(&live);
            std::thread::spawn(move || {
                let mut w = live.watch();
                let mut seen = 0;
                loop {
                    seen = live.wait_newer(seen, Duration::from_secs(5));
                    let snap = live.snapshot();
                    w.sent(&snap);
                    if snap.run == RunState::Finished {
                        return;
                    }
                }
            })
        };
        while live.lock().watchers == 0 {
            std::thread::yield_now();
        }
        live.start(head(), counts(&[], 0));
        // Returns once the watcher has been sent the end (well before the
        // linger of a minute).
        let t = Instant::now();
        live.close(false, 1.0, Duration::from_secs(60));
        assert!(t.elapsed() < Duration::from_secs(30));
        watcher.join().unwrap();
        assert_eq!(live.lock().watchers, 0);
        // No watcher: the end does not wait.
        live.close(false, 1.0, Duration::from_secs(60));
    }
}
