//! The OpenAPI document (`docs/openapi.json`): in sync with the router, served
//! by the server, and honoured by it under schemathesis fuzzing.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::Method;

use crate::support::{
    Fetch, Server, client,
    http::{create_json, get_json},
};

const SPEC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.json");
const METHODS: &[&str] = &["get", "post", "put", "patch", "delete", "head", "options"];

fn spec() -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(SPEC_PATH).unwrap()).unwrap()
}

/// `(path, METHOD)` of every operation in the document.
fn spec_operations(spec: &serde_json::Value) -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in spec["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if METHODS.contains(&method.as_str()) {
                ops.insert((path.clone(), method.to_uppercase()));
            }
        }
    }
    ops
}

/// `(path, METHOD)` of every route of the route table, which builds the router.
fn router_operations() -> BTreeSet<(String, String)> {
    snip::http::routes::operations()
        .into_iter()
        .map(|(method, path)| (path.to_owned(), method.as_str().to_owned()))
        .collect()
}

/// Every route and method of the router is in the document and vice versa.
#[test]
fn document_matches_the_router() {
    let documented = spec_operations(&spec());
    let routed = router_operations();
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty() && unrouted.is_empty(),
        "routes missing from docs/openapi.json: {undocumented:?}\n\
         documented operations the router lacks: {unrouted:?}"
    );
}

/// The running server routes every documented operation (no 405, no
/// "no such page"): the router is the route table's.
#[tokio::test]
async fn server_routes_every_documented_operation() {
    let server = Server::start_with(&["--admin-token=admin-token-for-routing"]);
    let http = client();
    for (path, method) in spec_operations(&spec()) {
        let concrete = path
            .replace("{id}", "k7m3q9xw2hd4p")
            .replace("{name}", "nobody")
            .replace("{file}", "nothing.js");
        let response = http
            .request(method.parse().unwrap(), server.at(&concrete))
            .header("accept", "application/json")
            .fetch()
            .await;
        let status = response.status();
        let body = response.text().await.unwrap();
        assert_ne!(status, 405, "{method} {path}: {body}");
        // The error's code, not the body's text: the document served at
        // /api/openapi.json lists `no_route` among the codes.
        let code = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|answer| answer["error"]["code"].as_str().map(str::to_owned));
        assert_ne!(
            code.as_deref(),
            Some("no_route"),
            "{method} {path} is not routed: {body}"
        );
    }
}

/// `GET /api/openapi.json` serves the document as JSON, and it is OpenAPI 3.1.
#[tokio::test]
async fn document_is_served() {
    let server = Server::start();
    let response = server.get("/api/openapi.json").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let served: serde_json::Value = response.json().await.unwrap();
    assert_eq!(served, spec());
    assert_eq!(served["openapi"], "3.1.0");
    let schemes = served["components"]["securitySchemes"].as_object().unwrap();
    assert!(schemes.contains_key("tenantToken") && schemes.contains_key("adminToken"));
}

/// The schemathesis command line, if it is installed.
fn schemathesis() -> Option<&'static str> {
    ["st", "schemathesis"].into_iter().find(|bin| {
        Command::new(bin)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

const ADMIN: &str = "schemathesis-admin-token";

/// Pastes of every kind for the fuzzer to find: returns their IDs.
async fn seed(server: &Server, tenant_token: &str) -> Vec<String> {
    let http = client();
    let mut ids = Vec::new();
    for (body, options) in [
        ("plain text\n", "lang=rust&name=main.rs"),
        ("burn me", "burn=true"),
        ("", "url=https://example.com/x"),
        ("ciphertext", "encrypted=true&ttl=1h"),
        ("<svg onload=alert(1)>", "name=x.svg"),
    ] {
        ids.push(
            create_json(&http, &server.url, body, options).await["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let private = server
        .request(Method::POST, "/?visibility=private&name=log-1")
        .bearer_auth(tenant_token)
        .header("accept", "application/json")
        .body("tenant's private paste")
        .fetch()
        .await;
    assert_eq!(private.status(), 201);
    let private: serde_json::Value = private.json().await.unwrap();
    ids.push(private["id"].as_str().unwrap().to_owned());
    ids
}

/// schemathesis generates thousands of requests from the document against the
/// running server (tenant and admin tokens included) and finds no 5xx and no
/// status, content type or body that the document does not allow.
#[tokio::test(flavor = "multi_thread")]
async fn schemathesis_finds_no_violation() {
    let Some(st) = schemathesis() else {
        if std::env::var_os("CI").is_some() {
            panic!("schemathesis is not installed: pip install schemathesis (see .ci/run)");
        }
        eprintln!(
            "SKIPPED: schemathesis is not installed (pip install schemathesis; .ci/run does)"
        );
        return;
    };
    let server = Server::start_with(&[&format!("--admin-token={ADMIN}")]);
    let mut tenants = Vec::new();
    for name in ["fuzz", "fuzz-target"] {
        let created: serde_json::Value = server
            .request(Method::POST, "/api/admin/tenants")
            .bearer_auth(ADMIN)
            .json(&serde_json::json!({ "name": name }))
            .fetch()
            .await
            .json()
            .await
            .unwrap();
        tenants.push(created["token"]["token"].as_str().unwrap().to_owned());
    }
    let ids = seed(&server, &tenants[0]).await;
    let work = tempfile::tempdir().unwrap();
    let quoted = |items: &[String]| {
        items
            .iter()
            .map(|i| format!("{i:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // The fuzzer authenticates as tenant "fuzz"; it may administer only
    // "fuzz-target", so it cannot lock its own tenant out. 507 is not a
    // server fault but the documented answer of a full quota, and the fuzzer
    // sets quotas through the admin API (one run met a 67-byte one). 501 is
    // oEmbed's documented answer to a format other than json (`GET /oembed`),
    // the only 501 snip gives.
    let config = format!(
        "[auth.openapi.tenantToken]\nbearer = {:?}\n\
         [auth.openapi.adminToken]\nbearer = {ADMIN:?}\n\
         [dictionaries.pastes]\nvalues = [{}]\n\
         [dictionaries.tenants]\nvalues = [\"fuzz-target\"]\n\
         [parameters]\n\
         \"path.id\" = {{ dictionary = \"pastes\", probability = 0.5 }}\n\
         \"path.name\" = {{ dictionary = \"tenants\", probability = 0.5 }}\n\
         [checks.not_a_server_error]\n\
         expected-statuses = [\"2xx\", \"3xx\", \"4xx\", \"501\", \"507\"]\n",
        tenants[0],
        quoted(&ids),
    );
    let config_path = work.path().join("schemathesis.toml");
    std::fs::write(&config_path, config).unwrap();
    // A tenant's program is uploaded as `application/wasm`: bytes, sent as
    // schemathesis sends `application/octet-stream`.
    let hooks_path = work.path().join("hooks.py");
    std::fs::write(
        &hooks_path,
        "import schemathesis\n\
         schemathesis.serializer.alias(\"application/wasm\", \"application/octet-stream\")\n",
    )
    .unwrap();
    let examples = std::env::var("SNIP_FUZZ_EXAMPLES").unwrap_or_else(|_| "120".into());
    let seed = std::env::var("SNIP_FUZZ_SEED").unwrap_or_else(|_| "1".into());
    let budget = std::env::var("SNIP_FUZZ_SECONDS").unwrap_or_else(|_| "150".into());
    let report_path = work.path().join("report.txt");
    let started = Instant::now();
    let mut child = Command::new(st)
        .current_dir(work.path())
        .env("NO_COLOR", "1")
        .env("SCHEMATHESIS_HOOKS", &hooks_path)
        .arg("--config-file")
        .arg(&config_path)
        .args(["run", &server.at("/api/openapi.json")])
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--max-examples",
            &examples,
            // A budget, so a loaded machine does fewer cases rather than
            // running long; a quiet one repeats fuzzing until it is spent.
            "--max-time",
            &budget,
            "--seed",
            &seed,
            // One worker: with two, schemathesis parses Python sources in
            // two threads at once, and CPython 3.11.7's AST constructor
            // shares its recursion counter between threads ("AST constructor
            // recursion depth mismatch", a SystemError that failed a CI run).
            "--workers",
            "1",
            "--request-timeout",
            "10",
        ])
        // To a file, not a pipe: nobody reads a pipe while waiting, and a
        // full one would stall schemathesis.
        .stdout(std::fs::File::create(&report_path).unwrap())
        .stderr(std::fs::File::create(work.path().join("stderr.txt")).unwrap())
        .spawn()
        .unwrap();
    // Bounded: a hung run fails instead of holding CI.
    let deadline = started + Duration::from_secs(240);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let report = std::fs::read_to_string(&report_path).unwrap_or_default();
            panic!("schemathesis ran longer than 240 s:\n{report}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let report = std::fs::read_to_string(&report_path).unwrap()
        + &std::fs::read_to_string(work.path().join("stderr.txt")).unwrap();
    // The server's own account of a failure (a 500's cause is only logged).
    let server_errors: Vec<String> = server
        .log_text()
        .lines()
        .filter(|l| l.contains("ERROR") || l.contains("WARN"))
        .map(str::to_owned)
        .collect();
    assert!(
        status.success(),
        "schemathesis found problems:\n{report}\nserver warnings and errors:\n{}",
        server_errors.join("\n")
    );
    // "N generated, N passed" (and ", K skipped" when some were skipped).
    let generated: u64 = report
        .lines()
        .find_map(|l| {
            let (count, rest) = l.trim().split_once(" generated, ")?;
            rest.contains(" passed").then_some(())?;
            count.trim().parse().ok()
        })
        .unwrap_or_else(|| panic!("no test case count in the report:\n{report}"));
    eprintln!(
        "schemathesis: {generated} test cases in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    assert!(generated >= 2000, "only {generated} test cases:\n{report}");
    assert!(
        server.wait_for_request_logs().await,
        "request log lines missing:\n{}",
        server.log_text()
    );
    assert!(
        !server.log_text().contains("ERROR"),
        "{}",
        server.log_text()
    );
}

/// A TTL so long that the expiry passes year 9999 (found while fuzzing the
/// `ttl` parameter) is stored and shown as 9999-12-31T23:59:59Z, where it used
/// to panic the handler and drop the connection, also on every later metadata read.
#[tokio::test]
async fn ttl_beyond_year_9999_is_answered() {
    let server = Server::start();
    let http = client();
    for ttl in ["18446744073709551615", "300000000000"] {
        let created = create_json(&http, &server.url, "long-lived", &format!("ttl={ttl}")).await;
        assert_eq!(created["expires_at"], "9999-12-31T23:59:59Z");
        let id = created["id"].as_str().unwrap();
        let (status, meta) = get_json(&http, &server.at(&format!("/api/pastes/{id}"))).await;
        assert_eq!(status, 200);
        assert_eq!(meta["expires_at"], "9999-12-31T23:59:59Z");
    }
    let too_long = server.post("/?ttl=99999999999999999999999", "x").await;
    assert_eq!(too_long.status(), 400);
}
