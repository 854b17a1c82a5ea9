//! The server's TOML file (`--config`): typed keys, TOML arrays for the
//! options that take a list, errors that name the file, the line and the
//! key, and its place below the environment and the flags.

use std::path::PathBuf;

use reqwest::StatusCode;
use tempfile::TempDir;

use crate::support::{Fetch, Server, cli::failed, client};

/// Writes `text` as `snip.toml` in a fresh directory; the directory (which
/// removes the file when dropped) and the file's path.
fn config_file(text: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snip.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// `--config=PATH` for `path`.
fn config_flag(path: &std::path::Path) -> String {
    format!("--config={}", path.display())
}

/// The URL the server prints for a paste created through a proxy that says
/// the client used `https://paste.example.com`.
async fn url_through_proxy(server: &Server) -> String {
    let response = client()
        .post(server.at("/"))
        .header("x-forwarded-proto", "https")
        .header("host", "paste.example.com")
        .body("x")
        .fetch()
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.text().await.unwrap()
}

/// `trusted-proxy` takes a TOML array: the proxies it lists are believed,
/// and a list that leaves this client out is not. The flag's
/// comma-separated string still works in the file too.
#[tokio::test]
async fn a_list_option_takes_a_toml_array() {
    let (_dir, trusting) = config_file("trusted-proxy = [\"127.0.0.1/32\", \"::1/128\"]\n");
    let server = Server::start_with(&[&config_flag(&trusting)]);
    let url = url_through_proxy(&server).await;
    assert!(url.starts_with("https://paste.example.com/"), "{url}");

    let (_dir, elsewhere) = config_file("trusted-proxy = [\"10.0.0.0/8\", \"::1/128\"]\n");
    let server = Server::start_with(&[&config_flag(&elsewhere)]);
    let url = url_through_proxy(&server).await;
    assert!(url.starts_with(&server.url), "{url}");

    let (_dir, string) = config_file("trusted-proxy = \"10.0.0.0/8,127.0.0.1/32\"\n");
    let server = Server::start_with(&[&config_flag(&string)]);
    let url = url_through_proxy(&server).await;
    assert!(url.starts_with("https://paste.example.com/"), "{url}");
}

/// Runs `snip serve --config=PATH` and returns what it printed when it refused to start.
fn refused(path: &std::path::Path) -> String {
    let data = path.with_file_name("data");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .arg("serve")
        .arg(config_flag(path))
        .arg(format!("--data-dir={}", data.display()))
        .arg("--listen=127.0.0.1:0")
        .env_remove("SNIP_CONFIG")
        .output()
        .unwrap();
    failed(&out)
}

/// A file with an unknown key, a value its option refuses, or a value of
/// the wrong kind does not start the server; the message names the file,
/// the line and the key.
#[test]
fn a_bad_file_is_refused_naming_file_line_and_key() {
    let (_dir, path) =
        config_file("# the server\nlisten = \"127.0.0.1:0\"\nlisten-adress = \"0.0.0.0:80\"\n");
    let message = refused(&path);
    let place = format!("config file {}, line 3", path.display());
    assert!(message.contains(&place), "{message}");
    assert!(message.contains("unknown key 'listen-adress'"), "{message}");

    let (_dir, path) = config_file("sync = true\nmax-paste-size = \"2GiB\"\n");
    let message = refused(&path);
    let place = format!("config file {}, line 2", path.display());
    assert!(message.contains(&place), "{message}");
    assert!(message.contains("max-paste-size"), "{message}");
    assert!(message.contains("at most 1073741824 bytes"), "{message}");

    let (_dir, path) = config_file("search-concurrency = 0\n");
    let message = refused(&path);
    assert!(message.contains("line 1"), "{message}");
    assert!(message.contains("search-concurrency"), "{message}");
    assert!(message.contains("from 1 to 1024"), "{message}");

    let (_dir, path) = config_file("\n\ntrusted-proxy = [\"127.0.0.1/32\", 8]\n");
    let message = refused(&path);
    let place = format!("config file {}, line 3", path.display());
    assert!(message.contains(&place), "{message}");
    assert!(message.contains("trusted-proxy"), "{message}");

    let (_dir, path) = config_file("[tls]\ncert = \"/etc/snip/cert.pem\"\n");
    let message = refused(&path);
    assert!(message.contains("line 1"), "{message}");
    assert!(message.contains("unknown key 'tls'"), "{message}");
}

/// Options the file gives are checked together like flags: a certificate
/// without its key does not start the server.
#[test]
fn file_options_are_checked_together() {
    let (_dir, path) = config_file("tls-cert = \"/etc/snip/cert.pem\"\n");
    let message = refused(&path);
    assert!(message.contains("--tls-key"), "{message}");
}

/// Whether `server` takes a paste of `len` bytes (else it answers 413).
async fn takes(server: &Server, len: usize) -> bool {
    let status = server.post("/", "x".repeat(len)).await.status();
    assert!(
        status == StatusCode::CREATED || status == StatusCode::PAYLOAD_TOO_LARGE,
        "{status}"
    );
    status == StatusCode::CREATED
}

/// The file beats the default, an environment variable beats the file, and
/// a flag beats both.
#[tokio::test]
async fn a_flag_beats_the_environment_which_beats_the_file() {
    let (_dir, path) = config_file("max-paste-size = \"10B\"\n");
    let config = config_flag(&path);
    let env = [("SNIP_MAX_PASTE_SIZE", "20B")];

    let file = Server::start_with(&[&config]);
    assert!(takes(&file, 10).await && !takes(&file, 11).await);

    let file_and_env = Server::start_with_env(&[&config], &env);
    assert!(takes(&file_and_env, 20).await && !takes(&file_and_env, 21).await);

    let all = Server::start_with_env(&[&config, "--max-paste-size=30B"], &env);
    assert!(takes(&all, 30).await && !takes(&all, 31).await);
}
