//! The files of a run: inputs read with bounds, and outputs checked before
//! any game so that none destroys another.
//!
//! - Every input file (an openings file, the records read for `--resume`)
//!   is read line by line with a bound on each line and on the whole file,
//!   so `/dev/zero` or a wrong, huge file is an error naming the file and
//!   the limit, never a referee that grows until the kernel kills it.
//! - No two of the run's files may be one file: `--json`, `--games-out`, `--samples`,
//!   the files the referee writes in `--log-dir` and the openings file are
//!   compared by canonical path and by device and inode (hard links,
//!   symlinks, `./x` and `x`), and the run stops before any game naming the
//!   two flags. Character devices (`/dev/null`) are exempt: writing one
//!   twice destroys nothing.
//! - A directory given as a file, or a file as a directory, is said so.

use anyhow::{bail, Context};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, ErrorKind};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Longest line of any input file. The longest record of a game is that of
/// a full 32x32 board with `--move-info`, about 115 KiB (see the test
/// below); an openings line holds at most 1,024 stones of at most 6 bytes
/// each.
pub const MAX_LINE: usize = 128 * 1024;

/// Largest openings file read: 64 MiB, millions of openings (a line of a
/// 15x15 opening of four stones takes 16 bytes).
pub const MAX_OPENINGS_FILE: u64 = 64 << 20;

/// Largest records file read for `--resume`, whatever the run's size.
pub const MAX_RECORDS_FILE: u64 = 1 << 30;

/// The largest records file a run of `games` games can have written: each
/// record is one line of at most [`MAX_LINE`] bytes (and a little room for
/// blank lines), within [`MAX_RECORDS_FILE`].
pub fn records_limit(games: u64) -> u64 {
    games
        .saturating_add(16)
        .saturating_mul(MAX_LINE as u64 + 1)
        .min(MAX_RECORDS_FILE)
}

/// `16 KiB`, `64 MiB`: a size for messages.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 => format!("{:.0} MiB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{:.0} KiB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

/// Fails when `path` is a directory: `--FLAG PATH is a directory, not a file`.
pub fn not_a_directory(flag: &str, path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("{flag} {} is a directory, not a file", path.display());
    }
    Ok(())
}

/// Fails when `path` (or the first of its ancestors that exists) is not a
/// directory: `--log-dir PATH is a file, not a directory`.
pub fn a_directory(flag: &str, path: &Path) -> anyhow::Result<()> {
    let existing = path
        .ancestors()
        .find(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_ok());
    match existing {
        Some(a) if !a.is_dir() && a == path => {
            bail!("{flag} {} is a file, not a directory", path.display())
        }
        Some(a) if !a.is_dir() => bail!(
            "{flag} {}: {} is a file, not a directory",
            path.display(),
            a.display()
        ),
        _ => Ok(()),
    }
}

/// One line of an input file.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line ended by a newline (the newline is not in the buffer).
    Whole,
    /// The last line, without a newline.
    Unfinished,
}

/// An input file read line by line within bounds.
pub struct BoundedLines {
    reader: BufReader<File>,
    path: PathBuf,
    /// What the file is, for messages: `openings file`, `--games-out file`.
    what: &'static str,
    max_total: u64,
    /// Bytes consumed so far (the offset of the next line).
    offset: u64,
    /// The number of the line read last (1-based).
    number: usize,
}

impl BoundedLines {
    /// Opens `path` for reading; a directory is refused by name. `None`
    /// when the file does not exist and `missing_ok`.
    pub fn open(
        path: &Path,
        what: &'static str,
        max_total: u64,
        missing_ok: bool,
    ) -> anyhow::Result<Option<BoundedLines>> {
        if path.is_dir() {
            bail!("{what} {} is a directory, not a file", path.display());
        }
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if missing_ok && e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read the {what} {}", path.display()))
            }
        };
        Ok(Some(BoundedLines {
            reader: BufReader::with_capacity(64 * 1024, file),
            path: path.to_path_buf(),
            what,
            max_total,
            offset: 0,
            number: 0,
        }))
    }

    /// The 1-based number of the line read last.
    pub fn number(&self) -> usize {
        self.number
    }

    /// The offset of the next line: the bytes read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads the next line into `buf` (cleared first); `None` at the end
    /// of the file. A line longer than [`MAX_LINE`], or a file longer than
    /// its limit, is an error naming the file and the limit, raised as
    /// soon as the limit is passed (nothing more is read).
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> anyhow::Result<Option<Line>> {
        buf.clear();
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot read the {} {}", self.what, self.path.display())
                    })
                }
            };
            if available.is_empty() {
                if buf.is_empty() {
                    return Ok(None);
                }
                self.number += 1;
                return Ok(Some(Line::Unfinished));
            }
            let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            if buf.len() + chunk.len() > MAX_LINE {
                bail!(
                    "{} {}: line {} is longer than {}, the longest line the referee reads",
                    self.what,
                    self.path.display(),
                    self.number + 1,
                    size_text(MAX_LINE as u64)
                );
            }
            if self.offset + used as u64 > self.max_total {
                bail!(
                    "{} {} is larger than {}, the most the referee reads there",
                    self.what,
                    self.path.display(),
                    size_text(self.max_total),
                );
            }
            buf.extend_from_slice(chunk);
            self.reader.consume(used);
            self.offset += used as u64;
            if done {
                self.number += 1;
                return Ok(Some(Line::Whole));
            }
        }
    }
}

/// A file of the run, as given and as the system knows it.
struct RunFile<'a> {
    /// `--json`, `--games-out`, `--log-dir`'s `referee.log`, …
    role: String,
    path: &'a Path,
    /// The path with its directory resolved (symlinks, `..`, `.`), for a
    /// file that does not exist yet too.
    canonical: Option<PathBuf>,
    /// Device and inode of an existing file.
    inode: Option<(u64, u64)>,
    /// A character device (`/dev/null`): may be given more than once.
    device: bool,
}

impl<'a> RunFile<'a> {
    fn new(role: impl Into<String>, path: &'a Path) -> RunFile<'a> {
        let meta = std::fs::metadata(path).ok();
        RunFile {
            role: role.into(),
            path,
            canonical: canonical(path),
            inode: meta.as_ref().map(|m| (m.dev(), m.ino())),
            device: meta.is_some_and(|m| m.file_type().is_char_device()),
        }
    }

    fn same_as(&self, other: &RunFile<'_>) -> bool {
        if self.device || other.device {
            return false;
        }
        let same_path = self.canonical.is_some() && self.canonical == other.canonical;
        let same_inode = self.inode.is_some() && self.inode == other.inode;
        same_path || same_inode
    }
}

/// Fails, naming both, when two of `files` (a role such as `--json`, and a
/// path) are one file; character devices (`/dev/null`) are exempt.
pub fn check_distinct(files: &[(String, &Path)]) -> anyhow::Result<()> {
    let files: Vec<RunFile<'_>> = files
        .iter()
        .map(|(role, path)| RunFile::new(role.clone(), path))
        .collect();
    all_distinct(&files)
}

/// Fails, naming both, when two of `files` are one file.
fn all_distinct(files: &[RunFile<'_>]) -> anyhow::Result<()> {
    for (i, a) in files.iter().enumerate() {
        for b in &files[i + 1..] {
            if a.same_as(b) {
                bail!(
                    "{} {} and {} {} are the same file: give each its own file \
                     (nothing was written)",
                    a.role,
                    a.path.display(),
                    b.role,
                    b.path.display()
                );
            }
        }
    }
    Ok(())
}

/// `path` as the system would resolve it, also when it (or its directory)
/// does not exist yet: its deepest existing ancestor canonicalised (links
/// and `..` resolved), then the rest of the path with `.` and `..` applied.
fn canonical(path: &Path) -> Option<PathBuf> {
    let absolute = std::env::current_dir().ok()?.join(path);
    let mut rest = Vec::new();
    let mut base = absolute.as_path();
    let resolved = loop {
        if let Ok(c) = std::fs::canonicalize(base) {
            break c;
        }
        rest.push(base.file_name()?);
        base = base.parent()?;
    };
    let mut out = resolved;
    for part in rest.iter().rev() {
        match Path::new(part).components().next() {
            Some(std::path::Component::ParentDir) => {
                out.pop();
            }
            Some(std::path::Component::CurDir) | None => {}
            _ => out.push(part),
        }
    }
    Some(out)
}

/// The files of a run that must all be different files.
pub struct RunFiles<'a> {
    /// `--json`.
    pub json: Option<&'a Path>,
    /// `--games-out`.
    pub games_out: Option<&'a Path>,
    /// `--samples`.
    pub samples: Option<&'a Path>,
    /// `--log-dir`.
    pub log_dir: Option<&'a Path>,
    /// `--sgf-dir`.
    pub sgf_dir: Option<&'a Path>,
    /// `--openings-file`.
    pub openings_file: Option<&'a Path>,
    pub messages: Option<&'a Path>,
}

/// The name of the referee's own log in `--log-dir`.
pub const REFEREE_LOG: &str = "referee.log";

/// Whether `name` is one the referee writes in `--log-dir`.
fn is_log_name(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name == REFEREE_LOG || name.ends_with(".stderr.log")
}

/// A directory the referee writes files into, named as the run goes.
struct OutputDir<'a> {
    flag: &'static str,
    dir: &'a Path,
    /// What it writes there, for messages.
    writes: &'static str,
    /// Whether a file name is one it may write there.
    ours: fn(&std::ffi::OsStr) -> bool,
}

fn is_sgf_name(name: &std::ffi::OsStr) -> bool {
    Path::new(name).extension().is_some_and(|e| e == "sgf")
}

impl RunFiles<'_> {
    /// Checks, before any game and without changing anything, that each
    /// file is of the right kind and that no two are the same file.
    pub fn check(&self) -> anyhow::Result<()> {
        let named = [
            ("--json", self.json),
            ("--games-out", self.games_out),
            ("--messages", self.messages),
            ("--samples", self.samples),
            ("--openings-file", self.openings_file),
        ];
        for (flag, path) in named {
            if let Some(path) = path {
                not_a_directory(flag, path)?;
            }
        }
        let dirs: Vec<OutputDir<'_>> = [
            self.log_dir.map(|dir| OutputDir {
                flag: "--log-dir",
                dir,
                writes: "its own referee.log and one NAME.N.stderr.log per engine process",
                ours: is_log_name,
            }),
            self.sgf_dir.map(|dir| OutputDir {
                flag: "--sgf-dir",
                dir,
                writes: "one GAME-X-vs-O.sgf per game",
                ours: is_sgf_name,
            }),
        ]
        .into_iter()
        .flatten()
        .collect();
        for d in &dirs {
            a_directory(d.flag, d.dir)?;
        }
        let mut files: Vec<RunFile<'_>> = named
            .into_iter()
            .filter_map(|(flag, path)| Some(RunFile::new(flag, path?)))
            .collect();
        let log_path = self.log_dir.map(|d| d.join(REFEREE_LOG));
        if let Some(log) = &log_path {
            files.push(RunFile::new(format!("--log-dir's {REFEREE_LOG}"), log));
        }
        all_distinct(&files)?;
        // The files written in those directories get their names as the
        // run goes: none of the other files may be one of them.
        for d in &dirs {
            let canonical_dir = canonical(d.dir);
            let theirs: Vec<(u64, u64)> = std::fs::read_dir(d.dir)
                .into_iter()
                .flatten()
                .filter_map(|e| {
                    let e = e.ok()?;
                    let m = std::fs::metadata(e.path()).ok()?;
                    ((d.ours)(&e.file_name()) && m.is_file()).then(|| (m.dev(), m.ino()))
                })
                .collect();
            for f in files
                .iter()
                .filter(|f| !f.device && !f.role.starts_with("--log-dir"))
            {
                let in_dir = f.canonical.as_ref().is_some_and(|c| {
                    c.parent().map(Path::to_path_buf) == canonical_dir
                        && c.file_name().is_some_and(d.ours)
                });
                let linked = f.inode.is_some_and(|i| theirs.contains(&i));
                if in_dir || linked {
                    bail!(
                        "{} {} is a file the referee writes in {} {} ({}): give another \
                         file (nothing was written)",
                        f.role,
                        f.path.display(),
                        d.flag,
                        d.dir.display(),
                        d.writes
                    );
                }
            }
        }
        Ok(())
    }
}

/// Fails unless `path` can be opened for writing, without changing it: a
/// file that didn't exist is removed again. So an unwritable `--json` stops
/// the run before any game rather than after the last one.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    let existed = std::fs::symlink_metadata(path).is_ok();
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Score;
    use crate::referee::game::Reason;
    use crate::referee::games_out::{
        write_record, GameRecord, GameResult, MoveInfo, PeakMemory, SkippedLines, TimeUsed,
        RECORD_SCHEMA,
    };
    use crate::referee::report::BoardInfo;
    use crate::rules::{Geometry, Rule};

    #[test]
    fn the_largest_record_fits_in_a_line() {
        // A full 32x32 board, the longest names, a whole fault detail of
        // control characters (each escaped as six bytes), the largest
        // numbers, and every move's info at its longest (a day's time).
        let cells: Vec<[u32; 2]> = (1..=32)
            .flat_map(|r| (1..=32).map(move |c| [r, c]))
            .collect();
        let record = GameRecord {
            schema: RECORD_SCHEMA,
            game: usize::MAX,
            pair: usize::MAX,
            x: "x".repeat(64),
            o: "o".repeat(64),
            opening: cells[..24].to_vec(),
            moves: cells[24..].to_vec(),
            result: GameResult::Draw,
            reason: Reason::Malformed,
            fault_by: Some("o".repeat(64)),
            detail: Some("\u{1}".repeat(crate::referee::MAX_DETAIL)),
            time_ms: TimeUsed {
                x: -1.234_567_890_123_456_7e300,
                o: -1.234_567_890_123_456_7e300,
            },
            peak_mib: PeakMemory {
                x: Some(-1.234_567_890_123_456_7e300),
                o: Some(-1.234_567_890_123_456_7e300),
            },
            skipped: SkippedLines {
                x: u64::MAX,
                o: u64::MAX,
            },
            seed: Some(u64::MAX),
            board: Some(BoardInfo::from(
                Geometry::new(32, 32, 32, Rule::Exact).unwrap(),
            )),
            run: Some("f".repeat(16)),
            move_info: vec![
                MoveInfo {
                    ms: 86_399_999.999,
                    depth: Some(u32::MAX),
                    score: Some(Score::Loss(u32::MAX)),
                    nodes: Some(u64::MAX),
                };
                1000
            ],
            shard: Some(
                crate::referee::Shard::new(
                    crate::referee::shard::MAX_SHARDS,
                    crate::referee::shard::MAX_SHARDS,
                )
                .unwrap(),
            ),
        };
        let mut line = Vec::new();
        write_record(&mut line, &record).unwrap();
        assert!(line.len() < 120 * 1024, "{}", line.len());
        assert!(line.len() < MAX_LINE);
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(size_text(MAX_LINE as u64), "128 KiB");
        assert_eq!(size_text(MAX_OPENINGS_FILE), "64 MiB");
        assert_eq!(size_text(MAX_RECORDS_FILE), "1 GiB");
        assert_eq!(size_text(100), "100 bytes");
        assert_eq!(records_limit(0), 16 * (128 * 1024 + 1));
        assert_eq!(records_limit(u64::MAX), MAX_RECORDS_FILE);
    }
}
