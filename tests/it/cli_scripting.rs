//! The `snip` client as scripts and people at a terminal use it: short flags,
//! `--json`, `get --meta`, `-o`, binary pastes on a terminal, `list --mine`,
//! a repeated delete, a server given without a scheme, completions and the
//! man page.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::{
    Server,
    cli::{failed, run_cli, run_cli_on_terminal, stdout, succeeded, two_source_files},
};

fn snip(server: &Server, client_dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    run_cli(server, client_dir, &[], args, stdin)
}

/// Standard output of a command that must have succeeded, parsed as JSON.
fn json_of(output: &Output) -> Value {
    succeeded(output);
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The short flags set what the long ones do; `put --json` and `get --meta`
/// print JSON that says so, and `get --meta` does not reveal a burn paste.
#[tokio::test]
async fn short_flags_and_json() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let put = snip(
        &server,
        dir.path(),
        &["put", "-t", "1h", "-l", "rust", "-n", "x.rs", "--json"],
        b"fn main() {}",
    );
    let created = json_of(&put);
    let created = created.as_array().unwrap();
    assert_eq!(created.len(), 1);
    let url = created[0]["url"].as_str().unwrap();
    assert!(url.starts_with(&server.url), "{url}");
    assert!(created[0]["delete_token"].is_string());
    assert!(created[0]["expires_at"].is_string());
    assert!(created[0]["file"].is_null());
    let meta = json_of(&snip(&server, dir.path(), &["get", "--meta", url], b""));
    assert_eq!(meta["lang"], "rust");
    assert_eq!(meta["name"], "x.rs");

    let put = snip(&server, dir.path(), &["put", "-b", "-e"], b"secret");
    let link = stdout(&succeeded_output(put)).trim().to_owned();
    assert!(link.contains('#'), "{link}");
    let meta = json_of(&snip(&server, dir.path(), &["get", "--meta", &link], b""));
    assert_eq!(meta["burn"], true);
    assert_eq!(meta["encrypted"], true);
    let get = snip(&server, dir.path(), &["get", &link], b"");
    assert_eq!(stdout(&get), "secret", "--meta left the burn paste alone");
}

fn succeeded_output(output: Output) -> Output {
    succeeded(&output);
    output
}

/// Several files with `--each`, one paste per file: bare URLs into a pipe,
/// `file<TAB>url` lines on a terminal, and `--json` names each paste's file.
#[tokio::test]
async fn several_files() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_source_files(dir.path());
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());

    let piped = stdout(&succeeded_output(snip(
        &server,
        dir.path(),
        &["put", "--each", a, b],
        b"",
    )));
    let lines: Vec<&str> = piped.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l.starts_with(&server.url)), "{piped}");

    let terminal = run_cli_on_terminal(&server, dir.path(), &["put", "--each", a, b]);
    let text = stdout(&succeeded_output(terminal));
    assert!(text.contains(&format!("{a}\t{}", server.url)), "{text:?}");
    assert!(text.contains(&format!("{b}\t{}", server.url)), "{text:?}");

    let json = json_of(&snip(
        &server,
        dir.path(),
        &["put", "--each", "--json", a, b],
        b"",
    ));
    assert_eq!(json[0]["file"], a);
    assert_eq!(json[1]["file"], b);
}

/// A binary paste is refused on a terminal unless `-o FILE` or `--output -`;
/// into a pipe it is written as is; `-o` writes the file.
#[tokio::test]
async fn binary_get_needs_output() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<u8> = (0..=255u8).collect();
    let put = snip(&server, dir.path(), &["put", "-l", "text"], &body);
    let url = stdout(&succeeded_output(put)).trim().to_owned();

    let refused = run_cli_on_terminal(&server, dir.path(), &["get", &url]);
    assert!(!refused.status.success());
    let message = String::from_utf8_lossy(&refused.stdout);
    assert!(message.contains("-o FILE"), "{message}");

    let forced = run_cli_on_terminal(&server, dir.path(), &["get", "--output", "-", &url]);
    succeeded_output(forced);

    let file = dir.path().join("out.bin");
    let saved = run_cli_on_terminal(
        &server,
        dir.path(),
        &["get", "-o", file.to_str().unwrap(), &url],
    );
    succeeded_output(saved);
    assert_eq!(std::fs::read(&file).unwrap(), body);

    let piped = snip(&server, dir.path(), &["get", &url], b"");
    assert_eq!(succeeded_output(piped).stdout, body);
}

/// `list --mine` lists what this client put and has not deleted, newest
/// first, with each paste's creation time and name, and an encrypted
/// paste's link with its key; a second delete says the paste is already deleted.
#[tokio::test]
async fn mine_and_repeated_delete() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let put = |args: &[&str], body: &[u8]| {
        let args: Vec<&str> = ["put"].iter().chain(args).copied().collect();
        let out = succeeded_output(snip(&server, dir.path(), &args, body));
        stdout(&out).trim().to_owned()
    };
    let first = put(&[], b"one");
    let second = put(&["--name", "notes.md"], b"two");
    let third = put(&["--encrypt", "--name", "secret.txt"], b"three");
    assert!(third.contains('#'), "{third}");
    let mine = stdout(&succeeded_output(snip(
        &server,
        dir.path(),
        &["list", "--mine"],
        b"",
    )));
    let rows: Vec<Vec<&str>> = mine
        .lines()
        .map(|line| line.split('\t').collect())
        .collect();
    let links: Vec<&str> = rows.iter().map(|row| row[0]).collect();
    assert_eq!(
        links,
        [third.as_str(), second.as_str(), first.as_str()],
        "{mine}"
    );
    let names: Vec<&str> = rows.iter().map(|row| row[2]).collect();
    assert_eq!(names, ["secret.txt", "notes.md", "-"], "{mine}");
    assert!(rows.iter().all(|row| row[1].ends_with('Z')), "{mine}");

    succeeded(&snip(&server, dir.path(), &["delete", &first], b""));
    let json = json_of(&snip(
        &server,
        dir.path(),
        &["list", "--mine", "--json"],
        b"",
    ));
    let urls: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|paste| paste["url"].as_str().unwrap())
        .collect();
    assert_eq!(urls, [third.as_str(), second.as_str()], "{json}");
    assert_eq!(json[1]["name"], "notes.md", "{json}");

    let again = failed(&snip(&server, dir.path(), &["delete", &first], b""));
    assert!(again.contains("already deleted"), "{again}");
}

/// `--server host:port` without a scheme is taken as http.
#[tokio::test]
async fn server_without_scheme() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let bare = server.url.trim_start_matches("http://").to_owned();
    let put = run_cli(
        &server,
        dir.path(),
        &[("SNIP_SERVER", &bare)],
        &["put"],
        b"x",
    );
    let url = stdout(&succeeded_output(put)).trim().to_owned();
    assert!(url.starts_with(&server.url), "{url}");
}

/// Completions for each shell name the subcommands.
#[test]
fn completions() {
    for shell in ["bash", "zsh", "fish"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
            .args(["completions", shell])
            .output()
            .unwrap();
        let script = stdout(&succeeded_output(out));
        for word in ["put", "get", "delete", "completions"] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
    }
}

/// `snip man DIR` writes snip(1) and a page per command: every page a page
/// names is there, every command's page has EXAMPLES, snip(1) leaves the
/// server's options to snip-serve(1), which says each has a variable.
#[test]
fn man_pages_name_only_pages_that_exist() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .arg("man")
        .arg(dir.path())
        .output()
        .unwrap();
    succeeded_output(out);
    let pages: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    for command in [
        "put",
        "get",
        "delete",
        "list",
        "shorten",
        "config",
        "serve",
        "admin",
        "backup",
        "restore",
        "migrate",
        "completions",
        "man",
    ] {
        let name = format!("snip-{command}.1");
        let page = std::fs::read_to_string(dir.path().join(&name))
            .unwrap_or_else(|e| panic!("{name}: {e}; pages: {pages:?}"));
        assert!(
            page.contains("\n.SH EXAMPLES\n"),
            "{name} has no EXAMPLES:\n{page}"
        );
        assert!(page.contains(&format!("snip {command}")), "{name}:\n{page}");
    }
    for name in &pages {
        let page = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(page.contains("\n.TH "), "{name} is not roff");
        // A reference looks like `snip\-put(1)` in roff.
        for reference in page.split("(1)").filter_map(|before| {
            let start = before.rfind(|c: char| c.is_whitespace() || c == '[')? + 1;
            let word = before[start..].replace("\\-", "-").replace("\\fB", "");
            word.starts_with("snip").then_some(word)
        }) {
            assert!(
                pages.contains(&format!("{reference}.1")),
                "{name} names {reference}(1), which is not written; pages: {pages:?}"
            );
        }
    }
    let root = std::fs::read_to_string(dir.path().join("snip.1")).unwrap();
    assert!(root.contains("snip\\-put(1)"), "{root}");
    assert!(
        !root.contains("max\\-ttl"),
        "snip(1) lists server options:\n{root}"
    );
    let serve = std::fs::read_to_string(dir.path().join("snip-serve.1")).unwrap();
    assert!(
        serve.contains(r"\fBSNIP_LISTEN\fR environment variable"),
        "{serve}"
    );
}

/// `snip --help` fits a screen: the commands in groups, client commands
/// first, and no server option, which `snip serve --help` lists.
#[test]
fn the_help_is_short_and_grouped() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .arg("--help")
        .output()
        .unwrap();
    let help = stdout(&succeeded_output(out));
    assert!(
        help.lines().count() <= 40,
        "{} lines:\n{help}",
        help.lines().count()
    );
    let commands = help.find("Commands:").expect("a group of client commands");
    let server = help
        .find("Server commands:")
        .expect("a group of server commands");
    assert!(
        commands < server && help.find("  put ").unwrap() < server,
        "{help}"
    );
    assert!(
        !help.contains("--max-ttl") && !help.contains("--listen"),
        "{help}"
    );
    assert!(help.contains("snip serve --help"), "{help}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let serve = stdout(&succeeded_output(out));
    assert!(
        serve.contains("--max-ttl") && serve.contains("--ttl-choices"),
        "{serve}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .args(["put", "--help"])
        .output()
        .unwrap();
    let put = stdout(&succeeded_output(out));
    assert!(put.contains("Examples:\n  echo hello | snip put"), "{put}");
}

/// `snip put FILE`, `count` times at once; their outputs.
fn puts_side_by_side(server: &Server, dir: &Path, file: &Path, count: usize) -> Vec<Output> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..count)
            .map(|_| scope.spawn(|| snip(server, dir, &["put", file.to_str().unwrap()], b"")))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// An upload over the server's limit reports the server's 413 message, every
/// time, never a broken pipe: the server reads the refused body before
/// answering, so the client is not reset while still sending.
#[tokio::test]
async fn oversized_put_reports_the_limit() {
    let server = Server::start_with(&["--max-paste-size=1MiB"]);
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.log");
    std::fs::write(&big, vec![b'x'; 17_000_000]).unwrap();
    // Side by side, as a busy machine would have them: each must get the 413.
    for put in &puts_side_by_side(&server, dir.path(), &big, 8) {
        let message = failed(put);
        assert!(message.contains("413"), "{message}");
        assert!(message.contains("larger than the limit"), "{message}");
    }
}

/// Beyond what the server reads of a refused body, and for refusals decided
/// from the headers (a bad token), the client still reports the server's
/// answer: it asks again with the headers alone when sending fails.
#[tokio::test]
async fn refusals_the_server_does_not_read_for_still_reach_the_user() {
    let server = Server::start_with(&["--max-paste-size=1MiB"]);
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.log");
    std::fs::write(&huge, vec![b'x'; 80 << 20]).unwrap();
    for put in &puts_side_by_side(&server, dir.path(), &huge, 6) {
        let message = failed(put);
        assert!(
            message.contains("413") && message.contains("larger than the limit"),
            "{message}"
        );
    }

    let tenants = crate::support::tenants::start(&[]);
    let big = dir.path().join("big.log");
    std::fs::write(&big, vec![b'x'; 8 << 20]).unwrap();
    let wrong = format!("snip_{}", "0".repeat(40));
    let refused = run_cli(
        &tenants,
        dir.path(),
        &[("SNIP_TOKEN", &wrong)],
        &["put", big.to_str().unwrap()],
        b"",
    );
    let message = failed(&refused);
    assert!(message.contains("401"), "{message}");
}

/// The value and source `snip config` prints for `name`.
fn setting(output: &Output, name: &str) -> String {
    let text = stdout(&succeeded_output(output.clone()));
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no {name} in {text}"));
    line.to_owned()
}

/// The config file sets put's defaults; `SNIP_*` variables override it and
/// flags override both, as `snip config` shows and `put` does.
#[tokio::test]
async fn config_file_env_and_flags() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let xdg = dir.path().join("xdg");
    std::fs::create_dir_all(xdg.join("snip")).unwrap();
    let file = xdg.join("snip/config.toml");
    std::fs::write(&file, "ttl = \"1d\"\nburn = true\n").unwrap();
    let xdg = xdg.to_str().unwrap();
    let config = |env: &[(&str, &str)], args: &[&str]| {
        let mut all = vec![("XDG_CONFIG_HOME", xdg)];
        all.extend_from_slice(env);
        run_cli(
            &server,
            dir.path(),
            &all,
            &[&["config"], args].concat(),
            b"",
        )
    };

    let from_file = setting(&config(&[], &[]), "ttl");
    assert!(
        from_file.contains("1d") && from_file.contains("config file"),
        "{from_file}"
    );
    let from_env = setting(&config(&[("SNIP_TTL", "2h")], &[]), "ttl");
    assert!(
        from_env.contains("2h") && from_env.contains("SNIP_TTL"),
        "{from_env}"
    );
    let from_flag = setting(&config(&[("SNIP_TTL", "2h")], &["-t", "3h"]), "ttl");
    assert!(
        from_flag.contains("3h") && from_flag.contains("(flag)"),
        "{from_flag}"
    );
    let server_line = setting(&config(&[], &[]), "server");
    assert!(server_line.contains(&server.url) && server_line.contains("SNIP_SERVER"));
    let burn = setting(&config(&[("SNIP_BURN", "false")], &[]), "burn");
    assert!(
        burn.contains("false") && burn.contains("SNIP_BURN"),
        "{burn}"
    );

    // put takes its defaults from the file.
    let put = run_cli(
        &server,
        dir.path(),
        &[("XDG_CONFIG_HOME", xdg)],
        &["put", "--json"],
        b"x",
    );
    let created = json_of(&put);
    assert_eq!(created[0]["burn"], true);

    // A typo in the file is an error naming the file and the key.
    std::fs::write(&file, "colour = \"blue\"\n").unwrap();
    let message = failed(&config(&[], &[]));
    assert!(
        message.contains("config.toml") && message.contains("colour"),
        "{message}"
    );
}

/// A key of the server's TOML file that is no option is refused with the
/// file's path and the key, not a flag suggestion.
#[test]
fn server_config_file_unknown_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("snip.toml");
    std::fs::write(
        &file,
        "max-paste-size = \"1MiB\"\nlisten-adress = \"0.0.0.0:80\"\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .arg("serve")
        .arg(format!("--config={}", file.display()))
        .arg(format!("--data-dir={}", dir.path().join("data").display()))
        .env_remove("SNIP_CONFIG")
        .output()
        .unwrap();
    let message = failed(&out);
    assert!(message.contains("snip.toml"), "{message}");
    assert!(message.contains("unknown key 'listen-adress'"), "{message}");
    assert!(!message.contains("--listen-adress"), "{message}");
}

/// A transfer over 1 MiB shows progress on a terminal and nothing into a pipe.
#[tokio::test]
async fn progress_only_on_a_terminal() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    std::fs::write(&big, vec![b'x'; 2 * 1024 * 1024]).unwrap();
    let big = big.to_str().unwrap();

    let piped = snip(&server, dir.path(), &["put", big], b"");
    assert_eq!(succeeded(&piped), "", "progress went into a pipe");
    let url = stdout(&piped).trim().to_owned();
    let get = snip(&server, dir.path(), &["get", &url], b"");
    assert_eq!(succeeded(&get), "", "progress went into a pipe");

    let terminal = run_cli_on_terminal(&server, dir.path(), &["put", big]);
    let shown = String::from_utf8_lossy(&succeeded_output(terminal).stdout).into_owned();
    assert!(
        shown.contains("big.txt") && shown.contains("MiB"),
        "{shown:?}"
    );
    let file = dir.path().join("copy.txt");
    let terminal = run_cli_on_terminal(
        &server,
        dir.path(),
        &["get", "-o", file.to_str().unwrap(), &url],
    );
    let shown = String::from_utf8_lossy(&succeeded_output(terminal).stdout).into_owned();
    assert!(
        shown.contains("downloading") && shown.contains("MiB"),
        "{shown:?}"
    );
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 2 * 1024 * 1024);
}

/// `snip backup` and `snip restore` show a spinner on a terminal and only
/// their summary line into a pipe.
#[test]
fn backup_progress_only_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("data");
    let dump = dir.path().join("all.snipdump");
    let (store, dump) = (store.to_str().unwrap(), dump.to_str().unwrap());
    let piped = std::process::Command::new(env!("CARGO_BIN_EXE_snip"))
        .args(["backup", "--store", store, "--out", dump])
        .output()
        .unwrap();
    let message = succeeded(&piped);
    assert!(
        message.starts_with("backed up") && message.lines().count() == 1,
        "{message:?}"
    );

    let server = Server::start();
    let terminal = run_cli_on_terminal(
        &server,
        dir.path(),
        &["backup", "--store", store, "--out", dump],
    );
    let shown = String::from_utf8_lossy(&succeeded_output(terminal).stdout).into_owned();
    assert!(shown.contains("backing up"), "{shown:?}");
    let terminal = run_cli_on_terminal(
        &server,
        dir.path(),
        &["restore", "--store", &format!("{store}2"), dump],
    );
    let shown = String::from_utf8_lossy(&succeeded_output(terminal).stdout).into_owned();
    assert!(shown.contains("restoring"), "{shown:?}");
}
