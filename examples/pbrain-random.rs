//! A trivial Gomocup brain: a uniformly random empty cell, for the referee's
//! benchmark (scripts/bench-referee.sh) and as the smallest example of the
//! protocol. Not a kinrow engine: it knows nothing of the rules but empty
//! cells. `cargo build --release --example pbrain-random`.

use std::io::{self, BufRead, Write};

struct Brain {
    width: usize,
    height: usize,
    taken: Vec<bool>,
    rng: u64,
}

impl Brain {
    fn start(&mut self, width: usize, height: usize) -> &'static str {
        if !(5..=100).contains(&width) || !(5..=100).contains(&height) {
            return "ERROR unsupported size";
        }
        self.width = width;
        self.height = height;
        self.taken = vec![false; width * height];
        "OK"
    }

    fn take(&mut self, x: usize, y: usize) -> bool {
        let i = y * self.width + x;
        if x < self.width && y < self.height && !self.taken[i] {
            self.taken[i] = true;
            true
        } else {
            false
        }
    }

    fn play(&mut self) -> String {
        let empty = self.taken.iter().filter(|t| !**t).count();
        if empty == 0 {
            return "ERROR the board is full".into();
        }
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let pick = (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) % empty as u64) as usize;
        let i = self
            .taken
            .iter()
            .enumerate()
            .filter(|(_, t)| !**t)
            .nth(pick)
            .map(|(i, _)| i)
            .unwrap_or(0);
        self.taken[i] = true;
        format!("{},{}", i % self.width, i / self.width)
    }
}

fn point(s: &str) -> Option<(usize, usize)> {
    let (x, y) = s.trim().split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

fn main() -> io::Result<()> {
    let seed = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15u64);
    let mut brain = Brain {
        width: 0,
        height: 0,
        taken: Vec::new(),
        rng: seed | 1,
    };
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut lines = stdin.lock().lines();
    while let Some(line) = lines.next() {
        let line = line?;
        let line = line.trim();
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let answer = match word.to_ascii_uppercase().as_str() {
            "" | "INFO" => continue,
            "END" => break,
            "START" => brain
                .start(
                    rest.trim().parse().unwrap_or(0),
                    rest.trim().parse().unwrap_or(0),
                )
                .to_string(),
            "RECTSTART" => match point(rest) {
                Some((w, h)) => brain.start(w, h).to_string(),
                None => "ERROR bad size".into(),
            },
            "RESTART" => brain.start(brain.width, brain.height).to_string(),
            "BEGIN" => brain.play(),
            "TURN" => match point(rest) {
                Some((x, y)) if brain.take(x, y) => brain.play(),
                _ => format!("ERROR bad TURN {rest}"),
            },
            "BOARD" => {
                let (w, h) = (brain.width, brain.height);
                brain.start(w, h);
                for stone in lines.by_ref() {
                    let stone = stone?;
                    if stone.trim().eq_ignore_ascii_case("DONE") {
                        break;
                    }
                    if let Some((x, rest)) = stone.trim().split_once(',') {
                        if let Some((x, y)) =
                            point(&format!("{x},{}", rest.split(',').next().unwrap_or("")))
                        {
                            brain.take(x, y);
                        }
                    }
                }
                brain.play()
            }
            "ABOUT" => "name=\"pbrain-random\", version=\"1\", author=\"kinrow\"".into(),
            _ => format!("UNKNOWN {word}"),
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}
