//! The terminal's width, for text wrapped to it (`kinrow play`) and
//! progress redrawn in place (the referee).

use std::os::fd::RawFd;

/// The width in columns of the terminal `fd` is (`TIOCGWINSZ`), if it is
/// one and says.
pub fn width(fd: RawFd) -> Option<usize> {
    let mut size = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one winsize into the struct we own, or fails.
    let asked = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) };
    (asked == 0 && size.ws_col > 0).then(|| usize::from(size.ws_col))
}

/// The width of the terminal on standard output; else `COLUMNS`, else
/// `fallback`.
pub fn stdout_columns(fallback: usize) -> usize {
    width(libc::STDOUT_FILENO)
        .or_else(|| {
            std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.trim().parse::<usize>().ok())
                .filter(|&c| c > 0)
        })
        .unwrap_or(fallback)
}

/// The width of the terminal on standard error, if it is one.
pub fn stderr_width() -> Option<usize> {
    width(libc::STDERR_FILENO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_has_no_width() {
        let (r, _w) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(width(std::os::fd::AsRawFd::as_raw_fd(&r)), None);
        assert_eq!(width(-1), None);
    }
}
