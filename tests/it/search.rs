//! Searching a tenant's pastes (`GET /api/pastes?q=…`, the search box of
//! "My pastes", `snip list -q`) against a real server, on either store:
//! what matches, the ranking, paging, isolation between tenants, what is
//! never searchable, removals, the embedded index rebuilt, and every refusal.

use reqwest::Method;
use serde_json::{Value, json};

use crate::files::form;
use crate::support::cli::run_cli;
use crate::support::postgres::database_url;
use crate::support::tenants::{create_as, ids, list, request, start, tenant};
use crate::support::wait::eventually;
use crate::support::{Fetch, Server};

/// The IDs a search for `q` (URL-encoded here) finds as `token`, best first.
async fn search(server: &Server, token: &str, q: &str) -> Vec<String> {
    ids(&search_page(server, token, q, "").await)
}

/// A page of a search for `q` with `extra` query parameters.
async fn search_page(server: &Server, token: &str, q: &str, extra: &str) -> Value {
    let q: String = form_urlencoded::byte_serialize(q.as_bytes()).collect();
    list(server, token, &format!("q={q}{extra}")).await
}

/// The status and body of `GET /api/pastes?QUERY` as `token`.
async fn refused(server: &Server, token: Option<&str>, query: &str) -> (u16, String) {
    let response = request(server, Method::GET, &format!("/api/pastes?{query}"), token)
        .fetch()
        .await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// A paste is found by a word of its text, its name or its language, with
/// every word of the query needed, case and punctuation aside; a paste of
/// several files by its files' names and text.
#[tokio::test]
async fn finds_by_content_name_and_language() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let log = create_as(
        &server,
        Some(&team),
        "Deploy of build 42 FAILED: connection refused by db.example.com\n",
        "name=deploy.log",
    )
    .await;
    let script = create_as(
        &server,
        Some(&team),
        "print('hello')\n",
        "name=hello.py&lang=python",
    )
    .await;
    let (content_type, body) = form(
        &[
            ("main.rs", b"fn main() { launch_rocket(); }\n"),
            ("NOTES.md", b"# Liftoff\n"),
        ],
        &[],
    );
    let response = request(&server, Method::POST, "/", Some(&team))
        .header("content-type", content_type)
        .body(body)
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let files: Value = response.json().await.unwrap();
    let files = files["id"].as_str().unwrap().to_owned();

    assert_eq!(search(&server, &team, "refused").await, [log.as_str()]);
    assert_eq!(
        search(&server, &team, "CONNECTION failed").await,
        [log.as_str()]
    );
    assert_eq!(
        search(&server, &team, "example").await,
        [log.as_str()],
        "a host name's parts are words"
    );
    assert_eq!(search(&server, &team, "deploy.log").await, [log.as_str()]);
    assert_eq!(search(&server, &team, "python").await, [script.as_str()]);
    assert_eq!(search(&server, &team, "hello").await, [script.as_str()]);
    assert_eq!(
        search(&server, &team, "launch_rocket").await,
        [files.as_str()]
    );
    assert_eq!(
        search(&server, &team, "liftoff notes").await,
        [files.as_str()]
    );
    assert!(
        search(&server, &team, "refused hello").await.is_empty(),
        "every word is needed"
    );
    assert!(search(&server, &team, "nowhere").await.is_empty());
    let page = search_page(&server, &team, "refused", "").await;
    assert_eq!(page["pastes"][0]["name"], "deploy.log");
    assert!(page["next_cursor"].is_null());
}

/// A word in a paste's name ranks it above pastes that only hold the word
/// in their text; results page by cursor, each paste once.
#[tokio::test]
async fn ranks_names_first_and_pages() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let mut texts = Vec::new();
    for n in 0..5 {
        let body = format!("line {n}: the invoice was sent\n");
        texts.push(create_as(&server, Some(&team), body, &format!("name=log{n}.txt")).await);
    }
    let named = create_as(&server, Some(&team), "totals only\n", "name=invoice.csv").await;
    let found = search(&server, &team, "invoice").await;
    assert_eq!(found.len(), 6, "{found:?}");
    assert_eq!(found[0], named, "the name's match comes first");

    let mut seen = Vec::new();
    let mut extra = "&limit=2".to_owned();
    for _ in 0..10 {
        let page = search_page(&server, &team, "invoice", &extra).await;
        let page_ids = ids(&page);
        assert!(page_ids.len() <= 2);
        seen.extend(page_ids);
        match page["next_cursor"].as_str() {
            Some(next) => extra = format!("&limit=2&cursor={next}"),
            None => break,
        }
    }
    assert_eq!(seen, found, "the pages together are the ranking");
}

/// Another tenant's pastes never appear, whatever it searches; nor do
/// anonymous pastes.
#[tokio::test]
async fn a_search_stays_within_the_tenant() {
    let server = start(&[]);
    let a = tenant(&server, "alpha", json!({})).await;
    let b = tenant(&server, "beta", json!({})).await;
    let mine = create_as(&server, Some(&a), "quarterly secret plan", "name=plan.txt").await;
    let theirs = create_as(
        &server,
        Some(&b),
        "quarterly secret plan",
        "name=plan.txt&visibility=private",
    )
    .await;
    create_as(&server, None, "quarterly secret plan", "name=plan.txt").await;
    assert_eq!(search(&server, &a, "quarterly plan").await, [mine.as_str()]);
    assert_eq!(
        search(&server, &b, "quarterly plan").await,
        [theirs.as_str()]
    );
    // The tenant's name is not a word of its pastes.
    assert!(search(&server, &a, "beta").await.is_empty());
}

/// An encrypted paste is found by its name and language, never by its
/// content; a burn paste likewise, and once revealed not at all.
#[tokio::test]
async fn encrypted_and_burn_content_is_never_searched() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let sealed = create_as(
        &server,
        Some(&team),
        "ciphertext looks like words sometimes",
        "encrypted=true&name=vault.txt&lang=yaml",
    )
    .await;
    let burn = create_as(
        &server,
        Some(&team),
        "launch codes inside",
        "burn=true&name=once.txt",
    )
    .await;
    assert!(search(&server, &team, "ciphertext").await.is_empty());
    assert_eq!(search(&server, &team, "vault").await, [sealed.as_str()]);
    assert_eq!(search(&server, &team, "yaml").await, [sealed]);
    assert!(search(&server, &team, "launch codes").await.is_empty());
    assert_eq!(search(&server, &team, "once").await, [burn.as_str()]);
    let revealed = server
        .request(Method::POST, &format!("/{burn}/reveal"))
        .fetch()
        .await;
    assert_eq!(revealed.status(), 200);
    assert!(search(&server, &team, "once").await.is_empty());
}

/// Deleted and expired pastes disappear from results: expired at once,
/// before any sweep, and still gone after the sweeper removed them.
#[tokio::test]
async fn removed_pastes_disappear() {
    let server = start(&["--sweep-interval=1s"]);
    let team = tenant(&server, "team", json!({})).await;
    let kept = create_as(&server, Some(&team), "harbour report", "name=kept.txt").await;
    let deleted = create_as(&server, Some(&team), "harbour report", "name=gone.txt").await;
    let expiring = create_as(
        &server,
        Some(&team),
        "harbour report",
        "name=brief.txt&ttl=1",
    )
    .await;
    let found = search(&server, &team, "harbour").await;
    assert_eq!(found.len(), 3);
    assert!(found.contains(&expiring), "{found:?}");
    let response = request(&server, Method::DELETE, &format!("/{deleted}"), Some(&team))
        .fetch()
        .await;
    assert_eq!(response.status(), 204);
    let found = search(&server, &team, "harbour").await;
    assert!(!found.contains(&deleted), "{found:?}");
    assert!(
        eventually(|| async { search(&server, &team, "harbour").await == [kept.as_str()] }).await,
        "the expired paste still appears"
    );
    assert!(
        eventually(|| async { server.swept_count() >= 1 }).await,
        "the sweeper never removed the expired paste"
    );
    assert_eq!(search(&server, &team, "harbour").await, [kept]);
}

/// The index, deleted while the server is stopped, is rebuilt from the
/// store at the next start and finds what it found: the embedded store's
/// directory, or on PostgreSQL every row's vector; on the embedded store
/// also after `kill -9`.
#[tokio::test]
async fn the_index_is_rebuilt_when_missing() {
    let mut server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let first = create_as(&server, Some(&team), "orchard apples", "name=a.txt").await;
    let second = create_as(&server, Some(&team), "orchard pears", "name=b.txt").await;
    assert!(server.terminate());
    match server.schema() {
        Some(schema) => clear_vectors(schema).await,
        None => {
            let index = server.data_dir.join("search");
            assert!(
                index.join("clean").exists(),
                "a clean close marks the index clean"
            );
            std::fs::remove_dir_all(&index).unwrap();
        }
    }
    server.restart();
    let mut found = search(&server, &team, "orchard").await;
    found.sort();
    let mut expected = vec![first.clone(), second];
    expected.sort();
    assert_eq!(found, expected);
    assert_eq!(search(&server, &team, "apples").await, [first.as_str()]);
    if server.schema().is_none() {
        // After kill -9 (no clean mark) it is rebuilt too.
        server.kill9();
        server.restart();
        assert_eq!(search(&server, &team, "apples").await, [first]);
    }
}

/// An embedded index left by a version with another layout (its clean mark
/// does not name this one's) is rebuilt, not opened: here its files are
/// gone too, so an index opened as it is would find nothing.
#[tokio::test]
async fn an_index_of_another_layout_is_rebuilt() {
    let mut server = start(&[]);
    if server.schema().is_some() {
        return;
    }
    let team = tenant(&server, "team", json!({})).await;
    let kept = create_as(&server, Some(&team), "walnut grove", "name=w.txt").await;
    assert!(server.terminate());
    let index = server.data_dir.join("search");
    for entry in std::fs::read_dir(&index).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    // What earlier layouts' clean closes left: an empty mark.
    std::fs::write(index.join("clean"), b"").unwrap();
    server.restart();
    assert_eq!(search(&server, &team, "walnut").await, [kept]);
}

/// PostgreSQL: a database at schema version 10, which kept a paste's vector
/// in `pastes.search`, is brought to 11 at start, its vectors moved to
/// `paste_search`: a paste's vector is moved as it was, one stored before
/// search (no vector) is filled in at start, and an anonymous paste gets
/// no row.
#[tokio::test]
async fn a_version_10_database_keeps_its_vectors() {
    let mut server = start(&[]);
    let Some(schema) = server.schema().map(str::to_owned) else {
        return;
    };
    let team = tenant(&server, "team", json!({})).await;
    let indexed = create_as(&server, Some(&team), "meadow larks", "name=a.txt").await;
    let unfilled = create_as(&server, Some(&team), "meadow wrens", "name=b.txt").await;
    create_as(&server, None, "meadow owls", "").await;
    assert!(server.terminate());
    let client = connect().await;
    // Migration 11 undone by hand: what version 10 held, with a word in
    // one vector that is not in its paste, which only a moved vector has.
    client
        .batch_execute(&format!(
            "SET search_path = \"{schema}\";
             ALTER TABLE pastes ADD COLUMN search tsvector;
             UPDATE pastes SET search = paste_search.words || to_tsvector('simple', 'kestrel')
                FROM paste_search
                WHERE paste_search.id = pastes.id AND pastes.id <> '{unfilled}';
             DROP TABLE paste_search;
             CREATE INDEX pastes_search ON pastes USING gin (search);
             CREATE INDEX pastes_unsearched ON pastes (id)
                WHERE owner IS NOT NULL AND search IS NULL;
             DELETE FROM snip_migrations WHERE version = 11;"
        ))
        .await
        .unwrap();
    server.restart();
    let mut found = search(&server, &team, "meadow").await;
    found.sort();
    let mut expected = vec![indexed.clone(), unfilled];
    expected.sort();
    assert_eq!(found, expected);
    assert_eq!(search(&server, &team, "kestrel").await, [indexed]);
    let rows: i64 = client
        .query_one(
            &format!("SELECT count(*) FROM \"{schema}\".paste_search"),
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 2, "one row per paste with an owner");
}

/// A connection to the test database.
async fn connect() -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(&database_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

/// Empties the search vector of every paste in `schema`, as a database
/// from before search has it.
async fn clear_vectors(schema: &str) {
    let client = connect().await;
    let cleared = client
        .execute(
            &format!("UPDATE \"{schema}\".paste_search SET words = NULL"),
            &[],
        )
        .await
        .unwrap();
    assert_eq!(cleared, 2);
}

/// Without a tenant a search is `401`; a query that is too long, has no
/// word, too many words, a control character, or comes with a name prefix
/// or a cursor no search handed out is `400`, naming what is wrong.
#[tokio::test]
async fn refusals() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    create_as(&server, Some(&team), "words", "").await;
    let (status, _) = refused(&server, None, "q=words").await;
    assert_eq!(status, 401);
    let (status, _) = refused(&server, Some("snip_wrong"), "q=words").await;
    assert_eq!(status, 401);
    let long = "a".repeat(256);
    let many: Vec<String> = (0..17).map(|n| format!("w{n}")).collect();
    let many = many.join("+");
    for (query, says) in [
        (format!("q={long}"), "255 bytes"),
        ("q=%20%21%2D".to_owned(), "at least one word"),
        (format!("q={many}"), "16 words"),
        ("q=a%00b".to_owned(), "control"),
        ("q=a%E2%80%AEb".to_owned(), "control"),
        ("q=words&name_prefix=w".to_owned(), "cannot be combined"),
        ("q=words&cursor=r0".to_owned(), "cursor"),
        ("q=words&cursor=ffffffffffffffef".to_owned(), "cursor"),
        ("q=words&limit=0".to_owned(), "limit"),
    ] {
        let (status, body) = refused(&server, Some(&team), &query).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(says), "{query}: {body}");
    }
}

/// `snip list -q` prints the matching pastes, best first.
#[tokio::test]
async fn the_cli_searches() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let hit = create_as(
        &server,
        Some(&team),
        "kernel panic at boot",
        "name=boot.log",
    )
    .await;
    create_as(&server, Some(&team), "all quiet", "name=calm.log").await;
    let dir = tempfile::tempdir().unwrap();
    let output = run_cli(
        &server,
        dir.path(),
        &[("SNIP_TOKEN", &team)],
        &["list", "-q", "Kernel PANIC"],
        b"",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 1, "{printed}");
    // ID, size, creation time, name, author (none: a token's paste).
    let fields: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(fields[0], hit, "{printed}");
    assert_eq!(fields[3..], ["boot.log", "-"], "{printed}");
}
