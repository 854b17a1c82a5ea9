//! The `snip admin`, `list` and `shorten` commands and the tenant token of the
//! client, against a real server.

use std::path::Path;
use std::process::Output;

use crate::support::{
    Fetch, Server,
    cli::{run_cli, stderr},
    client,
    tenants::{ADMIN, start},
};

/// Runs `snip ARGS` against `server` with `env` set and `stdin` piped in.
fn snip(server: &Server, dir: &Path, env: &[(&str, &str)], args: &[&str], stdin: &[u8]) -> Output {
    run_cli(server, dir, env, args, stdin)
}

/// Standard output, trimmed; panics (showing stderr) unless the command succeeded.
fn ok(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", stderr(output));
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .trim()
        .to_owned()
}

/// The admin commands create a tenant and tokens; a tenant token puts, lists and shortens; revocation stops it with a clear error.
#[tokio::test]
async fn admin_and_tenant_workflow() {
    let server = start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let admin_env = [("SNIP_ADMIN_TOKEN", ADMIN)];
    let create = snip(
        &server,
        dir.path(),
        &admin_env,
        &[
            "admin",
            "tenant",
            "create",
            "team",
            "--max-bytes",
            "1MiB",
            "--rate",
            "50/s",
        ],
        b"",
    );
    let token = ok(&create);
    assert!(token.starts_with("snip_"), "{token}");
    let details = stderr(&create);
    assert!(
        details.contains("team") && details.contains("max-bytes=1 MiB"),
        "{details}"
    );

    let user = [("SNIP_TOKEN", token.as_str())];
    let url = ok(&snip(
        &server,
        dir.path(),
        &user,
        &["put", "--private", "--name", "notes.txt"],
        b"secret notes",
    ));
    assert!(url.starts_with(&server.url), "{url}");
    assert_eq!(client().get(&url).fetch().await.status(), 404);
    let got = snip(&server, dir.path(), &user, &["get", &url], b"");
    assert_eq!(ok(&got), "secret notes");

    let listed = ok(&snip(&server, dir.path(), &user, &["list"], b""));
    let id = url.rsplit('/').next().unwrap();
    assert!(
        listed.contains(id) && listed.contains("notes.txt") && listed.contains("12 bytes"),
        "{listed}"
    );

    let short = ok(&snip(
        &server,
        dir.path(),
        &user,
        &["shorten", "https://example.com/long"],
        b"",
    ));
    let response = client().get(&short).fetch().await;
    assert_eq!(response.status(), 302);
    assert_eq!(response.headers()["location"], "https://example.com/long");

    let tenants = ok(&snip(
        &server,
        dir.path(),
        &admin_env,
        &["admin", "tenant", "list"],
        b"",
    ));
    assert!(
        tenants.contains("team") && tenants.contains("pastes=2"),
        "{tenants}"
    );
    let tokens = ok(&snip(
        &server,
        dir.path(),
        &admin_env,
        &["admin", "token", "list", "--tenant", "team"],
        b"",
    ));
    let token_id = tokens.split_whitespace().next().unwrap().to_owned();
    assert!(token_id.starts_with("tok_"), "{tokens}");
    ok(&snip(
        &server,
        dir.path(),
        &admin_env,
        &["admin", "token", "revoke", &token_id],
        b"",
    ));

    let refused = snip(&server, dir.path(), &user, &["list"], b"");
    assert!(!refused.status.success());
    let message = stderr(&refused);
    assert!(
        message.contains("401") && message.contains("revoked"),
        "{message}"
    );
    let refused = snip(&server, dir.path(), &user, &["put"], b"more");
    assert!(!refused.status.success());
}

/// Tokens from `admin token create` respect --read-only; limits change with `tenant update`, and `none` removes one.
#[tokio::test]
async fn admin_tokens_and_updates() {
    let server = start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("admin-token");
    std::fs::write(&token_file, format!("{ADMIN}\n")).unwrap();
    let file_flag = format!("--admin-token-file={}", token_file.display());
    let admin = |args: &[&str]| {
        let mut all = vec!["admin"];
        all.extend_from_slice(args);
        all.push(&file_flag);
        snip(&server, dir.path(), &[], &all, b"")
    };
    let created = admin(&["tenant", "create", "ro", "--max-paste-size", "4KiB"]);
    assert!(
        stderr(&created).contains("max-paste-size=4 KiB"),
        "sizes in units: {}",
        stderr(&created)
    );
    ok(&admin(&["tenant", "update", "ro", "--max-paste-size", "4"]));
    let reader = ok(&admin(&[
        "token",
        "create",
        "--tenant",
        "ro",
        "--read-only",
        "--expires",
        "30d",
    ]));
    let refused = snip(
        &server,
        dir.path(),
        &[("SNIP_TOKEN", &reader)],
        &["put"],
        b"hi",
    );
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("read-only"));

    let writer = ok(&admin(&["token", "create", "--tenant", "ro"]));
    let big = snip(
        &server,
        dir.path(),
        &[("SNIP_TOKEN", &writer)],
        &["put"],
        b"12345",
    );
    assert!(stderr(&big).contains("413"));
    let updated = ok(&admin(&[
        "tenant",
        "update",
        "ro",
        "--max-paste-size",
        "none",
    ]));
    assert!(updated.contains("max-paste-size=server"), "{updated}");
    ok(&snip(
        &server,
        dir.path(),
        &[("SNIP_TOKEN", &writer)],
        &["put"],
        b"12345",
    ));

    let no_admin = snip(&server, dir.path(), &[], &["admin", "tenant", "list"], b"");
    assert!(!no_admin.status.success());
    assert!(stderr(&no_admin).contains("SNIP_ADMIN_TOKEN"));
}

/// `admin token revoke` takes the token itself, as an argument or on stdin, and
/// refuses anything that is neither a token nor a token ID, revoking nothing.
#[tokio::test]
async fn revoke_by_the_token_itself() {
    let server = start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let admin_env = [("SNIP_ADMIN_TOKEN", ADMIN)];
    let admin = |args: &[&str], stdin: &[u8]| {
        let mut all = vec!["admin", "token"];
        all.extend_from_slice(args);
        snip(&server, dir.path(), &admin_env, &all, stdin)
    };
    let first = snip(
        &server,
        dir.path(),
        &admin_env,
        &["admin", "tenant", "create", "leaky"],
        b"",
    );
    let first = ok(&first);
    let second = ok(&admin(&["create", "--tenant", "leaky"], b""));
    let works = |token: &str| {
        snip(
            &server,
            dir.path(),
            &[("SNIP_TOKEN", token)],
            &["list"],
            b"",
        )
        .status
        .success()
    };
    assert!(works(&first) && works(&second));

    let refused = admin(&["revoke", "not-a-token"], b"");
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("snip_"), "{}", stderr(&refused));
    assert!(
        works(&first) && works(&second),
        "a refused revoke changed nothing"
    );

    ok(&admin(&["revoke", &first], b""));
    assert!(!works(&first) && works(&second));
    ok(&admin(&["revoke", "-"], format!("{second}\n").as_bytes()));
    assert!(!works(&second));
}

/// `admin` and `backup` take the server and the admin token file from the
/// client's config file, as the user-side commands do.
#[tokio::test]
async fn admin_commands_read_the_config_file() {
    let server = start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("admin-token");
    std::fs::write(&token_file, format!("{ADMIN}\n")).unwrap();
    std::fs::create_dir_all(dir.path().join("snip")).unwrap();
    std::fs::write(
        dir.path().join("snip/config.toml"),
        format!(
            "server = \"{}\"\nadmin-token-file = \"{}\"\n",
            server.url,
            token_file.display()
        ),
    )
    .unwrap();
    // An empty SNIP_SERVER counts as unset, so only the file names the server.
    let no_env = [("SNIP_SERVER", "")];

    ok(&snip(
        &server,
        dir.path(),
        &no_env,
        &["admin", "tenant", "create", "cfg"],
        b"",
    ));
    let listed = ok(&snip(
        &server,
        dir.path(),
        &no_env,
        &["admin", "tenant", "list"],
        b"",
    ));
    assert!(listed.contains("cfg"), "{listed}");
    let dump = dir.path().join("all.snipdump");
    let dump_arg = dump.to_str().unwrap();
    snip(
        &server,
        dir.path(),
        &no_env,
        &["backup", "-o", dump_arg],
        b"",
    );
    assert!(
        std::fs::metadata(&dump).is_ok_and(|m| m.len() > 0),
        "backup through the configured server wrote a dump"
    );
}
