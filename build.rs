//! Build script: bundles the web GUI and compiles it into the binary.
//!
//! The front-end sources live in `web/` (`web/src/*.js`, `web/src/snip.css`);
//! third-party libraries come from npm (`web/package.json` and its lock file).
//! This script:
//!
//! 1. runs `npm ci` in `web/` when `web/node_modules` is missing or older than
//!    `web/package-lock.json`;
//! 2. runs `npm run build` (`web/build.mjs`: esbuild bundles and minifies, then
//!    every file is precompressed with brotli and gzip) into `$OUT_DIR/web`;
//! 3. turns `$OUT_DIR/web/manifest.tsv` into `$OUT_DIR/assets.rs`, a static
//!    table of every asset with its bytes (`include_bytes!`), precompressed
//!    variants and strong ETag, which `src/http/render/assets.rs` includes.
//!
//! Cargo reruns it only when a file under `web/src`, `web/build.mjs`,
//! `web/package.json` or `web/package-lock.json` changes (the
//! `rerun-if-changed` lines below), so ordinary Rust edits never run npm.
//! Nothing generated is written into the source tree except `web/node_modules`
//! (git-ignored). Without npm the build fails with a message saying so.
//!
//! `SNIP_WEB_DIST=DIR` names a bundle made beforehand by
//! `npm --prefix web run build -- DIR` (the same layout, `manifest.tsv`
//! included); the script then runs no npm at all and builds the table from
//! it, so `cargo clippy`, packagers and machines without Node.js can build
//! snip offline.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let web = root.join("web");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    for path in [
        "web/src",
        "web/build.mjs",
        "web/package.json",
        "web/package-lock.json",
        "locales",
    ] {
        println!("cargo::rerun-if-changed={path}");
    }
    println!("cargo::rerun-if-env-changed=SNIP_NPM");
    println!("cargo::rerun-if-env-changed=SNIP_WEB_DIST");

    if let Some(dist) = std::env::var_os("SNIP_WEB_DIST").filter(|d| !d.is_empty()) {
        let dist = prebuilt(&root, Path::new(&dist));
        // Cargo scans a directory for changes, so a rebuilt bundle is picked up.
        println!("cargo::rerun-if-changed={}", dist.display());
        let table = asset_table(&dist);
        std::fs::write(out.join("assets.rs"), table).expect("write assets.rs");
        return;
    }

    let npm = std::env::var("SNIP_NPM").unwrap_or_else(|_| "npm".to_owned());
    if !npm_works(&npm) {
        fail(&format!(
            "`{npm} --version` did not run. snip's web GUI is bundled with npm at build time: \
             install Node.js 18 or newer with npm (Debian/Ubuntu: apt-get install nodejs npm), \
             or point SNIP_NPM at an npm binary, or SNIP_WEB_DIST at a prebuilt bundle, \
             then build again."
        ));
    }
    if needs_install(&web) {
        run(
            Command::new(&npm)
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
                .current_dir(&web),
            "npm ci (installs web/node_modules from web/package-lock.json)",
        );
    }
    let dist = out.join("web");
    run(
        Command::new(&npm)
            .args(["run", "--silent", "build", "--"])
            .arg(&dist)
            .current_dir(&web),
        "npm run build (web/build.mjs)",
    );
    let table = asset_table(&dist);
    std::fs::write(out.join("assets.rs"), table).expect("write assets.rs");
}

/// The absolute path of a prebuilt bundle (relative paths are taken from the
/// repository root, where cargo runs this script), which must hold a manifest.
fn prebuilt(root: &Path, dist: &Path) -> PathBuf {
    let dist = root.join(dist);
    if !dist.join("manifest.tsv").is_file() {
        fail(&format!(
            "SNIP_WEB_DIST={} holds no manifest.tsv: make the bundle with \
             `npm --prefix web run build -- DIR` and point SNIP_WEB_DIST at DIR",
            dist.display()
        ));
    }
    dist.canonicalize()
        .unwrap_or_else(|e| fail(&format!("SNIP_WEB_DIST={}: {e}", dist.display())))
}

/// Stops the build; cargo shows this script's stderr when it fails.
fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}

fn npm_works(npm: &str) -> bool {
    Command::new(npm)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn modified(path: &Path) -> Option<SystemTime> {
    path.metadata().and_then(|m| m.modified()).ok()
}

/// `npm ci` is needed when node_modules is missing or older than the lock file.
fn needs_install(web: &Path) -> bool {
    // npm writes node_modules/.package-lock.json at the end of every install.
    let installed = modified(&web.join("node_modules/.package-lock.json"));
    let locked = modified(&web.join("package-lock.json"));
    match (installed, locked) {
        (Some(installed), Some(locked)) => installed < locked,
        _ => true,
    }
}

fn run(command: &mut Command, what: &str) {
    match command.status() {
        Ok(status) if status.success() => {}
        Ok(status) => fail(&format!("{what} failed ({status}); see the output above")),
        Err(e) => fail(&format!("{what} could not start: {e}")),
    }
}

/// Rust source for the asset table, from the manifest `build.mjs` wrote.
fn asset_table(dist: &Path) -> String {
    let manifest = std::fs::read_to_string(dist.join("manifest.tsv"))
        .unwrap_or_else(|e| fail(&format!("web/build.mjs wrote no manifest.tsv: {e}")));
    let mut table = String::from("// Generated by build.rs from web/build.mjs's manifest.tsv.\n\n");
    let mut entries = String::new();
    let mut lookup = String::new();
    let mut logical = String::new();
    let mut count = 0usize;
    for line in manifest.lines().filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [file, name, content_type, etag] = fields[..] else {
            fail(&format!("bad manifest line {line:?}"));
        };
        let path = dist.join(file);
        let variant = |ext: &str| {
            let p = PathBuf::from(format!("{}.{ext}", path.display()));
            if p.exists() {
                format!("Some(include_bytes!({:?}))", p.display().to_string())
            } else {
                "None".to_owned()
            }
        };
        let _ = writeln!(
            entries,
            "    Asset {{ file: {file:?}, content_type: {content_type:?}, etag: \"\\\"{etag}\\\"\", \
             identity: include_bytes!({path:?}), br: {br}, gzip: {gz} }},",
            path = path.display().to_string(),
            br = variant("br"),
            gz = variant("gz"),
        );
        let _ = writeln!(lookup, "        {file:?} => Some(&ASSETS[{count}]),");
        if name != file {
            let _ = writeln!(logical, "        {name:?} => Some(&ASSETS[{count}]),");
            let constant = name.replace(['.', '-'], "_").to_ascii_uppercase();
            let _ = writeln!(
                table,
                "/// The served path of `{name}` (content-hashed).\npub const {constant}: &str = \"/assets/{file}\";"
            );
        }
        count += 1;
    }
    let _ = write!(
        table,
        "\n/// Every embedded asset, sorted by file name.\npub static ASSETS: [Asset; {count}] = [\n{entries}];\n\n\
         /// The asset served under a content-hashed file name.\npub fn by_file(file: &str) -> Option<&'static Asset> {{\n    match file {{\n{lookup}        _ => None,\n    }}\n}}\n\n\
         /// The current asset for a stable name (`app.js`, `snip.css`, …).\npub fn by_name(name: &str) -> Option<&'static Asset> {{\n    match name {{\n{logical}        _ => None,\n    }}\n}}\n"
    );
    table
}
