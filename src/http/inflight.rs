//! Bytes held in memory for clients, bounded server-wide and per client
//! (clients grouped as [`client_net`] says). The server keeps two such
//! bounds: request bodies while they arrive (`--max-inflight-bytes`,
//! `--max-inflight-bytes-per-ip`) and large pastes on their way out
//! (`--max-response-bytes`, `--max-response-bytes-per-ip`, see `outbound`).
//!
//! A body reserves its bytes as they arrive, never what it declares: a
//! connection that announces 16 MiB and sends nothing holds nothing, so idle
//! uploads cannot lock others out. A client's share keeps one client (one
//! IP, one IPv6 network) from taking the whole bound with many slow uploads
//! or stalled downloads.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use crate::http::client_net::client_net;

/// Bytes held in memory for clients, per client and in all.
#[derive(Debug)]
pub struct InflightBytes {
    /// The most bytes held at once, across all clients.
    max: u64,
    /// The most bytes one client may hold at once.
    share: u64,
    /// The IPv6 prefix length that makes one client.
    ipv6_prefix: u8,
    held: Mutex<Held>,
}

/// What is held: in all, and by each client holding anything.
#[derive(Debug, Default)]
struct Held {
    total: u64,
    clients: HashMap<IpAddr, u64>,
}

/// Why a reservation may not hold more bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InflightRefusal {
    /// The client's own reservations hold its whole share.
    #[error(
        "your uploads in flight passed this server's limit of {} per client; \
         retry once they are done",
        crate::core::units::format_size(*share)
    )]
    OverShare {
        /// The client's share, in bytes.
        share: u64,
    },
    /// Every byte the server may hold is held.
    #[error("the server is receiving too many pastes at once; retry in a moment")]
    Busy,
}

/// The bytes one body holds, given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    counter: Arc<InflightBytes>,
    client: IpAddr,
    bytes: u64,
}

impl InflightBytes {
    /// A counter of at most `max` bytes in all and `share` per client,
    /// IPv6 clients counted by networks of `ipv6_prefix` bits.
    pub fn new(max: u64, share: u64, ipv6_prefix: u8) -> Self {
        Self {
            max,
            share,
            ipv6_prefix,
            held: Mutex::new(Held::default()),
        }
    }

    /// An empty reservation for a body from or to `ip`, to grow as its
    /// bytes arrive.
    pub fn reservation(self: &Arc<Self>, ip: IpAddr) -> Reservation {
        Reservation {
            counter: Arc::clone(self),
            client: client_net(ip, self.ipv6_prefix),
            bytes: 0,
        }
    }

    /// The bytes held in all, and by `ip`'s client.
    #[cfg(test)]
    fn held(&self, ip: IpAddr) -> (u64, u64) {
        let held = self.lock();
        let client = client_net(ip, self.ipv6_prefix);
        (held.total, held.clients.get(&client).copied().unwrap_or(0))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Reservation {
    /// Holds `bytes` more, if the client's share and the server's bound have
    /// room. A body that is all its client holds may pass the share, and one
    /// that is all the server holds may pass the bound, so a paste the size
    /// limits allow can always be sent, one at a time.
    pub fn grow(&mut self, bytes: u64) -> Result<(), InflightRefusal> {
        let counter = Arc::clone(&self.counter);
        let mut held = counter.lock();
        let mine = held.clients.get(&self.client).copied().unwrap_or(0);
        let client_total = mine.saturating_add(bytes);
        if client_total > counter.share && mine > self.bytes {
            return Err(InflightRefusal::OverShare {
                share: counter.share,
            });
        }
        let total = held.total.saturating_add(bytes);
        if total > counter.max && held.total > self.bytes {
            return Err(InflightRefusal::Busy);
        }
        held.total = total;
        held.clients.insert(self.client, client_total);
        self.bytes += bytes;
        Ok(())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.bytes == 0 {
            return;
        }
        let mut held = self.counter.lock();
        held.total = held.total.saturating_sub(self.bytes);
        if let Some(mine) = held.clients.get_mut(&self.client) {
            *mine = mine.saturating_sub(self.bytes);
            if *mine == 0 {
                held.clients.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// Bytes are held as they are reserved and given back on drop; a client
    /// past its share is refused while others still have room; the bound
    /// refuses everyone.
    #[test]
    fn shares_and_bound() {
        let counter = Arc::new(InflightBytes::new(100, 40, 64));
        let (a, b, c) = (ip("192.0.2.1"), ip("192.0.2.2"), ip("192.0.2.3"));
        let mut a1 = counter.reservation(a);
        let mut a2 = counter.reservation(a);
        a1.grow(30).unwrap();
        a2.grow(10).unwrap();
        assert_eq!(
            a2.grow(1),
            Err(InflightRefusal::OverShare { share: 40 }),
            "a's share is held"
        );
        let mut b1 = counter.reservation(b);
        b1.grow(40).unwrap();
        let mut c1 = counter.reservation(c);
        c1.grow(20).unwrap();
        assert_eq!(c1.grow(1), Err(InflightRefusal::Busy), "the bound is held");
        assert_eq!(counter.held(a), (100, 40));
        drop(a1);
        c1.grow(20).unwrap();
        drop((a2, b1, c1));
        assert_eq!(counter.held(a), (0, 0));
        assert!(counter.lock().clients.is_empty(), "clients are forgotten");
    }

    /// A body alone may pass its client's share, and alone on the server
    /// pass the bound; an IPv6 network is one client.
    #[test]
    fn one_body_alone_may_pass_the_limits() {
        let counter = Arc::new(InflightBytes::new(100, 40, 64));
        let mut big = counter.reservation(ip("2001:db8::1"));
        big.grow(150).unwrap();
        let mut neighbour = counter.reservation(ip("2001:db8::2"));
        assert_eq!(
            neighbour.grow(1),
            Err(InflightRefusal::OverShare { share: 40 })
        );
        let mut other = counter.reservation(ip("2001:db8:1::1"));
        assert_eq!(other.grow(1), Err(InflightRefusal::Busy));
        drop(big);
        neighbour.grow(40).unwrap();
    }
}
