//! `snip login` against a provider with no device flow (the real
//! `oidc-provider`, its client a native application): the loopback redirect
//! of RFC 8252. The CLI prints the provider's page, a person signs in there
//! (its login and consent pages driven over HTTP), the provider sends the
//! browser to the CLI's loopback listener, and the CLI ends up holding a
//! login credential the server redeemed the code for. An answer with the
//! wrong `state`, nobody coming back, and redirect URIs or fields that are
//! not the loopback form are each refused.

use serde_json::{Value, json};

use crate::oidc::{Setup, serve};
use crate::support::cli::{CliLogin, run_cli, stdout, succeeded};
use crate::support::oidc_provider::{Provider, log_in, no_redirects};

/// The provider (native client, no device flow) and snip, or `None` where
/// the provider cannot run.
async fn setup() -> Option<Setup> {
    Some(serve(Provider::start_native()?).await)
}

/// Starts `snip login` (with `extra` arguments) for the client directory
/// `dir`, up to the page it prints.
fn start_login(setup: &Setup, dir: &std::path::Path, extra: &[&str]) -> CliLogin {
    CliLogin::start(&setup.server, dir, extra, |line| {
        line.starts_with("Waiting for the sign-in") || line.starts_with("error")
    })
}

/// The value of `name` in the query of `url`.
fn query_value(url: &str, name: &str) -> String {
    let url = reqwest::Url::parse(url).unwrap();
    url.query_pairs()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| panic!("no {name} in {url}"))
}

/// The whole sign-in: the page's redirect URI is the CLI's loopback on some
/// port; the browser comes back there with a code, and the CLI holds a
/// credential for Alice in `team`, which `whoami` then names.
#[tokio::test]
async fn signs_in_through_a_loopback_redirect() {
    let Some(setup) = setup().await else { return };
    let dir = tempfile::tempdir().unwrap();
    let login = start_login(&setup, dir.path(), &[]);
    let redirect = query_value(&login.page, "redirect_uri");
    assert!(
        redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/snip-login"),
        "{redirect}"
    );
    assert_eq!(query_value(&login.page, "code_challenge_method"), "S256");
    let back = log_in(&no_redirects(), &login.page, "alice").await;
    assert!(back.starts_with(&redirect), "{back}");
    let page = no_redirects().get(&back).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Signed in to snip"));
    let output = login.finish();
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("Signed in as Alice Liddell in tenant team."),
        "{said}"
    );
    let whoami = run_cli(&setup.server, dir.path(), &[], &["whoami"], b"");
    succeeded(&whoami);
    assert!(
        stdout(&whoami).contains("Alice Liddell"),
        "{}",
        stdout(&whoami)
    );
    assert!(
        !setup
            .server
            .log_text()
            .contains(&query_value(&back, "code"))
    );
}

/// An answer at the loopback with another `state` (not the provider's for
/// this sign-in) ends the login, clearly, and keeps nothing.
#[tokio::test]
async fn an_answer_with_the_wrong_state_is_refused() {
    let Some(setup) = setup().await else { return };
    let dir = tempfile::tempdir().unwrap();
    let login = start_login(&setup, dir.path(), &[]);
    let redirect = query_value(&login.page, "redirect_uri");
    let forged = format!("{redirect}?code=forged&state=not-the-state");
    let page = no_redirects().get(&forged).send().await.unwrap();
    assert_eq!(page.status(), 400);
    let output = login.finish();
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(said.contains("wrong state"), "{said}");
    assert!(!dir.path().join("login.json").exists());
}

/// Nobody coming back within `--timeout` ends the login, saying so.
#[tokio::test]
async fn nobody_coming_back_times_out() {
    let Some(setup) = setup().await else { return };
    let dir = tempfile::tempdir().unwrap();
    let login = start_login(&setup, dir.path(), &["--timeout=1s"]);
    let output = login.finish();
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(said.contains("nobody signed in within 1 s"), "{said}");
    assert!(!dir.path().join("login.json").exists());
}

/// The server takes only the loopback redirect URI and well-formed fields:
/// `400` naming the field, and no URL.
#[tokio::test]
async fn the_server_takes_only_loopback_redirects() {
    let Some(setup) = setup().await else { return };
    let good = json!({
        "redirect_uri": "http://127.0.0.1:40000/snip-login",
        "state": "s".repeat(43),
        "nonce": "n".repeat(43),
        "code_challenge": "c".repeat(43),
    });
    let post = |path: &'static str, body: Value| {
        let server = &setup.server;
        async move {
            let response = no_redirects()
                .post(server.at(path))
                .header("accept", "application/json")
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        }
    };
    let (status, answer) = post("/api/login/loopback", good.clone()).await;
    assert_eq!(status, 200, "{answer}");
    assert!(
        answer["authorization_url"]
            .as_str()
            .unwrap()
            .contains("code_challenge=ccc")
    );
    for (field, value, words) in [
        (
            "redirect_uri",
            "https://evil.example/snip-login",
            "redirect_uri must be",
        ),
        (
            "redirect_uri",
            "http://127.0.0.1/snip-login",
            "redirect_uri must be",
        ),
        ("state", "short", "state must be"),
        ("code_challenge", "c", "code_challenge must be"),
        ("nonce", "a b c d e f g h i j", "nonce must be"),
    ] {
        let mut body = good.clone();
        body[field] = json!(value);
        let (status, answer) = post("/api/login/loopback", body).await;
        assert_eq!(status, 400, "{field}={value}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{message}");
    }
    let (status, _) = post("/api/login/loopback", json!({ "state": "x" })).await;
    assert_eq!(status, 400);
    let (status, answer) = post(
        "/api/login/loopback/token",
        json!({
            "redirect_uri": "http://127.0.0.1:40000/snip-login",
            "code": "forged-code",
            "code_verifier": "v".repeat(43),
            "nonce": "n".repeat(43),
        }),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], "signin_failed");
}
