//! Durability against a real server: what was acknowledged survives a clean
//! restart and a `kill -9`, and what was deleted or burned stays gone.

use std::sync::Arc;

use crate::support::{
    Server, client,
    data::XorShift,
    http::{create_json, get_bytes, get_json},
};

/// One acknowledged paste: its ID and the exact bytes sent.
struct Written {
    id: String,
    body: Vec<u8>,
}

/// Writes `count` unique pastes of varied sizes (up to ~4 KiB, and every 50th
/// between 64 and 128 KiB, so stored as a file) from 32 concurrent tasks.
async fn write_concurrently(server: &Server, count: usize) -> Vec<Written> {
    const TASKS: usize = 32;
    let http = client();
    let url = Arc::new(server.url.clone());
    let mut handles = Vec::new();
    for task in 0..TASKS {
        let http = http.clone();
        let url = url.clone();
        handles.push(tokio::spawn(async move {
            let mut written = Vec::new();
            for index in (task..count).step_by(TASKS) {
                let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ (index as u64 + 1));
                let len = if index % 50 == 0 {
                    (64 << 10) + (rng.next_u64() % (64 << 10)) as usize
                } else {
                    1 + (rng.next_u64() % 4096) as usize
                };
                // The index up front makes every body unique, whatever the PRNG does.
                let mut body = format!("paste {index:05}\n").into_bytes();
                body.extend(rng.bytes(len));
                let json = create_json(&http, &url, body.clone(), "").await;
                assert_eq!(json["size"].as_u64(), Some(body.len() as u64));
                written.push(Written {
                    id: json["id"].as_str().unwrap().to_owned(),
                    body,
                });
            }
            written
        }));
    }
    let mut all = Vec::new();
    for handle in handles {
        all.extend(handle.await.unwrap());
    }
    assert_eq!(all.len(), count);
    all
}

/// Reads every paste back and checks it byte for byte.
async fn assert_all_present(server: &Server, written: &[Written]) {
    let http = client();
    let mut missing = Vec::new();
    for paste in written {
        let (status, body) = get_bytes(&http, &server.at(&format!("/raw/{}", paste.id))).await;
        if status != 200 {
            missing.push(format!("{} answered {status}", paste.id));
        } else if body != paste.body {
            missing.push(format!("{} came back with different bytes", paste.id));
        }
    }
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged pastes did not survive: {:?}\nlogs:\n{}",
        missing.len(),
        written.len(),
        &missing[..missing.len().min(10)],
        server.log_text()
    );
}

/// Text and binary pastes (one holding all 256 byte values) survive a SIGTERM and restart byte for byte.
#[tokio::test]
async fn pastes_survive_clean_restart() {
    let mut server = Server::start();
    let http = client();
    let all_bytes: Vec<u8> = (0..=255u8).collect();
    let mut big = XorShift(42).bytes(1 << 20);
    big.extend_from_slice(b"\nend");
    let bodies: Vec<Vec<u8>> = vec![
        b"hello, world\n".to_vec(),
        "unicode: \u{e9}\u{e8} \u{1f600} \u{4e2d}\u{6587}\n"
            .as_bytes()
            .to_vec(),
        all_bytes.clone(),
        all_bytes.iter().rev().copied().collect(),
        big,
    ];
    let mut written = Vec::new();
    for body in bodies {
        let json = create_json(&http, &server.url, body.clone(), "").await;
        written.push(Written {
            id: json["id"].as_str().unwrap().to_owned(),
            body,
        });
    }
    // A paste with a TTL and a name keeps its metadata too.
    let json = create_json(&http, &server.url, "named", "ttl=1d&name=notes.txt").await;
    let named = json["id"].as_str().unwrap().to_owned();
    let expires_at = json["expires_at"].clone();

    assert!(
        server.terminate(),
        "SIGTERM did not end snip cleanly:\n{}",
        server.log_text()
    );
    server.restart();

    assert_all_present(&server, &written).await;
    let (status, meta) = get_json(&http, &server.at(&format!("/api/pastes/{named}"))).await;
    assert_eq!(status, 200);
    assert_eq!(meta["name"], "notes.txt");
    assert_eq!(meta["expires_at"], expires_at);
}

/// 1,000 pastes written by 32 concurrent clients are all there after a `kill -9` right after the last acknowledgement.
#[tokio::test]
async fn acknowledged_pastes_survive_kill9() {
    let mut server = Server::start();
    let written = write_concurrently(&server, 1000).await;
    server.kill9();
    server.restart();
    assert_all_present(&server, &written).await;
}

/// With `--sync` (group commit), concurrently written pastes are all there after a `kill -9`.
#[tokio::test]
async fn acknowledged_pastes_survive_kill9_with_sync() {
    let mut server = Server::start_with(&["--sync"]);
    let written = write_concurrently(&server, 300).await;
    server.kill9();
    server.restart();
    assert_all_present(&server, &written).await;
}

/// A deleted paste and a revealed burn paste stay gone after a `kill -9` and restart.
#[tokio::test]
async fn deletes_and_burns_survive_kill9() {
    let mut server = Server::start();
    let http = client();
    let keep = create_json(&http, &server.url, "keep me", "").await;
    let doomed = create_json(&http, &server.url, "delete me", "").await;
    let burn = create_json(&http, &server.url, "read me once", "burn=true").await;
    let keep_id = keep["id"].as_str().unwrap();
    let doomed_id = doomed["id"].as_str().unwrap();
    let burn_id = burn["id"].as_str().unwrap();

    let deleted = server
        .delete(
            &format!("/{doomed_id}"),
            Some(doomed["delete_token"].as_str().unwrap()),
        )
        .await;
    assert_eq!(deleted.status(), 204);
    let revealed = server.reveal(burn_id).await;
    assert_eq!(revealed.status(), 200);
    assert_eq!(revealed.text().await.unwrap(), "read me once");

    server.kill9();
    server.restart();

    let (status, body) = get_bytes(&http, &server.at(&format!("/raw/{keep_id}"))).await;
    assert_eq!((status, body.as_slice()), (200, b"keep me".as_slice()));
    for path in [
        format!("/raw/{doomed_id}"),
        format!("/api/pastes/{doomed_id}"),
        format!("/{burn_id}"),
        format!("/api/pastes/{burn_id}"),
    ] {
        let (status, _) = get_bytes(&http, &server.at(&path)).await;
        assert_eq!(status, 404, "{path} came back after kill -9");
    }
    let again = server.reveal(burn_id).await;
    assert_eq!(
        again.status(),
        404,
        "a burned paste could be revealed twice"
    );
}

/// The data dir and what the store writes in it (the version file, body
/// segments, body files and their directories) are its user's alone:
/// directories 0700, files 0600, whatever the umask.
#[tokio::test]
async fn the_data_dir_is_private() {
    use std::os::unix::fs::PermissionsExt;
    if crate::support::postgres::skip_on_postgres("the embedded store's data dir") {
        return;
    }
    let server = Server::start();
    let http = client();
    create_json(&http, &server.url, "small", "").await;
    create_json(&http, &server.url, vec![b'x'; 100 << 10], "").await;
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let data = &server.data_dir;
    assert_eq!(mode(data), 0o700, "{}", data.display());
    let mut checked = 0;
    let mut pending = vec![data.join("body-log"), data.join("bodies")];
    let mut files = vec![data.join("FORMAT")];
    while let Some(dir) = pending.pop() {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        checked += 1;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    // body-log, bodies and one shard; FORMAT, a segment and a body file.
    assert!(
        checked >= 3 && files.len() >= 3,
        "{checked} dirs, {files:?}"
    );
    for file in files {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
}

/// A data dir that exists already, open to every user (0755, as `mkdir`
/// makes it), is made 0700 at start, and nothing snip writes in it, fjall's
/// journals and tables of tenants and token hashes included, is open to
/// group or others.
#[tokio::test]
async fn a_data_dir_made_by_hand_is_made_private() {
    use std::os::unix::fs::PermissionsExt;
    if crate::support::postgres::skip_on_postgres("the embedded store's data dir") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let admin = format!("--admin-token={}", crate::support::tenants::ADMIN);
    let mut server = Server::start_in(&data, &[&admin]);
    crate::support::tenants::tenant(&server, "private", serde_json::json!({})).await;
    create_json(&client(), &server.url, "small", "").await;
    assert!(server.terminate(), "{}", server.log_text());
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode();
    assert_eq!(mode(&data) & 0o777, 0o700);
    let (mut pending, mut files) = (vec![data.clone()], 0);
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            assert_eq!(
                mode(&path) & 0o077,
                0,
                "{} is open to others",
                path.display()
            );
            if path.is_dir() {
                pending.push(path);
            } else {
                files += 1;
            }
        }
    }
    assert!(files >= 5, "only {files} files under {}", data.display());
}

/// The counts of what is stored (the metrics gauges and a tenant's usage,
/// which its quota is checked against) are the same after a `kill -9` and
/// restart as before: the embedded store persists them with each write.
#[tokio::test]
async fn counts_survive_kill9() {
    use crate::support::tenants::{self, try_create};
    use reqwest::Method;

    async fn counts(server: &Server) -> (Vec<String>, serde_json::Value) {
        let text = server.get("/metrics").await.text().await.unwrap();
        let gauges: Vec<String> = (text.lines())
            .filter(|l| l.starts_with("snip_stored_"))
            .map(str::to_owned)
            .collect();
        assert_eq!(gauges.len(), 2, "{text}");
        let path = "/api/admin/tenants";
        let (status, list) = tenants::admin(server, Method::GET, path, None).await;
        assert_eq!(status, 200, "{list}");
        let list = list
            .get("tenants")
            .unwrap_or(&list)
            .as_array()
            .unwrap()
            .clone();
        let tenant = list.iter().find(|t| t["name"] == "counted").unwrap();
        (gauges, tenant["usage"].clone())
    }
    let mut server = tenants::start(&[]);
    let token = tenants::tenant(&server, "counted", serde_json::json!({})).await;
    for n in 0..40 {
        let body = format!("paste {n} {}", "x".repeat(n * 37));
        let owner = (n % 2 == 0).then_some(token.as_str());
        let (status, paste) = try_create(&server, owner, body, "").await;
        assert_eq!(status, 201, "{paste}");
        if n % 3 == 0 {
            let path = format!("/{}", paste["id"].as_str().unwrap());
            let delete_token = paste["delete_token"].as_str();
            assert_eq!(server.delete(&path, delete_token).await.status(), 204);
        }
    }
    let before = counts(&server).await;
    assert!(
        before.0.contains(&"snip_stored_pastes 26".to_owned()),
        "{:?}",
        before.0
    );
    assert_eq!(before.1["pastes"], 13, "{}", before.1);
    server.kill9();
    server.restart();
    assert_eq!(counts(&server).await, before);
}
