//! The engines of a run: the start-up check every engine process passes
//! before any game (and the names it settles), the built-in bots of an
//! `--in-process` run, and the processes a worker starts for its games and
//! lets go at its end.

use super::config::Config;
use super::report::EngineInfo;
use super::{detail_text, is_valid_name, EngineSpec};
use crate::bots::BotKind;
use crate::client::{ClientError, EngineCommand, EngineLink, GomocupOptions, StderrTo};
use crate::protocol::Command;
use anyhow::bail;
use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How engine `engine`, if a Gomocup brain, is driven in this run.
pub(super) fn gomocup_options(config: &Config, engine: usize) -> GomocupOptions {
    let settings = config.settings_of(engine);
    GomocupOptions {
        board: config.geometry,
        write_gap: config.write_gap,
        timeout_turn: match settings.movetime_ms {
            Some(ms) => Duration::from_millis(ms),
            None if settings.counts_only() => config.timeout,
            None => crate::bots::DEFAULT_MOVETIME,
        },
        match_time: settings.clock.map(|c| c.base()),
        max_memory: settings.memory_told_mib() << 20,
    }
}

/// Starts engine `engine` of the run, in its working directory.
fn spawn_engine(
    config: &Config,
    engine: usize,
    stderr: StderrTo,
) -> Result<EngineLink, ClientError> {
    let spec = &config.engines[engine];
    let command = EngineCommand {
        argv: spec.argv.clone(),
        dialect: spec.dialect,
    };
    let dir = config.settings_of(engine).dir.as_deref();
    EngineLink::spawn_in(&command, stderr, gomocup_options(config, engine), dir)
}

/// Starts the engine processes of a run's games, each with its stderr log
/// (numbered in the order they start) and the run's cancel flag.
pub(super) struct Launcher<'a> {
    pub config: &'a Config,
    pub engines: &'a [EngineInfo],
    /// Ctrl-C: abandon waits on engines.
    pub cancel: Arc<AtomicBool>,
    /// Numbers engine processes for their stderr log names.
    pub spawned: AtomicUsize,
}

impl Launcher<'_> {
    pub fn spawn(&self, engine: usize) -> Result<EngineLink, ClientError> {
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
        let mut p = spawn_engine(self.config, engine, stderr)?;
        p.set_cancel(Arc::clone(&self.cancel));
        if self.config.messages.is_some() {
            p.keep_all_messages();
        }
        Ok(p)
    }
}

/// Waits for a fresh process to answer `protocol_version` within the
/// start-up deadline (as at the start-up check), so that starting the
/// program — an interpreter loading, a brain reading its files — is not
/// counted against its first move.
pub(super) fn ready(mut p: EngineLink, timeout: Duration) -> Result<EngineLink, ClientError> {
    p.request(Command::ProtocolVersion, timeout)?;
    Ok(p)
}

/// `quit` to every engine, one shared grace period, then SIGKILL; all reaped.
pub(super) fn shutdown_all(mut procs: Vec<EngineLink>, grace: Duration) {
    for p in &mut procs {
        p.request_quit();
    }
    let deadline = Instant::now() + grace;
    for mut p in procs {
        p.wait_until(deadline);
        p.kill();
    }
}

/// What the start-up check found of an engine: its `name` reply, if any,
/// and whether it answers `search_info` (asked only when the run wants it).
struct Probed {
    name: Option<String>,
    search_info: bool,
}

/// Starts every engine once, checks `protocol_version`, `name` and
/// `newgame` for the board within the timeout, and settles the names;
/// with them, whether each engine is to be asked `search_info`.
pub(super) fn check_engines(
    config: &Config,
    cancel: &Arc<AtomicBool>,
) -> anyhow::Result<(Vec<EngineInfo>, Vec<bool>)> {
    let answers: Vec<Result<Probed, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = config
            .engines
            .iter()
            .enumerate()
            .map(|(i, _)| s.spawn(move || probe(config, i, cancel)))
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
    let mut search_info = Vec::new();
    for (i, (spec, answer)) in config.engines.iter().zip(answers).enumerate() {
        let reply = answer.as_ref().ok().and_then(|p| p.name.as_deref());
        let base = match (&spec.name, reply) {
            (Some(n), _) => n.clone(),
            (None, Some(reply)) => name_from_reply(reply).unwrap_or_else(|| fallback(spec)),
            _ => fallback(spec),
        };
        search_info.push(answer.as_ref().is_ok_and(|p| p.search_info));
        let name = unique_name(base, &engines);
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
            settings: config.settings_of(i).clone(),
        });
    }
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    Ok((engines, search_info))
}

/// One engine's start-up check: its `name` reply if it gave one, or what
/// went wrong (with the last line of its stderr).
fn probe(config: &Config, engine: usize, cancel: &Arc<AtomicBool>) -> Result<Probed, String> {
    let g = config.geometry;
    let settings = config.settings_of(engine).requests(config.timeout);
    let mut p = spawn_engine(config, engine, StderrTo::Discard).map_err(|e| e.to_string())?;
    p.set_cancel(Arc::clone(cancel));
    // Starting is not moving: its own, more generous deadline (for a
    // Gomocup brain too, whose first request is `START`).
    let deadline = Instant::now() + config.startup_timeout;
    let ms = config.startup_timeout.as_millis();
    let result = (|| {
        let mut requests = vec![
            Command::ProtocolVersion,
            Command::Name,
            Command::new_game(g),
        ];
        requests.extend(settings.iter().cloned());
        let ask_search = config.wants_search_info();
        if ask_search {
            requests.push(Command::KnownCommand("search_info".into()));
        }
        p.send(&requests).map_err(|e| e.to_string())?;
        let mut found = Probed {
            name: None,
            search_info: false,
        };
        let asked = ["protocol_version", "name", "newgame"]
            .into_iter()
            .map(|w| (w, None))
            .chain(settings.iter().map(|c| ("set", Some(c))))
            .chain(ask_search.then_some(("known_command", None)));
        for (what, set) in asked {
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
                        detail_text(&r.text)
                    ))
                }
                "name" if r.success => found.name = Some(r.text.clone()),
                // An engine that doesn't know `known_command` doesn't know
                // `search_info` either.
                "known_command" => found.search_info = r.success && r.text.trim() == "true",
                "newgame" if !r.success => {
                    return Err(format!(
                        "refused the board ({}x{} k{} {}): {}",
                        g.rows(),
                        g.cols(),
                        g.k(),
                        g.rule(),
                        detail_text(&r.text)
                    ))
                }
                // Its settings (--each, --engine-settings) must take.
                "set" if !r.success => {
                    return Err(format!(
                        "refused its setting '{}': {} (--each, --engine-settings)",
                        set.map(ToString::to_string).unwrap_or_default(),
                        detail_text(&r.text)
                    ))
                }
                _ => {}
            }
        }
        Ok(found)
    })();
    let result = result.map_err(|e| {
        let tail = p.stderr_tail();
        let tail = tail.trim();
        if tail.is_empty() {
            e
        } else {
            format!(
                "{e}; its stderr ends: {}",
                detail_text(tail.lines().last().unwrap_or(""))
            )
        }
    });
    p.shutdown(config.grace);
    result
}

/// A display name from an engine's `name` reply: its words joined with
/// `-`, the characters a name may have, at most 40 (`None` if nothing is
/// left).
fn name_from_reply(reply: &str) -> Option<String> {
    let cleaned: String = reply
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .filter(|c| is_valid_name(&c.to_string()))
        .take(40)
        .collect();
    (!cleaned.is_empty()).then_some(cleaned)
}

/// The name of an engine that gave none: its program's file name.
fn fallback(spec: &EngineSpec) -> String {
    crate::client::display_name(&spec.argv)
}

/// `base`, or `base-2`, `base-3`, … when an engine before has that name.
fn unique_name(base: String, engines: &[EngineInfo]) -> String {
    let mut name = base.clone();
    let mut n = 2;
    while engines.iter().any(|e| e.name == name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    name
}

/// The engines of an `--in-process` run: the built-in bots by name, with
/// the command a process of each would run. Nothing to start, so nothing
/// to check ([`Config::check`] made sure they are all bots).
pub(super) fn bot_engines(config: &Config) -> (Vec<EngineInfo>, Vec<BotKind>) {
    let mut engines: Vec<EngineInfo> = Vec::new();
    let mut kinds = Vec::new();
    for (i, spec) in config.engines.iter().enumerate() {
        let name = unique_name(spec.name.clone().unwrap_or_default(), &engines);
        engines.push(EngineInfo {
            name,
            command: spec.argv.clone(),
            protocol: spec.dialect.name().to_string(),
            settings: config.settings_of(i).clone(),
        });
        kinds.extend(spec.bot);
    }
    (engines, kinds)
}

/// The settings of an `--in-process` run's bots, tried on a fresh engine
/// of each as the start-up check tries a process's: one that doesn't take
/// is an error before any game.
pub(super) fn check_bot_settings(config: &Config, kinds: &[BotKind]) -> anyhow::Result<()> {
    for (i, kind) in kinds.iter().enumerate() {
        let mut engine = super::in_process::engine(*kind);
        for request in config.settings_of(i).requests(config.timeout) {
            if let Err(e) = engine.respond(request.clone()) {
                bail!(
                    "engine '{}': refused its setting '{request}': {} (--each, --engine-settings)",
                    kind.name(),
                    detail_text(&e.to_string())
                );
            }
        }
    }
    Ok(())
}
