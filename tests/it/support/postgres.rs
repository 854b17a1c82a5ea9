//! The PostgreSQL side of the harness: whether tests run against it, the
//! database they use, and throwaway schemas in it.

/// Whether the tests run against PostgreSQL (`SNIP_TEST_STORE=postgres`).
pub fn on_postgres() -> bool {
    std::env::var("SNIP_TEST_STORE").is_ok_and(|v| v.eq_ignore_ascii_case("postgres"))
}

/// The database the PostgreSQL tests use.
pub fn database_url() -> String {
    std::env::var("SNIP_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// A schema name no other test uses (in this process or another one).
pub fn fresh_schema() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("snip_test_{}_{n}_{nanos}", std::process::id())
}

/// Drops a schema and everything in it (on a thread: callers may be inside a runtime).
pub fn drop_schema(url: &str, schema: &str) {
    let (url, sql) = (
        url.to_owned(),
        format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"),
    );
    let _ = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            if let Ok((client, conn)) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
                tokio::spawn(conn);
                let _ = client.batch_execute(&sql).await;
            }
        });
    })
    .join();
}

/// Prints why a test does not apply to the current backend; true if it should be skipped.
pub fn skip_on_postgres(reason: &str) -> bool {
    if on_postgres() {
        eprintln!("skipped on PostgreSQL: {reason}");
    }
    on_postgres()
}

/// Prints why a test needs PostgreSQL; true if it should be skipped.
pub fn skip_unless_postgres(reason: &str) -> bool {
    if !on_postgres() {
        eprintln!("skipped: {reason}");
    }
    !on_postgres()
}
