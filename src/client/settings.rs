//! The client's settings and where each came from. From highest to lowest
//! precedence: a flag, a `SNIP_*` environment variable, the config file
//! (`$XDG_CONFIG_HOME/snip/config.toml`, else `~/.config/snip/config.toml`),
//! the default. `snip config` prints them with their sources.
//!
//! The file holds `server`, `token-file`, `admin-token-file`, `ttl`, `burn`
//! and `encrypt`. It is read like the server's (see [`crate::config_file`]):
//! an unknown key or a wrong value is an error naming the file, the line and
//! the key, so a typo is not silently ignored.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config_file::{self, ConfigFileError};

/// The server when nothing names one.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:8000";

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag.
    Flag,
    /// An environment variable.
    Env(&'static str),
    /// The config file.
    File(PathBuf),
    /// Nothing set it.
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag => f.write_str("flag"),
            Self::Env(name) => write!(f, "environment {name}"),
            Self::File(path) => write!(f, "config file {}", path.display()),
            Self::Default => f.write_str("default"),
        }
    }
}

/// A setting's value and its source.
#[derive(Debug, Clone)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

/// Why the settings cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The config file exists but cannot be read, is not TOML, or has an
    /// unknown key or a wrong value (the message names the file, the line
    /// and the key).
    #[error(transparent)]
    File(#[from] ConfigFileError),
    /// A boolean environment variable with another value.
    #[error("{name}={value:?}: use true or false")]
    NotBool { name: &'static str, value: String },
}

/// The config file's keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FileSettings {
    server: Option<String>,
    token_file: Option<PathBuf>,
    admin_token_file: Option<PathBuf>,
    ttl: Option<String>,
    burn: Option<bool>,
    encrypt: Option<bool>,
}

/// The config file, read (or absent), ready to answer for each setting.
#[derive(Debug)]
pub struct ClientConfig {
    /// Where the file is looked for; `None` when there is no home directory.
    pub path: Option<PathBuf>,
    /// Whether it exists.
    pub found: bool,
    file: FileSettings,
}

impl ClientConfig {
    /// Reads the config file; a missing one sets nothing.
    pub fn load() -> Result<Self, SettingsError> {
        let path = config_path();
        let file = match &path {
            None => None,
            Some(path) => match config_file::load::<FileSettings>(path) {
                Ok(file) => Some(file),
                Err(e) if e.is_missing() => None,
                Err(e) => return Err(e.into()),
            },
        };
        Ok(Self {
            found: file.is_some(),
            path,
            file: file.unwrap_or_default(),
        })
    }

    /// `--server`, `SNIP_SERVER`, the file's `server`, or [`DEFAULT_SERVER`].
    pub fn server(&self, flag: Option<&str>) -> Setting<String> {
        let env = env_string("SNIP_SERVER");
        self.pick(flag.map(str::to_owned), env, self.file.server.clone())
            .unwrap_or_else(|| Setting {
                value: DEFAULT_SERVER.to_owned(),
                source: Source::Default,
            })
    }

    /// `--ttl`, `SNIP_TTL`, the file's `ttl`; `None` leaves it to the server.
    pub fn ttl(&self, flag: Option<&str>) -> Setting<Option<String>> {
        let env = env_string("SNIP_TTL");
        optional(self.pick(flag.map(str::to_owned), env, self.file.ttl.clone()))
    }

    /// `--burn`, `SNIP_BURN`, the file's `burn`, or false.
    pub fn burn(&self, flag: bool) -> Result<Setting<bool>, SettingsError> {
        self.switch(flag, "SNIP_BURN", self.file.burn)
    }

    /// `--encrypt`, `SNIP_ENCRYPT`, the file's `encrypt`, or false.
    pub fn encrypt(&self, flag: bool) -> Result<Setting<bool>, SettingsError> {
        self.switch(flag, "SNIP_ENCRYPT", self.file.encrypt)
    }

    /// The file's `token-file`: below `--token-file` and `SNIP_TOKEN`, which
    /// [`super::auth::TokenArg`] checks first.
    pub fn token_file(&self) -> Option<&Path> {
        self.file.token_file.as_deref()
    }

    /// The file's `admin-token-file`: below `--admin-token-file` and
    /// `SNIP_ADMIN_TOKEN`, which [`super::auth::admin_token`] checks first.
    pub fn admin_token_file(&self) -> Option<&Path> {
        self.file.admin_token_file.as_deref()
    }

    /// Where the file's token file came from, for `snip config`.
    pub fn file_source(&self) -> Source {
        self.path.clone().map_or(Source::Default, Source::File)
    }

    fn pick<T>(
        &self,
        flag: Option<T>,
        env: Option<(&'static str, T)>,
        file: Option<T>,
    ) -> Option<Setting<T>> {
        if let Some(value) = flag {
            return Some(Setting {
                value,
                source: Source::Flag,
            });
        }
        if let Some((name, value)) = env {
            return Some(Setting {
                value,
                source: Source::Env(name),
            });
        }
        file.map(|value| Setting {
            value,
            source: self.file_source(),
        })
    }

    /// A boolean flag can only turn a setting on, so it counts only when given.
    fn switch(
        &self,
        flag: bool,
        env: &'static str,
        file: Option<bool>,
    ) -> Result<Setting<bool>, SettingsError> {
        let env = match env_string(env) {
            Some((name, value)) => Some((name, parse_bool(name, value)?)),
            None => None,
        };
        Ok(self
            .pick(flag.then_some(true), env, file)
            .unwrap_or(Setting {
                value: false,
                source: Source::Default,
            }))
    }
}

/// `$XDG_CONFIG_HOME/snip/config.toml`, else `~/.config/snip/config.toml`.
fn config_path() -> Option<PathBuf> {
    Some(project_dirs()?.config_dir().join("config.toml"))
}

/// The client's directories (XDG base directories on Linux); `None` when no
/// home directory can be found.
pub fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "snip")
}

/// A non-empty environment variable, with its name.
fn env_string(name: &'static str) -> Option<(&'static str, String)> {
    std::env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .map(|v| (name, v))
}

fn parse_bool(name: &'static str, value: String) -> Result<bool, SettingsError> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(SettingsError::NotBool { name, value }),
    }
}

fn optional<T>(setting: Option<Setting<T>>) -> Setting<Option<T>> {
    match setting {
        Some(Setting { value, source }) => Setting {
            value: Some(value),
            source,
        },
        None => Setting {
            value: None,
            source: Source::Default,
        },
    }
}

/// `snip config`: the same flags as `put`'s defaults, to see what they make.
#[derive(Debug, Clone, clap::Args)]
pub struct ConfigArgs {
    /// Lifetime, as `put -t` takes it.
    #[arg(short, long)]
    pub ttl: Option<String>,
    /// Burn after reading, as `put -b`.
    #[arg(short, long)]
    pub burn: bool,
    /// Encrypt, as `put -e`.
    #[arg(short, long)]
    pub encrypt: bool,
    #[command(flatten)]
    pub server: super::ServerArg,
    #[command(flatten)]
    pub auth: super::TokenArg,
}

/// Prints each effective setting with its source, one a line.
pub fn show(args: &ConfigArgs) -> anyhow::Result<()> {
    let config = ClientConfig::load()?;
    let file = match (&config.path, config.found) {
        (Some(path), true) => path.display().to_string(),
        (Some(path), false) => format!("{} (none there)", path.display()),
        (None, _) => "none (no home directory)".to_owned(),
    };
    println!("{:<12}{file}", "config file");
    let server = config.server(args.server.server.as_deref());
    line("server", &server.value, &server.source);
    let token = args.auth.source(&config);
    line("token", &token.value, &token.source);
    let ttl = config.ttl(args.ttl.as_deref());
    let ttl_value = ttl.value.as_deref().unwrap_or("the server's default");
    line("ttl", ttl_value, &ttl.source);
    let burn = config.burn(args.burn)?;
    line("burn", &burn.value.to_string(), &burn.source);
    let encrypt = config.encrypt(args.encrypt)?;
    line("encrypt", &encrypt.value.to_string(), &encrypt.source);
    Ok(())
}

fn line(name: &str, value: &str, source: &Source) {
    println!("{name:<12}{value}  ({source})");
}
