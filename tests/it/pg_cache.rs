//! The PostgreSQL instances' caches: two instances on one schema, where one
//! has cached a paste, a token or a tenant and the other changes it. Once
//! the cached instance's invalidation counter (`/metrics`) says the
//! notification arrived, it answers as the database does; and when its
//! listening connection is cut, it never serves what changed meanwhile.
//! Runs with `SNIP_TEST_STORE=postgres` (skipped with a message otherwise).

use reqwest::Method;
use serde_json::json;

use crate::programs::{example, set_program};
use crate::support::{
    Fetch, Server,
    postgres::{database_url, skip_unless_postgres},
    tenants::{ADMIN, admin, create_as, request, tenant, token, try_create, update},
    wait::eventually,
};

const SKIP: &str = "the cache tests need SNIP_TEST_STORE=postgres";

fn pair() -> (Server, Server) {
    Server::start_pair(&[&format!("--admin-token={ADMIN}")])
}

/// The value of `series` in the server's metrics (0 if absent).
async fn metric(server: &Server, series: &str) -> f64 {
    let (status, text) = server.text("/metrics").await;
    assert_eq!(status, 200, "{text}");
    text.lines()
        .find_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            (name == series).then(|| value.parse().unwrap())
        })
        .unwrap_or(0.0)
}

const INVALIDATIONS: &str = "snip_store_cache_invalidations_total";
const LISTENS: &str = "snip_store_cache_listens_total";
const TRUSTED: &str = "snip_store_cache_trusted";

fn entries(kind: &str) -> String {
    format!("snip_store_cache_entries{{kind=\"{kind}\"}}")
}

/// Waits until `server`'s cache listens and may be served.
async fn until_trusted(server: &Server) {
    assert!(
        eventually(|| async { metric(server, TRUSTED).await == 1.0 }).await,
        "the cache never became trusted:\n{}",
        server.log_text()
    );
}

/// Waits until `server` has received more than `before` invalidations.
async fn until_invalidated(server: &Server, before: f64) {
    assert!(
        eventually(|| async { metric(server, INVALIDATIONS).await > before }).await,
        "no invalidation arrived:\n{}",
        server.log_text()
    );
}

/// Creates a paste through `server`, reads it there until it is cached,
/// and returns its ID and delete token. The first read after a pause may
/// miss: it wakes the idle listener, whose ping makes the cache trusted
/// again.
async fn cached_paste(server: &Server, body: &str) -> (String, String) {
    let (id, token) = server.create(body.to_owned(), "").await;
    let before = metric(server, &entries("paste")).await;
    let cached = eventually(|| async {
        assert_eq!(server.text(&format!("/raw/{id}")).await, (200, body.into()));
        metric(server, &entries("paste")).await == before + 1.0
    })
    .await;
    assert!(cached, "the paste was never cached:\n{}", server.log_text());
    (id, token)
}

/// Deletes a paste through `server`, which must succeed.
async fn delete_through(server: &Server, id: &str, token: &str) {
    assert!(
        server
            .delete(&format!("/{id}"), Some(token))
            .await
            .status()
            .is_success()
    );
}

/// Once A trusts its cache, caches a paste on it; returns the paste's ID
/// and delete token, and how many times A has listened so far.
async fn cached_while_trusted(a: &Server, body: &str) -> (String, String, f64) {
    until_trusted(a).await;
    let (id, token) = cached_paste(a, body).await;
    (id, token, metric(a, LISTENS).await)
}

/// Caches a paste on A, deletes it through B, waits for A to hear of it,
/// and checks that A answers 404.
async fn deleted_through_b_is_gone_from_a(a: &Server, b: &Server, body: &str) {
    let (id, token) = cached_paste(a, body).await;
    let before = metric(a, INVALIDATIONS).await;
    delete_through(b, &id, &token).await;
    until_invalidated(a, before).await;
    assert_eq!(a.status(&format!("/raw/{id}")).await, 404);
}

/// A paste cached by A and deleted through B: A answers 404 once the
/// invalidation arrived.
#[tokio::test]
async fn a_delete_through_one_instance_evicts_the_other() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    until_trusted(&a).await;
    deleted_through_b_is_gone_from_a(&a, &b, "cached on A").await;
    assert_eq!(metric(&a, &entries("paste")).await, 0.0);
}

/// A burn paste is never cached; revealed through B, A answers 404 once
/// the invalidation arrived.
#[tokio::test]
async fn a_burn_paste_is_never_cached_and_its_reveal_is_heard() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    until_trusted(&a).await;
    let (id, _) = a.create("burn me", "burn=true").await;
    assert_eq!(a.status(&format!("/raw/{id}")).await, 409);
    assert_eq!(metric(&a, &entries("paste")).await, 0.0);
    let before = metric(&a, INVALIDATIONS).await;
    assert_eq!(b.reveal(&id).await.status(), 200);
    until_invalidated(&a, before).await;
    assert_eq!(a.status(&format!("/raw/{id}")).await, 404);
    assert_eq!(a.reveal(&id).await.status(), 404);
}

/// A token cached by A and revoked through B: A answers 401 once the
/// invalidation arrived.
#[tokio::test]
async fn a_token_revoked_through_one_instance_is_refused_by_the_other() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    until_trusted(&a).await;
    let secret = tenant(&a, "team", json!({})).await;
    let listing = || request(&a, Method::GET, "/api/pastes", Some(&secret)).fetch();
    // The first lookup after a pause may miss (see `cached_paste`).
    let cached = eventually(|| async {
        assert_eq!(listing().await.status(), 200);
        metric(&a, &entries("token")).await == 1.0
    })
    .await;
    assert!(cached, "the token was never cached:\n{}", a.log_text());
    let (_, tokens) = admin(&b, Method::GET, "/api/admin/tenants/team/tokens", None).await;
    let token_id = tokens["tokens"][0]["id"]
        .as_str()
        .or(tokens[0]["id"].as_str())
        .unwrap()
        .to_owned();
    let before = metric(&a, INVALIDATIONS).await;
    let path = format!("/api/admin/tokens/{token_id}");
    let (status, _) = admin(&b, Method::DELETE, &path, None).await;
    assert!((200..300).contains(&status), "revoke: {status}");
    until_invalidated(&a, before).await;
    assert_eq!(listing().await.status(), 401);
}

/// A tenant cached by A whose paste size limit B lowers: A applies the new
/// limit once the invalidation arrived.
#[tokio::test]
async fn a_tenant_change_through_one_instance_applies_on_the_other() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    until_trusted(&a).await;
    let secret = tenant(&a, "team", json!({})).await;
    let cached = eventually(|| async {
        assert_eq!(
            try_create(&a, Some(&secret), "0123456789a", "").await.0,
            201
        );
        metric(&a, &entries("tenant")).await == 1.0
    })
    .await;
    assert!(cached, "the tenant was never cached:\n{}", a.log_text());
    let before = metric(&a, INVALIDATIONS).await;
    update(&b, "team", json!({ "max_paste_bytes": 10 })).await;
    until_invalidated(&a, before).await;
    let (status, answer) = try_create(&a, Some(&secret), "0123456789a", "").await;
    assert_eq!(status, 413, "{answer}");
}

/// `select` (a column of `pg_stat_activity`, or a function of its `pid`)
/// for A's listening connection, found by its application_name.
async fn on_listener<T: for<'a> tokio_postgres::types::FromSql<'a>>(a: &Server, select: &str) -> T {
    let (client, connection) = tokio_postgres::connect(&database_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let name = format!("snip listener {}", a.pid());
    let rows = client
        .query(
            &format!("SELECT {select} FROM pg_stat_activity WHERE application_name = $1"),
            &[&name],
        )
        .await
        .unwrap();
    assert_eq!(rows.len(), 1, "no backend is named {name:?}");
    rows[0].get(0)
}

/// Terminates A's listening connection.
async fn cut_listener(a: &Server) {
    assert!(on_listener::<bool>(a, "pg_terminate_backend(pid)").await);
}

/// A's listening connection is cut: A stops serving its cache at once, a
/// paste deleted through B while A does not listen is never served by A,
/// and once A listens again its cache fills and is invalidated as before.
#[tokio::test]
async fn a_paste_deleted_while_the_listener_is_down_is_never_served() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    let (id, token, listens) = cached_while_trusted(&a, "cached before the cut").await;
    cut_listener(&a).await;
    assert!(
        a.wait_for_log("the cache invalidation listener lost its connection"),
        "A never noticed:\n{}",
        a.log_text()
    );
    delete_through(&b, &id, &token).await;
    if metric(&a, LISTENS).await > listens {
        // A listened again before the delete had committed, or after: the
        // notification empties the entry, or the restart did.
        assert!(eventually(|| async { metric(&a, &entries("paste")).await == 0.0 }).await);
    }
    // Otherwise A has not listened since the cut, so its cache is not served
    // now, and it is emptied before it is served again.
    assert_eq!(a.status(&format!("/raw/{id}")).await, 404);

    assert!(eventually(|| async { metric(&a, LISTENS).await > listens }).await);
    until_trusted(&a).await;
    // Listening again emptied the cache: what was cached before is not served.
    assert_eq!(a.status(&format!("/raw/{id}")).await, 404);
    deleted_through_b_is_gone_from_a(&a, &b, "cached after the cut").await;
}

/// The process ID of the backend that serves A's listening connection.
async fn listener_backend(a: &Server) -> i32 {
    on_listener(a, "pid").await
}

/// Sends `signal` (`STOP`, `CONT`) to a process; whether it was delivered.
fn send_signal(pid: i32, signal: &str) -> bool {
    std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .is_ok_and(|status| status.success())
}

/// A stopped PostgreSQL backend, resumed when dropped (also if the test fails).
struct Stopped(i32);

impl Drop for Stopped {
    fn drop(&mut self) {
        send_signal(self.0, "CONT");
    }
}

/// A's listening backend stalls (SIGSTOP) without its connection ending:
/// A stops serving its cache once the trust lapses, never serves a paste
/// deleted through B meanwhile, and once the backend runs again it trusts
/// its cache on the same connection, without emptying it by reconnecting.
/// Needs the right to signal PostgreSQL's processes (root, or the database's
/// user); skipped without it, except under CI.
#[tokio::test]
async fn a_stalled_listener_stops_the_cache_and_keeps_its_connection() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    let (id, token, listens) = cached_while_trusted(&a, "cached before the stall").await;
    let backend = listener_backend(&a).await;
    if !send_signal(backend, "STOP") {
        assert!(
            std::env::var_os("CI").is_none(),
            "cannot stop PostgreSQL backend {backend}: run as root or as the database's user"
        );
        eprintln!("skipped: cannot signal PostgreSQL backend {backend}");
        return;
    }
    let stopped = Stopped(backend);
    // A read wakes the listener if it waits for one; its ping then stalls.
    assert_eq!(a.status(&format!("/raw/{id}")).await, 200);
    assert!(
        eventually(|| async { metric(&a, TRUSTED).await == 0.0 }).await,
        "A kept trusting a silent listener:\n{}",
        a.log_text()
    );
    delete_through(&b, &id, &token).await;
    assert_eq!(a.status(&format!("/raw/{id}")).await, 404);
    drop(stopped);
    until_trusted(&a).await;
    assert_eq!(
        metric(&a, LISTENS).await,
        listens,
        "A listened again instead of waiting for its connection:\n{}",
        a.log_text()
    );
    assert_eq!(a.status(&format!("/raw/{id}")).await, 404);
    deleted_through_b_is_gone_from_a(&a, &b, "cached after the stall").await;
}

/// A holds a token in its cache when its listening backend stalls and the
/// token is revoked through B: A has not heard of it, yet every write the
/// token authorises there is refused as it commits (a create, an owner's
/// delete), because the database decides, not the cache; nothing changes.
/// Needs the right to signal PostgreSQL's processes, as the test above.
#[tokio::test]
async fn a_token_revoked_through_one_instance_writes_nothing_on_the_other() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    until_trusted(&a).await;
    tenant(&b, "team", json!({})).await;
    let (token_id, secret) = token(&b, "team", json!({})).await;
    let kept = create_as(&b, Some(&secret), "kept", "visibility=private").await;
    let listing = || request(&a, Method::GET, "/api/pastes", Some(&secret)).fetch();
    let cached = eventually(|| async {
        assert_eq!(listing().await.status(), 200);
        metric(&a, &entries("token")).await == 1.0 && metric(&a, TRUSTED).await == 1.0
    })
    .await;
    assert!(cached, "the token was never cached:\n{}", a.log_text());
    let backend = listener_backend(&a).await;
    if !send_signal(backend, "STOP") {
        assert!(
            std::env::var_os("CI").is_none(),
            "cannot stop PostgreSQL backend {backend}: run as root or as the database's user"
        );
        eprintln!("skipped: cannot signal PostgreSQL backend {backend}");
        return;
    }
    let stopped = Stopped(backend);
    let path = format!("/api/admin/tokens/{token_id}");
    let (status, answer) = admin(&b, Method::DELETE, &path, None).await;
    assert_eq!(status, 204, "{answer}");
    let (status, answer) = try_create(&a, Some(&secret), "after the revocation", "").await;
    assert_eq!(status, 401, "{answer}");
    let delete = request(&a, Method::DELETE, &format!("/{kept}"), Some(&secret))
        .fetch()
        .await;
    assert_eq!(delete.status(), 401);
    drop(stopped);
    let (_, owner) = token(&b, "team", json!({})).await;
    let read = request(&b, Method::GET, &format!("/raw/{kept}"), Some(&owner))
        .fetch()
        .await;
    assert_eq!(read.status(), 200, "the revoked token deleted the paste");
    let listed = request(&b, Method::GET, "/api/pastes", Some(&owner))
        .fetch()
        .await;
    let listed: serde_json::Value = listed.json().await.unwrap();
    assert_eq!(
        listed["pastes"].as_array().map(Vec::len),
        Some(1),
        "{listed}"
    );
}

/// With its listening backend stalled, A serves a paste deleted through B
/// for at most 2 s after B answered the delete: every `200` A gives was
/// asked for less than 2 s after that answer (A decided to serve it no
/// earlier than it was asked). Needs the right to signal PostgreSQL's
/// processes, as the tests above.
#[tokio::test]
async fn a_stalled_listener_serves_a_deleted_paste_at_most_two_seconds() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    let (id, token, _) = cached_while_trusted(&a, "deleted while A stalls").await;
    let backend = listener_backend(&a).await;
    if !send_signal(backend, "STOP") {
        assert!(
            std::env::var_os("CI").is_none(),
            "cannot stop PostgreSQL backend {backend}: run as root or as the database's user"
        );
        eprintln!("skipped: cannot signal PostgreSQL backend {backend}");
        return;
    }
    let _stopped = Stopped(backend);
    delete_through(&b, &id, &token).await;
    let answered = std::time::Instant::now();
    let path = format!("/raw/{id}");
    let mut last_served = None;
    loop {
        let asked = std::time::Instant::now();
        match a.status(&path).await {
            200 => last_served = Some(asked - answered),
            404 => break,
            other => panic!("A answered {other}"),
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    eprintln!("A served the deleted paste until {last_served:?} after the delete");
    assert!(
        last_served.is_none_or(|after| after < std::time::Duration::from_secs(2)),
        "served {last_served:?} after the delete"
    );
}

/// An instance nothing reads sends its listening connection nothing: the
/// listener stops pinging once the cache has gone unread for a while (30 s),
/// and the next read wakes it, so that the cache is served again.
#[tokio::test]
async fn an_unread_cache_is_not_pinged_until_the_next_read() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, _b) = pair();
    until_trusted(&a).await;
    // A listener that pinged every second would never get this far.
    let quiet = "now() - query_start >= interval '3 seconds'";
    assert!(
        eventually(|| async { on_listener::<bool>(&a, quiet).await }).await,
        "the listener kept pinging an unread cache:\n{}",
        a.log_text()
    );
    assert_eq!(
        metric(&a, TRUSTED).await,
        1.0,
        "an idle listener reads as untrusted"
    );
    let last_query = || on_listener::<String>(&a, "query_start::text");
    let before = last_query().await;
    let (id, _) = cached_paste(&a, "read after a pause").await;
    assert_ne!(
        last_query().await,
        before,
        "the read did not wake the listener"
    );
    assert_eq!(a.text(&format!("/raw/{id}")).await.0, 200);
}

/// A program set through B applies to A's next create of that tenant once
/// the invalidation arrived, and so does clearing it.
#[tokio::test]
async fn a_program_set_through_one_instance_runs_on_the_other() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let (a, b) = pair();
    until_trusted(&a).await;
    let secret = tenant(&a, "team", json!({})).await;
    let key = "AKIAIOSFODNN7EXAMPLE";
    let cached = eventually(|| async {
        assert_eq!(try_create(&a, Some(&secret), key, "").await.0, 201);
        metric(&a, &entries("tenant")).await == 1.0
    })
    .await;
    assert!(cached, "the tenant was never cached:\n{}", a.log_text());
    let before = metric(&a, INVALIDATIONS).await;
    set_program(&b, "team", example("refuse_credentials")).await;
    until_invalidated(&a, before).await;
    let (status, answer) = try_create(&a, Some(&secret), key, "").await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "policy_refused");

    let before = metric(&a, INVALIDATIONS).await;
    let (status, _) = admin(&b, Method::DELETE, "/api/admin/tenants/team/program", None).await;
    assert_eq!(status, 204);
    until_invalidated(&a, before).await;
    assert_eq!(try_create(&a, Some(&secret), key, "").await.0, 201);
}
