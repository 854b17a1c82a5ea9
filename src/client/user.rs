//! `snip list` (the tenant's pastes, through `GET /api/pastes`; with `-q`
//! those matching a search, best first; or with `--mine` the pastes whose
//! delete tokens this user remembers) and
//! `snip shorten` (a short link, through `POST /?url=…`).

use anyhow::bail;
use clap::Args;

use super::auth::{TokenArg, authorize};
use super::{ServerArg, base_url, client, send_json, tokens};
use crate::core::api::{Created, PastePage};
use crate::core::units::format_size;
use crate::core::{Ttl, paste};

/// `snip list`.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Only pastes whose name starts with this.
    #[arg(long)]
    pub name_prefix: Option<String>,
    /// Search: the pastes whose names, languages or text hold every word
    /// of this, best match first (an encrypted paste's text is never
    /// searched).
    #[arg(
        short = 'q',
        long = "query",
        value_name = "WORDS",
        conflicts_with = "name_prefix"
    )]
    pub query: Option<String>,
    /// Pastes per page (1–500) [default: the server's, 50].
    #[arg(long)]
    pub limit: Option<u32>,
    /// Follow the cursors and print every page, not just the first (which
    /// is the first that holds any pastes: a filtered page can be empty).
    #[arg(long)]
    pub all: bool,
    /// The pastes created from this machine by this user, not deleted and
    /// not expired (from the remembered delete tokens; no API token needed),
    /// newest first: link (with an encrypted paste's #key), time, name.
    #[arg(long, conflicts_with_all = ["name_prefix", "query", "limit", "all", "scope"])]
    pub mine: bool,
    /// Whose of the tenant's pastes: `team` (all but other people's
    /// only-me pastes) or `mine` (those you created, signed in as a person)
    /// [default: team].
    #[arg(long, value_parser = ["team", "mine"])]
    pub scope: Option<String>,
    /// Print a JSON array: the pastes' metadata (with --mine, objects with a url).
    #[arg(long)]
    pub json: bool,
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
    #[arg(short, long, value_parser = Ttl::parse)]
    pub ttl: Option<Ttl>,
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: TokenArg,
}

/// Prints one line per paste: ID, size (for people: `12 bytes`, `1.5 MiB`),
/// creation time, name and author (`-` when none), tab-separated; or with `--json` one
/// array of them all, sizes in bytes.
pub async fn list(args: ListArgs) -> anyhow::Result<()> {
    if args.mine {
        return list_mine(&args);
    }
    let client = client()?;
    let server = args.server.url()?;
    let url = base_url(&server)?.join("api/pastes")?;
    let Some(token) = args.auth.token_at(&server).await? else {
        bail!("listing needs a tenant token: set SNIP_TOKEN, pass --token-file, or snip login");
    };
    let mut cursor: Option<String> = None;
    let mut all = Vec::new();
    let mut shown = 0;
    loop {
        let mut query: Vec<(&str, String)> = Vec::new();
        if let Some(limit) = args.limit {
            query.push(("limit", limit.to_string()));
        }
        if let Some(prefix) = &args.name_prefix {
            query.push(("name_prefix", prefix.clone()));
        }
        if let Some(scope) = &args.scope {
            query.push(("scope", scope.clone()));
        }
        if let Some(words) = &args.query {
            query.push(("q", words.clone()));
        }
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor.clone()));
        }
        let request = authorize(client.get(url.clone()), Some(&token)).query(&query);
        let page: PastePage = send_json(request, &url).await?;
        shown += page.pastes.len();
        if args.json {
            all.extend(page.pastes);
        } else {
            for paste in page.pastes {
                let name = paste.name.as_deref().unwrap_or("-");
                let size = format_size(paste.size);
                let author = paste.author.as_ref().map_or("-", |a| a.name.as_str());
                println!(
                    "{}\t{size}\t{}\t{name}\t{author}",
                    paste.id, paste.created_at
                );
            }
        }
        match page.next_cursor {
            // The server reads a bounded number of pastes per request, so
            // a page may be empty and still have a next one.
            Some(next) if args.all || shown == 0 => cursor = Some(next),
            _ => break,
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&all)?);
    }
    Ok(())
}

/// `list --mine`: the remembered pastes of the server in `--server` that
/// have not expired, newest first: one line each of link (with the `#key`
/// of an encrypted paste), creation time and name (`-` when none),
/// tab-separated, like the tenant's listing; or one JSON array.
fn list_mine(args: &ListArgs) -> anyhow::Result<()> {
    let base = base_url(&args.server.url()?)?;
    let now = paste::now();
    let mut mine: Vec<(String, tokens::Remembered)> = tokens::remembered()?
        .into_iter()
        .filter(|(url, paste)| {
            url.starts_with(base.as_str()) && paste.expires_at.is_none_or(|at| at > now)
        })
        .collect();
    mine.sort_by(|(a_url, a), (b_url, b)| b.created_ms.cmp(&a.created_ms).then(a_url.cmp(b_url)));
    let rows = mine.into_iter().map(|(url, paste)| {
        let link = paste.link.unwrap_or(url);
        // 0: remembered by a client that did not note the time.
        let created = (paste.created_ms > 0).then(|| paste::rfc3339(paste.created_ms / 1000));
        (
            link,
            created,
            paste.name,
            paste.expires_at.map(paste::rfc3339),
        )
    });
    if args.json {
        let objects: Vec<_> = rows
            .map(|(url, created_at, name, expires_at)| {
                serde_json::json!({
                    "url": url,
                    "created_at": created_at,
                    "name": name,
                    "expires_at": expires_at,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&objects)?);
    } else {
        for (url, created_at, name, _) in rows {
            let created_at = created_at.as_deref().unwrap_or("-");
            let name = name.as_deref().unwrap_or("-");
            println!("{url}\t{created_at}\t{name}");
        }
    }
    Ok(())
}

/// Creates a short link and prints its URL.
pub async fn shorten(args: ShortenArgs) -> anyhow::Result<()> {
    let client = client()?;
    let server = args.server.url()?;
    let base = base_url(&server)?;
    let token = args.auth.token_at(&server).await?;
    let mut query = vec![("url", args.url.clone())];
    if let Some(ttl) = args.ttl {
        query.push(("ttl", ttl.to_string()));
    }
    let request = authorize(client.post(base.clone()), token.as_deref())
        .query(&query)
        .header(reqwest::header::ACCEPT, "application/json");
    let created: Created<'static> = send_json(request, &base).await?;
    println!("{}", created.url);
    Ok(())
}
