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
}
