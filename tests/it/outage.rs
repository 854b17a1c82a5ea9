//! A database outage while serving: requests fail fast with `503
//! store_unavailable`, and succeed again once the database is back, without
//! restarting snip. Runs a private PostgreSQL cluster (initdb + pg_ctl on a
//! temporary directory and a free port) so stopping it disturbs no other test.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{
    Server, client,
    http::{create_json, get_bytes, get_status},
    ports::free_port,
    postgres::skip_unless_postgres,
    wait::{PATIENCE, eventually},
};

/// How many times the cluster is started on a fresh port when one was taken first.
const TRIES: usize = 5;

/// A throwaway PostgreSQL cluster, stopped and deleted on drop.
struct Cluster {
    bin: PathBuf,
    dir: tempfile::TempDir,
    port: u16,
}

/// The directory of `initdb` and `pg_ctl`, if PostgreSQL's server binaries are installed.
fn pg_bin() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file() && bin.join("pg_ctl").is_file())
        .collect();
    found.sort();
    found.pop()
}

fn is_root() -> bool {
    std::env::var("USER").is_ok_and(|u| u == "root")
        || Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// Runs a PostgreSQL tool, as the `postgres` user when we are root (initdb refuses root).
fn run_pg(bin: &Path, tool: &str, args: &[&str]) -> std::process::Output {
    let program = bin.join(tool);
    let mut command = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&program);
        c
    } else {
        Command::new(&program)
    };
    command.args(args).output().unwrap()
}

impl Cluster {
    fn create(bin: PathBuf) -> Self {
        let dir = tempfile::tempdir().unwrap();
        if is_root() {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(status.success());
        }
        let data = dir.path().join("pgdata");
        let out = run_pg(
            &bin,
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            ],
        );
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut cluster = Self { bin, dir, port: 0 };
        // pg_ctl cannot bind port 0 and say which port it got: a port picked
        // in advance may be taken first, and then the cluster starts on another.
        for _ in 0..TRIES {
            cluster.port = free_port();
            match cluster.try_start() {
                Ok(()) => return cluster,
                Err(log) if log.contains("Address already in use") => {
                    eprintln!("PostgreSQL lost its port, starting it on another:\n{log}");
                }
                Err(log) => panic!("pg_ctl start: {log}"),
            }
        }
        panic!("PostgreSQL lost its port {TRIES} times in a row");
    }

    fn data(&self) -> String {
        self.dir.path().join("pgdata").display().to_string()
    }

    /// Starts the server again on its port (below the range the kernel hands
    /// out, so no other test's server can have taken it meanwhile).
    fn start(&self) {
        if let Err(log) = self.try_start() {
            panic!("pg_ctl start: {log}");
        }
    }

    /// Starts the server on its port; returns pg_ctl's complaint and the server log if it fails.
    fn try_start(&self) -> Result<(), String> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("pg.log").display().to_string();
        let out = run_pg(
            &self.bin,
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "start",
            ],
        );
        if out.status.success() {
            return Ok(());
        }
        let server_log = std::fs::read_to_string(&log).unwrap_or_default();
        Err(format!(
            "{}\n{server_log}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }

    fn stop(&self) {
        let out = run_pg(
            &self.bin,
            "pg_ctl",
            &["-D", &self.data(), "-m", "fast", "-w", "stop"],
        );
        assert!(
            out.status.success(),
            "pg_ctl stop: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = run_pg(
            &self.bin,
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "stop"],
        );
    }
}

/// Stopping the database makes requests fail within seconds with 503 store_unavailable (no hang, no crash); starting it again brings service back by itself, old pastes included.
#[tokio::test]
async fn database_restart_while_serving() {
    if skip_unless_postgres("the outage test runs with SNIP_TEST_STORE=postgres") {
        return;
    }
    let Some(bin) = pg_bin() else {
        eprintln!("skipped: PostgreSQL server binaries (initdb, pg_ctl) are not installed");
        return;
    };
    let cluster = Cluster::create(bin);
    let store = format!("--store={}", cluster.url());
    let server = Server::start_with_store(&[&store, "--store-timeout=2s"]);
    let http = client();
    let before = create_json(&http, &server.url, "written before the outage", "").await;
    let id = before["id"].as_str().unwrap().to_owned();

    cluster.stop();
    for path in [format!("/raw/{id}"), "/".to_owned()] {
        let started = Instant::now();
        let response = if path == "/" {
            http.post(server.at("/"))
                .header("accept", "application/json")
                .body("x")
                .send()
                .await
        } else {
            http.get(server.at(&path))
                .header("accept", "application/json")
                .send()
                .await
        }
        .unwrap();
        assert_eq!(response.status(), 503, "{path}");
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "{path} took {:?}",
            started.elapsed()
        );
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "store_unavailable");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("database is unavailable")
        );
    }

    // Readiness says the same: a load balancer takes the instance out.
    // A probe answers from a ping at most a second old.
    assert!(eventually(|| async { get_status(&http, &server.at("/readyz")).await == 503 }).await);
    assert_eq!(get_status(&http, &server.at("/healthz")).await, 200);

    cluster.start();
    let deadline = Instant::now() + PATIENCE;
    let mut back = get_bytes(&http, &server.at(&format!("/raw/{id}"))).await;
    while back.0 != 200 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(250)).await;
        back = get_bytes(&http, &server.at(&format!("/raw/{id}"))).await;
    }
    assert_eq!(back, (200, b"written before the outage".to_vec()));
    assert!(eventually(|| async { get_status(&http, &server.at("/readyz")).await == 200 }).await);
    let after = create_json(&http, &server.url, "written after", "").await;
    let after_id = after["id"].as_str().unwrap();
    assert_eq!(
        get_bytes(&http, &server.at(&format!("/raw/{after_id}"))).await,
        (200, b"written after".to_vec())
    );
    assert!(
        server.wait_for_log("the database is unavailable"),
        "the outage was never logged:\n{}",
        server.log_text()
    );
}
