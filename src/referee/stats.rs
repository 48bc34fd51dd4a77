//! Match statistics as pure functions (DESIGN §4; the formulas of fastchess):
//! score, Elo difference with its 95 % error, likelihood of superiority,
//! pentanomial counts over game pairs, and the SPRT log-likelihood ratio.
//!
//! Everything stays finite. The normal approximation breaks down when every
//! game (or pair) scored the same — 100 % draws is the normal case for
//! tic-tac-toe, and 0 % or 100 % score happen between unequal bots — because
//! the sample variance is then 0. In that case the estimate is made with half
//! a win and half a loss added (a continuity correction): 100 draws give
//! 0 ± 6.7 Elo rather than a false 0 ± 0, and 100 wins give a large but finite
//! estimate with a wide error instead of +∞. Elo values are clamped to
//! ±[`ELO_LIMIT`].

use serde::{Deserialize, Serialize};

/// Largest Elo difference reported (the score 1 − 10⁻⁵ and up).
pub const ELO_LIMIT: f64 = 2000.0;
/// The two-sided 95 % quantile of the normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Game results from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The same games from the other side.
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Adds one game scored 1, ½ or 0 (anything else counts by its nearest).
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Points scored: wins + draws/2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// The share of draws (0 with no games).
    pub fn draw_ratio(&self) -> f64 {
        ratio(self.draws, self.games())
    }

    /// Score, Elo, error and LOS; `None` without games.
    pub fn estimate(&self) -> Option<Estimate> {
        estimate(&[
            (1.0, self.wins as f64),
            (0.5, self.draws as f64),
            (0.0, self.losses as f64),
        ])
    }
}

/// Pair scores over game pairs (the same opening with colours swapped):
/// `counts[i]` is the number of pairs that scored `i/4` (0, ¼, ½, ¾, 1) —
/// i.e. lost both, lost one and drew one, …, won both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair from its two game scores (each 0, ½ or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let quarters = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        if let Some(slot) = self.0.get_mut(quarters) {
            *slot += 1;
        }
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The same pairs from the other side.
    pub fn flipped(&self) -> Pentanomial {
        let mut c = self.0;
        c.reverse();
        Pentanomial(c)
    }

    /// Score, Elo, error and LOS over pairs; `None` without pairs.
    pub fn estimate(&self) -> Option<Estimate> {
        estimate(&self.distribution())
    }

    fn distribution(&self) -> [(f64, f64); 5] {
        let mut d = [(0.0, 0.0); 5];
        for (i, (slot, &n)) in d.iter_mut().zip(self.0.iter()).enumerate() {
            *slot = (i as f64 / 4.0, n as f64);
        }
        d
    }
}

/// What a sample says about the strength difference.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Mean score per game (or per pair), 0 to 1, as observed.
    pub score: f64,
    /// Elo difference (±[`ELO_LIMIT`] at most).
    pub elo: f64,
    /// Half the width of the 95 % confidence interval of `elo`.
    pub elo_error: f64,
    /// Likelihood of superiority, 0 to 1.
    pub los: f64,
    /// Every game (pair) scored the same, so half a win and half a loss were
    /// added to get a usable variance.
    pub corrected: bool,
}

/// The Elo difference that gives the expected score `score`,
/// −400·log10(1/s − 1), clamped to ±[`ELO_LIMIT`] (so 0 and 1 are finite).
pub fn elo_from_score(score: f64) -> f64 {
    if score.is_nan() {
        return 0.0;
    }
    let s = score.clamp(0.0, 1.0);
    (-400.0 * (1.0 / s - 1.0).log10()).clamp(-ELO_LIMIT, ELO_LIMIT)
}

/// The expected score of an Elo difference (logistic model).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal distribution function Φ.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function (Chebyshev fit, Numerical Recipes
/// `erfcc`; relative error below 1.2·10⁻⁷ everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Mean, variance per observation and observation count of a distribution
/// of `(value, count)`, with the continuity correction applied when every
/// observation is the same; `None` when empty.
fn moments(dist: &[(f64, f64)]) -> Option<(f64, f64, f64, bool)> {
    let raw = |extra: f64| {
        let n: f64 = dist.iter().map(|&(_, c)| c).sum::<f64>() + 2.0 * extra;
        let mean = (dist.iter().map(|&(v, c)| v * c).sum::<f64>() + extra) / n;
        let var = (dist
            .iter()
            .map(|&(v, c)| c * (v - mean).powi(2))
            .sum::<f64>()
            + extra * (mean.powi(2) + (1.0 - mean).powi(2)))
            / n;
        (mean, var, n)
    };
    let (mean, var, n) = raw(0.0);
    if n.is_nan() || n <= 0.0 {
        return None;
    }
    if var > 1e-15 {
        return Some((mean, var, n, false));
    }
    let (mean, var, n) = raw(0.5);
    Some((mean, var, n, true))
}

/// Score, Elo difference, 95 % error and LOS of a distribution of
/// `(value, count)` with values in [0, 1] (games: 1, ½, 0; pairs: 0 … 1).
pub fn estimate(dist: &[(f64, f64)]) -> Option<Estimate> {
    let observed = {
        let n: f64 = dist.iter().map(|&(_, c)| c).sum();
        dist.iter().map(|&(v, c)| v * c).sum::<f64>() / n
    };
    let (mean, var, n, corrected) = moments(dist)?;
    let sd = (var / n).sqrt();
    Some(Estimate {
        score: observed,
        elo: elo_from_score(mean),
        elo_error: (elo_from_score(mean + Z95 * sd) - elo_from_score(mean - Z95 * sd)) / 2.0,
        los: normal_cdf((mean - 0.5) / sd),
        corrected,
    })
}

/// A sequential probability ratio test between Elo `elo0` (H0) and `elo1`
/// (H1) with error rates `alpha` and `beta`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// Not decided yet.
    Continue,
    /// H0 accepted: not stronger by `elo1`.
    H0,
    /// H1 accepted: stronger by at least about `elo1`.
    H1,
}

impl Sprt {
    /// Checks the parameters: elo0 < elo1, alpha and beta in (0, 1) with
    /// alpha + beta < 1.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        let all_finite = [elo0, elo1, alpha, beta].iter().all(|v| v.is_finite());
        if !all_finite || elo0 >= elo1 {
            return Err("SPRT needs elo0 < elo1".into());
        }
        if !(alpha > 0.0 && beta > 0.0 && alpha + beta < 1.0) {
            return Err("SPRT needs alpha, beta > 0 and alpha + beta < 1".into());
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The lower bound ln(β/(1−α)): H0 is accepted at or below it.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The upper bound ln((1−β)/α): H1 is accepted at or above it.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The generalised SPRT log-likelihood ratio (logistic Elo, normal
    /// approximation as in fastchess): N·(s1−s0)·(2μ−s0−s1)/(2σ²) over the
    /// pentanomial pairs; 0 without pairs.
    pub fn llr(&self, penta: &Pentanomial) -> f64 {
        let Some((mean, var, n, _)) = moments(&penta.distribution()) else {
            return 0.0;
        };
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::H1
        } else if llr <= self.lower_bound() {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn wdl(wins: u64, draws: u64, losses: u64) -> Estimate {
        Wdl {
            wins,
            draws,
            losses,
        }
        .estimate()
        .unwrap()
    }

    // Expected values below were worked out by hand from the formulas in
    // DESIGN §4 (μ, σ², Elo(μ ± 1.96·σ/√N)/2, Φ), to 0.01 Elo.

    #[test]
    fn even_match() {
        // μ = 0.5, σ² = 0.25·0.25 + 0.25·0.25 = 0.125, σ/√N = 0.0559.
        let e = wdl(10, 20, 10);
        assert_eq!(e.score, 0.5);
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(close(e.elo_error, 77.39, 0.01), "{e:?}");
        assert!(close(e.los, 0.5, 1e-6));
        assert!(!e.corrected);
    }

    #[test]
    fn lopsided_match() {
        // μ = 0.7, σ² = 0.6·0.09 + 0.2·0.04 + 0.2·0.49 = 0.16.
        let e = wdl(30, 10, 10);
        assert!(close(e.score, 0.7, 1e-12));
        assert!(close(e.elo, 147.19, 0.01));
        assert!(close(e.elo_error, 95.14, 0.01));
        assert!(close(e.los, 0.99980, 1e-5));
        // The other side's view mirrors it.
        let f = Wdl {
            wins: 10,
            draws: 10,
            losses: 30,
        }
        .estimate()
        .unwrap();
        assert!(close(f.elo, -147.19, 0.01) && close(f.los, 1.0 - e.los, 1e-7));
    }

    #[test]
    fn all_draws_are_finite_with_an_honest_error() {
        // Corrected: 100 draws + ½ win + ½ loss, σ² = 0.25/101.
        let e = wdl(0, 100, 0);
        assert!(e.corrected);
        assert_eq!(e.score, 0.5);
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(close(e.elo_error, 6.74, 0.01), "{e:?}");
        assert!(close(e.los, 0.5, 1e-6));
    }

    #[test]
    fn all_wins_and_all_losses_stay_finite() {
        let e = wdl(100, 0, 0);
        assert_eq!(e.score, 1.0);
        assert!(e.corrected);
        assert!(close(e.elo, 921.28, 0.01), "{e:?}");
        assert!(close(e.elo_error, 655.72, 0.01), "{e:?}");
        assert!(e.los > 0.999_999 && e.los <= 1.0);
        let e = wdl(0, 0, 7);
        assert_eq!(e.score, 0.0);
        assert!(close(e.elo, -470.44, 0.01), "{e:?}");
        assert!(close(e.elo_error, 895.17, 0.01), "{e:?}");
        assert!(close(e.los, 1.593e-7, 1e-9));
        for e in [wdl(1, 0, 0), wdl(0, 1, 0), wdl(0, 0, 1), wdl(3, 1, 0)] {
            assert!(e.elo.is_finite() && e.elo_error.is_finite() && e.los.is_finite());
        }
    }

    #[test]
    fn no_games_no_estimate() {
        assert_eq!(Wdl::default().estimate(), None);
        assert_eq!(Pentanomial::default().estimate(), None);
        assert_eq!(Wdl::default().draw_ratio(), 0.0);
    }

    #[test]
    fn elo_function_edges() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.75), 190.85, 0.01));
        assert_eq!(elo_from_score(1.0), ELO_LIMIT);
        assert_eq!(elo_from_score(0.0), -ELO_LIMIT);
        assert_eq!(elo_from_score(1.5), ELO_LIMIT);
        assert_eq!(elo_from_score(-0.5), -ELO_LIMIT);
        assert_eq!(elo_from_score(f64::NAN), 0.0);
        assert!(close(score_from_elo(elo_from_score(0.3)), 0.3, 1e-12));
    }

    #[test]
    fn normal_cdf_known_values() {
        assert!(close(normal_cdf(0.0), 0.5, 1e-7));
        assert!(close(normal_cdf(1.96), 0.975_002, 1e-6));
        assert!(close(normal_cdf(-1.0), 0.158_655, 1e-6));
        assert!(close(normal_cdf(40.0), 1.0, 1e-12));
        assert!(normal_cdf(-40.0) >= 0.0);
    }

    #[test]
    fn pentanomial_counts_and_estimate() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 1.0);
        p.add_pair(0.5, 1.0);
        p.add_pair(0.0, 1.0);
        p.add_pair(0.5, 0.5);
        p.add_pair(0.0, 0.5);
        p.add_pair(0.0, 0.0);
        assert_eq!(p.0, [1, 1, 2, 1, 1]);
        assert_eq!(p.flipped().0, [1, 1, 2, 1, 1]);
        // Pairs 1, 2, 10, 5, 2: μ = 0.5625, σ² = 0.05547 per pair, N = 20.
        let e = Pentanomial([1, 2, 10, 5, 2]).estimate().unwrap();
        assert!(close(e.score, 0.5625, 1e-12));
        assert!(close(e.elo, 43.66, 0.01));
        assert!(close(e.elo_error, 74.02, 0.01));
        assert!(close(e.los, 0.88234, 1e-4));
        let all_drawn = Pentanomial([0, 0, 9, 0, 0]).estimate().unwrap();
        assert!(all_drawn.corrected && all_drawn.elo_error.is_finite());
    }

    #[test]
    fn sprt_bounds_llr_and_decisions() {
        let s = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        assert!(close(s.lower_bound(), -2.944_44, 1e-5));
        assert!(close(s.upper_bound(), 2.944_44, 1e-5));
        assert!(close(s.llr(&Pentanomial([1, 2, 10, 5, 2])), 0.2869, 1e-4));
        assert_eq!(s.decide(0.2869), SprtDecision::Continue);
        // 100 drawn pairs: clearly not +10 Elo (corrected variance).
        let llr = s.llr(&Pentanomial([0, 0, 100, 0, 0]));
        assert!(close(llr, -4.2230, 1e-4));
        assert_eq!(s.decide(llr), SprtDecision::H0);
        let s20 = Sprt::new(0.0, 20.0, 0.05, 0.05).unwrap();
        let llr = s20.llr(&Pentanomial([5, 10, 30, 40, 15]));
        assert!(close(llr, 4.8465, 1e-4));
        assert_eq!(s20.decide(llr), SprtDecision::H1);
        assert_eq!(s.llr(&Pentanomial::default()), 0.0);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.6, 0.5).is_err());
        assert!(Sprt::new(f64::NAN, 5.0, 0.05, 0.05).is_err());
    }

    #[test]
    fn wdl_bookkeeping() {
        let mut w = Wdl::default();
        for s in [1.0, 0.5, 0.0, 1.0] {
            w.add(s);
        }
        assert_eq!((w.wins, w.draws, w.losses), (2, 1, 1));
        assert_eq!(w.points(), 2.5);
        assert_eq!(w.flipped().wins, 1);
        assert_eq!(w.draw_ratio(), 0.25);
    }
}
