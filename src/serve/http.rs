//! The HTTP the server speaks: GET (and HEAD) of the page's files, and the
//! WebSocket upgrade at [`SOCKET_PATH`]. Requests are parsed by `httparse`
//! into [`Request`]; everything else is a few lines here, so that the
//! connection's socket stays ours (a WebSocket needs it for `poll`).
//!
//! Two checks keep other web sites away from the server: the `Host` header
//! must be a name no other site can own (see [`Hosts`]: a site that points
//! its own name at the server, "DNS rebinding", is refused), and a
//! WebSocket's `Origin`, which browsers always send, must be the page's own
//! (any site may open a WebSocket to any address; this is where that
//! stops).

use super::admission::Refused;
use super::assets;
use super::socket::{self, Ws};
use super::Server;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Where the page opens its WebSocket.
pub const SOCKET_PATH: &str = "/ws";
/// Longest request head (request line and headers) accepted.
pub const MAX_HEAD: usize = 8 * 1024;
/// Most headers accepted in a request.
const MAX_HEADERS: usize = 40;
/// How long a new connection may take to send its first request's whole
/// head, from the moment it is accepted (`--request-timeout`): a deadline
/// for the head, not for each read, so a client that trickles a byte now
/// and then can't hold a connection for long.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a kept-alive connection may take to send the whole head of its
/// next request, from the end of the last answer.
pub const KEEP_ALIVE: Duration = Duration::from_secs(5);
/// How long an answer may take to be written.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// A parsed request head.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    /// The path without its query string.
    pub path: String,
    /// HTTP/1.1 (rather than 1.0).
    pub http11: bool,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The value of a header (the first, if repeated).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether a comma-separated header holds `token` (case-insensitively).
    fn has_token(&self, name: &str, token: &str) -> bool {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .flat_map(|(_, v)| v.split(','))
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    }

    /// Whether the connection stays open after the response.
    fn keeps_alive(&self) -> bool {
        if self.has_token("connection", "close") {
            return false;
        }
        self.http11 || self.has_token("connection", "keep-alive")
    }

    /// Whether it announces a body (which page requests never have).
    fn has_body(&self) -> bool {
        self.header("transfer-encoding").is_some()
            || self
                .header("content-length")
                .is_some_and(|v| v.trim() != "0")
    }
}

/// Why a request head could not be read.
#[derive(Debug)]
pub enum HeadError {
    /// The connection closed before a complete head (nothing to answer).
    Gone,
    /// The head's deadline passed; true if part of a head had come.
    Late(bool),
    /// Not HTTP.
    Malformed,
    /// Over `MAX_HEAD` bytes or `MAX_HEADERS` headers.
    TooLarge,
}

/// Reads one request head from `stream`, whole by `deadline`; `buf` holds
/// bytes already read and keeps those after the head (a pipelined request,
/// or early WebSocket frames).
pub fn read_head(
    mut stream: &TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
) -> Result<Request, HeadError> {
    let mut chunk = [0u8; 2048];
    loop {
        if !buf.is_empty() {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut req = httparse::Request::new(&mut headers);
            match req.parse(buf) {
                Ok(httparse::Status::Complete(len)) => {
                    let request = Request {
                        method: req.method.unwrap_or("").to_string(),
                        path: req
                            .path
                            .unwrap_or("")
                            .split(['?', '#'])
                            .next()
                            .unwrap_or("")
                            .to_string(),
                        http11: req.version == Some(1),
                        headers: req
                            .headers
                            .iter()
                            .map(|h| {
                                (
                                    h.name.to_ascii_lowercase(),
                                    String::from_utf8_lossy(h.value).trim().to_string(),
                                )
                            })
                            .collect(),
                    };
                    buf.drain(..len);
                    return Ok(request);
                }
                Ok(httparse::Status::Partial) => {}
                Err(httparse::Error::TooManyHeaders) => return Err(HeadError::TooLarge),
                Err(_) => return Err(HeadError::Malformed),
            }
            if buf.len() >= MAX_HEAD {
                return Err(HeadError::TooLarge);
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err(HeadError::Late(!buf.is_empty()));
        }
        match stream.read(&mut chunk) {
            Ok(0) => return Err(HeadError::Gone),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(HeadError::Late(!buf.is_empty()))
            }
            Err(_) => return Err(HeadError::Gone),
        }
    }
}

/// A response about to be written.
pub(crate) struct Response<'a> {
    pub status: u16,
    pub content_type: &'a str,
    pub body: &'a [u8],
    pub extra: &'a [(&'a str, &'a str)],
    pub head_only: bool,
    pub close: bool,
}

impl Response<'_> {
    /// A plain-text response saying `text`.
    pub fn text<'a>(status: u16, text: &'a str, extra: &'a [(&'a str, &'a str)]) -> Response<'a> {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: text.as_bytes(),
            extra,
            head_only: false,
            close: true,
        }
    }

    /// The response for a GET (or HEAD) of a file of the page.
    pub fn asset<'a>(asset: &'a assets::Asset, req: &Request) -> Response<'a> {
        Response {
            status: 200,
            content_type: asset.content_type,
            body: asset.body,
            extra: &[],
            head_only: req.method == "HEAD",
            close: !req.keeps_alive() || req.has_body(),
        }
    }

    pub fn write(&self, mut out: &TcpStream) -> io::Result<()> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
             Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\n\
             X-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n\
             Content-Security-Policy: default-src 'self'; connect-src 'self'; \
             img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len()
        );
        for (name, value) in self.extra {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(if self.close {
            "Connection: close\r\n\r\n"
        } else {
            "Connection: keep-alive\r\n\r\n"
        });
        let mut bytes = head.into_bytes();
        if !self.head_only {
            bytes.extend_from_slice(self.body);
        }
        out.write_all(&bytes)?;
        out.flush()
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        101 => "Switching Protocols",
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        426 => "Upgrade Required",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// A request for the WebSocket that passed every check, with what was read
/// after its head.
pub struct Upgrade {
    key: String,
    early: Vec<u8>,
}

impl Upgrade {
    /// Completes the handshake (`101 Switching Protocols`) and returns the
    /// WebSocket.
    pub fn accept(self, stream: TcpStream) -> io::Result<Ws> {
        let accept = tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        let head = format!(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Accept: {accept}\r\n\r\n"
        );
        (&stream).write_all(head.as_bytes())?;
        Ok(socket::from_upgraded(stream, self.early))
    }
}

/// The answer to a head that could not be read, if it gets one.
pub(crate) fn head_error_response(error: &HeadError) -> Option<Response<'static>> {
    match error {
        HeadError::Gone | HeadError::Late(false) => None,
        HeadError::Late(true) => Some(Response::text(408, "the request head took too long\n", &[])),
        HeadError::Malformed => Some(Response::text(400, "not an HTTP request\n", &[])),
        HeadError::TooLarge => Some(Response::text(431, "request head too large\n", &[])),
    }
}

/// Answers requests on one connection, accepted at `accepted`, until it
/// closes; returns the WebSocket upgrade if one was asked for and allowed.
pub fn serve_requests(stream: &TcpStream, server: &Server, accepted: Instant) -> Option<Upgrade> {
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut buf = Vec::new();
    let mut deadline = accepted + server.head_timeout;
    loop {
        let request = match read_head(stream, &mut buf, deadline) {
            Ok(r) => r,
            Err(e) => {
                if let Some(response) = head_error_response(&e) {
                    let _ = response.write(stream);
                }
                return None;
            }
        };
        match route(&request, server) {
            Route::Page(response) => {
                if response.write(stream).is_err() || response.close {
                    return None;
                }
                deadline = Instant::now() + KEEP_ALIVE.min(server.head_timeout);
            }
            Route::Socket(key) => {
                let _ = stream.set_read_timeout(None);
                return Some(Upgrade {
                    key,
                    early: std::mem::take(&mut buf),
                });
            }
        }
    }
}

/// What a request gets.
enum Route<'a> {
    Page(Response<'a>),
    /// The WebSocket, with the client's key.
    Socket(String),
}

/// Decides the answer to one request.
fn route<'a>(req: &'a Request, server: &Server) -> Route<'a> {
    let host = match check_host(req, &server.hosts) {
        Ok(host) => host,
        Err(response) => return Route::Page(response),
    };
    if req.path == SOCKET_PATH {
        return check_upgrade(req, host);
    }
    let head_only = match req.method.as_str() {
        "GET" => false,
        "HEAD" => true,
        _ => {
            return Route::Page(Response::text(
                405,
                "only GET and HEAD\n",
                &[("Allow", "GET, HEAD")],
            ))
        }
    };
    match assets::find(&req.path) {
        Some(asset) => Route::Page(Response::asset(asset, req)),
        None => Route::Page(Response {
            head_only,
            ..Response::text(404, "no such page\n", &[])
        }),
    }
}

/// The `Host` header values a server answers to. Another web site that
/// points a name of its own at this server ("DNS rebinding") sends its own
/// name as `Host`, and the page it serves may then read ours and open our
/// WebSocket: so only names that can't be someone else's are taken.
///
/// - On a loopback address: `localhost` and that address, with the port.
/// - On another address: that address, with the port; on every address
///   (`0.0.0.0`, `::`): any IP address and `localhost`, with the port (a page
///   reached by its address has that address for its origin, which no
///   other site can serve).
/// - Everywhere: the names given with `--host`, with any port (a reverse
///   proxy may add its own).
#[derive(Clone, Debug)]
pub struct Hosts {
    addr: SocketAddr,
    names: Vec<String>,
}

impl Hosts {
    /// The hosts of a server listening on `addr` (its port bound) that
    /// also answers to `names` (checked by [`crate::cli::parse_host_name`]).
    pub fn new(addr: SocketAddr, names: &[String]) -> Hosts {
        Hosts {
            addr,
            names: names.to_vec(),
        }
    }

    /// Whether a request whose `Host` is `host` is answered.
    pub fn allow(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host) else {
            return false;
        };
        let name = name.to_ascii_lowercase();
        if self.names.contains(&name) {
            return true;
        }
        if port != self.addr.port() {
            return false;
        }
        let ip: Option<IpAddr> = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(&name)
            .parse()
            .ok();
        let bound = self.addr.ip();
        match ip {
            Some(ip) => ip == bound || bound.is_unspecified(),
            None => name == "localhost" && (bound.is_loopback() || bound.is_unspecified()),
        }
    }
}

/// A `Host` header's name (an IPv6 address in its brackets) and port (80
/// when it has none); `None` if it is not one.
fn split_host(host: &str) -> Option<(&str, u16)> {
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => {
            let close = rest.find(']')? + 2;
            (&host[..close], host[close..].strip_prefix(':'))
        }
        None => match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        },
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None if host.len() == name.len() => 80,
        None => return None,
    };
    (!name.is_empty()).then_some((name, port))
}

/// The address to open for a server listening on `addr`.
pub fn page_url(addr: SocketAddr) -> String {
    let host = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => Ipv4Addr::LOCALHOST.to_string(),
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) if ip.is_unspecified() => "[::1]".to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    format!("http://{host}:{}/", addr.port())
}

/// The request's `Host`, if the server answers to it (see [`Hosts`]);
/// else the refusal to send.
pub(crate) fn check_host<'r>(
    req: &'r Request,
    hosts: &Hosts,
) -> Result<&'r str, Response<'static>> {
    let Some(host) = req.header("host") else {
        return Err(Response::text(400, "a Host header is required\n", &[]));
    };
    if hosts.allow(host) {
        Ok(host)
    } else {
        Err(Response::text(
            403,
            "this server answers only to its own address and the names it was given \
             (kinrow serve --host, referee --serve-host; open the URL that was printed \
             when it started)\n",
            &[],
        ))
    }
}

/// Whether a request at the socket path is a WebSocket handshake we take.
fn check_upgrade<'a>(req: &'a Request, host: &str) -> Route<'a> {
    let refuse = |status, text| Route::Page(Response::text(status, text, &[]));
    if req.method != "GET" || !req.http11 {
        return refuse(400, "a WebSocket starts with GET over HTTP/1.1\n");
    }
    if !req.has_token("upgrade", "websocket") || !req.has_token("connection", "upgrade") {
        return Route::Page(Response::text(
            426,
            "this address is for the page's WebSocket\n",
            &[("Upgrade", "websocket")],
        ));
    }
    if req.header("sec-websocket-version") != Some("13") {
        return Route::Page(Response::text(
            426,
            "WebSocket version 13 only\n",
            &[("Sec-WebSocket-Version", "13")],
        ));
    }
    // Browsers always send Origin; a program that sends none is not a web
    // page acting for someone else.
    if let Some(origin) = req.header("origin") {
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        if !authority.is_some_and(|a| a.eq_ignore_ascii_case(host)) {
            return refuse(
                403,
                "a page from another site may not open this WebSocket\n",
            );
        }
    }
    match req.header("sec-websocket-key") {
        Some(key) if key.len() == 24 && key.is_ascii() => Route::Socket(key.to_string()),
        _ => refuse(400, "missing or malformed Sec-WebSocket-Key\n"),
    }
}

/// Tells a connection beyond the server's limits to come back later.
pub fn refuse_overloaded(stream: TcpStream, why: &Refused) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = Response::text(503, &why.text(), &[]).write(&stream);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::parse_host_name;

    fn hosts(addr: &str, names: &[&str]) -> Hosts {
        let names: Vec<String> = names.iter().map(|n| parse_host_name(n).unwrap()).collect();
        Hosts::new(addr.parse().unwrap(), &names)
    }

    #[test]
    fn a_loopback_server_answers_to_its_own_names_only() {
        let h = hosts("127.0.0.1:8080", &[]);
        for ok in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080"] {
            assert!(h.allow(ok), "{ok}");
        }
        for no in [
            "evil.example:8080",
            "127.0.0.1:8081",
            "127.0.0.1",
            "127.0.0.2:8080",
            "localhost",
            "",
            ":8080",
            "127.0.0.1:8080:1",
            "127.0.0.1:x",
        ] {
            assert!(!h.allow(no), "{no}");
        }
        let h80 = hosts("[::1]:80", &[]);
        for ok in ["[::1]", "[::1]:80", "localhost"] {
            assert!(h80.allow(ok), "{ok}");
        }
        assert!(!h80.allow("[::1"));
        assert!(!h80.allow("[::1]x"));
    }

    #[test]
    fn beyond_loopback_the_address_and_the_names_given_only() {
        let one = hosts("192.168.1.5:8080", &["Kinrow.Example", "[::2]"]);
        for ok in [
            "192.168.1.5:8080",
            "kinrow.example:8080",
            "KINROW.example",
            "kinrow.example:443",
            "[::2]:1",
        ] {
            assert!(one.allow(ok), "{ok}");
        }
        for no in [
            "rebind.evil.example:8080",
            "192.168.1.6:8080",
            "192.168.1.5:8081",
            "localhost:8080",
            "127.0.0.1:8080",
            "kinrow.example.evil:8080",
        ] {
            assert!(!one.allow(no), "{no}");
        }
        let any = hosts("0.0.0.0:8080", &[]);
        for ok in [
            "10.1.2.3:8080",
            "127.0.0.1:8080",
            "[fe80::1]:8080",
            "localhost:8080",
        ] {
            assert!(any.allow(ok), "{ok}");
        }
        for no in ["rebind.evil.example:8080", "10.1.2.3:8081", "10.1.2.3"] {
            assert!(!any.allow(no), "{no}");
        }
    }

    #[test]
    fn host_names_are_names_or_addresses_without_a_port() {
        assert_eq!(parse_host_name("Box.Local").unwrap(), "box.local");
        assert_eq!(parse_host_name("192.168.1.20").unwrap(), "192.168.1.20");
        assert_eq!(parse_host_name("[::1]").unwrap(), "[::1]");
        assert_eq!(parse_host_name("FE80::1").unwrap(), "[fe80::1]");
        for bad in ["", "box.local:8080", "a b", "http://box", &"a".repeat(254)] {
            assert!(parse_host_name(bad).is_err(), "{bad}");
        }
    }
}
