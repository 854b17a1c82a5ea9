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

/// Reveals a burn paste as a browser's form does (no script): `Accept: text/html`.
async fn reveal_from_a_form(server: &Server, id: &str) -> reqwest::Response {
    server
        .request(Method::POST, &format!("/{id}/reveal"))
        .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .fetch()
        .await
}

/// A form (no script) cannot decrypt an encrypted burn paste, so its reveal
/// leaves the paste intact and says why (`409`); the interstitial says so
/// beforehand. The script's reveal (`Accept: */*`) still gets the ciphertext, once.
#[tokio::test]
async fn a_form_does_not_destroy_an_encrypted_burn_paste() {
    let server = Server::start();
    let (id, _) = server
        .create("SNIP-ciphertext", "burn=true&encrypted=true")
        .await;
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    let page = page.text().await.unwrap();
    assert!(page.contains("the button leaves it intact"), "{page}");

    let refused = reveal_from_a_form(&server, &id).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let text = refused.text().await.unwrap();
    assert!(text.contains("needs JavaScript"), "{text}");
    assert!(text.contains("still there"), "{text}");
    assert!(!text.contains("SNIP-ciphertext"));
    assert_eq!(server.metadata(&id).await.0, 200, "the paste was destroyed");

    let revealed = server
        .request(Method::POST, &format!("/{id}/reveal"))
        .header("accept", "*/*")
        .fetch()
        .await;
    assert_eq!(revealed.status(), 200);
    assert_eq!(revealed.text().await.unwrap(), "SNIP-ciphertext");
    assert_eq!(server.reveal(&id).await.status(), 404);
}

/// A burn paste larger than the page shows is revealed to a form as its
/// whole body (plain text), never as a cut page linking a `/raw` that is
/// gone; one the page shows whole is a page without such links.
#[tokio::test]
async fn a_form_reveal_gives_the_whole_paste() {
    let server = Server::start();
    let large: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
    let (id, _) = server.create(large.clone(), "burn=true").await;
    let revealed = reveal_from_a_form(&server, &id).await;
    assert_eq!(revealed.status(), 200);
    assert_eq!(revealed.headers()["cache-control"], "no-store");
    assert!(
        revealed.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain"),
        "{:?}",
        revealed.headers()
    );
    assert_eq!(revealed.text().await.unwrap(), large);
    assert_eq!(server.get(&format!("/raw/{id}")).await.status(), 404);

    let (small, _) = server.create("one\ntwo\n", "burn=true").await;
    let page = reveal_from_a_form(&server, &small).await;
    assert_eq!(page.status(), 200);
    let page = page.text().await.unwrap();
    assert!(page.contains("id=\"L2\""), "{page}");
    assert!(!page.contains(&format!("/raw/{small}")), "{page}");
    assert!(!page.contains(&format!("/download/{small}")), "{page}");
}

/// A GET of a burn paste is answered from its metadata: its body is not
/// read, so a body file that is damaged does not turn the `409` (or the
/// interstitial) into a `500`. The embedded store's body files; PostgreSQL's
/// rows are damaged in `pg_damage`.
#[tokio::test]
async fn get_of_a_burn_paste_does_not_read_its_body() {
    if crate::support::postgres::skip_on_postgres("body files are the embedded store's") {
        return;
    }
    let server = Server::start();
    let body: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
    let (id, _) = server.create(body, "burn=true").await;
    let path = server.data_dir.join("bodies").join(&id[..2]).join(&id);
    let mut file = std::fs::read(&path).unwrap();
    file[100] ^= 0x01;
    std::fs::write(&path, file).unwrap();
    for path in [
        format!("/{id}"),
        format!("/raw/{id}"),
        format!("/download/{id}"),
    ] {
        assert_eq!(server.get(&path).await.status(), 409, "{path}");
    }
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("/reveal"));
}
