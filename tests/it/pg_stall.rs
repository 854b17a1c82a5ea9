//! A database link that freezes without breaking (sockets open, no reset):
//! every request is answered `503` within about `--store-timeout`, on
//! pooled connections as on new ones, the stuck connections are closed
//! rather than pooled again, and service resumes once the link does,
//! without restarting snip. PostgreSQL only: a frozen TCP proxy sits
//! between snip and the database.

use std::time::{Duration, Instant};

use reqwest::Method;

use crate::support::Server;
use crate::support::frozen_proxy::FrozenProxy;
use crate::support::postgres::{database_url, drop_schema, fresh_schema, skip_unless_postgres};
use crate::support::wait::eventually;

/// The store deadline the server runs with.
const DEADLINE: Duration = Duration::from_secs(2);

/// A request's status, error code and how long its answer took.
async fn timed(request: reqwest::RequestBuilder) -> (u16, String, Duration) {
    let started = Instant::now();
    let response = request
        .header("accept", "application/json")
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .expect("an answer within 60 s");
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (status, code, started.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frozen_database_link_answers_503_within_the_deadline() {
    if skip_unless_postgres("the frozen-link test runs with SNIP_TEST_STORE=postgres") {
        return;
    }
    let mut url = reqwest::Url::parse(&database_url()).unwrap();
    let host = url.host_str().unwrap().to_owned();
    let port = url.port().unwrap_or(5432);
    let target = tokio::net::lookup_host((host.as_str(), port))
        .await
        .unwrap()
        .next()
        .unwrap();
    let proxy = FrozenProxy::start(target).await;
    url.set_host(Some("127.0.0.1")).unwrap();
    url.set_port(Some(proxy.addr.port())).unwrap();
    let schema = fresh_schema();
    let store = format!("--store={url}");
    let schema_flag = format!("--store-schema={schema}");
    let timeout = format!("--store-timeout={}s", DEADLINE.as_secs());
    let server = Server::start_with_store(&[&store, &schema_flag, &timeout]);
    // Pastes never read, so no cache holds them; creating them left
    // connections idle in the pool.
    let (unread, _) = server.create("never read before the freeze", "").await;
    let (doomed, token) = server.create("to be deleted", "").await;

    proxy.freeze();
    let requests = [
        (
            "read",
            server.request(Method::GET, &format!("/raw/{unread}")),
        ),
        (
            "create",
            server.request(Method::POST, "/").body("during the freeze"),
        ),
        (
            "delete",
            server
                .request(Method::DELETE, &format!("/{doomed}"))
                .header("x-delete-token", &token),
        ),
        (
            "metadata",
            server.request(Method::GET, &format!("/api/pastes/{unread}")),
        ),
        ("readiness", server.request(Method::GET, "/readyz")),
    ];
    for (what, request) in requests {
        let (status, code, took) = timed(request).await;
        eprintln!("frozen link: {what}: {status} {code} in {took:?}");
        assert_eq!(status, 503, "{what}: {code} after {took:?}");
        assert!(
            ["store_timeout", "store_unavailable", "not_ready"].contains(&code.as_str()),
            "{what}: {code}"
        );
        assert!(took < DEADLINE * 3, "{what} took {took:?}");
    }
    assert!(
        server.wait_for_log("closed a database connection cut off by the store deadline"),
        "{}",
        server.log_text()
    );

    proxy.thaw();
    assert!(eventually(|| async { server.status("/readyz").await == 200 }).await);
    let (status, body) = server.text(&format!("/raw/{unread}")).await;
    assert_eq!(
        (status, body.as_str()),
        (200, "never read before the freeze")
    );
    let (created, _) = server.create("after the freeze", "").await;
    assert_eq!(server.status(&format!("/raw/{created}")).await, 200);
    let deleted = server.delete(&format!("/{doomed}"), Some(&token)).await;
    assert!([204, 404].contains(&deleted.status().as_u16()));
    drop(server);
    drop_schema(&database_url(), &schema);
}
