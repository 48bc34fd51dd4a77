//! A small W3C WebDriver client for the browser tests: chromedriver started
//! on a free port, headless Chromium with a fresh profile, and the dozen
//! commands the tests use, as JSON over HTTP (no crate needed beyond
//! serde_json).
//!
//! `Browser::start` returns `None`, after saying so loudly on stderr, only
//! when Chromium or chromedriver is not installed (`.ci/run` installs them:
//! `apt-get install chromium chromium-driver`).

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The key W3C WebDriver gives element references under.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// WebDriver's code for the Enter key.
pub const ENTER: &str = "\u{E007}";
pub const ARROW_RIGHT: &str = "\u{E014}";
pub const ARROW_DOWN: &str = "\u{E015}";

/// Where a program is: an override from the environment, else the first of
/// `names` on the PATH.
fn find_program(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// Says, past the test harness's capture, that browser tests were skipped.
pub fn skip_loudly(why: &str) {
    crate::skip::skip_loudly(
        "the browser tests",
        why,
        "apt-get install -y chromium chromium-driver",
    );
}

/// One browser at a time in a test process: a browser's end reaps every
/// browser process that came to this process, another browser's too.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A headless Chromium driven through chromedriver; both end when dropped.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    profile: PathBuf,
    /// Held until the browser's processes are gone (a field drops after
    /// `Drop::drop` has run).
    _turn: MutexGuard<'static, ()>,
}

impl Browser {
    /// Starts chromedriver and a browser with a window of `width`x`height`;
    /// `None` if either program is missing.
    pub fn start(width: u32, height: u32) -> Option<Browser> {
        Browser::start_with(width, height, None)
    }

    /// A browser that acts as a phone's: a touch screen (`pointer: coarse`,
    /// no hover) `width` CSS pixels wide, at three device pixels to one.
    pub fn start_phone(width: u32, height: u32) -> Option<Browser> {
        let emulation = json!({
            "deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0, "touch": true},
            "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 \
                          (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
        });
        Browser::start_with(width, height, Some(emulation))
    }

    fn start_with(width: u32, height: u32, emulation: Option<Value>) -> Option<Browser> {
        // A test that failed with the browser open poisons the lock; the
        // browser it held is gone all the same.
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let Some(chromium) = find_program(
            "KINROW_CHROMIUM",
            &["chromium", "chromium-browser", "google-chrome"],
        ) else {
            skip_loudly("no chromium on the PATH");
            return None;
        };
        let Some(chromedriver) = find_program("KINROW_CHROMEDRIVER", &["chromedriver"]) else {
            skip_loudly("no chromedriver on the PATH");
            return None;
        };
        // Chromium's helpers (the crash handler) detach from it; as the
        // subreaper we get them back, to end and reap in Drop.
        // SAFETY: plain prctl on our own process.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut command = Command::new(chromedriver);
        command
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group, so Drop ends chromedriver and the browser it
            // started together; and the kernel ends it if the test dies.
            .process_group(0);
        // SAFETY: prctl only, between fork and exec.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let driver = command.spawn().expect("chromedriver starts");
        let profile =
            std::env::temp_dir().join(format!("kinrow-browser-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
            profile,
            _turn: turn,
        };
        let until = Instant::now() + Duration::from_secs(20);
        while browser.try_call("GET", "/status", None).is_err() {
            assert!(Instant::now() < until, "chromedriver did not come up");
            std::thread::sleep(Duration::from_millis(50));
        }
        let args = [
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-quic".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-dev-shm-usage".into(),
            "--hide-scrollbars".into(),
            format!("--user-data-dir={}", browser.profile.display()),
            format!("--window-size={width},{height}"),
        ];
        let mut options = json!({"binary": chromium, "args": args});
        if let Some(emulation) = emulation {
            options["mobileEmulation"] = emulation;
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": options,
        }}});
        let answer = browser.call("POST", "/session", Some(caps));
        browser.session = answer["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        Some(browser)
    }

    fn try_call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        stream
            .write_all(request.as_bytes())
            .map_err(|e| e.to_string())?;
        let (head, json) = read_http_answer(&mut stream)?;
        let value: Value = serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
        if !head.starts_with("HTTP/1.1 200") {
            return Err(format!("{method} {path}: {}", value["value"]));
        }
        Ok(value["value"].clone())
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|e| panic!("WebDriver: {e}"))
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    /// Loads a page.
    pub fn goto(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({ "url": url })));
    }

    /// All elements matching a CSS selector.
    pub fn find_all(&self, css: &str) -> Vec<String> {
        let found = self.session_call(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        found
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The one element matching a CSS selector (waits for it to exist).
    pub fn find(&self, css: &str) -> String {
        self.wait(&format!("an element {css}"), || {
            self.find_all(css).into_iter().next()
        })
    }

    /// Clicks an element as a user would.
    pub fn click(&self, element: &str) {
        self.session_call(
            "POST",
            &format!("/element/{element}/click"),
            Some(json!({})),
        );
    }

    /// Clicks the element matching a CSS selector.
    pub fn click_css(&self, css: &str) {
        let element = self.find(css);
        self.click(&element);
    }

    /// Types into an element (WebDriver key codes for special keys).
    pub fn send_keys(&self, element: &str, text: &str) {
        self.session_call(
            "POST",
            &format!("/element/{element}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Runs a script in the page and returns its value.
    pub fn script(&self, body: &str, args: Value) -> Value {
        self.session_call(
            "POST",
            "/execute/sync",
            Some(json!({"script": body, "args": args})),
        )
    }

    /// Runs a script that calls its last argument (a callback) when done.
    pub fn script_async(&self, body: &str, args: Value) -> Value {
        self.session_call(
            "POST",
            "/execute/async",
            Some(json!({"script": body, "args": args})),
        )
    }

    /// The value of an attribute of the first element matching `css`.
    pub fn attr(&self, css: &str, name: &str) -> Option<String> {
        let v = self.script(
            "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
            json!([css, name]),
        );
        v.as_str().map(String::from)
    }

    /// The visible text of the first element matching `css`.
    pub fn text(&self, css: &str) -> String {
        let v = self.script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';",
            json!([css]),
        );
        v.as_str().unwrap_or_default().to_string()
    }

    /// Waits (polling) until `probe` gives a value.
    pub fn wait<T>(&self, what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(v) = probe() {
                return v;
            }
            if Instant::now() > until {
                panic!(
                    "waited 20 s for {what}; the page says: {:?}",
                    self.text("body")
                );
            }
            std::thread::sleep(Duration::from_millis(15));
        }
    }

    /// Waits until the status hook holds `status`.
    pub fn wait_status(&self, status: &str) {
        self.wait(&format!("data-status {status:?}"), || {
            (self.attr("#status", "data-status").as_deref() == Some(status)).then_some(())
        });
    }

    /// The current window's handle.
    pub fn window(&self) -> String {
        self.session_call("GET", "/window", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Opens a new tab and switches to it; returns its handle.
    pub fn new_tab(&self) -> String {
        let v = self.session_call("POST", "/window/new", Some(json!({"type": "tab"})));
        let handle = v["handle"].as_str().expect("a handle").to_string();
        self.switch_to(&handle);
        handle
    }

    pub fn switch_to(&self, handle: &str) {
        self.session_call("POST", "/window", Some(json!({ "handle": handle })));
    }

    /// Closes the current tab (switch to another one afterwards).
    pub fn close_tab(&self) {
        self.session_call("DELETE", "/window", None);
    }

    /// Sets the size of the window's viewport area (roughly).
    pub fn resize(&self, width: u32, height: u32) {
        self.session_call(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    /// A PNG of the current tab.
    pub fn screenshot(&self) -> Vec<u8> {
        let v = self.session_call("GET", "/screenshot", None);
        base64_decode(v.as_str().expect("base64 PNG"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.try_call("DELETE", &format!("/session/{}", self.session), None);
        }
        // SAFETY: a signal to the process group we created.
        unsafe {
            libc::kill(-(self.driver.id() as libc::pid_t), libc::SIGKILL);
        }
        let _ = self.driver.wait();
        // Browser processes that left the group came to us: end and reap them.
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            let strays = browser_children();
            if strays.is_empty() || Instant::now() > until {
                break;
            }
            for pid in strays {
                // SAFETY: signals to and a reap of our own children.
                unsafe {
                    libc::kill(pid as libc::pid_t, libc::SIGKILL);
                    libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), libc::WNOHANG);
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Our children that are parts of the browser (alive or not yet reaped).
fn browser_children() -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in tasks.flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in list
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
        {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.contains("chrom") {
                out.push(pid);
            }
        }
    }
    out
}

/// Reads one HTTP answer (chromedriver keeps connections open whatever we
/// ask, so the body is read by its length, not to the end).
fn read_http_answer(stream: &mut TcpStream) -> Result<(String, String), String> {
    let mut data = Vec::new();
    let mut buf = [0u8; 16384];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection closed before an answer".into());
        }
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let mut body = data[head_end + 4..].to_vec();
    let header = |name: &str| {
        head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    };
    if let Some(len) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while body.len() < len {
            let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&buf[..n]);
        }
        body.truncate(len);
    } else if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        // Chunks: size in hex, CRLF, data, CRLF; a zero size ends them.
        let mut raw = body;
        let mut out = Vec::new();
        loop {
            if let Some(i) = raw.windows(2).position(|w| w == b"\r\n") {
                let size = usize::from_str_radix(
                    String::from_utf8_lossy(&raw[..i])
                        .split(';')
                        .next()
                        .unwrap_or("")
                        .trim(),
                    16,
                )
                .map_err(|e| e.to_string())?;
                if size == 0 {
                    break;
                }
                if raw.len() >= i + 2 + size + 2 {
                    out.extend_from_slice(&raw[i + 2..i + 2 + size]);
                    raw.drain(..i + 2 + size + 2);
                    continue;
                }
            }
            let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&buf[..n]);
        }
        body = out;
    } else {
        stream.read_to_end(&mut body).map_err(|e| e.to_string())?;
    }
    Ok((head, String::from_utf8_lossy(&body).into_owned()))
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in text.bytes().filter_map(value) {
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
