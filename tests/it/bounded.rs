//! Bounded work per request: whatever one request asks for, the server's
//! work and memory for it stay bounded (ranges, HTML views, bodies in
//! flight, admin requests, readiness).

use reqwest::StatusCode;

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
