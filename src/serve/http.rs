//! The HTTP the server speaks: GET (and HEAD) of the page's files, and the
//! WebSocket upgrade at [`SOCKET_PATH`]. Requests are parsed by `httparse`
//! into [`Request`]; everything else is a few lines here, so that the
//! connection's socket stays ours (a WebSocket needs it for `poll`).
//!
//! Two checks keep other web sites away from a server on this machine: the
//! `Host` header must name the loopback address the server listens on (a
//! site that points its own name at 127.0.0.1, "DNS rebinding", is refused),
//! and a WebSocket's `Origin`, which browsers always send, must be the page's
//! own (any site may open a WebSocket to any address; this is where that
//! stops).

use super::assets;
use super::socket::{self, Ws};
use super::Server;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

/// Where the page opens its WebSocket.
pub const SOCKET_PATH: &str = "/ws";
/// Longest request head (request line and headers) accepted.
pub const MAX_HEAD: usize = 8 * 1024;
/// Most headers accepted in a request.
const MAX_HEADERS: usize = 40;
/// How long a new connection may take to send its first request.
const FIRST_REQUEST: Duration = Duration::from_secs(10);
/// How long a kept-alive connection may sit idle between requests.
const KEEP_ALIVE: Duration = Duration::from_secs(5);

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
    /// The connection closed or timed out before a complete head (nothing
    /// to answer).
    Gone,
    /// Not HTTP.
    Malformed,
    /// Over [`MAX_HEAD`] bytes or [`MAX_HEADERS`] headers.
    TooLarge,
}

/// Reads one request head from `stream`; `buf` holds bytes already read and
/// keeps those after the head (a pipelined request, or early WebSocket
/// frames).
pub fn read_head(mut stream: &TcpStream, buf: &mut Vec<u8>) -> Result<Request, HeadError> {
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
        match stream.read(&mut chunk) {
            Ok(0) => return Err(HeadError::Gone),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
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

/// Answers requests on one connection until it closes; returns the
/// WebSocket upgrade if one was asked for and allowed.
pub fn serve_requests(stream: &TcpStream, server: &Server) -> Option<Upgrade> {
    let _ = stream.set_write_timeout(Some(FIRST_REQUEST));
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        let wait = if first { FIRST_REQUEST } else { KEEP_ALIVE };
        first = false;
        let _ = stream.set_read_timeout(Some(wait));
        let request = match read_head(stream, &mut buf) {
            Ok(r) => r,
            Err(HeadError::Gone) => return None,
            Err(HeadError::Malformed) => {
                let _ = Response::text(400, "not an HTTP request\n", &[]).write(stream);
                return None;
            }
            Err(HeadError::TooLarge) => {
                let _ = Response::text(431, "request head too large\n", &[]).write(stream);
                return None;
            }
        };
        match route(&request, server) {
            Route::Page(response) => {
                if response.write(stream).is_err() || response.close {
                    return None;
                }
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
    let host = match check_host(req, server.hosts.as_deref()) {
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

/// The `Host` header values a server listening on `addr` answers to:
/// on a loopback address only the names of that address (a web site that
/// points its own name at 127.0.0.1, "DNS rebinding", is refused); `None`
/// (any) on an explicit other address, reached by whatever name.
pub fn allowed_hosts(addr: SocketAddr) -> Option<Vec<String>> {
    addr.ip().is_loopback().then(|| {
        let port = addr.port();
        let mut names = vec![
            format!("localhost:{port}"),
            match addr.ip() {
                IpAddr::V4(ip) => format!("{ip}:{port}"),
                IpAddr::V6(ip) => format!("[{ip}]:{port}"),
            },
        ];
        if port == 80 {
            names.extend(["localhost".to_string(), addr.ip().to_string()]);
        }
        names
    })
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

/// The request's `Host`, if the server answers to it (see
/// [`allowed_hosts`]); else the refusal to send.
pub(crate) fn check_host<'r>(
    req: &'r Request,
    hosts: Option<&[String]>,
) -> Result<&'r str, Response<'static>> {
    let Some(host) = req.header("host") else {
        return Err(Response::text(400, "a Host header is required\n", &[]));
    };
    match hosts {
        Some(hosts) if !hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) => Err(Response::text(
            403,
            "this server answers only to the loopback address it listens on \
             (open the URL that was printed when it started)\n",
            &[],
        )),
        _ => Ok(host),
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
pub fn refuse_overloaded(stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = Response::text(503, "too many connections; try again later\n", &[]).write(&stream);
}
