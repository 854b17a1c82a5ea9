//! Where the client's secrets come from: the tenant token (`SNIP_TOKEN` or
//! `--token-file`) and the admin token (`SNIP_ADMIN_TOKEN` or
//! `--admin-token-file`), each also from a file the config file names. Secrets are never taken as plain command-line values,
//! which other users could read from the process list.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use super::settings::{ClientConfig, Setting, Source};

/// The tenant token of user-side commands.
#[derive(Debug, Clone, Args)]
pub struct TokenArg {
    /// Read the API token from this file [default: the SNIP_TOKEN environment
    /// variable, then the config file's token-file; none: anonymous].
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
}

impl TokenArg {
    /// The token to send, if any: `--token-file`'s, else `SNIP_TOKEN`'s, else
    /// that of the config file's `token-file`.
    pub fn token(&self) -> anyhow::Result<Option<String>> {
        if let Some(token) = secret(self.token_file.as_deref(), "SNIP_TOKEN")? {
            return Ok(Some(token));
        }
        match ClientConfig::load()?.token_file() {
            Some(path) => secret(Some(path), "SNIP_TOKEN"),
            None => Ok(None),
        }
    }

    /// [`Self::token`], else the login credential kept for `server`
    /// (`snip login`), which goes to that server only.
    pub async fn token_at(&self, server: &str) -> anyhow::Result<Option<String>> {
        match self.token()? {
            Some(token) => Ok(Some(token)),
            None => super::login::credential(server).await,
        }
    }

    /// Where the token would come from (never the token itself), for `snip config`.
    pub fn source(&self, config: &ClientConfig) -> Setting<String> {
        let (value, source) = if let Some(path) = &self.token_file {
            (format!("from {}", path.display()), Source::Flag)
        } else if std::env::var_os("SNIP_TOKEN").is_some_and(|t| !t.is_empty()) {
            ("set".to_owned(), Source::Env("SNIP_TOKEN"))
        } else if let Some(path) = config.token_file() {
            (format!("from {}", path.display()), config.file_source())
        } else {
            ("none (anonymous)".to_owned(), Source::Default)
        };
        Setting { value, source }
    }
}

/// The admin token: `--admin-token-file`'s, else `SNIP_ADMIN_TOKEN`'s, else
/// that of the config file's `admin-token-file`.
pub fn admin_token(file: Option<&Path>) -> anyhow::Result<String> {
    if let Some(token) = secret(file, "SNIP_ADMIN_TOKEN")? {
        return Ok(token);
    }
    let from_config = match ClientConfig::load()?.admin_token_file() {
        Some(path) => secret(Some(path), "SNIP_ADMIN_TOKEN")?,
        None => None,
    };
    from_config.context(
        "no admin token: set SNIP_ADMIN_TOKEN, pass --admin-token-file, \
         or set admin-token-file in the config file",
    )
}

/// Reads a secret from `file`, else from the environment variable `env`.
pub fn secret(file: Option<&Path>, env: &str) -> anyhow::Result<Option<String>> {
    let value = match file {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => match std::env::var(env) {
            Ok(value) => value,
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(e) => bail!("{env}: {e}"),
        },
    };
    let value = value.trim();
    if value.is_empty() {
        return Ok(None);
    }
    if value.contains(char::is_whitespace) {
        bail!("the token contains whitespace; it should be a single word");
    }
    Ok(Some(value.to_owned()))
}

/// Adds `Authorization: Bearer` when there is a token.
pub fn authorize(request: reqwest::RequestBuilder, token: Option<&str>) -> reqwest::RequestBuilder {
    match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}
