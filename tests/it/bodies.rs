//! Request bodies from hostile clients, on every route that reads one
//! (creates, the sign-in form, admin requests): bytes in flight are held as
//! they arrive, within `--max-inflight-bytes` and each client's share of it
//! (`--max-inflight-bytes-per-ip`), and a body that does not start within
//! `--body-first-byte-timeout`, falls below `--body-min-rate` or is not whole
//! within `--body-timeout` is cut with `408`.
//!
//! A client is a source address: any 127.0.0.0/8 address is loopback on
//! Linux, so connections from 127.0.0.2 and 127.0.0.3 are different clients
//! to the server.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::http::{client_from, read_until_closed};
use crate::support::wait::{PATIENCE, eventually};
use crate::support::{Fetch, Server, tenants};

/// A raw connection to `server` from the loopback address `local`.
async fn connect_from(server: &Server, local: &str) -> TcpStream {
    let address: SocketAddr = server.url.trim_start_matches("http://").parse().unwrap();
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(local.parse().unwrap(), 0))
        .unwrap();
    socket.connect(address).await.unwrap()
}

/// A create of `body` from `local`.
async fn create_from(server: &Server, local: &str, body: Vec<u8>) -> reqwest::Response {
    client_from(local)
        .post(server.at("/"))
        .body(body)
        .fetch()
        .await
}

/// The status of a create of `body` from `local`.
async fn create_status(server: &Server, local: &str, body: Vec<u8>) -> StatusCode {
    create_from(server, local, body).await.status()
}

/// The message of `refused`, a refusal for lack of room: `status`, with
/// `Retry-After: 1`, closing the connection.
async fn no_room(refused: reqwest::Response, status: StatusCode) -> String {
    assert_eq!(refused.status(), status);
    assert_eq!(refused.headers()["retry-after"], "1");
    assert_eq!(refused.headers()["connection"], "close");
    refused.text().await.unwrap()
}

/// Opens an upload from `local` declaring `length` bytes and sends `sent`
/// of them; returns once the server has begun reading the body (it answers
/// the request's `Expect: 100-continue` when it first asks for the body).
async fn held_upload(server: &Server, local: &str, length: usize, sent: usize) -> TcpStream {
    let mut stream = connect_from(server, local).await;
    let head = format!(
        "POST / HTTP/1.1\r\nHost: snip\r\nContent-Length: {length}\r\n\
         Expect: 100-continue\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    while !answer.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut byte))
            .await
            .expect("an interim answer");
        assert_eq!(read.unwrap(), 1, "closed instead of 100 Continue");
        answer.push(byte[0]);
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 100"), "{answer}");
    stream.write_all(&vec![b'x'; sent]).await.unwrap();
    stream
}

/// Four connections from one client that declare 16 MiB uploads and send
/// nothing hold no room: another client's create is taken at once.
#[tokio::test]
async fn idle_uploads_of_one_client_leave_other_clients_creating() {
    let server = Server::start();
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(held_upload(&server, "127.0.0.2", 16 << 20, 0).await);
    }
    let big = create_status(&server, "127.0.0.3", vec![b'a'; 1 << 20]).await;
    assert_eq!(big, StatusCode::CREATED);
    let small = create_status(&server, "127.0.0.3", b"small".to_vec()).await;
    assert_eq!(small, StatusCode::CREATED);
}

/// A client whose bodies in flight hold its share gets `429` (with
/// `Retry-After`, naming the share), while another client still creates;
/// once its upload has gone it creates again.
#[tokio::test]
async fn a_client_past_its_share_gets_429_while_others_create() {
    // The default share: a quarter of the 4 KiB bound.
    let server = Server::start_with(&["--max-paste-size=1KiB", "--max-inflight-bytes=4KiB"]);
    let held = held_upload(&server, "127.0.0.2", 1000, 900).await;
    // The held upload's bytes count once the server has read them.
    let server = &server;
    let create = |local| async move { create_status(server, local, vec![b'b'; 900]).await };
    assert!(eventually(|| async { create("127.0.0.2").await == 429 }).await);
    let refused = create_from(server, "127.0.0.2", vec![b'b'; 900]).await;
    let text = no_room(refused, StatusCode::TOO_MANY_REQUESTS).await;
    assert!(text.contains("limit of 1 KiB per client"), "{text}");

    assert_eq!(create("127.0.0.3").await, StatusCode::CREATED);
    drop(held);
    assert!(eventually(|| async { create("127.0.0.2").await == 201 }).await);
}

/// Uploads past `--max-inflight-bytes` get `503` with `Retry-After` while
/// another client's slow upload holds the room with the bytes it sent, and
/// are taken again once it has gone.
#[tokio::test]
async fn uploads_past_the_inflight_bound_get_503() {
    let server = Server::start_with(&["--max-paste-size=1KiB", "--max-inflight-bytes=1500"]);
    let slow = held_upload(&server, "127.0.0.2", 1000, 900).await;
    let create = || async { create_status(&server, "127.0.0.3", vec![b'x'; 1000]).await };
    // The slow upload holds its bytes once the server has read them.
    assert!(eventually(|| async { create().await == 503 }).await);
    let refused = create_from(&server, "127.0.0.3", vec![b'x'; 1000]).await;
    let text = no_room(refused, StatusCode::SERVICE_UNAVAILABLE).await;
    assert!(text.contains("too many pastes at once"), "{text}");

    drop(slow);
    assert!(eventually(|| async { create().await == 201 }).await);
}

/// Admin request bodies count against `--max-inflight-bytes` like uploads:
/// while a slow admin request holds the room, uploads get `503`, and while
/// a slow upload holds it, admin requests with a body do; each is taken
/// again once the other has gone.
#[tokio::test]
async fn admin_bodies_count_against_the_inflight_bound() {
    let server = tenants::start(&["--max-paste-size=1KiB", "--max-inflight-bytes=1500"]);
    let mut slow_admin = connect_from(&server, "127.0.0.2").await;
    let head = format!(
        "POST /api/admin/tenants HTTP/1.1\r\nHost: snip\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 1001\r\n\r\n{}",
        tenants::ADMIN,
        " ".repeat(1000),
    );
    slow_admin.write_all(head.as_bytes()).await.unwrap();
    let create = || async { create_status(&server, "127.0.0.3", vec![b'x'; 1000]).await };
    assert!(eventually(|| async { create().await == 503 }).await);
    drop(slow_admin);
    assert!(eventually(|| async { create().await == 201 }).await);

    let slow_upload = held_upload(&server, "127.0.0.2", 1000, 900).await;
    let big_name = "t".repeat(40);
    let admin = || async {
        client_from("127.0.0.3")
            .post(server.at("/api/admin/tenants"))
            .bearer_auth(tenants::ADMIN)
            .json(&json!({ "name": big_name, "pad": "x".repeat(600) }))
            .fetch()
            .await
    };
    assert!(eventually(|| async { admin().await.status() == 503 }).await);
    no_room(admin().await, StatusCode::SERVICE_UNAVAILABLE).await;
    drop(slow_upload);
    assert!(eventually(|| async { admin().await.status() != 503 }).await);
}

/// The head of a request to every route that reads a body, declaring a
/// body of 100,000 bytes.
fn body_heads() -> Vec<(&'static str, String)> {
    let admin = format!("Authorization: Bearer {}\r\n", tenants::ADMIN);
    let form = "Content-Type: application/x-www-form-urlencoded\r\n".to_owned();
    let multipart = "Content-Type: multipart/form-data; boundary=XyZ\r\n".to_owned();
    [
        ("raw create", "POST /", String::new()),
        ("multipart create", "POST /", multipart),
        (
            "sign-in",
            "POST /signin",
            form + "Sec-Fetch-Site: same-origin\r\n",
        ),
        ("admin tenant", "POST /api/admin/tenants", admin.clone()),
        (
            "admin change",
            "PATCH /api/admin/tenants/team",
            admin.clone(),
        ),
        ("admin token", "POST /api/admin/tenants/team/tokens", admin),
    ]
    .into_iter()
    .map(|(what, line, headers)| {
        let head =
            format!("{line} HTTP/1.1\r\nHost: snip\r\n{headers}Content-Length: 100000\r\n\r\n");
        (what, head)
    })
    .collect()
}

/// Sends `head` on a new connection, then its body a byte every 50 ms (far
/// below any sane minimum rate) until the server answers; returns what the
/// server sent before it closed the connection.
async fn drip(server: &Server, head: &str) -> String {
    let stream = connect_from(server, "127.0.0.2").await;
    let (mut reader, mut writer) = stream.into_split();
    // The first byte comes with the head: the body has started, however
    // late the server reads it.
    writer
        .write_all(format!("{head}x").as_bytes())
        .await
        .unwrap();
    let dripping = tokio::spawn(async move {
        while writer.write_all(b"x").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    // The first byte of the answer ends the drip.
    let mut first = [0u8; 1];
    let read = tokio::time::timeout(PATIENCE / 2, reader.read(&mut first)).await;
    dripping.abort();
    assert!(matches!(read, Ok(Ok(1))), "no answer: {read:?}");
    let rest = read_until_closed(&mut reader, PATIENCE / 2)
        .await
        .expect("the connection was closed after the answer");
    String::from_utf8_lossy(&[&first[..], &rest].concat()).into_owned()
}

/// Sends `head` on a new connection and then nothing; returns what the
/// server sent before it closed the connection.
async fn stall(server: &Server, head: &str) -> String {
    let mut stream = connect_from(server, "127.0.0.2").await;
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = read_until_closed(&mut stream, PATIENCE / 2)
        .await
        .expect("the connection was closed");
    String::from_utf8_lossy(&answer).into_owned()
}

/// `answer` (to `what`) is a `408` that names `rule` and closes the connection.
fn assert_cut(what: &str, answer: &str, rule: &str) {
    assert!(answer.starts_with("HTTP/1.1 408"), "{what}: {answer}");
    assert!(answer.contains(rule), "{what}: {answer}");
    assert!(answer.contains("connection: close"), "{what}: {answer}");
}

/// A body trickling in below `--body-min-rate` is cut with `408` naming the
/// rate, long before `--body-timeout`, and the connection closed; on
/// every route that reads a body.
#[tokio::test]
async fn bodies_below_the_minimum_rate_are_cut_with_408() {
    let server = tenants::start(&["--body-first-byte-timeout=1s", "--body-min-rate=1KiB"]);
    for (what, head) in body_heads() {
        let answer = drip(&server, &head).await;
        let rule = "slower than 1 KiB/s, the least accepted after its first 1 s";
        assert_cut(what, &answer, rule);
    }
    assert_eq!(server.post("/", "still here").await.status(), 201);
}

/// A body that does not start within `--body-first-byte-timeout` is cut
/// with `408`, long before `--body-timeout`; on every route that reads a body.
#[tokio::test]
async fn bodies_that_do_not_start_are_cut_with_408() {
    let server = tenants::start(&["--body-first-byte-timeout=1s"]);
    for (what, head) in body_heads() {
        let answer = stall(&server, &head).await;
        assert_cut(what, &answer, "the request body did not start within 1 s");
    }
}

/// A sign-in form that stops arriving is cut with `408` at
/// `--body-timeout`, like every other body.
#[tokio::test]
async fn a_stalled_signin_form_is_cut_with_408() {
    let server = tenants::start(&["--body-timeout=1s"]);
    let head = "POST /signin HTTP/1.1\r\nHost: snip\r\nSec-Fetch-Site: same-origin\r\n\
                Content-Type: application/x-www-form-urlencoded\r\n\
                Content-Length: 100\r\n\r\ntoken=";
    let answer = stall(&server, head).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 1 s"), "{answer}");
    let status = tenants::status(&server, Method::GET, "/healthz", None).await;
    assert_eq!(status, 200);
}
