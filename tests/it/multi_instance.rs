//! Several snip instances on one PostgreSQL database: what one instance does,
//! the other sees at once, and atomic operations stay atomic across them.
//! Runs with `SNIP_TEST_STORE=postgres` (skipped with a message otherwise).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{
    Fetch, Server, client,
    http::{create_json, get_bytes},
    postgres::skip_unless_postgres,
    tenants::{ADMIN, create_status, tenant},
    wait::PATIENCE,
};

fn pair(extra: &[&str]) -> (Server, Server) {
    let admin = format!("--admin-token={ADMIN}");
    let mut args = vec![admin.as_str()];
    args.extend_from_slice(extra);
    Server::start_pair(&args)
}

/// Two instances started at once on a fresh schema both come up (migrations race safely); a paste written through one reads byte for byte through the other, and a delete through one is seen by the other.
#[tokio::test]
async fn write_through_one_read_through_the_other() {
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let (a, b) = pair(&[]);
    let http = client();
    let body: Vec<u8> = (0..=255u8).cycle().take(3 << 20).collect();
    let created = create_json(&http, &a.url, body.clone(), "ttl=1h").await;
    let id = created["id"].as_str().unwrap();
    let token = created["delete_token"].as_str().unwrap();
    assert_eq!(
        get_bytes(&http, &b.at(&format!("/raw/{id}"))).await,
        (200, body)
    );
    let deleted = b.delete(&format!("/{id}"), Some(token)).await;
    assert!(deleted.status().is_success(), "{}", deleted.status());
    assert_eq!(get_bytes(&http, &a.at(&format!("/raw/{id}"))).await.0, 404);
    assert_eq!(get_bytes(&http, &b.at(&format!("/raw/{id}"))).await.0, 404);
}

/// A burn paste created through one instance, revealed by 64 concurrent requests spread over both, gives exactly one 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_reveals_over_two_instances_have_one_winner() {
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let (a, b) = pair(&[]);
    let http = client();
    let created = create_json(&http, &a.url, "only once", "burn=true").await;
    let id = created["id"].as_str().unwrap().to_owned();
    let tasks: Vec<_> = (0..64)
        .map(|n| {
            let url = if n % 2 == 0 { &a.url } else { &b.url };
            let url = format!("{url}/{id}/reveal");
            let http = http.clone();
            tokio::spawn(async move {
                let response = http.post(url).fetch().await;
                (response.status().as_u16(), response.bytes().await.unwrap())
            })
        })
        .collect();
    let mut wins = Vec::new();
    for task in tasks {
        let (status, body) = task.await.unwrap();
        match status {
            200 => wins.push(body),
            404 => {}
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!(wins.len(), 1, "exactly one reveal wins");
    assert_eq!(&wins[0][..], b"only once");
}

/// An encrypted burn paste with a verifier, revealed over both instances at
/// once by right and wrong proofs: wrong ones are refused (or find it gone),
/// exactly one right one reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn proofs_over_two_instances_have_one_reader() {
    use base64::Engine;
    use snip::core::envelope::{self, FinalKey, Header, Key, Meta, Proof};
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let (a, b) = pair(&["--ip-rate=off"]);
    let http = client();
    let key = Key::generate().unwrap();
    let sealed =
        envelope::seal_with(b"proved", &Meta::default(), &key, None, [0; 16], [1; 12], 0).unwrap();
    let proof = FinalKey::for_header(&key, None, &Header::parse(&sealed).unwrap()).proof();
    let verifier = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(proof.verifier());
    let options = format!("encrypted=true&burn=true&verifier={verifier}");
    let created = create_json(&http, &a.url, sealed.clone(), &options).await;
    let id = created["id"].as_str().unwrap().to_owned();
    let wrong = Proof::from_bytes([7; 32]).to_text();
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(64));
    let tasks: Vec<_> = (0..64)
        .map(|n| {
            let url = if n % 2 == 0 { &a.url } else { &b.url };
            let url = format!("{url}/{id}/reveal");
            let right = n % 4 < 2;
            let shown = if right {
                proof.to_text()
            } else {
                wrong.clone()
            };
            let (http, barrier) = (http.clone(), barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                let response = http.post(url).header("x-snip-proof", shown).fetch().await;
                let status = response.status().as_u16();
                (right, status, response.bytes().await.unwrap())
            })
        })
        .collect();
    let mut readers = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            (true, 200, body) => readers.push(body),
            (true, 404, _) | (false, 403 | 404, _) => {}
            (right, status, _) => panic!("right={right}: unexpected status {status}"),
        }
    }
    assert_eq!(readers.len(), 1, "exactly one right proof reads it");
    assert_eq!(&readers[0][..], &sealed[..]);
}

/// A paste that expires is refused by both instances before any sweep, and the sweepers of both remove it exactly once.
#[tokio::test]
async fn expiry_and_sweeping_across_instances() {
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let (a, b) = pair(&["--sweep-interval=1s"]);
    let http = client();
    let mut ids = Vec::new();
    let made = Instant::now();
    for n in 0..40 {
        let via = if n % 2 == 0 { &a } else { &b };
        let created = create_json(&http, &via.url, format!("short-lived {n}"), "ttl=5s").await;
        ids.push(created["id"].as_str().unwrap().to_owned());
    }
    let last = Instant::now();
    let kept = create_json(&http, &a.url, "kept", "ttl=1h").await;
    if made.elapsed() < Duration::from_secs(3) {
        let first = get_bytes(&http, &b.at(&format!("/raw/{}", ids[0]))).await;
        assert_eq!(first.0, 200);
    }
    // Expiry times are whole seconds: wait a second past the last one.
    tokio::time::sleep(Duration::from_secs(6).saturating_sub(last.elapsed())).await;
    for id in &ids {
        assert_eq!(get_bytes(&http, &a.at(&format!("/raw/{id}"))).await.0, 404);
        assert_eq!(get_bytes(&http, &b.at(&format!("/raw/{id}"))).await.0, 404);
    }
    let deadline = Instant::now() + PATIENCE;
    while a.swept_count() + b.swept_count() < 40 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        a.swept_count() + b.swept_count(),
        40,
        "every paste swept exactly once"
    );
    let kept_id = kept["id"].as_str().unwrap();
    assert_eq!(
        get_bytes(&http, &b.at(&format!("/raw/{kept_id}"))).await.0,
        200
    );
}

/// A tenant's byte quota holds when its concurrent creates are spread over both instances.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn quota_is_shared() {
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let (a, b) = pair(&[]);
    let secret = tenant(&a, "team", json!({ "max_bytes": 1000 })).await;
    let tasks: Vec<_> = (0..40)
        .map(|n| {
            let url = if n % 2 == 0 {
                a.url.clone()
            } else {
                b.url.clone()
            };
            tokio::spawn(create_status(url, secret.clone(), vec![b'x'; 100]))
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        match task.await.unwrap() {
            201 => created += 1,
            507 => {}
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!(created, 10, "1000 bytes of quota hold ten 100-byte pastes");
}

/// A tenant limited to 5/s (burst 5) gets about that rate in total when it sends to both instances as fast as it can, not twice it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rate_limit_is_shared() {
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let (a, b) = pair(&[]);
    let secret = tenant(&a, "chatty", json!({ "rate": "5/s", "burst": 5 })).await;
    let window = Duration::from_secs(3);
    let start = Instant::now();
    let tasks: Vec<_> = [a.url.clone(), b.url.clone()]
        .into_iter()
        .map(|url| {
            let secret = secret.clone();
            tokio::spawn(async move {
                let http = client();
                let mut allowed = 0u32;
                while start.elapsed() < window {
                    let status = http
                        .get(format!("{url}/api/pastes"))
                        .bearer_auth(&secret)
                        .fetch()
                        .await
                        .status()
                        .as_u16();
                    match status {
                        200 => allowed += 1,
                        429 => {}
                        other => panic!("unexpected status {other}"),
                    }
                }
                allowed
            })
        })
        .collect();
    let mut total = 0;
    for task in tasks {
        total += task.await.unwrap();
    }
    let elapsed = start.elapsed().as_secs_f64();
    // One shared bucket: the burst plus 5 per second. Two separate buckets would allow twice that.
    let shared = 5.0 + 5.0 * elapsed;
    assert!(
        f64::from(total) <= shared + 3.0 && f64::from(total) >= shared - 5.0,
        "{total} allowed in {elapsed:.1} s; one shared bucket allows about {shared:.0}"
    );
}
