//! A full disk: the data dir on a small file system of the test's own
//! (tmpfs). Creates are refused with 507 once space runs out, reads keep
//! working, creates succeed again once space is freed (no restart), and a
//! restart finds every acknowledged paste. Embedded store only.

use std::path::{Path, PathBuf};
use std::process::Command;

use reqwest::Method;

use crate::support::Fetch;
use crate::support::data::XorShift;
use crate::support::http::{client, get_bytes};
use crate::support::postgres::skip_on_postgres;
use crate::support::server::Server;

/// A tmpfs mounted on a fresh directory; unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// Mounts a tmpfs of `size` (e.g. `8m`); `Err` says why it could not
    /// (mounting needs root or CAP_SYS_ADMIN).
    fn mount(size: &str) -> Result<Self, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let output = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
        }
        Ok(Self { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// A paste the server acknowledged: ID, delete token, body.
struct Acknowledged {
    id: String,
    token: String,
    body: Vec<u8>,
}

/// Creates a paste of `len` bytes; the acknowledgement, or the error's
/// status and text.
async fn try_create(server: &Server, n: usize, len: usize) -> Result<Acknowledged, (u16, String)> {
    // Random bytes: the store keeps them as they are, so they fill the disk.
    let mut body = format!("paste {n}:").into_bytes();
    body.extend(XorShift(n as u64 + 1).bytes(len));
    body.truncate(len);
    let response = server
        .request(Method::POST, "/")
        .header("accept", "application/json")
        .body(body.clone())
        .fetch()
        .await;
    let status = response.status().as_u16();
    if status != 201 {
        return Err((status, response.text().await.unwrap_or_default()));
    }
    let json: serde_json::Value = response.json().await.unwrap();
    Ok(Acknowledged {
        id: json["id"].as_str().unwrap().to_owned(),
        token: json["delete_token"].as_str().unwrap().to_owned(),
        body,
    })
}

async fn assert_all_served(server: &Server, pastes: &[Acknowledged]) {
    for paste in pastes {
        let (status, body) = get_bytes(&client(), &server.at(&format!("/raw/{}", paste.id))).await;
        assert_eq!(status, 200, "paste {}", paste.id);
        assert!(body == paste.body, "paste {} came back changed", paste.id);
    }
}

/// Creates pastes of `len` bytes into `stored` until one is refused: its
/// status and text.
async fn fill(server: &Server, stored: &mut Vec<Acknowledged>, len: usize) -> (u16, String) {
    loop {
        assert!(stored.len() < 2000, "8 MiB never filled up");
        match try_create(server, stored.len(), len).await {
            Ok(paste) => stored.push(paste),
            Err(refusal) => return refusal,
        }
    }
}

/// Large bodies (files) and small ones (the body log) until the disk is
/// full: 507 with a message saying so; reads, readiness and the other
/// pastes stay; deleting large pastes frees space and creates work again;
/// after a restart every acknowledged paste that was not deleted is there.
#[tokio::test]
async fn a_full_disk_refuses_creates_until_space_is_freed() {
    if skip_on_postgres("the embedded store's data dir on a small file system") {
        return;
    }
    let disk = match SmallDisk::mount("8m") {
        Ok(disk) => disk,
        Err(why) => {
            eprintln!("skipped: cannot mount a small tmpfs ({why})");
            return;
        }
    };
    let data_dir: PathBuf = disk.path().join("data");
    let mut server = Server::start_in(&data_dir, &[]);
    let mut stored = Vec::new();
    // Large bodies until one does not fit, then small ones until none does.
    let mut refusals = Vec::new();
    for len in [300 << 10, 4 << 10] {
        refusals.push(fill(&server, &mut stored, len).await);
    }
    for (status, text) in &refusals {
        assert_eq!(*status, 507, "{text}");
        assert!(text.contains("disk is full"), "{text}");
    }
    assert!(stored.len() >= 10, "only {} pastes fitted", stored.len());
    let (status, _) = try_create(&server, 1000, 4 << 10).await.err().unwrap();
    assert_eq!(status, 507, "a refusal is repeatable");
    assert_all_served(&server, &stored).await;
    assert_eq!(server.status("/readyz").await, 200);

    let mut kept = Vec::new();
    let mut deleted = 0;
    for paste in stored {
        if paste.body.len() > 100 << 10 && deleted < 6 {
            let response = server
                .delete(&format!("/{}", paste.id), Some(&paste.token))
                .await;
            assert!(response.status().is_success(), "{}", response.status());
            deleted += 1;
        } else {
            kept.push(paste);
        }
    }
    for n in 2000..2003 {
        let paste = try_create(&server, n, 300 << 10)
            .await
            .unwrap_or_else(|(status, text)| panic!("still refused: {status} {text}"));
        kept.push(paste);
    }
    assert_all_served(&server, &kept).await;

    assert!(server.terminate(), "{}", server.log_text());
    server.restart();
    assert_all_served(&server, &kept).await;
    let logs = server.log_text();
    assert!(!logs.contains("panicked"), "{logs}");
    drop(server);
    drop(disk);
}
