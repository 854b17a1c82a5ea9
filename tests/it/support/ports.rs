//! Ports for helper processes that must be told their port up front.

/// A loopback port that was free a moment ago (for servers the test starts
/// itself, which must be told their port up front).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
