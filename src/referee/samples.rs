//! `referee samples FILE… --out FILE`: training samples from `--games-out`
//! records in c-gomoku-cli's layouts (its `-sample`), so trainers that read
//! those read these as they are. A sample is a position before an engine's
//! move, the move played and the game's result for the side to move; each
//! engine move is taken with probability `--rate`, drawn from `--seed`,
//! the run's seed and the game, so the same records give the same samples
//! whatever the files' order of sessions or shards. A run's `--samples`
//! draws each finished game's samples with the same [`Sampler`], so they
//! are those `referee samples` makes of the run's records.
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
//! - Binary, LZ4: the binary layout in LZ4's frame format (c-gomoku-cli's
//!   `bin_lz4`, written with lz4frame; trainers read it with LZ4's
//!   auto-framing API). Frames concatenate: `lz4 -d` reads a file of
//!   several as one stream, lz4_flex's decoder one frame at a time
//!   ([`read_lz4_frames`]).
//!
//! c-gomoku-cli plays gomoku on square boards of 5 to 22 lines, so records
//! of other games are refused (nothing is written). Games lost by a fault
//! give no samples, as c-gomoku-cli drops those lost on time, by a crash or
//! an illegal move.

use super::game::Reason;
use super::games_out::{GameRecord, GameResult, PastGames};
use super::report::BoardInfo;
use crate::rules::Rule;
use anyhow::{bail, Context};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::{Path, PathBuf};

/// c-gomoku-cli's layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleFormat {
    Csv,
    Bin,
    /// The binary layout, LZ4-compressed in frames.
    BinLz4,
}

impl std::str::FromStr for SampleFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<SampleFormat, String> {
        match text {
            "csv" => Ok(SampleFormat::Csv),
            "bin" => Ok(SampleFormat::Bin),
            // c-gomoku-cli spells it bin_lz4.
            "bin-lz4" | "bin_lz4" => Ok(SampleFormat::BinLz4),
            _ => Err(format!(
                "'{text}' is not a sample format (csv, bin or bin-lz4)"
            )),
        }
    }
}

impl SampleFormat {
    /// The format a file's extension names: `.csv`, `.bin`, `.lz4`;
    /// any other is CSV.
    pub fn of_path(path: &Path) -> SampleFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("bin") => SampleFormat::Bin,
            Some("lz4") => SampleFormat::BinLz4,
            _ => SampleFormat::Csv,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SampleFormat::Csv => "csv",
            SampleFormat::Bin => "bin",
            SampleFormat::BinLz4 => "bin-lz4",
        }
    }

    /// The bytes of `raw` (samples in the CSV or binary layout, as
    /// [`Sampler::push`] makes them) as they go into a file: as they are,
    /// or for LZ4 one whole frame (none for no samples).
    pub fn encoded(self, raw: &[u8]) -> std::borrow::Cow<'_, [u8]> {
        if self != SampleFormat::BinLz4 || raw.is_empty() {
            return std::borrow::Cow::Borrowed(raw);
        }
        let mut frame = lz4_encoder(Vec::new());
        // Into a Vec: nothing can fail.
        let _ = frame.write_all(raw);
        std::borrow::Cow::Owned(frame.finish().unwrap_or_default())
    }
}

/// An LZ4 frame's encoder as c-gomoku-cli's lz4frame writes them (LZ4F's
/// defaults): blocks linked, no content checksum, so that a frame a run
/// left open when it was killed is closed by its end mark alone
/// ([`super::run_samples`]).
pub fn lz4_encoder<W: Write>(out: W) -> lz4_flex::frame::FrameEncoder<W> {
    let info = lz4_flex::frame::FrameInfo::new().block_mode(lz4_flex::frame::BlockMode::Linked);
    lz4_flex::frame::FrameEncoder::with_frame_info(info, out)
}

/// Everything in an LZ4 file, every frame of it, as `lz4 -d` and LZ4's
/// auto-framing API read it (lz4_flex's `FrameDecoder` reads one frame).
pub fn read_lz4_frames(mut bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    while !bytes.is_empty() {
        lz4_flex::frame::FrameDecoder::new(&mut bytes).read_to_end(&mut out)?;
    }
    Ok(out)
}

/// What to sample and where to.
#[derive(Clone, Debug)]
pub struct SamplesConfig {
    pub files: Vec<PathBuf>,
    pub out: PathBuf,
    pub sampler: Sampler,
}

/// How a game's samples are drawn and laid out: the same for `referee
/// samples` and a run's `--samples`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    pub format: SampleFormat,
    /// The chance that an engine move is taken, in (0, 1].
    pub rate: f64,
    /// The draws' seed, with the run's and the game's number.
    pub seed: u64,
}

/// The board as c-gomoku-cli's binary layout has it: its size and rule
/// number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleBoard {
    pub size: u32,
    pub rule: u16,
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

/// A board c-gomoku-cli plays, or why `board` is none.
pub fn gomoku_board(board: &BoardInfo) -> Result<SampleBoard, String> {
    let b = board;
    let rule = match b.rule.parse::<Rule>() {
        Ok(Rule::Free) => Some(0),
        Ok(Rule::Exact) => Some(1),
        Ok(Rule::Renju) => Some(4),
        _ => None,
    };
    match rule {
        Some(rule) if b.rows == b.cols && (5..=22).contains(&b.rows) && b.k == 5 => {
            Ok(SampleBoard {
                size: b.rows as u32,
                rule,
            })
        }
        _ => Err(format!(
            "is of {}x{}, {} in a row, rule {}: c-gomoku-cli's samples are of gomoku (square \
             boards of 5 to 22 lines, five in a row, rule free, exact or renju)",
            b.rows, b.cols, b.k, b.rule
        )),
    }
}

/// The board of a record, if c-gomoku-cli plays it.
fn record_board(record: &GameRecord) -> Result<SampleBoard, String> {
    match &record.board {
        Some(board) => gomoku_board(board),
        None => Err("has no board (records of an old referee)".into()),
    }
}

impl Sampler {
    /// Appends the samples of a finished game on `board` (its record's) to
    /// `out` in the CSV or binary layout (LZ4 is binary, compressed when
    /// written: [`SampleFormat::encoded`]); returns how many. The draws
    /// depend on the sampler's seed, the run's and the game's number only.
    pub fn push(&self, record: &GameRecord, board: SampleBoard, out: &mut Vec<u8>) -> usize {
        let game_seed =
            crate::bots::seeds::digest([self.seed, record.seed.unwrap_or(0), record.game as u64]);
        let mut rng = SmallRng::seed_from_u64(game_seed);
        let taken = game_samples(record, self.rate, &mut rng);
        for sample in &taken {
            match self.format {
                SampleFormat::Csv => push_csv(out, sample),
                SampleFormat::Bin | SampleFormat::BinLz4 => {
                    push_bin(out, sample, board.size, board.rule)
                }
            }
        }
        taken.len()
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

/// Appends a cell as c-gomoku-cli's CSV writes it: `h8` (rows up to 22,
/// columns up to `v`).
fn push_csv_cell(out: &mut Vec<u8>, &[row, col]: &[u32; 2]) {
    out.push(b'a' + (col - 1) as u8);
    if row >= 10 {
        out.push(b'0' + (row / 10) as u8);
    }
    out.push(b'0' + (row % 10) as u8);
}

/// A cell as c-gomoku-cli's binary layout has it: `(x << 5) | y`, from 0.
fn bin_cell(&[row, col]: &[u32; 2]) -> u16 {
    (((col - 1) << 5) | (row - 1)) as u16
}

/// Appends a sample in c-gomoku-cli's CSV layout, byte by byte (a run
/// writes one a ply, each as long as its game so far).
pub fn push_csv(out: &mut Vec<u8>, sample: &Sample) {
    for cell in &sample.position {
        push_csv_cell(out, cell);
    }
    out.push(b',');
    push_csv_cell(out, &sample.played);
    out.push(b',');
    out.push(b'0' + sample.result);
    out.push(b'\n');
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
    let rate = config.sampler.rate;
    if !(rate > 0.0 && rate <= 1.0) {
        bail!("--rate {rate} is not a chance in (0, 1]");
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
            let board = record_board(record).map_err(|why| {
                anyhow::anyhow!("{} line {line} {why}; nothing was written", path.display())
            })?;
            outcome.games += 1;
            outcome.samples += config.sampler.push(record, board, &mut out);
        }
    }
    std::fs::write(&config.out, config.sampler.format.encoded(&out))
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
                    SampleFormat::Bin | SampleFormat::BinLz4 => push_bin(&mut out, &sample, 15, 0),
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
        assert!(record_board(&bad)
            .unwrap_err()
            .contains("is of 3x3, 3 in a row"));
    }

    /// LZ4: one whole frame of the binary layout's bytes, none for no
    /// samples; and frames written one after another read back as one
    /// stream.
    #[test]
    fn lz4_frames_hold_the_binary_bytes_and_concatenate() {
        use std::io::Read;
        let mut raw = Vec::new();
        for _ in 0..50 {
            push_bin(&mut raw, &sample(), 15, 0);
        }
        let frame = SampleFormat::BinLz4.encoded(&raw).into_owned();
        assert_eq!(
            &frame[..4],
            &0x184D_2204u32.to_le_bytes(),
            "a frame's magic"
        );
        assert!(frame.len() < raw.len());
        assert!(SampleFormat::BinLz4.encoded(&[]).is_empty());
        assert_eq!(SampleFormat::Bin.encoded(&raw), &raw[..]);
        let mut two = frame.clone();
        two.extend_from_slice(&SampleFormat::BinLz4.encoded(&raw[..8]));
        // lz4_flex's decoder stops at the end of a frame…
        let mut first = Vec::new();
        lz4_flex::frame::FrameDecoder::new(&two[..])
            .read_to_end(&mut first)
            .unwrap();
        assert!(first == raw);
        // …so frames are read one after another.
        let back = read_lz4_frames(&two).unwrap();
        assert_eq!(back.len(), raw.len() + 8);
        assert!(back[..raw.len()] == raw[..] && back[raw.len()..] == raw[..8]);
    }

    #[test]
    fn formats_by_name_and_by_extension() {
        for (text, format) in [
            ("csv", SampleFormat::Csv),
            ("bin", SampleFormat::Bin),
            ("bin-lz4", SampleFormat::BinLz4),
            ("bin_lz4", SampleFormat::BinLz4),
        ] {
            assert_eq!(text.parse(), Ok(format));
        }
        assert!("lz4".parse::<SampleFormat>().is_err());
        let of = |p: &str| SampleFormat::of_path(Path::new(p));
        assert_eq!(of("a/s.bin"), SampleFormat::Bin);
        assert_eq!(of("s.lz4"), SampleFormat::BinLz4);
        assert_eq!(of("s.csv"), SampleFormat::Csv);
        assert_eq!(of("samples"), SampleFormat::Csv);
        assert_eq!(of("s.txt"), SampleFormat::Csv);
    }
}
