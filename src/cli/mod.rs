//! The `snip` client commands: a thin layer over the HTTP API. `put`, `get`
//! and `delete` live here, `list` and `shorten` in [`user`], the admin
//! commands in [`admin`]. All send the tenant token of [`auth`] when there is one.

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use reqwest::{StatusCode, Url};
use serde::Deserialize;

pub mod admin;
pub mod auth;
mod tokens;
pub mod user;

pub use auth::TokenArg;
pub use user::{ListArgs, ShortenArgs};

/// Where the client sends requests.
#[derive(Debug, Clone, Args)]
pub struct ServerArg {
    /// The snip server to talk to.
    #[arg(long, env = "SNIP_SERVER", default_value = "http://127.0.0.1:8000")]
    pub server: String,
}

/// `snip put`.
#[derive(Debug, Clone, Args)]
pub struct PutArgs {
    /// Files to upload, one paste each [default: standard input].
    pub files: Vec<PathBuf>,
    /// Lifetime: seconds, 30s, 10m, 1h, 1d, 1w, or never [default: the server's].
    #[arg(long)]
    pub ttl: Option<String>,
    /// Burn after reading: the first reader destroys it.
    #[arg(long)]
    pub burn: bool,
    /// Language for highlighting (e.g. rust, python).
    #[arg(long)]
    pub lang: Option<String>,
    /// File name [default: the file's own name].
    #[arg(long)]
    pub name: Option<String>,
    /// Private: only the tenant's tokens can read it (needs a token).
    #[arg(long)]
    pub private: bool,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// `snip get`.
#[derive(Debug, Clone, Args)]
pub struct GetArgs {
    /// The paste's URL (or bare ID, with --server).
    pub url: String,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// `snip delete`.
#[derive(Debug, Clone, Args)]
pub struct DeleteArgs {
    /// The paste's URL (or bare ID, with --server).
    pub url: String,
    /// The delete token [default: the one remembered when this user created the
    /// paste; without one, the tenant's API token deletes the tenant's own pastes].
    #[arg(long)]
    pub token: Option<String>,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// The server's JSON answer to a create.
#[derive(Debug, Deserialize)]
struct Created {
    id: String,
    url: String,
    delete_token: String,
}

#[derive(Debug, Deserialize)]
struct ErrorBody {
    error: ErrorDetail,
}

#[derive(Debug, Deserialize)]
struct ErrorDetail {
    message: String,
}

pub(crate) fn client() -> anyhow::Result<reqwest::Client> {
    // rustls needs a process-wide crypto provider; a second install is a harmless no-op.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("snip/", env!("CARGO_PKG_VERSION")))
        .build()
        .context("cannot build the HTTP client")
}

/// Turns a non-success response into an error carrying the server's message.
pub(crate) async fn check(response: reqwest::Response) -> anyhow::Result<reqwest::Response> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let text = response.text().await.unwrap_or_default();
    let message = serde_json::from_str::<ErrorBody>(&text)
        .map(|e| e.error.message)
        .unwrap_or_else(|_| text.trim().to_owned());
    bail!("server answered {status}: {message}")
}

/// `snip put`: uploads each file (or stdin) and prints one URL per paste.
pub async fn put(args: PutArgs) -> anyhow::Result<()> {
    let client = client()?;
    let base = base_url(&args.server.server)?;
    let token = args.auth.token()?;
    let inputs: Vec<(Option<String>, Vec<u8>)> = if args.files.is_empty() {
        let mut body = Vec::new();
        std::io::stdin()
            .read_to_end(&mut body)
            .context("cannot read standard input")?;
        vec![(None, body)]
    } else {
        args.files
            .iter()
            .map(|path| {
                let body = std::fs::read(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
                Ok((name, body))
            })
            .collect::<anyhow::Result<_>>()?
    };
    for (file_name, body) in inputs {
        let mut query: Vec<(&str, String)> = Vec::new();
        if let Some(ttl) = &args.ttl {
            query.push(("ttl", ttl.clone()));
        }
        if args.burn {
            query.push(("burn", "true".into()));
        }
        if let Some(lang) = &args.lang {
            query.push(("lang", lang.clone()));
        }
        if let Some(name) = args.name.clone().or(file_name) {
            query.push(("name", name));
        }
        if args.private {
            query.push(("visibility", "private".into()));
        }
        let response = auth::authorize(client.post(base.clone()), token.as_deref())
            .query(&query)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .body(body)
            .send()
            .await
            .with_context(|| format!("cannot reach {base}"))?;
        let created: Created = check(response)
            .await?
            .json()
            .await
            .context("unexpected answer from the server")?;
        if let Err(e) = tokens::remember(&created.url, &created.delete_token) {
            eprintln!(
                "snip: warning: could not remember the delete token of {}: {e:#}",
                created.id
            );
        }
        println!("{}", created.url);
    }
    Ok(())
}

/// `snip get`: writes the raw bytes to stdout, revealing a burn paste if needed.
pub async fn get(args: GetArgs) -> anyhow::Result<()> {
    let client = client()?;
    let target = PasteUrl::parse(&args.url, &args.server.server)?;
    let token = args.auth.token()?;
    let response = auth::authorize(client.get(target.endpoint("raw/")?), token.as_deref())
        .send()
        .await
        .with_context(|| format!("cannot reach {}", target.base))?;
    let response = if response.status() == StatusCode::CONFLICT {
        // A burn paste: only an explicit reveal reads it (and destroys it).
        let reveal = target.base.join(&format!("{}/reveal", target.id))?;
        auth::authorize(client.post(reveal), token.as_deref())
            .send()
            .await
            .context("cannot reveal the paste")?
    } else {
        response
    };
    let bytes = check(response)
        .await?
        .bytes()
        .await
        .context("the download broke off")?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&bytes)?;
    stdout.flush()?;
    Ok(())
}

/// `snip delete`: deletes with `--token` or the remembered token.
pub async fn delete(args: DeleteArgs) -> anyhow::Result<()> {
    let client = client()?;
    let target = PasteUrl::parse(&args.url, &args.server.server)?;
    let url = target.endpoint("")?;
    let api_token = args.auth.token()?;
    let token = match args.token {
        Some(token) => Some(token),
        None => tokens::recall(url.as_str())?,
    };
    if token.is_none() && api_token.is_none() {
        bail!("no delete token remembered for {url}; pass --token (or an API token of its tenant)");
    }
    let mut request = auth::authorize(client.delete(url.clone()), api_token.as_deref());
    if let Some(token) = token {
        request = request.header("x-delete-token", token);
    }
    let response = request
        .send()
        .await
        .with_context(|| format!("cannot reach {}", target.base))?;
    check(response).await?;
    if let Err(e) = tokens::forget(url.as_str()) {
        eprintln!("snip: warning: could not update the token file: {e:#}");
    }
    eprintln!("deleted {url}");
    Ok(())
}

pub(crate) fn base_url(server: &str) -> anyhow::Result<Url> {
    let mut url = Url::parse(server).with_context(|| format!("{server:?} is not a server URL"))?;
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// A paste named by URL (`http://host/ID`, `http://host/raw/ID`) or bare ID.
struct PasteUrl {
    base: Url,
    id: String,
}

impl PasteUrl {
    fn parse(input: &str, server: &str) -> anyhow::Result<Self> {
        let input = input.split('#').next().unwrap_or(input);
        if !input.contains("://") {
            return Ok(Self {
                base: base_url(server)?,
                id: input.trim_matches('/').to_owned(),
            });
        }
        let mut url = Url::parse(input).with_context(|| format!("{input:?} is not a paste URL"))?;
        let mut segments: Vec<String> = url
            .path_segments()
            .map(|s| s.filter(|s| !s.is_empty()).map(str::to_owned).collect())
            .unwrap_or_default();
        let Some(id) = segments.pop() else {
            bail!("{input:?} names no paste");
        };
        if matches!(
            segments.last().map(String::as_str),
            Some("raw" | "download")
        ) {
            segments.pop();
        }
        url.set_query(None);
        url.set_path(&format!(
            "{}/",
            segments.iter().map(|s| format!("/{s}")).collect::<String>()
        ));
        Ok(Self { base: url, id })
    }

    fn endpoint(&self, prefix: &str) -> anyhow::Result<Url> {
        Ok(self.base.join(&format!("{prefix}{}", self.id))?)
    }
}
