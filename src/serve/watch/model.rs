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

use crate::referee::games_out::{one_based, GameResult};
use crate::referee::report::{self, EngineInfo, PairingTally, RunInfo, Session, SprtStatus};
use crate::referee::watch::{GameOver, GameStart, MovePlayed, Standings, Watcher};
use crate::rules::{Cell, Player};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Finished games shown on the page.
pub const RECENT_GAMES: usize = 12;
/// How long the end of a run waits for watchers to be sent it.
pub const LINGER: Duration = Duration::from_secs(2);

/// Game starts whose boards are shown at once, then…
const SHOWN_BURST: f64 = 32.0;
/// …this many a second: a page shows ten frames a second, so games that
/// come faster (random bots in process, by the hundred thousand) are
/// sampled, not followed move by move, and cost the run next to nothing.
const SHOWN_PER_SECOND: f64 = 100.0;

/// With no page connected, the counts are copied no more often than this.
const COUNTS_EVERY: Duration = Duration::from_millis(50);

/// A clock of a few milliseconds' grain that costs a few nanoseconds to
/// read (`CLOCK_MONOTONIC_COARSE`): what sampling and throttling need.
fn coarse_now() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec for the kernel (the vDSO) to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut t) };
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// A game being played, its engines by index.
#[derive(Clone, Debug)]
struct Playing {
    x: usize,
    o: usize,
    /// The opening, then the moves.
    cells: Vec<Cell>,
    opening: usize,
}

/// A game just finished, its engines by index.
#[derive(Clone, Copy, Debug)]
struct Finished {
    game: usize,
    x: usize,
    o: usize,
    result: GameResult,
    reason: &'static str,
    /// The side at fault, for faults.
    fault_by: Option<Player>,
    /// Plies played after the opening.
    plies: usize,
}

thread_local! {
    /// Which game this thread plays and its page follows (each worker
    /// plays one game at a time): a move of any other game costs one
    /// comparison.
    static FOLLOWED: std::cell::Cell<Option<(usize, usize)>> = const { std::cell::Cell::new(None) };
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

/// What the report says as it stands.
#[derive(Clone, Debug)]
struct Counts {
    /// The report's head; its time is the clock's until the run ends.
    info: RunInfo,
    engines: Vec<EngineInfo>,
    tallies: Vec<PairingTally>,
    sprt: Option<SprtStatus>,
    done: u64,
}

impl Counts {
    fn set(&mut self, standings: &Standings<'_>) {
        // In place: no allocation a game (see PairingTally::clone_from).
        if self.tallies.len() == standings.tallies.len() {
            self.tallies.clone_from_slice(standings.tallies);
        } else {
            self.tallies = standings.tallies.to_vec();
        }
        self.info.skipped_lines.clear();
        self.info
            .skipped_lines
            .extend_from_slice(standings.skipped_lines);
        if let Session::Played { per_ply, .. } = &mut self.info.session {
            *per_ply = standings.per_ply;
        }
        self.sprt = standings.sprt;
        self.done = standings.done;
    }
}

#[derive(Debug)]
struct State {
    /// Raised by every change, so watchers know whether to send.
    version: u64,
    run: RunState,
    /// `None` while the engines are checked.
    counts: Option<Counts>,
    started: Instant,
    playing: BTreeMap<usize, Playing>,
    /// Cell lists of games gone, to be used again.
    spare: Vec<Vec<Cell>>,
    /// Boards that may start being shown now, and when that was counted
    /// (on the coarse clock).
    tokens: f64,
    tokens_at: Duration,
    /// When the counts were last copied (coarse clock), and whether a
    /// finished game's are not in them yet.
    counted_at: Duration,
    recent: VecDeque<Finished>,
    /// Watchers connected now, and those that have been sent the run's end.
    watchers: usize,
    told_end: usize,
    /// Threads waiting for a change: only then is a change worth a wake-up
    /// (a system call), which moves by the million a second can't afford.
    waiting: usize,
}

/// The live state of one run, shared between the referee (as its
/// [`Watcher`]) and the page's threads.
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
                counts: None,
                started: Instant::now(),
                playing: BTreeMap::new(),
                spare: Vec::new(),
                tokens: SHOWN_BURST,
                tokens_at: coarse_now(),
                counted_at: Duration::ZERO,
                recent: VecDeque::new(),
                watchers: 0,
                told_end: 0,
                waiting: 0,
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
        self.publish(s);
    }

    /// A new version, told to the pages that wait for one.
    fn publish(&self, mut s: MutexGuard<'_, State>) {
        s.version += 1;
        let wake = s.waiting > 0;
        drop(s);
        if wake {
            self.changed.notify_all();
        }
    }

    /// Waits (up to `timeout`) until `done` holds of the state.
    fn wait_until(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&State) -> bool,
    ) -> MutexGuard<'_, State> {
        let mut s = self.lock();
        s.waiting += 1;
        let (mut s, _) = self
            .changed
            .wait_timeout_while(s, timeout, |s| !done(s))
            .unwrap_or_else(|e| e.into_inner());
        s.waiting -= 1;
        s
    }

    /// Waits up to `linger` for every watcher to be sent the run's end.
    fn wait_for_watchers(&self, linger: Duration) {
        drop(self.wait_until(linger, |s| s.told_end >= s.watchers));
    }

    /// A watcher connects: counted until the returned guard is dropped.
    pub fn watch(&self) -> PageWatcher<'_> {
        self.change(|s| s.watchers += 1);
        PageWatcher {
            live: self,
            told_end: false,
        }
    }

    /// Waits until the state is newer than `version` or `timeout` passes;
    /// returns the version now.
    pub fn wait_newer(&self, version: u64, timeout: Duration) -> u64 {
        self.wait_until(timeout, |s| s.version > version).version
    }

    /// A copy of what the page shows, taken under the lock.
    pub fn snapshot(&self) -> Snapshot {
        let s = self.lock();
        let mut counts = s.counts.clone();
        if let Some(Session::Played { seconds, .. }) = counts.as_mut().map(|c| &mut c.info.session)
        {
            if !s.run.is_over() {
                *seconds = s.started.elapsed().as_secs_f64();
            }
        }
        Snapshot {
            version: s.version,
            run: s.run,
            counts,
            playing: s.playing.iter().map(|(g, p)| (*g, p.clone())).collect(),
            recent: s.recent.iter().cloned().collect(),
        }
    }
}

impl Watcher for Live {
    fn run_started(&self, info: &RunInfo, standings: &Standings<'_>) {
        self.change(|s| {
            let mut counts = Counts {
                info: info.clone(),
                engines: standings.engines.to_vec(),
                tallies: Vec::new(),
                sprt: None,
                done: 0,
            };
            counts.set(standings);
            s.counts = Some(counts);
            s.run = RunState::Running;
            s.started = Instant::now();
        });
    }

    fn game_started(&self, game: &GameStart<'_>) {
        let me = self as *const Live as usize;
        let mut s = self.lock();
        // A token bucket: every board is shown while games come slower
        // than a page can show them, a sample of them beyond.
        let now = coarse_now();
        let refill = now.saturating_sub(s.tokens_at).as_secs_f64() * SHOWN_PER_SECOND;
        s.tokens = (s.tokens + refill).min(SHOWN_BURST);
        s.tokens_at = now;
        if s.tokens < 1.0 {
            FOLLOWED.set(None);
            return;
        }
        s.tokens -= 1.0;
        FOLLOWED.set(Some((me, game.game)));
        let index = |name: &str| {
            s.counts
                .as_ref()
                .and_then(|c| c.engines.iter().position(|e| e.name == name))
                .unwrap_or(usize::MAX)
        };
        let (x, o) = (index(game.x), index(game.o));
        let mut cells = s.spare.pop().unwrap_or_default();
        cells.clear();
        cells.extend_from_slice(game.opening);
        s.playing.insert(
            game.game,
            Playing {
                x,
                o,
                cells,
                opening: game.opening.len(),
            },
        );
        self.publish(s);
    }

    fn move_played(&self, event: &MovePlayed) {
        if FOLLOWED.get() != Some((self as *const Live as usize, event.game)) {
            return;
        }
        self.change(|s| {
            if let Some(p) = s.playing.get_mut(&event.game) {
                p.cells.push(event.cell);
            }
        });
    }

    fn game_finished(&self, game: &GameOver<'_>, standings: &Standings<'_>) {
        self.change(|s| {
            if let Some(p) = s.playing.remove(&game.game) {
                s.spare.push(p.cells);
            }
            let index = |name: &str| {
                s.counts
                    .as_ref()
                    .and_then(|c| c.engines.iter().position(|e| e.name == name))
                    .unwrap_or(usize::MAX)
            };
            let end = game.end;
            let finished = Finished {
                game: game.game,
                x: index(game.x),
                o: index(game.o),
                result: GameResult::of(end.winner),
                reason: end.reason.name(),
                fault_by: end.fault_by,
                plies: end.moves.len(),
            };
            if s.recent.len() == RECENT_GAMES {
                s.recent.pop_back();
            }
            s.recent.push_front(finished);
            // With nobody watching, the counts are copied at most every
            // COUNTS_EVERY (a page that comes sees them that fresh; the
            // run's end sets them exactly); with a page, after every game.
            let now = coarse_now();
            if s.watchers > 0 || now.saturating_sub(s.counted_at) >= COUNTS_EVERY {
                s.counted_at = now;
                if let Some(c) = s.counts.as_mut() {
                    c.set(standings);
                }
            }
        });
    }

    fn run_ended(&self, info: &RunInfo, standings: &Standings<'_>) {
        self.change(|s| {
            s.run = if info.interrupted {
                RunState::Interrupted
            } else {
                RunState::Finished
            };
            if let Some(c) = s.counts.as_mut() {
                c.info = info.clone();
                c.set(standings);
            }
            s.playing.clear();
        });
        // The page gets the final tallies before the referee ends.
        self.wait_for_watchers(LINGER);
    }
}

/// One connected page (see [`Live::watch`]).
pub struct PageWatcher<'a> {
    live: &'a Live,
    told_end: bool,
}

impl PageWatcher<'_> {
    /// Notes that this page was sent `snapshot`: once it holds the run's
    /// end, the run's end need not wait for this page any more.
    pub fn sent(&mut self, snapshot: &Snapshot) {
        if !self.told_end && snapshot.run.is_over() {
            self.told_end = true;
            self.live.change(|s| s.told_end += 1);
        }
    }
}

impl Drop for PageWatcher<'_> {
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

/// What a page is sent, copied out of [`Live`].
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub version: u64,
    pub run: RunState,
    counts: Option<Counts>,
    playing: Vec<(usize, Playing)>,
    recent: Vec<Finished>,
}

/// A finished game as the page gets it.
#[derive(Serialize)]
struct FinishedView<'a> {
    game: usize,
    x: &'a str,
    o: &'a str,
    result: GameResult,
    reason: &'static str,
    /// The engine at fault, for faults.
    fault_by: Option<&'a str>,
    /// Plies played after the opening.
    plies: usize,
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
    /// The run's seed as a string: a JSON number above 2^53 is rounded by
    /// JavaScript (`summary.seed` keeps the number, as `--json` has it).
    seed: Option<String>,
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
    recent: Vec<FinishedView<'a>>,
}

impl Snapshot {
    /// The page's JSON.
    pub fn to_json(&self) -> String {
        let (resumed, seconds) = match self.counts.as_ref().map(|c| &c.info.session) {
            Some(Session::Played {
                resumed, seconds, ..
            }) => (*resumed, *seconds),
            _ => (0, 0.0),
        };
        let done = self.counts.as_ref().map_or(0, |c| c.done);
        let total = self.counts.as_ref().map_or(0, |c| c.info.total_games);
        let played = done.saturating_sub(resumed);
        let left = total.saturating_sub(done as usize) as f64;
        let eta_seconds = (played > 0 && seconds > 0.0 && self.run == RunState::Running)
            .then(|| left * seconds / played as f64);
        let engines: &[EngineInfo] = self.counts.as_ref().map_or(&[], |c| &c.engines);
        let name = |i: usize| engines.get(i).map_or("?", |e| e.name.as_str());
        let view = View {
            version: self.version,
            state: self.run,
            seed: self.counts.as_ref().map(|c| c.info.seed.to_string()),
            done,
            total,
            resumed,
            seconds,
            rate: report::rate_text(played, seconds),
            eta_seconds,
            summary: self
                .counts
                .as_ref()
                .map(|c| report::summary(&c.info, &c.engines, &c.tallies, c.sprt)),
            report: self
                .counts
                .as_ref()
                .map(|c| report::text(&c.info, &c.engines, &c.tallies, c.sprt.as_ref())),
            playing: self
                .playing
                .iter()
                .map(|(game, p)| {
                    let (opening, moves) = p.cells.split_at(p.opening.min(p.cells.len()));
                    PlayingView {
                        game: *game,
                        x: name(p.x),
                        o: name(p.o),
                        opening: one_based(opening).collect(),
                        moves: one_based(moves).collect(),
                    }
                })
                .collect(),
            recent: self
                .recent
                .iter()
                .map(|f| FinishedView {
                    game: f.game,
                    x: name(f.x),
                    o: name(f.o),
                    result: f.result,
                    reason: f.reason,
                    fault_by: f
                        .fault_by
                        .map(|side| name(if side == Player::X { f.x } else { f.o })),
                    plies: f.plies,
                })
                .collect(),
        };
        serde_json::to_string(&view).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::game::{GameEnd, Reason};
    use crate::rules::{Geometry, Rule};
    use std::sync::Arc;

    fn engines() -> Vec<EngineInfo> {
        ["a", "b"]
            .map(|n| EngineInfo {
                name: n.into(),
                command: vec![n.into()],
                protocol: "kinrow".into(),
                settings: Default::default(),
            })
            .to_vec()
    }

    fn info(interrupted: bool) -> RunInfo {
        RunInfo {
            seed: 7,
            geometry: Geometry::new(3, 3, 3, Rule::Free).unwrap(),
            games_per_pairing: 2,
            openings: "no openings".into(),
            session: Session::Played {
                concurrency: 1,
                in_process: false,
                resumed: 0,
                seconds: 1.5,
                per_ply: None,
            },
            shard: None,
            run_games: 2,
            total_games: 2,
            interrupted,
            skipped_lines: vec![0, 0],
            tournament: Default::default(),
        }
    }

    fn standings<'a>(
        engines: &'a [EngineInfo],
        tallies: &'a [PairingTally],
        done: u64,
    ) -> Standings<'a> {
        Standings {
            done,
            total: 2,
            engines,
            tallies,
            skipped_lines: &[0, 0],
            sprt: None,
            per_ply: None,
        }
    }

    fn win_for_x(moves: Vec<Cell>) -> GameEnd {
        GameEnd {
            winner: Some(Player::X),
            reason: Reason::Win,
            fault_by: None,
            detail: None,
            moves,
            move_data: Vec::new(),
            time: [Duration::ZERO; 2],
            peak_memory: [None; 2],
            replace: [false; 2],
        }
    }

    fn json(live: &Live) -> serde_json::Value {
        serde_json::from_str(&live.snapshot().to_json()).unwrap()
    }

    fn start(live: &Live, game: usize, opening: &[Cell]) {
        live.game_started(&GameStart {
            game,
            pair: game / 2,
            x: "a",
            o: "b",
            opening,
        });
    }

    fn finish(live: &Live, game: usize, end: &GameEnd, standings: &Standings<'_>) {
        let over = GameOver {
            game,
            x: "a",
            o: "b",
            end,
        };
        live.game_finished(&over, standings);
    }

    #[test]
    fn games_show_move_by_move_and_leave_with_their_result() {
        let live = Live::new();
        assert_eq!(json(&live)["state"], "starting");
        assert_eq!(json(&live)["summary"], serde_json::Value::Null);
        let engines = engines();
        let mut tallies = vec![PairingTally::new(0, 1)];
        live.run_started(&info(false), &standings(&engines, &tallies, 0));
        start(&live, 0, &[Cell::new(1, 1)]);
        live.move_played(&MovePlayed {
            game: 0,
            ply: 1,
            side: Player::O,
            cell: Cell::new(0, 0),
        });
        let j = json(&live);
        assert_eq!(j["state"], "running");
        assert_eq!(j["playing"][0]["x"], "a");
        assert_eq!(j["playing"][0]["opening"], serde_json::json!([[2, 2]]));
        assert_eq!(j["playing"][0]["moves"], serde_json::json!([[1, 1]]));
        assert_eq!(j["done"], 0);

        let end = win_for_x(vec![Cell::new(0, 0)]);
        tallies[0].add(0, Player::X, &end);
        finish(&live, 0, &end, &standings(&engines, &tallies, 1));
        let j = json(&live);
        assert_eq!(j["playing"], serde_json::json!([]));
        assert_eq!(j["recent"][0]["result"], "x");
        assert_eq!(j["recent"][0]["plies"], 1);
        assert_eq!(j["summary"]["pairings"][0]["a_wins"], 1);
        assert!(j["report"].as_str().unwrap().contains("a vs b"));
        assert!(j["eta_seconds"].as_f64().is_some());

        // The end: the report's own head and time.
        live.run_ended(&info(true), &standings(&engines, &tallies, 1));
        let j = json(&live);
        assert_eq!(j["state"], "interrupted");
        assert_eq!(j["seconds"], 1.5);
        assert_eq!(j["eta_seconds"], serde_json::Value::Null);
        let report = report::text(&info(true), &engines, &tallies, None);
        assert_eq!(j["report"].as_str().unwrap(), report);
    }

    #[test]
    fn only_the_last_games_are_kept() {
        let live = Live::new();
        let engines = engines();
        let tallies = vec![PairingTally::new(0, 1)];
        live.run_started(&info(false), &standings(&engines, &tallies, 0));
        let end = win_for_x(vec![]);
        for g in 0..RECENT_GAMES + 5 {
            start(&live, g, &[]);
            finish(&live, g, &end, &standings(&engines, &tallies, g as u64 + 1));
        }
        let recent = json(&live)["recent"].as_array().unwrap().clone();
        assert_eq!(recent.len(), RECENT_GAMES);
        assert_eq!(recent[0]["game"], RECENT_GAMES + 4);
    }

    #[test]
    fn games_faster_than_a_page_are_sampled_and_all_counted() {
        let live = Live::new();
        let engines = engines();
        let mut tallies = vec![PairingTally::new(0, 1)];
        live.run_started(&info(false), &standings(&engines, &tallies, 0));
        let end = win_for_x(vec![Cell::new(0, 0)]);
        // A thousand games at once, as bots in process play them, with a
        // page watching: a burst of boards is followed, the rest only
        // counted, every one of them.
        let page = live.watch();
        let mut followed = 0;
        for g in 0..1000 {
            start(&live, g, &[]);
            live.move_played(&MovePlayed {
                game: g,
                ply: 1,
                side: Player::X,
                cell: Cell::new(0, 0),
            });
            let j = json(&live);
            let playing = j["playing"].as_array().unwrap();
            if let Some(p) = playing.first() {
                assert_eq!(p["moves"], serde_json::json!([[1, 1]]));
                followed += 1;
            }
            tallies[0].add(g, Player::X, &end);
            finish(&live, g, &end, &standings(&engines, &tallies, g as u64 + 1));
        }
        assert!(
            (SHOWN_BURST as usize..200).contains(&followed),
            "{followed} of 1000 boards followed"
        );
        let j = json(&live);
        assert_eq!(j["done"], 1000);
        assert_eq!(j["summary"]["pairings"][0]["games"], 1000);
        assert_eq!(j["recent"][0]["game"], 999);
        assert_eq!(j["recent"][0]["x"], "a");
        drop(page);
    }

    #[test]
    fn pages_wake_on_changes_and_the_end_waits_for_them() {
        let live = Arc::new(Live::new());
        let v0 = live.snapshot().version;
        // Nothing new: the wait times out with the same version.
        assert_eq!(live.wait_newer(v0, Duration::from_millis(10)), v0);
        let page = {
            let live = Arc::clone(&live);
            std::thread::spawn(move || {
                let mut w = live.watch();
                let mut seen = 0;
                loop {
                    seen = live.wait_newer(seen, Duration::from_secs(5));
                    let snap = live.snapshot();
                    w.sent(&snap);
                    if snap.run.is_over() {
                        return;
                    }
                }
            })
        };
        while live.lock().watchers == 0 {
            std::thread::yield_now();
        }
        let engines = engines();
        live.run_started(&info(false), &standings(&engines, &[], 0));
        // Returns once the page has been sent the end (within the linger).
        live.run_ended(&info(false), &standings(&engines, &[], 0));
        page.join().unwrap();
        assert_eq!(live.lock().watchers, 0);
        assert_eq!(live.lock().told_end, 0);
    }
}
