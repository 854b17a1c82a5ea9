//! A data dir whose `FORMAT` file names a version this snip does not read is
//! refused at start, with a message that says what to do, and left as it was.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a refused start may take; a server that did start is stopped then.
const DEADLINE: Duration = Duration::from_secs(60);

#[test]
fn an_unknown_data_format_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("snip-data");
    std::fs::create_dir(&data_dir).unwrap();
    let format = data_dir.join("FORMAT");
    std::fs::write(&format, "999\n").unwrap();

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
            panic!("snip started on a data dir in format 999");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap();

    assert!(!status.success(), "{status}; stderr: {stderr}");
    for part in [
        format.display().to_string(),
        "format 999".to_owned(),
        "reads format 2".to_owned(),
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
