//! Bounded work per request: whatever one request asks for, the server's
//! work and memory for it stay bounded (ranges, HTML views, admin requests,
//! readiness). Bodies in flight are in `bodies`.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::support::cli::{run_cli, stdout, succeeded};
use crate::support::http::{get_status, read_response};
use crate::support::wait::eventually;
use crate::support::{Fetch, Server, client, tenants};

/// Thousands of overlapping ranges are answered with the whole body, not
/// validated pair by pair; overlapping and adjacent ranges merge into one.
#[tokio::test]
async fn many_or_overlapping_ranges_are_merged_or_answered_whole() {
    let server = Server::start();
    let (id, _) = server.create("0123456789", "").await;
    let url = server.at(&format!("/raw/{id}"));
    let many = format!("bytes={}", vec!["0-0"; 30_000].join(","));
    let whole = client().get(&url).header("range", many).fetch().await;
    assert_eq!(whole.status(), StatusCode::OK);
    assert_eq!(whole.text().await.unwrap(), "0123456789");

    for (range, merged, text) in [
        ("bytes=0-1,2-3", "bytes 0-3/10", "0123"),
        ("bytes=4-6,2-5,50-60", "bytes 2-6/10", "23456"),
        ("bytes=1-1,1-1", "bytes 1-1/10", "1"),
        ("bytes=-20", "bytes 0-9/10", "0123456789"),
    ] {
        let part = client().get(&url).header("range", range).fetch().await;
        assert_eq!(part.status(), StatusCode::PARTIAL_CONTENT, "{range}");
        assert_eq!(part.headers()["content-range"], merged, "{range}");
        assert_eq!(part.text().await.unwrap(), text, "{range}");
    }
    let apart = client()
        .get(&url)
        .header("range", "bytes=0-1,5-6")
        .fetch()
        .await;
    assert_eq!(apart.status(), StatusCode::OK);
    assert_eq!(apart.text().await.unwrap(), "0123456789");
}

/// The HTML view of a paste of a million empty lines shows a bounded prefix
/// (its line anchors intact), says that the whole paste is at `/raw`, and
/// tells the script at which byte the rest starts.
#[tokio::test]
async fn html_view_of_many_lines_is_bounded() {
    let server = Server::start();
    let (id, _) = server.create(vec![b'\n'; 1 << 20], "").await;
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().await.unwrap();
    assert!(page.len() < 2 << 20, "page of {} bytes", page.len());
    assert!(page.contains("id=\"L10000\""));
    assert!(!page.contains("id=\"L10001\""));
    assert_says_rest_is_raw(&page, &id);
    // The script fetches the rest from just after the 10,000th newline.
    assert!(page.contains("id=\"truncated\" data-next=\"10000\">"));
}

/// One huge line is cut by size; a burn paste's reveal is not cut.
#[tokio::test]
async fn html_view_and_reveal_of_a_long_line_are_bounded() {
    let server = Server::start();
    let long = vec![b'a'; 4 << 20];
    let (id, _) = server.create(long.clone(), "").await;
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    let page = page.text().await.unwrap();
    assert!(page.len() < 1 << 20, "page of {} bytes", page.len());
    assert_says_rest_is_raw(&page, &id);
    // The rest starts in the middle of the line the page ends with.
    assert!(page.contains("id=\"truncated\" data-next=\"262144\" data-mid-line>"));

    // A burn paste's reveal cannot link the rest: it is the whole body,
    // as plain text, not a page.
    let (burn, _) = server.create(long.clone(), "burn=true").await;
    let revealed = server
        .request(Method::POST, &format!("/{burn}/reveal"))
        .header("accept", "text/html")
        .fetch()
        .await;
    assert_eq!(revealed.status(), StatusCode::OK);
    assert!(
        revealed.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    assert!(revealed.bytes().await.unwrap() == long);
}

/// A short paste is shown whole, without the notice.
#[tokio::test]
async fn html_view_of_a_short_paste_is_whole() {
    let server = Server::start();
    let (id, _) = server.create("one\ntwo\n", "").await;
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    let page = page.text().await.unwrap();
    assert!(page.contains("id=\"L2\""));
    assert!(!page.contains("id=\"truncated\""));
}

fn assert_says_rest_is_raw(page: &str, id: &str) {
    let notice = page.find("id=\"truncated\"").expect("a truncation notice");
    assert!(
        page[notice..].contains(&format!("href=\"/raw/{id}\"")),
        "the notice links the raw paste"
    );
}

/// The admin routes that take a body.
const ADMIN_BODY_ROUTES: [(&str, &str); 3] = [
    ("POST", "/api/admin/tenants"),
    ("PATCH", "/api/admin/tenants/team"),
    ("POST", "/api/admin/tenants/team/tokens"),
];

/// Sends the headers of an admin request whose body of 1,000 bytes has only
/// begun to arrive (as a client sending a byte a second would), and returns
/// the answer the server gives before the rest.
async fn admin_with_slow_body(
    server: &Server,
    (method, path): (&str, &str),
    token: Option<&str>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(server.url.trim_start_matches("http://"))
        .await
        .unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: snip\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    read_response(&mut stream).await
}

/// An admin request is refused from its headers alone, before its body
/// arrives: no token `401`, a wrong one `403`, the admin API off `404`; with
/// the right token a body slower than `--body-timeout` gets `408`.
#[tokio::test]
async fn admin_requests_are_decided_before_a_slow_body() {
    let server = tenants::start(&["--body-timeout=1s"]);
    tenants::tenant(&server, "team", json!({})).await;
    let off = Server::start_with(&["--body-timeout=1s"]);
    for route in ADMIN_BODY_ROUTES {
        assert_eq!(admin_with_slow_body(&server, route, None).await.0, 401);
        assert_eq!(
            admin_with_slow_body(&server, route, Some("wrong")).await.0,
            403
        );
        let (status, text) = admin_with_slow_body(&server, route, Some(tenants::ADMIN)).await;
        assert_eq!(status, 408, "{route:?}: {text}");
        assert!(text.contains("did not arrive within 1 s"), "{text}");
        assert_eq!(admin_with_slow_body(&off, route, None).await.0, 404);
        assert_eq!(
            admin_with_slow_body(&off, route, Some(tenants::ADMIN))
                .await
                .0,
            404
        );
    }
}

/// Admin path parameters are checked before the store: a NUL byte or a
/// malformed token ID is `400` with the rule, on every store.
#[tokio::test]
async fn admin_path_parameters_are_validated() {
    let server = tenants::start(&[]);
    tenants::tenant(&server, "team", json!({})).await;
    for (method, path) in [
        (Method::PATCH, "/api/admin/tenants/a%00b"),
        (Method::DELETE, "/api/admin/tenants/%00"),
        (Method::GET, "/api/admin/tenants/team%00/tokens"),
        (Method::POST, "/api/admin/tenants/Team/tokens"),
        (Method::DELETE, "/api/admin/tokens/%00"),
        (Method::DELETE, "/api/admin/tokens/tok_0123456789ab%00"),
    ] {
        let body = (method == Method::PATCH).then(|| json!({"burst": 5}));
        let (status, answer) = tenants::admin(&server, method.clone(), path, body).await;
        assert_eq!(status, 400, "{method} {path}: {answer}");
        assert!(
            answer.to_string().contains("a tenant name is")
                || answer.to_string().contains("a token ID is"),
            "{method} {path}: {answer}"
        );
    }
    let (status, _) = tenants::admin(
        &server,
        Method::DELETE,
        "/api/admin/tokens/tok_0123456789ab",
        None,
    )
    .await;
    assert_eq!(status, 404);
}

/// How many times the store has been pinged, from `/metrics`.
async fn pings(server: &Server) -> u64 {
    let text = server.get("/metrics").await.text().await.unwrap();
    text.lines()
        .find_map(|line| {
            let value =
                line.strip_prefix("snip_store_operation_duration_seconds_count{op=\"ping\"} ")?;
            value.parse().ok()
        })
        .expect("a ping count in /metrics")
}

/// `/readyz` pings the store at most once a second: a flood of readiness
/// probes, which need no token, does not ping (and sync) the store once each.
#[tokio::test]
async fn readiness_probes_share_a_ping_a_second() {
    let server = Server::start();
    const PROBES: u64 = 200;
    let before = pings(&server).await;
    let http = client();
    let started = Instant::now();
    for _ in 0..PROBES {
        assert_eq!(get_status(&http, &server.at("/readyz")).await, 200);
    }
    let seconds = started.elapsed().as_secs();
    let during = pings(&server).await - before;
    assert!(
        (1..=seconds + 1).contains(&during),
        "{PROBES} probes in {seconds} s pinged the store {during} times"
    );
}

/// A server nobody probes never pings its store: idle means no work.
#[tokio::test]
async fn an_idle_server_does_not_ping_its_store() {
    let server = Server::start();
    let before = pings(&server).await;
    // Longer than any period a background check would use.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(pings(&server).await, before, "pinged while idle");
}

/// Pastes one listing request reads at most (the server's `MAX_LIST_SCAN`).
const LIST_SCAN: usize = 1000;

/// A name prefix that matches nothing among more pastes than one request
/// reads ends the page there, empty, with a cursor; following it reaches the
/// one match further on, then the end. `snip list` follows past the empty page.
#[tokio::test]
async fn a_listing_reads_a_bounded_number_of_pastes() {
    let server = tenants::start(&[]);
    let token = tenants::tenant(&server, "hoarder", json!({})).await;
    let oldest = tenants::create_as(&server, Some(&token), "old", "name=zzz-old").await;
    // Every paste below is newer by a creation second (the server's clock is this one).
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
    };
    let created = now();
    let a_second_later = eventually(|| async { now() > created }).await;
    assert!(a_second_later);
    let mut tasks = tokio::task::JoinSet::new();
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..16 {
        let (url, token, next) = (server.url.clone(), token.clone(), next.clone());
        tasks.spawn(async move {
            let http = client();
            while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < LIST_SCAN {
                let created = http
                    .post(format!("{url}/?name=a.txt"))
                    .bearer_auth(&token)
                    .body("x")
                    .fetch()
                    .await;
                assert_eq!(created.status(), StatusCode::CREATED);
            }
        });
    }
    tasks.join_all().await;

    let first = tenants::list(&server, &token, "limit=1&name_prefix=zzz").await;
    assert_eq!(tenants::ids(&first), Vec::<String>::new(), "{first}");
    let cursor = first["next_cursor"]
        .as_str()
        .expect("a cursor to go on from");
    let second = tenants::list(
        &server,
        &token,
        &format!("limit=1&name_prefix=zzz&cursor={cursor}"),
    )
    .await;
    assert_eq!(tenants::ids(&second), vec![oldest.clone()], "{second}");
    assert!(second["next_cursor"].is_null(), "{second}");

    // Unfiltered pages of the largest size stay full.
    let page = tenants::list(&server, &token, "limit=500").await;
    assert_eq!(tenants::ids(&page).len(), 500);

    let dir = tempfile::tempdir().unwrap();
    let output = run_cli(
        &server,
        dir.path(),
        &[("SNIP_TOKEN", token.as_str())],
        &["list", "--name-prefix", "zzz"],
        b"",
    );
    succeeded(&output);
    let printed = stdout(&output);
    assert!(printed.starts_with(&oldest), "{printed}");
    assert_eq!(printed.lines().count(), 1, "{printed}");
}
