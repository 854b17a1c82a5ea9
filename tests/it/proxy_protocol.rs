//! `--proxy-protocol`: real v1 and v2 headers written over a raw TCP socket
//! before HTTP, and what happens when they are missing, malformed, late or
//! sent by a stranger.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, TcpStream};
use std::time::{Duration, Instant};

use crate::support::Server;

/// A server that requires PROXY headers from 127.0.0.1 and allows each client one request.
fn start() -> Server {
    Server::start_with(&[
        "--proxy-protocol",
        "--trusted-proxy=127.0.0.1/32",
        "--ip-rate=1/h",
        "--ip-burst=1",
    ])
}

fn connect(server: &Server) -> TcpStream {
    let stream = TcpStream::connect(server.url.trim_start_matches("http://")).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// Writes `prefix` then one `GET /` (closing the connection) and returns the response's status,
/// or `None` when the server closed the connection without answering.
fn get_after(server: &Server, prefix: &[u8]) -> Option<u16> {
    let mut stream = connect(server);
    stream.write_all(prefix).unwrap();
    let _ = stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    status_of(&read_all(&mut stream))
}

fn read_all(stream: &mut TcpStream) -> Vec<u8> {
    let mut response = Vec::new();
    // A reset (the server dropped a socket with unread bytes) counts as "nothing".
    let _ = stream.read_to_end(&mut response);
    response
}

fn status_of(response: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(response).ok()?;
    text.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()
}

fn v1(client: &str) -> Vec<u8> {
    let family = if client.contains(':') { "TCP6" } else { "TCP4" };
    let server = if client.contains(':') {
        "::1"
    } else {
        "127.0.0.1"
    };
    format!("PROXY {family} {client} {server} 40000 8000\r\n").into_bytes()
}

/// A v2 header (version 2, `command`, TCP over the family of `source`), with a NOOP TLV.
fn v2(command: u8, source: Option<std::net::IpAddr>) -> Vec<u8> {
    let mut body = Vec::new();
    let family = match source {
        Some(std::net::IpAddr::V4(ip)) => {
            body.extend_from_slice(&ip.octets());
            body.extend_from_slice(&Ipv4Addr::LOCALHOST.octets());
            0x11
        }
        Some(std::net::IpAddr::V6(ip)) => {
            body.extend_from_slice(&ip.octets());
            body.extend_from_slice(&Ipv6Addr::LOCALHOST.octets());
            0x21
        }
        None => 0x00,
    };
    if source.is_some() {
        body.extend_from_slice(&40000u16.to_be_bytes());
        body.extend_from_slice(&8000u16.to_be_bytes());
    }
    body.extend_from_slice(&[0x04, 0x00, 0x02, 0xaa, 0xbb]); // PP2_TYPE_NOOP
    let mut header = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    header.push(0x20 | command);
    header.push(family);
    header.extend_from_slice(&u16::try_from(body.len()).unwrap().to_be_bytes());
    header.extend_from_slice(&body);
    header
}

/// v1 headers (TCP4 and TCP6) replace the peer address: each named client has its own rate bucket.
#[test]
fn v1_header_names_the_client() {
    let server = start();
    assert_eq!(get_after(&server, &v1("203.0.113.7")), Some(200));
    assert_eq!(get_after(&server, &v1("203.0.113.7")), Some(429));
    assert_eq!(get_after(&server, &v1("203.0.113.8")), Some(200));
    assert_eq!(get_after(&server, &v1("2001:db8::9")), Some(200));
    assert_eq!(get_after(&server, &v1("2001:db8::9")), Some(429));
    // UNKNOWN (a proxy's own health check) is the proxy itself.
    assert_eq!(get_after(&server, b"PROXY UNKNOWN\r\n"), Some(200));
    assert_eq!(get_after(&server, b"PROXY UNKNOWN\r\n"), Some(429));
}

/// v2 headers (IPv4, IPv6, with a TLV) name the client; LOCAL is the proxy itself.
#[test]
fn v2_header_names_the_client() {
    let server = start();
    let v4 = Some("203.0.113.7".parse().unwrap());
    let v6 = Some("2001:db8::7".parse().unwrap());
    assert_eq!(get_after(&server, &v2(1, v4)), Some(200));
    assert_eq!(get_after(&server, &v2(1, v4)), Some(429));
    assert_eq!(get_after(&server, &v2(1, v6)), Some(200));
    assert_eq!(get_after(&server, &v2(1, v6)), Some(429));
    assert_eq!(get_after(&server, &v2(0, None)), Some(200));
    assert_eq!(get_after(&server, &v2(0, None)), Some(429));
}

/// UNKNOWN (v1) and LOCAL (v2) name no client: the connection counts as the
/// trusted proxy's own, but the bytes on it come from whoever the proxy
/// passed on, so their X-Forwarded-For is not believed. Two requests that
/// claim different addresses share the proxy's rate bucket, on the router
/// (`GET /`) and on a hot route (`GET /raw/…`) alike.
#[test]
fn unknown_and_local_headers_do_not_make_forwarding_headers_trusted() {
    for header in [b"PROXY UNKNOWN\r\n".to_vec(), v2(0, None)] {
        let server = start();
        for (path, forged, expected) in [
            ("/", "203.0.113.1", 200),
            ("/", "203.0.113.2", 429),
            ("/raw/AAAAAAAAAAAAA", "203.0.113.3", 429),
        ] {
            let mut stream = connect(&server);
            stream.write_all(&header).unwrap();
            let request = format!(
                "GET {path} HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: {forged}\r\nConnection: close\r\n\r\n"
            );
            stream.write_all(request.as_bytes()).unwrap();
            let response = read_all(&mut stream);
            assert_eq!(
                status_of(&response),
                Some(expected),
                "{path} as {forged}: {}",
                String::from_utf8_lossy(&response)
            );
        }
    }
}

/// One header serves every request of a kept-alive connection, the rest of the bytes untouched.
#[test]
fn header_once_per_connection_with_keep_alive() {
    let server = Server::start_with(&["--proxy-protocol", "--trusted-proxy=127.0.0.1/32"]);
    let mut stream = connect(&server);
    let mut bytes = v2(1, Some("203.0.113.7".parse().unwrap()));
    bytes.extend_from_slice(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    bytes.extend_from_slice(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    stream.write_all(&bytes).unwrap();
    let text = String::from_utf8(read_all(&mut stream)).unwrap();
    assert_eq!(text.matches("HTTP/1.1 200 OK").count(), 2, "{text}");
}

/// Connections without a header, or with a malformed one, are closed unanswered; good ones still work.
#[test]
fn missing_or_malformed_header_closes_the_connection() {
    let server = start();
    let mut bad_version = v2(1, Some("203.0.113.7".parse().unwrap()));
    bad_version[12] = 0x31;
    let mut short_addresses = v2(1, Some("203.0.113.7".parse().unwrap()));
    short_addresses[15] = 4; // claims 4 bytes: too few for two IPv4 addresses and ports
    short_addresses.truncate(16 + 4);
    let long_line = format!("PROXY TCP4 {}\r\n", "1".repeat(120));
    for (what, prefix) in [
        ("no header", &b""[..]),
        ("bad v1", b"PROXY TCP4 nonsense here\r\n"),
        ("v1 without CRLF", long_line.as_bytes()),
        ("v1 bad address", b"PROXY TCP4 300.1.1.1 127.0.0.1 1 2\r\n"),
        ("v2 bad version", &bad_version),
        ("v2 short addresses", &short_addresses),
    ] {
        assert_eq!(get_after(&server, prefix), None, "{what}");
    }
    assert_eq!(get_after(&server, &v1("203.0.113.7")), Some(200));
    assert!(
        server.wait_for_log("does not start with a PROXY protocol header"),
        "{}",
        server.log_text()
    );
    assert!(server.log_text().contains("refused a connection"));
}

/// A valid header from a peer that is not a trusted proxy is refused.
#[test]
fn untrusted_peer_is_refused() {
    let server = Server::start_with(&["--proxy-protocol", "--trusted-proxy=10.0.0.0/8"]);
    assert_eq!(get_after(&server, &v1("203.0.113.7")), None);
    assert!(
        server.wait_for_log("peer is not a --trusted-proxy"),
        "{}",
        server.log_text()
    );
}

/// A connection that never finishes its header is closed after --header-timeout.
#[test]
fn slow_header_times_out() {
    let server = Server::start_with(&[
        "--proxy-protocol",
        "--trusted-proxy=127.0.0.1/32",
        "--header-timeout=1s",
    ]);
    let mut stream = connect(&server);
    stream.write_all(b"PROXY TCP4 203.0.113.7").unwrap();
    let started = Instant::now();
    assert!(read_all(&mut stream).is_empty());
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

/// The client a PROXY header names is the peer for forwarding headers too: a stranger's X-Forwarded-* is ignored.
#[test]
fn forwarding_headers_judged_by_the_proxied_client() {
    let server = Server::start_with(&["--proxy-protocol", "--trusted-proxy=127.0.0.1/32"]);
    let mut stream = connect(&server);
    let mut bytes = v1("203.0.113.7");
    bytes.extend_from_slice(
        b"POST / HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Proto: https\r\n\
          Content-Length: 5\r\nConnection: close\r\n\r\nhello",
    );
    stream.write_all(&bytes).unwrap();
    let text = String::from_utf8(read_all(&mut stream)).unwrap();
    assert_eq!(status_of(text.as_bytes()), Some(201), "{text}");
    let url = text.lines().last().unwrap();
    assert!(url.starts_with(&format!("{}/", server.url)), "{text}");
}
