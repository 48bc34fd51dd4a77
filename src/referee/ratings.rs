//! `referee ratings FILE…`: one rating list from any set of `--games-out`
//! records (several runs, the shards of one, several tournaments), fitted
//! as Ordo does: the maximum-likelihood ratings of the logistic (Elo)
//! model over every game at once, draws counted as half a win and half a
//! loss, not each engine's score against the field.
//!
//! The model: the X side of a game between `x` and `o` is expected to
//! score `1 / (1 + 10^(-(R_x - R_o + A) / 400))`, where `A` is the X side's
//! advantage (fitted too, unless fixed at 0). The fit is Newton's method on
//! the log-likelihood; the 95 % errors are 1.96 standard deviations from
//! the inverse of the Fisher information at the fit (the errors of
//! ratings under the anchor that fixes their level: mean 0, or one engine
//! at a given rating). Counting a draw as half a win and half a loss takes
//! its variance to be that of a coin toss's half, so the errors are on the
//! safe side (a little too wide) when many games are drawn. The likelihood
//! of superiority between neighbours uses the covariance of the two
//! ratings, not their errors alone.
//!
//! Engines are known by the names in the records. A game is known by its
//! run's fingerprint and its number in the run: one that comes twice (a
//! file given twice, a merged file beside its shards) is an error; records
//! older than run fingerprints (schema 1 and 2) are counted as they come.

use super::games_out::{GameResult, PastGames};
use super::stats::normal_cdf;
use anyhow::{bail, Context};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The two-sided 95 % quantile of the normal distribution.
const Z95: f64 = 1.959_963_984_540_054;
/// Elo per natural unit of the logistic: 400 / ln 10.
const ELO_UNIT: f64 = 400.0 / std::f64::consts::LN_10;
/// Ratings beyond this (in Elo, from the mean) mean the results don't bound
/// them: a group of engines won (or lost) every game against the rest.
const UNBOUNDED: f64 = 5000.0;

/// Where the ratings' level is fixed.
#[derive(Clone, Debug, PartialEq)]
pub enum Anchor {
    /// The ratings average 0.
    Mean,
    /// This engine has this rating.
    Engine { name: String, rating: f64 },
}

impl std::str::FromStr for Anchor {
    type Err = String;

    /// `NAME` (rated 0) or `NAME=ELO`.
    fn from_str(text: &str) -> Result<Anchor, String> {
        let (name, rating) = match text.rsplit_once('=') {
            Some((name, elo)) => {
                let rating: f64 = elo
                    .trim()
                    .parse()
                    .map_err(|_| format!("'{elo}' is not a rating (a number of Elo)"))?;
                if !rating.is_finite() || rating.abs() > 100_000.0 {
                    return Err(format!("rating {elo} is out of range (at most ±100000)"));
                }
                (name, rating)
            }
            None => (text, 0.0),
        };
        if name.is_empty() {
            return Err("the anchor needs an engine's name: NAME or NAME=ELO".into());
        }
        Ok(Anchor::Engine {
            name: name.to_string(),
            rating,
        })
    }
}

/// What to rate and how.
#[derive(Clone, Debug)]
pub struct RatingsConfig {
    /// `--games-out` files.
    pub files: Vec<PathBuf>,
    pub anchor: Anchor,
    /// Fit the X side's advantage (else it is taken to be 0).
    pub x_advantage: bool,
    /// Write the list as JSON here.
    pub json: Option<PathBuf>,
}

/// The games between two engines, `x` playing X: how many, and what X
/// scored in all.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Meeting {
    pub x: usize,
    pub o: usize,
    pub games: u64,
    /// X's points: wins plus half the draws.
    pub points: f64,
}

/// Games gathered for a fit: engines by name, meetings by colours.
#[derive(Clone, Debug, Default)]
pub struct Games {
    pub engines: Vec<String>,
    pub meetings: Vec<Meeting>,
    /// Per engine: games, points and draws.
    pub tally: Vec<(u64, f64, u64)>,
    index: HashMap<String, usize>,
    at: HashMap<(usize, usize), usize>,
}

impl Games {
    /// Enters one game, `score` being X's (1, ½ or 0).
    pub fn add(&mut self, x: &str, o: &str, score: f64) {
        let x = self.engine(x);
        let o = self.engine(o);
        let slot = *self.at.entry((x, o)).or_insert_with(|| {
            self.meetings.push(Meeting {
                x,
                o,
                ..Meeting::default()
            });
            self.meetings.len() - 1
        });
        let m = &mut self.meetings[slot];
        m.games += 1;
        m.points += score;
        let draw = u64::from(score == 0.5);
        for (who, points) in [(x, score), (o, 1.0 - score)] {
            let t = &mut self.tally[who];
            *t = (t.0 + 1, t.1 + points, t.2 + draw);
        }
    }

    fn engine(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.engines.push(name.to_string());
        self.tally.push((0, 0.0, 0));
        self.index.insert(name.to_string(), self.engines.len() - 1);
        self.engines.len() - 1
    }

    /// The same games in an order of their own (engines by name, meetings
    /// by their engines'), so that the fit's sums, to the last digit, do
    /// not depend on the order the games were read in (files, shards,
    /// games finishing under concurrency).
    fn canonical(&self) -> Games {
        let mut names: Vec<usize> = (0..self.engines.len()).collect();
        names.sort_by(|&a, &b| self.engines[a].cmp(&self.engines[b]));
        let mut g = Games::default();
        for &i in &names {
            g.engine(&self.engines[i]);
            g.tally[g.engines.len() - 1] = self.tally[i];
        }
        let mut meetings = self.meetings.clone();
        meetings.sort_by(|a, b| {
            let key = |m: &Meeting| (&self.engines[m.x], &self.engines[m.o]);
            key(a).cmp(&key(b))
        });
        for m in meetings {
            let (x, o) = (g.index[&self.engines[m.x]], g.index[&self.engines[m.o]]);
            g.at.insert((x, o), g.meetings.len());
            g.meetings.push(Meeting { x, o, ..m });
        }
        g
    }

    /// Games entered.
    pub fn total(&self) -> u64 {
        self.meetings.iter().map(|m| m.games).sum()
    }
}

/// One engine in the list.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Rated {
    pub rank: usize,
    pub name: String,
    pub rating: f64,
    /// Half the 95 % interval, in Elo.
    pub error: f64,
    pub games: u64,
    /// Points over games.
    pub score: f64,
    pub draws: f64,
    /// The likelihood that this engine is stronger than the next one in
    /// the list (absent for the last).
    pub los_next: Option<f64>,
}

/// A fitted rating list.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RatingList {
    pub model: &'static str,
    pub anchor: String,
    pub games: u64,
    /// The X side's advantage in Elo with its 95 % error (0 ± 0 when not
    /// fitted).
    pub x_advantage: f64,
    pub x_advantage_error: f64,
    pub engines: Vec<Rated>,
}

/// Why a fit has no answer.
#[derive(Clone, Debug, PartialEq)]
pub enum FitError {
    NoGames,
    /// Engines that never met, directly or through others.
    Disconnected(Vec<String>, Vec<String>),
    /// An engine that won (or lost) every game: its rating has no bound.
    Unbounded(String),
    UnknownAnchor(String),
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitError::NoGames => write!(f, "no games to rate"),
            FitError::Disconnected(a, b) => write!(
                f,
                "{} and {} never met, not even through other engines: no one list can rate them \
                 (rate each group on its own, or play games between them)",
                a.join(", "),
                b.join(", ")
            ),
            FitError::Unbounded(why) => write!(f, "{why}"),
            FitError::UnknownAnchor(name) => {
                write!(f, "the anchor '{name}' is not an engine of the records")
            }
        }
    }
}

impl std::error::Error for FitError {}

/// The logistic σ(d) = 1 / (1 + e^-d).
fn sigmoid(d: f64) -> f64 {
    1.0 / (1.0 + (-d).exp())
}

/// The parameters: engines 1.. (engine 0 is held at 0), then the X
/// advantage if fitted; `None` for engine 0.
fn slot(engine: usize) -> Option<usize> {
    engine.checked_sub(1)
}

/// The fitted ratings relative to engine 0 and the X advantage, in
/// natural units, with the covariance of (engines…, advantage) in Elo².
struct Fit {
    ratings: Vec<f64>,
    advantage: f64,
    covariance: Vec<Vec<f64>>,
}

/// Log-likelihood, gradient and Fisher information at `theta`.
fn derivatives(
    games: &Games,
    theta: &[f64],
    fit_advantage: bool,
) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let k = theta.len();
    let adv_slot = fit_advantage.then_some(games.engines.len() - 1);
    let value = |e: usize| slot(e).map_or(0.0, |s| theta[s]);
    let mut loglik = 0.0;
    let mut gradient = vec![0.0; k];
    let mut info = vec![vec![0.0; k]; k];
    for m in &games.meetings {
        let d = value(m.x) - value(m.o) + adv_slot.map_or(0.0, |s| theta[s]);
        let p = sigmoid(d);
        let n = m.games as f64;
        // ln σ(d) and ln σ(−d), kept finite far out.
        let (lp, lq) = (-(-d).exp().ln_1p(), -d.exp().ln_1p());
        loglik += m.points * lp + (n - m.points) * lq;
        let residual = m.points - n * p;
        let weight = n * p * (1.0 - p);
        let terms: Vec<(usize, f64)> = [
            slot(m.x).map(|s| (s, 1.0)),
            slot(m.o).map(|s| (s, -1.0)),
            adv_slot.map(|s| (s, 1.0)),
        ]
        .into_iter()
        .flatten()
        .collect();
        for &(i, a) in &terms {
            gradient[i] += a * residual;
            for &(j, b) in &terms {
                info[i][j] += a * b * weight;
            }
        }
    }
    (loglik, gradient, info)
}

/// Solves `a x = b` (Gaussian elimination with partial pivoting); `None`
/// when `a` is singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    let scale = a
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (above, below) = a.split_at_mut(col + 1);
        let pivot_row = &above[col];
        for (offset, row) in below.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (v, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *v -= f * p;
            }
            b[col + 1 + offset] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let rest: f64 = (row + 1..n).map(|c| a[row][c] * x[c]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

/// The inverse of `a`, column by column; `None` when singular.
fn inverse(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut columns = Vec::with_capacity(n);
    for i in 0..n {
        let mut e = vec![0.0; n];
        e[i] = 1.0;
        columns.push(solve(a.to_vec(), e)?);
    }
    Some(
        (0..n)
            .map(|r| (0..n).map(|c| columns[c][r]).collect())
            .collect(),
    )
}

/// Groups of engines that met (directly or through others), when there
/// are more than one.
fn components(games: &Games) -> Vec<Vec<usize>> {
    let n = games.engines.len();
    let mut group: Vec<usize> = (0..n).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for m in &games.meetings {
        let (a, b) = (root(&mut group, m.x), root(&mut group, m.o));
        group[a] = b;
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        let r = root(&mut group, i);
        by_root.entry(r).or_default().push(i);
    }
    by_root.into_values().collect()
}

/// The maximum-likelihood fit: Newton's method from all ratings 0, each
/// step halved until the likelihood does not fall.
fn fit(games: &Games, fit_advantage: bool) -> Result<Fit, FitError> {
    let n = games.engines.len();
    if games.total() == 0 {
        return Err(FitError::NoGames);
    }
    if let [first, second, ..] = &components(games)[..] {
        let names = |g: &[usize]| g.iter().map(|&i| games.engines[i].clone()).collect();
        return Err(FitError::Disconnected(names(first), names(second)));
    }
    for (i, &(played, points, _)) in games.tally.iter().enumerate() {
        if points == 0.0 || points == played as f64 {
            let what = if points == 0.0 { "lost" } else { "won" };
            return Err(FitError::Unbounded(format!(
                "{} {what} every game it played ({played}): its rating has no bound under \
                 maximum likelihood (give it games it can {})",
                games.engines[i],
                if points == 0.0 { "score in" } else { "drop" }
            )));
        }
    }
    let k = n - 1 + usize::from(fit_advantage);
    let mut theta = vec![0.0; k];
    let (mut loglik, _, _) = derivatives(games, &theta, fit_advantage);
    let unbounded = || {
        FitError::Unbounded(
            "the results don't bound the ratings: a group of engines won (or lost) every game \
             against the rest (or every game with one colour), or the X advantage can't be told \
             from the ratings (each engine always had the same colour against another: try \
             --no-x-advantage)"
                .into(),
        )
    };
    for _ in 0..200 {
        let (_, gradient, info) = derivatives(games, &theta, fit_advantage);
        let step = solve(info, gradient).ok_or_else(unbounded)?;
        let mut scale = 1.0;
        let next = loop {
            let next: Vec<f64> = theta
                .iter()
                .zip(&step)
                .map(|(t, s)| t + scale * s)
                .collect();
            let (l, _, _) = derivatives(games, &next, fit_advantage);
            if l >= loglik - 1e-12 * loglik.abs() || scale < 1e-6 {
                loglik = l;
                break next;
            }
            scale /= 2.0;
        };
        let moved = step.iter().fold(0.0f64, |m, s| m.max((s * scale).abs()));
        theta = next;
        if theta.iter().any(|t| (t * ELO_UNIT).abs() > UNBOUNDED) {
            return Err(unbounded());
        }
        if moved < 1e-10 {
            let (_, _, info) = derivatives(games, &theta, fit_advantage);
            let inv = inverse(&info).ok_or_else(unbounded)?;
            let covariance = inv
                .iter()
                .map(|row| row.iter().map(|v| v * ELO_UNIT * ELO_UNIT).collect())
                .collect();
            let mut ratings = vec![0.0];
            ratings.extend(theta[..n - 1].iter().map(|t| t * ELO_UNIT));
            let advantage = if fit_advantage { theta[n - 1] } else { 0.0 };
            return Ok(Fit {
                ratings,
                advantage: advantage * ELO_UNIT,
                covariance,
            });
        }
    }
    Err(unbounded())
}

/// Rates the games: the list, best first, anchored as asked.
pub fn rate(games: &Games, anchor: &Anchor, fit_advantage: bool) -> Result<RatingList, FitError> {
    let games = &games.canonical();
    let n = games.engines.len();
    // The anchor as weights w: ratings r − (w·r) + level.
    let (weights, level, anchor_text) = match anchor {
        Anchor::Mean => (vec![1.0 / n as f64; n], 0.0, "mean 0".to_string()),
        Anchor::Engine { name, rating } => {
            let a = games
                .engines
                .iter()
                .position(|e| e == name)
                .ok_or_else(|| FitError::UnknownAnchor(name.clone()))?;
            let mut w = vec![0.0; n];
            w[a] = 1.0;
            (w, *rating, format!("{name} at {rating}"))
        }
    };
    let fit = fit(games, fit_advantage)?;
    // The covariance of all n ratings (engine 0 held at 0 has none).
    let full = |i: usize, j: usize| match (slot(i), slot(j)) {
        (Some(a), Some(b)) => fit.covariance[a][b],
        _ => 0.0,
    };
    let shift: f64 = weights.iter().zip(&fit.ratings).map(|(w, r)| w * r).sum();
    // Cov(r_i − w·r, r_j − w·r) for T = I − 1wᵀ.
    let cw: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| full(i, j) * weights[j]).sum())
        .collect();
    let wcw: f64 = (0..n).map(|i| weights[i] * cw[i]).sum();
    let cov = |i: usize, j: usize| full(i, j) - cw[i] - cw[j] + wcw;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| fit.ratings[b].total_cmp(&fit.ratings[a]).then(a.cmp(&b)));
    let engines = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let (played, points, draws) = games.tally[i];
            let los_next = order.get(rank + 1).map(|&j| {
                let var = full(i, i) + full(j, j) - 2.0 * full(i, j);
                let diff = fit.ratings[i] - fit.ratings[j];
                if var > 0.0 {
                    normal_cdf(diff / var.sqrt())
                } else {
                    0.5
                }
            });
            Rated {
                rank: rank + 1,
                name: games.engines[i].clone(),
                rating: fit.ratings[i] - shift + level,
                error: Z95 * cov(i, i).max(0.0).sqrt(),
                games: played,
                score: points / played as f64,
                draws: draws as f64 / played as f64,
                los_next,
            }
        })
        .collect();
    let adv_error = if fit_advantage {
        Z95 * fit.covariance[n - 1][n - 1].max(0.0).sqrt()
    } else {
        0.0
    };
    Ok(RatingList {
        model: "Maximum likelihood, logistic Elo, draws as half points (as Ordo)",
        anchor: anchor_text,
        games: games.total(),
        x_advantage: fit.advantage,
        x_advantage_error: adv_error,
        engines,
    })
}

/// The games of the files, each game once.
pub fn read_games(files: &[PathBuf]) -> anyhow::Result<Games> {
    let mut games = Games::default();
    let mut seen: HashMap<(String, usize), (usize, usize)> = HashMap::new();
    for (f, path) in files.iter().enumerate() {
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
        let past = PastGames::read(path, super::files::MAX_RECORDS_FILE)?;
        if past.records.is_empty() {
            bail!("{} holds no game records", path.display());
        }
        for (line, record) in &past.records {
            if let Some(run) = &record.run {
                if let Some((other, other_line)) =
                    seen.insert((run.clone(), record.game), (f, *line))
                {
                    bail!(
                        "game {} of run {run} is in {} line {other_line} and in {} line {line}: \
                         a file given twice, or a merged file beside its shards (each game \
                         counts once)",
                        record.game,
                        files[other].display(),
                        path.display()
                    );
                }
            }
            let score = match record.result {
                GameResult::X => 1.0,
                GameResult::O => 0.0,
                GameResult::Draw => 0.5,
            };
            games.add(&record.x, &record.o, score);
        }
    }
    Ok(games)
}

/// The list as text, Ordo's columns.
pub fn text(list: &RatingList, files: usize) -> String {
    let width = list
        .engines
        .iter()
        .map(|e| e.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut out = format!(
        "Ratings of {} games from {files} file{}; anchor: {}\n{}\n",
        list.games,
        if files == 1 { "" } else { "s" },
        list.anchor,
        list.model
    );
    out += &format!(
        "{:>4} {:<width$} {:>8} {:>7} {:>7} {:>7} {:>6} {:>7}\n",
        "#", "ENGINE", "RATING", "ERROR", "GAMES", "SCORE", "DRAWS", "LOS"
    );
    for e in &list.engines {
        let los = e
            .los_next
            .map_or(String::new(), |l| format!("{:.1}%", 100.0 * l));
        let row = format!(
            "{:>4} {:<width$} {:>8.1} {:>7.1} {:>7} {:>6.1}% {:>5.1}% {:>7}",
            e.rank,
            e.name,
            e.rating,
            e.error,
            e.games,
            100.0 * e.score,
            100.0 * e.draws,
            los
        );
        out += row.trim_end();
        out.push('\n');
    }
    if list.x_advantage_error > 0.0 {
        out += &format!(
            "X advantage: {:.1} ± {:.1} Elo\n",
            list.x_advantage, list.x_advantage_error
        );
    }
    out += "ERROR: half the 95 % interval; LOS: likelihood of superiority over the next engine\n";
    out
}

/// `referee ratings`: the list as text; the JSON written where asked.
pub fn ratings(config: &RatingsConfig) -> anyhow::Result<String> {
    if config.files.is_empty() {
        bail!("nothing to rate: give --games-out files");
    }
    if let Some(json) = &config.json {
        for input in &config.files {
            super::files::check_distinct(&[
                ("--json".to_string(), json.as_path()),
                ("the input".to_string(), input.as_path()),
            ])?;
        }
        super::files::not_a_directory("--json", json)?;
        super::files::check_writable(json)?;
    }
    let games = read_games(&config.files)?;
    let list = rate(&games, &config.anchor, config.x_advantage)?;
    if let Some(path) = &config.json {
        write_json(path, &list)?;
    }
    Ok(text(&list, config.files.len()))
}

fn write_json(path: &Path, list: &RatingList) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(list)? + "\n";
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests;
