//! The PROXY protocol (HAProxy's, versions 1 and 2): a proxy that forwards
//! raw TCP (nginx `stream`, HAProxy `mode tcp`, cloud load balancers) starts
//! each connection with a header naming the real client.
//!
//! [`read_header`] runs on the bare [`TcpStream`] right after accept, before
//! HTTP or a TLS handshake, and consumes exactly the header, never a byte of
//! what follows, so whatever reads the stream next composes with it. Parsing
//! is `ppp`'s; this module only frames the bytes, checks who sent them and
//! bounds the time.
//!
//! The header is accepted only from `--trusted-proxy` peers, and with the
//! option on it is required: a connection without one, or with a malformed
//! one, is closed, because answering it would attribute a stranger's requests
//! to the proxy's address.

use std::net::SocketAddr;
use std::time::Duration;

use ppp::v2;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::net::TcpStream;

use crate::http::{Peer, ProxyConfig};

/// Why a connection was refused.
#[derive(Debug, thiserror::Error)]
pub enum ProxyProtocolError {
    /// The peer may not send a PROXY header.
    #[error("peer is not a --trusted-proxy")]
    Untrusted,
    /// The header did not arrive in time.
    #[error("no PROXY protocol header within {0:?}")]
    Timeout(Duration),
    /// The connection starts with something else.
    #[error("connection does not start with a PROXY protocol header")]
    Missing,
    /// The header is there but unreadable.
    #[error("malformed PROXY protocol header: {0}")]
    Malformed(String),
    /// The connection failed or closed while the header was read.
    #[error("reading the PROXY protocol header: {0}")]
    Io(#[from] std::io::Error),
}

/// The v2 signature (12 bytes).
const V2_SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";
/// The longest v1 header, CRLF included (the spec's limit).
const V1_MAX: usize = 107;
/// The shortest v1 header: `PROXY UNKNOWN\r\n`. Reading this much first can
/// never consume bytes past a header of either version.
const FIRST_READ: usize = 15;
/// The largest v2 header snip accepts (addresses plus generous TLVs).
const V2_MAX: usize = 16 + 2048;

/// Reads the PROXY header at the start of `stream` from `peer`, within
/// `timeout`, and returns the client it names; for `LOCAL`/`UNKNOWN`
/// connections (such as the proxy's own health checks) and those from no IP
/// address, `peer` itself, [unnamed](Peer::unnamed): whatever forwarding
/// headers come on such a connection were written by someone the proxy did
/// not vouch for.
pub async fn read_header(
    stream: &mut TcpStream,
    peer: SocketAddr,
    proxies: &ProxyConfig,
    timeout: Duration,
) -> Result<Peer, ProxyProtocolError> {
    if !proxies.trusts(peer.ip()) {
        return Err(ProxyProtocolError::Untrusted);
    }
    let header = tokio::time::timeout(timeout, read_raw(stream))
        .await
        .map_err(|_| ProxyProtocolError::Timeout(timeout))??;
    parse(&header, peer)
}

/// Reads exactly the header's bytes (generic so tests can read from memory).
async fn read_raw<S: AsyncRead + Unpin>(stream: &mut S) -> Result<Vec<u8>, ProxyProtocolError> {
    let mut buf = vec![0u8; FIRST_READ];
    stream.read_exact(&mut buf).await?;
    if buf.starts_with(b"PROXY ") {
        // v1 is a line: read it a byte at a time so nothing after CRLF is taken.
        while !buf.ends_with(b"\r\n") {
            if buf.len() >= V1_MAX {
                return Err(ProxyProtocolError::Malformed("v1 line too long".into()));
            }
            buf.push(stream.read_u8().await?);
        }
        return Ok(buf);
    }
    if buf[..12] != V2_SIGNATURE[..] {
        return Err(ProxyProtocolError::Missing);
    }
    // v2: 16 fixed bytes, the last two the length of what follows.
    buf.push(stream.read_u8().await?);
    let len = usize::from(u16::from_be_bytes([buf[14], buf[15]]));
    if 16 + len > V2_MAX {
        return Err(ProxyProtocolError::Malformed(format!(
            "v2 header of {len} bytes"
        )));
    }
    buf.resize(16 + len, 0);
    stream.read_exact(&mut buf[16..]).await?;
    Ok(buf)
}

/// The client a complete header names.
fn parse(header: &[u8], peer: SocketAddr) -> Result<Peer, ProxyProtocolError> {
    if header.starts_with(b"PROXY ") {
        let header = ppp::v1::Header::try_from(header)
            .map_err(|e| ProxyProtocolError::Malformed(e.to_string()))?;
        return Ok(match header.addresses {
            ppp::v1::Addresses::Tcp4(a) => named(a.source_address, a.source_port),
            ppp::v1::Addresses::Tcp6(a) => named(a.source_address, a.source_port),
            ppp::v1::Addresses::Unknown => Peer::unnamed(peer),
        });
    }
    let header =
        v2::Header::try_from(header).map_err(|e| ProxyProtocolError::Malformed(e.to_string()))?;
    if header.command == v2::Command::Local {
        return Ok(Peer::unnamed(peer));
    }
    Ok(match header.addresses {
        v2::Addresses::IPv4(a) => named(a.source_address, a.source_port),
        v2::Addresses::IPv6(a) => named(a.source_address, a.source_port),
        // A Unix socket or no address: the proxy is the best we know.
        v2::Addresses::Unix(_) | v2::Addresses::Unspecified => Peer::unnamed(peer),
    })
}

/// The client a header names by its address.
fn named(ip: impl Into<std::net::IpAddr>, port: u16) -> Peer {
    Peer::direct(SocketAddr::from((ip.into(), port)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer() -> SocketAddr {
        "10.0.0.1:40000".parse().unwrap()
    }

    fn v2_header(command: u8, family: u8, addresses: &[u8]) -> Vec<u8> {
        let mut h = V2_SIGNATURE.to_vec();
        h.push(0x20 | command);
        h.push(family);
        h.extend_from_slice(&u16::try_from(addresses.len()).unwrap().to_be_bytes());
        h.extend_from_slice(addresses);
        h
    }

    fn client(addr: &str) -> Peer {
        Peer::direct(addr.parse().unwrap())
    }

    /// v1 TCP4 and TCP6 headers name the client; UNKNOWN leaves the peer,
    /// which does not vouch for forwarding headers.
    #[test]
    fn v1() {
        let got = parse(b"PROXY TCP4 203.0.113.7 10.0.0.2 5555 80\r\n", peer()).unwrap();
        assert_eq!(got, client("203.0.113.7:5555"));
        let got = parse(b"PROXY TCP6 2001:db8::7 2001:db8::1 5555 80\r\n", peer()).unwrap();
        assert_eq!(got, client("[2001:db8::7]:5555"));
        assert_eq!(
            parse(b"PROXY UNKNOWN\r\n", peer()).unwrap(),
            Peer::unnamed(peer())
        );
        assert!(parse(b"PROXY TCP4 nonsense\r\n", peer()).is_err());
    }

    /// v2 PROXY headers name the client; LOCAL leaves the peer, which does
    /// not vouch for forwarding headers; a short address block is refused.
    #[test]
    fn v2() {
        let mut addresses = vec![203, 0, 113, 7, 10, 0, 0, 2];
        addresses.extend_from_slice(&5555u16.to_be_bytes());
        addresses.extend_from_slice(&80u16.to_be_bytes());
        let got = parse(&v2_header(1, 0x11, &addresses), peer()).unwrap();
        assert_eq!(got, client("203.0.113.7:5555"));
        assert_eq!(
            parse(&v2_header(0, 0x00, &[]), peer()).unwrap(),
            Peer::unnamed(peer())
        );
        assert!(parse(&v2_header(1, 0x11, &addresses[..6]), peer()).is_err());
    }
}

/// Property tests of the PROXY protocol reader and parser, which see the
/// first bytes of every connection from a trusted proxy; `bench/fuzz` runs
/// them long.
#[cfg(test)]
mod fuzz {
    use std::sync::LazyLock;

    use proptest::prelude::*;

    use super::*;

    static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    });

    /// Bytes that start like a v1 or v2 header more often than not.
    fn header_like() -> impl Strategy<Value = Vec<u8>> {
        let v1 = "PROXY (TCP4|TCP6|UNKNOWN)? ?[0-9a-f.:]{0,40} ?[0-9a-f.:]{0,40} ?[0-9]{0,6} ?[0-9]{0,6}(\\r\\n)?"
            .prop_map(String::into_bytes);
        let v2 = (
            any::<u8>(),
            any::<u8>(),
            0u16..300,
            proptest::collection::vec(any::<u8>(), 0..300),
        )
            .prop_map(|(command, family, len, rest)| {
                let mut h = V2_SIGNATURE.to_vec();
                h.extend_from_slice(&[command, family]);
                h.extend_from_slice(&len.to_be_bytes());
                h.extend_from_slice(&rest);
                h
            });
        prop_oneof![v1, v2, proptest::collection::vec(any::<u8>(), 0..120)]
    }

    proptest! {
        /// Any bytes give a client address or an error, never a panic, and
        /// the reader takes at most the largest header.
        #[test]
        fn fuzz_proxy_protocol(bytes in header_like()) {
            let peer: SocketAddr = "10.0.0.1:40000".parse().unwrap();
            let mut input = bytes.as_slice();
            let read = RUNTIME.block_on(read_raw(&mut input));
            prop_assert!(bytes.len() - input.len() <= V2_MAX);
            if let Ok(header) = read {
                let _ = parse(&header, peer);
            }
            let _ = parse(&bytes, peer);
        }
    }
}
