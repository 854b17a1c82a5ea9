//! Expiry against a real server: expired pastes are never served, the sweeper
//! gives their disk space back, and the TTL limits are enforced.

use std::time::{Duration, Instant, SystemTime};

use crate::support::{
    Server, client,
    data::{XorShift, dir_size, disk_usage},
    http::{create_json, get_bytes},
    wait::PATIENCE,
};

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
    let expires = humantime::parse_rfc3339(json["expires_at"].as_str().unwrap()).unwrap();
    let ahead = expires.duration_since(SystemTime::now()).unwrap().as_secs();
    assert!((590..=610).contains(&ahead), "expires {ahead} s ahead");
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
