//! Expiry against a real server: expired pastes are never served, the sweeper
//! gives their disk space back, and the TTL limits are enforced.

use std::time::{Duration, Instant, SystemTime};

use crate::support::{
    Server,
    cli::{failed, run_cli, stdout, succeeded},
    client,
    data::{XorShift, dir_size, disk_usage},
    http::{create_json, get_bytes},
    wait::PATIENCE,
};

/// Seconds from now to an RFC 3339 `expires_at`.
fn seconds_ahead(expires_at: &serde_json::Value) -> u64 {
    let expires = humantime::parse_rfc3339(expires_at.as_str().unwrap()).unwrap();
    expires.duration_since(SystemTime::now()).unwrap().as_secs()
}

/// A ttl=1 paste is served at first and answers 404 on every read route ~2 s later, long before any sweep.
#[tokio::test]
async fn expired_paste_is_not_served_before_sweep() {
    let server = Server::start_with(&["--sweep-interval=1h"]);
    let http = client();
    let json = create_json(&http, &server.url, "short-lived", "ttl=1").await;
    let id = json["id"].as_str().unwrap();
    let routes = [
        format!("/{id}"),
        format!("/raw/{id}"),
        format!("/api/pastes/{id}"),
    ];
    for route in &routes {
        let (status, _) = get_bytes(&http, &server.at(route)).await;
        assert_eq!(status, 200, "{route} right after creation");
    }
    // Expiry is in whole seconds, rounded up: a ttl=1 paste lives more than 1 s, at most 2 s.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    for route in &routes {
        let (status, _) = get_bytes(&http, &server.at(route)).await;
        assert_eq!(status, 404, "{route} after expiry");
    }
    // Log lines keep their order: once the reads' lines are out, so is any
    // sweep line from before them.
    assert!(server.wait_for_request_logs().await);
    assert!(
        !server.log_text().contains("swept expired pastes"),
        "the sweeper ran, so this did not test read-time expiry"
    );
}

/// Writing ~50 MB of 1-second pastes and waiting for the sweeper shrinks the data dir to a fraction of its peak.
#[tokio::test]
async fn sweeper_reclaims_disk_space() {
    if crate::support::postgres::skip_on_postgres(
        "PostgreSQL's disk space is the database's business, not the data dir's",
    ) {
        return;
    }
    const PASTES: usize = 200;
    const SIZE: usize = 256 * 1024;
    let server = Server::start_with(&["--sweep-interval=1s"]);
    let http = client();
    let mut rng = XorShift(0x5eed);
    let baseline = disk_usage(&server.data_dir);
    let mut peak = baseline;
    let mut peak_apparent = dir_size(&server.data_dir);
    for i in 0..PASTES {
        // Incompressible bytes, so no compression can hide whether space comes back.
        create_json(&http, &server.url, rng.bytes(SIZE), "ttl=1").await;
        if i % 10 == 9 {
            peak = peak.max(disk_usage(&server.data_dir));
            peak_apparent = peak_apparent.max(dir_size(&server.data_dir));
        }
    }
    let written = (PASTES * SIZE) as u64;
    // The sweeper runs while we write, so the peak depends on timing; but the
    // last 10 pastes written before a measurement (1 s of life at least) were there.
    assert!(
        peak >= 10 * SIZE as u64,
        "the data dir never held the pastes (peak {peak} B)"
    );

    // Space is measured as allocated blocks (what du and df see): fjall
    // preallocates its 64 MiB journal as a sparse file, which `dir_size`
    // counts in full however little of it is written.
    let started = Instant::now();
    let mut now = disk_usage(&server.data_dir);
    while (server.swept_count() < PASTES as u64 || now >= peak / 4) && started.elapsed() < PATIENCE
    {
        tokio::time::sleep(Duration::from_millis(250)).await;
        now = disk_usage(&server.data_dir);
    }
    eprintln!(
        "wrote {written} B in {PASTES} pastes; data dir on disk: {baseline} B at start, \
         peak {peak} B, {now} B {:.1} s after the last write \
         (apparent size: peak {peak_apparent} B, now {} B)",
        started.elapsed().as_secs_f64(),
        dir_size(&server.data_dir)
    );
    assert_eq!(
        server.swept_count(),
        PASTES as u64,
        "the sweeper did not remove every paste"
    );
    assert!(
        now < peak / 4 && now < written / 4,
        "the data dir did not shrink: {now} B on disk after the sweep, peak {peak} B\nlogs:\n{}",
        server.log_text()
    );
    let (status, _) = get_bytes(&http, &server.at("/healthz")).await;
    assert_eq!(status, 200);
}

/// `--max-ttl` refuses longer TTLs and `never`, and `--default-ttl` sets the expiry of pastes that ask for none.
#[tokio::test]
async fn ttl_limits_and_default() {
    let server = Server::start_with(&["--max-ttl=1h", "--default-ttl=10m"]);
    let http = client();
    for ttl in ["2h", "never", "3601"] {
        let response = server.post(&format!("/?ttl={ttl}"), "too long").await;
        assert_eq!(response.status(), 400, "ttl={ttl}");
        let message = response.text().await.unwrap();
        assert!(message.contains("at most 1h"), "ttl={ttl}: {message}");
    }
    create_json(&http, &server.url, "an hour", "ttl=1h").await;

    let json = create_json(&http, &server.url, "default", "").await;
    let ahead = seconds_ahead(&json["expires_at"]);
    assert!((590..=610).contains(&ahead), "expires {ahead} s ahead");
}

/// With only `--max-ttl 1d`, a paste that asks for no ttl (curl's plain
/// upload, `snip put`) is kept for that day instead of refused.
#[tokio::test]
async fn a_max_ttl_alone_is_the_default_lifetime() {
    let server = Server::start_with(&["--max-ttl=1d"]);
    let http = client();
    let json = create_json(&http, &server.url, "hello\n", "").await;
    let ahead = seconds_ahead(&json["expires_at"]);
    assert!(
        (86_390..=86_410).contains(&ahead),
        "expires {ahead} s ahead"
    );

    let dir = tempfile::tempdir().unwrap();
    let put = run_cli(&server, dir.path(), &[], &["put", "--json"], b"hello\n");
    succeeded(&put);
    let answer: serde_json::Value = serde_json::from_str(&stdout(&put)).unwrap();
    let ahead = seconds_ahead(&answer[0]["expires_at"]);
    assert!(
        (86_390..=86_410).contains(&ahead),
        "expires {ahead} s ahead"
    );

    let refused = server.post("/?ttl=never", "forever").await;
    assert_eq!(refused.status(), 400);
    let message = refused.text().await.unwrap();
    assert!(message.contains("at most 1d on this server"), "{message}");
}

/// The ttl grammar is case-exact and small: `10M` (not ten months), `1y`,
/// `1month`, `2 days` are refused with the accepted units named, and create
/// nothing; the documented forms are taken.
#[tokio::test]
async fn ttls_outside_the_grammar_are_refused_naming_the_units() {
    let server = Server::start();
    let http = client();
    for ttl in ["10M", "1y", "1month", "2%20days", "1H"] {
        let response = server.post(&format!("/?ttl={ttl}"), "x").await;
        assert_eq!(response.status(), 400, "ttl={ttl}");
        let message = response.text().await.unwrap();
        assert!(
            message.contains("unknown unit") && message.contains("s, m, h, d and w"),
            "ttl={ttl}: {message}"
        );
    }
    for (ttl, secs) in [("10m", 600), ("90", 90), ("2w", 1_209_600)] {
        let json = create_json(&http, &server.url, "x", &format!("ttl={ttl}")).await;
        let ahead = seconds_ahead(&json["expires_at"]);
        assert!(
            (secs - 10..=secs + 10).contains(&ahead),
            "ttl={ttl}: expires {ahead} s ahead"
        );
    }
    let (_, metrics) = server.text("/metrics").await;
    assert!(
        metrics.contains("\nsnip_pastes_total{event=\"created\"} 3\n"),
        "only the three good ttls created a paste:\n{metrics}"
    );
}

/// `snip put` checks its ttl with the server's grammar before it sends
/// anything, and names where the ttl came from.
#[test]
fn the_client_refuses_a_ttl_outside_the_grammar() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let put = run_cli(&server, dir.path(), &[], &["put", "--ttl", "10M"], b"x");
    let message = failed(&put);
    assert!(
        message.contains("unknown unit") && message.contains("s, m, h, d and w"),
        "{message}"
    );
    let env = [("SNIP_TTL", "1month")];
    let put = run_cli(&server, dir.path(), &env, &["put"], b"x");
    let message = failed(&put);
    assert!(message.contains("SNIP_TTL"), "{message}");
    assert!(stdout(&put).is_empty());
}

/// Runs `snip serve ARGS`, which must refuse to start; what it printed.
fn refused_start(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .arg("serve")
        .arg("--listen=127.0.0.1:0")
        .arg(format!("--data-dir={}", dir.path().join("data").display()))
        .args(args)
        .env_remove("SNIP_CONFIG")
        .env_remove("SNIP_DEFAULT_TTL")
        .env_remove("SNIP_MAX_TTL")
        .env_remove("SNIP_TTL_CHOICES")
        .output()
        .unwrap();
    failed(&out)
}

/// A default lifetime, or a choice of the form, longer than `--max-ttl`
/// stops the start with a message naming both, instead of a server that
/// refuses every paste without a ttl.
#[test]
fn lifetimes_longer_than_the_max_stop_the_start() {
    let message = refused_start(&["--default-ttl=1w", "--max-ttl=1d"]);
    assert!(
        message.contains("--default-ttl 1w is longer than --max-ttl 1d"),
        "{message}"
    );
    let message = refused_start(&["--ttl-choices=1h,1w", "--max-ttl=1d"]);
    assert!(
        message.contains("--ttl-choices offers 1w, longer than --max-ttl 1d"),
        "{message}"
    );
    let message = refused_start(&["--max-ttl=10M"]);
    assert!(message.contains("s, m, h, d and w"), "{message}");
}

/// A sweeper with nothing to sweep waits for a write instead of waking
/// every interval; a paste created later with a ttl still wakes it, and is
/// swept once expired.
#[tokio::test]
async fn an_idle_sweeper_waits_for_a_write_then_sweeps() {
    if crate::support::postgres::skip_on_postgres(
        "other instances write to PostgreSQL, so its sweeper never waits for a write",
    ) {
        return;
    }
    let server = Server::start_with(&[
        "--sweep-interval=1s",
        "--log=info,snip::server::sweeper=debug",
    ]);
    assert!(
        server.wait_for_log("the sweeper waits for a write"),
        "an empty store's sweeper did not wait:\n{}",
        server.log_text()
    );
    let http = client();
    let json = create_json(&http, &server.url, "short-lived", "ttl=1").await;
    let id = json["id"].as_str().unwrap();
    assert!(
        server.wait_for_log("swept expired pastes"),
        "the write did not wake the sweeper:\n{}",
        server.log_text()
    );
    let (status, _) = get_bytes(&http, &server.at(&format!("/raw/{id}"))).await;
    assert_eq!(status, 404);
    assert!(
        server.wait_for_log_count("the sweeper waits for a write", 2, PATIENCE),
        "the sweeper did not wait again once the store was empty:\n{}",
        server.log_text()
    );
}
