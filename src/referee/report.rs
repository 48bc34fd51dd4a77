//! Tallies per pairing, the text report and the JSON summary (schema 1).

use super::engine_settings::EngineSettings;
use super::game::{GameEnd, Reason};
use super::run_samples::SamplesSummary;
use super::schedule::Tournament;
use super::shard::Shard;
use super::stats::{Estimate, Pentanomial, Sprt, SprtDecision, Wdl};
use crate::rules::{Geometry, Player};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::BuildHasherDefault;
use std::time::Duration;

/// Version of the JSON summary and game records.
pub const SCHEMA: u32 = 1;

/// An engine of the run, as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// The protocol it speaks: `kinrow` or `gomocup`.
    pub protocol: String,
    /// Its own settings (`--each`, `--engine-settings`, `--movetime`,
    /// `--match-time`); left out when none.
    #[serde(default, skip_serializing_if = "EngineSettings::is_empty")]
    pub settings: EngineSettings,
}

/// Everything counted for one pairing, from engine `a`'s side.
#[derive(Debug)]
pub struct PairingTally {
    /// Engine indices.
    pub a: usize,
    pub b: usize,
    pub wdl: Wdl,
    /// `a`'s results when it played X, and when it played O.
    pub a_as_x: Wdl,
    pub a_as_o: Wdl,
    pub penta: Pentanomial,
    /// Faults by reason, and by which engine (0 = a, 1 = b).
    pub faults: [BTreeMap<Reason, u64>; 2],
    /// Games ended by adjudication, by kind ([`super::adjudication::KINDS`]).
    pub adjudicated: [u64; super::adjudication::KINDS.len()],
    /// First game of a pair still waiting for its partner: pair → a's score.
    open_pairs: HashMap<usize, f64, BuildHasherDefault<PairHasher>>,
}

impl Clone for PairingTally {
    fn clone(&self) -> Self {
        PairingTally {
            faults: self.faults.clone(),
            open_pairs: self.open_pairs.clone(),
            ..*self
        }
    }

    /// Keeps the maps' memory: a live page copies the tallies after every
    /// game.
    fn clone_from(&mut self, source: &Self) {
        let PairingTally {
            a,
            b,
            wdl,
            a_as_x,
            a_as_o,
            penta,
            faults,
            adjudicated,
            open_pairs,
        } = source;
        (
            self.a,
            self.b,
            self.wdl,
            self.a_as_x,
            self.a_as_o,
            self.penta,
            self.adjudicated,
        ) = (*a, *b, *wdl, *a_as_x, *a_as_o, *penta, *adjudicated);
        self.faults.clone_from(faults);
        self.open_pairs.clone_from(open_pairs);
    }
}

impl PairingTally {
    /// Empty tallies, one for each pairing `(a, b)`.
    pub fn for_pairings(pairings: &[(usize, usize)]) -> Vec<PairingTally> {
        pairings
            .iter()
            .map(|&(a, b)| PairingTally::new(a, b))
            .collect()
    }

    pub fn new(a: usize, b: usize) -> PairingTally {
        PairingTally {
            a,
            b,
            wdl: Wdl::default(),
            a_as_x: Wdl::default(),
            a_as_o: Wdl::default(),
            penta: Pentanomial::default(),
            faults: [BTreeMap::new(), BTreeMap::new()],
            adjudicated: [0; super::adjudication::KINDS.len()],
            open_pairs: HashMap::default(),
        }
    }

    /// Counts a finished game of pair `pair` in which `a` played `a_side`.
    /// Returns true when it completed a pair.
    pub fn add(&mut self, pair: usize, a_side: Player, end: &GameEnd) -> bool {
        let a_score = match a_side {
            Player::X => end.x_score(),
            Player::O => 1.0 - end.x_score(),
        };
        self.wdl.add(a_score);
        match a_side {
            Player::X => self.a_as_x.add(a_score),
            Player::O => self.a_as_o.add(a_score),
        }
        if let Some(side) = end.fault_by {
            let who = usize::from(side != a_side);
            *self.faults[who].entry(end.reason).or_insert(0) += 1;
        }
        if end.reason == Reason::Adjudicated {
            let kind = super::adjudication::kind_index(end.detail.as_deref());
            self.adjudicated[kind] += 1;
        }
        match self.open_pairs.remove(&pair) {
            Some(first) => {
                self.penta.add_pair(first, a_score);
                true
            }
            None => {
                self.open_pairs.insert(pair, a_score);
                false
            }
        }
    }

    /// Games ended by adjudication, by kind, the kinds that happened.
    pub fn adjudication_counts(&self) -> BTreeMap<&'static str, u64> {
        super::adjudication::KINDS
            .into_iter()
            .zip(self.adjudicated)
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    /// Faults by reason, both engines together.
    pub fn fault_counts(&self) -> BTreeMap<&'static str, u64> {
        let mut all = BTreeMap::new();
        for side in &self.faults {
            for (r, n) in side {
                *all.entry(r.name()).or_insert(0) += n;
            }
        }
        all
    }
}

/// Hashes a pair's number for [`PairingTally`]'s open pairs: one multiply
/// (Fibonacci hashing), as pair numbers are small and not chosen by anyone;
/// the default hasher resists attacks we don't face and cost a good part of
/// counting a game in process.
#[derive(Default)]
pub struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The SPRT's state for the report.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SprtStatus {
    #[serde(flatten)]
    pub test: Sprt,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    pub decision: SprtDecision,
}

/// The SPRT's state over a pairing's pairs.
pub fn sprt_status(test: Sprt, tally: &PairingTally) -> SprtStatus {
    let llr = test.llr(&tally.penta);
    SprtStatus {
        test,
        llr,
        lower_bound: test.lower_bound(),
        upper_bound: test.upper_bound(),
        decision: test.decide(llr),
    }
}

/// Where the time of a session's plies went: the moves the engines chose,
/// the time the referee took for them on its own (everything but waiting
/// for replies and starting engines) and the time the engines took to
/// answer `genmove` (for processes: from the write of the request to the
/// reply, pipes and wake-ups included), per ply in µs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlyTimes {
    pub plies: u64,
    pub referee: f64,
    pub engines: f64,
}

impl PlyTimes {
    /// The times of `plies` plies; `None` without plies.
    pub fn of(plies: u64, referee: Duration, engines: Duration) -> Option<PlyTimes> {
        let per = |d: Duration| round(d.as_secs_f64() * 1e6 / plies as f64, 3);
        (plies > 0).then(|| PlyTimes {
            plies,
            referee: per(referee),
            engines: per(engines),
        })
    }
}

/// How the games of a report came together.
#[derive(Clone, Debug)]
pub enum Session {
    /// Played by this referee now (some perhaps resumed from records).
    Played {
        concurrency: usize,
        /// `--in-process`.
        in_process: bool,
        /// Games counted from the records of an earlier session (`--resume`).
        resumed: u64,
        /// Wall-clock time of this session's games.
        seconds: f64,
        per_ply: Option<PlyTimes>,
    },
    /// Read from the records of this many files (`referee merge`).
    Merged { files: usize },
}

/// What the run looked like, for the report's head.
#[derive(Clone, Debug)]
pub struct RunInfo {
    pub seed: u64,
    pub geometry: Geometry,
    pub games_per_pairing: u32,
    /// How the openings were made (`1 opening ply`, `5 openings from FILE`).
    pub openings: String,
    pub session: Session,
    /// The slice of the run this session played.
    pub shard: Option<Shard>,
    /// Games in the whole run.
    pub run_games: usize,
    /// Games in this session's schedule (the shard's, for a shard).
    pub total_games: usize,
    pub interrupted: bool,
    /// Stdout lines each engine wrote outside responses (skipped).
    pub skipped_lines: Vec<u64>,
    /// Who plays whom.
    pub tournament: Tournament,
}

/// The JSON summary (schema 1).
#[derive(Serialize)]
pub struct Summary<'a> {
    pub schema: u32,
    pub seed: u64,
    /// Games finished and counted.
    pub games: u64,
    pub interrupted: bool,
    /// Wall-clock time of the games (after the start-up check); `null` for
    /// a merge (the shards' records don't hold it).
    pub seconds: Option<f64>,
    /// The slice of the run, for a shard.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Where the time of this session's plies went (absent for a merge).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_ply_us: Option<PlyTimes>,
    pub board: BoardInfo,
    pub engines: &'a [EngineInfo],
    pub pairings: Vec<PairingSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtStatus>,
    /// Who played whom; left out for a round robin.
    #[serde(skip_serializing_if = "Tournament::is_round_robin")]
    pub tournament: Tournament,
    /// Where this session's `--samples` went, and how many (absent
    /// without, and for a merge).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<SamplesSummary>,
}

/// The board of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardInfo {
    pub rows: usize,
    pub cols: usize,
    pub k: usize,
    pub rule: String,
}

impl From<Geometry> for BoardInfo {
    fn from(g: Geometry) -> BoardInfo {
        BoardInfo {
            rows: g.rows(),
            cols: g.cols(),
            k: g.k(),
            rule: g.rule().to_string(),
        }
    }
}

impl std::fmt::Display for BoardInfo {
    /// As a geometry shows itself: `3x3 k3 free`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{} k{} {}", self.rows, self.cols, self.k, self.rule)
    }
}

/// One pairing in the JSON summary, from `a`'s side.
#[derive(Serialize)]
pub struct PairingSummary {
    pub a: String,
    pub b: String,
    pub games: u64,
    pub a_wins: u64,
    pub draws: u64,
    pub b_wins: u64,
    /// `null` without games.
    pub elo: Option<f64>,
    pub elo_error: Option<f64>,
    pub los: Option<f64>,
    /// True when every game scored the same and the estimate used the
    /// continuity correction.
    pub corrected: bool,
    pub a_as_x: Wdl,
    pub a_as_o: Wdl,
    /// Pairs that scored 0, ¼, ½, ¾, 1 for `a`.
    pub pentanomial: Pentanomial,
    pub faults: BTreeMap<&'static str, u64>,
    pub faults_by: BTreeMap<String, BTreeMap<&'static str, u64>>,
    /// Games ended by adjudication, by kind (`draw-after`, `proof`); absent
    /// when none were.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub adjudicated: BTreeMap<&'static str, u64>,
}

/// Builds the JSON summary.
pub fn summary<'a>(
    info: &RunInfo,
    engines: &'a [EngineInfo],
    tallies: &[PairingTally],
    sprt: Option<SprtStatus>,
) -> Summary<'a> {
    let name = |i: usize| engines.get(i).map_or("?", |e| e.name.as_str()).to_string();
    let pairings = tallies
        .iter()
        .map(|t| {
            let est = t.wdl.estimate();
            let mut faults_by = BTreeMap::new();
            for (who, idx) in [(0, t.a), (1, t.b)] {
                let named: BTreeMap<_, _> =
                    t.faults[who].iter().map(|(r, n)| (r.name(), *n)).collect();
                if !named.is_empty() {
                    faults_by.insert(name(idx), named);
                }
            }
            PairingSummary {
                a: name(t.a),
                b: name(t.b),
                games: t.wdl.games(),
                a_wins: t.wdl.wins,
                draws: t.wdl.draws,
                b_wins: t.wdl.losses,
                elo: est.map(|e| round(e.elo, 2)),
                elo_error: est.map(|e| round(e.elo_error, 2)),
                los: est.map(|e| round(e.los, 6)),
                corrected: est.is_some_and(|e| e.corrected),
                a_as_x: t.a_as_x,
                a_as_o: t.a_as_o,
                pentanomial: t.penta,
                faults: t.fault_counts(),
                faults_by,
                adjudicated: t.adjudication_counts(),
            }
        })
        .collect();
    Summary {
        schema: SCHEMA,
        seed: info.seed,
        games: tallies.iter().map(|t| t.wdl.games()).sum(),
        interrupted: info.interrupted,
        seconds: match info.session {
            Session::Played { seconds, .. } => Some(round(seconds, 6)),
            Session::Merged { .. } => None,
        },
        shard: info.shard,
        per_ply_us: match info.session {
            Session::Played { per_ply, .. } => per_ply,
            Session::Merged { .. } => None,
        },
        board: info.geometry.into(),
        engines,
        pairings,
        sprt,
        tournament: info.tournament,
        samples: None,
    }
}

/// `v` to `digits` decimals; a value that rounds to zero is `0.0`, never
/// `-0.0` (adding `+0.0` turns a negative zero positive).
fn round(v: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (v * f).round() / f + 0.0
}

fn pct(v: f64) -> String {
    format!("{:.1} %", v * 100.0)
}

fn wdl_text(w: &Wdl) -> String {
    format!("+{} ={} -{}", w.wins, w.draws, w.losses)
}

/// `+12.3 ± 4.5`; a difference that rounds to zero shows as `+0.0`.
fn elo_pm(e: &Estimate) -> String {
    format!("{:+.1} ± {:.1}", round(e.elo, 1), e.elo_error)
}

/// A rate a person can read: games per second when a second holds some,
/// else games per minute, else minutes per game (never `0 games/s`).
pub fn rate_text(games: u64, seconds: f64) -> String {
    if games == 0 || seconds <= 0.0 {
        return "no games finished".into();
    }
    let per_second = games as f64 / seconds;
    if per_second >= 10.0 {
        format!("{per_second:.0} games/s")
    } else if per_second >= 1.0 {
        format!("{per_second:.1} games/s")
    } else if per_second * 60.0 >= 1.0 {
        format!("{:.1} games/min", per_second * 60.0)
    } else {
        format!("{:.1} min/game", seconds / games as f64 / 60.0)
    }
}

/// The widest name shown in the ranking and crosstable, so that they fit
/// in 80 columns; longer names are cut there (the pairings give them whole).
const TABLE_NAME: usize = 26;

/// `name`, cut to `width` characters with `...` when longer.
fn table_name(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        let head: String = name.chars().take(width.saturating_sub(3)).collect();
        format!("{head}...")
    }
}

/// The text report: the run's head, every pairing, and with three or more
/// engines a ranking and a crosstable.
pub fn text(
    info: &RunInfo,
    engines: &[EngineInfo],
    tallies: &[PairingTally],
    sprt: Option<&SprtStatus>,
) -> String {
    let name = |i: usize| engines.get(i).map_or("?", |e| e.name.as_str());
    let mut out = String::new();
    let played: u64 = tallies.iter().map(|t| t.wdl.games()).sum();
    head(&mut out, info, engines.len(), played);
    for t in tallies {
        pairing(&mut out, t, name);
    }
    if let Some(s) = sprt {
        let verdict = match s.decision {
            SprtDecision::H1 => "H1 accepted",
            SprtDecision::H0 => "H0 accepted",
            SprtDecision::Continue => "undecided",
        };
        let _ = writeln!(
            out,
            "\nSPRT [{}, {}] alpha {} beta {}: {verdict}, LLR {:.2} (bounds {:.2}, {:.2})",
            s.test.elo0,
            s.test.elo1,
            s.test.alpha,
            s.test.beta,
            s.llr,
            s.lower_bound,
            s.upper_bound
        );
    }
    // Every line within 80 columns: prose wraps, the tables are made to fit.
    let mut out = crate::cli::wrap_message(out.trim_end_matches('\n'));
    out.push('\n');
    if engines.len() >= 3 {
        ranking(&mut out, engines, tallies);
    }
    let skipped: Vec<String> = info
        .skipped_lines
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(i, n)| format!("{} {n}", name(i)))
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            crate::cli::wrap_message(&format!(
                "stdout lines outside responses (skipped): {}",
                skipped.join(", ")
            ))
        );
    }
    out
}

/// The report's head: the run, the session, the games `played` of how
/// many, and where a ply's time went.
fn head(out: &mut String, info: &RunInfo, engines: usize, played: u64) {
    let kind = match info.tournament {
        Tournament::Gauntlet => " in a gauntlet",
        Tournament::RoundRobin => "",
    };
    let _ = writeln!(
        out,
        "referee: {engines} engines{kind}, {}, {} games per pairing, {}",
        info.geometry, info.games_per_pairing, info.openings,
    );
    match &info.session {
        Session::Played {
            concurrency,
            in_process,
            ..
        } => {
            let how = if *in_process { ", in process" } else { "" };
            let _ = writeln!(out, "concurrency {concurrency}{how}, seed {}", info.seed);
        }
        Session::Merged { files } => {
            let s = if *files == 1 { "" } else { "s" };
            let _ = writeln!(out, "merged from {files} file{s}, seed {}", info.seed);
        }
    }
    if let Some(shard) = info.shard {
        let _ = writeln!(
            out,
            "shard {shard}: {} of the run's {} games",
            info.total_games, info.run_games
        );
    }
    let interrupted = match (info.interrupted, &info.session) {
        (false, _) => "",
        (true, Session::Played { .. }) => {
            " — INTERRUPTED: the report covers the games that finished"
        }
        (true, Session::Merged { .. }) => {
            " — INCOMPLETE: games are missing; the report covers those found"
        }
    };
    match &info.session {
        Session::Played {
            resumed,
            seconds,
            per_ply,
            ..
        } => {
            let session = played.saturating_sub(*resumed);
            let timing = format!("{seconds:.2} s ({})", rate_text(session, *seconds));
            let _ = writeln!(
                out,
                "{played} of {} games{}{interrupted}",
                info.total_games,
                if *resumed > 0 {
                    format!(": {resumed} resumed, {session} played in {timing}")
                } else {
                    format!(" in {timing}")
                },
            );
            if let Some(t) = per_ply {
                let _ = writeln!(
                    out,
                    "time per ply: referee {:.1} µs, engines {:.1} µs ({} plies)",
                    t.referee, t.engines, t.plies
                );
            }
        }
        Session::Merged { .. } => {
            let _ = writeln!(out, "{played} of {} games{interrupted}", info.total_games);
        }
    }
}

/// A pairing's lines: its score, Elo, pentanomial and faults.
fn pairing<'n>(out: &mut String, t: &PairingTally, name: impl Fn(usize) -> &'n str) {
    let (a, b) = (name(t.a), name(t.b));
    let _ = writeln!(out, "\n{a} vs {b}: {} games", t.wdl.games());
    let Some(e) = t.wdl.estimate() else {
        let _ = writeln!(out, "  no games finished");
        return;
    };
    let _ = writeln!(
        out,
        "  {a}: {}  score {}  (as X {}, as O {})",
        wdl_text(&t.wdl),
        pct(e.score),
        wdl_text(&t.a_as_x),
        wdl_text(&t.a_as_o)
    );
    let _ = writeln!(
        out,
        "  Elo {}  LOS {}  draws {}",
        elo_pm(&e),
        pct(e.los),
        pct(t.wdl.draw_ratio())
    );
    if e.corrected {
        let _ = writeln!(
            out,
            "  (every game scored the same: estimated with ½ win and ½ loss added)"
        );
    }
    let p = t.penta.0;
    let _ = writeln!(
        out,
        "  pentanomial (pairs scoring 0 ¼ ½ ¾ 1 for {a}): {} {} {} {} {}",
        p[0], p[1], p[2], p[3], p[4]
    );
    let mut faults = Vec::new();
    for (who, idx) in [(0, t.a), (1, t.b)] {
        for (r, n) in &t.faults[who] {
            faults.push(format!("{} {n} by {}", r.name(), name(idx)));
        }
    }
    let faults = if faults.is_empty() {
        "none".to_string()
    } else {
        faults.join(", ")
    };
    let _ = writeln!(out, "  faults: {faults}");
    let adjudicated = t.adjudication_counts();
    if !adjudicated.is_empty() {
        let kinds: Vec<String> = adjudicated
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        let _ = writeln!(out, "  adjudicated: {}", kinds.join(", "));
    }
}

fn ranking(out: &mut String, engines: &[EngineInfo], tallies: &[PairingTally]) {
    let n = engines.len();
    let mut total = vec![Wdl::default(); n];
    // cross[i][j]: i's results against j.
    let mut cross = vec![vec![Wdl::default(); n]; n];
    for t in tallies {
        let add = |w: &mut Wdl, x: &Wdl| {
            w.wins += x.wins;
            w.draws += x.draws;
            w.losses += x.losses;
        };
        add(&mut total[t.a], &t.wdl);
        add(&mut total[t.b], &t.wdl.flipped());
        add(&mut cross[t.a][t.b], &t.wdl);
        add(&mut cross[t.b][t.a], &t.wdl.flipped());
    }
    // Engines that don't meet (a gauntlet's others) get a blank, not 0/0.
    let mut meet = vec![vec![false; n]; n];
    for t in tallies {
        meet[t.a][t.b] = true;
        meet[t.b][t.a] = true;
    }
    let mut order: Vec<usize> = (0..n).collect();
    let share = |w: &Wdl| {
        if w.games() == 0 {
            0.0
        } else {
            w.points() / w.games() as f64
        }
    };
    order.sort_by(|&i, &j| {
        share(&total[j])
            .total_cmp(&share(&total[i]))
            .then(i.cmp(&j))
    });
    let names: Vec<String> = engines
        .iter()
        .map(|e| table_name(&e.name, TABLE_NAME))
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(out, "\nRanking (score against the field)");
    let _ = writeln!(
        out,
        "  {:>2}  {:<width$}  {:>6}  {:>7}  {:>17}  {:>8}",
        "#", "name", "games", "score", "Elo", "draws"
    );
    for (rank, &i) in order.iter().enumerate() {
        let w = &total[i];
        let (score, elo) = match w.estimate() {
            Some(e) => (pct(e.score), elo_pm(&e)),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            out,
            "  {:>2}  {:<width$}  {:>6}  {:>7}  {:>17}  {:>8}",
            rank + 1,
            names[i],
            w.games(),
            score,
            elo,
            pct(w.draw_ratio())
        );
    }
    // Columns are headed by rank; as many as fit in 80 columns go side by
    // side, the rest follow in further blocks.
    let cells: Vec<Vec<String>> = order
        .iter()
        .map(|&i| {
            order
                .iter()
                .map(|&j| match (i == j, meet[i][j]) {
                    (true, _) => "-".to_string(),
                    (false, false) => String::new(),
                    (false, true) => format!("{}/{}", cross[i][j].points(), cross[i][j].games()),
                })
                .collect()
        })
        .collect();
    let cell = cells
        .iter()
        .flatten()
        .map(String::len)
        .max()
        .unwrap_or(1)
        .max(3);
    let label = 2 + 2 + 1 + width;
    let per_block = ((crate::cli::TEXT_WIDTH - label) / (cell + 2)).max(1);
    let _ = writeln!(out, "\nCrosstable (points of the row against the column)");
    for first in (0..n).step_by(per_block) {
        let columns = first..(first + per_block).min(n);
        if first > 0 {
            let _ = writeln!(out);
        }
        let _ = write!(out, "  {:>2} {:<width$}", "", "");
        for j in columns.clone() {
            let _ = write!(out, "  {:>cell$}", j + 1);
        }
        let _ = writeln!(out);
        for (row, &i) in order.iter().enumerate() {
            let _ = write!(out, "  {:>2} {:<width$}", row + 1, names[i]);
            for j in columns.clone() {
                let _ = write!(out, "  {:>cell$}", cells[row][j]);
            }
            let _ = writeln!(out);
        }
    }
}

#[cfg(test)]
mod tests;
