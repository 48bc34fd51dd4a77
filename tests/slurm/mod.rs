//! A one-node Slurm cluster on this machine, for a test: Debian's `munged`,
//! `slurmctld` and `slurmd` run as child processes of the test, with their
//! munge key and socket, state, spool, logs and a port pair of their own in
//! a scratch folder, so nothing of a system Slurm is read or touched.
//! Dropping the cluster cancels its jobs and stops every daemon it started,
//! a panicking test too.

#![allow(dead_code)]

use std::fs::File;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The programs the cluster needs, and the Debian packages that hold them.
const PROGRAMS: [&str; 8] = [
    "munged",
    "slurmctld",
    "slurmd",
    "sbatch",
    "scontrol",
    "squeue",
    "scancel",
    "sinfo",
];
pub const INSTALL: &str = "apt-get install -y munge slurmctld slurmd slurm-client";

/// A task's state that Slurm will not change again by itself.
const FINISHED: [&str; 9] = [
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "PREEMPTED",
];

/// In the environment of every process of a cluster (the daemons, the
/// commands, so the jobs too), with the cluster's own value: what finds the
/// processes a cluster left behind.
const MARK: &str = "KINROW_SLURM_TEST_MARK";

/// One daemon, stopped (TERM, then KILL) and reaped when dropped.
struct Daemon {
    name: &'static str,
    child: Child,
}

impl Daemon {
    fn start(name: &'static str, dir: &Path, mark: &str, args: &[&str]) -> Result<Daemon, String> {
        let log = |ext: &str| File::create(dir.join(format!("{name}.{ext}")));
        let child = Command::new(name)
            .args(args)
            .env(MARK, mark)
            .stdin(Stdio::null())
            .stdout(log("out").map_err(|e| e.to_string())?)
            .stderr(log("err").map_err(|e| e.to_string())?)
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        Ok(Daemon { name, child })
    }

    fn exited(&mut self) -> Option<String> {
        let status = self.child.try_wait().ok()??;
        Some(format!("{} exited ({status})", self.name))
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: a signal to our own child, not yet reaped (the pid is ours).
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One task of a job array, as `scontrol show job` says.
#[derive(Debug, Clone)]
pub struct Task {
    pub task: String,
    pub state: String,
    pub restarts: u32,
    pub exit_code: String,
}

/// The cluster; its daemons stop when it is dropped.
pub struct Cluster {
    dir: PathBuf,
    mark: String,
    conf: PathBuf,
    /// In start order: munged, slurmctld, slurmd (stopped in reverse).
    daemons: Vec<Daemon>,
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd with everything in `dir` (an
    /// absolute path without spaces, removed by its owner), and waits until
    /// the node takes jobs. Err says why it could not start (the test skips).
    pub fn start(dir: &Path) -> Result<Cluster, String> {
        if let Some(missing) = PROGRAMS.iter().find(|p| !on_path(p)) {
            return Err(format!("no {missing} on the PATH"));
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("slurmd runs jobs as their user: it needs root".into());
        }
        std::fs::create_dir_all(dir.join("state")).map_err(|e| e.to_string())?;
        std::fs::create_dir_all(dir.join("spool")).map_err(|e| e.to_string())?;
        // munged wants its socket's folder open to all, its key to root only.
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
        write_key(&dir.join("munge.key"))?;
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            mark: format!("{}-{}", std::process::id(), dir.display()),
            conf: dir.join("slurm.conf"),
            daemons: Vec::new(),
        };
        let socket = dir.join("munge.socket");
        let path = |name: &str| dir.join(name).display().to_string();
        cluster.daemons.push(Daemon::start(
            "munged",
            dir,
            &cluster.mark,
            &[
                "--foreground",
                "--socket",
                &path("munge.socket"),
                "--key-file",
                &path("munge.key"),
                "--pid-file",
                &path("munged.pid"),
                "--seed-file",
                &path("munged.seed"),
                "--log-file",
                &path("munged.log"),
            ],
        )?);
        cluster.wait_until("munged makes its socket", |_| socket.exists())?;
        std::fs::write(&cluster.conf, slurm_conf(dir)?).map_err(|e| e.to_string())?;
        let conf = cluster.conf.display().to_string();
        // -i: a fresh state folder, nothing to recover.
        let mark = cluster.mark.clone();
        let ctld = Daemon::start("slurmctld", dir, &mark, &["-D", "-i", "-f", &conf])?;
        cluster.daemons.push(ctld);
        let slurmd = Daemon::start("slurmd", dir, &mark, &["-D", "-f", &conf])?;
        cluster.daemons.push(slurmd);
        cluster.wait_until("the node is idle", |cluster| {
            cluster
                .command("sinfo")
                .args(["-h", "-o", "%T"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        })?;
        Ok(cluster)
    }

    /// Waits up to 30 s for `ready`; Err with the daemons' logs if one
    /// exits or time runs out.
    fn wait_until(
        &mut self,
        what: &str,
        mut ready: impl FnMut(&Cluster) -> bool,
    ) -> Result<(), String> {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if ready(self) {
                return Ok(());
            }
            if let Some(exit) = self.daemons.iter_mut().find_map(Daemon::exited) {
                return Err(format!("{exit} before {what}:\n{}", self.logs()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("not ready in 30 s: {what}:\n{}", self.logs()))
    }

    /// The last lines of every daemon's log, for a failure's message.
    pub fn logs(&self) -> String {
        ["munged", "slurmctld", "slurmd"]
            .iter()
            .flat_map(|daemon| [format!("{daemon}.log"), format!("{daemon}.err")])
            .filter_map(|name| {
                let text = std::fs::read_to_string(self.dir.join(&name)).ok()?;
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(8)..].join("\n");
                Some(format!("--- {name}:\n{tail}"))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A Slurm command (`sbatch`, `scontrol`, …) talking to this cluster.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf).env(MARK, &self.mark);
        command
    }

    /// What finds this cluster's processes, once it is dropped.
    pub fn mark(&self) -> String {
        self.mark.clone()
    }

    /// Runs a Slurm command to its end; its stdout, or a panic with its
    /// stderr.
    pub fn run(&self, command: &mut Command) -> String {
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "{command:?}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.logs()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The tasks of job array `job`.
    pub fn tasks(&self, job: &str) -> Vec<Task> {
        let text = self.run(self.command("scontrol").args(["show", "job", "-o", job]));
        text.lines()
            .map(|line| {
                let field = |name: &str| {
                    line.split(' ')
                        .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
                        .unwrap_or_default()
                        .to_string()
                };
                Task {
                    task: field("ArrayTaskId"),
                    state: field("JobState"),
                    restarts: field("Restarts").parse().unwrap_or(0),
                    exit_code: field("ExitCode"),
                }
            })
            .collect()
    }

    /// Waits until every task of `job` has finished; its tasks.
    pub fn wait(&self, job: &str, timeout: Duration) -> Vec<Task> {
        let start = Instant::now();
        loop {
            let tasks = self.tasks(job);
            if tasks.iter().all(|t| FINISHED.contains(&t.state.as_str())) {
                return tasks;
            }
            assert!(
                start.elapsed() < timeout,
                "job {job} not done in {timeout:?}: {tasks:?}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs first: a job's slurmstepd outlives slurmd by design.
        let _ = self.command("scancel").arg("--user=root").output();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            let queue = self.command("squeue").args(["-h", "-o", "%i"]).output();
            match queue {
                Ok(out) if out.status.success() && !out.stdout.is_empty() => {
                    std::thread::sleep(Duration::from_millis(100))
                }
                _ => break,
            }
        }
        while let Some(daemon) = self.daemons.pop() {
            drop(daemon);
        }
    }
}

/// Live (not zombie) processes of the cluster marked `mark`: its daemons,
/// their helpers (slurmstepd) and its jobs' processes, with their command
/// lines.
pub fn processes_marked(mark: &str) -> Vec<(u32, String)> {
    let entry = format!("{MARK}={mark}");
    let mut found = Vec::new();
    for proc in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = proc.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        let Ok(environ) = std::fs::read(proc.path().join("environ")) else {
            continue;
        };
        let stat = std::fs::read_to_string(proc.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, s)| s.starts_with('Z'));
        if !zombie && environ.split(|&b| b == 0).any(|e| e == entry.as_bytes()) {
            let cmdline = std::fs::read(proc.path().join("cmdline")).unwrap_or_default();
            found.push((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
        }
    }
    found
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

/// A fresh munge key (1024 random bytes), readable by root only.
fn write_key(key: &Path) -> Result<(), String> {
    let mut bytes = vec![0u8; 1024];
    use std::io::Read;
    File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| e.to_string())?;
    std::fs::write(key, &bytes).map_err(|e| e.to_string())?;
    std::fs::set_permissions(key, std::fs::Permissions::from_mode(0o400)).map_err(|e| e.to_string())
}

/// Two free TCP ports (slurmctld's and slurmd's), unused this moment.
fn free_ports() -> Result<(u16, u16), String> {
    let a = TcpListener::bind("0.0.0.0:0").map_err(|e| e.to_string())?;
    let b = TcpListener::bind("0.0.0.0:0").map_err(|e| e.to_string())?;
    let port = |l: &TcpListener| l.local_addr().map(|a| a.port()).map_err(|e| e.to_string());
    Ok((port(&a)?, port(&b)?))
}

/// The node as slurmd sees it (`slurmd -C`: its name, CPUs, sockets and
/// cores), without its memory: no job here asks for memory, and a node
/// declared with more than slurmd measures is drained.
fn node_line() -> Result<String, String> {
    let out = Command::new("slurmd")
        .arg("-C")
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("NodeName="))
        .ok_or_else(|| format!("slurmd -C says no NodeName: {text}"))?;
    Ok(line
        .split(' ')
        .filter(|f| !f.starts_with("RealMemory="))
        .collect::<Vec<_>>()
        .join(" "))
}

/// The cluster's slurm.conf: one node, this machine, on 127.0.0.1; jobs
/// run as their user (root here) with linuxproc tracking and no task
/// plugin (no cgroups); the scheduler looks every second, and a requeued
/// job waits 5 s (the shortest credential lifetime) instead of 120.
fn slurm_conf(dir: &Path) -> Result<String, String> {
    let node = node_line()?;
    let name = node
        .split(' ')
        .next()
        .and_then(|f| f.strip_prefix("NodeName="))
        .unwrap_or_default()
        .to_string();
    let (ctld_port, slurmd_port) = free_ports()?;
    let d = dir.display();
    Ok(format!(
        "ClusterName=kinrowtest
SlurmctldHost={name}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.socket,cred_expire=5
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
KillWait=5
{node} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=kinrow Nodes={name} Default=YES MaxTime=INFINITE State=UP
"
    ))
}
