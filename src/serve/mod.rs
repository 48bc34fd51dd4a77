//! `kinrow serve`: a web page to play in the browser, served by kinrow
//! itself, and a GUI front end like any other: the page speaks kinrow's line
//! protocol over a WebSocket.
//!
//! - [`http`]: the few HTTP requests the server answers (the page's files,
//!   the WebSocket upgrade), with the checks that keep other web sites out.
//! - [`admission`]: how many connections are taken at once, in all and
//!   from one client address.
//! - [`assets`]: the page (plain HTML, CSS and JavaScript under
//!   `src/serve/page/`), compiled into the binary.
//! - [`socket`]: one WebSocket connection: frames in and out, size limits,
//!   heartbeats, and a close that is noticed at once.
//! - [`watch`]: `referee --serve`, the read-only page of a running
//!   tournament.
//! - [`session`]: one browser tab's game: a rules core that answers the
//!   protocol, and the engine processes of its seats, each move of theirs
//!   checked.
//!
//! One thread per connection, plus one per session that talks to engines
//! (a search may take seconds; the socket keeps its heartbeat meanwhile).
//!
//! Ctrl-C (or SIGTERM, or a closed terminal) stops the server in order: no
//! new connection is taken, every tab is told the server is going away and
//! its session ends, engines with it; then `kinrow serve` ends by the signal
//! (see [`crate::sys::signals`]). A second signal ends it at once.

pub mod admission;
pub mod assets;
pub mod http;
pub mod session;
pub mod socket;
pub mod watch;

use crate::client::{join_words, parse_seconds, EngineCommand, EngineSpec};
use crate::sys::poll::{poll, Watch};
use crate::sys::reaper::{Reaper, RUN_MARK};
use crate::sys::signals::Stop;
use anyhow::Context;
use clap::Args;
use session::{Catalog, Session};
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

/// Options of `kinrow serve`.
#[derive(Args, Debug, Clone)]
#[command(after_help = SERVE_HELP)]
pub struct ServeArgs {
    /// TCP port to listen on (0: any free port; the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. The default answers this machine only; any
    /// other address lets everyone who can reach it use the page and the
    /// engines named here (see docs/web.md).
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// A name the page may be opened by besides the address (repeatable):
    /// requests for any other name are refused, so that another web site
    /// can't point a name of its own at this server (see docs/web.md).
    #[arg(long = "host", value_name = "NAME", value_parser = crate::cli::parse_host_name)]
    pub hosts: Vec<String>,
    /// An engine the page may offer, NAME=COMMAND (repeatable); COMMAND is
    /// split into words like a shell would, but run without one (a Gomocup
    /// brain: NAME=gomocup:COMMAND). The page picks engines by NAME only.
    #[arg(long = "engine", value_name = "NAME=COMMAND", value_parser = parse_engine)]
    pub engines: Vec<NamedEngine>,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Games (browser tabs) at once; the next one is refused with a message.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub max_sessions: u32,
    /// Longest wait for any engine answer, in seconds, on top of its movetime.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    pub timeout: Duration,
    /// Longest wait for a freshly started engine to answer, in seconds
    /// (default: 10, or --timeout if longer).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub startup_timeout: Option<Duration>,
    /// A tab that sends nothing (not even the answer to a ping) for this
    /// many seconds is gone: its session ends and its engines are killed.
    #[arg(long, value_name = "SECONDS", default_value = "30", value_parser = parse_seconds)]
    pub heartbeat: Duration,
    /// Longest time a connection may take, from when it is accepted, to send
    /// its request's whole head (the page's files and the WebSocket's
    /// handshake); a slower one is closed.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds)]
    pub request_timeout: Duration,
}

const SERVE_HELP: &str = "\
The page: choose the board and who plays X and O (a person, a built-in bot, or an
engine named with --engine), then click. Each browser tab is a session with its
own engine processes, killed when the tab closes.
Examples:
  kinrow serve --open
  kinrow serve --engine 'pybot=python3 bots/random.py' --port 9000
  kinrow serve --bind 0.0.0.0     (every machine that can reach this one may play,
                                   opening it by this machine's address)
  kinrow serve --bind 0.0.0.0 --host mybox.local   (by that name too)";

impl ServeArgs {
    /// What the flags can't say on their own: each engine name once.
    pub fn check(&self) -> Result<(), String> {
        let mut names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        names.sort_unstable();
        match names.windows(2).find(|w| w[0] == w[1]) {
            Some(pair) => Err(format!("--engine: the name '{}' is given twice", pair[0])),
            None => Ok(()),
        }
    }
}

/// An engine offered to the page: its name there and its command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedEngine {
    pub name: String,
    pub command: EngineCommand,
}

fn parse_engine(s: &str) -> Result<NamedEngine, String> {
    let spec: EngineSpec = s.parse()?;
    match spec.name {
        Some(name) => Ok(NamedEngine {
            name,
            command: EngineCommand {
                argv: spec.argv,
                dialect: spec.dialect,
            },
        }),
        None => Err(
            "give the engine a name the page can show: NAME=COMMAND (NAME: letters, digits, -_.+)"
                .into(),
        ),
    }
}

/// The running server's settings and counters, shared by its threads.
pub struct Server {
    /// Where it listens (with the port actually bound).
    pub addr: SocketAddr,
    /// Host header values it answers to.
    pub hosts: http::Hosts,
    /// What the page may start.
    pub catalog: Arc<Catalog>,
    pub max_sessions: usize,
    pub heartbeat: Duration,
    /// How long a new connection may take to send a request head.
    pub head_timeout: Duration,
    sessions: AtomicUsize,
    /// Connections open, in all and by client.
    admission: Arc<admission::Admission>,
    next_session: AtomicU64,
    /// How to end each open session from outside (a stop signal), and
    /// whether the server is stopping: a session opened from then on is
    /// ended as it registers.
    open: Mutex<OpenSessions>,
}

/// See [`Server::open`].
#[derive(Default)]
struct OpenSessions {
    stopping: bool,
    ends: Vec<(u64, SessionEnd)>,
}

/// What ends one session from outside: its tab told, its engine waits cut.
#[derive(Clone)]
struct SessionEnd {
    outbox: socket::Outbox,
    stop: Arc<session::Stop>,
}

impl SessionEnd {
    fn end(&self) {
        self.stop.close();
        self.outbox
            .close(socket::CLOSE_GOING_AWAY, "the server is stopping");
    }
}

/// How long a stopping server waits for its sessions to end: the close
/// handshake's second, and some.
const STOP_WAIT: Duration = Duration::from_secs(3);

/// Connections served at once beyond the sessions (page loads are short);
/// more are refused with 503 rather than given a thread each.
const SPARE_CONNECTIONS: usize = 64;
/// Of those, what one client address may hold beyond the sessions (a
/// browser loads a page over six at most): so one client can't take more
/// than all but 48 of the connections.
const SPARE_PER_CLIENT: usize = 16;

impl Server {
    /// A server for `addr` (its port already bound).
    pub fn new(addr: SocketAddr, args: &ServeArgs, program: PathBuf) -> Server {
        let hosts = http::Hosts::new(addr, &args.hosts);
        Server {
            addr,
            hosts,
            catalog: Arc::new(Catalog {
                program,
                engines: args
                    .engines
                    .iter()
                    .map(|e| (e.name.clone(), e.command.clone()))
                    .collect(),
                timeout: args.timeout,
                startup_timeout: args
                    .startup_timeout
                    .unwrap_or_else(|| crate::client::default_startup_timeout(args.timeout)),
            }),
            max_sessions: args.max_sessions as usize,
            heartbeat: args.heartbeat,
            head_timeout: args.request_timeout,
            sessions: AtomicUsize::new(0),
            admission: admission::Admission::new(
                args.max_sessions as usize + SPARE_CONNECTIONS,
                args.max_sessions as usize + SPARE_PER_CLIENT,
            ),
            next_session: AtomicU64::new(1),
            open: Mutex::new(OpenSessions::default()),
        }
    }

    fn open_sessions(&self) -> std::sync::MutexGuard<'_, OpenSessions> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps the way to end session `id` until its slot is given back; a
    /// session that comes while the server stops is ended at once.
    fn register(&self, id: u64, end: SessionEnd) {
        let mut open = self.open_sessions();
        if open.stopping {
            end.end();
        }
        open.ends.push((id, end));
    }

    /// Stopping: ends every session and waits (a while) until all are gone,
    /// their engines with them.
    fn end_sessions(&self) {
        {
            let mut open = self.open_sessions();
            open.stopping = true;
            for (_, end) in &open.ends {
                end.end();
            }
        }
        let give_up = Instant::now() + STOP_WAIT;
        while self.sessions() > 0 && Instant::now() < give_up {
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// The page's address.
    pub fn url(&self) -> String {
        http::page_url(self.addr)
    }

    /// Takes a session slot, if one is free.
    fn open_session(self: &Arc<Self>) -> Option<SessionSlot> {
        let taken = self
            .sessions
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.max_sessions).then_some(n + 1)
            });
        taken.ok().map(|before| SessionSlot {
            server: Arc::clone(self),
            id: self.next_session.fetch_add(1, Ordering::Relaxed),
            open: before + 1,
        })
    }

    /// Sessions open now.
    pub fn sessions(&self) -> usize {
        self.sessions.load(Ordering::SeqCst)
    }
}

/// A session slot, given back when dropped (after the session's engines
/// are gone).
struct SessionSlot {
    server: Arc<Server>,
    id: u64,
    open: usize,
}

impl Drop for SessionSlot {
    fn drop(&mut self) {
        self.server
            .open_sessions()
            .ends
            .retain(|(id, _)| *id != self.id);
        self.server.sessions.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `kinrow serve` until it is stopped (see the module: Ctrl-C ends
/// the sessions and their engines, then the server).
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    args.check().map_err(|e| anyhow::anyhow!(e))?;
    // No engine, nor anything one starts, outlives the server, however it
    // ends, `kill -9` included (see crate::sys::reaper); the warden forks,
    // so it comes before any thread.
    Reaper::hold(|stop| serve(args, stop))
}

/// The server's life: listen, tell where, take connections until stopped.
fn serve(args: ServeArgs, stop: &Stop) -> anyhow::Result<()> {
    let names: Vec<String> = args.engines.iter().map(|e| e.name.clone()).collect();
    let program =
        std::env::current_exe().context("cannot find the kinrow program to start its bots")?;
    let listener = TcpListener::bind((args.bind, args.port))
        .with_context(|| format!("cannot listen on {}", SocketAddr::new(args.bind, args.port)))?;
    let addr = listener
        .local_addr()
        .context("cannot read the bound address")?;
    let server = Arc::new(Server::new(addr, &args, program));

    let url = server.url();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "kinrow serve: the page is at {url}  (Ctrl-C stops the server)"
    )?;
    if !addr.ip().is_loopback() {
        writeln!(
            out,
            "Listening on {addr}: anyone who can reach this address can play here and start \
             the built-in bots{}, up to {} games at once.",
            if server.catalog.engines.is_empty() {
                String::new()
            } else {
                format!(
                    " and the engines named with --engine ({})",
                    join_words(&names)
                )
            },
            server.max_sessions
        )?;
        writeln!(
            out,
            "It answers to {}{}; other names are refused (see --host).",
            if addr.ip().is_unspecified() {
                "this machine's addresses".to_string()
            } else {
                addr.ip().to_string()
            },
            if args.hosts.is_empty() {
                String::new()
            } else {
                format!(" and {}", args.hosts.join(", "))
            }
        )?;
    }
    out.flush()?;
    drop(out);
    if args.open {
        open_browser(&url);
    }

    accept(&listener, &server, stop).context("cannot wait for connections")?;
    drop(listener);
    server.end_sessions();
    Ok(())
}

/// Takes connections, each on a thread of its own, until a stop signal.
fn accept(listener: &TcpListener, server: &Arc<Server>, stop: &Stop) -> io::Result<()> {
    // Non-blocking, so a wait for a connection is a poll that the stop
    // signal's pipe ends too.
    listener.set_nonblocking(true)?;
    // With no pipe to say that a stop came, the flag is looked at now and
    // then.
    let slice = (stop.wake_fd() < 0).then_some(Duration::from_millis(100));
    while !stop.requested() {
        let mut watches = [
            Watch::readable(listener.as_raw_fd()),
            Watch::readable(stop.wake_fd()),
        ];
        match poll(&mut watches, slice) {
            Ok(_) if watches[0].ready() => {}
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        let (stream, peer) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(_) => {
                // Out of file descriptors, say: don't spin; the backlog waits.
                thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        // Its own threads block on it (or set it otherwise themselves).
        if stream.set_nonblocking(false).is_err() {
            continue;
        }
        take_connection(stream, peer.ip(), server);
    }
    Ok(())
}

/// Serves one connection from `peer` on a thread of its own, or refuses it
/// when too many are open (from that client, or in all).
fn take_connection(stream: TcpStream, peer: IpAddr, server: &Arc<Server>) {
    let accepted = Instant::now();
    let ticket = match server.admission.admit(peer) {
        Ok(ticket) => ticket,
        Err(why) => {
            http::refuse_overloaded(stream, &why);
            return;
        }
    };
    let server = Arc::clone(server);
    let spawned = thread::Builder::new()
        .name("http".into())
        .stack_size(256 * 1024)
        .spawn(move || {
            let _ticket = ticket;
            serve_connection(stream, &server, accepted);
        });
    if spawned.is_err() {
        eprintln!("kinrow serve: cannot start a thread for a connection; refused it");
    }
}

/// Answers one connection: page requests until it closes, or a WebSocket.
fn serve_connection(stream: TcpStream, server: &Arc<Server>, accepted: Instant) {
    let _ = stream.set_nodelay(true);
    let Some(upgrade) = http::serve_requests(&stream, server, accepted) else {
        return;
    };
    let ws = match upgrade.accept(stream) {
        Ok(ws) => ws,
        Err(e) => {
            eprintln!("kinrow serve: a WebSocket handshake failed: {e}");
            return;
        }
    };
    match server.open_session() {
        Some(slot) => run_session(ws, server, slot),
        None => socket::refuse(
            ws,
            &format!(
                "busy: this server already runs {} games, its limit (--max-sessions {}); \
                 close another tab or try again later",
                server.max_sessions, server.max_sessions
            ),
        ),
    }
}

/// What the socket hands the session's worker, in arrival order.
enum Job {
    /// A request line.
    Line(String),
    /// A message that is answered with this failure and does nothing else.
    Refuse(String),
}

/// Requests waiting for the session's worker at most; a client that sends
/// more without reading the answers is closed.
const MAX_WAITING: usize = 64;

/// One browser tab: the socket in this thread, the game and its engines in
/// a worker thread, so that a long search never stops the heartbeat and a
/// closed tab cuts the search short.
fn run_session(ws: socket::Ws, server: &Arc<Server>, slot: SessionSlot) {
    let id = slot.id;
    eprintln!(
        "kinrow serve: session {id} opened ({} of {} at most)",
        slot.open, server.max_sessions
    );
    let (outbox, wakeup) = match socket::outbox() {
        Ok(pair) => pair,
        Err(e) => {
            eprintln!("kinrow serve: session {id}: cannot set up: {e}");
            return;
        }
    };
    let stop = Arc::new(session::Stop::default());
    server.register(
        id,
        SessionEnd {
            outbox: outbox.clone(),
            stop: Arc::clone(&stop),
        },
    );
    let (jobs, inbox) = mpsc::sync_channel::<Job>(MAX_WAITING);
    let catalog = Arc::clone(&server.catalog);
    let worker_stop = Arc::clone(&stop);
    let worker_out = outbox.clone();
    let worker = thread::Builder::new()
        .name(format!("session-{id}"))
        .spawn(move || {
            // Engine handles stay on this thread.
            let mut session = Session::new(catalog, worker_stop);
            for job in inbox {
                let reply = match job {
                    Job::Line(line) => session.handle(&line),
                    Job::Refuse(text) => session::Reply::failure(&text),
                };
                if let Some(text) = reply.text {
                    worker_out.send_text(text);
                }
                if reply.close {
                    worker_out.close(socket::CLOSE_NORMAL, "quit");
                    break;
                }
            }
            // Dropping the session kills its engines.
        });
    let worker = match worker {
        Ok(w) => w,
        Err(e) => {
            eprintln!("kinrow serve: session {id}: cannot start its worker: {e}");
            return;
        }
    };

    let limits = socket::Limits {
        heartbeat: server.heartbeat,
        ..socket::Limits::default()
    };
    let end = socket::run(ws, &wakeup, &outbox, &limits, |incoming| {
        let jobs_for = |job: Job| match jobs.try_send(job) {
            Ok(()) => Ok(()),
            Err(mpsc::TrySendError::Full(_)) => Err(socket::Refusal::TooManyWaiting),
            Err(mpsc::TrySendError::Disconnected(_)) => Err(socket::Refusal::Finished),
        };
        match incoming {
            socket::Incoming::Text(text) => {
                for line in text.split('\n') {
                    // Out of band, at once: a search in progress ends.
                    if line.trim() == "# interrupt" {
                        stop.interrupt();
                        continue;
                    }
                    // Blank lines and comments get no reply: not a job.
                    if crate::protocol::preprocess(line.as_bytes())
                        .trim()
                        .is_empty()
                    {
                        continue;
                    }
                    jobs_for(Job::Line(line.to_string()))?;
                }
                Ok(())
            }
            socket::Incoming::Refused(why) => jobs_for(Job::Refuse(why)),
        }
    });
    // The tab is gone (or said quit): stop any wait for an engine, let the
    // worker drop the session (which kills its engines), then free the slot.
    stop.close();
    drop(jobs);
    let _ = worker.join();
    eprintln!("kinrow serve: session {id} closed ({end})");
    drop(slot);
}

/// Opens `url` in the default browser, where there is a way to.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let child = std::process::Command::new(opener)
        .arg(url)
        // The browser is the person's, not this run's: the warden must not
        // take it with the server's engines.
        .env_remove(RUN_MARK)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match child {
        // Reaped in the background: an opener may wait for the browser.
        Ok(mut child) => {
            thread::spawn(move || child.wait());
        }
        Err(e) => {
            eprintln!("kinrow serve: cannot open a browser ({opener}: {e}); open {url} yourself")
        }
    }
}
