//! Damage found in the PostgreSQL store: a compressed body whose stored
//! stream is cut short, made with SQL behind the server's back. Revealing a
//! burn paste with such a body answers `500` (`corrupt`) and keeps the paste,
//! as the embedded store does; nothing is lost to a failed read.
//! Runs with `SNIP_TEST_STORE=postgres` (skipped with a message otherwise).

use reqwest::Method;
use serde_json::Value;
use tokio_postgres::{Client, NoTls};

use crate::support::postgres::{database_url, skip_unless_postgres};
use crate::support::{Fetch, Server};

const SKIP: &str = "the PostgreSQL damage tests need SNIP_TEST_STORE=postgres";

/// Log lines: text the store keeps compressed.
fn text() -> Vec<u8> {
    (0..200)
        .flat_map(|n| format!("worker-{} handled request {n}: all is well\n", n % 4).into_bytes())
        .collect()
}

/// A connection to the test database.
async fn connect() -> Client {
    let (client, connection) = tokio_postgres::connect(&database_url(), NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// How paste `id`'s row in `schema` stores its body, if the row is there.
async fn encoding(db: &Client, schema: &str, id: &str) -> Option<String> {
    db.query_opt(
        &format!("SELECT body_encoding FROM \"{schema}\".pastes WHERE id = $1"),
        &[&id],
    )
    .await
    .unwrap()
    .map(|row| row.get(0))
}

/// A burn paste whose compressed body is cut in half: each reveal answers
/// `500` `corrupt`, logged once, and the row stays, so the paste is still
/// there (its metadata is served) for whoever repairs or deletes it.
#[tokio::test]
async fn a_burn_paste_with_a_damaged_stream_is_kept() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let server = Server::start();
    let schema = server.schema().unwrap().to_owned();
    let db = connect().await;
    let (id, _) = server.create(text(), "burn=true").await;
    assert_eq!(encoding(&db, &schema, &id).await.as_deref(), Some("zstd"));
    let cut = db
        .execute(
            &format!(
                "UPDATE \"{schema}\".pastes SET body = substr(body, 1, length(body) / 2)
                 WHERE id = $1"
            ),
            &[&id],
        )
        .await
        .unwrap();
    assert_eq!(cut, 1);

    for attempt in 0..2 {
        let response = server
            .request(Method::POST, &format!("/{id}/reveal"))
            .header("accept", "application/json")
            .fetch()
            .await;
        assert_eq!(response.status(), 500, "reveal {attempt}");
        let answer: Value = response.json().await.unwrap();
        assert_eq!(
            answer["error"]["code"], "corrupt",
            "reveal {attempt}: {answer}"
        );
        assert_eq!(
            encoding(&db, &schema, &id).await.as_deref(),
            Some("zstd"),
            "reveal {attempt} deleted the paste"
        );
    }
    assert_eq!(server.metadata(&id).await.0, 200);
    // One log line per failed reveal, naming the route and the damage.
    assert!(
        server.wait_for_request_logs().await,
        "{}",
        server.log_text()
    );
    let logged = server.log_lines();
    let damaged: Vec<&String> = logged
        .iter()
        .filter(|line| line.contains("stored data is damaged"))
        .collect();
    assert_eq!(damaged.len(), 2, "{}", server.log_text());
    assert!(damaged.iter().all(|line| line.contains("/{id}/reveal")));
}

/// A GET of a burn paste is answered from its metadata: the database does
/// not even send its body, so a damaged stream does not turn the `409` (or
/// the interstitial) into a `500`.
#[tokio::test]
async fn get_of_a_burn_paste_does_not_read_its_body() {
    if skip_unless_postgres(SKIP) {
        return;
    }
    let server = Server::start();
    let schema = server.schema().unwrap().to_owned();
    let db = connect().await;
    let large: Vec<u8> = (0..100).flat_map(|_| text()).collect();
    for body in [text(), large] {
        let (id, _) = server.create(body, "burn=true").await;
        assert_eq!(encoding(&db, &schema, &id).await.as_deref(), Some("zstd"));
        db.execute(
            &format!("UPDATE \"{schema}\".pastes SET body = '\\xdeadbeef' WHERE id = $1"),
            &[&id],
        )
        .await
        .unwrap();
        for path in [format!("/{id}"), format!("/raw/{id}")] {
            assert_eq!(server.get(&path).await.status(), 409, "{path}");
        }
        let page = server
            .request(Method::GET, &format!("/{id}"))
            .header("accept", "text/html")
            .fetch()
            .await;
        assert_eq!(page.status(), 200);
    }
}
