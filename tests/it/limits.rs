//! Limits against a real server: paste size (with and without Content-Length),
//! memory under a huge upload, the storage limit, slow clients, and shutdown
//! with idle connections.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::{Body, Frame};
use reqwest::Method;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{
    Fetch, Server, client,
    http::{create_json, get_bytes, read_response, read_until_closed},
};

/// A request body generated on the fly, never held in memory: `total` bytes in
/// chunks of one shared buffer, sent chunked (it has no known length).
struct Generated {
    remaining: u64,
    chunk: Bytes,
    /// How many bytes were handed to the client so far.
    produced: Arc<AtomicU64>,
}

impl Generated {
    fn new(total: u64, chunk_size: usize) -> (Self, Arc<AtomicU64>) {
        let produced = Arc::new(AtomicU64::new(0));
        let body = Self {
            remaining: total,
            chunk: Bytes::from(vec![b'x'; chunk_size]),
            produced: produced.clone(),
        };
        (body, produced)
    }
}

impl Body for Generated {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.remaining == 0 {
            return Poll::Ready(None);
        }
        let n = this.remaining.min(this.chunk.len() as u64);
        this.remaining -= n;
        this.produced.fetch_add(n, Ordering::Relaxed);
        Poll::Ready(Some(Ok(Frame::data(this.chunk.slice(..n as usize)))))
    }
}

/// The server's address, for raw TCP clients.
fn addr(server: &Server) -> String {
    server.url.trim_start_matches("http://").to_owned()
}

/// The server still creates and serves pastes.
async fn assert_serving(server: &Server) {
    let http = client();
    let json = create_json(&http, &server.url, "still here", "").await;
    let (status, body) = get_bytes(&http, json["raw_url"].as_str().unwrap()).await;
    assert_eq!((status, body.as_slice()), (200, b"still here".as_slice()));
}

/// Bodies over `--max-paste-size` get 413 (and `Connection: close`) whether they declare a Content-Length or arrive chunked; bodies at the limit pass, also on the same client right after.
#[tokio::test]
async fn oversized_bodies_get_413() {
    let server = Server::start_with(&["--max-paste-size=1KiB"]);
    let http = client();

    let response = server.post("/", vec![b'a'; 1025]).await;
    assert_eq!(response.status(), 413, "with Content-Length");
    // The body may be unread, so the connection must not be reused.
    assert_eq!(response.headers()["connection"], "close");
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("the limit of 1 KiB")
    );
    create_json(&http, &server.url, vec![b'a'; 1024], "").await;

    let (chunked, produced) = Generated::new(4096, 256);
    let response = server.post("/", reqwest::Body::wrap(chunked)).await;
    assert_eq!(response.status(), 413, "chunked");
    assert_eq!(response.headers()["connection"], "close");
    assert!(produced.load(Ordering::Relaxed) > 1024);
    let (at_limit, _) = Generated::new(1024, 100);
    create_json(&http, &server.url, reqwest::Body::wrap(at_limit), "").await;

    assert_serving(&server).await;
}

/// A 1 GiB chunked upload against the default 16 MiB limit is refused with the server's memory growing by less than 64 MiB.
#[tokio::test]
async fn huge_chunked_upload_is_refused_in_bounded_memory() {
    const GIB: u64 = 1 << 30;
    let server = Server::start();
    let before = server.peak_rss_kib();
    let (body, produced) = Generated::new(GIB, 64 * 1024);
    let outcome = client()
        .post(server.at("/"))
        .body(reqwest::Body::wrap(body))
        .send()
        .await;
    let sent = produced.load(Ordering::Relaxed);
    match outcome {
        Ok(response) => assert_eq!(response.status(), 413),
        // The server may close the connection while the client is still sending.
        Err(e) => eprintln!("upload ended with a client error: {e}"),
    }
    let peak = server.peak_rss_kib();
    eprintln!(
        "1 GiB upload: client produced {} MiB before the answer; server peak RSS {} KiB \
         ({} KiB before)",
        sent >> 20,
        peak,
        before
    );
    assert!(peak > 0, "could not read the server's VmHWM");
    // What the upload made the server hold, not what it held at start
    // (which grows with the binary and the store's indexes).
    assert!(
        peak.saturating_sub(before) < 64 * 1024,
        "server peak RSS {peak} KiB, {before} KiB before the upload"
    );
    assert!(
        sent < GIB,
        "the server read the whole 1 GiB before refusing it"
    );
    assert_serving(&server).await;
}

/// With `--max-storage=10KiB`, creates succeed up to the limit, then get 507 with a clear message, and work again after a delete.
#[tokio::test]
async fn storage_limit_507_until_something_is_deleted() {
    let server = Server::start_with(&["--max-storage=10KiB"]);
    let http = client();
    let mut created = Vec::new();
    for n in 0..10u8 {
        created.push(create_json(&http, &server.url, vec![b'a' + n; 1024], "").await);
    }
    let response = server.post("/", vec![b'z'; 1024]).await;
    assert_eq!(response.status(), 507);
    let message = response.text().await.unwrap();
    assert!(message.contains("storage limit"), "{message}");
    // Also in JSON, with a code to match on.
    let json: serde_json::Value = server
        .request(Method::POST, "/")
        .header("accept", "application/json")
        .body("one more byte")
        .fetch()
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(json["error"]["code"], "storage_full");

    let victim = &created[3];
    let deleted = server
        .delete(
            &format!("/{}", victim["id"].as_str().unwrap()),
            Some(victim["delete_token"].as_str().unwrap()),
        )
        .await;
    assert_eq!(deleted.status(), 204);
    create_json(&http, &server.url, vec![b'z'; 1024], "").await;
    let response = server.post("/", "x").await;
    assert_eq!(response.status(), 507, "full again");
}

/// Clients that send nothing or stop mid-headers are disconnected after `--header-timeout`, one that stops mid-body gets 408 after `--body-timeout`, and the server keeps serving.
#[tokio::test]
async fn slow_clients_are_cut_off() {
    let server = Server::start_with(&["--header-timeout=1s", "--body-timeout=1s"]);

    let mut silent = TcpStream::connect(addr(&server)).await.unwrap();
    let mut partial_headers = TcpStream::connect(addr(&server)).await.unwrap();
    partial_headers
        .write_all(b"POST / HTTP/1.1\r\nHost: snip\r\nContent-Type: text/plain\r\n")
        .await
        .unwrap();
    let mut partial_body = TcpStream::connect(addr(&server)).await.unwrap();
    partial_body
        .write_all(b"POST / HTTP/1.1\r\nHost: snip\r\nContent-Length: 100\r\n\r\n0123456789")
        .await
        .unwrap();

    let started = Instant::now();
    let (silent_outcome, headers_outcome, body_outcome) = tokio::join!(
        read_until_closed(&mut silent, Duration::from_secs(5)),
        read_until_closed(&mut partial_headers, Duration::from_secs(5)),
        read_until_closed(&mut partial_body, Duration::from_secs(5)),
    );
    eprintln!(
        "the slow clients were all answered within {:?}",
        started.elapsed()
    );
    for (what, outcome) in [
        ("a client that never sent a byte", silent_outcome),
        ("a client stuck in its headers", headers_outcome),
    ] {
        let received = outcome.unwrap_or_else(|| panic!("{what} was never disconnected"));
        eprintln!("{what} got {:?}", String::from_utf8_lossy(&received));
        assert!(
            received.is_empty() || received.starts_with(b"HTTP/1.1 408"),
            "{what}: {}",
            String::from_utf8_lossy(&received)
        );
    }
    let received = body_outcome.expect("a client stuck in its body was never answered");
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("did not arrive within 1 s"), "{text}");
    assert!(text.contains("connection: close"), "{text}");

    assert_serving(&server).await;
}

/// On a kept-alive connection the header deadline starts again for every
/// request: a request whose body takes longer than `--header-timeout` (but
/// arrives within `--body-timeout`) is answered and the connection stays
/// usable, and a next request that stalls in its headers is cut off
/// `--header-timeout` after the answer before it.
#[tokio::test]
async fn the_header_deadline_starts_again_for_each_request() {
    let server = Server::start_with(&["--header-timeout=1s", "--body-timeout=5s"]);
    let mut conn = TcpStream::connect(addr(&server)).await.unwrap();

    // A body trickled over 1.5 s: longer than the header timeout.
    conn.write_all(b"POST / HTTP/1.1\r\nHost: snip\r\nContent-Length: 6\r\n\r\nabc")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    conn.write_all(b"def").await.unwrap();
    let (status, url) = read_response(&mut conn).await;
    assert_eq!(status, 201, "{url}");

    // The same connection, well within the header timeout of the last
    // answer (and so long after the first request's headers): a short pause
    // leaves a busy machine most of that second.
    tokio::time::sleep(Duration::from_millis(200)).await;
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: snip\r\n\r\n")
        .await
        .unwrap();
    assert_eq!(read_response(&mut conn).await, (200, "ok\n".to_owned()));

    // Then a request that stops in its headers: cut off about a second later.
    let answered = Instant::now();
    tokio::time::sleep(Duration::from_millis(600)).await;
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: snip\r\n")
        .await
        .unwrap();
    let rest = read_until_closed(&mut conn, Duration::from_secs(5))
        .await
        .expect("a client stuck in its second request's headers was never disconnected");
    let waited = answered.elapsed();
    assert!(
        rest.is_empty() || rest.starts_with(b"HTTP/1.1 408"),
        "{}",
        String::from_utf8_lossy(&rest)
    );
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(3),
        "cut off {waited:?} after the last answer"
    );
    assert_serving(&server).await;
}

/// SIGTERM with an idle keep-alive connection (and one that never sent a byte) open still exits cleanly within the grace period.
#[tokio::test]
async fn idle_connections_do_not_block_shutdown() {
    // A long header timeout, so that only shutdown can end the idle connections.
    let mut server = Server::start_with(&["--header-timeout=5m"]);
    let mut idle = TcpStream::connect(addr(&server)).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: snip\r\n\r\n")
        .await
        .unwrap();
    let mut response = Vec::new();
    let mut buf = [0u8; 1024];
    while !response.ends_with(b"ok\n") {
        let n = idle.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed before answering");
        response.extend_from_slice(&buf[..n]);
    }
    assert!(response.starts_with(b"HTTP/1.1 200"));
    let mut silent = TcpStream::connect(addr(&server)).await.unwrap();
    // Let the server accept both before the signal.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let started = Instant::now();
    let clean = server.terminate();
    let took = started.elapsed();
    eprintln!("shutdown with idle connections took {took:?}");
    assert!(clean, "snip did not exit cleanly:\n{}", server.log_text());
    // The grace-period warning would come before the last line; wait for that one.
    assert!(
        server.wait_for_log("snip stopped"),
        "no final log line:\n{}",
        server.log_text()
    );
    assert!(
        !server.log_text().contains("did not finish"),
        "shutdown waited out its grace period:\n{}",
        server.log_text()
    );
    // The server's grace period is 10 s; terminate() would wait up to 20.
    assert!(took < Duration::from_secs(10), "shutdown took {took:?}");
    for stream in [&mut idle, &mut silent] {
        let rest = read_until_closed(stream, Duration::from_secs(1)).await;
        assert!(rest.is_some(), "a connection stayed open after exit");
    }
}

/// The soft and hard "Max open files" of a process, from `/proc/PID/limits`.
fn open_files_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap()
        .to_owned();
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[3].to_owned(), fields[4].to_owned())
}

/// A server started under a low soft limit on open files raises it to the
/// hard limit, so connections and body segments are not capped at 1,024.
#[test]
fn the_open_files_limit_is_raised_to_the_hard_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let Some(hard) = limit.maximum else {
        eprintln!("skipped: no hard limit on open files here");
        return;
    };
    // Lowered for this test process, so the server starts below its hard
    // limit. Every test shares the process: servers other tests start
    // meanwhile get the lowered limit too (and raise it the same way), and
    // the limit is restored once the server has started.
    let lowered = (hard / 2).max(512);
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(lowered),
            maximum: Some(hard),
        },
    )
    .unwrap();
    let server = Server::start();
    assert_eq!(
        open_files_limits(std::process::id()).0,
        lowered.to_string(),
        "the test process itself kept its lowered limit"
    );
    setrlimit(Resource::Nofile, limit).unwrap();
    let (soft, max) = open_files_limits(server.pid());
    assert_eq!(soft, max, "soft limit not raised: {soft} of {max}");
    assert_eq!(max, hard.to_string());
}

/// One client may hold `--max-connections-per-ip` connections: one more is
/// closed without an answer, and is served again once one of the others
/// has closed.
#[tokio::test]
async fn connections_per_client_are_limited() {
    let server = Server::start_with(&["--max-connections-per-ip=3"]);
    let address = server.url.trim_start_matches("http://").to_owned();
    let request = b"GET /healthz HTTP/1.1\r\nHost: snip\r\n\r\n";
    let open = || async {
        let mut stream = TcpStream::connect(&address).await.unwrap();
        stream.write_all(request).await.unwrap();
        stream
    };
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = open().await;
        // Answered: the connection is counted.
        assert_eq!(read_response(&mut stream).await.0, 200);
        held.push(stream);
    }
    let mut refused = open().await;
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(10), refused.read(&mut buf))
        .await
        .expect("closed within 10 s");
    assert!(
        matches!(read, Ok(0) | Err(_)),
        "the 4th connection was answered"
    );
    held.pop();
    assert!(
        crate::support::wait::eventually(|| async {
            let mut stream = open().await;
            let mut buf = [0u8; 12];
            stream.read_exact(&mut buf).await.is_ok() && buf.starts_with(b"HTTP/1.1 200")
        })
        .await
    );
}
