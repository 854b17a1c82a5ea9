//! Signing in through an OpenID Connect provider, against a real one
//! (panva's `oidc-provider`, `support::oidc_provider`): the whole flow, and
//! hostile callbacks, each reaching its check with the provider in the loop
//! (a callback without the browser's sign-in cookie, a replayed one, a
//! wrong `state`, a `nonce` or PKCE verifier that is not the one sent),
//! a provider that is down or stalls, and a
//! deleted tenant ending the session. Every refusal is a clear error and
//! sets no session cookie; nothing secret reaches the log.

use reqwest::Response;
use serde_json::{Value, json};

use crate::support::Server;
use crate::support::frozen_proxy::FrozenProxy;
use crate::support::oidc_provider::{
    CLIENT_ID, CLIENT_SECRET, Jar, Provider, log_in, no_redirects,
};
use crate::support::tenants::{self, admin};

/// A provider, and snip signing people in through it with tenants `team`
/// and `other`; the temp dir holds the client secret file.
pub(crate) struct Setup {
    pub provider: Provider,
    pub server: Server,
    _dir: tempfile::TempDir,
}

/// The flags that point snip at `issuer` as client `snip`, and the temp dir
/// holding the client secret file (kept while the server runs).
pub(crate) fn oidc_flags(issuer: &str) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret");
    std::fs::write(&secret, format!("{CLIENT_SECRET}\n")).unwrap();
    let flags = vec![
        format!("--oidc-issuer={issuer}"),
        format!("--oidc-client-id={CLIENT_ID}"),
        format!("--oidc-client-secret-file={}", secret.display()),
    ];
    (dir, flags)
}

/// `flags` and `extra` as the arguments a server starts with.
pub(crate) fn args<'a>(flags: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    flags
        .iter()
        .map(String::as_str)
        .chain(extra.iter().copied())
        .collect()
}

/// The body of `GET path`.
async fn page(server: &Server, path: &str) -> String {
    no_redirects()
        .get(server.at(path))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Starts the provider and snip, or `None` where the provider cannot run
/// (see [`Provider::start`]).
pub(crate) async fn setup() -> Option<Setup> {
    Some(serve(Provider::start()?).await)
}

/// Starts snip signing people in through `provider`, with tenants `team`
/// and `other`.
pub(crate) async fn serve(provider: Provider) -> Setup {
    serve_with(provider, &[]).await
}

/// [`serve`], the server started with `extra` flags too.
pub(crate) async fn serve_with(mut provider: Provider, extra: &[&str]) -> Setup {
    let (dir, flags) = oidc_flags(&provider.issuer);
    let mut extra = extra.to_vec();
    extra.push("--ip-rate=off");
    let server = tenants::start(&args(&flags, &extra));
    provider.configure(&[
        server.at("/signin/oidc/callback"),
        "http://127.0.0.1/snip-login".to_owned(),
    ]);
    for name in ["team", "other"] {
        let (status, _) = admin(
            &server,
            reqwest::Method::POST,
            "/api/admin/tenants",
            Some(json!({ "name": name })),
        )
        .await;
        assert_eq!(status, 201);
    }
    Setup {
        provider,
        server,
        _dir: dir,
    }
}

/// Starts a sign-in at snip: the browser's cookies and the provider's
/// authorization URL.
pub(crate) async fn begin(server: &Server) -> (Jar, String) {
    let response = no_redirects()
        .get(server.at("/signin/oidc?next=/new"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    let mut jar = Jar::default();
    jar.take(&response);
    assert!(jar.get("snip_signin").is_some(), "a sign-in cookie");
    let cookie = set_cookies(&response).join("\n");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let url = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("{}/auth?", "")) || url.contains("/auth?"),
        "{url}"
    );
    for part in [
        "code_challenge_method=S256",
        "state=",
        "nonce=",
        "response_type=code",
    ] {
        assert!(url.contains(part), "{part} in {url}");
    }
    (jar, url)
}

/// Goes to snip's callback `url` with the cookies in `jar`, as JSON.
pub(crate) async fn callback(jar: &Jar, url: &str) -> Response {
    no_redirects()
        .get(url)
        .header("cookie", jar.header())
        .header("accept", "application/json")
        .send()
        .await
        .unwrap()
}

/// A whole sign-in as `login`: the browser's cookies afterwards and the callback's answer.
pub(crate) async fn sign_in(setup: &Setup, login: &str) -> (Jar, Response) {
    let (mut jar, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, login).await;
    let response = callback(&jar, &back).await;
    jar.take(&response);
    (jar, response)
}

pub(crate) fn set_cookies(response: &Response) -> Vec<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

/// Asserts `response` is the refusal `status` with `code`, sets no session
/// and removes the sign-in cookie; returns its message.
pub(crate) async fn assert_refused(response: Response, status: u16, code: &str) -> String {
    assert_eq!(response.status(), status);
    let cookies = set_cookies(&response);
    assert!(
        !cookies
            .iter()
            .any(|c| c.starts_with("snip_session=") && !c.contains("Max-Age=0")),
        "{cookies:?}"
    );
    assert!(
        cookies.iter().any(|c| c.starts_with("snip_signin=;")),
        "the sign-in cookie is removed: {cookies:?}"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], code, "{body}");
    body["error"]["message"].as_str().unwrap().to_owned()
}

/// `GET /my` with the cookies of `jar`: (status, body).
pub(crate) async fn my(server: &Server, jar: &Jar) -> (u16, String) {
    let response = no_redirects()
        .get(server.at("/my"))
        .header("cookie", jar.header())
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// A person in the `team` group signs in: a session for tenant `team`
/// carrying their name, sent on to where the sign-in started; nothing
/// secret in the log.
#[tokio::test]
async fn signs_in_through_the_provider() {
    let Some(setup) = setup().await else { return };
    let (jar, response) = sign_in(&setup, "alice").await;
    assert_eq!(response.status(), 303);
    assert_eq!(response.headers()["location"], "/new");
    let session = jar.get("snip_session").expect("a session");
    assert!(
        jar.get("snip_signin").is_none(),
        "the sign-in cookie is removed"
    );
    let (status, page) = my(&setup.server, &jar).await;
    assert_eq!(status, 200);
    assert!(page.contains(r#"<span class="person" id="person-name">Alice Liddell</span>"#));
    assert!(page.contains(r#"<span class="tenant" id="tenant-name">team</span>"#));
    let logs = setup.server.log_text();
    assert!(!logs.contains(CLIENT_SECRET));
    assert!(!logs.contains(session));
}

/// A callback the browser did not start (no sign-in cookie: forged, or
/// from another browser) opens nothing, though its code is real.
#[tokio::test]
async fn a_callback_without_the_signin_cookie_is_refused() {
    let Some(setup) = setup().await else { return };
    let (_, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    let message =
        assert_refused(callback(&Jar::default(), &back).await, 400, "signin_failed").await;
    assert!(message.contains("not started in this browser"), "{message}");
}

/// A callback whose `state` is not the one this browser sent is refused
/// before the code is used.
#[tokio::test]
async fn a_wrong_state_is_refused() {
    let Some(setup) = setup().await else { return };
    let (jar, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    let mut url = reqwest::Url::parse(&back).unwrap();
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            let v = if k == "state" {
                format!("{v}x")
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    url.query_pairs_mut().clear().extend_pairs(pairs);
    let message = assert_refused(callback(&jar, url.as_str()).await, 400, "signin_failed").await;
    assert!(message.contains("wrong state"), "{message}");
    // The same code with the right state still works: the wrong one used nothing.
    assert_eq!(callback(&jar, &back).await.status(), 303);
}

/// A replayed callback (the browser's cookie copied, the code used once
/// already) is refused: the provider redeems a code once.
#[tokio::test]
async fn a_replayed_callback_is_refused() {
    let Some(setup) = setup().await else { return };
    let (jar, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    assert_eq!(callback(&jar, &back).await.status(), 303);
    assert_refused(callback(&jar, &back).await, 400, "signin_failed").await;
    // The refusal's line is logged (so the log is complete), without the code.
    assert!(setup.server.wait_for_log("the code was refused"));
    assert!(
        !setup.server.log_text().contains(
            back.split("code=")
                .nth(1)
                .unwrap()
                .split('&')
                .next()
                .unwrap()
        )
    );
}

/// Signs in as alice with the part `index` of the browser's sign-in cookie
/// (0 state, 1 nonce, 2 PKCE verifier) replaced by `other` (base64url);
/// the callback's answer.
async fn with_signin_cookie_part(setup: &Setup, index: usize, other: &str) -> Response {
    let (mut jar, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    let value = jar.get("snip_signin").unwrap().to_owned();
    let mut parts: Vec<&str> = value.split('.').collect();
    parts[index] = other;
    jar.set("snip_signin", &parts.join("."));
    callback(&jar, &back).await
}

/// The ID token's `nonce` must be the one this browser's sign-in sent: a
/// sign-in cookie with another nonce (state and verifier intact) gets the
/// real provider's real ID token refused.
#[tokio::test]
async fn a_wrong_nonce_is_refused() {
    let Some(setup) = setup().await else { return };
    // "other-nonce"
    let response = with_signin_cookie_part(&setup, 1, "b3RoZXItbm9uY2U").await;
    assert_refused(response, 400, "signin_failed").await;
    assert!(
        setup.server.wait_for_log("Invalid nonce"),
        "the log says why"
    );
}

/// A PKCE verifier that does not match the challenge sent: the provider
/// refuses the code.
#[tokio::test]
async fn a_wrong_pkce_verifier_is_refused() {
    let Some(setup) = setup().await else { return };
    let other = "b3RoZXItdmVyaWZpZXItb3RoZXItdmVyaWZpZXItb3RoZXItdmVyaWZpZXI";
    let response = with_signin_cookie_part(&setup, 2, other).await;
    assert_refused(response, 400, "signin_failed").await;
    assert!(
        setup.server.wait_for_log("the code was refused"),
        "the log says why"
    );
}

/// Deleting the tenant ends the session at the next request.
#[tokio::test]
async fn deleting_the_tenant_ends_the_session() {
    let Some(setup) = setup().await else { return };
    let (jar, response) = sign_in(&setup, "alice").await;
    assert_eq!(response.status(), 303);
    assert_eq!(my(&setup.server, &jar).await.0, 200);
    let (status, _) = admin(
        &setup.server,
        reqwest::Method::DELETE,
        "/api/admin/tenants/team",
        None,
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(my(&setup.server, &jar).await.0, 401);
}

/// A provider that is down: a clear `502`, and the server keeps serving.
#[tokio::test]
async fn a_provider_that_is_down_is_a_clear_error() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let issuer = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (_dir, flags) = oidc_flags(&issuer);
    let server = Server::start_with(&args(&flags, &[]));
    let response = no_redirects()
        .get(server.at("/signin/oidc"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    let message = assert_refused(response, 502, "provider_unavailable").await;
    assert!(message.contains("cannot be reached"), "{message}");
    assert_eq!(
        no_redirects()
            .get(server.at("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

/// A provider that stalls mid-answer: a `502` within the bound on its
/// answers, not a request that hangs.
#[tokio::test]
async fn a_provider_that_stalls_is_a_clear_error() {
    let Some(setup) = setup().await else { return };
    let target = setup
        .provider
        .issuer
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    let proxy = FrozenProxy::start(target).await;
    proxy.freeze();
    let (_dir, flags) = oidc_flags(&format!("http://{}", proxy.addr));
    let server = Server::start_with(&args(&flags, &[]));
    let started = std::time::Instant::now();
    let response = no_redirects()
        .get(server.at("/signin/oidc"))
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_refused(response, 502, "provider_unavailable").await;
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

/// Without `--oidc-issuer` the routes answer `404`; the sign-in page offers
/// only the token.
#[tokio::test]
async fn not_configured() {
    let server = Server::start();
    let response = no_redirects()
        .get(server.at("/signin/oidc"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let page = page(&server, "/signin").await;
    assert!(!page.contains("signin-provider"));
    assert!(page.contains(r#"id="token""#));
}

/// `--token-signin off`: the page offers only the provider, and a token
/// sign-in post is refused.
#[tokio::test]
async fn token_signin_can_be_turned_off() {
    let Some(setup) = setup().await else { return };
    drop(setup.server);
    let (_dir, flags) = oidc_flags(&setup.provider.issuer);
    let server = tenants::start(&args(&flags, &["--token-signin=off"]));
    let page = page(&server, "/signin").await;
    assert!(page.contains("signin-provider"));
    assert!(!page.contains(r#"id="token""#));
    let token = tenants::tenant(&server, "team", json!({})).await;
    let response = no_redirects()
        .post(server.at("/signin"))
        .header("origin", &server.url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    assert!(set_cookies(&response).is_empty());
}

/// Signing out deletes the session and offers a link to the provider's
/// `end_session_endpoint`, which comes back to snip; a token session's
/// sign-out just goes to `/`.
#[tokio::test]
async fn signing_out_ends_the_providers_session_too() {
    let Some(setup) = setup().await else { return };
    let (jar, response) = sign_in(&setup, "alice").await;
    assert_eq!(response.status(), 303);
    let response = no_redirects()
        .post(setup.server.at("/signout"))
        .header("cookie", jar.header())
        .header("origin", &setup.server.url)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(set_cookies(&response)[0].starts_with("snip_session=;"));
    let page = response.text().await.unwrap();
    // The provider's link (the header's own links are relative).
    let start = page.find(r#"<a href="http"#).unwrap() + 9;
    let link = page[start..start + page[start..].find('"').unwrap()]
        .replace("&#38;", "&")
        .replace("&amp;", "&");
    let to = reqwest::Url::parse(&link).unwrap();
    assert_eq!(
        format!("{}{}", to.origin().ascii_serialization(), to.path()),
        format!("{}/session/end", setup.provider.issuer)
    );
    let back: Vec<_> = to
        .query_pairs()
        .filter(|(k, _)| k == "post_logout_redirect_uri")
        .map(|(_, v)| v.into_owned())
        .collect();
    assert_eq!(back, [setup.server.at("/")]);
    assert_eq!(my(&setup.server, &jar).await.0, 401);
    let token = tenants::token(&setup.server, "team", json!({})).await.1;
    let signed_in = no_redirects()
        .post(setup.server.at("/signin"))
        .header("origin", &setup.server.url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={token}"))
        .send()
        .await
        .unwrap();
    let mut token_jar = Jar::default();
    token_jar.take(&signed_in);
    let response = no_redirects()
        .post(setup.server.at("/signout"))
        .header("cookie", token_jar.header())
        .header("origin", &setup.server.url)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["location"], "/");
}
