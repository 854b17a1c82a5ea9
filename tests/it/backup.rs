//! Backup, restore and migration through the `snip` CLI and real servers:
//! every paste comes back byte for byte with its metadata, delete token and
//! owner, on either backend and across them; damaged dumps change nothing.

use std::path::{Path, PathBuf};
use std::process::Output;

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::{
    Fetch, Server,
    cli::{failed, run_cli, stderr, succeeded},
    client,
    data::XorShift,
    ports::NOWHERE,
    postgres::{database_url, drop_schema, fresh_schema, on_postgres, skip_unless_postgres},
    tenants::{ADMIN, create_as, request, start, tenant},
};

/// A store to restore into: an empty data dir, or an empty PostgreSQL schema.
struct Target {
    args: Vec<String>,
    schema: Option<String>,
    _tmp: tempfile::TempDir,
}

impl Target {
    fn embedded() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        Self {
            args: vec![format!("--store={}", tmp.path().join("data").display())],
            schema: None,
            _tmp: tmp,
        }
    }

    fn postgres() -> Self {
        let schema = fresh_schema();
        Self {
            args: vec![
                format!("--store={}", database_url()),
                format!("--store-schema={schema}"),
            ],
            schema: Some(schema),
            _tmp: tempfile::tempdir().unwrap(),
        }
    }

    /// An empty store of the backend under test.
    fn same_backend() -> Self {
        if on_postgres() {
            Self::postgres()
        } else {
            Self::embedded()
        }
    }

    fn args(&self) -> Vec<&str> {
        self.args.iter().map(String::as_str).collect()
    }

    /// Starts a server on this store.
    fn serve(&self) -> Server {
        let admin = format!("--admin-token={ADMIN}");
        let mut args = self.args();
        args.push(&admin);
        args.push("--ip-rate=off");
        Server::start_with_store(&args)
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(schema) = &self.schema {
            drop_schema(&database_url(), schema);
        }
    }
}

/// What the source server holds, to compare a restored store against.
struct Fixture {
    server: Server,
    /// The tenant's token.
    secret: String,
    /// (ID, delete token, body) of every paste; burn pastes have a body too.
    pastes: Vec<(String, String, Vec<u8>)>,
    burn: String,
    /// An encrypted burn paste read only with a proof of key: (ID, proof, envelope).
    proved: (String, String, Vec<u8>),
    /// A text paste the store keeps compressed.
    text: String,
    /// A paste of two files, `a.rs` and `b.md`.
    bundle: String,
}

/// A body the stores keep compressed: a few KiB of log lines.
fn log_lines() -> Vec<u8> {
    (0..60)
        .map(|n| {
            format!(
                "2026-11-25T22:{:02}:00Z INFO request {n} served in {}ms\n",
                n % 60,
                n * 7 % 50
            )
        })
        .collect::<String>()
        .into_bytes()
}

/// Creates an encrypted burn paste with a verifier (a password, so its salt
/// and iterations are public metadata too); returns (ID, proof, envelope).
async fn create_proved(server: &Server) -> (String, String, Vec<u8>) {
    use snip::core::envelope::{self, FinalKey, Header, Key, Meta};
    let key = Key::generate().unwrap();
    let sealed = envelope::seal_with(
        b"proved",
        &Meta::default(),
        &key,
        Some("pw"),
        [5; 16],
        [6; 12],
        1000,
    )
    .unwrap();
    let proof = FinalKey::for_header(&key, Some("pw"), &Header::parse(&sealed).unwrap()).proof();
    let verifier: String = {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(proof.verifier())
    };
    let json = crate::support::http::create_json(
        &client(),
        &server.url,
        sealed.clone(),
        &format!("encrypted=true&burn=true&verifier={verifier}"),
    )
    .await;
    (
        json["id"].as_str().unwrap().to_owned(),
        proof.to_text(),
        sealed,
    )
}

/// A server with a tenant and pastes of every kind: text, 1 MiB binary, a burn
/// paste, a private tenant paste with a name and a TTL, a short link.
async fn fixture() -> Fixture {
    let server = start(&[]);
    let secret = tenant(
        &server,
        "team",
        json!({ "max_bytes": 10_000_000, "rate": "100/s" }),
    )
    .await;
    let mut pastes = Vec::new();
    let mut add = |json: Value, body: &[u8]| {
        pastes.push((
            json["id"].as_str().unwrap().to_owned(),
            json["delete_token"].as_str().unwrap_or_default().to_owned(),
            body.to_vec(),
        ));
    };
    let http = client();
    add(
        crate::support::http::create_json(&http, &server.url, "plain text\n", "lang=rust").await,
        b"plain text\n",
    );
    let binary = XorShift(42).bytes(1 << 20);
    add(
        crate::support::http::create_json(&http, &server.url, binary.clone(), "ttl=1d").await,
        &binary,
    );
    let burn = crate::support::http::create_json(&http, &server.url, "burn me", "burn=true").await;
    let burn_id = burn["id"].as_str().unwrap().to_owned();
    add(burn, b"burn me");
    let private = request(
        &server,
        Method::POST,
        "/?visibility=private&name=notes.txt&ttl=1h",
        Some(&secret),
    )
    .body("tenant secret")
    .fetch()
    .await;
    assert_eq!(private.status(), 201);
    add(private.json().await.unwrap(), b"tenant secret");
    let link = create_as(&server, None, "", "url=https://example.com/x").await;
    pastes.push((link, String::new(), Vec::new()));
    let proved = create_proved(&server).await;
    pastes.push((proved.0.clone(), String::new(), proved.2.clone()));
    let (text, _) = server.create(log_lines(), "").await;
    pastes.push((text.clone(), String::new(), log_lines()));
    let bundle = crate::files::two_files(&server).await;
    pastes.push((bundle.clone(), String::new(), Vec::new()));
    crate::programs::set_program(
        &server,
        "team",
        crate::programs::example("refuse_credentials"),
    )
    .await;
    Fixture {
        server,
        secret,
        pastes,
        burn: burn_id,
        proved,
        text,
        bundle,
    }
}

/// Metadata of every paste (as the tenant, who may see them all).
async fn metadata(server: &Server, fixture: &Fixture) -> Vec<Value> {
    let mut out = Vec::new();
    for (id, _, _) in &fixture.pastes {
        let response = request(
            server,
            Method::GET,
            &format!("/api/pastes/{id}"),
            Some(&fixture.secret),
        )
        .fetch()
        .await;
        assert_eq!(response.status(), 200, "metadata of {id}");
        out.push(response.json().await.unwrap());
    }
    out
}

/// Checks that `restored` holds exactly what the fixture's server does.
async fn assert_same(restored: &Server, fixture: &Fixture) {
    assert_eq!(
        metadata(restored, fixture).await,
        metadata(&fixture.server, fixture).await
    );
    for (id, _, body) in &fixture.pastes {
        if *id == fixture.burn || *id == fixture.proved.0 || body.is_empty() {
            continue;
        }
        let raw = request(
            restored,
            Method::GET,
            &format!("/raw/{id}"),
            Some(&fixture.secret),
        )
        .fetch()
        .await;
        assert_eq!(raw.status(), 200, "{id}");
        assert_eq!(&raw.bytes().await.unwrap()[..], &body[..], "body of {id}");
    }
    let reveal = restored
        .request(Method::POST, &format!("/{}/reveal", fixture.burn))
        .fetch()
        .await;
    assert_eq!(&reveal.bytes().await.unwrap()[..], b"burn me");
    // The verifier came along: a wrong proof is refused, the right one reveals.
    let (id, proof, sealed) = &fixture.proved;
    let reveal_with = |proof: String| {
        restored
            .request(Method::POST, &format!("/{id}/reveal"))
            .header("x-snip-proof", proof)
            .fetch()
    };
    let wrong = reveal_with("A".repeat(43)).await;
    assert_eq!(wrong.status(), 403);
    let right = reveal_with(proof.clone()).await;
    assert_eq!(right.status(), 200);
    assert_eq!(&right.bytes().await.unwrap()[..], &sealed[..]);
    // The compressed body came along compressed.
    let zstd = restored
        .request(Method::GET, &format!("/raw/{}", fixture.text))
        .header("accept-encoding", "zstd")
        .fetch()
        .await;
    assert_eq!(zstd.headers()["content-encoding"], "zstd");
    let stream = zstd.bytes().await.unwrap();
    assert_eq!(zstd::decode_all(&stream[..]).unwrap(), log_lines());
    // The file table came along: each file is read at its own URL.
    let (status, text) = restored
        .text(&format!("/raw/{}/b.md", fixture.bundle))
        .await;
    assert_eq!((status, text.as_str()), (200, "# B\n"));
    let link = &fixture.pastes[4].0;
    let redirect = restored.get(&format!("/{link}")).await;
    assert_eq!(redirect.headers()["location"], "https://example.com/x");
    // The delete token (stored as a hash) and the tenant token still work.
    let (id, token, _) = &fixture.pastes[0];
    let deleted = restored.delete(&format!("/{id}"), Some(token)).await;
    assert_eq!(deleted.status(), 204);
    let listed = request(restored, Method::GET, "/api/pastes", Some(&fixture.secret))
        .fetch()
        .await;
    assert_eq!(listed.status(), 200);
    let usage = crate::support::tenants::admin(restored, Method::GET, "/api/admin/tenants", None)
        .await
        .1;
    assert!(usage.to_string().contains("\"pastes\":1"), "{usage}");
    // The tenant's program came along, and runs.
    let program = "/api/admin/tenants/team/program";
    let (status, restored_program) =
        crate::support::tenants::admin(restored, Method::GET, program, None).await;
    let (_, original) =
        crate::support::tenants::admin(&fixture.server, Method::GET, program, None).await;
    assert_eq!((status, restored_program), (200, original));
    let (status, answer) = crate::support::tenants::try_create(
        restored,
        Some(&fixture.secret),
        "AKIAIOSFODNN7EXAMPLE",
        "",
    )
    .await;
    assert_eq!(status, 422, "{answer}");
}

fn snip(server: &Server, dir: &Path, args: &[&str]) -> Output {
    run_cli(server, dir, &[("SNIP_ADMIN_TOKEN", ADMIN)], args, b"")
}

/// Backs the fixture's server up online through the admin API; returns the dump's path.
fn backup_online(fixture: &Fixture, dir: &Path) -> PathBuf {
    let dump = dir.join("snip.snipdump");
    let said = succeeded(&snip(
        &fixture.server,
        dir,
        &["backup", "--out", dump.to_str().unwrap()],
    ));
    assert!(said.contains("backed up 8 pastes"), "{said}");
    assert!(!dir.join("snip.snipdump.partial").exists());
    dump
}

fn restore(server: &Server, dir: &Path, dump: &Path, target: &Target) -> Output {
    let mut args = vec!["restore", dump.to_str().unwrap()];
    args.extend(target.args());
    snip(server, dir, &args)
}

/// An online backup of a serving store, restored into an empty store of the same backend, reproduces every paste, tenant and token.
#[tokio::test]
async fn backup_then_restore_reproduces_everything() {
    let fixture = fixture().await;
    let dir = tempfile::tempdir().unwrap();
    let dump = backup_online(&fixture, dir.path());
    let target = Target::same_backend();
    let said = succeeded(&restore(&fixture.server, dir.path(), &dump, &target));
    assert!(said.contains("restored 8 pastes"), "{said}");
    assert_same(&target.serve(), &fixture).await;
}

/// Truncated, corrupted and foreign dumps are refused with a clear message and leave the target empty; restoring twice is refused as a conflict.
#[tokio::test]
async fn damaged_dumps_change_nothing() {
    let fixture = fixture().await;
    let dir = tempfile::tempdir().unwrap();
    let dump = backup_online(&fixture, dir.path());
    let bytes = std::fs::read(&dump).unwrap();
    let target = Target::same_backend();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("truncated", bytes[..bytes.len() / 2].to_vec(), "truncated"),
        (
            "flipped",
            {
                let mut bad = bytes.clone();
                let at = bad.len() - 100_000;
                bad[at] ^= 1;
                bad
            },
            "corrupt",
        ),
        (
            "foreign",
            b"PK\x03\x04 this is a zip file".to_vec(),
            "not a snip dump",
        ),
    ];
    for (name, content, expected) in cases {
        let path = dir.path().join(format!("{name}.snipdump"));
        std::fs::write(&path, content).unwrap();
        let said = failed(&restore(&fixture.server, dir.path(), &path, &target));
        assert!(said.contains(expected), "{name}: {said}");
    }
    succeeded(&restore(&fixture.server, dir.path(), &dump, &target));
    let said = failed(&restore(&fixture.server, dir.path(), &dump, &target));
    assert!(said.contains("already has"), "{said}");
    // The refused restores left nothing behind: the one good restore is intact.
    assert_same(&target.serve(), &fixture).await;
}

/// A dump of the embedded store restores into PostgreSQL, and `snip migrate` copies PostgreSQL back into an embedded data dir, byte for byte.
#[tokio::test]
async fn across_backends() {
    if skip_unless_postgres("cross-backend tests run with SNIP_TEST_STORE=postgres") {
        return;
    }
    // The fixture runs on PostgreSQL here; put an embedded copy in front of it.
    let fixture = fixture().await;
    let dir = tempfile::tempdir().unwrap();
    let dump = backup_online(&fixture, dir.path());
    let embedded = Target::embedded();
    succeeded(&restore(&fixture.server, dir.path(), &dump, &embedded));
    // Embedded -> PostgreSQL, through a dump read directly from the (stopped) data dir.
    let direct = dir.path().join("direct.snipdump");
    let mut args = vec!["backup", "--out", direct.to_str().unwrap()];
    args.extend(embedded.args());
    succeeded(&snip(&fixture.server, dir.path(), &args));
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&direct).unwrap().permissions());
    assert_eq!(
        mode & 0o777,
        0o600,
        "a dump read directly from a store is private too"
    );
    let postgres = Target::postgres();
    succeeded(&restore(&fixture.server, dir.path(), &direct, &postgres));
    // PostgreSQL -> embedded, with migrate.
    let back = Target::embedded();
    let from = postgres.args[0].trim_start_matches("--store=").to_owned();
    let schema = postgres.schema.clone().unwrap();
    let to = back.args[0].trim_start_matches("--store=").to_owned();
    let said = succeeded(&snip(
        &fixture.server,
        dir.path(),
        &[
            "migrate",
            "--from",
            &from,
            "--from-schema",
            &schema,
            "--to",
            &to,
        ],
    ));
    assert!(said.contains("copied 8 pastes"), "{said}");
    assert_same(&postgres.serve(), &fixture).await;
    assert_same(&back.serve(), &fixture).await;
}

/// A dump holds every private paste and token hash: it is written 0600,
/// whatever the umask, even over a partial file left open to all.
#[tokio::test]
async fn backups_are_readable_by_their_owner_alone() {
    use std::os::unix::fs::PermissionsExt;
    let fixture = fixture().await;
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join("snip.snipdump.partial");
    std::fs::write(&stale, b"an interrupted backup").unwrap();
    std::fs::set_permissions(&stale, std::fs::Permissions::from_mode(0o644)).unwrap();
    let dump = backup_online(&fixture, dir.path());
    let mode = std::fs::metadata(&dump).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{}", dump.display());
}

/// The backup route needs the admin token, and restore needs a target.
#[tokio::test]
async fn backup_needs_admin_and_restore_needs_a_store() {
    let server = start(&[]);
    let anonymous = server.status("/api/admin/backup").await;
    assert_eq!(anonymous, 401);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.snipdump");
    let said = failed(&run_cli(
        &server,
        dir.path(),
        &[],
        &["backup", "--out", out.to_str().unwrap()],
        b"",
    ));
    assert!(said.contains("no admin token"), "{said}");
    assert!(!out.exists());
    let said = failed(&snip(
        &server,
        dir.path(),
        &["restore", out.to_str().unwrap()],
    ));
    assert!(said.contains("needs --store"), "{said}");
}

/// A bad schema name, the same store on both sides of a migration, and an unreachable database are refused with one clear line.
#[tokio::test]
async fn store_arguments_are_checked() {
    let server = start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let bad = run_cli(
        &server,
        dir.path(),
        &[],
        &["serve", "--store-schema", "Robert'); DROP"],
        b"",
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("is not a schema name"));
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let said = failed(&snip(
        &server,
        dir.path(),
        &["migrate", "--from", data, "--to", data],
    ));
    assert!(said.contains("the same store"), "{said}");
    let nowhere = format!("--store=postgres://postgres@127.0.0.1:{NOWHERE}/x");
    let out = dir.path().join("x.snipdump");
    let said = failed(&snip(
        &server,
        dir.path(),
        &[
            "backup",
            "--out",
            out.to_str().unwrap(),
            &nowhere,
            "--store-timeout=2s",
        ],
    ));
    assert!(said.contains("cannot open the store postgres://"), "{said}");
    assert!(said.contains("unavailable"), "{said}");
    assert!(!out.exists());
}
