//! The game records of `--games-out` (schema 3): one JSON line per finished
//! game, written as games finish and read back by `--resume` and `referee
//! merge`, after a run line that says which run (and which shard of it)
//! the records belong to.
//!
//! Schema 2 differed from schema 1 in one field, `schema`, and in what a
//! seed means: since schema 2 the engines' seeds and the openings are
//! derived by a full mix of the run's seed with the game (see
//! [`super::seeds`]). Schema 3 adds the run lines ([`RunLine`]) and, in
//! every record, the run's fingerprint and the shard. `--resume` and
//! `merge` read schema 3 only and refuse older records, naming the line;
//! `kinrow convert` reads every schema.

use super::game::{MoveData, Reason};
use super::report::{BoardInfo, EngineInfo};
use super::schedule::Tournament;
use super::shard::Shard;
use crate::protocol::{Score, SearchInfo};
use crate::records::MoveNote;
use crate::rules::{Cell, Player};
use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The schema of the records this referee writes.
pub const RECORD_SCHEMA: u32 = 3;

/// The schema of a record that has no `schema` field: the first one.
fn schema_one() -> u32 {
    1
}

/// One line of `--games-out`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// [`RECORD_SCHEMA`] when written; records without it are schema 1.
    #[serde(default = "schema_one")]
    pub schema: u32,
    /// Index in the schedule (0-based).
    pub game: usize,
    /// The pair it belongs to (same opening, colours swapped).
    pub pair: usize,
    /// Engine names.
    pub x: String,
    pub o: String,
    /// The opening moves, `[row, col]`, 1-based.
    pub opening: Vec<[u32; 2]>,
    /// The moves the engines chose after the opening, 1-based.
    pub moves: Vec<[u32; 2]>,
    pub result: GameResult,
    pub reason: Reason,
    /// The name of the engine at fault, if any.
    pub fault_by: Option<String>,
    /// For faults: what happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default)]
    pub time_ms: TimeUsed,
    /// Each engine's peak resident size by the game's end, in MiB (the
    /// engine processes' high-water marks; left out when not measured).
    #[serde(default, skip_serializing_if = "PeakMemory::is_none")]
    pub peak_mib: PeakMemory,
    /// Stdout lines each side wrote outside responses; left out when none.
    #[serde(default, skip_serializing_if = "SkippedLines::is_none")]
    pub skipped: SkippedLines,
    /// The run's seed (absent in records written before it was added).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The game's board (absent in records written before it was added).
    #[serde(default)]
    pub board: Option<BoardInfo>,
    /// The run's fingerprint, [`RunLine::run`] (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The shard that played it (absent when the run is not sharded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Each move of `moves`: its time and what its engine said of its
    /// search (`--move-info`; left out otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub move_info: Vec<MoveInfo>,
}

/// One engine move's time and search, as `--move-info` records it:
/// `{"ms":12.345,"depth":6,"score":120,"nodes":5210}`, a proved score as
/// text (`"win in 7"`, `"loss in 4"`, `"draw"`), what the engine did not
/// say left out.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveInfo {
    /// The reply's time, in ms.
    pub ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "score_field")]
    pub score: Option<Score>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
}

impl MoveInfo {
    pub fn of(data: &MoveData) -> MoveInfo {
        MoveInfo {
            ms: (data.time.as_secs_f64() * 1e6).round() / 1e3,
            depth: data.search.depth,
            score: data.search.score,
            nodes: data.search.nodes,
        }
    }

    /// The move's note in SGF and `.psq` records.
    pub fn note(&self) -> MoveNote {
        let search = SearchInfo {
            depth: self.depth,
            score: self.score,
            nodes: self.nodes,
        };
        MoveNote {
            time_us: Some((self.ms * 1e3).round().max(0.0) as u64),
            search: (!search.is_empty()).then(|| search.to_string()),
        }
    }
}

/// A score in a record: an evaluation as a number, a proved result as its
/// words.
mod score_field {
    use crate::protocol::Score;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(score: &Option<Score>, s: S) -> Result<S::Ok, S::Error> {
        match score {
            Some(Score::Eval(n)) => s.serialize_i64(*n),
            Some(other) => s.serialize_str(&other.to_string()),
            None => s.serialize_none(),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Field {
        Number(i64),
        Words(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Score>, D::Error> {
        match Option::<Field>::deserialize(d)? {
            None => Ok(None),
            Some(Field::Number(n)) => Ok(Some(Score::Eval(n))),
            Some(Field::Words(w)) => w.parse().map(Some).map_err(serde::de::Error::custom),
        }
    }
}

/// The line a run writes into `--games-out` before its first record of a
/// session: what the run is, so that `--resume` and `referee merge` can
/// tell its records from another run's and rebuild its schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunLine {
    /// [`RECORD_SCHEMA`].
    pub schema: u32,
    /// The run's fingerprint: a digest of its seed, board, engines (names
    /// and protocols, in order) and openings, as 16 hex digits. The shards
    /// of a run and its sessions share it; the number of games per pairing
    /// is not part of it (a run may grow: see `--resume`).
    pub run: String,
    /// The shard this file's games belong to, if the run is sharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub seed: u64,
    pub board: BoardInfo,
    pub games_per_pairing: u32,
    /// Games in the whole run's schedule (every shard's).
    pub total_games: usize,
    /// The engines in order: names, commands, protocols.
    pub engines: Vec<EngineInfo>,
    /// How the openings are made, as the report says it.
    pub openings: String,
    /// What makes the openings these ([`super::openings::Openings::fingerprint`]).
    pub openings_fingerprint: String,
    /// The SPRT that stops the run once decided (its games then end
    /// before the schedule does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<super::stats::Sprt>,
    /// How games end early (`--draw-after`, `--exact-adjudication`), when
    /// they may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<String>,
    /// The referee that wrote the line.
    pub referee: String,
    /// Who plays whom; left out for a round robin.
    #[serde(default, skip_serializing_if = "Tournament::is_round_robin")]
    pub tournament: Tournament,
    /// `--time-margin`, in ms; left out when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_margin_ms: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl RunLine {
    /// The line as written, with its newline.
    pub fn line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// [`RunLine::run`]: what makes a run this run, whatever the machine (the
/// engines' commands and the openings file's path may differ between the
/// machines that play its shards).
pub(super) fn run_fingerprint(
    seed: u64,
    board: &BoardInfo,
    engines: &[EngineInfo],
    openings: &str,
    tournament: Tournament,
) -> String {
    use super::seeds::{digest, text_words};
    let head = [
        seed,
        board.rows as u64,
        board.cols as u64,
        board.k as u64,
        engines.len() as u64,
    ];
    // What came later adds to the digest only when used, so that the runs
    // before it keep their fingerprints.
    let settings: Vec<String> = engines
        .iter()
        .map(|e| e.settings.fingerprint_text())
        .filter(|t| !t.is_empty())
        .collect();
    let texts = std::iter::once(board.rule.as_str())
        .chain(
            engines
                .iter()
                .flat_map(|e| [e.name.as_str(), e.protocol.as_str()]),
        )
        .chain([openings])
        .chain(settings.iter().map(String::as_str))
        .chain((!tournament.is_round_robin()).then_some(tournament.name()));
    let words = head
        .into_iter()
        .chain(texts.flat_map(text_words))
        .collect::<Vec<u64>>();
    format!("{:016x}", digest(words))
}

/// Who won a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameResult {
    X,
    O,
    Draw,
}

impl GameResult {
    /// The result of a game won by `winner` (`None`: a draw).
    pub fn of(winner: Option<Player>) -> GameResult {
        match winner {
            Some(Player::X) => GameResult::X,
            Some(Player::O) => GameResult::O,
            None => GameResult::Draw,
        }
    }

    /// The winner (`None`: a draw).
    pub fn winner(self) -> Option<Player> {
        match self {
            GameResult::X => Some(Player::X),
            GameResult::O => Some(Player::O),
            GameResult::Draw => None,
        }
    }

    /// The name in records: `x`, `o`, `draw`.
    pub fn name(self) -> &'static str {
        match self {
            GameResult::X => "x",
            GameResult::O => "o",
            GameResult::Draw => "draw",
        }
    }
}

/// Time each side spent answering `genmove`, in ms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeUsed {
    pub x: f64,
    pub o: f64,
}

/// Each side's peak resident size, in MiB to a tenth, where measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PeakMemory {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o: Option<f64>,
}

impl PeakMemory {
    /// The peaks of X and O in bytes, as recorded.
    pub fn of(bytes: [Option<u64>; 2]) -> PeakMemory {
        let mib = |b: u64| (b as f64 / f64::from(1 << 20) * 10.0).round() / 10.0;
        PeakMemory {
            x: bytes[0].map(mib),
            o: bytes[1].map(mib),
        }
    }

    pub fn is_none(&self) -> bool {
        self.x.is_none() && self.o.is_none()
    }
}

/// Stdout lines each side wrote outside responses (skipped) in one game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedLines {
    pub x: u64,
    pub o: u64,
}

impl SkippedLines {
    fn is_none(&self) -> bool {
        self.x == 0 && self.o == 0
    }
}

/// Cells as 1-based `[row, col]` pairs.
pub fn one_based(cells: &[Cell]) -> impl Iterator<Item = [u32; 2]> + '_ {
    cells
        .iter()
        .map(|c| [u32::from(c.row) + 1, u32::from(c.col) + 1])
}

/// Appends one record as one line to `out` (records go out in batches, each
/// in a single write, so that a run killed mid-way leaves at worst one
/// unfinished last line).
pub fn push_record(out: &mut Vec<u8>, record: &GameRecord) {
    // Writing plain values into a vector can't fail.
    let _ = serde_json::to_writer(&mut *out, record);
    out.push(b'\n');
}

/// Writes one record as one line, flushed, in a single write.
pub fn write_record(out: &mut impl Write, record: &GameRecord) -> anyhow::Result<()> {
    let mut line = Vec::new();
    push_record(&mut line, record);
    out.write_all(&line)?;
    out.flush()?;
    Ok(())
}

/// `a line without a newline ('my notes', 8 bytes)`, for messages.
fn unfinished_text(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let shown: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    let more = if text.chars().count() > 40 { "..." } else { "" };
    format!(
        "a line without a newline ('{shown}{more}', {} bytes)",
        line.len()
    )
}

/// Why a record of another schema can't be resumed or merged.
pub(super) fn schema_refusal(schema: u32) -> String {
    let writer = match schema {
        1 => "an older referee, which derived the seeds of games differently",
        2 => "an older referee, before records named their run and shard",
        _ => "a newer referee",
    };
    format!(
        "a record of schema {schema}, written by {writer}: this referee (schema {RECORD_SCHEMA}) \
         cannot continue or merge that run; finish it with the referee that wrote it, or start \
         a new --games-out file"
    )
}

/// The records already in a `--games-out` file, read for `--resume`.
#[derive(Clone, Debug, Default)]
pub struct PastGames {
    /// The file.
    pub path: PathBuf,
    /// Each record with its 1-based line number.
    pub records: Vec<(usize, GameRecord)>,
    /// Each run line with its line number (one per session that wrote
    /// records).
    pub runs: Vec<(usize, RunLine)>,
    /// The last line was cut off (a run killed while writing it): its line
    /// number and length in bytes. It is ignored, and removed by
    /// [`PastGames::tidy`].
    pub unfinished: Option<(usize, usize)>,
    /// Length of the file up to the end of the last complete record.
    keep: u64,
    /// The last record is complete but lacks its newline.
    needs_newline: bool,
}

/// How a record line starts, as [`write_record`] writes it, and a run line:
/// a line cut off while being written starts so, or is the start of one.
const RECORD_HEADS: [&[u8]; 2] = [br#"{"schema":3,"game":"#, br#"{"schema":3,"run":"#];

/// Whether an unfinished line can be a record cut off while being written.
fn starts_like_a_record(line: &[u8]) -> bool {
    RECORD_HEADS
        .iter()
        .any(|head| line.starts_with(head) || head.starts_with(line))
}

/// A line of `--games-out`: a game record or a run line.
enum Line {
    Game(Box<GameRecord>),
    Run(Box<RunLine>),
}

/// Reads one line: a record, else a run line (which has no `game`); the
/// error is the record's, which is what most lines are.
fn parse_line(bytes: &[u8]) -> Result<Line, serde_json::Error> {
    match serde_json::from_slice::<GameRecord>(bytes) {
        Ok(record) => Ok(Line::Game(Box::new(record))),
        Err(e) => match serde_json::from_slice::<RunLine>(bytes) {
            Ok(run) => Ok(Line::Run(Box::new(run))),
            Err(_) => Err(e),
        },
    }
}

impl PastGames {
    /// Reads the records in `path`, at most `max_bytes` of them (see
    /// [`super::files::records_limit`]) in lines of at most
    /// [`super::files::MAX_LINE`]; a missing file holds none. A line that
    /// is not a record is an error naming it. The one exception is an
    /// unfinished last line (no newline) that follows whole records and
    /// starts like one: a run killed while writing it. It is ignored, and
    /// cut off by [`PastGames::tidy`]. Nothing is changed here.
    pub fn read(path: &Path, max_bytes: u64) -> anyhow::Result<PastGames> {
        let mut past = PastGames {
            path: path.to_path_buf(),
            ..PastGames::default()
        };
        let what = "--games-out file";
        let Some(mut lines) = super::files::BoundedLines::open(path, what, max_bytes, true)? else {
            return Ok(past);
        };
        let mut buf = Vec::new();
        while let Some(kind) = lines.next_line(&mut buf)? {
            let number = lines.number();
            let complete = kind == super::files::Line::Whole;
            if buf.iter().all(u8::is_ascii_whitespace) {
                if complete {
                    past.keep = lines.offset();
                }
                continue;
            }
            match parse_line(&buf) {
                Ok(line) => {
                    match line {
                        Line::Game(record) => past.records.push((number, *record)),
                        Line::Run(run) => past.runs.push((number, *run)),
                    }
                    past.keep = lines.offset();
                    past.needs_newline = !complete;
                }
                Err(e) if complete => {
                    bail!("{} line {number} is not a game record: {e}", path.display())
                }
                Err(_) if past.records.is_empty() && past.runs.is_empty() => bail!(
                    "{} holds no game record, only {}: not the records of a run to resume \
                     (nothing was changed)",
                    path.display(),
                    unfinished_text(&buf)
                ),
                Err(_) if !starts_like_a_record(&buf) => bail!(
                    "{} line {number} is not a game record nor the start of one: {} \
                     (nothing was changed)",
                    path.display(),
                    unfinished_text(&buf)
                ),
                Err(_) => past.unfinished = Some((number, buf.len())),
            }
        }
        Ok(past)
    }

    /// The run's seed as the records give it (the first record that has one).
    pub fn seed(&self) -> Option<u64> {
        self.records.iter().find_map(|(_, r)| r.seed)
    }

    /// The run as the file's last run line gives it.
    pub fn run(&self) -> Option<&RunLine> {
        self.runs.last().map(|(_, r)| r)
    }

    /// Makes the file ready for appending: cuts off an unfinished last line
    /// and ends a last record that lacks its newline.
    pub fn tidy(&self) -> anyhow::Result<()> {
        if self.unfinished.is_none() && !self.needs_newline {
            return Ok(());
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.path)
            .with_context(|| format!("cannot open {}", self.path.display()))?;
        let tidied = file.set_len(self.keep).and_then(|()| {
            if self.needs_newline {
                use std::io::{Seek, SeekFrom};
                file.seek(SeekFrom::End(0))?;
                file.write_all(b"\n")?;
            }
            Ok(())
        });
        tidied.with_context(|| format!("cannot tidy {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(game: usize) -> GameRecord {
        GameRecord {
            schema: RECORD_SCHEMA,
            game,
            pair: game / 2,
            x: "a".into(),
            o: "b".into(),
            opening: vec![[2, 2]],
            moves: vec![[1, 1], [3, 3]],
            result: GameResult::Draw,
            reason: Reason::Draw,
            fault_by: None,
            detail: None,
            time_ms: TimeUsed { x: 0.5, o: 0.25 },
            peak_mib: PeakMemory::default(),
            skipped: SkippedLines::default(),
            seed: Some(7),
            board: None,
            run: Some("0123456789abcdef".into()),
            shard: None,
            move_info: Vec::new(),
        }
    }

    fn line(game: usize) -> String {
        let mut out = Vec::new();
        write_record(&mut out, &record(game)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn records_round_trip_and_skip_empty_fields() {
        let text = line(3);
        assert!(text.ends_with("}\n") && text.matches('\n').count() == 1);
        assert!(!text.contains("skipped") && !text.contains("detail"));
        let back: GameRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, record(3));
        // Records written before `seed` and `board` existed still read.
        let old = r#"{"game":0,"pair":0,"x":"a","o":"b","opening":[],"moves":[[1,1]],"result":"o","reason":"crash","fault_by":"a","detail":"output closed","time_ms":{"x":0,"o":0}}"#;
        let old: GameRecord = serde_json::from_str(old).unwrap();
        assert_eq!(
            (old.schema, old.seed, old.board, old.reason),
            (1, None, None, Reason::Crash)
        );
        assert!(text.starts_with(r#"{"schema":3,"game":3,"#), "{text}");
    }

    fn read_text(tag: &str, text: &str) -> (anyhow::Result<PastGames>, PathBuf) {
        let path = std::env::temp_dir().join(format!("kinrow-past-{tag}-{}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        (PastGames::read(&path, 1 << 20), path)
    }

    #[test]
    fn an_unfinished_last_line_is_ignored_and_cut_off() {
        let whole = format!("{}\n{}", line(0), line(1));
        let cut = &line(2)[..40];
        let (past, path) = read_text("cut", &format!("{whole}{cut}"));
        let past = past.unwrap();
        let games: Vec<usize> = past.records.iter().map(|(_, r)| r.game).collect();
        assert_eq!(games, [0, 1]);
        assert_eq!(past.records[1].0, 3, "line numbers count blank lines");
        assert_eq!(past.unfinished, Some((4, 40)));
        assert_eq!(past.seed(), Some(7));
        past.tidy().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_whole_last_record_without_newline_is_kept_and_ended() {
        let text = format!("{}{}", line(0), line(1).trim_end());
        let (past, path) = read_text("nl", &text);
        let past = past.unwrap();
        assert_eq!(past.records.len(), 2);
        assert_eq!(past.unfinished, None);
        past.tidy().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{}{}", line(0), line(1))
        );
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn only_the_start_of_a_record_looks_like_one() {
        let whole = line(7);
        for cut in [1, 5, RECORD_HEADS[0].len(), 40] {
            assert!(starts_like_a_record(&whole.as_bytes()[..cut]), "{cut}");
        }
        for text in ["my notes", "{\"game\":1", "{\"schema\":2,\"game\":", " {"] {
            assert!(!starts_like_a_record(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn a_bad_line_before_the_end_is_an_error_naming_it() {
        let (past, path) = read_text("bad", &format!("{}{{\"game\": 1\n{}", line(0), line(2)));
        let e = format!("{:#}", past.unwrap_err());
        assert!(e.contains("line 2 is not a game record"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let missing = std::env::temp_dir().join("kinrow-past-no-such-file");
        let past = PastGames::read(&missing, 1 << 20).unwrap();
        assert!(past.records.is_empty() && past.seed().is_none());
    }
}
