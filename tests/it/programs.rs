//! Tenant programs against a real server: the admin API that sets, shows
//! and clears a tenant's WebAssembly module, and the module run on every
//! create of that tenant (raw body, form, the CLI), refusing, replacing or
//! failing closed under its limits. Modules are compiled from WebAssembly
//! text here: the shipped examples (`examples/programs/`) and misbehaving
//! ones. Runs on either store.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{
    Fetch, Server,
    cli::{failed, run_cli, stdout, succeeded},
    tenants::{ADMIN, admin, create_as, start, tenant, try_create, update},
};

/// An example program, compiled from its text.
pub fn example(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/examples/programs/{name}.wat",
        env!("CARGO_MANIFEST_DIR")
    );
    wat::parse_file(&path).expect("an example compiles from text")
}

/// A program whose `check` is `body`, with the ABI's other exports; its
/// output is the three bytes "out".
fn with_check(body: &str) -> Vec<u8> {
    wat::parse_str(format!(
        r#"(module
          (memory (export "memory") 1)
          (data (i32.const 16) "out")
          (func (export "alloc") (param i32) (result i32) (i32.const 1024))
          (func (export "output_ptr") (result i32) (i32.const 16))
          (func (export "output_len") (result i32) (i32.const 3))
          (func (export "check") (param i32 i32 i32 i32) (result i32) {body}))"#
    ))
    .expect("test module compiles")
}

/// `PUT`s `module` as `name`'s program; returns the status and answer.
pub async fn put_program(server: &Server, name: &str, module: Vec<u8>) -> (u16, Value) {
    let response = server
        .request(Method::PUT, &format!("/api/admin/tenants/{name}/program"))
        .bearer_auth(ADMIN)
        .header("content-type", "application/wasm")
        .header("accept", "application/json")
        .body(module)
        .fetch()
        .await;
    let status = response.status().as_u16();
    (status, crate::support::http::json_or_text(response).await)
}

/// Sets `module` as `name`'s program, which must succeed.
pub async fn set_program(server: &Server, name: &str, module: Vec<u8>) -> Value {
    let (status, answer) = put_program(server, name, module).await;
    assert_eq!(status, 200, "program set: {answer}");
    answer
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `PUT` sets a module, `GET` shows its size, SHA-256 and time, `DELETE`
/// removes it; modules that are not programs are refused with `400` and
/// the reason, and nothing changes.
#[tokio::test]
async fn admin_api_sets_shows_and_clears() {
    let server = start(&[]);
    tenant(&server, "team", json!({})).await;
    let path = "/api/admin/tenants/team/program";
    let (status, answer) = admin(&server, Method::GET, path, None).await;
    assert_eq!(status, 404);
    assert!(answer.to_string().contains("has no program"), "{answer}");

    let module = example("refuse_credentials");
    let set = set_program(&server, "team", module.clone()).await;
    assert_eq!(set["size"], module.len());
    assert_eq!(set["sha256"], sha256_hex(&module));
    assert_eq!(set["fuel"], 500_000_000);
    assert_eq!(set["memory"], 64 << 20);
    let (status, shown) = admin(&server, Method::GET, path, None).await;
    assert_eq!((status, &shown), (200, &set));
    assert!(shown["set_at"].as_str().unwrap().ends_with('Z'));

    for (bad, reason) in [
        (b"not wasm".to_vec(), "does not compile"),
        (
            wat::parse_str(r#"(module (import "env" "now" (func)) (memory (export "memory") 1))"#)
                .unwrap(),
            "`env.now`; programs get no imports",
        ),
        (
            wat::parse_str(r#"(module (memory (export "memory") 1))"#).unwrap(),
            "must export a function `alloc",
        ),
    ] {
        let (status, answer) = put_program(&server, "team", bad).await;
        assert_eq!(status, 400, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(reason), "{message}");
    }
    let (status, unchanged) = admin(&server, Method::GET, path, None).await;
    assert_eq!((status, &unchanged), (200, &set));

    let wrong_type = server
        .request(Method::PUT, path)
        .bearer_auth(ADMIN)
        .header("content-type", "application/octet-stream")
        .body(module.clone())
        .fetch()
        .await;
    assert_eq!(wrong_type.status(), 415);
    let (status, _) = put_program(&server, "nobody", module.clone()).await;
    assert_eq!(status, 404);
    let unauthorised = server
        .request(Method::PUT, path)
        .header("content-type", "application/wasm")
        .body(module)
        .fetch()
        .await;
    assert_eq!(unauthorised.status(), 401);

    let (status, _) = admin(&server, Method::DELETE, path, None).await;
    assert_eq!(status, 204);
    let (status, _) = admin(&server, Method::GET, path, None).await;
    assert_eq!(status, 404);
    let (status, answer) = admin(&server, Method::DELETE, path, None).await;
    assert_eq!(status, 404);
    assert!(answer.to_string().contains("has no program"), "{answer}");
}

/// The credential program refuses a paste with a key through the raw body
/// and the form, with its reason and `422 policy_refused`; other pastes,
/// other tenants and anonymous callers are untouched; a program set or
/// cleared applies to the very next create.
#[tokio::test]
async fn refusals_reach_every_create_path() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let other = tenant(&server, "other", json!({})).await;
    let key = "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n";
    create_as(&server, Some(&team), key, "").await;

    set_program(&server, "team", example("refuse_credentials")).await;
    let (status, answer) = try_create(&server, Some(&team), key, "").await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["code"], "policy_refused");
    assert_eq!(
        answer["error"]["message"],
        "refused: the paste contains an AWS access key ID"
    );
    create_as(&server, Some(&team), "just code", "").await;
    create_as(&server, Some(&other), key, "").await;
    create_as(&server, None, key, "").await;

    let boundary = "b0undary";
    let form = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\n\
         token=ghp_16C7e42F292c6912E7710c838347Ae178B4a\r\n--{boundary}--\r\n"
    );
    let response = server
        .request(Method::POST, "/")
        .bearer_auth(&team)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .header("accept", "application/json")
        .body(form)
        .fetch()
        .await;
    assert_eq!(response.status(), 422);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(
        answer["error"]["message"],
        "refused: the paste contains a GitHub token"
    );

    let (status, _) = admin(
        &server,
        Method::DELETE,
        "/api/admin/tenants/team/program",
        None,
    )
    .await;
    assert_eq!(status, 204);
    create_as(&server, Some(&team), key, "").await;
}

/// The CLI prints a refusal's reason and exits non-zero; with the
/// encryption program, `snip put --encrypt` passes and a plain put does not.
#[tokio::test]
async fn the_cli_prints_the_reason() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    set_program(&server, "team", example("require_encryption")).await;
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("SNIP_TOKEN", team.as_str()),
        ("SNIP_PASSWORD", "correct horse"),
    ];
    let output = run_cli(&server, dir.path(), &env, &["put"], b"plain text");
    let stderr = failed(&output);
    assert!(
        stderr.contains("only end-to-end encrypted pastes"),
        "{stderr}"
    );
    let output = run_cli(&server, dir.path(), &env, &["put", "--encrypt"], b"sealed");
    succeeded(&output);
    let url = stdout(&output);
    let output = run_cli(&server, dir.path(), &env, &["get", url.trim()], b"");
    succeeded(&output);
    assert_eq!(stdout(&output), "sealed");
}

/// The CLI sets, shows and clears a program.
#[tokio::test]
async fn the_cli_manages_programs() {
    let server = start(&[]);
    tenant(&server, "team", json!({})).await;
    let dir = tempfile::tempdir().unwrap();
    let module = dir.path().join("accept.wasm");
    std::fs::write(&module, example("accept")).unwrap();
    let env = [("SNIP_ADMIN_TOKEN", ADMIN)];
    let admin_cli = |args: &[&str]| {
        let mut all = vec!["admin", "tenant", "program"];
        all.extend_from_slice(args);
        run_cli(&server, dir.path(), &env, &all, b"")
    };
    let output = admin_cli(&["set", "team", module.to_str().unwrap()]);
    succeeded(&output);
    let set = stdout(&output);
    let sha = sha256_hex(&example("accept"));
    assert!(
        set.starts_with("team\tsize=") && set.contains(&sha),
        "{set}"
    );
    let output = admin_cli(&["show", "team"]);
    succeeded(&output);
    assert_eq!(stdout(&output), set);
    let cleared = succeeded(&admin_cli(&["clear", "team"]));
    assert!(cleared.contains("cleared"), "{cleared}");
    let stderr = failed(&admin_cli(&["show", "team"]));
    assert!(stderr.contains("no program"), "{stderr}");
    let bad = dir.path().join("bad.wasm");
    std::fs::write(&bad, b"\0asm junk").unwrap();
    let stderr = failed(&admin_cli(&["set", "team", bad.to_str().unwrap()]));
    assert!(stderr.contains("does not compile"), "{stderr}");
}

/// The redaction program's replacement is what is stored and read back.
#[tokio::test]
async fn replacements_are_stored() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    set_program(&server, "team", example("redact_emails")).await;
    let id = create_as(&server, Some(&team), "write to ann@example.com today", "").await;
    assert_eq!(
        server.text(&format!("/raw/{id}")).await,
        (200, "write to [email] today".to_owned())
    );
    let (status, meta) = server.metadata(&id).await;
    assert_eq!((status, meta["size"].as_u64()), (200, Some(22)));
}

/// A several-file paste is checked file by file: one file holding a
/// credential refuses the whole paste, and a replacement changes only its
/// own file, whose size the file table then gives.
#[tokio::test]
async fn several_files_are_checked_one_by_one() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let post = |files: Vec<(&'static str, &'static [u8])>| {
        let (content_type, body) = crate::files::form(&files, &[]);
        server
            .request(Method::POST, "/")
            .bearer_auth(&team)
            .header("content-type", content_type)
            .header("accept", "application/json")
            .body(body)
            .fetch()
    };

    set_program(&server, "team", example("refuse_credentials")).await;
    let response = post(vec![
        ("notes.md", b"nothing to see\n"),
        ("env.sh", b"export KEY=AKIAIOSFODNN7EXAMPLE\n"),
    ])
    .await;
    assert_eq!(response.status(), 422);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["error"]["code"], "policy_refused", "{answer}");

    set_program(&server, "team", example("redact_emails")).await;
    let response = post(vec![
        ("a.txt", b"mail ann@example.com\n"),
        ("b.txt", b"no address here\n"),
    ])
    .await;
    assert_eq!(response.status(), 201);
    let created: Value = response.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    assert_eq!(
        server.text(&format!("/raw/{id}/a.txt")).await,
        (200, "mail [email]\n".to_owned())
    );
    assert_eq!(
        server.text(&format!("/raw/{id}/b.txt")).await,
        (200, "no address here\n".to_owned())
    );
    let (_, meta) = server.metadata(id).await;
    let sizes: Vec<u64> = meta["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["size"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [13, 16]);
}

/// A program that loops, traps, goes past its memory or answers nonsense
/// makes the create fail closed with `422 policy_failed` naming the
/// failure; the per-tenant limits apply; a looping program under the
/// default fuel is stopped within seconds while other creates carry on.
#[tokio::test]
async fn failures_fail_closed() {
    let server = start(&["--program-fuel=20000000"]);
    let team = tenant(&server, "team", json!({})).await;
    let failure = |answer: &Value| {
        assert_eq!(answer["error"]["code"], "policy_failed", "{answer}");
        answer["error"]["message"].as_str().unwrap().to_owned()
    };
    let cases = [
        (with_check("(loop (br 0)) (i32.const 0)"), "CPU budget"),
        (with_check("unreachable"), "trapped"),
        (
            with_check("(drop (memory.grow (i32.const 2000))) (i32.const 0)"),
            "memory limit",
        ),
        (with_check("(i32.const 9)"), "nonsense: check answered 9"),
    ];
    for (module, named) in cases {
        set_program(&server, "team", module).await;
        let (status, answer) = try_create(&server, Some(&team), "x", "").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        let message = failure(&answer);
        assert!(message.contains(named), "{message}");
    }

    // Per-tenant limits: enough fuel and memory for the example, then too little.
    set_program(&server, "team", example("refuse_credentials")).await;
    let big = "a".repeat(200_000);
    create_as(&server, Some(&team), big.clone(), "").await;
    update(&server, "team", json!({ "program_fuel": 1000 })).await;
    let (status, answer) = try_create(&server, Some(&team), big.clone(), "").await;
    assert_eq!(status, 422);
    assert!(failure(&answer).contains("CPU budget"));
    update(
        &server,
        "team",
        json!({ "program_fuel": null, "program_memory": 65536 }),
    )
    .await;
    let (status, answer) = try_create(&server, Some(&team), big, "").await;
    assert_eq!(status, 422);
    assert!(failure(&answer).contains("memory limit"));
    let (status, shown) = admin(
        &server,
        Method::GET,
        "/api/admin/tenants/team/program",
        None,
    )
    .await;
    assert_eq!(
        (status, &shown["fuel"], &shown["memory"]),
        (200, &json!(20_000_000), &json!(65536))
    );
    let (status, answer) = admin(
        &server,
        Method::PATCH,
        "/api/admin/tenants/team",
        Some(json!({ "program_memory": 1 })),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
}

/// Under the default limits a looping program is stopped fast, and other
/// tenants' creates go on meanwhile.
#[tokio::test]
async fn a_looping_program_holds_no_one_else() {
    let server = start(&[]);
    let team = tenant(&server, "team", json!({})).await;
    let other = tenant(&server, "other", json!({})).await;
    set_program(&server, "team", with_check("(loop (br 0)) (i32.const 0)")).await;
    let started = Instant::now();
    let looping: Vec<_> = (0..4)
        .map(|_| {
            let url = server.url.clone();
            let team = team.clone();
            tokio::spawn(async move {
                crate::support::tenants::create_status(url, team, b"x".to_vec()).await
            })
        })
        .collect();
    for _ in 0..5 {
        create_as(&server, Some(&other), "carry on", "").await;
    }
    for task in looping {
        assert_eq!(task.await.unwrap(), 422);
    }
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "took {took:?}");
}
