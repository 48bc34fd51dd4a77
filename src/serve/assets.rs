//! The page, compiled into the binary: plain files kept readable under
//! `src/serve/page/`, so the server needs nothing installed and no network.

/// One file of the page.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    /// The URL path it is served at.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Every file of the play page.
pub const PAGE: &[Asset] = &[
    Asset {
        path: "/",
        content_type: HTML,
        body: include_bytes!("page/index.html"),
    },
    Asset {
        path: "/style.css",
        content_type: CSS,
        body: include_bytes!("page/style.css"),
    },
    Asset {
        path: "/protocol.js",
        content_type: JS,
        body: include_bytes!("page/protocol.js"),
    },
    Asset {
        path: "/board.js",
        content_type: JS,
        body: include_bytes!("page/board.js"),
    },
    Asset {
        path: "/app.js",
        content_type: JS,
        body: include_bytes!("page/app.js"),
    },
    Asset {
        path: "/favicon.svg",
        content_type: SVG,
        body: include_bytes!("page/favicon.svg"),
    },
];

/// The file served at `path`, if any (`/index.html` is `/`).
pub fn find(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    PAGE.iter().find(|a| a.path == path)
}
