//! `referee --serve PORT`: a read-only page of the running tournament
//! (progress, the tallies with Elo, the crosstable, the boards of the games
//! in progress, the last results), updated as moves are played.
//!
//! The page is pushed the run's state as Server-Sent Events (`/events`:
//! one `data:` line of JSON per change, at most [`MAX_RATE`] a second) and
//! can read it once at `/state`. Each watcher has a thread of its own that
//! copies the state under a short lock and writes outside it, with a write
//! deadline: a watcher that stops reading is dropped, and the referee never
//! waits for one.
//!
//! - [`model`]: the run as the page shows it ([`Live`]), kept by the
//!   referee's threads through its `Watcher` door.

pub mod model;

pub use model::Live;

use crate::serve::admission::Admission;
use crate::serve::assets::{self, Asset};
use crate::serve::http::{self, Request, Response};
use anyhow::Context;
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Connections served at once; more are refused with 503.
pub const MAX_CONNECTIONS: usize = 32;
/// Of those, what one client address may hold (a page and its stream take
/// seven at most while it loads, one after).
pub const MAX_PER_CLIENT: usize = 16;
/// The most updates a watcher is sent per second (boards of 3x3 games may
/// change thousands of times a second; eyes take a few dozen).
pub const MAX_RATE: u32 = 10;
/// A watcher whose socket takes no data for this long is dropped.
const WRITE_DEADLINE: Duration = Duration::from_secs(10);
/// A comment line this often keeps proxies and the browser from giving up
/// on a quiet run.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The watch page's files.
const PAGE: &[Asset] = &[
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../page/watch.html"),
    },
    Asset {
        path: "/watch.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../page/watch.css"),
    },
    Asset {
        path: "/watch.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../page/watch.js"),
    },
];

/// The file at `path`: the watch page's own, or the play page's shared
/// ones (its style, the board, the icon).
fn find(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    PAGE.iter().find(|a| a.path == path).or_else(|| {
        ["/style.css", "/board.js", "/favicon.svg"]
            .contains(&path)
            .then(|| assets::find(path))
            .flatten()
    })
}

struct Watch {
    live: Arc<Live>,
    hosts: http::Hosts,
    admission: Arc<Admission>,
}

/// Listens on `at` and serves the page of `live` from a thread of its own
/// until the process ends, to requests for its address or one of `hosts`
/// (see [`http::Hosts`]); returns the page's address. Binding fails before
/// any game is played.
pub fn start(at: SocketAddr, hosts: &[String], live: Arc<Live>) -> anyhow::Result<String> {
    let listener =
        TcpListener::bind(at).with_context(|| format!("--serve: cannot listen on {at}"))?;
    let addr = listener
        .local_addr()
        .context("--serve: cannot read the bound address")?;
    let watch = Arc::new(Watch {
        live,
        hosts: http::Hosts::new(addr, hosts),
        admission: Admission::new(MAX_CONNECTIONS, MAX_PER_CLIENT),
    });
    thread::Builder::new()
        .name("watch".into())
        .spawn(move || accept(listener, &watch))
        .context("--serve: cannot start the server's thread")?;
    Ok(http::page_url(addr))
}

fn accept(listener: TcpListener, watch: &Arc<Watch>) {
    loop {
        let Ok((stream, peer)) = listener.accept() else {
            thread::sleep(Duration::from_millis(50));
            continue;
        };
        let accepted = Instant::now();
        let ticket = match watch.admission.admit(peer.ip()) {
            Ok(ticket) => ticket,
            Err(why) => {
                http::refuse_overloaded(stream, &why);
                continue;
            }
        };
        let w = Arc::clone(watch);
        let _ = thread::Builder::new()
            .name("watcher".into())
            .stack_size(256 * 1024)
            .spawn(move || {
                let _ticket = ticket;
                serve_connection(&stream, &w, accepted);
            });
    }
}

/// Requests on one connection until it closes or turns into an event
/// stream.
fn serve_connection(stream: &TcpStream, watch: &Watch, accepted: Instant) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_DEADLINE));
    let mut buf = Vec::new();
    let mut deadline = accepted + http::HEAD_TIMEOUT;
    loop {
        let req = match http::read_head(stream, &mut buf, deadline) {
            Ok(r) => r,
            Err(e) => {
                if let Some(response) = http::head_error_response(&e) {
                    let _ = response.write(stream);
                }
                return;
            }
        };
        if let Err(refusal) = http::check_host(&req, &watch.hosts) {
            let _ = refusal.write(stream);
            return;
        }
        if req.method != "GET" && req.method != "HEAD" {
            let _ =
                Response::text(405, "only GET and HEAD\n", &[("Allow", "GET, HEAD")]).write(stream);
            return;
        }
        let done = match req.path.as_str() {
            "/events" if req.method == "GET" => {
                events(stream, &watch.live);
                return;
            }
            "/state" => state(stream, &req, &watch.live),
            path => match find(path) {
                Some(asset) => {
                    let response = Response::asset(asset, &req);
                    response.write(stream).is_err() || response.close
                }
                None => {
                    let _ = Response::text(404, "no such page\n", &[]).write(stream);
                    true
                }
            },
        };
        if done {
            return;
        }
        deadline = Instant::now() + http::KEEP_ALIVE;
    }
}

/// The state once, as JSON; true when the connection is done.
fn state(stream: &TcpStream, req: &Request, live: &Live) -> bool {
    let json = live.snapshot().to_json();
    let response = Response {
        status: 200,
        content_type: "application/json",
        body: json.as_bytes(),
        extra: &[],
        head_only: req.method == "HEAD",
        close: true,
    };
    let _ = response.write(stream);
    true
}

/// The event stream: the state now, then after every change (at most
/// [`MAX_RATE`] a second), until the watcher goes or the run has ended and
/// been sent.
fn events(mut stream: &TcpStream, live: &Live) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    let mut watcher = live.watch();
    let gap = Duration::from_secs(1) / MAX_RATE;
    let mut sent_version = 0;
    let mut last_write = Instant::now();
    loop {
        let version = live.wait_newer(sent_version, KEEP_ALIVE);
        let result = if version > sent_version {
            let snapshot = live.snapshot();
            sent_version = snapshot.version;
            let text = format!("data: {}\n\n", snapshot.to_json());
            let r = stream.write_all(text.as_bytes());
            if r.is_ok() {
                watcher.sent(&snapshot);
            }
            if snapshot.run.is_over() {
                return;
            }
            r
        } else {
            stream.write_all(b": still here\n\n")
        };
        if result.is_err() {
            return;
        }
        // At most MAX_RATE updates a second: changes in between are sent
        // together.
        let since = last_write.elapsed();
        if since < gap {
            thread::sleep(gap - since);
        }
        last_write = Instant::now();
    }
}
