//! The cluster files in scripts/cluster run here with stand-ins for their
//! schedulers: the Slurm array script with the variables Slurm sets, the
//! Kubernetes manifest's command with the index Kubernetes sets, and the GNU
//! parallel script over this machine (where GNU parallel is installed).
//! Each run of shards, merged, must be the one run.

mod referee_common;
mod skip;

use referee_common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

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
