//! `snip login`, `snip whoami` and `snip logout`: signing the command line
//! in as a person through the server's identity provider.
//!
//! `snip login` asks the server to start a device sign-in
//! (`POST /api/login/device`; the server talks to the provider with its own
//! client secret; where the provider offers none, it signs in through the
//! browser and a loopback redirect instead, `loopback`), prints the provider's page and the code to type there,
//! and polls the server (`POST /api/login/device/token`) at the interval it
//! names until the person has signed in; the answer is a login credential
//! for that person in their tenant. It is kept per server in
//! `login.json` in the client's data directory (`$SNIP_CLIENT_DIR`), written
//! 0600, and every command that sends a token sends it to that server when
//! no other token is given, refreshing it (`POST /api/login/refresh`) when
//! less than a quarter of its lifetime is left.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};

use super::{ServerArg, base_url, check, client, send, tokens};
use crate::core::UnixTime;

/// Refresh when less than this many seconds of the credential are left.
const REFRESH_WITHIN: u64 = 3 * 3600;

/// `snip login`.
#[derive(Debug, Clone, Args)]
pub struct LoginArgs {
    #[command(flatten)]
    pub server: ServerArg,
    /// How long to wait for the browser to come back, where the provider
    /// offers no device flow (the loopback redirect).
    #[arg(long, default_value = "10m", value_parser = crate::core::units::parse_duration, value_name = "DURATION")]
    pub timeout: Duration,
}

/// `snip whoami`.
#[derive(Debug, Clone, Args)]
pub struct WhoamiArgs {
    #[command(flatten)]
    pub server: ServerArg,
    #[command(flatten)]
    pub auth: super::TokenArg,
}

/// `snip logout`.
#[derive(Debug, Clone, Args)]
pub struct LogoutArgs {
    #[command(flatten)]
    pub server: ServerArg,
}

/// A person, as the server names them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Person {
    pub subject: String,
    pub name: String,
}

/// A login credential and what the server said about it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Login {
    pub credential: String,
    pub tenant: String,
    pub person: Person,
    pub expires_at: UnixTime,
}

/// `POST /api/login/device`'s answer.
#[derive(Deserialize)]
struct DeviceStarted {
    device_code: String,
    user_code: String,
    verification_uri: String,
    #[serde(default)]
    verification_uri_complete: Option<String>,
    expires_in: u64,
    interval: u64,
}

/// `POST /api/login/device/token`'s answer while the person is not done.
#[derive(Deserialize)]
struct Pending {
    interval: u64,
}

/// `GET /api/login`'s answer.
#[derive(Deserialize)]
struct Whoami {
    tenant: String,
    person: Option<Person>,
    expires_at: Option<UnixTime>,
}

fn now() -> UnixTime {
    crate::core::paste::now()
}

fn load() -> anyhow::Result<(std::path::PathBuf, BTreeMap<String, Login>)> {
    let path = tokens::dir()?.join("login.json");
    let map = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is corrupt", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    Ok((path, map))
}

fn store(server: &str, login: Option<Login>) -> anyhow::Result<()> {
    let (path, mut map) = load()?;
    match login {
        Some(login) => map.insert(server.to_owned(), login),
        None => map.remove(server),
    };
    tokens::save(&path, &map)
}

/// The key a server's login is kept under: its base URL.
fn key(server: &str) -> anyhow::Result<String> {
    Ok(base_url(server)?.to_string())
}

/// The login credential kept for `server`, refreshed first when it is near
/// its expiry; `None` without one, or when it has expired.
pub async fn credential(server: &str) -> anyhow::Result<Option<String>> {
    let key = key(server)?;
    let Some(login) = load()?.1.remove(&key) else {
        return Ok(None);
    };
    let now = now();
    if login.expires_at <= now {
        return Ok(None);
    }
    if login.expires_at - now > REFRESH_WITHIN {
        return Ok(Some(login.credential));
    }
    let base = base_url(server)?;
    let refreshed = client()?
        .post(base.join("api/login/refresh")?)
        .bearer_auth(&login.credential)
        .send()
        .await;
    match refreshed {
        Ok(response) if response.status() == StatusCode::OK => {
            let fresh: Login = response.json().await.context("unexpected answer")?;
            let credential = fresh.credential.clone();
            store(&key, Some(fresh))?;
            Ok(Some(credential))
        }
        // Not refreshed (the server is away, or the login is too old):
        // use what is left of it.
        _ => Ok(Some(login.credential)),
    }
}

/// `snip login`: a device sign-in through the server's identity provider,
/// or, where the provider offers none, a browser sign-in redirected to a
/// loopback listener.
pub async fn login(args: LoginArgs) -> anyhow::Result<()> {
    let server = args.server.url()?;
    let base = base_url(&server)?;
    let http = client()?;
    let response = http
        .post(base.join("api/login/device")?)
        .send()
        .await
        .with_context(|| format!("cannot reach {base}"))?;
    let login = if response.status() == StatusCode::NOT_FOUND {
        // No device flow (or no provider: the loopback start says which).
        super::loopback::sign_in(&http, &base, args.timeout).await?
    } else {
        device_sign_in(&http, &base, check(response).await?).await?
    };
    let name = super::terminal::neutralise(&login.person.name)
        .0
        .into_owned();
    let tenant = super::terminal::neutralise(&login.tenant).0.into_owned();
    store(&key(&server)?, Some(login))?;
    writeln!(std::io::stderr(), "Signed in as {name} in tenant {tenant}.")?;
    Ok(())
}

/// The device sign-in the server started with `started`: prints the page
/// and the code, polls until the person is done; the login credential.
async fn device_sign_in(
    http: &reqwest::Client,
    base: &reqwest::Url,
    started: reqwest::Response,
) -> anyhow::Result<Login> {
    let started: DeviceStarted = started
        .json()
        .await
        .context("unexpected answer from the server")?;
    let page = started
        .verification_uri_complete
        .as_deref()
        .unwrap_or(&started.verification_uri);
    let (page, _) = super::terminal::neutralise(page);
    let (code, _) = super::terminal::neutralise(&started.user_code);
    let mut err = std::io::stderr();
    writeln!(err, "To sign in, open {page}")?;
    writeln!(err, "and enter the code {code}")?;
    writeln!(err, "Waiting for the sign-in…")?;
    let deadline = std::time::Instant::now() + Duration::from_secs(started.expires_in);
    let mut interval = started.interval.clamp(1, 60);
    let poll = base.join("api/login/device/token")?;
    let body = serde_json::json!({ "device_code": started.device_code });
    loop {
        // The wait RFC 8628 asks for between two polls.
        tokio::time::sleep(Duration::from_secs(interval)).await;
        if std::time::Instant::now() > deadline {
            bail!("the code expired before the sign-in finished; run snip login again");
        }
        let response = http
            .post(poll.clone())
            .json(&body)
            .send()
            .await
            .with_context(|| format!("cannot reach {base}"))?;
        if response.status() == StatusCode::ACCEPTED {
            let pending: Pending = response.json().await.context("unexpected answer")?;
            interval = pending.interval.clamp(1, 60);
            continue;
        }
        return check(response)
            .await?
            .json()
            .await
            .context("unexpected answer from the server");
    }
}

/// `snip whoami`: who the kept login (or token) is on the server.
pub async fn whoami(args: WhoamiArgs) -> anyhow::Result<()> {
    let server = args.server.url()?;
    let base = base_url(&server)?;
    let Some(token) = args.auth.token_at(&server).await? else {
        bail!("not signed in to {base}: run snip login");
    };
    let who: Whoami = send(
        client()?.get(base.join("api/login")?).bearer_auth(token),
        &base,
    )
    .await?
    .json()
    .await
    .context("unexpected answer from the server")?;
    let mut out = std::io::stdout().lock();
    let (server_shown, _) = super::terminal::neutralise(base.as_str());
    writeln!(out, "server\t{server_shown}")?;
    writeln!(
        out,
        "tenant\t{}",
        super::terminal::neutralise(&who.tenant).0
    )?;
    if let Some(person) = &who.person {
        let (name, _) = super::terminal::neutralise(&person.name);
        let (subject, _) = super::terminal::neutralise(&person.subject);
        writeln!(out, "person\t{name} ({subject})")?;
    }
    match who.expires_at {
        Some(at) => writeln!(
            out,
            "expires\t{}",
            humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + Duration::from_secs(at))
        )?,
        None => writeln!(out, "expires\tnever")?,
    }
    Ok(())
}

/// `snip logout`: revokes the kept login on the server and forgets it.
pub async fn logout(args: LogoutArgs) -> anyhow::Result<()> {
    let server = args.server.url()?;
    let base = base_url(&server)?;
    let key = key(&server)?;
    let Some(login) = load()?.1.remove(&key) else {
        bail!("not signed in to {base}");
    };
    let answer = client()?
        .delete(base.join("api/login")?)
        .bearer_auth(&login.credential)
        .send()
        .await
        .with_context(|| format!("cannot reach {base}; still signed in"))?;
    // Already ended on the server (expired, revoked): forget it all the same.
    if answer.status() != StatusCode::UNAUTHORIZED {
        check(answer).await?;
    }
    store(&key, None)?;
    eprintln!("Signed out of {base}.");
    Ok(())
}
