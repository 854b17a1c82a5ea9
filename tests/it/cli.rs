//! The `snip` command-line client against a real server.

use std::process::{Command, Output};

use crate::support::{
    Fetch, Server,
    cli::{run_cli, stderr, stdout, two_source_files},
    client,
    ports::NOWHERE,
};

/// Runs `snip ARGS` against `server` with `stdin`, with its own token directory.
fn snip(server: &Server, client_dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> Output {
    run_cli(server, client_dir, &[], args, stdin)
}

/// put from stdin prints a URL; get prints the bytes; delete uses the remembered token.
#[tokio::test]
async fn put_get_delete() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<u8> = (0..=255u8).collect();
    let put = snip(
        &server,
        dir.path(),
        &["put", "--ttl", "1h", "--lang", "text"],
        &body,
    );
    assert!(put.status.success(), "{}", stderr(&put));
    let url = stdout(&put).trim().to_owned();
    assert!(url.starts_with(&server.url), "{url}");

    let get = snip(&server, dir.path(), &["get", &url], b"");
    assert!(get.status.success());
    assert_eq!(get.stdout, body);

    let delete = snip(&server, dir.path(), &["delete", &url], b"");
    assert!(delete.status.success(), "{}", stderr(&delete));
    assert_eq!(client().get(&url).fetch().await.status(), 404);

    let again = snip(&server, dir.path(), &["get", &url], b"");
    assert!(!again.status.success());
    assert!(stderr(&again).contains("404"));
}

/// put --each of files names each paste after its file; get accepts raw URLs and bare IDs.
#[tokio::test]
async fn put_files() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_source_files(dir.path());
    let put = snip(
        &server,
        dir.path(),
        &["put", "--each", a.to_str().unwrap(), b.to_str().unwrap()],
        b"",
    );
    assert!(put.status.success());
    let urls: Vec<String> = stdout(&put).lines().map(str::to_owned).collect();
    assert_eq!(urls.len(), 2);
    let id = urls[1].rsplit('/').next().unwrap();
    let (status, meta) = server.metadata(id).await;
    assert_eq!(status, 200);
    assert_eq!(meta["name"], "b.py");
    let by_id = snip(&server, dir.path(), &["get", id], b"");
    assert_eq!(stdout(&by_id), "def b(): pass");
    let raw_url = server.at(&format!("/raw/{id}"));
    assert_eq!(
        stdout(&snip(&server, dir.path(), &["get", &raw_url], b"")),
        "def b(): pass"
    );
}

/// get reveals a burn paste (once); a second get fails with a clear message.
#[tokio::test]
async fn get_reveals_burn_pastes() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let put = snip(&server, dir.path(), &["put", "--burn"], b"burn me");
    let url = stdout(&put).trim().to_owned();
    let first = snip(&server, dir.path(), &["get", &url], b"");
    assert_eq!(stdout(&first), "burn me");
    let second = snip(&server, dir.path(), &["get", &url], b"");
    assert!(!second.status.success());
    assert!(stderr(&second).contains("no such paste"));
}

/// Failures exit non-zero with a message: bad ttl, unreachable server, wrong token.
#[tokio::test]
async fn errors_are_reported() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let bad_ttl = snip(&server, dir.path(), &["put", "--ttl", "soon"], b"x");
    assert!(!bad_ttl.status.success());
    assert!(stderr(&bad_ttl).contains("ttl"));

    let url = stdout(&snip(&server, dir.path(), &["put"], b"x"))
        .trim()
        .to_owned();
    let wrong = snip(
        &server,
        dir.path(),
        &["delete", "--token", "nope", &url],
        b"",
    );
    assert!(!wrong.status.success());
    assert!(stderr(&wrong).contains("403"));

    let other_dir = tempfile::tempdir().unwrap();
    let unknown = snip(&server, other_dir.path(), &["delete", &url], b"");
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("--token"));

    let nowhere = Command::new(env!("CARGO_BIN_EXE_snip"))
        .args(["get", &format!("http://127.0.0.1:{NOWHERE}/22222222222222")])
        .output()
        .unwrap();
    assert!(!nowhere.status.success());
    // The cause, not the HTTP client's layers around it.
    assert!(
        stderr(&nowhere).starts_with(&format!(
            "snip: cannot reach http://127.0.0.1:{NOWHERE}/: Connection refused"
        )),
        "{}",
        stderr(&nowhere)
    );
    assert_eq!(stderr(&nowhere).lines().count(), 1);
}
