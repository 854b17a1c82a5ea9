//! Sending large pastes to clients that do not read: the memory responses
//! hold stays bounded (per client and in all), connections that take
//! nothing are closed by the send timeout, and other clients are served
//! meanwhile.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::data::XorShift;
use crate::support::wait::PATIENCE;
use crate::support::{Fetch, Server, client};

const MIB: u64 = 1 << 20;

/// Resident memory of process `pid` now, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap()
}

/// `len` bytes of random hex digits: text that zstd halves, so the store
/// keeps it compressed and a reader without zstd gets it decoded.
fn hex_text(len: usize) -> Vec<u8> {
    XorShift(0x5eed)
        .bytes(len)
        .into_iter()
        .map(|b| b"0123456789abcdef"[usize::from(b & 15)])
        .collect()
}

/// A connection with a 4 KiB receive buffer that asks for `path` as
/// `client` (behind the trusted proxy the test is) and then reads nothing.
async fn stalled_reader(addr: SocketAddr, path: &str, client: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let head = format!("GET {path} HTTP/1.1\r\nHost: snip\r\nX-Forwarded-For: {client}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// Reads what the server sent `stream` until it closes it: the status and
/// how many bytes came.
async fn drain(mut stream: TcpStream) -> (u16, usize) {
    let mut received = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut buf))
            .await
            .expect("the server never closed a stalled connection");
        match read {
            Ok(0) | Err(_) => break,
            Ok(n) if received.len() < 64 => received.extend_from_slice(&buf[..n]),
            Ok(n) => received.resize(received.len() + n, 0),
        }
    }
    let status = std::str::from_utf8(&received[9..12])
        .unwrap()
        .parse()
        .unwrap();
    (status, received.len())
}

/// 90 connections from three clients ask for a 6 MiB paste and read
/// nothing. The server's memory grows by far less than the bodies (before
/// streaming, each response held its whole body: 630 to 770 MiB in all;
/// now about 30 MiB, 50 on PostgreSQL, whose connections keep a buffer the
/// size of the largest row they read):
/// each client gets a few streamed responses within its share, the rest
/// `429`. Another client reads the whole paste meanwhile. Every stalled
/// connection is closed (the streamed ones by the send timeout, cut short),
/// and the shares are given back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_readers_hold_bounded_memory_and_are_closed() {
    let server = Server::start_with(&[
        "--send-timeout=5s",
        "--header-timeout=5s",
        "--trusted-proxy=127.0.0.1/32",
        "--max-connections-per-ip=0",
    ]);
    let body = hex_text(6 << 20);
    let (id, _) = server.create(body.clone(), "").await;
    let path = format!("/raw/{id}");
    let warm = client().get(server.at(&path)).fetch().await;
    assert_eq!(warm.bytes().await.unwrap().len(), body.len());
    let before = rss_kib(server.pid());

    let addr: SocketAddr = server.url.trim_start_matches("http://").parse().unwrap();
    let mut stalled = Vec::new();
    for n in 0..90 {
        let client = format!("10.0.0.{}", n % 3 + 1);
        stalled.push(stalled_reader(addr, &path, &client).await);
    }
    // Every request has its log line once it is answered (or streaming).
    assert!(server.wait_for_log_count("/raw/{id}", 91, PATIENCE));
    let held = rss_kib(server.pid()).saturating_sub(before);
    assert!(
        held < 96 * MIB / 1024,
        "90 stalled readers of a 6 MiB paste grew the server by {held} KiB"
    );

    // The streamed answers are the `200`s besides the warm read's.
    let streamed = server
        .log_text()
        .matches("route=\"/raw/{id}\" status=200")
        .count()
        - 1;
    assert!(streamed >= 3, "{streamed} streamed");

    let started = Instant::now();
    let other = client()
        .get(server.at(&path))
        .header("x-forwarded-for", "10.0.0.99")
        .fetch()
        .await;
    assert_eq!(other.status(), 200);
    assert!(
        other.bytes().await.unwrap() == body,
        "another client got a damaged body"
    );
    let other_took = started.elapsed();

    assert!(server.wait_for_log_count("(--send-timeout)", streamed, PATIENCE));
    let mut refused = 0;
    for stream in stalled {
        match drain(stream).await {
            (200, received) => {
                assert!(received < body.len(), "a stalled reader got the whole body")
            }
            (429, _) => refused += 1,
            (status, _) => panic!("a stalled reader got {status}"),
        }
    }
    assert_eq!(streamed + refused, 90);
    eprintln!(
        "90 stalled readers: {held} KiB held, {streamed} streamed, {refused} refused; \
         another client read the paste in {other_took:?}"
    );

    // The shares are back: a stalled client's next read is served.
    let again = client()
        .get(server.at(&path))
        .header("x-forwarded-for", "10.0.0.1")
        .fetch()
        .await;
    assert_eq!(again.status(), 200);
    assert_eq!(again.bytes().await.unwrap().len(), body.len());
}

/// A reader that takes its time but keeps reading is served whole: the
/// send timeout is between writes, not on the whole answer.
#[tokio::test]
async fn a_slow_but_steady_reader_is_served_whole() {
    let server = Server::start_with(&["--send-timeout=1s"]);
    let body = hex_text(2 << 20);
    let (id, _) = server.create(body.clone(), "").await;
    let addr: SocketAddr = server.url.trim_start_matches("http://").parse().unwrap();
    let mut stream = stalled_reader(addr, &format!("/raw/{id}"), "127.0.0.1").await;
    let mut received = 0;
    let mut buf = vec![0u8; 256 << 10];
    let started = Instant::now();
    // About 1 MiB a second: the whole answer takes longer than the timeout.
    while received < body.len() {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed after {received} bytes");
        received += n;
        tokio::time::sleep(Duration::from_millis(n as u64 / 1000)).await;
    }
    assert!(started.elapsed() > Duration::from_secs(1));
}
