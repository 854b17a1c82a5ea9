//! A full disk: the data dir on a small file system of the test's own
//! (tmpfs). Creates are refused with 507 once space runs out, reads keep
//! working, creates succeed again once space is freed (no restart), and a
//! restart finds every acknowledged paste. Every other write is refused
//! with 507 too when no byte is left, and the store is never broken by it;
//! a store broken anyway (an I/O error) is not ready, and the server
//! exits. Embedded store only.

use std::path::PathBuf;

use reqwest::Method;
use serde_json::json;

use crate::support::Fetch;
use crate::support::data::XorShift;
use crate::support::disk::{SmallDisk, fill_up, run};
use crate::support::http::{client, get_bytes};
use crate::support::postgres::skip_on_postgres;
use crate::support::server::Server;
use crate::support::tenants::{ADMIN, tenant, token};
use crate::support::wait::{PATIENCE, eventually};

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

/// The answer to a request: status and body text.
async fn answer(request: reqwest::RequestBuilder) -> (u16, String) {
    let response = request.fetch().await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

/// `POST /signin` with `token`: the request, from the server's own page.
fn signin(server: &Server, token: &str) -> reqwest::RequestBuilder {
    let token: String = form_urlencoded::byte_serialize(token.as_bytes()).collect();
    server
        .request(Method::POST, "/signin")
        .header("origin", &server.url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={token}&next=/my"))
}

/// `POST /signout` with the session `cookie`.
fn signout(server: &Server, cookie: &str) -> reqwest::RequestBuilder {
    server
        .request(Method::POST, "/signout")
        .header("cookie", format!("snip_session={cookie}"))
        .header("origin", &server.url)
        .header("sec-fetch-site", "same-origin")
}

/// The `snip_session` value a sign-in answer sets.
async fn session_cookie(server: &Server, token: &str) -> String {
    let response = signin(server, token).fetch().await;
    assert_eq!(response.status(), 303);
    let cookie = response.headers()["set-cookie"].to_str().unwrap();
    let value = cookie.strip_prefix("snip_session=").unwrap();
    value.split(';').next().unwrap().to_owned()
}

/// What every kind of write needs: a tenant with a spare token, a paste to
/// delete, a burn paste to reveal, a browser session.
struct Writes {
    secret: String,
    spare_token: String,
    doomed: (String, String),
    burn: String,
    cookie: String,
}

impl Writes {
    async fn prepare(server: &Server) -> Self {
        let secret = tenant(server, "before", json!({})).await;
        let (spare_token, _) = token(server, "before", json!({})).await;
        Self {
            doomed: server.create("to be deleted", "").await,
            burn: server.create("read once", "burn=true").await.0,
            cookie: session_cookie(server, &secret).await,
            secret,
            spare_token,
        }
    }

    /// Makes every kind of write once: (what, status, answer).
    async fn make(&self, server: &Server) -> Vec<(&'static str, u16, String)> {
        let admin = |method, path: &str| server.request(method, path).bearer_auth(ADMIN);
        let tenants = "/api/admin/tenants";
        let mut answers = vec![(
            "create",
            answer(
                server
                    .request(Method::POST, "/")
                    .header("accept", "application/json")
                    .body("a new paste"),
            )
            .await,
        )];
        answers.push((
            "tenant create",
            answer(admin(Method::POST, tenants).json(&json!({ "name": "during" }))).await,
        ));
        answers.push((
            "tenant update",
            answer(
                admin(Method::PATCH, &format!("{tenants}/before"))
                    .json(&json!({ "max_bytes": 1 << 20 })),
            )
            .await,
        ));
        answers.push((
            "token create",
            answer(admin(Method::POST, &format!("{tenants}/before/tokens")).json(&json!({}))).await,
        ));
        answers.push((
            "token revoke",
            answer(admin(
                Method::DELETE,
                &format!("/api/admin/tokens/{}", self.spare_token),
            ))
            .await,
        ));
        answers.push(("sign-in", answer(signin(server, &self.secret)).await));
        answers.push(("sign-out", answer(signout(server, &self.cookie)).await));
        let (id, delete_token) = &self.doomed;
        answers.push((
            "delete",
            answer(
                server
                    .request(Method::DELETE, &format!("/{id}"))
                    .header("x-delete-token", delete_token),
            )
            .await,
        ));
        answers.push((
            "reveal",
            answer(server.request(Method::POST, &format!("/{}/reveal", self.burn))).await,
        ));
        answers.push((
            "tenant delete",
            answer(admin(Method::DELETE, &format!("{tenants}/during-empty"))).await,
        ));
        answers
            .into_iter()
            .map(|(what, (status, text))| (what, status, text))
            .collect()
    }
}

/// With no byte left on the data dir's disk, every kind of write (create,
/// tenant and token writes, sign-in and sign-out, delete, reveal, and the
/// sweeper's) is refused with 507 and writes nothing; once the space is
/// back, every one of them works, without a restart: the store was never
/// broken.
#[tokio::test]
async fn every_write_is_refused_on_a_full_disk_and_works_once_space_is_back() {
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
    let admin = format!("--admin-token={ADMIN}");
    let server = Server::start_in(&disk.path().join("data"), &[&admin, "--sweep-interval=1s"]);
    let writes = Writes::prepare(&server).await;
    tenant(&server, "during-empty", json!({})).await;
    let (expiring, _) = server.create("expires at once", "ttl=1").await;

    let ballast = fill_up(disk.path());
    for (what, status, text) in writes.make(&server).await {
        assert_eq!(status, 507, "{what}: {text}");
        assert!(text.contains("disk is full"), "{what}: {text}");
    }
    assert!(
        server.wait_for_log("the disk is full: the sweep waits for space"),
        "{}",
        server.log_text()
    );
    // Nothing was written: the burn paste, the paste to delete and the
    // tenant are all still there.
    assert_eq!(server.status(&format!("/{}", writes.doomed.0)).await, 200);
    assert_eq!(
        server.status(&format!("/api/pastes/{}", writes.burn)).await,
        200
    );

    std::fs::remove_file(ballast).unwrap();
    assert!(eventually(|| async { server.status("/readyz").await == 200 }).await);
    let expected = [201, 201, 200, 201, 204, 303, 303, 204, 200, 204];
    let made = writes.make(&server).await;
    for ((what, status, text), expected) in made.into_iter().zip(expected) {
        assert_eq!(status, expected, "{what} after space was freed: {text}");
    }
    assert_eq!(server.status(&format!("/raw/{}", writes.burn)).await, 404);
    assert!(
        eventually(|| async { server.swept_count() >= 1 }).await,
        "{expiring} was never swept:\n{}",
        server.log_text()
    );
    let logs = server.log_text();
    assert!(
        !logs.contains("Poisoned") && !logs.contains("panicked"),
        "{logs}"
    );
}

/// A store broken anyway (here a journal file made immutable under the
/// running server, so fjall's next write fails and fjall refuses every
/// later one): `/readyz` says so, the server exits non-zero for its
/// supervisor, and a restart (once the file is writable again) serves
/// everything it acknowledged and takes writes.
#[tokio::test]
async fn a_broken_store_is_not_ready_and_the_server_exits() {
    if skip_on_postgres("the embedded store's journal on a file system of the test's own") {
        return;
    }
    let disk = match SmallDisk::ext4(64) {
        Ok(disk) => disk,
        Err(why) => {
            eprintln!("skipped: cannot mount a small ext4 ({why})");
            return;
        }
    };
    let admin = format!("--admin-token={ADMIN}");
    let data_dir = disk.path().join("data");
    let mut server = Server::start_in(&data_dir, &[&admin]);
    tenant(&server, "before", json!({})).await;
    let (id, _) = server.create("acknowledged", "").await;
    let fjall = data_dir.join("fjall");
    let fjall = fjall.to_str().unwrap();
    if let Err(why) = run("chattr", &["-R", "+i", fjall]) {
        eprintln!("skipped: cannot make the journal immutable ({why})");
        return;
    }

    let (status, text) = answer(
        server
            .request(Method::POST, "/api/admin/tenants")
            .bearer_auth(ADMIN)
            .json(&json!({ "name": "after" })),
    )
    .await;
    assert!(status >= 500, "{status} {text}");
    let (status, text) = server.text("/readyz").await;
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("refuses writes"), "{text}");
    assert!(text.contains("supervisor restarts it"), "{text}");
    let exit = server.wait_exit(PATIENCE);
    run("chattr", &["-R", "-i", fjall]).unwrap();
    let exit = exit.unwrap_or_else(|| panic!("still running:\n{}", server.log_text()));
    assert!(!exit.success(), "{exit}");
    assert!(
        server.wait_for_log("the store is broken"),
        "{}",
        server.log_text()
    );

    server.restart();
    assert_eq!(
        get_bytes(&client(), &server.at(&format!("/raw/{id}"))).await,
        (200, b"acknowledged".to_vec())
    );
    tenant(&server, "after", json!({})).await;
    assert_eq!(server.status("/readyz").await, 200);
}
