//! `search_info`: what an engine's last search found, as one line of
//! `KEY VALUE` pairs: `depth 6 score 120 nodes 5210`. A proved value reads
//! `score win in 7` (plies to the winning stone), `score loss in 4` or
//! `score draw`; a key the search has nothing for is left out (a bot that
//! does not search answers an empty line). kinrow's engines answer
//! `search_info` after `genmove` with it, and write the same words in
//! their Gomocup `MESSAGE` lines.
//!
//! [`SearchInfo::read`] reads the same from any engine's free text: another
//! kinrow-protocol engine's answer, or the `MESSAGE` lines Gomocup brains
//! print while they think (`Depth 12-25 | Eval 85 | Nodes 1.2M`), taking
//! what it recognises and passing over the rest.

use std::fmt;
use std::str::FromStr;

/// What a search found for the move it chose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    /// The depth of the last completed iteration, in plies.
    pub depth: Option<u32>,
    /// The move's value for the side that moved.
    pub score: Option<Score>,
    /// Positions (or playouts) searched.
    pub nodes: Option<u64>,
}

/// A move's value for the side that played it, in the engine's own units
/// (kinrow's minimax: its evaluation; mcts: the mean result scaled to
/// -1000..1000), or a proved result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Eval(i64),
    /// A forced win, the winning stone this many plies from now (1: the
    /// move itself).
    Win(u32),
    /// A forced loss, the opponent's winning stone this many plies away.
    Loss(u32),
    /// A draw with best play.
    Draw,
}

impl Score {
    /// The score on one line for comparisons: a win above every
    /// evaluation (a quicker one higher), a loss below, a draw at 0.
    pub fn value(self) -> i64 {
        match self {
            Score::Eval(s) => s.clamp(-PROVED, PROVED),
            Score::Win(n) => PROVED + 1 + i64::from(u32::MAX - n),
            Score::Loss(n) => -(PROVED + 1 + i64::from(u32::MAX - n)),
            Score::Draw => 0,
        }
    }
}

/// Evaluations are held below this, proved results above.
const PROVED: i64 = 1 << 48;

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Eval(s) => write!(f, "{s}"),
            Score::Win(n) => write!(f, "win in {n}"),
            Score::Loss(n) => write!(f, "loss in {n}"),
            Score::Draw => f.write_str("draw"),
        }
    }
}

impl FromStr for Score {
    type Err = String;

    /// `120`, `-35`, `win in 7`, `loss in 4`, `draw`.
    fn from_str(text: &str) -> Result<Score, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let plies = |n: &str| {
            n.parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("'{n}' is not a number of plies"))
        };
        match words[..] {
            ["draw"] => Ok(Score::Draw),
            ["win", "in", n] => plies(n).map(Score::Win),
            ["loss", "in", n] => plies(n).map(Score::Loss),
            [n] => n
                .parse::<i64>()
                .ok()
                .filter(|s| s.abs() <= PROVED)
                .map(Score::Eval)
                .ok_or_else(|| format!("'{n}' is not a score")),
            _ => Err(format!(
                "'{text}' is not a score (a number, 'win in N', 'loss in N' or 'draw')"
            )),
        }
    }
}

impl SearchInfo {
    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        *self == SearchInfo::default()
    }

    /// The fields `newer` has, over these.
    pub fn update(&mut self, newer: SearchInfo) {
        self.depth = newer.depth.or(self.depth);
        self.score = newer.score.or(self.score);
        self.nodes = newer.nodes.or(self.nodes);
    }

    /// What an engine's free text says of its search: the words `depth`,
    /// `score` (or `eval`, `ev`, `value`) and `nodes` (or `node`), any
    /// case, each followed by its value, with `|`, `,`, `:` or `=` between
    /// words or not. A depth `12-25` is 12; a score may be a number
    /// (fractions rounded), `win in 7`, `loss in 4`, `draw`, or `+M7`/`-M7`
    /// (a win or loss in 7); nodes may end in `K` or `M`. Other words are
    /// passed over.
    pub fn read(text: &str) -> SearchInfo {
        let lower = text.to_ascii_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| c.is_whitespace() || "|,;:=()[]".contains(c))
            .filter(|w| !w.is_empty())
            .collect();
        let mut info = SearchInfo::default();
        let mut i = 0;
        while i < words.len() {
            let next = words.get(i + 1).copied().unwrap_or("");
            match words[i] {
                "depth" => {
                    if let Some(d) = leading_number(next).and_then(|d| u32::try_from(d).ok()) {
                        info.depth = Some(d);
                        i += 1;
                    }
                }
                "score" | "eval" | "ev" | "value" => {
                    if let Some((score, used)) = read_score(&words[i + 1..]) {
                        info.score = Some(score);
                        i += used;
                    }
                }
                "nodes" | "node" => {
                    if let Some(n) = counted(next) {
                        info.nodes = Some(n);
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        info
    }
}

/// The digits a word starts with, as a number.
fn leading_number(word: &str) -> Option<u64> {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    word[..digits].parse().ok()
}

/// `1234`, `12.5k`, `1.2M` as a count.
fn counted(word: &str) -> Option<u64> {
    let (number, scale) = match word.strip_suffix('k') {
        Some(n) => (n, 1e3),
        None => match word.strip_suffix('m') {
            Some(n) => (n, 1e6),
            None => (word, 1.0),
        },
    };
    let n: f64 = number.parse().ok()?;
    (n.is_finite() && n >= 0.0 && n * scale < 1e18).then(|| (n * scale).round() as u64)
}

/// A score at the start of `words`, and how many words it took.
fn read_score(words: &[&str]) -> Option<(Score, usize)> {
    let first = *words.first()?;
    let plies = |w: Option<&&str>| {
        w.and_then(|w| w.parse::<u32>().ok())
            .filter(|&n| n > 0)
            .unwrap_or(1)
    };
    match first {
        "draw" => return Some((Score::Draw, 1)),
        "win" | "loss" | "lose" => {
            let (n, used) = match words.get(1) {
                Some(&"in") => (plies(words.get(2)), 3),
                _ => (1, 1),
            };
            let score = if first == "win" {
                Score::Win(n)
            } else {
                Score::Loss(n)
            };
            return Some((score, used));
        }
        _ => {}
    }
    let mate = first
        .strip_prefix("+m")
        .map(|n| (true, n))
        .or_else(|| first.strip_prefix("-m").map(|n| (false, n)))
        .or_else(|| first.strip_prefix('m').map(|n| (true, n)));
    if let Some((win, n)) = mate {
        let n = n.parse::<u32>().ok().filter(|&n| n > 0)?;
        return Some((if win { Score::Win(n) } else { Score::Loss(n) }, 1));
    }
    let number = first.strip_suffix('%').unwrap_or(first);
    let s: f64 = number.parse().ok()?;
    (s.is_finite() && s.abs() <= PROVED as f64).then(|| (Score::Eval(s.round() as i64), 1))
}

impl fmt::Display for SearchInfo {
    /// `depth 6 score 120 nodes 5210`, the keys it has.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(d) = self.depth {
            write!(f, "depth {d}")?;
            sep = " ";
        }
        if let Some(s) = self.score {
            write!(f, "{sep}score {s}")?;
            sep = " ";
        }
        if let Some(n) = self.nodes {
            write!(f, "{sep}nodes {n}")?;
        }
        Ok(())
    }
}

impl FromStr for SearchInfo {
    type Err = String;

    /// Exactly what `Display` writes: each key at most once, in any order.
    fn from_str(text: &str) -> Result<SearchInfo, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let mut info = SearchInfo::default();
        let mut i = 0;
        while i < words.len() {
            let key = words[i];
            let value = words.get(i + 1).copied().unwrap_or("");
            let seen = match key {
                "depth" => info
                    .depth
                    .replace(value.parse().map_err(|_| format!("bad depth '{value}'"))?)
                    .is_some(),
                "nodes" => info
                    .nodes
                    .replace(value.parse().map_err(|_| format!("bad nodes '{value}'"))?)
                    .is_some(),
                "score" => {
                    let len = match value {
                        "win" | "loss" => 3,
                        _ => 1,
                    };
                    let end = (i + 1 + len).min(words.len());
                    let score = words[i + 1..end].join(" ").parse::<Score>()?;
                    i += len - 1;
                    info.score.replace(score).is_some()
                }
                other => return Err(format!("unknown key '{other}'")),
            };
            if seen {
                return Err(format!("'{key}' twice"));
            }
            i += 2;
        }
        Ok(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(depth: Option<u32>, score: Option<Score>, nodes: Option<u64>) -> SearchInfo {
        SearchInfo {
            depth,
            score,
            nodes,
        }
    }

    #[test]
    fn the_wire_form_reads_back() {
        for i in [
            info(Some(6), Some(Score::Eval(120)), Some(5210)),
            info(Some(9), Some(Score::Win(7)), Some(1)),
            info(None, Some(Score::Loss(4)), None),
            info(Some(0), Some(Score::Draw), Some(0)),
            info(None, Some(Score::Eval(-35)), Some(77)),
            SearchInfo::default(),
        ] {
            let text = i.to_string();
            assert_eq!(text.parse::<SearchInfo>(), Ok(i), "{text}");
            assert_eq!(SearchInfo::read(&text), i, "{text}");
        }
        assert_eq!(
            info(Some(6), Some(Score::Win(7)), Some(5)).to_string(),
            "depth 6 score win in 7 nodes 5"
        );
        assert!("depth 6 depth 7".parse::<SearchInfo>().is_err());
        assert!("depth x".parse::<SearchInfo>().is_err());
        assert!("pv 8 8".parse::<SearchInfo>().is_err());
        assert!("score win in 0".parse::<SearchInfo>().is_err());
    }

    #[test]
    fn brains_messages_are_read_for_what_they_say() {
        let cases = [
            (
                "Depth 12-25 | Eval 85 | Time 998ms | Nodes 1.2M",
                info(Some(12), Some(Score::Eval(85)), Some(1_200_000)),
            ),
            (
                "depth=7, ev=-40.6",
                info(Some(7), Some(Score::Eval(-41)), None),
            ),
            (
                "Eval +M15 Depth 30",
                info(Some(30), Some(Score::Win(15)), None),
            ),
            ("score -m4", info(None, Some(Score::Loss(4)), None)),
            ("EVAL: win in 3", info(None, Some(Score::Win(3)), None)),
            ("nodes 12k speed 300k", info(None, None, Some(12_000))),
            ("depth nothing, score none", SearchInfo::default()),
            ("hello there", SearchInfo::default()),
            ("", SearchInfo::default()),
        ];
        for (text, want) in cases {
            assert_eq!(SearchInfo::read(text), want, "{text}");
        }
    }

    #[test]
    fn scores_order_wins_above_evaluations_and_losses_below() {
        let order = [
            Score::Loss(2),
            Score::Loss(9),
            Score::Eval(-1_000_000),
            Score::Draw,
            Score::Eval(5),
            Score::Win(9),
            Score::Win(1),
        ];
        for pair in order.windows(2) {
            assert!(pair[0].value() < pair[1].value(), "{pair:?}");
        }
        assert_eq!(Score::Eval(i64::MAX).value(), PROVED);
    }
}
