//! Who counts as one client for the per-client limits (request rates, open
//! connections, request bodies in flight): an IPv4 address, or an IPv6
//! network `--ipv6-prefix` bits long, since one subscriber usually holds a
//! whole /64 and could otherwise be a fresh client per address.

use std::net::IpAddr;

/// The client `ip` belongs to: an IPv4 address (IPv4-mapped IPv6 ones
/// included) as it is, an IPv6 address cut to its first `ipv6_prefix` bits
/// (at most 128: one client per address).
pub fn client_net(ip: IpAddr, ipv6_prefix: u8) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let mask = u128::MAX
                .checked_shl(128 - u32::from(ipv6_prefix.min(128)))
                .unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ipv6_clients_are_networks() {
        assert_eq!(client_net(ip("192.0.2.7"), 64), ip("192.0.2.7"));
        assert_eq!(client_net(ip("::ffff:192.0.2.7"), 64), ip("192.0.2.7"));
        assert_eq!(client_net(ip("2001:db8::1"), 64), ip("2001:db8::"));
        assert_eq!(client_net(ip("2001:db8::1"), 128), ip("2001:db8::1"));
        assert_eq!(client_net(ip("2001:db8::1"), 0), ip("::"));
    }
}
