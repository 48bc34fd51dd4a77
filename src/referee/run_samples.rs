//! A run's `--samples FILE`: each finished game's training samples, drawn
//! by the [`Sampler`] that `referee samples` draws with, so that a run's
//! samples are those `referee samples` makes of its records. The worker
//! that played a game lays its samples out with its record (`books`); the
//! books append each batch's in one go after the batch's records, so the
//! file holds only games that are in the records and a resumed run samples
//! none twice. LZ4: one frame a session, as c-gomoku-cli writes one a run;
//! each batch ends a block of it, and the session's end ends the frame.
//!
//! A run killed outright leaves its last frame open (whole blocks with no
//! end mark), or, when a write was cut short, part of a sample or block at
//! the end. Whatever appends to the file next (`--resume`, or a run
//! appending) first closes such a frame with its end mark, or cuts the part
//! off, so that the file reads to its end. What a cut removes (a batch at
//! most) is in the records: `referee samples` remakes it.

use super::report::BoardInfo;
use super::samples::{gomoku_board, lz4_encoder, SampleBoard, SampleFormat, Sampler};
use super::say;
use anyhow::{bail, Context};
use lz4_flex::frame::FrameEncoder;
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// A run's `--samples`: where, and how they are drawn.
#[derive(Clone, Debug)]
pub struct RunSamples {
    pub path: PathBuf,
    pub sampler: Sampler,
}

impl RunSamples {
    /// The rules of `--samples`: a board c-gomoku-cli's layouts hold, a
    /// rate that is a chance.
    pub fn check(&self, geometry: crate::rules::Geometry) -> Result<SampleBoard, String> {
        let rate = self.sampler.rate;
        if !(rate > 0.0 && rate <= 1.0) {
            return Err(format!("--sample-rate {rate} is not a chance in (0, 1]"));
        }
        gomoku_board(&BoardInfo::from(geometry))
            .map_err(|why| format!("--samples: the run's board {why}"))
    }
}

/// What went into the samples file this session, for the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SamplesSummary {
    pub file: String,
    pub format: &'static str,
    pub rate: f64,
    /// Games of this session whose samples were written (a game may give
    /// none: lost by a fault, or at a low rate).
    pub games: u64,
    pub samples: u64,
}

/// How the samples reach the file.
enum Sink {
    Plain(File),
    /// This session's frame, begun at its first samples.
    Lz4 {
        frame: FrameEncoder<File>,
        begun: bool,
    },
}

/// The samples file of a session, open for appending.
pub(super) struct SamplesOut {
    sink: Sink,
    path: PathBuf,
    sampler: Sampler,
    board: SampleBoard,
    /// What the session must mend at the end of the file before it
    /// appends.
    tail: Tail,
    games: u64,
    samples: u64,
    /// Games whose samples could not be written, and the first error:
    /// after one, the session writes no more (the file would have a hole).
    lost: u64,
    first_error: Option<String>,
}

/// The end of a samples file, read before a session appends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    /// Whole samples (and closed frames) to the end.
    Whole,
    /// Part of a sample, block or frame from this offset on: cut it.
    Cut(u64),
    /// An LZ4 frame open at its end, its blocks whole up to this offset:
    /// cut anything after, and end the frame.
    Close(u64),
}

impl SamplesOut {
    /// Opens the file for appending and reads its end (nothing is changed
    /// before [`SamplesOut::tidy`]); a file that holds no samples of this
    /// layout and board is refused. Without `resume`, a file that holds
    /// samples already is appended to, and said so.
    pub fn open(samples: &RunSamples, board: SampleBoard, resume: bool) -> anyhow::Result<Self> {
        let path = &samples.path;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let tail = tail(&file, samples.sampler.format, board)
            .with_context(|| format!("--samples {}", path.display()))?;
        let meta = file.metadata()?;
        if !resume && meta.is_file() && meta.len() > 0 {
            say(&format!(
                "referee: {} already holds samples; appending",
                path.display()
            ));
        }
        let sink = match samples.sampler.format {
            SampleFormat::BinLz4 => Sink::Lz4 {
                frame: lz4_encoder(file),
                begun: false,
            },
            _ => Sink::Plain(file),
        };
        Ok(SamplesOut {
            sink,
            path: path.clone(),
            sampler: samples.sampler,
            board,
            tail,
            games: 0,
            samples: 0,
            lost: 0,
            first_error: None,
        })
    }

    fn file(&mut self) -> &mut File {
        match &mut self.sink {
            Sink::Plain(file) => file,
            Sink::Lz4 { frame, .. } => frame.get_mut(),
        }
    }

    /// Mends the end of the file (see [`Tail`]), once the run is known to
    /// go ahead.
    pub fn tidy(&mut self) -> anyhow::Result<()> {
        let (at, close) = match self.tail {
            Tail::Whole => return Ok(()),
            Tail::Cut(at) => (at, false),
            Tail::Close(at) => (at, true),
        };
        self.tail = Tail::Whole;
        let path = self.path.clone();
        let file = self.file();
        let len = file.metadata()?.len();
        file.set_len(at)
            .and_then(|()| {
                if close {
                    file.write_all(&[0; 4])
                } else {
                    Ok(())
                }
            })
            .with_context(|| format!("cannot mend the end of {}", path.display()))?;
        let what = match (close, len > at) {
            (true, false) => "ended the LZ4 frame the stopped run left open".to_string(),
            (true, true) => format!(
                "removed an unfinished block ({} bytes, cut off when the run stopped) and ended \
                 the LZ4 frame the run left open; referee samples remakes its samples from the \
                 records",
                len - at
            ),
            (false, _) => format!(
                "removed an unfinished last sample or frame ({} bytes, cut off when the run \
                 stopped); referee samples remakes its samples from the records",
                len - at
            ),
        };
        say(&format!("referee: {}: {what}", path.display()));
        Ok(())
    }

    /// How the samples are drawn, on the run's board.
    pub fn drawn(&self) -> (Sampler, SampleBoard) {
        (self.sampler, self.board)
    }

    /// Appends a batch's samples (`raw`, laid out by [`Sampler::push`]) of
    /// `games` games, `samples` in all: as they are, or as a block of the
    /// session's LZ4 frame. Returns what to say at once on the first
    /// failure (the run goes on; the games are counted as lost, and said
    /// at the end).
    pub fn write(&mut self, raw: &[u8], games: u64, samples: u64) -> Option<String> {
        if self.first_error.is_some() {
            self.lost += games;
            return None;
        }
        if raw.is_empty() {
            self.games += games;
            return None;
        }
        let written = match &mut self.sink {
            Sink::Plain(file) => file.write_all(raw),
            Sink::Lz4 { frame, begun } => {
                *begun = true;
                // A flush ends the block: the batch is in the file.
                frame.write_all(raw).and_then(|()| frame.flush())
            }
        };
        match written {
            Ok(()) => {
                self.games += games;
                self.samples += samples;
                None
            }
            Err(e) => {
                self.lost += games;
                self.first_error = Some(e.to_string());
                Some(format!(
                    "referee: cannot write samples to {}: {e}; no more are written",
                    self.path.display()
                ))
            }
        }
    }

    /// Ends the session's frame; what was written, and what could not be
    /// (an error for the end).
    pub fn finish(mut self) -> (SamplesSummary, Option<String>) {
        if let (Sink::Lz4 { frame, begun: true }, None) = (&mut self.sink, &self.first_error) {
            if let Err(e) = frame.try_finish() {
                self.first_error = Some(e.to_string());
            }
        }
        let error = self.first_error.map(|e| {
            format!(
                "cannot write {}: the samples of {} game{} are missing ({e})",
                self.path.display(),
                self.lost,
                if self.lost == 1 { "" } else { "s" }
            )
        });
        let summary = SamplesSummary {
            file: self.path.display().to_string(),
            format: self.sampler.format.name(),
            rate: self.sampler.rate,
            games: self.games,
            samples: self.samples,
        };
        (summary, error)
    }
}

/// Reads `file` through to tell how it ends (see [`Tail`]). Bytes that are
/// no samples of `format` on `board` at all are an error.
fn tail(file: &File, format: SampleFormat, board: SampleBoard) -> anyhow::Result<Tail> {
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() == 0 {
        return Ok(Tail::Whole);
    }
    let len = meta.len();
    let mut file = file;
    file.seek(SeekFrom::Start(0))?;
    let mut reader = Reader {
        inner: BufReader::with_capacity(64 * 1024, file),
        at: 0,
        len,
    };
    let tail = match format {
        SampleFormat::Csv => csv_tail(&mut reader)?,
        SampleFormat::Bin => bin_tail(&mut reader, board)?,
        SampleFormat::BinLz4 => lz4_tail(&mut reader)?,
    };
    Ok(match tail {
        Tail::Cut(at) if at == len => Tail::Whole,
        t => t,
    })
}

/// A file read forwards, knowing where it is.
struct Reader<R> {
    inner: BufReader<R>,
    at: u64,
    len: u64,
}

impl<R: Read + Seek> Reader<R> {
    /// The next `N` bytes, or `None` when the file ends first.
    fn take<const N: usize>(&mut self) -> std::io::Result<Option<[u8; N]>> {
        if self.at + N as u64 > self.len {
            return Ok(None);
        }
        let mut buf = [0; N];
        self.inner.read_exact(&mut buf)?;
        self.at += N as u64;
        Ok(Some(buf))
    }

    /// Skips `n` bytes; false when the file ends first.
    fn skip(&mut self, n: u64) -> std::io::Result<bool> {
        if self.at + n > self.len {
            return Ok(false);
        }
        self.inner.seek_relative(n as i64)?;
        self.at += n;
        Ok(true)
    }
}

/// CSV: whole lines, the last ended by a newline.
fn csv_tail<R: Read + Seek>(r: &mut Reader<R>) -> anyhow::Result<Tail> {
    let mut whole = 0;
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = r.inner.read(&mut chunk)?;
        if n == 0 {
            return Ok(Tail::Cut(whole));
        }
        if chunk[..n].contains(&0) {
            bail!("byte {} is no CSV sample's", r.at);
        }
        if let Some(i) = chunk[..n].iter().rposition(|&b| b == b'\n') {
            whole = r.at + i as u64 + 1;
        }
        r.at += n as u64;
    }
}

/// Binary: each sample's head says how many stones follow; its board size
/// is the run's.
fn bin_tail<R: Read + Seek>(r: &mut Reader<R>, board: SampleBoard) -> anyhow::Result<Tail> {
    loop {
        let start = r.at;
        let Some(head) = r.take::<4>()? else {
            return Ok(Tail::Cut(start));
        };
        let first = u16::from_le_bytes([head[0], head[1]]);
        if u32::from(first >> 11) != board.size {
            bail!(
                "the sample at byte {start} is of a {0}x{0} board, not this run's {1}x{1}: not \
                 this run's samples in the binary layout",
                first >> 11,
                board.size
            );
        }
        if !r.skip(2 * u64::from((first >> 2) & 0x1ff))? {
            return Ok(Tail::Cut(start));
        }
    }
}

/// LZ4 frames (and skippable frames), walked by their headers and block
/// sizes without decompressing.
fn lz4_tail<R: Read + Seek>(r: &mut Reader<R>) -> anyhow::Result<Tail> {
    loop {
        let start = r.at;
        let Some(magic) = r.take::<4>()? else {
            return Ok(Tail::Cut(start));
        };
        let magic = u32::from_le_bytes(magic);
        let end = if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
            // A skippable frame: its size, then as many bytes.
            match r.take::<4>()? {
                Some(size) if r.skip(u64::from(u32::from_le_bytes(size)))? => Tail::Whole,
                _ => Tail::Cut(start),
            }
        } else if magic == 0x184D_2204 {
            lz4_frame(r, start)?
        } else {
            bail!("byte {start} starts no LZ4 frame: not samples in the LZ4 layout");
        };
        if end != Tail::Whole {
            return Ok(end);
        }
    }
}

/// The rest of a frame after its magic number, as LZ4's frame format lays
/// it out: FLG and BD, the optional content size and dictionary id, the
/// header checksum; blocks, each a 4-byte size (its top bit: stored
/// uncompressed) and an optional checksum, up to a zero size; the optional
/// content checksum. A frame whose blocks are whole but that has no end
/// mark can be closed with one, unless it carries a content checksum.
fn lz4_frame<R: Read + Seek>(r: &mut Reader<R>, start: u64) -> anyhow::Result<Tail> {
    let Some([flg, _bd]) = r.take::<2>()? else {
        return Ok(Tail::Cut(start));
    };
    if flg >> 6 != 1 {
        bail!(
            "the LZ4 frame at byte {start} is of version {}, not 1",
            flg >> 6
        );
    }
    let block_checksum = if flg & 0x10 != 0 { 4 } else { 0 };
    let content_size = if flg & 0x08 != 0 { 8 } else { 0 };
    let content_checksum = if flg & 0x04 != 0 { 4 } else { 0 };
    let dict_id = if flg & 0x01 != 0 { 4 } else { 0 };
    if !r.skip(content_size + dict_id + 1)? {
        return Ok(Tail::Cut(start));
    }
    let open = |blocks: u64| match content_checksum {
        0 => Tail::Close(blocks),
        _ => Tail::Cut(start),
    };
    loop {
        let blocks = r.at;
        let Some(size) = r.take::<4>()? else {
            return Ok(open(blocks));
        };
        let size = u32::from_le_bytes(size) & 0x7FFF_FFFF;
        if size == 0 {
            return Ok(match r.skip(content_checksum)? {
                true => Tail::Whole,
                false => Tail::Cut(start),
            });
        }
        if !r.skip(u64::from(size) + block_checksum)? {
            return Ok(open(blocks));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::samples::{push_bin, push_csv, read_lz4_frames, Sample};

    const BOARD: SampleBoard = SampleBoard { size: 15, rule: 0 };

    fn samples() -> Vec<Sample> {
        (0..40)
            .map(|n| Sample {
                position: (0..n).map(|i| [i % 15 + 1, i / 15 + 1]).collect(),
                played: [15, 15],
                result: (n % 3) as u8,
            })
            .collect()
    }

    fn sampler(format: SampleFormat) -> Sampler {
        Sampler {
            format,
            rate: 1.0,
            seed: 0,
        }
    }

    /// `bytes` as a samples file, opened for a session and mended: what
    /// the file then holds.
    fn mended(bytes: &[u8], format: SampleFormat) -> anyhow::Result<Vec<u8>> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("kinrow-run-samples-{}-{n}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let run = RunSamples {
            path: path.clone(),
            sampler: sampler(format),
        };
        let opened = SamplesOut::open(&run, BOARD, true).and_then(|mut out| out.tidy());
        let after = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        opened.map(|()| after)
    }

    /// Batches of samples as a run writes them in two sessions: CSV and
    /// binary as they are, LZ4 as one frame a session, a block a batch;
    /// with the raw bytes of each batch and where in the file it ends.
    fn sessions(format: SampleFormat) -> (Vec<u8>, Vec<(Vec<u8>, usize)>) {
        let all = samples();
        let mut file = Vec::new();
        let mut batches = Vec::new();
        for session in [&all[..25], &all[25..]] {
            let mut frame = lz4_encoder(Vec::new());
            for batch in session.chunks(6) {
                let mut raw = Vec::new();
                for s in batch {
                    match format {
                        SampleFormat::Csv => push_csv(&mut raw, s),
                        _ => push_bin(&mut raw, s, 15, 0),
                    }
                }
                if format == SampleFormat::BinLz4 {
                    frame.write_all(&raw).unwrap();
                    frame.flush().unwrap();
                    batches.push((raw, file.len() + frame.get_ref().len()));
                } else {
                    file.extend_from_slice(&raw);
                    batches.push((raw, file.len()));
                }
            }
            if format == SampleFormat::BinLz4 {
                file.extend(frame.finish().unwrap());
            }
        }
        (file, batches)
    }

    /// A file cut anywhere (a run killed outright, a write cut short) is
    /// mended to read to its end, keeping every batch wholly written.
    #[test]
    fn a_file_cut_anywhere_is_mended_keeping_its_whole_batches() {
        for format in [SampleFormat::Csv, SampleFormat::Bin, SampleFormat::BinLz4] {
            let (file, batches) = sessions(format);
            for cut in 0..=file.len() {
                let after = mended(&file[..cut], format).unwrap();
                let kept: Vec<u8> = batches
                    .iter()
                    .filter(|(_, end)| *end <= cut)
                    .flat_map(|(raw, _)| raw.clone())
                    .collect();
                let read = match format {
                    SampleFormat::BinLz4 => read_lz4_frames(&after).unwrap(),
                    _ => after,
                };
                // CSV and binary keep their whole samples, not only whole
                // batches: at least those.
                assert!(read.starts_with(&kept), "{format:?} cut at {cut}");
                if format == SampleFormat::BinLz4 {
                    assert!(read == kept, "{format:?} cut at {cut}");
                }
            }
            // A whole file is left as it is.
            assert!(mended(&file, format).unwrap() == file);
        }
    }

    #[test]
    fn a_file_of_another_layout_or_board_is_refused_and_left_alone() {
        let mut bin = Vec::new();
        push_bin(&mut bin, &samples()[3], 19, 0);
        let e = mended(&bin, SampleFormat::Bin).unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.contains("is of a 19x19 board, not this run's 15x15"),
            "{e}"
        );
        let e = format!(
            "{:#}",
            mended(b"h8,i9,2\n", SampleFormat::BinLz4).unwrap_err()
        );
        assert!(e.contains("byte 0 starts no LZ4 frame"), "{e}");
        let e = format!("{:#}", mended(&bin, SampleFormat::Csv).unwrap_err());
        assert!(e.contains("is no CSV sample's"), "{e}");
    }
}
