//! `referee merge FILE…`: the `--games-out` files of a run's shards (or of
//! any sessions of one run) read back into one report, one `--json`
//! summary and one `--games-out` file, as one uninterrupted run with that
//! seed would have written them.
//!
//! Every file must hold records of schema 3 after their run line; the run
//! lines must describe one run (seed, board, engines by name and protocol,
//! openings, games per pairing); every record is checked as `--resume`
//! checks it (its place in the schedule, its opening, its moves and how it
//! ended); no game may appear twice; and games missing from the schedule
//! are named, and make the merge fail unless `--allow-missing` is given.

use super::files::check_writable;
use super::games_out::{push_record, GameRecord, PastGames, RunLine};
use super::openings::{OpeningSource, Openings};
use super::report::sprt_status;
use super::report::{self, RunInfo, Session};
use super::resume::{self, run_difference, RunContext};
use super::schedule::Schedule;
use super::shard::Shard;
use super::stats::SprtDecision;
use crate::rules::{Geometry, Rule};
use anyhow::{bail, Context};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What to merge and where to.
#[derive(Clone, Debug, Default)]
pub struct MergeConfig {
    /// The `--games-out` files.
    pub files: Vec<PathBuf>,
    /// The JSON summary.
    pub json: Option<PathBuf>,
    /// The merged records.
    pub games_out: Option<PathBuf>,
    /// Report what is there even when games are missing.
    pub allow_missing: bool,
}

/// A merge's result.
#[derive(Debug)]
pub struct MergeOutcome {
    /// The text report.
    pub report: String,
    /// Games counted.
    pub games: u64,
    /// Games in the run's schedule.
    pub total: usize,
    /// What is missing, said for people (empty when nothing is).
    pub missing: Vec<String>,
}

/// The geometry a run line names.
fn geometry(run: &RunLine) -> anyhow::Result<Geometry> {
    let b = &run.board;
    let rule: Rule = b.rule.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Geometry::new(
        b.rows as u32,
        b.cols as u32,
        b.k as u32,
        rule,
    )?)
}

/// The run's openings when they can be made from the run line alone
/// (random ones: from the seed); an openings file is not at hand.
fn openings(run: &RunLine, geometry: Geometry) -> anyhow::Result<Option<Openings>> {
    match run.openings_fingerprint.strip_prefix("random ") {
        Some(plies) => {
            let plies: usize = plies
                .parse()
                .with_context(|| format!("openings '{}'", run.openings_fingerprint))?;
            let source = OpeningSource::Random { plies };
            Ok(Some(Openings::new(&source, geometry, run.seed)?))
        }
        None => Ok(None),
    }
}

/// `3-7, 12, 15-16`, at most `max` ranges, then how many more.
fn ranges_text(games: &[usize], max: usize) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &g in games {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == g => *end = g,
            _ => ranges.push((g, g)),
        }
    }
    let mut parts: Vec<String> = ranges
        .iter()
        .take(max)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if ranges.len() > max {
        parts.push(format!("and {} more ranges", ranges.len() - max));
    }
    parts.join(", ")
}

/// Merges the files of `config`: the report, and the summary and records
/// written where asked. Files that are not one run, a game twice, a record
/// that doesn't check and (without `allow_missing`) missing games are
/// errors, and nothing is written then.
pub fn merge(config: &MergeConfig) -> anyhow::Result<MergeOutcome> {
    if config.files.is_empty() {
        bail!("nothing to merge: give the --games-out files of the run's shards");
    }
    check_outputs(config)?;
    let pasts = read_inputs(&config.files)?;
    let reference = one_run(&pasts)?;
    let geometry = geometry(&reference)?;
    let games = checked_games(&pasts, &reference, geometry)?;
    let engines = &reference.engines;
    let schedule = Schedule::new(
        reference.tournament,
        engines.len(),
        reference.games_per_pairing,
        None,
    );
    let mut tallies = report::PairingTally::for_pairings(&schedule.pairings);
    let mut skipped_lines = vec![0u64; engines.len()];
    resume::count(
        games.iter().map(|(_, g)| g),
        &mut tallies,
        &mut skipped_lines,
    );
    let sprt = reference.sprt.map(|test| sprt_status(test, &tallies[0]));
    let decided = sprt.is_some_and(|s| s.decision != SprtDecision::Continue);
    // An SPRT that decided ends the run before its schedule: the rest is
    // not missing.
    let missing = if decided {
        Vec::new()
    } else {
        missing(&games, schedule.total, &pasts)
    };
    if !missing.is_empty() && !config.allow_missing {
        bail!(
            "{}; nothing was written (--allow-missing reports the games found)",
            missing.join("; ")
        );
    }
    let info = RunInfo {
        seed: reference.seed,
        geometry,
        games_per_pairing: reference.games_per_pairing,
        openings: reference.openings.clone(),
        session: Session::Merged {
            files: config.files.len(),
        },
        shard: None,
        run_games: schedule.total,
        total_games: schedule.total,
        interrupted: !missing.is_empty(),
        skipped_lines,
        tournament: reference.tournament,
    };
    if let Some(path) = &config.json {
        let summary = report::summary(&info, engines, &tallies, sprt);
        let text = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, text + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &config.games_out {
        write_records(path, &reference, &games)?;
    }
    Ok(MergeOutcome {
        report: report::text(&info, engines, &tallies, sprt.as_ref()),
        games: games.len() as u64,
        total: schedule.total,
        missing,
    })
}

/// The outputs before anything is read: each none of the inputs nor of
/// the other outputs, no directory, and writable. (An input given twice is
/// caught later, as games given twice.)
fn check_outputs(config: &MergeConfig) -> anyhow::Result<()> {
    let mut outputs: Vec<(String, &Path)> = Vec::new();
    outputs.extend(config.json.as_deref().map(|p| ("--json".to_string(), p)));
    outputs.extend(
        config
            .games_out
            .as_deref()
            .map(|p| ("--games-out".to_string(), p)),
    );
    for (i, (role, path)) in outputs.iter().enumerate() {
        let mut pair = vec![(role.clone(), *path)];
        pair.extend(outputs[i + 1..].iter().map(|(r, p)| (r.clone(), *p)));
        for input in &config.files {
            super::files::check_distinct(&[
                (role.clone(), path),
                ("the input".to_string(), input.as_path()),
            ])?;
        }
        super::files::check_distinct(&pair)?;
        super::files::not_a_directory(role, path)?;
        check_writable(path)?;
    }
    Ok(())
}

/// Every input read, each with its run line before its records.
fn read_inputs(files: &[PathBuf]) -> anyhow::Result<Vec<PastGames>> {
    let mut pasts = Vec::with_capacity(files.len());
    for path in files {
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
        let past = PastGames::read(path, super::files::MAX_RECORDS_FILE)?;
        let Some(&(first_run, _)) = past.runs.first() else {
            bail!(
                "{} has no run line: it is not the --games-out file of a run of this referee \
                 (records schema 3), so there is no run to merge it into",
                path.display()
            );
        };
        if let Some((line, _)) = past.records.iter().find(|(l, _)| *l < first_run) {
            bail!(
                "{} line {line}: a record before the file's run line (line {first_run}): \
                 records of an older referee, or of two runs in one file",
                path.display()
            );
        }
        pasts.push(past);
    }
    Ok(pasts)
}

/// The run all the files are of, as the file of the lowest shard gives it
/// (the engines' commands may differ from machine to machine; the run does
/// not); files of another run, or with other games per pairing, are an
/// error.
fn one_run(pasts: &[PastGames]) -> anyhow::Result<RunLine> {
    let order = |p: &PastGames| p.run().and_then(|r| r.shard).map_or(0, Shard::index);
    let reference = pasts
        .iter()
        .min_by_key(|p| order(p))
        .and_then(PastGames::run)
        .cloned()
        .context("no run line")?;
    let reference_file = pasts
        .iter()
        .find(|p| p.run() == Some(&reference))
        .map(|p| p.path.display().to_string())
        .unwrap_or_default();
    for past in pasts {
        let theirs = past.run().context("no run line")?;
        if let Some(why) = run_difference(theirs, &reference) {
            bail!(
                "{} and {} are not of one run: {} has {why}",
                past.path.display(),
                reference_file,
                past.path.display()
            );
        }
        if theirs.games_per_pairing != reference.games_per_pairing {
            bail!(
                "{} was played with {} games per pairing, {} with {}: resume the shorter ones \
                 with the same --games first",
                past.path.display(),
                theirs.games_per_pairing,
                reference_file,
                reference.games_per_pairing
            );
        }
    }
    Ok(reference)
}

/// Every record checked as `--resume` checks it, against the shard of its
/// own file; then no game may come twice across files. In the order of
/// the schedule.
fn checked_games(
    pasts: &[PastGames],
    reference: &RunLine,
    geometry: Geometry,
) -> anyhow::Result<Vec<(GameRecord, resume::PastGame)>> {
    let openings = openings(reference, geometry)?;
    let engines = &reference.engines;
    let mut found: HashMap<usize, (usize, usize)> = HashMap::new();
    let mut games: Vec<(GameRecord, resume::PastGame)> = Vec::new();
    for (file, past) in pasts.iter().enumerate() {
        let run = past.run().context("no run line")?;
        let schedule = Schedule::new(
            reference.tournament,
            engines.len(),
            reference.games_per_pairing,
            run.shard,
        );
        let context = RunContext {
            geometry,
            schedule: &schedule,
            openings: openings.as_ref(),
            engines,
            run,
        };
        let checked = resume::check(past, &context).map_err(|e| {
            let text = format!("{e:#}");
            anyhow::anyhow!("{}", text.replacen("cannot resume from", "cannot merge", 1))
        })?;
        for ((line, record), game) in past.records.iter().zip(checked) {
            if let Some((other, other_line)) = found.insert(record.game, (file, *line)) {
                bail!(
                    "game {} is in {} line {other_line} and in {} line {line}: a file given \
                     twice, or shards that overlap (nothing was written)",
                    record.game,
                    pasts[other].path.display(),
                    past.path.display()
                );
            }
            games.push((record.clone(), game));
        }
    }
    games.sort_by_key(|(r, _)| r.game);
    Ok(games)
}

/// What is missing of the run's `total` games, said for people: the games,
/// and when the files are shards of one count, each shard's share (empty
/// when nothing is).
fn missing(
    games: &[(GameRecord, resume::PastGame)],
    total: usize,
    pasts: &[PastGames],
) -> Vec<String> {
    let found: HashSet<usize> = games.iter().map(|(r, _)| r.game).collect();
    let missing_games: Vec<usize> = (0..total).filter(|g| !found.contains(g)).collect();
    let mut missing = Vec::new();
    if missing_games.is_empty() {
        return missing;
    }
    missing.push(format!(
        "{} of the run's {} games are missing: {}",
        missing_games.len(),
        total,
        ranges_text(&missing_games, 12)
    ));
    let counts: BTreeSet<u32> = pasts
        .iter()
        .filter_map(|p| p.run()?.shard.map(Shard::count))
        .collect();
    if let [count] = counts.into_iter().collect::<Vec<_>>()[..] {
        let given: Vec<u32> = pasts
            .iter()
            .filter_map(|p| p.run()?.shard.map(Shard::index))
            .collect();
        for index in 1..=count {
            let Ok(shard) = Shard::new(index, count) else {
                continue;
            };
            let lost = missing_games
                .iter()
                .filter(|&&g| shard.has_pair(g / 2))
                .count();
            if lost == 0 {
                continue;
            }
            missing.push(if given.contains(&index) {
                format!("shard {shard}: {lost} games missing (resume it to play them)")
            } else {
                format!("shard {shard}: no file given ({lost} games)")
            });
        }
    }
    missing
}

/// The merged records, as one run writes them: its run line, then the
/// records, here in the order of the schedule.
fn write_records(
    path: &Path,
    reference: &RunLine,
    games: &[(GameRecord, resume::PastGame)],
) -> anyhow::Result<()> {
    let whole = RunLine {
        shard: None,
        ..reference.clone()
    };
    let mut text = whole.line().into_bytes();
    for (record, _) in games {
        let record = GameRecord {
            shard: None,
            ..record.clone()
        };
        push_record(&mut text, &record);
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::ranges_text;

    #[test]
    fn missing_games_are_said_as_ranges() {
        assert_eq!(ranges_text(&[3, 4, 5, 7, 9, 10], 12), "3-5, 7, 9-10");
        assert_eq!(ranges_text(&[1, 3, 5, 7], 2), "1, 3, and 2 more ranges");
        assert_eq!(ranges_text(&[], 2), "");
    }
}
