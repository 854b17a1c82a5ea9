//! Several files in one paste: created by a form with several `file`
//! parts, each read at `/raw/{id}/{name}`, all of them as a zip, and the
//! limits on hostile forms (names, duplicates, floods of parts).

use std::io::Read;

use reqwest::Method;
use serde_json::Value;

use crate::support::cli::{failed, run_cli, stdout, succeeded};
use crate::support::http::{Fetch, client};
use crate::support::server::Server;

/// A `multipart/form-data` body of `file` parts (file name, bytes) and
/// option fields (name, value), in that order, and its content type.
pub fn form(files: &[(&str, &[u8])], fields: &[(&str, &str)]) -> (String, Vec<u8>) {
    let boundary = "snipFilesBoundary";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (file_name, bytes) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Posts a form of `files` and `fields` asking for JSON: (status, JSON).
async fn post_form(
    server: &Server,
    files: &[(&str, &[u8])],
    fields: &[(&str, &str)],
) -> (u16, Value) {
    let (content_type, body) = form(files, fields);
    let response = server
        .request(Method::POST, "/")
        .header("content-type", content_type)
        .header("accept", "application/json")
        .body(body)
        .fetch()
        .await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Creates a paste of two files, `a.rs` (`fn main() {}`) and `b.md`
/// (`# B`); its ID.
pub async fn two_files(server: &Server) -> String {
    let (status, json) = post_form(
        server,
        &[("a.rs", b"fn main() {}\n"), ("b.md", b"# B\n")],
        &[],
    )
    .await;
    assert_eq!(status, 201, "{json}");
    json["id"].as_str().unwrap().to_owned()
}

/// The file parts of a form: (file name, bytes).
type Files<'a> = Vec<(&'a str, &'a [u8])>;
/// The option fields of a form: (name, value).
type Fields<'a> = Vec<(&'a str, &'a str)>;

const RUST: &[u8] = b"fn main() {\n    println!(\"hi\");\n}\n";
const TOML: &[u8] = b"[package]\nname = \"a\"\n";
const NOTES: &[u8] = b"# Notes\n\nsome text\n";

/// Creates the three-file paste of the issue (`a.rs`, `Cargo.toml`,
/// `notes.md`) and returns its create answer.
async fn three_files(server: &Server) -> Value {
    let (status, json) = post_form(
        server,
        &[
            ("src/a.rs", RUST),
            ("Cargo.toml", TOML),
            ("notes.md", NOTES),
        ],
        &[],
    )
    .await;
    assert_eq!(status, 201, "{json}");
    json
}

/// A form with three files makes one paste whose answer and metadata list
/// them (a path is reduced to its base name); each file is read at its own
/// URL with its own bytes, type and entity tag, ranges and `304` included;
/// `/raw/{id}` and `/{id}` say where the files are.
#[tokio::test]
async fn a_form_of_several_files_makes_one_paste() {
    let server = Server::start();
    let created = three_files(&server).await;
    let id = created["id"].as_str().unwrap();
    let names: Vec<&str> = created["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a.rs", "Cargo.toml", "notes.md"]);
    assert_eq!(created["size"], RUST.len() + TOML.len() + NOTES.len());

    let (status, meta) = server.metadata(id).await;
    assert_eq!(status, 200);
    assert_eq!(meta["files"][0]["name"], "a.rs");
    assert_eq!(meta["files"][0]["lang"], "rust");
    assert_eq!(meta["files"][0]["size"], RUST.len());
    assert_eq!(meta["files"][1]["lang"], "toml");
    assert_eq!(meta["files"][2]["lang"], "markdown");

    let mut etags = Vec::new();
    for (name, bytes) in [("a.rs", RUST), ("Cargo.toml", TOML), ("notes.md", NOTES)] {
        let response = server.get(&format!("/raw/{id}/{name}")).await;
        assert_eq!(response.status(), 200, "{name}");
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert!(headers.contains_key("content-security-policy"));
        etags.push(headers["etag"].to_str().unwrap().to_owned());
        assert_eq!(response.bytes().await.unwrap(), bytes, "{name}");
    }
    etags.sort();
    etags.dedup();
    assert_eq!(etags.len(), 3, "each file has its own entity tag");

    let part = server
        .request(Method::GET, &format!("/raw/{id}/Cargo.toml"))
        .header("range", "bytes=2-8")
        .fetch()
        .await;
    assert_eq!(part.status(), 206);
    assert_eq!(
        part.headers()["content-range"],
        format!("bytes 2-8/{}", TOML.len()).as_str()
    );
    assert_eq!(part.bytes().await.unwrap(), &TOML[2..=8]);
    let etag = server.get(&format!("/raw/{id}/notes.md")).await.headers()["etag"].clone();
    let cached = server
        .request(Method::GET, &format!("/raw/{id}/notes.md"))
        .header("if-none-match", etag)
        .fetch()
        .await;
    assert_eq!(cached.status(), 304);

    assert_eq!(server.status(&format!("/raw/{id}/missing.txt")).await, 404);
    assert_eq!(server.status(&format!("/raw/{id}/..")).await, 404);
    for path in [format!("/raw/{id}"), format!("/{id}")] {
        let (status, text) = server.text(&path).await;
        assert_eq!(status, 300, "{path}");
        for name in ["a.rs", "Cargo.toml", "notes.md"] {
            assert!(text.contains(&format!("/raw/{id}/{name}\n")), "{text}");
        }
        assert!(text.contains(&format!("/download/{id}\n")), "{text}");
    }
}

/// A raw-body create and a one-file form stay one-file pastes: no `files`
/// anywhere, and `/raw/{id}` answers the bytes as always.
#[tokio::test]
async fn one_file_pastes_are_unchanged() {
    let server = Server::start();
    let created = server.create_json("just text\n", "").await;
    assert!(created.get("files").is_none(), "{created}");
    let id = created["id"].as_str().unwrap();
    assert!(server.metadata(id).await.1.get("files").is_none());
    assert_eq!(
        server.text(&format!("/raw/{id}")).await,
        (200, "just text\n".to_owned())
    );
    let (status, json) = post_form(&server, &[("one.rs", RUST)], &[]).await;
    assert_eq!(status, 201);
    assert!(json.get("files").is_none(), "{json}");
    let id = json["id"].as_str().unwrap();
    assert_eq!(server.metadata(id).await.1["name"], "one.rs");
    assert_eq!(server.status(&format!("/raw/{id}/one.rs")).await, 404);
}

/// Hostile forms are refused with a precise `400` and store nothing:
/// duplicate names (also once reduced), names with nothing usable, empty
/// files, an unnamed file among several, several files marked encrypted,
/// and more file parts than `--max-files` (refused at the part past the
/// limit, however large the rest of the form claims to be).
#[tokio::test]
async fn hostile_forms_are_refused() {
    let server = Server::start_with(&["--max-files", "3"]);
    let cases: Vec<(Files, Fields, &str)> = vec![
        (
            vec![("a.rs", RUST), ("a.rs", TOML)],
            vec![],
            "two files are named",
        ),
        (
            vec![("x/a.rs", RUST), ("y\\a.rs", TOML)],
            vec![],
            "two files are named",
        ),
        (
            vec![("a.rs", RUST), ("..", TOML)],
            vec![],
            "no usable base name",
        ),
        (
            vec![("a.rs", RUST), ("dir/\u{202E}", TOML)],
            vec![],
            "no usable base name",
        ),
        (vec![("a.rs", RUST), ("empty.txt", b"")], vec![], "is empty"),
        (
            vec![("a.rs", RUST), ("b.rs", RUST)],
            vec![("encrypted", "true")],
            "one envelope",
        ),
        (
            vec![("a", RUST), ("b", RUST), ("c", RUST), ("d", RUST)],
            vec![],
            "at most 3 files",
        ),
    ];
    for (files, fields, needle) in cases {
        let (status, json) = post_form(&server, &files, &fields).await;
        assert_eq!(status, 400, "{needle}: {json}");
        let message = json["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{needle}: {message}");
    }
    let long = "é".repeat(130);
    let (status, json) = post_form(&server, &[("a.rs", RUST), (long.as_str(), TOML)], &[]).await;
    assert_eq!(status, 400, "{json}");

    // A flood of parts is refused at the fourth, before the rest is read.
    let mut flood = Vec::new();
    for n in 0..10_000 {
        flood.extend_from_slice(
            format!("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f{n}\"\r\n\r\nx\r\n")
                .as_bytes(),
        );
    }
    flood.extend_from_slice(b"--b--\r\n");
    let response = server
        .request(Method::POST, "/")
        .header("content-type", "multipart/form-data; boundary=b")
        .body(flood)
        .fetch()
        .await;
    assert_eq!(response.status(), 400);
    assert_eq!(response.headers()["connection"], "close");
    let mut fields = Vec::new();
    for _ in 0..100 {
        fields.push(("ttl", "1h"));
    }
    let (status, json) = post_form(&server, &[("a", RUST)], &fields).await;
    assert_eq!(status, 400, "{json}");
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("option fields")
    );
}

/// `--max-paste-size` counts all the files together.
#[tokio::test]
async fn the_size_limit_counts_every_file() {
    let server = Server::start_with(&["--max-paste-size", "100"]);
    let sixty = [b'x'; 60];
    let (status, _) = post_form(&server, &[("a", &sixty[..]), ("b", &sixty[..])], &[]).await;
    assert_eq!(status, 413);
    let (status, _) = post_form(&server, &[("a", &sixty[..]), ("b", &sixty[..40])], &[]).await;
    assert_eq!(status, 201);
}

/// Reads every entry of a zip archive: (name, bytes).
fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut entries = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let name = entry.name().unwrap().into_owned();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        entries.push((name, content));
    }
    entries
}

/// `GET /download/{id}` of a several-file paste is a zip of its files, in
/// order, small ones from memory and large ones (stored apart, read as
/// sent) alike; a large file is read whole and by range at its own URL.
#[tokio::test]
async fn downloads_are_zips_of_every_file() {
    let server = Server::start();
    let created = three_files(&server).await;
    let id = created["id"].as_str().unwrap();
    let response = server.get(&format!("/download/{id}")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/zip");
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(&format!("{id}.zip"))
    );
    let entries = unzip(&response.bytes().await.unwrap());
    assert_eq!(
        entries,
        vec![
            ("a.rs".to_owned(), RUST.to_vec()),
            ("Cargo.toml".to_owned(), TOML.to_vec()),
            ("notes.md".to_owned(), NOTES.to_vec()),
        ]
    );

    let big: Vec<u8> = (0..300_000u32)
        .map(|n| b"abcdefghij\n"[(n % 11) as usize])
        .collect();
    let binary = crate::support::data::XorShift(7).bytes(100_000);
    let (status, json) = post_form(
        &server,
        &[
            ("log.txt", &big[..]),
            ("blob.bin", &binary[..]),
            ("z.md", NOTES),
        ],
        &[],
    )
    .await;
    assert_eq!(status, 201, "{json}");
    let id = json["id"].as_str().unwrap();
    let (status, bytes) =
        crate::support::http::get_bytes(&client(), &server.at(&format!("/download/{id}"))).await;
    assert_eq!(status, 200);
    let entries = unzip(&bytes);
    assert_eq!(entries[0], ("log.txt".to_owned(), big.clone()));
    assert_eq!(entries[1], ("blob.bin".to_owned(), binary.clone()));
    assert_eq!(entries[2], ("z.md".to_owned(), NOTES.to_vec()));
    let blob = server.get(&format!("/raw/{id}/blob.bin")).await;
    assert_eq!(blob.headers()["content-type"], "application/octet-stream");
    assert!(
        blob.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("blob.bin")
    );
    assert_eq!(blob.bytes().await.unwrap(), binary);
    let part = server
        .request(Method::GET, &format!("/raw/{id}/z.md"))
        .header("range", "bytes=2-")
        .fetch()
        .await;
    assert_eq!(part.status(), 206);
    assert_eq!(part.bytes().await.unwrap(), &NOTES[2..]);
    let log = server
        .request(Method::GET, &format!("/raw/{id}/log.txt"))
        .header("accept-encoding", "zstd")
        .fetch()
        .await;
    assert!(log.headers().get("content-encoding").is_none());
    assert_eq!(log.bytes().await.unwrap(), big);
}

/// Creates a burn paste of two files, `a.rs` and `notes.md`; its ID.
async fn burn_two_files(server: &Server) -> String {
    let (status, json) = post_form(
        server,
        &[("a.rs", RUST), ("notes.md", NOTES)],
        &[("burn", "true")],
    )
    .await;
    assert_eq!(status, 201, "{json}");
    json["id"].as_str().unwrap().to_owned()
}

/// A several-file burn paste is refused file by file like any burn read,
/// and one reveal gives all its files (a zip), once.
#[tokio::test]
async fn one_reveal_gives_every_file() {
    let server = Server::start();
    let id = &burn_two_files(&server).await;
    assert_eq!(server.status(&format!("/raw/{id}/a.rs")).await, 409);
    let revealed = server.reveal(id).await;
    assert_eq!(revealed.status(), 200);
    assert_eq!(revealed.headers()["content-type"], "application/zip");
    let entries = unzip(&revealed.bytes().await.unwrap());
    assert_eq!(
        entries,
        vec![
            ("a.rs".to_owned(), RUST.to_vec()),
            ("notes.md".to_owned(), NOTES.to_vec()),
        ]
    );
    assert_eq!(server.reveal(id).await.status(), 404);
}

/// `snip put a b c` makes one paste of three files; `snip get URL -o DIR`
/// writes each into DIR (a burn paste's too, revealing it once), `snip get
/// URL/NAME` prints one, and a several-file paste without either says how.
#[tokio::test]
async fn the_cli_puts_and_gets_several_files() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let client_dir = dir.path();
    let src = client_dir.join("src");
    std::fs::create_dir(&src).unwrap();
    let paths = [
        src.join("a.rs"),
        client_dir.join("Cargo.toml"),
        client_dir.join("notes.md"),
    ];
    for (path, bytes) in paths.iter().zip([RUST, TOML, NOTES]) {
        std::fs::write(path, bytes).unwrap();
    }
    let args: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let snip = |args: &[&str]| run_cli(&server, client_dir, &[], args, b"");
    let put = stdout(&snip(&[&["put"], &args[..]].concat()));
    let urls: Vec<&str> = put.lines().collect();
    assert_eq!(urls.len(), 1, "{put}");
    let url = urls[0];
    let id = url.rsplit('/').next().unwrap();
    let names: Vec<Value> = server.metadata(id).await.1["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].clone())
        .collect();
    assert_eq!(names, ["a.rs", "Cargo.toml", "notes.md"]);

    let out = client_dir.join("out");
    let written = snip(&["get", url, "-o", out.to_str().unwrap()]);
    succeeded(&written);
    let written = stdout(&written);
    assert_eq!(written.lines().count(), 3, "{written}");
    assert_eq!(std::fs::read(out.join("a.rs")).unwrap(), RUST);
    assert_eq!(std::fs::read(out.join("Cargo.toml")).unwrap(), TOML);
    assert_eq!(std::fs::read(out.join("notes.md")).unwrap(), NOTES);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 3);

    let one = snip(&["get", &format!("{url}/Cargo.toml")]);
    succeeded(&one);
    assert_eq!(one.stdout, TOML);
    let bare = snip(&["get", &format!("{id}/notes.md")]);
    succeeded(&bare);
    assert_eq!(bare.stdout, NOTES);
    let missing = failed(&snip(&["get", &format!("{url}/nope.txt")]));
    assert!(missing.contains("no file named"), "{missing}");
    let unsaid = failed(&snip(&["get", url]));
    assert!(unsaid.contains("-o DIR"), "{unsaid}");

    let burn = stdout(&snip(&[&["put", "--burn"], &args[..2]].concat()));
    let burn_out = client_dir.join("burned");
    succeeded(&snip(&[
        "get",
        burn.trim(),
        "-o",
        burn_out.to_str().unwrap(),
    ]));
    assert_eq!(std::fs::read(burn_out.join("a.rs")).unwrap(), RUST);
    let gone = failed(&snip(&[
        "get",
        burn.trim(),
        "-o",
        burn_out.to_str().unwrap(),
    ]));
    assert!(gone.contains("no such paste"), "{gone}");

    let each = stdout(&snip(&[&["put", "--each"], &args[..]].concat()));
    assert_eq!(each.lines().count(), 3, "{each}");
    let twice = failed(&snip(&["put", args[0], args[0]]));
    assert!(twice.contains("two files are named"), "{twice}");
}

/// A browser's page of a several-file paste shows each file under its own
/// heading and anchor, its own line anchors and language, its own raw and
/// download links and a link to the zip; a name with markup is escaped
/// (and percent-encoded in its links); a binary file and a file past the
/// page's bounds are not shown but linked to, a cut file says where its
/// rest is; the page never holds more than its bounds.
#[tokio::test]
async fn the_page_shows_each_file_under_its_own_heading() {
    let server = Server::start();
    let big: Vec<u8> = b"a line of a big file\n".repeat(20_000);
    let (status, json) = post_form(
        &server,
        &[
            ("a.rs", RUST),
            ("<i>&x'.txt", b"<script>alert(1)</script>\n"),
            ("blob.bin", b"\xff\xfe\x00\x01"),
            ("big.txt", &big),
            ("after.md", NOTES),
        ],
        &[],
    )
    .await;
    assert_eq!(status, 201, "{json}");
    let id = json["id"].as_str().unwrap();
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.len() < 2 << 20, "{} bytes", html.len());
    assert!(html.matches("<span class=\"line\"").count() <= 10_000);

    assert!(html.contains(&format!("href=\"/download/{id}\">Download all (zip)</a>")));
    assert!(
        html.contains(r#"<section class="file" id="file-a.rs""#),
        "{html}"
    );
    assert!(
        html.contains(r##"<h2 class="title" id="file-a.rs-h"><a href="#file-a.rs">a.rs</a></h2>"##)
    );
    assert!(html.contains(r#"data-lang="rust""#));
    assert!(html.contains(
        r##"<span class="line" id="file-a.rs-L2"><a class="ln" href="#file-a.rs-L2">2</a>"##
    ));
    assert!(html.contains(&format!("href=\"/raw/{id}/a.rs\">Raw</a>")));
    assert!(html.contains(&format!(
        "href=\"/raw/{id}/a.rs\" download=\"a.rs\">Download</a>"
    )));

    // Markup in a name or a file is text, never markup.
    assert!(!html.contains("<i>&x"), "{html}");
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(html.contains("&#60;script&#62;alert(1)&#60;/script&#62;"));
    assert!(html.contains(r#"<section class="file" id="file-&#60;i&#62;&#38;x&#39;.txt""#));
    assert!(html.contains(r#"<span class="line" id="file-&#60;i&#62;&#38;x&#39;.txt-L1">"#));
    assert!(html.contains(&format!("href=\"/raw/{id}/%3Ci%3E%26x%27.txt\">Raw</a>")));
    let escaped = server.get(&format!("/raw/{id}/%3Ci%3E%26x%27.txt")).await;
    assert_eq!(escaped.status(), 200);

    // Not text, cut, or past the page's end: linked to.
    assert!(html.contains(&format!(
        "is not shown here; read it at: <a href=\"/raw/{id}/blob.bin\">"
    )));
    assert!(
        html.contains(&format!(
            "of this file only; the whole file (410.2 KiB) is at: <a href=\"/raw/{id}/big.txt\">"
        )),
        "{html}"
    );
    assert!(html.contains(r#"id="file-after.md""#));
    assert!(html.contains(&format!(
        "is not shown here; read it at: <a href=\"/raw/{id}/after.md\">"
    )));
}

/// A several-file burn paste revealed by a browser's form (no script) is
/// shown as its files, once, with no links to the files it no longer has.
#[tokio::test]
async fn a_revealed_burn_page_shows_the_files() {
    let server = Server::start();
    let id = &burn_two_files(&server).await;
    let revealed = server
        .request(Method::POST, &format!("/{id}/reveal"))
        .header("accept", "text/html")
        .fetch()
        .await;
    assert_eq!(revealed.status(), 200);
    let html = revealed.text().await.unwrap();
    assert!(html.contains(r#"id="file-a.rs""#), "{html}");
    assert!(html.contains(r#"id="file-notes.md-L3""#), "{html}");
    assert!(!html.contains(&format!("/raw/{id}/")), "{html}");
    assert!(
        !html.contains(&format!("/download/{id}\">Download all")),
        "{html}"
    );
    assert_eq!(server.reveal(id).await.status(), 404);
}
