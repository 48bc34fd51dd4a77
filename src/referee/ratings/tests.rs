//! The fit against closed forms and against synthetic tournaments whose
//! true ratings are known (results drawn by a seeded generator).

use super::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn logit_elo(p: f64) -> f64 {
    ELO_UNIT * (p / (1.0 - p)).ln()
}

fn by_name<'a>(list: &'a RatingList, name: &str) -> &'a Rated {
    list.engines.iter().find(|e| e.name == name).unwrap()
}

fn games_of(results: &[(&str, &str, f64, u64)]) -> Games {
    let mut games = Games::default();
    for &(x, o, score, n) in results {
        for _ in 0..n {
            games.add(x, o, score);
        }
    }
    games
}

#[test]
fn two_engines_match_the_closed_form() {
    // a scores 75 % as X against b: 400·log10(3) Elo apart.
    let games = games_of(&[
        ("a", "b", 1.0, 60),
        ("a", "b", 0.5, 30),
        ("a", "b", 0.0, 10),
    ]);
    let list = rate(&games, &Anchor::Mean, false).unwrap();
    let diff = 400.0 * 3f64.log10();
    assert!(
        (by_name(&list, "a").rating - diff / 2.0).abs() < 1e-6,
        "{list:?}"
    );
    assert!((by_name(&list, "b").rating + diff / 2.0).abs() < 1e-6);
    // The error of a difference from n games at score p: 1/sqrt(n p q) in
    // natural units; each of two mean-anchored ratings carries half.
    let sd = ELO_UNIT / (100.0f64 * 0.75 * 0.25).sqrt();
    assert!((by_name(&list, "a").error - Z95 * sd / 2.0).abs() < 1e-6);
    let los = list.engines[0].los_next.unwrap();
    assert!((los - normal_cdf(diff / sd)).abs() < 1e-9);
    assert_eq!(
        (list.engines[0].name.as_str(), list.engines[1].los_next),
        ("a", None)
    );
    // Anchored at b = 1000: a is the difference above it, b has no error.
    let anchor: Anchor = "b=1000".parse().unwrap();
    let list = rate(&games, &anchor, false).unwrap();
    assert!((by_name(&list, "a").rating - 1000.0 - diff).abs() < 1e-6);
    assert_eq!(by_name(&list, "b").rating, 1000.0);
    assert!(by_name(&list, "b").error.abs() < 1e-9);
    assert!((by_name(&list, "a").error - Z95 * sd).abs() < 1e-6);
}

#[test]
fn the_x_advantage_is_told_from_the_ratings() {
    // a as X scores 80 % against b, as O 60 %: d = r + A and −(−r + A).
    let games = games_of(&[
        ("a", "b", 1.0, 80),
        ("a", "b", 0.0, 20),
        ("b", "a", 1.0, 40),
        ("b", "a", 0.0, 60),
    ]);
    let list = rate(&games, &Anchor::Mean, true).unwrap();
    let (first, second) = (logit_elo(0.8), logit_elo(0.4));
    let r = (first - second) / 2.0;
    let advantage = (first + second) / 2.0;
    assert!((list.x_advantage - advantage).abs() < 1e-6, "{list:?}");
    assert!((by_name(&list, "a").rating - r / 2.0).abs() < 1e-6);
    assert!(list.x_advantage_error > 0.0);
    // Without it the two colours are pooled: a scored 70 %.
    let list = rate(&games, &Anchor::Mean, false).unwrap();
    assert!((by_name(&list, "a").rating - logit_elo(0.7) / 2.0).abs() < 1e-6);
    assert_eq!((list.x_advantage, list.x_advantage_error), (0.0, 0.0));
}

/// A synthetic tournament: `pairs` colour-swapped pairs of games between
/// the engines `meet` names, results drawn from the model with `truth`,
/// X's advantage `advantage` and draws at `draw_rate` (where the expected
/// score allows it), so the expected score is the model's.
fn tournament(
    rng: &mut SmallRng,
    truth: &[f64],
    meet: &[(usize, usize)],
    pairs: u64,
    advantage: f64,
    draw_rate: f64,
) -> Games {
    let mut games = Games::default();
    play(&mut games, rng, truth, meet, pairs, advantage, draw_rate);
    games
}

/// [`tournament`]'s games, added to `games`.
fn play(
    games: &mut Games,
    rng: &mut SmallRng,
    truth: &[f64],
    meet: &[(usize, usize)],
    pairs: u64,
    advantage: f64,
    draw_rate: f64,
) {
    for &(a, b) in meet {
        for _ in 0..pairs {
            for (x, o) in [(a, b), (b, a)] {
                let p = crate::referee::stats::score_from_elo(truth[x] - truth[o] + advantage);
                let draw = draw_rate.min(2.0 * p.min(1.0 - p));
                let u: f64 = rng.random();
                let score = if u < p - draw / 2.0 {
                    1.0
                } else if u < p + draw / 2.0 {
                    0.5
                } else {
                    0.0
                };
                games.add(&format!("e{x}"), &format!("e{o}"), score);
            }
        }
    }
}

fn round_robin(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect()
}

fn mean_zero(truth: &[f64]) -> Vec<f64> {
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    truth.iter().map(|t| t - mean).collect()
}

#[test]
fn a_large_tournament_recovers_the_true_ratings() {
    let truth = [-300.0, -120.0, 0.0, 40.0, 150.0, 230.0];
    let mut rng = SmallRng::seed_from_u64(11);
    let games = tournament(&mut rng, &truth, &round_robin(6), 1500, 60.0, 0.3);
    let list = rate(&games, &Anchor::Mean, true).unwrap();
    for (i, t) in mean_zero(&truth).iter().enumerate() {
        let e = by_name(&list, &format!("e{i}"));
        // Within 1.5 times the 95 % error (a seeded draw; 3 sd).
        assert!((e.rating - t).abs() < 1.5 * e.error, "e{i}: {e:?} vs {t}");
        assert!(e.error < 12.0, "{e:?}");
    }
    assert!((list.x_advantage - 60.0).abs() < 1.5 * list.x_advantage_error);
    let names: Vec<&str> = list.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["e5", "e4", "e3", "e2", "e1", "e0"]);
    assert!(list.engines[0].los_next.unwrap() > 0.99);
}

#[test]
fn an_uneven_schedule_is_fitted_where_the_score_against_the_field_fails() {
    // e1 and e2 are equal, but e1 meets only the weak e0 and e2 only the
    // strong e3 (and e0 meets e3, which ties the list together): e1 scores
    // far more than e2, yet the fit rates them alike.
    let truth = [-200.0, 0.0, 0.0, 200.0];
    let mut rng = SmallRng::seed_from_u64(5);
    let meet = [(0, 1), (2, 3), (0, 3), (1, 2)];
    let mut games = Games::default();
    play(&mut games, &mut rng, &truth, &meet[..3], 2000, 0.0, 0.2);
    play(&mut games, &mut rng, &truth, &meet[3..], 50, 0.0, 0.2);
    let list = rate(&games, &Anchor::Mean, false).unwrap();
    let (e1, e2) = (by_name(&list, "e1"), by_name(&list, "e2"));
    assert!(e1.score > 0.7 && e2.score < 0.3, "{e1:?} {e2:?}");
    for (i, t) in mean_zero(&truth).iter().enumerate() {
        let e = by_name(&list, &format!("e{i}"));
        assert!((e.rating - t).abs() < 1.5 * e.error, "e{i}: {e:?} vs {t}");
    }
    assert!((e1.rating - e2.rating).abs() < 40.0, "{e1:?} {e2:?}");
}

#[test]
fn the_error_bars_cover_the_truth_95_times_in_100() {
    // 300 small tournaments of 5 engines, 20 pairs per pairing, no draws
    // (the half-point errors are exact only then): the true rating should
    // fall within its 95 % interval 95 % of the time.
    let mut rng = SmallRng::seed_from_u64(2026);
    let (mut inside, mut all) = (0, 0);
    for _ in 0..300 {
        let truth: Vec<f64> = (0..5).map(|_| rng.random_range(-200.0..200.0)).collect();
        let games = tournament(&mut rng, &truth, &round_robin(5), 20, 30.0, 0.0);
        let Ok(list) = rate(&games, &Anchor::Mean, true) else {
            continue;
        };
        for (i, t) in mean_zero(&truth).iter().enumerate() {
            let e = by_name(&list, &format!("e{i}"));
            inside += u32::from((e.rating - t).abs() <= e.error);
            all += 1;
        }
    }
    let coverage = f64::from(inside) / f64::from(all);
    assert!(all > 1400, "{all}");
    assert!((0.93..=0.97).contains(&coverage), "coverage {coverage}");
    // With draws the errors are on the safe side.
    let (mut inside, mut all) = (0, 0);
    for _ in 0..200 {
        let truth: Vec<f64> = (0..5).map(|_| rng.random_range(-200.0..200.0)).collect();
        let games = tournament(&mut rng, &truth, &round_robin(5), 20, 30.0, 0.4);
        let Ok(list) = rate(&games, &Anchor::Mean, true) else {
            continue;
        };
        for (i, t) in mean_zero(&truth).iter().enumerate() {
            let e = by_name(&list, &format!("e{i}"));
            inside += u32::from((e.rating - t).abs() <= e.error);
            all += 1;
        }
    }
    let coverage = f64::from(inside) / f64::from(all);
    assert!(coverage >= 0.95, "coverage with draws {coverage}");
}

#[test]
fn what_has_no_fit_is_said() {
    assert_eq!(
        rate(&Games::default(), &Anchor::Mean, true),
        Err(FitError::NoGames)
    );
    let games = games_of(&[("a", "b", 1.0, 3), ("b", "a", 0.0, 2)]);
    let e = rate(&games, &Anchor::Mean, false).unwrap_err().to_string();
    assert!(e.contains("a won every game it played (5)"), "{e}");
    let games = games_of(&[("a", "b", 1.0, 3), ("b", "a", 1.0, 1), ("c", "d", 0.5, 4)]);
    let e = rate(&games, &Anchor::Mean, false).unwrap_err().to_string();
    assert!(e.contains("a, b and c, d never met"), "{e}");
    // A group that beat everyone outside it: no one engine won everything.
    let games = games_of(&[
        ("a", "b", 1.0, 2),
        ("b", "a", 1.0, 2),
        ("a", "c", 1.0, 2),
        ("c", "b", 0.0, 2),
        ("c", "d", 1.0, 1),
        ("d", "c", 1.0, 1),
    ]);
    let e = rate(&games, &Anchor::Mean, false).unwrap_err().to_string();
    assert!(e.contains("don't bound the ratings"), "{e}");
    let games = games_of(&[("a", "b", 1.0, 3), ("a", "b", 0.0, 1)]);
    let e = rate(&games, &"zed=5".parse().unwrap(), false).unwrap_err();
    assert_eq!(e, FitError::UnknownAnchor("zed".into()));
    // Always X against the same engine: colours and ratings confounded.
    let e = rate(&games, &Anchor::Mean, true).unwrap_err().to_string();
    assert!(e.contains("--no-x-advantage"), "{e}");
}

#[test]
fn anchors_parse() {
    assert_eq!(
        "minimax=1500".parse::<Anchor>(),
        Ok(Anchor::Engine {
            name: "minimax".into(),
            rating: 1500.0
        })
    );
    assert_eq!(
        "a=b=-20.5".parse::<Anchor>(),
        Ok(Anchor::Engine {
            name: "a=b".into(),
            rating: -20.5
        })
    );
    assert!("=5".parse::<Anchor>().is_err());
    assert!("a=x"
        .parse::<Anchor>()
        .unwrap_err()
        .contains("not a rating"));
    assert!("a=inf".parse::<Anchor>().is_err());
}
