//! One WebSocket connection, on its own thread: frames in, messages out,
//! limits, heartbeats.
//!
//! The thread waits with `poll(2)` on two things at once: the socket, and a
//! wake-up pipe that the session's worker writes to when it has a reply in
//! the [`Outbox`]. So a reply goes out the moment it is ready, a close is
//! seen the moment it arrives (even while an engine thinks), and no thread
//! spins. Frames are tungstenite's; the stream is non-blocking.
//!
//! Limits: a text message over [`Limits::max_text`] bytes is refused with a
//! reply and changes nothing; a frame or message over [`HARD_MAX`] bytes (or
//! broken framing, or text that is not UTF-8) closes the socket with the
//! RFC 6455 code and a reason, as the RFC asks. A client that sends nothing
//! for [`Limits::heartbeat`] — browsers answer pings by themselves, even in
//! a background tab — is gone.

use crate::sys::poll::{poll, Watch};
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tungstenite::error::ProtocolError;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tungstenite::{Error, Message, WebSocket};

/// A server-side WebSocket over a TCP stream.
pub type Ws = WebSocket<TcpStream>;

/// Largest frame or message taken in at all; more closes the socket.
pub const HARD_MAX: usize = 64 * 1024;
/// Close codes of RFC 6455 §7.4.1.
pub const CLOSE_NORMAL: u16 = 1000;
/// The server is going down.
pub const CLOSE_GOING_AWAY: u16 = 1001;
const CLOSE_PROTOCOL: u16 = 1002;
const CLOSE_NOT_UTF8: u16 = 1007;
const CLOSE_POLICY: u16 = 1008;
const CLOSE_TOO_BIG: u16 = 1009;
const CLOSE_TRY_LATER: u16 = 1013;
/// How long a close handshake we started may take.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// The limits of one connection.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Silence after which the peer is taken for gone; pings go out at a
    /// third of it.
    pub heartbeat: Duration,
    /// Longest text message answered; a longer one gets a failure reply.
    pub max_text: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            heartbeat: Duration::from_secs(30),
            max_text: 8 * 1024,
        }
    }
}

/// The WebSocket on a stream whose handshake is done; `early` holds bytes
/// already read after the handshake.
pub fn from_upgraded(stream: TcpStream, early: Vec<u8>) -> Ws {
    let config = WebSocketConfig::default()
        // Small: a page's messages are a line or two.
        .read_buffer_size(4096)
        .write_buffer_size(0)
        .max_write_buffer_size(1 << 20)
        .max_message_size(Some(HARD_MAX))
        .max_frame_size(Some(HARD_MAX));
    WebSocket::from_partially_read(stream, early, Role::Server, Some(config))
}

/// Something to send.
enum Out {
    Text(String),
    Close(u16, String),
}

/// Where other threads put what the connection sends; cheap to clone.
#[derive(Clone)]
pub struct Outbox {
    queue: Arc<Mutex<VecDeque<Out>>>,
    wake: Arc<UnixStream>,
}

/// The connection's end of the wake-up pipe.
pub struct Wakeup(UnixStream);

/// A new outbox and the wake-up its connection waits on.
pub fn outbox() -> io::Result<(Outbox, Wakeup)> {
    let (tx, rx) = UnixStream::pair()?;
    tx.set_nonblocking(true)?;
    rx.set_nonblocking(true)?;
    Ok((
        Outbox {
            queue: Arc::new(Mutex::new(VecDeque::new())),
            wake: Arc::new(tx),
        },
        Wakeup(rx),
    ))
}

impl Outbox {
    fn push(&self, item: Out) {
        match self.queue.lock() {
            Ok(mut q) => q.push_back(item),
            Err(poisoned) => poisoned.into_inner().push_back(item),
        }
        // A full pipe means a wake-up is already pending.
        let _ = (&*self.wake).write(&[1]);
    }

    /// Sends a text message.
    pub fn send_text(&self, text: String) {
        self.push(Out::Text(text));
    }

    /// Closes the socket after what is queued, with a close code and a
    /// short reason (at most 123 bytes).
    pub fn close(&self, code: u16, reason: &str) {
        self.push(Out::Close(code, reason.to_string()));
    }

    fn take(&self) -> VecDeque<Out> {
        match self.queue.lock() {
            Ok(mut q) => std::mem::take(&mut *q),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
    }
}

impl Wakeup {
    fn drain(&self) {
        let mut buf = [0u8; 64];
        while matches!((&self.0).read(&mut buf), Ok(n) if n > 0) {}
    }
}

/// A message from the peer, as the connection passes it on.
#[derive(Debug)]
pub enum Incoming {
    /// A text message within the limits.
    Text(String),
    /// A message that gets this failure reply and nothing else (too long,
    /// binary).
    Refused(String),
}

/// Why the receiver of messages can take no more.
#[derive(Debug)]
pub enum Refusal {
    /// Too many requests wait for an answer: the peer doesn't read them.
    TooManyWaiting,
    /// The receiver has finished (after `quit`).
    Finished,
}

/// How a connection ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// The peer closed it (a tab closed or navigated away).
    Closed,
    /// We closed it (after `quit`, or a refusal).
    ClosedByUs,
    /// Nothing heard for this long.
    Silent(Duration),
    /// The peer broke the rules of WebSocket (or sent too much); the reason.
    Violation(String),
    /// The connection failed.
    Failed(String),
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            End::Closed => f.write_str("the page closed the connection"),
            End::ClosedByUs => f.write_str("closed by the server"),
            End::Silent(d) => write!(f, "no heartbeat for {} s", d.as_secs_f64()),
            End::Violation(why) => write!(f, "closed: {why}"),
            End::Failed(why) => write!(f, "connection failed: {why}"),
        }
    }
}

fn would_block(e: &Error) -> bool {
    matches!(e, Error::Io(io) if io.kind() == io::ErrorKind::WouldBlock)
}

/// Queues a close frame.
fn start_close(ws: &mut Ws, code: u16, reason: &str) {
    let frame = CloseFrame {
        code: CloseCode::from(code),
        reason: reason.chars().take(100).collect::<String>().into(),
    };
    let _ = ws.close(Some(frame));
}

/// Runs the connection until it ends. Every message from the peer goes to
/// `on_message` in order; what the outbox gets is sent.
pub fn run(
    mut ws: Ws,
    wakeup: &Wakeup,
    outbox: &Outbox,
    limits: &Limits,
    mut on_message: impl FnMut(Incoming) -> Result<(), Refusal>,
) -> End {
    if let Err(e) = ws.get_ref().set_nonblocking(true) {
        return End::Failed(e.to_string());
    }
    let ping_every = (limits.heartbeat / 3).max(Duration::from_millis(10));
    let mut last_heard = Instant::now();
    let mut next_ping = last_heard + ping_every;
    // Once we have sent a close: how the connection ends, and by when.
    let mut closing: Option<(End, Instant)> = None;
    let mut want_write;
    // Frames that came in the packet of the upgrade request are in the
    // WebSocket's buffer already, where `poll` cannot see them: taken now,
    // not when the next byte arrives.
    if let Some(end) = take_messages(
        &mut ws,
        limits,
        &mut closing,
        &mut last_heard,
        &mut on_message,
    ) {
        return end;
    }
    loop {
        for item in outbox.take() {
            match item {
                Out::Text(text) if closing.is_none() => {
                    if let Err(e) = ws.write(Message::text(text)) {
                        if !would_block(&e) {
                            return End::Failed(e.to_string());
                        }
                    }
                }
                Out::Text(_) => {}
                Out::Close(code, reason) => {
                    // Only the first close frame goes out; later ones are no-ops.
                    start_close(&mut ws, code, &reason);
                    closing.get_or_insert((End::ClosedByUs, Instant::now() + CLOSE_WAIT));
                }
            }
        }
        match ws.flush() {
            Ok(()) => want_write = false,
            Err(e) if would_block(&e) => want_write = true,
            Err(Error::ConnectionClosed | Error::AlreadyClosed) => {
                return closing.map_or(End::Closed, |(end, _)| end)
            }
            Err(e) => return End::Failed(e.to_string()),
        }

        let now = Instant::now();
        if let Some((_, by)) = &closing {
            if now >= *by {
                return closing.map_or(End::ClosedByUs, |(end, _)| end);
            }
        } else if now.duration_since(last_heard) >= limits.heartbeat {
            return End::Silent(limits.heartbeat);
        } else if now >= next_ping {
            next_ping = now + ping_every;
            if let Err(e) = ws.write(Message::Ping(Default::default())) {
                if !would_block(&e) {
                    return End::Failed(e.to_string());
                }
            }
            continue;
        }
        let until = match &closing {
            Some((_, by)) => *by,
            None => next_ping.min(last_heard + limits.heartbeat),
        };
        let (readable, woken) = wait(&ws, wakeup, want_write, until - now);
        if woken {
            wakeup.drain();
        }
        if !readable {
            continue;
        }
        if let Some(end) = take_messages(
            &mut ws,
            limits,
            &mut closing,
            &mut last_heard,
            &mut on_message,
        ) {
            return end;
        }
    }
}

/// Takes in every message that has arrived, passing each on to
/// `on_message`; how the connection ends, if it ends here.
fn take_messages(
    ws: &mut Ws,
    limits: &Limits,
    closing: &mut Option<(End, Instant)>,
    last_heard: &mut Instant,
    on_message: &mut impl FnMut(Incoming) -> Result<(), Refusal>,
) -> Option<End> {
    loop {
        let message = match ws.read() {
            Ok(m) => m,
            Err(e) if would_block(&e) => return None,
            Err(Error::ConnectionClosed | Error::AlreadyClosed) => {
                return Some(closing.take().map_or(End::Closed, |(end, _)| end))
            }
            // A tab that is closed or reloaded may just drop the
            // connection.
            Err(Error::Protocol(ProtocolError::ResetWithoutClosingHandshake)) => {
                return Some(closing.take().map_or(End::Closed, |(end, _)| end))
            }
            Err(Error::Io(e))
                if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe
                ) =>
            {
                return Some(closing.take().map_or(End::Closed, |(end, _)| end))
            }
            // The frame couldn't be taken in whole, or is not what it
            // says: the stream can't be trusted past it.
            Err(Error::Capacity(e)) => {
                let why = format!("message too big (at most {HARD_MAX} bytes): {e}");
                start_close(ws, CLOSE_TOO_BIG, &why);
                return Some(End::Violation(why));
            }
            Err(Error::Utf8(_)) => {
                let why = "a text message that is not UTF-8".to_string();
                start_close(ws, CLOSE_NOT_UTF8, &why);
                return Some(End::Violation(why));
            }
            Err(Error::Protocol(e)) => {
                let why = format!("WebSocket protocol error: {e}");
                start_close(ws, CLOSE_PROTOCOL, &why);
                return Some(End::Violation(why));
            }
            Err(e) => return Some(End::Failed(e.to_string())),
        };
        *last_heard = Instant::now();
        if closing.is_some() {
            continue;
        }
        let incoming = match message {
            Message::Text(text) if text.len() > limits.max_text => Incoming::Refused(format!(
                "syntax error: message too long ({} bytes; at most {})",
                text.len(),
                limits.max_text
            )),
            Message::Text(text) => Incoming::Text(text.as_str().to_string()),
            Message::Binary(_) => Incoming::Refused(
                "syntax error: binary messages are not taken; send protocol lines as text"
                    .to_string(),
            ),
            // Pings are answered by tungstenite; a close is answered too
            // and the next read ends the connection.
            _ => continue,
        };
        match on_message(incoming) {
            Ok(()) => {}
            Err(Refusal::TooManyWaiting) => {
                start_close(ws, CLOSE_POLICY, "too many requests waiting for answers");
                *closing = Some((
                    End::Violation("too many requests waiting for answers".into()),
                    Instant::now() + CLOSE_WAIT,
                ));
            }
            Err(Refusal::Finished) => {
                start_close(ws, CLOSE_NORMAL, "quit");
                *closing = Some((End::ClosedByUs, Instant::now() + CLOSE_WAIT));
            }
        }
    }
}

/// Waits up to `timeout` for the socket to be readable (or writable, when
/// `want_write`) or the wake-up to fire: (socket ready, woken).
fn wait(ws: &Ws, wakeup: &Wakeup, want_write: bool, timeout: Duration) -> (bool, bool) {
    let mut watches = [
        Watch::readable(ws.get_ref().as_raw_fd()).writable_too(want_write),
        Watch::readable(wakeup.0.as_raw_fd()),
    ];
    match poll(&mut watches, Some(timeout)) {
        Ok(n) if n > 0 => (watches[0].ready(), watches[1].ready()),
        _ => (false, false),
    }
}

/// Says why a connection can't have a session, then closes it ("try again
/// later").
pub fn refuse(mut ws: Ws, failure: &str) {
    let _ = ws.get_ref().set_write_timeout(Some(Duration::from_secs(2)));
    let _ = ws.get_ref().set_read_timeout(Some(CLOSE_WAIT));
    let _ = ws.send(Message::text(format!("? {failure}\n\n")));
    start_close(&mut ws, CLOSE_TRY_LATER, "busy");
    // Let the peer's close come back, so the message is not cut off by a
    // reset; give up after a moment.
    let until = Instant::now() + CLOSE_WAIT;
    while Instant::now() < until {
        match ws.read() {
            Ok(_) => {}
            Err(_) => break,
        }
    }
}
