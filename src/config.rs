//! Command-line interface and server configuration.
//!
//! Every `serve` option can be given, from lowest to highest precedence, as its
//! default, in a TOML file (`--config`, keys named like the long flags:
//! `max-paste-size = "8MiB"`), as an environment variable (`SNIP_MAX_PASTE_SIZE`),
//! or as a flag. The TOML layer is applied by turning each key into a flag
//! placed before the real arguments (later flags win), skipping keys whose
//! environment variable is set, so clap stays the single parser and `--help`
//! the single reference.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use ipnet::IpNet;

use crate::core::tenant::{Rate, TenantError};
use crate::core::units::{self, UnitError, parse_duration, parse_size};
use crate::core::{Ttl, id};
use crate::http::{AnonymousPolicy, ProxyConfig, ProxyHeaders};
use crate::logging::LogFormat;
use crate::store::{Durability, Location, OpenOptions};

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
    Put(crate::cli::PutArgs),
    /// Print a paste's bytes, decrypted with the link's #key if it is encrypted
    /// (revealing, and so destroying, a burn paste).
    Get(crate::cli::GetArgs),
    /// Delete a paste with its delete token (or the tenant's API token).
    Delete(crate::cli::DeleteArgs),
    /// List the tenant's pastes, newest first (needs SNIP_TOKEN).
    List(crate::cli::ListArgs),
    /// Make a short link that redirects to a URL and print it.
    Shorten(crate::cli::ShortenArgs),
    /// Manage tenants and tokens through the admin API (needs SNIP_ADMIN_TOKEN).
    Admin(crate::cli::admin::AdminArgs),
    /// Write a checksummed dump of every live paste, tenant and token, from a
    /// running server (admin API) or directly from a store.
    Backup(crate::cli::backup::BackupArgs),
    /// Load a dump into a store (all or nothing; the dump is checked first).
    Restore(crate::cli::backup::RestoreArgs),
    /// Copy every live paste, tenant and token from one store to another.
    Migrate(crate::cli::backup::MigrateArgs),
}

/// Options of the server.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free port).
    #[arg(long, env = "SNIP_LISTEN", default_value = "127.0.0.1:8000")]
    pub listen: SocketAddr,

    /// Directory of the embedded store.
    #[arg(long, env = "SNIP_DATA_DIR", default_value = "./snip-data")]
    pub data_dir: PathBuf,

    #[command(flatten)]
    pub store: StoreArgs,

    /// Base of the URLs snip prints, e.g. `https://paste.example.com`
    /// [default: http:// and the listen address, or the scheme and Host a
    /// --trusted-proxy passes on]. Never taken from an untrusted client's Host header.
    #[arg(long, env = "SNIP_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Largest paste accepted (bytes, or with a unit: 512KiB, 16MiB, 1GiB).
    #[arg(long, env = "SNIP_MAX_PASTE_SIZE", default_value = "16MiB", value_parser = parse_size)]
    pub max_paste_size: u64,

    /// Stop accepting pastes once their bodies take this much space [default: unlimited].
    #[arg(long, env = "SNIP_MAX_STORAGE", value_parser = parse_size)]
    pub max_storage: Option<u64>,

    /// Lifetime of pastes that do not ask for one (30s, 10m, 1h, 1d, 1w or never).
    #[arg(long, env = "SNIP_DEFAULT_TTL", default_value = "never", value_parser = Ttl::parse)]
    pub default_ttl: Ttl,

    /// Longest lifetime a paste may ask for (never: no limit).
    #[arg(long, env = "SNIP_MAX_TTL", default_value = "never", value_parser = Ttl::parse)]
    pub max_ttl: Ttl,

    /// fsync every write before acknowledging it (power-loss safe; concurrent
    /// writers share fsyncs). Without it a write is acknowledged once the OS has it,
    /// which survives a crash or kill -9 of snip.
    #[arg(long, env = "SNIP_SYNC")]
    pub sync: bool,

    /// Random characters in new paste IDs (one check character is added).
    #[arg(long, env = "SNIP_ID_LENGTH", default_value_t = id::DEFAULT_RANDOM_LEN, value_parser = parse_id_length)]
    pub id_length: usize,

    /// How often expired pastes are deleted and their space reclaimed.
    #[arg(long, env = "SNIP_SWEEP_INTERVAL", default_value = "60s", value_parser = parse_duration)]
    pub sweep_interval: Duration,

    /// Time a client has to send its request headers (also the keep-alive idle limit).
    #[arg(long, env = "SNIP_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,

    /// Time a client has to send a whole request body.
    #[arg(long, env = "SNIP_BODY_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub body_timeout: Duration,

    /// Memory for the embedded store's caches: three quarters for its block
    /// cache, a quarter for decoded pastes recently read.
    #[arg(long, env = "SNIP_CACHE_SIZE", default_value = "32MiB", value_parser = parse_size)]
    pub cache_size: u64,

    /// What clients without a token may do.
    #[arg(long, env = "SNIP_ANONYMOUS", value_enum, default_value_t = AnonymousPolicy::Allowed)]
    pub anonymous: AnonymousPolicy,

    /// Request rate per client IP for anonymous clients (50/s, 600/m, or off).
    #[arg(long, env = "SNIP_IP_RATE", default_value = "100/s", value_parser = parse_rate)]
    pub ip_rate: RateSetting,

    /// Requests an anonymous client may send in a burst above --ip-rate [default: twice the per-second rate].
    #[arg(long, env = "SNIP_IP_BURST")]
    pub ip_burst: Option<u32>,

    /// Request rate of tenants that have no rate of their own (or off).
    #[arg(long, env = "SNIP_TENANT_RATE", default_value = "off", value_parser = parse_rate)]
    pub tenant_rate: RateSetting,

    /// Burst of tenants that have no burst of their own [default: twice the per-second rate].
    #[arg(long, env = "SNIP_TENANT_BURST")]
    pub tenant_burst: Option<u32>,

    /// Proxies (CIDR, comma-separated) whose forwarding headers (client IP,
    /// scheme, host) and PROXY protocol headers are believed [default: none].
    #[arg(long, env = "SNIP_TRUSTED_PROXY", value_delimiter = ',')]
    pub trusted_proxy: Vec<IpNet>,

    /// Which forwarding headers the trusted proxies set; the other family is ignored.
    #[arg(long, env = "SNIP_PROXY_HEADERS", value_enum, default_value_t = ProxyHeaders::XForwarded)]
    pub proxy_headers: ProxyHeaders,

    /// Require a PROXY protocol (v1 or v2) header from a --trusted-proxy at the
    /// start of every connection; connections without one are closed.
    #[arg(long, env = "SNIP_PROXY_PROTOCOL")]
    pub proxy_protocol: bool,

    /// Token that unlocks the admin API (/api/admin, `snip admin`) [default: admin API off].
    #[arg(long, env = "SNIP_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<Secret>,

    /// Log filter (error, warn, info, debug, or per module: snip=debug,fjall=warn).
    /// At info every request gets one line (snip::request=warn turns that off).
    #[arg(long, env = "SNIP_LOG", default_value = "info")]
    pub log: String,

    /// Log line format: text for people, json (one object per line) for collectors.
    #[arg(long, env = "SNIP_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Serve GET /metrics on this separate address instead of the main one
    /// (which then answers /metrics with 404) [default: on the main listener].
    #[arg(long, env = "SNIP_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// A TOML file with any of these options (keys as the long flags).
    #[arg(long, env = "SNIP_CONFIG")]
    pub config: Option<PathBuf>,

    /// HTTPS: certificate files or ACME, and the plain-HTTP redirect.
    #[command(flatten)]
    pub tls: TlsArgs,
}

/// The default ACME directory: Let's Encrypt's production CA.
pub const LETS_ENCRYPT: &str = "https://acme-v02.api.letsencrypt.org/directory";

/// Options that make snip serve HTTPS itself (see the README's TLS section).
#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("tls_source").args(["tls_cert", "acme_domain"]).multiple(false)))]
pub struct TlsArgs {
    /// Serve HTTPS with this certificate chain (PEM, leaf first); needs --tls-key.
    /// Reloaded when the file changes or on SIGHUP.
    #[arg(long, env = "SNIP_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// Private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "SNIP_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// How often --tls-cert and --tls-key are checked for changes (off: only on SIGHUP).
    #[arg(long, env = "SNIP_TLS_RELOAD_INTERVAL", default_value = "2s", value_parser = parse_interval)]
    pub tls_reload_interval: Interval,

    /// Get and renew certificates for this domain (comma-separated for several)
    /// from an ACME CA, answering its TLS-ALPN-01 challenge on the HTTPS port; needs --acme-email.
    #[arg(long, env = "SNIP_ACME_DOMAIN", value_delimiter = ',', requires = "acme_email", value_parser = parse_domain)]
    pub acme_domain: Vec<String>,

    /// Contact address given to the ACME CA (expiry and policy mail).
    #[arg(long, env = "SNIP_ACME_EMAIL", requires = "acme_domain", value_parser = parse_email)]
    pub acme_email: Option<String>,

    /// Directory URL of the ACME CA.
    #[arg(long, env = "SNIP_ACME_DIRECTORY", default_value = LETS_ENCRYPT, requires = "acme_domain")]
    pub acme_directory: String,

    /// Trust only this CA (PEM) for the ACME directory's own HTTPS, e.g. a test CA [default: the system's roots].
    #[arg(long, env = "SNIP_ACME_CA_ROOT", requires = "acme_domain")]
    pub acme_ca_root: Option<PathBuf>,

    /// Also listen for plain HTTP on this address and redirect it (308) to the HTTPS public URL.
    #[arg(long, env = "SNIP_REDIRECT_HTTP", requires = "tls_source")]
    pub redirect_http: Option<SocketAddr>,
}

impl TlsArgs {
    /// Whether snip serves HTTPS.
    pub fn enabled(&self) -> bool {
        self.tls_cert.is_some() || !self.acme_domain.is_empty()
    }
}

/// A period, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval(pub Option<Duration>);

fn parse_interval(input: &str) -> Result<Interval, UnitError> {
    units::unless(input, "off", parse_duration).map(Interval)
}

/// A DNS name an ACME CA can issue for: letters, digits, `-` and `.`, no wildcard.
fn parse_domain(input: &str) -> Result<String, String> {
    let domain = input.trim().trim_end_matches('.').to_ascii_lowercase();
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if domain.len() > 253
        || !domain.contains('.') && domain != "localhost"
        || !domain.split('.').all(label_ok)
    {
        return Err(format!(
            "{input:?} is not a domain name like paste.example.com"
        ));
    }
    Ok(domain)
}

fn parse_email(input: &str) -> Result<String, String> {
    match input.split_once('@') {
        Some((user, host))
            if !user.is_empty() && host.contains('.') && !input.contains(char::is_whitespace) =>
        {
            Ok(input.to_owned())
        }
        _ => Err(format!("{input:?} is not an email address")),
    }
}

/// Where the pastes live: shared by `serve`, `backup`, `restore` and `migrate`.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// The store: a directory (embedded, the default: --data-dir) or a
    /// postgres:// URL shared by several instances.
    #[arg(long = "store", env = "SNIP_STORE", value_name = "DIR|URL")]
    pub location: Option<Location>,

    /// PostgreSQL: keep snip's tables in this schema (created if absent) [default: the search path].
    #[arg(long, env = "SNIP_STORE_SCHEMA", value_parser = parse_schema)]
    pub store_schema: Option<String>,

    /// PostgreSQL: most connections this instance opens.
    #[arg(long, env = "SNIP_STORE_POOL_SIZE", default_value_t = 16)]
    pub store_pool_size: usize,

    /// PostgreSQL: longest wait for a connection; past it a request fails with 503.
    #[arg(long, env = "SNIP_STORE_TIMEOUT", default_value = "5s", value_parser = parse_duration)]
    pub store_timeout: Duration,
}

impl StoreArgs {
    /// The store's location: `--store`, or the embedded store in `data_dir`.
    pub fn location_or(&self, data_dir: &std::path::Path) -> Location {
        self.location
            .clone()
            .unwrap_or_else(|| Location::Embedded(data_dir.to_path_buf()))
    }

    /// Open options with the PostgreSQL settings filled in.
    pub fn open_options(&self) -> OpenOptions {
        OpenOptions {
            schema: self.store_schema.clone(),
            pool_size: self.store_pool_size,
            timeout: self.store_timeout,
            ..OpenOptions::default()
        }
    }
}

fn parse_schema(input: &str) -> Result<String, String> {
    crate::store::postgres::schema::validate_schema(input).map(|()| input.to_owned())
}

impl ServeArgs {
    /// Where the store is, and how to open it.
    pub fn store_location(&self) -> (Location, OpenOptions) {
        let options = OpenOptions {
            max_bytes: self.max_storage,
            durability: self.durability(),
            cache_bytes: self.cache_size,
            ..self.store.open_options()
        };
        (self.store.location_or(&self.data_dir), options)
    }

    /// How writes are acknowledged.
    pub fn durability(&self) -> Durability {
        if self.sync {
            Durability::Fsync
        } else {
            Durability::Os
        }
    }

    /// Whose forwarding headers are believed, and which.
    pub fn proxy_config(&self) -> ProxyConfig {
        ProxyConfig {
            trusted: self.trusted_proxy.clone(),
            headers: self.proxy_headers,
        }
    }

    /// The base of printed URLs: `--public-url`, or derived from the bound
    /// address (`https://` with TLS, and the first ACME domain if there is one).
    pub fn public_url(&self, bound: SocketAddr) -> String {
        match &self.public_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => {
                let mut addr = bound;
                if addr.ip().is_unspecified() {
                    addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
                }
                match (self.tls.enabled(), self.tls.acme_domain.first()) {
                    (false, _) => format!("http://{addr}"),
                    (true, Some(domain)) if bound.port() == 443 => format!("https://{domain}"),
                    (true, Some(domain)) => format!("https://{domain}:{}", bound.port()),
                    (true, None) => format!("https://{addr}"),
                }
            }
        }
    }
}

/// Parses the command line, applying the TOML file named by `--config`.
pub fn parse() -> anyhow::Result<Cli> {
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
    let file_flags = flags_from_toml(&path)?;
    let mut merged = vec![args[0].clone()];
    let rest = &args[1..];
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
    let matches = Cli::command()
        .try_get_matches_from(merged)
        .with_context(|| format!("in config file {}", path.display()))?;
    Ok(Cli::from_arg_matches(&matches)?)
}

/// Turns `key = value` lines into `--key=value` flags, skipping keys set in the environment.
fn flags_from_toml(path: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config file {}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .with_context(|| format!("config file {} is not valid TOML", path.display()))?;
    let mut flags = Vec::new();
    for (key, value) in table {
        let key = key.replace('_', "-");
        if key == "config" {
            bail!(
                "config file {}: 'config' cannot be set inside a config file",
                path.display()
            );
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
            other => bail!(
                "config file {}: {key} has an unsupported value {other}",
                path.display()
            ),
        }
    }
    Ok(flags)
}

fn parse_id_length(input: &str) -> Result<usize, String> {
    let range = id::MIN_RANDOM_LEN..=id::MAX_RANDOM_LEN;
    input
        .parse()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| format!("must be a number from {} to {}", range.start(), range.end()))
}

/// A rate limit, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateSetting(pub Option<Rate>);

fn parse_rate(input: &str) -> Result<RateSetting, TenantError> {
    units::unless(input, "off", Rate::parse).map(RateSetting)
}

/// A secret from the command line or environment; `Debug` never shows it.
#[derive(Clone)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl std::str::FromStr for Secret {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.len() < 16 {
            return Err("must be at least 16 characters".into());
        }
        Ok(Self(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Domain names and email addresses for ACME are checked at startup.
    #[test]
    fn acme_names() {
        assert_eq!(
            parse_domain("Paste.Example.com."),
            Ok("paste.example.com".into())
        );
        assert!(parse_domain("*.example.com").is_err());
        assert!(parse_domain("exa mple.com").is_err());
        assert!(parse_domain("-bad.example.com").is_err());
        assert!(parse_domain("nodot").is_err());
        assert!(parse_email("ops@example.com").is_ok());
        assert!(parse_email("ops").is_err());
        assert!(parse_email("@example.com").is_err());
    }

    /// The clap definition is internally consistent.
    #[test]
    fn cli_definition() {
        Cli::command().debug_assert();
    }
}
