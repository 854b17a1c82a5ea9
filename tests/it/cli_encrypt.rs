//! `snip put --encrypt` and `snip get URL#key` against a real server: round
//! trips, passwords, and what the server gets to see.

use std::process::Output;

use snip::core::api::ProofParams;
use snip::core::envelope::{FinalKey, Key};

use crate::support::{
    Server,
    cli::{
        failed, run_cli, run_cli_in, run_cli_on_terminal_typing, stderr, stdout, two_source_files,
    },
};

/// Runs `snip ARGS` against `server` with `stdin`, its own token directory and
/// the given environment (`SNIP_PASSWORD` only if listed).
fn snip(
    server: &Server,
    client_dir: &std::path::Path,
    args: &[&str],
    stdin: &[u8],
    env: &[(&str, &str)],
) -> Output {
    run_cli(server, client_dir, env, args, stdin)
}

/// Runs a command that must succeed and returns its stdout.
fn ok(output: Output) -> Vec<u8> {
    assert!(output.status.success(), "failed: {}", stderr(&output));
    output.stdout
}

/// Splits a printed `URL#key` line into (url, id, key).
fn split_link(stdout: &[u8]) -> (String, String, String) {
    let line = String::from_utf8(stdout.to_vec()).unwrap();
    let (url, key) = line.trim().split_once('#').expect("no #key in the link");
    assert_eq!(key.len(), 43, "{key}");
    let id = url.rsplit('/').next().unwrap().to_owned();
    (url.to_owned(), id, key.to_owned())
}

/// The stored ciphertext, read with the proof of `key` and `password`
/// (without it, the server refuses: see `raw_needs_the_proof`).
async fn raw(server: &Server, id: &str, key: &str, password: Option<&str>) -> Vec<u8> {
    let response = server
        .request(reqwest::Method::GET, &format!("/raw/{id}"))
        .header("x-snip-proof", proof(server, id, key, password).await)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.bytes().await.unwrap().to_vec()
}

/// The proof of key a reader of `id` with `key` and `password` presents.
async fn proof(server: &Server, id: &str, key: &str, password: Option<&str>) -> String {
    let meta = metadata(server, id).await;
    let params: ProofParams = serde_json::from_value(meta["proof"].clone()).unwrap();
    let key = Key::from_fragment(key).unwrap();
    let password = password.filter(|_| params.iterations > 0);
    FinalKey::derive(
        &key,
        password,
        &params.salt_bytes().unwrap(),
        params.iterations,
    )
    .proof()
    .to_text()
}

async fn metadata(server: &Server, id: &str) -> serde_json::Value {
    let (status, meta) = server.metadata(id).await;
    assert_eq!(status, 200, "{meta}");
    meta
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Without a password: the link carries the key, get decrypts, and the server
/// sees neither the content, the key, nor the name and language.
#[tokio::test]
async fn round_trip_without_password() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let content = "the launch code is 0000 — Grüße 🦀\n".as_bytes();
    let put = snip(
        &server,
        dir.path(),
        &[
            "put",
            "--encrypt",
            "--lang",
            "haskell",
            "--name",
            "launch-codes.hs",
        ],
        content,
        &[],
    );
    let (url, id, key) = split_link(&ok(put));
    assert!(url.starts_with(&server.url), "{url}");

    let link = format!("{url}#{key}");
    assert_eq!(
        ok(snip(&server, dir.path(), &["get", &link], b"", &[])),
        content
    );
    // The raw URL and the bare ID work with a key too.
    let raw_link = format!("{}#{key}", server.at(&format!("/raw/{id}")));
    assert_eq!(
        ok(snip(&server, dir.path(), &["get", &raw_link], b"", &[])),
        content
    );
    let bare = format!("{id}#{key}");
    assert_eq!(
        ok(snip(&server, dir.path(), &["get", &bare], b"", &[])),
        content
    );

    let stored = raw(&server, &id, &key, None).await;
    assert!(stored.starts_with(b"SNIP\x01\x00"), "not an envelope");
    for secret in [
        &b"launch code"[..],
        content,
        key.as_bytes(),
        b"launch-codes",
        b"haskell",
    ] {
        assert!(
            !contains(&stored, secret),
            "{:?} is visible",
            String::from_utf8_lossy(secret)
        );
    }
    let key_bytes = snip::core::envelope::Key::from_fragment(&key).unwrap();
    assert!(!contains(&stored, key_bytes.as_bytes()));

    let meta = metadata(&server, &id).await;
    assert_eq!(meta["encrypted"], true);
    assert_eq!(meta["lang"], serde_json::Value::Null);
    assert_eq!(meta["name"], serde_json::Value::Null);
    assert_eq!(meta["content_type"], "application/octet-stream");
    assert!(
        server.wait_for_request_logs().await,
        "request log lines missing:\n{}",
        server.log_text()
    );
    let logs = server.log_text();
    assert!(!logs.contains(&key) && !logs.contains("launch"), "{logs}");
}

/// With a password: SNIP_PASSWORD seals and opens; a missing or wrong one fails clearly.
#[tokio::test]
async fn round_trip_with_password() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let content = b"password-protected plaintext";
    let password = "correct horse battery staple";
    let put = snip(
        &server,
        dir.path(),
        &["put", "--password", "--name", "notes.txt"],
        content,
        &[("SNIP_PASSWORD", password)],
    );
    let (url, id, key) = split_link(&ok(put));
    let link = format!("{url}#{key}");

    let get = snip(
        &server,
        dir.path(),
        &["get", &link],
        b"",
        &[("SNIP_PASSWORD", password)],
    );
    assert_eq!(ok(get), content);

    let missing = failed(&snip(&server, dir.path(), &["get", &link], b"", &[]));
    assert!(missing.contains("this paste needs a password"), "{missing}");

    let wrong = failed(&snip(
        &server,
        dir.path(),
        &["get", &link],
        b"",
        &[("SNIP_PASSWORD", "correct horse battery stapler")],
    ));
    assert!(
        wrong.contains("wrong password or key") && wrong.contains("intact"),
        "{wrong}"
    );

    let stored = raw(&server, &id, &key, Some(password)).await;
    assert_eq!(stored[5], 1, "the password flag is not set");
    assert_eq!(&stored[6..10], &600_000u32.to_be_bytes());
    for secret in [&content[..], password.as_bytes(), key.as_bytes(), b"notes"] {
        assert!(!contains(&stored, secret));
    }
    let meta = metadata(&server, &id).await;
    assert_eq!(meta["encrypted"], true);
    assert_eq!(meta["name"], serde_json::Value::Null);
}

/// A link without its key, or with a wrong or broken one, fails with a message saying so.
#[tokio::test]
async fn missing_or_wrong_key() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (url, _, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &["put", "--encrypt"],
        b"secret",
        &[],
    )));

    for link in [url.clone(), format!("{url}#")] {
        let message = failed(&snip(&server, dir.path(), &["get", &link], b"", &[]));
        assert!(message.contains("the link has no #key"), "{message}");
    }

    let other_key = snip::core::envelope::Key::generate().unwrap().to_fragment();
    let message = failed(&snip(
        &server,
        dir.path(),
        &["get", &format!("{url}#{other_key}")],
        b"",
        &[],
    ));
    assert!(
        message.contains("the key in the link is wrong"),
        "{message}"
    );

    let message = failed(&snip(
        &server,
        dir.path(),
        &["get", &format!("{url}#{}", &key[..40])],
        b"",
        &[],
    ));
    assert!(message.contains("not a key"), "{message}");
}

/// A burn paste survives a get without the key, and is read once with it.
#[tokio::test]
async fn burn_and_encrypt() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (url, id, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &["put", "--encrypt", "--burn"],
        b"read me once",
        &[],
    )));
    let meta = metadata(&server, &id).await;
    assert_eq!(
        (meta["burn"].clone(), meta["encrypted"].clone()),
        (true.into(), true.into())
    );

    let keyless = failed(&snip(&server, dir.path(), &["get", &url], b"", &[]));
    assert!(keyless.contains("#key"), "{keyless}");

    let link = format!("{url}#{key}");
    assert_eq!(
        ok(snip(&server, dir.path(), &["get", &link], b"", &[])),
        b"read me once"
    );
    let again = failed(&snip(&server, dir.path(), &["get", &link], b"", &[]));
    assert!(again.contains("no such paste"), "{again}");
}

/// Several files with `--each`: one paste and one key each; lang and name
/// stay out of the query.
#[tokio::test]
async fn several_files_each() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_source_files(dir.path());
    let out = ok(snip(
        &server,
        dir.path(),
        &[
            "put",
            "--each",
            "--encrypt",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        b"",
        &[],
    ));
    let lines: Vec<&[u8]> = out
        .split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), 2);
    let (url_a, id_a, key_a) = split_link(lines[0]);
    let (url_b, id_b, key_b) = split_link(lines[1]);
    assert_ne!(key_a, key_b);
    for (id, url, key, content) in [
        (&id_a, &url_a, &key_a, "fn a() {}"),
        (&id_b, &url_b, &key_b, "def b(): pass"),
    ] {
        assert_eq!(metadata(&server, id).await["name"], serde_json::Value::Null);
        let got = ok(snip(
            &server,
            dir.path(),
            &["get", &format!("{url}#{key}")],
            b"",
            &[],
        ));
        assert_eq!(got, content.as_bytes());
    }
}

/// `put --encrypt a b` seals both files in one envelope: one paste, one
/// key, and the server sees neither their names nor their contents, nor
/// even that there are two. `get -o DIR` writes each; `get URL/NAME#KEY`
/// prints one; `get URL#KEY` alone says how to reach them.
#[tokio::test]
async fn several_files_in_one_envelope() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_source_files(dir.path());
    let (url, id, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &["put", "--encrypt", a.to_str().unwrap(), b.to_str().unwrap()],
        b"",
        &[],
    )));
    let meta = metadata(&server, &id).await;
    assert_eq!(meta["encrypted"], true);
    assert_eq!(meta["name"], serde_json::Value::Null);
    assert!(meta["files"].as_array().is_none_or(Vec::is_empty), "{meta}");
    let sealed = raw(&server, &id, &key, None).await;
    assert_eq!(
        meta["size"],
        sealed.len() as u64,
        "the paste is the envelope"
    );
    for secret in [&b"a.rs"[..], b"b.py", b"fn a() {}", b"def b(): pass"] {
        assert!(
            !contains(&sealed, secret),
            "{}",
            String::from_utf8_lossy(secret)
        );
    }
    // No file of it is served by name: the server knows of none.
    let by_name = server.status(&format!("/raw/{id}/a.rs")).await;
    assert!(matches!(by_name, 403 | 404), "{by_name}");

    let link = format!("{url}#{key}");
    let told = failed(&snip(&server, dir.path(), &["get", &link], b"", &[]));
    assert!(
        told.contains("2 files (a.rs, b.py)") && told.contains("-o DIR"),
        "{told}"
    );

    let out = dir.path().join("out");
    let printed = stdout(&snip(
        &server,
        dir.path(),
        &["get", &link, "-o", out.to_str().unwrap()],
        b"",
        &[],
    ));
    assert_eq!(std::fs::read(out.join("a.rs")).unwrap(), b"fn a() {}");
    assert_eq!(std::fs::read(out.join("b.py")).unwrap(), b"def b(): pass");
    assert_eq!(printed.lines().count(), 2, "{printed}");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 2);

    assert_eq!(
        ok(snip(
            &server,
            dir.path(),
            &["get", &format!("{url}/b.py#{key}")],
            b"",
            &[]
        )),
        b"def b(): pass"
    );
    let missing = failed(&snip(
        &server,
        dir.path(),
        &["get", &format!("{url}/c.py#{key}")],
        b"",
        &[],
    ));
    assert!(missing.contains("no file named \"c.py\""), "{missing}");
}

/// An encrypted several-file burn paste: a wrong password or key, or a
/// request for one of its files, leaves it intact; the right password
/// reads every file, once.
#[tokio::test]
async fn several_files_burn_once_and_wrong_key_never_burns() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_source_files(dir.path());
    let password = [("SNIP_PASSWORD", "two files")];
    let (url, id, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &[
            "put",
            "--password",
            "--burn",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        b"",
        &password,
    )));
    let link = format!("{url}#{key}");
    let out = dir.path().join("out");
    let get_all = |env: &[(&str, &str)], link: &str| {
        snip(
            &server,
            dir.path(),
            &["get", link, "-o", out.to_str().unwrap()],
            b"",
            env,
        )
    };
    let wrong = failed(&get_all(&[("SNIP_PASSWORD", "two files!")], &link));
    assert!(wrong.contains("intact"), "{wrong}");
    let mut changed = key.clone().into_bytes();
    changed[7] = if changed[7] == b'A' { b'B' } else { b'A' };
    let typo = failed(&get_all(
        &password,
        &format!("{url}#{}", String::from_utf8(changed).unwrap()),
    ));
    assert!(typo.contains("intact"), "{typo}");
    let one = failed(&snip(
        &server,
        dir.path(),
        &["get", &format!("{url}/a.rs#{key}")],
        b"",
        &password,
    ));
    assert!(one.contains("read whole"), "{one}");
    assert_eq!(metadata(&server, &id).await["burn"], true);
    assert!(!out.exists());

    ok(get_all(&password, &link));
    assert_eq!(std::fs::read(out.join("a.rs")).unwrap(), b"fn a() {}");
    assert_eq!(std::fs::read(out.join("b.py")).unwrap(), b"def b(): pass");
    assert_eq!(server.status(&format!("/api/pastes/{id}")).await, 404);
    let again = failed(&get_all(&password, &link));
    assert!(again.contains("no such paste"), "{again}");
}

/// A several-file burn paste read without `-o` is gone once read, so its
/// files are written into a new directory named after it (never over one
/// that is there), rather than refused and lost.
#[tokio::test]
async fn several_files_burn_without_a_directory_are_kept() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let (a, b) = two_source_files(dir.path());
    let (url, id, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &[
            "put",
            "--encrypt",
            "--burn",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        b"",
        &[],
    )));
    std::fs::create_dir(cwd.path().join(&id)).unwrap();
    let output = run_cli_in(
        Some(cwd.path()),
        &server,
        dir.path(),
        &[],
        &["get", &format!("{url}#{key}")],
        b"",
    );
    let written = cwd.path().join(format!("{id}.2"));
    assert!(stderr(&output).contains("destroyed"), "{}", stderr(&output));
    assert_eq!(std::fs::read(written.join("a.rs")).unwrap(), b"fn a() {}");
    assert_eq!(
        std::fs::read(written.join("b.py")).unwrap(),
        b"def b(): pass"
    );
    assert_eq!(std::fs::read_dir(cwd.path().join(&id)).unwrap().count(), 0);
}

/// `--max-paste-size` counts the whole envelope (the sealed file list
/// too), since that is all the server holds.
#[tokio::test]
async fn several_files_count_as_their_envelope() {
    let server = Server::start_with(&["--max-paste-size=100B"]);
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_source_files(dir.path());
    let refused = failed(&snip(
        &server,
        dir.path(),
        &["put", "--encrypt", a.to_str().unwrap(), b.to_str().unwrap()],
        b"",
        &[],
    ));
    assert!(refused.contains("413"), "{refused}");
}

/// The password is never a command-line value; --password without a way to ask for one fails.
#[tokio::test]
async fn password_is_never_an_argument() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let inline = snip(
        &server,
        dir.path(),
        &["put", "--encrypt", "--password=hunter2"],
        b"x",
        &[],
    );
    assert!(!inline.status.success());

    let message = failed(&snip(
        &server,
        dir.path(),
        &["put", "--password"],
        b"x",
        &[],
    ));
    assert!(message.contains("SNIP_PASSWORD"), "{message}");

    let message = failed(&snip(
        &server,
        dir.path(),
        &["put", "--password"],
        b"x",
        &[("SNIP_PASSWORD", "")],
    ));
    assert!(message.contains("empty"), "{message}");
}

/// A plain paste read with a stray #fragment is printed as it is, with a note.
#[tokio::test]
async fn plain_paste_with_fragment() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let url = String::from_utf8(ok(snip(&server, dir.path(), &["put"], b"plain", &[]))).unwrap();
    let get = snip(
        &server,
        dir.path(),
        &["get", &format!("{}#L3", url.trim())],
        b"",
        &[],
    );
    assert!(stderr(&get).contains("not encrypted"));
    assert_eq!(ok(get), b"plain");
}

/// The ciphertext of an encrypted paste is not served to an ID alone: a
/// scanner or a log reader gets `403`, the metadata stays readable.
#[tokio::test]
async fn raw_needs_the_proof() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (_, id, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &["put", "--encrypt"],
        b"not for scanners",
        &[],
    )));
    assert_eq!(server.status(&format!("/raw/{id}")).await, 403);
    assert_eq!(server.status(&format!("/download/{id}")).await, 403);
    assert_eq!(metadata(&server, &id).await["encrypted"], true);
    assert!(raw(&server, &id, &key, None).await.starts_with(b"SNIP"));
}

/// An encrypted burn paste survives a wrong SNIP_PASSWORD and a link whose
/// key has one character changed; the right password then reads it, once.
#[tokio::test]
async fn wrong_password_or_key_never_burns() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let password = [("SNIP_PASSWORD", "open sesame")];
    let (url, id, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &["put", "--password", "--burn"],
        b"read me once, with the password",
        &password,
    )));
    let link = format!("{url}#{key}");
    let wrong = failed(&snip(
        &server,
        dir.path(),
        &["get", &link],
        b"",
        &[("SNIP_PASSWORD", "open sesame!")],
    ));
    assert!(wrong.contains("intact"), "{wrong}");
    assert_eq!(metadata(&server, &id).await["burn"], true);

    let mut changed = key.clone().into_bytes();
    changed[5] = if changed[5] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).unwrap();
    let typo = failed(&snip(
        &server,
        dir.path(),
        &["get", &format!("{url}#{changed}")],
        b"",
        &password,
    ));
    assert!(typo.contains("intact"), "{typo}");
    assert_eq!(metadata(&server, &id).await["burn"], true);

    assert_eq!(
        ok(snip(&server, dir.path(), &["get", &link], b"", &password)),
        b"read me once, with the password"
    );
    assert_eq!(server.status(&format!("/api/pastes/{id}")).await, 404);
}

/// On a terminal, a wrong password is asked again, with the paste intact.
#[tokio::test]
async fn wrong_password_is_asked_again_on_a_terminal() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (url, id, key) = split_link(&ok(snip(
        &server,
        dir.path(),
        &["put", "--password", "--burn"],
        b"typed twice",
        &[("SNIP_PASSWORD", "right one")],
    )));
    let link = format!("{url}#{key}");
    let output = run_cli_on_terminal_typing(
        &server,
        dir.path(),
        &["get", &link],
        Some(b"wrong one\nright one\n"),
    );
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}");
    assert!(shown.contains("wrong password (or key)"), "{shown}");
    assert!(shown.contains("typed twice"), "{shown}");
    assert_eq!(server.status(&format!("/api/pastes/{id}")).await, 404);
}

/// On a terminal, `put --password` asks again when the confirmation does
/// not match, instead of giving up; the paste opens with the password
/// typed twice alike.
#[tokio::test]
async fn a_mistyped_confirmation_is_asked_again() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secret.txt");
    std::fs::write(&file, b"asked again").unwrap();
    let output = run_cli_on_terminal_typing(
        &server,
        dir.path(),
        &["put", "--password", file.to_str().unwrap()],
        Some(b"first try\nfirst tyr\nsecond try\nsecond try\n"),
    );
    let shown = stdout(&output);
    assert!(output.status.success(), "{shown}");
    assert!(shown.contains("do not match; type it again"), "{shown}");
    let link = shown
        .split_whitespace()
        .find(|word| word.starts_with(&server.url))
        .unwrap_or_else(|| panic!("no link in {shown}"));
    assert_eq!(
        ok(snip(
            &server,
            dir.path(),
            &["get", link],
            b"",
            &[("SNIP_PASSWORD", "second try")]
        )),
        b"asked again"
    );
}
