//! The HTTP API against a real server: routes, headers, negotiation and errors.

mod common;

use common::{Server, client};

/// `curl --data-binary` style create prints a URL whose GET returns the bytes.
#[tokio::test]
async fn create_then_read_round_trip() {
    let server = Server::start();
    let response = client()
        .post(server.at("/"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("hello=world&x")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(response.headers().contains_key("x-delete-token"));
    let url = response.text().await.unwrap();
    assert!(url.ends_with('\n'));
    assert_eq!(url.trim_end(), location);
    assert!(url.starts_with(&server.url));
    let body = client()
        .get(url.trim_end())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(body, "hello=world&x");
}
