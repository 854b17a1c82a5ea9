//! Burn after reading: reads are harmless, only an explicit reveal consumes, and exactly once.

use reqwest::{Method, StatusCode};

use crate::support::{Fetch, Server, client};

/// GET and HEAD with any Accept never consume a burn paste; metadata shows it is one.
#[tokio::test]
async fn reads_do_not_burn() {
    let server = Server::start();
    let (id, _) = server.create("top secret", "burn=true").await;
    for _ in 0..3 {
        for accept in ["*/*", "text/html", "application/json", "text/plain"] {
            for path in [
                format!("/{id}"),
                format!("/raw/{id}"),
                format!("/download/{id}"),
            ] {
                let _ = server.get_accepting(&path, accept).await;
                let _ = server
                    .request(Method::HEAD, &path)
                    .header("accept", accept)
                    .fetch()
                    .await;
            }
        }
    }
    let (status, meta) = server.metadata(&id).await;
    assert_eq!(status, 200);
    assert_eq!(meta["burn"], true);
    let reveal = server.reveal(&id).await;
    assert_eq!(reveal.status(), 200);
    assert_eq!(reveal.text().await.unwrap(), "top secret");
}

/// Non-browsers get `409` naming the exact reveal command; browsers an interstitial with a button.
#[tokio::test]
async fn get_explains_how_to_reveal() {
    let server = Server::start();
    let (id, _) = server.create("top secret", "burn=1").await;
    let curl = server.get(&format!("/{id}")).await;
    assert_eq!(curl.status(), StatusCode::CONFLICT);
    let hint = curl.text().await.unwrap();
    assert!(
        hint.contains(&format!("curl -X POST {}/{id}/reveal", server.url)),
        "{hint}"
    );
    assert!(!hint.contains("top secret"));
    assert_eq!(server.get(&format!("/raw/{id}")).await.status(), 409);

    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains(&format!("action=\"/{id}/reveal\"")));
    assert!(!html.contains("top secret"));
}

/// The reveal destroys it: the second reveal and every later read are `404`.
#[tokio::test]
async fn reveal_is_once() {
    let server = Server::start();
    let (id, _) = server.create("once", "burn=true").await;
    let first = server
        .request(Method::POST, &format!("/{id}/reveal"))
        .header("accept", "text/html")
        .fetch()
        .await;
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["cache-control"], "no-store");
    assert!(first.text().await.unwrap().contains("once"));
    for path in [
        format!("/{id}"),
        format!("/raw/{id}"),
        format!("/api/pastes/{id}"),
    ] {
        assert_eq!(server.get(&path).await.status(), 404, "{path}");
    }
    let second = server.reveal(&id).await;
    assert_eq!(second.status(), 404);
}

/// 64 concurrent reveals: exactly one gets `200` and the content, all others `404`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_reveals_have_one_winner() {
    let server = Server::start();
    for round in 0..5 {
        let secret = format!("secret number {round}");
        let (id, _) = server.create(secret.clone(), "burn=true").await;
        let url = server.at(&format!("/{id}/reveal"));
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(64));
        let tasks: Vec<_> = (0..64)
            .map(|_| {
                let (url, barrier) = (url.clone(), barrier.clone());
                tokio::spawn(async move {
                    let client = client();
                    barrier.wait().await;
                    let response = client.post(url).fetch().await;
                    (response.status(), response.text().await.unwrap())
                })
            })
            .collect();
        let mut winners = Vec::new();
        for task in tasks {
            let (status, body) = task.await.unwrap();
            match status.as_u16() {
                200 => winners.push(body),
                404 => {}
                other => panic!("unexpected status {other}"),
            }
        }
        assert_eq!(winners, vec![secret], "round {round}");
    }
}

/// Reveal on an ordinary paste is a plain read that deletes nothing.
#[tokio::test]
async fn reveal_of_ordinary_paste_keeps_it() {
    let server = Server::start();
    let (id, _) = server.create("stays", "").await;
    for _ in 0..2 {
        let response = server.reveal(&id).await;
        assert_eq!(response.text().await.unwrap(), "stays");
    }
}
