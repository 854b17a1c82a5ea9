//! The pages' languages: `Accept-Language` and the `lang` cookie (set by the
//! language menu, `POST /lang`) choose them, `<html lang dir>` says which,
//! every page varies by both; the API stays English. And in the pseudo-locale
//! (`en-XA`, English with accented letters) no page has English left: every
//! word a person reads comes from the catalogue.

use reqwest::{Method, Response};
use serde_json::json;

use crate::support::tenants::{start, tenant};
use crate::support::{Fetch, Server};

const HTML: &str = "text/html,application/xhtml+xml,*/*;q=0.8";

/// A page as a browser asks for it, with `Accept-Language` and `Cookie`.
async fn page(server: &Server, path: &str, language: &str, cookie: &str) -> Response {
    let mut request = server.request(Method::GET, path).header("accept", HTML);
    if !language.is_empty() {
        request = request.header("accept-language", language);
    }
    if !cookie.is_empty() {
        request = request.header("cookie", cookie);
    }
    request.fetch().await
}

/// `<html …>` of a page.
fn html_tag(body: &str) -> &str {
    let start = body.find("<html").expect("an <html> tag");
    &body[start..start + body[start..].find('>').unwrap()]
}

/// `POST /lang` as the language menu sends it, from `origin`.
async fn choose(server: &Server, origin: &str, body: &str) -> Response {
    server
        .request(Method::POST, "/lang")
        .header("origin", origin)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_owned())
        .fetch()
        .await
}

/// Every page a browser sees, anonymous: the form, a paste, a burn page, an
/// encrypted paste's shell, several files, an embed, sign-in, "My pastes",
/// and the error pages.
async fn anonymous_pages(server: &Server) -> Vec<String> {
    let (text, _) = server.create("1 2 3\n", "").await;
    let (burn, _) = server.create("4 5 6\n", "burn=true").await;
    vec![
        "/new".to_owned(),
        format!("/{text}"),
        format!("/{burn}"),
        format!("/embed/{text}"),
        "/signin".to_owned(),
        "/my".to_owned(),
        "/no/such/page".to_owned(),
        "/aaaaaaaaaa".to_owned(),
    ]
}

#[tokio::test]
async fn accept_language_chooses_the_page_language() {
    let server = Server::start();
    for path in anonymous_pages(&server).await {
        let english = page(&server, &path, "", "").await;
        let vary = english.headers()["vary"].to_str().unwrap().to_owned();
        assert!(
            vary.contains("Accept-Language") && vary.contains("Cookie"),
            "{path}: {vary}"
        );
        let body = english.text().await.unwrap();
        assert_eq!(html_tag(&body), r#"<html lang="en" dir="ltr""#, "{path}");

        let german = page(&server, &path, "de-DE,de;q=0.9,en;q=0.5", "").await;
        let body = german.text().await.unwrap();
        assert!(
            html_tag(&body).starts_with(r#"<html lang="de" dir="ltr""#),
            "{path}"
        );
        assert!(
            body.contains("Neuer Paste") || path.starts_with("/embed"),
            "{path}: {body}"
        );

        let arabic = page(&server, &path, "ar-EG", "").await;
        let body = arabic.text().await.unwrap();
        assert!(
            html_tag(&body).starts_with(r#"<html lang="ar" dir="rtl""#),
            "{path}"
        );

        // A language the server does not have: English.
        let dutch = page(&server, &path, "nl-NL, nl;q=0.9", "").await;
        let body = dutch.text().await.unwrap();
        assert!(html_tag(&body).starts_with(r#"<html lang="en""#), "{path}");
    }
    // Plural forms and sizes in the page's language.
    let form = page(&server, "/new", "ja", "").await.text().await.unwrap();
    assert!(form.contains("1 時間"), "{form}");
    assert!(form.contains("最大 16 MiB"), "{form}");
    let form = page(&server, "/new", "fr", "").await.text().await.unwrap();
    assert!(
        form.contains("1 heure") && form.contains("30 jours"),
        "{form}"
    );
}

#[tokio::test]
async fn the_menu_remembers_a_language_that_beats_accept_language() {
    let server = Server::start();
    let chosen = choose(&server, &server.url, "lang=ja&next=%2Fnew%3Fx%3D1").await;
    assert_eq!(chosen.status(), 303);
    assert_eq!(chosen.headers()["location"], "/new?x=1");
    let cookie = chosen.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("lang=ja;"), "{cookie}");
    for part in ["Path=/", "SameSite=Lax", "Max-Age=31536000"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let body = page(&server, "/new", "de", "lang=ja")
        .await
        .text()
        .await
        .unwrap();
    assert!(html_tag(&body).starts_with(r#"<html lang="ja""#), "{body}");
    assert!(body.contains("新しいペースト"));
    // The menu shows the language chosen, in its own name.
    assert!(
        body.contains(r#"<option value="ja" lang="ja" selected>日本語</option>"#),
        "{body}"
    );
    // A cookie naming no language is ignored.
    let body = page(&server, "/new", "es", "lang=xx")
        .await
        .text()
        .await
        .unwrap();
    assert!(html_tag(&body).starts_with(r#"<html lang="es""#), "{body}");
}

#[tokio::test]
async fn the_menu_refuses_bad_choices_and_never_leaves_the_site() {
    let server = Server::start();
    // Another site cannot switch a reader's language.
    let cross = choose(&server, "https://evil.example", "lang=de&next=%2F").await;
    assert_eq!(cross.status(), 403);
    assert!(cross.headers().get("set-cookie").is_none());
    // An unknown language (or the tests' pseudo-locale) is refused.
    for body in ["lang=xx&next=%2F", "lang=en-XA&next=%2F", "next=%2F"] {
        let refused = choose(&server, &server.url, body).await;
        assert_eq!(refused.status(), 400, "{body}");
        assert!(refused.headers().get("set-cookie").is_none(), "{body}");
        let message = refused.text().await.unwrap();
        assert!(message.contains("unknown language"), "{message}");
    }
    // `next` off the site goes to a page of this one.
    for next in [
        "https%3A%2F%2Fevil.example%2F",
        "%2F%2Fevil.example",
        "%2F%5Cevil.example",
    ] {
        let chosen = choose(&server, &server.url, &format!("lang=de&next={next}")).await;
        assert_eq!(chosen.status(), 303);
        let location = chosen.headers()["location"].to_str().unwrap();
        assert!(
            location.starts_with('/') && !location.starts_with("//"),
            "{location}"
        );
        assert!(!location.contains("evil"), "{location}");
    }
    // Too large a form.
    let large = choose(
        &server,
        &server.url,
        &format!("lang=de&next=/{}", "a".repeat(8192)),
    )
    .await;
    assert_eq!(large.status(), 413);
    assert!(large.headers().get("set-cookie").is_none());
}

#[tokio::test]
async fn the_api_and_raw_answers_stay_english() {
    let server = Server::start();
    let (id, _) = server.create("text", "").await;
    let missing = server
        .request(Method::GET, "/api/pastes/aaaaaaaaaa")
        .header("accept", "application/json")
        .header("accept-language", "de")
        .header("cookie", "lang=fr")
        .fetch()
        .await;
    assert_eq!(missing.status(), 404);
    let json: serde_json::Value = missing.json().await.unwrap();
    let english: serde_json::Value = server
        .request(Method::GET, "/api/pastes/aaaaaaaaaa")
        .header("accept", "application/json")
        .fetch()
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(json, english);
    let raw = server
        .request(Method::GET, &format!("/raw/{id}"))
        .header("accept-language", "ja")
        .fetch()
        .await;
    let vary = raw
        .headers()
        .get("vary")
        .map(|v| v.to_str().unwrap().to_owned());
    assert!(!vary.unwrap_or_default().contains("Accept-Language"));
    assert_eq!(raw.text().await.unwrap(), "text");
}

/// Words of English left in `html` outside the catalogue's messages: text
/// and the attributes people read (`title`, `placeholder`, `aria-label`,
/// `alt`), less code, scripts, the language menu's own names, the error's
/// API message (English by design) and `allowed` (the site's name, IDs).
fn english_left(html: &str, allowed: &[&str]) -> Vec<String> {
    let mut html = html.to_owned();
    for (open, close) in [
        ("<script", "</script>"),
        ("<code", "</code>"),
        ("<select name=\"lang\" id=\"language-select\"", "</select>"),
        ("<p class=\"code-hint\"", "</p>"),
        ("<title", "</title>"),
    ] {
        while let Some(start) = html.find(open) {
            let end = html[start..]
                .find(close)
                .map_or(html.len(), |e| start + e + close.len());
            html.replace_range(start..end, " ");
        }
    }
    let mut readable = String::new();
    let mut rest = html.as_str();
    while let Some(lt) = rest.find('<') {
        readable.push_str(&rest[..lt]);
        readable.push(' ');
        let gt = rest[lt..].find('>').map_or(rest.len(), |g| lt + g + 1);
        let tag = &rest[lt..gt];
        for attribute in ["title=\"", "placeholder=\"", "aria-label=\"", "alt=\""] {
            if let Some(at) = tag.find(&format!(" {attribute}")) {
                let value = &tag[at + 1 + attribute.len()..];
                readable.push_str(&value[..value.find('"').unwrap_or(value.len())]);
                readable.push(' ');
            }
        }
        rest = &rest[gt..];
    }
    readable.push_str(rest);
    // Entities (`&#39;`, `&amp;`) are markup, not words.
    let mut words = Vec::new();
    for piece in readable.split(|c: char| !c.is_ascii_alphanumeric() && c != '&' && c != '#') {
        if !piece.chars().any(|c| c.is_ascii_alphabetic())
            || piece.starts_with('&')
            || allowed.contains(&piece)
        {
            continue;
        }
        words.push(piece.to_owned());
    }
    words
}

#[tokio::test]
async fn no_page_has_english_left_in_the_pseudo_locale() {
    let server = start(&[]);
    let secret = tenant(&server, "ann", json!({})).await;
    let mut pages = anonymous_pages(&server).await;
    let (text, _) = server.create("7 8 9\n", "").await;
    let files = server
        .request(Method::POST, "/")
        .header("content-type", "multipart/form-data; boundary=b")
        .header("accept", "application/json")
        .body(
            "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\n1\r\n\
             --b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b\"\r\n\r\n2\r\n--b--\r\n",
        )
        .fetch()
        .await;
    let files: serde_json::Value = files.json().await.unwrap();
    let files_id = files["id"].as_str().unwrap().to_owned();
    pages.push(format!("/{files_id}"));
    let signin = server
        .request(Method::POST, "/signin")
        .header("origin", &server.url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={secret}&next=%2Fmy"))
        .fetch()
        .await;
    let session = signin.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let mut checked = 0;
    for (path, cookie) in pages
        .iter()
        .map(|p| (p.clone(), "lang=en-XA".to_owned()))
        .chain([
            ("/my".to_owned(), format!("lang=en-XA; {session}")),
            ("/new".to_owned(), format!("lang=en-XA; {session}")),
            (format!("/{text}"), format!("lang=en-XA; {session}")),
        ])
    {
        let response = page(&server, &path, "en", &cookie).await;
        let body = response.text().await.unwrap();
        assert!(
            html_tag(&body).starts_with(r#"<html lang="en-XA""#),
            "{path}"
        );
        let ids: Vec<&str> = pages
            .iter()
            .map(|p| p.trim_start_matches('/'))
            .chain([text.as_str(), "snip", "ann", "a", "b"])
            .collect();
        let left = english_left(&body, &ids);
        assert!(left.is_empty(), "{path}: English left: {left:?}\n{body}");
        checked += 1;
    }
    assert_eq!(checked, pages.len() + 3);
}
