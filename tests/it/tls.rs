//! Native HTTPS against the real binary: round trips over HTTP/1.1 and HTTP/2,
//! certificate reload (file change, SIGHUP, broken files), the plain-HTTP
//! redirect, the handshake deadline, and startup errors.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

use crate::support::{
    Fetch, Server, client,
    http::get_status,
    tls::{
        Leaf, TestCa, addr_of, connect, get_on, https_client, leaf_of, replace_file, served_leaf,
        write_pair,
    },
    wait::{PATIENCE, eventually},
};

/// Starts snip serving `leaf` from files in `dir`, with extra flags.
fn start_tls(dir: &Path, leaf: &Leaf, extra: &[&str]) -> Server {
    let (cert, key) = write_pair(dir, leaf);
    let mut args = vec![
        format!("--tls-cert={}", cert.display()),
        format!("--tls-key={}", key.display()),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Server::start_with(&args)
}

/// Waits until new handshakes with `server` present `leaf`; fails with
/// `what` and the server's logs if they never do.
async fn assert_serves_soon(server: &Server, ca: &TestCa, leaf: &Leaf, what: &str) {
    let addr = addr_of(&server.url);
    let served = eventually(|| async { served_leaf(addr, &ca.pem).await == leaf.der }).await;
    assert!(served, "{what}; logs:\n{}", server.log_text());
}

/// Waits until the server has refused new certificate files `count` times;
/// fails with `what` and the server's logs if it has not.
fn assert_refused(server: &Server, count: usize, what: &str) {
    assert!(
        server.wait_for_log_count("new TLS certificate refused", count, PATIENCE),
        "{what}; logs:\n{}",
        server.log_text()
    );
}

/// Asserts that the server logs `needle` (waiting for the line to arrive).
fn assert_logged(server: &Server, needle: &str) {
    assert!(
        server.wait_for_log(needle),
        "no {needle:?} in the logs:\n{}",
        server.log_text()
    );
}

/// A paste created over HTTPS (HTTP/1.1) gets an https:// URL and reads back byte for byte.
#[tokio::test]
async fn https_round_trip_http1() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let server = start_tls(dir.path(), &ca.leaf("one"), &[]);
    assert!(
        server.url.starts_with("https://127.0.0.1:"),
        "{}",
        server.url
    );
    let client = https_client(&ca.pem).http1_only().build().unwrap();
    let created = crate::support::http::create_json(&client, &server.url, "over tls\n", "").await;
    let url = created["url"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/", server.url)), "{url}");
    let response = client
        .get(created["raw_url"].as_str().unwrap())
        .fetch()
        .await;
    assert_eq!(response.version(), reqwest::Version::HTTP_11);
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "over tls\n");
}

/// A client offering h2 by ALPN gets HTTP/2, and creates and reads over it.
#[tokio::test]
async fn http2_negotiated_by_alpn() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let server = start_tls(dir.path(), &ca.leaf("one"), &[]);
    let client = https_client(&ca.pem).build().unwrap();
    let created = crate::support::http::create_json(&client, &server.url, "over h2\n", "").await;
    let response = client
        .get(created["raw_url"].as_str().unwrap())
        .fetch()
        .await;
    assert_eq!(response.version(), reqwest::Version::HTTP_2);
    assert_eq!(response.text().await.unwrap(), "over h2\n");
    let raw = connect(
        addr_of(&server.url),
        &ca.pem,
        "localhost",
        &[b"h2", b"http/1.1"],
    )
    .await
    .unwrap();
    assert_eq!(raw.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
}

/// Replacing the files makes new connections get the new certificate, while
/// a keep-alive connection opened before keeps working.
#[tokio::test]
async fn reload_on_file_change_keeps_open_connections() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (one, two) = (ca.leaf("one"), ca.leaf("two"));
    let server = start_tls(
        dir.path(),
        &one,
        &["--tls-reload-interval=1s", "--header-timeout=60s"],
    );
    let addr = addr_of(&server.url);
    let mut open = connect(addr, &ca.pem, "localhost", &[b"http/1.1"])
        .await
        .unwrap();
    assert_eq!(leaf_of(&open), one.der);
    assert_eq!(get_on(&mut open, "/healthz").await, (200, "ok\n".into()));

    write_pair(dir.path(), &two);
    assert_serves_soon(
        &server,
        &ca,
        &two,
        "new connections never saw the new certificate",
    )
    .await;
    assert_logged(&server, "TLS certificate reloaded (files changed)");
    assert_eq!(get_on(&mut open, "/healthz").await, (200, "ok\n".into()));
    assert_eq!(
        leaf_of(&open),
        one.der,
        "the open connection keeps its session"
    );
}

/// An unparsable certificate, then a key that does not match, are refused
/// with a warning each; the old certificate stays in use throughout.
#[tokio::test]
async fn broken_certificate_refused_without_downtime() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (one, two) = (ca.leaf("one"), ca.leaf("two"));
    let server = start_tls(dir.path(), &one, &["--tls-reload-interval=1s"]);
    let addr = addr_of(&server.url);
    let client = https_client(&ca.pem).build().unwrap();

    replace_file(
        &dir.path().join("cert.pem"),
        "-----BEGIN CERTIFICATE-----\nnot base64!\n",
    );
    assert_refused(&server, 1, "no warning for a garbage certificate");
    assert!(server.log_text().contains("WARN"));
    assert_eq!(served_leaf(addr, &ca.pem).await, one.der);
    assert_eq!(get_status(&client, &server.at("/healthz")).await, 200);

    // The new certificate with the old key: parsable, but not a pair.
    replace_file(&dir.path().join("cert.pem"), &two.cert_pem);
    assert_refused(&server, 2, "no warning for a mismatched key");
    assert_logged(&server, "does not fit the certificate");
    assert_eq!(served_leaf(addr, &ca.pem).await, one.der);
    crate::support::http::create_json(&client, &server.url, "still up", "").await;

    // Completing the pair is accepted.
    replace_file(&dir.path().join("key.pem"), &two.key_pem);
    assert_serves_soon(&server, &ca, &two, "the completed pair was not loaded").await;
}

/// With polling off, new files are picked up on SIGHUP and not before.
#[tokio::test]
async fn sighup_reloads() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (one, two) = (ca.leaf("one"), ca.leaf("two"));
    let server = start_tls(dir.path(), &one, &["--tls-reload-interval=off"]);
    let addr = addr_of(&server.url);
    write_pair(dir.path(), &two);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        served_leaf(addr, &ca.pem).await,
        one.der,
        "reloaded without SIGHUP"
    );

    let status = Command::new("kill")
        .args(["-HUP", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_serves_soon(&server, &ca, &two, "SIGHUP did not reload").await;
    assert_logged(&server, "TLS certificate reloaded (SIGHUP)");
}

/// `--redirect-http` answers plain HTTP with 308 to the same path and query under the HTTPS URL.
#[tokio::test]
async fn redirect_listener() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let server = start_tls(
        dir.path(),
        &ca.leaf("one"),
        &["--redirect-http=127.0.0.1:0"],
    );
    let plain = server.logged_value("redirecting plain HTTP on ");
    assert!(plain.starts_with("http://127.0.0.1:"), "{plain}");

    let client = client();
    let response = client.get(format!("{plain}/raw/abc?x=1&y=2")).fetch().await;
    assert_eq!(response.status(), 308);
    assert_eq!(
        response.headers()["location"],
        format!("{}/raw/abc?x=1&y=2", server.url).as_str()
    );
    let response = client.post(format!("{plain}/")).body("data").fetch().await;
    assert_eq!(response.status(), 308);
    assert_eq!(
        response.headers()["location"],
        format!("{}/", server.url).as_str()
    );

    // A client following it ends up creating the paste over HTTPS.
    let follow = https_client(&ca.pem)
        .redirect(reqwest::redirect::Policy::limited(2))
        .build()
        .unwrap();
    let response = follow.post(format!("{plain}/")).body("moved").fetch().await;
    assert_eq!(response.status(), 201);
    assert!(response.url().as_str().starts_with("https://"));
}

/// A client that opens TCP and never starts the handshake is disconnected
/// after the header timeout, and plain HTTP on the HTTPS port gets no answer.
#[tokio::test]
async fn stalled_handshake_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let leaf = ca.leaf("one");
    let server = start_tls(dir.path(), &leaf, &["--header-timeout=1s"]);
    let addr = addr_of(&server.url);
    let started = Instant::now();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(10), silent.read(&mut buf))
        .await
        .expect("the server never closed a silent connection");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900),
        "closed too early: {waited:?}"
    );

    let mut plain = TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut plain, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), plain.read_to_end(&mut answer)).await;
    assert!(
        !answer.starts_with(b"HTTP/"),
        "plain HTTP was answered over the TLS port"
    );

    // Good clients are still served.
    let client = https_client(&ca.pem).build().unwrap();
    let response = client.get(server.at("/healthz")).fetch().await;
    assert_eq!(response.status(), 200);
    let info = response
        .extensions()
        .get::<reqwest::tls::TlsInfo>()
        .unwrap();
    assert_eq!(info.peer_certificate().unwrap(), &leaf.der[..]);
}

/// SIGTERM with idle HTTPS connections open (HTTP/1.1 keep-alive and HTTP/2)
/// shuts down cleanly and promptly: idle TLS connections are closed, not waited for.
#[tokio::test(flavor = "multi_thread")]
async fn graceful_shutdown_closes_idle_tls_connections() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let server = start_tls(dir.path(), &ca.leaf("one"), &["--header-timeout=60s"]);
    let mut h1 = connect(addr_of(&server.url), &ca.pem, "localhost", &[b"http/1.1"])
        .await
        .unwrap();
    assert_eq!(get_on(&mut h1, "/healthz").await.0, 200);
    let h2 = https_client(&ca.pem).build().unwrap();
    let response = h2.get(server.at("/healthz")).fetch().await;
    assert_eq!(response.version(), reqwest::Version::HTTP_2);

    // The clients keep running (an HTTP/2 client must answer the server's
    // GOAWAY ping) while this blocks.
    let started = Instant::now();
    let (server, clean) = tokio::task::spawn_blocking(move || {
        let mut server = server;
        let clean = server.terminate();
        (server, clean)
    })
    .await
    .unwrap();
    assert!(clean, "unclean exit; logs:\n{}", server.log_text());
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "shutdown took {took:?}");
    assert_logged(&server, "snip stopped");
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(5), h1.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "{read:?}");
}

/// Runs `snip serve ARGS` expecting it to exit by itself; returns (exit code, stderr).
fn serve_fails(args: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_snip"))
        .arg("serve")
        .arg("--listen=127.0.0.1:0")
        .arg(format!("--data-dir={}", dir.path().join("data").display()))
        .args(args)
        .env_remove("SNIP_CONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("snip {args:?} started instead of failing");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Incomplete or contradictory TLS options, and certificate files that do
/// not load, stop startup with a message naming the problem and a non-zero exit.
#[test]
fn startup_errors() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (cert, key) = write_pair(dir.path(), &ca.leaf("one"));
    let other_key = dir.path().join("other-key.pem");
    std::fs::write(&other_key, ca.leaf("two").key_pem).unwrap();
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "hello").unwrap();
    let cert_flag = format!("--tls-cert={}", cert.display());
    let key_flag = format!("--tls-key={}", key.display());
    let missing = dir.path().join("missing.pem");
    let missing_cert = format!("--tls-cert={}", missing.display());
    let other_key_flag = format!("--tls-key={}", other_key.display());
    let garbage_cert = format!("--tls-cert={}", garbage.display());
    let missing_root = format!("--acme-ca-root={}", missing.display());

    let cases: &[(&[&str], i32, &str)] = &[
        (&[&cert_flag], 2, "--tls-key"),
        (&[&key_flag], 2, "--tls-cert"),
        (
            &[&missing_cert, &key_flag],
            1,
            "cannot read the TLS certificate",
        ),
        (
            &[&cert_flag, &other_key_flag],
            1,
            "does not fit the certificate",
        ),
        (&[&garbage_cert, &key_flag], 1, "no PEM certificate found"),
        (&["--redirect-http=127.0.0.1:0"], 2, "--tls-cert"),
        (&["--acme-domain=paste.example.com"], 2, "--acme-email"),
        (
            &[
                "--acme-domain=paste.example.com",
                "--acme-email=a@example.com",
                &missing_root,
            ],
            1,
            "cannot read the ACME CA root",
        ),
        (
            &["--acme-domain=*.example.com", "--acme-email=a@example.com"],
            2,
            "not a domain name",
        ),
        (
            &[
                &cert_flag,
                &key_flag,
                "--acme-domain=paste.example.com",
                "--acme-email=a@example.com",
            ],
            2,
            "cannot be used with",
        ),
    ];
    for (args, code, message) in cases {
        let (got, stderr) = serve_fails(args);
        assert_eq!(got, *code, "{args:?}: {stderr}");
        assert!(
            stderr.contains(message),
            "{args:?}: expected {message:?} in {stderr}"
        );
    }
}

/// Reads one sample's value from the metrics exposition text.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(series) && l[series.len()..].starts_with(' '))
        .and_then(|l| l[series.len()..].trim().parse().ok())
}

/// `/metrics` over HTTPS counts completed and failed handshakes and exports
/// the served certificate's expiry time.
#[tokio::test]
async fn metrics_count_handshakes_and_certificate_expiry() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let server = start_tls(dir.path(), &ca.leaf("one"), &[]);
    let client = https_client(&ca.pem).http1_only().build().unwrap();
    // A client that speaks plain HTTP to the TLS port fails its handshake.
    let mut plain = TcpStream::connect(addr_of(&server.url)).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut plain, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut sink = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), plain.read_to_end(&mut sink)).await;
    let scrape = || async {
        let url = server.at("/metrics");
        client.get(url).fetch().await.text().await.unwrap()
    };
    let counted = eventually(|| async {
        let text = scrape().await;
        sample(&text, "snip_tls_handshakes_total{result=\"failed\"}").unwrap_or(0.0) >= 1.0
    })
    .await;
    let text = scrape().await;
    assert!(counted, "no failed handshake counted:\n{text}");
    let ok = sample(&text, "snip_tls_handshakes_total{result=\"ok\"}").unwrap();
    assert!(ok >= 1.0, "{text}");
    let expiry = sample(&text, "snip_tls_certificate_expiry_timestamp_seconds").unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        expiry > now + 86_400.0,
        "expiry {expiry} is not in the future"
    );
}

/// When snip serves HTTPS itself every answer carries HSTS (a year unless
/// --hsts says otherwise, none with --hsts=off); plain HTTP never does.
#[tokio::test]
async fn hsts_only_over_native_tls() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let hsts = |response: &reqwest::Response| {
        response
            .headers()
            .get("strict-transport-security")
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let https = https_client(&ca.pem).build().unwrap();
    let default = start_tls(dir.path(), &ca.leaf("one"), &[]);
    let answer = https.get(default.at("/healthz")).fetch().await;
    assert_eq!(hsts(&answer).as_deref(), Some("max-age=31536000"));
    let error = https.get(default.at("/no/such/route")).fetch().await;
    assert_eq!(hsts(&error).as_deref(), Some("max-age=31536000"));

    let other = tempfile::tempdir().unwrap();
    let day = start_tls(other.path(), &ca.leaf("one"), &["--hsts=1d"]);
    let answer = https.get(day.at("/healthz")).fetch().await;
    assert_eq!(hsts(&answer).as_deref(), Some("max-age=86400"));

    let third = tempfile::tempdir().unwrap();
    let off = start_tls(third.path(), &ca.leaf("one"), &["--hsts=off"]);
    assert_eq!(hsts(&https.get(off.at("/healthz")).fetch().await), None);

    let plain = Server::start();
    assert_eq!(
        hsts(&client().get(plain.at("/healthz")).fetch().await),
        None
    );
}
