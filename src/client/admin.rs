//! `snip admin …`: manage tenants, their programs and tokens through the admin API
//! (`/api/admin`, see `src/http/handlers/admin.rs`). The admin token comes from
//! `SNIP_ADMIN_TOKEN` or `--admin-token-file`, never from a plain flag.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use reqwest::{Method, Url};
use serde_json::Value;

use super::auth::admin_token;
use super::settings::ClientConfig;
use super::{base_url, client, send};
use crate::core::Ttl;
use crate::core::api::{
    NewTenant, NewToken, ProgramView, TenantChange, TenantCreated, TenantView, TokenView,
};
use crate::core::paste::hash_token;
use crate::core::tenant::{Rate, token_id, validate_token_id};
use crate::core::units::{self, format_size, parse_size};

/// `snip admin`.
#[derive(Debug, Clone, Args)]
pub struct AdminArgs {
    #[command(subcommand)]
    pub command: AdminCommand,
    /// The snip server to talk to [default: SNIP_SERVER, then the config
    /// file's server, then http://127.0.0.1:8000].
    #[arg(long, global = true)]
    pub server: Option<String>,
    /// Read the admin token from this file [default: the SNIP_ADMIN_TOKEN environment variable].
    #[arg(long, value_name = "PATH", global = true)]
    pub admin_token_file: Option<PathBuf>,
}

/// What `snip admin` manages.
#[derive(Debug, Clone, Subcommand)]
pub enum AdminCommand {
    /// Create, change, list and delete tenants.
    #[command(subcommand)]
    Tenant(TenantCommand),
    /// Create, revoke and list API tokens.
    #[command(subcommand)]
    Token(TokenCommand),
}

/// `snip admin tenant …`.
#[derive(Debug, Clone, Subcommand)]
pub enum TenantCommand {
    /// Create a tenant and print its first API token.
    Create {
        /// Tenant name: 1–64 characters of a-z, 0-9, _ and -.
        name: String,
        #[command(flatten)]
        limits: Limits,
    },
    /// Change a tenant's limits (the value `none` removes one).
    Update {
        /// Tenant name.
        name: String,
        #[command(flatten)]
        limits: Limits,
    },
    /// List tenants with their limits and usage.
    List,
    /// Delete a tenant that owns no pastes, and its tokens.
    Delete {
        /// Tenant name.
        name: String,
    },
    /// Set, show or clear a tenant's program (a WebAssembly module run on
    /// every paste it creates; see docs/programs.md).
    #[command(subcommand)]
    Program(ProgramCommand),
}

/// `snip admin tenant program …`.
#[derive(Debug, Clone, Subcommand)]
pub enum ProgramCommand {
    /// Set or replace a tenant's program; it applies to the next paste.
    Set {
        /// Tenant name.
        name: String,
        /// The module (.wasm), or `-` for standard input.
        file: PathBuf,
    },
    /// Show a tenant's program: size, SHA-256, when it was set, its limits.
    Show {
        /// Tenant name.
        name: String,
    },
    /// Remove a tenant's program.
    Clear {
        /// Tenant name.
        name: String,
    },
}

/// `snip admin token …`.
#[derive(Debug, Clone, Subcommand)]
pub enum TokenCommand {
    /// Create an API token of a tenant and print it (it is shown only this once).
    Create {
        /// The tenant it acts for.
        #[arg(long)]
        tenant: String,
        /// The token may read and list, but not create or delete.
        #[arg(long)]
        read_only: bool,
        /// Lifetime, e.g. 30d or 12h [default: never expires].
        #[arg(long, value_parser = Ttl::parse)]
        expires: Option<Ttl>,
    },
    /// Revoke a token; it stops working at once.
    Revoke {
        /// The token's ID (tok_…, as `token list` shows it), the token itself
        /// (snip_…), or `-` to read the token from standard input.
        token: String,
    },
    /// List a tenant's tokens (IDs only, never the secrets).
    List {
        /// The tenant.
        #[arg(long)]
        tenant: String,
    },
}

/// The public ID to revoke, from an ID, a token, or `-` (a token on stdin).
///
/// A token is turned into its ID here, so the secret never travels to the
/// server: whoever holds a leaked token can revoke it without looking it up.
fn revocation_target(given: &str) -> anyhow::Result<String> {
    let given = if given == "-" {
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .context("cannot read the token from standard input")?;
        line.trim().to_owned()
    } else {
        given.trim().to_owned()
    };
    if given.starts_with("snip_") {
        return Ok(token_id(&hash_token(&given)));
    }
    validate_token_id(&given).map_err(|e| {
        anyhow::anyhow!(
            "{e}; or give the token itself (snip_…), or - to read it from standard input"
        )
    })?;
    Ok(given)
}

/// A limit on the command line: a value, or `none` to remove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting<T> {
    /// Remove the limit.
    Remove,
    /// Set it.
    Set(T),
}

impl<T> Setting<T> {
    /// The new value: `None` removes the limit.
    fn value(self) -> Option<T> {
        match self {
            Self::Remove => None,
            Self::Set(v) => Some(v),
        }
    }
}

fn setting<T, E: std::fmt::Display>(
    input: &str,
    parse: impl Fn(&str) -> Result<T, E>,
) -> Result<Setting<T>, String> {
    match units::unless(input, "none", parse) {
        Ok(value) => Ok(value.map_or(Setting::Remove, Setting::Set)),
        Err(e) => Err(e.to_string()),
    }
}

fn size_setting(input: &str) -> Result<Setting<u64>, String> {
    setting(input, parse_size)
}

fn rate_setting(input: &str) -> Result<Setting<String>, String> {
    setting(input, |s| Rate::parse(s).map(|r| r.to_string()))
}

fn burst_setting(input: &str) -> Result<Setting<u32>, String> {
    setting(input, |s| {
        s.trim()
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| "a burst is a number of requests, at least 1".to_owned())
    })
}

fn group_setting(input: &str) -> Result<Setting<String>, String> {
    setting(input, |s| Ok::<_, std::convert::Infallible>(s.to_owned()))
}

fn fuel_setting(input: &str) -> Result<Setting<u64>, String> {
    setting(input, |s| {
        s.trim()
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| "fuel is a number of units, at least 1".to_owned())
    })
}

/// A tenant's limits as flags.
#[derive(Debug, Clone, Args)]
pub struct Limits {
    /// Bytes of live pastes the tenant may keep (e.g. 1GiB) [default: unlimited].
    #[arg(long, value_parser = size_setting)]
    pub max_bytes: Option<Setting<u64>>,
    /// Largest single paste (e.g. 16MiB) [default: the server's --max-paste-size].
    #[arg(long, value_parser = size_setting)]
    pub max_paste_size: Option<Setting<u64>>,
    /// Request rate: 50/s, 600/m, 1000/h [default: the server's --tenant-rate].
    #[arg(long, value_parser = rate_setting)]
    pub rate: Option<Setting<String>>,
    /// Requests allowed in a burst above the rate [default: twice the per-second rate].
    #[arg(long, value_parser = burst_setting)]
    pub burst: Option<Setting<u32>>,
    /// Fuel for one run of the tenant's program [default: the server's --program-fuel].
    #[arg(long, value_parser = fuel_setting)]
    pub program_fuel: Option<Setting<u64>>,
    /// Memory for one run of the tenant's program (e.g. 16MiB) [default:
    /// the server's --program-memory].
    #[arg(long, value_parser = size_setting)]
    pub program_memory: Option<Setting<u64>>,
    /// The identity provider's group whose members sign in to the tenant
    /// (`none`: the group named like the tenant) [default: the tenant's name].
    #[arg(long, value_parser = group_setting)]
    pub group: Option<Setting<String>>,
}

impl Limits {
    /// The change the flags given ask for (`null` for `none`).
    fn change(self) -> TenantChange {
        TenantChange {
            max_bytes: self.max_bytes.map(Setting::value),
            max_paste_bytes: self.max_paste_size.map(Setting::value),
            rate: self.rate.map(Setting::value),
            burst: self.burst.map(Setting::value),
            program_fuel: self.program_fuel.map(Setting::value),
            program_memory: self.program_memory.map(Setting::value),
            group: self.group.map(Setting::value),
        }
    }
}

/// An admin API connection.
struct Admin {
    client: reqwest::Client,
    base: Url,
    token: String,
}

impl Admin {
    fn new(args: &AdminArgs) -> anyhow::Result<Self> {
        let token = admin_token(args.admin_token_file.as_deref())?;
        Ok(Self {
            client: client()?,
            base: base_url(&ClientConfig::load()?.server(args.server.as_deref()).value)?,
            token,
        })
    }

    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> anyhow::Result<Value> {
        let url = self.base.join(path)?;
        let mut request = self
            .client
            .request(method, url.clone())
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        Self::answer(request, &url).await
    }

    /// Sends `module` as `application/wasm`.
    async fn put_module(&self, path: &str, module: Vec<u8>) -> anyhow::Result<Value> {
        let url = self.base.join(path)?;
        let request = self
            .client
            .put(url.clone())
            .bearer_auth(&self.token)
            .header(reqwest::header::CONTENT_TYPE, "application/wasm")
            .body(module);
        Self::answer(request, &url).await
    }

    async fn answer(request: reqwest::RequestBuilder, url: &Url) -> anyhow::Result<Value> {
        let text = send(request, url).await?.text().await?;
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(&text).context("unexpected answer from the server")
    }
}

/// One line about a tenant: name, usage and limits, tab-separated.
fn describe_tenant(tenant: &TenantView) -> String {
    let or = |v: Option<String>, default: &str| v.unwrap_or_else(|| default.to_owned());
    format!(
        "{}\tpastes={}\tused={}\tmax-bytes={}\tmax-paste-size={}\trate={}\tburst={}",
        tenant.name,
        tenant.usage.pastes,
        format_size(tenant.usage.bytes),
        or(tenant.max_bytes.map(format_size), "none"),
        or(tenant.max_paste_bytes.map(format_size), "server"),
        or(tenant.rate.clone(), "server"),
        or(tenant.burst.map(|b| b.to_string()), "default"),
    )
}

/// One line about a token: ID, tenant, rights and dates, tab-separated.
fn describe_token(token: &TokenView) -> String {
    format!(
        "{}\ttenant={}\t{}\tcreated={}\texpires={}",
        token.id,
        token.tenant,
        if token.read_only {
            "read-only"
        } else {
            "read-write"
        },
        token.created_at,
        token.expires_at.as_deref().unwrap_or("never"),
    )
}

/// Checks a name or ID that goes into a URL path, so it can only name one segment.
fn segment(value: &str) -> anyhow::Result<&str> {
    let ok = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !ok {
        bail!("{value:?} is not a tenant name or token ID (a-z, 0-9, _ and -)");
    }
    Ok(value)
}

fn parse<T: serde::de::DeserializeOwned>(value: Value) -> anyhow::Result<T> {
    serde_json::from_value(value).context("unexpected answer from the server")
}

fn json<T: serde::Serialize>(body: &T) -> anyhow::Result<Value> {
    serde_json::to_value(body).context("cannot encode the request")
}

/// Prints a new token: the secret on stdout, its details on stderr.
fn print_token(token: &TokenView) -> anyhow::Result<()> {
    let Some(secret) = &token.token else {
        bail!("the server did not return the new token");
    };
    println!("{secret}");
    eprintln!("token {}", describe_token(token));
    Ok(())
}

/// Runs `snip admin …`.
pub async fn run(args: AdminArgs) -> anyhow::Result<()> {
    let admin = Admin::new(&args)?;
    match args.command {
        AdminCommand::Tenant(command) => tenant(&admin, command).await,
        AdminCommand::Token(command) => token(&admin, command).await,
    }
}

async fn tenant(admin: &Admin, command: TenantCommand) -> anyhow::Result<()> {
    match command {
        TenantCommand::Create { name, limits } => {
            let change = limits.change();
            // On create, `none` is the same as leaving a limit out.
            let body = NewTenant {
                name,
                max_bytes: change.max_bytes.flatten(),
                max_paste_bytes: change.max_paste_bytes.flatten(),
                rate: change.rate.flatten(),
                burst: change.burst.flatten(),
                group: change.group.flatten(),
            };
            let answer = admin
                .call(Method::POST, "api/admin/tenants", Some(json(&body)?))
                .await?;
            let created: TenantCreated = parse(answer)?;
            eprintln!("created tenant {}", describe_tenant(&created.tenant));
            print_token(&created.token)
        }
        TenantCommand::Update { name, limits } => {
            let change = limits.change();
            if change == TenantChange::default() {
                bail!(
                    "nothing to change: give --max-bytes, --max-paste-size, --rate, --burst, \
                     --program-fuel, --program-memory or --group"
                );
            }
            let path = format!("api/admin/tenants/{}", segment(&name)?);
            let answer = admin
                .call(Method::PATCH, &path, Some(json(&change)?))
                .await?;
            let tenant: TenantView = parse(answer)?;
            println!("{}", describe_tenant(&tenant));
            Ok(())
        }
        TenantCommand::List => {
            let answer = admin.call(Method::GET, "api/admin/tenants", None).await?;
            for tenant in parse::<Vec<TenantView>>(answer)? {
                println!("{}", describe_tenant(&tenant));
            }
            Ok(())
        }
        TenantCommand::Delete { name } => {
            let path = format!("api/admin/tenants/{}", segment(&name)?);
            admin.call(Method::DELETE, &path, None).await?;
            eprintln!("deleted tenant {name} and its tokens");
            Ok(())
        }
        TenantCommand::Program(command) => program(admin, command).await,
    }
}

/// One line about a program, tab-separated.
fn describe_program(program: &ProgramView) -> String {
    format!(
        "{}	size={}	sha256={}	set={}	fuel={}	memory={}",
        program.tenant,
        program.size,
        program.sha256,
        program.set_at,
        program.fuel,
        format_size(program.memory),
    )
}

async fn program(admin: &Admin, command: ProgramCommand) -> anyhow::Result<()> {
    match command {
        ProgramCommand::Set { name, file } => {
            let path = format!("api/admin/tenants/{}/program", segment(&name)?);
            let module = if file.as_os_str() == "-" {
                let mut module = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin(), &mut module)
                    .context("cannot read the module from standard input")?;
                module
            } else {
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?
            };
            let answer = admin.put_module(&path, module).await?;
            println!("{}", describe_program(&parse(answer)?));
            Ok(())
        }
        ProgramCommand::Show { name } => {
            let path = format!("api/admin/tenants/{}/program", segment(&name)?);
            let answer = admin.call(Method::GET, &path, None).await?;
            println!("{}", describe_program(&parse(answer)?));
            Ok(())
        }
        ProgramCommand::Clear { name } => {
            let path = format!("api/admin/tenants/{}/program", segment(&name)?);
            admin.call(Method::DELETE, &path, None).await?;
            eprintln!("cleared the program of tenant {name}");
            Ok(())
        }
    }
}

async fn token(admin: &Admin, command: TokenCommand) -> anyhow::Result<()> {
    match command {
        TokenCommand::Create {
            tenant,
            read_only,
            expires,
        } => {
            let path = format!("api/admin/tenants/{}/tokens", segment(&tenant)?);
            let expires = expires.map(|ttl| ttl.to_string());
            let body = NewToken { read_only, expires };
            let answer = admin.call(Method::POST, &path, Some(json(&body)?)).await?;
            print_token(&parse(answer)?)
        }
        TokenCommand::Revoke { token } => {
            let token_id = revocation_target(&token)?;
            let path = format!("api/admin/tokens/{}", segment(&token_id)?);
            admin.call(Method::DELETE, &path, None).await?;
            eprintln!("revoked {token_id}");
            Ok(())
        }
        TokenCommand::List { tenant } => {
            let path = format!("api/admin/tenants/{}/tokens", segment(&tenant)?);
            let answer = admin.call(Method::GET, &path, None).await?;
            for token in parse::<Vec<TokenView>>(answer)? {
                println!("{}", describe_token(&token));
            }
            Ok(())
        }
    }
}
