//! Ports for helper processes that cannot bind port 0 and say which port
//! they got (nginx, Pebble, PostgreSQL), and a port where nothing listens.
//!
//! A port found free and handed to another process can be taken by someone
//! else before that process binds it. Ports here come from below the
//! kernel's ephemeral range, which it never hands out for port-0 binds or
//! outgoing connections, so only another explicit picker can collide; the
//! callers start their process again on fresh ports if its bind fails.

use std::net::{TcpListener, UdpSocket};
use std::sync::atomic::{AtomicU32, Ordering};

/// The lowest port handed out.
const FIRST: u32 = 10_000;

/// A loopback port (TCP and UDP) that is free now and that the kernel will
/// not give to anyone who asks for port 0.
pub fn free_port() -> u16 {
    static PICKED: AtomicU32 = AtomicU32::new(0);
    let span = ephemeral_start().saturating_sub(FIRST).max(1000);
    // Each test process starts at its own place, so concurrent runs rarely meet.
    let start = std::process::id().wrapping_mul(7919);
    loop {
        let n = PICKED.fetch_add(1, Ordering::Relaxed);
        let port = u16::try_from(FIRST + start.wrapping_add(n) % span).unwrap();
        if is_free(port) {
            return port;
        }
    }
}

/// A port where nothing listens, so a connection to it is refused at once:
/// the discard port, below 1024, which no test binds.
pub const NOWHERE: u16 = 9;

/// Whether both TCP and UDP port `port` can be bound on loopback now.
fn is_free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok() && UdpSocket::bind(("127.0.0.1", port)).is_ok()
}

/// The first port of the kernel's ephemeral range.
fn ephemeral_start() -> u32 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}
