//! The `snip` client facing links and servers it should not trust: the API
//! token goes only to the configured server, and a paste's escape sequences
//! never reach a terminal as they are.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::support::Server;
use crate::support::cli::{failed, run_cli, run_cli_on_terminal, stdout, succeeded};
use crate::support::tenants;

/// A plain TCP listener standing in for another server: it records the head
/// of every request and answers each with a JSON `404`. Returns its base URL
/// and the heads seen so far.
fn recording_listener() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            record
                .lock()
                .unwrap()
                .push(String::from_utf8_lossy(&head).to_ascii_lowercase());
            let body = r#"{"error":{"code":"not_found","message":"no such paste"}}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\n\
                 content-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, seen)
}

/// A link to another server (another port of the same host is another
/// server) is fetched without the API token: a second real server, which
/// does not know the token and would refuse it with `401`, serves the paste,
/// and a listener that records requests sees no `Authorization`. `delete`
/// of such a link refuses when the API token is all it has (sending
/// nothing), and sends only the delete token when there is one.
#[tokio::test]
async fn the_api_token_stays_with_the_configured_server() {
    let home = tenants::start(&[]);
    let token = tenants::tenant(&home, "me", json!({})).await;
    let env = [("SNIP_TOKEN", token.as_str())];
    let other = Server::start();
    let (id, _) = other.create("elsewhere\n", "").await;
    let dir = tempfile::tempdir().unwrap();

    let get = run_cli(
        &home,
        dir.path(),
        &env,
        &["get", &other.at(&format!("/{id}"))],
        b"",
    );
    let note = succeeded(&get);
    assert_eq!(stdout(&get), "elsewhere\n");
    assert!(note.contains("not the configured server"), "{note}");

    let (elsewhere, seen) = recording_listener();
    let link = format!("{elsewhere}/AAAAAAAAAAAAA");
    failed(&run_cli(&home, dir.path(), &env, &["get", &link], b""));
    let heads = seen.lock().unwrap().clone();
    assert!(!heads.is_empty());
    for head in &heads {
        assert!(!head.contains("authorization"), "{head}");
        assert!(!head.contains(&token.to_ascii_lowercase()), "{head}");
    }

    let refused = failed(&run_cli(&home, dir.path(), &env, &["delete", &link], b""));
    assert!(
        refused.contains("not on the configured server"),
        "{refused}"
    );
    assert!(refused.contains("--token"), "{refused}");
    assert_eq!(
        seen.lock().unwrap().len(),
        heads.len(),
        "a request was sent"
    );

    let args = ["delete", "--token", "a-delete-token", link.as_str()];
    failed(&run_cli(&home, dir.path(), &env, &args, b""));
    let heads = seen.lock().unwrap().clone();
    let delete = heads.last().unwrap();
    assert!(delete.starts_with("delete "), "{delete}");
    assert!(delete.contains("a-delete-token"), "{delete}");
    assert!(!delete.contains("authorization"), "{delete}");

    // The configured server still gets it: the tenant lists its pastes.
    let list = run_cli(&home, dir.path(), &env, &["list"], b"");
    succeeded(&list);
}

/// On a terminal, a text paste's control characters are shown, not obeyed
/// (a title change, colours, a carriage return that hides a line), with a
/// note saying so; a pipe gets the exact bytes.
#[tokio::test]
async fn escape_sequences_do_not_reach_a_terminal() {
    let server = Server::start();
    let hostile = "title\x1b]0;pwned\x07 \x1b[31mred\x1b[0m\rhidden\n";
    let (id, _) = server.create(hostile, "").await;
    let dir = tempfile::tempdir().unwrap();

    let shown = run_cli_on_terminal(&server, dir.path(), &["get", &id]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{text}");
    assert!(!text.contains('\x1b'), "{text:?}");
    assert!(!text.contains('\x07'), "{text:?}");
    assert!(
        text.contains("title^[]0;pwned^G ^[[31mred^[[0m^Mhidden"),
        "{text:?}"
    );
    assert!(text.contains("5 control characters"), "{text:?}");

    let piped = run_cli(&server, dir.path(), &[], &["get", &id], b"");
    succeeded(&piped);
    assert_eq!(piped.stdout, hostile.as_bytes());
}
