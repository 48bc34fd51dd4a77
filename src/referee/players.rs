//! What a worker plays its games with: its engine processes, started and
//! replaced as games need them, or with `--in-process` the built-in bots
//! themselves.

use super::books::Played;
use super::engines::{ready, shutdown_all, Launcher};
use super::game::{Cancelled, GameEnd, GameSetup, Reason};
use super::in_process::{self, play_in_process};
use super::process::play_game;
use super::schedule::Job;
use crate::bots::BotKind;
use crate::client::{ClientError, EngineLink};
use crate::engine::Engine;
use crate::rules::{Board, Cell, Player};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
pub(super) trait Players {
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
pub(super) struct Processes<'s, 'a> {
    pub launcher: &'s Launcher<'a>,
    pub procs: Vec<Option<EngineLink>>,
}

impl Players for Processes<'_, '_> {
    fn play(
        &mut self,
        job: &Job,
        setup: &GameSetup<'_>,
        on_move: &mut dyn FnMut(Player, Cell),
    ) -> Option<Played> {
        let config = self.launcher.config;
        let procs = &mut self.procs;
        let started = Instant::now();
        let mut end = None;
        for (side, idx) in [(Player::X, job.x), (Player::O, job.o)] {
            if procs[idx].is_none() {
                match self
                    .launcher
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
        if self.launcher.cancel.load(Ordering::Relaxed) {
            return None;
        }
        let (x_slot, o_slot) = two_mut(procs, job.x, job.o)?;
        let end = match (end, x_slot.as_mut(), o_slot.as_mut()) {
            (Some(end), _, _) => end,
            (None, Some(x), Some(o)) => play_game([x, o], setup, on_move).ok()?,
            _ => return None,
        };
        if let Some(side) = end.fault_by.filter(|_| end.reason == Reason::Crash) {
            let idx = if side == Player::X { job.x } else { job.o };
            let slot = if side == Player::X {
                &mut *x_slot
            } else {
                &mut *o_slot
            };
            if slot
                .as_mut()
                .is_some_and(|p| killed_by_our_stop(p, &self.launcher.cancel))
            {
                // Not the engine's fault: the game is abandoned, as any game
                // a stop cuts short is, and played again on resume.
                if let Some(mut p) = procs[idx].take() {
                    p.kill();
                }
                return None;
            }
        }
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
            self.launcher.config.grace,
        );
    }
}

/// Whether an engine that died mid-game was ended by a stop signal that
/// stops the referee too: a scheduler (Slurm's requeue, `scancel`) or a
/// terminal signals a whole job or process group at once, so the engine
/// can die a moment before the referee hears of it. Only such a death
/// waits, at most [`STOP_HEARD_WITHIN`], for the referee's own stop.
fn killed_by_our_stop(engine: &mut EngineLink, cancel: &AtomicBool) -> bool {
    use std::os::unix::process::ExitStatusExt;
    const STOP_SIGNALS: [i32; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];
    // Its output closes as it dies, a moment before it has exited.
    if !engine
        .process()
        .wait_until(Instant::now() + EXIT_AFTER_CLOSE)
    {
        return false;
    }
    let by_stop_signal = engine
        .kill()
        .and_then(|status| status.signal())
        .is_some_and(|sig| STOP_SIGNALS.contains(&sig));
    let until = Instant::now() + STOP_HEARD_WITHIN;
    while by_stop_signal && !cancel.load(Ordering::Relaxed) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    by_stop_signal && cancel.load(Ordering::Relaxed)
}

/// How long an engine whose output closed may take to exit.
const EXIT_AFTER_CLOSE: Duration = Duration::from_millis(100);

/// How long after an engine's death by a stop signal the referee's own
/// stop may come and still be taken as its cause.
const STOP_HEARD_WITHIN: Duration = Duration::from_millis(500);

/// A worker's built-in bots, played in process: one engine per engine of
/// the run, kept from game to game as a process is, and made afresh after
/// a fault as a process is restarted.
pub(super) struct Bots<'s> {
    pub kinds: Vec<BotKind>,
    pub engines: Vec<Option<Engine>>,
    /// The referee's board, kept from game to game.
    pub board: Board,
    pub cancel: &'s AtomicBool,
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
