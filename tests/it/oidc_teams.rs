//! People and their teams, against the real provider (`oidc-provider`):
//! a person whose groups name several tenants acts for the first by name
//! and switches to the others from the header (never to a tenant their
//! groups did not allow, never from another site); a person whose groups
//! name none is signed in with an anonymous visitor's rights and told so;
//! and the re-check: a person taken out of the group, a tenant accepting
//! another group, or a provider refusing to renew the sign-in ends the
//! session at the next request once `--oidc-recheck-interval` is past.

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::oidc::{Setup, args, begin, callback, my, oidc_flags, serve_with, sign_in};
use crate::support::Server;
use crate::support::oidc_provider::{Jar, Provider, log_in, no_redirects};
use crate::support::postgres::skip_unless_postgres;
use crate::support::tenants::{ADMIN, admin, tenant};

/// The provider and snip started with `extra` flags, or `None` where the
/// provider cannot run.
async fn setup_with(extra: &[&str]) -> Option<Setup> {
    Some(serve_with(Provider::start()?, extra).await)
}

/// `login` signed in: their browser's cookies.
async fn person(setup: &Setup, login: &str) -> Jar {
    let (jar, response) = sign_in(setup, login).await;
    assert_eq!(response.status(), 303, "{login} signs in");
    jar
}

/// `method path` from the server's own pages with the cookies of `jar`.
async fn send(setup: &Setup, jar: &Jar, method: Method, path: &str, body: &str) -> Response {
    no_redirects()
        .request(method, setup.server.at(path))
        .header("cookie", jar.header())
        .header("origin", &setup.server.url)
        .header("accept", "application/json")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_owned())
        .send()
        .await
        .unwrap()
}

/// The message of the refusal `response`, which must have `status`.
async fn refusal(response: Response, status: u16) -> String {
    assert_eq!(response.status(), status);
    let answer: Value = response.json().await.unwrap();
    answer["error"]["message"].as_str().unwrap().to_owned()
}

/// The text of the element with `id` in `page` (between its tag's end and
/// the next `<`).
fn text_of<'a>(page: &'a str, id: &str) -> Option<&'a str> {
    let at = page.find(&format!("id=\"{id}\""))?;
    let rest = &page[at..];
    let start = rest.find('>')? + 1;
    let end = rest[start..].find('<')?;
    Some(&rest[start..start + end])
}

/// A person in the groups of `other` and `team` acts for `other` (the
/// first by name); the header offers `team`, and switching moves the
/// session there: a new cookie, the old one ended.
#[tokio::test]
async fn a_person_in_two_teams_switches_between_them() {
    let Some(setup) = setup_with(&[]).await else {
        return;
    };
    let mut jar = person(&setup, "dave").await;
    let (status, page) = my(&setup.server, &jar).await;
    assert_eq!(status, 200);
    assert_eq!(text_of(&page, "tenant-name"), Some("other"));
    assert!(page.contains(r#"<form method="post" action="/session/tenant""#));
    assert!(page.contains("<option>team</option>"), "{page}");
    assert!(!page.contains("<option>other</option>"));
    let before = jar.clone();
    let response = send(&setup, &jar, Method::POST, "/session/tenant", "tenant=team").await;
    assert_eq!(response.status(), 303);
    assert_eq!(response.headers()["location"], "/my");
    jar.take(&response);
    assert_ne!(jar.get("snip_session"), before.get("snip_session"));
    let (status, page) = my(&setup.server, &jar).await;
    assert_eq!(status, 200);
    assert_eq!(text_of(&page, "tenant-name"), Some("team"));
    assert!(page.contains("<option>other</option>"));
    assert_eq!(
        my(&setup.server, &before).await.0,
        401,
        "the old session ended"
    );
    // And back.
    let response = send(
        &setup,
        &jar,
        Method::POST,
        "/session/tenant",
        "tenant=other",
    )
    .await;
    assert_eq!(response.status(), 303);
    jar.take(&response);
    assert_eq!(
        text_of(&my(&setup.server, &jar).await.1, "tenant-name"),
        Some("other")
    );
}

/// The switcher takes only a tenant the person's groups allowed, from the
/// server's own pages, with a well-formed form; each refusal changes
/// nothing.
#[tokio::test]
async fn the_switcher_refuses_what_the_groups_do_not_allow() {
    let Some(setup) = setup_with(&[]).await else {
        return;
    };
    let (status, _) = admin(
        &setup.server,
        Method::POST,
        "/api/admin/tenants",
        Some(json!({ "name": "secret" })),
    )
    .await;
    assert_eq!(status, 201);
    let jar = person(&setup, "dave").await;
    for (body, status, words) in [
        ("tenant=secret", 403, "do not let you act for the team"),
        ("tenant=nosuch", 403, "do not let you act for the team"),
        ("tenant=", 400, "must name a team"),
        ("other=team", 400, "must name a team"),
    ] {
        let response = send(&setup, &jar, Method::POST, "/session/tenant", body).await;
        let message = refusal(response, status).await;
        assert!(message.contains(words), "{body}: {message}");
    }
    let big = format!("tenant={}", "a".repeat(4096));
    let response = send(&setup, &jar, Method::POST, "/session/tenant", &big).await;
    assert_eq!(response.status(), 413);
    // From another site: refused before anything is read.
    let response = no_redirects()
        .post(setup.server.at("/session/tenant"))
        .header("cookie", jar.header())
        .header("origin", "https://evil.example")
        .header("accept", "application/json")
        .body("tenant=team")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    // Alice, in one team, has no switcher and cannot switch.
    let alice = person(&setup, "alice").await;
    let (_, page) = my(&setup.server, &alice).await;
    assert!(!page.contains("/session/tenant"));
    let response = send(
        &setup,
        &alice,
        Method::POST,
        "/session/tenant",
        "tenant=other",
    )
    .await;
    assert_eq!(response.status(), 403);
    // Dave still acts for `other`.
    let (_, page) = my(&setup.server, &jar).await;
    assert_eq!(text_of(&page, "tenant-name"), Some("other"));
}

/// A person in no tenant's group is signed in with their name and told, in
/// the header and on My pastes, that they belong to no team; they can do
/// what an anonymous visitor can (a paste with no owner and no author) and
/// no more (no listing, no only-me paste, no switching).
#[tokio::test]
async fn a_person_in_no_team_has_anonymous_rights() {
    let Some(setup) = setup_with(&[]).await else {
        return;
    };
    let (jar, response) = sign_in(&setup, "carol").await;
    assert_eq!(response.status(), 303);
    assert!(jar.get("snip_session").is_some());
    let (status, page) = my(&setup.server, &jar).await;
    assert_eq!(status, 200);
    assert_eq!(text_of(&page, "person-name"), Some("Carol Nobody"));
    assert!(
        text_of(&page, "no-team").is_some_and(|t| t.contains("You belong to no team")),
        "{page}"
    );
    assert!(text_of(&page, "my-no-team").is_some(), "{page}");
    assert!(!page.contains("tenant-name"));
    let response = send(&setup, &jar, Method::POST, "/", "hello").await;
    assert_eq!(response.status(), 201);
    let created: Value = response.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let meta = send(&setup, &jar, Method::GET, &format!("/api/pastes/{id}"), "").await;
    let meta: Value = meta.json().await.unwrap();
    assert!(meta.get("author").is_none_or(Value::is_null), "{meta}");
    assert!(meta.get("owner").is_none_or(Value::is_null), "{meta}");
    let response = send(&setup, &jar, Method::POST, "/?visibility=me", "mine").await;
    assert_eq!(response.status(), 400);
    let response = send(&setup, &jar, Method::GET, "/api/pastes", "").await;
    assert_eq!(response.status(), 401);
    let response = send(&setup, &jar, Method::POST, "/session/tenant", "tenant=team").await;
    assert_eq!(response.status(), 403);
}

/// Under `--anonymous off` a person in no team may sign in, sees why they
/// can do nothing, and is refused with that reason.
#[tokio::test]
async fn a_person_in_no_team_is_told_why_a_closed_server_refuses() {
    let Some(setup) = setup_with(&["--anonymous=off"]).await else {
        return;
    };
    let jar = person(&setup, "carol").await;
    let (status, page) = my(&setup.server, &jar).await;
    assert_eq!(status, 200);
    assert!(text_of(&page, "no-team").is_some());
    let response = send(&setup, &jar, Method::POST, "/", "hello").await;
    let message = refusal(response, 403).await;
    assert!(
        message.contains("you belong to no team on this server"),
        "{message}"
    );
}

/// With `--oidc-recheck-interval=0`, taking a person out of the group ends
/// their session at their next request; a person keeping it carries on.
#[tokio::test]
async fn leaving_the_group_ends_the_session_at_the_next_request() {
    let Some(mut setup) = setup_with(&["--oidc-recheck-interval=0"]).await else {
        return;
    };
    let alice = person(&setup, "alice").await;
    let dave = person(&setup, "dave").await;
    assert_eq!(my(&setup.server, &alice).await.0, 200);
    assert_eq!(my(&setup.server, &alice).await.0, 200, "renewed, still in");
    setup.provider.set_groups("alice", &["staff"]);
    let response = send(&setup, &alice, Method::GET, "/api/login", "").await;
    let message = refusal(response, 401).await;
    assert!(
        message.contains("no longer accepts any of your groups"),
        "{message}"
    );
    assert_eq!(my(&setup.server, &alice).await.0, 401, "and stays ended");
    // Dave leaves `team` but keeps `other`, the session's tenant.
    setup.provider.set_groups("dave", &["other"]);
    assert_eq!(my(&setup.server, &dave).await.0, 200);
}

/// The interval bounds how often the provider is asked: within it, the
/// groups of the last check hold.
#[tokio::test]
async fn within_the_interval_the_last_check_holds() {
    let Some(mut setup) = setup_with(&["--oidc-recheck-interval=1h"]).await else {
        return;
    };
    let alice = person(&setup, "alice").await;
    setup.provider.set_groups("alice", &[]);
    assert_eq!(my(&setup.server, &alice).await.0, 200);
}

/// A provider that refuses to renew the sign-in (the account is gone)
/// ends the session at the next request.
#[tokio::test]
async fn a_refused_renewal_ends_the_session() {
    let Some(mut setup) = setup_with(&["--oidc-recheck-interval=0"]).await else {
        return;
    };
    let alice = person(&setup, "alice").await;
    assert_eq!(my(&setup.server, &alice).await.0, 200);
    setup.provider.remove("alice");
    let response = send(&setup, &alice, Method::GET, "/api/login", "").await;
    let message = refusal(response, 401).await;
    assert!(
        message.contains("no longer confirms your sign-in"),
        "{message}"
    );
    assert_eq!(my(&setup.server, &alice).await.0, 401);
}

/// The admin changing the group a tenant accepts ends the sessions opened
/// through the old group at their next request, with no re-check needed.
#[tokio::test]
async fn a_tenant_accepting_another_group_ends_its_sessions() {
    let Some(setup) = setup_with(&["--oidc-recheck-interval=1h"]).await else {
        return;
    };
    let alice = person(&setup, "alice").await;
    assert_eq!(my(&setup.server, &alice).await.0, 200);
    let (status, answer) = admin(
        &setup.server,
        Method::PATCH,
        "/api/admin/tenants/team",
        Some(json!({ "group": "devs" })),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(my(&setup.server, &alice).await.0, 401);
}

/// On PostgreSQL, the check's outcome holds on every instance: a person
/// signed in through one, taken out of the group, is refused by the other
/// at the next request, and then by the first.
#[tokio::test]
async fn leaving_the_group_ends_the_session_on_every_instance() {
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let Some(mut provider) = Provider::start() else {
        return;
    };
    let (_dir, flags) = oidc_flags(&provider.issuer);
    let admin_flag = format!("--admin-token={ADMIN}");
    let (a, b) = Server::start_pair(&args(
        &flags,
        &[&admin_flag, "--ip-rate=off", "--oidc-recheck-interval=0"],
    ));
    provider.configure(&[a.at("/signin/oidc/callback")]);
    tenant(&a, "team", json!({})).await;
    let (mut jar, start) = begin(&a).await;
    let back = log_in(&no_redirects(), &start, "alice").await;
    let response = callback(&jar, &back).await;
    assert_eq!(response.status(), 303);
    jar.take(&response);
    assert_eq!(my(&b, &jar).await.0, 200, "the other instance honours it");
    provider.set_groups("alice", &["staff"]);
    assert_eq!(my(&b, &jar).await.0, 401);
    assert_eq!(my(&a, &jar).await.0, 401);
}
