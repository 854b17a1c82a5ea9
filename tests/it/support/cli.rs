//! Running the `snip` command-line client against a test server.

use std::io::{BufRead, BufReader, Lines};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Output, Stdio};

use super::server::Server;

/// Runs the `snip` CLI against `server` with `stdin` piped in, its own
/// client directory (remembered delete tokens, and the config directory) and
/// exactly the credentials and defaults in `env`: inherited `SNIP_TOKEN`,
/// `SNIP_ADMIN_TOKEN`, `SNIP_PASSWORD`, `SNIP_TTL`, `SNIP_BURN` and
/// `SNIP_ENCRYPT` are removed.
pub fn run_cli(
    server: &Server,
    client_dir: &Path,
    env: &[(&str, &str)],
    args: &[&str],
    stdin: &[u8],
) -> Output {
    run_cli_in(None, server, client_dir, env, args, stdin)
}

/// [`run_cli`] in the working directory `cwd` (the test's own, if `None`),
/// for commands that write into the current directory.
pub fn run_cli_in(
    cwd: Option<&Path>,
    server: &Server,
    client_dir: &Path,
    env: &[(&str, &str)],
    args: &[&str],
    stdin: &[u8],
) -> Output {
    use std::io::Write;
    let mut command = Command::new(env!("CARGO_BIN_EXE_snip"));
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let mut child = isolated(&mut command, server, client_dir)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        // A command that fails before reading its input may close the pipe first.
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

/// A running `snip login` and the provider's page it printed.
pub struct CliLogin {
    child: Child,
    lines: Lines<BufReader<ChildStderr>>,
    shown: Vec<String>,
    /// The page the CLI asks the person to open.
    pub page: String,
}

impl CliLogin {
    /// Starts `snip login` (with `extra` arguments) against `server` with
    /// client directory `dir`, and reads its standard error up to the first
    /// line `stop` accepts; the page must have been printed by then.
    pub fn start(server: &Server, dir: &Path, extra: &[&str], stop: fn(&str) -> bool) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_snip"));
        let mut child = isolated(&mut command, server, dir)
            .arg("login")
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut shown = Vec::new();
        let mut page = None;
        for line in lines.by_ref() {
            let line = line.unwrap();
            shown.push(line.clone());
            if let Some(url) = line.strip_prefix("To sign in, open ") {
                page = Some(url.to_owned());
            }
            if stop(&line) {
                break;
            }
        }
        let page = page.unwrap_or_else(|| panic!("no page shown: {shown:?}"));
        Self {
            child,
            lines,
            shown,
            page,
        }
    }

    /// The CLI's exit and everything it printed on standard error.
    pub fn finish(self) -> Output {
        let rest: Vec<String> = self.lines.map(Result::unwrap).collect();
        let mut output = self.child.wait_with_output().unwrap();
        output.stderr = [self.shown, rest].concat().join("\n").into_bytes();
        output
    }
}

/// Points a client command at `server` with its own client directory, no
/// config file (unless a test writes one there) and no credentials or
/// defaults inherited from the environment.
pub fn isolated<'a>(
    command: &'a mut Command,
    server: &Server,
    client_dir: &Path,
) -> &'a mut Command {
    command
        .env("SNIP_SERVER", &server.url)
        .env("SNIP_CLIENT_DIR", client_dir)
        .env("XDG_CONFIG_HOME", client_dir)
        .env_remove("SNIP_TOKEN")
        .env_remove("SNIP_ADMIN_TOKEN")
        .env_remove("SNIP_PASSWORD")
        .env_remove("SNIP_TTL")
        .env_remove("SNIP_BURN")
        .env_remove("SNIP_ENCRYPT")
}

/// Writes two small source files, `a.rs` and `b.py`, into `dir`; returns their paths.
pub fn two_source_files(dir: &Path) -> (PathBuf, PathBuf) {
    let a = dir.join("a.rs");
    let b = dir.join("b.py");
    std::fs::write(&a, "fn a() {}").unwrap();
    std::fs::write(&b, "def b(): pass").unwrap();
    (a, b)
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Standard output as text; panics unless it is UTF-8.
pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Standard error of a command that must have succeeded.
pub fn succeeded(output: &Output) -> String {
    let stderr = stderr(output);
    assert!(output.status.success(), "snip failed: {stderr}");
    stderr
}

/// Standard error of a command that must have failed.
pub fn failed(output: &Output) -> String {
    let stderr = stderr(output);
    assert!(
        !output.status.success(),
        "snip should have failed: {stderr}"
    );
    stderr
}

/// Runs `snip ARGS` against `server` with a terminal (a pty from util-linux's
/// `script`) as its standard input, output and error, which come back mixed
/// in `stdout`, with `\r\n` line ends. For what snip does only on a terminal.
pub fn run_cli_on_terminal(server: &Server, client_dir: &Path, args: &[&str]) -> Output {
    run_cli_on_terminal_typing(server, client_dir, args, None)
}

/// [`run_cli_on_terminal`], with `typed` as what a person types on the
/// terminal (`script` passes its standard input on to the pty), or nothing.
pub fn run_cli_on_terminal_typing(
    server: &Server,
    client_dir: &Path,
    args: &[&str],
    typed: Option<&[u8]>,
) -> Output {
    use std::io::Write;
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_snip"))
        .chain(args.iter().copied())
        .map(|arg| format!("'{}'", arg.replace('\'', r"'\''")))
        .collect();
    let mut command = Command::new("script");
    let mut child = isolated(&mut command, server, client_dir)
        .args([
            "--quiet",
            "--return",
            "--command",
            &quoted.join(" "),
            "/dev/null",
        ])
        // A terminal that can redraw a line: with TERM unset (as under CI) or
        // dumb, progress is rightly not drawn.
        .env("TERM", "xterm")
        .stdin(if typed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let (Some(typed), Some(mut stdin)) = (typed, child.stdin.take()) {
        // The pty buffers the lines until snip reads them.
        stdin.write_all(typed).unwrap();
    }
    child.wait_with_output().unwrap()
}
