//! Finding and sharing pastes on other sites: link preview tags on paste
//! pages (`--link-previews`, `--title`), the embed view other sites frame
//! (`/embed/{id}`) and its oEmbed discovery (`/oembed`). Never for a burn,
//! encrypted or private paste.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::http::{Fetch, client};
use crate::support::server::Server;
use crate::support::tenants::{start as start_with_admin, tenant};

const HTML: &str = "text/html,application/xhtml+xml,*/*;q=0.8";

/// A name that would be markup, end an attribute or run a script if it
/// were not escaped (paste names hold no `/`).
const HOSTILE_NAME: &str = "<img src=x onerror=alert('x')>\"&.rs";

/// `GET path` as a browser: (status, headers, page).
async fn browse(server: &Server, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let response = server.get_accepting(path, HTML).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

/// The page's `<meta>` of `key` (`property="og:title"`, `name="twitter:card"`):
/// its content, entities decoded, if there is one.
fn meta_tag(page: &str, key: &str) -> Option<String> {
    let start = page.find(&format!("{key} content=\""))? + key.len() + 10;
    let end = start + page[start..].find('"')?;
    Some(unescape(&page[start..end]))
}

/// Undoes askama's HTML escaping.
fn unescape(text: &str) -> String {
    text.replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#38;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The `href` of the page's oEmbed discovery link, if it has one.
fn oembed_link(page: &str) -> Option<String> {
    let tag = "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"";
    let start = page.find(tag)? + tag.len();
    let end = start + page[start..].find('"')?;
    Some(unescape(&page[start..end]))
}

/// Whether the page carries anything of a link preview or an embed.
fn shares_nothing(page: &str) -> bool {
    !page.contains("og:") && !page.contains("twitter:") && oembed_link(page).is_none()
}

/// Creates a private paste of a fresh tenant on `server`: (ID, the tenant's token).
async fn private_paste(server: &Server) -> (String, String) {
    let token = tenant(server, "team", json!({})).await;
    let response = server
        .request(Method::POST, "/?visibility=private")
        .bearer_auth(&token)
        .header("accept", "application/json")
        .body("fn secret() {}\n")
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let json: Value = response.json().await.unwrap();
    (json["id"].as_str().unwrap().to_owned(), token)
}

/// An unlisted paste's page carries Open Graph and Twitter card tags: its
/// name as the title, its first lines (without control characters, bounded)
/// as the description, the instance's `--title` as the site, escaped where a
/// name or line is hostile; the instance's name also heads the page.
#[tokio::test]
async fn previews_show_name_first_lines_and_site_escaped() {
    let server = Server::start_with(&["--title", "Acme <Paste> & co"]);
    let text = "\u{1b}[31mfirst line\u{7}\n\n  second\tline  \nthird\n".repeat(40);
    let options = format!(
        "name={}",
        form_urlencoded::byte_serialize(HOSTILE_NAME.as_bytes()).collect::<String>()
    );
    let (id, _) = server.create(text.clone(), &options).await;
    let (status, _, page) = browse(&server, &format!("/{id}")).await;
    assert_eq!(status, 200);
    assert!(!page.contains("<img src=x"), "{page}");
    assert!(!page.contains("Acme <Paste>"), "{page}");
    assert_eq!(
        meta_tag(&page, "property=\"og:title\"").unwrap(),
        HOSTILE_NAME
    );
    assert_eq!(
        meta_tag(&page, "name=\"twitter:title\"").unwrap(),
        HOSTILE_NAME
    );
    let description = meta_tag(&page, "property=\"og:description\"").unwrap();
    assert!(
        description.starts_with("[31mfirst line second line third [31mfirst line"),
        "{description}"
    );
    assert!(description.chars().count() <= 300, "{description}");
    assert!(
        !description.chars().any(char::is_control),
        "{description:?}"
    );
    assert_eq!(
        meta_tag(&page, "property=\"og:site_name\"").unwrap(),
        "Acme <Paste> & co"
    );
    assert_eq!(
        meta_tag(&page, "property=\"og:url\"").unwrap(),
        format!("{}/{id}", server.url)
    );
    assert_eq!(meta_tag(&page, "property=\"og:type\"").unwrap(), "website");
    assert_eq!(meta_tag(&page, "name=\"twitter:card\"").unwrap(), "summary");
    // The instance's name ends the title and is the header's brand.
    assert!(
        page.contains(" · Acme &#60;Paste&#62; &#38; co</title>"),
        "{page}"
    );
    assert!(
        page.contains("class=\"brand\" href=\"/\">Acme &#60;Paste&#62; &#38; co</a>"),
        "{page}"
    );
    // So does an error page's.
    let (status, _, missing) = browse(&server, "/2222222222222").await;
    assert_eq!(status, 404);
    assert!(
        missing.contains("Acme &#60;Paste&#62; &#38; co</a>"),
        "{missing}"
    );
}

/// An unnamed paste is titled by its first line that is not blank; a
/// paste that is no text is described by its type and size.
#[tokio::test]
async fn previews_of_unnamed_and_binary_pastes() {
    let server = Server::start();
    let (id, _) = server.create("\n   \n  hello world  \nbye\n", "").await;
    let (_, _, page) = browse(&server, &format!("/{id}")).await;
    assert_eq!(
        meta_tag(&page, "property=\"og:title\"").unwrap(),
        "hello world"
    );
    assert_eq!(
        meta_tag(&page, "property=\"og:description\"").unwrap(),
        "hello world bye"
    );
    assert_eq!(
        meta_tag(&page, "property=\"og:site_name\"").unwrap(),
        "snip"
    );
    let (id, _) = server.create(vec![0u8, 1, 2, 255], "").await;
    let (_, _, page) = browse(&server, &format!("/{id}")).await;
    assert_eq!(meta_tag(&page, "property=\"og:title\"").unwrap(), id);
    assert_eq!(
        meta_tag(&page, "property=\"og:description\"").unwrap(),
        "application/octet-stream, 4 bytes"
    );
}

/// Burn, encrypted and private pastes' pages tell other sites nothing of
/// them: no preview tag, no oEmbed link.
#[tokio::test]
async fn no_previews_for_burn_encrypted_or_private_pastes() {
    let server = start_with_admin(&[]);
    let (burn, _) = server
        .create("secret burn", "burn=true&name=burn.txt")
        .await;
    let (encrypted, _) = server.create("SNIP-ciphertext", "encrypted=true").await;
    for id in [&burn, &encrypted] {
        let (status, _, page) = browse(&server, &format!("/{id}")).await;
        assert_eq!(status, 200);
        assert!(shares_nothing(&page), "{id}: {page}");
    }
    // Its own tenant sees a private paste's page, without previews.
    let (private, token) = private_paste(&server).await;
    let response = server
        .request(Method::GET, &format!("/{private}"))
        .bearer_auth(&token)
        .header("accept", HTML)
        .fetch()
        .await;
    assert_eq!(response.status(), 200);
    let page = response.text().await.unwrap();
    assert!(page.contains("fn secret()"), "{page}");
    assert!(shares_nothing(&page), "{page}");
}

/// `--link-previews off` (or its variable, or its config file key) leaves
/// out the preview tags; embeds stay discoverable.
#[tokio::test]
async fn previews_can_be_turned_off_by_flag_variable_or_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("snip.toml");
    std::fs::write(
        &config,
        "link-previews = \"off\"\ntitle = \"From the file\"\n",
    )
    .unwrap();
    let config = format!("--config={}", config.display());
    let servers = [
        (Server::start_with(&["--link-previews", "off"]), "snip"),
        (
            Server::start_with_env(
                &[],
                &[("SNIP_LINK_PREVIEWS", "off"), ("SNIP_TITLE", "From env")],
            ),
            "From env",
        ),
        (Server::start_with(&[&config]), "From the file"),
    ];
    for (server, title) in servers {
        let (id, _) = server.create("some text", "").await;
        let (_, _, page) = browse(&server, &format!("/{id}")).await;
        assert!(
            !page.contains("og:") && !page.contains("twitter:"),
            "{page}"
        );
        assert!(oembed_link(&page).is_some(), "{page}");
        assert!(page.contains(&format!(" · {title}</title>")), "{page}");
    }
}

/// A bad `--title` stops snip, saying why.
#[test]
fn a_bad_title_is_refused() {
    for (title, why) in [
        ("", "must not be empty"),
        ("a\u{7}b", "control characters"),
        (&"x".repeat(65), "at most 64 characters"),
    ] {
        let logs = Server::try_start_with(&[&format!("--title={title}")])
            .err()
            .unwrap_or_else(|| panic!("{title:?} was taken"));
        assert!(logs.contains(why), "{title:?}: {logs}");
    }
}

/// The embed view of a paste: its lines numbered and escaped, framable by
/// any site (its own CSP, no `X-Frame-Options`), while the paste's page
/// and every other answer refuse to be framed.
#[tokio::test]
async fn embeds_are_framable_and_nothing_else_is() {
    let server = Server::start();
    let options = format!(
        "lang=rust&name={}",
        form_urlencoded::byte_serialize(HOSTILE_NAME.as_bytes()).collect::<String>()
    );
    let (id, _) = server
        .create("fn main() {\n    let a = \"<b>\";\n}\n", &options)
        .await;
    let (status, headers, embed) = browse(&server, &format!("/embed/{id}")).await;
    assert_eq!(status, 200, "{embed}");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-ancestors *"), "{csp}");
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe"),
        "{csp}"
    );
    assert!(!headers.contains_key("x-frame-options"), "{headers:?}");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert!(embed.contains("data-page=\"embed\""), "{embed}");
    assert!(embed.contains("data-lang=\"rust\""), "{embed}");
    assert!(
        !embed.contains("<img src=x") && !embed.contains("\"<b>\""),
        "{embed}"
    );
    assert!(embed.contains("&#34;&#60;b&#62;&#34;"), "{embed}");
    assert_eq!(embed.matches("class=\"ln\"").count(), 3, "{embed}");
    // Everything else refuses to be framed.
    for path in [
        format!("/{id}"),
        "/".to_owned(),
        "/embed/2222222222222".to_owned(),
    ] {
        let (_, headers, _) = browse(&server, &path).await;
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
    }
}

/// `?lines=` shows those lines numbered as in the paste, `?theme=` sets
/// the colours; bad values are `400` saying what is wanted.
#[tokio::test]
async fn embeds_take_lines_and_themes_and_refuse_bad_ones() {
    let server = Server::start();
    let text: String = (1..=9).map(|n| format!("line {n}\n")).collect();
    let (id, _) = server.create(text, "").await;
    let (status, _, embed) = browse(&server, &format!("/embed/{id}?lines=3-5&theme=dark")).await;
    assert_eq!(status, 200, "{embed}");
    assert!(
        embed.contains("<html lang=\"en\" dir=\"ltr\" data-theme=\"dark\">"),
        "{embed}"
    );
    for n in 3..=5 {
        assert!(
            embed.contains(&format!(
                "<span class=\"ln\">{n}</span><span class=\"lc\">line {n}</span>"
            )),
            "{embed}"
        );
    }
    assert!(
        !embed.contains("line 2") && !embed.contains("line 6"),
        "{embed}"
    );
    let (_, _, one) = browse(&server, &format!("/embed/{id}?lines=9&theme=light")).await;
    assert!(
        one.contains("data-theme=\"light\"") && one.contains(">line 9<"),
        "{one}"
    );
    let (_, _, auto) = browse(&server, &format!("/embed/{id}?theme=auto")).await;
    assert!(auto.contains("<html lang=\"en\" dir=\"ltr\">"), "{auto}");
    for (query, message) in [
        ("lines=0", "lines must be a line number or a range N-M"),
        ("lines=5-3", "lines must be a line number or a range N-M"),
        ("lines=a-b", "lines must be a line number or a range N-M"),
        ("lines=1-", "lines must be a line number or a range N-M"),
        ("lines=8-10", "lines 8-10: the text has 9 lines"),
        ("lines=1&lines=2", "lines is given twice"),
        ("theme=blue", "theme must be light, dark or auto"),
        ("file=a.rs", "this paste holds one file"),
        ("file=", "file must name a file of the paste"),
    ] {
        let response = server.get(&format!("/embed/{id}?{query}")).await;
        let status = response.status().as_u16();
        let body = response.text().await.unwrap();
        let expected = if query.starts_with("file=a") {
            404
        } else {
            400
        };
        assert_eq!(status, expected, "{query}: {body}");
        assert!(body.contains(message), "{query}: {body}");
    }
    // A bad value is refused before any lookup.
    assert_eq!(server.status("/embed/2222222222222?theme=x").await, 400);
}

/// A paste of several files embeds all of them, or the one `?file=` names;
/// lines are of one file.
#[tokio::test]
async fn embeds_of_several_files() {
    let server = Server::start();
    let id = crate::files::two_files(&server).await;
    let (status, _, all) = browse(&server, &format!("/embed/{id}")).await;
    assert_eq!(status, 200, "{all}");
    assert!(
        all.contains(">a.rs</h2>") && all.contains(">b.md</h2>"),
        "{all}"
    );
    assert!(all.contains("fn main() {}") && all.contains("# B"), "{all}");
    let (_, _, one) = browse(&server, &format!("/embed/{id}?file=b.md&lines=1")).await;
    assert!(
        one.contains(">b.md</h2>") && !one.contains("a.rs</h2>"),
        "{one}"
    );
    for (query, status, message) in [
        ("file=c.rs", 404, "this paste holds no file of that name"),
        ("lines=1", 400, "needs file=NAME too"),
        ("file=a.rs&lines=2", 400, "lines 2: the text has 1 line"),
    ] {
        let response = server.get(&format!("/embed/{id}?{query}")).await;
        assert_eq!(response.status().as_u16(), status, "{query}");
        let body = response.text().await.unwrap();
        assert!(body.contains(message), "{query}: {body}");
    }
}

/// Burn, encrypted and private pastes (for their owner too), short links
/// and unknown IDs are never embedded, nor described by oEmbed: `404`.
#[tokio::test]
async fn no_embeds_of_burn_encrypted_or_private_pastes() {
    let server = start_with_admin(&[]);
    let (burn, _) = server.create("secret burn", "burn=true").await;
    let (encrypted, _) = server.create("SNIP-ciphertext", "encrypted=true").await;
    let (link, _) = server.create("", "url=https://example.com/").await;
    let (private, token) = private_paste(&server).await;
    for id in [
        &burn,
        &encrypted,
        &link,
        &private,
        &"2222222222222".to_owned(),
    ] {
        let embed = server
            .request(Method::GET, &format!("/embed/{id}"))
            .bearer_auth(&token)
            .fetch()
            .await;
        assert_eq!(embed.status(), 404, "{id}");
        let url = format!("{}/{id}", server.url);
        let oembed = server
            .request(Method::GET, "/oembed")
            .query(&[("url", url.as_str())])
            .bearer_auth(&token)
            .fetch()
            .await;
        assert_eq!(oembed.status(), 404, "{id}");
    }
    // The burn paste is still there, unread.
    assert_eq!(server.reveal(&burn).await.status(), 200);
}

/// A paste page names its oEmbed URL, which answers a `rich` embed: an
/// `<iframe>` of `/embed/{id}` sized to the paste within `maxwidth` and
/// `maxheight`, its title and the instance as provider.
#[tokio::test]
async fn oembed_describes_the_iframe() {
    let server = Server::start_with(&["--title", "Team paste"]);
    let text: String = (1..=5).map(|n| format!("line {n}\n")).collect();
    let (id, _) = server.create(text, "name=five.txt").await;
    let (_, _, page) = browse(&server, &format!("/{id}")).await;
    let discovery = oembed_link(&page).unwrap();
    let paste_url = format!("{}/{id}", server.url);
    let expected = format!(
        "{}/oembed?url={}&format=json",
        server.url,
        form_urlencoded::byte_serialize(paste_url.as_bytes()).collect::<String>()
    );
    assert_eq!(discovery, expected);
    let answer: Value = client().get(&discovery).fetch().await.json().await.unwrap();
    assert_eq!(answer["version"], "1.0");
    assert_eq!(answer["type"], "rich");
    assert_eq!(answer["title"], "five.txt");
    assert_eq!(answer["provider_name"], "Team paste");
    assert_eq!(answer["provider_url"], format!("{}/", server.url));
    assert_eq!(answer["width"], 720);
    let height = answer["height"].as_u64().unwrap();
    assert!((24 * 5..=600).contains(&height), "{answer}");
    let html = answer["html"].as_str().unwrap();
    assert!(
        html.starts_with(&format!(
            "<iframe src=\"{}/embed/{id}\" width=\"720\"",
            server.url
        )),
        "{html}"
    );
    assert!(html.contains("title=\"five.txt\""), "{html}");

    let ask = |query: Vec<(&'static str, String)>| {
        let request = server.request(Method::GET, "/oembed").query(&query);
        async move {
            let response = request.fetch().await;
            let status = response.status().as_u16();
            (status, response.text().await.unwrap())
        }
    };
    let (status, body) = ask(vec![
        ("url", format!("{paste_url}#L2-L3")),
        ("maxwidth", "300".into()),
        ("maxheight", "40".into()),
    ])
    .await;
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (answer["width"].as_u64(), answer["height"].as_u64()),
        (Some(300), Some(40))
    );
    assert!(
        answer["html"]
            .as_str()
            .unwrap()
            .contains(&format!("/embed/{id}?lines=2-3\"")),
        "{answer}"
    );
    let (status, body) = ask(vec![(
        "url",
        format!("{}/embed/{id}?theme=dark&lines=4", server.url),
    )])
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("lines=4&#38;theme=dark"), "{body}");

    // Bad requests, each with its own status and message.
    for (query, status, message) in [
        (vec![], 400, "url is required"),
        (vec![("url", String::new())], 400, "url is required"),
        (
            vec![("url", paste_url.clone()), ("format", "xml".into())],
            501,
            "json only",
        ),
        (
            vec![("url", paste_url.clone()), ("format", "yaml".into())],
            501,
            "json only",
        ),
        (
            vec![("url", paste_url.clone()), ("maxwidth", "0".into())],
            400,
            "maxwidth must be",
        ),
        (
            vec![("url", paste_url.clone()), ("maxheight", "tall".into())],
            400,
            "maxheight must be",
        ),
        (
            vec![("url", format!("https://elsewhere.example/{id}"))],
            404,
            "no paste of this server",
        ),
        (
            vec![("url", format!("{}/raw/{id}", server.url))],
            404,
            "no paste of this server",
        ),
        (
            vec![("url", format!("{}/embed/{id}?lines=0", server.url))],
            400,
            "lines must be",
        ),
        (
            vec![("url", format!("{paste_url}#L7"))],
            400,
            "the text has 5 lines",
        ),
    ] {
        let shown = format!("{query:?}");
        let (got, body) = ask(query).await;
        assert_eq!(got, status, "{shown}: {body}");
        assert!(body.contains(message), "{shown}: {body}");
    }
}
