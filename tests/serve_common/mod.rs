//! A `kinrow serve` process for tests: started on a free port, its URL read
//! from its first line, its engine processes found through /proc, and
//! stopped (with every engine) when dropped.

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use std::io::Write;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

/// How long a step may take before the test gives up: generous, as CI
/// machines are slow and shared.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub struct Served {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub host: String,
    /// What the server wrote to stderr so far (its session log).
    log: Arc<Mutex<String>>,
}

impl Served {
    /// Starts `kinrow serve --port 0 ARGS`.
    pub fn start(args: &[&str]) -> Served {
        Served::start_with_env(args, &[])
    }

    /// Starts `kinrow serve --port 0 ARGS` with some environment variables.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Served {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
            .args(["serve", "--port", "0"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kinrow serve starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut first = String::new();
        stdout
            .read_line(&mut first)
            .expect("kinrow serve prints its URL");
        // The rest of stdout and all of stderr go to the log, read all the
        // time so the server never blocks on them.
        let log = Arc::new(Mutex::new(first.clone()));
        let stderr = child.stderr.take().expect("piped stderr");
        for mut out in [Box::new(stdout) as Box<dyn Read + Send>, Box::new(stderr)] {
            let sink = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = out.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    sink.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        let host = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no URL in {first:?}"))
            .to_string();
        Served { child, host, log }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The page's URL.
    pub fn url(&self) -> String {
        format!("http://{}/", self.host)
    }

    /// What the server wrote so far (stdout and stderr).
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the log contains `text`.
    pub fn wait_for_log(&self, text: &str) {
        let until = Instant::now() + PATIENCE;
        while !self.log().contains(text) {
            assert!(
                Instant::now() < until,
                "no {text:?} in the log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The live processes the server started (its engines).
    pub fn engines(&self) -> Vec<u32> {
        children(self.child.id())
    }

    /// Waits until the server has exactly `n` engine processes.
    pub fn wait_for_engines(&self, n: usize) -> Vec<u32> {
        let until = Instant::now() + PATIENCE;
        loop {
            let pids = self.engines();
            if pids.len() == n {
                return pids;
            }
            assert!(
                Instant::now() < until,
                "wanted {n} engines, the server has {pids:?}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A WebSocket session (no Origin header, as a program would connect).
    pub fn connect(&self) -> Client {
        self.connect_with(|_| {})
    }

    /// A WebSocket session, with a chance to change the request first.
    pub fn connect_with(
        &self,
        edit: impl FnOnce(&mut tungstenite::handshake::client::Request),
    ) -> Client {
        use tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{}/ws", self.host)
            .into_client_request()
            .unwrap();
        edit(&mut request);
        let stream = TcpStream::connect(&self.host).expect("the server accepts");
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let (ws, _) = tungstenite::client(request, stream).expect("the handshake succeeds");
        Client { ws }
    }

    /// Sends raw bytes as one HTTP exchange and returns the whole answer.
    pub fn http(&self, request: &str) -> String {
        use std::io::Write;
        let mut stream = TcpStream::connect(&self.host).expect("the server accepts");
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        // To the end of the connection, or of the head of a `101`, after
        // which the connection stays open as a WebSocket.
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&buf[..n]);
            if answer.starts_with(b"HTTP/1.1 101 ") && answer.windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
        String::from_utf8_lossy(&answer).into_owned()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        // SIGTERM: the server kills its engines' process groups, then dies.
        // SAFETY: a signal to our own child.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The live (not zombie) children of `pid`, from every thread's
/// /proc/PID/task/TID/children.
pub fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in list.split_whitespace().filter_map(|p| p.parse().ok()) {
            if is_alive(child) && !out.contains(&child) {
                out.push(child);
            }
        }
    }
    out
}

/// Whether a process exists and is not a zombie.
pub fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits until none of `pids` is alive.
pub fn wait_gone(pids: &[u32], within: Duration) {
    let until = Instant::now() + within;
    while pids.iter().any(|&p| is_alive(p)) {
        assert!(
            Instant::now() < until,
            "still running after {within:?}: {:?}",
            pids.iter().filter(|&&p| is_alive(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A WebSocket client speaking the protocol to a session.
pub struct Client {
    pub ws: WebSocket<TcpStream>,
}

impl Client {
    /// Sends one text message (one or more request lines).
    pub fn send(&mut self, text: &str) {
        self.ws
            .send(Message::text(text))
            .expect("the message goes out");
    }

    /// The next text message.
    pub fn next(&mut self) -> String {
        loop {
            match self.ws.read() {
                Ok(Message::Text(t)) => return t.as_str().to_string(),
                Ok(Message::Close(frame)) => panic!("closed: {frame:?}"),
                Ok(_) => continue,
                Err(e) => panic!("no message: {e}"),
            }
        }
    }

    /// Sends a request and returns its response without the final empty
    /// line, e.g. `= 2 2`.
    pub fn ask(&mut self, line: &str) -> String {
        self.send(line);
        let reply = self.next();
        assert!(reply.ends_with("\n\n"), "unframed reply {reply:?}");
        reply.trim_end_matches('\n').to_string()
    }

    /// Reads until the server closes; returns the close code and reason.
    pub fn closed(&mut self) -> (u16, String) {
        loop {
            match self.ws.read() {
                Ok(Message::Close(Some(frame))) => {
                    return (u16::from(frame.code), frame.reason.as_str().to_string())
                }
                Ok(Message::Close(None)) => return (1005, String::new()),
                Ok(_) => continue,
                Err(e) => panic!("closed without a close frame: {e}"),
            }
        }
    }
}

/// For a test that listens beyond loopback (`--bind 0.0.0.0`): runs the
/// test `name` (the caller) again in a network namespace of its own, where
/// only its loopback exists, so nothing outside this machine's tests can
/// reach its server. True when the caller should run its body here: inside
/// that namespace, or where none can be made (`unshare -rn` and `ip`), said
/// loudly; false when the body ran in one and passed.
pub fn in_own_network(name: &str) -> bool {
    const INSIDE: &str = "KINROW_TEST_OWN_NETWORK";
    if std::env::var_os(INSIDE).is_some() {
        return true;
    }
    let lo_up = "ip link set lo up && exec \"$@\"";
    let usable = Command::new("unshare")
        .args(["-rn", "sh", "-c", lo_up, "sh", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !usable {
        let _ = std::io::stderr().write_all(
            format!(
                "\n!! {name}: no network namespace of its own (unshare -rn, ip): its server \
                 listens on this machine's network for the test\n"
            )
            .as_bytes(),
        );
        return true;
    }
    let out = Command::new("unshare")
        .args(["-rn", "sh", "-c", lo_up, "sh"])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(INSIDE, "1")
        .output()
        .expect("unshare runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "in its own network namespace:\n{said}"
    );
    assert!(said.contains("1 passed"), "the test did not run:\n{said}");
    false
}
