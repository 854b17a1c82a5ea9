//! The web GUI's server side: embedded assets (hashed names, precompression,
//! validators, caching), the pages' CSP and markup, and browser error pages.
//! The browser itself is tested in web/test/e2e.test.mjs.

use reqwest::{Method, StatusCode};

use crate::support::{Fetch, Server, client, http::get_status};

async fn html(server: &Server, path: &str) -> reqwest::Response {
    server
        .get_accepting(path, "text/html,application/xhtml+xml,*/*;q=0.8")
        .await
}

/// The asset paths a page references (`/assets/…` in `href` and `src`).
fn asset_paths(page: &str) -> Vec<String> {
    page.split("\"/assets/")
        .skip(1)
        .map(|rest| format!("/assets/{}", &rest[..rest.find('"').unwrap()]))
        .collect()
}

/// Pages forbid inline script, inline style, eval and foreign origins.
#[tokio::test]
async fn pages_have_a_strict_csp() {
    let server = Server::start();
    let (id, _) = server.create("text", "").await;
    let (burn, _) = server.create("text", "burn=true").await;
    for path in [
        "/".to_owned(),
        "/new".to_owned(),
        format!("/{id}"),
        format!("/{burn}"),
        "/2222222222222".to_owned(),
    ] {
        let page = html(&server, &path).await;
        let csp = page.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        for part in [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "frame-ancestors 'none'",
            "require-trusted-types-for 'script'",
        ] {
            assert!(csp.contains(part), "{path}: {csp} lacks {part}");
        }
        assert!(!csp.contains("unsafe") && !csp.contains("http"), "{csp}");
        let body = page.text().await.unwrap();
        assert!(!body.contains("style=\""), "{path}: inline style");
        assert!(!body.contains("<script>"), "{path}: inline script");
        assert!(body.contains("<script type=\"module\" src=\"/assets/app-"));
    }
}

/// Every asset a page references exists, is precompressed by Accept-Encoding,
/// and is cached for a year under its content-hashed name.
#[tokio::test]
async fn assets_are_hashed_precompressed_and_cached() {
    let server = Server::start();
    let page = html(&server, "/new").await.text().await.unwrap();
    let paths = asset_paths(&page);
    assert!(paths.len() >= 4, "{paths:?}");
    let http = client();
    for path in &paths {
        let plain = server.get(path).await;
        assert_eq!(plain.status(), StatusCode::OK, "{path}");
        assert_eq!(
            plain.headers()["cache-control"],
            "public, max-age=31536000, immutable"
        );
        assert_eq!(plain.headers()["vary"], "Accept-Encoding");
        assert!(plain.headers().get("content-encoding").is_none());
        let etag = plain.headers()["etag"].to_str().unwrap().to_owned();
        assert!(etag.starts_with('"') && !etag.starts_with("W/"), "{etag}");
        let size = plain.bytes().await.unwrap().len();
        if path.ends_with(".svg") {
            continue;
        }
        for (accept, coding) in [
            ("gzip, deflate, br, zstd", "br"),
            ("gzip", "gzip"),
            ("br;q=0, gzip", "gzip"),
        ] {
            let packed = server
                .request(Method::GET, path)
                .header("accept-encoding", accept)
                .fetch()
                .await;
            assert_eq!(packed.headers()["content-encoding"], coding, "{path}");
            let packed_etag = packed.headers()["etag"].to_str().unwrap().to_owned();
            assert_ne!(packed_etag, etag, "one strong ETag per representation");
            assert!(packed.bytes().await.unwrap().len() < size);
            let again = server
                .request(Method::GET, path)
                .header("accept-encoding", accept)
                .header("if-none-match", &packed_etag)
                .fetch()
                .await;
            assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        }
    }
    let js = server
        .get(paths.iter().find(|p| p.contains("/app-")).unwrap())
        .await;
    assert_eq!(
        js.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    // Stable names work too but are revalidated; unknown names are 404.
    let stable = server.get("/assets/app.js").await;
    assert_eq!(stable.status(), StatusCode::OK);
    assert_eq!(stable.headers()["cache-control"], "public, no-cache");
    let missing = get_status(&http, &server.at("/assets/nope-AAAAAAAA.js")).await;
    assert_eq!(missing, StatusCode::NOT_FOUND);
}

/// The form offers only the lifetimes the server allows, preselecting its default.
#[tokio::test]
async fn form_offers_allowed_lifetimes() {
    let server = Server::start_with(&["--max-ttl=1w", "--default-ttl=3d"]);
    let page = html(&server, "/new").await.text().await.unwrap();
    assert!(page.contains("<option value=\"1w\">"));
    assert!(!page.contains("value=\"30d\"") && !page.contains("value=\"never\""));
    assert!(page.contains("<option value=\"3d\" selected>3 days</option>"));
    let open = Server::start();
    let page = html(&open, "/").await.text().await.unwrap();
    assert!(page.contains("<option value=\"never\" selected>Never</option>"));
    assert!(page.contains("data-max-size=\"16777216\""));
}

/// With only `--max-ttl`, the form preselects it (the default); with
/// `--ttl-choices`, it offers those and nothing else.
#[tokio::test]
async fn form_preselects_the_max_and_offers_the_operators_choices() {
    let server = Server::start_with(&["--max-ttl=1d"]);
    let page = html(&server, "/new").await.text().await.unwrap();
    assert!(
        page.contains("<option value=\"1d\" selected>1 day</option>"),
        "{page}"
    );
    assert!(page.contains("<option value=\"10m\">10 minutes</option>"));
    assert!(!page.contains("value=\"1w\"") && !page.contains("value=\"never\""));

    let server = Server::start_with(&["--ttl-choices=10m,1h,1d,1w", "--default-ttl=1h"]);
    let page = html(&server, "/new").await.text().await.unwrap();
    let menu = &page[page.find("name=\"ttl\"").unwrap()..];
    let menu = &menu[..menu.find("</select>").unwrap()];
    let offered: Vec<&str> = menu
        .split("<option value=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    assert_eq!(offered, ["10m", "1h", "1d", "1w"], "{page}");
    assert!(page.contains("<option value=\"1h\" selected>1 hour</option>"));
}

/// The view carries what the script and a no-JS reader need.
#[tokio::test]
async fn view_markup() {
    let server = Server::start();
    let (id, _) = server
        .create("a\r\nb\n\nlast", "lang=rust&name=x.rs&ttl=1h")
        .await;
    let page = html(&server, &format!("/{id}")).await.text().await.unwrap();
    assert!(page.contains("data-lang=\"rust\" data-name=\"x.rs\""));
    assert!(page.contains("data-expires=\""));
    assert!(page.contains("<span class=\"lc\">a</span>"), "CR stripped");
    assert!(page.contains("id=\"L4\""));
    assert!(!page.contains("id=\"L5\""));
    assert!(page.contains("expires <time datetime=\""));

    let (image, _) = server
        .create(&b"\x89PNG\r\n\x1a\n"[..], "name=shot.png")
        .await;
    let page = html(&server, &format!("/{image}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains(&format!("<img src=\"/raw/{image}\" alt=\"shot.png\">")));

    let (secret, _) = server.create("SNIP-ciphertext", "encrypted=true").await;
    let page = html(&server, &format!("/{secret}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("data-encrypted"));
    assert!(page.contains("<noscript>"));
    assert!(!page.contains("SNIP-ciphertext"));
}

/// Browsers get friendly 404 and 413 pages.
#[tokio::test]
async fn friendly_error_pages() {
    let server = Server::start_with(&["--max-paste-size=10B"]);
    let page = html(&server, "/2222222222222").await;
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert!(page.text().await.unwrap().contains("Paste not found"));
    let too_big = server.request(Method::POST, "/").header("accept", "text/html").header("content-type", "multipart/form-data; boundary=b").body("--b\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\nmore than ten bytes\r\n--b--\r\n").fetch().await;
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let csp = too_big.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("script-src 'self'"));
    let body = too_big.text().await.unwrap();
    assert!(body.contains("<h1>Too large</h1>"), "{body}");
    assert!(body.contains("data-page=\"error\""));
}

/// Crawlers are kept out: robots.txt disallows everything, and paste pages
/// and raw answers say `noindex` to any that come anyway.
#[tokio::test]
async fn pastes_are_not_indexed() {
    let server = Server::start();
    let robots = server.get("/robots.txt").await;
    assert_eq!(robots.status(), StatusCode::OK);
    assert_eq!(robots.text().await.unwrap(), "User-agent: *\nDisallow: /\n");
    let (id, _) = server.create("text", "").await;
    let (burn, _) = server.create("text", "burn=true").await;
    for path in [format!("/{id}"), format!("/{burn}")] {
        let page = html(&server, &path).await;
        assert_eq!(page.headers()["x-robots-tag"], "noindex", "{path}");
    }
    let raw = server.get(&format!("/raw/{id}")).await;
    assert_eq!(raw.headers()["x-robots-tag"], "noindex");
}

/// A path no route serves gets a page for people in a browser, without the
/// hint meant for API clients; those still get it.
#[tokio::test]
async fn unknown_routes_speak_to_people() {
    let server = Server::start();
    let page = html(&server, "/no/such/page").await;
    assert_eq!(page.status(), StatusCode::NOT_FOUND);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let body = page.text().await.unwrap();
    assert!(body.contains("<h1>Page not found</h1>"), "{body}");
    assert!(body.contains("Create a new paste"));
    assert!(!body.contains("POST a paste"), "{body}");
    let text = server.get("/no/such/page").await.text().await.unwrap();
    assert!(text.contains("POST a paste to /"), "{text}");
}

/// Size limits are told in binary units, never as a byte count.
#[tokio::test]
async fn size_limits_in_binary_units() {
    let server = Server::start_with(&["--max-paste-size=1MiB"]);
    let too_big = server
        .request(Method::POST, "/")
        .header("accept", "application/json")
        .body(vec![b'x'; (1 << 20) + 100])
        .fetch()
        .await;
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body = too_big.text().await.unwrap();
    assert!(body.contains("the limit of 1 MiB"), "{body}");
    let form = html(&server, "/new").await.text().await.unwrap();
    assert!(form.contains("Up to 1 MiB."), "{form}");
}
