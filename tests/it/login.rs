//! `snip login`, `snip whoami` and `snip logout` against the real provider
//! (panva's `oidc-provider`, device flow): the CLI prints the provider's
//! page and code, a person approves it there (its device, login and consent
//! pages driven over HTTP), and the CLI ends up holding a login credential,
//! kept 0600, with which `put --private` and `list` act as that person in
//! their tenant; `whoami` names them, a refresh swaps the credential (the
//! CLI's own before expiry), and `logout` revokes it on the server. A forged device code, a person in no
//! tenant group and a server without a provider are each refused.

use reqwest::Method;
use serde_json::{Value, json};

use crate::oidc::{Setup, serve};
use crate::support::Server;
use crate::support::cli::{CliLogin, run_cli, stdout, succeeded};
use crate::support::oidc_provider::{Provider, approve_device, no_redirects};

/// The provider and snip, or `None` where the provider cannot run.
async fn setup() -> Option<Setup> {
    Some(serve(Provider::start()?).await)
}

/// Runs `snip login` against `server` with client directory `dir`, and
/// approves its code at the provider as `person`; the CLI's output.
async fn login(server: &Server, dir: &std::path::Path, person: &str) -> std::process::Output {
    let login = CliLogin::start(server, dir, &[], |line| {
        line.starts_with("and enter the code ")
    });
    let done = approve_device(&no_redirects(), &login.page, person).await;
    assert!(
        done.contains("Sign-in Success") || done.contains("success"),
        "{done}"
    );
    login.finish()
}

/// Standard output of a command that must have succeeded.
fn printed(output: &std::process::Output) -> String {
    succeeded(output);
    stdout(output)
}

/// The kept logins of a client directory.
fn kept(dir: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("login.json")).unwrap()).unwrap()
}

/// The credential kept for `server`.
fn credential(dir: &std::path::Path, server: &Server) -> String {
    kept(dir)[format!("{}/", server.url)]["credential"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// `GET /api/login` with `credential`: (status, body).
async fn whoami(server: &Server, credential: &str) -> (u16, Value) {
    let response = no_redirects()
        .get(server.at("/api/login"))
        .bearer_auth(credential)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The whole device sign-in: the CLI holds a credential for alice in
/// `team`, kept 0600; `put --private` and `list` act as her; `whoami`
/// names her; a refresh swaps the credential; `logout` revokes it on the
/// server and forgets it here. No secret reaches the server's log.
#[tokio::test]
async fn logs_in_through_the_device_flow() {
    let Some(setup) = setup().await else { return };
    let server = &setup.server;
    let dir = tempfile::tempdir().unwrap();
    let output = login(server, dir.path(), "alice").await;
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("Signed in as Alice Liddell in tenant team."),
        "{said}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("login.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let first = credential(dir.path(), server);
    assert!(first.starts_with("snipl_"), "{first}");

    let (status, who) = whoami(server, &first).await;
    assert_eq!(status, 200);
    assert_eq!(who["tenant"], "team");
    assert_eq!(who["person"]["name"], "Alice Liddell");
    assert_eq!(who["person"]["subject"], "alice");
    let shown = printed(&run_cli(server, dir.path(), &[], &["whoami"], b""));
    assert!(shown.contains("tenant\tteam"), "{shown}");
    assert!(shown.contains("person\tAlice Liddell (alice)"), "{shown}");
    assert!(shown.contains("expires\t"), "{shown}");

    let url = printed(&run_cli(
        server,
        dir.path(),
        &[],
        &["put", "--private", "--name", "notes.txt"],
        b"hello from alice",
    ));
    let listed = run_cli(server, dir.path(), &[], &["list", "--json"], b"");
    let listed: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    let id = url.trim().rsplit('/').next().unwrap().to_owned();
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == id.as_str()),
        "{listed}"
    );

    // A refresh: a new credential for the same person; the old one ends.
    let response = no_redirects()
        .post(server.at("/api/login/refresh"))
        .bearer_auth(&first)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let fresh: Value = response.json().await.unwrap();
    let second = fresh["credential"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    assert_eq!(fresh["person"]["name"], "Alice Liddell");
    assert_eq!(whoami(server, &first).await.0, 401);
    assert_eq!(whoami(server, &second).await.0, 200);

    // The CLI's own credential was the first, now ended: logout forgets it.
    let out = run_cli(server, dir.path(), &[], &["logout"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(kept(dir.path()), json!({}));
    // Logging out the live one revokes it on the server.
    let response = no_redirects()
        .delete(server.at("/api/login"))
        .bearer_auth(&second)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    assert_eq!(whoami(server, &second).await.0, 401);

    let logs = server.log_text();
    for secret in [&first, &second] {
        assert!(!logs.contains(secret.trim_start_matches("snipl_")));
    }
    assert!(!logs.contains("eyJ"), "no token is logged");
}

/// `snip logout` revokes the credential on the server.
#[tokio::test]
async fn logout_revokes_on_the_server() {
    let Some(setup) = setup().await else { return };
    let server = &setup.server;
    let dir = tempfile::tempdir().unwrap();
    assert!(login(server, dir.path(), "bob").await.status.success());
    let held = credential(dir.path(), server);
    assert_eq!(whoami(server, &held).await.0, 200);
    succeeded(&run_cli(server, dir.path(), &[], &["logout"], b""));
    assert_eq!(whoami(server, &held).await.0, 401);
    let out = run_cli(server, dir.path(), &[], &["whoami"], b"");
    assert!(!out.status.success());
}

/// The CLI refreshes a credential near its expiry before sending it: the
/// kept one is replaced, and the old one ends on the server.
#[tokio::test]
async fn the_cli_refreshes_before_expiry() {
    let Some(setup) = setup().await else { return };
    let server = &setup.server;
    let dir = tempfile::tempdir().unwrap();
    assert!(login(server, dir.path(), "alice").await.status.success());
    let old = credential(dir.path(), server);
    // What the CLI believes: a minute left.
    let mut logins = kept(dir.path());
    let key = format!("{}/", server.url);
    let soon = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 60;
    logins[&key]["expires_at"] = json!(soon);
    std::fs::write(dir.path().join("login.json"), logins.to_string()).unwrap();
    printed(&run_cli(server, dir.path(), &[], &["list"], b""));
    let new = credential(dir.path(), server);
    assert_ne!(new, old);
    assert!(kept(dir.path())[&key]["expires_at"].as_u64().unwrap() > soon);
    assert_eq!(whoami(server, &old).await.0, 401);
    assert_eq!(whoami(server, &new).await.0, 200);
}

/// A person none of whose groups is a tenant gets no credential.
#[tokio::test]
async fn a_person_in_no_tenant_group_gets_no_credential() {
    let Some(setup) = setup().await else { return };
    let dir = tempfile::tempdir().unwrap();
    let output = login(&setup.server, dir.path(), "carol").await;
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("you signed in as Carol Nobody, but you belong to no team on this server"),
        "{said}"
    );
    assert!(!dir.path().join("login.json").exists());
}

/// A device code the provider never issued is refused: `400`, nothing opened.
#[tokio::test]
async fn a_forged_device_code_is_refused() {
    let Some(setup) = setup().await else { return };
    let response = no_redirects()
        .post(setup.server.at("/api/login/device/token"))
        .header("accept", "application/json")
        .json(&json!({ "device_code": "forged-device-code" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "signin_failed", "{body}");
    assert!(!setup.server.log_text().contains("forged-device-code"));
    for bad in ["", "{}", r#"{"device_code":""}"#, "not json"] {
        let response = no_redirects()
            .post(setup.server.at("/api/login/device/token"))
            .body(bad)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{bad}");
    }
}

/// Another tenant's plain API token is no login: refresh and logout refuse it.
#[tokio::test]
async fn an_api_token_is_no_login() {
    let Some(setup) = setup().await else { return };
    let token = crate::support::tenants::tenant(&setup.server, "mine", json!({})).await;
    for method in [Method::POST, Method::DELETE] {
        let path = if method == Method::POST {
            "/api/login/refresh"
        } else {
            "/api/login"
        };
        let response = no_redirects()
            .request(method, setup.server.at(path))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{path}");
    }
    let (status, who) = whoami(&setup.server, &token).await;
    assert_eq!(status, 200);
    assert_eq!(who["tenant"], "mine");
    assert_eq!(who["person"], Value::Null);
}

/// Without a provider the device routes answer `404 provider_disabled`.
#[tokio::test]
async fn not_configured() {
    let server = Server::start();
    let response = no_redirects()
        .post(server.at("/api/login/device"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let dir = tempfile::tempdir().unwrap();
    let out = run_cli(&server, dir.path(), &[], &["login"], b"");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not configured"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `snip get` and `snip delete` send the kept login to its server: a team
/// paste the CLI holds no delete token for is read, then deleted as the
/// team's (an owner's delete); without the login neither can.
#[tokio::test]
async fn get_and_delete_use_the_kept_login() {
    let Some(setup) = setup().await else { return };
    let server = &setup.server;
    let dir = tempfile::tempdir().unwrap();
    assert!(login(server, dir.path(), "alice").await.status.success());
    let credential = credential(dir.path(), server);
    let created: Value = no_redirects()
        .post(server.at("/?visibility=team"))
        .bearer_auth(&credential)
        .header("accept", "application/json")
        .body("for the team")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let url = created["url"].as_str().unwrap().to_owned();
    let stranger = tempfile::tempdir().unwrap();
    let refused = run_cli(server, stranger.path(), &[], &["get", &url], b"");
    assert!(!refused.status.success(), "a team paste needs the login");
    let read = run_cli(server, dir.path(), &[], &["get", &url], b"");
    assert_eq!(printed(&read), "for the team");
    let refused = run_cli(server, stranger.path(), &[], &["delete", &url], b"");
    assert!(!refused.status.success());
    succeeded(&run_cli(server, dir.path(), &[], &["delete", &url], b""));
    let gone = no_redirects()
        .get(server.at(&format!("/api/pastes/{}", created["id"].as_str().unwrap())))
        .bearer_auth(&credential)
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
}
