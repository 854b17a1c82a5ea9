//! Bounded work per request: whatever one request asks for, the server's
//! work and memory for it stay bounded (ranges, HTML views, bodies in
//! flight, admin requests, readiness).

use reqwest::{Method, StatusCode};

use crate::support::{Fetch, Server, client};

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
/// (its line anchors intact) and says that the whole paste is at `/raw`.
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
}

/// One huge line is cut by size; a burn paste's reveal page is bounded too.
#[tokio::test]
async fn html_view_and_reveal_of_a_long_line_are_bounded() {
    let server = Server::start();
    let long = vec![b'a'; 4 << 20];
    let (id, _) = server.create(long.clone(), "").await;
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    let page = page.text().await.unwrap();
    assert!(page.len() < 1 << 20, "page of {} bytes", page.len());
    assert_says_rest_is_raw(&page, &id);

    let (burn, _) = server.create(long, "burn=true").await;
    let revealed = server
        .request(Method::POST, &format!("/{burn}/reveal"))
        .header("accept", "text/html")
        .fetch()
        .await;
    assert_eq!(revealed.status(), StatusCode::OK);
    let revealed = revealed.text().await.unwrap();
    assert!(revealed.len() < 1 << 20, "page of {} bytes", revealed.len());
    assert!(revealed.contains("id=\"truncated\""));
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
