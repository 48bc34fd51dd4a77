//! Shared helpers for the referee's integration tests: run the real
//! `referee` binary against fixture engines, read its records, and check that
//! no engine process outlived it.

#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A scratch directory removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("kinrow-referee-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("pids")).unwrap();
        Scratch(dir)
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `NAME=python3 tests/fixtures/FILE.py` for `--engine`.
pub fn fixture(name: &str, file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{file}.py"));
    format!("{name}=python3 '{}'", path.display())
}

/// What a run left behind.
pub struct Run {
    pub output: Output,
    pub stdout: String,
    pub stderr: String,
    /// The `--json` summary, if written.
    pub summary: Option<Value>,
    /// The `--games-out` records, sorted by game index.
    pub games: Vec<Value>,
    /// The `--games-out` run lines, in order.
    pub runs: Vec<Value>,
}

/// Whether a `--games-out` line is a game record (not a run line).
pub fn is_game(line: &Value) -> bool {
    line.get("game").is_some()
}

/// Stderr as one line per message: the referee wraps its messages at 80
/// columns, continuation lines indented; this joins them back.
pub fn unwrapped(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        match line.strip_prefix("  ") {
            Some(rest) if i > 0 => {
                out.push(' ');
                out.push_str(rest.trim_start());
            }
            _ => {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(line);
            }
        }
    }
    out
}

/// The referee with `args` alone (a subcommand, a run with its own files).
pub fn referee_cmd(args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap()
}

/// A path as an argument.
pub fn text(path: &Path) -> String {
    path.display().to_string()
}

/// Reads the records a run wrote into `scratch`.
pub fn records(scratch: &Scratch, output: Output) -> Run {
    let summary = std::fs::read_to_string(scratch.path("summary.json"))
        .ok()
        .map(|t| serde_json::from_str(&t).expect("summary is JSON"));
    let (mut games, runs): (Vec<Value>, Vec<Value>) =
        std::fs::read_to_string(scratch.path("games.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("each line is JSON"))
            .partition(is_game);
    games.sort_by_key(|g| g["game"].as_u64());
    Run {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: unwrapped(&output.stderr),
        output,
        summary,
        games,
        runs,
    }
}

/// The records arguments every test run gets.
pub fn record_args(scratch: &Scratch) -> Vec<String> {
    vec![
        "--quiet".into(),
        "--json".into(),
        scratch.path("summary.json").display().to_string(),
        "--games-out".into(),
        scratch.path("games.jsonl").display().to_string(),
    ]
}

/// Runs the referee with `args` plus the record arguments, fixtures
/// registering their pids in the scratch directory.
pub fn referee(scratch: &Scratch, args: &[&str]) -> Run {
    let output = assert_cmd::Command::cargo_bin("referee")
        .unwrap()
        .args(args)
        .args(record_args(scratch))
        .env("KINROW_FIXTURE_PIDS", scratch.path("pids"))
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    records(scratch, output)
}

/// Pids of every fixture engine process started in this scratch directory.
pub fn fixture_pids(scratch: &Scratch) -> Vec<u32> {
    std::fs::read_dir(scratch.path("pids"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Asserts that every fixture process is gone: not running, and not a
/// zombie either (it was reaped).
pub fn assert_no_leftovers(scratch: &Scratch) {
    let pids = fixture_pids(scratch);
    assert!(!pids.is_empty(), "fixtures registered no pids");
    let alive: Vec<String> = pids
        .iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            Some(format!("{pid}: {stat}"))
        })
        .collect();
    assert!(alive.is_empty(), "processes left behind: {alive:?}");
}

/// Game records without the timing and the engines' peak memory, which
/// vary from run to run (the totals, and each move's with `--move-info`).
pub fn games_without_time(run: &Run) -> Vec<Value> {
    run.games
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g.as_object_mut().unwrap().remove("time_ms");
            g.as_object_mut().unwrap().remove("peak_mib");
            // `--move-info`: each move's time goes, its search stays.
            if let Some(Value::Array(moves)) = g.get_mut("move_info") {
                for m in moves {
                    m.as_object_mut().unwrap().remove("ms");
                }
            }
            g
        })
        .collect()
}

/// The JSON summary without its wall-clock time and time per ply.
pub fn summary_without_time(run: &Run) -> Value {
    let mut s = run.summary.clone().expect("a summary was written");
    s.as_object_mut().unwrap().remove("seconds");
    s.as_object_mut().unwrap().remove("per_ply_us");
    s
}

/// The text report's timing line: `N of M games in S s (R games/s)`, or
/// `…: K resumed, P played in S s (…)`.
pub fn timing_line(stdout: &str) -> &str {
    stdout
        .lines()
        .find(|l| l.contains(" games in ") || l.contains(" played in "))
        .unwrap_or_default()
}

/// The text report without its timing lines (the games' time, the time
/// per ply).
pub fn report_without_time(run: &Run) -> Vec<&str> {
    let timing = timing_line(&run.stdout);
    run.stdout
        .lines()
        .filter(|&l| l != timing && !l.starts_with("time per ply: "))
        .collect()
}

/// A report without its second line (concurrency and mode, or a merge's
/// files) and without times (`N of M games`, not how long they took): what
/// one run, its in-process twin and its merged shards all say.
pub fn report_core(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .enumerate()
        .filter(|&(i, l)| i != 1 && !l.starts_with("time per ply: "))
        .map(|(_, l)| match l.find(" games in ") {
            Some(at) => l[..at + " games".len()].to_string(),
            None => l.to_string(),
        })
        .collect()
}

/// Starts the referee with `args` plus the record arguments in the
/// background, fixtures registering their pids.
pub fn start(scratch: &Scratch, args: &[&str]) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("referee"))
        .args(args)
        .args(record_args(scratch))
        .env("KINROW_FIXTURE_PIDS", scratch.path("pids"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `games` records are written.
pub fn wait_for_records(scratch: &Scratch, games: usize) {
    let start = Instant::now();
    while std::fs::read_to_string(scratch.path("games.jsonl")).map_or(0, |t| {
        t.lines().filter(|l| l.contains(r#""game":"#)).count()
    }) < games
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no games finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for the referee to exit, killing it and failing the test after
/// `limit`.
pub fn wait_for_exit(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the referee did not stop within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits for the referee to exit (at most 30 s) and collects its output.
pub fn finish(mut child: Child, scratch: &Scratch) -> (ExitStatus, Run) {
    let status = wait_for_exit(&mut child, Duration::from_secs(30));
    let output = child.wait_with_output().unwrap();
    (status, records(scratch, output))
}

pub fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
}

/// The moves of a `--games-out` record, the opening first, as cells.
pub fn record_moves(game: &Value) -> Vec<kinrow::rules::Cell> {
    ["opening", "moves"]
        .iter()
        .flat_map(|k| game[k].as_array().unwrap().iter())
        .map(|m| {
            let n = |i: usize| m[i].as_u64().unwrap() as u32;
            kinrow::rules::Cell::from_one_based(n(0), n(1)).unwrap()
        })
        .collect()
}

/// A referee started with `--serve 0` and `args`, with the page's address.
/// Killed when dropped before it finished.
pub struct Watched {
    child: Option<Child>,
    pub url: String,
    /// host:port
    pub host: String,
    /// Everything it wrote to stderr, once it has ended.
    stderr: mpsc::Receiver<String>,
}

pub fn start_watched(scratch: &Scratch, args: &[&str]) -> Watched {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("referee"))
        .args(args)
        .args(["--serve", "0"])
        .args(record_args(scratch))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (url_tx, url_rx) = mpsc::channel();
    let (all_tx, all_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(at) = line.find("http://") {
                let _ = url_tx.send(line[at..].trim().to_string());
            }
            all.push_str(&line);
            all.push('\n');
        }
        let _ = all_tx.send(all);
    });
    let url = url_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the referee printed the page's address");
    let host = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    Watched {
        child: Some(child),
        url,
        host,
        stderr: all_rx,
    }
}

impl Watched {
    /// Waits for the run to end (at most a minute) and reads its records.
    pub fn finish(mut self, scratch: &Scratch) -> (std::process::ExitStatus, Run, String) {
        let mut child = self.child.take().unwrap();
        let status = wait_for_exit(&mut child, Duration::from_secs(60));
        let output = child.wait_with_output().unwrap();
        let stderr = self
            .stderr
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_default();
        (status, records(scratch, output), stderr)
    }

    /// One HTTP request, the whole response.
    pub fn http(&self, request: &str) -> String {
        let mut s = TcpStream::connect(&self.host).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    pub fn get(&self, path: &str) -> String {
        self.http(&format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.host
        ))
    }

    /// The event stream, open.
    pub fn events(&self) -> BufReader<TcpStream> {
        let mut s = TcpStream::connect(&self.host).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(s, "GET /events HTTP/1.1\r\nHost: {}\r\n\r\n", self.host).unwrap();
        BufReader::new(s)
    }
}

/// The next event's JSON, or `None` when the stream ends.
pub fn next_event(stream: &mut BufReader<TcpStream>) -> Option<Value> {
    let mut line = String::new();
    loop {
        line.clear();
        if stream.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(data) = line.strip_prefix("data: ") {
            return Some(serde_json::from_str(data.trim_end()).expect("an event is JSON"));
        }
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The fixture brain, `examples/pbrain-fixture.rs` (a Gomocup brain that
/// misbehaves on request), built for this test run: `cargo test` builds the
/// examples, but `cargo test --test NAME` does not, so it is built here once
/// per test binary, with the profile of the tests themselves.
pub fn fixture_brain() -> &'static Path {
    static BRAIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BRAIN.get_or_init(|| {
        let me = std::env::current_exe().unwrap();
        // target/<profile dir>/deps/<test binary>
        let profile_dir = me.parent().and_then(Path::parent).unwrap();
        let release = profile_dir.file_name().is_some_and(|d| d == "release");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "--example", "pbrain-fixture"])
            .args(if release {
                &["--release"][..]
            } else {
                &["--profile", "test"][..]
            })
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status();
        let path = profile_dir.join("examples/pbrain-fixture");
        assert!(
            path.is_file(),
            "the fixture brain {} is missing ({status:?}): cargo build --example pbrain-fixture",
            path.display()
        );
        path
    })
}

/// A run slow enough to watch move by move: two fixture engines that take
/// 20 ms a move on 7x7 (five in a row), six games, two at once.
pub fn slow_watched_run() -> Vec<String> {
    let mut args = vec![
        "--engine".to_string(),
        fixture("a", "slow"),
        "--engine".into(),
        fixture("b", "slow"),
    ];
    let rest = "--board 7x7 --k 5 --games 6 --concurrency 2 --seed 5";
    args.extend(rest.split(' ').map(String::from));
    args
}
