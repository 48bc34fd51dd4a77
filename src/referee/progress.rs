//! Progress people can read: games done of total, games per second, the ETA
//! and the score of each pairing so far. On a terminal it is redrawn in
//! place (a few lines under the cursor); otherwise — a log, a batch job —
//! one line is written every `--progress-every` seconds.

use super::report::rate_text;
use super::watch::Standings;
use std::time::{Duration, Instant};

/// Pairings shown one a line on a terminal (and in a log line); the rest
/// are counted.
const SHOWN_PAIRINGS: usize = 8;
/// A terminal is redrawn at most this often.
const REDRAW: Duration = Duration::from_millis(200);
/// Lines on a terminal are cut at most here, and to its width, so that
/// none wraps (a wrapped line would break the redraw in place).
const WIDTH: usize = 79;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Off,
    Terminal,
    Log(Duration),
}

/// The progress display of one session.
pub(super) struct Progress {
    mode: Mode,
    start: Instant,
    last: Instant,
    /// Games counted from records (not played in this session's time).
    resumed: u64,
    /// Lines now drawn on the terminal.
    drawn: usize,
}

impl Progress {
    /// `enabled`: not `--quiet`; `terminal`: stderr is one.
    pub fn new(enabled: bool, terminal: bool, every: Duration, resumed: u64) -> Progress {
        let now = Instant::now();
        let mode = match (enabled, terminal) {
            (false, _) => Mode::Off,
            (true, true) => Mode::Terminal,
            (true, false) => Mode::Log(every),
        };
        Progress {
            mode,
            start: now,
            // A terminal shows the display at the first look (a log waits
            // for its first interval).
            last: match mode {
                Mode::Terminal => now.checked_sub(REDRAW).unwrap_or(now),
                _ => now,
            },
            resumed,
            drawn: 0,
        }
    }

    /// Shows the standings if it is time to.
    pub fn tick(&mut self, view: &Standings<'_>) {
        let due = match self.mode {
            Mode::Off => return,
            Mode::Terminal => REDRAW,
            Mode::Log(every) => every,
        };
        if self.last.elapsed() < due {
            return;
        }
        self.last = Instant::now();
        let secs = self.start.elapsed().as_secs_f64();
        let lines = lines(view, self.resumed, secs);
        match self.mode {
            Mode::Terminal => {
                let mut text = self.erasing();
                let width = crate::sys::term::stderr_width()
                    .filter(|&w| w > 1)
                    .map_or(WIDTH, |w| (w - 1).min(WIDTH));
                let shown: Vec<String> = lines.iter().map(|l| cut(l, width)).collect();
                text.push_str(&shown.join("\n"));
                self.drawn = shown.len();
                eprint!("{text}");
            }
            _ => eprintln!("referee: {}", lines.join("; ").replace(";   ", "; ")),
        }
    }

    /// Escape codes that erase what is drawn and put the cursor where it
    /// started.
    fn erasing(&mut self) -> String {
        let text = match self.drawn {
            0 => String::new(),
            1 => "\r\x1b[J".to_string(),
            n => format!("\x1b[{}A\r\x1b[J", n - 1),
        };
        self.drawn = 0;
        text
    }

    /// Erases the display (before a message, and at the end).
    pub fn clear(&mut self) {
        if self.mode == Mode::Terminal && self.drawn > 0 {
            eprint!("{}", self.erasing());
        }
    }
}

/// `text` cut to `width` characters.
fn cut(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

/// `1:05` or `2:01:05`.
fn clock_text(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s / 3600 {
        0 => format!("{}:{:02}", s / 60, s % 60),
        h => format!("{h}:{:02}:{:02}", s / 60 % 60, s % 60),
    }
}

/// The progress as lines: the count, rate and ETA, then one line for each
/// pairing (the first [`SHOWN_PAIRINGS`]), after `secs` of this session.
fn lines(view: &Standings<'_>, resumed: u64, secs: f64) -> Vec<String> {
    let played = view.done.saturating_sub(resumed);
    let left = (view.total as u64).saturating_sub(view.done);
    let eta = if played > 0 && secs > 0.0 {
        clock_text(left as f64 * secs / played as f64)
    } else {
        "-".to_string()
    };
    let mut out = vec![format!(
        "{}/{} games  {}  ETA {eta}  elapsed {}",
        view.done,
        view.total,
        rate_text(played, secs),
        clock_text(secs)
    )];
    let name = |i: usize| view.engines.get(i).map_or("?", |e| e.name.as_str());
    for t in view.tallies.iter().take(SHOWN_PAIRINGS) {
        let w = &t.wdl;
        let score = match w.games() {
            0 => "-".to_string(),
            n => format!("{:.1} %", 100.0 * w.points() / n as f64),
        };
        out.push(format!(
            "  {} vs {}  +{} ={} -{}  {score}",
            name(t.a),
            name(t.b),
            w.wins,
            w.draws,
            w.losses
        ));
    }
    if view.tallies.len() > SHOWN_PAIRINGS {
        out.push(format!(
            "  and {} more pairings",
            view.tallies.len() - SHOWN_PAIRINGS
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::game::{GameEnd, Reason};
    use crate::referee::report::{EngineInfo, PairingTally};
    use crate::rules::Player;

    fn engine(name: &str) -> EngineInfo {
        EngineInfo {
            name: name.into(),
            command: vec![],
            protocol: "kinrow".into(),
            settings: Default::default(),
        }
    }

    #[test]
    fn lines_give_count_rate_eta_and_each_pairing_score() {
        let engines = [engine("random"), engine("blocking")];
        let mut t = PairingTally::new(0, 1);
        let win = GameEnd::forfeit(Player::O, Reason::Timeout, String::new());
        t.add(0, Player::X, &win);
        t.add(0, Player::O, &win);
        let tallies = [t];
        let view = Standings {
            done: 12,
            total: 100,
            engines: &engines,
            tallies: &tallies,
            skipped_lines: &[],
            sprt: None,
            per_ply: None,
        };
        // 10 played in 2 s (2 resumed): 5 games/s, 88 left: 17.6 s.
        let shown = lines(&view, 2, 2.0);
        assert_eq!(
            shown,
            [
                "12/100 games  5.0 games/s  ETA 0:18  elapsed 0:02",
                "  random vs blocking  +1 =0 -1  50.0 %"
            ]
        );
        let nothing = lines(&Standings { done: 0, ..view }, 0, 0.0);
        assert!(
            nothing[0].contains("no games finished  ETA -"),
            "{nothing:?}"
        );
        assert_eq!(clock_text(3725.0), "1:02:05");
    }

    #[test]
    fn many_pairings_are_counted_past_the_shown_ones() {
        let engines: Vec<EngineInfo> = (0..6).map(|i| engine(&format!("e{i}"))).collect();
        let tallies: Vec<PairingTally> = (0..6)
            .flat_map(|a| (a + 1..6).map(move |b| PairingTally::new(a, b)))
            .collect();
        let view = Standings {
            done: 0,
            total: 150,
            engines: &engines,
            tallies: &tallies,
            skipped_lines: &[],
            sprt: None,
            per_ply: None,
        };
        let shown = lines(&view, 0, 1.0);
        assert_eq!(shown.len(), 1 + SHOWN_PAIRINGS + 1);
        assert_eq!(shown.last().unwrap(), "  and 7 more pairings");
        assert!(shown[1].ends_with("+0 =0 -0  -"), "{shown:?}");
    }
}
