//! The command line: flags, environment variables and the TOML file, parsed
//! by clap, and mapped onto the settings each layer owns ([`serve`] for the
//! server and its layers, [`tls`] for HTTPS). The subcommands' own flags are
//! the client's ([`crate::client`]).
//!
//! Every `serve` option can be given, from lowest to highest precedence, as its
//! default, in a TOML file (`--config`, keys named like the long flags:
//! `max-paste-size = "8MiB"`), as an environment variable (`SNIP_MAX_PASTE_SIZE`),
//! or as a flag. The TOML layer is applied by turning each key into a flag
//! placed before the real arguments (later flags win), skipping keys whose
//! environment variable is set, so clap stays the single parser and `--help`
//! the single reference.
//!
//! This is the top of the module graph: it imports the layers, and none of
//! them imports it.

pub mod generate;
pub mod serve;
pub mod tls;

use std::path::{Path, PathBuf};

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub use serve::ServeArgs;
pub use tls::TlsArgs;

/// snip: a simple, fast, self-hosted pastebin.
#[derive(Debug, Parser)]
#[command(
    name = "snip",
    version,
    args_conflicts_with_subcommands = true,
    args_override_self = true
)]
pub struct Cli {
    /// What to do; without one, snip serves.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of `serve`, for when no subcommand is given.
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server (the default).
    Serve(Box<ServeArgs>),
    /// Create a paste from files or standard input and print its URL
    /// (with --encrypt, the URL and its #key).
    Put(crate::client::PutArgs),
    /// Print a paste's bytes, decrypted with the link's #key if it is encrypted
    /// (revealing, and so destroying, a burn paste).
    Get(crate::client::GetArgs),
    /// Delete a paste with its delete token (or the tenant's API token).
    Delete(crate::client::DeleteArgs),
    /// List the tenant's pastes, newest first (needs SNIP_TOKEN).
    List(crate::client::ListArgs),
    /// Make a short link that redirects to a URL and print it.
    Shorten(crate::client::ShortenArgs),
    /// Manage tenants and tokens through the admin API (needs SNIP_ADMIN_TOKEN).
    Admin(crate::client::admin::AdminArgs),
    /// Write a checksummed dump of every live paste, tenant and token, from a
    /// running server (admin API) or directly from a store.
    Backup(crate::client::backup::BackupArgs),
    /// Load a dump into a store (all or nothing; the dump is checked first).
    Restore(crate::client::backup::RestoreArgs),
    /// Copy every live paste, tenant and token from one store to another.
    Migrate(crate::client::backup::MigrateArgs),
    /// Show the client's effective settings (server, token, put's defaults)
    /// and where each came from: flag, SNIP_* variable, config file or default.
    Config(crate::client::settings::ConfigArgs),
    /// Print the shell completion script for bash, zsh, fish, elvish or
    /// powershell (e.g. `snip completions bash > ~/.local/share/bash-completion/completions/snip`).
    Completions(generate::CompletionsArgs),
    /// Print the man page (roff; e.g. `snip man > ~/.local/share/man/man1/snip.1`).
    Man,
}

/// Why the command line or the config file does not make a configuration.
/// Each message names the file; print it with its sources (`{:#}` of an
/// `anyhow::Error`) to see clap's complaint.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file cannot be read.
    #[error("cannot read config file {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The config file is not TOML.
    #[error("config file {} is not valid TOML: {error}", path.display())]
    Toml {
        path: PathBuf,
        error: toml::de::Error,
    },
    /// The config file names another config file.
    #[error("config file {}: 'config' cannot be set inside a config file", path.display())]
    NestedConfig { path: PathBuf },
    /// A key that is no option of `snip serve`.
    #[error(
        "config file {}: unknown key '{key}' (the keys are the long options of `snip serve --help`, without the --)",
        path.display()
    )]
    UnknownKey { path: PathBuf, key: String },
    /// A value that is not a boolean, string or integer.
    #[error("config file {}: {key} has an unsupported value {value}", path.display())]
    UnsupportedValue {
        path: PathBuf,
        key: String,
        value: toml::Value,
    },
    /// The file's settings, with the command line, are refused by clap (the
    /// source, which a caller prints after this).
    #[error("in config file {}", path.display())]
    InFile {
        path: PathBuf,
        #[source]
        error: clap::Error,
    },
    /// The command line is refused by clap.
    #[error(transparent)]
    Clap(#[from] clap::Error),
    /// `--proxy-protocol` without anyone allowed to send the header.
    #[error("--proxy-protocol needs --trusted-proxy: the proxies allowed to send PROXY headers")]
    ProxyProtocolWithoutTrustedProxy,
    /// Both ways of giving the admin token.
    #[error(
        "--admin-token and --admin-token-file (or SNIP_ADMIN_TOKEN and SNIP_ADMIN_TOKEN_FILE) \
         both give the admin token; give only one"
    )]
    TwoAdminTokens,
    /// The admin token file cannot be read or holds no usable token.
    #[error("admin token file {}: {error}", path.display())]
    AdminTokenFile { path: PathBuf, error: String },
}

/// Parses the command line, applying the TOML file named by `--config`.
pub fn parse() -> Result<Cli, ConfigError> {
    let args: Vec<String> = std::env::args().collect();
    let first = Cli::parse_from(&args);
    let config = match &first.command {
        Some(Command::Serve(serve)) => serve.config.clone(),
        None => first.serve.config.clone(),
        Some(_) => None,
    };
    let Some(path) = config else {
        return Ok(first);
    };
    let merged = with_file_flags(&args, flags_from_toml(&path)?);
    let matches = Cli::command()
        .try_get_matches_from(merged)
        .map_err(|error| ConfigError::InFile { path, error })?;
    Ok(Cli::from_arg_matches(&matches)?)
}

/// The command line with the config file's flags placed before the real
/// arguments (after `serve`, if given), so that the real ones win.
fn with_file_flags(args: &[String], file_flags: Vec<String>) -> Vec<String> {
    let mut merged: Vec<String> = args.iter().take(1).cloned().collect();
    let rest = args.get(1..).unwrap_or_default();
    match rest.first().map(String::as_str) {
        Some("serve") => {
            merged.push("serve".into());
            merged.extend(file_flags);
            merged.extend(rest[1..].iter().cloned());
        }
        _ => {
            merged.extend(file_flags);
            merged.extend(rest.iter().cloned());
        }
    }
    merged
}

/// Turns `key = value` lines into `--key=value` flags, skipping keys set in the environment.
fn flags_from_toml(path: &Path) -> Result<Vec<String>, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
        path: path.to_owned(),
        error,
    })?;
    flags_from_text(path, &text)
}

/// [`flags_from_toml`] of the file's `text`.
fn flags_from_text(path: &Path, text: &str) -> Result<Vec<String>, ConfigError> {
    let table: toml::Table = text.parse().map_err(|error| ConfigError::Toml {
        path: path.to_owned(),
        error,
    })?;
    let mut flags = Vec::new();
    for (key, value) in table {
        let key = key.replace('_', "-");
        if key == "config" {
            return Err(ConfigError::NestedConfig {
                path: path.to_owned(),
            });
        }
        // Checked here, not left to clap, whose complaint would name a flag
        // the user never typed and not the file.
        if !is_serve_option(&key) {
            return Err(ConfigError::UnknownKey {
                path: path.to_owned(),
                key,
            });
        }
        let env = format!("SNIP_{}", key.to_ascii_uppercase().replace('-', "_"));
        if std::env::var_os(&env).is_some() {
            continue;
        }
        match value {
            toml::Value::Boolean(true) => flags.push(format!("--{key}")),
            toml::Value::Boolean(false) => {}
            toml::Value::String(s) => flags.push(format!("--{key}={s}")),
            toml::Value::Integer(i) => flags.push(format!("--{key}={i}")),
            value => {
                return Err(ConfigError::UnsupportedValue {
                    path: path.to_owned(),
                    key,
                    value,
                });
            }
        }
    }
    Ok(flags)
}

/// Whether `key` is the long name of an option of `snip serve`.
fn is_serve_option(key: &str) -> bool {
    Cli::command()
        .get_arguments()
        .any(|arg| arg.get_long() == Some(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clap definition is internally consistent.
    #[test]
    fn cli_definition() {
        Cli::command().debug_assert();
    }

    /// `/metrics` stays off the main listener unless asked for, and the flag
    /// takes an explicit value too.
    #[test]
    fn metrics_are_not_public_by_default() {
        let parse = |args: &[&str]| {
            let matches = Cli::command().try_get_matches_from(args).unwrap();
            Cli::from_arg_matches(&matches)
                .unwrap()
                .serve
                .metrics_public
        };
        if std::env::var_os("SNIP_METRICS_PUBLIC").is_none() {
            assert!(!parse(&["snip"]));
        }
        assert!(parse(&["snip", "--metrics-public"]));
        assert!(!parse(&[
            "snip",
            "--metrics-public",
            "--metrics-public=false"
        ]));
    }

    /// `--max-paste-size` takes at most 1 GiB, the largest paste a backup
    /// carries, and says so when given more.
    #[test]
    fn the_paste_size_limit_is_at_most_what_a_backup_carries() {
        let parse = |size: &str| {
            let args = ["snip", "serve", &format!("--max-paste-size={size}")];
            Cli::command()
                .try_get_matches_from(args)
                .map_err(|e| e.to_string())
        };
        assert!(parse("1GiB").is_ok());
        let refused = parse("1025MiB").unwrap_err();
        assert!(refused.contains("at most 1073741824 bytes"), "{refused}");
        assert!(parse("16XB").is_err());
    }
}

/// Property tests of the config file: TOML, then its keys and values as
/// flags for clap; `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    /// TOML-ish lines: real option names and made-up ones, with values of
    /// every kind, and lines that are not TOML at all.
    fn config_text() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("listen".to_owned()),
            Just("max-paste-size".to_owned()),
            Just("max_storage".to_owned()),
            Just("default-ttl".to_owned()),
            Just("sync".to_owned()),
            Just("config".to_owned()),
            Just("store".to_owned()),
            "[a-z_-]{1,16}",
        ];
        let value = prop_oneof![
            "\"[ -~&&[^\"\\\\]]{0,20}\"",
            "-?[0-9]{1,20}",
            Just("true".to_owned()),
            Just("false".to_owned()),
            "\\[[0-9, ]{0,10}\\]",
            "\\{ ?[a-z]{0,4} ?= ?[0-9]{0,3} ?\\}",
            "[ -~]{0,12}",
        ];
        let line = prop_oneof![
            8 => (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
            1 => "\\[[a-z.]{0,10}\\]",
            1 => "\\PC{0,30}",
        ];
        proptest::collection::vec(line, 0..8).prop_map(|lines| lines.join("\n"))
    }

    proptest! {
        /// Any file gives flags or a typed error naming the file, never a
        /// panic; the flags it gives are parsed by clap or refused.
        #[test]
        fn fuzz_config_files(text in config_text()) {
            let path = Path::new("/etc/snip.toml");
            match flags_from_text(path, &text) {
                Ok(flags) => {
                    let args = ["snip".to_owned(), "serve".to_owned()].into_iter().chain(flags);
                    let _ = Cli::command().try_get_matches_from(args);
                }
                Err(e) => prop_assert!(e.to_string().contains("/etc/snip.toml"), "{e}"),
            }
        }
    }
}
