//! Pastes of people signed in through the identity provider (a real one,
//! `support::oidc_provider`): the author each paste records and shows,
//! only-me pastes refused on every read route to everyone but their author
//! (another member of the same tenant, the tenant's token, anonymous
//! callers all get the `404` of a missing paste), and the listings of a
//! tenant's pastes with their authors; a tenant naming the provider's group
//! whose members sign in to it.

use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use crate::files::form;
use crate::oidc::{Setup, setup, sign_in};
use crate::support::http::{Fetch, json_or_text};
use crate::support::oidc_provider::Jar;
use crate::support::tenants;

/// A person's browser: signed in as `login`, its cookies.
async fn person(setup: &Setup, login: &str) -> Jar {
    let (jar, response) = sign_in(setup, login).await;
    assert_eq!(response.status(), 303, "{login} signs in");
    jar
}

/// Who makes a request.
#[derive(Clone, Copy)]
enum As<'a> {
    /// A signed-in browser.
    Browser(&'a Jar),
    /// A bearer token.
    Token(&'a str),
    /// Nobody.
    Anonymous,
}

/// `method path` as `who`, asking for `accept`; a browser's request is
/// one from the server's own pages.
fn request(setup: &Setup, who: As<'_>, method: Method, path: &str) -> RequestBuilder {
    let server = &setup.server;
    let request = server.request(method, path);
    match who {
        As::Browser(jar) => request
            .header("cookie", jar.header())
            .header("origin", &server.url)
            .header("sec-fetch-site", "same-origin"),
        As::Token(token) => request.bearer_auth(token),
        As::Anonymous => request,
    }
}

/// Creates a paste of `body` as `who` with query `options`: status and answer.
async fn create(setup: &Setup, who: As<'_>, body: &str, options: &str) -> (u16, Value) {
    let response = request(setup, who, Method::POST, &format!("/?{options}"))
        .header("accept", "application/json")
        .body(body.to_owned())
        .fetch()
        .await;
    let status = response.status().as_u16();
    (status, json_or_text(response).await)
}

/// Creates a paste and returns its ID; panics unless `201`.
async fn created(setup: &Setup, who: As<'_>, body: &str, options: &str) -> String {
    let (status, answer) = create(setup, who, body, options).await;
    assert_eq!(status, 201, "{answer}");
    answer["id"].as_str().unwrap().to_owned()
}

/// `GET path` as `who`, asking for `accept`: status and body.
async fn get(setup: &Setup, who: As<'_>, path: &str, accept: &str) -> (u16, String) {
    let response = request(setup, who, Method::GET, path)
        .header("accept", accept)
        .fetch()
        .await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// `GET /api/pastes/{id}` as `who`: status and answer.
async fn metadata(setup: &Setup, who: As<'_>, id: &str) -> (u16, Value) {
    let path = format!("/api/pastes/{id}");
    let (status, body) = get(setup, who, &path, "application/json").await;
    (status, serde_json::from_str(&body).unwrap())
}

/// The tenant's listing as `who`, with `query`: the IDs (sorted: pastes of
/// one second are listed by ID) and authors' names.
async fn listing(setup: &Setup, who: As<'_>, query: &str) -> (u16, Vec<(String, Value)>) {
    let (status, body) = get(
        setup,
        who,
        &format!("/api/pastes?{query}"),
        "application/json",
    )
    .await;
    if status != 200 {
        return (status, Vec::new());
    }
    let page: Value = serde_json::from_str(&body).unwrap();
    let mut rows: Vec<(String, Value)> = page["pastes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_owned(),
                p["author"]["name"].clone(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    (status, rows)
}

/// A paste created by a signed-in person records them (subject and name),
/// and its metadata and page show them to whoever may read it; one created
/// with the tenant's token, or anonymously, has no author.
#[tokio::test]
async fn pastes_record_and_show_their_author() {
    let Some(setup) = setup().await else { return };
    let alice = person(&setup, "alice").await;
    let id = created(&setup, As::Browser(&alice), "by alice", "").await;
    let (status, meta) = metadata(&setup, As::Anonymous, &id).await;
    assert_eq!(status, 200);
    assert_eq!(
        meta["author"],
        json!({ "subject": "alice", "name": "Alice Liddell" })
    );
    assert_eq!(meta["visibility"], "unlisted");
    let (status, page) = get(&setup, As::Anonymous, &format!("/{id}"), "text/html").await;
    assert_eq!(status, 200);
    assert!(
        page.contains(r#"by <span class="author" id="author">Alice Liddell</span>"#),
        "{page}"
    );

    let (_, token) = tenants::token(&setup.server, "team", json!({})).await;
    let by_token = created(&setup, As::Token(&token), "by the token", "visibility=team").await;
    let anonymous = created(&setup, As::Anonymous, "by nobody", "").await;
    for id in [by_token, anonymous] {
        let (_, meta) = metadata(&setup, As::Token(&token), &id).await;
        assert!(meta.get("author").is_none(), "{meta}");
        let (_, page) = get(&setup, As::Token(&token), &format!("/{id}"), "text/html").await;
        assert!(!page.contains(r#"id="author""#));
    }
}

/// Only me: every read route (page, raw, raw file, download, metadata,
/// reveal of a burn paste, delete) answers another member of the same
/// tenant, the tenant's token and anonymous callers exactly as for a
/// missing paste, and serves the author.
#[tokio::test]
async fn only_me_pastes_are_read_by_their_author_alone() {
    let Some(setup) = setup().await else { return };
    let alice = person(&setup, "alice").await;
    let bob = person(&setup, "bob").await;
    let (_, token) = tenants::token(&setup.server, "team", json!({})).await;
    let text = created(
        &setup,
        As::Browser(&alice),
        "alice's secret",
        "visibility=me&name=s.txt",
    )
    .await;
    let (content_type, body) = form(
        &[("a.txt", b"first"), ("b.txt", b"second")],
        &[("visibility", "me")],
    );
    let response = request(&setup, As::Browser(&alice), Method::POST, "/")
        .header("accept", "application/json")
        .header("content-type", content_type)
        .body(body)
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let several: Value = response.json().await.unwrap();
    let several = several["id"].as_str().unwrap().to_owned();
    let burn = created(
        &setup,
        As::Browser(&alice),
        "burns",
        "visibility=me&burn=true",
    )
    .await;

    let reads = [
        (format!("/{text}"), "text/html"),
        (format!("/raw/{text}"), "*/*"),
        (format!("/download/{text}"), "*/*"),
        (format!("/api/pastes/{text}"), "application/json"),
        (format!("/raw/{several}/b.txt"), "*/*"),
        (format!("/{several}"), "text/html"),
        (format!("/download/{several}"), "*/*"),
        (format!("/{burn}"), "text/html"),
    ];
    for (path, accept) in &reads {
        for who in [As::Browser(&bob), As::Token(&token), As::Anonymous] {
            let (status, body) = get(&setup, who, path, accept).await;
            assert_eq!(status, 404, "{path}: {body}");
            assert!(
                body.contains("no such paste"),
                "{path}: the answer of a missing paste: {body}"
            );
        }
        let (status, _) = get(&setup, As::Browser(&alice), path, accept).await;
        assert_eq!(status, 200, "{path} for its author");
    }
    let (_, raw) = get(
        &setup,
        As::Browser(&alice),
        &format!("/raw/{several}/b.txt"),
        "*/*",
    )
    .await;
    assert_eq!(raw, "second");
    let (_, raw) = get(&setup, As::Browser(&alice), &format!("/raw/{text}"), "*/*").await;
    assert_eq!(raw, "alice's secret");

    // Neither reveals nor deletes it for anyone else; it stays for alice.
    for who in [As::Browser(&bob), As::Token(&token), As::Anonymous] {
        let reveal = request(&setup, who, Method::POST, &format!("/{burn}/reveal"))
            .header("accept", "application/json")
            .fetch()
            .await;
        assert_eq!(reveal.status(), 404);
        let delete = request(&setup, who, Method::DELETE, &format!("/{text}"))
            .fetch()
            .await;
        assert_eq!(delete.status(), 404);
    }
    let reveal = request(
        &setup,
        As::Browser(&alice),
        Method::POST,
        &format!("/{burn}/reveal"),
    )
    .header("accept", "text/plain")
    .fetch()
    .await;
    assert_eq!(reveal.status(), 200);
    assert_eq!(reveal.text().await.unwrap(), "burns");
    let (status, _) = get(&setup, As::Browser(&alice), &format!("/raw/{text}"), "*/*").await;
    assert_eq!(status, 200, "still there");
}

/// Only me needs a person: a token, or an anonymous caller, asking for it
/// is refused with a clear `400` and nothing is stored; so is a visibility
/// snip does not know. `private` is `team` by its older name.
#[tokio::test]
async fn only_me_needs_a_person() {
    let Some(setup) = setup().await else { return };
    let (_, token) = tenants::token(&setup.server, "team", json!({})).await;
    for who in [As::Token(&token), As::Anonymous] {
        let (status, answer) = create(&setup, who, "no one's", "visibility=me").await;
        assert_eq!(status, 400, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("needs a person signed in"),
            "{answer}"
        );
    }
    let (status, answer) = create(&setup, As::Token(&token), "x", "visibility=secret").await;
    assert_eq!(status, 400);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unlisted, team (or private) or me")
    );
    let (status, answer) = create(&setup, As::Anonymous, "x", "visibility=team").await;
    assert_eq!(status, 400, "{answer}");
    let (_, rows) = listing(&setup, As::Token(&token), "").await;
    assert!(rows.is_empty(), "nothing stored: {rows:?}");
    let id = created(&setup, As::Token(&token), "x", "visibility=private").await;
    let (_, meta) = metadata(&setup, As::Token(&token), &id).await;
    assert_eq!(meta["visibility"], "team", "{meta}");
}

/// The tenant's listing (API and "My pastes") shows each paste's author,
/// and other people's only-me pastes to nobody; `scope=mine` keeps the
/// caller's own, and needs a person.
#[tokio::test]
async fn listings_show_the_team_and_hide_others_only_me_pastes() {
    let Some(setup) = setup().await else { return };
    let alice = person(&setup, "alice").await;
    let bob = person(&setup, "bob").await;
    let (_, token) = tenants::token(&setup.server, "team", json!({})).await;
    let secret = created(&setup, As::Browser(&alice), "alice only", "visibility=me").await;
    let shared = created(
        &setup,
        As::Browser(&alice),
        "alice's, shared",
        "visibility=team",
    )
    .await;
    let bobs = created(&setup, As::Browser(&bob), "bob's", "").await;
    let tokens = created(&setup, As::Token(&token), "the token's", "").await;
    let alice_name = json!("Alice Liddell");

    let sorted = |mut ids: Vec<&String>| {
        ids.sort();
        ids.into_iter().cloned().collect::<Vec<String>>()
    };
    let ids = |rows: &[(String, Value)]| rows.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>();
    let author =
        |rows: &[(String, Value)], id: &str| rows.iter().find(|(i, _)| i == id).unwrap().1.clone();

    let (_, rows) = listing(&setup, As::Browser(&alice), "").await;
    assert_eq!(ids(&rows), sorted(vec![&tokens, &bobs, &shared, &secret]));
    assert_eq!(author(&rows, &bobs), json!("Bob Hope"));
    assert_eq!(author(&rows, &shared), alice_name);
    assert_eq!(author(&rows, &secret), alice_name);
    assert_eq!(author(&rows, &tokens), Value::Null, "no author");
    let (_, rows) = listing(&setup, As::Browser(&bob), "").await;
    assert_eq!(
        ids(&rows),
        sorted(vec![&tokens, &bobs, &shared]),
        "not alice's only-me paste"
    );
    let (_, rows) = listing(&setup, As::Token(&token), "").await;
    assert_eq!(
        ids(&rows),
        sorted(vec![&tokens, &bobs, &shared]),
        "a token sees no only-me paste"
    );

    let (_, rows) = listing(&setup, As::Browser(&alice), "scope=mine").await;
    assert_eq!(ids(&rows), sorted(vec![&shared, &secret]));
    let (status, _) = listing(&setup, As::Token(&token), "scope=mine").await;
    assert_eq!(status, 400);
    let (status, _) = listing(&setup, As::Browser(&alice), "scope=everyone").await;
    assert_eq!(status, 400);

    // A search keeps the same rule: the words of alice's only-me paste
    // find it for alice alone.
    let (_, rows) = listing(&setup, As::Browser(&alice), "q=alice").await;
    assert_eq!(ids(&rows), sorted(vec![&shared, &secret]));
    let (_, rows) = listing(&setup, As::Browser(&bob), "q=alice").await;
    assert_eq!(
        ids(&rows),
        vec![shared.clone()],
        "not alice's only-me paste"
    );
    let (_, rows) = listing(&setup, As::Token(&token), "q=alice").await;
    assert_eq!(
        ids(&rows),
        vec![shared.clone()],
        "a token finds no only-me paste"
    );
    let (_, rows) = listing(&setup, As::Browser(&bob), "q=shared&scope=mine").await;
    assert!(rows.is_empty(), "bob's own pastes hold no 'shared'");
    let (_, page) = get(&setup, As::Browser(&bob), "/my?q=alice", "text/html").await;
    assert!(page.contains(&shared) && !page.contains(&secret), "{page}");

    let (status, page) = get(&setup, As::Browser(&bob), "/my", "text/html").await;
    assert_eq!(status, 200);
    assert!(page.contains(&shared) && page.contains(&bobs) && !page.contains(&secret));
    assert!(
        page.contains(r#"<td class="author">Alice Liddell</td>"#),
        "{page}"
    );
    let (_, page) = get(&setup, As::Browser(&alice), "/my?scope=mine", "text/html").await;
    assert!(page.contains(&secret) && page.contains(&shared) && !page.contains(&bobs));
    assert!(page.contains(r#"id="scope-mine""#));
}

/// A tenant accepts the group it names (admin API), else the group named
/// like it: renamed, a person of the old group signs in to no team, one of
/// the new group signs in to it; `null` goes back to the tenant's name. A bad
/// group is `400` and changes nothing.
#[tokio::test]
async fn a_tenant_accepts_the_group_it_names() {
    let Some(mut setup) = setup().await else {
        return;
    };
    let patch = |group: Value| {
        let server = &setup.server;
        async move {
            tenants::admin(
                server,
                Method::PATCH,
                "/api/admin/tenants/team",
                Some(json!({ "group": group })),
            )
            .await
        }
    };
    let (status, view) = patch(json!("engineering")).await;
    assert_eq!((status, view["group"].clone()), (200, json!("engineering")));
    for bad in [json!(""), json!("a\nb"), json!("x".repeat(257))] {
        let (status, answer) = patch(bad).await;
        assert_eq!(status, 400, "{answer}");
        assert!(answer.to_string().contains("group must be"), "{answer}");
    }
    let (status, answer) = tenants::admin(
        &setup.server,
        Method::POST,
        "/api/admin/tenants",
        Some(json!({ "name": "ops", "group": "" })),
    )
    .await;
    assert_eq!(status, 400, "{answer}");

    let teamless = person(&setup, "alice").await;
    let (_, page) = get(&setup, As::Browser(&teamless), "/my", "text/html").await;
    assert!(
        page.contains(r#"id="no-team""#) && !page.contains(r#"id="tenant-name""#),
        "team no longer accepts the group team: {page}"
    );
    setup.provider.set_groups("alice", &["engineering"]);
    let alice = person(&setup, "alice").await;
    let (_, page) = get(&setup, As::Browser(&alice), "/my", "text/html").await;
    assert!(
        page.contains(r#"<span class="tenant" id="tenant-name">team</span>"#),
        "{page}"
    );

    let (status, view) = patch(Value::Null).await;
    assert_eq!((status, view["group"].clone()), (200, json!("team")));
}

/// A session opened through the provider lasts `--oidc-session-lifetime`
/// (12 hours by default), not the 30 days of a token sign-in.
#[tokio::test]
async fn provider_sessions_last_the_session_lifetime() {
    let Some(setup) = setup().await else { return };
    let (_, response) = sign_in(&setup, "alice").await;
    let cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("snip_session="))
        .expect("a session cookie");
    assert!(cookie.contains("Max-Age=43200"), "{cookie}");
}
