//! Multi-tenancy against a real server: isolation, quotas, rate limits,
//! revocation, anonymous policies, listing, short links and the admin API.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::support::{
    Fetch, Server, client,
    slow::SlowCreate,
    tenants::{
        ADMIN, admin, create_as, create_status, ids, list, request, start, status, tenant, token,
        try_create, update,
    },
};

/// Who calls, in the isolation matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Anonymous,
    A,
    B,
    AReadOnly,
    ARevoked,
    AExpired,
}

/// What they try, in the isolation matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Create,
    ReadUnlisted,
    ReadPrivate,
    List,
    DeleteWithoutToken,
    MetaPrivate,
}

/// Every principal × operation gets exactly the status the code promises.
#[tokio::test]
async fn isolation_matrix() {
    use Op::*;
    use Who::*;
    let server = start(&[]);
    let a = tenant(&server, "team-a", json!({})).await;
    let b = tenant(&server, "team-b", json!({})).await;
    let (_, a_ro) = token(&server, "team-a", json!({ "read_only": true })).await;
    let (revoked_id, a_revoked) = token(&server, "team-a", json!({})).await;
    let (_, a_expired) = token(&server, "team-a", json!({ "expires": "1s" })).await;
    let (code, _) = admin(
        &server,
        Method::DELETE,
        &format!("/api/admin/tokens/{revoked_id}"),
        None,
    )
    .await;
    assert_eq!(code, 204);
    tokio::time::sleep(Duration::from_millis(2100)).await;

    let unlisted = create_as(&server, Some(&a), "unlisted of A", "").await;
    let private = create_as(&server, Some(&a), "private of A", "visibility=private").await;

    let token_of = |who: Who| -> Option<&str> {
        match who {
            Anonymous => None,
            A => Some(&a),
            B => Some(&b),
            AReadOnly => Some(&a_ro),
            ARevoked => Some(&a_revoked),
            AExpired => Some(&a_expired),
        }
    };
    // Columns: Create, ReadUnlisted, ReadPrivate, List, DeleteWithoutToken, MetaPrivate.
    let ops = [
        Create,
        ReadUnlisted,
        ReadPrivate,
        List,
        DeleteWithoutToken,
        MetaPrivate,
    ];
    let table: [(Who, [u16; 6]); 6] = [
        (Anonymous, [201, 200, 404, 401, 403, 404]),
        (A, [201, 200, 200, 200, 204, 200]),
        (B, [201, 200, 404, 200, 403, 404]),
        (AReadOnly, [403, 200, 200, 200, 403, 200]),
        (ARevoked, [401, 401, 401, 401, 401, 401]),
        (AExpired, [401, 401, 401, 401, 401, 401]),
    ];
    for (who, expected) in table {
        for (op, want) in ops.into_iter().zip(expected) {
            let token = token_of(who);
            let got = match op {
                Create => {
                    let (code, _) = try_create(&server, token, "hello", "").await;
                    code.as_u16()
                }
                ReadUnlisted => {
                    status(&server, Method::GET, &format!("/raw/{unlisted}"), token).await
                }
                ReadPrivate => {
                    status(&server, Method::GET, &format!("/raw/{private}"), token).await
                }
                List => status(&server, Method::GET, "/api/pastes", token).await,
                DeleteWithoutToken => {
                    // A fresh paste each time, so one successful delete does not change the next cell.
                    let victim = create_as(&server, Some(&a), "victim", "").await;
                    status(&server, Method::DELETE, &format!("/{victim}"), token).await
                }
                MetaPrivate => {
                    status(
                        &server,
                        Method::GET,
                        &format!("/api/pastes/{private}"),
                        token,
                    )
                    .await
                }
            };
            assert_eq!(got, want, "principal {who:?}, operation {op:?}");
        }
    }
}

/// A tenant's byte quota refuses the paste that would pass it with 507, and deleting or burning frees it.
#[tokio::test]
async fn quota_fill_delete_and_burn() {
    let server = start(&[]);
    let a = tenant(&server, "quota", json!({ "max_bytes": 1000 })).await;
    let mut pastes = Vec::new();
    for _ in 0..4 {
        pastes.push(create_as(&server, Some(&a), vec![b'x'; 250], "").await);
    }
    let (code, answer) = try_create(&server, Some(&a), "y", "").await;
    assert_eq!(code, 507);
    assert!(
        answer.to_string().contains("quota of 1000 bytes"),
        "{answer}"
    );

    let code = status(
        &server,
        Method::DELETE,
        &format!("/{}", pastes[0]),
        Some(&a),
    )
    .await;
    assert_eq!(code, 204);
    let burn = create_as(&server, Some(&a), vec![b'b'; 250], "burn=true").await;
    assert_eq!(try_create(&server, Some(&a), "y", "").await.0, 507);
    let reveal = request(&server, Method::POST, &format!("/{burn}/reveal"), Some(&a))
        .fetch()
        .await;
    assert_eq!(reveal.status(), 200);
    assert_eq!(
        try_create(&server, Some(&a), vec![b'z'; 250], "").await.0,
        201
    );
}

/// Forty parallel 100-byte creates against a 1000-byte quota: exactly ten
/// succeed, and the thirty refused store nothing and count for nothing.
#[tokio::test]
async fn quota_holds_under_concurrency() {
    let server = start(&[]);
    let a = tenant(&server, "busy", json!({ "max_bytes": 1000 })).await;
    let mut tasks = Vec::new();
    for _ in 0..40 {
        let (url, a) = (server.url.clone(), a.clone());
        tasks.push(tokio::spawn(create_status(url, a, vec![b'c'; 100])));
    }
    let mut codes = Vec::new();
    for task in tasks {
        codes.push(task.await.unwrap());
    }
    assert_eq!(codes.iter().filter(|c| **c == 201).count(), 10, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 507).count(), 30, "{codes:?}");
    // The refused left nothing behind: ten pastes, and their bytes only.
    let stored = ids(&list(&server, &a, "limit=100").await);
    assert_eq!(stored.len(), 10, "{stored:?}");
    let code = status(
        &server,
        Method::DELETE,
        &format!("/{}", stored[0]),
        Some(&a),
    )
    .await;
    assert_eq!(code, 204);
    assert_eq!(
        try_create(&server, Some(&a), vec![b'c'; 100], "").await.0,
        201
    );
    assert_eq!(try_create(&server, Some(&a), "c", "").await.0, 507);
}

/// Raising or removing the quota with the admin API applies to the very next request.
#[tokio::test]
async fn quota_change_applies_without_restart() {
    let server = start(&[]);
    let a = tenant(&server, "grow", json!({ "max_bytes": 100 })).await;
    create_as(&server, Some(&a), vec![b'x'; 100], "").await;
    assert_eq!(try_create(&server, Some(&a), "more", "").await.0, 507);
    update(&server, "grow", json!({ "max_bytes": 200 })).await;
    assert_eq!(try_create(&server, Some(&a), "more", "").await.0, 201);
    update(&server, "grow", json!({ "max_bytes": 104 })).await;
    assert_eq!(try_create(&server, Some(&a), "more", "").await.0, 507);
    update(&server, "grow", json!({ "max_bytes": null })).await;
    assert_eq!(try_create(&server, Some(&a), "more", "").await.0, 201);
}

/// A tenant's own paste size limit answers 413 above it, and other tenants keep the server's.
#[tokio::test]
async fn tenant_max_paste_size() {
    let server = start(&[]);
    let a = tenant(&server, "small", json!({ "max_paste_bytes": 10 })).await;
    let b = tenant(&server, "large", json!({})).await;
    assert_eq!(try_create(&server, Some(&a), "0123456789", "").await.0, 201);
    let (code, answer) = try_create(&server, Some(&a), "0123456789a", "").await;
    assert_eq!(code, 413);
    assert!(answer.to_string().contains("10 bytes"), "{answer}");
    assert_eq!(
        try_create(&server, Some(&b), "0123456789a", "").await.0,
        201
    );
}

/// A tenant's burst passes with RateLimit headers, then 429 with Retry-After; another tenant is unaffected.
#[tokio::test]
async fn tenant_rate_limit() {
    let server = start(&[]);
    let a = tenant(&server, "chatty", json!({})).await;
    let b = tenant(&server, "quiet", json!({})).await;
    // 5/m, not 5/s: a backend whose requests take milliseconds (PostgreSQL)
    // must not see the bucket refill between the burst and the last check.
    update(&server, "chatty", json!({ "rate": "5/m", "burst": 5 })).await;
    let mut allowed = 0;
    let mut limited = None;
    for _ in 0..12 {
        let response = request(&server, Method::GET, "/api/pastes", Some(&a))
            .fetch()
            .await;
        if response.status() == 429 {
            limited = Some(response);
            break;
        }
        assert_eq!(response.status(), 200);
        let headers = response.headers();
        assert_eq!(headers["ratelimit-limit"], "5");
        let remaining: u32 = headers["ratelimit-remaining"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(remaining < 5, "{remaining}");
        allowed += 1;
    }
    // A request may refill while the burst is sent on a slow machine; never fewer than the burst.
    assert!((5..12).contains(&allowed), "{allowed} allowed");
    let limited = limited.expect("never limited");
    let retry: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1, "{retry}");
    assert_eq!(limited.headers()["ratelimit-remaining"], "0");
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(&b)).await,
        200
    );
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(&a)).await,
        429
    );
}

/// Anonymous clients are limited per IP: the burst passes, then 429.
#[tokio::test]
async fn anonymous_ip_rate_limit() {
    // 2/m, not 2/s: on a busy machine six requests may take long enough for
    // a per-second bucket to refill, and none would be refused.
    let server = start(&["--ip-rate=2/m", "--ip-burst=3"]);
    let id = server.create("hi", "").await.0;
    let mut codes = Vec::new();
    for _ in 0..6 {
        codes.push(status(&server, Method::GET, &format!("/raw/{id}"), None).await);
    }
    assert!(codes.contains(&429), "{codes:?}");
    let first_limited = codes.iter().position(|c| *c == 429).unwrap();
    assert!(first_limited >= 2, "{codes:?}");
    assert!(
        codes[..first_limited].iter().all(|c| *c == 200),
        "{codes:?}"
    );
}

/// Requests with a bad token count against the client's IP bucket, so token guessing is rate limited.
#[tokio::test]
async fn bad_tokens_are_rate_limited() {
    let server = start(&["--ip-rate=1/h", "--ip-burst=2"]);
    let guess = "snip_0000000000000000000000000000000000000000";
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(guess)).await,
        401
    );
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(guess)).await,
        401
    );
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(guess)).await,
        429
    );
}

/// Behind a trusted proxy each X-Forwarded-For client has its own bucket; otherwise they share the peer's.
#[tokio::test]
async fn trusted_proxy_buckets() {
    let get = |server: &Server, forwarded: &str| {
        client()
            .get(server.at("/api/pastes/zzzzzzzz"))
            .header("x-forwarded-for", forwarded)
            .send()
    };
    let trusting = start(&[
        "--trusted-proxy=127.0.0.1/32",
        "--ip-rate=1/h",
        "--ip-burst=1",
    ]);
    assert_ne!(get(&trusting, "203.0.113.1").await.unwrap().status(), 429);
    assert_eq!(get(&trusting, "203.0.113.1").await.unwrap().status(), 429);
    assert_ne!(get(&trusting, "203.0.113.2").await.unwrap().status(), 429);

    let direct = start(&["--ip-rate=1/h", "--ip-burst=1"]);
    assert_ne!(get(&direct, "203.0.113.1").await.unwrap().status(), 429);
    assert_eq!(get(&direct, "203.0.113.2").await.unwrap().status(), 429);
}

/// IPv6 clients share a bucket per /64 by default (one subscriber holds a
/// whole /64), and per address with --ipv6-prefix=128.
#[tokio::test]
async fn ipv6_clients_are_limited_per_network() {
    let get = |server: &Server, forwarded: &str| {
        client()
            .get(server.at("/api/pastes/zzzzzzzz"))
            .header("x-forwarded-for", forwarded)
            .send()
    };
    let flags = [
        "--trusted-proxy=127.0.0.1/32",
        "--ip-rate=1/h",
        "--ip-burst=1",
    ];
    let server = start(&flags);
    assert_ne!(get(&server, "2001:db8::1").await.unwrap().status(), 429);
    assert_eq!(get(&server, "2001:db8::2").await.unwrap().status(), 429);
    assert_ne!(get(&server, "2001:db8:0:1::1").await.unwrap().status(), 429);

    let per_address = start(&[flags.as_slice(), &["--ipv6-prefix=128"]].concat());
    assert_ne!(
        get(&per_address, "2001:db8::1").await.unwrap().status(),
        429
    );
    assert_ne!(
        get(&per_address, "2001:db8::2").await.unwrap().status(),
        429
    );
    assert_eq!(
        get(&per_address, "2001:db8::2").await.unwrap().status(),
        429
    );
}

/// Revoking a token locks it out at once; a non-empty tenant cannot be deleted, an empty one can, and its tokens die.
#[tokio::test]
async fn revocation_and_tenant_delete() {
    let server = start(&[]);
    let first = tenant(&server, "leaving", json!({})).await;
    let (id, second) = token(&server, "leaving", json!({})).await;
    let paste = create_as(&server, Some(&second), "mine", "visibility=private").await;
    assert_eq!(
        status(
            &server,
            Method::GET,
            &format!("/raw/{paste}"),
            Some(&second)
        )
        .await,
        200
    );
    let (code, _) = admin(
        &server,
        Method::DELETE,
        &format!("/api/admin/tokens/{id}"),
        None,
    )
    .await;
    assert_eq!(code, 204);
    assert_eq!(
        status(
            &server,
            Method::GET,
            &format!("/raw/{paste}"),
            Some(&second)
        )
        .await,
        401
    );
    assert_eq!(
        status(&server, Method::GET, &format!("/raw/{paste}"), Some(&first)).await,
        200
    );

    let (code, answer) = admin(&server, Method::DELETE, "/api/admin/tenants/leaving", None).await;
    assert_eq!(code, 409, "{answer}");
    assert_eq!(
        status(&server, Method::DELETE, &format!("/{paste}"), Some(&first)).await,
        204
    );
    let (code, answer) = admin(&server, Method::DELETE, "/api/admin/tenants/leaving", None).await;
    assert_eq!(code, 204, "{answer}");
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(&first)).await,
        401
    );
    assert_eq!(try_create(&server, Some(&first), "x", "").await.0, 401);
}

/// With --anonymous=read-only anonymous creates are refused (401) but reads work.
#[tokio::test]
async fn anonymous_read_only() {
    let server = start(&["--anonymous=read-only"]);
    let a = tenant(&server, "writer", json!({})).await;
    let id = create_as(&server, Some(&a), "shared", "").await;
    assert_eq!(try_create(&server, None, "anon", "").await.0, 401);
    assert_eq!(
        status(&server, Method::GET, &format!("/raw/{id}"), None).await,
        200
    );
}

/// With --anonymous=off even reading needs a token.
#[tokio::test]
async fn anonymous_off() {
    let server = start(&["--anonymous=off"]);
    let a = tenant(&server, "only", json!({})).await;
    let id = create_as(&server, Some(&a), "closed", "").await;
    assert_eq!(
        status(&server, Method::GET, &format!("/raw/{id}"), None).await,
        401
    );
    assert_eq!(try_create(&server, None, "anon", "").await.0, 401);
    assert_eq!(
        status(&server, Method::GET, &format!("/raw/{id}"), Some(&a)).await,
        200
    );
}

/// Listing is newest first, pages by cursor, filters by name prefix, refuses bad cursors, and shows private pastes to their owner only.
#[tokio::test]
async fn listing() {
    let server = start(&[]);
    let a = tenant(&server, "lister", json!({})).await;
    let b = tenant(&server, "other", json!({})).await;
    let mut created = Vec::new();
    for i in 0..7 {
        let options = format!(
            "name=file{i}.txt{}",
            if i == 3 { "&visibility=private" } else { "" }
        );
        created.push(create_as(&server, Some(&a), format!("paste {i}"), &options).await);
        // Creation times (and so the order) have a resolution of one second.
        tokio::time::sleep(Duration::from_millis(1050)).await;
    }
    create_as(&server, Some(&a), "log", "name=build.log").await;
    create_as(&server, Some(&b), "b's", "name=file9.txt").await;

    let mut seen = Vec::new();
    let mut cursor = String::new();
    let mut pages = 0;
    loop {
        let query = if cursor.is_empty() {
            "limit=3&name_prefix=file".to_owned()
        } else {
            format!("limit=3&name_prefix=file&cursor={cursor}")
        };
        let page = list(&server, &a, &query).await;
        pages += 1;
        assert!(ids(&page).len() <= 3);
        seen.extend(ids(&page));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
        assert!(pages < 10, "cursor never ends");
    }
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();
    assert_eq!(seen, newest_first);
    assert_eq!(pages, 3);

    let all = list(&server, &a, "").await;
    assert_eq!(ids(&all).len(), 8);
    assert_eq!(all["pastes"][0]["name"], "build.log");
    let others = list(&server, &b, "").await;
    assert_eq!(ids(&others).len(), 1);
    assert!(!ids(&others).contains(&created[3]));

    let bad = request(&server, Method::GET, "/api/pastes?cursor=garbage", Some(&a))
        .fetch()
        .await;
    assert_eq!(bad.status(), 400);

    // No name holds a control or format character or passes 255 bytes, so neither may
    // a prefix (a NUL once made PostgreSQL fail the query with a 500).
    let long = "a".repeat(256);
    for prefix in ["file%00", "%C3%BB%0F", "a%0Ab", "a%E2%80%AE", long.as_str()] {
        let bad = request(
            &server,
            Method::GET,
            &format!("/api/pastes?name_prefix={prefix}"),
            Some(&a),
        )
        .fetch()
        .await;
        assert_eq!(bad.status(), 400, "{prefix}");
        let message = bad.text().await.unwrap();
        assert!(message.contains("name_prefix"), "{message}");
    }
}

/// A short link redirects to its http(s) target; other schemes and bodies are refused.
#[tokio::test]
async fn short_links() {
    let server = start(&[]);
    let (code, answer) = try_create(&server, None, "", "url=https://example.com/x").await;
    assert_eq!(code, 201, "{answer}");
    let id = answer["id"].as_str().unwrap();
    let response = server.get(&format!("/{id}")).await;
    assert_eq!(response.status(), 302);
    assert_eq!(response.headers()["location"], "https://example.com/x");

    for bad in ["url=javascript:alert(1)", "url=ftp://x"] {
        assert_eq!(try_create(&server, None, "", bad).await.0, 400, "{bad}");
    }
    let with_body = try_create(&server, None, "body", "url=https://example.com/").await;
    assert_eq!(with_body.0, 400);
}

/// A short link's target may not carry userinfo: neither a password nor a
/// user name that disguises the real host (`https://bank.example@evil.example/`).
#[tokio::test]
async fn short_links_refuse_userinfo() {
    let server = start(&[]);
    for bad in [
        "url=http://user:pw@example.com/",
        "url=https://bank.example%40evil.example/",
        "url=https://user@example.com/x",
        "url=https://:pw@example.com/x",
    ] {
        let (code, answer) = try_create(&server, None, "", bad).await;
        assert_eq!(code, 400, "{bad}: {answer}");
        let message = answer.to_string();
        assert!(
            message.contains("user name or password"),
            "{bad}: {message}"
        );
    }
}

/// The admin API answers 401 without a token, 403 with a wrong one, and 404 with a reason when it is off.
#[tokio::test]
async fn admin_api_auth() {
    let server = start(&[]);
    let url = server.at("/api/admin/tenants");
    assert_eq!(client().get(&url).fetch().await.status(), 401);
    let wrong = client()
        .get(&url)
        .bearer_auth("not-the-admin-token-at-all")
        .fetch()
        .await;
    assert_eq!(wrong.status(), 403);
    let right = client().get(&url).bearer_auth(ADMIN).fetch().await;
    assert_eq!(right.status(), 200);

    let off = Server::start();
    let response = off
        .request(Method::GET, "/api/admin/tenants")
        .bearer_auth(ADMIN)
        .fetch()
        .await;
    assert_eq!(response.status(), 404);
    let text = response.text().await.unwrap();
    assert!(text.contains("--admin-token"), "{text}");
}

/// A burst, rate or paste size limit beyond what every backend can store
/// is a 400, on create and on update.
#[tokio::test]
async fn oversized_burst_rate_and_paste_limit_are_refused() {
    let server = start(&[]);
    for body in [
        serde_json::json!({"name": "big", "burst": 2_147_483_649u64}),
        serde_json::json!({"name": "big", "rate": "3000000000/s"}),
        serde_json::json!({"name": "big", "max_paste_bytes": 1_073_741_825u64}),
    ] {
        let response = server
            .request(Method::POST, "/api/admin/tenants")
            .bearer_auth(ADMIN)
            .json(&body)
            .fetch()
            .await;
        assert_eq!(response.status(), 400, "{body}");
    }
    let created = server
        .request(Method::POST, "/api/admin/tenants")
        .bearer_auth(ADMIN)
        .json(&serde_json::json!({"name": "ok", "burst": 1_000_000}))
        .fetch()
        .await;
    assert_eq!(created.status(), 201);
    let update = server
        .request(Method::PATCH, "/api/admin/tenants/ok")
        .bearer_auth(ADMIN)
        .json(&serde_json::json!({"burst": 4_294_967_294u64}))
        .fetch()
        .await;
    assert_eq!(update.status(), 400);
    let update = server
        .request(Method::PATCH, "/api/admin/tenants/ok")
        .bearer_auth(ADMIN)
        .json(&serde_json::json!({"max_paste_bytes": 1_073_741_825u64}))
        .fetch()
        .await;
    assert_eq!(update.status(), 400);
    let text = update.text().await.unwrap();
    assert!(text.contains("at most 1073741824"), "{text}");
    let tenant = server
        .request(Method::GET, "/api/admin/tenants")
        .bearer_auth(ADMIN)
        .fetch()
        .await
        .text()
        .await
        .unwrap();
    assert!(tenant.contains(r#""max_paste_bytes":null"#), "{tenant}");
}

/// A create whose token was checked before its tenant was deleted, and whose
/// body arrives after, is refused like a revoked token, and stores nothing: a
/// tenant re-created under the same name finds no paste.
#[tokio::test]
async fn a_paste_cannot_outlive_its_tenant() {
    let server = start(&[]);
    let token = tenant(&server, "leaving", json!({})).await;
    let auth = format!("Authorization: Bearer {token}\r\n");
    let create = SlowCreate::begin(
        &server,
        "/?visibility=private",
        &auth,
        b"written after the delete",
    )
    .await;
    let (code, answer) = admin(&server, Method::DELETE, "/api/admin/tenants/leaving", None).await;
    assert_eq!(code, 204, "{answer}");
    let (status, answer) = create.finish().await;
    assert_eq!(status, 401, "{answer}");
    assert!(answer.contains("unknown or revoked token"), "{answer}");

    let again = tenant(&server, "leaving", json!({})).await;
    assert!(ids(&list(&server, &again, "").await).is_empty());
    let (code, answer) = admin(&server, Method::DELETE, "/api/admin/tenants/leaving", None).await;
    assert_eq!(code, 204, "{answer}");
}

/// Admin requests count against the client's IP bucket before the token is
/// compared: wrong guesses run into `429`, and past the limit even the right
/// token gets `429`, so a guesser cannot tell a right guess by its answer.
#[tokio::test]
async fn admin_token_guesses_are_rate_limited() {
    let server = start(&["--ip-rate=1/h", "--ip-burst=3"]);
    let guess = |token: &'static str| {
        server
            .request(Method::GET, "/api/admin/tenants")
            .bearer_auth(token)
            .fetch()
    };
    assert_eq!(guess("wrong-admin-token-0000").await.status(), 403);
    assert_eq!(guess("wrong-admin-token-0001").await.status(), 403);
    assert_eq!(guess(ADMIN).await.status(), 200);
    let limited = guess("wrong-admin-token-0002").await;
    assert_eq!(limited.status(), 429);
    assert!(limited.headers().contains_key("retry-after"));
    assert_eq!(guess(ADMIN).await.status(), 429);
}

/// --admin-token-file reads the admin token from a file; giving it together
/// with --admin-token is refused at startup with a message naming both.
#[tokio::test]
async fn admin_token_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("admin-token");
    std::fs::write(&file, format!("{ADMIN}\n")).unwrap();
    let flag = format!("--admin-token-file={}", file.display());
    let server = Server::start_with(&[&flag]);
    let (code, answer) = admin(&server, Method::GET, "/api/admin/tenants", None).await;
    assert_eq!(code, 200, "{answer}");

    let both = Server::try_start_with(&[&flag, &format!("--admin-token={ADMIN}")]);
    let logs = both.err().expect("refused with both admin token flags");
    assert!(
        logs.contains("--admin-token and --admin-token-file"),
        "{logs}"
    );
}

/// A name prefix is matched literally on every store: `%`, `_` and `\` are
/// not patterns, so a prefix with them matches its own paste and no other.
#[tokio::test]
async fn name_prefixes_are_literal() {
    let server = start(&[]);
    let token = tenant(&server, "literal", json!({})).await;
    let own = create_as(&server, Some(&token), "x", "name=50%25_off.txt").await;
    create_as(&server, Some(&token), "x", "name=50xyoff.txt").await;
    create_as(&server, Some(&token), "x", "name=5").await;
    assert_eq!(
        ids(&list(&server, &token, "name_prefix=50%25_").await),
        [own]
    );
    assert!(ids(&list(&server, &token, "name_prefix=50%25%5C").await).is_empty());
    assert!(ids(&list(&server, &token, "name_prefix=_").await).is_empty());
}

/// A tenant re-created under a deleted one's name starts with a full rate
/// bucket: it inherits nothing, not even the old tenant's spent requests.
#[tokio::test]
async fn a_recreated_tenant_does_not_inherit_the_rate_bucket() {
    let server = start(&[]);
    let limits = json!({ "rate": "1/h", "burst": 1 });
    let old = tenant(&server, "phoenix", limits.clone()).await;
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(&old)).await,
        200
    );
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(&old)).await,
        429
    );
    assert_eq!(
        admin(&server, Method::DELETE, "/api/admin/tenants/phoenix", None)
            .await
            .0,
        204
    );
    let new = tenant(&server, "phoenix", limits).await;
    assert_eq!(
        status(&server, Method::GET, "/api/pastes", Some(&new)).await,
        200,
        "the re-created tenant got the old tenant's spent bucket"
    );
}
