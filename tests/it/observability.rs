//! Metrics, request logs and health/readiness, checked against the running server.

use reqwest::Method;

use crate::support::{
    Fetch, Server, client,
    http::{create_json, get_status, get_text},
    wait::{PATIENCE, eventually},
};

/// The value of one series (`name{labels}` exactly as exposed), or 0 if absent.
fn value(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            (name == series).then(|| value.parse().unwrap())
        })
        .unwrap_or(0.0)
}

async fn scrape(url: &str) -> String {
    let response = client().get(url).fetch().await;
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    response.text().await.unwrap()
}

fn requests(route: &str, method: &str, status: u16) -> String {
    format!("snip_http_requests_total{{route=\"{route}\",method=\"{method}\",status=\"{status}\"}}")
}

fn pastes(event: &str) -> String {
    format!("snip_pastes_total{{event=\"{event}\"}}")
}

/// Requests move the request counters under their route template (never the ID),
/// the latency histograms, the paste event counters and the store gauges.
#[tokio::test]
async fn metrics_move_with_requests() {
    let server = Server::start();
    let http = client();
    let before = scrape(&server.at("/metrics")).await;
    assert_eq!(value(&before, &pastes("created")), 0.0);
    assert_eq!(value(&before, "snip_stored_pastes"), 0.0);

    let (id, token) = server.create("hello metrics", "").await;
    let (burn, _) = server.create("burn me", "burn=true").await;
    for _ in 0..3 {
        assert_eq!(
            get_status(&http, &server.at(&format!("/raw/{id}"))).await,
            200
        );
    }
    let revealed = server.reveal(&burn).await;
    assert_eq!(revealed.status(), 200);
    assert_eq!(get_status(&http, &server.at("/no/such/page")).await, 404);

    let during = scrape(&server.at("/metrics")).await;
    assert_eq!(value(&during, &requests("/raw/{id}", "GET", 200)), 3.0);
    assert_eq!(value(&during, &requests("/", "POST", 201)), 2.0);
    assert_eq!(value(&during, &requests("/{id}/reveal", "POST", 200)), 1.0);
    assert_eq!(value(&during, &requests("unmatched", "GET", 404)), 1.0);
    assert_eq!(
        value(
            &during,
            "snip_http_request_duration_seconds_count{route=\"/raw/{id}\"}"
        ),
        3.0
    );
    assert_eq!(value(&during, &pastes("created")), 2.0);
    assert_eq!(value(&during, &pastes("read")), 3.0 + 0.0);
    assert_eq!(value(&during, &pastes("burned")), 1.0);
    assert_eq!(value(&during, "snip_stored_pastes"), 1.0);
    assert_eq!(
        value(&during, "snip_stored_bytes"),
        "hello metrics".len() as f64
    );
    assert!(
        value(
            &during,
            "snip_store_operation_duration_seconds_count{op=\"put\"}"
        ) >= 2.0
    );
    assert!(
        value(
            &during,
            "snip_store_operation_duration_seconds_count{op=\"get\"}"
        ) >= 3.0
    );
    assert!(
        !during.contains(&id) && !during.contains(&burn),
        "a paste ID is a label"
    );

    let deleted = server.delete(&format!("/{id}"), Some(&token)).await;
    assert_eq!(deleted.status(), 204);
    let after = scrape(&server.at("/metrics")).await;
    assert_eq!(value(&after, &pastes("deleted")), 1.0);
    assert_eq!(value(&after, &requests("/{id}", "DELETE", 204)), 1.0);
    assert_eq!(value(&after, "snip_stored_pastes"), 0.0);
    assert_eq!(value(&after, "snip_stored_bytes"), 0.0);
}

/// The start-up line says how long opening the store took: a slow start
/// is almost all that, and the operator sees it without a profiler.
#[tokio::test]
async fn the_start_line_says_how_long_the_store_took_to_open() {
    let server = Server::start();
    let opened = server.logged_value("store_opened_in_ms=");
    let millis: u64 = opened.parse().unwrap_or_else(|_| {
        panic!("store_opened_in_ms={opened:?} is not a number of milliseconds")
    });
    assert!(millis < 60_000, "opening an empty store took {millis} ms");
    let line = server
        .log_lines()
        .into_iter()
        .find(|line| line.contains("store_opened_in_ms="))
        .unwrap();
    assert!(line.contains("listening on"), "{line}");
}

/// The first line a server logs says in plain words where it listens, with
/// what store: after a restart, and on a new store (where only a new
/// PostgreSQL schema's migrations come first).
#[tokio::test]
async fn the_first_line_says_where_snip_listens() {
    let mut server = Server::start();
    server.create("kept", "").await;
    for start in ["new store", "restart"] {
        if start == "restart" {
            assert!(server.terminate(), "snip did not stop");
            server.restart();
        }
        // The harness learns the URL before the line reaches the log: wait for it.
        assert!(server.wait_for_log("listening on"), "{}", server.log_text());
        let lines = server.log_lines();
        let first = lines
            .iter()
            .map(String::as_str)
            .find(|line| start == "restart" || !line.contains("applied database migration"))
            .unwrap_or_default();
        assert!(
            first.contains("snip listening on http://") && first.contains("store="),
            "{start}: the first line is {first:?}; all:\n{}",
            lines.join("\n")
        );
    }
}

/// The sweeper's removals count as expired pastes.
#[tokio::test]
async fn expired_pastes_are_counted() {
    let server = Server::start_with(&["--sweep-interval=1s"]);
    server.create("short-lived", "ttl=1s").await;
    // A scrape reads the stored-pastes gauge and the counters one after the
    // other, so a sweep between the two shows the paste counted as expired
    // and still stored: wait for both.
    let swept = |text: &str| {
        value(text, &pastes("expired")) == 1.0 && value(text, "snip_stored_pastes") == 0.0
    };
    let counted = eventually(|| async { swept(&scrape(&server.at("/metrics")).await) }).await;
    let text = scrape(&server.at("/metrics")).await;
    assert!(counted, "never counted as expired:\n{text}");
}

/// Requests refused by the per-IP limit are counted.
#[tokio::test]
async fn rate_limit_rejections_are_counted() {
    let server = Server::start_with(&["--ip-rate=1/m", "--ip-burst=1"]);
    let http = client();
    let mut refused = 0;
    for _ in 0..4 {
        if get_status(&http, &server.at("/raw/k7m3q9xw2hd4p")).await == 429 {
            refused += 1;
        }
    }
    assert_eq!(refused, 3);
    let text = scrape(&server.at("/metrics")).await;
    assert_eq!(value(&text, "snip_rate_limited_total{bucket=\"ip\"}"), 3.0);
    assert_eq!(
        value(&text, "snip_rate_limited_total{bucket=\"tenant\"}"),
        0.0
    );
}

/// /metrics is not public unless --metrics-public says so: without it the
/// main listener answers 404 (the other operator routes stay), and
/// --metrics-listen serves it on an address of its own.
#[tokio::test]
async fn metrics_on_a_separate_listener() {
    let server = Server::start_with(&["--metrics-listen=127.0.0.1:0", "--metrics-public=false"]);
    assert_eq!(server.status("/healthz").await, 200);
    let url = format!("http://{}", server.logged_value("metrics on http://"));
    server.create("counted", "").await;
    let text = scrape(&url).await;
    assert_eq!(value(&text, &pastes("created")), 1.0);
    assert_eq!(server.status("/metrics").await, 404);
}

/// /healthz answers while the process runs; /readyz fails with 503 while the
/// data dir is gone and recovers when it is back.
#[tokio::test]
async fn readiness_follows_the_store() {
    if crate::support::postgres::skip_on_postgres(
        "moves the embedded data dir; tests/it/outage.rs stops the database instead",
    ) {
        return;
    }
    let server = Server::start();
    let http = client();
    assert_eq!(get_status(&http, &server.at("/healthz")).await, 200);
    assert_eq!(
        get_text(&http, &server.at("/readyz")).await,
        (200, "ready\n".to_owned())
    );

    let moved = server.data_dir.with_extension("moved");
    std::fs::rename(&server.data_dir, &moved).unwrap();
    // A probe answers from a ping at most a second old.
    assert!(eventually(|| async { server.status("/readyz").await == 503 }).await);
    let down = server.get_accepting("/readyz", "application/json").await;
    assert_eq!(down.status(), 503);
    let body: serde_json::Value = down.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_ready");
    assert_eq!(
        get_status(&http, &server.at("/healthz")).await,
        200,
        "the process is still up"
    );
    assert!(
        server.wait_for_log("readiness check failed"),
        "never logged the failed readiness check:\n{}",
        server.log_text()
    );

    std::fs::rename(&moved, &server.data_dir).unwrap();
    assert!(eventually(|| async { server.status("/readyz").await == 200 }).await);
}

const ADMIN: &str = "admin-secret-9f8e7d6c5b4a";
const BODY: &str = "paste-body-zebra-quokka-4711";
const KEY: &str = "fragmentKeyShouldNeverBeLogged42";

/// Makes requests that carry every kind of secret and returns them with the server's logs.
async fn secret_session(format: &str) -> (Vec<String>, Vec<String>) {
    let server = Server::start_with(&[
        &format!("--admin-token={ADMIN}"),
        &format!("--log-format={format}"),
    ]);
    let http = client();
    let tenant: serde_json::Value = server
        .request(Method::POST, "/api/admin/tenants")
        .bearer_auth(ADMIN)
        .json(&serde_json::json!({"name": "acme"}))
        .fetch()
        .await
        .json()
        .await
        .unwrap();
    let tenant_token = tenant["token"]["token"].as_str().unwrap().to_owned();
    let owned = server
        .request(Method::POST, "/?name=secret-name.txt")
        .bearer_auth(&tenant_token)
        .header("accept", "application/json")
        .body(BODY)
        .fetch()
        .await;
    assert_eq!(owned.status(), 201);
    let owned: serde_json::Value = owned.json().await.unwrap();
    let owned_id = owned["id"].as_str().unwrap().to_owned();
    let anon = create_json(&http, &server.url, BODY, "ttl=1h").await;
    let (anon_id, delete_token) = (
        anon["id"].as_str().unwrap().to_owned(),
        anon["delete_token"].as_str().unwrap().to_owned(),
    );
    // A client never sends the #fragment; a key in a query must not be logged either.
    let read = server
        .request(Method::GET, &format!("/raw/{owned_id}?key={KEY}#{KEY}"))
        .bearer_auth(&tenant_token)
        .fetch()
        .await;
    assert_eq!(read.text().await.unwrap(), BODY);
    let wrong = server
        .delete(&format!("/{anon_id}"), Some(&format!("{delete_token}x")))
        .await;
    assert_eq!(wrong.status(), 403);
    let deleted = server
        .delete(&format!("/{anon_id}"), Some(&delete_token))
        .await;
    assert_eq!(deleted.status(), 204);
    let bad = server
        .request(Method::GET, "/api/pastes")
        .bearer_auth("not-a-real-token-but-secret")
        .fetch()
        .await;
    assert_eq!(bad.status(), 401);
    // Request lines arrive after their responses (a buffered writer, a pipe):
    // wait for all seven before looking for secrets in them.
    assert!(
        server.wait_for_log_count("snip::request", 7, PATIENCE),
        "fewer than 7 request lines:\n{}",
        server.log_text()
    );
    let logs = server.log_lines();
    let secrets = vec![
        ADMIN.to_owned(),
        tenant_token,
        delete_token,
        BODY.to_owned(),
        KEY.to_owned(),
        "secret-name".to_owned(),
        "not-a-real-token-but-secret".to_owned(),
        owned_id,
        anon_id,
    ];
    (logs, secrets)
}

fn assert_no_secret(logs: &[String], secrets: &[String]) {
    let text = logs.join("\n");
    for secret in secrets {
        assert!(
            !text.contains(secret.as_str()),
            "{secret} appears in the logs:\n{text}"
        );
    }
}

/// Text logs have one line per request and never a token, delete token, body, key or paste ID.
#[tokio::test]
async fn text_logs_keep_secrets() {
    let (logs, secrets) = secret_session("text").await;
    assert_no_secret(&logs, &secrets);
    let request_lines = logs.iter().filter(|l| l.contains("snip::request")).count();
    assert_eq!(request_lines, 7, "{logs:#?}");
}

/// JSON logs are one JSON object per line, request lines carry method, route,
/// status, bytes, latency and client IP, and no secret appears.
#[tokio::test]
async fn json_logs_are_structured_and_keep_secrets() {
    let (logs, secrets) = secret_session("json").await;
    assert_no_secret(&logs, &secrets);
    let lines: Vec<serde_json::Value> = logs
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let requests: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["target"] == "snip::request")
        .collect();
    assert_eq!(requests.len(), 7);
    let read = requests
        .iter()
        .find(|l| l["route"] == "/raw/{id}")
        .expect("the raw read is logged");
    assert_eq!(read["method"], "GET");
    assert_eq!(read["status"], 200);
    assert_eq!(read["bytes"], BODY.len());
    assert_eq!(read["client"], "127.0.0.1");
    assert_eq!(read["level"], "INFO");
    assert!(read["latency_us"].is_u64());
    let statuses: Vec<u64> = requests
        .iter()
        .map(|l| l["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, vec![201, 201, 201, 200, 403, 204, 401]);
}

/// `--log info,snip::request=warn` turns request lines off and keeps the
/// server's other info lines.
#[tokio::test]
async fn request_lines_can_be_turned_off() {
    let mut server = Server::start_with(&["--log=info,snip::request=warn"]);
    let http = client();
    let created = create_json(&http, &server.url, BODY, "").await;
    let read = http.get(created["raw_url"].as_str().unwrap()).fetch().await;
    assert_eq!(read.status(), 200);
    // Lines keep their order, and a stopping server's last one is "snip
    // stopped": once that is here, any request line would be too.
    server.terminate();
    assert!(server.wait_for_log("snip stopped"), "{}", server.log_text());
    let logs = server.log_text();
    assert!(logs.contains("listening"), "{logs}");
    assert!(!logs.contains("snip::request"), "{logs}");
}

/// Bad observability flags stop the server at once with a message naming the
/// problem: an unknown log format, a malformed or busy metrics address.
#[test]
fn bad_flags_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let busy_addr = format!("--metrics-listen={}", busy.local_addr().unwrap());
    for (flag, expected) in [
        ("--log-format=xml", "possible values: text, json"),
        ("--metrics-listen=nowhere", "invalid socket address"),
        (busy_addr.as_str(), "for metrics"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
            .args(["serve", "--listen=127.0.0.1:0", flag])
            .arg(format!("--data-dir={}", tmp.path().join("data").display()))
            .env_remove("SNIP_CONFIG")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{flag} was accepted");
        assert!(stderr.contains(expected), "{flag}: {stderr}");
    }
}
