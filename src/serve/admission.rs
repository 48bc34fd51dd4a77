//! How many connections a server takes at once: in all, and from one
//! client address, so that one client (a tab gone wild, or a "slowloris"
//! that holds connections open by trickling bytes) can't take every slot
//! and shut everyone else out. A connection beyond either limit is refused
//! with `503` at once; the request head's deadline (see
//! [`super::http::serve_requests`]) frees the slots of those that trickle.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};

/// The open connections, counted in all and by client.
pub struct Admission {
    total: usize,
    per_client: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    all: usize,
    by_client: HashMap<IpAddr, usize>,
}

/// Why a connection was not taken.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Every slot is taken.
    Full,
    /// Its client has as many open as one client may.
    ClientFull(usize),
}

impl Refused {
    /// What the refused client is told.
    pub fn text(&self) -> String {
        match self {
            Refused::Full => "too many connections; try again later\n".to_string(),
            Refused::ClientFull(n) => format!(
                "too many connections from your address (at most {n} at once); \
                 close some and try again\n"
            ),
        }
    }
}

/// A taken slot, given back when dropped.
pub struct Ticket {
    admission: Arc<Admission>,
    client: IpAddr,
}

/// The client a peer address counts as: an IPv4 address, or the /64 of an
/// IPv6 one (one machine usually holds a whole /64).
fn client_of(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = ip.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

impl Admission {
    /// At most `total` connections, `per_client` of them from one client.
    pub fn new(total: usize, per_client: usize) -> Arc<Admission> {
        Arc::new(Admission {
            total,
            per_client,
            open: Mutex::new(Open::default()),
        })
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a slot for a connection from `peer`, if both limits allow.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Ticket, Refused> {
        let client = client_of(peer);
        let mut open = self.open();
        if open.all >= self.total {
            return Err(Refused::Full);
        }
        let mine = open.by_client.entry(client).or_insert(0);
        if *mine >= self.per_client {
            return Err(Refused::ClientFull(self.per_client));
        }
        *mine += 1;
        open.all += 1;
        Ok(Ticket {
            admission: Arc::clone(self),
            client,
        })
    }

    /// Connections open now.
    pub fn count(&self) -> usize {
        self.open().all
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut open = self.admission.open();
        open.all -= 1;
        if let Some(n) = open.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.by_client.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_client_cannot_take_every_slot() {
        let a = Admission::new(5, 3);
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let mine: Vec<Ticket> = (0..3).map(|_| a.admit(ip("10.0.0.1")).unwrap()).collect();
        assert_eq!(a.admit(ip("10.0.0.1")).err(), Some(Refused::ClientFull(3)));
        // The same address mapped into IPv6 is the same client; another
        // address of the same /64 too.
        assert!(a.admit(ip("::ffff:10.0.0.1")).is_err());
        let other = a.admit(ip("2001:db8::1")).unwrap();
        let _b = a.admit(ip("10.0.0.2")).unwrap();
        assert_eq!(a.count(), 5);
        assert_eq!(a.admit(ip("10.0.0.3")).err(), Some(Refused::Full));
        drop(other);
        let _c = a.admit(ip("2001:db8::2")).unwrap();
        assert!(a.admit(ip("2001:db8::3")).is_err());
        drop(mine);
        assert_eq!(a.count(), 2);
        assert!(a.admit(ip("10.0.0.1")).is_ok());
    }
}
