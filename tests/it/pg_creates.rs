//! Creates on PostgreSQL, which share round trips when they arrive
//! together: each concurrent create is stored once, under its own ID, with
//! its own body, and the storage limit counts every one exactly.
//! Runs with `SNIP_TEST_STORE=postgres` (skipped with a message otherwise).

use std::collections::HashSet;

use crate::support::{Fetch, Server, client, postgres::skip_unless_postgres};

const SKIP: &str = "the PostgreSQL create tests need SNIP_TEST_STORE=postgres";

/// Sends `count` creates at once (body `prefix-N`); returns (status, ID or "") of each, in order.
async fn create_at_once(server: &Server, count: usize, prefix: &str) -> Vec<(u16, String)> {
    let tasks: Vec<_> = (0..count)
        .map(|n| {
            let url = server.at("/");
            let body = format!("{prefix}-{n}");
            tokio::spawn(async move {
                let response = client()
                    .post(url)
                    .header("accept", "application/json")
                    .body(body)
                    .fetch()
                    .await;
                let status = response.status().as_u16();
                let answer: serde_json::Value = response.json().await.unwrap();
                (status, answer["id"].as_str().unwrap_or("").to_owned())
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.unwrap());
    }
    outcomes
}

/// 48 creates at once all succeed, with 48 IDs, each reading back its own body.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_creates_are_each_stored_once() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let server = Server::start();
    let outcomes = create_at_once(&server, 48, "together").await;
    let ids: HashSet<&str> = outcomes.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(ids.len(), 48, "IDs are distinct");
    for (n, (status, id)) in outcomes.iter().enumerate() {
        assert_eq!(*status, 201);
        let (status, body) = server.text(&format!("/raw/{id}")).await;
        assert_eq!((status, body), (200, format!("together-{n}")));
    }
}

/// With `--max-storage=1KiB`, of 40 creates of 98 or 99 bytes sent at
/// once exactly 10 are stored (11 would not fit) and the others refused
/// with 507, which gives their reservations back without freeing room.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_storage_limit_counts_concurrent_creates_exactly() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let server = Server::start_with(&["--max-storage=1KiB"]);
    let outcomes = create_at_once(&server, 40, &"x".repeat(96)).await;
    let stored: Vec<&str> = outcomes
        .iter()
        .filter(|(status, _)| *status == 201)
        .map(|(_, id)| id.as_str())
        .collect();
    assert_eq!(stored.len(), 10, "{outcomes:?}");
    assert!(
        outcomes.iter().all(|(s, _)| *s == 201 || *s == 507),
        "{outcomes:?}"
    );
    let again = create_at_once(&server, 2, &"y".repeat(96)).await;
    assert!(again.iter().all(|(s, _)| *s == 507), "{again:?}");
    for id in stored {
        assert_eq!(server.status(&format!("/raw/{id}")).await, 200);
    }
}
