//! A running `snip serve` process: started on an ephemeral port with its own
//! data dir, its log lines collected, stopped (and its PostgreSQL schema
//! dropped) when dropped.
//!
//! The backend comes from the environment: by default the embedded store; with
//! `SNIP_TEST_STORE=postgres` every server gets a fresh schema in the database
//! at `SNIP_TEST_DATABASE_URL` (see [`super::postgres`]), so tests run in
//! parallel on one database.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::postgres::{database_url, drop_schema, fresh_schema, on_postgres};
use super::wait::PATIENCE;

/// A running snip server process.
pub struct Server {
    child: Child,
    /// Base URL, e.g. `http://127.0.0.1:41234` (`https://` when serving TLS).
    pub url: String,
    /// The data dir (kept across restarts).
    pub data_dir: PathBuf,
    /// Everything the server logged so far.
    logs: Arc<Mutex<Vec<String>>>,
    args: Vec<String>,
    /// Environment variables set for it, beside the harness's own.
    env: Vec<(String, String)>,
    /// The PostgreSQL schema of this server (and of those sharing it), if any.
    schema: Option<String>,
    /// Whether dropping this server drops its schema.
    owns_schema: bool,
    _tmp: Option<Arc<tempfile::TempDir>>,
}

impl Server {
    /// Starts a server on a fresh temporary data dir.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a server on a fresh temporary data dir with extra flags.
    pub fn start_with(args: &[&str]) -> Self {
        Self::try_start_with(args)
            .unwrap_or_else(|logs| panic!("snip did not start; logs:\n{logs}"))
    }

    /// Starts a server like [`Server::start_with`]; returns its logs if it
    /// exits instead (e.g. because a port it was given is taken).
    pub fn try_start_with(args: &[&str]) -> Result<Self, String> {
        Self::try_start_with_env(args, &[])
    }

    /// Starts a server like [`Server::start_with`], with the environment
    /// variables `env` set (kept for [`Server::restart`]).
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::try_start_with_env(args, env)
            .unwrap_or_else(|logs| panic!("snip did not start; logs:\n{logs}"))
    }

    /// [`Server::try_start_with`] with the environment variables `env` set.
    pub fn try_start_with_env(args: &[&str], env: &[(&str, &str)]) -> Result<Self, String> {
        let env = env
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let schema = on_postgres().then(fresh_schema);
        if let Some(schema) = &schema {
            args.splice(0..0, store_args(schema));
        }
        let tmp = Arc::new(tempfile::tempdir().expect("temp dir"));
        let mut server = match Self::try_spawn(&tmp.path().join("data"), args, env) {
            Ok(server) => server,
            Err(logs) => {
                if let Some(schema) = &schema {
                    drop_schema(&database_url(), schema);
                }
                return Err(logs);
            }
        };
        server._tmp = Some(tmp);
        server.owns_schema = schema.is_some();
        server.schema = schema;
        Ok(server)
    }

    /// Starts a server on the embedded store in `data_dir`, which the
    /// caller made (e.g. on a file system of its own) and removes.
    pub fn start_in(data_dir: &Path, args: &[&str]) -> Self {
        Self::spawn(data_dir, args.iter().map(|s| s.to_string()).collect())
    }

    /// Starts a server on the store its `args` name (no schema of the harness's own).
    pub fn start_with_store(args: &[&str]) -> Self {
        Self::spawn_in_tempdir(args.iter().map(|s| s.to_string()).collect())
    }

    /// Starts two instances at the same moment on one fresh PostgreSQL schema
    /// (so they also race to create it). Only on PostgreSQL.
    pub fn start_pair(args: &[&str]) -> (Self, Self) {
        let schema = fresh_schema();
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.splice(0..0, store_args(&schema));
        let start = |args: Vec<String>| std::thread::spawn(move || Self::spawn_in_tempdir(args));
        let (a, b) = (start(args.clone()), start(args));
        let (mut a, mut b) = (a.join().unwrap(), b.join().unwrap());
        a.schema = Some(schema.clone());
        a.owns_schema = true;
        b.schema = Some(schema);
        (a, b)
    }

    fn spawn_in_tempdir(args: Vec<String>) -> Self {
        let tmp = Arc::new(tempfile::tempdir().expect("temp dir"));
        let mut server = Self::spawn(&tmp.path().join("data"), args);
        server._tmp = Some(tmp);
        server
    }

    /// Starts the process; panics with its logs if it does not start.
    fn spawn(data_dir: &Path, args: Vec<String>) -> Self {
        Self::try_spawn(data_dir, args, Vec::new())
            .unwrap_or_else(|logs| panic!("snip did not start; logs:\n{logs}"))
    }

    /// Starts the process and waits for the line that says where it listens
    /// (it binds port 0, unless `args` say otherwise, so no other process can
    /// take its port first); returns its logs if it exits instead.
    fn try_spawn(
        data_dir: &Path,
        args: Vec<String>,
        env: Vec<(String, String)>,
    ) -> Result<Self, String> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_snip"))
            .arg("serve")
            .arg("--listen=127.0.0.1:0")
            .arg(format!("--data-dir={}", data_dir.display()))
            // Tests send bursts from one IP; rate-limit tests turn limits on explicitly.
            .arg("--ip-rate=off")
            // Tests scrape /metrics from the main listener; the one that
            // checks the default passes --metrics-public=false.
            .arg("--metrics-public")
            .args(&args)
            .env_remove("SNIP_CONFIG")
            .env("SNIP_LOG", "info")
            .envs(env.iter().map(|(name, value)| (name, value)))
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
                if let Some(url) =
                    word_after(&line, "listening on ").filter(|u| u.starts_with("http"))
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(url);
                }
                sink.lock().unwrap().push(line);
            }
        });
        // The reader drops the sender when stderr closes, so a server that
        // exits at startup ends this wait at once.
        let Ok(url) = rx.recv_timeout(PATIENCE) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(logs.lock().unwrap().join("\n"));
        };
        Ok(Self {
            child,
            url,
            data_dir: data_dir.to_path_buf(),
            logs,
            args,
            env,
            schema: None,
            owns_schema: false,
            _tmp: None,
        })
    }

    /// The PostgreSQL schema this server stores in (`None` on the embedded store).
    pub fn schema(&self) -> Option<&str> {
        self.schema.as_deref()
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

    /// Waits up to `within` for the process to exit by itself; its status,
    /// or `None` if it still runs.
    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Starts a new process on the same data dir and flags (after kill9/terminate).
    pub fn restart(&mut self) {
        self.try_restart()
            .unwrap_or_else(|logs| panic!("snip did not start; logs:\n{logs}"));
    }

    /// [`Server::restart`], returning the new process's logs if it exits
    /// instead of starting.
    pub fn try_restart(&mut self) -> Result<(), String> {
        let mut next = Self::try_spawn(&self.data_dir, self.args.clone(), self.env.clone())?;
        next._tmp = self._tmp.take();
        next.schema = self.schema.clone();
        next.owns_schema = std::mem::take(&mut self.owns_schema);
        std::mem::swap(self, &mut next);
        Ok(())
    }

    /// [`Server::restart`] with `extra` flags after the server's own, for
    /// this process only (a later restart leaves them out).
    pub fn restart_with(&mut self, extra: &[&str]) {
        let mut args = self.args.clone();
        args.extend(extra.iter().map(|s| s.to_string()));
        let mut next = Self::try_spawn(&self.data_dir, args, self.env.clone())
            .unwrap_or_else(|logs| panic!("snip did not start; logs:\n{logs}"));
        next.args = std::mem::take(&mut self.args);
        next._tmp = self._tmp.take();
        next.schema = self.schema.clone();
        next.owns_schema = std::mem::take(&mut self.owns_schema);
        std::mem::swap(self, &mut next);
    }

    /// A URL on this server.
    pub fn at(&self, path: &str) -> String {
        format!("{}{}", self.url, path)
    }

    /// The log lines so far.
    pub fn log_lines(&self) -> Vec<String> {
        self.logs.lock().unwrap().clone()
    }

    /// All log lines joined.
    pub fn log_text(&self) -> String {
        self.logs.lock().unwrap().join("\n")
    }

    /// The first word after `marker` in the logs (e.g. an address), once it is there.
    pub fn logged_value(&self, marker: &str) -> String {
        assert!(
            self.wait_for_log(marker),
            "no {marker:?} in the logs:\n{}",
            self.log_text()
        );
        let text = self.log_text();
        text.lines()
            .find_map(|line| word_after(line, marker))
            .unwrap()
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

    /// Waits up to [`PATIENCE`] for a log line containing `needle`. Every line
    /// reaches the harness through a pipe and a reader thread, and request
    /// lines may be written by a buffered background writer, so a line may
    /// arrive a while after the event the test saw (a response, a closed
    /// connection): assert on log content only after waiting. Blocks the
    /// thread: the line must not depend on the test's own runtime making progress.
    pub fn wait_for_log(&self, needle: &str) -> bool {
        self.wait_for_log_count(needle, 1, PATIENCE)
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

    /// Waits up to [`PATIENCE`] until every request the server has counted in
    /// its metrics so far has its request log line: call it before asserting
    /// that something is *not* in the logs, so that no line is still on its
    /// way. Needs `/metrics` on the main listener.
    pub async fn wait_for_request_logs(&self) -> bool {
        let (status, metrics) = self.text("/metrics").await;
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
        let deadline = Instant::now() + PATIENCE;
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
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
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

/// The flags that put a server on `schema` of the test database.
fn store_args(schema: &str) -> [String; 2] {
    [
        format!("--store={}", database_url()),
        format!("--store-schema={schema}"),
    ]
}

/// The word after `marker` in a log line (up to a space, quote or colour code).
fn word_after(line: &str, marker: &str) -> Option<String> {
    let start = line.find(marker)? + marker.len();
    Some(
        line[start..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '\u{1b}')
            .collect(),
    )
}

/// The text of a log line without its colour codes (if a terminal got them).
fn strip_ansi(line: &str) -> String {
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
