//! The HTTP API against a real server: routes, headers, negotiation and errors.

use reqwest::{Method, StatusCode};

use crate::support::{
    Fetch, Server, client,
    http::{get_status, get_text},
};

/// `curl --data-binary` style create prints a URL whose GET returns the bytes untouched.
#[tokio::test]
async fn create_then_read_round_trip() {
    let server = Server::start();
    let response = server
        .request(Method::POST, "/")
        .header("content-type", "application/x-www-form-urlencoded")
        .body("hello=world&x")
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(response.headers().contains_key("x-delete-token"));
    let url = response.text().await.unwrap();
    assert!(url.ends_with('\n'));
    assert_eq!(url.trim_end(), location);
    assert!(url.starts_with(&server.url));
    assert_eq!(
        get_text(&client(), url.trim_end()).await,
        (200, "hello=world&x".to_owned())
    );
}

/// All 256 byte values survive a round trip through every raw route.
#[tokio::test]
async fn binary_round_trip_of_all_byte_values() {
    let server = Server::start();
    let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
    let (id, _) = server.create(bytes.clone(), "").await;
    for path in [
        format!("/{id}"),
        format!("/raw/{id}"),
        format!("/download/{id}"),
    ] {
        let response = server.get(&path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(
            response.headers()["content-type"],
            "application/octet-stream",
            "{path}"
        );
        assert_eq!(
            response.bytes().await.unwrap().as_ref(),
            bytes.as_slice(),
            "{path}"
        );
    }
}

/// The JSON create answer has every documented field, consistent with the headers.
#[tokio::test]
async fn json_create_answer() {
    let server = Server::start();
    let response = server
        .request(Method::POST, "/?ttl=1h&lang=rust&name=main.rs")
        .header("accept", "application/json")
        .body("fn main() {}")
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let token = response.headers()["x-delete-token"]
        .to_str()
        .unwrap()
        .to_owned();
    let json: serde_json::Value = response.json().await.unwrap();
    let id = json["id"].as_str().unwrap();
    assert_eq!(id.len(), 13);
    assert_eq!(json["url"], format!("{}/{id}", server.url));
    assert_eq!(json["raw_url"], format!("{}/raw/{id}", server.url));
    assert_eq!(json["delete_token"], token.as_str());
    assert_eq!(json["burn"], false);
    assert_eq!(json["size"], 12);
    assert!(json["expires_at"].as_str().unwrap().ends_with('Z'));
}

/// Metadata shows what was set, without the body or the token hash.
#[tokio::test]
async fn metadata_route() {
    let server = Server::start();
    let (id, _) = server
        .create("print(1)", "lang=python&name=a.py&ttl=1d")
        .await;
    let (status, json) = server.metadata(&id).await;
    assert_eq!(status, 200);
    assert_eq!(json["id"], id.as_str());
    assert_eq!(json["size"], 8);
    assert_eq!(json["lang"], "python");
    assert_eq!(json["name"], "a.py");
    assert_eq!(json["burn"], false);
    assert_eq!(json["encrypted"], false);
    assert!(json["created_at"].is_string() && json["expires_at"].is_string());
    assert!(json.get("delete_token_hash").is_none());
}

/// Browsers get an HTML page with the content escaped; other clients get raw bytes.
#[tokio::test]
async fn content_negotiation_and_escaping() {
    let server = Server::start();
    let payload = "<script>alert(1)</script>\n\"><img src=x onerror=alert(2)>";
    let (id, _) = server.create(payload, "").await;
    let page = server
        .get_accepting(
            &format!("/{id}"),
            "text/html,application/xhtml+xml,*/*;q=0.8",
        )
        .await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csp.contains("default-src 'none'") && !csp.contains("unsafe"),
        "{csp}"
    );
    let html = page.text().await.unwrap();
    // askama's escaping: numeric character references.
    assert!(html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"));
    assert!(html.contains("&#34;&#62;&#60;img src=x onerror=alert(2)&#62;"));
    assert!(!html.contains("<script>") && !html.contains("<img"));
    assert!(html.contains("id=\"L2\""), "line anchors");

    let raw = server.get(&format!("/{id}")).await;
    assert_eq!(raw.headers()["content-type"], "text/plain; charset=utf-8");
    assert_eq!(raw.text().await.unwrap(), payload);
}

/// Raw responses carry nosniff and a sandboxing CSP, and never an executable type.
#[tokio::test]
async fn raw_responses_are_inert() {
    let server = Server::start();
    for (name, expected) in [
        ("page.html", "text/plain; charset=utf-8"),
        ("image.svg", "text/plain; charset=utf-8"),
        ("doc.xhtml", "text/plain; charset=utf-8"),
        ("app.js", "text/plain; charset=utf-8"),
        ("cat.png", "image/png"),
    ] {
        let (id, _) = server
            .create("<svg onload=alert(1)>", &format!("name={name}"))
            .await;
        let response = server.get(&format!("/raw/{id}")).await;
        let headers = response.headers();
        assert_eq!(headers["content-type"], expected, "{name}");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(
            headers["content-security-policy"],
            "default-src 'none'; sandbox"
        );
    }
    let (id, _) = server.create("%PDF-1.4", "name=x.pdf").await;
    let response = server.get(&format!("/raw/{id}")).await;
    assert_eq!(
        response.headers()["content-type"],
        "application/octet-stream"
    );
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment")
    );
}

/// Download is an attachment named after the paste's file name.
#[tokio::test]
async fn download_is_an_attachment() {
    let server = Server::start();
    let (id, _) = server.create("a,b\n1,2\n", "name=data%20v1.csv").await;
    let response = server.get(&format!("/download/{id}")).await;
    assert_eq!(response.status(), 200);
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        disposition,
        "attachment; filename=\"data v1.csv\"; filename*=UTF-8''data%20v1.csv"
    );
    assert_eq!(response.text().await.unwrap(), "a,b\n1,2\n");
}

/// HEAD answers headers (with the length) and no body, for small and large pastes.
#[tokio::test]
async fn head_requests() {
    let server = Server::start();
    let (id, _) = server.create("twelve bytes", "").await;
    for path in [format!("/{id}"), format!("/raw/{id}")] {
        let response = server.head(&path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-length"], "12", "{path}");
        assert!(response.bytes().await.unwrap().is_empty());
    }
    // A large body, sent as it is read, has its length too.
    let (large, _) = server.create(vec![b'x'; 100_000], "").await;
    let response = server.head(&format!("/raw/{large}")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-length"], "100000");
    assert!(response.bytes().await.unwrap().is_empty());
    let missing = server.head("/raw/22222222222222").await;
    assert_eq!(missing.status(), 404);
}

/// A matching `If-None-Match` gets `304` with no body.
#[tokio::test]
async fn etag_revalidation() {
    let server = Server::start();
    let (id, _) = server.create("cache me", "").await;
    let first = server.get(&format!("/raw/{id}")).await;
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(etag, format!("\"{id}\""));
    let again = server
        .request(Method::GET, &format!("/raw/{id}"))
        .header("if-none-match", &etag)
        .fetch()
        .await;
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.bytes().await.unwrap().is_empty());
    let other = server
        .request(Method::GET, &format!("/raw/{id}"))
        .header("if-none-match", "\"something-else\"")
        .fetch()
        .await;
    assert_eq!(other.status(), 200);
}

/// A single range gets `206` with the right slice; an impossible one `416`.
#[tokio::test]
async fn range_requests() {
    let server = Server::start();
    let (id, _) = server.create("0123456789", "").await;
    let url = server.at(&format!("/raw/{id}"));
    let part = client()
        .get(&url)
        .header("range", "bytes=2-5")
        .fetch()
        .await;
    assert_eq!(part.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(part.headers()["content-range"], "bytes 2-5/10");
    assert_eq!(part.text().await.unwrap(), "2345");
    let suffix = client().get(&url).header("range", "bytes=-3").fetch().await;
    assert_eq!(suffix.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(suffix.text().await.unwrap(), "789");
    let beyond = client()
        .get(&url)
        .header("range", "bytes=50-60")
        .fetch()
        .await;
    assert_eq!(beyond.status(), StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(beyond.headers()["content-range"], "bytes */10");
    let garbage = client()
        .get(&url)
        .header("range", "lines=1-2")
        .fetch()
        .await;
    assert_eq!(garbage.status(), 200);
    assert_eq!(garbage.text().await.unwrap(), "0123456789");
}

/// Delete needs the right token: none or a wrong one `403`, right one `204`, then `404`.
#[tokio::test]
async fn delete_with_token() {
    let server = Server::start();
    let (id, token) = server.create("delete me", "").await;
    let url = server.at(&format!("/{id}"));
    let none = client().delete(&url).fetch().await;
    assert_eq!(none.status(), StatusCode::FORBIDDEN);
    let wrong = client()
        .delete(&url)
        .header("x-delete-token", "0".repeat(32))
        .fetch()
        .await;
    assert_eq!(wrong.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        client().get(&url).fetch().await.status(),
        200,
        "a failed delete changes nothing"
    );
    let right = client()
        .delete(&url)
        .header("x-delete-token", &token)
        .fetch()
        .await;
    assert_eq!(right.status(), StatusCode::NO_CONTENT);
    assert_eq!(client().get(&url).fetch().await.status(), 404);
    let again = client()
        .delete(&url)
        .header("x-delete-token", &token)
        .fetch()
        .await;
    assert_eq!(again.status(), 404);
}

/// Reads racing a delete: after the delete's `204` and the reads' end, the
/// paste is gone for good. (The embedded store keeps read pastes in memory;
/// a read that fills that cache must never bring back a deleted paste.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reads_racing_a_delete_never_bring_it_back() {
    let server = Server::start();
    for round in 0..20 {
        let (id, token) = server.create(format!("race {round}"), "").await;
        let raw = server.at(&format!("/raw/{id}"));
        let readers: Vec<_> = (0..8)
            .map(|_| {
                let raw = raw.clone();
                tokio::spawn(async move {
                    let http = client();
                    for _ in 0..10 {
                        let status = http.get(&raw).fetch().await.status();
                        assert!(status == 200 || status == 404, "{status}");
                    }
                })
            })
            .collect();
        let deleted = server.delete(&format!("/{id}"), Some(&token)).await;
        assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
        for reader in readers {
            reader.await.unwrap();
        }
        assert_eq!(client().get(&raw).fetch().await.status(), 404);
        let meta = server.get(&format!("/api/pastes/{id}")).await;
        assert_eq!(meta.status(), 404);
    }
}

/// Multipart forms: a `file` part takes its file name; a `content` part works too.
/// A form is answered `201` with JSON, `200` with the URL as text.
#[tokio::test]
async fn multipart_create() {
    let server = Server::start();
    let boundary = "XyZboundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"ttl\"\r\n\r\n1h\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.md\"\r\n\
         Content-Type: text/markdown\r\n\r\n# Title\nbody\r\n--{boundary}--\r\n"
    );
    let response = server
        .request(Method::POST, "/")
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .header("accept", "application/json")
        .body(body)
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let json: serde_json::Value = response.json().await.unwrap();
    assert!(json["expires_at"].is_string());
    let id = json["id"].as_str().unwrap();
    let (status, meta) = server.metadata(id).await;
    assert_eq!(status, 200);
    assert_eq!(meta["name"], "notes.md");
    assert_eq!(
        server.text(&format!("/raw/{id}")).await,
        (200, "# Title\nbody".to_owned())
    );

    let content_form = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\nplain text\r\n--{boundary}--\r\n"
    );
    let response = server
        .request(Method::POST, "/")
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(content_form)
        .fetch()
        .await;
    // A form answered as text: 200, as form uploads are answered elsewhere.
    assert_eq!(response.status(), 200);
    let url = response.text().await.unwrap();
    assert_eq!(
        client().get(url.trim()).fetch().await.text().await.unwrap(),
        "plain text"
    );
}

/// Bad parameters and bodies get `400` with a message naming the problem.
#[tokio::test]
async fn bad_requests() {
    let server = Server::start();
    for (query, body, needle) in [
        ("", "", "empty"),
        ("ttl=soon", "x", "ttl"),
        ("ttl=0", "x", "ttl"),
        ("burn=maybe", "x", "burn"),
        ("lang=%3Cscript%3E", "x", "lang"),
        ("name=..", "x", "name"),
        // A right-to-left override would show `invoice\u{202E}fdp.exe` as
        // `invoiceexe.pdf`; so would any other invisible format character.
        ("name=invoice%E2%80%AEfdp.exe", "x", "format characters"),
        ("name=a%E2%80%8Bb.txt", "x", "format characters"),
        ("name=%EF%BB%BFa.txt", "x", "format characters"),
        ("tll=1h", "x", "unknown parameter"),
    ] {
        let response = server
            .request(Method::POST, &format!("/?{query}"))
            .header("accept", "application/json")
            .body(body)
            .fetch()
            .await;
        assert_eq!(response.status(), 400, "{query:?}");
        let json: serde_json::Value = response.json().await.unwrap();
        assert_eq!(json["error"]["code"], "bad_request");
        let message = json["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{query:?}: {message}");
    }
    let form = server
        .request(Method::POST, "/")
        .header("content-type", "multipart/form-data; boundary=b")
        .body("--b\r\nContent-Disposition: form-data; name=\"ttl\"\r\n\r\n1h\r\n--b--\r\n")
        .fetch()
        .await;
    assert_eq!(form.status(), 400, "a form without content");
}

/// Unsupported encodings and multipart flavours get `415`.
#[tokio::test]
async fn unsupported_media() {
    let server = Server::start();
    let gzip = server
        .request(Method::POST, "/")
        .header("content-encoding", "gzip")
        .body("not really gzip")
        .fetch()
        .await;
    assert_eq!(gzip.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let mixed = server
        .request(Method::POST, "/")
        .header("content-type", "multipart/mixed; boundary=x")
        .body("--x--")
        .fetch()
        .await;
    assert_eq!(mixed.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
}

/// Malformed and mistyped IDs are `404` with a precise message; unknown valid IDs a plain `404`.
#[tokio::test]
async fn bad_and_unknown_ids() {
    let server = Server::start();
    let (id, _) = server.create("x", "").await;
    // Swap two adjacent different characters: the check character catches it.
    let mut typo: Vec<u8> = id.clone().into_bytes();
    let pos = (0..typo.len() - 1)
        .find(|&i| typo[i] != typo[i + 1])
        .unwrap();
    typo.swap(pos, pos + 1);
    let typo = String::from_utf8(typo).unwrap();
    let response = server
        .get_accepting(&format!("/{typo}"), "application/json")
        .await;
    assert_eq!(response.status(), 404);
    let json: serde_json::Value = response.json().await.unwrap();
    assert_eq!(json["error"]["code"], "mistyped_id");
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mistyped")
    );

    let page = server.get_accepting(&format!("/{typo}"), "text/html").await;
    assert_eq!(page.status(), 404);
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("This link looks mistyped")
    );

    for bad in ["short", "has.dots.in.it", "0000000000000", "k7m3q9xw2hd4o"] {
        let status = server.status(&format!("/raw/{bad}")).await;
        assert_eq!(status, 404, "{bad}");
    }
    // Upper case is the same ID.
    let upper = server.at(&format!("/{}", id.to_uppercase()));
    assert_eq!(get_status(&client(), &upper).await, 200);
}

/// Wrong methods get `405`, unknown routes `404`, both with a message.
#[tokio::test]
async fn wrong_method_and_route() {
    let server = Server::start();
    let put = server.request(Method::PUT, "/").body("x").fetch().await;
    assert_eq!(put.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(!put.text().await.unwrap().is_empty());
    let json = server
        .request(Method::DELETE, "/raw/22222222222222")
        .header("accept", "application/json")
        .fetch()
        .await;
    assert_eq!(json.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: serde_json::Value = json.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed");
    assert_eq!(server.status("/no/such/route").await, 404);
}

/// Health check, usage text, the form page and its stylesheet.
#[tokio::test]
async fn service_routes() {
    let server = Server::start();
    assert_eq!(server.text("/healthz").await, (200, "ok\n".to_owned()));
    let (status, usage) = server.text("/").await;
    assert_eq!(status, 200);
    assert!(usage.contains("curl --data-binary @-"));
    let form = server.get_accepting("/", "text/html").await;
    assert_eq!(form.headers()["x-frame-options"], "DENY");
    assert!(form.text().await.unwrap().contains("<form"));
    let css = server.get("/assets/snip.css").await;
    assert_eq!(css.headers()["content-type"], "text/css; charset=utf-8");
}

/// A browser form post is redirected to the new paste's page.
#[tokio::test]
async fn browser_form_post_redirects() {
    let server = Server::start();
    let response = server.request(Method::POST, "/").header("accept", "text/html").header("content-type", "multipart/form-data; boundary=b").body("--b\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\nfrom a form\r\n--b--\r\n").fetch().await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(
        server.text(&location).await,
        (200, "from a form".to_owned())
    );
}

/// Printed URLs use --public-url, never the request's Host header.
#[tokio::test]
async fn public_url_is_not_taken_from_host() {
    let server = Server::start_with(&["--public-url=https://paste.example.com/"]);
    let response = server
        .request(Method::POST, "/")
        .header("host", "evil.example")
        .body("x")
        .fetch()
        .await;
    let url = response.text().await.unwrap();
    assert!(url.starts_with("https://paste.example.com/"), "{url}");
    let plain = Server::start();
    let response = plain
        .request(Method::POST, "/")
        .header("host", "evil.example")
        .body("x")
        .fetch()
        .await;
    assert!(response.text().await.unwrap().starts_with(&plain.url));
}

/// Options come from a TOML file (keys as the long flags, with - or _).
#[tokio::test]
async fn config_file_options() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("snip.toml");
    std::fs::write(
        &config,
        "max-paste-size = \"10B\"\npublic_url = \"https://from.file\"\n",
    )
    .unwrap();
    let server = Server::start_with(&[&format!("--config={}", config.display())]);
    let too_big = server.post("/", "eleven bytes").await;
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let ok = server.post("/", "ten bytes!").await;
    assert!(ok.text().await.unwrap().starts_with("https://from.file/"));
}

/// Answers chosen by `Accept` say so (`Vary: Accept`; pages, in the
/// reader's language, by `Accept-Language` and `Cookie` too), and error
/// answers are never cached (`Cache-Control: no-store`), on the hot routes
/// and the routed ones.
#[tokio::test]
async fn negotiated_answers_vary_and_errors_are_not_cached() {
    let server = Server::start();
    let (id, _) = server.create("varies", "").await;
    let header = |response: &reqwest::Response, name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    for (path, accept) in [
        (format!("/{id}"), "text/html"),
        (format!("/{id}"), "*/*"),
        ("/".to_owned(), "text/html"),
        ("/".to_owned(), "*/*"),
    ] {
        let response = server.get_accepting(&path, accept).await;
        assert_eq!(response.status(), 200, "{path} {accept}");
        let vary = match accept {
            "text/html" => "Accept, Accept-Language, Cookie",
            _ => "Accept",
        };
        assert_eq!(
            header(&response, "vary").as_deref(),
            Some(vary),
            "{path} {accept}"
        );
    }
    let missing = "/raw/k7m3q9xw2hd4p";
    for accept in ["text/html", "application/json", "*/*"] {
        for path in [missing, "/api/pastes/k7m3q9xw2hd4p", "/no/such/route"] {
            let response = server.get_accepting(path, accept).await;
            assert_eq!(response.status(), 404, "{path} {accept}");
            assert_eq!(
                header(&response, "cache-control").as_deref(),
                Some("no-store"),
                "{path} {accept}"
            );
            let vary = match accept {
                "text/html" => "Accept, Accept-Language, Cookie",
                _ => "Accept",
            };
            assert_eq!(
                header(&response, "vary").as_deref(),
                Some(vary),
                "{path} {accept}"
            );
        }
    }
}

/// A link copied from a chat message with the sentence's last character
/// (`.`, `,`, `!`, `)` …) is sent to the paste with `308`, before any lookup:
/// a burn paste is not consumed, anything that still fails to parse stays a
/// `404`, and only `GET` and `HEAD` of `/{id}` and `/raw/{id}` are redirected.
#[tokio::test]
async fn trailing_chat_punctuation_redirects_to_the_paste() {
    let server = Server::start();
    let (id, _) = server.create("hello", "").await;
    let http = client();
    for (path, target) in [
        (format!("/{id}."), format!("/{id}")),
        (format!("/{id},"), format!("/{id}")),
        (format!("/{id}!"), format!("/{id}")),
        (format!("/{id})."), format!("/{id}")),
        (format!("/{id}.."), format!("/{id}")),
        (format!("/raw/{id}."), format!("/raw/{id}")),
        (format!("/raw/{id}).?x=1"), format!("/raw/{id}?x=1")),
    ] {
        let response = http
            .get(format!("{}{path}", server.url))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::PERMANENT_REDIRECT, "{path}");
        assert_eq!(response.headers()["location"], target.as_str(), "{path}");
    }
    let head = http
        .head(format!("{}/{id}.", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(head.status(), StatusCode::PERMANENT_REDIRECT);

    // Still 404: other trailing characters, a mistyped ID with punctuation,
    // another route's path, and methods other than GET and HEAD.
    let mut mistyped = id.clone();
    mistyped.replace_range(0..1, if id.starts_with('a') { "b" } else { "a" });
    for path in [
        format!("/{id}x"),
        format!("/{mistyped}."),
        format!("/{id}./download"),
    ] {
        let status = get_status(&http, &format!("{}{path}", server.url)).await;
        assert_eq!(status, 404, "{path}");
    }
    let delete = server
        .request(Method::DELETE, &format!("/{id}."))
        .fetch()
        .await;
    assert_ne!(delete.status(), StatusCode::PERMANENT_REDIRECT);

    // A burn paste behind the redirect is still there to be read once.
    let (burn_id, _) = server.create("secret", "burn=true").await;
    let response = http
        .get(format!("{}/raw/{burn_id}!", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PERMANENT_REDIRECT);
    let revealed = server
        .request(Method::POST, &format!("/{burn_id}/reveal"))
        .fetch()
        .await;
    assert_eq!(revealed.status(), 200);
    assert_eq!(revealed.text().await.unwrap(), "secret");
}
