//! Bodies compressed at rest: a text paste is stored as a zstd stream, sent
//! as it is to clients that take zstd (`Content-Encoding: zstd`) and
//! decompressed for everyone else, for every range and for a burn reveal;
//! each representation has its own entity tag. Bodies that would not shrink
//! (random bytes, client-side ciphertext) are stored and served as they are.

use reqwest::{Method, Response, StatusCode};

use crate::support::data::XorShift;
use crate::support::postgres::skip_on_postgres;
use crate::support::{Fetch, Server};

/// 2 KiB of log lines: the kind of text that compresses to a fraction.
fn log_text() -> Vec<u8> {
    let mut text: Vec<u8> = (0..100)
        .flat_map(|n| {
            format!(
                "2026-11-25T22:{:02}:{:02}Z INFO worker-{} GET /api/items/{} 200 {}ms\n",
                n % 60,
                n * 7 % 60,
                n % 4,
                n * 131 % 9973,
                n * 13 % 97
            )
            .into_bytes()
        })
        .collect();
    text.truncate(2048);
    text
}

/// `GET path` with the given headers.
async fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut request = server.request(Method::GET, path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.fetch().await
}

fn header<'a>(response: &'a Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).map(|v| v.to_str().unwrap())
}

const ZSTD: (&str, &str) = ("accept-encoding", "gzip, deflate, br, zstd");

/// Without `Accept-Encoding: zstd` the body comes as it is; with it, the
/// stored stream, which decodes to the body; both say `Vary:
/// Accept-Encoding`, each has its own entity tag, and the metadata keeps
/// the body's size. The download route negotiates alike.
#[tokio::test]
async fn text_is_sent_compressed_to_clients_that_take_zstd() {
    let server = Server::start();
    let body = log_text();
    let (id, _) = server.create(body.clone(), "").await;

    let plain = get(
        &server,
        &format!("/raw/{id}"),
        &[("accept-encoding", "gzip, br")],
    )
    .await;
    assert_eq!(plain.status(), 200);
    assert_eq!(header(&plain, "content-encoding"), None);
    assert_eq!(header(&plain, "vary"), Some("Accept-Encoding"));
    assert_eq!(header(&plain, "etag"), Some(format!("\"{id}\"").as_str()));
    assert_eq!(header(&plain, "content-length"), Some("2048"));
    assert_eq!(&plain.bytes().await.unwrap()[..], &body[..]);

    for path in [format!("/raw/{id}"), format!("/download/{id}")] {
        let zstd = get(&server, &path, &[ZSTD]).await;
        assert_eq!(zstd.status(), 200, "{path}");
        assert_eq!(header(&zstd, "content-encoding"), Some("zstd"), "{path}");
        assert_eq!(header(&zstd, "vary"), Some("Accept-Encoding"), "{path}");
        let etag = format!("\"{id}-zstd\"");
        assert_eq!(header(&zstd, "etag"), Some(etag.as_str()), "{path}");
        assert_eq!(
            header(&zstd, "content-type"),
            Some("text/plain; charset=utf-8")
        );
        let download = path.starts_with("/download");
        assert_eq!(header(&zstd, "content-disposition").is_some(), download);
        let stream = zstd.bytes().await.unwrap();
        assert!(stream.len() < body.len() / 2, "{} bytes", stream.len());
        assert_eq!(zstd::decode_all(&stream[..]).unwrap(), body, "{path}");
    }
    // `q=0` refuses zstd.
    let refused = get(
        &server,
        &format!("/raw/{id}"),
        &[("accept-encoding", "zstd;q=0")],
    )
    .await;
    assert_eq!(header(&refused, "content-encoding"), None);
    let (_, meta) = server.metadata(&id).await;
    assert_eq!(meta["size"], 2048);
}

/// A range is of the body itself, whatever the client takes; `If-None-Match`
/// answers `304` for the tag of the representation it would get, and the
/// whole representation for the other one's.
#[tokio::test]
async fn ranges_and_validators_of_a_compressed_paste() {
    let server = Server::start();
    let body = log_text();
    let (id, _) = server.create(body.clone(), "").await;
    let path = format!("/raw/{id}");

    let part = get(&server, &path, &[ZSTD, ("range", "bytes=100-199")]).await;
    assert_eq!(part.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(header(&part, "content-encoding"), None);
    assert_eq!(header(&part, "content-range"), Some("bytes 100-199/2048"));
    assert_eq!(&part.bytes().await.unwrap()[..], &body[100..200]);
    let beyond = get(&server, &path, &[ZSTD, ("range", "bytes=5000-")]).await;
    assert_eq!(beyond.status(), StatusCode::RANGE_NOT_SATISFIABLE);

    let (plain_tag, zstd_tag) = (format!("\"{id}\""), format!("\"{id}-zstd\""));
    // (takes zstd, If-None-Match, status, Content-Encoding)
    let cases = [
        (false, &plain_tag, 304, None),
        (true, &zstd_tag, 304, Some("zstd")),
        (true, &plain_tag, 200, Some("zstd")),
        (false, &zstd_tag, 200, None),
    ];
    for (takes_zstd, tag, status, coding) in cases {
        let mut with = vec![("if-none-match", tag.as_str())];
        if takes_zstd {
            with.push(ZSTD);
        }
        let response = get(&server, &path, &with).await;
        assert_eq!(response.status(), status, "{with:?}");
        assert_eq!(header(&response, "content-encoding"), coding, "{with:?}");
        assert_eq!(header(&response, "vary"), Some("Accept-Encoding"));
    }
}

/// A compressed burn paste is revealed once, as its body, to a client that
/// takes zstd; then it is gone.
#[tokio::test]
async fn a_compressed_burn_paste_is_revealed_once() {
    let server = Server::start();
    let body = log_text();
    let (id, _) = server.create(body.clone(), "burn=true").await;
    let reveal = || {
        server
            .request(Method::POST, &format!("/{id}/reveal"))
            .header(ZSTD.0, ZSTD.1)
            .fetch()
    };
    let first = reveal().await;
    assert_eq!(first.status(), 200);
    assert_eq!(header(&first, "content-encoding"), None);
    assert_eq!(&first.bytes().await.unwrap()[..], &body[..]);
    assert_eq!(reveal().await.status(), 404);
}

/// Random bytes and client-side ciphertext are stored and sent as they are,
/// to every client: one representation, so no `Vary`.
#[tokio::test]
async fn bodies_that_would_not_shrink_are_kept_as_they_are() {
    let server = Server::start();
    let random = XorShift(7).bytes(4096);
    let (noise, _) = server.create(random.clone(), "").await;
    let (sealed, _) = server.create(log_text(), "encrypted=true").await;
    for (id, body) in [(&noise, random), (&sealed, log_text())] {
        let response = get(&server, &format!("/raw/{id}"), &[ZSTD]).await;
        assert_eq!(response.status(), 200);
        assert_eq!(header(&response, "content-encoding"), None, "{id}");
        assert_eq!(header(&response, "vary"), None, "{id}");
        assert_eq!(
            header(&response, "etag"),
            Some(format!("\"{id}\"").as_str())
        );
        assert_eq!(&response.bytes().await.unwrap()[..], &body[..]);
    }
}

/// `n` distinct bodies of log lines, about 2 KiB each.
fn log_pastes(n: usize) -> Vec<Vec<u8>> {
    let mut random = XorShift(2026);
    (0..n)
        .map(|_| {
            let mut body = String::new();
            while body.len() < 2000 {
                let r = random.next_u64();
                body += &format!(
                    "2026-11-26T10:{:02}:{:02}Z {} [worker-{}] req={:012x} GET /api/items/{} status={} took={}ms\n",
                    r % 60,
                    r / 60 % 60,
                    ["INFO", "WARN", "ERROR"][(r % 3) as usize],
                    r % 8,
                    r >> 16,
                    r % 99_991,
                    [200, 404, 500][(r / 3 % 3) as usize],
                    r % 900,
                );
            }
            body.into_bytes()
        })
        .collect()
}

/// After its first 2048 text pastes the embedded store learns a dictionary
/// and compresses small text with it. Clients cannot decode such a stream,
/// so every client gets the body itself: one representation, no `Vary`,
/// ranges of the body; the same after a `kill -9` and a restart.
#[tokio::test]
async fn text_compressed_with_the_learned_dictionary_is_sent_as_itself() {
    if skip_on_postgres("the dictionary is the embedded store's") {
        return;
    }
    let mut server = Server::start();
    let bodies = log_pastes(2049);
    let client = crate::support::http::client();
    for body in &bodies[..2048] {
        crate::support::http::create_json(&client, &server.url, body.clone(), "").await;
    }
    assert!(server.wait_for_log("learned a compression dictionary"));
    let body = &bodies[2048];
    let (id, _) = server.create(body.clone(), "").await;
    for round in 0..2 {
        let path = format!("/raw/{id}");
        let response = get(&server, &path, &[ZSTD]).await;
        assert_eq!(response.status(), 200, "{round}");
        assert_eq!(header(&response, "content-encoding"), None, "{round}");
        assert_eq!(header(&response, "vary"), None, "{round}");
        let etag = format!("\"{id}\"");
        assert_eq!(header(&response, "etag"), Some(etag.as_str()), "{round}");
        assert_eq!(&response.bytes().await.unwrap()[..], &body[..], "{round}");
        let part = get(&server, &path, &[ZSTD, ("range", "bytes=100-199")]).await;
        assert_eq!(part.status(), StatusCode::PARTIAL_CONTENT, "{round}");
        assert_eq!(&part.bytes().await.unwrap()[..], &body[100..200], "{round}");
        server.kill9();
        server.restart();
    }
}
