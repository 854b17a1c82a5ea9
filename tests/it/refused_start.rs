//! A data dir snip cannot use is refused at start, with a message that says
//! what to do, and left as it was: one in a format this snip does not read,
//! and one another snip has open.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Fetch, Server, client, postgres::skip_on_postgres};

/// Longest a refused start may take; a server that did start is stopped then.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs `snip serve` on `data_dir` until it exits; its status and stderr.
/// Panics if it is still running after [`DEADLINE`] (it started).
fn refused_start(data_dir: &Path) -> (ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_snip"))
        .arg("serve")
        .arg("--listen=127.0.0.1:0")
        .arg(format!("--data-dir={}", data_dir.display()))
        .env_remove("SNIP_CONFIG")
        .env_remove("SNIP_STORE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn snip");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > DEADLINE {
            child.kill().unwrap();
            panic!("snip started on {}", data_dir.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();
    assert!(!status.success(), "{status}; stderr: {stderr}");
    (status, stderr)
}

#[test]
fn an_unknown_data_format_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("snip-data");
    std::fs::create_dir(&data_dir).unwrap();
    let format = data_dir.join("FORMAT");
    std::fs::write(&format, "999\n").unwrap();

    let (_, stderr) = refused_start(&data_dir);
    for part in [
        format.display().to_string(),
        "format 999".to_owned(),
        "reads format 4".to_owned(),
        "snip migrate".to_owned(),
    ] {
        assert!(stderr.contains(&part), "{part:?} not in stderr: {stderr}");
    }
    assert_eq!(std::fs::read_to_string(&format).unwrap(), "999\n");
    assert!(
        !data_dir.join("fjall").exists(),
        "the store was opened anyway"
    );
}

/// A second snip on a data dir in use says so in plain words, and the first
/// one keeps serving. (The first one's startup line is in words too.)
#[tokio::test]
async fn a_data_dir_in_use_is_refused_in_plain_words() {
    if skip_on_postgres("the embedded store's lock on its data dir") {
        return;
    }
    let server = Server::start();
    // The line reaches the harness through a reader thread: wait for it.
    assert!(
        server.wait_for_log("not a power loss (--sync for that)"),
        "the startup line says what an acknowledged write survives: {}",
        server.log_text()
    );
    let (_, stderr) = refused_start(&server.data_dir);
    assert!(
        stderr.contains("another snip is using") && stderr.contains("--data-dir"),
        "{stderr}"
    );
    assert!(!stderr.contains("Locked"), "no engine jargon: {stderr}");
    let health = client().get(server.at("/healthz")).fetch().await;
    assert_eq!(health.status(), 200);
}

/// A data dir open to other users that snip cannot make private (here on a
/// read-only file system) is refused, saying what to do.
#[test]
fn a_data_dir_that_cannot_be_made_private_is_refused() {
    if skip_on_postgres("the embedded store's data dir") {
        return;
    }
    let disk = match crate::support::disk::SmallDisk::mount("1m") {
        Ok(disk) => disk,
        Err(why) => {
            eprintln!("skipped: cannot mount a small tmpfs ({why})");
            return;
        }
    };
    let data_dir = disk.path();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let remount = ["-o", "remount,ro", data_dir.to_str().unwrap()];
    if let Err(why) = crate::support::disk::run("mount", &remount) {
        eprintln!("skipped: cannot remount it read-only ({why})");
        return;
    }
    let (_, stderr) = refused_start(data_dir);
    for part in [
        data_dir.display().to_string(),
        "must be private".to_owned(),
        "chmod 700".to_owned(),
    ] {
        assert!(stderr.contains(&part), "{part:?} not in stderr: {stderr}");
    }
}
