//! `referee samples FILE… --out FILE`: training samples from `--games-out`
//! records in c-gomoku-cli's layouts (its `-sample`), so trainers that read
//! those read these as they are. A sample is a position before an engine's
//! move, the move played and the game's result for the side to move; each
//! engine move is taken with probability `--rate`, drawn from `--seed`,
//! the run's seed and the game, so the same records give the same samples
//! whatever the files' order of sessions or shards.
//!
//! The layouts, as c-gomoku-cli's `Game::export_samples_csv` and
//! `export_samples_bin` (src/game.cpp) write them:
//! - CSV: `POSITION,MOVE,RESULT` a line; a cell is its column as a letter
//!   from `a` and its row from 1 (`h8`), the position its stones in the
//!   order played, run together (`h8i9h9`); RESULT 0 a loss, 1 a draw, 2 a
//!   win for the side to move.
//! - Binary: per sample a 4-byte head, two little-endian 16-bit words of
//!   GCC bit-fields filled from the low bit: `result:2, ply:9, boardsize:5`
//!   then `rule:3, move:13`; then `ply` words, the stones in the order
//!   played. A cell is `(column << 5) | row`, both from 0; rule 0 is
//!   freestyle, 1 exact five ("standard"), 4 renju. The move played also
//!   carries the colour that plays it in bit 10 (1: White, the second
//!   player), as c-gomoku-cli takes the move's coordinates from its
//!   internal move, colour and all; the stones of the position do not.
//!
//! c-gomoku-cli plays gomoku on square boards of 5 to 22 lines, so records
//! of other games are refused (nothing is written). Games lost by a fault
//! give no samples, as c-gomoku-cli drops those lost on time, by a crash or
//! an illegal move.

use super::game::Reason;
use super::games_out::{GameRecord, GameResult, PastGames};
use crate::rules::Rule;
use anyhow::{bail, Context};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

/// c-gomoku-cli's two layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleFormat {
    Csv,
    Bin,
}

impl std::str::FromStr for SampleFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<SampleFormat, String> {
        match text {
            "csv" => Ok(SampleFormat::Csv),
            "bin" => Ok(SampleFormat::Bin),
            _ => Err(format!("'{text}' is not a sample format (csv or bin)")),
        }
    }
}

/// What to sample and where to.
#[derive(Clone, Debug)]
pub struct SamplesConfig {
    pub files: Vec<PathBuf>,
    pub out: PathBuf,
    pub format: SampleFormat,
    /// The chance that an engine move is taken, in (0, 1].
    pub rate: f64,
    pub seed: u64,
}

/// One sample: the stones before the move (1-based `[row, col]`, in the
/// order played), the move, and the result for the side to move (0 a
/// loss, 1 a draw, 2 a win).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    pub position: Vec<[u32; 2]>,
    pub played: [u32; 2],
    pub result: u8,
}

/// A board c-gomoku-cli plays: its size and rule number.
fn gomoku_board(record: &GameRecord) -> Result<(u32, u16), String> {
    let Some(b) = &record.board else {
        return Err("has no board (records of an old referee)".into());
    };
    let rule = match b.rule.parse::<Rule>() {
        Ok(Rule::Free) => Some(0),
        Ok(Rule::Exact) => Some(1),
        Ok(Rule::Renju) => Some(4),
        _ => None,
    };
    match rule {
        Some(rule) if b.rows == b.cols && (5..=22).contains(&b.rows) && b.k == 5 => {
            Ok((b.rows as u32, rule))
        }
        _ => Err(format!(
            "is of {}x{}, {} in a row, rule {}: c-gomoku-cli's samples are of gomoku (square \
             boards of 5 to 22 lines, five in a row, rule free, exact or renju)",
            b.rows, b.cols, b.k, b.rule
        )),
    }
}

/// The samples of one game, each engine move taken with probability
/// `rate` (drawn from `rng`).
pub fn game_samples(record: &GameRecord, rate: f64, rng: &mut SmallRng) -> Vec<Sample> {
    if !matches!(record.reason, Reason::Win | Reason::Draw) {
        return Vec::new();
    }
    let mut stones = record.opening.clone();
    let mut samples = Vec::new();
    for &played in &record.moves {
        // X moves on even plies.
        let x_to_move = stones.len().is_multiple_of(2);
        if rate >= 1.0 || rng.random::<f64>() < rate {
            let result = match (record.result, x_to_move) {
                (GameResult::Draw, _) => 1,
                (GameResult::X, true) | (GameResult::O, false) => 2,
                _ => 0,
            };
            samples.push(Sample {
                position: stones.clone(),
                played,
                result,
            });
        }
        stones.push(played);
    }
    samples
}

/// A cell as c-gomoku-cli's CSV writes it: `h8`.
fn csv_cell(&[row, col]: &[u32; 2]) -> String {
    let letter = char::from(b'a' + (col - 1) as u8);
    format!("{letter}{row}")
}

/// A cell as c-gomoku-cli's binary layout has it: `(x << 5) | y`, from 0.
fn bin_cell(&[row, col]: &[u32; 2]) -> u16 {
    (((col - 1) << 5) | (row - 1)) as u16
}

/// Appends a sample in c-gomoku-cli's CSV layout.
pub fn push_csv(out: &mut Vec<u8>, sample: &Sample) {
    let position: String = sample.position.iter().map(csv_cell).collect();
    let line = format!(
        "{position},{},{}\n",
        csv_cell(&sample.played),
        sample.result
    );
    out.extend_from_slice(line.as_bytes());
}

/// Appends a sample in c-gomoku-cli's binary layout, on a board of `size`
/// lines under rule number `rule`.
pub fn push_bin(out: &mut Vec<u8>, sample: &Sample, size: u32, rule: u16) {
    let ply = sample.position.len() as u16;
    let first = u16::from(sample.result) | (ply << 2) | ((size as u16) << 11);
    let white = (ply % 2) << 10;
    let second = rule | ((bin_cell(&sample.played) | white) << 3);
    out.extend_from_slice(&first.to_le_bytes());
    out.extend_from_slice(&second.to_le_bytes());
    for cell in &sample.position {
        out.extend_from_slice(&bin_cell(cell).to_le_bytes());
    }
}

/// What was written.
#[derive(Debug, PartialEq, Eq)]
pub struct SamplesOutcome {
    pub games: usize,
    pub samples: usize,
}

/// Reads the records and writes their samples to `config.out`; records of
/// a board c-gomoku-cli doesn't play stop it before anything is written.
pub fn samples(config: &SamplesConfig) -> anyhow::Result<SamplesOutcome> {
    if !(config.rate > 0.0 && config.rate <= 1.0) {
        bail!("--rate {} is not a chance in (0, 1]", config.rate);
    }
    for input in &config.files {
        super::files::check_distinct(&[
            ("--out".to_string(), config.out.as_path()),
            ("the input".to_string(), input.as_path()),
        ])?;
    }
    super::files::not_a_directory("--out", &config.out)?;
    super::files::check_writable(&config.out)?;
    let mut out = Vec::new();
    let mut outcome = SamplesOutcome {
        games: 0,
        samples: 0,
    };
    for path in &config.files {
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
        let past = PastGames::read(path, super::files::MAX_RECORDS_FILE)?;
        for (line, record) in &past.records {
            let (size, rule) = gomoku_board(record).map_err(|why| {
                anyhow::anyhow!("{} line {line} {why}; nothing was written", path.display())
            })?;
            let game_seed = crate::bots::seeds::digest([
                config.seed,
                record.seed.unwrap_or(0),
                record.game as u64,
            ]);
            let mut rng = SmallRng::seed_from_u64(game_seed);
            let taken = game_samples(record, config.rate, &mut rng);
            outcome.games += 1;
            outcome.samples += taken.len();
            for sample in &taken {
                match config.format {
                    SampleFormat::Csv => push_csv(&mut out, sample),
                    SampleFormat::Bin => push_bin(&mut out, sample, size, rule),
                }
            }
        }
    }
    std::fs::write(&config.out, out)
        .with_context(|| format!("cannot write {}", config.out.display()))?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Sample {
        // On 15x15: stones at h8 (row 8, column h) and i9, then X plays j7.
        Sample {
            position: vec![[8, 8], [9, 9]],
            played: [7, 10],
            result: 2,
        }
    }

    #[test]
    fn the_csv_layout_is_c_gomoku_clis() {
        let mut out = Vec::new();
        push_csv(&mut out, &sample());
        push_csv(
            &mut out,
            &Sample {
                position: vec![],
                played: [1, 22],
                result: 1,
            },
        );
        assert_eq!(String::from_utf8(out).unwrap(), "h8i9,j7,2\n,v1,1\n");
    }

    /// The binary layout field by field, as c-gomoku-cli's `Entry` declares
    /// it: `uint16_t result:2, ply:9, boardsize:5, rule:3, move:13`, GCC
    /// filling each 16-bit unit from its low bit, little-endian; then the
    /// moves, `POS_RAW(x, y) = (x << MAX_BOARD_SIZE_BIT) + y` with
    /// `MAX_BOARD_SIZE_BIT` 5.
    #[test]
    fn the_binary_layout_is_c_gomoku_clis_field_by_field() {
        let mut out = Vec::new();
        push_bin(&mut out, &sample(), 15, 4);
        assert_eq!(out.len(), 4 + 2 * 2);
        let word = |i: usize| u16::from_le_bytes([out[2 * i], out[2 * i + 1]]);
        let (head, tail) = (word(0), word(1));
        assert_eq!(head & 0b11, 2, "result: a win");
        assert_eq!((head >> 2) & 0x1ff, 2, "ply: two stones");
        assert_eq!(head >> 11, 15, "boardsize");
        assert_eq!(tail & 0b111, 4, "rule: renju");
        let mv = tail >> 3;
        assert_eq!(
            (mv >> 5, mv & 31),
            (9, 6),
            "move: x = column j, y = row 7, from 0"
        );
        assert_eq!(word(2), (7 << 5) | 7, "h8");
        assert_eq!(word(3), (8 << 5) | 8, "i9");
        // The bytes themselves: 2 | 2 << 2 | 15 << 11 = 0x780a, low byte first.
        assert_eq!(&out[..2], &[0x0a, 0x78]);
        // The largest board and a long game fit their fields.
        let long = Sample {
            position: vec![[22, 22]; 483],
            played: [22, 22],
            result: 0,
        };
        let mut out = Vec::new();
        push_bin(&mut out, &long, 22, 1);
        let head = u16::from_le_bytes([out[0], out[1]]);
        let tail = u16::from_le_bytes([out[2], out[3]]);
        assert_eq!(((head >> 2) & 0x1ff, head >> 11), (483, 22));
        // 483 stones: White to move, bit 10 of the move.
        assert_eq!((tail & 7, tail >> 3), (1, (1 << 10) | (21 << 5) | 21));
    }

    /// A game of c-gomoku-cli's SGF (no opening; `B[xy]`, x the column)
    /// as a record.
    fn record_of_sgf(sgf: &str) -> GameRecord {
        let mut moves = Vec::new();
        for part in sgf.split(';').skip(2) {
            let b = part.as_bytes();
            if b.len() > 4 && (b[0] == b'B' || b[0] == b'W') && b[1] == b'[' {
                moves.push([u32::from(b[3] - b'a') + 1, u32::from(b[2] - b'a') + 1]);
            }
        }
        let result = if sgf.contains("RE[B+") {
            GameResult::X
        } else if sgf.contains("RE[W+") {
            GameResult::O
        } else {
            GameResult::Draw
        };
        GameRecord {
            moves,
            opening: Vec::new(),
            ..record(result, Reason::Win)
        }
    }

    /// Byte for byte what c-gomoku-cli (sun-chengdong/c-gomoku-cli) wrote
    /// with `-sample format=csv`
    /// and `format=bin` for two games of its own (two random brains on
    /// 15x15, freestyle; its SGF beside them).
    #[test]
    fn the_samples_of_c_gomoku_clis_own_games_are_its_bytes() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/c-gomoku-cli");
        let read = |name: &str| std::fs::read(data.join(name)).unwrap();
        let mut rng = SmallRng::seed_from_u64(0);
        for (sgf, samples, format) in [
            ("game-csv.sgf", "samples.csv", SampleFormat::Csv),
            ("game-bin.sgf", "samples.bin", SampleFormat::Bin),
        ] {
            let record = record_of_sgf(&String::from_utf8(read(sgf)).unwrap());
            assert!(record.moves.len() > 20, "{sgf}");
            let mut out = Vec::new();
            for sample in game_samples(&record, 1.0, &mut rng) {
                match format {
                    SampleFormat::Csv => push_csv(&mut out, &sample),
                    SampleFormat::Bin => push_bin(&mut out, &sample, 15, 0),
                }
            }
            assert!(out == read(samples), "{samples} differs");
        }
    }

    fn record(result: GameResult, reason: Reason) -> GameRecord {
        let line = r#"{"schema":3,"game":4,"pair":2,"x":"a","o":"b","opening":[[8,8]],"moves":[[9,9],[7,7],[6,6]],"result":"x","reason":"win","fault_by":null,"time_ms":{"x":1,"o":1},"seed":3,"board":{"rows":15,"cols":15,"k":5,"rule":"free"}}"#;
        GameRecord {
            result,
            reason,
            ..serde_json::from_str(line).unwrap()
        }
    }

    #[test]
    fn samples_are_the_engines_moves_with_the_result_for_the_side_to_move() {
        let mut rng = SmallRng::seed_from_u64(1);
        let taken = game_samples(&record(GameResult::X, Reason::Win), 1.0, &mut rng);
        // After a one-stone opening O moves first: O, X, O.
        let results: Vec<u8> = taken.iter().map(|s| s.result).collect();
        assert_eq!(results, [0, 2, 0]);
        assert_eq!(taken[2].position, [[8, 8], [9, 9], [7, 7]]);
        assert_eq!(taken[2].played, [6, 6]);
        let taken = game_samples(&record(GameResult::Draw, Reason::Draw), 1.0, &mut rng);
        assert!(taken.iter().all(|s| s.result == 1));
        let fault = record(GameResult::O, Reason::Crash);
        assert!(game_samples(&fault, 1.0, &mut rng).is_empty());
        // At a rate of one half, about half the moves of many games.
        let r = record(GameResult::X, Reason::Win);
        let n: usize = (0..2000)
            .map(|_| game_samples(&r, 0.5, &mut rng).len())
            .sum();
        assert!((2800..3200).contains(&n), "{n}");
        let bad = GameRecord {
            board: Some(crate::referee::report::BoardInfo {
                rows: 3,
                cols: 3,
                k: 3,
                rule: "free".into(),
            }),
            ..r
        };
        assert!(gomoku_board(&bad)
            .unwrap_err()
            .contains("is of 3x3, 3 in a row"));
    }
}
