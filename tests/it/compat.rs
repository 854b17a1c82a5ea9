//! Clients nobody here wrote: rustypaste's `rpaste` (the real binary, from
//! crates.io), the hastebin API over plain HTTP, and the netcat port over a
//! socket.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::http::{Fetch, client, read_until_closed};
use crate::support::server::Server;
use crate::support::tenants;

/// The `rpaste` binary: on `PATH`, or where `cargo install` puts it. Without
/// it the caller is skipped, except under CI (`.ci/run` installs it).
fn rpaste() -> Option<String> {
    let installed = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .map(|home| home.join("bin/rpaste"));
    let found = ["rpaste".into()]
        .into_iter()
        .chain(installed.map(|p| p.display().to_string()))
        .find(|bin| {
            Command::new(bin)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "rpaste is not installed (cargo install rustypaste-cli --locked); .ci/run installs it"
        );
        eprintln!("SKIPPED: rpaste is not installed (cargo install rustypaste-cli --locked)");
    }
    found
}

/// What one run of `rpaste` printed: (standard output, standard error).
struct Printed {
    out: String,
    err: String,
}

/// Runs `rpaste` against `server` with `args` (and `stdin`, if any), from
/// a directory of its own holding its configuration, so that no user's
/// configuration is read.
fn run_rpaste(bin: &str, dir: &Path, server: &Server, args: &[&str], stdin: &[u8]) -> Printed {
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!("[server]\naddress = \"{}\"\n\n[paste]\n", server.url),
    )
    .unwrap();
    let mut child = Command::new(bin)
        .arg("-c")
        .arg(&config)
        .args(args)
        .current_dir(dir)
        .env_remove("RPASTE_CONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().unwrap();
    Printed {
        out: String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        err: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    }
}

/// The paste ID at the end of a printed URL of `server`.
fn id_of(server: &Server, printed: &Printed) -> String {
    let id = printed
        .out
        .strip_prefix(&format!("{}/", server.url))
        .unwrap_or_else(|| {
            panic!(
                "no URL of {}: {:?} {:?}",
                server.url, printed.out, printed.err
            )
        });
    id.to_owned()
}

/// `rpaste FILE`, `rpaste -` (standard input) and `rpaste -e 10min` each
/// print the new paste's URL; the file keeps its name, the expiry is asked
/// for by the `expire` header.
#[tokio::test]
async fn rpaste_uploads_files_and_stdin() {
    let Some(bin) = rpaste() else { return };
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# notes\nfrom a file\n").unwrap();

    let printed = run_rpaste(&bin, dir.path(), &server, &["notes.md"], b"");
    let id = id_of(&server, &printed);
    let raw = server.text(&format!("/raw/{id}")).await;
    assert_eq!(raw, (200, "# notes\nfrom a file\n".to_owned()));
    let (_, meta) = server.metadata(&id).await;
    assert_eq!(meta["name"], "notes.md");
    assert_eq!(meta["burn"], false);

    let printed = run_rpaste(&bin, dir.path(), &server, &["-"], b"piped in\n");
    let id = id_of(&server, &printed);
    assert_eq!(
        server.text(&format!("/raw/{id}")).await,
        (200, "piped in\n".to_owned())
    );

    let printed = run_rpaste(&bin, dir.path(), &server, &["-e", "10min", "notes.md"], b"");
    let id = id_of(&server, &printed);
    let (_, meta) = server.metadata(&id).await;
    let created = meta["created_at"].as_str().unwrap();
    let expires = meta["expires_at"].as_str().unwrap();
    let lifetime = seconds(expires) - seconds(created);
    assert!((600..=601).contains(&lifetime), "{created} → {expires}");
}

/// Seconds since the epoch of an RFC 3339 time as the API prints it.
fn seconds(rfc3339: &str) -> i64 {
    humantime::parse_rfc3339(rfc3339)
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// `rpaste -o` makes a burn paste: a plain read (a link preview) leaves it
/// alone, the reveal reads and destroys it.
#[tokio::test]
async fn rpaste_oneshot_is_a_burn_paste() {
    let Some(bin) = rpaste() else { return };
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret.txt"), "read me once").unwrap();
    let printed = run_rpaste(&bin, dir.path(), &server, &["-o", "secret.txt"], b"");
    let id = id_of(&server, &printed);
    assert_eq!(server.status(&format!("/raw/{id}")).await, 409);
    assert_eq!(server.status(&format!("/{id}")).await, 409);
    let revealed = server.reveal(&id).await;
    assert_eq!(revealed.status(), 200);
    assert_eq!(revealed.text().await.unwrap(), "read me once");
    assert_eq!(server.status(&format!("/raw/{id}")).await, 404);
}

/// `rpaste -u URL` makes a short link; `rpaste -r URL` (the server fetches
/// a remote file) is refused with a message saying so.
#[tokio::test]
async fn rpaste_short_links_and_refused_remote_urls() {
    let Some(bin) = rpaste() else { return };
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let target = "https://example.com/a/long/path?q=1";
    let printed = run_rpaste(&bin, dir.path(), &server, &["-u", target], b"");
    let id = id_of(&server, &printed);
    let response = server.get(&format!("/{id}")).await;
    assert_eq!(response.status(), 302);
    assert_eq!(response.headers()["location"], target);

    let printed = run_rpaste(
        &bin,
        dir.path(),
        &server,
        &["-r", "http://127.0.0.1:1/x"],
        b"",
    );
    assert_eq!(printed.out, "");
    assert!(
        printed.err.contains("does not fetch remote URLs") && printed.err.contains("400"),
        "{}",
        printed.err
    );
}

/// `rpaste -a TOKEN` sends the bare token as `Authorization`, which a
/// server without anonymous pastes takes as the tenant's; without it the
/// refusal is printed.
#[tokio::test]
async fn rpaste_with_a_tenant_token() {
    let Some(bin) = rpaste() else { return };
    let server = tenants::start(&["--anonymous=off"]);
    let token = tenants::tenant(&server, "team", json!({})).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("team.txt"), "ours").unwrap();

    let printed = run_rpaste(&bin, dir.path(), &server, &["team.txt"], b"");
    assert_eq!(printed.out, "");
    assert!(printed.err.contains("401"), "{}", printed.err);

    let printed = run_rpaste(&bin, dir.path(), &server, &["-a", &token, "team.txt"], b"");
    let id = id_of(&server, &printed);
    let page = tenants::list(&server, &token, "").await;
    assert_eq!(tenants::ids(&page), vec![id]);
}

/// A multipart form with a plain-text answer is `200` (as form uploads are
/// answered elsewhere); a raw body keeps its `201`, and a form asking for
/// JSON gets `201` and JSON.
#[tokio::test]
async fn form_uploads_answer_200_and_raw_bodies_201() {
    let server = Server::start();
    let form = |accept: &str| {
        server
            .request(Method::POST, "/")
            .header("content-type", "multipart/form-data; boundary=b")
            .header("accept", accept)
            .body("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nform\r\n--b--\r\n")
    };
    let text = form("*/*").fetch().await;
    assert_eq!(text.status(), 200);
    assert!(text.headers().contains_key("x-delete-token"));
    let url = text.text().await.unwrap();
    assert!(
        url.starts_with(&server.url) && url.ends_with('\n'),
        "{url:?}"
    );
    assert_eq!(form("application/json").fetch().await.status(), 201);
    assert_eq!(server.post("/", "raw").await.status(), 201);
}

/// rustypaste's headers and fields outside `rpaste`: `expire` and
/// `filename` headers set the TTL and the name (the query wins), a bad
/// `expire` is a `400` naming the header, and `oneshot_url` (a burn short
/// link) is refused like `url` with `burn`.
#[tokio::test]
async fn rustypaste_headers_and_fields() {
    let server = Server::start();
    let response = server
        .request(Method::POST, "/?name=query.txt")
        .header("accept", "application/json")
        .header("expire", "1h")
        .header("filename", "header.txt")
        .body("x")
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let json: Value = response.json().await.unwrap();
    let (_, meta) = server.metadata(json["id"].as_str().unwrap()).await;
    assert_eq!(meta["name"], "query.txt");
    let lifetime = seconds(meta["expires_at"].as_str().unwrap())
        - seconds(meta["created_at"].as_str().unwrap());
    assert!((3600..=3601).contains(&lifetime), "{meta}");

    let response = server
        .request(Method::POST, "/")
        .header("expire", "soon")
        .body("x")
        .fetch()
        .await;
    assert_eq!(response.status(), 400);
    assert!(response.text().await.unwrap().contains("expire header"));

    let response = server
        .request(Method::POST, "/")
        .header("content-type", "multipart/form-data; boundary=b")
        .body("--b\r\nContent-Disposition: form-data; name=\"oneshot_url\"\r\n\r\nhttps://example.com/\r\n--b--\r\n")
        .fetch()
        .await;
    assert_eq!(response.status(), 400);
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("short link cannot be burn")
    );
}

/// The hastebin API: `POST /documents` answers the key, `GET
/// /documents/{key}` the key and the text, `GET /raw/{key}` the bytes.
#[tokio::test]
async fn hastebin_create_and_read() {
    let server = Server::start();
    let response = server.post("/documents", "hello from haste\n").await;
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("x-delete-token"));
    let json: Value = response.json().await.unwrap();
    let key = json["key"].as_str().unwrap().to_owned();
    assert_eq!(json, json!({ "key": key }));

    let (status, document) = server.json(&format!("/documents/{key}")).await;
    assert_eq!(status, 200);
    assert_eq!(
        document,
        json!({ "key": key, "data": "hello from haste\n" })
    );
    assert_eq!(
        server.text(&format!("/raw/{key}")).await,
        (200, "hello from haste\n".to_owned())
    );
}

/// What the hastebin read cannot answer: bytes that are not text (`406`,
/// naming `/raw`), a burn paste (`409`, and it stays), an unknown key
/// (`404`); a create without content is `400`, and under `--anonymous=off`
/// an anonymous create is `401`.
#[tokio::test]
async fn hastebin_refusals() {
    let server = Server::start();
    let binary = server.create(vec![0xff, 0xfe, 0x00, 0x80], "").await.0;
    let response = server
        .get_accepting(&format!("/documents/{binary}"), "application/json")
        .await;
    assert_eq!(response.status(), 406);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["error"]["code"], "not_text");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/raw/")
    );

    let burn = server
        .post("/documents?burn=true", "once")
        .await
        .json::<Value>()
        .await
        .unwrap()["key"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(server.status(&format!("/documents/{burn}")).await, 409);
    assert_eq!(server.reveal(&burn).await.text().await.unwrap(), "once");

    let (unknown, token) = server.create("x", "").await;
    let deleted = server.delete(&format!("/{unknown}"), Some(&token)).await;
    assert!(deleted.status().is_success());
    assert_eq!(server.status(&format!("/documents/{unknown}")).await, 404);
    assert_eq!(server.post("/documents", "").await.status(), 400);

    let closed = Server::start_with(&["--anonymous=off"]);
    assert_eq!(closed.post("/documents", "x").await.status(), 401);
}

/// The netcat port's address, from the server's log.
fn netcat_addr(server: &Server) -> String {
    server.logged_value("taking pastes from netcat on ")
}

/// Sends `input` to the netcat port, half-closing after it when `half_close`,
/// and returns what the server wrote back before it closed the connection.
async fn netcat(addr: &str, input: &[u8], half_close: bool) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(input).await.unwrap();
    if half_close {
        stream.shutdown().await.unwrap();
    }
    let answer = read_until_closed(&mut stream, Duration::from_secs(20))
        .await
        .expect("the server closes the connection after its answer");
    String::from_utf8(answer).unwrap()
}

/// `echo hi | nc host port`: what a client sends until it half-closes, or
/// until it goes quiet (OpenBSD's `nc` without `-N`), becomes a paste, and
/// its URL comes back.
#[tokio::test]
async fn netcat_port_stores_what_it_gets() {
    let server = Server::start_with(&["--netcat-listen=127.0.0.1:0"]);
    let addr = netcat_addr(&server);
    for (input, half_close) in [(&b"half-closed\n"[..], true), (b"went quiet\n", false)] {
        let answer = netcat(&addr, input, half_close).await;
        let url = answer.trim_end();
        assert!(
            answer.ends_with('\n') && url.starts_with(&server.url),
            "{answer:?}"
        );
        let (status, body) = crate::support::http::get_bytes(&client(), url).await;
        assert_eq!((status, body.as_slice()), (200, input));
    }
}

/// The netcat port keeps the HTTP rules: the paste size limit, the
/// anonymous policy and the per-IP rate limit refuse with `error: …`, and
/// it is off unless asked for.
#[tokio::test]
async fn netcat_port_keeps_the_limits() {
    let server = Server::start_with(&["--netcat-listen=127.0.0.1:0", "--max-paste-size=16"]);
    let addr = netcat_addr(&server);
    let answer = netcat(&addr, &[b'x'; 100], true).await;
    assert!(
        answer.starts_with("error: the paste is larger"),
        "{answer:?}"
    );
    assert!(
        netcat(&addr, b"", true)
            .await
            .starts_with("error: the paste is empty")
    );

    let closed = Server::start_with(&["--netcat-listen=127.0.0.1:0", "--anonymous=off"]);
    let answer = netcat(&netcat_addr(&closed), b"anonymous\n", true).await;
    assert!(
        answer.starts_with("error: ") && answer.contains("token"),
        "{answer:?}"
    );

    let limited = Server::start_with(&[
        "--netcat-listen=127.0.0.1:0",
        "--ip-rate=1/h",
        "--ip-burst=1",
    ]);
    let addr = netcat_addr(&limited);
    assert!(
        netcat(&addr, b"first\n", true)
            .await
            .starts_with(&limited.url)
    );
    let answer = netcat(&addr, b"second\n", true).await;
    assert!(answer.starts_with("error: "), "{answer:?}");

    assert!(!server_without_netcat_logs_it());
}

/// Whether a server started without `--netcat-listen` says it takes netcat pastes.
fn server_without_netcat_logs_it() -> bool {
    let server = Server::start();
    assert!(server.wait_for_log("snip listening on"));
    server.log_text().contains("netcat")
}

/// The per-client connection cap covers the netcat port: a client holding
/// its one connection gets the next one closed at once, unanswered.
#[tokio::test]
async fn netcat_port_counts_connections() {
    let server = Server::start_with(&["--netcat-listen=127.0.0.1:0", "--max-connections-per-ip=1"]);
    let addr = netcat_addr(&server);
    let mut held = TcpStream::connect(&addr).await.unwrap();
    held.write_all(b"still typing").await.unwrap();
    let mut refused = TcpStream::connect(&addr).await.unwrap();
    let mut buf = [0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(10), refused.read(&mut buf))
        .await
        .expect("the second connection is closed at once")
        .unwrap_or(0);
    assert_eq!(n, 0);
    held.shutdown().await.unwrap();
    let answer = read_until_closed(&mut held, Duration::from_secs(20))
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&answer).starts_with(&server.url));
}

/// `contrib/sharex/snip.sxcu` describes an upload the server takes: its
/// form, with its headers, answers JSON whose field named by `URL` is the
/// paste's URL.
#[tokio::test]
async fn sharex_uploader_uploads() {
    let server = Server::start();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/sharex/snip.sxcu"),
    )
    .unwrap();
    let sxcu: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(sxcu["RequestMethod"], "POST");
    assert_eq!(sxcu["Body"], "MultipartFormData");
    let path = sxcu["RequestURL"]
        .as_str()
        .unwrap()
        .strip_prefix("https://paste.example.com")
        .unwrap();
    let field = sxcu["FileFormName"].as_str().unwrap();
    let body = format!(
        "--b\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"shot.png\"\r\n\
         Content-Type: image/png\r\n\r\n\u{89}PNG\r\n--b--\r\n"
    );
    let mut request = server
        .request(Method::POST, path)
        .header("content-type", "multipart/form-data; boundary=b")
        .body(body);
    for (name, value) in sxcu["Headers"].as_object().unwrap() {
        request = request.header(name.as_str(), value.as_str().unwrap());
    }
    let answer: Value = request.fetch().await.json().await.unwrap();
    let url_field = sxcu["URL"]
        .as_str()
        .unwrap()
        .strip_prefix("{json:")
        .and_then(|f| f.strip_suffix('}'))
        .unwrap();
    let url = answer[url_field].as_str().unwrap();
    let (status, meta) = server.metadata(url.rsplit('/').next().unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(meta["name"], "shot.png");
    assert_eq!(meta["content_type"], "image/png");
}

/// The netcat port is set by `SNIP_NETCAT_LISTEN` too, and an address that
/// cannot be bound stops the start with a message naming the flag.
#[tokio::test]
async fn netcat_port_by_variable_and_refused_address() {
    let server = Server::start_with_env(&[], &[("SNIP_NETCAT_LISTEN", "127.0.0.1:0")]);
    let answer = netcat(&netcat_addr(&server), b"by variable\n", true).await;
    assert!(answer.starts_with(&server.url), "{answer:?}");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let flag = format!("--netcat-listen={}", taken.local_addr().unwrap());
    let logs = Server::try_start_with(&[&flag])
        .err()
        .expect("snip refuses to start");
    assert!(logs.contains("(--netcat-listen)"), "{logs}");
}
