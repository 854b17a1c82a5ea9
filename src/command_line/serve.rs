//! The flags of `snip serve`, and their mapping onto the server's settings
//! ([`ServerConfig`]) and the settings of the layers below it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use ipnet::IpNet;

use super::ConfigError;
use super::tls::TlsArgs;
use crate::client::StoreArgs;
use crate::core::paste::{MAX_PASTE_BYTES, hash_token};
use crate::core::tenant::{Rate, TenantError};
use crate::core::units::{self, parse_duration, parse_size};
use crate::core::{Ttl, files, id};
use crate::http::oidc::OidcSettings;
use crate::http::{
    AnonymousPolicy, AuthConfig, DEFAULT_IPV6_PREFIX, Limit, Limits, Pace, ProxyConfig,
    ProxyHeaders, Site,
};
use crate::logging::LogFormat;
use crate::programs::{self as program, MAX_FUEL, MAX_MEMORY_BYTES, ProgramSettings};
use crate::server::ServerConfig;
use crate::store::{Durability, OpenOptions};

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

    /// Largest paste accepted (bytes, or with a unit: 512KiB, 16MiB; at most 1GiB).
    #[arg(long, env = "SNIP_MAX_PASTE_SIZE", default_value = "16MiB", value_parser = parse_paste_size)]
    pub max_paste_size: u64,

    /// Most files one paste may hold (a form with more `file` parts is refused).
    #[arg(long, env = "SNIP_MAX_FILES", default_value_t = files::DEFAULT_MAX_FILES, value_parser = parse_max_files)]
    pub max_files: usize,

    /// Stop accepting pastes once their bodies take this much space [default: unlimited].
    #[arg(long, env = "SNIP_MAX_STORAGE", value_parser = parse_size)]
    pub max_storage: Option<u64>,

    /// Lifetime of pastes that do not ask for one (30s, 10m, 1h, 1d, 1w, a
    /// number of seconds, or never); at most --max-ttl [default: --max-ttl].
    #[arg(long, env = "SNIP_DEFAULT_TTL", value_parser = Ttl::parse)]
    pub default_ttl: Option<Ttl>,

    /// Longest lifetime a paste may ask for (never: no limit).
    #[arg(long, env = "SNIP_MAX_TTL", default_value = "never", value_parser = Ttl::parse)]
    pub max_ttl: Ttl,

    /// The lifetimes the web form offers, comma-separated, each at most
    /// --max-ttl; the default lifetime is offered too [default:
    /// 10m,1h,1d,1w,30d,365d,never, those up to --max-ttl].
    #[arg(long, env = "SNIP_TTL_CHOICES", value_delimiter = ',', value_parser = Ttl::parse)]
    pub ttl_choices: Option<Vec<Ttl>>,

    /// fsync every write before acknowledging it (power-loss safe; concurrent
    /// writers share fsyncs). Without it a write is acknowledged once the OS has it,
    /// which survives a crash or kill -9 of snip.
    #[arg(long, env = "SNIP_SYNC")]
    pub sync: bool,

    /// Fuel for one run of a tenant's program (about one unit per
    /// WebAssembly instruction); a tenant's own limit replaces it.
    #[arg(long, env = "SNIP_PROGRAM_FUEL", default_value_t = 500_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_FUEL))]
    pub program_fuel: u64,

    /// Memory for one run of a tenant's program; a tenant's own limit
    /// replaces it.
    #[arg(long, env = "SNIP_PROGRAM_MEMORY", default_value = "64MiB", value_parser = parse_program_memory)]
    pub program_memory: u64,

    /// Tenant programs run at once (each on a fiber stack of its own, taking
    /// turns with every other request); more creates wait for one to finish.
    #[arg(long, env = "SNIP_PROGRAM_CONCURRENCY", default_value_t = 8, value_parser = parse_concurrency)]
    pub program_concurrency: u32,

    /// Searches run at once; more wait, in order, for one to finish, so a
    /// burst of searches neither slows every other request nor each other.
    #[arg(long, env = "SNIP_SEARCH_CONCURRENCY", default_value_t = 4, value_parser = parse_concurrency)]
    pub search_concurrency: u32,

    /// Random characters in new paste IDs (one check character is added).
    #[arg(long, env = "SNIP_ID_LENGTH", default_value_t = id::DEFAULT_RANDOM_LEN, value_parser = parse_id_length)]
    pub id_length: usize,

    /// How often expired pastes are deleted and their space reclaimed (the
    /// embedded store's sweeper waits for a write while nothing expires).
    #[arg(long, env = "SNIP_SWEEP_INTERVAL", default_value = "60s", value_parser = parse_duration)]
    pub sweep_interval: Duration,

    /// Time a client has to send its request headers (also the keep-alive idle limit).
    #[arg(long, env = "SNIP_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,

    /// Most bytes of request bodies held at once, across all clients (each
    /// body holds the bytes that have arrived); past it uploads get 503 with
    /// Retry-After [default: 4 × --max-paste-size].
    #[arg(long, env = "SNIP_MAX_INFLIGHT_BYTES", value_parser = parse_size)]
    pub max_inflight_bytes: Option<u64>,

    /// Most bytes of request bodies one client IP (IPv6: --ipv6-prefix
    /// network) may hold at once; past it its uploads get 429 with
    /// Retry-After. A client's only body may pass it [default: a quarter of
    /// --max-inflight-bytes].
    #[arg(long, env = "SNIP_MAX_INFLIGHT_BYTES_PER_IP", value_parser = parse_size)]
    pub max_inflight_bytes_per_ip: Option<u64>,

    /// Time a client may take nothing of a response before its connection is
    /// closed (between two writes that make progress, not for the whole answer).
    #[arg(long, env = "SNIP_SEND_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub send_timeout: Duration,

    /// Most bytes held in memory for large pastes being sent, across all
    /// clients; past it such reads get 503 with Retry-After.
    #[arg(long, env = "SNIP_MAX_RESPONSE_BYTES", default_value = "64MiB", value_parser = parse_size)]
    pub max_response_bytes: u64,

    /// Most of --max-response-bytes one client IP may hold (IPv6 by
    /// --ipv6-prefix network); past it its reads of large pastes get 429.
    #[arg(long, env = "SNIP_MAX_RESPONSE_BYTES_PER_IP", default_value = "16MiB", value_parser = parse_size)]
    pub max_response_bytes_per_ip: u64,

    /// Time a client has to send a whole request body.
    #[arg(long, env = "SNIP_BODY_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub body_timeout: Duration,

    /// Time a client has, after its request headers, to start sending the
    /// body; also the slack of --body-min-rate.
    #[arg(long, env = "SNIP_BODY_FIRST_BYTE_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub body_first_byte_timeout: Duration,

    /// Least average rate of a request body (bytes per second, or with a
    /// unit: 1KiB), counted from the end of --body-first-byte-timeout; a
    /// slower body gets 408 (0: no minimum).
    #[arg(long, env = "SNIP_BODY_MIN_RATE", default_value = "1KiB", value_parser = parse_size)]
    pub body_min_rate: u64,

    /// Memory for the store's caches: the embedded store gives three quarters
    /// to its block cache and a quarter to decoded pastes recently read;
    /// PostgreSQL all of it to pastes recently read.
    #[arg(long, env = "SNIP_CACHE_SIZE", default_value = "16MiB", value_parser = parse_size)]
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

    /// IPv6 clients whose addresses share this many leading bits share one
    /// --ip-rate bucket (64: a subscriber's network; 128: one per address).
    #[arg(long, env = "SNIP_IPV6_PREFIX", default_value_t = DEFAULT_IPV6_PREFIX,
          value_parser = parse_ipv6_prefix)]
    pub ipv6_prefix: u8,

    /// Most connections one client IP may hold open at once (0: no limit);
    /// more are closed at once. IPv6 clients count by --ipv6-prefix network;
    /// trusted proxies are not limited, unless --proxy-protocol names each
    /// connection's client.
    #[arg(long, env = "SNIP_MAX_CONNECTIONS_PER_IP", default_value_t = 256)]
    pub max_connections_per_ip: usize,

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

    /// File holding the admin token (surrounding whitespace ignored), so that
    /// it is not in the command line `ps` shows; instead of --admin-token.
    #[arg(long, env = "SNIP_ADMIN_TOKEN_FILE")]
    pub admin_token_file: Option<PathBuf>,

    /// The OpenID Connect issuer whose people may sign in (its discovery
    /// document is ISSUER/.well-known/openid-configuration); register
    /// {public URL}/signin/oidc/callback as the redirect URI [default: off].
    #[arg(long, env = "SNIP_OIDC_ISSUER", value_name = "URL")]
    pub oidc_issuer: Option<String>,

    /// The client ID snip is registered under at the identity provider.
    #[arg(long, env = "SNIP_OIDC_CLIENT_ID", value_name = "ID")]
    pub oidc_client_id: Option<String>,

    /// File holding the client secret (surrounding whitespace ignored).
    #[arg(long, env = "SNIP_OIDC_CLIENT_SECRET_FILE", value_name = "FILE")]
    pub oidc_client_secret_file: Option<PathBuf>,

    /// The ID token claim listing the person's groups; a group that is the
    /// name of a tenant makes them a member of it.
    #[arg(
        long,
        env = "SNIP_OIDC_TENANT_CLAIM",
        default_value = "groups",
        value_name = "CLAIM"
    )]
    pub oidc_tenant_claim: String,

    /// How long a session opened through the identity provider lasts.
    #[arg(
        long,
        env = "SNIP_OIDC_SESSION_LIFETIME",
        default_value = "12h",
        value_parser = parse_duration,
        value_name = "DURATION"
    )]
    pub oidc_session_lifetime: Duration,

    /// How often a session's person is checked again at the identity
    /// provider (a refresh: their groups, or the end of the session if they
    /// lost the group of its tenant); 0 checks at every request.
    #[arg(
        long,
        env = "SNIP_OIDC_RECHECK_INTERVAL",
        default_value = "5m",
        value_parser = units::parse_duration_or_zero,
        value_name = "DURATION"
    )]
    pub oidc_recheck_interval: Duration,

    /// Whether browsers may also sign in with an API token (off: only
    /// through the identity provider).
    #[arg(long, env = "SNIP_TOKEN_SIGNIN", value_enum, default_value_t = Switch::On)]
    pub token_signin: Switch,

    /// The instance's name, shown in page titles and the header and given
    /// to link previews and oEmbed consumers (1 to 64 characters, no control
    /// characters).
    #[arg(long, env = "SNIP_TITLE", default_value = "snip", value_parser = parse_title)]
    pub title: String,

    /// Whether pages of unlisted pastes that are neither burn after reading
    /// nor encrypted carry Open Graph and Twitter card tags (title and first
    /// lines), which chat programs and social sites show as a preview.
    #[arg(long, env = "SNIP_LINK_PREVIEWS", value_enum, default_value_t = Switch::On)]
    pub link_previews: Switch,

    /// Log filter (error, warn, info, debug, or per module: snip=debug,fjall=warn).
    /// At info every request gets one line (snip::request=warn turns that off).
    #[arg(long, env = "SNIP_LOG", default_value = "info")]
    pub log: String,

    /// Log line format: text for people, json (one object per line) for collectors.
    #[arg(long, env = "SNIP_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Take pastes from netcat on this address: whatever a client sends
    /// until it half-closes (or is idle for 2 s) becomes a paste, and its
    /// URL is written back. Off by default.
    #[arg(long, env = "SNIP_NETCAT_LISTEN")]
    pub netcat_listen: Option<SocketAddr>,

    /// Serve GET /metrics on this separate address (e.g. one only the
    /// monitoring network reaches).
    #[arg(long, env = "SNIP_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Also serve GET /metrics on the main listener, to anyone who can reach
    /// it. Off by default: metrics tell outsiders the load, the error rates
    /// and what the server holds.
    #[arg(long, env = "SNIP_METRICS_PUBLIC", num_args = 0..=1, default_missing_value = "true",
          default_value_t = false, action = clap::ArgAction::Set)]
    pub metrics_public: bool,

    /// Serve every request through axum's router, the hot routes too (for
    /// measuring and testing what the hot path buys). Hidden: it only makes
    /// snip slower.
    #[arg(long, env = "SNIP_NO_FAST_PATH", hide = true, num_args = 0..=1,
          default_missing_value = "true", default_value_t = false, action = clap::ArgAction::Set)]
    pub no_fast_path: bool,

    /// A TOML file with any of these options (keys as the long flags).
    #[arg(long, env = "SNIP_CONFIG")]
    pub config: Option<PathBuf>,

    /// HTTPS: certificate files or ACME, and the plain-HTTP redirect.
    #[command(flatten)]
    pub tls: TlsArgs,
}

impl ServeArgs {
    /// The server's settings. `--proxy-protocol` is checked here rather than
    /// with clap's `requires`, which would also fire for SNIP_PROXY_PROTOCOL=false.
    pub fn server_config(&self) -> Result<ServerConfig, ConfigError> {
        if self.proxy_protocol && self.trusted_proxy.is_empty() {
            return Err(ConfigError::ProxyProtocolWithoutTrustedProxy);
        }
        let lifetimes = self.lifetimes()?;
        Ok(ServerConfig {
            listen: self.listen,
            store: self.store.location_or(&self.data_dir),
            store_options: self.store_options(),
            public_url: self.public_url.clone(),
            limits: self.limits(lifetimes),
            auth: self.auth()?,
            ip_limit: self.ip_rate.0.map(|rate| Limit::new(rate, self.ip_burst)),
            ipv6_prefix: self.ipv6_prefix,
            max_connections_per_ip: Some(self.max_connections_per_ip).filter(|&max| max > 0),
            tenant_limit: self
                .tenant_rate
                .0
                .map(|rate| Limit::new(rate, self.tenant_burst)),
            proxy_protocol: self.proxy_protocol,
            header_timeout: self.header_timeout,
            send_timeout: self.send_timeout,
            sweep_interval: self.sweep_interval,
            metrics_listen: self.metrics_listen,
            metrics_public: self.metrics_public,
            fast_path: !self.no_fast_path,
            programs: ProgramSettings {
                defaults: program::Limits {
                    fuel: self.program_fuel,
                    memory: self.program_memory,
                },
                concurrency: self.program_concurrency,
            },
            search_concurrency: self.search_concurrency as usize,
            tls: self.tls.tls_config(&self.data_dir),
            redirect_http: self.tls.redirect_http,
            hsts: self.tls.hsts.0,
            netcat_listen: self.netcat_listen,
            site: Site {
                name: self.title.clone(),
                link_previews: self.link_previews == Switch::On,
            },
        })
    }

    /// How the store is opened.
    fn store_options(&self) -> OpenOptions {
        OpenOptions {
            max_bytes: self.max_storage,
            durability: self.durability(),
            cache_bytes: self.cache_size,
            ..self.store.open_options()
        }
    }

    /// How writes are acknowledged.
    fn durability(&self) -> Durability {
        if self.sync {
            Durability::Fsync
        } else {
            Durability::Os
        }
    }

    /// The lifetimes pastes get and may ask for: the default (`--max-ttl`
    /// unless given, so a limit alone never refuses a paste that asks for
    /// nothing), the longest, and the form's choices, each checked against
    /// the longest so that no setting refuses what another offers.
    fn lifetimes(&self) -> Result<Lifetimes, ConfigError> {
        let max = self.max_ttl;
        let default = self.default_ttl.unwrap_or(max);
        if default > max {
            return Err(ConfigError::DefaultTtlTooLong { default, max });
        }
        let choices = match &self.ttl_choices {
            Some(choices) => {
                if let Some(&choice) = choices.iter().find(|&&choice| choice > max) {
                    return Err(ConfigError::TtlChoiceTooLong { choice, max });
                }
                choices.clone()
            }
            None => STANDARD_TTL_CHOICES
                .iter()
                .filter_map(|choice| Ttl::parse(choice).ok())
                .filter(|&choice| choice <= max)
                .collect(),
        };
        Ok(Lifetimes {
            default,
            max,
            choices,
        })
    }

    /// What a paste may be.
    fn limits(&self, lifetimes: Lifetimes) -> Limits {
        let max_inflight_bytes = self
            .max_inflight_bytes
            .unwrap_or(self.max_paste_size.saturating_mul(4));
        Limits {
            max_paste_bytes: self.max_paste_size,
            max_files: self.max_files,
            default_ttl: lifetimes.default,
            max_ttl: lifetimes.max,
            ttl_choices: lifetimes.choices,
            id_length: self.id_length,
            body_pace: Pace {
                whole: self.body_timeout,
                first_byte: self.body_first_byte_timeout,
                min_rate: self.body_min_rate,
            },
            max_inflight_bytes,
            max_inflight_bytes_per_ip: self
                .max_inflight_bytes_per_ip
                .unwrap_or(max_inflight_bytes / 4),
            max_response_bytes: self.max_response_bytes,
            max_response_bytes_per_ip: self.max_response_bytes_per_ip,
        }
    }

    /// Who may do what, and whose forwarding headers are believed.
    fn auth(&self) -> Result<AuthConfig, ConfigError> {
        Ok(AuthConfig {
            anonymous: self.anonymous,
            proxy: ProxyConfig {
                trusted: self.trusted_proxy.clone(),
                headers: self.proxy_headers,
            },
            admin_token_hash: self.admin_token()?.map(|t| hash_token(&t.0)),
            oidc: self.oidc()?,
            token_signin: self.token_signin == Switch::On,
        })
    }

    /// Sign-in through the identity provider: all three of issuer, client ID
    /// and secret file, or none.
    fn oidc(&self) -> Result<Option<OidcSettings>, ConfigError> {
        let settings = match (
            &self.oidc_issuer,
            &self.oidc_client_id,
            &self.oidc_client_secret_file,
        ) {
            (None, None, None) => None,
            (Some(issuer), Some(client_id), Some(path)) => {
                let bad = |error: String| ConfigError::OidcSecretFile {
                    path: path.clone(),
                    error,
                };
                let secret = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
                let secret = secret.trim();
                if secret.is_empty() {
                    return Err(bad("it is empty".into()));
                }
                Some(OidcSettings {
                    issuer: issuer.trim_end_matches('/').to_owned(),
                    client_id: client_id.clone(),
                    client_secret: secret.to_owned(),
                    tenant_claim: self.oidc_tenant_claim.clone(),
                    session_lifetime: self.oidc_session_lifetime,
                    recheck_interval: self.oidc_recheck_interval,
                })
            }
            _ => return Err(ConfigError::OidcIncomplete),
        };
        if settings.is_none() && self.token_signin == Switch::Off {
            return Err(ConfigError::NoSignin);
        }
        Ok(settings)
    }

    /// The admin token, from --admin-token or --admin-token-file (not both:
    /// which one wins would be a guess).
    fn admin_token(&self) -> Result<Option<Secret>, ConfigError> {
        match (&self.admin_token, &self.admin_token_file) {
            (Some(_), Some(_)) => Err(ConfigError::TwoAdminTokens),
            (Some(token), None) => Ok(Some(token.clone())),
            (None, Some(path)) => read_secret(path).map(Some),
            (None, None) => Ok(None),
        }
    }
}

/// The web form's lifetimes when `--ttl-choices` is not given (those up to
/// `--max-ttl`).
const STANDARD_TTL_CHOICES: [&str; 7] = ["10m", "1h", "1d", "1w", "30d", "365d", "never"];

/// The lifetimes of [`ServeArgs::lifetimes`], checked against each other.
struct Lifetimes {
    default: Ttl,
    max: Ttl,
    choices: Vec<Ttl>,
}

/// A setting that is on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// Reads a secret from the file at `path`, without surrounding whitespace.
fn read_secret(path: &Path) -> Result<Secret, ConfigError> {
    let bad = |error: String| ConfigError::AdminTokenFile {
        path: path.to_owned(),
        error,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    text.trim().parse().map_err(bad)
}

/// A paste size limit: at most [`MAX_PASTE_BYTES`], so that every paste a
/// server accepts can be stored on either backend and backed up.
pub(super) fn parse_paste_size(input: &str) -> Result<u64, String> {
    let size = parse_size(input).map_err(|e| e.to_string())?;
    if size > MAX_PASTE_BYTES {
        return Err(format!(
            "must be at most {MAX_PASTE_BYTES} bytes (1GiB), the largest paste snip stores"
        ));
    }
    Ok(size)
}

pub(super) fn parse_id_length(input: &str) -> Result<usize, String> {
    let range = id::MIN_RANDOM_LEN..=id::MAX_RANDOM_LEN;
    input
        .parse()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| format!("must be a number from {} to {}", range.start(), range.end()))
}

/// How many tenant programs, or searches, run at once: 1 to 1024.
pub(super) fn parse_concurrency(input: &str) -> Result<u32, String> {
    input
        .parse()
        .ok()
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| "must be a number from 1 to 1024".to_owned())
}

/// The most files one paste may hold, 1 to 1000.
pub(super) fn parse_max_files(input: &str) -> Result<usize, String> {
    input
        .parse()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| "must be a number from 1 to 1000".to_owned())
}

/// The most characters of an instance's name (`--title`): it heads every
/// page and fits a browser tab.
const MAX_TITLE_CHARS: usize = 64;

/// An instance's name: 1 to [`MAX_TITLE_CHARS`] characters, none of them
/// a control character, not only spaces.
pub(super) fn parse_title(input: &str) -> Result<String, String> {
    if input.trim().is_empty() {
        return Err("must not be empty".to_owned());
    }
    if input.chars().count() > MAX_TITLE_CHARS {
        return Err(format!("must be at most {MAX_TITLE_CHARS} characters"));
    }
    if input.chars().any(char::is_control) {
        return Err("must not hold control characters".to_owned());
    }
    Ok(input.trim().to_owned())
}

/// An IPv6 prefix length, 0 to 128.
pub(super) fn parse_ipv6_prefix(input: &str) -> Result<u8, String> {
    input
        .parse()
        .ok()
        .filter(|&bits| bits <= 128)
        .ok_or_else(|| "must be a number from 0 to 128".to_owned())
}

/// A rate limit, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateSetting(pub Option<Rate>);

pub(super) fn parse_rate(input: &str) -> Result<RateSetting, TenantError> {
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

/// A program's memory limit: a size from 64 KiB (one WebAssembly page) to
/// [`MAX_MEMORY_BYTES`].
fn parse_program_memory(text: &str) -> Result<u64, String> {
    let size = parse_size(text).map_err(|e| e.to_string())?;
    if (64 << 10..=MAX_MEMORY_BYTES).contains(&size) {
        Ok(size)
    } else {
        Err("a program's memory is 64KiB to 1GiB".into())
    }
}
