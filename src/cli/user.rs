//! `snip list` (the tenant's pastes, through `GET /api/pastes`) and
//! `snip shorten` (a short link, through `POST /?url=…`).

use anyhow::bail;
use clap::Args;

use super::auth::{TokenArg, authorize};
use super::{ServerArg, base_url, client, send_json};
use crate::core::api::{Created, PastePage};

/// `snip list`.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Only pastes whose name starts with this.
    #[arg(long)]
    pub name_prefix: Option<String>,
    /// Pastes per page (1–500) [default: the server's, 50].
    #[arg(long)]
    pub limit: Option<u32>,
    /// Follow the cursors and print every page, not just the first.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// `snip shorten`.
#[derive(Debug, Clone, Args)]
pub struct ShortenArgs {
    /// The http or https URL to shorten.
    pub url: String,
    /// Lifetime: seconds, 30s, 10m, 1h, 1d, 1w, or never [default: the server's].
    #[arg(long)]
    pub ttl: Option<String>,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// Prints one line per paste: ID, size, creation time, name (`-` when none), tab-separated.
pub async fn list(args: ListArgs) -> anyhow::Result<()> {
    let client = client()?;
    let url = base_url(&args.server.server)?.join("api/pastes")?;
    let Some(token) = args.auth.token()? else {
        bail!("listing needs a tenant token: set SNIP_TOKEN or pass --token-file");
    };
    let mut cursor: Option<String> = None;
    loop {
        let mut query: Vec<(&str, String)> = Vec::new();
        if let Some(limit) = args.limit {
            query.push(("limit", limit.to_string()));
        }
        if let Some(prefix) = &args.name_prefix {
            query.push(("name_prefix", prefix.clone()));
        }
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor.clone()));
        }
        let request = authorize(client.get(url.clone()), Some(&token)).query(&query);
        let page: PastePage = send_json(request, &url).await?;
        for paste in page.pastes {
            let name = paste.name.as_deref().unwrap_or("-");
            println!("{}\t{}\t{}\t{name}", paste.id, paste.size, paste.created_at);
        }
        match page.next_cursor {
            Some(next) if args.all => cursor = Some(next),
            _ => return Ok(()),
        }
    }
}

/// Creates a short link and prints its URL.
pub async fn shorten(args: ShortenArgs) -> anyhow::Result<()> {
    let client = client()?;
    let base = base_url(&args.server.server)?;
    let token = args.auth.token()?;
    let mut query = vec![("url", args.url.clone())];
    if let Some(ttl) = &args.ttl {
        query.push(("ttl", ttl.clone()));
    }
    let request = authorize(client.post(base.clone()), token.as_deref())
        .query(&query)
        .header(reqwest::header::ACCEPT, "application/json");
    let created: Created<'static> = send_json(request, &base).await?;
    println!("{}", created.url);
    Ok(())
}
