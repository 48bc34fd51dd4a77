//! The cluster files in scripts/cluster run here with stand-ins for their
//! schedulers: the Slurm array script with the variables Slurm sets, the
//! Kubernetes manifest's command with the index Kubernetes sets, and the GNU
//! parallel script over this machine (where GNU parallel is installed); and
//! the Slurm script for real, as a job array on a one-node Slurm started
//! here (where Slurm and munge are installed, as root).
//! Each run of shards, merged, must be the one run.

mod referee_common;
mod skip;
mod slurm;

use referee_common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const RUN: &str = "--bots random,blocking,minimax --games 10 --seed 2 --in-process";

fn cluster(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/cluster")
        .join(file)
}

fn referee_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("referee")
}

/// The one run's report, without its second line and timing lines.
fn one_run_report() -> Vec<String> {
    let scratch = Scratch::new("cluster-one");
    let args: Vec<&str> = RUN.split(' ').collect();
    let run = referee(&scratch, &args);
    assert!(run.output.status.success(), "{}", run.stderr);
    report_core(&run.stdout)
}

/// `referee merge` over the shards in `dir`.
fn merged(dir: &Path, count: u32) -> Vec<String> {
    let files: Vec<PathBuf> = (1..=count)
        .map(|i| dir.join(format!("shard-{i}-of-{count}.jsonl")))
        .collect();
    let out = Command::new(referee_bin())
        .arg("merge")
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    report_core(&String::from_utf8_lossy(&out.stdout))
}

#[test]
fn the_slurm_array_script_plays_one_shard_a_task() {
    let scratch = Scratch::new("cluster-slurm");
    let out_dir = scratch.path("shards");
    // An array 0-2: Slurm's task ids, shifted to shards 1-3.
    for task in 0..3 {
        let out = Command::new("bash")
            .arg(cluster("slurm-shards.sbatch"))
            .current_dir(&scratch.0)
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("SLURM_ARRAY_TASK_MIN", "0")
            .env("KINROW_SCRIPTS", cluster(""))
            .env("KINROW_RUN", RUN)
            .env("REFEREE", referee_bin())
            .env("OUT", &out_dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A task run again (requeued) resumes: nothing more to play.
    let again = Command::new("bash")
        .arg(cluster("run-shard.sh"))
        .args(["2", "3"])
        .args(RUN.split(' '))
        .current_dir(&scratch.0)
        .env("REFEREE", referee_bin())
        .env("OUT", &out_dir)
        .output()
        .unwrap();
    assert!(again.status.success());
    assert!(
        unwrapped(&again.stderr).contains("10 of 10 games already played, 0 to play"),
        "{}",
        unwrapped(&again.stderr)
    );
    assert_eq!(merged(&out_dir, 3), one_run_report());

    // A sparse array (--array=1,3) can't say how many shards there are:
    // refused unless SHARDS says it, and then task I plays shard I of N.
    let sparse = |shards: Option<&str>| {
        let mut c = Command::new("bash");
        c.arg(cluster("slurm-shards.sbatch"))
            .current_dir(&scratch.0)
            .env("SLURM_ARRAY_TASK_ID", "3")
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_MAX", "3")
            .env("KINROW_SCRIPTS", cluster(""))
            .env("KINROW_RUN", RUN)
            .env("REFEREE", referee_bin())
            .env("OUT", scratch.path("again"));
        if let Some(n) = shards {
            c.env("SHARDS", n);
        }
        c.output().unwrap()
    };
    let out = sparse(None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        unwrapped(&out.stderr).contains("set SHARDS=N"),
        "{}",
        unwrapped(&out.stderr)
    );
    assert!(!scratch.path("again").exists(), "nothing is played");
    let out = sparse(Some("2"));
    assert_eq!(out.status.code(), Some(2), "task 3 of 2 shards");
    let out = sparse(Some("3"));
    assert!(out.status.success(), "{}", unwrapped(&out.stderr));
    let third = std::fs::read_to_string(scratch.path("again/shard-3-of-3.jsonl")).unwrap();
    let first = std::fs::read_to_string(out_dir.join("shard-3-of-3.jsonl")).unwrap();
    let games = |t: &str| t.lines().filter(|l| l.contains("\"game\"")).count();
    assert_eq!(games(&third), games(&first));
}

/// `SAMPLES=lz4 run-shard.sh`: each shard's samples in a file of its own,
/// which put together are the samples of the shards' records; a resumed
/// shard adds none.
#[test]
fn run_shard_writes_each_shards_samples_to_its_own_file() {
    let scratch = Scratch::new("cluster-samples");
    let out_dir = scratch.path("shards");
    let gomoku = "--bots random,blocking --board 15x15 --k 5 --games 6 --seed 3 --in-process";
    let shard = |i: &str, samples: &str| {
        Command::new("bash")
            .arg(cluster("run-shard.sh"))
            .args([i, "2"])
            .args(gomoku.split(' '))
            .env("REFEREE", referee_bin())
            .env("OUT", &out_dir)
            .env("SAMPLES", samples)
            .output()
            .unwrap()
    };
    for i in ["1", "2", "2"] {
        let out = shard(i, "lz4");
        assert!(out.status.success(), "{}", unwrapped(&out.stderr));
    }
    let bad = shard("1", "npz");
    assert_eq!(bad.status.code(), Some(2));
    assert!(unwrapped(&bad.stderr).contains("SAMPLES=npz: give csv, bin or lz4"));
    let file = |name: &str| out_dir.join(name);
    let joined = [file("shard-1-of-2.lz4"), file("shard-2-of-2.lz4")]
        .iter()
        .flat_map(|f| std::fs::read(f).unwrap())
        .collect::<Vec<u8>>();
    let made = scratch.path("made.bin");
    let out = Command::new(referee_bin())
        .arg("samples")
        .args([file("shard-1-of-2.jsonl"), file("shard-2-of-2.jsonl")])
        .arg("--out")
        .arg(&made)
        .args(["--format", "bin"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", unwrapped(&out.stderr));
    let made = std::fs::read(made).unwrap();
    assert!(!made.is_empty());
    let read = kinrow::referee::samples::read_lz4_frames(&joined).unwrap();
    assert!(read == made, "the shards' samples are their records'");
}

#[test]
fn the_kubernetes_job_is_indexed_and_its_command_plays_its_shard() {
    let text = std::fs::read_to_string(cluster("k8s-shards.yaml")).unwrap();
    // Parsed as YAML where PyYAML is at hand; the command is taken from it.
    let parsed = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        ])
        .arg(cluster("k8s-shards.yaml"))
        .output();
    let job: serde_json::Value = match parsed {
        Ok(out) if out.status.success() => serde_json::from_slice(&out.stdout).unwrap(),
        _ => {
            skip::skip_loudly(
                "the Kubernetes manifest is not parsed",
                "no python3 with PyYAML",
                "python3 -m pip install pyyaml",
            );
            return;
        }
    };
    assert_eq!(job["kind"], "Job");
    assert_eq!(job["spec"]["completionMode"], "Indexed");
    let completions = job["spec"]["completions"].as_u64().unwrap();
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    let shards = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "SHARDS")
        .unwrap()["value"]
        .as_str()
        .unwrap();
    assert_eq!(shards, completions.to_string(), "SHARDS and completions");
    let script = container["args"][0].as_str().unwrap();
    assert!(text.contains("JOB_COMPLETION_INDEX"));
    // The command as Kubernetes runs it, on a smaller run, for 3 indexes.
    let script = script
        .replace(
            "--bots random,blocking --board 4x4 --k 4",
            "--bots random,blocking,minimax",
        )
        .replace("--games 1000000 --seed 1", "--games 10 --seed 2");
    let scratch = Scratch::new("cluster-k8s");
    for index in 0..3 {
        let out = Command::new("/bin/sh")
            .args(["-c", &script])
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("SHARDS", "3")
            .env("RESULTS", &scratch.0)
            .env("REFEREE", referee_bin())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(merged(&scratch.0, 3), one_run_report());
}

#[test]
fn gnu_parallel_plays_the_shards_over_ssh_logins() {
    if Command::new("parallel").arg("--version").output().is_err() {
        skip::skip_loudly(
            "the shards over GNU parallel",
            "no GNU parallel",
            "apt-get install -y parallel",
        );
        return;
    }
    let scratch = Scratch::new("cluster-parallel");
    // ":" is this machine: no ssh, the same script.
    std::fs::write(scratch.path("hosts.txt"), ":\n").unwrap();
    let out = Command::new("bash")
        .arg(cluster("parallel-shards.sh"))
        .arg("3")
        .arg(scratch.path("hosts.txt"))
        .args(RUN.split(' '))
        .current_dir(&scratch.0)
        .env("REFEREE", referee_bin())
        .env("REMOTE_REFEREE", referee_bin())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(merged(&scratch.path("shards"), 3), one_run_report());
    let report = std::fs::read_to_string(scratch.path("run.txt")).unwrap();
    assert_eq!(report_core(&report), one_run_report());
    assert!(scratch.path("run.jsonl").exists() && scratch.path("run.json").exists());
}

/// What merged shards and the one run must share: the report without its
/// second line and times, the run lines and the games without their times.
#[derive(Debug, PartialEq)]
struct Played {
    report: Vec<String>,
    runs: Vec<serde_json::Value>,
    games: Vec<serde_json::Value>,
}

/// Reads `--games-out` records: run lines, and games without `time_ms`.
fn played(report: &str, records: &Path) -> Played {
    let (mut games, runs): (Vec<serde_json::Value>, _) = std::fs::read_to_string(records)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .partition(is_game);
    for game in &mut games {
        game.as_object_mut().unwrap().remove("time_ms");
        game.as_object_mut().unwrap().remove("peak_mib");
    }
    Played {
        report: report_core(report),
        runs,
        games,
    }
}

/// The one run of `args`, at concurrency 1 (the merged records' order).
fn one_run(args: &[String]) -> Played {
    let scratch = Scratch::new("cluster-one-run");
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.extend(["--concurrency", "1"]);
    let run = referee(&scratch, &args);
    assert!(run.output.status.success(), "{}", run.stderr);
    played(&run.stdout, &scratch.path("games.jsonl"))
}

/// `referee merge` over the `count` shards in `dir`, with its records.
fn merged_played(dir: &Path, count: u32) -> Played {
    let files: Vec<PathBuf> = (1..=count)
        .map(|i| dir.join(format!("shard-{i}-of-{count}.jsonl")))
        .collect();
    let records = dir.join("merged.jsonl");
    let out = Command::new(referee_bin())
        .arg("merge")
        .args(&files)
        .arg("--games-out")
        .arg(&records)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    played(&String::from_utf8_lossy(&out.stdout), &records)
}

/// Submits the Slurm script from the repository (where it finds
/// run-shard.sh) as array `array`, run in `dir` with `args`; the job's id.
fn submit(on: &slurm::Cluster, dir: &Path, array: &str, args: &[String]) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let out = on.run(
        on.command("sbatch")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("--parsable")
            .arg(format!("--array={array}"))
            .arg(format!("--chdir={}", dir.display()))
            .arg(cluster("slurm-shards.sbatch"))
            .args(args)
            .env("REFEREE", referee_bin()),
    );
    out.trim().split(';').next().unwrap().to_string()
}

fn assert_completed(cluster: &slurm::Cluster, tasks: &[slurm::Task], count: usize) {
    assert_eq!(tasks.len(), count, "{tasks:?}");
    assert!(
        tasks
            .iter()
            .all(|t| t.state == "COMPLETED" && t.exit_code == "0:0"),
        "{tasks:?}\n{}",
        cluster.logs()
    );
}

/// Game records in a shard's file so far.
fn records_in(file: &Path) -> usize {
    std::fs::read_to_string(file).map_or(0, |t| {
        t.lines().filter(|l| l.contains(r#""game":"#)).count()
    })
}

/// The numbers of `referee: resuming from …: X of N games already played,
/// K to play` lines: (X, K).
fn resumes(log: &str) -> Vec<(usize, usize)> {
    log.lines()
        .filter_map(|l| {
            let (before, after) = l.split_once(" games already played, ")?;
            let played = before
                .rsplit(": ")
                .next()?
                .split(' ')
                .next()?
                .parse()
                .ok()?;
            let to_play = after.split(' ').next()?.parse().ok()?;
            Some((played, to_play))
        })
        .collect()
}

#[test]
fn a_real_slurm_runs_the_array_script_and_a_requeued_task_resumes() {
    let scratch = Scratch::new("cluster-slurm-real");
    let cluster = match slurm::Cluster::start(&scratch.path("slurm")) {
        Ok(cluster) => cluster,
        Err(why) => {
            skip::skip_loudly("the Slurm script on a real Slurm", &why, slurm::INSTALL);
            return;
        }
    };
    let quick: Vec<String> = RUN.split(' ').map(String::from).collect();
    // Engines that take 20 ms a move, so a task is caught while it runs.
    let slow: Vec<String> = [
        "--engine",
        &fixture("slow", "slow"),
        "--engine",
        &fixture("steady", "steady"),
        "--games",
        "8",
        "--seed",
        "3",
    ]
    .map(String::from)
    .to_vec();
    // The one runs, played while Slurm plays the shards.
    let one_runs =
        [quick.clone(), slow.clone()].map(|args| std::thread::spawn(move || one_run(&args)));
    let [quick_one, slow_one] = one_runs;

    // An array 0-2, as sbatch runs it: Slurm's ids, shifted to shards 1-3.
    let dir = scratch.path("quick");
    let job = submit(&cluster, &dir, "0-2", &quick);
    let tasks = cluster.wait(&job, Duration::from_secs(120));
    assert_completed(&cluster, &tasks, 3);
    assert_eq!(
        merged_played(&dir.join("shards"), 3),
        quick_one.join().unwrap()
    );

    let dir = scratch.path("requeued");
    let job = submit(&cluster, &dir, "1-2", &slow);
    let shard = dir.join("shards/shard-1-of-2.jsonl");
    let start = Instant::now();
    while records_in(&shard) < 1 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let caught = records_in(&shard);
    cluster.run(
        cluster
            .command("scontrol")
            .args(["requeue", &format!("{job}_1")]),
    );
    let tasks = cluster.wait(&job, Duration::from_secs(120));
    assert_completed(&cluster, &tasks, 2);
    let restarts: Vec<(&str, u32)> = tasks.iter().map(|t| (&*t.task, t.restarts)).collect();
    assert!(restarts.contains(&("1", 1)), "{restarts:?}");
    // The requeued task's log (appended to) says it resumed mid-shard.
    let log = std::fs::read_to_string(dir.join(format!("kinrow-shards-{job}_1.out"))).unwrap();
    let resumed = *resumes(&log).last().expect("a resumed run");
    assert!(
        resumed.0 >= caught && resumed.1 > 0,
        "caught at {caught} games: {log}"
    );
    // No game ended by Slurm's signal is kept as a result (an engine's
    // crash, say): the merge is the one run's.
    assert_eq!(
        merged_played(&dir.join("shards"), 2),
        slow_one.join().unwrap()
    );
    // Every daemon it started, and every process of its jobs, is gone.
    let mark = cluster.mark();
    drop(cluster);
    assert_eq!(slurm::processes_marked(&mark), vec![]);
}
