//! The command line: flags and environment variables parsed by clap, the
//! TOML file of `serve` ([`serve_file`]), and their mapping onto the settings each
//! layer owns ([`serve`] for the server and its layers, [`tls`] for HTTPS).
//! The subcommands' own flags are the client's ([`crate::client`]).
//!
//! Every `serve` option can be given, from lowest to highest precedence, as its
//! default, in a TOML file (`--config`, keys named like the long flags:
//! `max-paste-size = "8MiB"`), as an environment variable (`SNIP_MAX_PASTE_SIZE`),
//! or as a flag. clap parses flags and variables and says where each value
//! came from; the file, read by serde into typed fields, fills in the options
//! clap took from their defaults. `--help` stays the single reference.
//!
//! This is the top of the module graph: it imports the layers, and none of
//! them imports it.

mod examples;
pub mod generate;
pub mod serve;
pub mod serve_file;
pub mod tls;

use std::path::PathBuf;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config_file::{self, ConfigFileError};
use crate::core::Ttl;
use serve_file::ServeFile;

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
    /// Options of `serve`, for when no subcommand is given (hidden from
    /// `snip --help` by [`command`]: `snip serve --help` lists them).
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// The subcommands. The first paragraph of each is its line in `snip
/// --help`; the rest is for `snip COMMAND --help` and its man page.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a paste from files or standard input and print its URL.
    ///
    /// With --encrypt, the URL carries the key after its #.
    #[command(after_long_help = examples::PUT)]
    Put(crate::client::PutArgs),
    /// Print a paste (decrypted with the link's #key).
    ///
    /// Reveals, and so destroys, a burn paste.
    #[command(after_long_help = examples::GET)]
    Get(crate::client::GetArgs),
    /// Delete a paste with its delete token (or the tenant's API token).
    #[command(after_long_help = examples::DELETE)]
    Delete(crate::client::DeleteArgs),
    /// List your pastes, newest first.
    ///
    /// With --mine, those created from this machine (their delete tokens are
    /// remembered); otherwise the tenant's (needs SNIP_TOKEN).
    #[command(after_long_help = examples::LIST)]
    List(crate::client::ListArgs),
    /// Make a short link that redirects to a URL and print it.
    #[command(after_long_help = examples::SHORTEN)]
    Shorten(crate::client::ShortenArgs),
    /// Sign in as a person through the server's identity provider.
    ///
    /// Prints a page and a code to enter there; the login is kept for this
    /// server (0600) and sent by put, list and shorten when no token is given.
    #[command(after_long_help = examples::LOGIN)]
    Login(crate::client::login::LoginArgs),
    /// Show who the kept login (or token) is on the server, and until when.
    #[command(after_long_help = examples::WHOAMI)]
    Whoami(crate::client::login::WhoamiArgs),
    /// Revoke the kept login on the server and forget it here.
    #[command(after_long_help = examples::LOGOUT)]
    Logout(crate::client::login::LogoutArgs),
    /// Show the client's settings and where each came from.
    ///
    /// The server, the token and put's defaults, each from a flag, a SNIP_*
    /// variable, the config file or the default.
    #[command(after_long_help = examples::CONFIG)]
    Config(crate::client::settings::ConfigArgs),
    /// Run the server (also what snip does without a command).
    #[command(after_long_help = examples::SERVE)]
    Serve(Box<ServeArgs>),
    /// Manage tenants and tokens (needs SNIP_ADMIN_TOKEN).
    #[command(after_long_help = examples::ADMIN)]
    Admin(crate::client::admin::AdminArgs),
    /// Dump every live paste, tenant and token to a file.
    ///
    /// From a running server (admin API) or directly from a store; the file
    /// is checksummed and written 0600.
    #[command(after_long_help = examples::BACKUP)]
    Backup(crate::client::backup::BackupArgs),
    /// Load a dump into a store (all or nothing; the dump is checked first).
    #[command(after_long_help = examples::RESTORE)]
    Restore(crate::client::backup::RestoreArgs),
    /// Copy every live paste, tenant and token from one store to another.
    #[command(after_long_help = examples::MIGRATE)]
    Migrate(crate::client::backup::MigrateArgs),
    /// Print a shell completion script.
    ///
    /// For bash, zsh, fish, elvish or powershell.
    #[command(after_long_help = examples::COMPLETIONS)]
    Completions(generate::CompletionsArgs),
    /// Write the man pages (snip(1) and one per command) into a directory.
    #[command(after_long_help = examples::MAN)]
    Man(generate::ManArgs),
}

/// How `snip --help` groups the commands: (heading, commands). A unit test
/// checks that every command is in exactly one group.
const COMMAND_GROUPS: [(&str, &[&str]); 3] = [
    (
        "Commands",
        &[
            "put", "get", "delete", "list", "shorten", "login", "whoami", "logout", "config",
        ],
    ),
    (
        "Server commands",
        &["serve", "admin", "backup", "restore", "migrate"],
    ),
    ("Set-up", &["completions", "man"]),
];

/// The command line as `--help`, completions and man pages show it: the top
/// level lists the commands in groups and leaves the server's options,
/// which it also takes (`snip` alone serves), to `snip serve --help`.
pub fn command() -> clap::Command {
    let cli = Cli::command().mut_args(|arg| arg.hide(true));
    let mut commands = String::new();
    let width = COMMAND_GROUPS
        .iter()
        .flat_map(|(_, names)| names.iter())
        .map(|name| name.len())
        .max()
        .unwrap_or(0);
    for (heading, names) in COMMAND_GROUPS {
        commands.push_str(&format!("{heading}:\n"));
        for name in names {
            let about = cli
                .find_subcommand(name)
                .and_then(|sub| sub.get_about())
                .map(ToString::to_string)
                .unwrap_or_default();
            commands.push_str(&format!("  {name:width$}  {about}\n"));
        }
        commands.push('\n');
    }
    let template = format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{commands}\
         Options:\n{{options}}\n\n\
         Without a command, snip serves: `snip serve --help` lists the server's options.\n\
         `snip COMMAND --help` tells more about each command, with examples.\n"
    );
    cli.help_template(template)
}

/// Why the command line or the config file does not make a configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file cannot be read, or a key or value in it is refused
    /// (the message names the file, the line and the key).
    #[error(transparent)]
    File(#[from] ConfigFileError),
    /// The command line is refused by clap.
    #[error(transparent)]
    Clap(#[from] clap::Error),
    /// TLS options that do not go together (checked after the file filled in its own).
    #[error("{0}")]
    Tls(&'static str),
    /// `--proxy-protocol` without anyone allowed to send the header.
    #[error("--proxy-protocol needs --trusted-proxy: the proxies allowed to send PROXY headers")]
    ProxyProtocolWithoutTrustedProxy,
    /// A default lifetime that the longest allowed would refuse.
    #[error(
        "--default-ttl {default} is longer than --max-ttl {max}, so every paste that asks \
         for no ttl would be refused; make --default-ttl at most {max} (or leave it out: it \
         defaults to --max-ttl)"
    )]
    DefaultTtlTooLong { default: Ttl, max: Ttl },
    /// A lifetime the form would offer and the server refuse.
    #[error(
        "--ttl-choices offers {choice}, longer than --max-ttl {max}; offer only lifetimes \
         up to {max}"
    )]
    TtlChoiceTooLong { choice: Ttl, max: Ttl },
    /// Both ways of giving the admin token.
    #[error(
        "--admin-token and --admin-token-file (or SNIP_ADMIN_TOKEN and SNIP_ADMIN_TOKEN_FILE) \
         both give the admin token; give only one"
    )]
    TwoAdminTokens,
    /// The admin token file cannot be read or holds no usable token.
    #[error("admin token file {}: {error}", path.display())]
    AdminTokenFile { path: PathBuf, error: String },
    /// `--oidc-issuer` without a client ID or secret, or those without it.
    #[error(
        "sign-in through an identity provider needs --oidc-issuer, --oidc-client-id and \
         --oidc-client-secret-file together"
    )]
    OidcIncomplete,
    /// The OIDC client secret file cannot be read or is empty.
    #[error("OIDC client secret file {}: {error}", path.display())]
    OidcSecretFile { path: PathBuf, error: String },
    /// `--token-signin off` without an identity provider: nobody could sign in.
    #[error("--token-signin off needs --oidc-issuer: otherwise no browser could sign in")]
    NoSignin,
}

/// Parses the command line (exiting with clap's message on a bad one, or
/// after `--help`), then fills in from the TOML file named by `--config`
/// what no flag or environment variable set.
pub fn parse() -> Result<Cli, ConfigError> {
    let matches = command().get_matches();
    from_matches(&matches)
}

/// [`parse`] of parsed arguments.
fn from_matches(matches: &ArgMatches) -> Result<Cli, ConfigError> {
    let mut cli = Cli::from_arg_matches(matches)?;
    let (serve, serve_matches) = match &mut cli.command {
        None => (&mut cli.serve, matches),
        Some(Command::Serve(serve)) => match matches.subcommand_matches("serve") {
            Some(serve_matches) => (serve.as_mut(), serve_matches),
            None => return Ok(cli),
        },
        Some(_) => return Ok(cli),
    };
    if let Some(path) = &serve.config {
        let file: ServeFile = config_file::load(path)?;
        file.fill_in(serve, serve_matches);
    }
    serve.tls.check().map_err(ConfigError::Tls)?;
    Ok(cli)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clap definition is internally consistent.
    #[test]
    fn cli_definition() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    /// `snip --help` lists every command once, in its group, and no
    /// server option (those are `snip serve --help`'s).
    #[test]
    fn the_top_level_help_is_short_and_grouped() {
        let mut grouped: Vec<&str> = COMMAND_GROUPS
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        grouped.sort_unstable();
        let cli = Cli::command();
        let mut commands: Vec<&str> = cli.get_subcommands().map(|sub| sub.get_name()).collect();
        commands.sort_unstable();
        assert_eq!(grouped, commands, "every command in exactly one group");
        let help = command().render_help().to_string();
        assert!(help.lines().count() < 40, "{help}");
        assert!(
            !help.contains("--max-ttl") && !help.contains("--listen"),
            "{help}"
        );
        let put = help.find("  put ").expect("put listed");
        let serve = help.find("  serve ").expect("serve listed");
        assert!(put < serve, "client commands first: {help}");
        let serve_help = command()
            .find_subcommand_mut("serve")
            .expect("serve")
            .render_help()
            .to_string();
        assert!(serve_help.contains("--max-ttl"), "{serve_help}");
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

    /// Every long option of `serve` is a key of its config file (a value of
    /// the wrong kind, not an unknown key), except `config` itself.
    #[test]
    fn every_option_is_a_file_key() {
        let path = std::path::Path::new("snip.toml");
        for arg in Cli::command().get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if matches!(long, "help" | "version") {
                continue;
            }
            // No option takes a table.
            let text = format!("{long} = {{ a = 1 }}");
            let refused = config_file::from_text::<ServeFile>(path, &text).unwrap_err();
            let unknown = matches!(refused, ConfigFileError::UnknownKey { .. });
            assert_eq!(unknown, long == "config", "{long}: {refused}");
        }
    }

    /// The sample file, with every key uncommented, is a valid config file
    /// whose keys fill in `serve`'s options.
    #[test]
    fn the_sample_file_reads() {
        let sample = include_str!("../../contrib/snip.toml");
        let uncommented: String = sample
            .lines()
            .map(|line| match line.strip_prefix('#') {
                Some(rest) if rest.starts_with(|c: char| c.is_ascii_lowercase()) => rest,
                _ => line,
            })
            .flat_map(|line| [line, "\n"])
            .collect();
        let path = std::path::Path::new("contrib/snip.toml");
        let file = config_file::from_text::<ServeFile>(path, &uncommented);
        let file = file.unwrap_or_else(|e| panic!("{e}"));
        // Filling in checks (in debug builds) that each key names an option of `serve`.
        let matches = Cli::command()
            .try_get_matches_from(["snip", "serve"])
            .unwrap();
        let Some(Command::Serve(mut serve)) = Cli::from_arg_matches(&matches).unwrap().command
        else {
            panic!("not serve");
        };
        file.fill_in(&mut serve, matches.subcommand_matches("serve").unwrap());
        assert_eq!(serve.trusted_proxy.len(), 2);
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

/// Property tests of the config file: TOML, then its keys and values read
/// into the typed file and filled into `serve`'s options; `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use std::path::Path;

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
            Just("trusted-proxy".to_owned()),
            Just("acme-domain".to_owned()),
            "[a-z_-]{1,16}",
        ];
        let value = prop_oneof![
            "\"[ -~&&[^\"\\\\]]{0,20}\"",
            "-?[0-9]{1,20}",
            Just("true".to_owned()),
            Just("false".to_owned()),
            "\\[[0-9, ]{0,10}\\]",
            "\\[(\"[0-9a-f.:/]{0,12}\", ?){0,3}\\]",
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
        /// Any file gives typed settings or an error naming the file, never
        /// a panic; the settings it gives fill in `serve`'s options.
        #[test]
        fn fuzz_config_files(text in config_text()) {
            let path = Path::new("/etc/snip.toml");
            match config_file::from_text::<ServeFile>(path, &text) {
                Ok(file) => {
                    let matches = Cli::command().try_get_matches_from(["snip"]).unwrap();
                    let mut cli = Cli::from_arg_matches(&matches).unwrap();
                    file.fill_in(&mut cli.serve, &matches);
                }
                Err(e) => prop_assert!(e.to_string().contains("/etc/snip.toml"), "{e}"),
            }
        }
    }
}
