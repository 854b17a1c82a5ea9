//! Forged ID tokens and a hostile provider side, against the real provider
//! with a tampering proxy in the middle (`support::tampering_proxy`): the
//! token endpoint's `id_token` with a broken signature, `alg: none`, signed
//! by a key the provider's JWKS lacks, or re-signed with the provider's own
//! key but expired, for another issuer, another audience or another nonce;
//! an answer larger than snip takes, and a provider gone between the start
//! and the callback. Each is a clear refusal, no session cookie, and a log
//! that says why without a code or a token. A token re-signed with the
//! provider's key and nothing wrong in it is taken, so every refusal is the
//! check named, not the re-signing.

use serde_json::{Value, json};

use crate::oidc::{Setup, assert_refused, begin, callback, my, serve};
use crate::support::oidc_provider::{CLIENT_SECRET, Jar, Provider, log_in, no_redirects};
use crate::support::tampering_proxy::{Rewrite, TamperingProxy, assemble, decode, sign};

/// The provider behind the proxy (which it names as its issuer), and snip
/// signing people in through them.
async fn setup() -> Option<(Setup, TamperingProxy)> {
    let proxy = TamperingProxy::bind().await;
    let provider = Provider::start_as(Some(&proxy.url))?;
    proxy.forward_to(&provider.listening);
    Some((serve(provider).await, proxy))
}

/// The `code` of a callback URL.
fn code_of(url: &str) -> String {
    reqwest::Url::parse(url)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1
        .into_owned()
}

/// Alice signs in, the token endpoint's ID token replaced by what `change`
/// makes of the real one: the browser's cookies and the callback's answer,
/// and the code the provider gave.
async fn sign_in_with(
    setup: &Setup,
    proxy: &TamperingProxy,
    change: impl Fn(&str) -> String + Send + Sync + 'static,
) -> (Jar, reqwest::Response, String) {
    proxy.rewrite(Rewrite::IdToken(Box::new(change)));
    let (mut jar, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    let response = callback(&jar, &back).await;
    jar.take(&response);
    (jar, response, code_of(&back))
}

/// The real token's claims changed by `edit`, signed with `key`.
fn resigned(
    key: &(String, String),
    edit: impl Fn(&mut Value) + Send + Sync + 'static,
) -> impl Fn(&str) -> String + Send + Sync + 'static {
    let key = key.clone();
    move |token| {
        let (_, mut claims) = decode(token);
        edit(&mut claims);
        sign(&claims, &key)
    }
}

/// Asserts the callback was refused as `400 signin_failed`, the log says
/// `why`, and no code, ID token or client secret reached the log.
async fn assert_forgery_refused(setup: &Setup, response: reqwest::Response, code: &str, why: &str) {
    let message = assert_refused(response, 400, "signin_failed").await;
    assert!(message.contains("could not be verified"), "{message}");
    assert!(setup.server.wait_for_log(why), "the log says {why:?}");
    let logs = setup.server.log_text();
    assert!(!logs.contains(code), "the code is not logged");
    // Every JWT starts with `eyJ` (base64 of `{"`).
    assert!(!logs.contains("eyJ"), "no token is logged");
    assert!(!logs.contains(CLIENT_SECRET));
}

/// Alice's real ID token with its claims changed by `edit`, re-signed
/// with the provider's own key, is refused, and the log says `why`.
async fn assert_resigned_refused(edit: impl Fn(&mut Value) + Send + Sync + 'static, why: &str) {
    let Some((setup, proxy)) = setup().await else {
        return;
    };
    let change = resigned(&setup.provider.key, edit);
    let (_, response, code) = sign_in_with(&setup, &proxy, change).await;
    assert_forgery_refused(&setup, response, &code, why).await;
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The control: the real token's claims re-signed with the provider's own
/// key are taken, and what they say counts (groups changed to `other`).
#[tokio::test]
async fn a_token_resigned_with_the_providers_key_is_taken() {
    let Some((setup, proxy)) = setup().await else {
        return;
    };
    let change = resigned(&setup.provider.key, |claims| {
        claims["groups"] = json!(["other"]);
    });
    let (jar, response, _) = sign_in_with(&setup, &proxy, change).await;
    assert_eq!(response.status(), 303);
    let (status, page) = my(&setup.server, &jar).await;
    assert_eq!(status, 200);
    assert!(page.contains(r#"<span class="tenant" id="tenant-name">other</span>"#));
}

/// Claims changed under the provider's signature: the signature no longer
/// verifies.
#[tokio::test]
async fn a_tampered_token_is_refused() {
    let Some((setup, proxy)) = setup().await else {
        return;
    };
    let (_, response, code) = sign_in_with(&setup, &proxy, |token| {
        let (header, mut claims) = decode(token);
        claims["groups"] = json!(["other"]);
        assemble(&header, &claims, token.rsplit('.').next().unwrap())
    })
    .await;
    assert_forgery_refused(&setup, response, &code, "Signature verification failed").await;
}

/// An unsigned token (`alg: none`) is refused.
#[tokio::test]
async fn an_unsigned_token_is_refused() {
    let Some((setup, proxy)) = setup().await else {
        return;
    };
    let (_, response, code) = sign_in_with(&setup, &proxy, |token| {
        let (_, claims) = decode(token);
        assemble(&json!({ "alg": "none", "typ": "JWT" }), &claims, "")
    })
    .await;
    assert_forgery_refused(&setup, response, &code, "the ID token").await;
}

/// A token signed by a key the provider's JWKS lacks, under that key's own
/// `kid`, is refused.
#[tokio::test]
async fn a_token_signed_by_an_unknown_key_is_refused() {
    let Some((setup, proxy)) = setup().await else {
        return;
    };
    let change = resigned(&setup.provider.stranger, |_| {});
    let (_, response, code) = sign_in_with(&setup, &proxy, change).await;
    assert_forgery_refused(&setup, response, &code, "No matching key found").await;
}

/// A token signed by an impostor's key under the provider's `kid`: the
/// signature does not verify.
#[tokio::test]
async fn a_token_signed_by_an_impostor_under_the_providers_kid_is_refused() {
    let Some((setup, proxy)) = setup().await else {
        return;
    };
    let impostor = (
        setup.provider.key.0.clone(),
        setup.provider.stranger.1.clone(),
    );
    let change = resigned(&impostor, |_| {});
    let (_, response, code) = sign_in_with(&setup, &proxy, change).await;
    assert_forgery_refused(&setup, response, &code, "Signature verification failed").await;
}

/// An expired token, signed by the provider's key, is refused.
#[tokio::test]
async fn an_expired_token_is_refused() {
    let edit = |claims: &mut Value| {
        claims["iat"] = json!(now() - 7200);
        claims["exp"] = json!(now() - 3600);
    };
    assert_resigned_refused(edit, "Expired").await;
}

/// A token for another issuer, signed by the provider's key, is refused.
#[tokio::test]
async fn a_token_of_another_issuer_is_refused() {
    let edit = |claims: &mut Value| {
        claims["iss"] = json!("https://idp.evil.example");
    };
    assert_resigned_refused(edit, "Invalid issuer").await;
}

/// A token for another client (audience), signed by the provider's key, is
/// refused.
#[tokio::test]
async fn a_token_for_another_audience_is_refused() {
    let edit = |claims: &mut Value| {
        claims["aud"] = json!("another-client");
        claims["azp"] = json!("another-client");
    };
    assert_resigned_refused(edit, "Invalid audiences").await;
}

/// A token carrying another sign-in's nonce, signed by the provider's key,
/// is refused.
#[tokio::test]
async fn a_token_with_another_nonce_is_refused() {
    let edit = |claims: &mut Value| {
        claims["nonce"] = json!("a-nonce-of-another-sign-in");
    };
    assert_resigned_refused(edit, "Invalid nonce").await;
}

/// A token endpoint answering more than snip takes: a clear `502`, no
/// session.
#[tokio::test]
async fn a_provider_answering_too_much_is_a_clear_error() {
    let Some((setup, proxy)) = setup().await else {
        return;
    };
    proxy.rewrite(Rewrite::Oversized(300 * 1024));
    let (jar, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    let response = callback(&jar, &back).await;
    let message = assert_refused(response, 502, "provider_unavailable").await;
    assert!(message.contains("cannot be reached"), "{message}");
    assert!(setup.server.wait_for_log("larger than"));
    assert!(!setup.server.log_text().contains(&code_of(&back)));
}

/// A provider gone between the start of a sign-in and its callback (its
/// port closed): a clear `502`, no session.
#[tokio::test]
async fn a_provider_gone_at_the_callback_is_a_clear_error() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let mut setup = serve(provider).await;
    let (jar, start) = begin(&setup.server).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    setup.provider.stop();
    let response = callback(&jar, &back).await;
    let message = assert_refused(response, 502, "provider_unavailable").await;
    assert!(message.contains("cannot be reached"), "{message}");
    assert!(setup.server.wait_for_log("the token request failed"));
    assert!(!setup.server.log_text().contains(&code_of(&back)));
}
