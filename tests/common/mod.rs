//! Test harness: starts the real `snip` binary on an ephemeral port with its
//! own data dir, and talks to it over real HTTP.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    _tmp: Option<Arc<tempfile::TempDir>>,
}

impl Server {
    /// Starts a server on a fresh temporary data dir.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a server on a fresh temporary data dir with extra flags.
    pub fn start_with(args: &[&str]) -> Self {
        let tmp = Arc::new(tempfile::tempdir().expect("temp dir"));
        let dir = tmp.path().join("data");
        let mut server = Self::spawn(&dir, args.iter().map(|s| s.to_string()).collect());
        server._tmp = Some(tmp);
        server
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
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}
