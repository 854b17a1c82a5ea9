//! The Debian package `contrib/deb/build` makes: what it installs, and the
//! maintainer script that makes the `snip` user and its private state dir.

use std::path::Path;
use std::process::Command;

use crate::support::postgres::skip_on_postgres;

/// Runs `program args`, panicking with its stderr unless it succeeds; its stdout.
fn run(program: &str, args: &[&str], cwd: &Path) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("SNIP_DEB_NO_BUILD", "1")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        output.status.success(),
        "{program} {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Whether `cargo deb` runs; without it the test is skipped, except under CI.
fn cargo_deb_installed() -> bool {
    let found = Command::new("cargo")
        .args(["deb", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        let why = "cargo-deb is not installed (cargo install cargo-deb)";
        assert!(
            std::env::var_os("CI").is_none(),
            "{why}; CI must install it (.ci/run does)"
        );
        eprintln!("skipping: {why}");
    }
    found
}

#[test]
fn the_debian_package_holds_what_a_service_needs() {
    if skip_on_postgres("packaging does not depend on the store") || !cargo_deb_installed() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().to_str().unwrap();
    // From the debug build the tests already have, compressed quickly: the
    // package's contents, not the optimiser or xz, are under test.
    run(
        "bash",
        &[
            "contrib/deb/build",
            "--profile",
            "dev",
            "--fast",
            "--output",
            out_dir,
        ],
        root,
    );
    let deb = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .expect("a .deb was written");
    let deb = deb.to_str().unwrap();

    let listing = run("dpkg-deb", &["-c", deb], root);
    for path in [
        "./usr/bin/snip",
        "./usr/share/man/man1/snip.1.gz",
        "./usr/share/man/man1/snip-put.1.gz",
        "./usr/share/man/man1/snip-serve.1.gz",
        "./usr/share/bash-completion/completions/snip",
        "./usr/share/zsh/vendor-completions/_snip",
        "./usr/share/fish/vendor_completions.d/snip.fish",
        "./etc/snip/snip.toml",
        "/systemd/system/snip.service",
        "/systemd/system/snip.service.d/debian.conf",
    ] {
        assert!(
            listing.contains(path),
            "{path} not in the package:\n{listing}"
        );
    }
    let conffiles = run("dpkg-deb", &["-I", deb, "conffiles"], root);
    assert!(conffiles.contains("/etc/snip/snip.toml"), "{conffiles}");
    let depends = run("dpkg-deb", &["-f", deb, "Depends"], root);
    assert!(depends.contains("adduser"), "{depends}");
    let postinst = run("dpkg-deb", &["-I", deb, "postinst"], root);
    assert!(
        postinst.contains("adduser --system") && postinst.contains("-m 0700 /var/lib/snip"),
        "{postinst}"
    );
    assert!(
        postinst.contains("systemctl"),
        "the unit is enabled: {postinst}"
    );

    // What is inside works: the binary runs, the drop-in names the user.
    let unpacked = tempfile::tempdir().unwrap();
    run(
        "dpkg-deb",
        &["-x", deb, unpacked.path().to_str().unwrap()],
        root,
    );
    let version = run(
        unpacked.path().join("usr/bin/snip").to_str().unwrap(),
        &["--version"],
        root,
    );
    assert!(version.starts_with("snip "), "{version}");
    let drop_in = std::fs::read_dir(
        unpacked
            .path()
            .join("usr/lib/systemd/system/snip.service.d"),
    )
    .ok()
    .or_else(|| std::fs::read_dir(unpacked.path().join("lib/systemd/system/snip.service.d")).ok())
    .expect("the unit's drop-in directory")
    .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
    .collect::<String>();
    assert!(
        drop_in.contains("User=snip")
            && drop_in.contains("/usr/bin/snip serve --config /etc/snip/snip.toml"),
        "{drop_in}"
    );
    the_service_obeys_its_config_file(unpacked.path(), &drop_in);
}

/// The unit as the package installs it (`snip.service`, then its drop-in)
/// runs snip with the environment and command line systemd would give it,
/// and snip listens where an edited `/etc/snip/snip.toml` says: no `SNIP_*`
/// variable of the unit beats the shipped file.
fn the_service_obeys_its_config_file(unpacked: &Path, drop_in: &str) {
    let unit = [
        "usr/lib/systemd/system/snip.service",
        "lib/systemd/system/snip.service",
    ]
    .iter()
    .find_map(|path| std::fs::read_to_string(unpacked.join(path)).ok())
    .expect("the unit");
    // systemd's rules: an empty assignment resets the list, a later one adds.
    let mut environment: Vec<(String, String)> = Vec::new();
    let mut exec_start = String::new();
    for line in unit.lines().chain(drop_in.lines()) {
        if let Some(assignment) = line.strip_prefix("Environment=") {
            if assignment.is_empty() {
                environment.clear();
            } else {
                let (key, value) = assignment.split_once('=').unwrap();
                environment.push((key.to_owned(), value.replace("%S", "/var/lib")));
            }
        } else if let Some(command) = line.strip_prefix("ExecStart=") {
            exec_start = command.to_owned();
        }
    }
    let shipped = std::fs::read_to_string(unpacked.join("etc/snip/snip.toml")).unwrap();
    assert!(
        shipped.contains("\ndata-dir = \"/var/lib/snip\"\n"),
        "the packaged file keeps the data in the package's state dir:\n{shipped}"
    );
    // The operator edits the shipped file: another port, another data dir.
    let edited_dir = tempfile::tempdir().unwrap();
    let port = crate::support::ports::free_port();
    let edited = shipped
        .replace(
            "\nlisten = \"127.0.0.1:8000\"\n",
            &format!("\nlisten = \"127.0.0.1:{port}\"\n"),
        )
        .replace(
            "\ndata-dir = \"/var/lib/snip\"\n",
            &format!(
                "\ndata-dir = \"{}\"\n",
                edited_dir.path().join("data").display()
            ),
        );
    assert_ne!(edited, shipped, "the file names listen and data-dir");
    let config = edited_dir.path().join("snip.toml");
    std::fs::write(&config, edited).unwrap();
    let mut words = exec_start.split_whitespace();
    assert_eq!(words.next(), Some("/usr/bin/snip"), "{exec_start}");
    let args: Vec<String> = words
        .map(|word| match word {
            "/etc/snip/snip.toml" => config.display().to_string(),
            other => other.to_owned(),
        })
        .collect();
    let mut service = Command::new(unpacked.join("usr/bin/snip"))
        .args(&args)
        .env_clear()
        .envs(environment.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first line says where it listens (or why it stopped): read up to it.
    let stderr = std::io::BufReader::new(service.stderr.take().unwrap());
    let first = std::io::BufRead::lines(stderr)
        .map_while(Result::ok)
        .find(|line| line.contains("listening") || line.contains("rror"));
    let _ = service.kill();
    let _ = service.wait();
    let first = first.unwrap_or_default();
    assert!(
        first.contains(&format!("127.0.0.1:{port}")),
        "the service ignored its config file (environment {environment:?}): {first}"
    );
    assert!(
        edited_dir.path().join("data").exists(),
        "the data dir of the file is used"
    );
}
