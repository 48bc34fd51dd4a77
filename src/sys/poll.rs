//! Waiting on file descriptors with `poll(2)`: an engine's stdout, a
//! WebSocket and its wake-up pipe, the listening socket and the stop
//! signals' pipe, the keyboard.

use std::io;
use std::os::fd::RawFd;
use std::time::Duration;

/// One descriptor to wait on, and afterwards whether it is ready.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Watch(libc::pollfd);

impl Watch {
    /// Waits for `fd` to have data or to end (a negative `fd` is never
    /// ready, so an optional descriptor can always be watched).
    pub fn readable(fd: RawFd) -> Watch {
        Watch(libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
    }

    /// Also waits for `fd` to take more output, when `also` holds.
    pub fn writable_too(mut self, also: bool) -> Watch {
        if also {
            self.0.events |= libc::POLLOUT;
        }
        self
    }

    /// Whether the last [`poll`] found it ready (or ended, or in error: a
    /// read or write then says which).
    pub fn ready(&self) -> bool {
        self.0.revents != 0
    }
}

/// Waits until one of `watches` is ready or `timeout` has passed (`None`:
/// no limit); how many are ready (0: the time ran out). A signal that cuts
/// the wait short is `Err` of kind `Interrupted`.
pub fn poll(watches: &mut [Watch], timeout: Option<Duration>) -> io::Result<usize> {
    // Round up so a wait never ends early; poll counts milliseconds.
    let ms = timeout.map_or(-1, |t| {
        t.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int
    });
    // SAFETY: `Watch` is a `repr(transparent)` pollfd, so the slice is one
    // of valid pollfds for the duration of the call.
    let n = unsafe {
        libc::poll(
            watches.as_mut_ptr().cast::<libc::pollfd>(),
            watches.len() as libc::nfds_t,
            ms,
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

/// Makes reads of `fd` (a pipe of ours) return at once when nothing is
/// there, so a read can look for data without a [`poll`] first.
pub fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on a descriptor the caller owns.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use std::time::Instant;

    #[test]
    fn waits_for_the_ready_one_and_no_longer_than_told() {
        let (mut a, b) = UnixStream::pair().unwrap();
        let (_c, d) = UnixStream::pair().unwrap();
        let mut watches = [
            Watch::readable(b.as_raw_fd()),
            Watch::readable(d.as_raw_fd()),
        ];
        let t = Instant::now();
        assert_eq!(
            poll(&mut watches, Some(Duration::from_millis(30))).unwrap(),
            0
        );
        assert!(t.elapsed() >= Duration::from_millis(30));
        a.write_all(b"x").unwrap();
        assert_eq!(poll(&mut watches, None).unwrap(), 1);
        assert!(watches[0].ready() && !watches[1].ready());
        // A negative descriptor is ignored; a writable socket is ready.
        let mut watches = [
            Watch::readable(-1),
            Watch::readable(d.as_raw_fd()).writable_too(true),
        ];
        assert_eq!(poll(&mut watches, Some(Duration::ZERO)).unwrap(), 1);
        assert!(!watches[0].ready() && watches[1].ready());
    }
}
