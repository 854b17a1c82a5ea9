//! The per-client connection limit (`--max-connections-per-ip`): one client
//! cannot hold every connection (and so every file descriptor and every
//! header timer) of the server, however slowly it sends.
//!
//! A client is its address after the PROXY protocol header, if any; IPv6
//! addresses count by network (`--ipv6-prefix`), as the rate limits do.
//! Trusted HTTP proxies are not limited when they carry many clients over
//! their own connections (without the PROXY protocol).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use ipnet::IpNet;

use crate::http::client_net::client_net;

/// Open connections per client, bounded.
#[derive(Debug)]
pub struct ConnLimit {
    max: usize,
    ipv6_prefix: u8,
    /// Peers never limited: trusted proxies.
    exempt: Vec<IpNet>,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection of a client, counted until dropped.
#[derive(Debug)]
pub struct ConnSlot {
    limit: Option<(Arc<ConnLimit>, IpAddr)>,
}

impl ConnLimit {
    /// At most `max` connections per client; `exempt` peers are not counted.
    pub fn new(max: usize, ipv6_prefix: u8, exempt: Vec<IpNet>) -> Self {
        Self {
            max,
            ipv6_prefix: ipv6_prefix.min(128),
            exempt,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a new connection from `ip`, or `None` if its client has
    /// `max` open already.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<ConnSlot> {
        let ip = ip.to_canonical();
        if self.exempt.iter().any(|net| net.contains(&ip)) {
            return Some(ConnSlot { limit: None });
        }
        let client = client_net(ip, self.ipv6_prefix);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(client).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(ConnSlot {
            limit: Some((self.clone(), client)),
        })
    }

    fn release(&self, client: IpAddr) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = open.get_mut(&client) {
            *count -= 1;
            if *count == 0 {
                open.remove(&client);
            }
        }
    }
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        if let Some((limit, client)) = self.limit.take() {
            limit.release(client);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client gets `max` connections, one more once one closes; other
    /// clients and exempt peers are not affected; an IPv6 network counts
    /// as one client.
    #[test]
    fn connections_are_counted_per_client() {
        let limit = Arc::new(ConnLimit::new(2, 64, vec!["10.0.0.0/8".parse().unwrap()]));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let first = limit.admit(a).unwrap();
        let _second = limit.admit(a).unwrap();
        assert!(limit.admit(a).is_none());
        assert!(limit.admit("192.0.2.2".parse().unwrap()).is_some());
        let proxy: IpAddr = "10.1.2.3".parse().unwrap();
        let held: Vec<_> = (0..5).map(|_| limit.admit(proxy).unwrap()).collect();
        drop(first);
        assert!(limit.admit(a).is_some());
        let v6 = |s: &str| s.parse::<IpAddr>().unwrap();
        let _x = limit.admit(v6("2001:db8::1")).unwrap();
        let _y = limit.admit(v6("2001:db8::2")).unwrap();
        assert!(limit.admit(v6("2001:db8::3")).is_none());
        assert!(limit.admit(v6("2001:db8:1::1")).is_some());
        drop(held);
        assert_eq!(
            limit.open.lock().unwrap().len(),
            2,
            "closed clients are forgotten"
        );
    }
}
