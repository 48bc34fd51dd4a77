//! A `kinrow` process driven interactively: requests written while it runs,
//! replies read with a deadline, so that a reply left unflushed (or never
//! written) fails the test instead of hanging it.

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// How long a reply may take before the test gives up on it: generous, as
/// CI machines are slow and shared; only a hang comes near it.
const PATIENCE: Duration = Duration::from_secs(20);

pub struct Live {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Replies without their final empty line; text left without one at
    /// the end of output arrives as a last, unterminated reply.
    replies: Receiver<String>,
}

impl Live {
    /// Starts `kinrow ARGS`.
    pub fn start(args: &[&str]) -> Live {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("kinrow"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("kinrow starts");
        let stdin = child.stdin.take();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("piped stdout"));
        let (tx, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reply: Option<String> = None;
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                match (line.is_empty(), &mut reply) {
                    (true, r) => {
                        if tx.send(r.take().unwrap_or_default()).is_err() {
                            return;
                        }
                    }
                    (false, Some(r)) => {
                        r.push('\n');
                        r.push_str(&line);
                    }
                    (false, r) => *r = Some(line),
                }
            }
            if let Some(r) = reply {
                let _ = tx.send(format!("{r} <unterminated>"));
            }
        });
        Live {
            child,
            stdin,
            replies,
        }
    }

    /// Writes `bytes` in one write, keeping stdin open.
    pub fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).expect("kinrow reads its input");
        stdin.flush().expect("kinrow reads its input");
    }

    /// The next reply, which must come in time.
    pub fn reply(&self, waiting_for: &str) -> String {
        match self.replies.recv_timeout(PATIENCE) {
            Ok(r) => r,
            Err(RecvTimeoutError::Timeout) => {
                panic!("no reply to {waiting_for:?} while stdin stays open")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("output ended before a reply to {waiting_for:?}")
            }
        }
    }

    /// The next reply if one comes within `wait`.
    pub fn reply_within(&self, wait: Duration) -> Option<String> {
        self.replies.recv_timeout(wait).ok()
    }

    /// Sends one request line and returns its reply.
    pub fn ask(&mut self, request: &str) -> String {
        self.send(format!("{request}\n").as_bytes());
        self.reply(request)
    }

    /// Closes stdin and checks that the engine exits with status 0 and
    /// writes nothing more.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().expect("kinrow exits");
        assert!(status.success(), "exit status {status:?}");
        match self.replies.recv_timeout(PATIENCE) {
            Err(RecvTimeoutError::Disconnected) => {}
            Ok(extra) => panic!("output after the last reply: {extra:?}"),
            Err(RecvTimeoutError::Timeout) => panic!("stdout still open after exit"),
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
