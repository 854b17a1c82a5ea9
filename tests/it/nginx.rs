//! A real nginx on loopback in front of snip, running the documented example
//! configurations (`contrib/nginx/`) with only ports, names and certificate
//! paths substituted.
//!
//! Needs nginx (`apt-get install nginx-light libnginx-mod-stream`) and the
//! `openssl` command for a throwaway certificate. Without them the tests say
//! why and pass, unless `CI` is set, where they fail: CI installs them.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Fetch, Server, ports::free_port, wait::PATIENCE};

/// A running nginx, stopped on drop.
struct Nginx {
    child: Child,
    dir: tempfile::TempDir,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // `master_process off`: one process, so killing it leaves nothing behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The nginx binary, or `None` (with the reason printed) when the test should be skipped.
fn nginx_binary() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("NGINX").map(PathBuf::from),
        Some(PathBuf::from("/usr/sbin/nginx")),
        Some(PathBuf::from("/usr/bin/nginx")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_file());
    let openssl = Command::new("openssl").arg("version").output().is_ok();
    match found {
        Some(path) if openssl => Some(path),
        _ => {
            let why = "nginx or openssl is not installed \
                       (apt-get install nginx-light libnginx-mod-stream openssl)";
            if std::env::var_os("CI").is_some() {
                panic!("{why}; CI must install them (.ci/run does)");
            }
            eprintln!("skipping: {why}");
            None
        }
    }
}

/// The example file with each `(from, to)` applied; every `from` must occur,
/// so the test notices when the example changes under it.
fn example(name: &str, substitutions: &[(&str, String)]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("contrib/nginx")
        .join(name);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in substitutions {
        assert!(text.contains(from), "{name} no longer contains {from:?}");
        text = text.replace(from, to);
    }
    text
}

/// How many times nginx is started on fresh ports when one was taken first.
const NGINX_TRIES: usize = 5;

/// Starts nginx with `head` (e.g. `load_module`) and the top-level directives
/// `config` gives for `N` fresh loopback ports; returns it and the ports.
fn start_nginx<const N: usize>(
    binary: &Path,
    head: &str,
    config: impl Fn([u16; N]) -> String,
) -> (Nginx, [u16; N]) {
    for _ in 0..NGINX_TRIES {
        let ports = std::array::from_fn(|_| free_port());
        match try_start_nginx(binary, head, &config(ports)) {
            Ok(nginx) => return (nginx, ports),
            // Another process bound one of the ports between the pick and nginx.
            Err(log) if log.contains("Address already in use") => {
                eprintln!("nginx lost a port, starting it on others:\n{log}");
            }
            Err(log) => panic!("nginx did not start:\n{log}"),
        }
    }
    panic!("nginx lost a port {NGINX_TRIES} times in a row");
}

/// Starts nginx in a fresh prefix directory and waits until it has written
/// its pid file, which it does only once every listener is bound; returns
/// its error log if it exits first.
fn try_start_nginx(binary: &Path, head: &str, body: &str) -> Result<Nginx, String> {
    let dir = tempfile::tempdir().unwrap();
    // Readable by nginx's unprivileged user, should it switch to one.
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let d = dir.path().display();
    let conf = format!(
        "{head}daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
         events {{ worker_connections 64; }}\n{body}\n"
    );
    std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
    let child = Command::new(binary)
        .arg("-p")
        .arg(dir.path())
        .arg("-c")
        .arg(dir.path().join("nginx.conf"))
        .arg("-e")
        .arg(dir.path().join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut nginx = Nginx { child, dir };
    let pid = nginx.child.id().to_string();
    let deadline = Instant::now() + PATIENCE;
    loop {
        let written = std::fs::read_to_string(nginx.dir.path().join("nginx.pid"));
        if written.is_ok_and(|w| w.trim() == pid) {
            return Ok(nginx);
        }
        let log = std::fs::read_to_string(nginx.dir.path().join("error.log")).unwrap_or_default();
        if matches!(nginx.child.try_wait(), Ok(Some(_))) {
            return Err(log);
        }
        assert!(Instant::now() < deadline, "nginx did not start:\n{log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A throwaway self-signed certificate for `localhost`: (cert, key) paths in `dir`.
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let status = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "1", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost"])
        // An end-entity certificate: rustls refuses a CA certificate as a server's.
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "openssl could not make a certificate");
    (cert, key)
}

/// A client connecting from `local` (any 127.0.0.0/8 address is loopback on
/// Linux), trusting `cert`.
fn client_from(local: &str, cert: Option<&Path>) -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .local_address(local.parse::<IpAddr>().unwrap());
    if let Some(cert) = cert {
        let pem = std::fs::read(cert).unwrap();
        builder = builder.add_root_certificate(reqwest::Certificate::from_pem(&pem).unwrap());
    }
    builder.build().unwrap()
}

/// The HTTPS example: printed URLs carry nginx's scheme and Host, snip sees each
/// client's own address (forged X-Forwarded-For entries skipped), and a 2 MiB paste streams through.
#[tokio::test]
async fn nginx_https_example_passes_client_scheme_and_host() {
    let Some(binary) = nginx_binary() else {
        return;
    };
    let snip = Server::start_with(&[
        "--trusted-proxy=127.0.0.1/32",
        "--ip-rate=1/h",
        "--ip-burst=2",
    ]);
    let certs = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(certs.path());
    let site = |[http_port, https_port]: [u16; 2]| {
        let site = example(
            "snip.conf",
            &[
                (
                    "server 127.0.0.1:8000;",
                    format!("server {};", snip.url.trim_start_matches("http://")),
                ),
                ("listen 80;", format!("listen 127.0.0.1:{http_port};")),
                (
                    "listen 443 ssl http2;",
                    format!("listen 127.0.0.1:{https_port} ssl http2;"),
                ),
                (
                    "/etc/letsencrypt/live/paste.example.com/fullchain.pem",
                    cert.display().to_string(),
                ),
                (
                    "/etc/letsencrypt/live/paste.example.com/privkey.pem",
                    key.display().to_string(),
                ),
                (
                    "server_name paste.example.com;",
                    "server_name localhost;".into(),
                ),
            ],
        );
        format!("http {{\naccess_log off;\n{site}\n}}")
    };
    let (_nginx, [http_port, https_port]) = start_nginx(&binary, "", site);
    let base = format!("https://localhost:{https_port}");

    // A 2 MiB paste (over nginx's default 1 MiB limit) from 127.0.0.2.
    let body = crate::support::data::XorShift(7).bytes(2 << 20);
    let two = client_from("127.0.0.2", Some(&cert));
    let response = two
        .post(format!("{base}/"))
        .header("accept", "application/json")
        .body(body.clone())
        .fetch()
        .await;
    assert_eq!(response.status(), 201);
    let json: serde_json::Value = response.json().await.unwrap();
    let id = json["id"].as_str().unwrap();
    assert_eq!(json["url"], format!("{base}/{id}"));
    let (status, read) = crate::support::http::get_bytes(&two, &format!("{base}/raw/{id}")).await;
    assert_eq!((status, read == body), (200, true));

    // 127.0.0.2 has spent its two requests; 127.0.0.3 has its own bucket,
    // even when it forges an X-Forwarded-For entry naming someone else.
    let (status, _) = crate::support::http::get_bytes(&two, &format!("{base}/")).await;
    assert_eq!(status, 429);
    let three = client_from("127.0.0.3", Some(&cert));
    for expected in [200, 200, 429] {
        let response = three
            .get(format!("{base}/"))
            .header("x-forwarded-for", "127.0.0.2")
            .fetch()
            .await;
        assert_eq!(response.status(), expected);
    }

    // Plain HTTP is redirected to HTTPS.
    let response = three
        .get(format!("http://127.0.0.1:{http_port}/x"))
        .header("host", "localhost")
        .fetch()
        .await;
    assert_eq!(response.status(), 301);
    assert_eq!(response.headers()["location"], "https://localhost/x");
}

/// The PROXY protocol example: nginx's stream proxy tells snip each client's address in a PROXY header.
#[tokio::test]
async fn nginx_proxy_protocol_example_passes_client_address() {
    let Some(binary) = nginx_binary() else {
        return;
    };
    let snip = Server::start_with(&[
        "--trusted-proxy=127.0.0.1/32",
        "--proxy-protocol",
        "--ip-rate=1/h",
        "--ip-burst=1",
    ]);
    let stream = |[port]: [u16; 1]| {
        example(
            "snip-proxy-protocol.conf",
            &[
                (
                    "server 127.0.0.1:8000;",
                    format!("server {};", snip.url.trim_start_matches("http://")),
                ),
                ("listen 443;", format!("listen 127.0.0.1:{port};")),
            ],
        )
    };
    let module = Path::new("/usr/lib/nginx/modules/ngx_stream_module.so");
    let load = if module.is_file() {
        format!("load_module {};\n", module.display())
    } else {
        String::new()
    };
    let (_nginx, [port]) = start_nginx(&binary, &load, stream);
    let base = format!("http://127.0.0.1:{port}");
    for (from, expected) in [("127.0.0.2", 200), ("127.0.0.2", 429), ("127.0.0.3", 200)] {
        let (status, _) =
            crate::support::http::get_bytes(&client_from(from, None), &format!("{base}/")).await;
        assert_eq!(status, expected, "from {from}");
    }
    // Straight to snip, without nginx's header: refused.
    let direct = client_from("127.0.0.4", None)
        .get(snip.at("/"))
        .send()
        .await;
    assert!(direct.is_err(), "{direct:?}");
}
