//! ACME end to end: snip obtains a certificate from a local Pebble (Debian's
//! `pebble`, the Let's Encrypt team's test CA) by answering a real
//! TLS-ALPN-01 validation, serves it, and reuses it from the cache after a
//! restart. `pebble-challtestsrv` is the DNS server that points the test
//! domain at 127.0.0.1 for Pebble's validator; nothing is mocked and
//! `PEBBLE_VA_ALWAYS_VALID` is not used.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{
    Fetch, Server,
    ports::free_port,
    tls::{TestCa, connect, https_client},
    wait::PATIENCE,
};

/// The domain snip gets a certificate for (challtestsrv answers every name with 127.0.0.1).
const DOMAIN: &str = "snip.test";

/// Pebble and its DNS server, stopped on drop.
struct Pebble {
    children: Vec<Child>,
    /// The ACME directory URL.
    directory: String,
    /// Pebble's management API (for its issuing root).
    management: String,
    /// The CA of Pebble's own HTTPS certificate (made by the test).
    https_ca: PathBuf,
}

impl Drop for Pebble {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Whether the Pebble binaries are installed; without them the test fails
/// under CI (where `.ci/run` installs them) and is skipped, with a reason, elsewhere.
fn pebble_available() -> bool {
    let found = ["pebble", "pebble-challtestsrv"].iter().all(|bin| {
        Command::new("sh")
            .args(["-c", &format!("command -v {bin}")])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "pebble is not installed (apt-get install -y pebble); .ci/run installs it"
        );
        eprintln!("SKIPPED: pebble is not installed (apt-get install -y pebble)");
    }
    found
}

/// How many times Pebble and snip are started on fresh ports when one was taken first.
const TRIES: usize = 5;

/// Starts Pebble and snip for `DOMAIN`, snip answering Pebble's TLS-ALPN-01
/// validations on the port it serves; certificates are valid for
/// `validity`. Neither can bind port 0 and say so to the other, so they get
/// ports picked in advance, and start again on new ones if a port was taken first.
fn start_pebble_and_snip(dir: &Path, validity: Duration) -> (Pebble, Server, u16) {
    for _ in 0..TRIES {
        let port = free_port();
        let Some(pebble) = start_pebble(dir, port, validity) else {
            continue;
        };
        let args = [
            format!("--listen=127.0.0.1:{port}"),
            format!("--acme-domain={DOMAIN}"),
            "--acme-email=ops@example.com".to_owned(),
            format!("--acme-directory={}", pebble.directory),
            format!("--acme-ca-root={}", pebble.https_ca.display()),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        match Server::try_start_with(&args) {
            Ok(server) => return (pebble, server, port),
            Err(logs) if logs.contains("cannot listen on") => {
                eprintln!("snip lost its port, starting again on others:\n{logs}");
            }
            Err(logs) => panic!("snip did not start; logs:\n{logs}"),
        }
    }
    panic!("Pebble or snip lost a port {TRIES} times in a row");
}

/// Waits until something accepts TCP connections on `port`; false if `child` exits first
/// (a port it was given was taken).
fn wait_for_port(port: u16, child: &mut Child) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return false;
        }
        assert!(Instant::now() < deadline, "nothing listens on port {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Something listens; it is ours only if ours is still running.
    matches!(child.try_wait(), Ok(None))
}

/// Starts challtestsrv and Pebble in `dir`, validating TLS-ALPN-01 on
/// `tls_port` and issuing certificates valid for `validity`; `None` if one of
/// them exits at startup because a port it was given was taken.
fn start_pebble(dir: &Path, tls_port: u16, validity: Duration) -> Option<Pebble> {
    let ca = TestCa::new();
    let leaf = ca.leaf("pebble");
    let https_ca = dir.join("pebble-https-ca.pem");
    std::fs::write(&https_ca, &ca.pem).unwrap();
    std::fs::write(dir.join("pebble-cert.pem"), &leaf.cert_pem).unwrap();
    std::fs::write(dir.join("pebble-key.pem"), &leaf.key_pem).unwrap();
    let (dns, dns_admin, listen, management) = (free_port(), free_port(), free_port(), free_port());
    let config = serde_json::json!({"pebble": {
        "listenAddress": format!("127.0.0.1:{listen}"),
        "managementListenAddress": format!("127.0.0.1:{management}"),
        "certificate": dir.join("pebble-cert.pem"),
        "privateKey": dir.join("pebble-key.pem"),
        "httpPort": free_port(),
        "tlsPort": tls_port,
        "ocspResponderURL": "",
        "externalAccountBindingRequired": false,
        "certificateValidityPeriod": validity.as_secs(),
    }});
    std::fs::write(dir.join("pebble.json"), config.to_string()).unwrap();
    let log = |name: &str| std::fs::File::create(dir.join(name)).unwrap();

    let dns_server = Command::new("pebble-challtestsrv")
        .args(["-dns01", &format!("127.0.0.1:{dns}")])
        .args(["-management", &format!("127.0.0.1:{dns_admin}")])
        .args(["-http01", "", "-https01", "", "-tlsalpn01", ""])
        .args(["-defaultIPv4", "127.0.0.1", "-defaultIPv6", ""])
        .stdout(log("challtestsrv.log"))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut pebble = Pebble {
        children: vec![dns_server],
        directory: format!("https://127.0.0.1:{listen}/dir"),
        management: format!("https://127.0.0.1:{management}"),
        https_ca,
    };
    let ca_server = Command::new("pebble")
        .arg("-config")
        .arg(dir.join("pebble.json"))
        .args(["-dnsserver", &format!("127.0.0.1:{dns}")])
        // Answer validations at once, and don't reject 5 % of nonces at random
        // (a test of the client's retry, not of issuance).
        .env("PEBBLE_VA_NOSLEEP", "1")
        .env("PEBBLE_WFE_NONCEREJECT", "0")
        .env_remove("PEBBLE_VA_ALWAYS_VALID")
        .stdout(log("pebble.log"))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    pebble.children.push(ca_server);
    let [dns_server, ca_server] = &mut pebble.children[..] else {
        unreachable!("two children were started");
    };
    let up = wait_for_port(dns_admin, dns_server)
        && wait_for_port(listen, ca_server)
        && wait_for_port(management, ca_server);
    up.then_some(pebble)
}

/// Waits for `needle` in the server's logs; on timeout fails with both servers' logs.
fn wait_for_log(server: &Server, needle: &str, dir: &Path) {
    wait_for_logs(server, needle, 1, dir);
}

/// Waits (up to 90 s: issuance takes a while) until `needle` appears `times`
/// times in the server's logs.
fn wait_for_logs(server: &Server, needle: &str, times: usize, dir: &Path) {
    if !server.wait_for_log_count(needle, times, Duration::from_secs(90)) {
        let pebble = std::fs::read_to_string(dir.join("pebble.log")).unwrap_or_default();
        panic!(
            "no {needle:?} in snip's logs:\n{}\npebble:\n{pebble}",
            server.log_text()
        );
    }
}

/// snip gets a certificate for its domain from Pebble through a real
/// TLS-ALPN-01 validation, serves it (a client trusting only Pebble's root
/// can create and read a paste), and after a restart serves it from the cache.
#[tokio::test(flavor = "multi_thread")]
async fn certificate_from_pebble() {
    if !pebble_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (pebble, mut server, port) =
        start_pebble_and_snip(dir.path(), Duration::from_secs(90 * 86400));
    wait_for_log(&server, "ACME: certificate issued", dir.path());

    // Pebble's issuing root changes with every run; ask it.
    let root = pebble_root(&pebble).await;
    assert!(root.contains("BEGIN CERTIFICATE"), "{root}");

    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    let tls = connect(addr, &root, DOMAIN, &[b"http/1.1"]).await;
    assert!(
        tls.is_ok(),
        "snip's certificate does not chain to Pebble's root: {tls:?}"
    );

    let client = https_client(&root).resolve(DOMAIN, addr).build().unwrap();
    let base = format!("https://{DOMAIN}:{port}");
    let created = crate::support::http::create_json(&client, &base, "issued by pebble\n", "").await;
    assert!(
        created["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{base}/"))
    );
    let raw = client
        .get(created["raw_url"].as_str().unwrap())
        .fetch()
        .await;
    assert_eq!(raw.text().await.unwrap(), "issued by pebble\n");

    // The cache: account and certificate, private, reused after a restart.
    let mut cas = std::fs::read_dir(server.data_dir.join("acme")).unwrap();
    let cache = cas.next().unwrap().unwrap().path();
    assert!(cas.next().is_none(), "one cache directory per CA");
    for file in ["account.json", "cert.pem", "key.pem"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(cache.join(file))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{file}");
    }
    assert!(server.terminate());
    server.restart();
    wait_for_log(&server, "ACME: serving the cached certificate", dir.path());
    assert!(connect(addr, &root, DOMAIN, &[b"http/1.1"]).await.is_ok());
    assert!(!server.log_text().contains("ACME: certificate issued"));
}

/// Pebble's root, from its management API.
async fn pebble_root(pebble: &Pebble) -> String {
    let https_ca = std::fs::read_to_string(&pebble.https_ca).unwrap();
    let management = https_client(&https_ca).build().unwrap();
    let response = management.get(format!("{}/roots/0", pebble.management));
    response.fetch().await.text().await.unwrap()
}

/// A certificate is renewed once a third of its lifetime is left (here 6 of
/// 18 seconds), and new connections get the new one, still from Pebble.
#[tokio::test(flavor = "multi_thread")]
async fn certificate_renewed_before_expiry() {
    if !pebble_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (pebble, server, port) = start_pebble_and_snip(dir.path(), Duration::from_secs(18));
    wait_for_log(&server, "ACME: certificate issued", dir.path());
    let root = pebble_root(&pebble).await;
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    let first = connect(addr, &root, DOMAIN, &[b"http/1.1"]).await.unwrap();
    let issued = Instant::now();

    wait_for_logs(&server, "ACME: certificate issued", 2, dir.path());
    let renewed_after = issued.elapsed();
    assert!(
        renewed_after >= Duration::from_secs(8) && renewed_after <= Duration::from_secs(17),
        "renewed {renewed_after:?} after issuance, expected about 12 s (before the 18 s expiry)"
    );
    let second = connect(addr, &root, DOMAIN, &[b"http/1.1"]).await.unwrap();
    assert_ne!(
        crate::support::tls::leaf_of(&first),
        crate::support::tls::leaf_of(&second)
    );
}
