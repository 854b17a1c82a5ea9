//! Test harness: starts the real `snip` binary on an ephemeral port with its
//! own data dir, and talks to it over real HTTP.
//!
//! The backend comes from the environment: by default the embedded store; with
//! `SNIP_TEST_STORE=postgres` every server gets a fresh schema in the database
//! at `SNIP_TEST_DATABASE_URL` (default `postgres://postgres@127.0.0.1:5432/test`),
//! dropped when the server is, so tests run in parallel on one database.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the log helpers wait for a line to arrive (see [`Server::wait_for_log`]).
pub const LOG_WAIT: Duration = Duration::from_secs(10);

/// A running snip server process.
pub struct Server {
    child: Child,
    /// Base URL, e.g. `http://127.0.0.1:41234` (`https://` when serving TLS).
    pub url: String,
    /// The data dir (kept across restarts).
    pub data_dir: PathBuf,
    /// Everything the server logged so far.
    pub logs: Arc<Mutex<Vec<String>>>,
    args: Vec<String>,
    /// The PostgreSQL schema of this server (and of those sharing it), if any.
    pub schema: Option<String>,
    /// Whether dropping this server drops its schema.
    owns_schema: bool,
    _tmp: Option<Arc<tempfile::TempDir>>,
}

/// Whether the tests run against PostgreSQL (`SNIP_TEST_STORE=postgres`).
pub fn on_postgres() -> bool {
    std::env::var("SNIP_TEST_STORE").is_ok_and(|v| v.eq_ignore_ascii_case("postgres"))
}

/// The database the PostgreSQL tests use.
pub fn database_url() -> String {
    std::env::var("SNIP_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// A schema name no other test uses.
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

impl Server {
    /// Starts a server on a fresh temporary data dir.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a server on a fresh temporary data dir with extra flags.
    pub fn start_with(args: &[&str]) -> Self {
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let schema = on_postgres().then(fresh_schema);
        if let Some(schema) = &schema {
            args.insert(0, format!("--store={}", database_url()));
            args.insert(1, format!("--store-schema={schema}"));
        }
        let tmp = Arc::new(tempfile::tempdir().expect("temp dir"));
        let dir = tmp.path().join("data");
        let mut server = Self::spawn(&dir, args);
        server._tmp = Some(tmp);
        server.owns_schema = schema.is_some();
        server.schema = schema;
        server
    }

    /// Starts a server on the store its `args` name (no schema of the harness's own).
    pub fn start_with_store(args: &[&str]) -> Self {
        let tmp = Arc::new(tempfile::tempdir().expect("temp dir"));
        let mut server = Self::spawn(
            &tmp.path().join("data"),
            args.iter().map(|s| s.to_string()).collect(),
        );
        server._tmp = Some(tmp);
        server
    }

    /// Starts two instances at the same moment on one fresh PostgreSQL schema
    /// (so they also race to create it). Only on PostgreSQL.
    pub fn start_pair(args: &[&str]) -> (Self, Self) {
        let schema = fresh_schema();
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.insert(0, format!("--store={}", database_url()));
        args.insert(1, format!("--store-schema={schema}"));
        let start = |args: Vec<String>| {
            std::thread::spawn(move || {
                let tmp = Arc::new(tempfile::tempdir().expect("temp dir"));
                let mut server = Self::spawn(&tmp.path().join("data"), args);
                server._tmp = Some(tmp);
                server
            })
        };
        let (a, b) = (start(args.clone()), start(args));
        let (mut a, mut b) = (a.join().unwrap(), b.join().unwrap());
        a.schema = Some(schema.clone());
        a.owns_schema = true;
        b.schema = Some(schema);
        (a, b)
    }

    fn spawn(data_dir: &Path, args: Vec<String>) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_snip"))
            .arg("serve")
            .arg("--listen=127.0.0.1:0")
            .arg(format!("--data-dir={}", data_dir.display()))
            // Tests send bursts from one IP; rate-limit tests turn limits on explicitly.
            .arg("--ip-rate=off")
            .args(&args)
            .env_remove("SNIP_CONFIG")
            .env("SNIP_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn snip");
        let stderr = child.stderr.take().expect("stderr");
        let logs = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = logs.clone();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(pos) = line.find("listening on http") {
                    let url: String = line[pos + "listening on ".len()..]
                        .chars()
                        .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '\u{1b}')
                        .collect();
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(url);
                    }
                }
                sink.lock().unwrap().push(line);
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "snip did not start; logs:\n{}",
                    logs.lock().unwrap().join("\n")
                );
            }
        };
        Self {
            child,
            url,
            data_dir: data_dir.to_path_buf(),
            logs,
            args,
            schema: None,
            owns_schema: false,
            _tmp: None,
        }
    }

    /// The process ID.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `SIGKILL`: no chance to flush or clean up.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// `SIGTERM`, then waits for a clean exit; returns whether it exited successfully.
    pub fn terminate(&mut self) -> bool {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.pid().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.success();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        false
    }

    /// Starts a new process on the same data dir and flags (after kill9/terminate).
    pub fn restart(&mut self) {
        let tmp = self._tmp.take();
        let mut next = Self::spawn(&self.data_dir, self.args.clone());
        next._tmp = tmp;
        next.schema = self.schema.clone();
        next.owns_schema = std::mem::take(&mut self.owns_schema);
        std::mem::swap(self, &mut next);
    }

    /// A URL on this server.
    pub fn at(&self, path: &str) -> String {
        format!("{}{}", self.url, path)
    }

    /// All log lines joined.
    pub fn log_text(&self) -> String {
        self.logs.lock().unwrap().join("\n")
    }

    /// Pastes the sweeper reported removing (its `removed=N` lines), from the log.
    pub fn swept_count(&self) -> u64 {
        self.log_text()
            .lines()
            .filter(|line| line.contains("swept expired pastes"))
            .filter_map(|line| {
                let plain = strip_ansi(line);
                let after = &plain[plain.find("removed=")? + "removed=".len()..];
                let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<u64>().ok()
            })
            .sum()
    }

    /// Waits up to [`LOG_WAIT`] for a log line containing `needle`. Every line
    /// reaches the harness through a pipe and a reader thread, and request
    /// lines may be written by a buffered background writer (up to ~200 ms
    /// late), so a line may arrive a while after the event the test saw (a
    /// response, a closed connection): assert on log content only after waiting. Blocks the thread: the line must not depend on the test's
    /// own runtime making progress.
    pub fn wait_for_log(&self, needle: &str) -> bool {
        self.wait_for_log_count(needle, 1, LOG_WAIT)
    }

    /// Waits up to `within` until `needle` occurs at least `count` times in
    /// the logs (see [`Server::wait_for_log`]).
    pub fn wait_for_log_count(&self, needle: &str, count: usize, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while self.log_text().matches(needle).count() < count {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        true
    }

    /// Waits up to [`LOG_WAIT`] until every request the server has counted in
    /// its metrics so far has its request log line: call it before asserting
    /// that something is *not* in the logs, so that no line is still on its
    /// way. Needs `/metrics` on the main listener.
    pub async fn wait_for_request_logs(&self) -> bool {
        let (status, metrics) = get_text(&client(), &self.at("/metrics")).await;
        assert_eq!(status, 200, "no metrics on the main listener: {metrics}");
        let requests: usize = metrics
            .lines()
            .filter(|line| line.starts_with("snip_http_requests_total{"))
            .map(|line| {
                let (_, value) = line.rsplit_once(' ').unwrap();
                value.parse::<f64>().unwrap() as usize
            })
            .sum();
        assert!(
            requests > 0,
            "no request counted in the metrics:\n{metrics}"
        );
        let deadline = Instant::now() + LOG_WAIT;
        while self.log_text().matches("snip::request").count() < requests {
            if Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }

    /// Peak resident memory of the process, in KiB (from /proc).
    pub fn peak_rss_kib(&self) -> u64 {
        proc_status_kib(self.pid(), "VmHWM:")
    }

    /// Current resident memory of the process, in KiB.
    pub fn rss_kib(&self) -> u64 {
        proc_status_kib(self.pid(), "VmRSS:")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let (true, Some(schema)) = (self.owns_schema, &self.schema) {
            drop_schema(&database_url(), schema);
        }
    }
}

fn proc_status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// An HTTP client that never follows redirects, so tests see exactly what was sent.
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Creates a paste with query `options` and returns (id, delete token).
pub async fn create(
    server: &Server,
    body: impl Into<reqwest::Body>,
    options: &str,
) -> (String, String) {
    let json = create_json(&client(), &server.url, body, options).await;
    (
        json["id"].as_str().unwrap().to_owned(),
        json["delete_token"].as_str().unwrap().to_owned(),
    )
}

/// Total size of the files under `dir`, in bytes.
pub fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// A tiny deterministic PRNG (xorshift64) for test bodies: incompressible, reproducible.
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        for chunk in out.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        out
    }
}

/// Creates a paste on a shared client and returns the create answer's JSON.
pub async fn create_json(
    client: &reqwest::Client,
    server_url: &str,
    body: impl Into<reqwest::Body>,
    options: &str,
) -> serde_json::Value {
    let response = client
        .post(format!("{server_url}/?{options}"))
        .header("accept", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        201,
        "create failed: {:?}",
        response.text().await
    );
    response.json().await.unwrap()
}

/// GETs `path` and returns (status, body bytes).
pub async fn get_bytes(client: &reqwest::Client, url: &str) -> (u16, Vec<u8>) {
    let response = client.get(url).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.bytes().await.unwrap().to_vec())
}

/// GETs `url` and returns the status (the body is not read).
pub async fn get_status(client: &reqwest::Client, url: &str) -> u16 {
    client.get(url).send().await.unwrap().status().as_u16()
}

/// GETs `url` and returns (status, body as text).
pub async fn get_text(client: &reqwest::Client, url: &str) -> (u16, String) {
    let response = client.get(url).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// GETs `url` and returns (status, body as JSON); panics if the body is not JSON.
pub async fn get_json(client: &reqwest::Client, url: &str) -> (u16, serde_json::Value) {
    let response = client.get(url).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Disk space the files under `dir` really take (allocated blocks, as `du` counts),
/// in bytes. Unlike [`dir_size`] it does not count the unwritten tail of a file
/// the store preallocated with `set_len` (fjall does that to its 64 MiB journals).
pub fn disk_usage(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_usage(&e.path()),
            Ok(_) => e.metadata().map(|m| m.blocks() * 512).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// Runs the `snip` CLI against `server` with `stdin` piped in, its own
/// client directory (remembered delete tokens) and exactly the credentials in
/// `env`: inherited `SNIP_TOKEN`, `SNIP_ADMIN_TOKEN` and `SNIP_PASSWORD` are removed.
pub fn run_cli(
    server: &Server,
    client_dir: &Path,
    env: &[(&str, &str)],
    args: &[&str],
    stdin: &[u8],
) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_snip"))
        .args(args)
        .env("SNIP_SERVER", &server.url)
        .env("SNIP_CLIENT_DIR", client_dir)
        .env_remove("SNIP_TOKEN")
        .env_remove("SNIP_ADMIN_TOKEN")
        .env_remove("SNIP_PASSWORD")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        // A command that fails before reading its input may close the pipe first.
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

/// The text of a log line without its colour codes (if a terminal got them).
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // Skip to the end of the escape sequence (a letter).
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A loopback port that was free a moment ago (for servers the test starts
/// itself, which must be told their port up front).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Reads one HTTP/1.1 response whose body has a Content-Length from a
/// kept-alive connection (plain TCP or TLS); returns its status and body.
/// Panics if the connection closes first or nothing arrives for 10 s.
pub async fn read_response<S>(stream: &mut S) -> (u16, String)
where
    S: tokio::io::AsyncRead + Unpin,
{
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("response within 10 s")
            .unwrap();
        assert!(n > 0, "connection closed before a full response");
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().unwrap())
            })
            .expect("Content-Length");
        if body.len() >= length {
            let status = head.split(' ').nth(1).unwrap().parse().unwrap();
            return (status, body[..length].to_owned());
        }
    }
}
