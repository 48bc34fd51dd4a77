//! Fits the threat searcher's evaluation to game results ("Texel" tuning):
//! replays referee `--games-out` records, takes every position where the
//! search would call the evaluation (see `EvalSampler::features`), labels
//! it with the game's result for the side to move, and fits the weights by
//! logistic regression: the evaluation e (a sum of weights over the
//! position's features) predicts a win with probability 1 / (1 + e^(-e/S)),
//! S = `--scale` evaluation units a logit. The loss is the cross-entropy
//! plus an L2 penalty `--l2` on the weights (in logits), minimized by
//! full-batch Adam, keeping the weights of the checkpoint (every 250 steps,
//! and the start) with the lowest loss on the fitted positions; a tenth of
//! the games (by hash of their moves) is held out, and the loss there is
//! printed next to the current weights' (fitted with their own best scale),
//! so a fit that does not generalize shows.
//!
//! The move order is fitted in the same run, to the moves the `--teachers`
//! played (engine names of the records, comma-separated; every move when
//! not given): in each such position where the search would order quiet
//! moves, a softmax over the candidate cells (empty, near a stone) of a
//! prior per cell, the sum of two weights by the cell's classes (see
//! `EvalSampler::candidates`), `--policy-scale` units a logit; with
//! `--keep-policy` the fit is only reported and the current order written.
//!
//! ```sh
//! cargo run --release --example tune-eval -- [--out src/bots/minimax/threat/weights.rs] \
//!     [--scale 600] [--l2 0.0005] [--steps 1500] [--skip 4] \
//!     [--teachers NAME,NAME] [--policy-scale 100] [--keep-policy] \
//!     [--judges NAME,NAME] [--lambda 0.5] GAMES.jsonl ...
//! ```
//!
//! With `--judges NAME,NAME` the evaluation is fitted to a strong
//! engine's judgement as well as to results: only the positions where a
//! judge moved and reported a score (the referee's `--move-info`) are
//! fitted, each aiming at `--lambda` (default 0.5) of the game's result
//! plus the rest of the judge's score read as a probability, at the scale
//! (its units a logit) at which its scores predict the results best. A
//! judge's score after its search says far more about a position than one
//! game's result does, which is noise for every position but the last few.
//!
//! `--skip N` leaves out the first N plies after each opening (where the
//! result says least about the position). Games that ended by a fault
//! (a crash, a timeout, an illegal move) are left out; draws count 1/2.
//! scripts/tune-eval.sh says how the games were made.

use kinrow::bots::EvalSampler;
use kinrow::rules::{Board, Cell, Geometry, Rule};
use serde_json::Value;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::process::ExitCode;

struct Sample {
    /// Feature index and count.
    features: Vec<(u16, u16)>,
    /// What the fit aims at for the side to move: the game's result (1 a
    /// win, 0 a loss), or with `--judges` its blend with the judge's view.
    result: f32,
    /// A judge's score of the position for the side to move, from the
    /// record's `move_info` (infinite for a proved win or loss).
    judged: Option<f32>,
}

/// A position for the move order: the candidates' two features each, and
/// which candidate was played.
struct Choice {
    candidates: Vec<[u16; 2]>,
    played: usize,
}

struct Options {
    out: Option<String>,
    scale: f64,
    l2: f64,
    steps: usize,
    skip: usize,
    teachers: Option<Vec<String>>,
    policy_scale: f64,
    keep_policy: bool,
    judges: Option<Vec<String>>,
    lambda: f64,
    files: Vec<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        out: None,
        scale: 600.0,
        l2: 0.0005,
        steps: 1500,
        skip: 4,
        teachers: None,
        policy_scale: 100.0,
        keep_policy: false,
        judges: None,
        lambda: 0.5,
        files: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let number = |v: String, name: &str| -> Result<f64, String> {
            v.parse()
                .map_err(|_| format!("{name}: '{v}' is not a number"))
        };
        match a.as_str() {
            "--out" => o.out = Some(value("--out")?),
            "--scale" => o.scale = number(value("--scale")?, "--scale")?,
            "--l2" => o.l2 = number(value("--l2")?, "--l2")?,
            "--steps" => o.steps = number(value("--steps")?, "--steps")? as usize,
            "--skip" => o.skip = number(value("--skip")?, "--skip")? as usize,
            "--teachers" => {
                o.teachers = Some(value("--teachers")?.split(',').map(String::from).collect())
            }
            "--keep-policy" => o.keep_policy = true,
            "--judges" => {
                o.judges = Some(value("--judges")?.split(',').map(String::from).collect())
            }
            "--lambda" => o.lambda = number(value("--lambda")?, "--lambda")?,
            "--policy-scale" => {
                o.policy_scale = number(value("--policy-scale")?, "--policy-scale")?
            }
            f if !f.starts_with("--") => o.files.push(f.to_string()),
            f => return Err(format!("unknown flag {f}")),
        }
    }
    if o.files.is_empty() {
        return Err("usage: tune-eval [--out FILE] [--scale S] [--l2 L] [--steps N] [--skip N] GAMES.jsonl ...".into());
    }
    if !(o.scale > 0.0 && o.policy_scale > 0.0) {
        return Err("--scale and --policy-scale must be positive".into());
    }
    if !(0.0..=1.0).contains(&o.lambda) {
        return Err("--lambda must be between 0 and 1".into());
    }
    Ok(o)
}

/// The cells of a record's `[[r, c], ...]` list (1-based in the records).
fn cells(v: &Value) -> Option<Vec<Cell>> {
    v.as_array()?
        .iter()
        .map(|rc| {
            let r = rc.get(0)?.as_u64()?;
            let c = rc.get(1)?.as_u64()?;
            (r >= 1 && c >= 1).then(|| Cell::new((r - 1) as u8, (c - 1) as u8))
        })
        .collect()
}

/// What one game gives: positions with the result, positions with the
/// move a teacher chose, and whether the game is held out.
struct GameData {
    samples: Vec<Sample>,
    choices: Vec<Choice>,
    held_out: bool,
}

/// The samples of one game record; `None` for a record that is not a
/// finished game.
fn game_samples(rec: &Value, o: &Options) -> Option<GameData> {
    let skip = o.skip;
    rec.get("game")?;
    let reason = rec.get("reason")?.as_str()?;
    if reason != "win" && reason != "draw" {
        return None;
    }
    let b = rec.get("board")?;
    let rule = match b.get("rule")?.as_str()? {
        "exact" => Rule::Exact,
        _ => Rule::Free,
    };
    let n = |k: &str| b.get(k).and_then(Value::as_u64).map(|v| v as u32);
    let geometry = Geometry::new(n("rows")?, n("cols")?, n("k")?, rule).ok()?;
    let result = rec.get("result")?.as_str()?;
    let opening = cells(rec.get("opening")?)?;
    let moves = cells(rec.get("moves")?)?;
    let mut hasher = DefaultHasher::new();
    for c in opening.iter().chain(&moves) {
        (c.row, c.col).hash(&mut hasher);
    }
    let held_out = hasher.finish().is_multiple_of(10);
    let mut board = Board::new(geometry);
    for &c in &opening {
        board.try_play(c).ok()?;
    }
    let names = [rec.get("x")?.as_str()?, rec.get("o")?.as_str()?];
    let infos = rec.get("move_info").and_then(Value::as_array);
    let mut sampler = EvalSampler::new(&board);
    let mut samples = Vec::new();
    let mut choices = Vec::new();
    for (i, &c) in moves.iter().enumerate() {
        let mover = names[sampler.board().to_move().index()];
        let teacher = o
            .teachers
            .as_ref()
            .is_none_or(|t| t.iter().any(|n| n == mover));
        if teacher {
            if let Some(candidates) = sampler.candidates() {
                if let Some(played) = candidates.iter().position(|k| k.0 == c) {
                    let candidates = candidates.into_iter().map(|k| k.1).collect();
                    choices.push(Choice { candidates, played });
                }
            }
        }
        if i >= skip {
            if let Some(features) = sampler.features() {
                let x_to_move = sampler.board().to_move() == kinrow::rules::Player::X;
                let r = match result {
                    "x" => 1.0,
                    "o" => 0.0,
                    _ => 0.5,
                };
                let result = if x_to_move { r } else { 1.0 - r };
                let judge = o
                    .judges
                    .as_ref()
                    .is_some_and(|j| j.iter().any(|n| n == mover));
                let judged = infos
                    .filter(|_| judge)
                    .and_then(|m| m.get(i))
                    .and_then(|info| judged_score(info.get("score")?));
                samples.push(Sample {
                    features,
                    result,
                    judged,
                });
            }
        }
        sampler.play(c).ok()?;
    }
    Some(GameData {
        samples,
        choices,
        held_out,
    })
}

/// A `move_info` score: a number, or "win in N" / "loss in N".
fn judged_score(v: &Value) -> Option<f32> {
    match v {
        Value::Number(n) => n.as_f64().map(|x| x as f32),
        Value::String(t) if t.starts_with("win") => Some(f32::INFINITY),
        Value::String(t) if t.starts_with("loss") => Some(f32::NEG_INFINITY),
        _ => None,
    }
}

/// The scale (the judge's units a logit) at which the judge's scores best
/// predict the results, by a golden-section search as in `best_scale`.
fn judge_scale(samples: &[Sample]) -> f64 {
    let loss = |scale: f64| {
        let mut total = 0.0;
        for s in samples {
            let p = sigmoid(s.judged.unwrap_or(0.0) as f64 / scale).clamp(1e-12, 1.0 - 1e-12);
            let y = s.result as f64;
            total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
        total
    };
    let (mut lo, mut hi) = (1.0f64.ln(), 1e6f64.ln());
    let g = 0.618_033_988_75;
    for _ in 0..60 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if loss(a.exp()) < loss(b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// With `--judges`: only the judged positions, each aiming at `lambda` of
/// its result and the rest of the judge's score read as a probability (at
/// the scale that fits the results best). Returns that scale.
fn blend_judged(train: &mut Vec<Sample>, test: &mut Vec<Sample>, lambda: f64) -> f64 {
    train.retain(|s| s.judged.is_some());
    test.retain(|s| s.judged.is_some());
    let scale = judge_scale(train);
    for s in train.iter_mut().chain(test.iter_mut()) {
        let p = sigmoid(s.judged.unwrap_or(0.0) as f64 / scale);
        s.result = (lambda * s.result as f64 + (1.0 - lambda) * p) as f32;
    }
    scale
}

fn percents(p: [f64; 3]) -> String {
    let p: Vec<String> = p.iter().map(|v| format!("{:.1} %", 100.0 * v)).collect();
    p.join(", ")
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean cross-entropy of weights `w` (evaluation units) at `scale`.
fn loss(samples: &[Sample], w: &[f64], scale: f64) -> f64 {
    let mut total = 0.0;
    for s in samples {
        let e: f64 = s
            .features
            .iter()
            .map(|&(i, n)| w[i as usize] * n as f64)
            .sum();
        let p = sigmoid(e / scale).clamp(1e-12, 1.0 - 1e-12);
        let y = s.result as f64;
        total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    total / samples.len().max(1) as f64
}

/// The scale at which weights `w` fit best (a golden-section search on the
/// log of the scale).
fn best_scale(samples: &[Sample], w: &[f64]) -> f64 {
    let (mut lo, mut hi) = (1.0f64.ln(), 1e6f64.ln());
    let g = 0.618_033_988_75;
    for _ in 0..60 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if loss(samples, w, a.exp()) < loss(samples, w, b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// Mean cross-entropy of the move order's weights `w` (units) at `scale`,
/// and how often the played move ranks among the first 1, 3 and 12 (the
/// search's beam below the root).
fn policy_loss(choices: &[Choice], w: &[f64], scale: f64) -> (f64, [f64; 3]) {
    let (mut total, mut top) = (0.0, [0usize; 3]);
    for c in choices {
        let z: Vec<f64> = c
            .candidates
            .iter()
            .map(|f| (w[f[0] as usize] + w[f[1] as usize]) / scale)
            .collect();
        let max = z.iter().copied().fold(f64::MIN, f64::max);
        let sum: f64 = z.iter().map(|v| (v - max).exp()).sum();
        total -= z[c.played] - max - sum.ln();
        let better = z.iter().filter(|&&v| v > z[c.played]).count();
        for (t, k) in top.iter_mut().zip([1, 3, 12]) {
            if better < k {
                *t += 1;
            }
        }
    }
    let n = choices.len().max(1) as f64;
    (total / n, top.map(|t| t as f64 / n))
}

/// Adam's state for one vector of weights.
struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
    step: i32,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            step: 0,
        }
    }

    fn update(&mut self, w: &mut [f64], grad: &[f64], rate: f64) {
        let (b1, b2, eps) = (0.9, 0.999, 1e-8);
        self.step += 1;
        for i in 0..w.len() {
            let g = grad[i];
            self.m[i] = b1 * self.m[i] + (1.0 - b1) * g;
            self.v[i] = b2 * self.v[i] + (1.0 - b2) * g * g;
            let mh = self.m[i] / (1.0 - b1.powi(self.step));
            let vh = self.v[i] / (1.0 - b2.powi(self.step));
            w[i] -= rate * mh / (vh.sqrt() + eps);
        }
    }
}

/// The scale at which the move order's weights `w` fit best.
fn best_policy_scale(choices: &[Choice], w: &[f64]) -> f64 {
    let (mut lo, mut hi) = (1.0f64.ln(), 1e6f64.ln());
    let g = 0.618_033_988_75;
    for _ in 0..60 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if policy_loss(choices, w, a.exp()).0 < policy_loss(choices, w, b.exp()).0 {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// Fits the move order's weights (in logits) by full-batch Adam: the best
/// checkpoint's weights, and its step.
fn fit_policy(choices: &[Choice], start: Vec<f64>, l2: f64, steps: usize) -> (Vec<f64>, usize) {
    let mut w = start;
    let features = w.len();
    let mut adam = Adam::new(features);
    let n = choices.len().max(1) as f64;
    let mut z = Vec::new();
    let mut best = Best::new(policy_loss(choices, &w, 1.0).0, &w);
    for step in 1..=steps {
        let mut grad: Vec<f64> = w.iter().map(|x| 2.0 * l2 * x * n).collect();
        for c in choices {
            z.clear();
            z.extend(
                c.candidates
                    .iter()
                    .map(|f| w[f[0] as usize] + w[f[1] as usize]),
            );
            let max = z.iter().copied().fold(f64::MIN, f64::max);
            let sum: f64 = z.iter().map(|v| (v - max).exp()).sum();
            for (j, f) in c.candidates.iter().enumerate() {
                let p = (z[j] - max).exp() / sum;
                let g = p - if j == c.played { 1.0 } else { 0.0 };
                grad[f[0] as usize] += g;
                grad[f[1] as usize] += g;
            }
        }
        for g in grad.iter_mut() {
            *g /= n;
        }
        adam.update(&mut w, &grad, 0.02);
        if step % CHECKPOINT == 0 || step == steps {
            let fitted = policy_loss(choices, &w, 1.0).0;
            eprintln!("policy step {step}: loss {fitted:.5}");
            best.offer(step, fitted, &w);
        }
    }
    best.take("policy")
}

/// Fits weights (in logits) by full-batch Adam: the best checkpoint's
/// weights, and its step.
fn fit(samples: &[Sample], start: Vec<f64>, l2: f64, steps: usize) -> (Vec<f64>, usize) {
    let mut w = start;
    let features = w.len();
    let mut adam = Adam::new(features);
    let n = samples.len() as f64;
    let mut best = Best::new(loss(samples, &w, 1.0), &w);
    for step in 1..=steps {
        let mut grad: Vec<f64> = w.iter().map(|x| 2.0 * l2 * x * n).collect();
        for s in samples {
            let e: f64 = s
                .features
                .iter()
                .map(|&(i, c)| w[i as usize] * c as f64)
                .sum();
            let err = sigmoid(e) - s.result as f64;
            for &(i, c) in &s.features {
                grad[i as usize] += err * c as f64;
            }
        }
        for g in grad.iter_mut() {
            *g /= n;
        }
        adam.update(&mut w, &grad, 0.02);
        if step % CHECKPOINT == 0 || step == steps {
            let fitted = loss(samples, &w, 1.0);
            eprintln!("step {step}: loss {fitted:.5}");
            best.offer(step, fitted, &w);
        }
    }
    best.take("evaluation")
}

/// Steps between the fits' checkpoints, where the loss is printed and the
/// best weights so far are kept.
const CHECKPOINT: usize = 250;

/// The weights of the checkpoint (or the start) with the lowest loss on
/// the fitted data: full-batch Adam at a constant rate can climb again late
/// in a fit (on 35,000 games the loss went from 0.5620 at step 1000 to
/// 0.5936 at step 1500), and the last step's weights were then worse than
/// the start.
struct Best {
    step: usize,
    loss: f64,
    w: Vec<f64>,
}

impl Best {
    fn new(loss: f64, w: &[f64]) -> Best {
        Best {
            step: 0,
            loss,
            w: w.to_vec(),
        }
    }

    fn offer(&mut self, step: usize, loss: f64, w: &[f64]) {
        if loss < self.loss {
            *self = Best {
                step,
                loss,
                w: w.to_vec(),
            };
        }
    }

    /// The weights and the step they come from.
    fn take(self, what: &str) -> (Vec<f64>, usize) {
        eprintln!(
            "{what}: the weights of step {} kept (loss {:.5})",
            self.step, self.loss
        );
        (self.w, self.step)
    }
}

fn run(o: Options) -> Result<(), String> {
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let (mut train_choices, mut test_choices) = (Vec::new(), Vec::new());
    let mut games = 0;
    for path in &o.files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let rec: Value = serde_json::from_str(line).map_err(|e| format!("{path}: {e}"))?;
            if let Some(g) = game_samples(&rec, &o) {
                games += 1;
                if g.held_out {
                    test.extend(g.samples);
                    test_choices.extend(g.choices);
                } else {
                    train.extend(g.samples);
                    train_choices.extend(g.choices);
                }
            }
        }
    }
    eprintln!(
        "{games} games: {} positions to fit, {} held out; {} moves to imitate, {} held out",
        train.len(),
        test.len(),
        train_choices.len(),
        test_choices.len()
    );
    let judged = match &o.judges {
        Some(names) => {
            let scale = blend_judged(&mut train, &mut test, o.lambda);
            let text = format!(
                " Each position aims at {} of the game's result and {} of the score of {} \
                 (who moved there), read at {scale:.0} of its units a logit (the scale at \
                 which its scores fit the results best).",
                o.lambda,
                1.0 - o.lambda,
                names.join(", ")
            );
            eprintln!(
                "judged positions: {} to fit, {} held out;{text}",
                train.len(),
                test.len()
            );
            text
        }
        None => String::new(),
    };
    if train.is_empty() {
        return Err("no positions".into());
    }
    let current = EvalSampler::weights();
    let s0 = best_scale(&train, &current);
    let features = EvalSampler::FEATURES;
    // From the current weights (in logits at their best scale).
    let start = current.iter().map(|x| x / s0).collect();
    let (w, kept) = fit(&train, start, o.l2, o.steps);
    let units: Vec<f64> = w.iter().map(|x| x * o.scale).collect();
    let report = format!(
        "{games} games, {} positions fitted, {} held out; cross-entropy on the held-out \
         positions: {:.4} (the weights before, at their best scale {s0:.0}: {:.4}); \
         on the fitted ones {:.4} ({:.4}). Scale {} a logit, L2 {}, {} steps (the weights of \
         step {kept} kept, the lowest loss on the fitted positions), {} plies skipped after \
         the opening.{judged}",
        train.len(),
        test.len(),
        loss(&test, &units, o.scale),
        loss(&test, &current, s0),
        loss(&train, &units, o.scale),
        loss(&train, &current, s0),
        o.scale,
        o.l2,
        o.steps,
        o.skip,
    );
    let prior = EvalSampler::policy_weights();
    let p0 = best_policy_scale(&train_choices, &prior);
    let start = prior.iter().map(|x| x / p0).collect();
    let (pw, policy_kept) = fit_policy(&train_choices, start, o.l2, o.steps);
    let policy: Vec<f64> = pw.iter().map(|x| x * o.policy_scale).collect();
    let (new_test, new_top) = policy_loss(&test_choices, &policy, o.policy_scale);
    let (old_test, old_top) = policy_loss(&test_choices, &prior, p0);
    let report = format!(
        "{report}\nMove order: {} moves imitated{}, {} held out; on those, cross-entropy \
         {new_test:.4} and the move played ranked first, in the first 3 and in the first 12 \
         {} of the time (the order before, at its best scale {p0:.0}: {old_test:.4}, {}). \
         Scale {} a logit; the weights of step {policy_kept} kept.",
        train_choices.len(),
        match &o.teachers {
            Some(t) => format!(" (the moves of {})", t.join(", ")),
            None => String::new(),
        },
        test_choices.len(),
        percents(new_top),
        percents(old_top),
        o.policy_scale,
    );
    eprintln!("{report}");
    let mut ranked: Vec<usize> = (0..features).collect();
    ranked.sort_by(|&a, &b| units[b].abs().total_cmp(&units[a].abs()));
    for &i in ranked.iter().take(25) {
        eprintln!("{:>7.0}  {}", units[i], EvalSampler::feature_name(i));
    }
    let (policy, report) = if o.keep_policy {
        let kept =
            "\nThe move order is kept as it was (--keep-policy): the fit above was not taken.";
        (prior, format!("{report}{kept}"))
    } else {
        (policy, report)
    };
    let source = EvalSampler::weights_source(&units, &policy, &report);
    match &o.out {
        Some(path) => std::fs::write(path, source).map_err(|e| format!("{path}: {e}"))?,
        None => print!("{source}"),
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse_args().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tune-eval: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(score: f32, result: f32) -> Sample {
        Sample {
            features: Vec::new(),
            result,
            judged: Some(score),
        }
    }

    #[test]
    fn scores_read_as_numbers_or_proofs() {
        assert_eq!(judged_score(&serde_json::json!(-93)), Some(-93.0));
        assert_eq!(
            judged_score(&serde_json::json!("win in 19")),
            Some(f32::INFINITY)
        );
        assert_eq!(
            judged_score(&serde_json::json!("loss in 4")),
            Some(f32::NEG_INFINITY)
        );
        assert_eq!(judged_score(&Value::Null), None);
    }

    #[test]
    fn the_judges_scale_is_the_one_its_results_follow() {
        // Results drawn so that a score s wins with probability
        // sigmoid(s / 150): the fitted scale comes back near 150.
        let mut state = 12345u64;
        let mut uniform = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let samples: Vec<Sample> = (0..20_000)
            .map(|i| {
                let s = (i % 801) as f64 - 400.0;
                let won = uniform() < sigmoid(s / 150.0);
                judged(s as f32, if won { 1.0 } else { 0.0 })
            })
            .collect();
        let scale = judge_scale(&samples);
        assert!((135.0..165.0).contains(&scale), "scale {scale}");
    }

    #[test]
    fn labels_blend_the_result_with_the_judge() {
        let unjudged = Sample {
            features: Vec::new(),
            result: 1.0,
            judged: None,
        };
        // Two wins in three at +200, two losses in three at -200: the scale
        // is 200 / ln 2, where sigmoid(200 / scale) = 2/3.
        let mut train = vec![
            judged(200.0, 1.0),
            judged(200.0, 1.0),
            judged(200.0, 0.0),
            judged(-200.0, 0.0),
            judged(-200.0, 0.0),
            judged(-200.0, 1.0),
            judged(f32::INFINITY, 0.0),
            unjudged,
        ];
        let mut test = vec![judged(0.0, 1.0)];
        let scale = blend_judged(&mut train, &mut test, 0.25);
        assert!((scale - 200.0 / 2f64.ln()).abs() < 1.0, "scale {scale}");
        assert_eq!(train.len(), 7, "positions no judge scored are left out");
        assert!((train[0].result - (0.25 + 0.75 * 2.0 / 3.0)).abs() < 1e-4);
        assert!((train[2].result - 0.75 * 2.0 / 3.0).abs() < 1e-4);
        // A proof counts as certain; a level score as even.
        assert_eq!(train[6].result, 0.75);
        assert_eq!(test[0].result, 0.25 + 0.75 * 0.5);
    }

    #[test]
    fn a_fit_keeps_its_best_checkpoint_not_its_last() {
        let mut best = Best::new(0.50, &[1.0]);
        best.offer(250, 0.40, &[2.0]);
        best.offer(500, 0.45, &[3.0]);
        assert_eq!(best.take("test"), (vec![2.0], 250));
        // A fit that never does better than its start keeps the start.
        let mut best = Best::new(0.50, &[1.0]);
        best.offer(250, 0.60, &[2.0]);
        assert_eq!(best.take("test"), (vec![1.0], 0));
    }
}
