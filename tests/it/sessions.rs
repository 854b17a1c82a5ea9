//! Browser sessions: signing in with an API token (a `snip_session` cookie,
//! `__Host-snip_session` over HTTPS),
//! what the cookie may do, the cross-site check of cookie requests, signing
//! out, and revocation ending sessions (on PostgreSQL across instances).

use reqwest::{Method, RequestBuilder, Response};
use serde_json::json;

use crate::support::postgres::skip_unless_postgres;
use crate::support::slow::SlowCreate;
use crate::support::tenants::{ADMIN, admin, ids, list, start, tenant, token};
use crate::support::tls::{TestCa, https_client, write_pair};
use crate::support::{Fetch, Server};

const HTML: &str = "text/html,application/xhtml+xml,*/*;q=0.8";

/// A request as the server's own pages send it: with the cookie, `Origin`
/// and `Sec-Fetch-Site: same-origin`.
fn same_origin(server: &Server, method: Method, path: &str, cookie: &str) -> RequestBuilder {
    server
        .request(method, path)
        .header("cookie", format!("snip_session={cookie}"))
        .header("origin", &server.url)
        .header("sec-fetch-site", "same-origin")
}

/// `POST /signin` from the server's own sign-in page.
async fn post_signin(server: &Server, token: &str, next: &str) -> Response {
    server
        .request(Method::POST, "/signin")
        .header("origin", &server.url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "token={}&next={}",
            urlencode(token),
            urlencode(next)
        ))
        .fetch()
        .await
}

fn urlencode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Signs in with `token`; returns the cookie value.
async fn signin(server: &Server, token: &str) -> String {
    let response = post_signin(server, token, "/my").await;
    assert_eq!(response.status(), 303);
    session_of(&response).expect("a session cookie")
}

/// The `snip_session` value a response sets.
fn session_of(response: &Response) -> Option<String> {
    let cookie = response.headers().get("set-cookie")?.to_str().ok()?;
    let value = cookie.strip_prefix("snip_session=")?.split(';').next()?;
    Some(value.to_owned()).filter(|v| !v.is_empty())
}

/// A page with the session cookie: (status, body).
async fn page(server: &Server, path: &str, cookie: &str) -> (u16, String) {
    let response = server
        .request(Method::GET, path)
        .header("accept", HTML)
        .header("cookie", format!("snip_session={cookie}"))
        .fetch()
        .await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// Creates a paste through the form as the signed-in browser; returns its ID.
async fn form_create(server: &Server, cookie: &str, text: &str, visibility: &str) -> String {
    let boundary = "snip-test-boundary";
    let field = |name: &str, value: &str| {
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
        )
    };
    let body = format!(
        "{}{}--{boundary}--\r\n",
        field("content", text),
        field("visibility", visibility)
    );
    let response = same_origin(server, Method::POST, "/", cookie)
        .header("accept", "application/json")
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body)
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let json: serde_json::Value = response.json().await.unwrap();
    json["id"].as_str().unwrap().to_owned()
}

/// With anonymous creation off the form page offers sign-in; a token signs
/// in (an HttpOnly, SameSite=Lax cookie, never the token), after which
/// the form offers visibility, creates private pastes the session can read,
/// and "My pastes" lists them.
#[tokio::test]
async fn signin_opens_a_session_for_pages() {
    let server = start(&["--anonymous=off"]);
    let secret = tenant(&server, "ann", json!({})).await;
    let anonymous = server.get_accepting("/new", HTML).await;
    assert_eq!(anonymous.status(), 200);
    let body = anonymous.text().await.unwrap();
    assert!(body.contains("This server takes pastes from signed-in users"));
    assert!(!body.contains("id=\"content\""), "no form: {body}");

    let response = post_signin(&server, &secret, "/new").await;
    assert_eq!(response.status(), 303);
    assert_eq!(response.headers()["location"], "/new");
    let set = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    for part in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(set.contains(part), "{set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP: {set}");
    assert!(!set.contains(&secret));
    let cookie = session_of(&response).unwrap();
    assert_eq!(cookie.len(), 43, "32 bytes in base64url: {cookie}");

    let (status, form) = page(&server, "/new", &cookie).await;
    assert_eq!(status, 200);
    assert!(form.contains("id=\"visibility\""), "{form}");
    assert!(form.contains("id=\"tenant-name\">ann<"), "{form}");
    assert!(!form.contains(&secret) && !form.contains(&cookie));

    let private = form_create(&server, &cookie, "only ann", "private").await;
    let unlisted = form_create(&server, &cookie, "anyone with the link", "unlisted").await;
    let (status, view) = page(&server, &format!("/{private}"), &cookie).await;
    assert_eq!(status, 200);
    assert!(view.contains("only ann"));
    assert_eq!(
        server
            .get_accepting(&format!("/raw/{private}"), "*/*")
            .await
            .status(),
        401,
        "anonymous is off"
    );

    let (status, my) = page(&server, "/my", &cookie).await;
    assert_eq!(status, 200);
    assert!(my.contains(&format!("data-id=\"{private}\"")), "{my}");
    assert!(my.contains(&format!("data-id=\"{unlisted}\"")), "{my}");
    assert!(my.contains("<td>team</td>") && my.contains("<td>unlisted</td>"));

    // Even where anonymous clients get nothing, an ended session says so.
    let out = same_origin(&server, Method::POST, "/signout", &cookie)
        .fetch()
        .await;
    assert_eq!(out.status(), 303);
    let (status, body) = page(&server, "/api/pastes", &cookie).await;
    assert_eq!(status, 401);
    assert!(body.contains("session has ended"), "{body}");
}

/// "My pastes" pages through a long listing with the listing's cursor.
#[tokio::test]
async fn my_pastes_pages_through_the_listing() {
    let server = start(&[]);
    let secret = tenant(&server, "many", json!({})).await;
    let cookie = signin(&server, &secret).await;
    let mut ids = Vec::new();
    for n in 0..55 {
        ids.push(form_create(&server, &cookie, &format!("paste {n}"), "unlisted").await);
    }
    let (_, first) = page(&server, "/my", &cookie).await;
    let next = first
        .split("id=\"my-next\" href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("an Older pastes link")
        .replace("&#38;", "&");
    let (status, second) = page(&server, &next, &cookie).await;
    assert_eq!(status, 200);
    let rows = |page: &str| -> Vec<String> {
        page.split("<tr data-id=\"")
            .skip(1)
            .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
            .collect()
    };
    let (first_rows, second_rows) = (rows(&first), rows(&second));
    assert_eq!((first_rows.len(), second_rows.len()), (50, 5));
    let mut seen: Vec<String> = first_rows.into_iter().chain(second_rows).collect();
    seen.sort();
    ids.sort();
    assert_eq!(seen, ids, "both pages together: every paste once");
    assert!(!second.contains("my-next"));
}

/// A wrong token at sign-in is 401 (the page again, with the reason), a post
/// from another site or without Origin is 403, and `next` never leaves the site.
#[tokio::test]
async fn signin_refusals() {
    let server = start(&[]);
    let secret = tenant(&server, "bob", json!({})).await;
    let wrong = post_signin(
        &server,
        "snip_0000000000000000000000000000000000000000",
        "/my",
    )
    .await;
    assert_eq!(wrong.status(), 401);
    assert!(wrong.headers().get("set-cookie").is_none());
    assert!(
        wrong
            .text()
            .await
            .unwrap()
            .contains("unknown or has been revoked")
    );

    let foreign = server
        .request(Method::POST, "/signin")
        .header("origin", "https://evil.example")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={}", urlencode(&secret)))
        .fetch()
        .await;
    assert_eq!(foreign.status(), 403);
    let bare = server
        .request(Method::POST, "/signin")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={}", urlencode(&secret)))
        .fetch()
        .await;
    assert_eq!(bare.status(), 403);

    let away = post_signin(&server, &secret, "//evil.example/x").await;
    assert_eq!(away.status(), 303);
    assert_eq!(away.headers()["location"], "/my");
}

/// Sign-in attempts count against the client's IP bucket, like bad bearer tokens.
#[tokio::test]
async fn signin_attempts_are_rate_limited() {
    let server = start(&["--ip-rate=1/h", "--ip-burst=2"]);
    let guess = "snip_0000000000000000000000000000000000000000";
    assert_eq!(post_signin(&server, guess, "/my").await.status(), 401);
    assert_eq!(post_signin(&server, guess, "/my").await.status(), 401);
    assert_eq!(post_signin(&server, guess, "/my").await.status(), 429);
}

/// A state-changing request with the cookie must come from the server's own
/// pages: no Origin, a foreign Origin or a cross-site Sec-Fetch-Site is 403;
/// the same request from the server's pages deletes. Bearer clients need no Origin.
#[tokio::test]
async fn cookie_requests_are_checked_for_cross_site() {
    let server = start(&[]);
    let secret = tenant(&server, "carol", json!({})).await;
    let cookie = signin(&server, &secret).await;
    let id = form_create(&server, &cookie, "to delete", "unlisted").await;
    let with_cookie = |method: Method| {
        server
            .request(method, &format!("/{id}"))
            .header("accept", "application/json")
            .header("cookie", format!("snip_session={cookie}"))
    };
    let bare = with_cookie(Method::DELETE).fetch().await;
    assert_eq!(bare.status(), 403);
    assert!(
        bare.text()
            .await
            .unwrap()
            .contains("neither Origin nor Sec-Fetch-Site")
    );
    let foreign = with_cookie(Method::DELETE)
        .header("origin", "https://evil.example")
        .fetch()
        .await;
    assert_eq!(foreign.status(), 403);
    let cross = with_cookie(Method::DELETE)
        .header("origin", &server.url)
        .header("sec-fetch-site", "cross-site")
        .fetch()
        .await;
    assert_eq!(cross.status(), 403);
    let create = server
        .request(Method::POST, "/")
        .header("cookie", format!("snip_session={cookie}"))
        .header("origin", "https://evil.example")
        .body("forged")
        .fetch()
        .await;
    assert_eq!(create.status(), 403, "the create route checks it too");

    let own = with_cookie(Method::DELETE)
        .header("origin", &server.url)
        .fetch()
        .await;
    assert_eq!(own.status(), 204);
    let bearer = server
        .request(Method::POST, "/")
        .bearer_auth(&secret)
        .body("api client")
        .fetch()
        .await;
    assert_eq!(bearer.status(), 201);
}

/// A forged cookie is 401 on pages, API routes and the hot routes, and each
/// such answer clears it.
#[tokio::test]
async fn forged_cookies_are_refused() {
    let server = start(&[]);
    let (id, _) = server.create("public", "").await;
    let forged = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let (status, _) = page(&server, "/my", forged).await;
    assert_eq!(status, 401);
    let response = server
        .request(Method::GET, "/my")
        .header("cookie", format!("snip_session={forged}"))
        .header("accept", HTML)
        .fetch()
        .await;
    let clear = response.headers()["set-cookie"].to_str().unwrap();
    assert!(
        clear.starts_with("snip_session=;") && clear.contains("Max-Age=0"),
        "{clear}"
    );
    let raw = server
        .request(Method::GET, &format!("/raw/{id}"))
        .header("cookie", format!("snip_session={forged}"))
        .fetch()
        .await;
    assert_eq!(raw.status(), 401, "the hot routes refuse it too");
    assert!(
        raw.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    let (status, _) = page(&server, "/api/pastes", forged).await;
    assert_eq!(status, 401);
}

/// Signing out deletes the session: the old cookie is refused afterwards.
#[tokio::test]
async fn signout_ends_the_session() {
    let server = start(&[]);
    let secret = tenant(&server, "dave", json!({})).await;
    let cookie = signin(&server, &secret).await;
    let foreign = server
        .request(Method::POST, "/signout")
        .header("cookie", format!("snip_session={cookie}"))
        .header("origin", "https://evil.example")
        .fetch()
        .await;
    assert_eq!(
        foreign.status(),
        403,
        "another site cannot sign a browser out"
    );
    assert_eq!(page(&server, "/my", &cookie).await.0, 200);
    let out = same_origin(&server, Method::POST, "/signout", &cookie)
        .fetch()
        .await;
    assert_eq!(out.status(), 303);
    assert_eq!(out.headers()["location"], "/");
    assert!(
        out.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    assert_eq!(page(&server, "/my", &cookie).await.0, 401);
}

/// Revoking the token a session was opened with ends the session at once.
#[tokio::test]
async fn revoking_the_token_ends_its_sessions() {
    let server = start(&[]);
    tenant(&server, "erin", json!({})).await;
    let (id, secret) = token(&server, "erin", json!({})).await;
    let cookie = signin(&server, &secret).await;
    assert_eq!(page(&server, "/api/pastes", &cookie).await.0, 200);
    let (code, _) = admin(
        &server,
        Method::DELETE,
        &format!("/api/admin/tokens/{id}"),
        None,
    )
    .await;
    assert_eq!(code, 204);
    assert_eq!(page(&server, "/api/pastes", &cookie).await.0, 401);
    assert_eq!(page(&server, "/my", &cookie).await.0, 401);
}

/// On PostgreSQL, a session opened on one instance is honoured by the other,
/// and revoking its token through the other ends it on both at once.
#[tokio::test]
async fn revocation_ends_sessions_on_every_instance() {
    if skip_unless_postgres("multi-instance tests need SNIP_TEST_STORE=postgres") {
        return;
    }
    let admin_flag = format!("--admin-token={ADMIN}");
    let (a, b) = Server::start_pair(&[admin_flag.as_str()]);
    tenant(&a, "fran", json!({})).await;
    let (id, secret) = token(&a, "fran", json!({})).await;
    let cookie = signin(&a, &secret).await;
    assert_eq!(page(&b, "/my", &cookie).await.0, 200);
    let (code, _) = admin(&b, Method::DELETE, &format!("/api/admin/tokens/{id}"), None).await;
    assert_eq!(code, 204);
    assert_eq!(page(&a, "/my", &cookie).await.0, 401);
    assert_eq!(page(&b, "/my", &cookie).await.0, 401);
    let (status, body) = page(&a, "/api/pastes", &cookie).await;
    assert_eq!(status, 401);
    assert!(body.contains("session has ended"), "{body}");
}

/// Behind an https `--public-url` the cookie is `Secure`, and the own origin
/// the cross-site check accepts is that URL's.
#[tokio::test]
async fn https_public_url_makes_the_cookie_secure() {
    let server = start(&["--public-url=https://paste.example.com"]);
    let secret = tenant(&server, "gus", json!({})).await;
    let response = server
        .request(Method::POST, "/signin")
        .header("origin", "https://paste.example.com")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={}", urlencode(&secret)))
        .fetch()
        .await;
    assert_eq!(response.status(), 303);
    let set = response.headers()["set-cookie"].to_str().unwrap();
    assert!(set.contains("; Secure"), "{set}");
}

/// Over HTTPS the session cookie is `__Host-snip_session` (`Secure`,
/// `Path=/`, no `Domain`), which only this host can set; the same value
/// under the plain name, as a sibling subdomain could plant it, is no
/// session there, on the router and on a hot route alike. Over plain HTTP
/// the cookie keeps the plain name, which browsers accept without `Secure`.
#[tokio::test]
async fn the_session_cookie_is_host_prefixed_over_https() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (cert, key) = write_pair(dir.path(), &ca.leaf("one"));
    let server = start(&[
        &format!("--tls-cert={}", cert.display()),
        &format!("--tls-key={}", key.display()),
    ]);
    let https = https_client(&ca.pem).build().unwrap();
    let created = https
        .post(server.at("/api/admin/tenants"))
        .bearer_auth(ADMIN)
        .json(&json!({ "name": "ivy" }))
        .fetch()
        .await;
    assert_eq!(created.status(), 201);
    let answer: serde_json::Value = created.json().await.unwrap();
    let secret = answer["token"]["token"].as_str().unwrap().to_owned();
    let private = https
        .post(server.at("/?visibility=private"))
        .bearer_auth(&secret)
        .header("accept", "application/json")
        .body("ivy's")
        .fetch()
        .await;
    assert_eq!(private.status(), 201);
    let answer: serde_json::Value = private.json().await.unwrap();
    let id = answer["id"].as_str().unwrap().to_owned();

    let response = https
        .post(server.at("/signin"))
        .header("origin", &server.url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={}", urlencode(&secret)))
        .fetch()
        .await;
    assert_eq!(response.status(), 303);
    let set = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    let value = set
        .strip_prefix("__Host-snip_session=")
        .unwrap_or_else(|| panic!("not a __Host- cookie: {set}"))
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let attributes: Vec<&str> = set.split("; ").skip(1).collect();
    assert!(attributes.contains(&"Secure"), "{set}");
    assert!(attributes.contains(&"Path=/"), "{set}");
    assert!(!set.to_ascii_lowercase().contains("domain"), "{set}");

    let with =
        |path: String, cookie: String| https.get(server.at(&path)).header("cookie", cookie).fetch();
    let host_cookie = format!("__Host-snip_session={value}");
    let planted = format!("snip_session={value}");
    let raw = format!("/raw/{id}");
    assert_eq!(
        with("/api/pastes".into(), host_cookie.clone())
            .await
            .status(),
        200
    );
    assert_eq!(with(raw.clone(), host_cookie.clone()).await.status(), 200);
    assert_eq!(
        with("/api/pastes".into(), planted.clone()).await.status(),
        401
    );
    assert_eq!(with(raw, planted).await.status(), 404);

    let signout = https
        .post(server.at("/signout"))
        .header("cookie", host_cookie)
        .header("origin", &server.url)
        .fetch()
        .await;
    assert_eq!(signout.status(), 303);
    let cleared = signout.headers()["set-cookie"].to_str().unwrap();
    assert!(cleared.starts_with("__Host-snip_session=;"), "{cleared}");
    assert!(cleared.contains("; Secure"), "{cleared}");

    let plain = start(&[]);
    let secret = tenant(&plain, "jay", json!({})).await;
    let response = post_signin(&plain, &secret, "/my").await;
    let set = response.headers()["set-cookie"].to_str().unwrap();
    assert!(set.starts_with("snip_session="), "{set}");
    assert!(!set.contains("Secure"), "{set}");
}

/// A read-only token signs in and lists, but the form says it cannot create.
#[tokio::test]
async fn read_only_sessions_list_but_do_not_create() {
    let server = start(&[]);
    tenant(&server, "hal", json!({})).await;
    let (_, secret) = token(&server, "hal", json!({ "read_only": true })).await;
    let cookie = signin(&server, &secret).await;
    let (status, form) = page(&server, "/new", &cookie).await;
    assert_eq!(status, 200);
    assert!(form.contains("read-only token"), "{form}");
    assert_eq!(page(&server, "/my", &cookie).await.0, 200);
    let create = same_origin(&server, Method::POST, "/", &cookie)
        .body("no")
        .fetch()
        .await;
    assert_eq!(create.status(), 403);
}

/// Begins a private create through the form as the signed-in browser,
/// paused after the first bytes of its body.
async fn begin_form_create(server: &Server, cookie: &str) -> SlowCreate {
    let boundary = "snip-slow-boundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\n\
         sent after the session ended\r\n--{boundary}\r\nContent-Disposition: form-data; \
         name=\"visibility\"\r\n\r\nprivate\r\n--{boundary}--\r\n"
    );
    let headers = format!(
        "Cookie: snip_session={cookie}\r\nOrigin: {}\r\nSec-Fetch-Site: same-origin\r\n\
         Content-Type: multipart/form-data; boundary={boundary}\r\n",
        server.url
    );
    SlowCreate::begin(server, "/", &headers, body.as_bytes()).await
}

/// A browser's create whose session ends while its body is on its way is
/// refused and stores nothing: once with its tenant deleted and re-created
/// under the same name (which then lists nothing), once signed out while
/// its token stays good (which lists nothing).
#[tokio::test]
async fn a_browser_create_is_not_stored_once_its_session_ended() {
    let server = start(&[]);
    let old = tenant(&server, "hana", json!({})).await;
    let cookie = signin(&server, &old).await;
    let create = begin_form_create(&server, &cookie).await;
    let (code, answer) = admin(&server, Method::DELETE, "/api/admin/tenants/hana", None).await;
    assert_eq!(code, 204, "{answer}");
    let new = tenant(&server, "hana", json!({})).await;
    let (status, answer) = create.finish().await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains("nothing was changed"), "{answer}");
    assert!(ids(&list(&server, &new, "").await).is_empty());

    let cookie = signin(&server, &new).await;
    let create = begin_form_create(&server, &cookie).await;
    let out = same_origin(&server, Method::POST, "/signout", &cookie)
        .fetch()
        .await;
    assert_eq!(out.status(), 303);
    let (status, answer) = create.finish().await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains("nothing was changed"), "{answer}");
    assert!(ids(&list(&server, &new, "").await).is_empty());
}
