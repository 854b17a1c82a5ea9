//! Behind a reverse proxy: forwarding headers (`X-Forwarded-*`, `Forwarded`)
//! believed from trusted proxies only, shaping printed URLs and client IPs.

use crate::support::{Fetch, Server, client};

/// POSTs a paste with `headers` and returns the JSON answer and the `Location`.
async fn create_with(server: &Server, headers: &[(&str, &str)]) -> (serde_json::Value, String) {
    let mut request = client()
        .post(server.at("/"))
        .header("accept", "application/json")
        .body("hello");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.fetch().await;
    assert_eq!(response.status(), 201);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    (response.json().await.unwrap(), location)
}

/// GETs `/` (the usage text, rate limited per client) as `headers` say, and returns the status.
async fn status_as(server: &Server, headers: &[(&str, &str)]) -> u16 {
    let mut request = client().get(server.at("/"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.fetch().await.status().as_u16()
}

const PROXIED: &[(&str, &str)] = &[
    ("x-forwarded-proto", "https"),
    ("host", "paste.example.com"),
];

/// From a trusted proxy, printed URLs (JSON, Location, usage, the burn 409) follow X-Forwarded-Proto and Host.
#[tokio::test]
async fn trusted_proxy_sets_scheme_and_host_of_printed_urls() {
    let server = Server::start_with(&["--trusted-proxy=127.0.0.1/32"]);
    let (json, location) = create_with(&server, PROXIED).await;
    let id = json["id"].as_str().unwrap();
    assert_eq!(json["url"], format!("https://paste.example.com/{id}"));
    assert_eq!(
        json["raw_url"],
        format!("https://paste.example.com/raw/{id}")
    );
    assert_eq!(location, format!("https://paste.example.com/{id}"));

    let mut usage = client().get(server.at("/"));
    let mut burn = client().post(server.at("/?burn=true"));
    for (name, value) in PROXIED {
        usage = usage.header(*name, *value);
        burn = burn.header(*name, *value);
    }
    let usage = usage.fetch().await.text().await.unwrap();
    assert!(
        usage.contains("curl --data-binary @- https://paste.example.com/"),
        "{usage}"
    );

    let burn_url = burn.body("secret").fetch().await.text().await.unwrap();
    let burn_id = burn_url.trim().rsplit('/').next().unwrap().to_owned();
    let mut raw = client().get(server.at(&format!("/raw/{burn_id}")));
    for (name, value) in PROXIED {
        raw = raw.header(*name, *value);
    }
    let conflict = raw.fetch().await;
    assert_eq!(conflict.status(), 409);
    let text = conflict.text().await.unwrap();
    assert!(
        text.contains(&format!("https://paste.example.com/{burn_id}/reveal")),
        "{text}"
    );
}

/// A peer that is not a trusted proxy cannot change the scheme or host of printed URLs.
#[tokio::test]
async fn untrusted_peer_headers_are_ignored() {
    for flags in [&[][..], &["--trusted-proxy=10.0.0.0/8"][..]] {
        let server = Server::start_with(flags);
        let (json, location) = create_with(&server, PROXIED).await;
        let id = json["id"].as_str().unwrap();
        assert_eq!(json["url"], format!("{}/{id}", server.url), "{flags:?}");
        assert_eq!(location, format!("{}/{id}", server.url), "{flags:?}");
    }
}

/// With --public-url set, it wins over whatever a trusted proxy reports.
#[tokio::test]
async fn public_url_wins_over_trusted_proxy() {
    let server = Server::start_with(&[
        "--trusted-proxy=127.0.0.1/32",
        "--public-url=https://snip.example.org/",
    ]);
    let (json, _) = create_with(
        &server,
        &[("x-forwarded-proto", "http"), ("host", "evil.example")],
    )
    .await;
    let id = json["id"].as_str().unwrap();
    assert_eq!(json["url"], format!("https://snip.example.org/{id}"));
}

/// A Host a trusted proxy passes that is not a plain host name is not put in URLs.
#[tokio::test]
async fn malformed_forwarded_host_falls_back_to_listen_address() {
    let server = Server::start_with(&["--trusted-proxy=127.0.0.1/32"]);
    let (json, _) = create_with(&server, &[("host", "a.example/<b>")]).await;
    let id = json["id"].as_str().unwrap();
    assert_eq!(json["url"], format!("{}/{id}", server.url));
}

/// With --proxy-headers=forwarded, the RFC 7239 header sets client IP, scheme and host; X-Forwarded-* is ignored.
#[tokio::test]
async fn forwarded_header_mode() {
    let server = Server::start_with(&[
        "--trusted-proxy=127.0.0.1/32",
        "--proxy-headers=forwarded",
        "--ip-rate=1/h",
        "--ip-burst=1",
    ]);
    let forwarded = r#"for="[2001:db8::7]:4711";proto=https;host=paste.example.com"#;
    let (json, _) = create_with(&server, &[("forwarded", forwarded)]).await;
    let id = json["id"].as_str().unwrap();
    assert_eq!(json["url"], format!("https://paste.example.com/{id}"));
    // That client's one request is spent; another client behind the same proxy is not limited.
    assert_eq!(status_as(&server, &[("forwarded", forwarded)]).await, 429);
    let other = r#"for=198.51.100.4, for="_gateway""#;
    assert_eq!(
        status_as(&server, &[("forwarded", "for=198.51.100.4")]).await,
        200
    );
    // An obfuscated hop ends the walk at the proxy (the peer): its own bucket.
    assert_eq!(status_as(&server, &[("forwarded", other)]).await, 200);
    // X-Forwarded-For is not read in this mode: these all count as the peer, now spent.
    assert_eq!(
        status_as(&server, &[("x-forwarded-for", "203.0.113.50")]).await,
        429
    );
    // A malformed Forwarded header is ignored as a whole (the peer again).
    assert_eq!(
        status_as(&server, &[("forwarded", r#"for="203.0.113.51"#)]).await,
        429
    );
}

/// A client that sends its own X-Forwarded-For through a trusted proxy is still known by the proxy's entry.
#[tokio::test]
async fn forged_x_forwarded_for_entries_are_skipped() {
    let server = Server::start_with(&[
        "--trusted-proxy=127.0.0.1/32",
        "--ip-rate=1/h",
        "--ip-burst=1",
    ]);
    let xff = |v: &'static str| [("x-forwarded-for", v)];
    assert_eq!(status_as(&server, &xff("203.0.113.1")).await, 200);
    // The proxy appended 203.0.113.1; the forged 198.51.100.9 to its left is not believed.
    assert_eq!(
        status_as(&server, &xff("198.51.100.9, 203.0.113.1")).await,
        429
    );
    assert_eq!(status_as(&server, &xff("198.51.100.9")).await, 200);
}

/// --proxy-protocol without --trusted-proxy is refused at startup with a message naming the missing flag.
#[test]
fn proxy_protocol_needs_trusted_proxies() {
    let tmp = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .args(["serve", "--listen=127.0.0.1:0", "--proxy-protocol"])
        .arg(format!("--data-dir={}", tmp.path().display()))
        .env_remove("SNIP_TRUSTED_PROXY")
        .env_remove("SNIP_CONFIG")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--proxy-protocol needs --trusted-proxy"),
        "{stderr}"
    );
}

/// SNIP_PROXY_PROTOCOL=false means off: the server starts without any --trusted-proxy.
#[test]
fn proxy_protocol_false_in_environment_is_off() {
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .args(["serve", "--listen=127.0.0.1:0"])
        .arg(format!("--data-dir={}", tmp.path().display()))
        .env("SNIP_PROXY_PROTOCOL", "false")
        .env_remove("SNIP_TRUSTED_PROXY")
        .env_remove("SNIP_CONFIG")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    for line in stderr.lines().map_while(Result::ok) {
        let started = line.contains("listening on http://");
        seen.push(line);
        if started {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        seen.iter().any(|l| l.contains("listening on http://")),
        "{seen:?}"
    );
}
