//! Believing a reverse proxy: who the client is, and how and under which name
//! it reached us, from `X-Forwarded-For`/`X-Forwarded-Proto` or the standard
//! `Forwarded` header (RFC 7239).
//!
//! Nothing here is believed unless the direct peer is a `--trusted-proxy`.
//! The hop list is walked from the right (the entry the peer appended) and the
//! walk stops at the first hop that is not itself a trusted proxy, so a client
//! cannot choose its address by sending a forged list: whatever it sends is
//! left of the entry its proxy appends.
//!
//! Only one family of headers is read (`--proxy-headers`): a proxy that sets
//! one family usually passes the other through from the client untouched, so
//! believing both would let a client forge the one its proxy ignores.

mod syntax;

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, header};
use ipnet::IpNet;

use syntax::{Hop, parse_forwarded, parse_node, valid_host};

use crate::http::context::{Origin, Scheme};

/// Which forwarding headers a trusted proxy sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ProxyHeaders {
    /// `X-Forwarded-For` and `X-Forwarded-Proto` (nginx, HAProxy, Traefik, Caddy).
    #[default]
    XForwarded,
    /// `Forwarded` (RFC 7239): `for=`, `proto=`, `host=`.
    Forwarded,
}

/// Whom to believe, and which headers.
#[derive(Debug, Clone, Default)]
pub struct ProxyConfig {
    /// Peers whose forwarding headers are believed.
    pub trusted: Vec<IpNet>,
    /// The header family those peers set.
    pub headers: ProxyHeaders,
}

impl ProxyConfig {
    /// Whether `ip` is a trusted proxy.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.trusted.iter().any(|net| net.contains(&ip))
    }
}

/// A connection's peer, as the requests on it see it; the server leaves it
/// in every request it routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The client's address: the TCP peer's, or the one a PROXY protocol
    /// header named.
    pub addr: SocketAddr,
    /// Whether the forwarding headers of requests on this connection may be
    /// believed (when `addr` is a trusted proxy). Not when a PROXY protocol
    /// header named no client (`UNKNOWN`, `LOCAL`): `addr` is then the
    /// proxy's own, but the bytes come from whoever the proxy passed on,
    /// untouched, headers included.
    pub vouches: bool,
}

impl Peer {
    /// A peer that is who it says: the TCP peer, or the client a PROXY
    /// protocol header named.
    pub fn direct(addr: SocketAddr) -> Self {
        Self {
            addr,
            vouches: true,
        }
    }

    /// A trusted proxy whose PROXY protocol header named no client: the
    /// requests count as its own, and their forwarding headers are ignored.
    pub fn unnamed(proxy: SocketAddr) -> Self {
        Self {
            addr: proxy,
            vouches: false,
        }
    }
}

/// Establishes the [`Origin`] of `request`, from its [`Peer`] and, when
/// that peer is a trusted proxy that vouches for them, its forwarding headers.
pub fn of_request(request: &axum::extract::Request, config: &ProxyConfig) -> Origin {
    of_peer(peer_in(request.extensions()), request.headers(), config)
}

/// The [`Peer`] the server left in a request's `extensions`; loopback
/// without one (a router called directly, as in unit tests).
pub fn peer_in(extensions: &axum::http::Extensions) -> Peer {
    extensions
        .get::<Peer>()
        .copied()
        .unwrap_or_else(|| Peer::direct(SocketAddr::from(([127, 0, 0, 1], 0))))
}

/// Establishes the [`Origin`] of a request from `peer`: [`resolve`], unless
/// the peer does not vouch for forwarding headers.
pub fn of_peer(peer: Peer, headers: &HeaderMap, config: &ProxyConfig) -> Origin {
    if !peer.vouches {
        return Origin {
            client: peer.addr.ip(),
            scheme: None,
            host: None,
        };
    }
    resolve(peer.addr.ip(), headers, config)
}

/// Establishes the [`Origin`] of a request from `peer`.
pub fn resolve(peer: IpAddr, headers: &HeaderMap, config: &ProxyConfig) -> Origin {
    let mut origin = Origin {
        client: peer,
        scheme: None,
        host: None,
    };
    if !config.trusts(peer) {
        return origin;
    }
    let hops = match config.headers {
        ProxyHeaders::XForwarded => x_forwarded_hops(headers),
        ProxyHeaders::Forwarded => forwarded_hops(headers).unwrap_or_default(),
    };
    // Walk from the right. Hop i was written by a proxy we trust (the peer,
    // or the hop to its right), so its proto and host are believed; its
    // `for` is believed too, and the walk goes on only while that is trusted.
    let mut scheme = None;
    let mut host = None;
    for hop in hops.iter().rev() {
        scheme = hop.proto.as_deref().and_then(Scheme::parse);
        host = hop.host.as_deref().filter(|h| valid_host(h));
        match hop.node.as_deref().and_then(parse_node) {
            Some(ip) => {
                origin.client = ip;
                if !config.trusts(ip) {
                    break;
                }
            }
            // `unknown`, an obfuscated name or garbage: the client stays the
            // trusted proxy that reported it.
            None => break,
        }
    }
    origin.scheme = match config.headers {
        ProxyHeaders::Forwarded => scheme,
        // Proxies set X-Forwarded-Proto rather than append to it: the value
        // the peer sent (the rightmost) is the one it vouches for.
        ProxyHeaders::XForwarded => {
            last_value(headers, "x-forwarded-proto").and_then(Scheme::parse)
        }
    };
    origin.host = host
        .or_else(|| {
            headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .filter(|h| valid_host(h))
        })
        .map(str::to_ascii_lowercase);
    origin
}

fn x_forwarded_hops(headers: &HeaderMap) -> Vec<Hop> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|node| Hop {
            node: Some(node.trim().to_owned()),
            ..Hop::default()
        })
        .collect()
}

/// The rightmost comma-separated value of a header, over all its lines.
fn last_value<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .rfind(|v| !v.is_empty())
}

/// The hops of all `Forwarded` lines, or `None` if any line is malformed
/// (then none of it is believed: the client is the peer).
fn forwarded_hops(headers: &HeaderMap) -> Option<Vec<Hop>> {
    let mut hops = Vec::new();
    for line in headers.get_all(header::FORWARDED) {
        parse_forwarded(line.to_str().ok()?, &mut hops)?;
    }
    Some(hops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::context::test_headers as headers;

    fn config(headers: ProxyHeaders) -> ProxyConfig {
        ProxyConfig {
            trusted: vec!["10.0.0.0/8".parse().unwrap(), "fd00::/8".parse().unwrap()],
            headers,
        }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// X-Forwarded-For is believed only from trusted peers, and only up to the first untrusted hop.
    #[test]
    fn x_forwarded_for_walks_from_the_right() {
        let config = config(ProxyHeaders::XForwarded);
        let h = headers(&[("x-forwarded-for", "6.6.6.6, 203.0.113.7, 10.0.0.9")]);
        assert_eq!(
            resolve(ip("10.0.0.5"), &h, &config).client,
            ip("203.0.113.7")
        );
        let stranger = ip("198.51.100.1");
        assert_eq!(resolve(stranger, &h, &config).client, stranger);
        assert_eq!(
            resolve(ip("10.0.0.5"), &HeaderMap::new(), &config).client,
            ip("10.0.0.5")
        );
        let garbage = headers(&[("x-forwarded-for", "garbage")]);
        assert_eq!(
            resolve(ip("10.0.0.5"), &garbage, &config).client,
            ip("10.0.0.5")
        );
        let nobody = ProxyConfig::default();
        assert_eq!(resolve(ip("10.0.0.5"), &h, &nobody).client, ip("10.0.0.5"));
        // Several header lines form one list; ports and brackets are tolerated.
        let split = headers(&[
            ("x-forwarded-for", "203.0.113.7:5555"),
            ("x-forwarded-for", "[fd00::1]:80"),
        ]);
        assert_eq!(
            resolve(ip("10.0.0.5"), &split, &config).client,
            ip("203.0.113.7")
        );
    }

    /// A trusted proxy whose PROXY header named no client vouches for no
    /// forwarding header: the client is the proxy itself.
    #[test]
    fn an_unnamed_peer_vouches_for_nothing() {
        let config = config(ProxyHeaders::XForwarded);
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.7"),
            ("x-forwarded-proto", "https"),
        ]);
        let proxy = SocketAddr::from(([10, 0, 0, 5], 40000));
        let unnamed = of_peer(Peer::unnamed(proxy), &h, &config);
        assert_eq!(
            unnamed,
            Origin {
                client: ip("10.0.0.5"),
                scheme: None,
                host: None
            }
        );
        let direct = of_peer(Peer::direct(proxy), &h, &config);
        assert_eq!(direct.client, ip("203.0.113.7"));
        assert_eq!(direct.scheme, Some(Scheme::Https));
    }

    /// X-Forwarded-Proto and Host are believed from a trusted peer and ignored from anyone else.
    #[test]
    fn x_forwarded_proto_and_host() {
        let config = config(ProxyHeaders::XForwarded);
        let h = headers(&[
            ("x-forwarded-proto", "https"),
            ("host", "Paste.Example.com"),
        ]);
        let origin = resolve(ip("10.0.0.5"), &h, &config);
        assert_eq!(origin.scheme, Some(Scheme::Https));
        assert_eq!(origin.host.as_deref(), Some("paste.example.com"));
        assert_eq!(
            origin.base_url("http://127.0.0.1:8000"),
            "https://paste.example.com"
        );
        let stranger = resolve(ip("198.51.100.1"), &h, &config);
        assert_eq!((stranger.scheme, stranger.host), (None, None));
        // The value the peer sent is the rightmost; unknown schemes are ignored.
        let two = headers(&[("x-forwarded-proto", "http, https")]);
        assert_eq!(
            resolve(ip("10.0.0.5"), &two, &config).scheme,
            Some(Scheme::Https)
        );
        let odd = headers(&[("x-forwarded-proto", "gopher")]);
        assert_eq!(resolve(ip("10.0.0.5"), &odd, &config).scheme, None);
        // The Forwarded header is not read in this mode.
        let other = headers(&[("forwarded", "for=203.0.113.7;proto=https")]);
        let origin = resolve(ip("10.0.0.5"), &other, &config);
        assert_eq!((origin.client, origin.scheme), (ip("10.0.0.5"), None));
    }

    /// Forwarded (RFC 7239): quoted IPv6 with ports, several hops, proto and host of the outermost trusted hop.
    #[test]
    fn forwarded_header() {
        let config = config(ProxyHeaders::Forwarded);
        let h = headers(&[(
            "forwarded",
            r#"for=6.6.6.6;proto=http, For="[2001:db8:cafe::17]:4711";Proto=HTTPS;host=paste.example.com, for="[fd00::3]";proto=http"#,
        )]);
        let origin = resolve(ip("10.0.0.5"), &h, &config);
        assert_eq!(origin.client, ip("2001:db8:cafe::17"));
        assert_eq!(origin.scheme, Some(Scheme::Https));
        assert_eq!(origin.host.as_deref(), Some("paste.example.com"));
        // Quoted IPv4 with a port; several lines; an element with several pairs.
        let lines = headers(&[
            ("forwarded", r#"for="192.0.2.43:47011""#),
            ("forwarded", "for=10.1.2.3;by=10.0.0.5"),
        ]);
        assert_eq!(
            resolve(ip("10.0.0.5"), &lines, &config).client,
            ip("192.0.2.43")
        );
        // X-Forwarded-For is not read in this mode.
        let xff = headers(&[("x-forwarded-for", "203.0.113.7")]);
        assert_eq!(
            resolve(ip("10.0.0.5"), &xff, &config).client,
            ip("10.0.0.5")
        );
    }

    /// Obfuscated and unknown nodes end the walk at the proxy that reported them, keeping its proto.
    #[test]
    fn forwarded_obfuscated_and_unknown() {
        let config = config(ProxyHeaders::Forwarded);
        for node in ["_hidden", "unknown", r#""_abc:_port""#] {
            let h = headers(&[(
                "forwarded",
                &format!("for={node};proto=https, for=10.9.9.9"),
            )]);
            let origin = resolve(ip("10.0.0.5"), &h, &config);
            assert_eq!(origin.client, ip("10.9.9.9"), "{node}");
            assert_eq!(origin.scheme, Some(Scheme::Https), "{node}");
        }
    }

    /// A malformed Forwarded header is ignored as a whole: the client is the trusted peer.
    #[test]
    fn forwarded_malformed() {
        let config = config(ProxyHeaders::Forwarded);
        for bad in [
            r#"for="203.0.113.7"#,
            "for=203.0.113.7;;",
            "for",
            "=1.2.3.4",
            "for=1.2.3.4 junk",
            "for=1.2.3.4;for=5.6.7.8",
            "for=[2001:db8::1]",
        ] {
            let h = headers(&[("forwarded", "for=203.0.113.9"), ("forwarded", bad)]);
            let origin = resolve(ip("10.0.0.5"), &h, &config);
            assert_eq!(origin.client, ip("10.0.0.5"), "{bad}");
        }
    }

    /// A Host a trusted proxy passes that could smuggle a path or markup into URLs is not used.
    #[test]
    fn malformed_host_is_ignored() {
        let config = config(ProxyHeaders::XForwarded);
        let h = headers(&[("host", "evil.example/<script>")]);
        assert_eq!(resolve(ip("10.0.0.5"), &h, &config).host, None);
    }

    /// Without forwarded information the default base is used as it is.
    #[test]
    fn base_url_defaults() {
        let origin = Origin {
            client: ip("10.0.0.5"),
            scheme: Some(Scheme::Https),
            host: None,
        };
        assert_eq!(
            origin.base_url("http://127.0.0.1:8000"),
            "https://127.0.0.1:8000"
        );
        let plain = Origin {
            scheme: None,
            ..origin
        };
        assert_eq!(
            plain.base_url("http://127.0.0.1:8000"),
            "http://127.0.0.1:8000"
        );
    }
}

/// Property tests of the forwarding headers (`X-Forwarded-*`, `Forwarded`),
/// which a client can send through a proxy that appends to them;
/// `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use axum::http::HeaderValue;
    use proptest::prelude::*;

    use super::*;

    /// A header value: printable text, or forwarding syntax with odd nodes.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            "[ -~]{0,80}",
            "((for|proto|host|by)=\"?[a-zA-Z0-9.:\\[\\]_-]{0,30}\"?[;,] ?){0,6}",
            "([0-9a-f.:\\[\\]]{0,40}, ?){0,6}",
        ]
    }

    proptest! {
        /// Any headers from a trusted peer give an origin without a panic:
        /// a host with no whitespace or control characters, and a base URL
        /// that is one line.
        #[test]
        fn fuzz_forwarded_headers(
            forwarded in value(), xff in value(), proto in value(), host in value(),
            rfc in any::<bool>(),
        ) {
            let config = ProxyConfig {
                trusted: vec!["0.0.0.0/0".parse().unwrap(), "::/0".parse().unwrap()],
                headers: if rfc { ProxyHeaders::Forwarded } else { ProxyHeaders::XForwarded },
            };
            let mut headers = HeaderMap::new();
            for (name, value) in [
                ("forwarded", &forwarded),
                ("x-forwarded-for", &xff),
                ("x-forwarded-proto", &proto),
                ("x-forwarded-host", &host),
            ] {
                if let Ok(value) = HeaderValue::from_str(value) {
                    headers.append(name, value);
                }
            }
            let origin = resolve("10.0.0.1".parse().unwrap(), &headers, &config);
            if let Some(host) = &origin.host {
                prop_assert!(!host.chars().any(|c| c.is_whitespace() || c.is_control()), "{host:?}");
            }
            let url = origin.base_url("http://127.0.0.1:8080");
            prop_assert!(!url.contains('\n'));
        }
    }
}
