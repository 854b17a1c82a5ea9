//! The hot path answers exactly what the router answers: every route of the
//! route table (`snip::http::routes`) gets the same requests on one store
//! with the hot path on and with `--no-fast-path`, and every status, header
//! (but `Date`) and body must match. Iterating the table means a new route
//! cannot be left out: a route without a sample fails the test.
//!
//! The two modes are the same server restarted on the same data (data dir
//! or PostgreSQL schema), one request apart, so both see the same store. A
//! request that consumes something (a burn read, a delete, a reveal) gets a
//! paste of its own on each side; the answers are compared with the other
//! side's IDs replaced by the first side's, and so are the values a create
//! makes up (its ID, delete token, expiry).

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::tenants::tenant;
use crate::support::{Fetch, Server, client};

use crate::support::tenants::ADMIN as ADMIN_TOKEN;

/// One request.
#[derive(Debug, Clone)]
struct Request {
    method: Method,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

/// A route's sample: the request sent with the hot path (`fast`) and the one
/// sent without it (`routed`), and the values that differ between the two
/// by design (`(routed's, fast's)`).
#[derive(Debug)]
struct Sample {
    method: Method,
    template: &'static str,
    fast: Request,
    routed: Request,
    differ: Vec<(String, String)>,
}

/// What a server answered, `Date` left out.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    status: StatusCode,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn request(method: Method, path: impl Into<String>, headers: &[(&'static str, &str)]) -> Request {
    Request {
        method,
        path: path.into(),
        headers: headers.iter().map(|(n, v)| (*n, v.to_string())).collect(),
        body: Vec::new(),
    }
}

fn get(path: impl Into<String>, headers: &[(&'static str, &str)]) -> Request {
    request(Method::GET, path, headers)
}

impl Request {
    fn body(self, body: impl Into<Vec<u8>>) -> Self {
        Self {
            body: body.into(),
            ..self
        }
    }
}

/// The same request on both sides.
fn same(template: &'static str, request: Request) -> Sample {
    Sample {
        method: request.method.clone(),
        template,
        fast: request.clone(),
        routed: request,
        differ: Vec::new(),
    }
}

/// A request on a paste of each side's own: `make` builds it from a paste's
/// ID and delete token.
fn own(
    template: &'static str,
    (fast, routed): (&(String, String), &(String, String)),
    make: impl Fn(&str, &str) -> Request,
) -> Sample {
    let request = make(&fast.0, &fast.1);
    Sample {
        method: request.method.clone(),
        template,
        fast: request,
        routed: make(&routed.0, &routed.1),
        differ: vec![
            (routed.0.clone(), fast.0.clone()),
            (routed.1.clone(), fast.1.clone()),
        ],
    }
}

async fn send(server: &Server, request: &Request) -> Answer {
    let mut builder = client().request(request.method.clone(), server.at(&request.path));
    for (name, value) in &request.headers {
        builder = builder.header(*name, value);
    }
    let response = builder.body(request.body.clone()).fetch().await;
    let status = response.status();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| name.as_str() != "date")
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.to_string(), value)
        })
        .collect();
    headers.sort();
    let body = response.bytes().await.unwrap().to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

/// `haystack` with every `from` replaced by `to`.
fn replace(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut rest = haystack;
    while !from.is_empty() && rest.len() >= from.len() {
        if rest.starts_with(from) {
            out.extend_from_slice(to);
            rest = &rest[from.len()..];
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out.extend_from_slice(rest);
    out
}

/// The values two create answers made up: the JSON fields that differ
/// (ID, delete token, URLs, expiry), or a text answer's ID and delete token.
fn made_up(fast: &Answer, routed: &Answer) -> Vec<(String, String)> {
    let token = |answer: &Answer| {
        answer
            .headers
            .iter()
            .find(|(name, _)| name == "x-delete-token")
            .map(|(_, value)| value.clone())
    };
    let tokens = match (token(fast), token(routed)) {
        (Some(fast), Some(routed)) => vec![(routed, fast)],
        _ => Vec::new(),
    };
    let parse = |answer: &Answer| serde_json::from_slice::<Value>(&answer.body).ok();
    if let (Some(Value::Object(fast)), Some(Value::Object(routed))) = (parse(fast), parse(routed)) {
        let fields = fast
            .iter()
            .filter_map(|(key, fast)| match (fast, routed.get(key)) {
                (Value::String(fast), Some(Value::String(routed))) if fast != routed => {
                    Some((routed.clone(), fast.clone()))
                }
                _ => None,
            });
        // A hastebin answer has the ID only: its token is in the header.
        return fields.chain(tokens).collect();
    }
    // A text answer is the paste's URL: its last segment is the ID.
    let id = |answer: &Answer| {
        let text = String::from_utf8_lossy(&answer.body);
        text.trim()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    let mut differ = vec![(id(routed), id(fast))];
    differ.extend(tokens);
    differ
}

/// `answer` with the `differ` values put back to the fast side's; for
/// `/metrics`, without its body.
fn normalised(mut answer: Answer, template: &str, differ: &[(String, String)]) -> Answer {
    for (from, to) in differ {
        answer.body = replace(&answer.body, from.as_bytes(), to.as_bytes());
        for (_, value) in &mut answer.headers {
            *value = value.replace(from.as_str(), to);
        }
    }
    if template == "/metrics" {
        // Its values count what each process served; the labels are
        // compared by `hot_requests_are_counted_alike`.
        answer.body.clear();
        answer.headers.retain(|(name, _)| name != "content-length");
    }
    answer
}

/// Creates a paste and returns its ID and delete token.
async fn paste(server: &Server, body: &str, options: &str) -> (String, String) {
    server.create(body.to_owned(), options).await
}

/// When the paste `id` was created, as pages show it (to the second).
async fn created_at(server: &Server, id: &str) -> String {
    let info: Value = client()
        .get(server.at(&format!("/api/pastes/{id}")))
        .fetch()
        .await
        .json()
        .await
        .unwrap();
    info["created_at"].as_str().unwrap().to_owned()
}

/// A paste for each side, both created within the same second, so that the
/// pages that show when (and until when) a paste lives match.
async fn pair(server: &Server, body: &str, options: &str) -> [(String, String); 2] {
    for _ in 0..5 {
        let pair = [
            paste(server, body, options).await,
            paste(server, body, options).await,
        ];
        if created_at(server, &pair[0].0).await == created_at(server, &pair[1].0).await {
            return pair;
        }
    }
    panic!("five pairs of pastes each straddled a second");
}

/// The samples: at least one per route of the table, on pastes made on `server`.
async fn samples(server: &Server) -> Vec<Sample> {
    let bearer = format!("Bearer {}", tenant(server, "sampler", json!({})).await);
    let admin = format!("Bearer {ADMIN_TOKEN}");
    let (id, _) = paste(server, "0123456789abcdef", "lang=rust").await;
    let (link, _) = paste(server, "", "url=http://example.com/").await;
    // Stored compressed: two representations, chosen by Accept-Encoding.
    let (text, _) = paste(server, &"a line of text\n".repeat(100), "").await;
    let etag = format!("\"{id}\"");
    let zstd_etag = format!("\"{text}-zstd\"");
    let zstd = ("accept-encoding", "gzip, br, zstd");
    let html = ("accept", "text/html");
    let json = ("accept", "application/json");
    let auth = ("authorization", bearer.as_str());
    let admin = ("authorization", admin.as_str());
    let bad_token = ("authorization", "Bearer snip_nope");
    let basic = ("authorization", "Basic Zm9vOmJhcg==");

    let bundle = crate::files::two_files(server).await;
    let burn_raw = pair(server, "burn me", "burn=true").await;
    let burn_view = pair(server, "burn me", "burn=true").await;
    let burn_page = pair(server, "burn me", "burn=true").await;
    let burn_reveal = pair(server, "burn me", "burn=true").await;
    let deleted = pair(server, "delete me", "").await;
    let [a, b] = &burn_raw;
    let mut samples = vec![
        // The hot routes, every way they answer.
        same("/raw/{id}", get(format!("/raw/{text}"), &[])),
        same("/raw/{id}", get(format!("/raw/{text}"), &[zstd])),
        same(
            "/raw/{id}",
            get(format!("/raw/{text}"), &[zstd, ("range", "bytes=2-5")]),
        ),
        same(
            "/raw/{id}",
            get(
                format!("/raw/{text}"),
                &[zstd, ("if-none-match", &zstd_etag)],
            ),
        ),
        same("/raw/{id}", get(format!("/raw/{id}"), &[])),
        same(
            "/raw/{id}",
            get(format!("/raw/{id}"), &[("range", "bytes=2-5")]),
        ),
        same(
            "/raw/{id}",
            get(format!("/raw/{id}"), &[("if-none-match", &etag)]),
        ),
        same("/raw/{id}", get(format!("/raw/{id}"), &[bad_token])),
        same("/raw/{id}", get(format!("/raw/{id}"), &[auth])),
        same("/raw/{id}", get("/raw/k7m3q9xw2hd4p", &[])),
        same("/raw/{id}", get(format!("/raw/{bundle}"), &[])),
        same("/{id}", get(format!("/{bundle}"), &[])),
        same("/raw/{id}/{name}", get(format!("/raw/{bundle}/b.md"), &[])),
        same(
            "/raw/{id}/{name}",
            get(format!("/raw/{bundle}/a.rs"), &[("range", "bytes=1-3")]),
        ),
        same("/raw/{id}/{name}", get(format!("/raw/{id}/a.rs"), &[])),
        same("/download/{id}", get(format!("/download/{bundle}"), &[])),
        own("/raw/{id}", (a, b), |id, _| get(format!("/raw/{id}"), &[])),
        same("/{id}", get(format!("/{text}"), &[zstd])),
        same("/{id}", get(format!("/{text}"), &[zstd, html])),
        same("/{id}", get(format!("/{id}"), &[])),
        same("/{id}", get(format!("/{id}"), &[html])),
        same("/{id}", get(format!("/{id}"), &[json])),
        same("/{id}", get(format!("/{id}"), &[basic])),
        same("/{id}", get(format!("/{link}"), &[])),
        same("/{id}", get("/k7m3q9xw2hd4p", &[html])),
        own("/{id}", (&burn_view[0], &burn_view[1]), |id, _| {
            get(format!("/{id}"), &[])
        }),
        own("/{id}", (&burn_page[0], &burn_page[1]), |id, _| {
            get(format!("/{id}"), &[html])
        }),
        same(
            "/",
            request(Method::POST, "/?lang=rust", &[json]).body("fn main() {}"),
        ),
        same("/", request(Method::POST, "/?burn=true", &[]).body("plain")),
        same(
            "/",
            request(Method::POST, "/", &[auth, json]).body("a tenant's"),
        ),
        same(
            "/",
            request(Method::POST, "/", &[bad_token]).body("refused"),
        ),
        same(
            "/",
            request(Method::POST, "/?ttl=nope", &[]).body("bad ttl"),
        ),
        // Every other route.
        same("/api/pastes", get("/api/pastes", &[auth])),
        same("/api/pastes", get("/api/pastes", &[])),
        same("/api/pastes/{id}", get(format!("/api/pastes/{id}"), &[])),
        same("/download/{id}", get(format!("/download/{id}"), &[])),
        same(
            "/documents",
            request(Method::POST, "/documents", &[]).body("haste"),
        ),
        same("/documents/{id}", get(format!("/documents/{id}"), &[])),
        same("/embed/{id}", get(format!("/embed/{id}?lines=1"), &[html])),
        same("/embed/{id}", get(format!("/embed/{id}?theme=x"), &[])),
        // Each side listens on a port of its own, which a paste URL names:
        // only answers that name no port can be compared.
        same(
            "/oembed",
            get(
                format!("/oembed?url=http%3A%2F%2Felsewhere.example%2F{id}"),
                &[],
            ),
        ),
        same("/oembed", get("/oembed?url=x&format=xml", &[])),
        own(
            "/{id}/reveal",
            (&burn_reveal[0], &burn_reveal[1]),
            |id, _| request(Method::POST, format!("/{id}/reveal"), &[html]),
        ),
        own("/{id}", (&deleted[0], &deleted[1]), |id, token| {
            request(
                Method::DELETE,
                format!("/{id}"),
                &[("x-delete-token", token)],
            )
        }),
        same("/", get("/", &[html])),
        same("/new", get("/new", &[html])),
        same("/signin", get("/signin", &[html])),
        same("/my", get("/my", &[html])),
        same(
            "/signin",
            request(
                Method::POST,
                "/signin",
                &[("content-type", "application/x-www-form-urlencoded")],
            )
            .body("token=snip_nope"),
        ),
        same("/signout", request(Method::POST, "/signout", &[])),
        same(
            "/session/tenant",
            request(Method::POST, "/session/tenant", &[]).body("tenant=team"),
        ),
        same(
            "/lang",
            request(
                Method::POST,
                "/lang",
                &[("content-type", "application/x-www-form-urlencoded")],
            )
            .body("lang=de&next=/new"),
        ),
        same("/api/admin/tenants", get("/api/admin/tenants", &[admin])),
        same(
            "/api/admin/tenants",
            request(Method::POST, "/api/admin/tenants", &[admin])
                .body(json!({ "name": "sampler" }).to_string()),
        ),
        same(
            "/api/admin/tenants/{name}",
            request(Method::PATCH, "/api/admin/tenants/nobody", &[admin])
                .body(json!({ "paste_limit": 5 }).to_string()),
        ),
        same(
            "/api/admin/tenants/{name}",
            request(Method::DELETE, "/api/admin/tenants/sampler", &[admin]),
        ),
        same(
            "/api/admin/tenants/{name}/tokens",
            get("/api/admin/tenants/sampler/tokens", &[admin]),
        ),
        same(
            "/api/admin/tenants/{name}/tokens",
            request(Method::POST, "/api/admin/tenants/nobody/tokens", &[admin]).body("{}"),
        ),
        same(
            "/api/admin/tokens/{id}",
            request(Method::DELETE, "/api/admin/tokens/nothing", &[admin]),
        ),
        same(
            "/api/admin/tenants/{name}/program",
            get("/api/admin/tenants/nobody/program", &[admin]),
        ),
        same(
            "/api/admin/tenants/{name}/program",
            request(
                Method::PUT,
                "/api/admin/tenants/nobody/program",
                &[admin, ("content-type", "application/wasm")],
            )
            .body("not a module"),
        ),
        same(
            "/api/admin/tenants/{name}/program",
            request(
                Method::DELETE,
                "/api/admin/tenants/nobody/program",
                &[admin],
            ),
        ),
        same("/signin/oidc", get("/signin/oidc", &[html])),
        same(
            "/signin/oidc/callback",
            get("/signin/oidc/callback?state=s&code=c", &[html]),
        ),
        same("/api/login", get("/api/login", &[auth])),
        same(
            "/api/login",
            request(Method::DELETE, "/api/login", &[bad_token]),
        ),
        same(
            "/api/login/device",
            request(Method::POST, "/api/login/device", &[]),
        ),
        same(
            "/api/login/device/token",
            request(Method::POST, "/api/login/device/token", &[json]).body("{}"),
        ),
        same(
            "/api/login/loopback",
            request(Method::POST, "/api/login/loopback", &[json]).body("{}"),
        ),
        same(
            "/api/login/loopback/token",
            request(Method::POST, "/api/login/loopback/token", &[json]).body("{}"),
        ),
        same(
            "/api/login/refresh",
            request(Method::POST, "/api/login/refresh", &[bad_token]),
        ),
        same("/api/admin/backup", get("/api/admin/backup", &[admin])),
        same("/api/admin/backup", get("/api/admin/backup", &[])),
        same("/healthz", get("/healthz", &[])),
        same("/readyz", get("/readyz", &[])),
        same("/robots.txt", get("/robots.txt", &[])),
        same("/api/openapi.json", get("/api/openapi.json", &[])),
        same("/metrics", get("/metrics", &[])),
        same("/assets/{file}", get("/assets/app.js", &[zstd])),
    ];
    // HEAD is routed on both sides; a hot path that took it would show here.
    samples.push(same(
        "/raw/{id}",
        request(Method::HEAD, format!("/raw/{id}"), &[]),
    ));
    samples
}

#[tokio::test]
async fn every_route_answers_alike_with_and_without_the_hot_path() {
    let admin_flag = format!("--admin-token={ADMIN_TOKEN}");
    let mut server = Server::start_with(&[&admin_flag]);
    let samples = samples(&server).await;

    // Every route of the table has a sample, and every sample is a route's.
    let table: BTreeSet<(String, &str)> = snip::http::routes::operations()
        .into_iter()
        .map(|(method, path)| (method.to_string(), path))
        .collect();
    let sampled: BTreeSet<(String, &str)> = samples
        .iter()
        .filter(|s| s.method != Method::HEAD)
        .map(|s| (s.method.to_string(), s.template))
        .collect();
    let unsampled: Vec<_> = table.difference(&sampled).collect();
    let unknown: Vec<_> = sampled.difference(&table).collect();
    assert!(
        unsampled.is_empty(),
        "routes without a sample: {unsampled:?}"
    );
    assert!(unknown.is_empty(), "samples of no route: {unknown:?}");

    // The modes alternate (fast then routed, routed then fast), so each
    // sample costs one restart, and each request meets the same store.
    let mut fast_now = true;
    for (n, sample) in samples.iter().enumerate() {
        let mut answers = Vec::new();
        for fast in [fast_now, !fast_now] {
            if fast != fast_now {
                server.terminate();
                server.restart_with(if fast { &[] } else { &["--no-fast-path"] });
                fast_now = fast;
            }
            let request = if fast { &sample.fast } else { &sample.routed };
            answers.push((fast, server.url.clone(), send(&server, request).await));
        }
        // Put the fast answer first.
        answers.sort_by_key(|(fast, _, _)| !*fast);
        let [(_, fast_url, fast), (_, routed_url, routed)] = <[_; 2]>::try_from(answers).unwrap();
        // Each process listens on a port of its own, which pages also
        // name URL-encoded (the oEmbed link's `url=`).
        let encoded = |url: &str| form_urlencoded::byte_serialize(url.as_bytes()).collect();
        let mut differ = vec![
            (encoded(&routed_url), encoded(&fast_url)),
            (routed_url, fast_url),
        ];
        differ.extend(sample.differ.iter().cloned());
        if matches!(sample.template, "/" | "/documents") && sample.method == Method::POST {
            differ.extend(made_up(&fast, &routed));
        }
        let fast = normalised(fast, sample.template, &[]);
        let routed = normalised(routed, sample.template, &differ);
        assert!(
            fast == routed,
            "sample {n}: {} {} {:?}\nfast:   {fast:?} {}\nrouted: {routed:?} {}",
            sample.method,
            sample.fast.path,
            sample.fast.headers,
            String::from_utf8_lossy(&fast.body),
            String::from_utf8_lossy(&routed.body),
        );
    }
}

/// The hot routes are counted under the same route labels as the router
/// counts them: the same requests on a fresh process in each mode give the
/// same `snip_http_requests` series and counts.
#[tokio::test]
async fn hot_requests_are_counted_alike() {
    let mut server = Server::start();
    let (id, _) = paste(&server, "counted", "").await;
    let mut counted = Vec::new();
    for flags in [&[][..], &["--no-fast-path"][..]] {
        server.terminate();
        server.restart_with(flags);
        for request in [
            get(format!("/raw/{id}"), &[]),
            get(format!("/{id}"), &[]),
            get("/raw/k7m3q9xw2hd4p", &[]),
            request(Method::POST, "/", &[]).body("new"),
            get("/healthz", &[]),
        ] {
            send(&server, &request).await;
        }
        let metrics = send(&server, &get("/metrics", &[])).await;
        let text = String::from_utf8(metrics.body).unwrap();
        let series: BTreeSet<String> = text
            .lines()
            .filter(|line| line.starts_with("snip_http_requests_total{"))
            .map(str::to_owned)
            .collect();
        assert!(
            series.iter().any(|s| s.contains("route=\"/raw/{id}\"")),
            "{text}"
        );
        counted.push(series);
    }
    assert_eq!(counted[0], counted[1]);
}
